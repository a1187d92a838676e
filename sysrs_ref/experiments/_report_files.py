"""What ``reproduce`` writes: results.json (every number), one CSV per table, and report.md, from a Summary."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path

from sysrs_ref._atomic import atomic_write
from sysrs_ref._version import __version__
from sysrs_ref._words import counted
from sysrs_ref.experiments._dataset_table import COLUMNS
from sysrs_ref.experiments._metrics import wilson_interval
from sysrs_ref.experiments._paper import CB_LEVELS, DIVERSITY_TABLE
from sysrs_ref.experiments._report import CBCell, Summary, fmt_accuracy, fmt_cb
from sysrs_ref.experiments._tables import DIVERSITY_ROWS
from sysrs_ref.scores import decimal_text

__all__ = ["render_report", "write_outputs"]


def _csv(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _number(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.3g}"


def _csvs(summary: Summary) -> dict[str, str]:
    results = summary.results
    cells = []
    for dataset in results.datasets:
        for config in results.configs:
            for point in results.curve(dataset.name, config.label).points:
                low, high = wilson_interval(point.correct, point.runs)
                cells.append(
                    [
                        dataset.name,
                        config.label,
                        decimal_text(point.budget_pct),
                        point.budget,
                        point.runs,
                        point.correct,
                        point.accuracy,
                        low,
                        high,
                        point.spent_max,
                    ]
                )
    pcts = [decimal_text(p) for p in summary.points]
    levels = [(level, what) for level in CB_LEVELS for what in ("mean", "max")]

    def cb_values(cell: CBCell, what: str) -> object:
        value = cell.mean if what == "mean" else cell.worst
        return "never" if value is None else value

    return {
        "cells.csv": _csv(
            [
                "dataset",
                "label",
                "budget_pct",
                "budget",
                "runs",
                "correct",
                "accuracy",
                "wilson_low",
                "wilson_high",
                "spent_max",
            ],
            cells,
        ),
        "table_identification_accuracy.csv": _csv(
            ["label", *[f"ours_{p}" for p in pcts], *[f"paper_{p}" for p in pcts]],
            [[row.label, *row.ours, *(row.paper or [None] * len(pcts))] for row in summary.accuracy],
        ),
        "table_perfect_identification.csv": _csv(
            [
                "label",
                *[f"ours_{what}_{level}" for level, what in levels],
                *[f"paper_{what}_{level}" for level, what in levels],
            ],
            [
                [
                    row.label,
                    *[cb_values(row.ours[level], what) for level, what in levels],
                    *[row.paper[level][0 if what == "mean" else 1] if row.paper else "" for level, what in levels],
                ]
                for row in summary.cb
            ],
        ),
        "table_datasets.csv": _csv(
            ["name", "K", "L", *[key for key, _, _ in COLUMNS], *[f"paper_{key}" for key, _, _ in COLUMNS]],
            [
                [
                    row.name,
                    row.n_models,
                    row.n_queries,
                    *[row.ours[key] for key, _, _ in COLUMNS],
                    *[row.paper[key] if row.paper else "" for key, _, _ in COLUMNS],
                ]
                for row in summary.dataset_rows
            ],
        ),
        "table_diversity.csv": _csv(
            ["quantity", "min", "max", "mean", "std", "paper_min", "paper_max", "paper_mean", "paper_std"],
            [[key, *summary.diversity.get(key, ("",) * 4), *DIVERSITY_TABLE[key]] for key, _ in DIVERSITY_ROWS],
        ),
    }


def render_report(summary: Summary, plots_note: str) -> str:
    """report.md: the paper's tables recomputed beside its values, and a verdict on each claim."""
    results = summary.results
    names = ", ".join(d.name for d in results.datasets)
    n = len(results.datasets)
    lines = [
        "# Reproduction of the paper's experiments",
        "",
        f"sysrs-ref {__version__}; data `{summary.data}` ({counted(n, 'dataset')}: {names}); grid `{summary.grid_name}` "
        f"({counted(len(results.grid), 'budget level')}, {fmt_cb(float(results.grid[0]))}% to {fmt_cb(float(results.grid[-1]))}%); "
        f"R = {counted(results.runs, 'run')} per cell; seed {results.seed}. Every number below is in results.json.",
        "",
        f"The paper averages over its 15 benchmarks; these tables average over the {counted(n, 'dataset')} above, so a "
        "difference from the paper's value can come from the datasets as much as from the algorithms. The Monte "
        f"Carlo error of one dataset's accuracy is at most about {100 / math.sqrt(results.runs):.1f} points "
        "(95% Wilson intervals per cell are in results.json and cells.csv); a mean over datasets varies less.",
        "",
        "## Identification accuracy (Table identification-accuracy)",
        "",
        "Mean over the datasets of the fraction of runs that find a best model, in %, rounded down to 0.1% as the "
        "paper does. Each cell: ours (paper).",
        "",
    ]
    rows = [
        [
            f"`{row.label}`",
            *[
                f"{fmt_accuracy(o)} ({fmt_accuracy(p)})"
                for o, p in zip(row.ours, row.paper or [None] * len(row.ours), strict=True)
            ],
        ]
        for row in summary.accuracy
    ]
    lines += _markdown(["algorithm", *[f"{fmt_cb(float(p))}%" for p in summary.points]], rows)
    lines += [
        "",
        "## Confidence budgets (Table perfect-identification)",
        "",
        "X% Confidence Budget: the smallest budget on the grid from which the accuracy stays >= X% at every larger "
        "budget on the grid; mean and max over the datasets, in %. `never`: some dataset does not reach X% by the "
        "end of this grid. The paper's values come from its 107-level grid, up to 100%. Each cell: ours (paper).",
        "",
    ]
    rows = []
    for cb_row in summary.cb:
        shown = [f"`{cb_row.label}`"]
        for level in CB_LEVELS:
            cell = cb_row.ours[level]
            paper = cb_row.paper[level] if cb_row.paper else None
            shown.append(f"{fmt_cb(cell.mean)} ({'-' if paper is None else paper[0]})")
            shown.append(f"{fmt_cb(cell.worst)} ({'-' if paper is None else paper[1]})")
        rows.append(shown)
    lines += _markdown(["algorithm", *[f"{level}% {what}" for level in CB_LEVELS for what in ("mean", "max")]], rows)
    lines += ["", "## Datasets (Table dataset-details)", "", "Each cell: ours (paper, as printed).", ""]
    rows = [
        [
            row.name,
            str(row.n_models),
            str(row.n_queries),
            *[
                f"{_number(row.ours[key])} ({'-' if row.paper is None else _number(row.paper[key])})"
                for key, _, _ in COLUMNS
            ],
        ]
        for row in summary.dataset_rows
    ]
    lines += _markdown(["dataset", "K", "L", *[title for _, title, _ in COLUMNS]], rows)
    lines += [
        "",
        "## Dataset diversity (Table dataset-diversity)",
        "",
        f"Over the {counted(n, 'dataset')} above (the paper: over its 15); standard deviation with divisor n - 1. "
        "Each cell: ours (paper).",
        "",
    ]
    rows = []
    for key, title in DIVERSITY_ROWS:
        ours: Sequence[float | None] = summary.diversity.get(key, (None,) * 4)
        rows.append([title, *[f"{_number(o)} ({_number(p)})" for o, p in zip(ours, DIVERSITY_TABLE[key], strict=True)]])
    lines += _markdown(["quantity", "min", "max", "mean", "std"], rows)
    lines += ["", "## The paper's claims on this data", ""]
    for claim, verdict in summary.claims:
        lines.append(f'- **{claim.id}** ({claim.paper_ref}): "{claim.statement}"  ')
        lines.append(f"  **{verdict.status}**: {verdict.detail}")
    lines += ["", "## Plots", "", plots_note, ""]
    return "\n".join(lines)


def write_outputs(out: Path, summary: Summary, plots_note: str) -> list[Path]:
    """Write results.json, the CSVs and report.md into *out*, each atomically; return their paths.

    OutputError (naming the file and the reason) if one cannot be written: those before it are complete,
    it and those after it are as they were.
    """
    files = {
        "results.json": json.dumps(summary.to_json(), indent=1) + "\n",
        **_csvs(summary),
        "report.md": render_report(summary, plots_note),
    }
    paths = []
    for name, text in files.items():
        atomic_write(out / name, text)
        paths.append(out / name)
    return paths
