"""The model id of lm-evaluation-harness samples files, from the ``results_*.json`` files beside them.

:func:`directory_model` reads a directory's ``results_*.json`` (and its
results files renamed by hand, known by their content) for the
``model_name`` (else the ``pretrained=``, then ``model=``, argument of
``config.model_args``), falls back on the directory's name, refuses results
files naming different models, and logs each results file read with what it
gave (their aggregate scores are never read). The rule is that of
:mod:`sysrs_ref.loaders.lm_eval`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._lm_eval_results import results_files, results_timestamp
from sysrs_ref.loaders._reading import read_json
from sysrs_ref.loaders.table import FileLog

__all__ = ["directory_model"]

_MODEL_ARG_KEYS = ("pretrained", "model")


def directory_model(directory: Path, log: FileLog) -> str:
    """The model id of *directory*'s samples files; each results file read is logged with what it gave."""
    found: dict[str, Path] = {}
    named: list[tuple[Path, str | None, str]] = []
    for path in results_files(directory):
        document = read_json(path)
        if not isinstance(document, Mapping):
            raise LoaderError(f"{path}: expected a JSON object (an lm-eval results file)")
        name, how = _model_from_results(document)
        named.append((path, name, how))
        if name is not None:
            found.setdefault(name, path)
    if len(found) > 1:
        listed = ", ".join(f"'{name}' ({path.name})" for name, path in found.items())
        raise LoaderError(
            f"{directory}: its results files name different models: {listed}; keep each model's samples in a "
            "directory of its own"
        )
    model = next(iter(found)) if found else (directory.name or directory.resolve().name)
    for path, name, how in named:
        renamed = (
            ""
            if results_timestamp(path) is not None
            else "; a results file renamed by hand (lm-eval writes results_<timestamp>.json)"
        )
        if name is not None:
            log.used(path, 0, f"the model id '{name}' (its {how}){renamed}; its aggregate scores are not read")
        else:
            log.skipped(
                path,
                "names no model (no model_name, no pretrained= or model= in config.model_args) and its aggregate "
                f"scores are not read{renamed}",
            )
    return model


def _model_from_results(document: Mapping[str, JsonValue]) -> tuple[str | None, str]:
    name = document.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip(), "model_name"
    config = document.get("config")
    args = config.get("model_args") if isinstance(config, Mapping) else None
    if isinstance(args, Mapping):
        for key in _MODEL_ARG_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip(), f"config.model_args {key}="
    elif isinstance(args, str):
        pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
        for key in _MODEL_ARG_KEYS:
            if pairs.get(key, "").strip():
                return pairs[key].strip(), f"config.model_args {key}="
    return None, ""
