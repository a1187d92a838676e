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
A call that returns the wrong number of scores, or a value that is not a
score in [0, 1], is a bug in ``evaluate``, not bad luck: it raises at once
and none of that call's scores is recorded.

Ctrl-C (KeyboardInterrupt) stops at once: no new call starts (a retry
waiting out its backoff gives up), calls not started are cancelled, the
calls that had finished are recorded, and the exception propagates. Calls
already running finish in their threads (Python cannot stop a thread), but
their scores are not recorded; the session resumes from what was. If the
interruption came in the middle of recording, the session object refuses
further use: reopen it with :meth:`Session.open <sysrs_ref.live.session.Session.open>`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from sysrs_ref._checks import check_int
from sysrs_ref._words import counted
from sysrs_ref.algorithms.base import Outcome
from sysrs_ref.errors import LiveError, ParameterError, ScoreError
from sysrs_ref.live.session import Session

__all__ = ["EvaluationFailed", "Evaluator", "Failure", "RunReport", "run"]

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
) -> RunReport:
    """Drive *session* to the end with ``evaluate(model_id, query_ids) -> scores``; the :class:`RunReport`.

    *workers* calls run at once (threads); a failed call is retried
    *retries* times after ``backoff * 2**(attempt - 1)`` seconds; *chunk*
    caps the queries per call (None: a model's whole share of the batch).
    See the module docstring for failures and Ctrl-C.

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
    calls = recorded = 0
    waiting: deque[tuple[str, tuple[str, ...], int, float]] = (
        deque()
    )  # calls not started: model, queries, attempt, delay
    running: dict[Future[Sequence[object]], tuple[str, tuple[str, ...], int]] = {}
    stop = threading.Event()  # set on the way out: a retry waiting out its backoff then never calls evaluate
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sysrs-live")

    def start_calls() -> None:  # at most *workers* calls at once, so that a stop cancels everything not started
        while waiting and len(running) < workers:
            model, queries, attempt, delay = waiting.popleft()
            running[pool.submit(_call, evaluate, model, queries, delay, stop)] = (model, queries, attempt)

    try:
        while not session.done:
            pending = session.pending()
            if not pending:
                raise LiveError(f"the session in {session.directory} is neither finished nor waiting for scores")
            waiting.extend((model, queries, 1, 0.0) for model, queries in _calls(pending, chunk))
            start_calls()
            while running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: f.exception() is not None):  # the successes first
                    model, queries, attempt = running[future]
                    calls += 1
                    error = future.exception()
                    if error is None:
                        recorded += _record(session, model, queries, future.result(), failures)
                        del running[future]  # only now: a stop before this line still records the call
                        continue
                    del running[future]
                    if not isinstance(error, Exception):  # KeyboardInterrupt or SystemExit inside evaluate
                        raise error
                    delay = backoff * 2 ** (attempt - 1) if attempt <= retries else None
                    failures.append(Failure(model, len(queries), attempt, repr(error), delay))
                    if on_failure is not None:
                        on_failure(failures[-1])
                    if delay is None:
                        spent = session.status().spent
                        raise EvaluationFailed(
                            f"evaluate({model!r}, {counted(len(queries), 'query', 'queries')}) failed "
                            f"{counted(attempt, 'time')}, last with {error!r}; the {counted(spent, 'score')} "
                            f"recorded so far {'is' if spent == 1 else 'are'} kept: run again to resume",
                            failures,
                        ) from error
                    waiting.appendleft((model, queries, attempt + 1, delay))
                start_calls()
    except BaseException:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        recorded += _harvest(session, running)
        raise
    pool.shutdown(wait=True)
    outcome, chosen = session.outcome, session.chosen
    assert outcome is not None and chosen is not None  # the loop ends when the session is done
    return RunReport(outcome, chosen, calls, recorded, tuple(failures), time.perf_counter() - began)


def _harvest(session: Session, running: Mapping[Future[Sequence[object]], tuple[str, tuple[str, ...], int]]) -> int:
    """On the way out (Ctrl-C, a failure): record the calls that had finished well, so that none is lost."""
    kept = 0
    for future, (model, queries, _) in running.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            # the exception on its way out says what went wrong, and the log keeps what was recorded
            with contextlib.suppress(Exception):
                kept += _record(session, model, queries, future.result(), [])
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


def _call(
    evaluate: Evaluator, model: str, queries: tuple[str, ...], delay: float, stop: threading.Event
) -> Sequence[object]:
    if stop.wait(delay) if delay > 0 else stop.is_set():
        raise _Stopped
    return evaluate(model, list(queries))


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
