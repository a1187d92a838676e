"""The paper's experiments as independent cells, cached on disk (``python -m sysrs_ref reproduce``).

A **cell** is one (dataset, algorithm configuration) pair: R runs of the
algorithm at every budget percentage of a grid, on common draws, exactly as
:func:`~sysrs_ref.simulation.simulate` with the same seed computes them (run
r draws from ``SeedSequence(seed, spawn_key=(r,))``). Cells are independent,
so they go through any :class:`concurrent.futures.Executor`: local worker
processes, or a Dask cluster. One task computes the cells of one dataset that
share a kind of draw (synchronized or not), so the draws are made once for
them all.

Every finished grid point of a cell is written to a cache under
``OUT/cache/`` (atomically: a temporary file, then a rename), keyed by the
dataset's SHA-256, the algorithm, its exact parameters, the budget
percentage, R, the seed and the package version. An interrupted run resumes
where it stopped and never recomputes a finished cell; an entry whose key
does not match (another file, version or setting) is recomputed. Within a
cell not finished, the finished pieces of runs are checkpointed
(:mod:`sysrs_ref.experiments._checkpoint`), so a resumed run makes only the
runs no checkpoint holds, and the cell comes out as an uninterrupted run's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from sysrs_ref._files import SMALL_FILE_BYTES, read_regular
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import BudgetError, OutputError, ParameterError
from sysrs_ref.experiments._cache import CACHE_FORMAT, Cache, Point, TopMPoint
from sysrs_ref.experiments._checkpoint import CHECKPOINT_SECONDS, Made, Unsaved
from sysrs_ref.experiments._paper import LRF_GRID, PAPER_GRID, TABLE_GRID
from sysrs_ref.schedule import budget_from_percentage, parse_percentage
from sysrs_ref.simulation import AnyTable, CellResult, Config, Job, jobs_of, parse_algorithm_list, run_jobs

__all__ = [
    "CACHE_FORMAT",
    "GRIDS",
    "TOPM_GRID",
    "Cache",
    "Config",
    "Point",
    "cells",
    "lrf_configs",
    "parse_configs",
    "parse_grid",
    "paper_configs",
    "plan",
    "run_cells",
]

#: The Appendix "Top-m" grid: budget percentages in steps of 5% (0% is no budget: it starts at 5%).
TOPM_GRID: tuple[str, ...] = tuple(f"{p}%" for p in range(5, 101, 5))

#: The named budget grids: the paper's 107 levels, the seven budgets of Table "identification-accuracy",
#: the 5% steps of the Appendix "Top-m", and UCB-E-LRF's 38 levels.
GRIDS: Mapping[str, tuple[str, ...]] = {"paper": PAPER_GRID, "table": TABLE_GRID, "topm": TOPM_GRID, "lrf": LRF_GRID}

#: The exploration parameters the paper's tables report for UCB-E and SyUCB-E.
PAPER_EXPLORATION = ("0.1", "1", "10")


def lrf_configs(banditeval: bool = False) -> tuple[Config, ...]:
    """The paper's two UCB-E-LRF rows: 5% warm-up and No Warm-up (``--algorithms lrf``).

    With *banditeval*, both with the public implementation's rules (``--algorithms
    lrf-banditeval``): no bonus on observed cells, and unseen models first.

    >>> [c.label for c in lrf_configs()]
    ['ucbe-lrf(warmup=5%)', 'ucbe-lrf(warmup=0%)']
    >>> lrf_configs(banditeval=True)[1].label
    'ucbe-lrf(warmup=0%,bonus_on_observed=0,unseen_first=1)'
    """
    switches = {"bonus_on_observed": 0, "unseen_first": 1} if banditeval else {}
    return Config.of("ucbe-lrf", **switches), Config.of("ucbe-lrf", warmup=0, **switches)


def paper_configs() -> tuple[Config, ...]:
    """The configurations of the paper's tables but UCB-E-LRF's (hours of work: ``--algorithms paper,lrf``).

    >>> [c.label for c in paper_configs()][:5]
    ['us', 'syus', 'sr', 'sysrs', 'ucbe(a=0.1)']
    """
    plain = tuple(Config.of(name) for name in ("us", "syus", "sr", "sysrs"))
    ucb = tuple(Config.of(name, a=a) for name in ("ucbe", "syucbe") for a in PAPER_EXPLORATION)
    return plain + ucb


def parse_configs(text: str) -> tuple[Config, ...]:
    """Configurations from the command line: ``paper``, ``lrf``, ``lrf-banditeval``, names, and ``name:key=value``
    items, comma-separated.

    >>> [c.label for c in parse_configs("sysrs,ucbe:a=100,syucbe")]
    ['sysrs', 'ucbe(a=100)', 'syucbe(a=1)']
    >>> len(parse_configs("paper,ucbe:a=100"))
    11
    """
    groups = {"paper": paper_configs(), "lrf": lrf_configs(), "lrf-banditeval": lrf_configs(banditeval=True)}
    return parse_algorithm_list(text, "--algorithms", groups)


def parse_grid(text: str) -> tuple[Fraction, ...]:
    """A budget grid: a name of :data:`GRIDS` (``paper``, ``table``, ``topm``, ``lrf``), or a file with one percentage per line ("12%" or "12"; # comments).

    >>> [float(p) for p in parse_grid("table")]
    [8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 35.0]
    """
    if text in GRIDS:
        lines: Sequence[str] = GRIDS[text]
        where = f"grid {text!r}"
    else:
        path = Path(text)
        try:
            lines = read_regular(path, SMALL_FILE_BYTES).decode("utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise ParameterError(
                f"--grid {text!r} is neither a grid name ({', '.join(GRIDS)}) nor a readable file of percentages "
                f"({getattr(err, 'strerror', None) or err})"
            ) from None
        where = f"grid file '{path}'"
    points: list[Fraction] = []
    for number, line in enumerate(lines, 1):
        item = line.split("#", 1)[0].strip()
        if not item:
            continue
        try:
            points.append(parse_percentage(item))
        except BudgetError as err:
            raise ParameterError(f"{where}, line {number}: {err}") from None
    if not points:
        raise ParameterError(f"{where} holds no budget percentage")
    if len(set(points)) != len(points):
        raise ParameterError(f"{where} lists a budget percentage twice")
    return tuple(sorted(points))


def _points(cell: CellResult, grid: Sequence[Fraction], budgets: tuple[int, ...], runs: int) -> tuple[Point, ...]:
    """A cell's cached grid points, from the engine's counts."""
    return tuple(
        Point(
            pct,
            budget,
            int(cell.correct[index]),
            runs,
            int(cell.spent_max[index]),
            tuple(
                TopMPoint(m, counts.identification[index], counts.ranking[index], counts.wrong_positions[index])
                for m, counts in sorted(cell.top_m.items())
            ),
        )
        for index, (pct, budget) in enumerate(zip(grid, budgets, strict=True))
    )


def _budgets(dataset: Dataset, grid: Sequence[Fraction], shape: tuple[int, int]) -> tuple[int, ...]:
    n_models, n_queries = shape
    try:
        return tuple(budget_from_percentage(pct, n_models, n_queries) for pct in grid)
    except BudgetError as err:
        raise BudgetError(f"dataset {dataset.name!r}: {err}; leave that percentage out of the grid") from None


def _key(dataset: Dataset) -> str:
    """How the engine names a dataset's matrix (and how its workers cache the loaded table)."""
    return f"{dataset.path}:{dataset.sha256}"


def plan(
    datasets: Sequence[Dataset],
    configs: Sequence[Config],
    grid: Sequence[Fraction],
    runs: int,
    seed: int,
    cache: Cache,
    *,
    shapes: Mapping[str, tuple[int, int]] | None = None,
    held: Collection[str] = (),
) -> tuple[list[Job], int]:
    """The engine's jobs still to do (cells with a grid point not in the cache), and how many cells are done already.

    A job holds the cells of one dataset that share a kind of draw, so its
    draws are made once for them all. Of a cell not finished, the runs its
    checkpoints hold (:meth:`Cache.checkpoints`, read now) are left out: the
    job's ``todo`` names the runs still to make, and cells that lack
    different runs go into different jobs. *shapes* gives each dataset's (K, L)
    when the caller has loaded it already. The datasets named in *held*
    (random scores) have no source for the workers to load: the caller gives
    their tables to :func:`run_cells`.
    """
    jobs: list[Job] = []
    done = 0
    for dataset in datasets:
        shape = shapes[dataset.name] if shapes is not None and dataset.name in shapes else dataset.load().shape
        budgets = _budgets(dataset, grid, shape)
        missing = [c for c in configs if any(cache.get(dataset, c, pct, runs, seed) is None for pct in grid)]
        done += len(configs) - len(missing)
        source = None if dataset.name in held else dataset
        # the runs still to make -> the cells that lack them
        lacking: dict[tuple[tuple[int, int], ...], list[Config]] = {}
        for config in missing:
            made = cache.checkpoints.read(dataset, config, grid, budgets, runs, seed)
            lacking.setdefault(made.todo(runs), []).append(config)
        for todo, group in lacking.items():
            found = jobs_of(_key(dataset), shape, group, budgets, runs, seed, cache.top_m, source=source)
            jobs += found if todo == ((0, runs),) else [replace(job, todo=todo) for job in found]
    return jobs, done


def run_cells(
    jobs: Sequence[Job],
    cache: Cache,
    grid: Sequence[Fraction],
    *,
    held: Sequence[tuple[Dataset, AnyTable]] = (),
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    checkpoint_seconds: float | None = None,
) -> None:
    """Run *jobs* on the Monte-Carlo engine and cache every point of a job as soon as it is finished.

    *held* gives the tables of the datasets :func:`plan` was told it holds
    (random scores: :class:`~sysrs_ref.fast.StochasticTable`).

    *progress* is called with the number of (run, cell) pairs each finished
    piece held. The finished pieces of a cell (but its last) are checkpointed
    (:attr:`Cache.checkpoints`) at most every *checkpoint_seconds* per job
    (default :data:`~sysrs_ref.experiments._checkpoint.CHECKPOINT_SECONDS`;
    0: each piece as it finishes) and on an interruption; when a cell's last
    piece is in, its runs' counts are added to those of the runs its
    checkpoints held when the job was planned, its points are cached and its
    checkpoints removed. On an interruption (Ctrl-C) the pieces not started
    are cancelled, the finished ones checkpointed, and the exception goes
    on: what finished is in the cache or its checkpoints, what did not is
    not. ParameterError if a job's ``todo`` is not what the cell's
    checkpoints leave to make.
    """

    sources = {_key(dataset): dataset for dataset, _ in held}

    def source_of(job: Job) -> Dataset:
        return job.source if job.source is not None else sources[job.key]

    # what each cell's checkpoints held when planned, read before any piece of this run is written
    made: dict[tuple[str, Config], Made] = {}
    for job in jobs:
        for config in job.configs:
            found = (
                cache.checkpoints.made(source_of(job), config, grid, job.budgets, job.runs, job.seed)
                if job.todo is not None
                else Made.nothing(len(job.budgets))
            )
            if job.todo is not None and found.todo(job.runs) != job.todo:
                raise ParameterError(
                    f"the job of {source_of(job).name} {config.label} makes runs {job.todo}, but its checkpoints "
                    f"leave {found.todo(job.runs)} to make: plan the jobs with this cache"
                )
            made[job.key, config] = found

    unsaved = Unsaved(
        cache.checkpoints, grid, seconds=CHECKPOINT_SECONDS if checkpoint_seconds is None else checkpoint_seconds
    )

    def checkpoint(job: Job, start: int, stop: int, found: Mapping[Config, CellResult]) -> None:
        unsaved.add(source_of(job), job, start, stop, found)

    def record(job: Job, found: Mapping[Config, CellResult]) -> None:
        source = source_of(job)
        unsaved.drop(job)
        cache.put_all(  # the job's points together: one flush to the disk for them all
            (source, config, point, job.seed)
            for config, cell in found.items()
            for point in _points(made[job.key, config].added_to(cell), grid, job.budgets, job.runs)
        )
        for config in found:
            cache.checkpoints.clear(source, config, grid, job.runs, job.seed)

    tables = {_key(dataset): table for dataset, table in held}
    try:
        run_jobs(
            jobs, tables, workers=workers, scheduler=scheduler, progress=progress, done=record, piece_done=checkpoint
        )
    except BaseException:  # Ctrl-C, SIGTERM, an error: keep every finished piece
        with contextlib.suppress(OutputError):  # a full disk: the exception that stopped the run says so
            unsaved.flush()
        raise


def cells(
    datasets: Sequence[Dataset], configs: Sequence[Config], grid: Sequence[Fraction], runs: int, seed: int, cache: Cache
) -> Iterator[tuple[Dataset, Config, tuple[Point, ...]]]:
    """Every cell's points, from the cache (after :func:`run_cells`); ParameterError if one is missing."""
    for dataset in datasets:
        for config in configs:
            points = tuple(cache.get(dataset, config, pct, runs, seed) for pct in grid)
            if any(point is None for point in points):
                raise ParameterError(f"the cache has no result for {dataset.name} {config.label}: run the cells first")
            yield dataset, config, tuple(p for p in points if p is not None)
