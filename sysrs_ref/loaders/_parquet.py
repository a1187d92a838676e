"""Reading a parquet file's rows with pyarrow, the optional ``parquet`` extra, as plain Python values.

pyarrow is imported when a parquet file is first read; without it the reader
raises a :class:`~sysrs_ref.errors.LoaderError` naming the extra to install.
Only the columns asked for are read; what pyarrow returns is checked to be a
list of objects before it is handed on, so nothing untyped leaves this module.
"""

from __future__ import annotations

from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import check_not_lfs_pointer

__all__ = ["INSTALL_HINT", "parquet_columns", "parquet_rows"]

#: How to get the parquet reader.
INSTALL_HINT = "pip install 'sysrs-ref[parquet]' (or pip install pyarrow)"


def _reader() -> object:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise LoaderError(
            f"reading parquet files (lighteval details, the Open LLM Leaderboard's details) needs pyarrow, the "
            f"optional 'parquet' extra: {INSTALL_HINT}"
        ) from None
    return pq


def parquet_columns(path: Path) -> list[str]:
    """The column names of the parquet file *path*, or a :class:`LoaderError` naming it."""
    check_not_lfs_pointer(path)
    pq = _reader()
    try:
        names: object = pq.read_schema(path).names  # type: ignore[attr-defined]  # pyarrow is an optional extra, imported at run time as a plain object
    except Exception as err:  # pyarrow raises its own ArrowInvalid, OSError, ...
        raise LoaderError(f"{path}: not a readable parquet file ({err}); is the file complete?") from None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise LoaderError(f"{path}: a parquet file whose columns have no names")
    return [str(name) for name in names]


def parquet_rows(path: Path, columns: list[str]) -> list[dict[str, object]]:
    """The rows of the parquet file *path*, each a dict of the *columns* asked for, in the file's order."""
    pq = _reader()
    try:
        rows: object = pq.read_table(path, columns=columns).to_pylist()  # type: ignore[attr-defined]  # pyarrow is an optional extra, imported at run time as a plain object
    except Exception as err:
        raise LoaderError(f"{path}: not a readable parquet file ({err}); is the file complete?") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise LoaderError(f"{path}: the parquet file's rows are not records")
    return [dict(row) for row in rows]
