"""The one rule for every reader (sysrs_ref._files) and the one place where sizes are checked (sysrs_ref._limits)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref._files import (
    MAX_JSON_DEPTH,
    JsonFormatError,
    UnreadableFileError,
    json_depth,
    open_regular,
    parse_json,
    read_json,
    read_regular,
)
from sysrs_ref._limits import (
    MAX_WORKERS,
    TIME_LIMIT_VARIABLE,
    Need,
    check_need,
    check_workers,
    memory_limit,
    time_limit,
)
from sysrs_ref.errors import ParameterError, TooLargeError
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import capped_schedule, logbar, paper_schedule
from sysrs_ref.simulation import simulate_many
from sysrs_ref.subset.methods import select_subset

# -- files: regular files only, bounded size, no blocking -----------------------------------------------------------


def test_a_fifo_is_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    """Opened in a thread: a reader that blocks (no O_NONBLOCK) is released by a writer after 10 s, and fails."""
    fifo = tmp_path / "scores.json"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            open_regular(fifo).close()
            outcome.append(None)
        except OSError as err:
            outcome.append(err)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10.0)
    blocked = reader.is_alive()
    if blocked:  # open() waits for a writer: be one, so that the thread ends
        os.close(os.open(fifo, os.O_WRONLY))
        reader.join()
    assert not blocked, "opening a FIFO blocked until a writer came"
    assert isinstance(outcome[0], UnreadableFileError) and "not a regular file but a FIFO" in str(outcome[0])


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null"])
def test_a_symlink_to_a_device_is_refused(tmp_path: Path, target: str) -> None:
    link = tmp_path / "m.npy"
    link.symlink_to(target)
    with pytest.raises(UnreadableFileError, match="not a regular file but a device"):
        read_regular(link, 100)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="directory"):
        read_json(tmp_path)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_reading_stops_at_the_limit_whatever_the_size_stat_gave() -> None:
    """A /proc file is a regular file whose stat says 0 bytes: the read itself is bounded."""
    with pytest.raises(UnreadableFileError, match="more than this reader's limit of 10 bytes"):
        read_regular("/proc/self/status", 10)


def test_the_size_limit_is_inclusive(tmp_path: Path) -> None:
    path = tmp_path / "a"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    with pytest.raises(UnreadableFileError, match="10 bytes, above this reader's limit of 9"):
        read_regular(path, 9)


# -- JSON: depth bounded before parsing -----------------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_the_depth_limit_is_exact() -> None:
    assert json_depth(_nested(MAX_JSON_DEPTH)) == MAX_JSON_DEPTH
    assert parse_json(_nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(JsonFormatError, match=f"JSON nested {MAX_JSON_DEPTH + 1} deep; at most {MAX_JSON_DEPTH}"):
        parse_json(_nested(MAX_JSON_DEPTH + 1))
    with pytest.raises(JsonFormatError, match="JSON nested 200,000 deep"):
        parse_json('{"a": ' * 200_000 + "1" + "}" * 200_000)


@pytest.mark.parametrize(
    ("value", "depth"),
    [
        (["[[[", "]]]"], 1),
        ({"a": ["\\", ['"[{']]}, 3),
        ("\\\\[", 0),
        ([["\\\\"], ['\\"[[[']], 2),
        ([{"k": [{}]}], 4),
        (3, 0),
    ],
)
def test_brackets_inside_strings_and_escapes_do_not_nest(value: object, depth: int) -> None:
    text = json.dumps(value)
    assert json_depth(text) == depth and json_depth(text.encode()) == depth
    assert parse_json(text) == value


def test_many_shallow_brackets_are_read() -> None:
    """More brackets than the limit, none deeper than 2: read (the count alone does not refuse)."""
    value = [[i] for i in range(3 * MAX_JSON_DEPTH)]
    assert parse_json(json.dumps(value)) == value


def test_read_json_says_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"\xff")
    with pytest.raises(JsonFormatError, match="not UTF-8"):
        read_json(path)
    path.write_text('{"a": 1', encoding="utf-8")
    with pytest.raises(JsonFormatError, match="not valid JSON"):
        read_json(path)
    path.write_text('\ufeff{"a": 1}', encoding="utf-8")
    assert read_json(path) == {"a": 1}


# -- sizes ------------------------------------------------------------------------------------------------------


def test_a_need_beyond_memory_is_refused_with_the_bytes() -> None:
    with pytest.raises(TooLargeError, match=r"would need 8 EiB|would need 8\.0+ PiB|of memory"):
        check_need(Need("x", "O(1)", memory=2**63))


def test_a_need_one_byte_beyond_memory_is_refused() -> None:
    room = memory_limit()
    assert check_need(Need("x", "O(1)", memory=room)).memory == room
    with pytest.raises(TooLargeError, match="of memory"):
        check_need(Need("x", "O(1)", memory=room + 1))


def test_the_time_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    need = Need("a job", "O(n)", seconds=7200.0)
    monkeypatch.delenv(TIME_LIMIT_VARIABLE, raising=False)
    assert time_limit() == 3600.0
    with pytest.raises(TooLargeError, match=r"^a job would take about 2\.0 hours \(O\(n\)\), more than the limit"):
        check_need(need)
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "0")
    assert check_need(need) is need
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "7200")
    assert check_need(need) is need
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "7199")
    with pytest.raises(TooLargeError):
        check_need(need)
    for ignored in ("-5", "nan", "soon"):
        monkeypatch.setenv(TIME_LIMIT_VARIABLE, ignored)
        assert time_limit() == 3600.0


def test_workers_are_bounded() -> None:
    assert check_workers(MAX_WORKERS) == MAX_WORKERS
    with pytest.raises(TooLargeError, match=f"at most {MAX_WORKERS} are started"):
        check_workers(MAX_WORKERS + 1)
    with pytest.raises(ParameterError):
        check_workers(0)


def test_a_schedule_of_a_trillion_phases_is_refused_at_once() -> None:
    with pytest.raises(TooLargeError, match=r"a schedule for K = 1,000,000,000,000 models would need 32\.7 TiB"):
        paper_schedule(10**12, 10**15)
    with pytest.raises(TooLargeError, match="a schedule for K = 1,000,000,000,000 models"):
        capped_schedule(10**12, 2, 2 * 10**12)


def test_the_exact_logbar_of_a_million_models_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIME_LIMIT_VARIABLE, raising=False)
    with pytest.raises(TooLargeError, match=r"the exact logbar\(K\) for K = 1,000,000 models would take about 1\.7"):
        logbar(10**6)


def test_simulate_refuses_an_elimination_beyond_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 models: 1.5 s per run and budget at the stated rate; a limit of 2 s lets one run in, not two."""
    instance = Instance(np.tile(np.array([[1.0, 0.0]]), (10_000, 1)))
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "2")
    with pytest.raises(TooLargeError, match=r"2 runs .* on K = 10,000 models would take about 3 seconds"):
        simulate_many(instance, ["sysrs"], [10_000], runs=2, seed=0)
    with pytest.raises(TooLargeError, match="workers 257 asks for 257 worker processes"):
        simulate_many(instance, ["sysrs"], [10_000], runs=1, seed=0, workers=257)


