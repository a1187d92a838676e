"""Loading inspect-ai evaluation logs (``.eval`` archives and ``.json`` logs) into a score table.

What is read, as inspect-ai writes it (checked against its recorder,
``inspect_ai/log/_recorders/eval.py``, and its log model, ``log/_log.py``):

- An ``.eval`` log is a zip archive. ``header.json`` holds the finished log's
  header: ``status``, ``eval`` (``model``, ``task``, ``config.epochs``,
  ``config.epochs_reducer``), ``results`` and ``error``. A log still being
  written, or one whose run died, has no ``header.json``: its
  ``_journal/start.json`` is read instead, and its status is ``started``.
  Every sample and epoch is a member ``samples/<id>_epoch_<n>.json`` (or,
  for inspect's chunked samples, ``samples/<id>_epoch_<n>/sample.json``, the
  sample without its messages and events) holding ``id``, ``epoch`` and
  ``scores``: ``{scorer name: {"value": ..., ...}}``. A member written twice
  under one name counts once, the last copy (as inspect reads it).
  ``reductions.json`` (the per-sample scores inspect reduced over the
  epochs) is read to check this loader's own reduction (below). The members
  may be stored, deflate- or zstd-compressed (inspect's default since
  0.3.206); they are read as JSON only, never unpickled, never extracted to
  disk, and a member over 64 MiB uncompressed is refused
  (:mod:`sysrs_ref.loaders._zip`).
- A ``.json`` log is one JSON object with the same ``status``, ``eval``,
  ``results`` and ``reductions``, and ``samples``, a list of the sample
  objects (every epoch).
- Ignored: ``summaries.json`` and ``_journal/summaries/*.json`` (copies of
  the samples' scores), ``_journal/config_updates/``, the chunked samples'
  messages, events and attachments, and every other field of a sample.

The rules this loader follows:

- **Files:** ``.eval`` and ``.json`` files; a directory is searched
  recursively. inspect's bookkeeping is not a log and is left out with a note
  in the report (:data:`BOOKKEEPING`): the directory listing ``logs.json``,
  an eval set's ``eval-set.json`` and ``.eval-set-id``, and the sample buffer
  of a running eval under ``.buffer/``. A git-lfs pointer file is named as
  such.
- **Tasks:** ``tasks`` are fnmatch patterns (``fnmatch.fnmatchcase``)
  matched against ``eval.task``; a log of another task is left out with a
  note, and patterns that select no log at all are an error listing the
  tasks there are. No pattern selects every log.
- **Unfinished logs:** a log whose ``status`` is not ``success``
  (``started``, ``cancelled``, ``error``) is refused with
  ``unfinished="fail"`` (the default) and left out with a note with
  ``"drop"``. A log without a ``status`` field (not written by inspect) is
  read as finished.
- **Scorer:** the *metric* is a scorer's name, a key of the samples'
  ``scores``. A log none of whose samples has it is left out with a note
  naming the scorers it has (a folder mixing tasks or scorers); when no log
  has it, that is an error listing the scorers there are.
- **Value:** the scorer's ``value`` for each sample and epoch: ``"C"``
  (correct) is 1, ``"P"`` (partial) 1/2, ``"I"`` (incorrect) and ``"N"``
  (no answer) 0, a boolean 0 or 1, a number as it is; it must lie in
  [0, 1]. A value that is a JSON object or a list (several values per
  sample) is an error; NaN is inspect's mark of an unscored sample and
  counts as no score. A sample (or epoch) without the scorer, an errored
  one say, has no score.
- **Epochs** (``epochs``, see :mod:`sysrs_ref.loaders._epochs`): ``auto``
  (the default) reduces each sample's epochs as the log says:
  ``eval.config.epochs_reducer`` (when it is absent or null, the reducers
  that ``results.scores`` name for the scorer, and else inspect's default,
  ``mean``). It computes ``mean``, ``median``, ``mode``, ``max`` and the
  counted ``at_least_k``, ``pass_at_k`` and ``pass_k_k`` exactly; ``mode``
  counts the values as written, as inspect does (so ``I`` and ``N`` are two
  values). An empty list (inspect's ``--no-epochs-reducer``) keeps every
  epoch, as ``all`` does. A reducer it cannot compute, or several, is an
  error asking for an explicit ``--epochs``. Where the log holds its own
  reduction of the scorer (``reductions``), each sample's must agree with
  this loader's (to 1e-9; a tie of ``mode`` is settled the log's way), or
  it is an error. ``first`` reads epoch 1 only (other epochs are not even
  read), ``mean``, ``median``, ``mode``, ``max`` and ``min`` reduce as
  asked, ``all`` keeps every epoch (see
  :class:`~sysrs_ref.loaders.table.Samples`). The number of epochs of a log
  is ``eval.config.epochs`` (or the largest epoch found). A sample with
  fewer scored epochs is reduced over those it has, and the file's note
  says how many such samples there were; with ``all`` it is an error. A
  sample without any score is a missing cell (see the ``missing`` policy).
- **Model id:** ``eval.model``; **query id:** ``"<eval.task>/<sample id>"``;
  within a log the samples come in inspect's order (by id, integers in
  numeric order), whatever the order of the members or of the list.
"""

