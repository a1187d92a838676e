"""Reading score matrices from files: ``.npy``, a ``.csv`` matrix, or a long ``.csv``.

Formats (docs/cli.md):

- ``.npy``: a 2-D numeric array, models x queries, read as
  ``numpy.load(path, allow_pickle=False)`` does, once its header is known to
  fit the file (:func:`~sysrs_ref.loaders.arrays.read_npy`; object arrays,
  pickles and headers declaring more data than the file holds are refused).
- ``.csv`` matrix: one line per model, one number per query, no header.
  Numbers are read as exact decimals (``0.1`` is 1/10) by
  :func:`~sysrs_ref.scores.parse_decimal`, within its bounds.
- long ``.csv``: a header line naming the columns ``model``, ``query`` and
  ``score`` (any order), then one line per (model, query) pair. Models and
  queries are numbered in order of first appearance; every pair must appear
  exactly once.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from os import PathLike, fspath
from pathlib import Path

from sysrs_ref.errors import InstanceError
from sysrs_ref.instance import Instance
from sysrs_ref.loaders._reading import read_failure
from sysrs_ref.loaders.arrays import read_npy
from sysrs_ref.scores import parse_decimal, shortened

__all__ = ["load_scores", "parse_score"]

LONG_COLUMNS = ("model", "query", "score")


def load_scores(path: str | PathLike[str]) -> Instance:
    """Load an :class:`~sysrs_ref.instance.Instance` from *path*, choosing the format by suffix.

    Raises :class:`~sysrs_ref.errors.InstanceError` for a missing or unreadable
    file, an unknown suffix, or invalid contents; the message names the file and,
    for CSV, the line and column.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "s.csv")
    ...     _ = open(p, "w").write("1,0,1\\n0,0,1\\n")
    ...     load_scores(p).means
    (Fraction(2, 3), Fraction(1, 3))
    """
    if not isinstance(path, (str, PathLike)):
        raise InstanceError(f"load_scores takes the path of a scores file, got {type(path).__name__}")
    file = Path(fspath(path))
    suffix = file.suffix.lower()
    if suffix not in (".npy", ".csv"):
        raise InstanceError(
            f"cannot read scores from '{file}': unsupported file type "
            f"'{file.suffix or '(none)'}' (use .npy, a .csv matrix, or a long .csv "
            "with columns model,query,score)"
        )
    try:
        if suffix == ".npy":
            return _load_npy(file)
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InstanceError(f"cannot read scores file '{file}': {read_failure(err)}") from None
    try:
        return _parse_csv(text)
    except InstanceError as err:
        raise InstanceError(f"{file}: {err}") from None


def _load_npy(file: Path) -> Instance:
    loaded = read_npy(file)  # the header is checked against the file's size before anything is allocated
    try:
        return Instance(loaded)
    except InstanceError as err:
        raise InstanceError(f"{file}: {err}") from None


def _parse_csv(text: str) -> Instance:
    reader = csv.reader(io.StringIO(text))
    try:
        lines = [(number, cells) for number, cells in enumerate(reader, start=1) if any(cell.strip() for cell in cells)]
    except csv.Error as err:  # a cell longer than the csv module's field limit
        raise InstanceError(f"line {reader.line_num}: not valid CSV ({err})") from None
    if not lines:
        raise InstanceError("the file holds no scores")
    header = [cell.strip().lower() for cell in lines[0][1]]
    if sorted(header) == sorted(LONG_COLUMNS):
        return _parse_long(lines[1:], header)
    if set(header) & set(LONG_COLUMNS):
        raise InstanceError(
            f"line {lines[0][0]}: a long .csv needs exactly the columns model, query, score; got " + ", ".join(header)
        )
    return _parse_matrix(lines)


def parse_score(text: str, where: str) -> Fraction:
    """A score written as a decimal (``"0.1"`` is 1/10), exactly; InstanceError naming *where* unless in [0, 1].

    >>> parse_score(" 0.25", "line 2")
    Fraction(1, 4)
    >>> parse_score("1.5", "line 3")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: line 3: score is 1.5, outside [0, 1]
    """
    try:
        value = parse_decimal(text)
    except ValueError as err:
        raise InstanceError(f"{where}: score {err}") from None
    if not 0 <= value <= 1:
        raise InstanceError(f"{where}: score is {shortened(text.strip())}, outside [0, 1]")
    return value


def _parse_matrix(lines: list[tuple[int, list[str]]]) -> Instance:
    width = len(lines[0][1])
    first = lines[0][1][0]
    try:
        parse_decimal(first)
    except ValueError:
        raise InstanceError(
            f"line {lines[0][0]}, column 1: {shortened(first.strip())!r} is not a score; a .csv matrix has no "
            "header and no row names (only numbers), a long .csv starts with the header "
            "model,query,score"
        ) from None
    rows: list[list[Fraction]] = []
    for model, (number, cells) in enumerate(lines):
        if len(cells) != width:
            raise InstanceError(
                f"line {number} has {len(cells)} columns but line {lines[0][0]} has {width}:"
                " a .csv matrix needs one score per query on every line"
            )
        rows.append(
            [
                parse_score(cell, f"line {number}, column {query + 1} (model {model}, query {query})")
                for query, cell in enumerate(cells)
            ]
        )
    return Instance(rows)


def _parse_long(lines: list[tuple[int, list[str]]], header: list[str]) -> Instance:
    column = {name: header.index(name) for name in LONG_COLUMNS}
    models: dict[str, int] = {}
    queries: dict[str, int] = {}
    cells: dict[tuple[int, int], tuple[Fraction, int]] = {}
    for number, row in lines:
        if len(row) != len(header):
            raise InstanceError(f"line {number} has {len(row)} columns, the header has {len(header)}")
        model_name = row[column["model"]].strip()
        query_name = row[column["query"]].strip()
        if not model_name or not query_name:
            raise InstanceError(f"line {number}: empty model or query name")
        where = f"line {number} (model '{model_name}', query '{query_name}')"
        score = parse_score(row[column["score"]], where)
        key = (models.setdefault(model_name, len(models)), queries.setdefault(query_name, len(queries)))
        if key in cells:
            raise InstanceError(
                f"model '{model_name}', query '{query_name}' appears twice "
                f"(lines {cells[key][1]} and {number}); keep one score per pair"
            )
        cells[key] = (score, number)
    if not cells:
        raise InstanceError("the long .csv has a header but no scores")
    model_names = list(models)
    query_names = list(queries)
    missing = len(models) * len(queries) - len(cells)
    if missing:
        for model, model_name in enumerate(model_names):
            for query, query_name in enumerate(query_names):
                if (model, query) not in cells:
                    raise InstanceError(
                        f"model '{model_name}' has no score for query '{query_name}' "
                        f"({missing} (model, query) pair(s) missing in all); every model "
                        "needs a score on every query"
                    )
    rows = [[cells[(model, query)][0] for query in range(len(query_names))] for model in range(len(model_names))]
    return Instance(rows, model_names=model_names, query_names=query_names)
