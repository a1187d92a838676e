"""Live evaluation: run an algorithm against real evaluations, resumable with nothing lost.

:class:`Session` persists a run in a directory (every request and score
logged and fsynced, replayed on reopening); :func:`run` drives one with the
user's evaluation function on worker threads, retrying failures.
"""

from sysrs_ref.live.driver import EvaluationFailed, Evaluator, Failure, RunReport, run
from sysrs_ref.live.session import Session
from sysrs_ref.live.status import SessionStatus

__all__ = ["EvaluationFailed", "Evaluator", "Failure", "RunReport", "Session", "SessionStatus", "run"]
