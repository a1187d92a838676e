"""What ``reproduce`` writes: results.json (every number), one CSV per table, and report.md.

:func:`summarize` computes every number once, into a :class:`Summary`;
results.json, the CSVs and report.md are all rendered from it, with the
formatting in one place (:func:`fmt_accuracy`, :func:`fmt_cb`), so they
cannot disagree (a test parses the report and checks it against the JSON).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from sysrs_ref._version import __version__
from sysrs_ref.claims import Claim, Verdict, check_claims
from sysrs_ref._atomic import atomic_write
from sysrs_ref.json_types import JsonValue
from sysrs_ref.metrics import wilson_interval
from sysrs_ref.paper import ACCURACY_TABLE, CB_LEVELS, CB_TABLE, DIVERSITY_TABLE, TABLE_GRID
from sysrs_ref.schedule import parse_percentage
from sysrs_ref.scores import decimal_text, fraction_text
from sysrs_ref.tables import DIVERSITY_ROWS, Results, diversity, floor_tenth
from sysrs_ref.theory.table import COLUMNS, TableRow

__all__ = ["AccuracyRow", "CBCell", "CBRow", "JsonValue", "Summary", "fmt_accuracy", "fmt_cb", "summarize", "write_outputs"]


DRAWS = (
    "run r (r = 0 .. R-1) draws from numpy.random.default_rng(numpy.random.SeedSequence(seed, spawn_key=(r,))): "
    "permutation(K) for the arm priority, then permutation(L) for the shared query order (synchronized "
    "algorithms) or for each model's order, model 0 first; every budget of the grid and every algorithm of "
    "the same kind use the same draws (common random numbers)"
)


def fmt_accuracy(value: float | None) -> str:
    """An accuracy in % as the report prints it: one decimal (the value is already rounded down to 0.1%).

    >>> fmt_accuracy(83.5), fmt_accuracy(None)
    ('83.5', '-')
    """
    return "-" if value is None else f"{value:.1f}"


def fmt_cb(value: float | None) -> str:
    """A confidence budget in % as the report prints it; ``never`` when it is not reached on the grid.

    >>> fmt_cb(17.0), fmt_cb(1.25), fmt_cb(10.857142857), fmt_cb(None)
    ('17', '1.25', '10.86', 'never')
    """
    return "never" if value is None else f"{value:.4g}"


@dataclass(frozen=True)
class AccuracyRow:
    """One row of Table "identification-accuracy": mean accuracy in %, rounded down to 0.1%, and the paper's."""

    label: str
    exact: tuple[Fraction, ...]
    """The exact mean accuracies (fractions of 1)."""
    paper: tuple[float | None, ...] | None

    @property
    def ours(self) -> tuple[float, ...]:
        """In %, rounded down to 0.1% as the paper prints its values."""
        return tuple(float(floor_tenth(value)) for value in self.exact)


@dataclass(frozen=True)
class CBCell:
    """Mean and max of one configuration's X% CB over the datasets (None: some dataset never reaches X)."""

    mean: float | None
    worst: float | None
    reached: int
    total: int


@dataclass(frozen=True)
class CBRow:
    """One row of Table "perfect-identification", by level, and the paper's (mean, max) by level."""

    label: str
    ours: Mapping[int, CBCell]
    paper: Mapping[int, tuple[int, int]] | None