from __future__ import annotations

import dataclasses
import math
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fnmatch import fnmatchcase
from fractions import Fraction
from os import PathLike
from pathlib import Path
from typing import Literal, NamedTuple, get_args

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._epochs import EPOCH_MODES, check_epochs, is_reducer, reduce_epochs
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, parse_json, read_json
from sysrs_ref.loaders._zip import member_infos, open_archive, read_member
from sysrs_ref.loaders.table import Cell, FileLog, Samples, ScoreTable, assemble, check_missing_policy
from sysrs_ref.scores import checked_score

__all__ = [
    "BOOKKEEPING",
    "MAX_MEMBER_BYTES",
    "SAMPLE_MEMBER",
    "UNFINISHED_MODES",
    "VALUE_LETTERS",
    "UnfinishedMode",
    "check_unfinished",
    "load_inspect",
    "score_value",
]

#: The largest ``.eval`` member read, uncompressed.
MAX_MEMBER_BYTES = 64 * 2**20
#: ``samples/<id>_epoch_<n>.json`` (or a chunked sample's ``samples/<id>_epoch_<n>/sample.json``) in an ``.eval``.
SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)(?:\.json|/sample\.json)$")
#: inspect's letter values: correct, partial, incorrect, no answer.
VALUE_LETTERS: Mapping[str, Fraction] = {"C": Fraction(1), "P": Fraction(1, 2), "I": Fraction(0), "N": Fraction(0)}
#: inspect's own files in a log directory, which are not logs: file name -> why it is left out.
BOOKKEEPING: Mapping[str, str] = {
    "logs.json": "inspect's log-directory listing (logs.json), not a log",
    "eval-set.json": "inspect's eval-set bookkeeping (eval-set.json), not a log",
    ".eval-set-id": "inspect's eval-set bookkeeping (.eval-set-id), not a log",
}
#: What ``--unfinished`` accepts: refuse a log whose status is not ``success``, or leave it out with a note.
UnfinishedMode = Literal["fail", "drop"]
UNFINISHED_MODES: tuple[UnfinishedMode, ...] = get_args(UnfinishedMode)

_BUFFER = ".buffer"
_BUFFER_REASON = "inspect's sample buffer of a running eval (.buffer/), not a log"
_HEADER = "header.json"
_JOURNAL_START = "_journal/start.json"
_REDUCTIONS = "reductions.json"
_TOLERANCE = 1e-9
"""How far inspect's float reduction of a sample may lie from the exact one (relative, and absolute near 0)."""
_REDUCERS_SHOWN = " | ".join(mode for mode in EPOCH_MODES if mode != "auto")