def test_subset_methods_are_refused_before_they_allocate() -> None:
    scores = np.zeros((2, 1_000_000))
    with pytest.raises(TooLargeError, match=r"anchor on 2 models x 1000000 queries would need 21\.8 TiB"):
        select_subset(scores, "anchor", 10)
    with pytest.raises(TooLargeError, match=r"kmeans-irt \(D = 1,000,000,000, 2,000 epochs\)"):
        select_subset(scores[:, :100], "kmeans-irt", 10, dim=10**9)


def test_a_draw_too_large_for_memory_is_refused_at_once() -> None:
    from sysrs_ref.draws import random_draw

    with pytest.raises(TooLargeError, match=r"^an unsynchronized draw for 1000000 models x 1000000 queries would need"):
        random_draw(0, 10**6, 10**6, synchronized=False)


def test_an_irt_benchmark_too_large_for_memory_is_refused_at_once() -> None:
    from sysrs_ref.synthetic import irt_benchmark

    with pytest.raises(TooLargeError, match=r"^an IRT benchmark of 1000000 models x 1000000 queries would need"):
        irt_benchmark(10**6, 10**6)


def test_the_exact_hardness_of_a_million_models_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.theory import hardness

    monkeypatch.delenv(TIME_LIMIT_VARIABLE, raising=False)
    with pytest.raises(TooLargeError, match=r"^the exact hardness of 1000000 models x 1 query would take about 2\.3 d"):
        hardness(np.zeros((10**6, 1)))  # type: ignore[arg-type]  # an array is read as an Instance
