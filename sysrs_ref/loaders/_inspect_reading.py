"""One inspect-ai conversion: the options, each log read into cells, the report of every file, and final checks.

A :class:`Reading` walks the files found, leaves out inspect's bookkeeping,
logs of unselected tasks (``--task``), unfinished logs (``--unfinished``,
:data:`UNFINISHED_MODES`) and logs without the scorer, each with a note,
reads every other log's samples and reduces their epochs
(:mod:`sysrs_ref.loaders._inspect_epochs`), and at the end raises when no log
was usable, saying why. The rules are those of
:mod:`sysrs_ref.loaders.inspect_ai`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal, get_args

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._inspect_epochs import check_reductions, n_samples, recorded_reducer, reduced_cells
from sysrs_ref.loaders._inspect_files import (
    NO_MODEL,
    Source,
    bookkeeping,
    created,
    eval_config,
    model_and_task,
    open_log,
    run_settings,
    unfinished_problem,
)
from sysrs_ref.loaders._inspect_values import Sample, scored_epoch
from sysrs_ref.loaders.table import Cell, FileLog

__all__ = ["RERUNS_MODES", "UNFINISHED_MODES", "Reading", "RerunsMode", "UnfinishedMode"]

#: What ``--reruns`` accepts for several logs of one (model, task): read every one, or the latest only.
RerunsMode = Literal["merge", "latest"]
RERUNS_MODES: tuple[RerunsMode, ...] = get_args(RerunsMode)
_NO_SAMPLES = "the log holds no samples (written with --no-log-samples, or an eval of 0 samples); left out"

#: What ``--unfinished`` accepts: refuse a log whose status is not ``success``, or leave it out with a note.
UnfinishedMode = Literal["fail", "drop"]
UNFINISHED_MODES: tuple[UnfinishedMode, ...] = get_args(UnfinishedMode)


class Reading:
    """One conversion: the options, the report of every file, and what was seen, for the final checks."""

    def __init__(
        self,
        *,
        metric: str,
        epochs: str,
        unfinished: UnfinishedMode,
        patterns: tuple[str, ...],
        origin: str,
        max_member_bytes: int,
        reruns: RerunsMode = "merge",
    ) -> None:
        self.metric = metric
        self.epochs = epochs
        self.unfinished = unfinished
        self.patterns = patterns
        self.origin = origin
        self.max_member_bytes = max_member_bytes
        self.log = FileLog()
        self.logs = 0
        self.tasks: dict[str, None] = {}
        self.selected = 0
        self.dropped = 0
        self.scorers: set[str] = set()
        self.with_metric = 0
        self.reducers: dict[str, None] = {}
        self.reruns = reruns
        self.superseded: dict[Path, str] = {}
        self.empty = 0
        self.dropped_logs: list[tuple[Path, str]] = []
        self.task_settings: dict[str, tuple[dict[str, str], Path, str]] = {}
        self.no_model: dict[str, Path] = {}

    def settings(self) -> dict[str, str]:
        """The choices that shaped the table, for its report."""
        epochs = self.epochs
        if epochs == "auto" and self.reducers:
            epochs = f"auto: {', '.join(self.reducers)} (each log's recorded reducer)"
        chosen = {"epochs": epochs, "unfinished": self.unfinished}
        if self.reruns == "latest":
            chosen["reruns"] = "latest (of several logs of one model and task, the latest created)"
        if self.patterns:
            chosen["tasks"] = " ".join(self.patterns)
        return chosen

    def cells(self, files: list[Path]) -> Iterator[Cell]:
        """Every cell of every log, recording each file's use; raises at the end when nothing was usable."""
        if self.reruns == "latest":
            self.superseded = self._superseded(files)
        for path in files:
            reason = bookkeeping(path)
            if reason is not None:
                self.log.skipped(path, reason)
                continue
            yield from self._log_cells(path)
        self._check_found()

    def _check_found(self) -> None:
        prefix = f"{self.origin}: " if self.origin else ""
        if not self.logs:
            raise LoaderError(f"{prefix}no inspect-ai log here, only inspect's bookkeeping files; name the log folder")
        if self.patterns and not self.selected:
            raise LoaderError(
                f"{prefix}no log's task matches --task {' '.join(self.patterns)}; the logs' tasks are "
                f"{', '.join(sorted(self.tasks))}: choose among them"
            )
        if self.with_metric:
            return
        if self.dropped == self.selected:
            raise LoaderError(
                f"{prefix}every log ({self.dropped}) is unfinished and --unfinished drop left them all out; "
                "finish the evals (inspect eval-retry) and convert again"
            )
        if self.empty and self.empty + self.dropped == self.selected:
            raise LoaderError(
                f"{prefix}no log read holds samples ({self.empty} without any: written with --no-log-samples, or "
                "evals of 0 samples); per-sample scores need logs with samples: run the evals again with samples logged"
            )
        has = ", ".join(sorted(self.scorers)) if self.scorers else "no scored sample"
        raise LoaderError(
            f"{prefix}no sample has a score from scorer '{self.metric}'; the logs have {has}{self._dropped_with_metric()}"
        )

    def _dropped_with_metric(self) -> str:
        """What to add when the only logs with the scorer are unfinished ones that --unfinished drop left out."""
        having = [(path, problem) for path, problem in self.dropped_logs if self.metric in self._scorers_of(path)]
        if not having:
            return ""
        if len(having) == 1:
            path, problem = having[0]
            said = f"the only log with that scorer, {path}, is unfinished ({problem}) and was left out"
        else:
            listed = ", ".join(str(path) for path, _ in having)
            said = f"the {len(having)} logs with that scorer are unfinished and were left out ({listed})"
        return (
            f"; {said} by --unfinished drop: finish the eval (inspect eval-retry), or convert without "
            "--unfinished drop to read what it holds"
        )

    def _scorers_of(self, path: Path) -> set[str]:
        """The scorers an (unfinished) log names: its ``eval.scorers`` and its samples' scores."""
        found: set[str] = set()
        with open_log(path, self.max_member_bytes) as source:
            run = source.header.get("eval")
            named = run.get("scorers") if isinstance(run, Mapping) else None
            for scorer in named if isinstance(named, list) else []:
                if isinstance(scorer, Mapping) and isinstance(scorer.get("name"), str):
                    found.add(str(scorer.get("name")))
            for sample, _ in source.samples(False):
                scores = sample.get("scores") if isinstance(sample, Mapping) else None
                if isinstance(scores, Mapping):
                    found.update(scores)
        return found

    def _superseded(self, files: list[Path]) -> dict[Path, str]:
        """--reruns latest: every log older than another of the same model and task, with why it is left out."""
        groups: dict[tuple[str, str], list[tuple[str | None, Path]]] = {}
        for path in files:
            if bookkeeping(path) is not None:
                continue
            with open_log(path, self.max_member_bytes) as source:
                model, task = model_and_task(source.header, source.header_where)
                groups.setdefault((model, task), []).append((created(source.header, path), path))
        out: dict[Path, str] = {}
        for (model, task), logs in groups.items():
            if len(logs) < 2 or model == NO_MODEL:  # logs without a model are not one model's reruns: see _check_run
                continue
            unknown = [path for stamp, path in logs if stamp is None]
            if unknown:
                raise LoaderError(
                    f"{unknown[0]}: --reruns latest cannot tell when this log of task '{task}' for model '{model}' "
                    "was made (no eval.created, and the file name does not begin with inspect's timestamp); "
                    "leave --reruns out to read every log, or remove the older ones"
                )
            newest = max(stamp for stamp, _ in logs if stamp is not None)
            winners = [path for stamp, path in logs if stamp == newest]
            for stamp, path in logs:
                if stamp != newest:
                    out[path] = (
                        f"an older log of task '{task}' for model '{model}' (created {stamp}); --reruns latest keeps "
                        f"{winners[0]} (--reruns merge reads every log)"
                    )
        return out

    def _log_cells(self, path: Path) -> Iterator[Cell]:
        with open_log(path, self.max_member_bytes) as source:
            model, task = model_and_task(source.header, source.header_where)
            self.logs += 1
            self.tasks[task] = None
            if self.patterns and not any(fnmatchcase(task, pattern) for pattern in self.patterns):
                self.log.skipped(path, f"task '{task}' is not selected by --task {' '.join(self.patterns)}")
                return
            self.selected += 1
            if path in self.superseded:
                self.log.skipped(path, self.superseded[path])
                self.selected -= 1
                return
            if source.status is not None and source.status != "success":
                problem = unfinished_problem(source)
                if self.unfinished == "fail":
                    raise LoaderError(
                        f"{path}: {problem}, so its scores are incomplete; leave such logs out with "
                        "--unfinished drop (unfinished='drop'), or finish the eval (inspect eval-retry) and convert "
                        "again"
                    )
                self.dropped += 1
                self.dropped_logs.append((path, problem))
                self.log.skipped(path, f"{problem}; left out by --unfinished drop")
                return
            samples, scorers = self._samples(source)
            if not samples:
                self.empty += 1
                self.log.skipped(path, _NO_SAMPLES)
                return
            self.scorers |= scorers
            if self.metric not in scorers:
                has = ", ".join(sorted(scorers)) if scorers else "no scored sample"
                self.log.skipped(path, f"no sample has a score from scorer '{self.metric}'; the log has {has}")
                return
            self._check_run(path, model, task, run_settings(source.header))
            self.with_metric += 1
            largest = max((epoch for sample in samples.values() for epoch in sample.epochs), default=1)
            configured = eval_config(source.header).get("epochs")
            count = max(configured if isinstance(configured, int) and not isinstance(configured, bool) else 1, largest)
            if self.epochs == "auto":
                reducer = recorded_reducer(source, self.metric)
                reductions = source.reductions() if reducer != "all" else None
            else:
                reducer, reductions = self.epochs, None
            cells, notes = reduced_cells(path, model, task, samples, reducer, count)
            if reductions is not None:
                checked = check_reductions(path, cells, reductions, self.metric, reducer)
                if checked:
                    notes.append(f"checked against the log's own reduction ({n_samples(checked)})")
        self.reducers[reducer] = None
        how = "the log's reducer" if self.epochs == "auto" else f"--epochs {self.epochs}"
        if reducer == "all":
            summary = f"every epoch kept ({count})"
        elif count == 1:
            summary = "1 epoch"
        elif reducer == "first":
            summary = f"epoch 1 of {count} ({how})"
        else:
            summary = f"{count} epochs reduced by {reducer} ({how})"
        self.log.used(path, len(cells), "; ".join([summary, *notes]))
        for cell in cells:
            yield cell.cell

    def _check_run(self, path: Path, model: str, task: str, settings: dict[str, str]) -> None:
        """Refuse a log whose task settings differ from another read log's of the task, or a second model-less one."""
        first = self.task_settings.setdefault(task, (settings, path, model))
        if first[0] != settings:
            theirs, other, other_model = first
            name = next(key for key in sorted(set(settings) | set(theirs)) if settings.get(key) != theirs.get(key))
            raise LoaderError(
                f"{path}: task '{task}' ran with {name} {settings.get(name, '(not set)')} in this log (model "
                f"'{model}') but {theirs.get(name, '(not set)')} in {other} (model '{other_model}'); logs of one task "
                "with different settings are not one evaluation, nor reruns of one: convert the logs of each setting "
                "apart (in folders of their own)"
            )
        if model != NO_MODEL:
            return
        other = self.no_model.setdefault(task, path)
        if other != path:
            raise LoaderError(
                f"{path}: a second log of task '{task}' with model '{NO_MODEL}' (inspect's name for no model: an agent "
                f"or solver calling its own models), beside {other}; such logs are not one model's reruns and cannot "
                "share a row: convert them apart, or run each with a --model naming what was evaluated"
            )

    def _samples(self, source: Source) -> tuple[dict[str, Sample], set[str]]:
        """The log's samples by id, with their scored epochs of the metric, and every scorer any sample has."""
        first_only = self.epochs == "first"
        found: dict[str, Sample] = {}
        scorers: set[str] = set()
        for sample, where in source.samples(first_only):
            if not isinstance(sample, Mapping):
                raise LoaderError(f"{where}: a sample that is not a JSON object")
            sample_id = sample.get("id")
            if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
                raise LoaderError(f"{where}: a sample without an id (a string or an integer)")
            where = f"{where} sample {sample_id}"
            epoch = sample.get("epoch", 1)
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
                raise LoaderError(f"{where}: epoch {epoch!r} is not a positive integer")
            if first_only and epoch != 1:
                continue
            entry = found.setdefault(str(sample_id), Sample(sample_id, {}))
            scores = sample.get("scores")
            if not isinstance(scores, Mapping):
                continue  # an unscored (errored, cancelled) sample: no score
            scorers.update(scores)
            if self.metric not in scores:
                continue
            recorded = scored_epoch(scores[self.metric], where, f"{where} scorer '{self.metric}'")
            if recorded is None:
                continue
            seen = entry.epochs.get(epoch)
            if seen is not None and seen.exact != recorded.exact:
                raise LoaderError(
                    f"{where}: epoch {epoch} of this sample is in the log twice, with the scores {seen.number} at "
                    f"{seen.where} and {recorded.number}; remove one copy"
                )
            entry.epochs[epoch] = recorded
        return found, scorers
