"""``reproduce --subset-selection``: both comparisons on every matrix, cached, as a table and the paper's figure.

Each (dataset, protocol) is computed once by :mod:`~sysrs_ref.experiments._subset_comparison`
and cached in ``OUT/cache/subset/`` (written atomically), keyed by the
dataset's SHA-256, the settings and the package version, so a rerun computes
nothing and an interrupted one resumes at the next dataset. The outputs:

- ``subset_selection.json``: every cell (dataset, protocol, label, budget,
  correct, runs, error), the mean error over the datasets, each dataset's seconds;
- ``subset_selection.csv``: the mean errors; ``subset_selection.md``: the table;
- ``subset_selection.png``: the paper's Figure "subset-selection-results"
  (mean identification error against the budget), one panel per protocol.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sysrs_ref._atomic import atomic_write
from sysrs_ref._files import read_json
from sysrs_ref._version import __version__
from sysrs_ref._words import counted
from sysrs_ref.datasets import Dataset
from sysrs_ref.experiments._figures import _save
from sysrs_ref.experiments._subset_comparison import (
    SUBSET_GRID,
    ComparisonCell,
    full_matrix_comparison,
    held_out_comparison,
    labels,
)
from sysrs_ref.instance import Instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.simulation import process_pool
from sysrs_ref.subset.clustering import KMedoidsMethod

__all__ = ["PROTOCOLS", "SubsetSettings", "SubsetStudy", "run_subset_study", "write_subset_outputs"]

#: The two protocols: the paper's (fitted on the full matrix) and the held-out one.
PROTOCOLS: tuple[str, ...] = ("full", "held-out")


@dataclass(frozen=True)
class SubsetSettings:
    """The study's settings (all part of the cache key)."""

    seeds: int = 100
    splits: int = 20
    dims: tuple[int, ...] = (2, 5, 10, 15)
    sysrs_runs: int = 1000
    seed: int = 0
    epochs: int = 2000
    budgets: tuple[str, ...] = SUBSET_GRID
    #: The anchor method's k-medoids search: "alternate" by default, since the paper's
    #: code's FasterPAM takes minutes per call at L = 5000 (hours per matrix at 100 seeds).
    kmedoids: KMedoidsMethod = "alternate"

    def to_json(self) -> dict[str, JsonValue]:
        """The settings as a JSON object.

        >>> SubsetSettings(seeds=3).to_json()["seeds"]
        3
        """
        return {
            "seeds": self.seeds,
            "splits": self.splits,
            "dims": list(self.dims),
            "sysrs_runs": self.sysrs_runs,
            "seed": self.seed,
            "epochs": self.epochs,
            "budgets": list(self.budgets),
            "kmedoids": self.kmedoids,
        }


@dataclass(frozen=True)
class SubsetStudy:
    """Every dataset's cells under both protocols, and the time each took."""

    settings: SubsetSettings
    datasets: tuple[str, ...]
    cells: Mapping[tuple[str, str], tuple[ComparisonCell, ...]]
    seconds: Mapping[tuple[str, str], float]

    def mean_error(self, protocol: str, label: str, budget: str) -> float:
        """The identification error of *label* at *budget* under *protocol*, averaged over the datasets."""
        errors = [
            c.error
            for d in self.datasets
            for c in self.cells[d, protocol]
            if (c.label, c.budget_pct) == (label, budget)
        ]
        return sum(errors) / len(errors)


