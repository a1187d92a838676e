"""Live evaluation: run an algorithm against real evaluations, resumable with nothing lost.

:class:`Session` persists a run in a directory (every request and score
logged and fsynced, replayed on reopening); :func:`run` drives one with the
user's evaluation function on worker threads, retrying failures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysrs_ref._lazy import lazy_exports

if TYPE_CHECKING:
    from sysrs_ref.live.driver import EvaluationFailed, Evaluator, Failure, RunReport, run
    from sysrs_ref.live.session import Session
    from sysrs_ref.live.status import SessionStatus

__all__ = ["EvaluationFailed", "Evaluator", "Failure", "RunReport", "Session", "SessionStatus", "run"]

#: Where each public name is defined: imported from there on first access.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("EvaluationFailed", "Evaluator", "Failure", "RunReport", "run"), "sysrs_ref.live.driver"),
    **dict.fromkeys(("Session",), "sysrs_ref.live.session"),
    **dict.fromkeys(("SessionStatus",), "sysrs_ref.live.status"),
}


if not TYPE_CHECKING:  # type checkers see the imports above instead, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
