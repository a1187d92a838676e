"""Loading lm-evaluation-harness per-sample logs (``--log_samples``) into a score table.

With ``--output_path OUT --log_samples`` the harness writes, in a directory
per model under ``OUT``, a ``results_<timestamp>.json`` (the aggregates) and
one ``samples_<task>_<timestamp>.jsonl`` per task: one JSON object per line,
per document and per filter, with ``doc_id``, ``filter`` (``"none"``,
``"strict-match"``, ``"flexible-extract"``, ...), ``metrics`` (the metric
names), ``doc_hash``, ``prompt_hash`` and ``target_hash`` (SHA-256 of the
document, of the prompt and of the target), and each metric's value as a
top-level key (``"acc": 1.0``). A new run of the same model writes new files
with a new timestamp beside the old ones.

The rules this loader follows:

- **Files.** ``samples_<task>_<timestamp>.jsonl`` files are read (a
  directory is searched recursively), and ``samples_<task>_<timestamp>.json``
  too: lm-eval's main branch named them so from May to mid-June 2024 (0.4.3
  and later write ``.jsonl``). The content may be JSON lines (lm-eval since
  June 2024) or one JSON array of samples (lm-eval of May 2024, whatever the
  name ends with). ``<timestamp>`` is the harness's
  ``datetime.now().isoformat()`` with ``:`` replaced by ``-``:
  ``YYYY-MM-DDTHH-MM-SS`` with an optional fraction of a second
  (``2024-05-01T10-00-00.123456``). The task is everything between
  ``samples_`` and ``_<timestamp>`` (it may contain underscores:
  ``samples_gsm8k_cot_2024-05-01T10-00-00.jsonl`` is task ``gsm8k_cot``).
  The ``results_*.json`` files are not score inputs: they are read for the
  model id only, and listed in the report that way. A directory holding
  ``results_*.json`` but no samples files is an error: the run needs
  ``--log_samples``.
- **Query id:** ``"<task>/<doc_id>"``.
- **Model id**, from the samples file's directory: the ``model_name`` of a
  ``results_*.json`` there; else the ``pretrained=`` (then ``model=``)
  argument of that file's ``config.model_args``; else the directory's name.
  Two results files in one directory naming different models are an error.
- **Tasks** (``tasks``): fnmatch patterns (``*``, ``?``, ``[...]``, case
  sensitive) matched against the task name of the file name; a file whose
  task matches none is left out (and listed so); an empty tuple reads every
  task; patterns matching no task at all are an error listing the tasks.
- **Reruns** (``reruns``): several samples files of one (model, task) are
  several runs. ``"latest"`` (the default, as lm-eval itself treats its
  output folder) reads only the file with the latest timestamp and lists
  the older ones as left out; files with the very same timestamp (one run
  copied to two places) are all read, as under ``"merge"``. ``"merge"``
  reads every run: a document scored in two runs must have the same
  ``prompt_hash`` and ``doc_hash`` in both (where both have them: lm-eval
  writes them since May 2024) and the same score (identical cells are
  merged and counted as duplicates); different prompts or documents are an
  error, whatever the scores, since scores from different prompts do not
  compare.
- **Filter.** Rows repeat once per filter (and a document may repeat within
  a file). With ``filter=None`` a file must have exactly one filter; with a
  filter given, every file read must have it. Rows without a ``filter`` key
  (lm-eval before 0.4.7) are filter ``"none"``; in such a file, one
  document with two different scores means rows of several unnamed filters,
  which is an error.
- **Metric.** The metric may be written as lm-eval's ``results_*.json`` key,
  ``"METRIC,FILTER"`` (``"exact_match,get-answer"``): that is metric
  ``exact_match`` with filter ``get-answer``. A file in which no row has the
  metric is left out (and listed, with the metrics it has) when another file
  has it; when no file has it, it is an error. In a file that has it, each
  row of the chosen filter must have it, with a number or a boolean as value
  (``true`` is 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from fractions import Fraction
from os import PathLike, fspath
from pathlib import Path
from typing import Literal, NamedTuple, get_args

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, parse_json, read_json, read_text
from sysrs_ref.loaders.table import Cell, FileLog, ScoreTable, assemble, check_missing_policy

__all__ = ["RERUNS_MODES", "RESULTS_NAME", "SAMPLES_NAME", "RerunsMode", "load_lm_eval", "model_id_for"]

#: ``samples_<task>_<timestamp>.jsonl`` (or ``.json``), the timestamp being ``isoformat()`` with ``:`` turned into ``-``.
SAMPLES_NAME = re.compile(
    r"^samples_(?P<task>.+)_(?P<timestamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.(?P<fraction>\d+))?)\.jsonl?$"
)
#: ``results_<timestamp>.json``, lm-eval's aggregates of one run.
RESULTS_NAME = re.compile(r"^results_.*\.json$")

#: What ``--reruns`` accepts: for several runs of one (model, task), read the latest only, or every run.
RerunsMode = Literal["latest", "merge"]
RERUNS_MODES: tuple[RerunsMode, ...] = get_args(RerunsMode)

_MODEL_ARG_KEYS = ("pretrained", "model")
_ABSENT = object()
"""The value of a row that lacks the metric."""
_HASHES = ("prompt_hash", "doc_hash")


class _Run(NamedTuple):
    """One samples file: where, which task, when, and (once known) whose."""

    path: Path
    task: str
    timestamp: str
    when: tuple[str, Fraction]
    """The timestamp as an ordered key: the part to the second, then the fraction of a second."""


class _Row(NamedTuple):
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


class _Read(NamedTuple):
    """A samples file as read: its rows, whether any row had a filter key, how it was laid out."""

    run: _Run
    model: str
    rows: list[_Row]
    labelled: bool
    layout: str


def load_lm_eval(
    paths: PathsArg,
    *,
    metric: str,
    filter: str | None = None,
    missing: str = "fail",
    reruns: str = "latest",
    tasks: Sequence[str] = (),
) -> ScoreTable:
    """Read lm-evaluation-harness ``samples_<task>_<timestamp>.jsonl`` files into a :class:`ScoreTable`.

    *paths* are files or directories (searched recursively for
    ``samples_*.jsonl`` and ``samples_*.json``, in sorted order); *metric* is
    the per-sample metric (``"acc"``, ``"exact_match"``), or lm-eval's
    ``"METRIC,FILTER"`` key of ``results_*.json`` (``"exact_match,get-answer"``:
    then *filter* must be None or the same filter); *filter* picks one of a
    task's filters (needed when a file has several); *missing* is the
    missing-cell policy of :func:`~sysrs_ref.loaders.table.assemble`;
    *reruns* (one of :data:`RERUNS_MODES`, default ``"latest"``) says what to
    do with several runs of one model and task; *tasks* are fnmatch patterns
    selecting tasks by name (empty: every task). The module docstring gives
    the rules. The table's ``files`` lists every samples file met (read, with
    how many scores, or left out and why) and every ``results_*.json`` read
    for a model id; its ``settings`` record ``reruns``, ``filter`` and, when
    given, ``tasks``. Raises :class:`~sysrs_ref.errors.ParameterError` for an
    unknown *reruns* or a *metric* and *filter* naming different filters,
    and :class:`~sysrs_ref.errors.LoaderError` naming the file and line for
    anything it cannot use.

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("m1", [1, 0]), ("m2", [1, 1])):
    ...         os.mkdir(os.path.join(d, model))
    ...         with open(os.path.join(d, model, "samples_arc_easy_2024-05-01T10-00-00.jsonl"), "w") as f:
    ...             for doc_id, acc in enumerate(values):
    ...                 _ = f.write(json.dumps({"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": acc}) + "\\n")
    ...     table = load_lm_eval([d], metric="acc,none")
    >>> table.models, table.queries, table.scores.tolist()
    (('m1', 'm2'), ('arc_easy/0', 'arc_easy/1'), [[1.0, 0.0], [1.0, 1.0]])
    >>> dict(table.settings)
    {'reruns': 'latest', 'filter': "none (from --metric 'acc,none')"}
    """
    check_missing_policy(missing)
    mode = _check_reruns(reruns)
    metric_name, chosen_filter, filter_setting = _split_metric(metric, filter)
    patterns = tuple(tasks)
    origin = describe_paths(paths)
    log = FileLog()
    every_run, met = _samples_runs(paths)
    runs = _select_tasks(every_run, patterns, log, origin)
    models: dict[Path, str] = {}
    for run in runs:
        if run.path.parent not in models:
            models[run.path.parent] = _directory_model(run.path.parent, log)
    kept = _latest(runs, models, log) if mode == "latest" else [(run, "") for run in runs]
    reads = _with_metric(
        [_read_run(run, models[run.path.parent], metric_name, note) for run, note in kept], metric_name, log
    )
    chosen = [(read, _choose_filter(read, chosen_filter, len(reads) > 1)) for read in reads]
    used_filters: list[str] = []
    for read, name in chosen:
        _check_unlabelled_filters(read, name, metric_name)
        log.used(read.run.path, sum(1 for row in read.rows if row.filter == name), read.layout)
        if name not in used_filters:
            used_filters.append(name)
    settings = {"reruns": mode, "filter": filter_setting or f"{', '.join(used_filters)} (each file's only filter)"}
    if patterns:
        settings["tasks"] = ", ".join(patterns)
    return assemble(
        _cells(chosen, metric_name),
        source="lm-eval",
        metric=metric_name,
        missing=missing,
        origin=origin,
        files=_in_order(log, met, {run.path.parent for run in every_run}),
        settings=settings,
    )


def _in_order(log: FileLog, met: list[Path], read_from: set[Path]) -> FileLog:
    """*log* in the order the files were met, with every results file not read for a model id said so."""
    uses = {use.path: use for use in log.entries()}
    ordered = FileLog()
    for path in met:
        use = uses.pop(str(path), None)
        if use is None:
            ordered.skipped(
                path,
                "not read: every samples file beside it is left out"
                if path.parent in read_from
                else "lm-eval aggregates with no samples_*.jsonl beside them, so this model is not in the table; "
                "run lm-eval with --log_samples for it",
            )
        elif use.used:
            ordered.used(path, use.scores, use.note)
        else:
            ordered.skipped(path, use.note)
    for use in uses.values():  # a results file reached another way (a symbolic link, say): after the others
        if use.used:
            ordered.used(use.path, use.scores, use.note)
        else:
            ordered.skipped(use.path, use.note)
    return ordered


def _check_reruns(reruns: str) -> RerunsMode:
    for known in RERUNS_MODES:
        if reruns == known:
            return known
    raise ParameterError(f"unknown --reruns mode {reruns!r}; use one of {', '.join(RERUNS_MODES)}")


def _split_metric(metric: str, filter: str | None) -> tuple[str, str | None, str | None]:
    """(metric, filter, how the filter was chosen) from the options, reading ``METRIC,FILTER`` as results.json writes it."""
    if "," not in metric:
        return metric, filter, filter
    name, _, named_filter = metric.partition(",")
    name, named_filter = name.strip(), named_filter.strip()
    if not name or not named_filter or "," in named_filter:
        raise ParameterError(
            f"--metric {metric!r} is not a metric name; write the per-sample metric and the filter apart: "
            "--metric exact_match --filter strict-match"
        )
    if filter is not None and filter != named_filter:
        raise ParameterError(
            f"--metric {metric!r} names filter '{named_filter}' (lm-eval's results.json key METRIC,FILTER), but "
            f"--filter is '{filter}'; write --metric {name} --filter {filter} (or --filter {named_filter})"
        )
    return name, named_filter, f"{named_filter} (from --metric {metric!r})"


def _is_samples_file(path: Path) -> bool:
    return path.name.startswith("samples_") and path.name.endswith((".jsonl", ".json"))


def _is_results_file(path: Path) -> bool:
    return RESULTS_NAME.match(path.name) is not None


def _given(paths: PathsArg) -> list[Path]:
    if isinstance(paths, (str, PathLike)):
        return [Path(fspath(paths))]
    return [Path(fspath(path)) for path in paths]


def _samples_runs(paths: PathsArg) -> tuple[list[_Run], list[Path]]:
    """Every samples file that *paths* stand for, named, and every file met (results files too), in order.

    Refuses a folder of aggregates only, and inputs naming no samples file.
    """
    given = _given(paths)
    what = "lm-eval samples_<task>_<timestamp>.jsonl files"
    if not given:
        find_files(given, _is_samples_file, what)  # raises: no input paths
    runs: dict[Path, _Run] = {}
    met: dict[Path, None] = {}
    for path in given:
        if path.is_dir():
            found = [
                inside
                for inside in sorted(path.rglob("*"), key=lambda inside: inside.relative_to(path).parts)
                if inside.is_file() and (_is_samples_file(inside) or _is_results_file(inside))
            ]
            if found and not any(_is_samples_file(inside) for inside in found):
                raise LoaderError(
                    f"{path}: holds lm-eval results_*.json (aggregates) but no samples_*.jsonl: run lm-eval with "
                    "--log_samples (per-sample scores are needed)"
                )
            if not found:
                find_files([path], _is_samples_file, what)  # raises: nothing found in this directory
        else:
            find_files([path], _is_samples_file, what)  # raises for a path that is missing or not a file
            found = [*sorted(path.parent.glob("results_*.json")), path]
        for inside in found:
            met.setdefault(inside, None)
            if _is_samples_file(inside) and inside not in runs:
                runs[inside] = _named_run(inside)
    explicit = [path for path in given if path.is_file() and not _is_results_file(path)]
    for path in explicit:
        if path not in runs:
            runs[path] = _named_run(path)  # raises: not a samples file name
    if not runs:
        raise LoaderError(
            f"{describe_paths(paths)}: lm-eval results files (aggregates) and no samples_*.jsonl among the inputs: "
            "run lm-eval with --log_samples (per-sample scores are needed) and convert the samples files"
        )
    return list(runs.values()), list(met)


def _named_run(path: Path) -> _Run:
    match = SAMPLES_NAME.match(path.name)
    if match is None:
        raise LoaderError(
            f"{path}: not an lm-eval samples file name; expected samples_<task>_<timestamp>.jsonl with a "
            "timestamp like 2024-05-01T10-00-00.123456 (as lm-eval --log_samples writes it)"
        )
    timestamp = match.group("timestamp")
    digits = match.group("fraction") or ""
    fraction = Fraction(int(digits), 10 ** len(digits)) if digits else Fraction(0)
    return _Run(path, match.group("task"), timestamp, (timestamp[:19], fraction))


def _select_tasks(runs: list[_Run], patterns: tuple[str, ...], log: FileLog, origin: str) -> list[_Run]:
    if not patterns:
        return runs
    selected = [run for run in runs if any(fnmatchcase(run.task, pattern) for pattern in patterns)]
    if not selected:
        found = sorted({run.task for run in runs})
        raise LoaderError(
            f"{origin}: --task {', '.join(patterns)} selects none of the tasks found: {', '.join(found)}; "
            "patterns match the whole task name (use * for any characters: gsm8k*)"
        )
    for run in runs:
        if run not in selected:
            log.skipped(run.path, f"task '{run.task}' is not selected by --task {', '.join(patterns)}")
    return selected


def _latest(runs: list[_Run], models: Mapping[Path, str], log: FileLog) -> list[tuple[_Run, str]]:
    """The latest run of each (model, task) (every run of the latest timestamp); the older ones logged as left out."""
    groups: dict[tuple[str, str], list[_Run]] = {}
    for run in runs:
        groups.setdefault((models[run.path.parent], run.task), []).append(run)
    kept: list[tuple[_Run, str]] = []
    for run in runs:
        model = models[run.path.parent]
        group = groups[(model, run.task)]
        newest = max(other.when for other in group)
        if run.when == newest:
            older = sum(1 for other in group if other.when != newest)
            note = f"the latest of {older + 1} runs of task '{run.task}' for model '{model}'" if older else ""
            kept.append((run, note))
        else:
            winner = next(other for other in group if other.when == newest)
            log.skipped(
                run.path,
                f"an older run of task '{run.task}' for model '{model}' (timestamp {run.timestamp}); --reruns latest "
                f"keeps {winner.path} (--reruns merge reads every run)",
            )
    return kept


def _read_run(run: _Run, model: str, metric: str, note: str) -> _Read:
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
    rows: list[_Row] = []
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
        rows.append(_Row(where, doc_id, row_filter, value, hashes, "" if metric in row else _metric_names(row)))
    if not rows:
        raise LoaderError(f"{run.path}: holds no samples (the file is empty)")
    return _Read(run, model, rows, labelled, "; ".join(layout))


def _with_metric(reads: list[_Read], metric: str, log: FileLog) -> list[_Read]:
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


def _choose_filter(read: _Read, filter: str | None, several: bool) -> str:
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
    if several:
        advice = f"; leave task '{read.run.task}' out with --task PATTERN, or convert it on its own"
    else:
        advice = "; leave out --filter for a file with a single filter" if len(filters) == 1 else ""
    raise LoaderError(f"{path}: no sample has filter '{filter}'; the file has {', '.join(filters)}{advice}")


def _check_unlabelled_filters(read: _Read, chosen: str, metric: str) -> None:
    """Refuse a file without filter keys in which one document has two scores: rows of several unnamed filters."""
    if read.labelled:
        return
    first: dict[str | int, _Row] = {}
    for row in read.rows:
        if row.filter != chosen or row.value is _ABSENT:
            continue
        seen = first.setdefault(row.doc_id, row)
        if seen.value != row.value:
            raise LoaderError(
                f"{row.where}: doc {row.doc_id} again, with {metric} {row.value!r} ({seen.value!r} at {seen.where}); "
                "the samples name no filter (lm-eval before 0.4.7 did not write one), so these are rows of several "
                f"filters of task '{read.run.task}' that cannot be told apart: run the task again with lm-eval 0.4.7 "
                "or later"
            )


def _cells(chosen: list[tuple[_Read, str]], metric: str) -> Iterator[Cell]:
    hashes: dict[tuple[str, str], tuple[tuple[str | None, str | None], str, Path]] = {}
    for read, name in chosen:
        for row in read.rows:
            if row.filter != name:
                continue
            query = f"{read.run.task}/{row.doc_id}"
            _check_same_prompt(hashes, read, row, query)
            yield Cell(read.model, query, _score(row, metric), row.where)


def _check_same_prompt(
    hashes: dict[tuple[str, str], tuple[tuple[str | None, str | None], str, Path]], read: _Read, row: _Row, query: str
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


def _score(row: _Row, metric: str) -> object:
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


def model_id_for(directory: Path) -> str:
    """The model id of the samples files in *directory* (the rule of the module docstring).

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with open(os.path.join(d, "results_2024-05-01T10-00-00.json"), "w") as f:
    ...         _ = f.write(json.dumps({"config": {"model_args": "pretrained=org/m,dtype=bfloat16"}}))
    ...     model_id_for(Path(d))
    'org/m'
    """
    return _directory_model(directory, FileLog())


def _directory_model(directory: Path, log: FileLog) -> str:
    """The model id of *directory*'s samples files; each results file read is logged with what it gave."""
    found: dict[str, Path] = {}
    named: list[tuple[Path, str | None, str]] = []
    for path in sorted(directory.glob("results_*.json")):
        document = read_json(path)
        if not isinstance(document, Mapping):
            raise LoaderError(f"{path}: expected a JSON object (an lm-eval results file)")
        name, how = _model_from_results(document)
        named.append((path, name, how))
        if name is not None:
            found.setdefault(name, path)
    if len(found) > 1:
        listed = ", ".join(f"'{name}' ({path.name})" for name, path in found.items())
        raise LoaderError(
            f"{directory}: its results files name different models: {listed}; keep each model's samples in a "
            "directory of its own"
        )
    model = next(iter(found)) if found else (directory.name or directory.resolve().name)
    for path, name, how in named:
        if name is not None:
            log.used(path, 0, f"the model id '{name}' (its {how}); its aggregate scores are not read")
        else:
            log.skipped(
                path,
                "names no model (no model_name, no pretrained= or model= in config.model_args) and its aggregate "
                "scores are not read",
            )
    return model


def _model_from_results(document: Mapping[str, JsonValue]) -> tuple[str | None, str]:
    name = document.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip(), "model_name"
    config = document.get("config")
    args = config.get("model_args") if isinstance(config, Mapping) else None
    if isinstance(args, Mapping):
        for key in _MODEL_ARG_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip(), f"config.model_args {key}="
    elif isinstance(args, str):
        pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
        for key in _MODEL_ARG_KEYS:
            if pairs.get(key, "").strip():
                return pairs[key].strip(), f"config.model_args {key}="
    return None, ""
