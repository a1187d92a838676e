"""Reading one HELM run: its ``run_spec.json`` (name, key, model id, suite) and its ``per_instance_stats.json``.

Each JSON file is read no further than the limit the caller passes (the
constants of :mod:`sysrs_ref.loaders.helm`, read there at each call) and refused,
naming the file, above it or when it is a git-lfs pointer. A run's stats become
one cell per instance: the ``mean`` of the stat named *metric* from the
unperturbed entries, each instance's train trials reduced as *epochs* says, the
same (instance, trial) twice merged when its scores agree and refused when they
differ; what the report says of the run (its stat names, trial counts,
perturbed entries) is gathered on the way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from sysrs_ref._files import open_regular
from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._epochs import reduce_epochs
from sysrs_ref.loaders._helm_runs import MODEL_ARGS, SPEC_FILE, STATS_FILE, Run, run_key
from sysrs_ref.loaders._reading import lfs_pointer_message, parse_json, read_failure
from sysrs_ref.loaders.table import Cell, Samples
from sysrs_ref.scores import checked_score

__all__ = ["MAIN_SPLIT", "SPLIT_ALL", "SPLIT_AUTO", "Stats", "identify", "query_id", "read_stats"]


def _read_json(path: Path, limit: int) -> JsonValue:
    """The JSON document in *path*, read no further than *limit* bytes, or a :class:`LoaderError` naming the file."""
    try:
        with open_regular(path) as handle:
            data = handle.read(limit + 1)
    except OSError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    message = lfs_pointer_message(path, data[:1024])
    if message is not None:
        raise LoaderError(message)
    if len(data) > limit:
        raise LoaderError(
            f"{path}: larger than {limit:,} bytes, the most this loader reads from a {path.name}; is it the right "
            "file? (split the run, or convert its instances another way)"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    return parse_json(text, str(path))


def identify(run: Run, spec_limit: int) -> None:
    """Fill in *run*'s name, key, model id and suite from its run spec (else its directory's name).

    The run spec is read no further than *spec_limit* bytes.
    """
    run.suite = run.directory.resolve().parent.name
    run.name = run.directory.name or run.directory.resolve().name
    model: str | None = None
    spec_path = run.directory / SPEC_FILE
    if not run.empty and spec_path.is_file():
        try:
            spec = _read_json(spec_path, spec_limit)
        except LoaderError:
            if run.stats is not None:
                raise
            spec = None  # an unfinished run may have stopped while writing its spec; it is skipped anyway
        if spec is not None and not isinstance(spec, Mapping):
            if run.stats is not None:
                raise LoaderError(f"{spec_path}: expected a JSON object (a HELM run spec)")
            spec = None
        if isinstance(spec, Mapping):
            spec_name = spec.get("name")
            if isinstance(spec_name, str) and spec_name.strip():
                run.name = spec_name.strip()
            adapter = spec.get("adapter_spec")
            if isinstance(adapter, Mapping):
                for key in MODEL_ARGS:
                    value = adapter.get(key)
                    if isinstance(value, str) and value.strip():
                        model = value.strip()
                        break
    run.key, model_argument = run_key(run.name)
    run.model = model or model_argument or run.name


@dataclass
class Stats:
    """A run's per-instance stats, read: its cells, and what the report says about it."""

    cells: list[Cell] = field(default_factory=list)
    exact: dict[str, tuple[tuple[Fraction, ...], object, str]] = field(default_factory=dict)
    """Per query: the exact score(s), the value shown in messages, and where it was read."""
    names: set[str] = field(default_factory=set)
    trials: list[int] = field(default_factory=list)
    perturbed: int = 0
    splits: dict[str, int] = field(default_factory=dict)
    """Per split named by the stats with the metric, how many instances it has."""
    read_splits: list[str | None] = field(default_factory=list)
    """The splits whose instances became cells (None: stats that name no split)."""


def _checked(value: JsonValue, where: str) -> Fraction:
    try:
        return checked_score(value)
    except ValueError as problem:
        raise LoaderError(f"{where}: score {problem}; every score must be a number in [0, 1]") from None


#: What ``--split`` accepts besides a split's name: the split HELM's tables use, or every split.
SPLIT_AUTO = "auto"
SPLIT_ALL = "all"
#: The split HELM's own tables report (its run groups' ``main_split``, unless a group names another).
MAIN_SPLIT = "test"


def query_id(key: str, split: str | None, instance: str) -> str:
    """The query id of *instance* of the run *key* in *split*: the split is named unless it is the test split.

    >>> query_id("mmlu:subject=anatomy", "test", "id7"), query_id("mmlu:subject=anatomy", "valid", "id3")
    ('mmlu:subject=anatomy/id7', 'mmlu:subject=anatomy/valid/id3')
    """
    return f"{key}/{instance}" if split in (None, MAIN_SPLIT) else f"{key}/{split}/{instance}"


