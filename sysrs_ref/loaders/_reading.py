"""Finding and reading the input files of the harness loaders, every failure a :class:`LoaderError` naming the file.

Paths are taken in the order given; a directory stands for the matching files
found anywhere below it, in sorted order of their path inside that directory
(so ``a/x`` comes before ``b/x``, and ``samples_gsm8k_...`` before
``samples_gsm8k_cot_...``).
"""

from __future__ import annotations

import errno
import stat
from collections.abc import Callable, Iterable
from os import PathLike, fspath
from pathlib import Path

from sysrs_ref._checks import shortened
from sysrs_ref._files import (
    LARGE_FILE_BYTES,
    JsonFormatError,
    UnreadableFileError,
    open_regular,
    parse_json as _parse_json,
    read_regular,
)
from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue

__all__ = [
    "INPUT_FILE_BYTES",
    "LFS_POINTER",
    "PathArg",
    "PathsArg",
    "check_input_path",
    "check_not_lfs_pointer",
    "describe_paths",
    "find_files",
    "lfs_pointer_message",
    "parse_json",
    "read_json",
    "read_text",
]

#: How a git-lfs pointer file begins: such a file stands in for the real one in a clone without ``git lfs pull``.
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"

#: The largest input file a loader reads whole (a harness's JSON or .csv; larger ones are refused unread).
INPUT_FILE_BYTES = LARGE_FILE_BYTES

#: One input path: a file or a directory.
PathArg = str | PathLike[str]
#: One path or several.
PathsArg = PathArg | Iterable[PathArg]


def _as_list(paths: PathsArg) -> list[Path]:
    if isinstance(paths, (str, PathLike)):
        return [Path(fspath(paths))]
    return [Path(fspath(path)) for path in paths]


def describe_paths(paths: PathsArg, limit: int = 3) -> str:
    """The input paths as one short phrase for messages: the first *limit* of them, then how many more.

    >>> describe_paths(["a", "b", "c", "d", "e"])
    'a, b, c and 2 more'
    """
    given = [str(path) for path in _as_list(paths)]
    shown = ", ".join(given[:limit])
    return shown + (f" and {len(given) - limit} more" if len(given) > limit else "")


def check_input_path(path: Path) -> None:
    """LoaderError when *path* cannot name an input: a name too long for the system, or a FIFO, socket or device.

    Reading a FIFO blocks until another program writes to it, perhaps
    forever, and a device never ends: only regular files and directories are
    read. A path that does not exist passes (the caller says what it looked
    for), as does one whose checks fail otherwise (reading it says why).

    >>> check_input_path(Path("x" * 300))
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.LoaderError: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: the file name is too long for this system (300 characters; file systems allow at most 255 per name)
    """
    try:
        mode = path.stat().st_mode
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:
            text = str(path)
            raise LoaderError(
                f"{shortened(text, 60)}: the file name is too long for this system ({len(text)} characters; "
                "file systems allow at most 255 per name)"
            ) from None
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise LoaderError(f"{path}: not a regular file or a directory (a FIFO, socket or device is not read)")


def find_files(paths: PathsArg, matches: Callable[[Path], bool], what: str) -> list[Path]:
    """The input files that *paths* stand for: files as given, directories searched recursively, sorted.

    *matches* says which files inside a directory count (an explicitly named
    file is always taken); *what* describes them for the error messages
    ("samples_*.jsonl files"). Raises :class:`LoaderError` for no paths, a path
    that does not exist, or a directory holding no matching file.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for name in ("b/x.csv", "a/y.csv", "a/notes.txt"):
    ...         os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
    ...         _ = open(os.path.join(d, name), "w").write("")
    ...     [p.relative_to(d).as_posix() for p in find_files([d], lambda p: p.suffix == ".csv", ".csv files")]
    ['a/y.csv', 'b/x.csv']
    """
    given = _as_list(paths)
    if not given:
        raise LoaderError(f"no input paths given: name one or more {what} or directories holding them")
    found: list[Path] = []
    for path in given:
        check_input_path(path)
        if path.is_dir():
            inside = sorted(
                (candidate for candidate in path.rglob("*") if candidate.is_file() and matches(candidate)),
                key=lambda candidate: candidate.relative_to(path).parts,
            )
            if not inside:
                raise LoaderError(f"{path}: found no {what} in this directory or below it; check the path")
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        else:
            raise LoaderError(f"{path}: no such file or directory")
    return found


