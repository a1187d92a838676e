"""Reading score matrices from files: ``.npy``, a ``.csv`` matrix, or a long ``.csv``.

Formats (docs/cli.md):

- ``.npy``: a 2-D numeric array, models x queries, read as
  ``numpy.load(path, allow_pickle=False)`` does, once its header is known to
  fit the file (:func:`~sysrs_ref.loaders.arrays.read_npy`; object arrays,
  pickles and headers declaring more data than the file holds are refused).
  When ``X.ids.json`` (the ids that ``convert`` writes beside ``X.npy``)
  exists, its ``models`` and ``queries`` become the instance's model and
  query names; it must be a JSON object of at most :data:`MAX_SIDECAR_BYTES`
  bytes whose ``models`` (``queries``) is a list of one non-empty, distinct
  string per row (column).
- ``.csv`` matrix: one line per model, one score per query, no header.
- long ``.csv``: a header line naming the columns ``model``, ``query`` and
  ``score`` (any order), then one line per (model, query) pair, with one
  cell per column (an id holding a comma quoted: ``"a,b"``). Models and
  queries are numbered in order of first appearance, and named by their
  ids; every pair must appear exactly once.

Scores in a ``.csv`` are read by :func:`~sysrs_ref.scores.parse_score_text`:
exact decimals (``0.1`` is 1/10) within its bounds, ``true``/``false``, and
inspect-ai's letters ``C``, ``P``, ``I``, ``N``.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from os import PathLike, fspath
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sysrs_ref._files import read_regular
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.errors import InstanceError
from sysrs_ref.instance import Instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import INPUT_FILE_BYTES, check_input_path, parse_json, read_failure, read_text
from sysrs_ref.loaders.arrays import read_npy
from sysrs_ref.scores import parse_decimal, parse_score_text, shortened

__all__ = ["MAX_SIDECAR_BYTES", "load_scores", "npy_instance", "parse_score", "read_sidecar"]

LONG_COLUMNS = ("model", "query", "score")

#: The largest ``X.ids.json`` read beside ``X.npy``: far more than the ids of any real benchmark.
MAX_SIDECAR_BYTES = 256 * 2**20


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
    check_input_path(file)
    suffix = file.suffix.lower()
    if suffix == ".npz":
        raise InstanceError(
            f"cannot read scores from '{file}': unsupported file type '.npz' here: an .npz holds random scores "
            "(samples, or a finite law: support and probabilities), which select, simulate, exact, hardness and "
            "reproduce read, but this needs one score per model and query (a 2-D .npy, a .csv matrix or a long .csv)"
        )
    if suffix not in (".npy", ".csv"):
        raise InstanceError(
            f"cannot read scores from '{file}': unsupported file type "
            f"'{file.suffix or '(none)'}' (use .npy, a .csv matrix, or a long .csv "
            "with columns model,query,score)"
        )
    try:
        if suffix == ".npy":
            return _load_npy(file)
        text = read_regular(file, INPUT_FILE_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InstanceError(f"cannot read scores file '{file}': {read_failure(err)}") from None
    try:
        return _parse_csv(text)
    except InstanceError as err:
        raise InstanceError(f"{file}: {err}") from None


def _load_npy(file: Path) -> Instance:
    return npy_instance(
        file, read_npy(file)
    )  # the header is checked against the file's size before anything is allocated


def npy_instance(file: Path, loaded: npt.NDArray[np.generic]) -> Instance:
    """The :class:`~sysrs_ref.instance.Instance` of the array *loaded* read from the ``.npy`` *file*, named by its sidecar.

    The model and query names come from ``X.ids.json`` (:func:`read_sidecar`).
    Raises :class:`~sysrs_ref.errors.InstanceError` naming *file* for an array
    that is not a valid score matrix; a 3-D array (K x L x E repeated scores,
    as ``convert --epochs all`` writes) is refused with how to use it: as
    samples of stochastic scores (:func:`~sysrs_ref.loaders.load_stochastic`),
    or reduced to one score per cell.

    >>> npy_instance(Path("m.npy"), np.array([[1.0, 0.0], [0.5, 0.5]])).means
    (Fraction(1, 2), Fraction(1, 2))
    >>> npy_instance(Path("e.npy"), np.zeros((2, 3, 5)))
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: e.npy holds 5 repeated scores for each of 2 models x 3 queries (a models x queries x epochs array, as convert --epochs all writes): select, simulate, exact, hardness and reproduce read it as samples of random scores, but this needs one score per model and query; convert again with --epochs mean (or first, median, ...), or reduce the last axis yourself
    """
    if loaded.ndim == 3:
        models, queries, epochs = loaded.shape
        raise InstanceError(
            f"{file} holds {epochs} repeated scores for each of {matrix_shape(models, queries)} (a models x "
            "queries x epochs array, as convert --epochs all writes): select, simulate, exact, hardness and "
            "reproduce read it as samples of random scores, but this needs one score per model and query; "
            "convert again with --epochs mean (or first, median, ...), or reduce the last axis yourself"
        )
    names = read_sidecar(file, loaded.shape) if loaded.ndim == 2 else None  # other shapes: Instance says why
    try:
        return Instance(loaded, model_names=names and names[0], query_names=names and names[1])
    except InstanceError as err:
        raise InstanceError(f"{file}: {err}") from None


def read_sidecar(matrix: Path, shape: tuple[int, ...]) -> tuple[list[str], list[str]] | None:
    """The model and query ids of ``X.ids.json`` beside the matrix *matrix* (``X.npy``) of *shape*, or None.

    None when there is no such file. Raises
    :class:`~sysrs_ref.errors.InstanceError` naming both files when it is
    larger than :data:`MAX_SIDECAR_BYTES`, not JSON, not an object, or when
    its ``models`` (``queries``) is not a list of one non-empty, distinct
    string per row (column) of the matrix.

    >>> import tempfile, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = Path(d, "m.ids.json").write_text(json.dumps({"models": ["a", "b"], "queries": ["q"]}))
    ...     read_sidecar(Path(d, "m.npy"), (2, 1))
    ...     read_sidecar(Path(d, "m.npy"), (3, 1))
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: ...m.ids.json names 2 models but ...m.npy has 3 rows; convert again or remove the sidecar
    """
    sidecar = matrix.with_suffix(".ids.json")
    try:
        size = sidecar.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InstanceError(f"cannot read {sidecar}, the ids of {matrix}: {read_failure(err)}") from None
    if size > MAX_SIDECAR_BYTES:
        raise InstanceError(
            f"{sidecar} is {size:,} bytes, more than the {MAX_SIDECAR_BYTES:,} an ids file of {matrix} may have; "
            "convert again or remove the sidecar"
        )
    found = parse_json(read_text(sidecar), f"{sidecar} (the ids of {matrix.name})")
    if not isinstance(found, dict):
        raise InstanceError(
            f"{sidecar} must be a JSON object with the lists 'models' and 'queries' (the ids convert writes "
            f"beside {matrix.name}), not a JSON {_json_kind(found)}; convert again or remove the sidecar"
        )
    return (
        _sidecar_ids(found, "models", shape[0], "rows", sidecar, matrix),
        _sidecar_ids(found, "queries", shape[1], "columns", sidecar, matrix),
    )


_SINGULAR = {"models": "model", "queries": "query", "rows": "row", "columns": "column"}


def _sidecar_ids(
    found: dict[str, JsonValue], key: str, count: int, along: str, sidecar: Path, matrix: Path
) -> list[str]:
    ids = found.get(key)
    advice = "convert again or remove the sidecar"
    if not isinstance(ids, list):
        lacks = "lacks" if ids is None else f"has a {_json_kind(ids)} as"
        raise InstanceError(f"{sidecar} {lacks} its '{key}' list (the ids of {matrix.name}'s {along}); {advice}")
    for position, item in enumerate(ids):
        if not isinstance(item, str) or not item:
            shown = "an empty string" if item == "" else f"a JSON {_json_kind(item)}"
            raise InstanceError(f"{sidecar}: '{key}' item {position} is {shown}, not an id; {advice}")
    if len(ids) != count:
        named = f"{len(ids)} {key if len(ids) != 1 else _SINGULAR[key]}"
        held = f"{count} {along if count != 1 else _SINGULAR[along]}"
        raise InstanceError(f"{sidecar} names {named} but {matrix} has {held}; {advice}")
    seen: dict[str, int] = {}
    for position, item in enumerate(ids):
        if item in seen:
            raise InstanceError(
                f"{sidecar}: '{key}' names {shortened(item)!r} twice (items {seen[item]} and {position}); {advice}"
            )
        seen[item] = position
    return [str(item) for item in ids]


def _json_kind(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "null" if value is None else "object"


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
    """A score written as text, exactly (:func:`~sysrs_ref.scores.parse_score_text`); InstanceError naming *where*.

    >>> parse_score(" 0.25", "line 2"), parse_score("True", "line 2"), parse_score("P", "line 2")
    (Fraction(1, 4), Fraction(1, 1), Fraction(1, 2))
    >>> parse_score("1.5", "line 3")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: line 3: score is 1.5, outside [0, 1]
    """
    try:
        return parse_score_text(text)
    except ValueError as err:
        raise InstanceError(f"{where}: score {err}") from None


def _parse_matrix(lines: list[tuple[int, list[str]]]) -> Instance:
    width = len(lines[0][1])
    first = lines[0][1][0]
    if not _spells_a_number_or_score(first):
        raise InstanceError(
            f"line {lines[0][0]}, column 1: {shortened(first.strip())!r} is not a score; a .csv matrix has no "
            "header and no row names (only numbers), a long .csv starts with the header "
            "model,query,score"
        )
    rows: list[list[Fraction]] = []
    for model, (number, cells) in enumerate(lines):
        if len(cells) != width:
            raise InstanceError(
                f"line {number} has {counted(len(cells), 'column')} but line {lines[0][0]} has {width}:"
                " a .csv matrix needs one score per query on every line"
            )
        rows.append(
            [
                parse_score(cell, f"line {number}, column {query + 1} (model {model}, query {query})")
                for query, cell in enumerate(cells)
            ]
        )
    return Instance(rows)


def _spells_a_number_or_score(cell: str) -> bool:
    """Whether *cell* opens a .csv matrix: a number (even one out of range, refused later, naming it) or a score."""
    for parse in (parse_decimal, parse_score_text):
        try:
            parse(cell)
        except ValueError:
            continue
        return True
    return False


def _parse_long(lines: list[tuple[int, list[str]]], header: list[str]) -> Instance:
    from sysrs_ref.loaders.long_csv import cell_count_problem  # here: reading a .npy needs no long .csv loader

    column = {name: header.index(name) for name in LONG_COLUMNS}
    models: dict[str, int] = {}
    queries: dict[str, int] = {}
    cells: dict[tuple[int, int], tuple[Fraction, int]] = {}
    for number, row in lines:
        if len(row) != len(header):
            raise InstanceError(f"line {number} {cell_count_problem(len(row), len(header))}")
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
