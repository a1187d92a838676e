"""Every number ``reproduce`` reports, computed once: :func:`summarize` makes a :class:`Summary`.

results.json, the CSVs and report.md are all rendered from it
(:mod:`~sysrs_ref.experiments._report_files`), with the formatting in one
place (:func:`fmt_accuracy`, :func:`fmt_cb`), so they cannot disagree (a test
parses the report and checks it against the JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from sysrs_ref._version import __version__
from sysrs_ref.experiments._claims import Claim, Verdict, check_claims
from sysrs_ref.experiments._dataset_table import TableRow
from sysrs_ref.experiments._metrics import wilson_interval
from sysrs_ref.experiments._paper import ACCURACY_TABLE, CB_LEVELS, CB_TABLE, DIVERSITY_TABLE, TABLE_GRID
from sysrs_ref.experiments._tables import DIVERSITY_ROWS, Results, diversity, floor_tenth
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import parse_percentage
from sysrs_ref.scores import decimal_text, fraction_text

__all__ = [
    "AccuracyRow",
    "CBCell",
    "CBRow",
    "JsonValue",
    "Summary",
    "fmt_accuracy",
    "fmt_cb",
    "summarize",
]


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
                for d, row in zip(results.datasets, self.dataset_rows, strict=True)
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
                                str(level): {
                                    "mean": cell.mean,
                                    "max": cell.worst,
                                    "reached": cell.reached,
                                    "datasets": cell.total,
                                }
                                for level, cell in row.ours.items()
                            },
                            "paper": None
                            if row.paper is None
                            else {str(level): {"mean": mean, "max": most} for level, (mean, most) in row.paper.items()},
                        }
                        for row in self.cb
                    ],
                },
                "datasets": [
                    {
                        "name": row.name,
                        "K": row.n_models,
                        "L": row.n_queries,
                        "ours": dict(row.ours),
                        "paper": None if row.paper is None else dict(row.paper),
                    }
                    for row in self.dataset_rows
                ],
                "diversity": [
                    {
                        "key": key,
                        "ours": list(self.diversity[key]) if key in self.diversity else None,
                        "paper": list(DIVERSITY_TABLE[key]),
                    }
                    for key, _ in DIVERSITY_ROWS
                ],
            },
            "claims": [
                {
                    "id": claim.id,
                    "paper_ref": claim.paper_ref,
                    "statement": claim.statement,
                    "status": verdict.status,
                    "detail": verdict.detail,
                }
                for claim, verdict in self.claims
            ],
        }

    def _cell(self, dataset: str, label: str) -> dict[str, JsonValue]:
        curve = self.results.curve(dataset, label)
        points: list[JsonValue] = []
        for point in curve.points:
            low, high = wilson_interval(point.correct, point.runs)
            points.append(
                {
                    "budget_pct": float(point.budget_pct),
                    "budget_pct_exact": decimal_text(point.budget_pct),
                    "budget": point.budget,
                    "runs": point.runs,
                    "correct": point.correct,
                    "accuracy": point.accuracy,
                    "wilson_95": [low, high],
                    "spent_max": point.spent_max,
                }
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
        by_point = dict(zip(paper_points, paper, strict=True)) if paper else {}
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
                None if s.mean is None else float(s.mean),
                None if s.worst is None else float(s.worst),
                s.reached,
                s.total,
            )
        paper_cb = CB_TABLE.get(config.label)
        cb.append(CBRow(config.label, cells, None if paper_cb is None else dict(zip(CB_LEVELS, paper_cb, strict=True))))
    return Summary(
        results,
        data,
        grid_name,
        tuple(dataset_rows),
        points,
        tuple(accuracy),
        tuple(cb),
        diversity(dataset_rows),
        tuple(check_claims(results)),
    )
