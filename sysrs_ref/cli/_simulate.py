"""The ``simulate`` subcommand: R seeded runs of one or several algorithms at a grid of budgets, on common draws.

On random scores (``--stochastic bernoulli``, samples, a finite law) run r
also draws every cell's noise after its query order(s), from the same
generator (:func:`~sysrs_ref.simulation.simulate_many`), and accuracy is
judged against the truth mu_i = (1/L) sum_j E[S_ij].
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from sysrs_ref._checks import check_int
from sysrs_ref._limits import Need
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.algorithms.registry import ALGORITHMS, get_algorithm
from sysrs_ref.cli._common import (
    JSON_HELP,
    SCORES_HELP,
    WARMUP_HELP,
    JsonValue,
    algorithm_params,
    emit,
    labelled,
    read_scores,
    stochastic_argument,
    stochastic_fields,
    stochastic_line,
)
from sysrs_ref.cli._progress import Progress
from sysrs_ref.errors import SysrsError
from sysrs_ref.instance import Instance
from sysrs_ref.simulation import PAPER_SIX, SimulationResult, parse_algorithm_list, runs_need, simulate_many
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.topm import parse_top_m

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = (
    "--scores gsm --algorithm sysrs --budgets 8%,20%,35% --runs 1000 --seed 0 --workers 2\n"
    "  python -m sysrs_ref simulate --scores gsm --algorithm all --budgets 8%,20% --runs 1000"
)


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``simulate``."""
    sub.add_argument("--scores", required=True, metavar="F", help=SCORES_HELP)
    stochastic_argument(sub)
    sub.add_argument(
        "--algorithm",
        required=True,
        metavar="NAME",
        help=f"one of {', '.join(ALGORITHMS)}; or several, comma-separated, with parameters (sysrs,sr,ucbe:a=0.1), "
        f"run on the same draws; or all ({', '.join(PAPER_SIX)}: the paper's table)",
    )
    sub.add_argument(
        "--budgets",
        required=True,
        metavar="B1,B2,...",
        help="comma-separated budgets: evaluations (5000) or percentages of K*L (8%%,1.25%%); all use the same draws",
    )
    sub.add_argument("--runs", required=True, type=int, metavar="R", help="number of runs, each with its own draw")
    sub.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    sub.add_argument(
        "--m", metavar="M", help="size of the top-m set sar and sysar identify (default: each --top-m target, else 1)"
    )
    sub.add_argument("--warmup", metavar="P", help=WARMUP_HELP)
    sub.add_argument(
        "--top-m",
        metavar="M1,M2,...",
        help="also report top-m identification, ranking and per-rank errors for these m (Appendix Top-m)",
    )
    sub.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="seed (default 0): run r draws from numpy SeedSequence(S, spawn_key=(r,)) (random scores: its orders, "
        "then every cell's noise)",
    )
    sub.add_argument(
        "--workers", type=int, default=1, metavar="N", help="worker processes (default 1); results do not depend on it"
    )
    sub.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on this Dask scheduler instead (needs the distributed extra)"
    )
    sub.add_argument(
        "--quiet", action="store_true", help="no progress bar (it is drawn only when stderr is a terminal)"
    )
    sub.add_argument("--json", action="store_true", help=JSON_HELP)


def run(args: argparse.Namespace) -> None:
    """``simulate``: the accuracy of each algorithm at each budget, as a table or one JSON object."""
    for flag, value, least in (("--runs", args.runs, 1), ("--workers", args.workers, 1), ("--seed", args.seed, 0)):
        check_int(value, flag, least=least)
    items = [item.strip() for item in args.budgets.split(",")]
    if not all(items):
        raise SysrsError(f"--budgets {args.budgets!r} has an empty item; write them like 8%,20%,5000")
    configs = parse_algorithm_list(args.algorithm, "--algorithm", defaults=algorithm_params(args))
    algorithms = [config.algorithm for config in configs]

    def declared(n_models: int, _: int) -> Need:  # the passes' need, refused before the matrix is read
        return runs_need(n_models, algorithms, len(items), args.runs, args.workers, args.scheduler)

    scores = read_scores(args.scores, args.stochastic, None if args.stochastic else declared)
    instance = scores.instance
    top_m = None if args.top_m is None else parse_top_m(args.top_m, instance.n_models)
    started = time.perf_counter()
    label = configs[0].algorithm if len(configs) == 1 else f"{len(configs)} algorithms"
    with Progress(args.runs * len(configs), label, enabled=False if args.quiet else None) as bar:
        results = simulate_many(
            instance,
            configs,
            items,
            args.runs,
            args.seed,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=bar.update,
            top_m=top_m,
        )
    seconds = time.perf_counter() - started
    where = f"{args.workers} worker{'s' if args.workers > 1 else ''}" if args.scheduler is None else args.scheduler
    if len(results) == 1:
        text = _one(args, results[0], scores.names, where, seconds)
        emit(args, {**results[0].to_json(), **stochastic_fields(instance)}, _noted(text, instance))
        return
    first = results[0]
    payload: dict[str, JsonValue] = {
        "K": first.K,
        "L": first.L,
        "runs": first.runs,
        "seed": first.seed,
        **stochastic_fields(instance),
        "algorithms": [result.to_json() for result in results],
    }
    emit(args, payload, _noted(_several(args, results, scores.names, where, seconds), instance))


