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
  model id, a run's filter names, its document counts and runs without
  samples (below), never for their aggregates, and listed in the report. A directory holding
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
  (lm-eval before 0.4.7) are named by the run's ``results_<timestamp>.json``
  beside the file (:mod:`sysrs_ref.loaders._lm_eval_results`): lm-eval wrote
  a document's rows once per filter in the order of the task's
  ``filter_list``, so the k-th row of a document is the k-th filter's, and a
  file with one row per document has the single filter the results file
  names (``get-answer``, say), else ``none``. Rows of several filters are
  never merged: without a results file to name them they are an error, as is
  a document with another number of rows than the filters named. The
  report's note on the file says where the names came from.
- **Results files renamed by hand** (``truthfulqa_gen_neo125_full.json``)
  are known by their content (``results`` beside ``config``, ``configs``,
  ``n-samples`` or ``versions``) and read as ``results_*.json`` are, for
  the model id, and for the ``n-samples`` of the run that scored as many
  documents. Every other ``.json`` or ``.jsonl`` file met is listed as left
  out, with the reason.
- **Limited and newer runs.** A run whose results file counts fewer scored
  documents than the task has (``n-samples``, ``--limit``) is read, its
  note says ``limited: n of N documents``, and so does a warning of the
  table (:attr:`~sysrs_ref.loaders.table.ResultsTable.warnings`); where no
  results file says so, a run that ``--reruns latest`` prefers to an older
  run of more documents is warned of too. A results file later than the run
  read, of the same model and with aggregates of the task but no samples
  file (a run without ``--log_samples``), is listed as left out, and the
  run read says it is not the latest.
- **Metric.** The metric may be written as lm-eval's ``results_*.json`` key,
  ``"METRIC,FILTER"`` (``"exact_match,get-answer"``): that is metric
  ``exact_match`` with filter ``get-answer``. A file in which no row has the
  metric is left out (and listed, with the metrics it has) when another file
  has it; when no file has it, it is an error. In a file that has it, each
  row of the chosen filter must have it, with a number or a boolean as value
  (``true`` is 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, get_args

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders._lm_eval_files import (
    RESULTS_NAME,
    SAMPLES_NAME,
    Run,
    in_order,
    latest,
    samples_runs,
    select_tasks,
)
from sysrs_ref.loaders._lm_eval_model import directory_model
from sysrs_ref.loaders._lm_eval_runs import limited_note, lower_is_better, newer_without_samples
from sysrs_ref.loaders._lm_eval_samples import (
    Read,
    cells,
    choose_filter,
    name_unlabelled_filters,
    read_run,
    with_metric,
)
from sysrs_ref.loaders._reading import PathsArg, describe_paths
from sysrs_ref.loaders.table import RERUNS_HINT, FileLog, ResultsTable, assemble, check_missing_policy

__all__ = ["RERUNS_MODES", "RESULTS_NAME", "SAMPLES_NAME", "RerunsMode", "load_lm_eval", "model_id_for"]

#: What ``--reruns`` accepts: for several runs of one (model, task), read the latest only, or every run.
RerunsMode = Literal["latest", "merge"]
RERUNS_MODES: tuple[RerunsMode, ...] = get_args(RerunsMode)


def load_lm_eval(
    paths: PathsArg,
    *,
    metric: str,
    filter: str | None = None,
    missing: str = "fail",
    reruns: str = "latest",
    tasks: Sequence[str] = (),
) -> ResultsTable:
    """Read lm-evaluation-harness ``samples_<task>_<timestamp>.jsonl`` files into a :class:`ResultsTable`.

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
    every_run, met = samples_runs(paths)
    runs = select_tasks(every_run, patterns, log, origin)
    models: dict[Path, str] = {}
    for run in runs:
        if run.path.parent not in models:
            models[run.path.parent] = directory_model(run.path.parent, log)
    kept = latest(runs, models, log) if mode == "latest" else [(run, "") for run in runs]
    kept = newer_without_samples(kept, every_run, models, log)
    superseded = _superseded(runs, [run for run, _ in kept], models)
    reads = with_metric(
        [
            _annotated(
                name_unlabelled_filters(read_run(run, models[run.path.parent], metric_name, "")),
                note,
                log,
                metric_name,
                superseded.get(run, []),
            )
            for run, note in kept
        ],
        metric_name,
        log,
    )
    chosen = [(read, choose_filter(read, chosen_filter, len(reads) > 1)) for read in reads]
    used_filters: list[str] = []
    for read, name in chosen:
        log.used(read.run.path, sum(1 for row in read.rows if row.filter == name), read.layout)
        if name not in used_filters:
            used_filters.append(name)
    settings = {"reruns": mode, "filter": filter_setting or f"{', '.join(used_filters)} (each file's only filter)"}
    if patterns:
        settings["tasks"] = ", ".join(patterns)
    return assemble(
        cells(chosen, metric_name),
        source="lm-eval",
        metric=metric_name,
        missing=missing,
        origin=origin,
        files=in_order(log, met, {run.path.parent for run in every_run}),
        settings=settings,
        conflict_hint=RERUNS_HINT if mode == "merge" else "",
    )


def _superseded(runs: list[Run], kept: list[Run], models: Mapping[Path, str]) -> dict[Run, list[Run]]:
    """For each run kept, the older runs of its model and task that ``--reruns latest`` left out."""
    left_out = [run for run in runs if run not in kept]
    return {
        run: [
            other
            for other in left_out
            if other.task == run.task and models[other.path.parent] == models[run.path.parent] and other.when < run.when
        ]
        for run in kept
    }


def _annotated(read: Read, rerun: str, log: FileLog, metric: str, superseded: list[Run]) -> Read:
    """*read* with its *rerun* note, and a note and a warning in *log* when its run scored only part of its task.

    Where no results file says so, an older run it *superseded* (``--reruns
    latest``) that scored more documents says it. A warning too when the run's
    results file says that *metric* is better lower.
    """
    documents = len({row.doc_id for row in read.rows})
    note = limited_note(read.run, documents)
    if note:
        log.warn(f"{read.run.path}: {note}: the table holds only those documents of the task for this model")
    for other in superseded if not note else []:
        try:
            scored = len({row.doc_id for row in read_run(other, read.model, metric, "").rows})
        except LoaderError:
            continue  # an older run that cannot be read is left out all the same
        if scored > documents:
            note = (
                f"scores {documents} documents of task '{read.run.task}' where the older run {other.path.name} "
                f"scored {scored}: a limited run (lm-eval --limit)? --reruns merge reads both"
            )
            log.warn(f"{read.run.path}: {note}")
            break
    lower = lower_is_better(read.run, documents, metric)
    if lower:
        log.warn(lower)
    return read._replace(layout="; ".join(part for part in (rerun, note, read.layout) if part))


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


def model_id_for(directory: Path) -> str:
    """The model id of the samples files in *directory* (the rule of the module docstring).

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with open(os.path.join(d, "results_2024-05-01T10-00-00.json"), "w") as f:
    ...         _ = f.write(json.dumps({"config": {"model_args": "pretrained=org/m,dtype=bfloat16"}}))
    ...     model_id_for(Path(d))
    'org/m'
    """
    return directory_model(directory, FileLog())
