"""Loading long ``.csv`` files (one line per model, query and score) into a score table.

The first non-blank line is a header naming the columns ``model``, ``query``
and the score column (``score`` by default; *metric* names another), in any
order and any letter case; other columns are ignored. Every further non-blank
line gives one cell. Ids are kept as strings (surrounding spaces removed);
scores are read as exact decimals (``0.1`` is 1/10), so ``1e-3`` and ``.5`` are
accepted and ``nan``, ``inf``, values outside [0, 1], nonzero values below
1e-400 and numbers of more than 1000 digits
(:func:`~sysrs_ref.scores.parse_decimal`'s bounds) are refused. Unlike
:func:`~sysrs_ref.loaders.load_scores`, several files may be read together,
repeated identical lines are merged and missing cells follow the ``missing``
policy.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, read_text
from sysrs_ref.loaders.table import Cell, ScoreTable, assemble, check_missing_policy
from sysrs_ref.scores import bounded_decimal, shortened

__all__ = ["load_long_csv"]

_MIN_EXPONENT = -400
"""Nonzero scores below 1e-400 are refused (a float64 cannot hold them, and 1e-999999999 would be a huge fraction)."""


def load_long_csv(paths: PathsArg, *, metric: str = "score", missing: str = "fail") -> ScoreTable:
    """Read long ``.csv`` files (columns ``model``, ``query`` and *metric*) into a :class:`ScoreTable`.

    *paths* are files or directories (searched recursively for ``*.csv``, in
    sorted order); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. Raises
    :class:`~sysrs_ref.errors.LoaderError` naming the file and line for
    anything it cannot use.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "s.csv")
    ...     _ = open(path, "w").write("query,model,score,note\\nq1,a,1,x\\nq2,a,0.5,\\nq1,b,0,\\nq2,b,0.25,\\nq1,b,0,again\\n")
    ...     table = load_long_csv(path)
    >>> table.models, table.queries, table.scores.tolist(), table.duplicates
    (('a', 'b'), ('q1', 'q2'), [[1.0, 0.5], [0.0, 0.25]], 1)
    """
    check_missing_policy(missing)
    files = find_files(paths, lambda path: path.suffix.lower() == ".csv", ".csv files")
    return assemble(
        _cells(files, metric), source="long-csv", metric=metric, missing=missing, origin=describe_paths(paths)
    )


def _cells(files: list[Path], metric: str) -> Iterator[Cell]:
    for path in files:
        yield from _file_cells(path, metric)


def _file_cells(path: Path, metric: str) -> Iterator[Cell]:
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    columns: tuple[int, int, int] | None = None
    width = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            raise LoaderError(f"{path} line {reader.line_num}: not valid CSV ({err})") from None
        where = f"{path} line {reader.line_num}"
        if not any(cell.strip() for cell in row):
            continue
        if columns is None:
            columns, width = _header(row, metric, where), len(row)
            continue
        if len(row) != width:
            raise LoaderError(f"{where}: {len(row)} columns, but the header has {width}")
        model, query, text = (row[index].strip() for index in columns)
        if not model or not query:
            raise LoaderError(f"{where}: empty model or query id")
        try:
            value = Decimal(text)
        except InvalidOperation:
            shown = f"{shortened(text)!r} is not a number" if text else "is empty"
            raise LoaderError(f"{where}: score {shown}; every score must be a number in [0, 1]") from None
        if value.is_finite() and value and not _MIN_EXPONENT <= value.adjusted() <= 0:
            # out of range, or so tiny that its exact value would be a huge fraction: refuse before converting
            raise LoaderError(
                f"{where}: score {shortened(text)} is outside [0, 1] or below 1e{_MIN_EXPONENT}; write it as 0 or 1"
            )
        if value.is_finite():
            try:
                bounded_decimal(text)  # and within the bounds of every exact number (at most 1000 digits)
            except ValueError as err:
                raise LoaderError(f"{where}: score {err}; every score must be a number in [0, 1]") from None
        yield Cell(model, query, value, where)
    if columns is None:
        raise LoaderError(f"{path}: the file is empty; a long .csv starts with the header model,query,{metric}")


def _header(row: list[str], metric: str, where: str) -> tuple[int, int, int]:
    names = [cell.strip().lower() for cell in row]
    indices: list[int] = []
    for wanted in ("model", "query", metric.strip().lower()):
        count = names.count(wanted)
        if count != 1:
            problem = "lacks" if count == 0 else f"has {count} columns named"
            raise LoaderError(
                f"{where}: the header {problem} '{wanted}'; a long .csv needs the columns model, query and "
                f"{metric} (any order, other columns ignored); this header is {','.join(cell.strip() for cell in row)}"
            )
        indices.append(names.index(wanted))
    return indices[0], indices[1], indices[2]
