"""reproduce's cache and checkpoints trust no field they cannot check: every JSON type in every field, the stale rule.

A cache entry and a checkpoint are small JSON files with a checksum; the tests below rewrite one field (and the
checksum, so that only the field's check stands between it and a wrong table) and expect the file to be ignored:
with one warning when it is damaged, silently when it is out of date (another package version, another matrix).
Each test fails when its check is removed (benchmarks/mutants.py's cache mutants die in this folder).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref.datasets import Dataset
from sysrs_ref.experiments import Cache, Config
from sysrs_ref.experiments._cache import Point, TopMPoint, entry_checksum
from sysrs_ref.experiments._checkpoint import Checkpoints
from sysrs_ref.simulation import CellResult
from sysrs_ref.topm import TopMCounts

#: A value of every JSON type but an integer: a JSON true is not the count 1, nor 1.0, "1" or [1].
NOT_INTEGERS = (True, False, 1.0, None, "1", [1], {"n": 1})


def _cached(tmp_path: Path) -> tuple[Cache, Dataset, Config, Path]:
    cache, config = Cache(tmp_path, top_m=(1, 2)), Config.of("sysrs")
    dataset = Dataset("d", tmp_path / "d.npy", "a" * 64)
    point = Point(Fraction(12), 86, 17, 20, 86, (TopMPoint(1, 3, 3, 3), TopMPoint(2, 5, 7, 9)))
    cache.put(dataset, config, point, 3)
    assert cache.get(dataset, config, Fraction(12), 20, 3) == point
    return cache, dataset, config, cache.path(dataset, config, Fraction(12), 20, 3)


def test_an_edited_top_m_count_is_not_trusted(tmp_path: Path) -> None:
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["top_m"][1][1] = 4  # the identification errors of m = 2, edited; the checksum left as it was
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


def test_top_m_counts_for_other_targets_are_not_trusted(tmp_path: Path) -> None:
    """Counts for m = 1, 3 under a key for m = 1, 2, even with a checksum that fits them: recomputed."""
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["top_m"][1][0] = 3
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


def test_a_count_above_the_runs_is_not_trusted(tmp_path: Path) -> None:
    """An entry saying more runs were right than were run (with a checksum that fits): recomputed."""
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["correct"] = 21  # of 20 runs
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


def _rewritten(path: Path, change: object) -> None:
    """*path*'s entry with *change* applied to it (a function of the entry) and its checksum made to fit again."""
    entry = json.loads(path.read_text(encoding="utf-8"))
    change(entry)  # type: ignore[operator]
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
@pytest.mark.parametrize("field", ["budget", "correct", "spent_max"])
def test_a_cache_count_of_another_json_type_is_not_trusted(tmp_path: Path, field: str, value: object) -> None:
    warnings: list[str] = []
    cache, config = Cache(tmp_path, warn=warnings.append), Config.of("sysrs")
    dataset = Dataset("d", tmp_path / "d.npy", "a" * 64)
    cache.put(dataset, config, Point(Fraction(12), 86, 1, 20, 1), 3)
    path = cache.path(dataset, config, Fraction(12), 20, 3)
    _rewritten(path, lambda entry: entry.__setitem__(field, value))
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None
    assert warnings == [f"warning: the cache entry '{path}' has no integer \"{field}\"; recomputing it"]


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
@pytest.mark.parametrize("position", [0, 1, 2, 3], ids=["m", "identification", "ranking", "wrong_positions"])
def test_a_cache_top_m_field_of_another_json_type_is_not_trusted(tmp_path: Path, position: int, value: object) -> None:
    """m = true under targets (1, 2) is not m = 1; a count true is not the count 1."""
    cache, dataset, config, path = _cached(tmp_path)
    _rewritten(path, lambda entry: entry["top_m"][0].__setitem__(position, value))
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


@pytest.mark.parametrize("value", [*NOT_INTEGERS, 1], ids=repr)
def test_a_cache_top_m_of_another_shape_is_not_trusted(tmp_path: Path, value: object) -> None:
    cache, dataset, config, path = _cached(tmp_path)
    _rewritten(path, lambda entry: entry.__setitem__("top_m", value))
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


@pytest.mark.parametrize("field", ["sha256", "version", "format"])
def test_an_out_of_date_cache_entry_is_recomputed_silently(tmp_path: Path, field: str) -> None:
    """Another matrix under the same name, another package version: out of date, not damaged (no warning)."""
    warnings: list[str] = []
    cache, config = Cache(tmp_path, warn=warnings.append), Config.of("sysrs")
    dataset = Dataset("d", tmp_path / "d.npy", "a" * 64)
    cache.put(dataset, config, Point(Fraction(12), 86, 1, 20, 1), 3)
    path = cache.path(dataset, config, Fraction(12), 20, 3)
    _rewritten(path, lambda entry: entry["key"].__setitem__(field, "b" * 64))
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None and warnings == []
    _rewritten(path, lambda entry: entry["key"].__setitem__("seed", 4))  # another grid point: damaged, said
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None and len(warnings) == 1


