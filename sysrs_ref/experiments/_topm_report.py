"""The Appendix "Top-m Ranking and Identification" study from cached cells: tables, JSON and CSV (``reproduce --top-m``).

For every configuration, target m and metric (top-m identification error,
ranking error, per-rank error; :mod:`sysrs_ref.topm`) the study reports

- the error at every budget of its grid, averaged over the datasets (each
  dataset weighs the same), the curves of the Appendix's three figures;
- the **worst-case X% top-m CB**: on each dataset the smallest budget from
  which the error stays at most (100 - X)% (the X% Confidence Budget of
  :func:`sysrs_ref.experiments._metrics.confidence_budget` applied to 1 - error, exact
  counts), and its maximum over the datasets ("never" if a dataset never
  gets there on the grid), for X in :data:`TOPM_LEVELS`.

All values are exact Fractions until they are written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from sysrs_ref._atomic import atomic_write
from sysrs_ref._version import __version__
from sysrs_ref._words import counted
from sysrs_ref.datasets import Dataset
from sysrs_ref.experiments._cache import Point
from sysrs_ref.experiments._metrics import confidence_budget, summarize_cbs
from sysrs_ref.experiments._plan import Config
from sysrs_ref.json_types import JsonValue
from sysrs_ref.scores import decimal_text

__all__ = ["METRICS", "TOPM_LEVELS", "TopMStudy", "write_topm_outputs"]

#: The three metrics of the Appendix: (key, title).
METRICS: tuple[tuple[str, str], ...] = (
    ("identification", "top-m identification error"),
    ("ranking", "top-m ranking error"),
    ("per_rank", "top-m per-rank error"),
)

#: The accuracy levels X (%) of the worst-case top-m CB tables.
TOPM_LEVELS: tuple[int, ...] = (80, 90, 95)

#: Budgets (%) shown in the error tables of the report, where they are on the grid.
TABLE_BUDGETS: tuple[int, ...] = (5, 10, 20, 35, 50)


@dataclass(frozen=True)
class TopMStudy:
    """All cells of a top-m study: datasets x configurations over one grid, with per-m error counts."""

    datasets: tuple[Dataset, ...]
    configs: tuple[Config, ...]
    grid: tuple[Fraction, ...]
    runs: int
    seed: int
    targets: tuple[int, ...]
    points: Mapping[tuple[str, str], tuple[Point, ...]] = field(repr=False)
    """By (dataset name, configuration label)."""

    def errors(self, dataset: str, label: str, m: int, metric: str) -> list[Fraction]:
        """One dataset's exact error at every grid point."""
        out = []
        for point in self.points[(dataset, label)]:
            entry = next(item for item in point.top_m if item.m == m)
            if metric == "per_rank":
                out.append(Fraction(entry.wrong_positions, m * point.runs))
            else:
                out.append(Fraction(getattr(entry, metric), point.runs))
        return out

    def mean_errors(self, label: str, m: int, metric: str) -> list[Fraction]:
        """The error at every grid point, averaged over the datasets (the Appendix's figures)."""
        per_dataset = [self.errors(d.name, label, m, metric) for d in self.datasets]
        return [sum(column, Fraction(0)) / len(column) for column in zip(*per_dataset, strict=True)]

    def confidence_budget(self, dataset: str, label: str, m: int, metric: str, level: Fraction) -> Fraction | None:
        """One dataset's X% top-m CB: the smallest budget from which 1 - error stays >= X% (None: never)."""
        points = self.points[(dataset, label)]
        weight = m if metric == "per_rank" else 1  # per-rank: positions out of m * runs
        errors = self.errors(dataset, label, m, metric)
        total = weight * self.runs
        correct = [total - int(error * total) for error in errors]
        return confidence_budget([p.budget_pct for p in points], correct, total, level)

    def worst_cb(self, label: str, m: int, metric: str, level: Fraction) -> Fraction | None:
        """The X% top-m CB's maximum over the datasets; None when some dataset never reaches X%."""
        return summarize_cbs([self.confidence_budget(d.name, label, m, metric, level) for d in self.datasets]).worst

    def to_json(self) -> dict[str, JsonValue]:
        """The object of topm_results.json."""
        labels = [c.label for c in self.configs]
        return {
            "format": 1,
            "package": "sysrs-ref",
            "version": __version__,
            "configuration": {
                "budget_pcts": [decimal_text(p) for p in self.grid],
                "runs": self.runs,
                "seed": self.seed,
                "top_m": list(self.targets),
                "algorithms": labels,
                "datasets": [d.name for d in self.datasets],
                "tie_rule": "each error is the minimum over the true rankings consistent with exact ties of the means",
                "sar_m": "sar and sysar without a fixed m run with m set to each target",
            },
            "mean_error": {
                label: {
                    str(m): {key: [float(e) for e in self.mean_errors(label, m, key)] for key, _ in METRICS}
                    for m in self.targets
                }
                for label in labels
            },
            "worst_cb": {
                label: {
                    str(m): {
                        key: {str(x): _pct(self.worst_cb(label, m, key, Fraction(x))) for x in TOPM_LEVELS}
                        for key, _ in METRICS
                    }
                    for m in self.targets
                }
                for label in labels
            },
            "per_dataset": {
                d.name: {
                    label: {
                        str(m): {key: [float(e) for e in self.errors(d.name, label, m, key)] for key, _ in METRICS}
                        for m in self.targets
                    }
                    for label in labels
                }
                for d in self.datasets
            },
        }


