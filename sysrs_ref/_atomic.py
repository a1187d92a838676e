"""Atomic file writes: a reader, or a crash, sees the old file or the new one, never a part of either.

Every failure to write (a full disk, a read-only folder, a path under a
regular file) is an :class:`~sysrs_ref.errors.OutputError` naming the path
and the operating system's reason, raised after the temporary file is removed:
what was there before is left as it was.

:func:`atomic_write` makes one file durable with its own ``fsync``;
:func:`atomic_write_all` writes many small files (``reproduce``'s cache
entries) with one flush to the disk for them all (on Linux ``syncfs``: one
commit of the file system's journal instead of one per file).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from sysrs_ref.errors import OutputError

__all__ = ["atomic_write", "atomic_write_all", "make_folder", "output_error"]


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _file_in_the_way(path: Path) -> Path | None:
    """The first of *path* and its parents that exists and is not a folder, if any."""
    for candidate in (path, *path.parents):
        try:
            if candidate.exists() and not candidate.is_dir():
                return candidate
        except OSError:  # unreadable: not the one to name
            continue
    return None


def output_error(path: Path, error: OSError, action: str = "write") -> OutputError:
    """The OutputError for *error*, met trying to *action* *path*: ``cannot write 'PATH': REASON``.

    >>> str(output_error(Path("out/results.json"), OSError(errno.ENOSPC, "No space left on device")))
    "cannot write 'out/results.json': No space left on device"
    """
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = _file_in_the_way(path)
        if blocker is not None:
            reason += f" ('{blocker}' is a file, not a folder)"
    return OutputError(f"cannot {action} '{path}': {reason}", error)


def make_folder(folder: Path) -> Path:
    """Create *folder* and its missing parents; return it. OutputError naming it and the reason if it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise output_error(folder, error, "create the folder") from error
    return folder


def atomic_write(path: Path, content: str | bytes) -> None:
    """Write *content* (text as UTF-8, or bytes) to *path* so that a reader (or a crash) sees the old file or the new one, never a part.

    The folder is created if missing. On any failure the temporary file is
    removed and *path* is left as it was; an OSError (a full disk, a
    read-only folder) becomes an OutputError naming *path* and the reason.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    make_folder(path.parent)
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), 0o666 & ~_UMASK)  # as open() would create it, not mkstemp's 0600
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        if temporary is not None:
            with contextlib.suppress(OSError):  # gone already if the rename was done
                os.unlink(temporary)
        if isinstance(error, OSError):
            raise output_error(path, error) from error
        raise


def _load_syncfs() -> Callable[[int], int] | None:
    """Linux's ``syncfs(fd)`` (flush every file of fd's file system to the disk), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    return function


_SYNCFS = _load_syncfs()


def _sync_file_system(path: str) -> None:
    """Flush every file of *path*'s file system to the disk (``syncfs``); OSError if the system reports a failure."""
    assert _SYNCFS is not None
    handle = os.open(path, os.O_RDONLY)
    try:
        if _SYNCFS(handle) != 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))
    finally:
        os.close(handle)


def atomic_write_all(files: Sequence[tuple[Path, str | bytes]]) -> None:
    """Write each (path, content) of *files* as :func:`atomic_write` does, with one flush to the disk for them all.

    Every content goes first to a temporary file beside its path; then all of
    them reach the disk together (on Linux one ``syncfs`` per file system they
    are on: one commit of its journal, where an ``fsync`` per file makes one
    each; elsewhere an ``fsync`` per file); then each is renamed over its path,
    in order. So, as with :func:`atomic_write`, a reader or a crash sees each
    path's old file or its new one, never a part, and a renamed file's data is
    on the disk. On a failure (or an interruption) the files written before it
    are still flushed and renamed, as :func:`atomic_write` one by one would
    have left them, the rest left as they were with no temporary file, and an
    OSError becomes an OutputError naming the path it met.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> atomic_write_all([(folder / "a" / "1.json", "{}"), (folder / "b.json", b"[]")])
    >>> (folder / "a" / "1.json").read_text(), (folder / "b.json").read_bytes(), sorted(p.name for p in folder.iterdir())
    ('{}', b'[]', ['a', 'b.json'])
    """
    complete: list[tuple[str, Path]] = []  # temporary files written whole, and their paths, in the order of *files*
    folders: set[Path] = set()
    path, temporary = Path(), None
    try:
        for path, content in files:
            if path.parent not in folders:
                folders.add(make_folder(path.parent))
            data = content.encode("utf-8") if isinstance(content, str) else content
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fchmod(out.fileno(), 0o666 & ~_UMASK)  # as open() would create it, not mkstemp's 0600
                if _SYNCFS is None:
                    os.fsync(out.fileno())
            complete.append((temporary, path))
            temporary = None
    except BaseException as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        with contextlib.suppress(OutputError):  # the first failure is the one to report
            _publish(complete)
        if isinstance(error, OSError):
            raise output_error(path, error) from error
        raise
    _publish(complete)


def _publish(complete: Sequence[tuple[str, Path]]) -> None:
    """Flush the *complete* temporary files to the disk and rename each over its path; on a failure remove the rest."""
    renamed = 0
    path = complete[0][1] if complete else Path()
    try:
        if _SYNCFS is not None:
            devices: dict[int, tuple[str, Path]] = {}  # one temporary file per file system, to flush it by
            for temporary, target in complete:
                path = target  # the one named if its file cannot be seen
                devices.setdefault(os.stat(temporary).st_dev, (temporary, target))
            for temporary, target in devices.values():
                path = target  # the one named if its file system cannot be flushed
                _sync_file_system(temporary)
        for temporary, path in complete:
            os.replace(temporary, path)
            renamed += 1
    except BaseException as error:
        for temporary, _ in complete[renamed:]:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(error, OSError):
            raise output_error(path, error) from error
        raise
