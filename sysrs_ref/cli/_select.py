"""The ``select`` subcommand: one algorithm, once, on a score matrix or random scores; the model it picks.

On random scores (``--stochastic bernoulli``, samples, a finite law) the
run is :func:`sysrs_ref.select` with ``seed=--seed``: the seed draws the
query order(s), then the noise of every cell
(:func:`~sysrs_ref.stochastic.random_stochastic_draw`), and the choice is
judged against the truth mu_i = (1/L) sum_j E[S_ij]. UCB-E-LRF fits its
ensemble with the compiled fit (:func:`sysrs_ref.fast.lrf.fit_ensemble_compiled`: the reference's doubles,
numpy's fit where the compiled passes were not built).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sysrs_ref._checks import check_int
from sysrs_ref._limits import NOTE_SECONDS, Need, check_need, duration
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.algorithms.driver import select, select_need
from sysrs_ref.cli._common import (
    JSON_HELP,
    JsonValue,
    emit,
    labelled,
    run_arguments,
    run_from,
    stochastic_fields,
    stochastic_line,
    with_names,
)
from sysrs_ref.fast.lrf import fit_ensemble_compiled
from sysrs_ref.schedule import Budget
from sysrs_ref.stochastic import StochasticInstance

__all__ = ["EXAMPLE", "NAME_KEYS", "add_arguments", "run"]

EXAMPLE = "--scores gsm --budget 12% --algorithm sysrs --seed 1 --json"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``select``."""
    run_arguments(sub)
    sub.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed of the draw (default 0); on random scores it draws the query order(s), then every cell's noise",
    )
    sub.add_argument("--json", action="store_true", help=JSON_HELP)


#: The JSON keys that hold model indices, and the keys of their names (added when the instance has names).
NAME_KEYS = {"chosen": "chosen_name", "ranking": "ranking_names", "true_best": "true_best_names"}


def run(args: argparse.Namespace) -> None:
    """``select``: run the algorithm once and print its choice."""
    check_int(args.seed, "--seed", least=0)

    def declared(n_models: int, n_queries: int) -> Need:  # the reference's need, refused before the matrix is read
        return select_need(n_models, n_queries, Budget.parse(args.budget, n_models, n_queries).n)

    spec, instance, budget, params, checked, names = run_from(args, None if args.stochastic else declared)
    given: dict[str, Any] = dict(params)  # only the algorithm's parameters: never draw or seed
    # UCB-E-LRF: the reference's doubles from the compiled fit, not the pure-Python fit's tens of seconds per fit
    fit = fit_ensemble_compiled if spec.fitted is not None else None
    need = select_need(instance.n_models, instance.n_queries, budget.n)
    if need.seconds > NOTE_SECONDS and check_need(need):  # beyond the limit select refuses; a long run is said first
        print(f"note: {need.what} takes about {duration(need.seconds)} ({need.complexity})", file=sys.stderr)
    outcome = select(instance, budget, spec.name, seed=args.seed, fit=fit, **given)  # Python's select: one path for all
    full = instance.n_models * instance.n_queries
    payload: dict[str, JsonValue] = {
        "algorithm": spec.name,
        "params": {key: str(value) for key, value in checked.items()},
        "K": instance.n_models,
        "L": instance.n_queries,
        **stochastic_fields(instance),
        "budget": budget.n,
        "spent": outcome.spent,
        "chosen": outcome.chosen,
        "ranking": list(outcome.ranking),
        "seed": args.seed,
        "true_best": sorted(instance.best),
        "correct": outcome.chosen in instance.best,
    }
    shown = ", ".join(labelled(model, names) for model in outcome.ranking[:10])
    best = sorted(instance.best)
    best_models = ", ".join(f"model {labelled(model, names)}" for model in best[:10]) + (
        f" and {len(best) - 10:,} more" if len(best) > 10 else ""
    )
    more = ", ..." if instance.n_models > 10 else ""
    text = "\n".join(
        [
            f"{spec.title} on {args.scores}: {matrix_shape(instance.n_models, instance.n_queries)}, "
            f"seed {args.seed}"
            + "".join(f", {key} = {checked[key]}" for key in list(checked)[:1]),  # its first parameter
            f"budget:  {counted(budget.n, 'evaluation', grouped=True)} ({100 * budget.n / full:.4g}% of {full:,})",
            f"chose:   model {labelled(outcome.chosen, names)}, mean {float(instance.means[outcome.chosen]):.4f}"
            f" ({'a true best model' if payload['correct'] else 'NOT a best model'})",
            f"best:    {best_models}, mean {float(max(instance.means)):.4f}",
            f"spent:   {counted(outcome.spent, 'evaluation', grouped=True)} ({100 * outcome.spent / full:.3g}% of full evaluation)",
            f"ranking: {shown}{more}",
        ]
        + ([stochastic_line(instance)] if isinstance(instance, StochasticInstance) else [])
    )
    emit(args, with_names(payload, names, NAME_KEYS), text)
