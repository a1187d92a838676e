"""The on-disk cache of reproduce: one small JSON file per finished grid point, written atomically.

Each entry is keyed by the dataset's SHA-256, the algorithm, its exact
parameters, the budget percentage, R, the seed, the package version and (for
the top-m study) the targets m; an entry whose key does not match is ignored
and recomputed, never trusted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from sysrs_ref._atomic import atomic_write
from sysrs_ref._version import __version__
from sysrs_ref.datasets import Dataset
from sysrs_ref.scores import decimal_text

if TYPE_CHECKING:
    from sysrs_ref.experiments._plan import Config

__all__ = ["CACHE_FORMAT", "Cache", "Point", "TopMPoint"]

#: Bumped whenever the meaning of a cache entry changes.
CACHE_FORMAT = 1


@dataclass(frozen=True)
class TopMPoint:
    """Top-m errors of a grid point's runs for one m, as counts (Appendix "Top-m").

    ``identification`` and ``ranking`` count runs in error; ``wrong_positions``
    counts wrongly predicted positions, out of ``m * runs``.
    """

    m: int
    identification: int
    ranking: int
    wrong_positions: int


@dataclass(frozen=True)
class Point:
    """One grid point of a cell: the budget, and how many of the runs chose a true best model."""

    budget_pct: Fraction
    budget: int
    correct: int
    runs: int
    spent_max: int
    top_m: tuple[TopMPoint, ...] = ()
    """The top-m errors at this point, per target m (the top-m study only)."""

    @property
    def accuracy(self) -> float:
        """correct / runs."""
        return self.correct / self.runs


def _safe(text: str) -> str:
    """A path component for *text* (the cache stores the full key inside, so a clash is only recomputed)."""
    return re.sub(r"[^A-Za-z0-9._()=,%+-]", "_", text)


class Cache:
    """The grid points already computed, one small JSON file each, under ``root/cache``."""

    def __init__(self, root: str | Path, top_m: tuple[int, ...] = ()) -> None:
        self.root = Path(root) / "cache"
        self.top_m = top_m
        """The targets m of the top-m study: part of every key, and of the folder."""

    def _key(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> dict[str, object]:
        extra: dict[str, object] = {"top_m": list(self.top_m)} if self.top_m else {}
        return extra | {
            "format": CACHE_FORMAT,
            "version": __version__,
            "dataset": dataset.name,
            "sha256": dataset.sha256,
            "algorithm": config.algorithm,
            "params": {key: decimal_text(value) for key, value in config.params},
            "budget_pct": decimal_text(pct),
            "runs": runs,
            "seed": seed,
        }

    def path(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> Path:
        """Where the entry of this grid point lives."""
        study = f"-top{'_'.join(map(str, self.top_m))}" if self.top_m else ""
        folder = self.root / _safe(dataset.name) / _safe(config.label) / f"runs{runs}-seed{seed}{study}"
        return folder / f"{_safe(decimal_text(pct))}.json"

    def get(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> Point | None:
        """The cached point, or None when there is none or it does not match this key exactly."""
        path = self.path(dataset, config, pct, runs, seed)
        try:
            entry = json.loads(path.read_text())
            if entry["key"] != self._key(dataset, config, pct, runs, seed):
                return None
            top_m = tuple(TopMPoint(*(int(x) for x in item)) for item in entry.get("top_m", []))
            point = Point(pct, int(entry["budget"]), int(entry["correct"]), runs, int(entry["spent_max"]), top_m)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, or unreadable (never written by this code: writes are atomic)
        if tuple(item.m for item in point.top_m) != self.top_m:
            return None
        return point if 0 <= point.correct <= runs else None

    def put(self, dataset: Dataset, config: Config, point: Point, seed: int) -> None:
        """Write one point atomically: a complete file appears under its name, or nothing does."""
        path = self.path(dataset, config, point.budget_pct, point.runs, seed)
        entry = {
            "key": self._key(dataset, config, point.budget_pct, point.runs, seed),
            "budget": point.budget,
            "correct": point.correct,
            "spent_max": point.spent_max,
        }
        if point.top_m:
            entry["top_m"] = [[p.m, p.identification, p.ranking, p.wrong_positions] for p in point.top_m]
        atomic_write(path, json.dumps(entry, indent=1) + "\n")
