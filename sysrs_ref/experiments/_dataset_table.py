"""The paper's dataset table (Appendix "Dataset Details") recomputed for the shipped benchmarks or a folder of matrices.

Each row holds our exact values, the paper's printed values where the paper
has the dataset, and the values under the paper's conventions
(:func:`~sysrs_ref.theory.hardness.hardness` with ``convention="paper"``), so
every difference can be traced to its cause. A value matches the paper when
it is within one unit of the last printed digit (the table truncates: e.g.
legalbench's H2 = 103461.95 is printed 103461.9).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from sysrs_ref.datasets import Dataset, default_datasets, find_datasets
from sysrs_ref.experiments._paper import DATASET_TABLE, PaperDataset
from sysrs_ref.instance import Instance
from sysrs_ref.theory.hardness import Hardness, hardness

__all__ = ["COLUMNS", "TableRow", "dataset_table", "table_row"]

#: (key, header, digits printed by the paper)
COLUMNS = (
    ("best_mean", "Best Acc", 2),
    ("mean", "Mean Acc", 2),
    ("delta2", "Delta_2", 3),
    ("H1", "H1", 1),
    ("H2", "H2", 1),
    ("H3_prime", "H3'", 1),
    ("H3", "H3", 1),
)


@dataclass(frozen=True)
class TableRow:
    """One dataset: its identity, our values, the paper-convention values and the paper's."""

    name: str
    source: str
    metric: str
    n_queries: int
    n_models: int
    ours: dict[str, float | None]
    paper_convention: dict[str, float | None]
    paper: dict[str, float] | None

    def mismatches(self) -> list[str]:
        """Columns where our value is not the paper's printed one (within one unit of its last digit)."""
        if self.paper is None:
            return []
        return [key for key, _, digits in COLUMNS if not _matches(self.ours[key], self.paper[key], digits)]

    def explained_by_convention(self, key: str) -> bool:
        """Whether the paper's conventions reproduce the paper's printed value of *key*."""
        if self.paper is None:
            return False
        digits = {k: d for k, _, d in COLUMNS}[key]
        return _matches(self.paper_convention[key], self.paper[key], digits, units=6)


def _matches(value: float | None, printed: float, digits: int, units: int = 1) -> bool:
    return value is not None and abs(value - printed) <= units * 10.0**-digits + 1e-9


def _floats(h: Hardness) -> dict[str, float | None]:
    def f(value: Fraction | None) -> float | None:
        return None if value is None else float(value)

    return {
        "best_mean": float(h.best_mean),
        "mean": float(h.mean),
        "delta2": float(h.delta2),
        "H1": f(h.h1),
        "H2": f(h.h2),
        "H3_prime": f(h.h3_prime),
        "H3": f(h.h3),
    }


def _paper_values(row: PaperDataset) -> dict[str, float]:
    return {
        "best_mean": row.best_acc,
        "mean": row.mean_acc,
        "delta2": row.delta2,
        "H1": row.h1,
        "H2": row.h2,
        "H3_prime": row.h3_prime,
        "H3": row.h3,
    }


def dataset_table(folder: str | Path | None = None) -> list[TableRow]:
    """Recompute the dataset table for every matrix in *folder* (its MANIFEST.json order, else by name).

    Without a folder: the shipped benchmarks, or ``$SYSRS_DATA``'s matrices
    if that is set (:func:`~sysrs_ref.datasets.default_datasets`).

    >>> rows = dataset_table(Path(__file__).parents[2] / "data" / "fixtures")
    >>> [(r.name, r.n_models, r.n_queries) for r in rows]
    [('tiny_long', 4, 6), ('tiny_matrix', 4, 6)]
    """
    datasets = default_datasets() if folder is None else find_datasets(folder)
    return [table_row(dataset, dataset.load()) for dataset in datasets]


def table_row(dataset: Dataset, instance: Instance) -> TableRow:
    """The dataset table's row of one matrix (*instance*, loaded from *dataset*), beside the paper's values."""
    paper = DATASET_TABLE.get(dataset.name)
    return TableRow(
        name=dataset.name,
        source=dataset.source or (paper.source if paper else ""),
        metric=dataset.metric or (paper.metric if paper else ""),
        n_queries=instance.n_queries,
        n_models=instance.n_models,
        ours=_floats(hardness(instance)),
        paper_convention=_floats(hardness(instance, convention="paper")),
        paper=None if paper is None else _paper_values(paper),
    )