def load_inspect(
    paths: PathsArg,
    *,
    metric: str,
    missing: str = "fail",
    epochs: str = "auto",
    tasks: Sequence[str] = (),
    unfinished: str = "fail",
) -> ScoreTable:
    """Read inspect-ai ``.eval`` and ``.json`` logs into a :class:`ScoreTable`; *metric* is the scorer's name.

    *paths* are files or directories (searched recursively, in sorted order);
    *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`; *epochs* (``--epochs``) one of
    ``auto`` (the default: each log's recorded reducer), ``first``, ``mean``,
    ``median``, ``mode``, ``max``, ``min``, ``all``; *tasks* (``--task``)
    fnmatch patterns selecting logs by ``eval.task`` (none: every log; a lone
    string is one pattern); *unfinished* (``--unfinished``) ``fail`` (the default) or ``drop``, for
    logs whose status is not ``success``. The module docstring gives the
    rules. The table's ``files`` says what became of every file found and
    its ``settings`` the ``epochs``, ``unfinished`` and ``tasks`` choices.
    Raises :class:`~sysrs_ref.errors.LoaderError` naming the file and sample
    for anything it cannot use, and :class:`~sysrs_ref.errors.ParameterError`
    for an unknown option value.

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("m1", ["C", "I"]), ("m2", ["P", True])):
    ...         samples = [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": v}}} for i, v in enumerate(values)]
    ...         log = {"status": "success", "eval": {"model": model, "task": "arith"}, "samples": samples}
    ...         _ = open(os.path.join(d, f"{model}.json"), "w").write(json.dumps(log))
    ...     table = load_inspect(d, metric="match")
    >>> table.models, table.queries, table.scores.tolist()
    (('m1', 'm2'), ('arith/1', 'arith/2'), [[1.0, 0.0], [0.5, 1.0]])
    >>> dict(table.settings)
    {'epochs': "auto: mean (each log's recorded reducer)", 'unfinished': 'fail'}
    """
    check_missing_policy(missing)
    given = [paths] if isinstance(paths, (str, PathLike)) else list(paths)  # read twice below: an iterator once
    reading = _Reading(
        metric=metric,
        epochs=check_epochs(epochs),
        unfinished=check_unfinished(unfinished),
        patterns=(tasks,) if isinstance(tasks, str) else tuple(tasks),
        origin=describe_paths(given),
    )
    found = find_files(given, _is_candidate, "inspect-ai .eval or .json logs")
    table = assemble(
        reading.cells(found), source="inspect", metric=metric, missing=missing, origin=reading.origin, files=reading.log
    )
    return dataclasses.replace(table, settings=reading.settings())


def check_unfinished(mode: str) -> UnfinishedMode:
    """*mode* if it is one of :data:`UNFINISHED_MODES`, else a :class:`~sysrs_ref.errors.ParameterError`.

    >>> check_unfinished("drop")
    'drop'
    >>> check_unfinished("keep")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: unknown --unfinished mode 'keep'; use one of fail, drop
    """
    for known in UNFINISHED_MODES:
        if mode == known:
            return known
    raise ParameterError(f"unknown --unfinished mode {mode!r}; use one of {', '.join(UNFINISHED_MODES)}")


def score_value(value: JsonValue, where: str) -> int | float | Fraction:
    """The number that an inspect score *value* stands for (see the module docstring); *where* is for errors.

    >>> [score_value(v, "x") for v in ("C", "P", "I", "N", True, 0.25)]
    [Fraction(1, 1), Fraction(1, 2), Fraction(0, 1), Fraction(0, 1), 1, 0.25]
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        letter = VALUE_LETTERS.get(value.strip())
        if letter is None:
            raise LoaderError(
                f"{where}: value {value!r} is not one of C, P, I, N (correct, partial, incorrect, no answer) "
                "nor a number"
            )
        return letter
    if isinstance(value, (Mapping, list)):
        raise LoaderError(
            f"{where}: the value is a {'list' if isinstance(value, list) else 'JSON object'} (several values per "
            "sample); a score matrix needs one number per sample: use a scorer with a single value"
        )
    raise LoaderError(f"{where}: the value is {value!r}, not a score")


def _bookkeeping(path: Path) -> str | None:
    """Why *path* is one of inspect's own files rather than a log, or None."""
    if _BUFFER in path.parts[:-1]:
        return _BUFFER_REASON
    return BOOKKEEPING.get(path.name)


def _is_candidate(path: Path) -> bool:
    return path.suffix in (".eval", ".json") or path.name in BOOKKEEPING


