"""Reading lm-evaluation-harness samples files and turning their rows into score cells.

:func:`read_run` reads one samples file (JSON lines, or one JSON array) into
a :class:`Read` of :class:`Row` (doc id, filter, the metric's raw value,
prompt and document hashes); :func:`with_metric` keeps the files having the
metric; :func:`choose_filter` picks each file's filter and
:func:`name_unlabelled_filters` names the filters of rows that name none, from the run's results file;
:func:`cells` yields the cells of the chosen rows, refusing a document whose
prompt or document differs between two runs of one model and a value that is
not one score. The rules are those of :mod:`sysrs_ref.loaders.lm_eval`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._lm_eval_files import Run
from sysrs_ref.loaders._lm_eval_results import results_file, run_results
from sysrs_ref.loaders._reading import parse_json, read_text
from sysrs_ref.loaders.table import Cell, FileLog

__all__ = ["Read", "Row", "cells", "choose_filter", "name_unlabelled_filters", "read_run", "with_metric"]

_ABSENT = object()
"""The value of a row that lacks the metric."""
_HASHES = ("prompt_hash", "doc_hash")


class Row(NamedTuple):
    """The parts of one sample that the loader uses."""

    where: str
    doc_id: str | int
    filter: str
    value: object
    """The metric's raw value, or :data:`_ABSENT`."""
    hashes: tuple[str | None, str | None]
    """``prompt_hash`` and ``doc_hash``, None where the row has none."""
    names: str
    """The metric names the row has, for messages ("" when the row has the metric)."""


class Read(NamedTuple):
    """A samples file as read: its rows, whether any row had a filter key, how it was laid out."""

    run: Run
    model: str
    rows: list[Row]
    labelled: bool
    layout: str


def read_run(run: Run, model: str, metric: str, note: str) -> Read:
    """The rows of one samples file, JSON lines or one JSON array."""
    text = read_text(run.path)
    layout = [note] if note else []
    if run.path.suffix == ".json":
        layout.append("a .json samples file (lm-eval's main branch of May-June 2024)")
    entries: list[tuple[str, JsonValue]] = []
    if text.lstrip().startswith("["):
        document = parse_json(text, str(run.path))
        if not isinstance(document, list):  # cannot happen (a text opening with [ is a list or no JSON): for mypy
            raise LoaderError(f"{run.path}: expected a JSON array of samples")
        entries = [(f"{run.path} entry {number}", row) for number, row in enumerate(document, start=1)]
        layout.append("one JSON array of samples (lm-eval of May 2024)")
    else:
        for number, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                where = f"{run.path} line {number}"
                entries.append((where, parse_json(line, where)))
    rows: list[Row] = []
    labelled = False
    for where, row in entries:
        if not isinstance(row, Mapping):
            raise LoaderError(f"{where}: expected a JSON object (one sample of lm-eval --log_samples)")
        doc_id = row.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)):
            raise LoaderError(f"{where}: no doc_id (an integer or a string); is this an lm-eval samples file?")
        row_filter = row.get("filter", "none")
        labelled = labelled or "filter" in row
        if not isinstance(row_filter, str):
            raise LoaderError(f"{where}: filter is {row_filter!r}, not a name")
        prompt_hash, doc_hash = (row.get(key) for key in _HASHES)
        hashes = (
            prompt_hash if isinstance(prompt_hash, str) else None,
            doc_hash if isinstance(doc_hash, str) else None,
        )
        value = row.get(metric, _ABSENT)
        rows.append(Row(where, doc_id, row_filter, value, hashes, "" if metric in row else _metric_names(row)))
    if not rows:
        raise LoaderError(f"{run.path}: holds no samples (the file is empty)")
    return Read(run, model, rows, labelled, "; ".join(layout))


def with_metric(reads: list[Read], metric: str, log: FileLog) -> list[Read]:
    """The files having the metric; the others logged as left out, or an error when no file has it."""
    having = [read for read in reads if any(row.value is not _ABSENT for row in read.rows)]
    if not having:
        first = reads[0].rows[0]
        more = ""
        if len(reads) > 1:
            others = sorted({name for read in reads for name in read.rows[0].names.split(", ")})
            more = f"; none of the {len(reads)} files read has it (they have {', '.join(others)})"
        raise LoaderError(f"{first.where}: metric '{metric}' not found; the line has {first.names}{more}")
    for read in reads:
        if read not in having:
            log.skipped(
                read.run.path,
                f"no sample has metric '{metric}' (task '{read.run.task}' has {read.rows[0].names}); other files "
                "have it",
            )
    return having


def choose_filter(read: Read, filter: str | None, several: bool) -> str:
    filters: list[str] = []
    for row in read.rows:
        if row.filter not in filters:
            filters.append(row.filter)
    path = read.run.path
    if filter is None:
        if len(filters) > 1:
            raise LoaderError(
                f"{path}: the samples come with {len(filters)} filters ({', '.join(filters)}); "
                "choose one with --filter NAME (filter=NAME)"
            )
        return filters[0]
    if filter in filters:
        return filter
    if not read.labelled:
        advice = (
            f"; the samples name no filter (lm-eval before 0.4.7) and no results_{read.run.timestamp}.json beside "
            "the file names it: put the run's results file beside it, or leave out --filter (and ',FILTER' of "
            "--metric)"
        )
    elif several:
        advice = f"; leave task '{read.run.task}' out with --task PATTERN, or convert it on its own"
    else:
        advice = "; leave out --filter for a file with a single filter" if len(filters) == 1 else ""
    raise LoaderError(f"{path}: no sample has filter '{filter}'; the file has {', '.join(filters)}{advice}")


