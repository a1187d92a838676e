"""Loading HELM runs (``per_instance_stats.json`` beside ``run_spec.json``) into a score table.

HELM writes one directory per run, ``benchmark_output/runs/<suite>/<run name>/``,
holding ``run_spec.json``, ``scenario.json``, ``scenario_state.json``,
``stats.json`` and ``per_instance_stats.json`` (``helm-summarize`` adds
``instances.json``, ``display_predictions.json`` and ``display_requests.json``).
``per_instance_stats.json`` is a JSON list of objects with ``instance_id``,
``train_trial_index``, an optional ``perturbation`` and ``stats``, a list of
``{"name": {"name": METRIC, "split": ..., optional "perturbation": {...}},
"count", "sum", "sum_squared", "min", "max", "mean"}``. Only that file and
``run_spec.json`` are read.

The rules this loader follows:

- **Runs:** a run is a directory holding ``run_spec.json`` or
  ``per_instance_stats.json``; a folder given is searched for them at any
  depth, in sorted order. The rest of a suite folder is not a run and is not
  reported: ``eval_cache/``, ``groups/`` and the files ``helm-summarize``
  writes there (``costs.json``, ``run_specs.json``, ``runs.json``,
  ``summary.json``, ``schema.json``, ``runs_to_run_suites.json``,
  ``groups.json``, ...). A file named directly is read as the run's
  ``per_instance_stats.json`` (a ``run_spec.json`` named directly stands for
  its directory).
- **Runs left out, each listed in the report** (:attr:`ScoreTable.files`): a run
  without ``per_instance_stats.json`` (HELM writes its files when the run
  ends, ``run_spec.json`` first: the run did not finish, or an old HELM or a
  partial copy left it out); an empty directory beside the runs of a suite
  (a run that stopped before writing anything); a run that no ``tasks``
  pattern selects; a run whose stats lack *metric* while another run has it
  (a suite of several scenarios); the losing copy of a run found in two
  suites.
- **Score:** the ``mean`` of the stat named *metric*, from entries with no
  perturbation, neither on the entry nor on the stat's name (perturbed copies
  are skipped). An instance run in several train trials (``train_trial_index``
  0, 1, ...; the run spec's ``num_train_trials``) has one score per trial,
  reduced as *epochs* says (see below).
- **Model id:** ``adapter_spec.model`` of ``run_spec.json``, else
  ``adapter_spec.model_deployment``; without a ``run_spec.json``, the
  ``model=`` argument of the directory's name, else the directory's name.
- **Query id:** ``"<run>/<instance_id>"`` where ``<run>`` is the run's key: its
  name (``run_spec.json``'s ``name``, else the directory's name) with its
  ``model=`` and ``model_deployment=`` arguments removed, so that two models'
  runs of one scenario share their query ids:
  ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2`` and
  instance ``id12`` give ``mmlu:subject=anatomy,method=multiple_choice_joint/id12``.
- **Suite:** the name of the directory holding the run directory:
  ``runs/v1.1.0/<run>/`` is in suite ``v1.1.0``. Runs kept elsewhere follow the
  same rule (``results/a/<run>/`` is in suite ``a``), so keep two copies of a
  run in differently named folders if they are to be told apart.
- A stat named *metric* that no run has is an error listing the stats there
  are; an instance that lacks it while others have it is a missing cell (see
  the ``missing`` policy). The same (instance, trial) twice with the same
  score is merged and counted as a duplicate; with different scores it is an
  error naming both entries.
- Each JSON file read is refused above :data:`MAX_STATS_BYTES`
  (``per_instance_stats.json``) or :data:`MAX_SPEC_BYTES` (``run_spec.json``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from fractions import Fraction
from pathlib import Path

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.loaders._epochs import check_epochs, reduce_epochs
from sysrs_ref.loaders._reading import PathsArg, describe_paths, lfs_pointer_message, parse_json, read_failure
from sysrs_ref.loaders.table import Cell, FileLog, Samples, ScoreTable, assemble, check_missing_policy
from sysrs_ref.scores import checked_score

__all__ = ["MAX_SPEC_BYTES", "MAX_STATS_BYTES", "SPEC_FILE", "STATS_FILE", "load_helm", "run_key"]

STATS_FILE = "per_instance_stats.json"
SPEC_FILE = "run_spec.json"
#: The largest ``per_instance_stats.json`` read (1 GiB); a larger one is refused, naming the file.
MAX_STATS_BYTES = 1 << 30
#: The largest ``run_spec.json`` read (16 MiB); a larger one is refused, naming the file.
MAX_SPEC_BYTES = 16 << 20
_MODEL_ARGS = ("model", "model_deployment")
_NOT_RUNS = frozenset({"eval_cache", "groups"})
"""The folders HELM itself keeps beside the runs of a suite (``helm-summarize`` skips the same two)."""
_LISTED = 10
_UNFINISHED = f"no {STATS_FILE} (the run did not finish, or was written by an old HELM); rerun it or leave it out"
_EMPTY = (
    f"no {SPEC_FILE} or {STATS_FILE} in this folder beside the runs of its suite (a run that stopped before "
    "writing its results: HELM writes them when the run ends); rerun it or leave it out"
)


def load_helm(
    paths: PathsArg,
    *,
    metric: str,
    missing: str = "fail",
    epochs: str = "auto",
    tasks: Sequence[str] = (),
    suites: Sequence[str] = (),
) -> ScoreTable:
    """Read HELM runs (``per_instance_stats.json`` and ``run_spec.json``) into a :class:`ScoreTable`.

    *paths* are run directories, folders holding them (``benchmark_output``,
    ``runs/<suite>``; searched at any depth, in sorted order) or
    ``per_instance_stats.json`` files; *metric* is a stat name
    (``"exact_match"``); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. The module docstring gives the
    id rules and what is left out; :attr:`ScoreTable.files` lists every run
    (its ``per_instance_stats.json``, or its directory when there is none)
    with whether it was used and why not.

    *epochs* says what becomes of an instance's train trials (``convert
    --epochs``): ``"auto"`` (the default) and ``"mean"``, their exact mean,
    which is what HELM reports (its ``stats.json`` averages each trial over
    the instances, then the trials); ``"first"``, the first trial
    (``train_trial_index`` 0); ``"median"``, ``"mode"``, ``"max"``, ``"min"``,
    that reduction (:func:`~sysrs_ref.loaders._epochs.reduce_epochs`); ``"all"``,
    every trial kept (:attr:`ScoreTable.samples`, K x L x trials). The choice
    is recorded in :attr:`ScoreTable.settings` and each used run's note
    (``"3 trials, mean"``).

    *tasks* (``convert --task`` or ``--run``) are ``fnmatch`` patterns
    (``*``, ``?``, ``[...]``, case-sensitive) selecting runs: a run is read
    when a pattern matches its key (its name without model arguments,
    ``mmlu:subject=anatomy,method=multiple_choice_joint``) or its full name
    (``...,model=openai_gpt2``): ``"mmlu:*"`` selects every MMLU subject,
    ``"*model=openai_gpt2*"`` every run of one model. Empty: every run. A
    pattern that selects no run is an error listing the runs there are.

    *suites* (``convert --suite``, repeatable) settle a run found in several
    suites (the same model and run key): the suite listed first wins, and a
    suite not listed loses to any listed one; the losing runs are left out
    (and reported). Without a preference the copies must agree: identical
    scores are merged (counted in :attr:`ScoreTable.duplicates`), different
    ones are an error naming both suites. A name that is no run's suite is an
    error.

    Raises :class:`~sysrs_ref.errors.ParameterError` for an unknown *missing*
    or *epochs*, and :class:`~sysrs_ref.errors.LoaderError` naming the file and
    entry for anything it cannot use.

    >>> import tempfile, os, json
    >>> def stat(value): return {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": value}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for model, values in (("m1", (1, 0, 1)), ("m2", (0, 0, 1))):
    ...         run = os.path.join(d, model)
    ...         os.mkdir(run)
    ...         spec = {"name": f"mmlu:subject=anatomy,model={model}", "adapter_spec": {"model": f"org/{model}"}}
    ...         _ = open(os.path.join(run, "run_spec.json"), "w").write(json.dumps(spec))
    ...         stats = [{"instance_id": "id7", "train_trial_index": t, "stats": [stat(v)]} for t, v in enumerate(values)]
    ...         _ = open(os.path.join(run, "per_instance_stats.json"), "w").write(json.dumps(stats))
    ...     table = load_helm(d, metric="exact_match")
    ...     first = load_helm(d, metric="exact_match", epochs="first", tasks=["*model=m1"])
    >>> table.models, table.queries, table.scores.tolist(), table.files[0].note
    (('org/m1', 'org/m2'), ('mmlu:subject=anatomy/id7',), [[0.6666666666666666], [0.3333333333333333]], '3 trials, mean')
    >>> first.scores.tolist(), first.files[1].used, first.files[1].note
    ([[1.0]], False, "run 'mmlu:subject=anatomy,model=m2' is not selected by --run '*model=m1'")
    """
    check_missing_policy(missing)
    mode = check_epochs(epochs)
    patterns = _as_names(tasks, "tasks")
    preference = _as_names(suites, "suites")
    given = _paths_list(paths)
    origin = describe_paths(given)
    files = FileLog()
    settings = {"epochs": _EPOCH_SETTINGS.get(mode, f"{mode} over train trials")}
    cells = _cells(_find(given), metric, mode, patterns, preference, files, settings, origin)
    return assemble(cells, source="helm", metric=metric, missing=missing, origin=origin, files=files, settings=settings)


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


_EPOCH_SETTINGS = {
    "auto": "mean over train trials (auto: what HELM reports)",
    "first": "first train trial (train_trial_index 0)",
    "all": "all train trials kept",
}
_NOTE_REDUCTION = {"auto": "mean", "all": "all kept"}


def _as_names(values: Sequence[str], what: str) -> tuple[str, ...]:
    """*values* as a tuple of strings (a lone string is one name, not its characters)."""
    names = (values,) if isinstance(values, str) else tuple(values)
    for value in names:
        if not isinstance(value, str):
            raise ParameterError(f"{what} must be strings; got {value!r}")
    return names


# -- finding the runs ---------------------------------------------------------------------------------------


@dataclass
class _Run:
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


def _paths_list(paths: PathsArg) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        return [Path(os.fspath(paths))]
    return [Path(os.fspath(path)) for path in paths]


def _find(given: list[Path]) -> list[_Run]:
    """Every run that the paths *given* stand for (and the empty leftovers beside them), in order, each once."""
    if not given:
        raise LoaderError(
            f"no input paths given: name HELM run directories, folders holding them (runs/<suite>) or {STATS_FILE} "
            "files"
        )
    found: list[_Run] = []
    seen: set[tuple[Path, Path | None]] = set()

    def add(run: _Run) -> None:
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
                add(_Run(path.parent, stats if stats.is_file() else None))
            else:
                add(_Run(path.parent, path))
        elif path.exists():
            raise LoaderError(f"{path}: not a regular file or a directory")
        else:
            raise LoaderError(f"{path}: no such file or directory")
    return found


def _search(folder: Path) -> list[_Run]:
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
        _Run(directory, None, empty=True)
        if directory in empty
        else _Run(directory, directory / STATS_FILE if (directory / STATS_FILE).is_file() else None)
        for directory in ordered
    ]


def _is_empty(directory: Path) -> bool:
    """Whether *directory* holds nothing (one that cannot be listed counts as not empty: it is not reported)."""
    try:
        return next(directory.iterdir(), None) is None
    except OSError:
        return False


# -- reading ------------------------------------------------------------------------------------------------


def _read_json(path: Path, limit: int) -> JsonValue:
    """The JSON document in *path*, read no further than *limit* bytes, or a :class:`LoaderError` naming the file."""
    try:
        with path.open("rb") as handle:
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


def _identify(run: _Run) -> None:
    """Fill in *run*'s name, key, model id and suite from its run spec (else its directory's name)."""
    run.suite = run.directory.resolve().parent.name
    run.name = run.directory.name or run.directory.resolve().name
    model: str | None = None
    spec_path = run.directory / SPEC_FILE
    if not run.empty and spec_path.is_file():
        try:
            spec = _read_json(spec_path, MAX_SPEC_BYTES)
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
                for key in _MODEL_ARGS:
                    value = adapter.get(key)
                    if isinstance(value, str) and value.strip():
                        model = value.strip()
                        break
    run.key, model_argument = run_key(run.name)
    run.model = model or model_argument or run.name


@dataclass
class _Stats:
    """A run's per-instance stats, read: its cells, and what the report says about it."""

    cells: list[Cell] = field(default_factory=list)
    exact: dict[str, tuple[tuple[Fraction, ...], object, str]] = field(default_factory=dict)
    """Per query: the exact score(s), the value shown in messages, and where it was read."""
    names: set[str] = field(default_factory=set)
    trials: list[int] = field(default_factory=list)
    perturbed: int = 0


