"""The live session's write-ahead log: JSON lines appended, fsynced, and read back after any crash.

A session's run directory holds ``log.jsonl``: one JSON object per line,
each line written with a single ``write`` of its bytes (newline included)
and followed by ``fsync``. So after a crash at any instant, the file is a
sequence of complete lines possibly followed by *one* incomplete line: the
record being written when the process died. That record was never
acknowledged (the call writing it had not returned), so reading it back
drops it (:func:`read_log`), and opening the log for writing truncates it
(:meth:`LogWriter.open`). An incomplete or unparsable line anywhere *but*
the end is corruption, which is reported, never repaired silently.

The directory is locked with ``flock`` while a writer has it open, so two
processes (or two objects in one process) never append to the same session
at once. A process forked while a session is open (a multiprocessing pool
started inside an evaluation function) shares the lock until it exits.
"""

from __future__ import annotations

import fcntl
import json
import os
import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType

from sysrs_ref._atomic import output_error
from sysrs_ref._files import LARGE_FILE_BYTES, JsonFormatError, parse_json, read_regular
from sysrs_ref.errors import LiveError
from sysrs_ref.json_types import JsonValue

__all__ = ["LOG_NAME", "LOCK_NAME", "LogWriter", "fsync_directory", "read_log"]

#: The log's file name in the run directory.
LOG_NAME = "log.jsonl"
#: The lock file's name in the run directory.
LOCK_NAME = ".lock"


def read_log(path: Path) -> tuple[list[dict[str, JsonValue]], int]:
    """The complete records of the log at *path*, and the byte length they occupy.

    A missing file reads as no records. An incomplete last line (a crash
    while it was written) is left out of both; any other line that is not a
    JSON object is a :class:`~sysrs_ref.errors.LiveError` naming its line.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "log.jsonl").write_bytes(b'{"t": "score"}\\n{"t": "sc')
    >>> read_log(folder / "log.jsonl")
    ([{'t': 'score'}], 15)
    """
    try:
        data = read_regular(path, LARGE_FILE_BYTES)
    except FileNotFoundError:
        return [], 0
    except OSError as err:
        raise LiveError(f"cannot read the session log {path}: {err.strerror or err}") from None
    complete = data.rfind(b"\n") + 1  # bytes up to and including the last newline
    records: list[dict[str, JsonValue]] = []
    for number, line in enumerate(data[:complete].split(b"\n")[:-1], start=1):
        try:
            record = parse_json(line)
        except JsonFormatError:  # bad JSON or UTF-8, a huge integer, deep nesting
            record = None
        if not isinstance(record, dict):
            raise LiveError(
                f"{path} line {number} is not a log record ({line[:60]!r}): the log is corrupt; "
                "restore it from a backup, or start a new session"
            )
        records.append(record)
    return records, complete


class LogWriter:
    """The log opened for appending, with the run directory locked; a context manager.

    :meth:`open` takes the lock (or raises LiveError when another process
    holds it), reads the log and cuts off an incomplete last line. :meth:`append` writes
    records and fsyncs them before it returns.
    """

    def __init__(self, log: int, lock: int, path: Path) -> None:
        self._log = log
        self._lock = lock
        self.path = path
        # an unclosed writer (a notebook cell run again) releases the lock when it is collected
        self._release = weakref.finalize(self, _close_descriptors, log, lock)

    @classmethod
    def open(cls, directory: Path) -> tuple[LogWriter, list[dict[str, JsonValue]]]:
        """Lock *directory*, read its log, cut off an incomplete last record; the writer and the records.

        LiveError when another process holds the lock, the folder cannot be
        written, or the log is corrupt.
        """
        try:
            lock = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise LiveError(f"cannot open the session in {directory} for writing: {err.strerror or err}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            raise LiveError(
                f"the session in {directory} is open in another process (a running driver or "
                "'live record'), or in this one; wait for it to finish, or close it"
            ) from None
        path = directory / LOG_NAME
        try:
            records, complete = read_log(path)
            created = not path.exists()
            log = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
            if created:  # make the new file's directory entry durable too (a power cut, not only a crash)
                fsync_directory(directory)
            if os.fstat(log).st_size > complete:
                os.ftruncate(log, complete)
                os.fsync(log)
            os.lseek(log, 0, os.SEEK_END)
        except OSError as err:
            os.close(lock)
            raise LiveError(f"cannot open the log of the session in {directory}: {err.strerror or err}") from None
        except BaseException:
            os.close(lock)
            raise
        return cls(log, lock, path), records

    def append(self, records: Iterable[Mapping[str, JsonValue]]) -> None:
        """Append *records*, one JSON line each, and fsync them before returning; all or nothing.

        If anything goes wrong before the fsync has returned (a full disk, an
        I/O error, Ctrl-C), the log is cut back to where it was, so none of
        these records counts; if even that fails, the writer closes and every
        later append is refused. An OSError is raised as an
        :class:`~sysrs_ref.errors.OutputError` (still an OSError) naming the
        log and the reason.
        """
        if self._log < 0:
            raise LiveError(f"the log {self.path} is closed; open the session again")
        data = b"".join(json.dumps(record, separators=(",", ":")).encode() + b"\n" for record in records)
        start = os.lseek(self._log, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._log, view)
                view = view[written:]
            os.fsync(self._log)
        except BaseException as error:
            try:
                os.ftruncate(self._log, start)
                os.fsync(self._log)
            except BaseException:
                self.close()
            if isinstance(error, OSError):  # a full disk, an I/O error: one line naming the log and the reason
                raise output_error(self.path, error) from error
            raise

    def close(self) -> None:
        """Close the log and release the lock (idempotent)."""
        self._release()
        self._log = self._lock = -1

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _close_descriptors(log: int, lock: int) -> None:
    os.close(log)
    os.close(lock)  # closing the descriptor releases the flock


def fsync_directory(directory: Path) -> None:
    """Make the directory's entries (a file created or renamed in it) durable."""
    folder = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