def name_unlabelled_filters(read: Read) -> Read:
    """*read* with each row's filter named, for a file whose rows name none (lm-eval before 0.4.7).

    The names come from the run's ``results_<timestamp>.json`` beside the file
    (:mod:`sysrs_ref.loaders._lm_eval_results`); lm-eval wrote a document's
    rows once per filter in that order, so the k-th row of a document is the
    k-th filter's. Without names, a file whose documents repeat (rows of
    several filters) is refused rather than merged; one whose documents do not
    repeat has the single filter the results file names, else ``none``.
    """
    if read.labelled:
        return read
    run = read.run
    results = results_file(run.path.parent, run.timestamp)
    names = run_results(results, run.task).filters if results is not None else ()
    counts: dict[str | int, int] = {}
    for row in read.rows:
        counts[row.doc_id] = counts.get(row.doc_id, 0) + 1
    repeats = sorted(set(counts.values()))
    if repeats == [1] and len(names) <= 1:
        if not names or names[0] == "none":
            return read
        rows = [row._replace(filter=names[0]) for row in read.rows]
        note = (
            f"filter '{names[0]}' named by {results.name if results else ''} (the rows name none: lm-eval before 0.4.7)"
        )
        return read._replace(rows=rows, layout="; ".join(part for part in (read.layout, note) if part))
    per_doc = ", ".join(str(count) for count in repeats)
    if not names:
        raise LoaderError(
            f"{run.path}: the samples name no filter (lm-eval before 0.4.7 wrote none) and a document has {per_doc} "
            f"rows: rows of several filters of task '{run.task}', which are never merged; put the run's "
            f"results_{run.timestamp}.json beside the file (it names the filters, in the order of the rows) and "
            "convert again, or run the task with lm-eval 0.4.7 or later"
        )
    if repeats != [len(names)]:
        raise LoaderError(
            f"{run.path}: the samples name no filter (lm-eval before 0.4.7) and {results} names {len(names)} "
            f"({', '.join(names)}), but a document has {per_doc} rows instead of one per filter; is it the results "
            "file of this run?"
        )
    seen: dict[str | int, int] = {}
    rows = []
    for row in read.rows:
        position = seen.get(row.doc_id, 0)
        seen[row.doc_id] = position + 1
        rows.append(row._replace(filter=names[position]))
    assert results is not None
    note = (
        f"filters {', '.join(names)} named by {results.name}, a document's rows in that order (the rows name none: "
        "lm-eval before 0.4.7)"
    )
    return read._replace(rows=rows, layout="; ".join(part for part in (read.layout, note) if part))


def cells(chosen: list[tuple[Read, str]], metric: str) -> Iterator[Cell]:
    hashes: dict[tuple[str, str], tuple[tuple[str | None, str | None], str, Path]] = {}
    for read, name in chosen:
        for row in read.rows:
            if row.filter != name:
                continue
            query = f"{read.run.task}/{row.doc_id}"
            _check_same_prompt(hashes, read, row, query)
            yield Cell(read.model, query, _score(row, metric), row.where)


def _check_same_prompt(
    hashes: dict[tuple[str, str], tuple[tuple[str | None, str | None], str, Path]], read: Read, row: Row, query: str
) -> None:
    """Refuse a document whose prompt or document hash differs from another run's (file's) of the same model."""
    key = (read.model, query)
    seen = hashes.setdefault(key, (row.hashes, row.where, read.run.path))
    if seen[2] == read.run.path:
        return
    for index, name in enumerate(_HASHES):
        before, now = seen[0][index], row.hashes[index]
        if before is not None and now is not None and before != now:
            what = "prompts" if name == "prompt_hash" else "documents"
            raise LoaderError(
                f"mixed {what}: model '{read.model}', query '{query}' has {name} {before[:12]}... at {seen[1]} and "
                f"{now[:12]}... at {row.where}: two runs of task '{read.run.task}' with different {what} (another "
                "num_fewshot, template or dataset version), whose scores do not compare; use --reruns latest or "
                "remove one run"
            )


def _score(row: Row, metric: str) -> object:
    value = row.value
    if value is _ABSENT:
        raise LoaderError(f"{row.where}: metric '{metric}' not found; the line has {row.names}")
    if isinstance(value, (Mapping, list)):
        raise LoaderError(
            f"{row.where}: metric '{metric}' is a {'list' if isinstance(value, list) else 'JSON object'}, not one "
            "score: it is aggregated over the whole task, so it has no per-sample value; choose a per-sample "
            "metric such as acc or exact_match"
        )
    if value is None or isinstance(value, str):
        raise LoaderError(f"{row.where}: metric '{metric}' is {value!r}, not a number")
    return value


def _metric_names(row: Mapping[str, JsonValue]) -> str:
    listed = row.get("metrics")
    names = [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []
    if not names:
        names = [key for key, value in row.items() if isinstance(value, (int, float)) and key != "doc_id"]
    return ", ".join(names) if names else "no metric"
