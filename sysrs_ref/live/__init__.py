"""Live evaluation: run an algorithm against real evaluations, resumable with nothing lost.

:class:`Session` persists a run in a directory (every request and score
logged and fsynced, replayed on reopening); :func:`run` drives one with the
user's evaluation function on worker threads, retrying failures.
"""

from sysrs_ref.live.driver import EvaluationFailed, Evaluator, RunReport, run
from sysrs_ref.live.session import Session, SessionStatus

__all__ = ["EvaluationFailed", "Evaluator", "RunReport", "Session", "SessionStatus", "run"]
