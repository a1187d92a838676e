"""The evaluator driver: concurrent calls, retries with backoff, failures reported, Ctrl-C, nothing lost."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref import select
from sysrs_ref.errors import ParameterError
from sysrs_ref.live import EvaluationFailed, Session, run
from sysrs_ref.live.driver import CannotEvaluate, Failure, RunInterrupted, RunProgress
from sysrs_ref.synthetic import irt_benchmark
from tests.strategies import LiveCase

CASE = LiveCase(irt_benchmark(8, 40, seed=3), "sysrs", 96, 5, {})


def _lookup(model: str, queries: Sequence[str]) -> list[object]:
    return [CASE.score(model, query) for query in queries]


def _expected() -> tuple[int, tuple[int, ...]]:
    outcome = select(CASE.instance, CASE.budget, CASE.algorithm, seed=CASE.seed)
    return outcome.chosen, outcome.ranking


def _session(folder: Path) -> Session:
    return Session.create(folder, CASE.models, CASE.queries, budget=CASE.budget, seed=CASE.seed)


@pytest.mark.parametrize(("workers", "chunk"), [(1, None), (3, None), (2, 1), (4, 3)])
def test_the_driver_ends_as_select_whatever_the_workers_and_chunks(
    tmp_path: Path, workers: int, chunk: int | None
) -> None:
    calls: list[int] = []

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        calls.append(len(queries))
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        report = run(session, evaluate, workers=workers, chunk=chunk)
    assert (report.outcome.chosen, report.outcome.ranking) == _expected()
    assert report.chosen == f"m{report.outcome.chosen}"
    assert report.recorded == sum(calls) == report.outcome.spent <= CASE.budget
    assert report.calls == len(calls) and report.failures == ()
    assert max(calls) <= (chunk or CASE.instance.n_queries)


def test_failed_calls_are_retried_with_backoff_and_reported(tmp_path: Path) -> None:
    """Every call fails at random (seeded, probability 0.4) before it succeeds: the outcome does not change."""
    rng = np.random.default_rng(11)
    lock = threading.Lock()
    seen: list[Failure] = []

    def flaky(model: str, queries: Sequence[str]) -> list[object]:
        with lock:
            fail = rng.random() < 0.4
        if fail:
            raise TimeoutError(f"grader timed out on {model}")
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        report = run(session, flaky, workers=2, retries=20, backoff=0.001, on_failure=seen.append)
    assert (report.outcome.chosen, report.outcome.ranking) == _expected()
    assert report.failures == tuple(seen) and len(seen) > 0
    assert all("TimeoutError" in f.error and f.retry_in == 0.001 * 2 ** (f.attempt - 1) for f in seen)
    successful = sum(
        len({r.model for r in step.requests}) for step in report.outcome.trace
    )  # one call per model and batch
    assert report.calls == successful + len(seen)


def test_a_call_that_keeps_failing_stops_the_run_and_keeps_every_score(tmp_path: Path) -> None:
    def broken_for_m3(model: str, queries: Sequence[str]) -> list[object]:
        if model == "m3":
            raise ConnectionError("m3's server is down")
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        first = session.pending()
        with pytest.raises(
            EvaluationFailed, match=r"evaluate\('m3', .* failed 3 times, last with ConnectionError"
        ) as info:
            run(session, broken_for_m3, workers=1, retries=2, backoff=0.0)
        assert [f.attempt for f in info.value.failures] == [1, 2, 3]
        assert info.value.failures[-1].retry_in is None
        kept = session.status().spent
        # one worker: m0, m1, m2 were evaluated and kept; m3 failed, retried first, and the run stopped before m4
        assert set(session.pending()) == {pair for pair in first if pair[0] >= "m3"}
        assert kept == len(first) - len(session.pending()) == 3 * len(first) // 8
    with Session.open(tmp_path / "run") as session:  # the server is back: resume
        assert session.status().spent == kept
        report = run(session, _lookup)
    assert (report.outcome.chosen, report.outcome.ranking) == _expected()
    assert report.recorded == report.outcome.spent - kept


def test_a_failure_message_counts_in_words_that_agree(tmp_path: Path) -> None:
    """One query per call; the first call succeeds and the second fails: '1 query', '1 time', '1 score ... is'."""
    calls = 0

    def once(model: str, queries: Sequence[str]) -> list[object]:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise ConnectionError("down")
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session, pytest.raises(EvaluationFailed) as info:
        run(session, once, workers=1, chunk=1, retries=0)
    assert str(info.value).endswith(
        "1 query) failed 1 time, last with ConnectionError('down'); the 1 score recorded so far is kept: "
        "run again to resume"
    )
    shown = r", 1 query\) returned 2 instead of 1 score, one per query"
    with _session(tmp_path / "again") as session, pytest.raises(EvaluationFailed, match=shown):
        run(session, lambda model, queries: [1, 1], chunk=1)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda queries: [1] * (len(queries) + 1), "returned 6 instead of 5 scores"),
        (lambda queries: "1", "returned str instead of 5 scores"),
        (lambda queries: [float("nan")] * len(queries), "unusable score: model 'm0'.*is nan"),
        (lambda queries: [2] * len(queries), "unusable score.*outside"),
    ],
)
def test_an_unusable_answer_is_a_bug_reported_at_once_and_not_recorded(
    tmp_path: Path, answer: object, message: str
) -> None:
    with _session(tmp_path / "run") as session:
        with pytest.raises(EvaluationFailed, match=message) as info:
            run(session, lambda model, queries: answer(queries), retries=5)  # type: ignore[operator]
        assert info.value.failures == ()  # not retried
        assert session.status().spent == 0


def test_ctrl_c_stops_the_run_and_keeps_the_finished_calls(tmp_path: Path) -> None:
    done: list[str] = []

    def interrupted(model: str, queries: Sequence[str]) -> list[object]:
        if len(done) == 5:
            raise KeyboardInterrupt
        done.append(model)
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        per_model = len(session.pending()) // CASE.instance.n_models  # SySRs' first phase: the same n_1 for every model
        with pytest.raises(KeyboardInterrupt):
            run(session, interrupted, workers=1)
        assert session.status().spent == 5 * per_model
    with Session.open(tmp_path / "run") as session:
        report = run(session, _lookup, workers=2)
    assert (report.outcome.chosen, report.outcome.ranking) == _expected()


def test_bad_driver_settings_are_refused(tmp_path: Path) -> None:
    with _session(tmp_path / "run") as session:
        for kwargs, message in (
            ({"workers": 0}, "workers must be an integer of at least 1"),
            ({"retries": -1}, "retries must be"),
            ({"chunk": 0}, "chunk must be a positive"),
            ({"backoff": float("nan")}, "backoff must be"),
        ):
            with pytest.raises(ParameterError, match=message):
                run(session, _lookup, **kwargs)


@pytest.fixture(autouse=True)
def _ctrl_c_at_its_default() -> Iterator[None]:
    """Python's own Ctrl-C handler while a test runs, as in a terminal (a suite started in the background by a
    script inherits SIGINT ignored, and the Ctrl-C a test sends would never arrive)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt_main() -> None:
    """Ctrl-C, as the terminal sends it: SIGINT to the main thread, which is waiting for the calls."""
    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)


