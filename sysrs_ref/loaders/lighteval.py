"""Loading lighteval details and the Open LLM Leaderboard's details (parquet) into a score table.

lighteval (``EvaluationTracker.save``) writes a run's per-sample details as
``<output>/details/<model name>/<date>/details_<task>_<date>.parquet``, one
file per task, where ``<task>`` is ``suite|task|few-shots``
(``leaderboard|arc:challenge|25``, ``lighteval|gsm8k|0``) and ``<date>`` is
``datetime.now().isoformat()`` with ``:`` turned into ``-``; the model name
may hold a ``/`` (``details/org/model/...``). The Open LLM Leaderboard
published the same files, one dataset per model named
``details_<org>__<model>``, holding ``<date>/details_<task>_<date>.parquet``
(``details_harness|arc:challenge|25_2023-09-03T10-57-04.203304.parquet``).
Every file has one row per sample, its columns sorted by name, in one of two
layouts:

- lighteval 0.10 and later: ``doc`` (the sample: ``query``, ``choices``,
  ``gold_index``, ``id``, ``task_name``, ...), ``model_response`` and
  ``metric``, an object of metric name to the sample's score;
- lighteval before 0.10 and the leaderboard's files: ``example``,
  ``full_prompt``, ``predictions``, ``choices``, ``gold_index``, ...,
  and ``metrics``, the same object (or, where lighteval could not store it
  as a structure, its text, ``"{'acc': 1.0, 'acc_norm': 0.0}"``).

The rules this loader follows:

- **Files:** ``details_<task>_<date>.parquet`` (a directory is searched
  recursively, in sorted order); other files are not read. Parquet is read
  with pyarrow, the optional ``parquet`` extra; without it the loader says
  which extra to install.
- **Model id:** for a leaderboard dataset folder ``details_<org>__<model>``
  holding the ``<date>`` folder, ``org/model``; else the folders between
  ``details/`` and the ``<date>`` folder (``details/org/model/<date>/``
  gives ``org/model``); else the name of the folder holding the ``<date>``
  folder.
- **Query id:** ``"<task>/<id>"``: ``<id>`` is the sample's ``doc.id``
  where every row of the file has one (lighteval 0.10 and later), else the
  row's position (0, 1, ...: lighteval writes the samples in the task's
  order). Positions of two files of one task must stand for the same
  samples: where the rows have their text (``doc.query`` or ``example``),
  two files with different text at one position are an error.
- **Score:** the metric named *metric* of the row's ``metric`` (``metrics``)
  object; a boolean is 0 or 1, a number must lie in [0, 1]. A file none of
  whose rows has it is left out (and listed, with the metrics it has) when
  another file has it; when no file has it, that is an error.
- **Reruns** (``reruns``): several files of one (model, task) are several
  runs; ``"latest"`` (the default) reads the one of the latest ``<date>``
  and lists the others as left out, ``"merge"`` reads all (equal scores
  merge, different ones are refused).
- **Tasks** (``tasks``): fnmatch patterns matched against the task's full
  name (``leaderboard|arc:challenge|25``) and its middle part
  (``arc:challenge``); files of other tasks are left out and listed.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Sequence
from fnmatch import fnmatchcase
from os import PathLike
from pathlib import Path
from typing import Literal, NamedTuple, get_args

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders._parquet import parquet_columns, parquet_fields, parquet_rows
from sysrs_ref.loaders._python_parser import PARSER
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files
from sysrs_ref.loaders.table import RERUNS_HINT, Cell, FileLog, ResultsTable, assemble, check_missing_policy

__all__ = ["DETAILS_NAME", "RERUNS_MODES", "RerunsMode", "load_lighteval"]

#: ``details_<task>_<date>.parquet``, the date being ``isoformat()`` with ``:`` turned into ``-``.
DETAILS_NAME = re.compile(r"^details_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.parquet$")
#: What ``--reruns`` accepts.
RerunsMode = Literal["latest", "merge"]
RERUNS_MODES: tuple[RerunsMode, ...] = get_args(RerunsMode)

_LAYOUTS = (("metric", "doc"), ("metrics", "example"))
"""(scores column, sample column): lighteval 0.10 and later, then before 0.10 and the leaderboard."""


class _File(NamedTuple):
    path: Path
    model: str
    task: str
    date: str


def load_lighteval(
    paths: PathsArg,
    *,
    metric: str,
    missing: str = "fail",
    reruns: str = "latest",
    tasks: Sequence[str] = (),
) -> ResultsTable:
    """Read lighteval (or Open LLM Leaderboard) ``details_<task>_<date>.parquet`` files into a :class:`ResultsTable`.

    *paths* are files or directories (searched recursively); *metric* is a
    key of the rows' ``metric`` (``metrics``) object (``acc``, ``acc_norm``,
    ``em``); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`; *reruns* is ``latest`` (the
    default) or ``merge``; *tasks* are fnmatch patterns selecting tasks. The
    module docstring gives the rules; :attr:`ResultsTable.files` lists every
    details file, read or left out and why. Raises
    :class:`~sysrs_ref.errors.LoaderError` naming the file and row for
    anything it cannot use (and naming the ``parquet`` extra when pyarrow is
    not installed), :class:`~sysrs_ref.errors.ParameterError` for an unknown
    option value.

    >>> import tempfile, os
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("org/m1", [1.0, 0.0]), ("org/m2", [1.0, 1.0])):
    ...         folder = os.path.join(d, "details", model, "2025-01-02T10-00-00.5")
    ...         os.makedirs(folder)
    ...         rows = [{"doc": {"id": str(i), "query": f"q{i}"}, "metric": {"acc": v}} for i, v in enumerate(values)]
    ...         pq.write_table(pa.Table.from_pylist(rows), os.path.join(folder, "details_lighteval|arc:easy|0_2025-01-02T10-00-00.5.parquet"))
    ...     table = load_lighteval(d, metric="acc")
    >>> table.models, table.queries, table.scores.tolist()
    (('org/m1', 'org/m2'), ('lighteval|arc:easy|0/0', 'lighteval|arc:easy|0/1'), [[1.0, 0.0], [1.0, 1.0]])
    """
    check_missing_policy(missing)
    mode = _check_reruns(reruns)
    patterns = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    given = [paths] if isinstance(paths, (str, PathLike)) else list(paths)
    origin = describe_paths(given)
    found = find_files(given, _is_details, "lighteval details_<task>_<date>.parquet files")
    log = FileLog()
    files = [_named(path) for path in found]
    selected = _select(files, patterns, log, origin)
    kept = _latest(selected, log) if mode == "latest" else [(file, "") for file in selected]
    reads: list[tuple[_File, str, list[Cell], list[bytes], str]] = []
    having: set[str] = set()
    for file, note in kept:
        cells, digests, names, how = _read(file, metric)
        having |= names
        reads.append((file, note, cells, digests, how if cells else ", ".join(sorted(names)) or "no metric"))
    if not any(cells for _, _, cells, _, _ in reads):
        raise LoaderError(
            f"{origin}: no row has metric '{metric}'; the details have {', '.join(sorted(having)) or 'no metric'}; "
            "choose one with --metric NAME"
        )
    texts: dict[str, tuple[bytes, str]] = {}
    out: list[Cell] = []
    for file, note, cells, digests, how in reads:
        if not cells:
            log.skipped(file.path, f"no row has metric '{metric}' (task '{file.task}' has {how}); other files have it")
            continue
        log.used(file.path, len(cells), "; ".join(part for part in (note, how) if part))
        out.extend(cells)
        _check_same_samples(file, cells, digests, texts)
    settings: dict[str, str] = {"reruns": mode}
    if patterns:
        settings["tasks"] = ", ".join(patterns)
    entries = {use.path: use for use in log.entries()}
    ordered = FileLog()
    for path in found:
        use = entries[str(path)]
        if use.used:
            ordered.used(path, use.scores, use.note)
        else:
            ordered.skipped(path, use.note)
    return assemble(
        out,
        source="lighteval",
        metric=metric,
        missing=missing,
        origin=origin,
        files=ordered,
        settings=settings,
        conflict_hint=RERUNS_HINT if mode == "merge" else "",
    )


def _check_reruns(mode: str) -> RerunsMode:
    for known in RERUNS_MODES:
        if mode == known:
            return known
    raise ParameterError(f"unknown --reruns mode {mode!r}; use one of {', '.join(RERUNS_MODES)}")


def _is_details(path: Path) -> bool:
    return path.name.startswith("details_") and path.suffix == ".parquet"


def _named(path: Path) -> _File:
    match = DETAILS_NAME.match(path.name)
    if match is None:
        raise LoaderError(
            f"{path}: not a lighteval details file name; expected details_<task>_<date>.parquet with a date like "
            "2025-01-02T10-00-00.123456 (as lighteval writes it)"
        )
    return _File(path, _model(path), match.group("task"), match.group("date"))


def _model(path: Path) -> str:
    """The model id of a details file (module docstring, **Model id**)."""
    date_folder = path.parent.resolve()
    holder = date_folder.parent.name
    if holder.startswith("details_") and len(holder) > len("details_"):
        return holder[len("details_") :].replace("__", "/", 1)
    parts = date_folder.parts[:-1]
    if "details" in parts:
        inside = parts[len(parts) - parts[::-1].index("details") :]
        if inside:
            return "/".join(inside)
    return holder or date_folder.name


def _select(files: list[_File], patterns: tuple[str, ...], log: FileLog, origin: str) -> list[_File]:
    if not patterns:
        return files
    selected = []
    for file in files:
        middle = file.task.split("|")[1] if file.task.count("|") == 2 else file.task
        if any(fnmatchcase(file.task, pattern) or fnmatchcase(middle, pattern) for pattern in patterns):
            selected.append(file)
        else:
            log.skipped(file.path, f"task '{file.task}' is not selected by --task {' '.join(patterns)}")
    if not selected:
        found = ", ".join(sorted({file.task for file in files}))
        raise LoaderError(f"{origin}: --task {' '.join(patterns)} selects none of the tasks found: {found}")
    return selected


def _latest(files: list[_File], log: FileLog) -> list[tuple[_File, str]]:
    groups: dict[tuple[str, str], list[_File]] = {}
    for file in files:
        groups.setdefault((file.model, file.task), []).append(file)
    kept: list[tuple[_File, str]] = []
    for file in files:
        group = groups[(file.model, file.task)]
        newest = max(_when(other.date) for other in group)
        if _when(file.date) == newest:
            older = sum(1 for other in group if _when(other.date) != newest)
            note = f"the latest of {older + 1} runs of task '{file.task}' for model '{file.model}'" if older else ""
            kept.append((file, note))
        else:
            winner = next(other for other in group if _when(other.date) == newest)
            log.skipped(
                file.path,
                f"an older run of task '{file.task}' for model '{file.model}' (date {file.date}); --reruns latest "
                f"keeps {winner.path} (--reruns merge reads every run)",
            )
    return kept


def _when(date: str) -> tuple[str, int, int]:
    whole, _, digits = date.partition(".")
    return whole, int(digits or "0") * 10 ** (6 - min(len(digits), 6)), len(digits)


def _read(file: _File, metric: str) -> tuple[list[Cell], list[bytes], set[str], str]:
    """The file's cells for *metric* (empty when no row has it), each row's text digest, every metric name, and how.

    A file whose metric column is a struct of plain numbers is read field by
    field (:func:`~sysrs_ref.loaders._parquet.parquet_fields`), any other row
    by row; the two give the same cells, digests and names (tests/io).
    Linear in the rows either way.
    """
    columns = parquet_columns(file.path)
    layout = next(((scores, sample) for scores, sample in _LAYOUTS if scores in columns), None)
    if layout is None:
        raise LoaderError(
            f"{file.path}: no 'metric' or 'metrics' column (its columns are {', '.join(columns[:12])}); is this a "
            "lighteval details file?"
        )
    scores_column, sample_column = layout
    by_field = _by_field(file, metric, scores_column, sample_column if sample_column in columns else None)
    if by_field is not None:
        names, values, sample_ids, texts = by_field
    else:
        wanted = [scores_column] + ([sample_column] if sample_column in columns else [])
        rows = parquet_rows(file.path, wanted)
        names = set()
        values = []
        for number, row in enumerate(rows):
            scores = _scores(row.get(scores_column), f"{file.path} row {number}", scores_column)
            names.update(scores)
            values.append(scores.get(metric, _ABSENT))
        samples = [row.get(sample_column) for row in rows]
        sample_ids = [sample.get("id") if isinstance(sample, dict) else None for sample in samples]
        texts = [sample.get("query") if isinstance(sample, dict) else sample for sample in samples]
    if all(value is _ABSENT for value in values):
        return [], [], names, ""
    path = str(file.path)
    use_ids = sample_column == "doc" and _all_ids(sample_ids)
    cells = []
    for number, value in enumerate(values):
        if value is _ABSENT:
            raise LoaderError(
                f"{file.path} row {number}: no metric '{metric}' in this row, though other rows of the file have it"
            )
        if value is None or isinstance(value, (str, list, dict)):
            raise LoaderError(f"{file.path} row {number}: metric '{metric}' is {value!r}, not one score")
        query = f"{file.task}/{sample_ids[number] if use_ids else number}"
        cells.append(Cell(file.model, query, value, f"{path} row {number}"))
    digests = [hashlib.sha256(text.encode("utf-8")).digest() if isinstance(text, str) else b"" for text in texts]
    how = "query ids from doc.id" if use_ids else "query ids are the row positions"
    return cells, digests, names, how


_ABSENT = object()


def _by_field(
    file: _File, metric: str, scores_column: str, sample_column: str | None
) -> tuple[set[str], list[object], list[object], list[object]] | None:
    """The metric names, scores, sample ids and texts of a file of plain structs, read field by field; else None."""
    scores = parquet_fields(file.path, scores_column, [metric])
    if scores is None:
        return None
    values: list[object] = scores.values.get(metric, [_ABSENT] * scores.rows)
    sample_ids: list[object] = [None] * scores.rows
    texts: list[object] = [None] * scores.rows
    if sample_column == "doc":
        sample = parquet_fields(file.path, sample_column, ["id", "query"])
        if sample is None or sample.rows != scores.rows:
            return None
        sample_ids = sample.values.get("id", sample_ids)
        texts = sample.values.get("query", texts)
    elif sample_column is not None:
        return None  # the layout before 0.10: its metrics are text or objects of another shape; read by rows
    return set(scores.names), values, sample_ids, texts


def _scores(value: object, where: str, column: str) -> dict[str, object]:
    """The row's metric object (parsed from its text where lighteval stored it as text)."""
    if isinstance(value, str):
        try:
            with PARSER:  # one thread at a time in ast (_python_parser)
                value = ast.literal_eval(value)  # literals only: numbers, strings, dicts, lists, booleans, None
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise LoaderError(f"{where}: column '{column}' is text that is not a metric object") from None
    if not isinstance(value, dict):
        raise LoaderError(f"{where}: column '{column}' is not an object of metric name to score")
    return {str(key): item for key, item in value.items()}


def _all_ids(sample_ids: list[object]) -> bool:
    ids = []
    for sample_id in sample_ids:
        if not isinstance(sample_id, (str, int)) or isinstance(sample_id, bool) or sample_id == "":
            return False
        ids.append(str(sample_id))
    return len(set(ids)) == len(ids)


def _check_same_samples(
    file: _File, cells: list[Cell], digests: list[bytes], texts: dict[str, tuple[bytes, str]]
) -> None:
    """Refuse two files with different sample text under one query id (rows of other samples, or another order)."""
    for cell, digest in zip(cells, digests, strict=True):
        if not digest:
            continue
        seen = texts.setdefault(cell.query, (digest, cell.where))
        if seen[0] != digest:
            raise LoaderError(
                f"query '{cell.query}' is another sample at {seen[1]} and at {cell.where} (their texts differ): the "
                f"two files of task '{file.task}' do not hold the same samples in the same order; convert them apart"
            )