def read_stats(run: Run, metric: str, mode: str, stats_limit: int, split: str = SPLIT_AUTO) -> Stats:
    """*run*'s cells for *metric*, one per instance of the split chosen, its trials reduced as *mode* says.

    *split* is a split's name, :data:`SPLIT_AUTO` (the test split when the
    run has one, else the run's only split; a run with several splits and
    no test split is an error) or :data:`SPLIT_ALL`. Its
    per_instance_stats.json is read no further than *stats_limit* bytes.
    """
    assert run.stats is not None
    path = run.stats
    entries = _read_json(path, stats_limit)
    if not isinstance(entries, list):
        raise LoaderError(f"{path}: expected a JSON list of per-instance stats (HELM's {STATS_FILE})")
    out = Stats()
    # per split, per instance: per train trial the (value, entry number, where) of each occurrence
    seen: dict[str | None, dict[str, dict[int, list[tuple[JsonValue, int, str]]]]] = {}
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
        kept = entry.get("perturbation") is None
        out.perturbed += 0 if kept else 1
        for item in stats:
            stat, name = _stat_and_name(item, where)
            stat_metric = name.get("name")
            if isinstance(stat_metric, str):
                out.names.add(stat_metric)
            if not kept or stat_metric != metric or name.get("perturbation") is not None:
                continue
            if "mean" not in stat:
                raise LoaderError(
                    f"{where}: stat '{metric}' has no mean (count {stat.get('count')}); HELM leaves it out when "
                    "the metric was computed on nothing"
                )
            stat_split = name.get("split")
            split_name = stat_split if isinstance(stat_split, str) and stat_split else None
            by_instance = seen.setdefault(split_name, {})
            by_instance.setdefault(str(instance), {}).setdefault(trial, []).append((stat["mean"], index, where))
    out.splits = {name: len(instances) for name, instances in seen.items() if name is not None}
    for split_name in _chosen_splits(path, list(seen), split):
        out.read_splits.append(split_name)
        for instance, by_trial in seen[split_name].items():
            _instance_cells(out, run, query_id(run.key, split_name, instance), instance, by_trial, mode)
    return out


def _chosen_splits(path: Path, present: list[str | None], split: str) -> list[str | None]:
    """The splits of a run to read, of those *present* (None: stats that name no split), as *split* says."""
    named = [name for name in present if name is not None]
    if split == SPLIT_ALL or not named:
        return present
    if split != SPLIT_AUTO:
        return [name for name in present if name in (None, split)]
    if MAIN_SPLIT in named or len(named) == 1:
        chosen = MAIN_SPLIT if MAIN_SPLIT in named else named[0]
        return [name for name in present if name in (None, chosen)]
    raise LoaderError(
        f"{path}: the run scores instances of {len(named)} splits ({', '.join(sorted(named))}) and none is "
        f"'{MAIN_SPLIT}', the split HELM's tables report; choose one with --split NAME (or --split all, which keeps "
        "each split's instances as queries of their own)"
    )


def _instance_cells(
    out: Stats,
    run: Run,
    query: str,
    instance: str,
    by_trial: dict[int, list[tuple[JsonValue, int, str]]],
    mode: str,
) -> None:
    """Append one instance's cell to *out* (repeated once per merged duplicate entry, which assemble counts)."""
    trials = sorted(by_trial)[:1] if mode == "first" else sorted(by_trial)
    values: list[tuple[Fraction, JsonValue]] = []
    numbers: list[int] = []
    repeats = 0
    for trial in trials:
        (raw, number, where), *others = by_trial[trial]
        exact = _checked(raw, where)
        for other_raw, _, other_where in others:
            if _checked(other_raw, other_where) != exact:
                raise LoaderError(
                    f"model '{run.model}', query '{query}' has two different scores: {raw} at {where} and "
                    f"{other_raw} at {other_where}; keep one of them (remove the other file or entry) and convert again"
                )
        repeats += len(others)
        values.append((exact, raw))
        numbers.append(number)
    first_where = by_trial[trials[0]][0][2]
    if len(trials) == 1:
        where = first_where
    else:
        shown = ", ".join(str(number) for number in numbers)
        where = f"{run.stats} entries {shown} (instance {instance}, train trials {', '.join(map(str, trials))})"
    exact_values = tuple(value for value, _ in values)
    score: object
    if mode == "all":
        score = Samples(raw for _, raw in values)
        shown_score: object = score
    elif len(values) == 1:
        score = shown_score = values[0][1]
    else:
        reduced = reduce_epochs(exact_values, "mean" if mode == "auto" else mode)
        score = shown_score = reduced
        exact_values = (reduced,)
    out.trials.append(len(by_trial))
    out.exact[query] = (exact_values, shown_score, where)
    out.cells.extend([Cell(run.model, query, score, where)] * (1 + repeats))


def _stat_and_name(item: JsonValue, where: str) -> tuple[Mapping[str, JsonValue], Mapping[str, JsonValue]]:
    name = item.get("name") if isinstance(item, Mapping) else None
    if not isinstance(item, Mapping) or not isinstance(name, Mapping):
        raise LoaderError(f'{where}: a stat without a name object ({{"name": {{"name": METRIC, ...}}, ...}})')
    return item, name
