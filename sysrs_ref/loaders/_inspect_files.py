"""Finding and opening inspect-ai logs: which files are logs, and a log's header and readers of its samples.

A directory holds inspect's bookkeeping besides the logs (:data:`BOOKKEEPING`,
the sample buffer under ``.buffer/``), which :func:`bookkeeping` names so that
the report can say why each is left out. :func:`open_log` opens an ``.eval``
archive (its ``header.json``, or ``_journal/start.json`` for a log still being
written, and its ``samples/`` members, read as JSON only, each within the
caller's size limit) or a whole ``.json`` log, as one :class:`Source`; the
header's ids, config and status are read by :func:`model_and_task`,
:func:`eval_config` and :func:`unfinished_problem`. The rules are those of
:mod:`sysrs_ref.loaders.inspect_ai`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import parse_json, read_json
from sysrs_ref.loaders._zip import member_infos, open_archive, read_member

__all__ = [
    "BOOKKEEPING",
    "SAMPLE_MEMBER",
    "Source",
    "bookkeeping",
    "created",
    "eval_config",
    "is_candidate",
    "model_and_task",
    "NO_MODEL",
    "open_log",
    "run_settings",
    "unfinished_problem",
]

#: ``samples/<id>_epoch_<n>.json`` (or a chunked sample's ``samples/<id>_epoch_<n>/sample.json``) in an ``.eval``.
SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)(?:\.json|/sample\.json)$")
#: inspect's own files in a log directory, which are not logs: file name -> why it is left out.
BOOKKEEPING: Mapping[str, str] = {
    "logs.json": "inspect's log-directory listing (logs.json), not a log",
    "eval-set.json": "inspect's eval-set bookkeeping (eval-set.json), not a log",
    ".eval-set-id": "inspect's eval-set bookkeeping (.eval-set-id), not a log",
}

#: inspect's model id when a task runs without a model (``--model none``: an agent or solver calling its own models).
NO_MODEL = "none/none"
#: The fields of a log's ``eval`` that define the evaluation besides the model: the task's arguments and the solver.
_SETTINGS = ("task_args", "solver", "solver_args")

_BUFFER = ".buffer"
_BUFFER_REASON = "inspect's sample buffer of a running eval (.buffer/), not a log"
_HEADER = "header.json"
_JOURNAL_START = "_journal/start.json"
_REDUCTIONS = "reductions.json"


def bookkeeping(path: Path) -> str | None:
    """Why *path* is one of inspect's own files rather than a log, or None."""
    if _BUFFER in path.parts[:-1]:
        return _BUFFER_REASON
    return BOOKKEEPING.get(path.name)


def is_candidate(path: Path) -> bool:
    return path.suffix in (".eval", ".json") or path.name in BOOKKEEPING


@dataclasses.dataclass
class Source:
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
def open_log(path: Path, max_member_bytes: int) -> Iterator[Source]:
    """*path* opened as a log; an ``.eval`` member over *max_member_bytes* uncompressed is refused."""
    if path.suffix == ".eval":
        with open_archive(path, "an inspect-ai .eval log") as archive:
            yield _eval_source(path, archive, max_member_bytes)
    else:
        yield _json_source(path)


def _json_source(path: Path) -> Source:
    document = read_json(path)
    if not isinstance(document, Mapping):
        raise LoaderError(f"{path}: not a JSON object, so not an inspect-ai log")

    def samples(first_only: bool) -> Iterator[tuple[JsonValue, str]]:
        listed = document.get("samples")
        for sample in listed if isinstance(listed, list) else []:  # none: --no-log-samples, or 0 samples
            yield sample, str(path)

    status = document.get("status")
    return Source(
        path,
        document,
        str(path),
        status if isinstance(status, str) else None,
        False,
        samples,
        lambda: document.get("reductions"),
    )


