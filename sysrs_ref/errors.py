"""The exceptions raised for a user's mistakes.

Every one derives from :class:`SysrsError`, itself a :class:`ValueError`, so a
caller can catch them all at once; the command line turns them into one line on
stderr and exit status 2.
"""

from __future__ import annotations

__all__ = [
    "BoundConditionError",
    "BudgetError",
    "DatasetError",
    "DrawError",
    "InstanceError",
    "LiveError",
    "LoaderError",
    "OutputError",
    "ParameterError",
    "ScoreError",
    "SysrsError",
    "TooLargeError",
    "TooLargeToEnumerateError",
    "UnknownAlgorithmError",
]


class SysrsError(ValueError):
    """Base class of every error this package raises for bad input."""


class InstanceError(SysrsError):
    """A score matrix (or the file holding it) is unusable; the message says where."""


class DatasetError(InstanceError):
    """A benchmark name is unknown, or a shipped benchmark's file does not match its manifest."""


class LoaderError(InstanceError):
    """Evaluation results (lm-eval, HELM, inspect-ai logs or a long .csv) cannot be turned into a score matrix.

    The message names the file (and line, entry or sample) and says what to do.
    """


class ScoreError(SysrsError):
    """An evaluation oracle returned something that is not a score in [0, 1]."""


class BudgetError(SysrsError):
    """A budget is not an integer in [K, K*L] or a percentage that maps into it."""


class DrawError(SysrsError):
    """A draw is malformed or does not fit the instance or the algorithm."""


class ParameterError(SysrsError):
    """An algorithm parameter is missing, unknown or out of range."""


class UnknownAlgorithmError(SysrsError):
    """No algorithm is registered under the given name."""


class BoundConditionError(SysrsError):
    """A bound was asked for outside the conditions under which the paper proves it."""


class TooLargeToEnumerateError(SysrsError):
    """An exact enumeration would be too large; the message says how large and what to do."""


class TooLargeError(SysrsError):
    """A job's sizes need more memory than this machine has, or more time than the limit; the message says how much."""


class LiveError(SysrsError):
    """A live session refused an operation (a pair not requested, a conflicting score, a broken run directory)."""


class OutputError(SysrsError, OSError):
    """A file or folder could not be written or created: a full disk, a read-only folder, a path under a file.

    The message names the path and the operating system's reason (``cannot
    write 'out/results.json': No space left on device``); the writer leaves
    nothing half-written behind. It is also an :class:`OSError` with the
    original ``errno``, ``strerror`` and ``filename``, so code that catches
    OSError around a write still catches it.
    """

    def __init__(self, message: str, cause: OSError | None = None) -> None:
        super().__init__(message)
        if cause is not None:
            self.errno, self.strerror, self.filename = cause.errno, cause.strerror, cause.filename

    def __str__(self) -> str:
        """The message alone (not OSError's ``[Errno N] ...``)."""
        return str(self.args[0]) if self.args else ""
