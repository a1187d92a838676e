"""The Monte-Carlo engine of ``simulate`` and ``reproduce``: every run of every configuration, on common draws.

A :class:`Job` is the configurations of one score matrix that share a kind of
draw (synchronized, unsynchronized, or UCB-E-LRF's cells), at a grid of
budgets, for runs 0 .. R - 1. :func:`run_jobs` cuts every job into pieces of
runs, makes each piece's draws once (run r's from ``SeedSequence(seed,
spawn_key=(r,))``, :func:`~sysrs_ref.fast.batch.simulation_draws`), runs every
configuration of the job on them with the numpy fast path, and merges the
pieces: how many runs chose a best model, the largest spend, top-m counts and,
when asked, every run's choice. Pieces run inline, on local worker processes
or on a Dask cluster; none of this changes a number, because each run's draw
depends only on (seed, r).

This is the one place where chunk sizes, pools, progress, interruption,
top-m and the UCB-E-LRF branch are written.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import ParameterError
from sysrs_ref.fast.batch import simulation_draws
from sysrs_ref.fast.lrf import lrf_rankings
from sysrs_ref.fast.outcomes import FastOutcomes
from sysrs_ref.fast.run import CELL_BYTES, CHUNK_BYTES, KERNELS, chunk_runs, run_exact
from sysrs_ref.fast.table import ScoreTable, score_table
from sysrs_ref.simulation._config import Config
from sysrs_ref.topm import TopMCounts, TopMTruth, topm_counts

__all__ = ["CellResult", "Job", "jobs_of", "run_jobs"]

#: Pieces of work per worker, so that progress is reported and the workers stay busy until the end.
PIECES_PER_WORKER = 8

#: Runs per piece for the fast kernels: at least MIN (fewer pay the per-phase numpy
#: overhead once too often), at most MAX (more fall out of the caches; measured on
#: gsm, ifeval and wmt_14), and never above the memory bound.
MIN_CHUNK, MAX_CHUNK = 64, 256


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


def run_jobs(
    jobs: Sequence[Job],
    tables: Mapping[str, ScoreTable],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    chunk: int | None = None,
    keep_chosen: bool = False,
    progress: Callable[[int], None] | None = None,
    done: Callable[[Job, Mapping[Config, CellResult]], None] | None = None,
) -> list[dict[Config, CellResult]]:
    """Run every job (its configurations on common draws) and return each job's results, in *jobs*' order.

    *tables* holds the score table of every job without a ``source``.
    *workers* > 1 runs the pieces on that many local processes; *scheduler*
    on that Dask scheduler instead. *chunk* sets the runs per piece (default:
    within the memory bound, several pieces per worker). *progress* is called
    with the number of (run, configuration) pairs each finished piece held;
    *done* with each job and its results as soon as its last piece is in.
    On an interruption the pieces not started are cancelled and the exception
    goes on (what *done* received is kept by the caller).
    """
    total = sum(job.runs for job in jobs)
    plan = [
        (index, start, min(job.runs, start + size))
        for index, job in enumerate(jobs)
        for size in [chunk or _piece_size(job, total, 1 if scheduler is None and workers == 1 else workers)]
        for start in range(0, job.runs, size)
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
    left = [0] * len(jobs)
    for index, _, _ in plan:
        left[index] += 1

    def record(index: int, start: int, stop: int, parts: Mapping[Config, _Part]) -> None:
        job = jobs[index]
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
            for cell in results[index].values():
                if cell.chosen is not None:
                    cell.chosen.setflags(write=False)
            if done is not None:  # before progress: an interruption raised there keeps the finished job
                done(job, results[index])
        if progress is not None:
            progress((stop - start) * len(job.configs))

    if not plan:  # nothing to run (every cell cached): no pool, no cluster
        return results
    own = {job.key: tables[job.key] for job in jobs if job.source is None}
    local = 1 if len(plan) == 1 else workers  # one piece runs inline
    with _executor(local, scheduler, own) as executor:
        if executor is None:
            for index, start, stop in plan:
                job = jobs[index]
                table = own[job.key] if job.source is None else _loaded(job)
                record(index, start, stop, _piece(job, start, stop, table, keep_chosen))
        else:
            shipped = scheduler is not None  # Dask: no initializer, so a piece carries an in-memory table itself
            pending: dict[Future[dict[Config, _Part]], tuple[int, int, int]] = {}
            try:
                for index, start, stop in plan:
                    job = jobs[index]
                    carried = own.get(job.key) if shipped else None
                    pending[executor.submit(_worker_piece, job, start, stop, carried, keep_chosen)] = (
                        index,
                        start,
                        stop,
                    )
                for future in as_completed(pending):
                    record(*pending[future], future.result())
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    return results


def _piece_size(job: Job, total: int, workers: int) -> int:
    """Runs per piece: within the memory bound (shared by the workers), several pieces per worker.

    >>> sysrs = (Config.of("sysrs"),)
    >>> _piece_size(Job("x", (80, 1000), sysrs, (1, 2, 3), 1000, 0), 1000, 1)
    125
    >>> _piece_size(Job("x", (80, 1000), sysrs, (1, 2, 3), 10**6, 0), 10**6, 2)
    256
    """
    share = math.ceil(total / (PIECES_PER_WORKER * workers))
    if any(config.algorithm not in KERNELS for config in job.configs):  # the reference, run by run (UCB-E-LRF)
        return max(1, min(share, math.ceil(job.runs / 100)))
    cell_bytes = max(CELL_BYTES.get(config.algorithm, 64) for config in job.configs)
    memory = chunk_runs(*job.shape, len(job.budgets), limit=CHUNK_BYTES // workers, cell_bytes=cell_bytes)
    return max(1, min(memory, MAX_CHUNK, max(MIN_CHUNK, share)))


def _piece(job: Job, start: int, stop: int, table: ScoreTable, keep_chosen: bool) -> dict[Config, _Part]:
    """Runs start .. stop - 1 of every configuration of *job*, on one set of draws."""
    best = sorted(table.instance.best)
    truth = TopMTruth.of(table.instance) if job.top_m else None
    budgets = np.asarray(job.budgets, dtype=np.int64)
    out: dict[Config, _Part] = {}
    if job.cells:  # UCB-E-LRF: its own draws (cell orders, stream seeds); a run spends each budget exactly
        for config in job.configs:
            rankings = lrf_rankings(table.instance.array, job.budgets, job.seed, start, stop, config.lrf)
            counts = {m: topm_counts(rankings, truth, m) for m in job.top_m if truth is not None}
            out[config] = _part(rankings[:, :, 0], best, budgets, counts, keep_chosen)
        return out
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

_INSTALLED: dict[str, ScoreTable] = {}
"""Tables the parent sent to this worker process (its initializer)."""
_LOADED: dict[str, ScoreTable] = {}
"""The last matrix this process loaded from a Dataset (one at a time keeps memory flat)."""


def _loaded(job: Job) -> ScoreTable:
    assert job.source is not None
    if job.key not in _LOADED:
        _LOADED.clear()
        _LOADED[job.key] = score_table(job.source.load())
    return _LOADED[job.key]


def _worker_piece(job: Job, start: int, stop: int, table: ScoreTable | None, keep_chosen: bool) -> dict[Config, _Part]:
    if table is None:
        table = _INSTALLED[job.key] if job.source is None else _loaded(job)
    return _piece(job, start, stop, table, keep_chosen)


def _init_worker(tables: Mapping[str, ScoreTable]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it cancels the pool
    _INSTALLED.clear()
    _INSTALLED.update(tables)


@contextmanager
def _executor(workers: int, scheduler: str | None, tables: Mapping[str, ScoreTable]) -> Iterator[Executor | None]:
    """None (inline) for one local worker; a process pool for more; a Dask client's executor for a scheduler."""
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
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(dict(tables),))
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
