"""Atomic file writes: a reader, or a crash, sees the old file or the new one, never a part of either.

Every failure to write (a full disk, a read-only folder, a path under a
regular file) is an :class:`~sysrs_ref.errors.OutputError` naming the path
and the operating system's reason, raised after the temporary file is removed:
what was there before is left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from sysrs_ref.errors import OutputError

__all__ = ["atomic_write", "make_folder", "output_error"]


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
