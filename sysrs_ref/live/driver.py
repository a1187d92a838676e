"""The evaluator driver: feed a live :class:`~sysrs_ref.live.session.Session` from the user's evaluation function.

:func:`run` asks the session what it needs (a whole SySRs phase at once),
groups the pending pairs by model, and calls ``evaluate(model_id,
query_ids)`` for each model on ``workers`` threads (at most ``chunk``
queries per call). Each call's scores are recorded, and so persisted, as
soon as it returns, so an interruption keeps every finished call.

A call that raises is retried after ``backoff * 2**(attempt - 1)`` seconds,
``retries`` times, and every failure is reported to ``on_failure``; when a
call has failed ``retries + 1`` times, :class:`EvaluationFailed` is raised
(the scores recorded until then stay in the session: run again to resume).
An error that no retry can fix (:class:`CannotEvaluate`: an unknown model, a
missing file) stops the run at once, with its message. A call that returns
the wrong number of scores, or a value that is not a score in [0, 1], is a
bug in ``evaluate``, not bad luck: it raises at once and none of that call's
scores is recorded. ``on_progress`` hears of each batch and each call
(:class:`RunProgress`: the phase, the pairs done of the batch, the
evaluations spent, the failures, an estimate of the time left).

Ctrl-C (KeyboardInterrupt): no new call starts (a retry waiting out its
backoff gives up), and the calls already inside ``evaluate`` are awaited and
their scores recorded, so that no evaluation is paid for twice; then
:class:`RunInterrupted` (a KeyboardInterrupt) says what was kept. A second
Ctrl-C stops at once: the calls still running are given up (each runs on a
daemon thread, so the process need not wait for them) and
:class:`RunInterrupted` names them, the evaluations the session will ask
for again. If the interruption came in the middle of recording, the session
object refuses further use: reopen it with
:meth:`Session.open <sysrs_ref.live.session.Session.open>`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from itertools import repeat
from threading import Thread

import numpy as np

from sysrs_ref._checks import check_int
from sysrs_ref._words import counted
from sysrs_ref.algorithms.base import Outcome
from sysrs_ref.errors import LiveError, ParameterError, ScoreError
from sysrs_ref.live.session import Session
from sysrs_ref.live.status import SessionStatus

__all__ = [
    "CannotEvaluate",
    "EvaluationFailed",
    "Evaluator",
    "Failure",
    "RunInterrupted",
    "RunProgress",
    "RunReport",
    "run",
]

#: The user's evaluation function: (model id, query ids) -> one score in [0, 1] per query, in order.
Evaluator = Callable[[str, Sequence[str]], Sequence[object]]


@dataclass(frozen=True)
class Failure:
    """One failed call of the evaluation function."""

    model: str
    queries: int
    """How many queries the call had."""
    attempt: int
    """1 for the first try."""
    error: str
    """The exception, as ``repr``."""
    retry_in: float | None
    """Seconds until the retry, or None when the call is given up."""


@dataclass(frozen=True)
class RunReport:
    """What :func:`run` did: the outcome, the calls, the scores it recorded, the failures, the time."""

    outcome: Outcome
    chosen: str
    calls: int
    recorded: int
    failures: tuple[Failure, ...]
    seconds: float
    call_seconds: float = 0.0
    """The summed time of the calls that returned scores (the harness's overhead and its evaluations)."""


@dataclass(frozen=True)
class RunProgress:
    """Where a :func:`run` stands, given to its ``on_progress`` (in the thread that called :func:`run`)."""

    event: str
    """What just happened: ``"batch"`` (a batch's calls start), ``"call"`` (a call's scores were recorded),
    ``"failure"`` (a call failed: see ``on_failure``), ``"stopping"`` (Ctrl-C: the calls in flight are awaited,
    so that their scores are kept)."""
    status: SessionStatus
    batch: int
    """The pairs of the current batch (a SySRs phase, a UCB-E step)."""
    batch_done: int
    """Of which recorded."""
    calls: int
    """Calls that ended in this run, well or not."""
    failed: int
    """Failed calls in this run (each retried, or the last)."""
    running: tuple[tuple[str, int], ...]
    """The calls inside ``evaluate`` now: model id and number of queries."""
    recorded: int
    """Scores recorded by this run."""
    seconds: float
    """Since the run began."""
    call_seconds: float | None
    """The mean time of a call that returned scores, None before the first."""
    left: float | None
    """Seconds to the end at this run's pace so far (the budget's evaluations not spent yet, at the scores
    recorded per second), None before the first score: an estimate."""


class CannotEvaluate(LiveError):
    """Raised by an evaluation function for an error that no retry can fix (an unknown model, a missing file).

    :func:`run` does not retry it: it stops at once with :class:`EvaluationFailed`, whose message holds this one.
    """


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`run`: its message says which calls in flight were kept (recorded) and which were lost.

    The first Ctrl-C lets the calls inside ``evaluate`` finish and records them (``kept``); a second one stops
    at once, and the calls still running are ``lost`` (each a model id and its number of queries): their
    evaluations are made again when the session resumes.
    """

    def __init__(self, message: str, kept: Sequence[_Running] = (), lost: Sequence[_Running] = ()) -> None:
        super().__init__(message)
        self.kept = tuple((call.model, len(call.queries)) for call in kept)
        self.lost = tuple((call.model, len(call.queries)) for call in lost)


class EvaluationFailed(LiveError):
    """The evaluation function failed on a call after every retry (or returned something unusable).

    ``failures`` lists every failed attempt of this run. The session keeps
    every score recorded before: call :func:`run` again to resume.
    """

    def __init__(self, message: str, failures: Sequence[Failure]) -> None:
        super().__init__(message)
        self.failures = tuple(failures)


def run(
    session: Session,
    evaluate: Evaluator,
    *,
    workers: int = 1,
    retries: int = 3,
    backoff: float = 1.0,
    chunk: int | None = None,
    on_failure: Callable[[Failure], None] | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
) -> RunReport:
    """Drive *session* to the end with ``evaluate(model_id, query_ids) -> scores``; the :class:`RunReport`.

    *workers* calls run at once (threads); a failed call is retried
    *retries* times after ``backoff * 2**(attempt - 1)`` seconds (a
    :class:`CannotEvaluate` error is never retried); *chunk* caps the queries
    per call (None: a model's whole share of the batch). *on_progress* is
    given a :class:`RunProgress` when a batch starts, after each call, and
    when Ctrl-C starts the stop. See the module docstring for failures and
    Ctrl-C.

    >>> import tempfile
    >>> from pathlib import Path
    >>> truth = {"a": 0.9, "b": 0.5, "c": 0.2}
    >>> folder = Path(tempfile.mkdtemp()) / "run"
    >>> with Session.create(folder, list(truth), [f"q{j}" for j in range(10)], budget="50%") as session:
    ...     report = run(session, lambda model, queries: [float(int(q[1:]) < 10 * truth[model]) for q in queries])
    >>> report.chosen, report.recorded, report.outcome.spent <= session.budget == 15
    ('a', 13, True)
    """
    for name, value, least in (("workers", workers, 1), ("retries", retries, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ParameterError(f"{name} must be an integer of at least {least}, got {value!r}")
    if chunk is not None:
        check_int(chunk, "chunk")
    if not backoff >= 0:
        raise ParameterError(f"backoff must be a number of seconds >= 0, got {backoff!r}")
    session.check_writable()  # before any call of evaluate
    began = time.perf_counter()
    failures: list[Failure] = []
    tally = _Tally()
    waiting: deque[tuple[str, tuple[str, ...], int, float]] = (
        deque()
    )  # calls not started: model, queries, attempt, delay
    running: dict[Future[Sequence[object]], _Running] = {}
    stop = threading.Event()  # set on the way out: a retry waiting out its backoff then never calls evaluate

    def report(event: str) -> None:
        if on_progress is not None:
            on_progress(_progress(event, session, running, failures, tally, time.perf_counter() - began))

    def start_calls() -> None:  # at most *workers* calls at once, so that a stop cancels everything not started
        while waiting and len(running) < workers:
            model, queries, attempt, delay = waiting.popleft()
            call = _Running(model, queries, attempt)
            future: Future[Sequence[object]] = Future()
            running[future] = call  # before its thread starts: a Ctrl-C at any instant finds the call here
            _start(future, evaluate, call, delay, stop)

    try:
        while not session.done:
            pending = session.pending()
            if not pending:
                raise LiveError(f"the session in {session.directory} is neither finished nor waiting for scores")
            waiting.extend((model, queries, 1, 0.0) for model, queries in _calls(pending, chunk))
            report("batch")
            start_calls()
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: f.exception() is not None):  # the successes first
                    call = running[future]
                    model, queries, attempt = call.model, call.queries, call.attempt
                    tally.calls += 1
                    error = future.exception()
                    if error is None:
                        tally.recorded += _record(session, model, queries, future.result(), failures)
                        tally.call_seconds += call.seconds
                        tally.succeeded += 1
                        del running[future]  # only now: a stop before this line still records the call
                        report("call")
                        continue
                    del running[future]
                    if not isinstance(error, Exception):  # KeyboardInterrupt or SystemExit inside evaluate
                        raise error
                    final = isinstance(error, CannotEvaluate) or attempt > retries
                    delay = None if final else backoff * 2 ** (attempt - 1)
                    failures.append(Failure(model, len(queries), attempt, repr(error), delay))
                    if on_failure is not None:
                        on_failure(failures[-1])
                    report("failure")
                    if delay is None:
                        raise _given_up(session, model, queries, attempt, error, failures) from error
                    waiting.appendleft((model, queries, attempt + 1, delay))
                start_calls()
    except KeyboardInterrupt:
        stop.set()
        waiting.clear()
        raise _drained(session, running, lambda: report("stopping")) from None
    except BaseException:
        stop.set()
        tally.recorded += _harvest(session, running)
        raise
    outcome, chosen = session.outcome, session.chosen
    assert outcome is not None and chosen is not None  # the loop ends when the session is done
    return RunReport(
        outcome,
        chosen,
        tally.calls,
        tally.recorded,
        tuple(failures),
        time.perf_counter() - began,
        tally.call_seconds,
    )


class _Tally:
    """What a run has done so far."""

    def __init__(self) -> None:
        self.calls = self.succeeded = self.recorded = 0
        self.call_seconds = 0.0


class _Running:
    """A call submitted: its model, queries and attempt; whether (and how long) it has been inside evaluate."""

    def __init__(self, model: str, queries: tuple[str, ...], attempt: int) -> None:
        self.model, self.queries, self.attempt = model, queries, attempt
        self.entered: float | None = None  # when evaluate was called
        self.seconds = 0.0  # how long evaluate took, once it has returned

    def __str__(self) -> str:
        return f"{self.model}: {counted(len(self.queries), 'query', 'queries')}"


def _progress(
    event: str,
    session: Session,
    running: Mapping[Future[Sequence[object]], _Running],
    failures: Sequence[Failure],
    tally: _Tally,
    seconds: float,
) -> RunProgress:
    status = session.status()
    batch = session.batch()
    rate = tally.recorded / seconds if tally.recorded and seconds > 0 else None
    return RunProgress(
        event=event,
        status=status,
        batch=len(batch),
        batch_done=len(batch) - status.pending,
        calls=tally.calls,
        failed=len(failures),
        running=tuple((call.model, len(call.queries)) for call in running.values() if call.entered is not None),
        recorded=tally.recorded,
        seconds=seconds,
        call_seconds=tally.call_seconds / tally.succeeded if tally.succeeded else None,
        left=None if rate is None else max(status.budget - status.spent, 0) / rate,
    )


def _given_up(
    session: Session, model: str, queries: tuple[str, ...], attempt: int, error: Exception, failures: list[Failure]
) -> EvaluationFailed:
    spent = session.status().spent
    kept = f"the {counted(spent, 'score')} recorded so far {'is' if spent == 1 else 'are'} kept"
    call = f"evaluate({model!r}, {counted(len(queries), 'query', 'queries')})"
    if isinstance(error, CannotEvaluate):
        return EvaluationFailed(f"{call} cannot run: {error} (not retried); {kept}: fix it and run again", failures)
    return EvaluationFailed(
        f"{call} failed {counted(attempt, 'time')}, last with {error!r}; {kept}: run again to resume", failures
    )


def _drained(
    session: Session, running: dict[Future[Sequence[object]], _Running], stopping: Callable[[], None]
) -> RunInterrupted:
    """After Ctrl-C: wait for the calls inside evaluate and record them; a second Ctrl-C gives them up at once."""
    kept: list[_Running] = []
    for future in list(running):
        if future.cancel():  # its thread had not started it
            del running[future]
    try:
        if any(call.entered is not None for call in running.values()) and session.writable:
            stopping()
        while running and session.writable:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                call = running.pop(future)
                if future.exception() is None:
                    with contextlib.suppress(LiveError):  # a bad answer is dropped: the stop is under way
                        _record(session, call.model, call.queries, future.result(), [])
                        kept.append(call)
    except KeyboardInterrupt:
        _harvest(session, {future: call for future, call in running.items() if future.done()})
        lost = [call for future, call in running.items() if call.entered is not None and not future.done()]
        return RunInterrupted(_stopped(session, kept, lost, at_once=True), kept, lost)
    lost = [call for call in running.values() if call.entered is not None]  # the session stopped mid-update
    return RunInterrupted(_stopped(session, kept, lost, at_once=False), kept, lost)


def _stopped(session: Session, kept: Sequence[_Running], lost: Sequence[_Running], *, at_once: bool) -> str:
    parts = ["stopped at once" if at_once else "stopped"]
    if kept:
        what = "the call" if len(kept) == 1 else f"the {len(kept)} calls"
        parts.append(
            f"{what} in flight ({'; '.join(map(str, kept))}) finished and {'was' if len(kept) == 1 else 'were'} recorded"
        )
    if lost:
        what = "the call" if len(lost) == 1 else f"the {len(lost)} calls"
        evaluations = sum(len(call.queries) for call in lost)
        parts.append(
            f"{what} in flight ({'; '.join(map(str, lost))}) {'is' if len(lost) == 1 else 'are'} lost: "
            f"{counted(evaluations, 'evaluation')} will be made again on resume"
        )
    if not kept and not lost:
        parts.append("no call was in flight")
    if session.writable:
        status = session.status()
        then = "the session is finished: run again for its result" if status.done else "run again to resume"
        parts.append(f"spent {status.spent} of {status.budget}; {then}")
    else:
        parts.append("open the session again to resume: its log holds every score recorded")
    return ", ".join(parts[:2]) + "".join(f"; {part}" for part in parts[2:])


def _harvest(session: Session, running: Mapping[Future[Sequence[object]], _Running]) -> int:
    """On the way out (Ctrl-C, a failure): record the calls that had finished well, so that none is lost."""
    kept = 0
    if not session.writable:
        return 0
    for future, call in running.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            # the exception on its way out says what went wrong, and the log keeps what was recorded
            with contextlib.suppress(Exception):
                kept += _record(session, call.model, call.queries, future.result(), [])
    return kept


def _calls(pending: Sequence[tuple[str, str]], chunk: int | None) -> list[tuple[str, tuple[str, ...]]]:
    """The pending pairs as calls: each model's queries in batch order, in pieces of at most *chunk*."""
    by_model: dict[str, list[str]] = {}
    for model, query in pending:
        by_model.setdefault(model, []).append(query)
    size = chunk or max((len(queries) for queries in by_model.values()), default=1)
    return [
        (model, tuple(queries[i : i + size]))
        for model, queries in by_model.items()
        for i in range(0, len(queries), size)
    ]


class _Stopped(Exception):
    """The run stopped while this call waited to start (its result would be thrown away)."""


def _call(evaluate: Evaluator, call: _Running, delay: float, stop: threading.Event) -> Sequence[object]:
    if stop.wait(delay) if delay > 0 else stop.is_set():
        raise _Stopped
    call.entered = time.perf_counter()
    try:
        return evaluate(call.model, list(call.queries))
    finally:
        call.seconds = time.perf_counter() - call.entered


def _start(
    future: Future[Sequence[object]], evaluate: Evaluator, call: _Running, delay: float, stop: threading.Event
) -> None:
    """Run one call on a daemon thread of its own (a process stopped at once does not wait for the harness)."""

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = _call(evaluate, call, delay, stop)
        except BaseException as error:  # KeyboardInterrupt inside evaluate too: the driver re-raises it
            future.set_exception(error)
        else:
            future.set_result(result)

    Thread(target=target, name="sysrs-live-call", daemon=True).start()


def _record(session: Session, model: str, queries: tuple[str, ...], scores: object, failures: list[Failure]) -> int:
    """Record one call's scores (all or none); EvaluationFailed when they are not one score per query."""
    if isinstance(scores, np.ndarray) and scores.ndim == 1:
        scores = scores.tolist()  # a numpy vector of scores is fine
    if isinstance(scores, (str, bytes)) or not isinstance(scores, Sequence) or len(scores) != len(queries):
        shown = (
            len(scores)
            if isinstance(scores, Sequence) and not isinstance(scores, (str, bytes))
            else type(scores).__name__
        )
        raise EvaluationFailed(
            f"evaluate({model!r}, {counted(len(queries), 'query', 'queries')}) returned {shown} instead of "
            f"{counted(len(queries), 'score')}, "
            "one per query in the order given",
            failures,
        )
    try:
        return session.record_many(zip(repeat(model), queries, scores))
    except ScoreError as error:
        raise EvaluationFailed(f"evaluate returned an unusable score: {error}", failures) from None
