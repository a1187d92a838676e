"""The ``convert`` subcommand of the command line (:mod:`sysrs_ref.cli`): harness results to a score matrix."""

from __future__ import annotations

import argparse

from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.cli._common import JsonValue, emit
from sysrs_ref.loaders import EPOCH_MODES, MISSING_POLICIES, SOURCES, ResultsTable, convert, save_table

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--from lm-eval results/ --metric exact_match --filter strict-match --out gsm8k.npy"

_SHOWN = 10
"""How many dropped ids the text output lists by name."""


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``convert``."""
    sub.add_argument("--from", dest="source", required=True, choices=SOURCES, help="the results' format")
    sub.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="result files, or directories searched recursively for them (read in the order given)",
    )
    sub.add_argument(
        "--metric",
        required=True,
        metavar="NAME",
        help="the per-sample metric (lm-eval: acc, exact_match; HELM: a stat name; inspect: a scorer; "
        "long-csv: the score column, usually score)",
    )
    sub.add_argument("--filter", metavar="NAME", help="lm-eval only: the filter to read (strict-match, ...)")
    sub.add_argument(
        "--task",
        "--run",
        dest="tasks",
        action="append",
        default=[],
        metavar="PATTERN",
        help="read only the tasks (lm-eval, inspect) or runs (HELM) matching this pattern (* and ? wildcards); "
        "repeat it for several; the files left out are listed in the report",
    )
    sub.add_argument(
        "--epochs",
        choices=EPOCH_MODES,
        help="inspect epochs, HELM trials: auto (default: the harness's own reduction), first, mean, median, "
        "mode, max, min, or all (keep every epoch: a models x queries x epochs array)",
    )
    sub.add_argument(
        "--reruns",
        choices=("latest", "merge"),
        help="lm-eval, inspect and lighteval, several runs of one model and task: latest (the default, but for "
        "inspect) or merge (inspect's default; refused when their prompts or scores differ)",
    )
    sub.add_argument(
        "--unfinished",
        choices=("fail", "drop"),
        help="inspect only, logs whose status is not success: fail (default) or drop (listed in the report)",
    )
    sub.add_argument(
        "--suite",
        dest="suites",
        action="append",
        default=[],
        metavar="NAME",
        help="HELM only: when one run is in several suites, the suite that wins (repeat it for an order of preference)",
    )
    sub.add_argument(
        "--split",
        metavar="NAME",
        help="HELM only: the split to read: auto (default: test, as HELM's tables), a split's name (valid), or all",
    )
    sub.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="fail",
        help="when a model lacks some queries: fail (default), drop-models or drop-queries",
    )
    sub.add_argument("--out", required=True, metavar="FILE.npy", help="the matrix; the ids go to FILE.ids.json")
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """Read the results, write ``FILE.npy`` and ``FILE.ids.json``, print what was read, merged and dropped."""
    table = convert(
        args.source,
        args.paths,
        metric=args.metric,
        filter=args.filter,
        missing=args.missing,
        epochs=args.epochs,
        reruns=args.reruns,
        tasks=args.tasks,
        unfinished=args.unfinished,
        suites=args.suites,
        split=args.split,
    )
    matrix, ids = save_table(table, args.out)
    n_models, n_queries = table.shape
    report = table.ids_json()  # the ids file's report, with counts for the id lists and the two paths
    payload: dict[str, JsonValue] = {"source": report.pop("source"), "metric": report.pop("metric")}
    payload.update(out=str(matrix), ids=str(ids), models=n_models, queries=n_queries)
    payload.update((key, value) for key, value in report.items() if key not in ("models", "queries"))
    emit(args, payload, _text(table, str(matrix), str(ids)))


_LEFT_OUT_SHOWN = 20
"""The text report lists this many files left out, then counts the rest."""


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(f"'{name}'" for name in names[:_SHOWN])
    return shown + (f", ... ({len(names)} in all)" if len(names) > _SHOWN else "")


def _text(table: ResultsTable, matrix: str, ids: str) -> str:
    n_models, n_queries = table.shape
    shape = matrix_shape(n_models, n_queries)
    what = "float64 scores in [0, 1]"
    if table.samples is not None:
        shape += f" x {table.samples.shape[2]} epochs"
        what = "every epoch's float64 score in [0, 1]"
    used = [use for use in table.files if use.used]
    lines = [
        f"{table.source}, metric {table.metric}: {shape}",
        f"wrote {matrix} ({what}) and {ids} (model and query ids)",
    ]
    if table.settings:
        lines.append("settings: " + "; ".join(f"{name} {value}" for name, value in table.settings.items()))
    if table.files:
        lines.append(f"files: {len(used)} of {len(table.files)} used")
        left_out = [use for use in table.files if not use.used]
        lines.extend(f"  left out {use.path}: {use.note}" for use in left_out[:_LEFT_OUT_SHOWN])
        if len(left_out) > _LEFT_OUT_SHOWN:
            lines.append(
                f"  ... and {len(left_out) - _LEFT_OUT_SHOWN} more left out (--json and {ids} list every file)"
            )
    if table.missing:
        lines.append(f"missing: {counted(len(table.missing), 'model')} lacked some queries:")
        lines.extend(f"  '{model}' lacked {count}" for model, count in table.missing.items())
    else:
        lines.append("missing: none (every model has every query)")
    lines.append(f"dropped models: {_names(table.dropped_models) if table.dropped_models else 'none'}")
    lines.append(f"dropped queries: {_names(table.dropped_queries) if table.dropped_queries else 'none'}")
    lines.append(f"duplicates merged: {table.duplicates}")
    lines.extend(f"warning: {warning}" for warning in table.warnings)
    return "\n".join(lines)
