"""The Monte-Carlo engine of ``simulate`` and ``reproduce``: every run of every configuration, on common draws.

A :class:`Job` is the configurations of one score matrix that share a kind of
draw (synchronized, unsynchronized, or UCB-E-LRF's cells), at a grid of
budgets, for runs 0 .. R - 1. :func:`run_jobs` cuts every job into pieces of
runs, makes each piece's draws once (run r's from ``SeedSequence(seed,
spawn_key=(r,))``, :func:`~sysrs_ref.fast.simulation_draws`), runs every
configuration of the job on them with the numpy fast path, and merges the
pieces: how many runs chose a best model, the largest spend, top-m counts and,
when asked, every run's choice. Pieces run inline, on local worker processes
or on a Dask cluster; none of this changes a number, because each run's draw
depends only on (seed, r).

A job's matrix may be a stochastic instance's table
(:class:`~sysrs_ref.fast.StochasticTable`): run r then draws,
after its orders and from the same generator, the noise of every cell
(exactly ``random_stochastic_draw``, :func:`~sysrs_ref.fast.simulation_noisy_draws`),
runs on the matrix that noise realises, and is judged by the stochastic
truth (the best models of mu_i = (1/L) sum_j E[S_ij]). Point masses need no
noise: their runs are the matrix's own.

Pieces are made lazily, at most :data:`IN_FLIGHT_PER_WORKER` per worker in
flight, so memory does not grow with the number of runs; only the results
kept per run (every run's choice, for ``simulate``) do, and they are refused
above :data:`MAX_KEPT_BYTES` before anything is allocated.

Local workers end with their parent, whatever ends it (SIGKILL too): on
Linux each asks the kernel for SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``), elsewhere a thread of each polls its parent
id (:func:`process_pool`). On an interruption (Ctrl-C, or SIGTERM as the
command line turns it into one) the pool is stopped at once: pieces not
started are cancelled and the worker processes killed, not waited for.

This is the one place where chunk sizes, pools, progress, interruption,
top-m and the UCB-E-LRF branch are written.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice

import numpy as np
import numpy.typing as npt

from sysrs_ref._limits import Need, check_need, check_workers
from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import ParameterError
from sysrs_ref.fast import (
    CHUNK_BYTES,
    KERNELS,
    DrawBatch,
    FastOutcomes,
    NoisyDrawBatch,
    ScoreTable,
    StochasticTable,
    bytes_per_cell,
    chunk_runs,
    compiled,
    run_exact,
    score_table,
    simulation_draws,
    simulation_noisy_draws,
)
from sysrs_ref.fast.lrf import lrf_rankings
from sysrs_ref.simulation._blas import single_blas_thread
from sysrs_ref.simulation._config import Config
from sysrs_ref.simulation._dask import dask_executor
from sysrs_ref.simulation._processes import keep_freed_memory, process_pool
from sysrs_ref.topm import TopMCounts, TopMTruth, topm_counts

__all__ = ["MAX_KEPT_BYTES", "MAX_RUNS", "AnyTable", "CellResult", "Job", "jobs_of", "run_jobs", "runs_need"]

#: What a job runs on: a matrix's table, or a stochastic instance's (each run realises its own matrix).
AnyTable = ScoreTable | StochasticTable

#: Pieces of work per worker, so that progress is reported and the workers stay busy until the end.
PIECES_PER_WORKER = 8

#: Runs per piece for the fast kernels: at least MIN (fewer pay the per-phase numpy
#: overhead once too often), at most MAX (more fall out of the caches; measured on
#: gsm, ifeval and wmt_14), and never above the memory bound.
MIN_CHUNK, MAX_CHUNK = 64, 256

#: Pieces submitted and not yet recorded, per worker: enough to keep every worker busy, few enough
#: that the pieces of a huge number of runs are never all made at once.
IN_FLIGHT_PER_WORKER = 2

#: The most runs of one job: its counts (correct runs per budget) are int64. A run's seed is
#: ``SeedSequence(seed, spawn_key=(r,))``, which takes any r, so this is the only bound on R itself.
MAX_RUNS = 2**63 - 1

#: The most bytes the per-run results kept in memory may take (every run's choice, 4 bytes per run,
#: budget and configuration, when ``keep_chosen``): above it the runs are refused before anything is
#: allocated. ``reproduce`` keeps counts only, so its memory does not grow with R.
MAX_KEPT_BYTES = 4 * 2**30


@dataclass(frozen=True)
class Job:
    """The configurations of one matrix that share a kind of draw, at a grid of budgets, for runs 0 .. runs - 1."""

    key: str
    """Names the matrix among the jobs of one :func:`run_jobs` call."""
    shape: tuple[int, int]
    """(K, L) of the matrix."""
    configs: tuple[Config, ...]
    """All of one kind: the same ``synchronized`` and ``cells``."""
    budgets: tuple[int, ...]
    runs: int
    seed: int
    top_m: tuple[int, ...] = ()
    """Targets m whose top-m errors are counted (empty: none)."""
    source: Dataset | None = None
    """Where a worker loads the matrix from; None when :func:`run_jobs` is given its table."""
    todo: tuple[tuple[int, int], ...] | None = None
    """The runs to make, as ranges (start, stop) in increasing order, disjoint and within 0 .. runs;
    None: every run. A job resumed from a checkpoint makes only the runs it lacks, and its results
    count those runs only (the caller adds the counts it kept)."""

    def __post_init__(self) -> None:
        if self.todo is None:
            return
        end = 0
        for start, stop in self.todo:
            if not end <= start < stop <= self.runs:
                raise ParameterError(
                    f"the runs to make must be increasing, disjoint ranges within 0 .. {self.runs}, got {self.todo}"
                )
            end = stop

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        """The runs to make as ranges (start, stop): :attr:`todo`, or (0, runs).

        >>> Job("x", (3, 4), (Config.of("sr"),), (4,), 10, 0, todo=((2, 5), (7, 9))).ranges
        ((2, 5), (7, 9))
        >>> Job("x", (3, 4), (Config.of("sr"),), (4,), 10, 0).ranges
        ((0, 10),)
        """
        return ((0, self.runs),) if self.todo is None else self.todo

    @property
    def to_make(self) -> int:
        """How many runs the job makes (all *runs*, or those of :attr:`todo`)."""
        return sum(stop - start for start, stop in self.ranges)

    @property
    def synchronized(self) -> bool:
        """Whether the job's draws are synchronized (one shared query order per run)."""
        return self.configs[0].synchronized

    @property
    def cells(self) -> bool:
        """Whether the job draws cells (UCB-E-LRF) rather than query orders."""
        return self.configs[0].cells