def read_failure(error: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, as a phrase to put after its name.

    >>> read_failure(FileNotFoundError(2, "No such file or directory")), read_failure(PermissionError(13, "x"))
    ('no such file', 'permission denied; make the file readable')
    """
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text ({error.reason} at byte {error.start})"
    if isinstance(error, UnreadableFileError):
        return str(error.strerror)
    if isinstance(error, FileNotFoundError):
        return "no such file"
    if isinstance(error, IsADirectoryError):
        return "is a directory, not a file"
    if isinstance(error, PermissionError):
        return "permission denied; make the file readable"
    return f"cannot read it ({error.strerror or error})"


def lfs_pointer_message(path: Path | str, head: bytes) -> str | None:
    """The message for a git-lfs pointer file, if *head* (the file's first bytes) begins like one, else None.

    >>> lfs_pointer_message("logs/a.eval", b"version https://git-lfs.github.com/spec/v1\\noid sha256:ab\\nsize 5\\n")
    'logs/a.eval: a git-lfs pointer file, not the file itself (it names an object of 5 bytes); fetch the real file with git lfs pull (or download it) and convert again'
    """
    if not head.startswith(LFS_POINTER):
        return None
    size = next(
        (line[5:].strip() for line in head.decode("utf-8", "replace").splitlines() if line.startswith("size ")), ""
    )
    of = f" (it names an object of {size} bytes)" if size.isdigit() else ""
    return (
        f"{path}: a git-lfs pointer file, not the file itself{of}; fetch the real file with git lfs pull "
        "(or download it) and convert again"
    )


def check_not_lfs_pointer(path: Path) -> None:
    """Raise a :class:`LoaderError` saying so when *path* is a git-lfs pointer file (a binary reader's first check)."""
    try:
        with open_regular(path) as handle:
            head = handle.read(1024)
    except OSError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    message = lfs_pointer_message(path, head)
    if message is not None:
        raise LoaderError(message)


def read_text(path: Path) -> str:
    """The UTF-8 text of *path* (a leading byte order mark dropped), or a :class:`LoaderError` saying why not.

    A git-lfs pointer file (the stand-in for a file not fetched) is named as
    such; the file is read by the package's one rule (:mod:`sysrs_ref._files`:
    a regular file of at most :data:`INPUT_FILE_BYTES`).
    """
    try:
        data = read_regular(path, INPUT_FILE_BYTES)
    except OSError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    message = lfs_pointer_message(path, data[:1024])
    if message is not None:
        raise LoaderError(message)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None


def parse_json(text: str | bytes, where: str) -> JsonValue:
    """*text* parsed as JSON, or a :class:`LoaderError` naming *where* and the position of the mistake.

    Nesting deeper than :data:`sysrs_ref._files.MAX_JSON_DEPTH` is refused before parsing.

    >>> parse_json("[" * 1000 + "]" * 1000, "x.json")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.LoaderError: x.json: JSON nested 1,000 deep; at most 200 levels of arrays and objects are read
    """
    try:
        return _parse_json(text)
    except JsonFormatError as err:
        hint = "; is the file complete?" if str(err).startswith("not valid JSON") else ""
        raise LoaderError(f"{where}: {err}{hint}") from None


def read_json(path: Path) -> JsonValue:
    """The JSON document in *path*, or a :class:`LoaderError` naming the file."""
    return parse_json(read_text(path), str(path))
