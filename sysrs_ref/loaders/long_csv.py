"""Loading long ``.csv`` files (one line per model, query and score) into a score table.

The first non-blank line is a header naming the columns ``model``, ``query``
and the score column (``score`` by default; *metric* names another), in any
order and any letter case; other columns are ignored. Every further non-blank
line gives one cell, with exactly as many cells as the header has columns (an
id containing a comma must be quoted, ``"a,b"``, as the ``csv`` module
writes it). Ids are kept as strings (surrounding spaces removed); scores are
read by :func:`~sysrs_ref.scores.parse_score_text`, the one parser of scores
written as text: exact decimals (``0.1`` is 1/10; ``1e-3`` and ``.5`` are
accepted), ``true``/``false`` in any case, and inspect-ai's letters ``C``,
``P``, ``I``, ``N``; ``nan``, ``inf``, values outside [0, 1] and numbers
beyond :func:`~sysrs_ref.scores.parse_decimal`'s bounds are refused. Unlike
:func:`~sysrs_ref.loaders.load_scores`, several files may be read together,
repeated identical lines are merged and missing cells follow the ``missing``
policy. :func:`long_csv_cells` reads one file's lines; ``live record`` reads
its scores file with it too.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, read_text
from sysrs_ref.loaders.table import FileLog, ResultsTable, assemble, check_missing_policy
from sysrs_ref.scores import parse_score_text

__all__ = ["ScoreLine", "cell_count_problem", "load_long_csv", "long_csv_cells"]


class ScoreLine(NamedTuple):
    """One line of a long ``.csv``: model id, query id, the exact score, and where it was read ("FILE line N").

    >>> ScoreLine("m", "q,1", Fraction(1, 2), "s.csv line 2").score
    Fraction(1, 2)
    """

    model: str
    query: str
    score: Fraction
    where: str


def load_long_csv(paths: PathsArg, *, metric: str = "score", missing: str = "fail") -> ResultsTable:
    """Read long ``.csv`` files (columns ``model``, ``query`` and *metric*) into a :class:`ResultsTable`.

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
    log = FileLog()
    cells = _cells(files, metric, log)
    return assemble(cells, source="long-csv", metric=metric, missing=missing, origin=describe_paths(paths), files=log)


def _cells(files: list[Path], metric: str, log: FileLog) -> Iterator[ScoreLine]:
    """Every file's lines, in order; each file is logged with its count once it has been read to the end."""
    for path in files:
        count = 0
        for line in long_csv_cells(path, metric):
            count += 1
            yield line
        log.used(path, count, "" if count else "a header and no scores")


def cell_count_problem(cells: int, width: int) -> str:
    """What is wrong with a CSV line of *cells* cells under a header of *width* columns, as a phrase after its place.

    >>> cell_count_problem(5, 3)
    'has 5 cells but the header names 3 columns; an id containing a comma must be quoted ("a,b")'
    >>> cell_count_problem(2, 3)
    'has 2 cells but the header names 3 columns; every line needs one cell per column'
    """
    advice = (
        'an id containing a comma must be quoted ("a,b")' if cells > width else "every line needs one cell per column"
    )
    return f"has {cells} cell{'' if cells == 1 else 's'} but the header names {width} columns; {advice}"


def long_csv_cells(path: Path, metric: str = "score") -> Iterator[ScoreLine]:
    """The lines of one long ``.csv`` file that hold a score, in order, as :class:`ScoreLine`.

    The module docstring gives the rules; scores are exact Fractions read by
    :func:`~sysrs_ref.scores.parse_score_text`. Raises
    :class:`~sysrs_ref.errors.LoaderError` naming the file and line of
    anything unusable.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d, "s.csv")
    ...     _ = path.write_text('model,query,score\\na,"q,1",0.1\\nb,"q,1",C\\n')
    ...     [(cell.model, cell.query, cell.score) for cell in long_csv_cells(path)]
    [('a', 'q,1', Fraction(1, 10)), ('b', 'q,1', Fraction(1, 1))]
    """
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
            raise LoaderError(f"{where} {cell_count_problem(len(row), width)}")
        model, query, text = (row[index].strip() for index in columns)
        if not model or not query:
            raise LoaderError(f"{where}: empty model or query id")
        try:
            value = parse_score_text(text)
        except ValueError as err:
            raise LoaderError(f"{where}: score {err}") from None
        yield ScoreLine(model, query, value, where)
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
