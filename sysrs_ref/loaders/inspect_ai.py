"""Loading inspect-ai evaluation logs (``.eval`` archives and ``.json`` logs) into a score table.

An ``.eval`` log is a zip archive holding ``header.json`` (with ``eval.model``
and ``eval.task``; a log still being written has ``_journal/start.json``
instead, which is used then) and one member ``samples/<id>_epoch_<n>.json``
per sample and epoch, each with ``id``, ``epoch`` and ``scores``:
``{scorer name: {"value": ..., ...}}``. A ``.json`` log is one JSON object
with ``eval`` (``model``, ``task``) and ``samples`` (a list of the same sample
objects).

The rules this loader follows:

- **Files:** ``.eval`` and ``.json`` files (a directory is searched
  recursively; inspect's directory listing ``logs.json`` is skipped). The
  members of an ``.eval`` are read in sorted name order, as JSON only: never
  unpickled, never extracted to disk; a member larger than 64 MiB
  uncompressed is refused.
- **Epoch:** only epoch 1 is read; later epochs are ignored (not averaged).
- **Value:** the *metric* scorer's ``value``: ``"C"`` (correct) is 1,
  ``"P"`` (partial) 0.5, ``"I"`` (incorrect) and ``"N"`` (no answer) 0, a
  boolean 0 or 1, a number as it is (it must lie in [0, 1]). A value that is
  a JSON object or a list (several values per sample) is an error.
- **Model id:** ``eval.model``; **query id:** ``"<eval.task>/<sample id>"``.
- A scorer that no sample of a log has is an error; a sample without it (an
  errored sample, say) is a missing cell (see the ``missing`` policy).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, parse_json, read_json
from sysrs_ref.loaders.table import Cell, ScoreTable, assemble, check_missing_policy

__all__ = ["MAX_MEMBER_BYTES", "SAMPLE_MEMBER", "VALUE_LETTERS", "load_inspect", "score_value"]

#: The largest ``.eval`` member read, uncompressed.
MAX_MEMBER_BYTES = 64 * 2**20
#: ``samples/<id>_epoch_<n>.json``, a sample's member in an ``.eval`` archive.
SAMPLE_MEMBER = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
#: inspect's letter values: correct, partial, incorrect, no answer.
VALUE_LETTERS: Mapping[str, Fraction] = {"C": Fraction(1), "P": Fraction(1, 2), "I": Fraction(0), "N": Fraction(0)}

_HEADERS = ("header.json", "_journal/start.json")
_LISTING = "logs.json"


def load_inspect(paths: PathsArg, *, metric: str, missing: str = "fail") -> ScoreTable:
    """Read inspect-ai ``.eval`` and ``.json`` logs into a :class:`ScoreTable`; *metric* is the scorer's name.

    *paths* are files or directories (searched recursively, in sorted order);
    *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. The module docstring gives the
    rules. Raises :class:`~sysrs_ref.errors.LoaderError` naming the file and
    sample for anything it cannot use.

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("m1", ["C", "I"]), ("m2", ["P", True])):
    ...         samples = [{"id": i + 1, "epoch": 1, "scores": {"match": {"value": v}}} for i, v in enumerate(values)]
    ...         log = {"eval": {"model": model, "task": "arith"}, "samples": samples}
    ...         _ = open(os.path.join(d, f"{model}.json"), "w").write(json.dumps(log))
    ...     table = load_inspect(d, metric="match")
    >>> table.models, table.queries, table.scores.tolist()
    (('m1', 'm2'), ('arith/1', 'arith/2'), [[1.0, 0.0], [0.5, 1.0]])
    """
    check_missing_policy(missing)
    files = find_files(paths, _is_log, "inspect-ai .eval or .json logs")
    return assemble(
        _cells(files, metric), source="inspect", metric=metric, missing=missing, origin=describe_paths(paths)
    )


def _is_log(path: Path) -> bool:
    return path.suffix == ".eval" or (path.suffix == ".json" and path.name != _LISTING)


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


def _cells(files: list[Path], metric: str) -> Iterator[Cell]:
    for path in files:
        if path.suffix == ".eval":
            yield from _eval_cells(path, metric)
        else:
            yield from _json_cells(path, metric)


def _ids(document: JsonValue, where: str) -> tuple[str, str]:
    """(model, task) of a log's header or whole ``.json`` log."""
    run = document.get("eval") if isinstance(document, Mapping) else None
    model = run.get("model") if isinstance(run, Mapping) else None
    task = run.get("task") if isinstance(run, Mapping) else None
    if not isinstance(model, str) or not model.strip() or not isinstance(task, str) or not task.strip():
        raise LoaderError(f"{where}: no eval.model and eval.task; is this an inspect-ai log?")
    return model.strip(), task.strip()