def test_ctrl_c_during_a_call_waits_for_it_and_records_it(tmp_path: Path) -> None:
    """The call in flight when Ctrl-C comes finishes and is recorded: the resume evaluates no pair twice."""
    asked: list[tuple[str, str]] = []
    events: list[RunProgress] = []

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        if model == "m2" and not any(m == "m2" for m, _ in asked):
            _interrupt_main()
            time.sleep(0.2)  # still evaluating when the main thread gets the KeyboardInterrupt
        asked.extend((model, query) for query in queries)
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        per_model = len(session.pending()) // CASE.instance.n_models
        with pytest.raises(RunInterrupted) as info:
            run(session, evaluate, on_progress=events.append)
        assert info.value.kept == (("m2", per_model),) and info.value.lost == ()
        assert session.status().spent == 3 * per_model == len(asked)  # m0, m1 and m2, the call in flight
    assert str(info.value) == (
        f"stopped, the call in flight (m2: {per_model} queries) finished and was recorded; "
        f"spent {3 * per_model} of {CASE.budget}; run again to resume"
    )
    assert [event.event for event in events][-1] == "stopping" and events[-1].running == (("m2", per_model),)
    with Session.open(tmp_path / "run") as session:
        report = run(session, evaluate)
    assert len(asked) == len(set(asked)) == report.outcome.spent  # nothing evaluated twice
    assert (report.outcome.chosen, report.outcome.ranking) == _expected()