def _eval_source(path: Path, archive: zipfile.ZipFile, max_member_bytes: int) -> Source:
    members = member_infos(archive)
    header_name = _HEADER if _HEADER in members else _JOURNAL_START if _JOURNAL_START in members else None
    if header_name is None:
        raise LoaderError(f"{path}: the archive has no header.json; is this an inspect-ai .eval log?")

    def member(name: str) -> JsonValue:
        return parse_json(read_member(archive, members[name], path, max_member_bytes), f"{path} {name}")

    header = member(header_name)
    if not isinstance(header, Mapping):
        raise LoaderError(f"{path} {header_name}: no eval.model and eval.task; is this an inspect-ai log?")

    def samples(first_only: bool) -> Iterator[tuple[JsonValue, str]]:
        for name in sorted(members):
            match = SAMPLE_MEMBER.match(name)
            if match is not None and not (first_only and int(match.group("epoch")) != 1):
                yield member(name), f"{path} {name}"

    status = header.get("status") if header_name == _HEADER else "started"
    return Source(
        path,
        header,
        f"{path} {header_name}",
        status if isinstance(status, str) else None,
        header_name != _HEADER,
        samples,
        lambda: member(_REDUCTIONS) if _REDUCTIONS in members else None,
    )


def model_and_task(document: Mapping[str, JsonValue], where: str) -> tuple[str, str]:
    """(model, task) of a log's header or whole ``.json`` log."""
    run = document.get("eval")
    model = run.get("model") if isinstance(run, Mapping) else None
    task = run.get("task") if isinstance(run, Mapping) else None
    if not isinstance(model, str) or not model.strip() or not isinstance(task, str) or not task.strip():
        raise LoaderError(f"{where}: no eval.model and eval.task; is this an inspect-ai log?")
    return model.strip(), task.strip()


def created(document: Mapping[str, JsonValue], path: Path) -> str | None:
    """When the log's eval was created, as an ordered key: ``eval.created``, else the file name's timestamp.

    inspect names a log ``<created>_<task>_<id>.eval``, the time written ``2024-05-01T10-00-00+00-00``; both
    forms are brought to ``2024-05-01T10:00:00`` plus the offset, as written. None when neither is there.
    """
    run = document.get("eval")
    stamp = run.get("created") if isinstance(run, Mapping) else None
    if isinstance(stamp, str) and _CREATED.match(stamp):
        return _utc(stamp)
    named = _NAMED.match(path.name)
    if named is not None:
        date, hours, minutes, seconds, offset = named.groups()
        return _utc(f"{date}T{hours}:{minutes}:{seconds}{offset.replace('-', ':', 1) if offset else ''}")
    return None


def run_settings(document: Mapping[str, JsonValue]) -> dict[str, str]:
    """The log's evaluation settings, one entry per task argument or solver field, each value as compact JSON.

    ``eval.task_args`` and ``eval.solver_args`` give one entry per argument
    (``task_args.with_background``), ``eval.solver`` one entry; what the log
    does not set is absent. Two logs of one task with different settings are
    not one evaluation.

    >>> run_settings({"eval": {"task_args": {"with_background": True, "n": 3}, "solver": None}})
    {'task_args.n': '3', 'task_args.with_background': 'true'}
    """
    run = document.get("eval")
    found: dict[str, str] = {}
    for name in _SETTINGS:
        value = run.get(name) if isinstance(run, Mapping) else None
        if isinstance(value, Mapping):
            for key in sorted(value):
                found[f"{name}.{key}"] = json.dumps(value[key], sort_keys=True, separators=(",", ":"))
        elif value is not None:
            found[name] = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return found


_CREATED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_NAMED = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})((?:[+-]\d{2}-\d{2})|Z)?_")


def _utc(stamp: str) -> str:
    """*stamp* (ISO 8601) in UTC, to the microsecond, so that times written with other offsets compare."""
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="microseconds")


def eval_config(header: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
    run = header.get("eval")
    config = run.get("config") if isinstance(run, Mapping) else None
    return config if isinstance(config, Mapping) else {}


def unfinished_problem(source: Source) -> str:
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