class _Epoch(NamedTuple):
    """One scored epoch of a sample."""

    exact: Fraction
    number: int | float | Fraction
    """The score as :func:`score_value` gave it (shown in messages as written)."""
    raw: str | int | float
    """The value as the log wrote it (inspect's ``mode`` counts these)."""
    where: str


@dataclasses.dataclass
class _Sample:
    """A sample of one log: its id as written and its scored epochs."""

    sample_id: str | int
    epochs: dict[int, _Epoch]


@dataclasses.dataclass
class _Source:
    """One opened log: its header (or whole ``.json`` document) and readers of its samples and reductions."""

    path: Path
    header: Mapping[str, JsonValue]
    header_where: str
    status: str | None
    journal_only: bool
    samples: Callable[[bool], Iterator[tuple[JsonValue, str]]]
    """``samples(first_only)``: each sample (only those of epoch 1 when asked, where the layout tells) and where."""
    reductions: Callable[[], JsonValue]


@contextmanager
def _open_log(path: Path) -> Iterator[_Source]:
    if path.suffix == ".eval":
        with open_archive(path, "an inspect-ai .eval log") as archive:
            yield _eval_source(path, archive)
    else:
        yield _json_source(path)


def _json_source(path: Path) -> _Source:
    document = read_json(path)
    if not isinstance(document, Mapping):
        raise LoaderError(f"{path}: not a JSON object, so not an inspect-ai log")

    def samples(first_only: bool) -> Iterator[tuple[JsonValue, str]]:
        listed = document.get("samples")
        if not isinstance(listed, list) or not listed:
            raise LoaderError(f"{path}: the log holds no samples (was it written with --no-log-samples?)")
        for sample in listed:
            yield sample, str(path)

    status = document.get("status")
    return _Source(
        path,
        document,
        str(path),
        status if isinstance(status, str) else None,
        False,
        samples,
        lambda: document.get("reductions"),
    )


def _eval_source(path: Path, archive: zipfile.ZipFile) -> _Source:
    members = member_infos(archive)
    header_name = _HEADER if _HEADER in members else _JOURNAL_START if _JOURNAL_START in members else None
    if header_name is None:
        raise LoaderError(f"{path}: the archive has no header.json; is this an inspect-ai .eval log?")

    def member(name: str) -> JsonValue:
        return parse_json(read_member(archive, members[name], path, MAX_MEMBER_BYTES), f"{path} {name}")

    header = member(header_name)
    if not isinstance(header, Mapping):
        raise LoaderError(f"{path} {header_name}: no eval.model and eval.task; is this an inspect-ai log?")

    def samples(first_only: bool) -> Iterator[tuple[JsonValue, str]]:
        for name in sorted(members):
            match = SAMPLE_MEMBER.match(name)
            if match is not None and not (first_only and int(match.group("epoch")) != 1):
                yield member(name), f"{path} {name}"

    status = header.get("status") if header_name == _HEADER else "started"
    return _Source(
        path,
        header,
        f"{path} {header_name}",
        status if isinstance(status, str) else None,
        header_name != _HEADER,
        samples,
        lambda: member(_REDUCTIONS) if _REDUCTIONS in members else None,
    )


def _ids(document: Mapping[str, JsonValue], where: str) -> tuple[str, str]:
    """(model, task) of a log's header or whole ``.json`` log."""
    run = document.get("eval")
    model = run.get("model") if isinstance(run, Mapping) else None
    task = run.get("task") if isinstance(run, Mapping) else None
    if not isinstance(model, str) or not model.strip() or not isinstance(task, str) or not task.strip():
        raise LoaderError(f"{where}: no eval.model and eval.task; is this an inspect-ai log?")
    return model.strip(), task.strip()