def _noted(text: str, instance: Instance | StochasticInstance) -> str:
    """*text*, then the line that says what random scores were read (nothing for a matrix)."""
    return f"{text}\n{stochastic_line(instance)}" if isinstance(instance, StochasticInstance) else text


def _label(result: SimulationResult) -> str:
    shown = ",".join(f"{key}={value}" for key, value in result.params.items())
    return f"{result.algorithm}({shown})" if shown else result.algorithm


def _best(result: SimulationResult, names: Sequence[str] | None) -> str:
    """The true best models, as the accuracy line names them: "model 0", "models 0 (a), 2 (c)"."""
    shown = ", ".join(labelled(model, names) for model in result.best)
    return f"{'models' if len(result.best) > 1 else 'model'} {shown}"


def _one(
    args: argparse.Namespace, result: SimulationResult, names: Sequence[str] | None, where: str, seconds: float
) -> str:
    """The table of one algorithm: every budget's accuracy, correct runs and largest spend."""
    spec = get_algorithm(result.algorithm)
    extra = "".join(f", {key} = {value}" for key, value in result.params.items())
    width = max(len("correct"), 2 * len(str(result.runs)) + 1)
    header = f"{'budget':>8}  {'n':>10}  {'accuracy':>8}  {'correct':>{width}}  {'spent_max':>10}"
    lines = [
        f"{spec.title} on {args.scores}: {matrix_shape(result.K, result.L)}, "
        f"{counted(result.runs, 'run', grouped=True)}, seed {result.seed}{extra}, {where}, {seconds:.2f} s",
        header,
        "-" * len(header),
    ]
    for row in result.rows:
        correct = f"{row.correct}/{result.runs}"
        lines.append(
            f"{f'{row.budget_pct:g}%':>8}  {row.budget:>10,}  {row.accuracy:>8.4f}  "
            f"{correct:>{width}}  {row.spent_max:>10,}"
        )
    lines.extend(_top_m_lines(result))
    if result.top_m and spec.top_m_sized and args.m is None:
        lines.append(f"(top-m errors of {spec.title} come from runs with its m set to each target m, same draws)")
    lines.append(
        f"accuracy: fraction of runs whose chosen model is a true best model ({_best(result, names)}); "
        "every budget uses the same draws"
    )
    return "\n".join(lines)


def _several(
    args: argparse.Namespace,
    results: tuple[SimulationResult, ...],
    names: Sequence[str] | None,
    where: str,
    seconds: float,
) -> str:
    """One accuracy column per algorithm, then each algorithm's top-m errors."""
    first = results[0]
    labels = [_label(result) for result in results]
    widths = [max(8, len(label)) for label in labels]
    header = f"{'budget':>8}  {'n':>10}  " + "  ".join(f"{label:>{w}}" for label, w in zip(labels, widths, strict=True))
    lines = [
        f"{len(results)} algorithms on {args.scores}: {matrix_shape(first.K, first.L)}, "
        f"{counted(first.runs, 'run', grouped=True)} each, seed {first.seed}, {where}, {seconds:.2f} s",
        header,
        "-" * len(header),
    ]
    for index, row in enumerate(first.rows):
        cells = "  ".join(f"{result.rows[index].accuracy:>{w}.4f}" for result, w in zip(results, widths, strict=True))
        lines.append(f"{f'{row.budget_pct:g}%':>8}  {row.budget:>10,}  {cells}")
    for result, label in zip(results, labels, strict=True):
        if result.top_m:
            lines.extend(["", f"{label}:"] + _top_m_lines(result)[1:])
    lines.append(
        f"accuracy: fraction of runs whose chosen model is a true best model ({_best(first, names)}); "
        "every algorithm and budget uses the same draws (paired runs)"
    )
    return "\n".join(lines)


def _top_m_lines(result: SimulationResult) -> list[str]:
    """The simulate table's top-m part: one line per budget and m (empty without --top-m)."""
    if not result.top_m:
        return []
    header = f"{'budget':>8}  {'m':>4}  {'identification':>14}  {'ranking':>8}  {'per-rank':>8}"
    lines = [
        "",
        "top-m errors (ties by the paper's rule: any ranking consistent with the true ties counts)",
        header,
        "-" * len(header),
    ]
    for index, row in enumerate(result.rows):
        for m, counts in result.top_m.items():
            ident, rank, per_rank = (float(x) for x in counts.rates(index))
            lines.append(f"{f'{row.budget_pct:g}%':>8}  {m:>4}  {ident:>14.4f}  {rank:>8.4f}  {per_rank:>8.4f}")
    return lines