@dataclass(frozen=True)
class Summary:
    """Every number of a reproduction, computed once."""

    results: Results
    data: str
    grid_name: str
    dataset_rows: tuple[TableRow, ...]
    points: tuple[Fraction, ...]
    """The budgets of Table "identification-accuracy" on the grid (all of the grid if none is)."""
    accuracy: tuple[AccuracyRow, ...]
    cb: tuple[CBRow, ...]
    diversity: Mapping[str, tuple[float, float, float, float | None]]
    claims: tuple[tuple[Claim, Verdict], ...]

    def to_json(self) -> dict[str, JsonValue]:
        """The object of results.json."""
        results = self.results
        return {
            "format": 1,
            "package": "sysrs-ref",
            "version": __version__,
            "configuration": {
                "data": self.data,
                "grid": self.grid_name,
                "budget_pcts": [decimal_text(p) for p in results.grid],
                "runs": results.runs,
                "seed": results.seed,
                "algorithms": [c.label for c in results.configs],
                "draws": DRAWS,
            },
            "datasets": [
                {
                    "name": d.name,
                    "file": d.path.name,
                    "sha256": d.sha256,
                    "source": row.source,
                    "metric": row.metric,
                    "K": row.n_models,
                    "L": row.n_queries,
                    "best": list(results.best.get(d.name, ())),
                }
                for d, row in zip(results.datasets, self.dataset_rows)
            ],
            "cells": [self._cell(d.name, c.label) for d in results.datasets for c in results.configs],
            "tables": {
                "identification_accuracy": {
                    "budget_pcts": [float(p) for p in self.points],
                    "note": "mean over the datasets of the identification accuracy in %, rounded down to 0.1% "
                    "as the paper; ours_exact as fractions of 1",
                    "rows": [
                        {
                            "label": row.label,
                            "ours": list(row.ours),
                            "ours_exact": [fraction_text(v) for v in row.exact],
                            "paper": None if row.paper is None else list(row.paper),
                        }
                        for row in self.accuracy
                    ],
                },
                "perfect_identification": {
                    "levels": list(CB_LEVELS),
                    "note": "X% Confidence Budget in %: mean and max over the datasets; null when some dataset "
                    "never reaches X on this grid",
                    "rows": [
                        {
                            "label": row.label,
                            "ours": {
                                str(level): {"mean": cell.mean, "max": cell.worst, "reached": cell.reached,
                                             "datasets": cell.total}
                                for level, cell in row.ours.items()
                            },
                            "paper": None if row.paper is None else {
                                str(level): {"mean": mean, "max": most} for level, (mean, most) in row.paper.items()
                            },
                        }
                        for row in self.cb
                    ],
                },
                "datasets": [
                    {"name": row.name, "K": row.n_models, "L": row.n_queries, "ours": dict(row.ours),
                     "paper": None if row.paper is None else dict(row.paper)}
                    for row in self.dataset_rows
                ],
                "diversity": [
                    {"key": key, "ours": list(self.diversity[key]) if key in self.diversity else None,
                     "paper": list(DIVERSITY_TABLE[key])}
                    for key, _ in DIVERSITY_ROWS
                ],
            },
            "claims": [
                {"id": claim.id, "paper_ref": claim.paper_ref, "statement": claim.statement,
                 "status": verdict.status, "detail": verdict.detail}
                for claim, verdict in self.claims
            ],
        }

    def _cell(self, dataset: str, label: str) -> dict[str, JsonValue]:
        curve = self.results.curve(dataset, label)
        points: list[JsonValue] = []
        for point in curve.points:
            low, high = wilson_interval(point.correct, point.runs)
            points.append(
                {"budget_pct": float(point.budget_pct), "budget_pct_exact": decimal_text(point.budget_pct),
                 "budget": point.budget, "runs": point.runs, "correct": point.correct,
                 "accuracy": point.accuracy, "wilson_95": [low, high], "spent_max": point.spent_max}
            )
        budgets = {str(level): curve.confidence_budget(Fraction(level)) for level in CB_LEVELS}
        return {
            "dataset": dataset,
            "algorithm": curve.config.algorithm,
            "params": {key: decimal_text(value) for key, value in curve.config.params},
            "label": label,
            "points": points,
            "confidence_budgets": {level: None if cb is None else float(cb) for level, cb in budgets.items()},
        }


