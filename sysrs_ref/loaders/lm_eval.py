"""Loading lm-evaluation-harness per-sample logs (``--log_samples``) into a score table.

With ``--output_path OUT --log_samples`` the harness writes, in a directory
per model under ``OUT``, a ``results_<timestamp>.json`` and one
``samples_<task>_<timestamp>.jsonl`` per task: one JSON object per line, per
document and per filter, with ``doc_id``, ``filter`` (``"none"``,
``"strict-match"``, ``"flexible-extract"``, ...), ``metrics`` (the metric
names) and each metric's value as a top-level key (``"acc": 1.0``).

The rules this loader follows:

- **Files.** Only ``samples_*.jsonl`` files are read (a directory is searched
  recursively). The name must be ``samples_<task>_<timestamp>.jsonl`` where
  ``<timestamp>`` is the harness's ``datetime.now().isoformat()`` with ``:``
  replaced by ``-``: ``YYYY-MM-DDTHH-MM-SS`` with an optional fraction of a
  second (``2024-05-01T10-00-00.123456``). The task is everything between
  ``samples_`` and ``_<timestamp>`` (it may contain underscores:
  ``samples_gsm8k_cot_2024-05-01T10-00-00.jsonl`` is task ``gsm8k_cot``).
- **Query id:** ``"<task>/<doc_id>"``.
- **Model id**, from the sample file's directory: the ``model_name`` of a
  ``results_*.json`` there; else the ``pretrained=`` (then ``model=``)
  argument of that file's ``config.model_args``; else the directory's name.
  Two results files in one directory naming different models are an error.
- **Filter.** Rows repeat once per filter. With ``filter=None`` a file must
  have exactly one filter; with a filter given, every file must have it.
- **Metric.** Each kept line must have the metric as a key, with a number or
  a boolean as value (``true`` is 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, parse_json, read_json, read_text
from sysrs_ref.loaders.table import Cell, ScoreTable, assemble, check_missing_policy

__all__ = ["SAMPLES_NAME", "load_lm_eval", "model_id_for"]

#: ``samples_<task>_<timestamp>.jsonl``, the timestamp being ``isoformat()`` with ``:`` turned into ``-``.
SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<timestamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$")

_MODEL_ARG_KEYS = ("pretrained", "model")


def load_lm_eval(paths: PathsArg, *, metric: str, filter: str | None = None, missing: str = "fail") -> ScoreTable:
    """Read lm-evaluation-harness ``samples_<task>_<timestamp>.jsonl`` files into a :class:`ScoreTable`.

    *paths* are files or directories (searched recursively for
    ``samples_*.jsonl``, in sorted order); *metric* is the per-sample metric
    (``"acc"``, ``"exact_match"``); *filter* picks one of a task's filters
    (needed when a file has several); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. The module docstring gives the
    id rules. Raises :class:`~sysrs_ref.errors.LoaderError` naming the file
    and line for anything it cannot use.

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("m1", [1, 0]), ("m2", [1, 1])):
    ...         os.mkdir(os.path.join(d, model))
    ...         with open(os.path.join(d, model, "samples_arc_easy_2024-05-01T10-00-00.jsonl"), "w") as f:
    ...             for doc_id, acc in enumerate(values):
    ...                 _ = f.write(json.dumps({"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": acc}) + "\\n")
    ...     table = load_lm_eval([d], metric="acc")
    >>> table.models, table.queries, table.scores.tolist()
    (('m1', 'm2'), ('arc_easy/0', 'arc_easy/1'), [[1.0, 0.0], [1.0, 1.0]])
    """
    check_missing_policy(missing)
    files = find_files(paths, _is_samples_file, "lm-eval samples_<task>_<timestamp>.jsonl files")
    return assemble(
        _cells(files, metric, filter), source="lm-eval", metric=metric, missing=missing, origin=describe_paths(paths)
    )


def _is_samples_file(path: Path) -> bool:
    return path.name.startswith("samples_") and path.name.endswith(".jsonl")


def _cells(files: list[Path], metric: str, filter: str | None) -> Iterator[Cell]:
    models: dict[Path, str] = {}
    for path in files:
        match = SAMPLES_NAME.match(path.name)
        if match is None:
            raise LoaderError(
                f"{path}: not an lm-eval samples file name; expected samples_<task>_<timestamp>.jsonl with a "
                "timestamp like 2024-05-01T10-00-00.123456 (as lm-eval --log_samples writes it)"
            )
        if path.parent not in models:
            models[path.parent] = model_id_for(path.parent)
        yield from _file_cells(path, match.group("task"), models[path.parent], metric, filter)


def _file_cells(path: Path, task: str, model: str, metric: str, filter: str | None) -> Iterator[Cell]:
    rows: list[tuple[str, Mapping[str, JsonValue], str | int, str]] = []
    filters: list[str] = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        row = parse_json(line, where)
        if not isinstance(row, Mapping):
            raise LoaderError(f"{where}: expected a JSON object (one sample of lm-eval --log_samples)")
        doc_id = row.get("doc_id")
        if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)):
            raise LoaderError(f"{where}: no doc_id (an integer or a string); is this an lm-eval samples file?")
        row_filter = row.get("filter", "none")
        if not isinstance(row_filter, str):
            raise LoaderError(f"{where}: filter is {row_filter!r}, not a name")
        if row_filter not in filters:
            filters.append(row_filter)
        rows.append((where, row, doc_id, row_filter))
    if not rows:
        raise LoaderError(f"{path}: holds no samples (the file is empty)")
    if filter is None:
        if len(filters) > 1:
            raise LoaderError(
                f"{path}: the samples come with {len(filters)} filters ({', '.join(filters)}); "
                "choose one with --filter NAME (filter=NAME)"
            )
        chosen = filters[0]
    elif filter in filters:
        chosen = filter
    else:
        raise LoaderError(
            f"{path}: no sample has filter '{filter}'; the file has {', '.join(filters)}"
            + ("" if len(filters) > 1 else "; leave out --filter for a file with a single filter")
        )
    for where, row, doc_id, row_filter in rows:
        if row_filter != chosen:
            continue
        if metric not in row:
            raise LoaderError(f"{where}: metric '{metric}' not found; the line has {_metric_names(row)}")
        value = row[metric]
        if isinstance(value, (Mapping, list)):
            raise LoaderError(
                f"{where}: metric '{metric}' is a {'list' if isinstance(value, list) else 'JSON object'}, not one "
                "score: it is aggregated over the whole task, so it has no per-sample value; choose a per-sample "
                "metric such as acc or exact_match"
            )
        if value is None or isinstance(value, str):
            raise LoaderError(f"{where}: metric '{metric}' is {value!r}, not a number")
        yield Cell(model, f"{task}/{doc_id}", value, where)


def _metric_names(row: Mapping[str, JsonValue]) -> str:
    listed = row.get("metrics")
    names = [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []
    if not names:
        names = [key for key, value in row.items() if isinstance(value, (int, float)) and key not in ("doc_id",)]
    return ", ".join(names) if names else "no metric"


def model_id_for(directory: Path) -> str:
    """The model id of the samples files in *directory* (the rule of the module docstring).

    >>> import tempfile, os, json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with open(os.path.join(d, "results_2024-05-01T10-00-00.json"), "w") as f:
    ...         _ = f.write(json.dumps({"config": {"model_args": "pretrained=org/m,dtype=bfloat16"}}))
    ...     model_id_for(Path(d))
    'org/m'
    """
    found: dict[str, Path] = {}
    for path in sorted(directory.glob("results_*.json")):
        document = read_json(path)
        if not isinstance(document, Mapping):
            raise LoaderError(f"{path}: expected a JSON object (an lm-eval results file)")
        name = _model_from_results(document)
        if name is not None:
            found.setdefault(name, path)
    if len(found) > 1:
        named = ", ".join(f"'{name}' ({path.name})" for name, path in found.items())
        raise LoaderError(
            f"{directory}: its results files name different models: {named}; keep each model's samples in a "
            "directory of its own"
        )
    if found:
        return next(iter(found))
    return directory.name or directory.resolve().name


def _model_from_results(document: Mapping[str, JsonValue]) -> str | None:
    name = document.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    config = document.get("config")
    args = config.get("model_args") if isinstance(config, Mapping) else None
    if isinstance(args, Mapping):
        for key in _MODEL_ARG_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    elif isinstance(args, str):
        pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
        for key in _MODEL_ARG_KEYS:
            if pairs.get(key, "").strip():
                return pairs[key].strip()
    return None
