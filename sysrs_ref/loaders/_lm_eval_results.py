"""What an lm-evaluation-harness ``results_<timestamp>.json`` says about the samples files of its run.

lm-eval writes a run's aggregates as ``results_<timestamp>.json`` beside its
``samples_<task>_<timestamp>.jsonl`` files, with the same ``<timestamp>``.
Four of its fields are read here, never its aggregate scores:

- the task's filters, in lm-eval's order: the ``name`` of each item of
  ``configs.<task>.filter_list``, else the ``FILTER`` of the task's
  ``METRIC,FILTER`` keys in ``results.<task>`` (``_stderr`` keys aside), in
  the order written. lm-eval writes a document's rows once per filter in that
  order, so before 0.4.7 (whose rows name no filter) the k-th row of a
  document is that of the k-th filter;
- ``n-samples.<task>``: ``{"original": N, "effective": n}``, the documents
  of the task and those scored (fewer under ``--limit``); else
  ``config.limit``;
- ``higher_is_better.<task>``: whether lm-eval ranks a metric's higher values
  better (a metric it says is better lower is not a score SySRs maximises);
- the tasks of ``results``: a results file later than every samples file of
  a task, with no samples file of its own for it, is a run made without
  ``--log_samples``.

A results file renamed by hand (``truthfulqa_gen_neo125_full.json``) is
known by its content (:func:`is_results_document`: an object with
``results`` and lm-eval's ``config``, ``configs``, ``n-samples`` or
``versions``); :func:`results_files` lists a directory's results files of
either name, and :func:`matching_results` finds the one of a run: the
``results_<timestamp>.json`` of its timestamp, else a renamed one whose
``n-samples`` counts as many documents of the task as the run scored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import read_json

__all__ = [
    "RunResults",
    "is_results_document",
    "matching_results",
    "results_file",
    "results_files",
    "results_timestamp",
    "run_results",
]

_TIMESTAMP = re.compile(r"^results_(?P<timestamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$")


@dataclass(frozen=True)
class RunResults:
    """What one results file says of one task."""

    path: Path
    filters: tuple[str, ...]
    """The task's filters in lm-eval's order (empty: the file does not say)."""
    documents: tuple[int, int] | None
    """(scored, of the task's documents) from ``n-samples``, or None."""
    limit: float | None
    """``config.limit`` (None: no limit, or not written)."""
    tasks: frozenset[str]
    """The tasks (and groups) of its ``results``."""
    higher_is_better: Mapping[str, bool]
    """``higher_is_better.<task>``: per metric, whether lm-eval ranks higher values better."""


def results_timestamp(path: Path) -> str | None:
    """The ``<timestamp>`` of ``results_<timestamp>.json``, or None for another name.

    >>> results_timestamp(Path("results_2024-05-01T10-00-00.5.json")), results_timestamp(Path("results.json"))
    ('2024-05-01T10-00-00.5', None)
    """
    match = _TIMESTAMP.match(path.name)
    return match.group("timestamp") if match else None


def results_file(directory: Path, timestamp: str) -> Path | None:
    """The ``results_<timestamp>.json`` of the run *timestamp* in *directory*, if there is one."""
    path = directory / f"results_{timestamp}.json"
    return path if path.is_file() else None


_RESULTS_KEYS = ("config", "configs", "n-samples", "versions")
_SAMPLES_PREFIX = "samples_"


def is_results_document(document: JsonValue) -> bool:
    """Whether *document* is an lm-eval results file's content: ``results`` beside its ``config`` or the like.

    >>> is_results_document({"results": {"arc_easy": {"acc,none": 0.5}}, "n-samples": {}}), is_results_document([])
    (True, False)
    """
    return (
        isinstance(document, Mapping)
        and isinstance(document.get("results"), Mapping)
        and any(key in document for key in _RESULTS_KEYS)
    )


def results_files(directory: Path) -> list[Path]:
    """*directory*'s lm-eval results files: ``results_*.json``, then the other ``.json`` files holding results."""
    named = sorted(path for path in directory.glob("results_*.json") if path.is_file())
    renamed = []
    for path in sorted(directory.glob("*.json")):
        if path in named or path.name.startswith(_SAMPLES_PREFIX) or not path.is_file():
            continue
        try:
            document = read_json(path)
        except LoaderError:
            continue  # not JSON: not a results file; the report lists it as left out
        if is_results_document(document):
            renamed.append(path)
    return named + renamed


def matching_results(directory: Path, timestamp: str, task: str, documents: int) -> RunResults | None:
    """What the results file of the run *timestamp* of *task* in *directory*, which scored *documents*, says.

    The ``results_<timestamp>.json`` when there is one; else the first results
    file named by hand whose ``n-samples`` of *task* counts *documents*
    scored; else None.
    """
    path = results_file(directory, timestamp)
    if path is not None:
        return run_results(path, task)
    for other in results_files(directory):
        if results_timestamp(other) is None:
            said = run_results(other, task)
            if said.documents is not None and said.documents[0] == documents:
                return said
    return None


def run_results(path: Path, task: str) -> RunResults:
    """What the results file *path* says of *task* (a :class:`LoaderError` naming it when it is not one)."""
    document = read_json(path)
    if not isinstance(document, Mapping):
        raise LoaderError(f"{path}: expected a JSON object (an lm-eval results file)")
    results = document.get("results")
    results = results if isinstance(results, Mapping) else {}
    return RunResults(
        path,
        _filters(document, results, task),
        _documents(document.get("n-samples"), task),
        _limit(document.get("config")),
        frozenset(str(name) for name in results),
        _higher(document.get("higher_is_better"), task),
    )


def _higher(listed: JsonValue, task: str) -> dict[str, bool]:
    entry = listed.get(task) if isinstance(listed, Mapping) else None
    if not isinstance(entry, Mapping):
        return {}
    return {str(metric): value for metric, value in entry.items() if isinstance(value, bool)}


def _filters(document: Mapping[str, JsonValue], results: Mapping[str, JsonValue], task: str) -> tuple[str, ...]:
    configs = document.get("configs")
    config = configs.get(task) if isinstance(configs, Mapping) else None
    listed = config.get("filter_list") if isinstance(config, Mapping) else None
    if isinstance(listed, list):
        names = [item.get("name") for item in listed if isinstance(item, Mapping)]
        if names and all(isinstance(name, str) and name for name in names):
            return tuple(dict.fromkeys(str(name) for name in names))
    aggregates = results.get(task)
    found: dict[str, None] = {}
    for key in aggregates if isinstance(aggregates, Mapping) else ():
        metric, comma, name = key.partition(",")
        if comma and name and not metric.endswith("_stderr"):
            found[name] = None
    return tuple(found)


def _documents(counts: JsonValue, task: str) -> tuple[int, int] | None:
    entry = counts.get(task) if isinstance(counts, Mapping) else None
    if not isinstance(entry, Mapping):
        return None
    original, effective = entry.get("original"), entry.get("effective")
    if isinstance(original, int) and isinstance(effective, int) and not isinstance(original, bool):
        return (effective, original)
    return None


def _limit(config: JsonValue) -> float | None:
    limit = config.get("limit") if isinstance(config, Mapping) else None
    return float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None
