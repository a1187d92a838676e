"""Checkpoints of reproduce: the finished runs of a cell not yet finished, in small JSON files.

A cell's points reach the cache (:mod:`sysrs_ref.experiments._cache`) only
once all its R runs are made; a UCB-E-LRF cell of the paper (100 runs of up
to 75 minutes each) would lose every finished run to an interruption. So
the finished pieces of runs of a cell are written atomically (a temporary
file, then a rename) to ``CELL/partial-<grid>/START-STOP.json`` beside the
cell's points, adjacent pieces as one file, at most every
:data:`CHECKPOINT_SECONDS` per job (:class:`Unsaved`) and at once on an
interruption; the piece that finishes a cell is not checkpointed (its
points are cached instead). CELL is the cell's cache folder and ``<grid>``
names the budget grid (the first 12 hex digits of the SHA-256 of its
percentages). The file holds its runs' counts at every budget of the grid
(how many runs chose a true best model, the largest spend, the top-m
counts) and a key: the dataset's
SHA-256, the algorithm and its exact parameters, the grid, R, the seed, the
package version, the targets m. A resumed run reads them back
(:meth:`Checkpoints.read`), makes only the runs no checkpoint holds, and adds
the counts: the sums and maxima over the runs do not depend on how the runs
were cut into pieces, and run r's draw depends only on (seed, r), so the
resumed cell is the uninterrupted one, bit for bit. Once the cell's points
are in the cache its checkpoints are removed (:meth:`Checkpoints.clear`).

A checkpoint that cannot be trusted (unreadable, not JSON, checksum missing
or wrong, another cell's key, runs outside 0 .. R, impossible counts) is
ignored, with one warning line naming the file and what was wrong, and its
runs are made again. One of another package version or another matrix is
ignored without a warning (out of date, not damaged). Two valid checkpoints
that share runs (only possible if one was once unreadable) are never both
counted: the earliest-starting, then the longest, is kept.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from sysrs_ref._atomic import atomic_write
from sysrs_ref._files import SMALL_FILE_BYTES, read_regular
from sysrs_ref._version import __version__
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import OutputError
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
from sysrs_ref.simulation import CellResult, Config, Job
from sysrs_ref.topm import TopMCounts

__all__ = ["CHECKPOINT_FORMAT", "CHECKPOINT_SECONDS", "Checkpoints", "Made", "Unsaved"]

#: Bumped whenever the meaning of a checkpoint changes.
CHECKPOINT_FORMAT = 1

#: A cell's finished pieces are checkpointed at most this often (and at once on an interruption or an
#: error): a cell of cheap runs, done in seconds, writes none, and a killed process (SIGKILL, a power
#: cut) loses at most this much of a cell's work, besides the pieces under way.
CHECKPOINT_SECONDS = 30.0


@dataclass(frozen=True)
class Made:
    """The runs of one cell its checkpoints hold: disjoint ranges (start, stop), and their counts summed.

    >>> made = Made(((0, 4), (6, 10)), (5, 7), (9, 12), ())
    >>> made.runs, made.todo(12)
    (8, ((4, 6), (10, 12)))
    >>> Made.nothing(2).todo(3)
    ((0, 3),)
    """

    ranges: tuple[tuple[int, int], ...]
    correct: tuple[int, ...]
    """Per budget of the grid: how many of these runs chose a true best model."""
    spent_max: tuple[int, ...]
    """Per budget: the largest number of evaluations any of these runs spent (0 when there is none)."""
    top_m: tuple[TopMCounts, ...]
    """Per target m, in order: the top-m counts over these runs (empty when there is none)."""

    @classmethod
    def nothing(cls, budgets: int) -> Made:
        """No run made yet, at *budgets* budgets."""
        return cls((), (0,) * budgets, (0,) * budgets, ())

    @property
    def runs(self) -> int:
        """How many runs these are."""
        return sum(stop - start for start, stop in self.ranges)

    def todo(self, runs: int) -> tuple[tuple[int, int], ...]:
        """The runs of 0 .. *runs* - 1 still to make, as ranges (start, stop) in order."""
        gaps, end = [], 0
        for start, stop in self.ranges:
            if start > end:
                gaps.append((end, start))
            end = stop
        if end < runs:
            gaps.append((end, runs))
        return tuple(gaps)

    def added_to(self, cell: CellResult) -> CellResult:
        """*cell* (the counts of the other runs of the cell) with these runs' counts added: the whole cell's."""
        from_here = {counts.m: counts for counts in self.top_m}
        top_m = {m: counts.merged(from_here[m]) if m in from_here else counts for m, counts in cell.top_m.items()} | {
            m: counts for m, counts in from_here.items() if m not in cell.top_m
        }
        return CellResult(
            cell.correct + np.asarray(self.correct, dtype=np.int64),
            np.maximum(cell.spent_max, np.asarray(self.spent_max, dtype=np.int64)),
            top_m,
        )


def combined(first: CellResult, second: CellResult) -> CellResult:
    """The counts of two sets of runs of one cell together: correct runs added, largest spends, top-m counts merged.

    >>> both = combined(CellResult(np.array([1, 2]), np.array([5, 9])), CellResult(np.array([3, 0]), np.array([7, 8])))
    >>> both.correct.tolist(), both.spent_max.tolist()
    ([4, 2], [7, 9])
    """
    top_m = {m: c.merged(second.top_m[m]) if m in second.top_m else c for m, c in first.top_m.items()}
    top_m |= {m: c for m, c in second.top_m.items() if m not in first.top_m}
    return CellResult(first.correct + second.correct, np.maximum(first.spent_max, second.spent_max), top_m)


def _ints(entry: dict[str, object], name: str, count: int) -> list[int]:
    """*entry*'s list of *count* integers *name*; Rejected otherwise."""
    items = entry.get(name)
    if not isinstance(items, list) or len(items) != count or not all(type(item) is int for item in items):
        raise Rejected(f'has no list of {count} integers "{name}"')
    return items


