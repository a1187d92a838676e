"""Reading a parquet file's rows with pyarrow, the optional ``parquet`` extra, as plain Python values.

pyarrow is imported when a parquet file is first read; without it the reader
raises a :class:`~sysrs_ref.errors.LoaderError` naming the extra to install.
Only the columns asked for are read; what pyarrow returns is checked to be a
list of objects before it is handed on, so nothing untyped leaves this module.

:func:`parquet_rows` builds one dict per row (about 4 microseconds a row of
two small structs); :func:`parquet_fields` reads a column of structs field by
field instead (a list of plain values per field, about 50 nanoseconds a
value), for a reader that can use it: both are linear in the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import check_not_lfs_pointer

__all__ = ["INSTALL_HINT", "StructFields", "parquet_columns", "parquet_fields", "parquet_rows"]

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


class StructFields(NamedTuple):
    """A parquet column of structs read field by field: every field's name, and the values of those asked for."""

    rows: int
    """How many rows the column has."""
    names: tuple[str, ...]
    """Every field of the struct, in its order."""
    values: dict[str, list[object]]
    """The values of each field asked for that the struct has, one per row."""


def parquet_fields(path: Path, column: str, fields: Sequence[str]) -> StructFields | None:
    """The struct column *column* of the parquet file *path* read field by field, or None when that does not apply.

    None (read the rows with :func:`parquet_rows` instead) unless the column
    is a struct with distinct field names, no null row, and each field asked
    for is a plain scalar (a number, a boolean or a string) with no null:
    then each row's dict in :func:`parquet_rows` would hold exactly these
    values under these names, so the two readings agree.

    >>> import tempfile, os
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d, "a.parquet")
    ...     pq.write_table(pa.Table.from_pylist([{"m": {"acc": 1.0, "em": 0.5}}, {"m": {"acc": 0.0, "em": 1.0}}]), path)
    ...     parquet_fields(path, "m", ["acc", "f1"]), parquet_fields(path, "m", []).names
    (StructFields(rows=2, names=('acc', 'em'), values={'acc': [1.0, 0.0]}), ('acc', 'em'))
    """
    pq = _reader()
    import pyarrow as pa

    try:
        read: object = pq.read_table(path, columns=[column]).column(column)  # type: ignore[attr-defined]  # pyarrow is an optional extra, imported at run time as a plain object
    except Exception as err:
        raise LoaderError(f"{path}: not a readable parquet file ({err}); is the file complete?") from None
    if not isinstance(read, pa.ChunkedArray) or not pa.types.is_struct(read.type) or read.null_count:
        return None
    struct = read.type
    names = tuple(str(struct.field(index).name) for index in range(struct.num_fields))
    if len(set(names)) != len(names):
        return None
    values: dict[str, list[object]] = {}
    for name in fields:
        if name not in names:
            continue
        field = pa.chunked_array([chunk.field(name) for chunk in read.chunks], type=struct.field(name).type)
        kind = field.type
        scalar = pa.types.is_floating(kind) or pa.types.is_integer(kind) or pa.types.is_boolean(kind)
        if not (scalar or pa.types.is_string(kind) or pa.types.is_large_string(kind)) or field.null_count:
            return None
        got: object = field.to_pylist()
        if not isinstance(got, list):
            return None
        values[name] = got
    return StructFields(len(read), names, values)
