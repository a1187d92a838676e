"""Finding HELM runs: the run directories that the paths given stand for, and the key that names a run.

A folder given is searched at any depth, in sorted order, for directories holding
``run_spec.json`` or ``per_instance_stats.json``; the empty folders beside the runs
of a suite are found too (to be reported as runs that did not finish), while
HELM's own ``eval_cache/`` and ``groups/`` are not runs. A file named directly
is a run's ``per_instance_stats.json`` (a ``run_spec.json`` stands for its
directory). :func:`run_key` removes a run name's model arguments, so that two
models' runs of one scenario share their query ids. The rules are stated in
full in :mod:`sysrs_ref.loaders.helm`, which re-exports the public names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import PathsArg

__all__ = ["MODEL_ARGS", "Run", "SPEC_FILE", "STATS_FILE", "find_runs", "paths_list", "run_key"]

STATS_FILE = "per_instance_stats.json"
SPEC_FILE = "run_spec.json"
MODEL_ARGS = ("model", "model_deployment")
_NOT_RUNS = frozenset({"eval_cache", "groups"})
"""The folders HELM itself keeps beside the runs of a suite (``helm-summarize`` skips the same two)."""


def run_key(run_name: str) -> tuple[str, str | None]:
    """The run's name without its model arguments, and the ``model=`` argument (None if there is none).

    >>> run_key("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2")
    ('mmlu:subject=anatomy,method=multiple_choice_joint', 'openai_gpt2')
    >>> run_key("boolq")
    ('boolq', None)
    """
    head, _, rest = run_name.partition(":")
    kept: list[str] = []
    model: str | None = None
    for argument in rest.split(",") if rest else []:
        key, _, value = argument.partition("=")
        if key.strip() in MODEL_ARGS:
            if key.strip() == "model" and value.strip():
                model = value.strip()
            continue
        kept.append(argument)
    return (f"{head}:{','.join(kept)}" if kept else head), model


@dataclass
class Run:
    """One run directory found, and what is known of it before its stats are read."""

    directory: Path
    stats: Path | None
    """Its per_instance_stats.json (None: there is none, or the directory is an empty leftover)."""
    empty: bool = False
    """An empty folder beside a suite's runs (not a run, but reported as one that did not finish)."""
    name: str = ""
    key: str = ""
    model: str = ""
    suite: str = ""

    @property
    def path(self) -> Path:
        """What the report names: the stats file, else the directory."""
        return self.stats if self.stats is not None else self.directory


def paths_list(paths: PathsArg) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        return [Path(os.fspath(paths))]
    return [Path(os.fspath(path)) for path in paths]


def find_runs(given: list[Path]) -> list[Run]:
    """Every run that the paths *given* stand for (and the empty leftovers beside them), in order, each once."""
    if not given:
        raise LoaderError(
            f"no input paths given: name HELM run directories, folders holding them (runs/<suite>) or {STATS_FILE} "
            "files"
        )
    found: list[Run] = []
    seen: set[tuple[Path, Path | None]] = set()

    def add(run: Run) -> None:
        identity = (run.directory.resolve(), run.stats.resolve() if run.stats is not None else None)
        if identity not in seen:
            seen.add(identity)
            found.append(run)

    for path in given:
        if path.is_dir():
            for run in _search(path):
                add(run)
        elif path.is_file():
            if path.name == SPEC_FILE:
                stats = path.parent / STATS_FILE
                add(Run(path.parent, stats if stats.is_file() else None))
            else:
                add(Run(path.parent, path))
        elif path.exists():
            raise LoaderError(f"{path}: not a regular file or a directory")
        else:
            raise LoaderError(f"{path}: no such file or directory")
    return found


def _search(folder: Path) -> list[Run]:
    """The runs in *folder* or below it, with the empty folders beside them, sorted by their path inside *folder*."""
    runs = {
        candidate.parent
        for candidate in folder.rglob("*")
        if candidate.name in (SPEC_FILE, STATS_FILE) and candidate.is_file()
    }
    if not runs:
        raise LoaderError(
            f"{folder}: found no HELM run in this directory or below it (a run is a directory holding {SPEC_FILE} "
            f"or {STATS_FILE}); check the path"
        )
    above = {ancestor for run in runs for ancestor in run.parents}
    suites = {run.parent for run in runs if run != folder and (run.parent == folder or folder in run.parent.parents)}
    empty = {
        child
        for suite in suites
        for child in suite.iterdir()
        if child.is_dir()
        and child not in runs
        and child not in above
        and child.name not in _NOT_RUNS
        and not child.name.startswith(".")
        and _is_empty(child)
    }
    ordered = sorted(runs | empty, key=lambda directory: directory.relative_to(folder).parts)
    return [
        Run(directory, None, empty=True)
        if directory in empty
        else Run(directory, directory / STATS_FILE if (directory / STATS_FILE).is_file() else None)
        for directory in ordered
    ]


def _is_empty(directory: Path) -> bool:
    """Whether *directory* holds nothing (one that cannot be listed counts as not empty: it is not reported)."""
    try:
        return next(directory.iterdir(), None) is None
    except OSError:
        return False
