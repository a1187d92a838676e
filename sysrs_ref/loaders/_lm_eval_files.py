"""Finding and selecting lm-evaluation-harness samples files: names, tasks, the latest run, the report's order.

:func:`samples_runs` finds every ``samples_<task>_<timestamp>.jsonl`` (or
``.json``) file that the inputs stand for, named by :data:`SAMPLES_NAME` into
a :class:`Run`, and every ``results_*.json`` (:data:`RESULTS_NAME`) met beside
them; :func:`select_tasks` keeps the tasks that ``--task`` patterns select;
:func:`latest` applies ``--reruns latest`` (the latest run of each model and
task); :func:`in_order` puts the report's file entries in the order the files
were met. The rules are those of :mod:`sysrs_ref.loaders.lm_eval`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from fractions import Fraction
from os import PathLike, fspath
from pathlib import Path
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files
from sysrs_ref.loaders.table import FileLog

__all__ = ["RESULTS_NAME", "SAMPLES_NAME", "Run", "in_order", "latest", "samples_runs", "select_tasks"]

#: ``samples_<task>_<timestamp>.jsonl`` (or ``.json``), the timestamp being ``isoformat()`` with ``:`` turned into ``-``.
SAMPLES_NAME = re.compile(
    r"^samples_(?P<task>.+)_(?P<timestamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.(?P<fraction>\d+))?)\.jsonl?$"
)
#: ``results_<timestamp>.json``, lm-eval's aggregates of one run.
RESULTS_NAME = re.compile(r"^results_.*\.json$")


class Run(NamedTuple):
    """One samples file: where, which task, when, and (once known) whose."""

    path: Path
    task: str
    timestamp: str
    when: tuple[str, Fraction]
    """The timestamp as an ordered key: the part to the second, then the fraction of a second."""


def _is_samples_file(path: Path) -> bool:
    return path.name.startswith("samples_") and path.name.endswith((".jsonl", ".json"))


def _is_results_file(path: Path) -> bool:
    return RESULTS_NAME.match(path.name) is not None


def _given(paths: PathsArg) -> list[Path]:
    if isinstance(paths, (str, PathLike)):
        return [Path(fspath(paths))]
    return [Path(fspath(path)) for path in paths]


def samples_runs(paths: PathsArg) -> tuple[list[Run], list[Path]]:
    """Every samples file that *paths* stand for, named, and every file met (results files too), in order.

    Refuses a folder of aggregates only, and inputs naming no samples file.
    """
    given = _given(paths)
    what = "lm-eval samples_<task>_<timestamp>.jsonl files"
    if not given:
        find_files(given, _is_samples_file, what)  # raises: no input paths
    runs: dict[Path, Run] = {}
    met: dict[Path, None] = {}
    for path in given:
        if path.is_dir():
            every = [
                inside
                for inside in sorted(path.rglob("*"), key=lambda inside: inside.relative_to(path).parts)
                if inside.is_file() and inside.suffix in (".json", ".jsonl")
            ]
            found = [inside for inside in every if _is_samples_file(inside) or _is_results_file(inside)]
            if found and not any(_is_samples_file(inside) for inside in found):
                if any(
                    inside.name.startswith("details_") and inside.suffix == ".parquet" for inside in path.rglob("*")
                ):
                    raise LoaderError(
                        f"{path}: holds lighteval output (results_*.json and details_*.parquet), not lm-eval's: "
                        "convert it with --from lighteval"
                    )
                raise LoaderError(
                    f"{path}: holds lm-eval results_*.json (aggregates) but no samples_*.jsonl: run lm-eval with "
                    "--log_samples (per-sample scores are needed)"
                )
            if not found:
                find_files([path], _is_samples_file, what)  # raises: nothing found in this directory
            found = every  # the other JSON files too, so that the report accounts for each
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


def _named_run(path: Path) -> Run:
    match = SAMPLES_NAME.match(path.name)
    if match is None:
        raise LoaderError(
            f"{path}: not an lm-eval samples file name; expected samples_<task>_<timestamp>.jsonl with a "
            "timestamp like 2024-05-01T10-00-00.123456 (as lm-eval --log_samples writes it)"
        )
    timestamp = match.group("timestamp")
    digits = match.group("fraction") or ""
    fraction = Fraction(int(digits), 10 ** len(digits)) if digits else Fraction(0)
    return Run(path, match.group("task"), timestamp, (timestamp[:19], fraction))


def select_tasks(runs: list[Run], patterns: tuple[str, ...], log: FileLog, origin: str) -> list[Run]:
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


def latest(runs: list[Run], models: Mapping[Path, str], log: FileLog) -> list[tuple[Run, str]]:
    """The latest run of each (model, task) (every run of the latest timestamp); the older ones logged as left out."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((models[run.path.parent], run.task), []).append(run)
    kept: list[tuple[Run, str]] = []
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


def in_order(log: FileLog, met: list[Path], read_from: set[Path]) -> FileLog:
    """*log* in the order the files were met, with every results file not read for a model id said so."""
    uses = {use.path: use for use in log.entries()}
    ordered = FileLog()
    for warning in log.warnings():
        ordered.warn(warning)
    for path in met:
        use = uses.pop(str(path), None)
        if use is None and not _is_results_file(path):
            ordered.skipped(
                path,
                "neither an lm-eval samples file (samples_<task>_<timestamp>.jsonl) nor a results file of a run "
                "beside samples files: not read (a samples file renamed by hand needs lm-eval's name back)",
            )
        elif use is None:
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
