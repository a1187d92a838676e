"""The one rule for reading a file: a regular file, of bounded size, opened without blocking; JSON of bounded depth.

Every reader of the package (the loaders and datasets, reproduce's cache and
checkpoints, the conformance vectors, a live session's files) opens its
input through :func:`open_regular` or :func:`read_regular` and parses JSON
through :func:`parse_json`:

- a FIFO, a socket or a device (``/dev/zero``, perhaps behind a symlink) is
  refused at once, without blocking (the file is opened with ``O_NONBLOCK``
  and checked with ``fstat`` before any byte is read);
- a file larger than the reader's limit is refused before it is read, and
  reading stops at the limit should the file grow meanwhile;
- JSON nested deeper than :data:`MAX_JSON_DEPTH` arrays and objects is
  refused before it is parsed, in time linear in its length.

The failures are :class:`UnreadableFileError` (an :class:`OSError`, so that a
reader which already reports "cannot read" says why) and
:class:`JsonFormatError` (a :class:`ValueError`); each reader turns them into
its own error or warning naming the file.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import BinaryIO

from sysrs_ref.json_types import JsonValue

__all__ = [
    "LARGE_FILE_BYTES",
    "MAX_JSON_DEPTH",
    "SMALL_FILE_BYTES",
    "JsonFormatError",
    "UnreadableFileError",
    "json_depth",
    "open_regular",
    "parse_json",
    "read_json",
    "read_regular",
]

#: The deepest nesting of arrays and objects a JSON document may have (every format the package reads needs
#: fewer than 20 levels; Python's own parser gives up, with a RecursionError, near 1000).
MAX_JSON_DEPTH = 200

#: The size limit of a large input read whole: a harness's JSON or .csv, a live session's log.
LARGE_FILE_BYTES = 4 * 2**30

#: The size limit of the package's own small files: a cache entry, a checkpoint, a live session's
#: configuration, a grid file, a list of ids (each a few kilobytes).
SMALL_FILE_BYTES = 64 * 2**20


class UnreadableFileError(OSError):
    """A path that is not read: not a regular file (a FIFO, socket or device), or larger than the reader's limit."""


class JsonFormatError(ValueError):
    """Text that is not usable JSON: a syntax error, nesting deeper than :data:`MAX_JSON_DEPTH`, a huge number."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str], limit: int | None = None) -> BinaryIO:
    """*path* opened for reading in binary, once it is known to be a regular file of at most *limit* bytes.

    The file is opened with ``O_NONBLOCK`` (so a FIFO does not wait for a
    writer) and checked with ``fstat`` on the open descriptor (so a symlink
    to a device is seen as the device). Raises :class:`UnreadableFileError`
    for anything but a regular file or a file above *limit* bytes (None: no
    limit), and the usual :class:`OSError` for a missing or unreadable one.

    >>> open_regular("/dev/null")
    Traceback (most recent call last):
    ...
    sysrs_ref._files.UnreadableFileError: [Errno 22] not a regular file but a device; only regular files are read: '/dev/null'
    """
    name = os.fspath(path)
    descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):  # what open() says of a directory
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", name)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFileError(
                errno.EINVAL, f"not a regular file but {_kind(info.st_mode)}; only regular files are read", name
            )
        if limit is not None and info.st_size > limit:
            raise UnreadableFileError(
                errno.EFBIG, f"{info.st_size:,} bytes, above this reader's limit of {limit:,}", name
            )
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file *path*, at most *limit* of them (:func:`open_regular`'s rule).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = open(os.path.join(d, "a"), "wb").write(b"12345")
    ...     read_regular(os.path.join(d, "a"), 5)
    b'12345'
    """
    with open_regular(path, limit) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # the file grew after fstat
        raise UnreadableFileError(errno.EFBIG, f"more than this reader's limit of {limit:,} bytes", os.fspath(path))
    return data


#: Every byte but a quote and the four brackets, deleted to measure the nesting.
_NOT_STRUCTURE = bytes(set(range(256)) - set(b'"[]{}'))


def json_depth(text: str | bytes) -> int:
    """How deep arrays and objects nest in the JSON *text* (0 for a scalar), in time linear in its length.

    Strings are skipped, so brackets inside them do not count. Text that is
    not JSON gets a number too; parsing it says what is wrong.

    >>> json_depth('{"a": [1, [2]], "b": "[[["}'), json_depth("3")
    (3, 0)
    """
    return _depth(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)


def _depth(data: bytes) -> int:
    """The nesting of *data*: brackets counted outside strings, in a few passes at C speed."""
    # An escaped backslash, then an escaped quote, cannot end a string: dropped (left to right, as JSON pairs them).
    kept = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    if not kept:
        return 0
    import numpy as np  # imported here: ``import sysrs_ref`` imports this module and no numpy

    codes = np.frombuffer(kept, dtype=np.uint8)
    quotes = codes == ord('"')
    outside = (np.cumsum(quotes, dtype=np.int64) & 1) == 0  # a bracket after an even number of quotes
    opens = outside & ((codes == ord("[")) | (codes == ord("{")))
    closes = outside & ((codes == ord("]")) | (codes == ord("}")))
    steps = opens.astype(np.int8) - closes.astype(np.int8)
    return max(int(np.cumsum(steps, dtype=np.int64).max()), 0)


def parse_json(text: str | bytes) -> JsonValue:
    """*text* parsed as JSON; :class:`JsonFormatError` saying what is wrong (with line and column) otherwise.

    >>> parse_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_json("[" * 100_000)
    Traceback (most recent call last):
    ...
    sysrs_ref._files.JsonFormatError: JSON nested 100,000 deep; at most 200 levels of arrays and objects are read
    """
    # brackets counted in the text itself: a short line is not encoded first
    opened = text.count("[") + text.count("{") if isinstance(text, str) else text.count(b"[") + text.count(b"{")
    depth = json_depth(text) if opened > MAX_JSON_DEPTH else 0
    if depth > MAX_JSON_DEPTH:
        raise JsonFormatError(
            f"JSON nested {depth:,} deep; at most {MAX_JSON_DEPTH} levels of arrays and objects are read"
        )
    try:
        value: JsonValue = json.loads(text)
    except json.JSONDecodeError as err:
        raise JsonFormatError(f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    except (ValueError, RecursionError) as err:  # bad UTF-8, an integer of thousands of digits
        raise JsonFormatError(f"not usable JSON ({err})") from None
    return value


def read_json(path: str | os.PathLike[str], limit: int = SMALL_FILE_BYTES) -> JsonValue:
    """The JSON document in the regular file *path* of at most *limit* bytes (UTF-8, a leading BOM allowed).

    Raises :class:`UnreadableFileError` or another :class:`OSError` when the
    file cannot be read, :class:`JsonFormatError` when it is not usable JSON
    (not UTF-8, a syntax error, nested too deep).
    """
    data = read_regular(Path(path), limit)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise JsonFormatError(f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    return parse_json(text)