def _config(header: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    run = header.get("eval")
    config = run.get("config") if isinstance(run, Mapping) else None
    return config if isinstance(config, Mapping) else {}


def _unfinished_problem(source: _Source) -> str:
    """What a status other than ``success`` means, as a phrase after the file's name."""
    status = source.status
    if status == "started":
        written = " (it has no header.json yet)" if source.journal_only else ""
        return f"status 'started': the eval is still running, or was interrupted before it finished{written}"
    if status == "cancelled":
        return "status 'cancelled': the eval was cancelled before it finished"
    if status == "error":
        error = source.header.get("error")
        message = error.get("message") if isinstance(error, Mapping) else None
        said = f" ({message.strip().splitlines()[0][:200]})" if isinstance(message, str) and message.strip() else ""
        return f"status 'error': the eval stopped on an error{said}"
    return f"status {status!r}, not 'success'"


class _Reading:
    """One conversion: the options, the report of every file, and what was seen, for the final checks."""

    def __init__(
        self, *, metric: str, epochs: str, unfinished: UnfinishedMode, patterns: tuple[str, ...], origin: str
    ) -> None:
        self.metric = metric
        self.epochs = epochs
        self.unfinished = unfinished
        self.patterns = patterns
        self.origin = origin
        self.log = FileLog()
        self.logs = 0
        self.tasks: dict[str, None] = {}
        self.selected = 0
        self.dropped = 0
        self.scorers: set[str] = set()
        self.with_metric = 0
        self.reducers: dict[str, None] = {}

    def settings(self) -> dict[str, str]:
        """The choices that shaped the table, for its report."""
        epochs = self.epochs
        if epochs == "auto" and self.reducers:
            epochs = f"auto: {', '.join(self.reducers)} (each log's recorded reducer)"
        chosen = {"epochs": epochs, "unfinished": self.unfinished}
        if self.patterns:
            chosen["tasks"] = " ".join(self.patterns)
        return chosen

    def cells(self, files: list[Path]) -> Iterator[Cell]:
        """Every cell of every log, recording each file's use; raises at the end when nothing was usable."""
        for path in files:
            reason = _bookkeeping(path)
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
        has = ", ".join(sorted(self.scorers)) if self.scorers else "no scored sample"
        raise LoaderError(f"{prefix}no sample has a score from scorer '{self.metric}'; the logs have {has}")

    def _log_cells(self, path: Path) -> Iterator[Cell]:
        with _open_log(path) as source:
            model, task = _ids(source.header, source.header_where)
            self.logs += 1
            self.tasks[task] = None
            if self.patterns and not any(fnmatchcase(task, pattern) for pattern in self.patterns):
                self.log.skipped(path, f"task '{task}' is not selected by --task {' '.join(self.patterns)}")
                return
            self.selected += 1
            if source.status is not None and source.status != "success":
                problem = _unfinished_problem(source)
                if self.unfinished == "fail":
                    raise LoaderError(
                        f"{path}: {problem}, so its scores are incomplete; leave such logs out with "
                        "--unfinished drop (unfinished='drop'), or finish the eval (inspect eval-retry) and convert "
                        "again"
                    )
                self.dropped += 1
                self.log.skipped(path, f"{problem}; left out by --unfinished drop")
                return
            samples, scorers = self._samples(source)
            self.scorers |= scorers
            if self.metric not in scorers:
                has = ", ".join(sorted(scorers)) if scorers else "no scored sample"
                self.log.skipped(path, f"no sample has a score from scorer '{self.metric}'; the log has {has}")
                return
            self.with_metric += 1
            largest = max((epoch for sample in samples.values() for epoch in sample.epochs), default=1)
            configured = _config(source.header).get("epochs")
            count = max(configured if isinstance(configured, int) and not isinstance(configured, bool) else 1, largest)
            if self.epochs == "auto":
                reducer = _recorded_reducer(source, self.metric)
                reductions = source.reductions() if reducer != "all" else None
            else:
                reducer, reductions = self.epochs, None
            cells, notes = _reduced_cells(path, model, task, samples, reducer, count)
            if reductions is not None:
                checked = _check_reductions(path, cells, reductions, self.metric, reducer)
                if checked:
                    notes.append(f"checked against the log's own reduction ({_n_samples(checked)})")
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

    def _samples(self, source: _Source) -> tuple[dict[str, _Sample], set[str]]:
        """The log's samples by id, with their scored epochs of the metric, and every scorer any sample has."""
        first_only = self.epochs == "first"
        found: dict[str, _Sample] = {}
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
            entry = found.setdefault(str(sample_id), _Sample(sample_id, {}))
            scores = sample.get("scores")
            if not isinstance(scores, Mapping):
                continue  # an unscored (errored, cancelled) sample: no score
            scorers.update(scores)
            if self.metric not in scores:
                continue
            recorded = _epoch(scores[self.metric], where, f"{where} scorer '{self.metric}'")
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


def _epoch(score: JsonValue, where: str, scorer: str) -> _Epoch | None:
    """One epoch's score from its scorer entry (at *where*; *scorer* adds the scorer), or None for NaN (unscored)."""
    if not isinstance(score, Mapping) or "value" not in score:
        raise LoaderError(f"{scorer}: the scorer has no value")
    raw = score["value"]
    number = score_value(raw, scorer)
    if isinstance(number, float) and math.isnan(number):
        return None
    try:
        exact = checked_score(number)
    except ValueError as problem:
        raise LoaderError(f"{scorer}: score {problem}; every score must be a number in [0, 1]") from None
    assert isinstance(raw, (str, int, float))  # score_value refused everything else
    return _Epoch(exact, number, raw, where)


def _recorded_reducer(source: _Source, metric: str) -> str:
    """The reduction the log records for its epochs (``all`` for none), or a LoaderError asking to choose."""
    where = source.header_where
    names = _config(source.header).get("epochs_reducer")
    if names is None:
        results = source.header.get("results")
        scores = results.get("scores") if isinstance(results, Mapping) else None
        named = [
            entry["reducer"]
            for entry in (scores if isinstance(scores, list) else [])
            if isinstance(entry, Mapping)
            and entry.get("scorer", entry.get("name")) == metric
            and isinstance(entry.get("reducer"), str)
        ]
        names = list(dict.fromkeys(named)) or ["mean"]
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise LoaderError(
            f"{where}: eval.config.epochs_reducer is {names!r}, not a list of reducer names; choose the reduction "
            f"with --epochs {_REDUCERS_SHOWN}"
        )
    if not names:
        return "all"  # inspect's --no-epochs-reducer: its metrics see every epoch
    if len(names) > 1:
        listed = ", ".join(str(name) for name in names)
        raise LoaderError(
            f"{where}: the log reduces epochs in {len(names)} ways ({listed}); choose one with "
            f"--epochs {_REDUCERS_SHOWN}"
        )
    name = names[0]
    assert isinstance(name, str)
    if not is_reducer(name):
        raise LoaderError(
            f"{where}: the log reduces epochs with '{name}', which cannot be computed here (only mean, median, "
            f"mode, max, at_least_k, pass_at_k and pass_k_k can); choose the reduction with --epochs {_REDUCERS_SHOWN}"
        )
    return name


class _Reduced(NamedTuple):
    """A cell, with what the cross-check against the log's reductions needs."""

    cell: Cell
    key: str
    exact: Fraction | None
    """The reduced score (None for kept epochs)."""
    ties: tuple[Fraction, ...]
    """The values tied for ``mode`` (empty otherwise)."""


def _reduced_cells(
    path: Path, model: str, task: str, samples: Mapping[str, _Sample], reducer: str, count: int
) -> tuple[list[_Reduced], list[str]]:
    """The log's cells under *reducer*, and notes on samples with fewer scored epochs than *count*."""
    cells: list[_Reduced] = []
    fewer = undefined = unscored_first = 0
    for key, sample in sorted(samples.items(), key=lambda item: _order(item[1].sample_id)):
        epochs = [sample.epochs[epoch] for epoch in sorted(sample.epochs)]
        if not epochs:
            continue  # no score at all: a missing cell
        query = f"{task}/{sample.sample_id}"
        if reducer == "first":
            first = sample.epochs.get(1)
            if first is None:
                unscored_first += 1
            else:
                cells.append(_Reduced(Cell(model, query, first.number, first.where), key, first.exact, ()))
            continue
        if reducer == "all":
            absent = [epoch for epoch in range(1, count + 1) if epoch not in sample.epochs]
            if absent:
                shown = ", ".join(str(epoch) for epoch in absent)
                raise LoaderError(
                    f"{path} sample {sample.sample_id}: epoch(s) {shown} of {count} have no score, and --epochs all "
                    "keeps every epoch of every sample; reduce them instead (--epochs mean) or take --epochs first"
                )
            values = Samples(epoch.number for epoch in epochs)
            cells.append(_Reduced(Cell(model, query, values, f"{path} sample {sample.sample_id}"), key, None, ()))
            continue
        fewer += len(epochs) < count
        ties: tuple[Fraction, ...] = ()
        if reducer == "mode":  # inspect counts the values as written, the earliest of the most frequent first
            counts = Counter(epoch.raw for epoch in epochs)
            top = counts.most_common(1)[0][1]
            winners = [epoch for epoch in epochs if counts[epoch.raw] == top]
            exact, ties = winners[0].exact, tuple(dict.fromkeys(epoch.exact for epoch in winners))
        else:
            try:
                exact = reduce_epochs([epoch.exact for epoch in epochs], reducer)
            except ValueError:  # pass_at_k over fewer than k epochs: inspect leaves it unscored
                undefined += 1
                continue
        if len(epochs) == 1 and reducer in ("mean", "median", "mode", "max", "min"):
            cell = Cell(model, query, epochs[0].number, epochs[0].where)
        else:
            cell = Cell(model, query, exact, f"{path} sample {sample.sample_id} ({reducer} of {len(epochs)} epochs)")
        cells.append(_Reduced(cell, key, exact, ties))
    notes = []
    if fewer:
        notes.append(f"{_n_samples(fewer)} with fewer than {count} scored epochs, reduced over those they have")
    if undefined:
        notes.append(f"{_n_samples(undefined)} left without a score: {reducer} needs more scored epochs than they have")
    if unscored_first:
        notes.append(f"{_n_samples(unscored_first)} without a score in epoch 1 left without a score")
    return cells, notes


def _order(sample_id: str | int) -> str:
    """inspect's order of samples (``sort_samples``): string ids as they are, integers zero-filled to 20 digits."""
    return sample_id if isinstance(sample_id, str) else str(sample_id).zfill(20)


def _n_samples(count: int) -> str:
    return f"{count} sample" if count == 1 else f"{count} samples"


def _check_reductions(path: Path, cells: list[_Reduced], reductions: JsonValue, metric: str, reducer: str) -> int:
    """Check the reduced *cells* against the log's own reductions of *metric*; return how many samples agreed.

    A ``mode`` tie is settled the log's way (the cell is replaced). Entries
    that do not have inspect's shape are passed over: this is a check, not a
    source of scores.
    """
    if not isinstance(reductions, list):
        return 0
    theirs: dict[str, JsonValue] = {}
    for entry in reductions:
        if not isinstance(entry, Mapping) or entry.get("scorer") != metric:
            continue
        named = entry.get("reducer")
        if named != reducer and not (named is None and reducer == "mean"):
            continue
        listed = entry.get("samples")
        for reduced in listed if isinstance(listed, list) else []:
            if isinstance(reduced, Mapping) and isinstance(reduced.get("sample_id"), (str, int)):
                theirs[str(reduced.get("sample_id"))] = reduced.get("value")
    agreed = 0
    for index, cell in enumerate(cells):
        if cell.exact is None or cell.key not in theirs:
            continue
        where = f"{path} reductions sample {cell.key}"
        value = theirs[cell.key]
        if isinstance(value, (Mapping, list)) or value is None:
            continue
        number = score_value(value, where)
        if isinstance(number, float) and (math.isnan(number) or math.isinf(number)):
            continue
        exact = Fraction(number)
        if exact in cell.ties:
            if exact != cell.exact:
                cells[index] = cell._replace(cell=cell.cell._replace(score=exact), exact=exact)
        elif not math.isclose(float(exact), float(cell.exact), rel_tol=_TOLERANCE, abs_tol=_TOLERANCE):
            raise LoaderError(
                f"{path}: the log's own {reducer} of sample {cell.key} over its epochs (its reductions) is {number}, "
                f"but the {reducer} of its scored epochs is {cell.exact} (= {float(cell.exact):.6g}); the log's "
                "scorer maps or reduces values its own way: choose the reduction yourself with "
                f"--epochs {_REDUCERS_SHOWN}"
            )
        agreed += 1
    return agreed
