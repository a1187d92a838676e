"""A live session interrupted *inside* a process (Ctrl-C in an fsync or a fit, a full disk, two starts at once).

The process goes on after the exception, so the session object and its log
could disagree; they must not: the log is cut back to its last whole record,
the object refuses further use, and a reopened session holds every
acknowledged score and ends as ``select``.
"""

from __future__ import annotations

import errno
import gc
import os
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt
import pytest

from sysrs_ref import select
from sysrs_ref.errors import LiveError
from sysrs_ref.live import Session, driver as driver_module, run, session as session_module
from sysrs_ref.live.log import LOG_NAME
from sysrs_ref.synthetic import irt_benchmark

INSTANCE = irt_benchmark(6, 30, seed=1)
MODELS = [f"m{i}" for i in range(6)]
QUERIES = [f"q{j}" for j in range(30)]
EXPECTED = select(INSTANCE, 60, "sysrs", seed=2)


def _score(model: str, query: str) -> Fraction:
    return INSTANCE.score(int(model[1:]), int(query[1:]))


def _create(folder: Path) -> Session:
    return Session.create(folder, MODELS, QUERIES, budget=60, seed=2)


def _finish_and_check(folder: Path, acknowledged: dict[tuple[str, str], object]) -> None:
    assert (folder / LOG_NAME).read_bytes().endswith(b"\n")  # no torn record left behind
    with Session.open(folder) as session:
        assert dict(session.recorded()).items() >= acknowledged.items()
        while not session.done:
            session.record_many([(m, q, _score(m, q)) for m, q in session.pending()])
        assert session.outcome is not None
        assert (session.outcome.chosen, session.outcome.ranking) == (EXPECTED.chosen, EXPECTED.ranking)


def _record_until_it_breaks(session: Session) -> dict[tuple[str, str], object]:
    """Record one pending pair at a time until the injected fault; the scores acknowledged before it."""
    acknowledged: dict[tuple[str, str], object] = {}
    with pytest.raises((OSError, KeyboardInterrupt)):
        while True:
            model, query = session.pending()[0]
            session.record(model, query, _score(model, query))
            acknowledged[model, query] = _score(model, query)
    return acknowledged


@pytest.mark.parametrize("fault_at", [1, 2, 5, 9, 14])
def test_a_full_disk_mid_write_cuts_the_record_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault_at: int
) -> None:
    folder = tmp_path / "run"
    session = _create(folder)
    real_write, calls = os.write, [0]

    def half_then_full(fd: int, data: bytes | memoryview) -> int:
        calls[0] += 1
        if calls[0] == fault_at:
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr("sysrs_ref.live.log.os.write", half_then_full)
    acknowledged = _record_until_it_breaks(session)
    monkeypatch.setattr("sysrs_ref.live.log.os.write", real_write)
    with pytest.raises(LiveError, match=r"stopped in the middle of an update.*open it again"):
        session.record(*session_module.Session.open(folder, readonly=True).pending()[0], 1)
    assert not session.writable
    _finish_and_check(folder, acknowledged)


@pytest.mark.parametrize("fault_at", [1, 3, 6, 11])
def test_ctrl_c_in_an_fsync_leaves_nothing_half_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault_at: int
) -> None:
    folder = tmp_path / "run"
    session = _create(folder)
    real_fsync, calls = os.fsync, [0]

    def interrupted(fd: int) -> None:
        calls[0] += 1
        if calls[0] == fault_at:
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr("sysrs_ref.live.log.os.fsync", interrupted)
    acknowledged = _record_until_it_breaks(session)
    monkeypatch.setattr("sysrs_ref.live.log.os.fsync", real_fsync)
    with pytest.raises(LiveError, match="stopped in the middle"):
        session.pending()
    with Session.open(
        folder, readonly=True
    ) as reader:  # the interrupted record was cut back: not acknowledged, not kept
        assert dict(reader.recorded()) == acknowledged
    _finish_and_check(folder, acknowledged)


