"""The command lines' standard streams: output that cannot be written is an error, a message that cannot is dropped.

Every command line of the project (``python -m sysrs_ref``, ``python -m
proofs_check``) runs inside :func:`guarded_streams`:

- **stdout** is wrapped (:class:`GuardedStdout`): a write or flush that
  fails (a full disk, a closed descriptor) raises :class:`StdoutError`,
  which the command turns into one line on stderr and status 2, never a
  silent success; BrokenPipeError (the reader stopped reading, ``| head``)
  stays itself;
- **stderr** is wrapped (:class:`_QuietStderr`): every write is flushed at
  once, and one that fails (``2> /dev/full``, ``2>&-``) is dropped, with the
  descriptor then sent to the null device, so that neither the message nor
  the interpreter's last flush at exit can change the command's exit status.
  A command that cannot say why it failed still exits with the status that
  says how.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO, cast

__all__ = ["GuardedStdout", "StdoutError", "discard", "guarded_streams"]


class StdoutError(Exception):
    """The command's output could not be written to stdout."""


class GuardedStdout:
    """sys.stdout while a command runs: the same stream, but a failed write is a :class:`StdoutError`.

    BrokenPipeError (the reader stopped reading) stays itself; everything
    else (fileno, isatty, encoding, ...) is the stream's own.

    >>> import io
    >>> stream = io.StringIO()
    >>> stream.close()
    >>> GuardedStdout(stream).write("x")
    Traceback (most recent call last):
    ...
    sysrs_ref._streams.StdoutError: I/O operation on closed file
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str, /) -> int:
        """Write *text* (StdoutError when it cannot be written)."""
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as error:  # ValueError: the stream was closed
            raise StdoutError(str(error)) from error

    def flush(self) -> None:
        """Flush the stream (StdoutError when it cannot be written)."""
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as error:
            raise StdoutError(str(error)) from error

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


class _QuietStderr:
    """sys.stderr while a command runs: each write flushed at once; one that fails is dropped (see the module)."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream

    def write(self, text: str, /) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
                self._stream.flush()
            except (OSError, ValueError):
                discard(self._stream)
                self._stream = None
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                discard(self._stream)
                self._stream = None

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def __getattr__(self, name: str) -> object:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def discard(stream: TextIO) -> None:
    """Send *stream*'s descriptor to the null device, so that what its buffer holds can be flushed there at exit.

    Nothing happens to a stream without a descriptor (a test's StringIO).
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)


@contextmanager
def guarded_streams() -> Iterator[None]:
    """Within the block, stdout is a :class:`GuardedStdout` (when there is one) and stderr never fails (see above).

    Both are put back after the block. A command started with stdout
    closed (``>&-``) has ``sys.stdout`` None: the command refuses to run.

    >>> with guarded_streams():
    ...     type(sys.stderr).__name__
    '_QuietStderr'
    """
    stdout, stderr = sys.stdout, sys.stderr
    sys.stderr = cast(TextIO, _QuietStderr(stderr))
    if stdout is not None:
        sys.stdout = cast(TextIO, GuardedStdout(stdout))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = stdout, stderr
