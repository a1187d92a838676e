"""``python -m sysrs_ref reproduce``: the paper's experiments end to end, resumable, local or on a Dask cluster.

:func:`reproduce` finds the datasets of a data folder, runs every (dataset,
configuration) cell still missing from the cache under ``OUT/cache``
(:mod:`sysrs_ref.experiments`), then writes results.json, one CSV per table,
report.md (:mod:`sysrs_ref.report`) and the figures (:mod:`sysrs_ref.plots`)
into OUT. Running it again with the same settings recomputes nothing; after an
interruption it computes only the cells that had not finished.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sysrs_ref.datasets import find_datasets
from sysrs_ref.errors import InstanceError, ParameterError
from sysrs_ref.experiments import Cache, Config, cells, paper_configs, parse_configs, parse_grid, plan, run_cells
from sysrs_ref.loaders import load_scores
from sysrs_ref.plots import write_plots
from sysrs_ref.report import Summary, summarize, write_outputs
from sysrs_ref.tables import Curve, Results
from sysrs_ref.theory.table import table_row

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


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it cancels the pool


@contextmanager
def _executor(workers: int, scheduler: str | None) -> Iterator[Executor | None]:
    """No executor (inline) for one local worker; a process pool for more; a Dask client's for a scheduler."""
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:
            raise ParameterError(
                "--scheduler needs Dask: install the 'distributed' extra (pip install -e '.[distributed]')"
            ) from None
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as err:
            raise ParameterError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
        try:
            yield client.get_executor()
        finally:
            client.close()
        return
    if workers == 1:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _check_count(value: object, flag: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        kind = "a positive" if least else "a non-negative"
        raise ParameterError(f"{flag} must be {kind} integer, got {value!r}")
    return value


def reproduce(
    data: str | Path,
    out: str | Path,
    *,
    grid: str = "paper",
    algorithms: str | tuple[Config, ...] = "paper",
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    scheduler: str | None = None,
    plots: bool = True,
    progress: Callable[[int, int], Callable[[int], None] | None] | None = None,
) -> ReproduceOutcome:
    """Run the paper's experiments on every matrix of *data* and write the results into *out*.

    *grid* is ``paper`` (107 budget levels), ``table`` (the seven budgets of
    Table "identification-accuracy") or a file of percentages; *algorithms* is
    ``paper`` (US, SyUS, SR, SySRs, UCB-E and SyUCB-E with a in {0.1, 1, 10}),
    a comma-separated list (``paper,ucbe:a=100``) or Configs. *workers* local
    processes, or the Dask *scheduler* at that address, run the cells; neither
    changes a number. *progress*, if given, is called with (cells to compute,
    cells already cached) and returns the callback for finished cells.
    """
    began = time.perf_counter()
    _check_count(runs, "--runs", 1)
    _check_count(seed, "--seed", 0)
    _check_count(workers, "--workers", 1)
    configs = algorithms if isinstance(algorithms, tuple) else parse_configs(algorithms)
    if not configs:
        configs = paper_configs()
    points = parse_grid(grid)
    datasets = find_datasets(data)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise InstanceError(f"two datasets of '{data}' have the same name: {sorted({n for n in names if names.count(n) > 1})}")
    target = Path(out)
    if target.exists() and not target.is_dir():
        raise ParameterError(f"--out '{target}' exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    cache = Cache(target)
    instances = {d.name: load_scores(d.path) for d in datasets}  # each matrix read once
    shapes = {name: instance.shape for name, instance in instances.items()}
    tasks, cached = plan(datasets, configs, points, runs, seed, cache, shapes=shapes)
    to_compute = sum(len(task.configs) for task in tasks)
    callback = progress(to_compute, cached) if progress is not None else None
    with _executor(workers, scheduler) as executor:
        run_cells(tasks, cache, executor, callback)
    curves = {(d.name, c.label): Curve(d, c, pts) for d, c, pts in cells(datasets, configs, points, runs, seed, cache)}
    results = Results(
        tuple(datasets), tuple(configs), points, runs, seed, curves,
        best={name: tuple(sorted(inst.best)) for name, inst in instances.items()}, shapes=shapes,
    )
    rows = [table_row(dataset, instances[dataset.name]) for dataset in datasets]
    summary = summarize(results, str(data), grid, rows)
    figures, note = write_plots(results, target) if plots else ([], "Plots were not asked for (--no-plots).")
    files = write_outputs(target, summary, note)
    return ReproduceOutcome(target, tuple(files + figures), to_compute, cached, time.perf_counter() - began, summary)
