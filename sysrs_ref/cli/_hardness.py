"""The ``hardness`` subcommand of the command line (:mod:`sysrs_ref.cli`): one matrix, or the paper's dataset table."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from fractions import Fraction

from sysrs_ref._words import counted
from sysrs_ref.cli._common import (
    JSON_HELP,
    SCORES_HELP,
    JsonValue,
    emit,
    read_scores,
    stochastic_argument,
    stochastic_fields,
    stochastic_line,
)
from sysrs_ref.errors import SysrsError
from sysrs_ref.experiments import COLUMNS, dataset_table
from sysrs_ref.scores import fraction_text
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.hardness import hardness, hardness_need

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--scores gsm --json\n  python -m sysrs_ref hardness --table"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``hardness``."""
    source = sub.add_mutually_exclusive_group(required=True)
    source.add_argument("--scores", metavar="F", help=SCORES_HELP)
    source.add_argument(
        "--table",
        nargs="?",
        const="",
        metavar="DIR",
        help="the paper's dataset table: the shipped benchmarks (or $SYSRS_DATA), or every matrix in DIR "
        "(MANIFEST.json order), beside the paper's printed values",
    )
    stochastic_argument(sub)
    sub.add_argument(
        "--bernoulli",
        action="store_true",
        help="read the scores as probabilities p_ij of Bernoulli scores (the numbers of --stochastic bernoulli, "
        "in the output of a matrix)",
    )
    sub.add_argument("--json", action="store_true", help=JSON_HELP)


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def run(args: argparse.Namespace) -> None:
    """``hardness --scores F`` or ``hardness --table [DIR]``."""
    if args.table is not None:
        for flag, given in (("--bernoulli", args.bernoulli), ("--stochastic", args.stochastic)):
            if given:
                raise SysrsError(f"{flag} applies to --scores, not to --table")
        _table(args)
        return
    if args.bernoulli and args.stochastic:
        raise SysrsError("give --bernoulli or --stochastic bernoulli, not both: they compute the same numbers")
    instance = read_scores(args.scores, args.stochastic, None if args.stochastic else hardness_need).instance
    if args.bernoulli and isinstance(instance, StochasticInstance):
        raise SysrsError(
            f"--bernoulli reads a matrix as probabilities p_ij, but {args.scores} holds random scores "
            f"({instance.kind}): leave out --bernoulli"
        )
    h = hardness(instance, bernoulli=args.bernoulli)
    measures = {"H1": h.h1, "H2": h.h2, "H3": h.h3, "H3_prime": h.h3_prime}
    payload: dict[str, JsonValue] = {
        "K": h.n_models,
        "L": h.n_queries,
        "best_mean": float(h.best_mean),
        "mean": float(h.mean),
        "delta2": float(h.delta2),
        **{key: _float(value) for key, value in measures.items()},
        "exact": {
            key: (None if value is None else fraction_text(value))
            for key, value in {"best_mean": h.best_mean, "mean": h.mean, "delta2": h.delta2, **measures}.items()
        },
        **stochastic_fields(instance),
    }
    lines = [
        f"{args.scores}: K = {counted(h.n_models, 'model')}, L = {counted(h.n_queries, 'query', 'queries')}",
        f"  best mean (mu*)   {float(h.best_mean):.4f}",
        f"  mean of all       {float(h.mean):.4f}",
        f"  Delta_2           {float(h.delta2):.4f}",
    ]
    for key, value in measures.items():
        label = key.replace("_prime", "'")
        lines.append(f"  {label:<17} {'infinite (best model tied)' if value is None else f'{float(value):.1f}'}")
    if isinstance(instance, StochasticInstance):
        lines.append(f"  {stochastic_line(instance)}; H3 and H3' use V_*,i over the query and the noise")
    emit(args, payload, "\n".join(lines))


def _table(args: argparse.Namespace) -> None:
    rows = dataset_table(args.table or None)  # --table alone: the shipped benchmarks (or $SYSRS_DATA)
    payload: dict[str, JsonValue] = {
        "datasets": [
            {
                "name": row.name,
                "source": row.source,
                "metric": row.metric,
                "K": row.n_models,
                "L": row.n_queries,
                "ours": row.ours,
                "paper": row.paper,
                "paper_convention": row.paper_convention,
                "mismatches": row.mismatches(),
                "explained_by_paper_convention": [key for key in row.mismatches() if row.explained_by_convention(key)],
            }
            for row in rows
        ]
    }

    def cells(values: Mapping[str, float | None], marks: Sequence[str] = (), extra: int = 1) -> str:
        out = []
        for key, _, digits in COLUMNS:
            value = values[key]
            text = "inf" if value is None else f"{value:.{digits + extra}f}"
            out.append(f"{text + ('*' if key in marks else ''):>11}")
        return "".join(out)

    causes = {"H3": "tied models in row order", "H3_prime": "per-arm sample variances (divisor L - 1)"}

    header = f"{'dataset':<14}{'source':<10}{'K':>5}{'L':>7}" + "".join(f"{title:>11}" for _, title, _ in COLUMNS)
    lines = [header, "-" * len(header)]
    notes: list[str] = []
    for row in rows:
        marks = row.mismatches()
        lines.append(f"{row.name:<14}{row.source[:9]:<10}{row.n_models:>5}{row.n_queries:>7}" + cells(row.ours, marks))
        if row.paper is not None:
            lines.append(f"{'  paper (as printed)':<36}" + cells(row.paper, extra=0))
        for key in marks:
            convention_value = row.paper_convention[key]
            cause = (
                f"the paper's convention ({causes.get(key, '?')}) gives {convention_value:.1f}"
                if convention_value is not None and row.explained_by_convention(key)
                else "not explained by the paper's conventions"
            )
            notes.append(f"  {row.name} {dict((k, t) for k, t, _ in COLUMNS)[key]}: {cause}")
    lines.append("")
    lines.append("* differs from the paper's printed value by more than one unit of its last digit:")
    lines.extend(notes or ["  (none)"])
    emit(args, payload, "\n".join(lines))
