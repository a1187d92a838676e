"""What the report says of an lm-evaluation-harness run read: limited (``--limit``), or older than a run without samples.

:func:`limited_note` reads the ``n-samples`` of the run's ``results_<timestamp>.json``
(``{"original": N, "effective": n}``), else its ``config.limit``, or the
``n-samples`` of a results file renamed by hand that counts as many documents
as the run scored, and says when the run scored fewer documents than its task
has. :func:`newer_without_samples`
finds, for each run read, a later ``results_<timestamp>.json`` of the same model
with aggregates of the task but no samples file for it (a run made without
``--log_samples``): the run read is then not the model's latest, which both the
run's note and the results file's entry say. The rules are those of
:mod:`sysrs_ref.loaders.lm_eval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._lm_eval_files import Run
from sysrs_ref.loaders._lm_eval_results import matching_results, results_timestamp, run_results
from sysrs_ref.loaders.table import FileLog

__all__ = ["limited_note", "lower_is_better", "newer_without_samples"]


def _when(timestamp: str) -> tuple[str, Fraction]:
    whole, _, digits = timestamp.partition(".")
    return whole, Fraction(int(digits), 10 ** len(digits)) if digits else Fraction(0)


def limited_note(run: Run, documents: int) -> str:
    """ "limited: n of N documents (lm-eval --limit)" when the results file of the run says so, else "".

    *documents* is how many documents the run's samples file scored.
    """
    try:
        results = matching_results(run.path.parent, run.timestamp, run.task, documents)
    except LoaderError:
        return ""  # directory_model has read it already; a file it could not read has stopped the conversion
    if results is None:
        return ""
    path = results.path
    if results.documents is not None:
        scored, total = results.documents
        if scored < total:
            return f"limited: {scored} of {total} documents of task '{run.task}' (lm-eval --limit, {path.name})"
        return ""
    if results.limit is not None:
        shown = int(results.limit) if results.limit == int(results.limit) else results.limit
        return f"limited: lm-eval --limit {shown} ({path.name} config.limit)"
    return ""


def lower_is_better(run: Run, documents: int, metric: str) -> str:
    """What the run's results file says when lm-eval ranks *metric* better lower (``higher_is_better``), else ""."""
    try:
        results = matching_results(run.path.parent, run.timestamp, run.task, documents)
    except LoaderError:
        return ""
    if results is None or results.higher_is_better.get(metric) is not False:
        return ""
    return (
        f"lm-eval ranks metric '{metric}' of task '{run.task}' better lower ({results.path.name} higher_is_better); "
        "SySRs chooses the model of the highest mean: convert a metric that is better higher"
    )


def newer_without_samples(
    kept: list[tuple[Run, str]], every_run: list[Run], models: Mapping[Path, str], log: FileLog
) -> list[tuple[Run, str]]:
    """*kept* with a note on each run older than a results file of its model and task that has no samples."""
    with_samples = {(run.path.parent, run.task, run.timestamp) for run in every_run}
    results: dict[str, list[tuple[tuple[str, Fraction], Path]]] = {}
    for directory, model in models.items():
        for path in directory.glob("results_*.json"):
            timestamp = results_timestamp(path)
            if timestamp is not None:
                results.setdefault(model, []).append((_when(timestamp), path))
    newer_tasks: dict[Path, list[str]] = {}
    out: list[tuple[Run, str]] = []
    for run, note in kept:
        model = models[run.path.parent]
        later = sorted(
            (when, path)
            for when, path in results.get(model, [])
            if when > run.when and (path.parent, run.task, results_timestamp(path)) not in with_samples
        )
        newest = next((path for _, path in reversed(later) if run.task in run_results(path, run.task).tasks), None)
        if newest is None:
            out.append((run, note))
            continue
        newer_tasks.setdefault(newest, []).append(run.task)
        said = (
            f"not the latest run of task '{run.task}' for model '{model}': {newest} is later but has aggregates only "
            "(lm-eval ran without --log_samples), so this earlier run's samples are read"
        )
        out.append((run, "; ".join(part for part in (note, said) if part)))
    for path, tasks in newer_tasks.items():
        listed = ", ".join(f"'{task}'" for task in dict.fromkeys(tasks))
        log.skipped(
            path,
            f"the latest run of model '{models.get(path.parent, path.parent.name)}' for "
            f"task(s) {listed} has no samples (run without --log_samples): its scores are not in the table, which "
            "reads an earlier run's samples; run it again with --log_samples to convert it",
        )
    return out