def test_ctrl_c_while_the_algorithm_computes_its_next_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "run"
    session = _create(folder)
    real_asked: Callable[..., None] = session_module.Session._asked
    calls = [0]

    def interrupted(self: Session, batch: object) -> None:
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        real_asked(self, batch)

    monkeypatch.setattr(session_module.Session, "_asked", interrupted)
    acknowledged = _record_until_it_breaks(session)
    monkeypatch.setattr(session_module.Session, "_asked", real_asked)
    with pytest.raises(LiveError, match="stopped in the middle"):
        run(session, lambda model, queries: [_score(model, q) for q in queries])
    _finish_and_check(folder, acknowledged)


def test_two_starts_at_once_give_one_session(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    barrier = threading.Barrier(2)
    results: list[object] = []

    def start(seed: int) -> None:
        barrier.wait()
        try:
            with Session.create(folder, MODELS, QUERIES, budget=60, seed=seed) as session:
                results.append(session.seed)
        except LiveError as err:
            results.append(err)

    threads = [threading.Thread(target=start, args=(seed,)) for seed in (2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [r for r in results if isinstance(r, int)]
    assert len(winners) == 1 and len(results) == 2
    with Session.open(folder) as session:  # the winner's session, whole
        assert session.seed == winners[0]


def test_an_unclosed_session_releases_its_lock_when_collected(tmp_path: Path) -> None:
    session = _create(tmp_path / "run")
    with pytest.raises(LiveError, match="open in another process"):
        Session.open(tmp_path / "run")
    del session
    gc.collect()
    with Session.open(tmp_path / "run") as again:
        assert again.status().spent == 0


def test_ctrl_c_does_not_let_a_retry_waiting_out_its_backoff_call_evaluate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    backoffs: list[tuple[float, bool]] = []  # (delay, whether the wait was cut short by the stop)

    backing_off = threading.Event()  # set when the retry starts waiting out its backoff
    waited = threading.Event()  # set when that wait has ended

    class RecordingEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            if timeout:
                backing_off.set()
            stopped = super().wait(timeout)
            if timeout:
                backoffs.append((timeout, stopped))
                waited.set()
            return stopped

    monkeypatch.setattr(
        driver_module, "threading", SimpleNamespace(Event=RecordingEvent)
    )  # the driver's stop event only

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        calls.append(model)
        if model == "m0":
            raise TimeoutError("slow grader")  # retried after a 5-second backoff
        if model == "m1":  # Ctrl-C once m0's retry is waiting out its backoff (an event, not a sleep)
            assert backing_off.wait(60), "the retry never started its backoff"  # a hang-guard only
            raise KeyboardInterrupt
        return [_score(model, q) for q in queries]

    with _create(tmp_path / "run") as session, pytest.raises(KeyboardInterrupt):
        run(session, evaluate, workers=2, backoff=5.0)
    assert waited.wait(60)  # the retry's thread may finish its wait after run() has returned
    assert backoffs == [(5.0, True)]  # the backoff ended because the run stopped, not by waiting it out
    assert calls.count("m0") == 1  # and the retry gave up without calling evaluate


def test_numpy_answers_are_scores(tmp_path: Path) -> None:
    def evaluate(model: str, queries: Sequence[str]) -> npt.NDArray[np.float64]:
        return np.array([float(_score(model, q)) for q in queries])

    with _create(tmp_path / "run") as session:
        report = run(session, evaluate)  # type: ignore[arg-type]  # an array, not the declared Sequence, on purpose
    assert (report.outcome.chosen, report.outcome.ranking) == (EXPECTED.chosen, EXPECTED.ranking)


def test_ids_with_control_characters_are_refused(tmp_path: Path) -> None:
    for bad in ("a\rb", "a\nb", "tab\there", "nul\x00"):
        with pytest.raises(LiveError, match="control characters"):
            Session.create(tmp_path / "run", ["x", bad], ["q"], budget=2)
    assert not (tmp_path / "run").exists()
