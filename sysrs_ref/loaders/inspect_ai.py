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
- **No samples:** a log holding no sample (written with
  ``--no-log-samples``, or an eval of 0 samples) is left out with a note; when
  no log read holds samples, that is an error.
- **Reruns:** with ``reruns="latest"`` only the latest log of each (model,
  task) is read (``eval.created``, else the timestamp opening the file
  name); with ``"merge"`` (the default) every log is, and their cells merge
  when equal and are refused when they differ.
- **Scorer:** the *metric* is a scorer's name, a key of the samples'
  ``scores``. A log none of whose samples has it is left out with a note
  naming the scorers it has (a folder mixing tasks or scorers); when no log
  has it, that is an error listing the scorers there are, and naming the
  unfinished logs with that scorer that ``--unfinished drop`` left out.
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
from collections.abc import Sequence
from os import PathLike

from sysrs_ref.errors import ParameterError
from sysrs_ref.loaders._epochs import check_epochs
from sysrs_ref.loaders._inspect_files import BOOKKEEPING, SAMPLE_MEMBER, is_candidate
from sysrs_ref.loaders._inspect_reading import RERUNS_MODES, UNFINISHED_MODES, Reading, RerunsMode, UnfinishedMode
from sysrs_ref.loaders._inspect_values import VALUE_LETTERS, score_value
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files
from sysrs_ref.loaders.table import RERUNS_HINT, ResultsTable, assemble, check_missing_policy

__all__ = [
    "BOOKKEEPING",
    "MAX_MEMBER_BYTES",
    "RERUNS_MODES",
    "SAMPLE_MEMBER",
    "UNFINISHED_MODES",
    "VALUE_LETTERS",
    "RerunsMode",
    "UnfinishedMode",
    "check_unfinished",
    "load_inspect",
    "score_value",
]

#: The largest ``.eval`` member read, uncompressed.
MAX_MEMBER_BYTES = 64 * 2**20


def load_inspect(
    paths: PathsArg,
    *,
    metric: str,
    missing: str = "fail",
    epochs: str = "auto",
    tasks: Sequence[str] = (),
    unfinished: str = "fail",
    reruns: str = "merge",
) -> ResultsTable:
    """Read inspect-ai ``.eval`` and ``.json`` logs into a :class:`ResultsTable`; *metric* is the scorer's name.

    *paths* are files or directories (searched recursively, in sorted order);
    *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`; *epochs* (``--epochs``) one of
    ``auto`` (the default: each log's recorded reducer), ``first``, ``mean``,
    ``median``, ``mode``, ``max``, ``min``, ``all``; *tasks* (``--task``)
    fnmatch patterns selecting logs by ``eval.task`` (none: every log; a lone
    string is one pattern); *unfinished* (``--unfinished``) ``fail`` (the default) or ``drop``, for
    logs whose status is not ``success``; *reruns* (``--reruns``), for several logs of one model and task:
    ``merge`` (the default: every log read, identical cells merged, different ones refused) or ``latest``
    (the log created last, by ``eval.created`` or else the timestamp that opens inspect's file names; the
    older ones listed as left out). The module docstring gives the
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
    reading = Reading(
        metric=metric,
        epochs=check_epochs(epochs),
        unfinished=check_unfinished(unfinished),
        patterns=(tasks,) if isinstance(tasks, str) else tuple(tasks),
        origin=describe_paths(given),
        max_member_bytes=MAX_MEMBER_BYTES,  # read here, when called, so that it can be patched
        reruns=_check_reruns(reruns),
    )
    found = find_files(given, is_candidate, "inspect-ai .eval or .json logs")
    table = assemble(
        reading.cells(found),
        source="inspect",
        metric=metric,
        missing=missing,
        origin=reading.origin,
        files=reading.log,
        conflict_hint=RERUNS_HINT if reading.reruns == "merge" else "",
    )
    return dataclasses.replace(table, settings=reading.settings())


def _check_reruns(mode: str) -> RerunsMode:
    for known in RERUNS_MODES:
        if mode == known:
            return known
    raise ParameterError(f"unknown --reruns mode {mode!r}; use one of {', '.join(RERUNS_MODES)}")


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
