"""The ``subset`` subcommand of the command line (:mod:`sysrs_ref.cli`): one subset-selection baseline, once."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sysrs_ref._limits import NOTE_SECONDS, Need, check_need, duration
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.cli._common import SCORES_HELP, check_header, emit, labelled, with_names
from sysrs_ref.datasets import resolve_scores
from sysrs_ref.fast import COMPILED_KERNELS
from sysrs_ref.loaders import check_input_path
from sysrs_ref.subset.methods import SUBSET_METHODS, anchors_for_budget, select_subset, subset_need

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--scores gsm --method anchor --budget 10% --seed 0 --json"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``subset``."""
    sub.add_argument("--scores", required=True, metavar="F", help=SCORES_HELP)
    sub.add_argument("--method", required=True, metavar="NAME", help=f"one of {', '.join(SUBSET_METHODS)}")
    sub.add_argument(
        "--dim", type=int, metavar="D", help="IRT dimension D of kmeans-irt (default 2; the paper: 2, 5, 10, 15)"
    )
    sub.add_argument(
        "--budget",
        required=True,
        metavar="B",
        help="evaluations (8000: k = floor(B / K) anchors) or a percentage of K*L (10%%: k = floor(0.1 L))",
    )
    sub.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the clustering (default 0)")
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """Select the anchors, estimate every model's mean, print the chosen model."""
    sized = args.method in SUBSET_METHODS and (args.dim is None or args.method == "kmeans-irt")

    def declared(n_models: int, n_queries: int) -> Need:  # the method's need, from K, L and the anchors
        k = anchors_for_budget(args.budget, n_models, n_queries)
        return subset_need(args.method, n_models, n_queries, k, dim=2 if args.dim is None else args.dim)

    if sized and Path(args.scores).suffix.lower() == ".npy":
        check_input_path(Path(args.scores))  # a FIFO would block the header's read
        check_header(Path(args.scores), declared)  # refused from the header, before the matrix is read
    instance = resolve_scores(args.scores)
    n_models, n_queries = instance.shape
    k = anchors_for_budget(args.budget, n_models, n_queries)
    if sized:
        need = check_need(declared(n_models, n_queries))
        if need.seconds > NOTE_SECONDS:  # beyond the limit it is refused; a long job is said before it starts
            print(f"note: {need.what} takes at least {duration(need.seconds)} ({need.complexity})", file=sys.stderr)
    result = select_subset(instance.array, args.method, k, seed=args.seed, dim=args.dim, kernels=COMPILED_KERNELS)
    shown = ", ".join(str(q) for q in result.anchors[:10]) + (", ..." if k > 10 else "")
    correct = instance.is_best(result.chosen)
    text = "\n".join(
        [
            f"{args.method}{'' if args.dim is None else f' (D = {args.dim})'} on {args.scores}: "
            f"{matrix_shape(n_models, n_queries)}, seed {args.seed}",
            f"anchors: k = {k} of {counted(n_queries, 'query', 'queries')} ({k * n_models:,} evaluations): {shown}",
            f"chose:   model {labelled(result.chosen, instance.model_names)}, estimate {result.estimates[result.chosen]:.4f}, true mean "
            f"{float(instance.means[result.chosen]):.4f} ({'a true best model' if correct else 'NOT a best model'})",
        ]
    )
    payload = with_names(result.to_json(), instance.model_names, {"chosen": "chosen_name"})
    emit(args, with_names(payload, instance.query_names, {"anchors": "anchor_names"}), text)