def _checked(value: JsonValue, where: str) -> Fraction:
    try:
        return checked_score(value)
    except ValueError as problem:
        raise LoaderError(f"{where}: score {problem}; every score must be a number in [0, 1]") from None


def _read_stats(run: _Run, metric: str, mode: str) -> _Stats:
    """*run*'s cells for *metric*, one per instance, its trials reduced as *mode* says."""
    assert run.stats is not None
    path = run.stats
    entries = _read_json(path, MAX_STATS_BYTES)
    if not isinstance(entries, list):
        raise LoaderError(f"{path}: expected a JSON list of per-instance stats (HELM's {STATS_FILE})")
    out = _Stats()
    # per query: the instance id, then per train trial the (value, entry number, where) of each occurrence
    seen: dict[str, tuple[str, dict[int, list[tuple[JsonValue, int, str]]]]] = {}
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
            query = f"{run.key}/{instance}"
            seen.setdefault(query, (str(instance), {}))[1].setdefault(trial, []).append((stat["mean"], index, where))
    for query, (instance, by_trial) in seen.items():
        _instance_cells(out, run, query, instance, by_trial, mode)
    return out


def _instance_cells(
    out: _Stats,
    run: _Run,
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


# -- choosing the runs and yielding their cells ---------------------------------------------------------------


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _quoted(flag: str, values: Sequence[str]) -> str:
    return " ".join(f"{flag} '{value}'" for value in values)


def _cells(
    runs: list[_Run],
    metric: str,
    mode: str,
    patterns: tuple[str, ...],
    preference: tuple[str, ...],
    files: FileLog,
    settings: dict[str, str],
    origin: str,
) -> Iterator[Cell]:
    """The cells of the runs chosen among *runs*; every run's fate is recorded in *files*, in the order found."""
    notes: dict[int, str] = {}  # position in runs -> why it was left out
    for run in runs:
        _identify(run)
    for position, run in enumerate(runs):
        if run.empty:
            notes[position] = _EMPTY
    real = [(position, run) for position, run in enumerate(runs) if not run.empty]
    if patterns:
        settings["runs"] = ", ".join(patterns) + " (matched against run names with and without model=)"
        hits = dict.fromkeys(patterns, 0)
        for position, run in real:
            matched = [p for p in patterns if fnmatchcase(run.key, p) or fnmatchcase(run.name, p)]
            for pattern in matched:
                hits[pattern] += 1
            if not matched:
                notes[position] = f"run '{run.name}' is not selected by {_quoted('--run', patterns)}"
        unmatched = [pattern for pattern, count in hits.items() if not count]
        if unmatched:
            keys = sorted({run.key for _, run in real})
            raise LoaderError(
                f"{origin}: {_quoted('--run', unmatched)} selects no run (a pattern is matched against each run's "
                f"name, with and without its model= argument); the runs are: {_listing(keys)}"
            )
    for position, run in real:
        if position not in notes and run.stats is None:
            notes[position] = _UNFINISHED
    candidates = [(position, run) for position, run in real if position not in notes]
    suite_names = sorted({run.suite for _, run in real})
    unknown = [name for name in preference if name not in suite_names]
    if unknown:
        raise LoaderError(
            f"{origin}: {_quoted('--suite', unknown)}: no run is in a suite of that name (a run's suite is the name "
            f"of the folder holding it); the suites are: {_listing(suite_names)}"
        )
    if preference:
        settings["suites"] = ", ".join(preference) + " (a run in several suites: the first listed wins)"
    elif len({run.suite for _, run in candidates}) > 1:
        settings["suites"] = "no preference (a run in several suites must have the same scores in each)"
    _settle_suites(candidates, preference, notes)
    read: dict[int, _Stats] = {}
    for position, run in candidates:
        if position not in notes:
            read[position] = _read_stats(run, metric, mode)
    with_metric = [position for position, stats in read.items() if stats.exact]
    if read and not with_metric:
        position = min(read)
        has = ", ".join(sorted(read[position].names)) or "no stats"
        others = f", and none of the other {len(read) - 1} runs read has it either" if len(read) > 1 else ""
        extra = sorted(set().union(*(stats.names for stats in read.values())) - read[position].names)
        also = f" (they also have {', '.join(extra)})" if extra else ""
        raise LoaderError(
            f"{runs[position].path}: no unperturbed stat named '{metric}' in any train trial; the file has {has}"
            f"{others}{also}; choose one with --metric NAME"
        )
    for position, stats in read.items():
        if not stats.exact:
            has = ", ".join(sorted(stats.names)) or "no stats"
            notes[position] = f"no unperturbed stat named '{metric}' (another scenario or metric); its stats are {has}"
    if not preference:
        _check_agreement([(runs[position], read[position]) for position in sorted(read) if position not in notes])
    if not any(position not in notes for position in read):
        reasons = sorted(set(notes.values()))
        raise LoaderError(
            f"{origin}: none of the {len(runs)} HELM runs found can be read: " + "; ".join(reasons[:_LISTED])
        )
    for position, run in enumerate(runs):
        if position in notes:
            files.skipped(run.path, notes[position])
            continue
        stats = read[position]
        files.used(run.path, len(stats.exact), _note(stats, mode))
        yield from stats.cells


def _settle_suites(candidates: list[tuple[int, _Run]], preference: tuple[str, ...], notes: dict[int, str]) -> None:
    """Leave out, in *notes*, every run that loses to the same run in a preferred suite."""
    if not preference:
        return
    rank = {name: index for index, name in reversed(list(enumerate(preference)))}
    groups: dict[tuple[str, str], list[tuple[int, _Run]]] = {}
    for position, run in candidates:
        groups.setdefault((run.model, run.key), []).append((position, run))
    flags = _quoted("--suite", preference)
    for group in groups.values():
        best = min(rank.get(run.suite, len(preference)) for _, run in group)
        if best == len(preference):
            continue  # none of its suites is listed: the copies must agree, as without a preference
        winner = next(run for _, run in group if rank.get(run.suite) == best)
        for position, run in group:
            if rank.get(run.suite, len(preference)) > best:
                notes[position] = f"the same run in suite '{winner.suite}' wins ({flags}): {winner.path}"


def _check_agreement(used: list[tuple[_Run, _Stats]]) -> None:
    """Refuse a run found in several suites with different scores (without a --suite preference)."""
    by_run: dict[tuple[str, str], list[tuple[_Run, _Stats]]] = {}
    for run, stats in used:
        by_run.setdefault((run.model, run.key), []).append((run, stats))
    for (model, key), copies in by_run.items():
        for index, (first, first_stats) in enumerate(copies):
            for other, other_stats in copies[index + 1 :]:
                if other.suite == first.suite:
                    continue  # one suite: assemble merges or refuses cell by cell
                for query, (exact, shown, where) in first_stats.exact.items():
                    theirs = other_stats.exact.get(query)
                    if theirs is not None and theirs[0] != exact:
                        raise LoaderError(
                            f"model '{model}', run '{key}' is in suite '{first.suite}' ({first.path}) and in suite "
                            f"'{other.suite}' ({other.path}) with different scores (query '{query}': {shown} at "
                            f"{where}, {theirs[1]} at {theirs[2]}); choose one with --suite NAME (repeat it for an "
                            "order of preference: the first listed wins)"
                        )


def _note(stats: _Stats, mode: str) -> str:
    """How a used run was read, for the report: its trials and their reduction, the perturbed entries left out."""
    parts = []
    if stats.trials and max(stats.trials) > 1:
        low, high = min(stats.trials), max(stats.trials)
        counts = str(high) if low == high else f"{low} to {high}"
        parts.append(f"{counts} trials, {_NOTE_REDUCTION.get(mode, mode)}")
    if stats.perturbed:
        parts.append(f"{stats.perturbed} perturbed {'entry' if stats.perturbed == 1 else 'entries'} left out")
    return "; ".join(parts)
