"""The on-disk cache of reproduce: one small JSON file per finished grid point, written atomically.

Each entry is keyed by the dataset's SHA-256, the algorithm, its exact
parameters, the budget percentage, R, the seed, the package version and (for
the top-m study) the targets m, and carries ``"checksum": "sha256:<hex>"``,
the SHA-256 of the rest of the entry (key and counts) as canonical JSON
(:func:`entry_checksum`). An entry is used only if its checksum matches, its
key is this grid point's and its counts are possible (0 <= correct <= R,
0 <= spent_max <= budget, each top-m count within its range); otherwise it is
recomputed, with one warning line on stderr naming the file and what was
wrong. An entry of another version of the package or of another matrix (the
key's ``version``, ``format`` or ``sha256`` differ) is recomputed without a
warning: it is out of date, not damaged.

The points of a finished job are written together (:meth:`Cache.put_all`:
one flush to the disk for all of them, each file still atomic). A
:class:`Cache` made with ``remember=True`` (``reproduce``'s) reads and checks
each entry once and answers for the points it wrote or read from memory
after that: its report reads back neither what it has just computed nor
what its plan has read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from sysrs_ref._atomic import atomic_write_all
from sysrs_ref._files import SMALL_FILE_BYTES, read_regular
from sysrs_ref._version import __version__
from sysrs_ref.datasets import Dataset
from sysrs_ref.experiments._checkpoint import Checkpoints
from sysrs_ref.experiments._entry import (
    Rejected,
    checked_entry,
    count_in,
    entry_checksum,
    is_top_m_item,
    safe_component,
    warn_on_stderr,
)
from sysrs_ref.scores import decimal_text

if TYPE_CHECKING:
    from sysrs_ref.simulation import Config

__all__ = ["CACHE_FORMAT", "Cache", "Point", "TopMPoint", "entry_checksum"]

#: Bumped whenever the meaning of a cache entry changes (2: entries carry a checksum).
CACHE_FORMAT = 2


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


def _top_m(entry: dict[str, object], targets: tuple[int, ...], runs: int) -> tuple[TopMPoint, ...]:
    """The top-m counts of *entry*, checked: one per target m, in order, each within its range."""
    items = entry.get("top_m", [])
    if not isinstance(items, list) or not all(is_top_m_item(item) for item in items):
        raise Rejected('has a malformed "top_m"')
    if [item[0] for item in items] != list(targets):
        raise Rejected(f"has top-m counts for m = {[item[0] for item in items]}, not {list(targets)}")
    out = []
    for m, *counts in items:
        named = dict(zip(("identification", "ranking", "wrong_positions"), counts, strict=True))
        ranges = {"identification": runs, "ranking": runs, "wrong_positions": m * runs}
        checked = [count_in(named, name, 0, most) for name, most in ranges.items()]
        out.append(TopMPoint(m, *checked))
    return tuple(out)


class Cache:
    """The grid points already computed, one small JSON file each, under ``root/cache``.

    *warn* is called with one line for each entry found damaged (default: print it on stderr).
    With *remember*, :meth:`get` returns the points this object wrote (:meth:`put`, :meth:`put_all`) or
    has read and checked once already from memory, without reading their files again; otherwise every
    :meth:`get` reads and checks the file.
    """

    def __init__(
        self,
        root: str | Path,
        top_m: tuple[int, ...] = (),
        *,
        warn: Callable[[str], None] | None = None,
        remember: bool = False,
    ) -> None:
        self.root = Path(root) / "cache"
        self.top_m = top_m
        """The targets m of the top-m study: part of every key, and of the folder."""
        self._warn = warn_on_stderr if warn is None else warn
        self.checkpoints = Checkpoints(self.root, top_m, warn=self._warn)
        """The finished runs of the cells not finished yet (:mod:`sysrs_ref.experiments._checkpoint`)."""
        self._remember = remember
        self._known: dict[Path, tuple[dict[str, object], Point]] = {}
        """What this object wrote or read, per file, when it remembers: the entry's key and its point."""
        self._heads: dict[tuple[str, str, Config], dict[str, object]] = {}
        self._folders: dict[tuple[str, Config, int, int], Path] = {}

    def _key(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> dict[str, object]:
        head = self._heads.get((dataset.name, dataset.sha256, config))
        if head is None:  # what the keys of one cell's points share, made once per cell
            extra: dict[str, object] = {"top_m": list(self.top_m)} if self.top_m else {}
            head = extra | {
                "format": CACHE_FORMAT,
                "version": __version__,
                "dataset": dataset.name,
                "sha256": dataset.sha256,
                "algorithm": config.algorithm,
                "params": {key: decimal_text(value) for key, value in config.params},
            }
            self._heads[dataset.name, dataset.sha256, config] = head
        return head | {"budget_pct": decimal_text(pct), "runs": runs, "seed": seed}

    def path(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> Path:
        """Where the entry of this grid point lives."""
        folder = self._folders.get((dataset.name, config, runs, seed))
        if folder is None:  # one cell's folder, made once per cell
            study = f"-top{'_'.join(map(str, self.top_m))}" if self.top_m else ""
            folder = (
                self.root
                / safe_component(dataset.name)
                / safe_component(config.label)
                / f"runs{runs}-seed{seed}{study}"
            )
            self._folders[dataset.name, config, runs, seed] = folder
        return folder / f"{safe_component(decimal_text(pct))}.json"

    def get(self, dataset: Dataset, config: Config, pct: Fraction, runs: int, seed: int) -> Point | None:
        """The cached point, or None when there is none or it cannot be trusted (then it is recomputed).

        A damaged entry (unreadable, checksum missing or wrong, another grid
        point's key, impossible counts) is reported through *warn*.
        """
        path = self.path(dataset, config, pct, runs, seed)
        key = self._key(dataset, config, pct, runs, seed)
        known = self._known.get(path)
        if known is not None and known[0] == key:
            return known[1]
        try:
            text = read_regular(path, SMALL_FILE_BYTES).decode("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as err:
            self._warn(
                f"warning: cannot read the cache entry '{path}' ({getattr(err, 'strerror', None) or err}); recomputing it"
            )
            return None
        try:
            point = self._point(text, key, pct, runs)
        except Rejected as rejected:
            if rejected.reason is not None:
                self._warn(f"warning: the cache entry '{path}' {rejected.reason}; recomputing it")
            return None
        if self._remember:
            self._known[path] = (key, point)
        return point

    def _point(self, text: str, key: dict[str, object], pct: Fraction, runs: int) -> Point:
        """The point *text* holds, if it is an intact entry of *key*; else Rejected saying why."""
        entry = checked_entry(text, key, "grid point")
        budget = count_in(entry, "budget", 1, None)
        correct = count_in(entry, "correct", 0, runs)
        spent_max = count_in(entry, "spent_max", 0, budget)
        return Point(pct, budget, correct, runs, spent_max, _top_m(entry, self.top_m, runs))

    def put(self, dataset: Dataset, config: Config, point: Point, seed: int) -> None:
        """Write one point atomically: a complete file appears under its name, or nothing does (OutputError)."""
        self.put_all([(dataset, config, point, seed)])

    def put_all(self, points: Iterable[tuple[Dataset, Config, Point, int]]) -> None:
        """Write each (dataset, configuration, point, seed) as :meth:`put` does, with one flush to the disk for all.

        Each file is atomic (:func:`~sysrs_ref._atomic.atomic_write_all`); on a
        failure (OutputError) the files written before it stay, complete.
        """
        files: list[tuple[Path, str]] = []
        kept: list[tuple[Path, dict[str, object], Point]] = []
        for dataset, config, point, seed in points:
            path = self.path(dataset, config, point.budget_pct, point.runs, seed)
            key = self._key(dataset, config, point.budget_pct, point.runs, seed)
            entry: dict[str, object] = {"key": key, "budget": point.budget, "correct": point.correct}
            entry["spent_max"] = point.spent_max
            if point.top_m:
                entry["top_m"] = [[p.m, p.identification, p.ranking, p.wrong_positions] for p in point.top_m]
            entry["checksum"] = entry_checksum(entry)
            files.append((path, json.dumps(entry, indent=1) + "\n"))
            kept.append((path, key, point))
        atomic_write_all(files)
        if self._remember:
            for path, key, point in kept:
                self._known[path] = (key, point)