def test_ctrl_c_during_the_last_call_says_the_session_is_finished(tmp_path: Path) -> None:
    """The call in flight was the run's last: once it is recorded, nothing is left to resume, only the result."""
    calls: list[tuple[str, int]] = []

    def counting(model: str, queries: Sequence[str]) -> list[object]:
        calls.append((model, len(queries)))
        return _lookup(model, queries)

    with _session(tmp_path / "whole") as session:
        run(session, counting, workers=1)
    last = len(calls)
    calls.clear()

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        calls.append((model, len(queries)))
        if len(calls) == last:  # one worker: the calls come in the same order as in the whole run
            _interrupt_main()
            time.sleep(0.2)  # still evaluating when the main thread gets the KeyboardInterrupt
        return _lookup(model, queries)

    with _session(tmp_path / "run") as session:
        with pytest.raises(RunInterrupted) as info:
            run(session, evaluate, workers=1)
        assert session.done and info.value.kept == (calls[-1],) and info.value.lost == ()
        spent = session.status().spent
    model, queries = calls[-1]
    assert str(info.value) == (
        f"stopped, the call in flight ({model}: {queries} queries) finished and was recorded; "
        f"spent {spent} of {CASE.budget}; the session is finished: run again for its result"
    )
    with Session.open(tmp_path / "run") as session:
        report = run(session, evaluate)
    assert report.recorded == 0 and (report.outcome.chosen, report.outcome.ranking) == _expected()


def test_a_second_ctrl_c_stops_at_once_and_names_what_is_lost(tmp_path: Path) -> None:
    release = threading.Event()
    returned: list[str] = []

    def stopping(progress: RunProgress) -> None:
        if progress.event == "stopping":
            _interrupt_main()  # the second Ctrl-C, while the call is still running

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        if model == "m1":
            _interrupt_main()
            release.wait(60)  # a harness call that takes its time (a hang-guard only)
            returned.append(model)
        return _lookup(model, queries)

    try:
        with _session(tmp_path / "run") as session:
            per_model = len(session.pending()) // CASE.instance.n_models
            with pytest.raises(RunInterrupted) as info:
                run(session, evaluate, on_progress=stopping)
            assert returned == []  # run() returned while the call was still inside evaluate
            assert info.value.lost == (("m1", per_model),) and info.value.kept == ()
            assert session.status().spent == per_model  # m0 only
    finally:
        release.set()
    assert str(info.value).startswith(
        f"stopped at once, the call in flight (m1: {per_model} queries) is lost: {per_model} evaluations will be "
        "made again on resume;"
    )


def test_an_error_no_retry_can_fix_stops_at_once_with_its_message(tmp_path: Path) -> None:
    calls: list[str] = []

    def unknown(model: str, queries: Sequence[str]) -> list[object]:
        calls.append(model)
        raise CannotEvaluate("no model named 'm0' is registered")

    with _session(tmp_path / "run") as session, pytest.raises(EvaluationFailed) as info:
        run(session, unknown, retries=3, backoff=0.0)
    assert calls == ["m0"] and len(info.value.failures) == 1 and info.value.failures[0].retry_in is None
    assert str(info.value) == (
        "evaluate('m0', 5 queries) cannot run: no model named 'm0' is registered (not retried); "
        "the 0 scores recorded so far are kept: fix it and run again"
    )