def _pct(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def _cell(value: Fraction | None) -> str:
    return "never" if value is None else f"{float(value):g}"


def _csvs(study: TopMStudy) -> dict[str, str]:
    curves = ["algorithm,m,metric,budget_pct,mean_error"]
    cbs = ["algorithm,m,metric,level,worst_cb"]
    for config in study.configs:
        for m in study.targets:
            for key, _ in METRICS:
                for pct, error in zip(study.grid, study.mean_errors(config.label, m, key), strict=True):
                    curves.append(f"{config.label},{m},{key},{decimal_text(pct)},{float(error):.6g}")
                for x in TOPM_LEVELS:
                    worst = study.worst_cb(config.label, m, key, Fraction(x))
                    cbs.append(f"{config.label},{m},{key},{x},{'' if worst is None else decimal_text(worst)}")
    return {"topm_errors.csv": "\n".join(curves) + "\n", "topm_cb.csv": "\n".join(cbs) + "\n"}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + [
        "| " + " | ".join(row) + " |" for row in rows
    ]


def render_topm_report(study: TopMStudy, plots_note: str) -> str:
    """topm_report.md: the Appendix's tables (mean errors at some budgets, worst-case CBs) for this data."""
    shown = [Fraction(b) for b in TABLE_BUDGETS if Fraction(b) in study.grid] or list(study.grid[:5])
    lines = [
        '# Top-m identification and ranking (Appendix "Top-m Ranking and Identification")',
        "",
        f"{counted(len(study.datasets), 'dataset')} ({', '.join(d.name for d in study.datasets)}), R = {counted(study.runs, 'run')} per "
        f"cell, seed {study.seed}, {counted(len(study.grid), 'budget')} from {float(study.grid[0]):g}% to "
        f"{float(study.grid[-1]):g}%, m in {{{', '.join(map(str, study.targets))}}}.",
        "",
        "Ties: a prediction counts as correct if it is correct for some true ranking consistent with the exact "
        "ties of the means (each error is the minimum over those rankings). Rankings: elimination order for SR "
        "and SySRs, empirical means for US, SyUS, UCB-E and SyUCB-E (ties by the draw's arm priority), and for "
        "SAR and SySAR the accepted models in acceptance order (run with m set to each target).",
        "",
    ]
    for key, title in METRICS:
        lines += [f"## {title[0].upper() + title[1:]}", "", "Mean over the datasets, in %.", ""]
        header = ["algorithm"] + [f"m={m}, {float(b):g}%" for m in study.targets for b in shown]
        rows = []
        for config in study.configs:
            row = [config.label]
            for m in study.targets:
                errors = dict(zip(study.grid, study.mean_errors(config.label, m, key), strict=True))
                row += [f"{100 * float(errors[b]):.1f}" for b in shown]
            rows.append(row)
        lines += _table(header, rows) + [""]
        lines += ["Worst-case X% top-m CB (% of the budget; error <= 100 - X% from there on, on every dataset).", ""]
        header = ["algorithm"] + [f"m={m}, X={x}" for m in study.targets for x in TOPM_LEVELS]
        rows = [
            [config.label]
            + [_cell(study.worst_cb(config.label, m, key, Fraction(x))) for m in study.targets for x in TOPM_LEVELS]
            for config in study.configs
        ]
        lines += _table(header, rows) + [""]
    lines += ["## Figures", "", plots_note, ""]
    return "\n".join(lines)


def write_topm_outputs(out: Path, study: TopMStudy, plots_note: str) -> list[Path]:
    """Write topm_results.json, topm_errors.csv, topm_cb.csv and topm_report.md into *out*, atomically."""
    files = {
        "topm_results.json": json.dumps(study.to_json(), indent=1) + "\n",
        **_csvs(study),
        "topm_report.md": render_topm_report(study, plots_note),
    }
    paths = []
    for name, text in files.items():
        atomic_write(out / name, text)
        paths.append(out / name)
    return paths


def study_of(
    datasets: Sequence[Dataset],
    configs: Sequence[Config],
    grid: Sequence[Fraction],
    runs: int,
    seed: int,
    targets: Sequence[int],
    cells: Mapping[tuple[str, str], tuple[Point, ...]],
) -> TopMStudy:
    """A :class:`TopMStudy` from the cached cells of a top-m run."""
    return TopMStudy(tuple(datasets), tuple(configs), tuple(grid), runs, seed, tuple(targets), dict(cells))
