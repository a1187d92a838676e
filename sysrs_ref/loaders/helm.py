"""Loading HELM per-instance statistics (``per_instance_stats.json``) into a score table.

HELM writes one directory per run (``benchmark_output/runs/<suite>/<run name>/``)
holding ``run_spec.json`` and ``per_instance_stats.json``: a JSON list of
objects with ``instance_id``, ``train_trial_index``, an optional
``perturbation`` and ``stats``, a list of ``{"name": {"name": METRIC, "split":
..., optional "perturbation": {...}}, "count", "sum", "sum_squared", "min",
"max", "mean"}``.

The rules this loader follows:

- **Score:** the ``mean`` of the stat named *metric*, taken only from entries
  with ``train_trial_index`` 0 and no perturbation, neither on the entry nor on
  the stat's name (perturbed copies and later trials are skipped).
- **Model id:** ``adapter_spec.model`` of ``run_spec.json``, else
  ``adapter_spec.model_deployment``; without a ``run_spec.json``, the
  ``model=`` argument of the directory's name, else the directory's name.
- **Query id:** ``"<run>/<instance_id>"`` where ``<run>`` is the run's name
  (``run_spec.json``'s ``name``, else the directory's name) with its
  ``model=`` and ``model_deployment=`` arguments removed, so that two models'
  runs of one scenario share their query ids:
  ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2`` and
  instance ``id12`` give ``mmlu:subject=anatomy,method=multiple_choice_joint/id12``.
- A metric that no kept entry of a file has is an error; an instance that
  lacks it while others have it is a missing cell (see the ``missing`` policy).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._reading import PathsArg, describe_paths, find_files, read_json
from sysrs_ref.loaders.table import Cell, ScoreTable, assemble, check_missing_policy

__all__ = ["STATS_FILE", "load_helm", "run_key"]

STATS_FILE = "per_instance_stats.json"
_MODEL_ARGS = ("model", "model_deployment")


def load_helm(paths: PathsArg, *, metric: str, missing: str = "fail") -> ScoreTable:
    """Read HELM ``per_instance_stats.json`` files into a :class:`ScoreTable`.

    *paths* are files or directories (searched recursively for
    ``per_instance_stats.json``, in sorted order); *metric* is a stat name
    (``"exact_match"``); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. The module docstring gives the
    id rules. Raises :class:`~sysrs_ref.errors.LoaderError` naming the file and
    entry for anything it cannot use.

    >>> import tempfile, os, json
    >>> def stat(value): return {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": value}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, value in (("m1", 1), ("m2", 0)):
    ...         run = os.path.join(d, model)
    ...         os.mkdir(run)
    ...         spec = {"name": f"mmlu:subject=anatomy,model={model}", "adapter_spec": {"model": f"org/{model}"}}
    ...         _ = open(os.path.join(run, "run_spec.json"), "w").write(json.dumps(spec))
    ...         stats = [{"instance_id": "id7", "train_trial_index": 0, "stats": [stat(value)]}]
    ...         _ = open(os.path.join(run, "per_instance_stats.json"), "w").write(json.dumps(stats))
    ...     table = load_helm(d, metric="exact_match")
    >>> table.models, table.queries, table.scores.tolist()
    (('org/m1', 'org/m2'), ('mmlu:subject=anatomy/id7',), [[1.0], [0.0]])
    """
    check_missing_policy(missing)
    files = find_files(paths, lambda path: path.name == STATS_FILE, f"HELM {STATS_FILE} files")
    return assemble(_cells(files, metric), source="helm", metric=metric, missing=missing, origin=describe_paths(paths))


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
        if key.strip() in _MODEL_ARGS:
            if key.strip() == "model" and value.strip():
                model = value.strip()
            continue
        kept.append(argument)
    return (f"{head}:{','.join(kept)}" if kept else head), model


def _run_ids(run_dir: Path) -> tuple[str, str]:
    """(model id, run key) of the run in *run_dir*."""
    spec_path = run_dir / "run_spec.json"
    name = run_dir.name or run_dir.resolve().name
    model: str | None = None
    if spec_path.is_file():
        spec = read_json(spec_path)
        if not isinstance(spec, Mapping):
            raise LoaderError(f"{spec_path}: expected a JSON object (a HELM run spec)")
        spec_name = spec.get("name")
        if isinstance(spec_name, str) and spec_name.strip():
            name = spec_name.strip()
        adapter = spec.get("adapter_spec")
        if isinstance(adapter, Mapping):
            for key in _MODEL_ARGS:
                value = adapter.get(key)
                if isinstance(value, str) and value.strip():
                    model = value.strip()
                    break
    key, model_argument = run_key(name)
    return model or model_argument or name, key


def _cells(files: list[Path], metric: str) -> Iterator[Cell]:
    for path in files:
        model, key = _run_ids(path.parent)
        yield from _file_cells(path, model, key, metric)


def _file_cells(path: Path, model: str, key: str, metric: str) -> Iterator[Cell]:
    entries = read_json(path)
    if not isinstance(entries, list):
        raise LoaderError(f"{path}: expected a JSON list of per-instance stats (HELM's {STATS_FILE})")
    names: set[str] = set()
    found = False
    for index, entry in enumerate(entries, start=1):
        where = f"{path} entry {index}"
        if not isinstance(entry, Mapping):
            raise LoaderError(f"{where}: expected a JSON object with instance_id, train_trial_index and stats")
        instance = entry.get("instance_id")
        if isinstance(instance, bool) or not isinstance(instance, (str, int)):
            raise LoaderError(f"{where}: no instance_id; is this HELM's {STATS_FILE}?")
        where = f"{path} entry {index} (instance {instance})"
        trial = entry.get("train_trial_index", 0)
        if isinstance(trial, bool) or not isinstance(trial, int):
            raise LoaderError(f"{where}: train_trial_index is {trial!r}, not an integer")
        stats = entry.get("stats")
        if not isinstance(stats, list):
            raise LoaderError(f"{where}: no list of stats")
        kept = trial == 0 and entry.get("perturbation") is None
        for item in stats:
            stat, name = _stat_and_name(item, where)
            stat_metric = name.get("name")
            if isinstance(stat_metric, str):
                names.add(stat_metric)
            if not kept or stat_metric != metric or name.get("perturbation") is not None:
                continue
            if "mean" not in stat:
                raise LoaderError(
                    f"{where}: stat '{metric}' has no mean (count {stat.get('count')}); HELM leaves it out when "
                    "the metric was computed on nothing"
                )
            found = True
            yield Cell(model, f"{key}/{instance}", stat["mean"], where)
    if not found:
        has = ", ".join(sorted(names)) or "no stats"
        raise LoaderError(f"{path}: no unperturbed stat named '{metric}' at train_trial_index 0; the file has {has}")


def _stat_and_name(item: JsonValue, where: str) -> tuple[Mapping[str, JsonValue], Mapping[str, JsonValue]]:
    name = item.get("name") if isinstance(item, Mapping) else None
    if not isinstance(item, Mapping) or not isinstance(name, Mapping):
        raise LoaderError(f'{where}: a stat without a name object ({{"name": {{"name": METRIC, ...}}, ...}})')
    return item, name