def _key(dataset: Dataset, protocol: str, settings: SubsetSettings) -> str:
    text = json.dumps(
        {"sha256": dataset.sha256, "protocol": protocol, "version": __version__, **settings.to_json()}, sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def run_subset_study(
    datasets: Sequence[Dataset],
    instances: Mapping[str, Instance],
    out: Path,
    settings: SubsetSettings,
    progress: Callable[[str], None] | None = None,
    workers: int = 1,
) -> SubsetStudy:
    """Compute (or read from the cache) both protocols on every dataset; *progress* is told each one done.

    With *workers* > 1 the (dataset, protocol) pairs not cached yet run in that
    many processes; each is cached as it finishes, and the numbers do not
    depend on the number of workers.
    """
    paths = {(d.name, p): out / "cache" / "subset" / f"{d.name}.{p}.json" for d in datasets for p in PROTOCOLS}
    keys = {(d.name, p): _key(d, p, settings) for d in datasets for p in PROTOCOLS}
    stored: dict[tuple[str, str], dict[str, JsonValue]] = {}
    for pair, path in paths.items():
        found = _stored(path)
        if isinstance(found, dict) and found.get("key") == keys[pair]:
            stored[pair] = found
            if progress is not None:
                progress(f"{pair[0]} {pair[1]} (cached)")
    sizes = {name: instance.array.size for name, instance in instances.items()}
    # the largest matrices first, so that the workers finish together; the output order does not depend on it
    missing = sorted((pair for pair in paths if pair not in stored), key=lambda pair: -sizes[pair[0]])

    def record(pair: tuple[str, str], found: tuple[ComparisonCell, ...], seconds: float) -> None:
        entry: dict[str, JsonValue] = {
            "key": keys[pair],
            "seconds": seconds,
            "cells": [[c.label, c.budget_pct, c.correct, c.runs] for c in found],
        }
        atomic_write(paths[pair], json.dumps(entry))
        stored[pair] = entry
        if progress is not None:
            progress(f"{pair[0]} {pair[1]}")

    if workers <= 1 or len(missing) <= 1:
        for pair in missing:
            record(pair, *_timed(instances[pair[0]].array, pair[1], settings))
    else:
        with process_pool(min(workers, len(missing))) as pool:  # workers end with us, and at once on Ctrl-C
            futures = {pool.submit(_timed, instances[pair[0]].array, pair[1], settings): pair for pair in missing}
            for future in as_completed(futures):
                record(futures[future], *future.result())
    cells = {
        pair: tuple(ComparisonCell(str(a), str(b), int(str(c)), int(str(d))) for a, b, c, d in _rows(stored[pair]))
        for pair in paths
    }  # in dataset, protocol order, whatever order the workers finished in
    seconds = {pair: float(str(stored[pair]["seconds"])) for pair in paths}
    return SubsetStudy(settings, tuple(d.name for d in datasets), cells, seconds)


def _stored(path: Path) -> JsonValue:
    """The JSON a cached study entry holds, or None when there is none or it cannot be read (then it is recomputed)."""
    try:
        return read_json(path)
    except (OSError, ValueError):  # missing, not a regular file, too large, not UTF-8 JSON, nested too deep
        return None


def _rows(entry: Mapping[str, JsonValue]) -> list[list[JsonValue]]:
    rows = entry["cells"]
    assert isinstance(rows, list)
    return [row for row in rows if isinstance(row, list)]


def _timed(
    scores: npt.NDArray[np.float64], protocol: str, settings: SubsetSettings
) -> tuple[tuple[ComparisonCell, ...], float]:
    """One (dataset, protocol) computed (in a worker process) and the seconds it took."""
    began = time.perf_counter()
    found = _compute(Instance(scores), protocol, settings)
    return found, time.perf_counter() - began


def _compute(instance: Instance, protocol: str, s: SubsetSettings) -> tuple[ComparisonCell, ...]:
    if protocol == "full":
        return full_matrix_comparison(
            instance,
            budgets=s.budgets,
            seeds=s.seeds,
            dims=s.dims,
            sysrs_runs=s.sysrs_runs,
            seed=s.seed,
            epochs=s.epochs,
            kmedoids=s.kmedoids,
        )
    return held_out_comparison(
        instance,
        budgets=s.budgets,
        splits=s.splits,
        dims=s.dims,
        sysrs_runs=max(1, s.sysrs_runs // s.splits),
        seed=s.seed,
        epochs=s.epochs,
        kmedoids=s.kmedoids,
    )


def write_subset_outputs(out: Path, study: SubsetStudy, plots: bool = True) -> list[Path]:
    """Write the JSON, CSV, Markdown table and (with matplotlib) the figure; return the files written."""
    names = labels(study.settings.dims)
    budgets = study.settings.budgets
    means = {(p, label, b): study.mean_error(p, label, b) for p in PROTOCOLS for label in names for b in budgets}
    document: dict[str, JsonValue] = {
        "settings": study.settings.to_json(),
        "datasets": list(study.datasets),
        "seconds": {f"{d}/{p}": round(t, 3) for (d, p), t in study.seconds.items()},
        "mean_error": [
            {"protocol": p, "label": label, "budget_pct": b, "error": means[p, label, b]}
            for p in PROTOCOLS
            for label in names
            for b in budgets
        ],
        "cells": [
            {
                "dataset": d,
                "protocol": p,
                "label": c.label,
                "budget_pct": c.budget_pct,
                "correct": c.correct,
                "runs": c.runs,
                "error": c.error,
            }
            for (d, p), found in study.cells.items()
            for c in found
        ],
    }
    files = [out / "subset_selection.json", out / "subset_selection.csv", out / "subset_selection.md"]
    atomic_write(files[0], json.dumps(document, indent=1))
    rows = ["protocol,label," + ",".join(budgets)]
    rows += [
        f"{p},{label}," + ",".join(f"{means[p, label, b]:.6f}" for b in budgets) for p in PROTOCOLS for label in names
    ]
    atomic_write(files[1], "\n".join(rows) + "\n")
    atomic_write(files[2], _markdown(study, names, means))
    if plots:
        files += _figure(out, study, names, means)
    return files


def _markdown(study: SubsetStudy, names: Sequence[str], means: Mapping[tuple[str, str, str], float]) -> str:
    s = study.settings
    budgets = s.budgets
    lines = [
        '# Subset selection against SySRs (Appendix "Subset Selection Experimental Details")',
        "",
        f"Mean identification error (%) over {counted(len(study.datasets), 'dataset')} ({', '.join(study.datasets)}). "
        f"Clustering methods: {counted(s.seeds, 'seed')} (anchor points: k-medoids by {s.kmedoids}); MetaBench: 1 run; SySRs: {counted(s.sysrs_runs, 'run')}. Held-out: "
        f"{counted(s.splits, 'random half', 'random halves')} of the models; methods fitted on one half pick the best of the other, "
        f"SySRs runs on that half ({counted(max(1, s.sysrs_runs // s.splits), 'run')} per split).",
    ]
    for protocol, title in (
        ("full", "Fitted on the full matrix (the paper's protocol)"),
        ("held-out", "Held-out models"),
    ):
        lines += ["", f"## {title}", "", "| method | " + " | ".join(budgets) + " |", "|---" * (len(budgets) + 1) + "|"]
        lines += [
            f"| `{label}` | " + " | ".join(f"{100 * means[protocol, label, b]:.1f}" for b in budgets) + " |"
            for label in names
        ]
    lines += [
        "",
        "Seconds per dataset and protocol: " + ", ".join(f"{d} {p} {t:.0f}" for (d, p), t in study.seconds.items()),
        "",
    ]
    return "\n".join(lines)


def _figure(
    out: Path, study: SubsetStudy, names: Sequence[str], means: Mapping[tuple[str, str, str], float]
) -> list[Path]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return []
    budgets = study.settings.budgets
    xs = [float(b.rstrip("%")) for b in budgets]
    figure = Figure(figsize=(11, 4.2))
    for index, (protocol, title) in enumerate(
        (("full", "fitted on the full matrix (paper)"), ("held-out", "held-out models"))
    ):
        axis = figure.add_subplot(1, 2, index + 1)
        for label in names:
            axis.plot(
                xs,
                [100 * means[protocol, label, b] for b in budgets],
                label=label,
                linewidth=2.5 if label == "sysrs" else 1.2,
                color="black" if label == "sysrs" else None,
            )
        axis.set(
            xlabel="budget (% of model/query pairs)", ylabel="identification error (%), mean over datasets", title=title
        )
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    return [_save(figure, out / "subset_selection.png", 120)]