# -- the checkpoints: the same checks on the counts of a cell's finished runs ---------------------------------------

GRID = (Fraction(10), Fraction(50))
BUDGETS = (20, 100)


def _checkpointed(tmp_path: Path, top_m: tuple[int, ...] = ()) -> tuple[Checkpoints, list[str], Dataset, Path]:
    warnings: list[str] = []
    checkpoints = Checkpoints(tmp_path / "cache", top_m, warn=warnings.append)
    dataset, config = Dataset("d", tmp_path / "d.npy", "a" * 64), Config.of("sysrs")
    counts = {m: TopMCounts(m, 4, (1, 0), (2, 1), (3, 2)) for m in top_m}
    cell = CellResult(np.array([2, 3]), np.array([20, 90]), counts)
    checkpoints.put(dataset, config, GRID, 10, 0, (0, 4), cell)
    (path,) = checkpoints.folder(dataset, config, GRID, 10, 0).glob("*.json")
    made = checkpoints.read(dataset, config, GRID, BUDGETS, 10, 0)
    assert made.ranges == ((0, 4),) and made.correct == (2, 3) and warnings == []
    return checkpoints, warnings, dataset, path


def _read(checkpoints: Checkpoints, dataset: Dataset) -> tuple[tuple[int, int], ...]:
    return checkpoints.read(dataset, Config.of("sysrs"), GRID, BUDGETS, 10, 0).ranges


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
@pytest.mark.parametrize("field", ["start", "stop"])
def test_a_checkpoint_run_of_another_json_type_is_not_trusted(tmp_path: Path, field: str, value: object) -> None:
    checkpoints, warnings, dataset, path = _checkpointed(tmp_path)
    _rewritten(path, lambda entry: entry.__setitem__(field, value))
    assert _read(checkpoints, dataset) == ()
    assert warnings == [f"warning: the checkpoint '{path}' has no integer \"{field}\"; its runs are made again"]


@pytest.mark.parametrize("value", [*NOT_INTEGERS, 2], ids=repr)
@pytest.mark.parametrize("field", ["correct", "spent_max"])
def test_a_checkpoint_count_of_another_json_type_is_not_trusted(tmp_path: Path, field: str, value: object) -> None:
    """The list itself replaced by a scalar (2 too), or one of its counts by a value of another type."""
    checkpoints, warnings, dataset, path = _checkpointed(tmp_path)
    _rewritten(path, lambda entry: entry.__setitem__(field, value))
    assert _read(checkpoints, dataset) == () and len(warnings) == 1
    if value != 2:
        _rewritten(path, lambda entry: entry.__setitem__(field, [value, 1]))
        assert _read(checkpoints, dataset) == () and len(warnings) == 2


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
@pytest.mark.parametrize("position", [0, 1, 2, 3], ids=["m", "identification", "ranking", "wrong_positions"])
def test_a_checkpoint_top_m_field_of_another_json_type_is_not_trusted(
    tmp_path: Path, position: int, value: object
) -> None:
    checkpoints, warnings, dataset, path = _checkpointed(tmp_path, top_m=(1, 2))
    if position == 0:
        _rewritten(path, lambda entry: entry["top_m"][0].__setitem__(0, value))
    else:
        _rewritten(path, lambda entry: entry["top_m"][0][position].__setitem__(0, value))
    assert _read(checkpoints, dataset) == () and len(warnings) == 1


def test_checkpoint_top_m_counts_in_another_order_are_not_trusted(tmp_path: Path) -> None:
    """The counts of m = 1 and m = 2 swapped: each list would be read as the other target's, so none is used."""
    checkpoints, warnings, dataset, path = _checkpointed(tmp_path, top_m=(1, 2))
    _rewritten(path, lambda entry: entry.__setitem__("top_m", entry["top_m"][::-1]))
    assert _read(checkpoints, dataset) == ()
    assert warnings == [
        f"warning: the checkpoint '{path}' has top-m counts for m = [2, 1], not [1, 2]; its runs are made again"
    ]


@pytest.mark.parametrize("field", ["sha256", "version", "format"])
def test_an_out_of_date_checkpoint_is_ignored_without_a_warning(tmp_path: Path, field: str) -> None:
    """The cache's stale rule, for checkpoints: a checkpoint of another matrix under the same name is out of date.

    Checkpoints live under the dataset's name, not its SHA-256, so a changed matrix finds its old checkpoints:
    they must be ignored silently (made again, not counted, not warned about as damaged).
    """
    checkpoints, warnings, dataset, path = _checkpointed(tmp_path)
    _rewritten(path, lambda entry: entry["key"].__setitem__(field, "b" * 64))
    assert _read(checkpoints, dataset) == () and warnings == []
    _rewritten(path, lambda entry: entry["key"].__setitem__("seed", 5))  # another cell's: damaged, said
    assert _read(checkpoints, dataset) == () and len(warnings) == 1