@dataclass
class CellResult:
    """One configuration's results over a job's runs: per budget, exact counts."""

    correct: npt.NDArray[np.int64]
    """How many runs chose a true best model, per budget."""
    spent_max: npt.NDArray[np.int64]
    """The largest number of evaluations any run spent, per budget."""
    top_m: dict[int, TopMCounts] = field(default_factory=dict)
    """Per target m: the top-m errors, as counts over the runs."""
    chosen: npt.NDArray[np.int32] | None = None
    """Every run's choice at every budget, shape (runs, B), when it was asked for."""


def jobs_of(
    key: str,
    shape: tuple[int, int],
    configs: Sequence[Config],
    budgets: tuple[int, ...],
    runs: int,
    seed: int,
    top_m: tuple[int, ...] = (),
    source: Dataset | None = None,
) -> list[Job]:
    """The jobs of one matrix: *configs* grouped by kind of draw (synchronized, unsynchronized, cells), in that order.

    >>> [len(job.configs) for job in jobs_of("x", (3, 4), [Config.of("sr"), Config.of("sysrs"), Config.of("us")], (4,), 2, 0)]
    [1, 2]
    """
    jobs = []
    for synchronized, cells in ((True, False), (False, False), (False, True)):
        kind = tuple(c for c in configs if (c.synchronized, c.cells) == (synchronized, cells))
        if kind:
            jobs.append(Job(key, shape, kind, budgets, runs, seed, top_m, source))
    return jobs


#: What a piece returns per configuration: (chosen or None, correct per budget, largest spend per budget, top-m counts).
_Part = tuple[npt.NDArray[np.int32] | None, npt.NDArray[np.int64], npt.NDArray[np.int64], dict[int, TopMCounts]]