def _within(values: Sequence[int], name: str, most: Sequence[int]) -> None:
    """Rejected unless 0 <= values[b] <= most[b] at every budget b."""
    for value, high in zip(values, most, strict=True):
        if not 0 <= value <= high:
            raise Rejected(f'says "{name}" = {value} at a budget, outside [0, {high}]')


class Checkpoints:
    """The finished runs of unfinished cells under ``root`` (the cache folder), read back once per cell.

    *top_m* are the targets m of the top-m study (part of every key and
    folder); *warn* is called with one line per checkpoint found damaged.
    :meth:`made` reads a cell's checkpoints the first time it is asked and
    then returns the same answer, so that what a plan skipped is exactly
    what is added back when the cell is done, whatever was written since.
    """

    def __init__(self, root: Path, top_m: tuple[int, ...] = (), *, warn: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.top_m = top_m
        self._warn = warn_on_stderr if warn is None else warn
        self._read: dict[tuple[str, str, Config, tuple[Fraction, ...], int, int], Made] = {}

    def folder(self, dataset: Dataset, config: Config, grid: Sequence[Fraction], runs: int, seed: int) -> Path:
        """Where the checkpoints of this cell on this grid live."""
        study = f"-top{'_'.join(map(str, self.top_m))}" if self.top_m else ""
        cell = self.root / safe_component(dataset.name) / safe_component(config.label) / f"runs{runs}-seed{seed}{study}"
        return cell / f"partial-{_grid_name(grid)}"

    def _key(
        self, dataset: Dataset, config: Config, grid: Sequence[Fraction], runs: int, seed: int
    ) -> dict[str, object]:
        extra: dict[str, object] = {"top_m": list(self.top_m)} if self.top_m else {}
        return extra | {
            "format": CHECKPOINT_FORMAT,
            "version": __version__,
            "dataset": dataset.name,
            "sha256": dataset.sha256,
            "algorithm": config.algorithm,
            "params": {key: decimal_text(value) for key, value in config.params},
            "grid": [decimal_text(pct) for pct in grid],
            "runs": runs,
            "seed": seed,
        }

    def put(
        self,
        dataset: Dataset,
        config: Config,
        grid: Sequence[Fraction],
        runs: int,
        seed: int,
        piece: tuple[int, int],
        cell: CellResult,
    ) -> None:
        """Write the counts of runs *piece* = (start, stop) of a cell atomically (OutputError if it cannot be)."""
        start, stop = piece
        entry: dict[str, object] = {
            "key": self._key(dataset, config, grid, runs, seed),
            "start": start,
            "stop": stop,
            "correct": [int(value) for value in cell.correct],
            "spent_max": [int(value) for value in cell.spent_max],
        }
        if self.top_m:
            entry["top_m"] = [
                [m, list(c.identification), list(c.ranking), list(c.wrong_positions)]
                for m, c in sorted(cell.top_m.items())
            ]
        entry["checksum"] = entry_checksum(entry)
        atomic_write(self.folder(dataset, config, grid, runs, seed) / f"{start}-{stop}.json", json.dumps(entry) + "\n")

    def read(
        self, dataset: Dataset, config: Config, grid: Sequence[Fraction], budgets: Sequence[int], runs: int, seed: int
    ) -> Made:
        """The runs of this cell its checkpoints hold now, read from disk and remembered; damaged ones are warned about."""
        made = self._load(dataset, config, grid, budgets, runs, seed)
        self._read[_memo(dataset, config, grid, runs, seed)] = made
        return made

    def made(
        self, dataset: Dataset, config: Config, grid: Sequence[Fraction], budgets: Sequence[int], runs: int, seed: int
    ) -> Made:
        """What :meth:`read` last found for this cell (what a plan skipped), or what it finds now."""
        memo = _memo(dataset, config, grid, runs, seed)
        return self._read[memo] if memo in self._read else self.read(dataset, config, grid, budgets, runs, seed)

    def clear(self, dataset: Dataset, config: Config, grid: Sequence[Fraction], runs: int, seed: int) -> None:
        """Remove this cell's checkpoints (its points are in the cache now); what cannot be removed is left."""
        shutil.rmtree(self.folder(dataset, config, grid, runs, seed), ignore_errors=True)
        self._read.pop(_memo(dataset, config, grid, runs, seed), None)

    def _load(
        self, dataset: Dataset, config: Config, grid: Sequence[Fraction], budgets: Sequence[int], runs: int, seed: int
    ) -> Made:
        folder = self.folder(dataset, config, grid, runs, seed)
        try:
            paths = sorted(path for path in folder.glob("*.json") if not path.name.startswith("."))
        except OSError:
            paths = []
        key = self._key(dataset, config, grid, runs, seed)
        pieces: list[tuple[int, int, list[int], list[int], tuple[TopMCounts, ...]]] = []
        for path in paths:
            try:
                text = read_regular(path, SMALL_FILE_BYTES).decode("utf-8")
            except (OSError, UnicodeDecodeError) as err:
                self._warn(
                    f"warning: cannot read the checkpoint '{path}' ({getattr(err, 'strerror', None) or err}); "
                    "its runs are made again"
                )
                continue
            try:
                pieces.append(self._piece(text, key, budgets, runs))
            except Rejected as rejected:
                if rejected.reason is not None:
                    self._warn(f"warning: the checkpoint '{path}' {rejected.reason}; its runs are made again")
        made = Made.nothing(len(budgets))
        for start, stop, correct, spent, top_m in sorted(pieces, key=lambda p: (p[0], p[0] - p[1])):
            if made.ranges and start < made.ranges[-1][1]:
                continue  # shares runs with a piece kept already
            if made.top_m:
                top_m = tuple(ours.merged(theirs) for ours, theirs in zip(made.top_m, top_m, strict=True))
            made = Made(
                (*made.ranges, (start, stop)),
                tuple(a + b for a, b in zip(made.correct, correct, strict=True)),
                tuple(max(a, b) for a, b in zip(made.spent_max, spent, strict=True)),
                top_m,
            )
        return made

    def _piece(
        self, text: str, key: dict[str, object], budgets: Sequence[int], runs: int
    ) -> tuple[int, int, list[int], list[int], tuple[TopMCounts, ...]]:
        """(start, stop, correct, spent_max, top-m counts) of an intact checkpoint of *key*; else Rejected."""
        entry = checked_entry(text, key, "cell")
        start = count_in(entry, "start", 0, runs - 1)
        stop = count_in(entry, "stop", start + 1, runs)
        n = stop - start
        correct = _ints(entry, "correct", len(budgets))
        spent = _ints(entry, "spent_max", len(budgets))
        _within(correct, "correct", [n] * len(budgets))
        _within(spent, "spent_max", budgets)
        return start, stop, correct, spent, self._top_m(entry, len(budgets), n)

    def _top_m(self, entry: dict[str, object], budgets: int, runs: int) -> tuple[TopMCounts, ...]:
        """The checkpoint's top-m counts, one per target m in order, each within its range; Rejected otherwise."""
        items = entry.get("top_m", [])
        if not isinstance(items, list) or not all(is_top_m_item(item) for item in items):
            raise Rejected('has a malformed "top_m"')
        if [item[0] for item in items] != list(self.top_m):
            raise Rejected(f"has top-m counts for m = {[item[0] for item in items]}, not {list(self.top_m)}")
        out = []
        for m, *lists in items:
            named = dict(zip(("identification", "ranking", "wrong_positions"), lists, strict=True))
            checked = []
            for name, most in (("identification", runs), ("ranking", runs), ("wrong_positions", m * runs)):
                values = _ints(named, name, budgets)
                _within(values, f"top_m {name}", [most] * budgets)
                checked.append(tuple(values))
            out.append(TopMCounts(m, runs, *checked))
        return tuple(out)


#: A finished piece: its runs (start, stop) and each configuration's counts over them.
_Piece = tuple[int, int, Mapping[Config, CellResult]]


class Unsaved:
    """The finished pieces of each job's cells not checkpointed yet, written at most every *seconds* per job.

    :meth:`add` keeps a piece and, once *seconds* have passed since the job's
    last checkpoint (or since this object was made), writes what the job has
    kept: each run of adjacent pieces of a cell as one checkpoint. So a job of
    cheap runs that ends within *seconds* writes no checkpoint (its points
    are cached when it ends), and one whose pieces take minutes writes each
    as it finishes. :meth:`flush` writes everything kept (on an
    interruption), :meth:`drop` forgets a job that is done.

    >>> import tempfile
    >>> kept = Unsaved(Checkpoints(Path(tempfile.mkdtemp())), [Fraction(50)], seconds=60.0, clock=lambda: 0.0)
    >>> job = Job("x", (2, 3), (Config.of("sr"),), (3,), 10, 0)
    >>> dataset = Dataset("x", Path("x.npy"), "0" * 64)
    >>> for start in (0, 2, 6):
    ...     kept.add(dataset, job, start, start + 2, {job.configs[0]: CellResult(np.array([1]), np.array([3]))})
    >>> kept.flush()
    >>> sorted(path.name for path in kept.checkpoints.root.rglob("*.json"))
    ['0-4.json', '6-8.json']
    """

    def __init__(
        self,
        checkpoints: Checkpoints,
        grid: Sequence[Fraction],
        *,
        seconds: float = CHECKPOINT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.checkpoints = checkpoints
        self.grid = tuple(grid)
        self.seconds = seconds
        self._clock = clock
        self._began = clock()
        self._last: dict[tuple[str, tuple[Config, ...]], float] = {}
        self._kept: dict[tuple[str, tuple[Config, ...]], tuple[Dataset, Job, list[_Piece]]] = {}

    def add(self, dataset: Dataset, job: Job, start: int, stop: int, found: Mapping[Config, CellResult]) -> None:
        """Keep the counts of runs start .. stop - 1 of *job*'s cells; write the job's kept pieces if they are due."""
        name = (job.key, job.configs)
        self._kept.setdefault(name, (dataset, job, []))[2].append((start, stop, found))
        now = self._clock()
        if now - self._last.get(name, self._began) >= self.seconds:
            self._write(name)
            self._last[name] = now

    def flush(self) -> None:
        """Write every piece kept (OutputError if one cannot be written; the others are written first)."""
        failed: OutputError | None = None
        for name in list(self._kept):
            try:
                self._write(name)
            except OutputError as error:
                failed = failed or error
        if failed is not None:
            raise failed

    def drop(self, job: Job) -> None:
        """Forget *job*'s kept pieces (it is done: its points are cached)."""
        self._kept.pop((job.key, job.configs), None)

    def _write(self, name: tuple[str, tuple[Config, ...]]) -> None:
        if name not in self._kept:
            return
        dataset, job, pieces = self._kept.pop(name)
        pieces.sort(key=lambda piece: piece[0])
        for config in job.configs:
            run_start, run_stop, counts = pieces[0][0], pieces[0][1], pieces[0][2][config]
            for start, stop, found in [*pieces[1:], (-1, -1, {})]:
                if start == run_stop:  # adjacent: one checkpoint for both
                    run_stop, counts = stop, combined(counts, found[config])
                    continue
                self.checkpoints.put(dataset, config, self.grid, job.runs, job.seed, (run_start, run_stop), counts)
                if start >= 0:
                    run_start, run_stop, counts = start, stop, found[config]


def _memo(
    dataset: Dataset, config: Config, grid: Sequence[Fraction], runs: int, seed: int
) -> tuple[str, str, Config, tuple[Fraction, ...], int, int]:
    return dataset.name, dataset.sha256, config, tuple(grid), runs, seed


def _grid_name(grid: Sequence[Fraction]) -> str:
    """The first 12 hex digits of the SHA-256 of the grid's percentages (folders of two grids never meet).

    >>> _grid_name([Fraction(10), Fraction(30)])
    '1d34e5e27e44'
    """
    text = ",".join(decimal_text(pct) for pct in grid)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:12]