def test_progress_is_reported_after_each_call(tmp_path: Path) -> None:
    events: list[RunProgress] = []
    with _session(tmp_path / "run") as session:
        report = run(session, _lookup, workers=2, on_progress=events.append)
    calls = [event for event in events if event.event == "call"]
    assert len(calls) == report.calls and events[0].event == "batch"
    assert events[0].left is None and events[0].call_seconds is None and events[0].status.spent == 0
    assert [event.recorded for event in calls] == sorted(event.recorded for event in calls)
    assert calls[-1].recorded == calls[-1].status.spent == report.outcome.spent
    assert all(0 <= event.batch_done <= event.batch and event.left is not None for event in calls)
    expected_left = max(CASE.budget - report.outcome.spent, 0) * calls[-1].seconds / calls[-1].recorded
    assert calls[-1].left == pytest.approx(expected_left, rel=1e-12)  # the same product, rounded in another order
    assert sum(event.event == "batch" for event in events) == len(report.outcome.trace)


def test_the_mean_call_time_counts_the_calls_that_returned_scores(tmp_path: Path) -> None:
    """A failed call is in the progress's calls and failures, not in the mean time of a call that returned scores."""
    failed: set[str] = set()

    def once_failing(model: str, queries: Sequence[str]) -> list[object]:
        if model not in failed:
            failed.add(model)
            raise TimeoutError(f"grader timed out on {model}")
        return _lookup(model, queries)

    events: list[RunProgress] = []
    with _session(tmp_path / "run") as session:
        report = run(session, once_failing, workers=1, retries=1, backoff=0.0, on_progress=events.append)
    calls = [event for event in events if event.event == "call"]
    succeeded = report.calls - len(report.failures)
    assert len(report.failures) == len(CASE.models) and succeeded == len(calls) > 0
    assert calls[-1].calls == report.calls and calls[-1].failed == len(report.failures)
    assert report.call_seconds > 0 and calls[-1].call_seconds == report.call_seconds / succeeded


def test_progress_names_only_the_calls_inside_evaluate_not_a_retry_waiting_out_its_backoff(tmp_path: Path) -> None:
    lock, released = threading.Lock(), threading.Event()
    failed: list[str] = []

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        with lock:
            first = not failed
            if first:
                failed.append(model)
        if first:
            raise TimeoutError(f"grader timed out on {model}")
        released.wait(30)  # until the failure is seen: the retry then waits out its backoff, not inside evaluate
        return _lookup(model, queries)

    events: list[RunProgress] = []

    def progress(event: RunProgress) -> None:
        events.append(event)
        if event.event == "call":
            raise KeyboardInterrupt  # stop the run there, without waiting out the retry's backoff

    with _session(tmp_path / "run") as session, pytest.raises(RunInterrupted) as info:
        run(session, evaluate, workers=2, backoff=600.0, on_failure=lambda _: released.set(), on_progress=progress)
    assert [event.event for event in events] == ["batch", "failure", "call"]
    assert events[-1].running == () and events[-1].failed == 1
    assert info.value.lost == () and info.value.kept == ()


def test_a_second_ctrl_c_keeps_a_call_that_had_returned_and_does_not_call_it_lost(tmp_path: Path) -> None:
    lock, released = threading.Lock(), threading.Event()
    failed: list[str] = []
    answering: list[threading.Thread] = []

    def evaluate(model: str, queries: Sequence[str]) -> list[object]:
        with lock:
            first = not failed
            if first:
                failed.append(model)
            else:
                answering.append(threading.current_thread())
        if first:
            raise TimeoutError(f"grader timed out on {model}")
        released.wait(30)
        return _lookup(model, queries)

    def progress(event: RunProgress) -> None:
        if event.event == "failure":
            raise KeyboardInterrupt  # the first Ctrl-C: the other call is still inside evaluate
        if event.event == "stopping":
            answering[0].join(30)  # that call has returned (its thread is over) but is not recorded yet
            raise KeyboardInterrupt  # the second Ctrl-C

    with _session(tmp_path / "run") as session, pytest.raises(RunInterrupted) as info:
        run(session, evaluate, workers=2, on_failure=lambda _: released.set(), on_progress=progress)
    assert len(answering) == 1 and info.value.lost == () and "lost" not in str(info.value)
    assert str(info.value).startswith("stopped at once")
    with Session.open(tmp_path / "run") as again:
        assert again.status().spent > 0  # its scores were recorded on the way out