#: The algorithms whose fast path eliminates models phase by phase: K - 1 phases, each a pass over the models left.
_ELIMINATING = frozenset({"sr", "sysrs", "sar", "sysar"})


def elimination_need(n_models: int, passes: int, workers: int = 1) -> Need:
    """What *passes* runs of an eliminating algorithm need on K models: O(K^2) each, spread over *workers* processes.

    The compiled pass makes K - 1 phases, each over the models left; a
    pass runs in C to its end (Ctrl-C and SIGTERM act between passes), so a
    K of hundreds of thousands is refused rather than started.

    >>> round(elimination_need(200_000, 10).seconds)
    6000
    """
    return Need(
        f"{passes:,} runs (x budgets x algorithms) of successive elimination on K = {n_models:,} models",
        "K - 1 phases over the models left: O(K^2) per run and budget",
        seconds=1.5e-8 * n_models * n_models * passes / max(workers, 1),
    )


def runs_need(
    n_models: int, algorithms: Sequence[str], n_budgets: int, runs: int, workers: int = 1, scheduler: str | None = None
) -> Need:
    """What *runs* runs of *algorithms* at *n_budgets* budgets on K = *n_models* need (:func:`elimination_need`).

    The eliminating algorithms (SR, SySRs, SAR, SySAR) are what grows with K;
    local workers share the passes, a Dask *scheduler*'s workers are not
    counted. :func:`run_jobs` checks it for every job before any pass starts;
    ``simulate`` checks it on the K an ``.npy`` header declares, before the
    matrix is read.

    >>> round(runs_need(200_000, ["us", "sysrs"], 10, 1).seconds), round(runs_need(200_000, ["sr", "sysrs"], 1, 10, 4).seconds)
    (6000, 3000)
    """
    passes = runs * n_budgets * sum(name in _ELIMINATING for name in algorithms)
    return elimination_need(n_models, passes, workers if scheduler is None else 1)


