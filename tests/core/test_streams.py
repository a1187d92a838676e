"""The command lines' standard streams (sysrs_ref._streams): a failed write to stdout is an error, to stderr dropped.

The commands' exit statuses for ``> /dev/full``, ``2> /dev/full`` and ``| head`` are tested end to end in
tests/cli; here are the two wrappers and the context that installs them, on streams that fail on demand.
"""

from __future__ import annotations

import errno
import io
import sys

import pytest

from sysrs_ref._streams import GuardedStdout, StdoutError, _QuietStderr, guarded_streams


class _Failing(io.StringIO):
    """A text stream whose writes and flushes raise *error* once ``failing`` is set."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error
        self.failing = False

    def write(self, text: str, /) -> int:
        if self.failing:
            raise self.error
        return super().write(text)

    def flush(self) -> None:
        if self.failing:
            raise self.error
        super().flush()


@pytest.mark.parametrize("step", ["write", "flush"])
def test_a_full_disk_on_stdout_is_a_stdout_error_naming_it(step: str) -> None:
    stream = _Failing(OSError(errno.ENOSPC, "No space left on device"))
    guarded = GuardedStdout(stream)
    assert guarded.write("ok") == 2
    stream.failing = True
    with pytest.raises(StdoutError, match="No space left on device"):
        guarded.write("x") if step == "write" else guarded.flush()


@pytest.mark.parametrize("step", ["write", "flush"])
def test_a_reader_that_stopped_reading_stays_a_broken_pipe(step: str) -> None:
    stream = _Failing(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    stream.failing = True
    with pytest.raises(BrokenPipeError):
        GuardedStdout(stream).write("x") if step == "write" else GuardedStdout(stream).flush()


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), ValueError("closed file")])
def test_stderr_that_cannot_be_written_drops_the_message_and_every_later_one(error: Exception) -> None:
    stream = _Failing(error)
    quiet = _QuietStderr(stream)
    assert quiet.write("first\n") == 6
    stream.failing = True
    assert quiet.write("lost\n") == 5
    stream.failing = False
    assert quiet.write("after\n") == 6  # dropped too: the stream is gone for good
    quiet.flush()
    assert stream.getvalue() == "first\n"
    assert not quiet.isatty()


def test_stderr_whose_flush_fails_is_dropped_too() -> None:
    stream = _Failing(OSError(errno.EBADF, "Bad file descriptor"))
    quiet = _QuietStderr(stream)
    stream.failing = True
    quiet.flush()
    stream.failing = False
    assert quiet.write("after\n") == 6
    assert stream.getvalue() == ""


def test_each_message_on_stderr_is_flushed_at_once() -> None:
    flushed: list[str] = []

    class Recording(io.StringIO):
        def flush(self) -> None:
            flushed.append(self.getvalue())

    _QuietStderr(Recording()).write("one line\n")
    assert flushed == ["one line\n"]


def test_the_streams_are_wrapped_inside_and_put_back_after() -> None:
    stdout, stderr = sys.stdout, sys.stderr
    with guarded_streams():
        assert isinstance(sys.stdout, GuardedStdout) and isinstance(sys.stderr, _QuietStderr)
    assert sys.stdout is stdout and sys.stderr is stderr
    with pytest.raises(KeyError), guarded_streams():
        raise KeyError("an error inside")
    assert sys.stdout is stdout and sys.stderr is stderr
