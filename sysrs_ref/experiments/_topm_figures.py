"""The Appendix "Top-m" figures from a top-m study, as PNG files (matplotlib optional, as in :mod:`sysrs_ref.experiments._figures`).

- ``topm_identification.png``, ``topm_ranking.png``: the error averaged over
  the datasets against the budget, one panel per m;
- ``topm_per_rank.png``: the per-rank error against the budget (top row) and
  the worst-case budget for a target per-rank accuracy (bottom row), per m.

As in Figure 1, UCB-E and SyUCB-E are drawn at their best exploration
parameter at each point of the x-axis.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from sysrs_ref._words import counted
from sysrs_ref.experiments._figures import CB_CURVE_LEVELS, _best_envelope, _save
from sysrs_ref.experiments._topm_report import METRICS, TopMStudy

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["write_topm_plots"]


def _families(study: TopMStudy) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for config in study.configs:
        out.setdefault(config.algorithm, []).append(config.label)
    return out


def write_topm_plots(study: TopMStudy, out: Path) -> tuple[list[Path], str]:
    """Draw the three figures into *out*; return the files and a sentence for the report."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return [], (
            "No plots: matplotlib is not installed. Install the `plot` extra "
            "(`pip install -e '.[plot]'`) and run the same command again (the cells are cached)."
        )
    grid = list(study.grid)
    xs = [float(p) for p in grid]
    groups = _families(study)
    paths: list[Path] = []

    def error_panel(axis: Axes, m: int, metric: str, title: str) -> None:
        for family, labels in groups.items():
            curves = {label: dict(zip(grid, study.mean_errors(label, m, metric), strict=True)) for label in labels}
            values = _best_envelope(
                labels,
                grid,
                lambda label, pct: float(curves[label][pct]),  # noqa: B023 (called at once, in this iteration)
                lower=True,
            )
            name = family if len(labels) == 1 else f"{family} (best a)"
            axis.plot(xs, [float("nan") if v is None else v for v in values], label=name)
        axis.set(xlabel="budget (% of model/query pairs)", ylabel=f"{title}, mean over datasets", title=f"m = {m}")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)

    for metric, title in METRICS:
        rows = 2 if metric == "per_rank" else 1
        figure = Figure(figsize=(5 * len(study.targets), 4.2 * rows))
        axes = figure.subplots(rows, len(study.targets), squeeze=False)
        for column, m in enumerate(study.targets):
            error_panel(axes[0][column], m, metric, title)
            if metric == "per_rank":
                axis = axes[1][column]
                levels = list(CB_CURVE_LEVELS)
                for family, labels in groups.items():

                    def worst(label: str, level: Fraction, m: int = m) -> float | None:
                        value = study.worst_cb(label, m, "per_rank", level)
                        return None if value is None else float(value)

                    values = _best_envelope(labels, levels, worst, lower=True)
                    name = family if len(labels) == 1 else f"{family} (best a)"
                    axis.plot(
                        [float(x) for x in levels],
                        [float("nan") if v is None else v for v in values],
                        marker=".",
                        label=name,
                    )
                axis.set(xlabel="per-rank accuracy X (%)", ylabel="worst-case budget (%) for X", title=f"m = {m}")
                axis.grid(alpha=0.3)
                axis.legend(fontsize=7)
        figure.suptitle(f"{title[0].upper() + title[1:]} over {counted(len(study.datasets), 'dataset')}")
        figure.tight_layout()
        paths.append(_save(figure, out / f"topm_{metric}.png", 100))
    note = (
        "topm_identification.png, topm_ranking.png and topm_per_rank.png: the Appendix's three figures "
        "(mean error over the datasets against the budget, per m; per-rank also the worst-case budget for a "
        "target per-rank accuracy)."
    )
    return paths, note