def summarize(results: Results, data: str, grid_name: str, dataset_rows: Sequence[TableRow]) -> Summary:
    """Compute every table and verdict of a reproduction."""
    points = results.table_points() or results.grid
    paper_points = [parse_percentage(x) for x in TABLE_GRID]
    accuracy = []
    for config in results.configs:
        paper = ACCURACY_TABLE.get(config.label)
        by_point = dict(zip(paper_points, paper)) if paper else {}
        accuracy.append(
            AccuracyRow(
                config.label,
                tuple(results.mean_accuracy(config.label, pct) for pct in points),
                tuple(by_point.get(pct) for pct in points) if paper else None,
            )
        )
    cb = []
    for config in results.configs:
        cells = {}
        for level in CB_LEVELS:
            s = results.cb_summary(config.label, Fraction(level))
            cells[level] = CBCell(
                None if s.mean is None else float(s.mean), None if s.worst is None else float(s.worst), s.reached, s.total
            )
        paper_cb = CB_TABLE.get(config.label)
        cb.append(CBRow(config.label, cells, None if paper_cb is None else dict(zip(CB_LEVELS, paper_cb))))
    return Summary(
        results, data, grid_name, tuple(dataset_rows), points, tuple(accuracy), tuple(cb),
        diversity(dataset_rows), tuple(check_claims(results)),
    )


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
                cells.append([dataset.name, config.label, decimal_text(point.budget_pct), point.budget, point.runs,
                              point.correct, point.accuracy, low, high, point.spent_max])
    pcts = [decimal_text(p) for p in summary.points]
    levels = [(level, what) for level in CB_LEVELS for what in ("mean", "max")]

    def cb_values(cell: CBCell, what: str) -> object:
        value = cell.mean if what == "mean" else cell.worst
        return "never" if value is None else value

    return {
        "cells.csv": _csv(
            ["dataset", "label", "budget_pct", "budget", "runs", "correct", "accuracy", "wilson_low", "wilson_high",
             "spent_max"], cells),
        "table_identification_accuracy.csv": _csv(
            ["label", *[f"ours_{p}" for p in pcts], *[f"paper_{p}" for p in pcts]],
            [[row.label, *row.ours, *(row.paper or [None] * len(pcts))] for row in summary.accuracy]),
        "table_perfect_identification.csv": _csv(
            ["label", *[f"ours_{what}_{level}" for level, what in levels], *[f"paper_{what}_{level}" for level, what in levels]],
            [[row.label, *[cb_values(row.ours[level], what) for level, what in levels],
              *[row.paper[level][0 if what == "mean" else 1] if row.paper else "" for level, what in levels]]
             for row in summary.cb]),
        "table_datasets.csv": _csv(
            ["name", "K", "L", *[key for key, _, _ in COLUMNS], *[f"paper_{key}" for key, _, _ in COLUMNS]],
            [[row.name, row.n_models, row.n_queries, *[row.ours[key] for key, _, _ in COLUMNS],
              *[row.paper[key] if row.paper else "" for key, _, _ in COLUMNS]] for row in summary.dataset_rows]),
        "table_diversity.csv": _csv(
            ["quantity", "min", "max", "mean", "std", "paper_min", "paper_max", "paper_mean", "paper_std"],
            [[key, *summary.diversity.get(key, ("",) * 4), *DIVERSITY_TABLE[key]] for key, _ in DIVERSITY_ROWS]),
    }


def render_report(summary: Summary, plots_note: str) -> str:
    """report.md: the paper's tables recomputed beside its values, and a verdict on each claim."""
    results = summary.results
    names = ", ".join(d.name for d in results.datasets)
    n = len(results.datasets)
    lines = [
        "# Reproduction of the paper's experiments",
        "",
        f"sysrs-ref {__version__}; data `{summary.data}` ({n} datasets: {names}); grid `{summary.grid_name}` "
        f"({len(results.grid)} budget levels, {fmt_cb(float(results.grid[0]))}% to {fmt_cb(float(results.grid[-1]))}%); "
        f"R = {results.runs} runs per cell; seed {results.seed}. Every number below is in results.json.",
        "",
        f"The paper averages over its 15 benchmarks; these tables average over the {n} datasets above, so a "
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
    rows = [[f"`{row.label}`", *[f"{fmt_accuracy(o)} ({fmt_accuracy(p)})" for o, p in
                                 zip(row.ours, row.paper or [None] * len(row.ours))]] for row in summary.accuracy]
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
    rows = [[row.name, str(row.n_models), str(row.n_queries),
             *[f"{_number(row.ours[key])} ({'-' if row.paper is None else _number(row.paper[key])})"
               for key, _, _ in COLUMNS]] for row in summary.dataset_rows]
    lines += _markdown(["dataset", "K", "L", *[title for _, title, _ in COLUMNS]], rows)
    lines += [
        "",
        "## Dataset diversity (Table dataset-diversity)",
        "",
        f"Over the {n} datasets above (the paper: over its 15); standard deviation with divisor n - 1. "
        "Each cell: ours (paper).",
        "",
    ]
    rows = []
    for key, title in DIVERSITY_ROWS:
        ours: Sequence[float | None] = summary.diversity.get(key, (None,) * 4)
        rows.append([title, *[f"{_number(o)} ({_number(p)})" for o, p in zip(ours, DIVERSITY_TABLE[key])]])
    lines += _markdown(["quantity", "min", "max", "mean", "std"], rows)
    lines += ["", "## The paper's claims on this data", ""]
    for claim, verdict in summary.claims:
        lines.append(f"- **{claim.id}** ({claim.paper_ref}): \"{claim.statement}\"  ")
        lines.append(f"  **{verdict.status}**: {verdict.detail}")
    lines += ["", "## Plots", "", plots_note, ""]
    return "\n".join(lines)


def write_outputs(out: Path, summary: Summary, plots_note: str) -> list[Path]:
    """Write results.json, the CSVs and report.md into *out*, each atomically; return their paths."""
    files = {"results.json": json.dumps(summary.to_json(), indent=1) + "\n", **_csvs(summary),
             "report.md": render_report(summary, plots_note)}
    paths = []
    for name, text in files.items():
        atomic_write(out / name, text)
        paths.append(out / name)
    return paths