def _json_cells(path: Path, metric: str) -> Iterator[Cell]:
    document = read_json(path)
    model, task = _ids(document, str(path))
    assert isinstance(document, Mapping)  # _ids checked it
    samples = document.get("samples")
    if not isinstance(samples, list) or not samples:
        raise LoaderError(f"{path}: the log holds no samples (was it written with --no-log-samples?)")
    scorers: set[str] = set()
    found = False
    for sample in samples:
        for cell in _sample_cells(sample, model, task, metric, str(path), scorers):
            found = True
            yield cell
    _check_found(found, path, metric, scorers)


def _eval_cells(path: Path, metric: str) -> Iterator[Cell]:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise LoaderError(f"{path}: not a zip archive, so not an inspect-ai .eval log (is it truncated?)") from None
    except OSError as err:
        raise LoaderError(f"{path}: cannot read it ({err.strerror or err})") from None
    with archive:
        members = {info.filename: info for info in archive.infolist()}
        header_name = next((name for name in _HEADERS if name in members), None)
        if header_name is None:
            raise LoaderError(f"{path}: the archive has no header.json; is this an inspect-ai .eval log?")
        model, task = _ids(_read_member(archive, members[header_name], path), f"{path} {header_name}")
        scorers: set[str] = set()
        found = False
        for name in sorted(members):
            match = SAMPLE_MEMBER.match(name)
            if match is None or int(match.group("epoch")) != 1:
                continue
            sample = _read_member(archive, members[name], path)
            for cell in _sample_cells(sample, model, task, metric, f"{path} {name}", scorers):
                found = True
                yield cell
    _check_found(found, path, metric, scorers)


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> JsonValue:
    where = f"{path} {info.filename}"
    too_big = LoaderError(
        f"{where}: over the limit of {MAX_MEMBER_BYTES} bytes uncompressed; refusing to read it "
        "(split the log, or convert it with inspect log convert)"
    )
    if info.file_size > MAX_MEMBER_BYTES:
        raise too_big
    try:
        with archive.open(info) as handle:
            data = handle.read(MAX_MEMBER_BYTES + 1)
    # zipfile raises NotImplementedError for a compression method it lacks, RuntimeError for an encrypted member
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, OSError) as err:
        raise LoaderError(f"{where}: cannot read this member of the archive ({err}); is the file damaged?") from None
    if len(data) > MAX_MEMBER_BYTES:
        raise too_big
    return parse_json(data, where)


def _sample_cells(
    sample: JsonValue, model: str, task: str, metric: str, where: str, scorers: set[str]
) -> Iterator[Cell]:
    if not isinstance(sample, Mapping):
        raise LoaderError(f"{where}: a sample that is not a JSON object")
    sample_id = sample.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        raise LoaderError(f"{where}: a sample without an id (a string or an integer)")
    where = f"{where} sample {sample_id}"
    epoch = sample.get("epoch", 1)
    if epoch != 1:
        return
    scores = sample.get("scores")
    if not isinstance(scores, Mapping):
        return  # an unscored (errored, cancelled) sample: a missing cell
    scorers.update(scores)
    if metric not in scores:
        return
    score = scores[metric]
    if not isinstance(score, Mapping) or "value" not in score:
        raise LoaderError(f"{where}: scorer '{metric}' has no value")
    yield Cell(model, f"{task}/{sample_id}", score_value(score["value"], f"{where} scorer '{metric}'"), where)


def _check_found(found: bool, path: Path, metric: str, scorers: set[str]) -> None:
    if not found:
        has = ", ".join(sorted(scorers)) if scorers else "no scored sample"
        raise LoaderError(f"{path}: no sample of epoch 1 has a score from scorer '{metric}'; the log has {has}")
