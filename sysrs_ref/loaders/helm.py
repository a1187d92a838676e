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
- **Runs left out, each listed in the report** (:attr:`ResultsTable.files`): a run
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
- **Split:** each stat's ``name.split`` (``test``, ``valid``, ``train``).
  Runs of some scenarios (``mmlu``, ``narrative_qa``) score instances of
  both ``valid`` and ``test``; the split read is HELM's own tables' one,
  ``test`` (*split* ``"auto"``, the default; a run with no test split is
  read on its only split, and one with several splits but no test split is
  an error asking for ``--split``). ``split=NAME`` reads that split only (a
  run without it is left out, and listed); ``split="all"`` reads every
  split. A used run's note in the report names the split read whenever the
  run has several, with the instances left out.
- **Model id:** ``adapter_spec.model`` of ``run_spec.json``, else
  ``adapter_spec.model_deployment``; without a ``run_spec.json``, the
  ``model=`` argument of the directory's name, else the directory's name.
- **Query id:** ``"<run>/<instance_id>"`` where ``<run>`` is the run's key: its
  name (``run_spec.json``'s ``name``, else the directory's name) with its
  ``model=`` and ``model_deployment=`` arguments removed, so that two models'
  runs of one scenario share their query ids:
  ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2`` and
  instance ``id12`` give ``mmlu:subject=anatomy,method=multiple_choice_joint/id12``.
  An instance of a split other than ``test`` has the split in its id:
  ``<run>/valid/id3``, so that splits read together never share a query.
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

from collections.abc import Sequence

from sysrs_ref.errors import ParameterError
from sysrs_ref.loaders._epochs import check_epochs
from sysrs_ref.loaders._helm_runs import SPEC_FILE, STATS_FILE, find_runs, paths_list, run_key
from sysrs_ref.loaders._helm_select import run_cells
from sysrs_ref.loaders._reading import PathsArg, describe_paths
from sysrs_ref.loaders.table import FileLog, ResultsTable, assemble, check_missing_policy

__all__ = ["MAX_SPEC_BYTES", "MAX_STATS_BYTES", "SPEC_FILE", "STATS_FILE", "load_helm", "run_key"]

#: The largest ``per_instance_stats.json`` read (1 GiB); a larger one is refused, naming the file.
MAX_STATS_BYTES = 1 << 30
#: The largest ``run_spec.json`` read (16 MiB); a larger one is refused, naming the file.
MAX_SPEC_BYTES = 16 << 20


def load_helm(
    paths: PathsArg,
    *,
    metric: str,
    missing: str = "fail",
    epochs: str = "auto",
    tasks: Sequence[str] = (),
    suites: Sequence[str] = (),
    split: str = "auto",
) -> ResultsTable:
    """Read HELM runs (``per_instance_stats.json`` and ``run_spec.json``) into a :class:`ResultsTable`.

    *paths* are run directories, folders holding them (``benchmark_output``,
    ``runs/<suite>``; searched at any depth, in sorted order) or
    ``per_instance_stats.json`` files; *metric* is a stat name
    (``"exact_match"``); *missing* is the missing-cell policy of
    :func:`~sysrs_ref.loaders.table.assemble`. The module docstring gives the
    id rules and what is left out; :attr:`ResultsTable.files` lists every run
    (its ``per_instance_stats.json``, or its directory when there is none)
    with whether it was used and why not.

    *epochs* says what becomes of an instance's train trials (``convert
    --epochs``): ``"auto"`` (the default) and ``"mean"``, their exact mean,
    which is what HELM reports (its ``stats.json`` averages each trial over
    the instances, then the trials); ``"first"``, the first trial
    (``train_trial_index`` 0); ``"median"``, ``"mode"``, ``"max"``, ``"min"``,
    that reduction (:func:`~sysrs_ref.loaders._epochs.reduce_epochs`); ``"all"``,
    every trial kept (:attr:`ResultsTable.samples`, K x L x trials). The choice
    is recorded in :attr:`ResultsTable.settings` and each used run's note
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
    scores are merged (counted in :attr:`ResultsTable.duplicates`), different
    ones are an error naming both suites. A name that is no run's suite is an
    error.

    *split* (``convert --split``) is the split whose instances are read:
    ``"auto"`` (the default: ``test``, which HELM's tables report),
    ``"all"`` or a split's name (module docstring, **Split**).

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
    given = paths_list(paths)
    origin = describe_paths(given)
    files = FileLog()
    settings = {"epochs": _EPOCH_SETTINGS.get(mode, f"{mode} over train trials")}
    split_setting = _split_setting(split)
    # the limits are read here, at each call, so that a changed MAX_STATS_BYTES or MAX_SPEC_BYTES takes effect
    cells = run_cells(
        find_runs(given),
        metric,
        mode,
        patterns,
        preference,
        files,
        settings,
        origin,
        stats_limit=MAX_STATS_BYTES,
        spec_limit=MAX_SPEC_BYTES,
        split=split,
        split_setting=split_setting,
    )
    return assemble(cells, source="helm", metric=metric, missing=missing, origin=origin, files=files, settings=settings)


_EPOCH_SETTINGS = {
    "auto": "mean over train trials (auto: what HELM reports)",
    "first": "first train trial (train_trial_index 0)",
    "all": "all train trials kept",
}


def _split_setting(split: str) -> str:
    if not isinstance(split, str) or not split.strip():
        raise ParameterError(f"--split must name a split (test, valid, ...), auto or all; got {split!r}")
    if split == "auto":
        return "auto: test where a run has it, as HELM's tables (else the run's only split)"
    if split == "all":
        return "all: every split, a split other than test named in the query ids"
    return split


def _as_names(values: Sequence[str], what: str) -> tuple[str, ...]:
    """*values* as a tuple of strings (a lone string is one name, not its characters)."""
    names = (values,) if isinstance(values, str) else tuple(values)
    for value in names:
        if not isinstance(value, str):
            raise ParameterError(f"{what} must be strings; got {value!r}")
    return names
