"""The ``demo`` subcommand: SySRs on a seeded synthetic benchmark at 10% of the full cost (no files needed)."""

from __future__ import annotations

import argparse

from sysrs_ref._words import counted
from sysrs_ref.algorithms.base import Outcome
from sysrs_ref.algorithms.driver import drive
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.cli._common import JSON_HELP, JsonValue, emit
from sysrs_ref.draws import random_draw
from sysrs_ref.schedule import parse_budget, schedule
from sysrs_ref.synthetic import irt_benchmark

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = ""
DEMO_SHAPE = (30, 2000)
DEMO_DATA_SEED = 5
DEMO_RUN_SEED = 0
DEMO_PERCENT = "10%"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``demo``."""
    sub.add_argument("--json", action="store_true", help=JSON_HELP)


def run(args: argparse.Namespace) -> None:
    """``demo``: one SySRs run on the synthetic benchmark, explained."""
    instance = irt_benchmark(*DEMO_SHAPE, seed=DEMO_DATA_SEED)
    n_models, n_queries = instance.shape
    full = n_models * n_queries
    budget = parse_budget(DEMO_PERCENT, n_models, n_queries)
    draw = random_draw(DEMO_RUN_SEED, n_models, n_queries, synchronized=True)
    outcome: Outcome = drive(get_algorithm("sysrs").start(budget, draw), instance)
    lengths = schedule(n_models, n_queries, budget)
    correct = instance.is_best(outcome.chosen)
    best = sorted(instance.best)
    payload: dict[str, JsonValue] = {
        "K": n_models,
        "L": n_queries,
        "budget": budget,
        "spent": outcome.spent,
        "chosen": outcome.chosen,
        "true_best": best,
        "correct": correct,
        "eliminated": list(outcome.eliminated),
        "schedule": list(lengths),
    }
    second = instance.order[1]
    text = "\n".join(
        [
            f"Synthetic benchmark: {n_models} models x {n_queries:,} queries (seeded item-response model;",
            "models are correlated because they share the queries' difficulty).",
            f"Full evaluation costs {full:,} (model, query) evaluations.",
            "",
            f"SySRs with {DEMO_PERCENT} of that, a budget of {budget:,}:",
            f"  picked         model {outcome.chosen} (mean {float(instance.means[outcome.chosen]):.4f})",
            f"  true best      model {', '.join(map(str, best))} (mean {float(instance.best_mean):.4f};"
            f" runner-up model {second}, mean {float(instance.means[second]):.4f})",
            f"  result         {'correct' if correct else 'WRONG'}",
            f"  spent          {counted(outcome.spent, 'evaluation', grouped=True)}, {100 * outcome.spent / full:.1f}% of full "
            f"evaluation ({full - outcome.spent:,} saved)",
            f"  phases         {len(lengths)}; each surviving model seen on n_k = "
            f"{lengths[0]}, {lengths[1]}, ..., {lengths[-1]} shared queries",
            "  eliminated     " + ", ".join(map(str, outcome.eliminated)),
            "                 (first eliminated first; the last two are the final duel)",
        ]
    )
    emit(args, payload, text)
