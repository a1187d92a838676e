"""The paper's result tables recomputed from the cells of :mod:`sysrs_ref.experiments`, exactly.

- Table "identification-accuracy": each configuration's identification
  accuracy averaged over the datasets (each dataset weighs the same), at the
  budgets of the grid.
- Table "perfect-identification": each configuration's X% Confidence Budget
  (:func:`sysrs_ref.experiments._metrics.confidence_budget`) on every dataset, and their
  mean and maximum over the datasets, for X = 90, 95, 100.
- Table "dataset-diversity": min, max, mean and standard deviation over the
  datasets of L, K, Delta_2, H2, H3', H3 and the two ratios.

Accuracies are Fractions (correct / runs), so a mean and a comparison with a
level are exact; the paper prints accuracies "rounded down to nearest 0.1%".
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from sysrs_ref.datasets import Dataset
from sysrs_ref.experiments._dataset_table import TableRow
from sysrs_ref.experiments._metrics import CBSummary, confidence_budget, summarize_cbs
from sysrs_ref.experiments._paper import TABLE_GRID
from sysrs_ref.experiments._plan import Config, Point
from sysrs_ref.schedule import parse_percentage

__all__ = ["DIVERSITY_ROWS", "Curve", "Results", "diversity", "floor_tenth"]

#: Rows of Table "dataset-diversity": (key, title).
DIVERSITY_ROWS = (
    ("L", "Tasks L"),
    ("K", "Models K"),
    ("delta2", "Delta_2"),
    ("H2", "H2"),
    ("H3_prime", "H3'"),
    ("H3", "H3"),
    ("H3_prime/H2", "H3'/H2"),
    ("H3/H3_prime", "H3/H3'"),
)


def floor_tenth(accuracy: Fraction) -> Fraction:
    """An accuracy in % rounded down to 0.1%, as the paper prints its Table "identification-accuracy".

    >>> floor_tenth(Fraction(2, 3)), floor_tenth(Fraction(1))
    (Fraction(333, 5), Fraction(100, 1))
    """
    return Fraction(math.floor(accuracy * 1000), 10)


@dataclass(frozen=True)
class Curve:
    """One cell: a configuration's points on one dataset, over the grid."""

    dataset: Dataset
    config: Config
    points: tuple[Point, ...]

    def accuracy(self, pct: Fraction) -> Fraction:
        """The exact accuracy at grid point *pct*."""
        point = next(p for p in self.points if p.budget_pct == pct)
        return Fraction(point.correct, point.runs)

    def confidence_budget(self, level: Fraction) -> Fraction | None:
        """The level% Confidence Budget of this curve (None: never reached on the grid)."""
        return confidence_budget(
            [p.budget_pct for p in self.points], [p.correct for p in self.points], self.points[0].runs, level
        )


@dataclass(frozen=True)
class Results:
    """All cells of one reproduction: datasets x configurations over one grid, R runs, one seed."""

    datasets: tuple[Dataset, ...]
    configs: tuple[Config, ...]
    grid: tuple[Fraction, ...]
    runs: int
    seed: int
    curves: Mapping[tuple[str, str], Curve] = field(repr=False)
    """By (dataset name, configuration label)."""
    best: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Each dataset's true best models (more than one when tied)."""
    shapes: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Each dataset's (K, L)."""

    def curve(self, dataset: str, label: str) -> Curve:
        """The cell of *dataset* and the configuration labelled *label*."""
        return self.curves[(dataset, label)]

    def table_points(self) -> tuple[Fraction, ...]:
        """The budgets of Table "identification-accuracy" (8, 12, ..., 35%) that are on this grid."""
        return tuple(p for p in (parse_percentage(x) for x in TABLE_GRID) if p in self.grid)

    def mean_accuracy(self, label: str, pct: Fraction) -> Fraction:
        """Identification accuracy at *pct* averaged over the datasets (Table "identification-accuracy")."""
        values = [self.curve(d.name, label).accuracy(pct) for d in self.datasets]
        return sum(values, Fraction(0)) / len(values)

    def confidence_budgets(self, label: str, level: Fraction) -> dict[str, Fraction | None]:
        """Each dataset's level% CB for the configuration *label*."""
        return {d.name: self.curve(d.name, label).confidence_budget(level) for d in self.datasets}

    def cb_summary(self, label: str, level: Fraction) -> CBSummary:
        """Mean and worst case of the level% CB over the datasets (Table "perfect-identification")."""
        return summarize_cbs(list(self.confidence_budgets(label, level).values()))

    def best_of(self, labels: Sequence[str], pct: Fraction) -> tuple[str, Fraction]:
        """Among *labels*, the one with the highest mean accuracy at *pct* (first on ties), and that accuracy."""
        scored = [(self.mean_accuracy(label, pct), -index, label) for index, label in enumerate(labels)]
        accuracy, _, label = max(scored)
        return label, accuracy


def diversity(rows: Sequence[TableRow]) -> dict[str, tuple[float, float, float, float | None]]:
    """Table "dataset-diversity" over *rows*: (min, max, mean, sample standard deviation) of each quantity.

    The standard deviation divides by n - 1 (None for one dataset). Quantities
    that are infinite on some dataset (a tied best model) are left out of that
    row, which then covers fewer datasets.
    """
    columns: dict[str, list[float]] = {key: [] for key, _ in DIVERSITY_ROWS}
    for row in rows:
        columns["L"].append(float(row.n_queries))
        columns["K"].append(float(row.n_models))
        for key in ("delta2", "H2", "H3_prime", "H3"):
            value = row.ours[key]
            if value is not None:
                columns[key].append(value)
        h2, h3p, h3 = row.ours["H2"], row.ours["H3_prime"], row.ours["H3"]
        if h2 is not None and h3p is not None and h2 > 0:
            columns["H3_prime/H2"].append(h3p / h2)
        if h3p is not None and h3 is not None and h3p > 0:
            columns["H3/H3_prime"].append(h3 / h3p)
    out: dict[str, tuple[float, float, float, float | None]] = {}
    for key, values in columns.items():
        if values:
            spread = statistics.stdev(values) if len(values) > 1 else None
            out[key] = (min(values), max(values), statistics.fmean(values), spread)
    return out
