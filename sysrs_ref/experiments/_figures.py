"""The paper's figures from a reproduction (Figure 1 and the Appendix's per-dataset panels), as PNG files.

matplotlib is an optional dependency (``pip install 'sysrs-ref[plot]'``):
without it :func:`write_plots` writes nothing and says so, and everything else
of ``reproduce`` is written as usual.

- ``figure1.png``: a) error rate (1 - identification accuracy) averaged over
  the datasets against the budget; b) the worst case over the datasets of the
  X% Confidence Budget against X. As in the paper, UCB-E and SyUCB-E are
  drawn with their best exploration parameter at each point of the x-axis.
- ``dataset_<name>.png``: for one dataset, its error rate against the budget
  (left) and its Confidence Budget against X (right), every configuration.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from sysrs_ref._atomic import atomic_write
from sysrs_ref._words import counted
from sysrs_ref.experiments._tables import Results

if TYPE_CHECKING:  # matplotlib is optional: imported where it is used
    from matplotlib.figure import Figure

__all__ = ["CB_CURVE_LEVELS", "families", "write_plots"]

#: The accuracy levels X (in %) of the Confidence Budget curves.
CB_CURVE_LEVELS: tuple[Fraction, ...] = tuple(Fraction(x) for x in range(50, 101, 2))


def families(results: Results) -> dict[str, list[str]]:
    """Configuration labels grouped by algorithm (one curve per family in Figure 1, best parameter first).

    >>> from sysrs_ref.experiments import paper_configs
    >>> f = families(Results((), paper_configs(), (), 1, 0, {}))
    >>> f["ucbe"], f["sysrs"]
    (['ucbe(a=0.1)', 'ucbe(a=1)', 'ucbe(a=10)'], ['sysrs'])
    """
    out: dict[str, list[str]] = {}
    for config in results.configs:
        out.setdefault(config.algorithm, []).append(config.label)
    return out


def _best_envelope(
    labels: Sequence[str], xs: Sequence[Fraction], value: Callable[[str, Fraction], float | None], lower: bool
) -> list[float | None]:
    """At each x, the best value among *labels* (the smallest if *lower*), None where none has one."""
    out: list[float | None] = []
    for x in xs:
        values = [v for v in (value(label, x) for label in labels) if v is not None]
        out.append((min(values) if lower else max(values)) if values else None)
    return out


def _save(figure: Figure, path: Path, dpi: int) -> Path:
    """Save *figure* as PNG at *path* atomically (:func:`~sysrs_ref._atomic.atomic_write`; OutputError if it cannot be)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=dpi, format="png")
    atomic_write(path, buffer.getvalue())
    return path


def write_plots(results: Results, out: Path) -> tuple[list[Path], str]:
    """Draw the figures into *out*; return the files and a sentence for the report."""
    try:  # the object-oriented API only: no pyplot, no global backend switched under a user's feet
        from matplotlib.figure import Figure
    except ImportError:
        return [], (
            "No plots: matplotlib is not installed. Install the `plot` extra "
            "(`pip install -e '.[plot]'`) and run the same command again (the cells are cached)."
        )
    grid = list(results.grid)
    xs = [float(p) for p in grid]
    levels = [float(x) for x in CB_CURVE_LEVELS]
    groups = families(results)
    paths: list[Path] = []

    def mean_error(label: str, pct: Fraction) -> float | None:
        return float(1 - results.mean_accuracy(label, pct))

    def worst_cb(label: str, level: Fraction) -> float | None:
        worst = results.cb_summary(label, level).worst
        return None if worst is None else float(worst)

    figure = Figure(figsize=(12, 4.5))
    left, right = figure.subplots(1, 2)
    for family, labels in groups.items():
        name = family if len(labels) == 1 else f"{family} (best a)"
        errors = _best_envelope(labels, grid, mean_error, lower=True)
        left.plot(xs, [float("nan") if e is None else e for e in errors], label=name)
        cbs = _best_envelope(labels, CB_CURVE_LEVELS, worst_cb, lower=True)
        right.plot(levels, [float("nan") if c is None else c for c in cbs], marker=".", label=name)
    left.set(
        xlabel="budget (% of model/query pairs)",
        ylabel="error rate, mean over datasets",
        title=f"a) mean error rate over {counted(len(results.datasets), 'dataset')}",
    )
    right.set(
        xlabel="identification accuracy X (%)",
        ylabel="X% confidence budget (%), worst dataset",
        title="b) worst-case confidence budget",
    )
    for axis in (left, right):
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    paths.append(_save(figure, out / "figure1.png", 120))

    for dataset in results.datasets:
        figure = Figure(figsize=(12, 4.5))
        left, right = figure.subplots(1, 2)
        for config in results.configs:
            curve = results.curve(dataset.name, config.label)
            left.plot(xs, [1 - p.accuracy for p in curve.points], label=config.label)
            budgets = [curve.confidence_budget(level) for level in CB_CURVE_LEVELS]
            right.plot(
                levels, [float("nan") if b is None else float(b) for b in budgets], marker=".", label=config.label
            )
        left.set(xlabel="budget (% of model/query pairs)", ylabel="error rate", title=f"{dataset.name}: error rate")
        right.set(
            xlabel="identification accuracy X (%)",
            ylabel="X% confidence budget (%)",
            title=f"{dataset.name}: confidence budget (gaps: never reached on the grid)",
        )
        for axis in (left, right):
            axis.grid(alpha=0.3)
            axis.legend(fontsize=7, ncol=2)
        figure.tight_layout()
        paths.append(_save(figure, out / f"dataset_{dataset.name}.png", 100))
    note = (
        "figure1.png (Figure 1: a) mean error rate, b) worst-case confidence budget; UCB families at their "
        "best a at each point) and one dataset_<name>.png per dataset (the Appendix's panels)."
    )
    return paths, note