def test_a_matrix_changed_under_its_name_finds_its_old_files_and_uses_none(tmp_path: Path) -> None:
    """A matrix changed under its name: its old cache entries and checkpoints are found, and none is used or warned of.

    Both live under the dataset's name, not its SHA-256, so the files of the matrix before the change are at the
    same paths; only the key's sha256 keeps them out, silently (out of date, not damaged).
    """
    warnings: list[str] = []
    cache, config = Cache(tmp_path, warn=warnings.append), Config.of("sysrs")
    before, after = Dataset("d", tmp_path / "d.npy", "a" * 64), Dataset("d", tmp_path / "d.npy", "b" * 64)
    point = Point(Fraction(12), 86, 17, 20, 86)
    cache.put(before, config, point, 3)
    cell = CellResult(np.array([2, 3]), np.array([20, 90]))
    cache.checkpoints.put(before, config, GRID, 10, 0, (0, 4), cell)
    assert cache.path(after, config, Fraction(12), 20, 3) == cache.path(before, config, Fraction(12), 20, 3)
    assert cache.checkpoints.folder(after, config, GRID, 10, 0) == cache.checkpoints.folder(before, config, GRID, 10, 0)
    assert cache.get(after, config, Fraction(12), 20, 3) is None
    assert cache.checkpoints.read(after, config, GRID, BUDGETS, 10, 0).ranges == ()
    assert warnings == []
    assert cache.get(before, config, Fraction(12), 20, 3) == point  # the files themselves are intact
    assert cache.checkpoints.read(before, config, GRID, BUDGETS, 10, 0).ranges == ((0, 4),)


def test_a_cache_entry_nested_deep_is_recomputed_with_one_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    cache, config = Cache(tmp_path, warn=warnings.append), Config.of("sysrs")
    dataset = Dataset("d", tmp_path / "d.npy", "a" * 64)
    cache.put(dataset, config, Point(Fraction(12), 86, 1, 20, 1), 3)
    path = cache.path(dataset, config, Fraction(12), 20, 3)
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None
    assert warnings == [
        f"warning: the cache entry '{path}' is not usable: JSON nested 100,000 deep; at most 200 levels of arrays "
        "and objects are read; recomputing it"
    ]


def test_put_all_writes_the_entries_put_writes(tmp_path: Path) -> None:
    """One flush for many points changes no byte of any entry: the same files as one put per point."""
    dataset, configs = Dataset("d", tmp_path / "d.npy", "a" * 64), (Config.of("sysrs"), Config.of("us"))
    points = [Point(Fraction(pct), 10 * pct, pct, 20, 10 * pct - 1) for pct in (1, 2, 3)]
    one, many = Cache(tmp_path / "one"), Cache(tmp_path / "many")
    for config in configs:
        for point in points:
            one.put(dataset, config, point, 3)
    many.put_all((dataset, config, point, 3) for config in configs for point in points)
    paths = [one.path(dataset, config, point.budget_pct, 20, 3) for config in configs for point in points]
    moved = [many.path(dataset, config, point.budget_pct, 20, 3) for config in configs for point in points]
    assert [path.read_bytes() for path in paths] == [path.read_bytes() for path in moved]
    assert len(set(moved)) == 6 and len(list((tmp_path / "many").rglob("*"))) == len(
        list((tmp_path / "one").rglob("*"))
    )


def test_a_remembering_cache_answers_from_memory_for_what_it_wrote(tmp_path: Path) -> None:
    """reproduce's cache reads back none of the points it computed; any other cache reads and checks each file."""
    dataset, config = Dataset("d", tmp_path / "d.npy", "a" * 64), Config.of("sysrs")
    point = Point(Fraction(12), 86, 17, 20, 86)
    remembering, reading = Cache(tmp_path, remember=True), Cache(tmp_path)
    remembering.put(dataset, config, point, 3)
    remembering.path(dataset, config, Fraction(12), 20, 3).unlink()
    assert remembering.get(dataset, config, Fraction(12), 20, 3) == point
    assert reading.get(dataset, config, Fraction(12), 20, 3) is None
    other = Dataset("d", tmp_path / "d.npy", "b" * 64)  # the same file name, another matrix: not what it wrote
    assert remembering.get(other, config, Fraction(12), 20, 3) is None


def test_a_remembering_cache_reads_and_checks_each_entry_once(tmp_path: Path) -> None:
    """reproduce's plan reads the cached points, its report asks for them again: the file is read once."""
    dataset, config = Dataset("d", tmp_path / "d.npy", "a" * 64), Config.of("sysrs")
    point = Point(Fraction(12), 86, 17, 20, 86)
    Cache(tmp_path).put(dataset, config, point, 3)
    remembering, path = Cache(tmp_path, remember=True), Cache(tmp_path).path(dataset, config, Fraction(12), 20, 3)
    assert remembering.get(dataset, config, Fraction(12), 20, 3) == point
    path.write_text("damaged after it was read\n")
    assert remembering.get(dataset, config, Fraction(12), 20, 3) == point
    assert Cache(tmp_path, remember=True).get(dataset, config, Fraction(12), 20, 3) is None