def run_jobs(
    jobs: Sequence[Job],
    tables: Mapping[str, AnyTable],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    chunk: int | None = None,
    keep_chosen: bool = False,
    progress: Callable[[int], None] | None = None,
    done: Callable[[Job, Mapping[Config, CellResult]], None] | None = None,
    piece_done: Callable[[Job, int, int, Mapping[Config, CellResult]], None] | None = None,
) -> list[dict[Config, CellResult]]:
    """Run every job (its configurations on common draws) and return each job's results, in *jobs*' order.

    *tables* holds the score table of every job without a ``source``: a
    :class:`~sysrs_ref.fast.ScoreTable`, or a
    :class:`~sysrs_ref.fast.StochasticTable` whose runs draw their
    noise after their orders (:func:`~sysrs_ref.fast.simulation_noisy_draws`)
    and are judged by its truth (UCB-E-LRF is refused there).
    *workers* > 1 runs the pieces on that many local processes; *scheduler*
    on that Dask scheduler instead. *chunk* sets the runs per piece (default:
    within the memory bound, several pieces per worker). *progress* is called
    with the number of (run, configuration) pairs each finished piece held;
    *piece_done* with each job, a finished piece's runs (start, stop) and its
    counts (so that a caller can checkpoint them), before *progress*, for
    every piece but the one that finishes its job; *done* with each job and
    its results as soon as its last piece is in (at once for a job with no
    run to make). A job whose ``todo`` names some runs makes those only, and
    its results count those only.
    Pieces are made as they are submitted, a few per worker ahead.
    ParameterError, before anything is allocated, when a job has more than
    :data:`MAX_RUNS` runs or the kept choices would take more than
    :data:`MAX_KEPT_BYTES`. On an interruption the pieces not started are
    cancelled, the local workers killed, and the exception goes on (what
    *done* received is kept by the caller).
    """
    _check_runs(jobs, keep_chosen)
    check_workers(workers, "workers")
    total = sum(job.to_make for job in jobs)
    spread = 1 if scheduler is None and workers == 1 else workers
    for job in jobs:  # each job's passes on its own: a job of K models refused before any pass starts
        algorithms = [config.algorithm for config in job.configs]
        check_need(runs_need(job.shape[0], algorithms, len(job.budgets), job.to_make, workers, scheduler))
    noisy = [_noisy(tables.get(job.key)) for job in jobs]
    sizes = [chunk or _piece_size(job, total, spread, noisy=flag) for job, flag in zip(jobs, noisy, strict=True)]
    left = [  # pieces still to record, per job
        sum(-(-(stop - start) // size) for start, stop in job.ranges) for job, size in zip(jobs, sizes, strict=True)
    ]
    results = [
        {
            config: CellResult(
                np.zeros(len(job.budgets), dtype=np.int64),
                np.zeros(len(job.budgets), dtype=np.int64),
                {},
                np.empty((job.runs, len(job.budgets)), dtype=np.int32) if keep_chosen else None,
            )
            for config in job.configs
        }
        for job in jobs
    ]

    def record(index: int, start: int, stop: int, parts: Mapping[Config, _Part]) -> None:
        job = jobs[index]
        if piece_done is not None and left[index] > 1:  # the last piece goes to done with the whole job
            piece_done(job, start, stop, {config: CellResult(p[1], p[2], p[3]) for config, p in parts.items()})
        for config, (chosen, correct, spent, counts) in parts.items():
            into = results[index][config]
            if into.chosen is not None and chosen is not None:
                into.chosen[start:stop] = chosen
            into.correct += correct
            np.maximum(into.spent_max, spent, out=into.spent_max)
            for m, found in counts.items():
                into.top_m[m] = into.top_m[m].merged(found) if m in into.top_m else found
        left[index] -= 1
        if left[index] == 0:
            finish(index)
        if progress is not None:
            progress((stop - start) * len(job.configs))

    def finish(index: int) -> None:
        for cell in results[index].values():
            if cell.chosen is not None:
                cell.chosen.setflags(write=False)
        if done is not None:  # before progress: an interruption raised there keeps the finished job
            done(jobs[index], results[index])

    for index, count in enumerate(left):
        if count == 0:  # every run made before (a checkpoint): done at once
            finish(index)
    pieces = sum(left)
    if not pieces:  # nothing to run (every cell cached): no pool, no cluster
        return results
    keep_freed_memory()  # before the pool: forked workers inherit it
    plan = _plan(jobs, sizes)
    own = {job.key: tables[job.key] for job in jobs if job.source is None}
    local = 1 if pieces == 1 else workers  # one piece runs inline
    if scheduler is None and local > 1:
        # the compiled library's checks (its file, self-test, draws against numpy's), once per process: made here,
        # before the pool forks, every worker inherits them instead of making them again
        simulation_draws(0, 0, 1, 2, 1, synchronized=True)
    with _executor(local, scheduler, own) as (executor, slots):
        if executor is None:
            for index, start, stop in plan:
                job = jobs[index]
                table = own[job.key] if job.source is None else _loaded(job)
                record(index, start, stop, _piece(job, start, stop, table, keep_chosen))
        else:
            shipped = scheduler is not None  # Dask: no initializer, so a piece carries an in-memory table itself
            pending: dict[Future[dict[Config, _Part]], tuple[int, int, int]] = {}

            def submit(index: int, start: int, stop: int) -> None:
                job = jobs[index]
                carried = own.get(job.key) if shipped else None
                future = executor.submit(_worker_piece, job, start, stop, carried, keep_chosen)
                pending[future] = (index, start, stop)

            # on an interruption _executor stops what was submitted: cancelling futures here, beside the
            # pool's own thread, would race it (Python 3.11's pool then fails to close its queues and hangs)
            for piece in islice(plan, slots):
                submit(*piece)
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    record(*pending.pop(future), future.result())
                    for piece in islice(plan, 1):  # one in, one out: at most `slots` pieces are ever unrecorded
                        submit(*piece)
    return results


def _plan(jobs: Sequence[Job], sizes: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    """Every piece (job index, first run, run after the last), job by job, made only when asked for."""
    for index, (job, size) in enumerate(zip(jobs, sizes, strict=True)):
        for first, last in job.ranges:
            for start in range(first, last, size):
                yield index, start, min(last, start + size)


def _check_runs(jobs: Sequence[Job], keep_chosen: bool) -> None:
    """ParameterError when a job has more runs than its counts hold, or the kept choices would not fit in memory.

    >>> sysrs = (Config.of("sysrs"),)
    >>> _check_runs([Job("x", (80, 1000), sysrs, (80, 800), 10**6, 0)], True)
    >>> _check_runs([Job("x", (80, 1000), sysrs, (80, 800), 10**9, 0)], True)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: 1,000,000,000 runs are too many to keep every run's choice (1 configuration x 2 budgets x 4 bytes): 8,000,000,000 bytes, above the 4 GiB bound; at most 536,870,912 runs fit (reproduce keeps counts only)
    """
    if keep_chosen and any(job.todo is not None for job in jobs):
        raise ParameterError("every run's choice is kept only for jobs that make all their runs (no todo)")
    if keep_chosen and jobs:
        per_run = [4 * len(job.budgets) * len(job.configs) for job in jobs]
        needed = sum(job.runs * size for job, size in zip(jobs, per_run, strict=True))
        if needed > MAX_KEPT_BYTES:
            configs = sum(len(job.configs) for job in jobs)
            budgets = max(len(job.budgets) for job in jobs)
            raise ParameterError(
                f"{max(job.runs for job in jobs):,} runs are too many to keep every run's choice "
                f"({configs} configuration{'s' * (configs > 1)} x {budgets} budget{'s' * (budgets > 1)} x 4 bytes): "
                f"{needed:,} bytes, above the {MAX_KEPT_BYTES // 2**30} GiB bound; "
                f"at most {MAX_KEPT_BYTES // sum(per_run):,} runs fit (reproduce keeps counts only)"
            )
    for job in jobs:
        if job.runs > MAX_RUNS:
            raise ParameterError(
                f"{job.runs:,} runs are too many: the counts over the runs are 64-bit integers, "
                f"so at most {MAX_RUNS:,} runs"
            )


def _noisy(table: AnyTable | None) -> bool:
    """Whether the runs on *table* draw noise and realise their own matrices."""
    return isinstance(table, StochasticTable) and table.fixed is None


def _piece_size(job: Job, total: int, workers: int, *, noisy: bool = False) -> int:
    """Runs per piece: within the memory bound (shared by the workers), several pieces per worker.

    *noisy* runs (a stochastic instance's) hold their noise and realised matrices too.

    >>> sysrs = (Config.of("sysrs"),)
    >>> _piece_size(Job("x", (80, 1000), sysrs, (1, 2, 3), 1000, 0), 1000, 1)
    125
    >>> _piece_size(Job("x", (80, 1000), sysrs, (1, 2, 3), 10**6, 0), 10**6, 2)
    256
    """
    share = math.ceil(total / (PIECES_PER_WORKER * workers))
    if any(config.algorithm not in KERNELS for config in job.configs):  # the reference, run by run (UCB-E-LRF)
        return max(1, min(share, math.ceil(job.runs / 100)))
    cell_bytes = max(bytes_per_cell(config.algorithm, noisy=noisy) for config in job.configs)
    memory = chunk_runs(*job.shape, len(job.budgets), limit=CHUNK_BYTES // workers, cell_bytes=cell_bytes)
    return max(1, min(memory, MAX_CHUNK, max(MIN_CHUNK, share)))


def _piece(job: Job, start: int, stop: int, table: AnyTable, keep_chosen: bool) -> dict[Config, _Part]:
    """Runs start .. stop - 1 of every configuration of *job*, on one set of draws (and noise, if stochastic)."""
    if isinstance(table, StochasticTable):  # the stochastic truth, not a realised matrix's
        best, truth = sorted(table.best), table.truth if job.top_m else None
    else:
        best, truth = sorted(table.instance.best), TopMTruth.of(table.instance) if job.top_m else None
    budgets = np.asarray(job.budgets, dtype=np.int64)
    out: dict[Config, _Part] = {}
    if job.cells:  # UCB-E-LRF: its own draws (cell orders, stream seeds); a run spends each budget exactly
        if not isinstance(table, ScoreTable):
            raise ParameterError("UCB-E-LRF does not run on stochastic instances")
        for config in job.configs:
            rankings = lrf_rankings(table.instance.array, job.budgets, job.seed, start, stop, config.lrf)
            counts = {m: topm_counts(rankings, truth, m) for m in job.top_m if truth is not None}
            out[config] = _part(rankings[:, :, 0], best, budgets, counts, keep_chosen)
        return out
    draws: DrawBatch | NoisyDrawBatch
    if _noisy(table):  # run r's noise comes after its orders, from its own generator
        draws = simulation_noisy_draws(job.seed, start, stop, *job.shape, synchronized=job.synchronized)
    else:
        draws = simulation_draws(job.seed, start, stop, *job.shape, synchronized=job.synchronized)

    def run(config: Config, params: AlgorithmParams, ranking: bool) -> FastOutcomes:
        return run_exact(table, config.algorithm, job.budgets, draws, params, ranking=ranking, chunk=draws.n_runs)

    for config in job.configs:
        spec, params = get_algorithm(config.algorithm), config.typed
        result = run(config, params, bool(job.top_m) and not config.m_is_target)
        counts = {}
        for m in job.top_m:
            assert truth is not None
            source = run(config, spec.for_target(params, m), True) if config.m_is_target else result
            assert source.ranking is not None
            counts[m] = topm_counts(source.ranking, truth, m)
        out[config] = _part(result.chosen, best, result.spent.max(axis=0), counts, keep_chosen)
    return out


def _part(
    chosen: npt.NDArray[np.int32],
    best: list[int],
    spent: npt.NDArray[np.int64],
    counts: dict[int, TopMCounts],
    keep: bool,
) -> _Part:
    correct: npt.NDArray[np.int64] = np.isin(chosen, best).sum(axis=0).astype(np.int64)
    return (chosen.astype(np.int32, copy=False) if keep else None), correct, spent.astype(np.int64), counts


# -- where a worker finds its score tables ------------------------------------------------------------

_INSTALLED: dict[str, AnyTable] = {}
"""Tables the parent sent to this worker process (its initializer)."""
_LOADED: dict[str, ScoreTable] = {}
"""The last matrix this process loaded from a Dataset (one at a time keeps memory flat)."""
_LOADING = threading.Lock()
"""Held while :func:`_loaded` looks at or fills :data:`_LOADED`: a Dask worker runs its pieces in threads."""


def _loaded(job: Job) -> ScoreTable:
    assert job.source is not None
    with _LOADING:  # one thread loads a matrix, the others wait for it (none clears it under another's feet)
        if job.key not in _LOADED:
            _LOADED.clear()
            _LOADED[job.key] = score_table(job.source.load())
        return _LOADED[job.key]


def _worker_piece(job: Job, start: int, stop: int, table: AnyTable | None, keep_chosen: bool) -> dict[Config, _Part]:
    if not _PINNED:  # a Dask worker (no initializer): once per process
        _PINNED.append(single_blas_thread())
    if table is None:
        table = _INSTALLED[job.key] if job.source is None else _loaded(job)
    return _piece(job, start, stop, table, keep_chosen)


#: Whether this worker process has set BLAS to one thread (:func:`~sysrs_ref.simulation._blas.single_blas_thread`).
_PINNED: list[int] = []


def _init_worker(tables: Mapping[str, AnyTable]) -> None:
    keep_freed_memory()
    _PINNED.append(single_blas_thread())
    _INSTALLED.clear()
    _INSTALLED.update(tables)


@contextmanager
def _executor(
    workers: int, scheduler: str | None, tables: Mapping[str, AnyTable]
) -> Iterator[tuple[Executor | None, int]]:
    """(None, 1) inline for one local worker; a process pool for more; a Dask client's executor for a scheduler.

    The second item is how many pieces to keep submitted ahead (:data:`IN_FLIGHT_PER_WORKER` per worker).
    """
    if scheduler is not None:
        with dask_executor(scheduler, workers, IN_FLIGHT_PER_WORKER) as submitted:
            yield submitted
        return
    if workers == 1:
        yield None, 1
        return
    compiled.active()  # the library loaded (or given up, with its one warning) here, once, not in every worker
    with process_pool(workers, _init_worker, (dict(tables),)) as pool:
        yield pool, IN_FLIGHT_PER_WORKER * workers
