"""``python -m sysrs_ref reproduce``: the paper's experiments end to end, resumable, local or on a Dask cluster.

:func:`reproduce` finds the datasets of a data folder, runs every (dataset,
configuration) cell still missing from the cache under ``OUT/cache``
(:mod:`sysrs_ref.experiments`; of a cell interrupted before, only the runs
its checkpoints lack), then writes results.json, one CSV per table,
report.md (:mod:`sysrs_ref.experiments._report`) and the figures (:mod:`sysrs_ref.experiments._figures`)
into OUT. Running it again with the same settings recomputes nothing; after an
interruption it computes only the runs of the cells that had not finished
that their checkpoints do not hold.

With *top_m* targets it also runs the Appendix "Top-m" study on its own grid
(by default the Appendix's 5% steps) and cache, with SAR and SySAR beside the
paper's algorithms, and writes topm_results.json, topm_errors.csv,
topm_cb.csv, topm_report.md and three figures (:mod:`sysrs_ref.experiments._topm_report`,
:mod:`sysrs_ref.experiments._topm_figures`).

Random scores S_ij ~ phi_ij run too: a K x L x E ``.npy`` (or an ``.npz``
a MANIFEST.json lists) of the data folder is read by
:func:`~sysrs_ref.loaders.load_stochastic`, and ``stochastic="bernoulli"``
reads every matrix (the shipped benchmarks too) as the p_ij of Bernoulli
scores; each run then draws its noise after its orders, accuracy is judged
by mu_i = (1/L) sum_j E[S_ij], and the cache of the Bernoulli reading is
``OUT/bernoulli-scores/cache`` (its keys' ``sha256`` is ``bernoulli:<sha256>``),
so it never meets the matrices'.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sysrs_ref._atomic import make_folder
from sysrs_ref._checks import check_int
from sysrs_ref._limits import check_workers
from sysrs_ref._version import __version__
from sysrs_ref.datasets import DATA_ENV, Dataset, default_datasets, find_datasets
from sysrs_ref.errors import InstanceError, ParameterError
from sysrs_ref.experiments._dataset_table import TableRow, table_row
from sysrs_ref.experiments._figures import write_plots
from sysrs_ref.experiments._plan import Cache, Config, cells, paper_configs, parse_configs, parse_grid, plan, run_cells
from sysrs_ref.experiments._report import Summary, summarize
from sysrs_ref.experiments._report_files import write_outputs
from sysrs_ref.experiments._subset_study import SubsetSettings, run_subset_study, write_subset_outputs
from sysrs_ref.experiments._tables import Curve, Results
from sysrs_ref.experiments._topm_figures import write_topm_plots
from sysrs_ref.experiments._topm_report import TopMStudy, study_of, write_topm_outputs
from sysrs_ref.fast import stochastic_table
from sysrs_ref.instance import Instance
from sysrs_ref.loaders import as_bernoulli, load_stochastic
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.hardness import hardness
from sysrs_ref.topm import parse_top_m

__all__ = ["ReproduceOutcome", "reproduce"]


@dataclass(frozen=True)
class ReproduceOutcome:
    """What a reproduction did and wrote."""

    out: Path
    files: tuple[Path, ...]
    """results.json, the CSVs, report.md and the plots."""
    computed: int
    """Cells computed now."""
    cached: int
    """Cells found complete in the cache."""
    seconds: float
    summary: Summary
    top_m: TopMStudy | None = None
    """The top-m study, when asked for."""
    reused: int = 0
    """Runs of the cells computed now that were read back from their checkpoints (made before an interruption)."""


def reproduce(
    data: str | Path | None,
    out: str | Path,
    *,
    grid: str = "paper",
    algorithms: str | tuple[Config, ...] = "paper",
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    scheduler: str | None = None,
    plots: bool = True,
    progress: Callable[[int, int, int], Callable[[int], None] | None] | None = None,
    top_m: str | Sequence[int] | None = None,
    top_m_grid: str = "topm",
    top_m_algorithms: str | tuple[Config, ...] | None = None,
    subset_selection: SubsetSettings | None = None,
    stochastic: str | None = None,
) -> ReproduceOutcome:
    """Run the paper's experiments on every matrix of *data* and write the results into *out*.

    *data* is a folder of score matrices, or None for the shipped benchmarks
    (or ``$SYSRS_DATA``'s folder when that is set).

    *grid* is ``paper`` (107 budget levels), ``table`` (the seven budgets of
    Table "identification-accuracy") or a file of percentages; *algorithms* is
    ``paper`` (US, SyUS, SR, SySRs, UCB-E and SyUCB-E with a in {0.1, 1, 10}),
    a comma-separated list (``paper,ucbe:a=100``) or Configs. *workers* local
    processes, or the Dask *scheduler* at that address, run the cells; neither
    changes a number. *progress*, if given, is called with (runs of the cells
    to compute, cells already cached, runs of those cells read back from
    their checkpoints) and returns the callback for the runs of cells made
    now (a cell of R runs counts R; the runs read back are not reported
    again).

    *top_m* (``"3,5,10"``) adds the Appendix "Top-m" study on *top_m_grid*
    (default ``topm``: 5%, 10%, ..., 100%) for *top_m_algorithms* (default: the
    configurations of *algorithms* plus ``sar`` and ``sysar``, each run with m
    set to the target).

    *subset_selection* adds the Appendix "Subset Selection" comparison with
    those settings (:mod:`sysrs_ref.experiments._subset_study`): both protocols on every
    matrix, ``subset_selection.{json,csv,md,png}``, on *workers* local processes.

    ``stochastic="bernoulli"`` reads every matrix as the p_ij of Bernoulli
    scores; K x L x E ``.npy`` files are read as samples in any case (module
    docstring). The subset selection needs score matrices.
    """
    began = time.perf_counter()
    check_int(runs, "--runs")
    check_int(seed, "--seed", least=0)
    check_workers(workers)
    configs = algorithms if isinstance(algorithms, tuple) else parse_configs(algorithms)
    if not configs:
        configs = paper_configs()
    points = parse_grid(grid)
    folder = os.environ.get(DATA_ENV) if data is None else data
    if folder is not None and Path(folder).resolve() == Path(out).resolve():
        raise ParameterError(
            f"--out '{out}' is the data folder: the results (cells.csv, tables) would be read as score matrices by the "
            "next run; write them into another folder"
        )
    datasets = default_datasets() if data is None else find_datasets(data)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise InstanceError(
            f"two datasets of '{_data_label(data)}' have the same name: {sorted({n for n in names if names.count(n) > 1})}"
        )
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise ParameterError(f"--out '{target}' exists and is not a folder")
    make_folder(target)
    cache_root = target if stochastic is None else target / f"{stochastic}-scores"  # beside the matrices' cache
    cache = Cache(cache_root, remember=True)  # its report reads what this run computed from memory
    if stochastic not in (None, "bernoulli"):
        raise ParameterError(f"stochastic must be None or 'bernoulli', got {stochastic!r}")
    instances = {d.name: _load(d, stochastic == "bernoulli") for d in datasets}  # each matrix read once
    if stochastic is not None:  # another reading of the same file: its own cache key
        datasets = [replace(d, sha256=f"{stochastic}:{d.sha256}") for d in datasets]
    held = [(d, stochastic_table(inst)) for d in datasets if isinstance(inst := instances[d.name], StochasticInstance)]
    if held and subset_selection is not None:
        raise ParameterError(
            f"the subset selection needs score matrices, but {held[0][0].name} holds random scores; "
            "leave out --subset-selection"
        )
    shapes = {name: instance.shape for name, instance in instances.items()}
    random = {d.name for d, _ in held}
    tasks, cached = plan(datasets, configs, points, runs, seed, cache, shapes=shapes, held=random)
    targets = () if top_m is None else parse_top_m(top_m, min(shape[0] for shape in shapes.values()))
    if targets:
        topm_configs = _topm_configs(configs, top_m_algorithms)
        topm_points = parse_grid(top_m_grid)
        topm_cache = Cache(cache_root, targets, remember=True)
        topm_tasks, topm_cached = plan(
            datasets, topm_configs, topm_points, runs, seed, topm_cache, shapes=shapes, held=random
        )
    else:
        topm_tasks, topm_cached = [], 0
    to_compute = sum(len(job.configs) for job in tasks + topm_tasks)
    reused = sum((job.runs - job.to_make) * len(job.configs) for job in tasks + topm_tasks)
    callback = progress(to_compute * runs, cached + topm_cached, reused) if progress is not None else None
    # The dataset table (exact hardness: Python integers) is made by a thread while the pieces run in
    # the workers (the parent mostly waits for them), not after them. A daemon thread: on an interruption the
    # process exits at once, without waiting for the table (a pool's thread would be joined at exit).
    made: list[list[TableRow]] = []
    failed: list[BaseException] = []

    def make_table() -> None:
        try:
            made.append([_row(dataset, instances[dataset.name]) for dataset in datasets])
        except BaseException as error:  # handed to the main thread below
            failed.append(error)

    table_maker = threading.Thread(target=make_table, name="sysrs-dataset-table", daemon=True)
    table_maker.start()
    run_cells(tasks, cache, points, held=held, workers=workers, scheduler=scheduler, progress=callback)
    if topm_tasks:
        run_cells(
            topm_tasks, topm_cache, topm_points, held=held, workers=workers, scheduler=scheduler, progress=callback
        )
    table_maker.join()
    if failed:
        raise failed[0]
    rows = made[0]
    curves = {(d.name, c.label): Curve(d, c, pts) for d, c, pts in cells(datasets, configs, points, runs, seed, cache)}
    results = Results(
        tuple(datasets),
        tuple(configs),
        points,
        runs,
        seed,
        curves,
        best={name: tuple(sorted(inst.best)) for name, inst in instances.items()},
        shapes=shapes,
    )
    summary = summarize(results, _data_label(data), grid, rows)
    figures, note = write_plots(results, target) if plots else ([], "Plots were not asked for (--no-plots).")
    files = write_outputs(target, summary, note)
    study = None
    if targets:
        found = {
            (d.name, c.label): pts for d, c, pts in cells(datasets, topm_configs, topm_points, runs, seed, topm_cache)
        }
        study = study_of(datasets, topm_configs, topm_points, runs, seed, targets, found)
        topm_figures, topm_note = (
            write_topm_plots(study, target) if plots else ([], "Plots were not asked for (--no-plots).")
        )
        files += write_topm_outputs(target, study, topm_note) + topm_figures
    if subset_selection is not None:
        matrices = {name: inst for name, inst in instances.items() if isinstance(inst, Instance)}
        subset = run_subset_study(datasets, matrices, target, subset_selection, workers=workers)
        files += write_subset_outputs(target, subset, plots)
    return ReproduceOutcome(
        target,
        tuple(files + figures),
        to_compute,
        cached + topm_cached,
        time.perf_counter() - began,
        summary,
        study,
        reused,
    )


def _load(dataset: Dataset, bernoulli: bool) -> Instance | StochasticInstance:
    """A dataset's scores: a shipped benchmark's matrix, or a file as :func:`~sysrs_ref.loaders.load_stochastic` reads it."""
    if dataset.packed is None:
        return load_stochastic(dataset.path, bernoulli=bernoulli)
    matrix = dataset.load()
    return as_bernoulli(matrix) if bernoulli else matrix


def _row(dataset: Dataset, instance: Instance | StochasticInstance) -> TableRow:
    """The dataset table's row; random scores get the stochastic hardness (eq. variance) and no paper values."""
    if isinstance(instance, Instance):
        return table_row(dataset, instance)
    h = hardness(instance)
    exact = {"best_mean": h.best_mean, "mean": h.mean, "delta2": h.delta2, "H1": h.h1, "H2": h.h2}
    ours = {key: None if value is None else float(value) for key, value in exact.items()}
    ours |= {"H3_prime": None if h.h3_prime is None else float(h.h3_prime), "H3": None if h.h3 is None else float(h.h3)}
    return TableRow(
        dataset.name, dataset.source, dataset.metric, instance.n_queries, instance.n_models, ours, ours, None
    )


def _data_label(data: str | Path | None) -> str:
    """How the report names the data: the folder, or the shipped benchmarks."""
    if data is not None:
        return str(data)
    folder = os.environ.get(DATA_ENV)
    return f"${DATA_ENV} ({folder})" if folder else f"the benchmarks shipped with sysrs-ref {__version__}"


def _topm_configs(configs: tuple[Config, ...], chosen: str | tuple[Config, ...] | None) -> tuple[Config, ...]:
    """The configurations of the top-m study: *chosen*, or *configs* plus SAR and SySAR (m = each target)."""
    if chosen is not None:
        return chosen if isinstance(chosen, tuple) else parse_configs(chosen)
    extra = tuple(Config.of(name) for name in ("sar", "sysar") if Config.of(name) not in configs)
    return configs + extra
