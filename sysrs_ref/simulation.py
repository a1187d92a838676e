"""Monte Carlo: one algorithm, R seeded runs, a grid of budgets (``python -m sysrs_ref simulate``).

How the draws come from the seed (the contract other implementations match):
run r (r = 0 .. R - 1) uses its own generator,
``numpy.random.default_rng(numpy.random.SeedSequence(seed, spawn_key=(r,)))``,
which is the r-th child of ``numpy.random.default_rng(seed).spawn(R)``, and
draws from it exactly as :func:`~sysrs_ref.draws.random_draw` does (the arm
priority, then the query order(s)). So

- any single run can be replayed alone, by the reference:
  ``select(instance, budget, algorithm, draw=random_draw(that generator, K, L, synchronized=...))``;
- the results do not depend on how the runs are split into chunks, nor on
  the number of worker processes;
- every budget of the grid uses the same R draws (common random numbers), so
  differences between budgets are not sampling noise between independent runs.

Runs go through :func:`sysrs_ref.fast.run_fast`, which gives exactly the
reference's outcome for each draw (and falls back to the reference itself for
an algorithm without a fast kernel). UCB-E-LRF draws an
:class:`~sysrs_ref.algorithms.lrf.LRFDraw` from the same child generator
(``random_lrf_draw``) and runs through :func:`sysrs_ref.fast.lrf.lrf_rankings`.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.lrf import lrf_params
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.errors import BudgetError, ParameterError
from sysrs_ref.fast.batch import simulation_draws
from sysrs_ref.fast.lrf import lrf_rankings
from sysrs_ref.fast.outcomes import FastOutcomes
from sysrs_ref.fast.run import CELL_BYTES, CHUNK_BYTES, KERNELS, chunk_runs, exact_params, run_fast
from sysrs_ref.fast.table import ScoreTable, score_table
from sysrs_ref.instance import Instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import parse_budget, parse_percentage
from sysrs_ref.scores import decimal_text
from sysrs_ref.topm import TopMCounts, TopMTruth, counts_json, parse_top_m, topm_counts

__all__ = ["SimulationResult", "SimulationRow", "simulate", "simulation_draws"]


#: Pieces of work per worker, so that progress is reported and the workers stay busy until the end.
PIECES_PER_WORKER = 8

#: Runs per chunk for the fast kernels: at least MIN (fewer pay the per-phase numpy
#: overhead once too often), at most MAX (more fall out of the caches; measured on
#: gsm, ifeval and wmt_14), and never above the memory bound.
MIN_CHUNK, MAX_CHUNK = 64, 256


class SimulationRow(NamedTuple):
    """One budget of a simulation: its percentage, n, the accuracy over the runs, the largest spend."""

    budget_pct: float
    """The budget as a percentage of K*L, as given (8.0 for "8%"), or 100 n / (K L) for an integer n."""
    budget: int
    """n, the number of evaluations."""
    accuracy: float
    """correct / runs: the fraction of runs whose chosen model is a true best model."""
    correct: int
    """How many runs chose a true best model (a tied best model counts)."""
    spent_max: int
    """The largest number of evaluations any run spent (never above n)."""


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """The result of :func:`simulate`: one :class:`SimulationRow` per budget, and every run's choice.

    ``chosen[r, b]`` is the model run r chose at budget b (int32, read-only),
    for later analysis; ``best`` the true best models (more than one when tied).
    ``params`` holds the algorithm's parameters with defaults filled in, exactly:
    an int when the value is an integer, otherwise its exact decimal text
    (``"0.1"``) or ``"p/q"`` when it has no finite decimal expansion.

    >>> res = simulate(Instance([[1, 1, 0], [0, 1, 0]]), "syucbe", [2, "100%"], runs=3)
    >>> res.params, [(row.budget, row.correct) for row in res.rows]
    ({'a': 1}, [(2, 2), (6, 3)])
    >>> res.to_json()["results"][1]
    {'budget_pct': 100.0, 'budget': 6, 'accuracy': 1.0, 'spent_max': 6, 'correct': 3}
    """

    algorithm: str
    params: Mapping[str, int | str]
    K: int
    L: int
    runs: int
    seed: int
    rows: tuple[SimulationRow, ...]
    best: tuple[int, ...]
    chosen: npt.NDArray[np.int32] = field(repr=False)
    top_m: Mapping[int, TopMCounts] = field(default_factory=dict, repr=False)
    """Per target m (when asked for): the top-m errors at every budget, as exact counts over the runs."""

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON object of ``simulate --json`` (docs/cli.md), rows with their ``correct`` count.

        With top-m targets, each row also holds ``"top_m": {"3": {"identification_error",
        "ranking_error", "per_rank_error"}, ...}`` (Appendix "Top-m"; ties by the paper's rule,
        :mod:`sysrs_ref.topm`).

        >>> simulate(Instance([[1, 0], [0, 1]]), "sysrs", ["50%"], runs=2).to_json()["results"][0]["budget_pct"]
        50.0
        """
        return {
            "algorithm": self.algorithm,
            "params": dict(self.params),
            "K": self.K,
            "L": self.L,
            "runs": self.runs,
            "seed": self.seed,
            "results": [
                {
                    "budget_pct": row.budget_pct,
                    "budget": row.budget,
                    "accuracy": row.accuracy,
                    "spent_max": row.spent_max,
                    "correct": row.correct,
                    **({"top_m": counts_json(self.top_m, index)} if self.top_m else {}),
                }
                for index, row in enumerate(self.rows)
            ],
        }


class _Task(NamedTuple):
    """Runs start .. stop - 1 of a simulation: everything a worker needs besides the scores."""

    algorithm: str
    budgets: tuple[int, ...]
    seed: int
    start: int
    stop: int
    synchronized: bool
    params: dict[str, Fraction]
    top_m: tuple[int, ...] = ()
    truth: TopMTruth | None = None
    m_is_target: bool = False
    """SAR, SySAR without a fixed m: each target m's errors come from a run with parameter m."""


#: What a task returns: every run's choice, the largest spend per budget, and top-m counts per m.
_TaskResult = tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], dict[int, TopMCounts]]


def simulate(
    instance: Instance,
    algorithm: str,
    budgets: Sequence[int | str],
    runs: int,
    seed: int = 0,
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    chunk: int | None = None,
    top_m: Sequence[int] | str | None = None,
    **params: ParamValue,
) -> SimulationResult:
    """Run *algorithm* *runs* times at every budget of *budgets* and report how often it finds a best model.

    Budgets are integers (5000, "5000") or percentages of K*L ("12%",
    "1.25%"), parsed exactly. Run r's draw comes from
    ``SeedSequence(seed, spawn_key=(r,))`` (see :func:`simulation_draws`) and
    serves every budget. *workers* > 1 spreads chunks of runs over that many
    processes; *chunk* sets the runs per chunk (default: as many as memory
    allows, split so every worker gets several). Neither changes the result.
    *progress* is called with 0 once the inputs are checked, then with the
    number of runs finished after each chunk. Parameters (``a`` for the UCB
    family, ``m`` for SAR and SySAR) are passed by keyword.

    *top_m* (such as ``[3, 5, 10]`` or ``"3,5,10"``) adds, per target m, the
    top-m identification, ranking and per-rank errors of the runs' rankings
    at every budget (:attr:`SimulationResult.top_m`; Appendix "Top-m", ties by
    the paper's rule). SAR and SySAR are built for one m: unless ``m`` is
    given, each target's errors come from runs with ``m`` set to that target,
    on the same draws (their ``accuracy`` is that of ``m`` = 1, i.e. SR and
    SySRs).

    >>> inst = Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]])
    >>> res = simulate(inst, "sysrs", ["50%", 12], runs=10, seed=1)
    >>> [(row.budget_pct, row.budget, row.correct, row.spent_max) for row in res.rows]
    [(50.0, 6, 5, 5), (100.0, 12, 10, 12)]
    >>> res.chosen.shape, res.rows[0].accuracy
    ((10, 2), 0.5)
    """
    if not isinstance(instance, Instance):
        raise TypeError(f"instance must be an Instance, got {type(instance).__name__}")
    spec = get_algorithm(algorithm)
    exact = exact_params(spec.name, params)
    _check_count(runs, "runs", "runs")
    _check_count(workers, "workers", "worker processes")
    if chunk is not None:
        _check_count(chunk, "chunk", "runs per chunk")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    n_models, n_queries = instance.shape
    grid = _parse_budgets(budgets, n_models, n_queries)
    ints = tuple(budget for _, budget in grid)
    targets = () if top_m is None else parse_top_m(top_m, n_models)
    truth = TopMTruth.of(instance) if targets else None
    m_is_target = "m" in spec.defaults and "m" not in params

    size = chunk if chunk is not None else _chunk_size(spec.name, n_models, n_queries, len(ints), runs, workers)
    tasks = [
        _Task(spec.name, ints, int(seed), start, min(runs, start + size), spec.synchronized, exact, targets, truth, m_is_target)
        for start in range(0, runs, size)
    ]
    table = score_table(instance)
    chosen = np.empty((runs, len(ints)), dtype=np.int32)
    spent = np.zeros(len(ints), dtype=np.int64)
    counts: dict[int, TopMCounts] = {}

    def record(task: _Task, part: _TaskResult) -> None:
        chosen[task.start : task.stop] = part[0]
        np.maximum(spent, part[1], out=spent)
        for m, found in part[2].items():
            counts[m] = counts[m].merged(found) if m in counts else found
        if progress is not None:
            progress(task.stop - task.start)

    if progress is not None:
        progress(0)  # the inputs are valid and the runs start
    if workers == 1 or len(tasks) == 1:
        for task in tasks:
            record(task, _run_task(table, task))
    else:
        _run_in_pool(table, tasks, min(workers, len(tasks)), record)

    best = sorted(instance.best)
    hits = np.isin(chosen, best).sum(axis=0)
    rows = []
    for (pct, budget), correct, spent_max in zip(grid, hits.tolist(), spent.tolist()):
        if spent_max > budget:  # run_fast's contract; checked here because a wrong row must never be reported
            raise AssertionError(f"{spec.name} spent {spent_max} > budget {budget}")
        rows.append(SimulationRow(pct, budget, correct / runs, int(correct), int(spent_max)))
    chosen.setflags(write=False)
    return SimulationResult(
        algorithm=spec.name,
        params={key: _exact_json(value) for key, value in exact.items()},
        K=n_models,
        L=n_queries,
        runs=runs,
        seed=int(seed),
        rows=tuple(rows),
        best=tuple(best),
        chosen=chosen,
        top_m={m: counts[m] for m in targets},
    )


def _check_count(value: object, name: str, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be a positive integer (the number of {what}), got {value!r}")


def _parse_budgets(budgets: Sequence[int | str], n_models: int, n_queries: int) -> list[tuple[float, int]]:
    """Each budget as (its percentage of K*L, n); percentages as given, parsed exactly."""
    if isinstance(budgets, (str, bytes, int)) or not isinstance(budgets, (Sequence, np.ndarray)):
        raise BudgetError(f"budgets must be a list of budgets such as ['8%', '20%', 5000], got {budgets!r}")
    if len(budgets) == 0:
        raise BudgetError("give at least one budget")
    full = n_models * n_queries
    out = []
    for given in budgets:
        value: int | str = int(given) if isinstance(given, np.integer) else given
        budget = parse_budget(value, n_models, n_queries)
        if isinstance(value, str) and value.strip().endswith("%"):
            pct = float(parse_percentage(value.strip()))
        else:
            pct = 100 * budget / full
        out.append((pct, budget))
    return out


def _chunk_size(name: str, n_models: int, n_queries: int, n_budgets: int, runs: int, workers: int) -> int:
    """Runs per chunk: within the memory bound (shared by the workers), several chunks per worker.

    >>> _chunk_size("sysrs", 80, 1000, 3, 1000, 1), _chunk_size("sysrs", 80, 1000, 3, 10**6, 2)
    (125, 256)
    """
    share = math.ceil(runs / (PIECES_PER_WORKER * workers))
    if name not in KERNELS:  # the reference, run by run: chunks only set how often progress is reported
        return max(1, min(share, math.ceil(runs / 100)))
    memory = chunk_runs(n_models, n_queries, n_budgets, limit=CHUNK_BYTES // workers, cell_bytes=CELL_BYTES.get(name, 64))
    return max(1, min(memory, MAX_CHUNK, max(MIN_CHUNK, share)))


def _run_task(table: ScoreTable, task: _Task) -> _TaskResult:
    """(chosen (runs, B), largest spend per budget (B,), top-m counts per m) of the task's runs."""
    if get_algorithm(task.algorithm).cells:  # UCB-E-LRF: its own draws (cell orders); a run spends each budget
        rankings = lrf_rankings(table.instance.array, task.budgets, task.seed, task.start, task.stop, lrf_params(task.params))
        found = {m: topm_counts(rankings, task.truth, m) for m in task.top_m if task.truth is not None}
        return rankings[:, :, 0], np.asarray(task.budgets, dtype=np.int64), found
    draws = simulation_draws(
        task.seed, task.start, task.stop, table.n_models, table.n_queries, synchronized=task.synchronized
    )

    def run(params: dict[str, Fraction], ranking: bool) -> FastOutcomes:
        # (cast: mypy cannot know the dict holds no key named like run_fast's own keywords; it holds "a" or "m")
        loose = cast("dict[str, Any]", params)
        return run_fast(table, task.algorithm, task.budgets, draws, ranking=ranking, chunk=draws.n_runs, **loose)

    out = run(task.params, ranking=bool(task.top_m) and not task.m_is_target)
    spent: npt.NDArray[np.int64] = out.spent.max(axis=0)
    counts: dict[int, TopMCounts] = {}
    for m in task.top_m:
        assert task.truth is not None
        source = run({**task.params, "m": Fraction(m)}, ranking=True) if task.m_is_target else out
        assert source.ranking is not None
        counts[m] = topm_counts(source.ranking, task.truth, m)
    return out.chosen, spent, counts


# -- worker processes: the score table is sent once per worker (initializer), never per task --------

_WORKER_TABLE: list[ScoreTable] = []


def _init_worker(table: ScoreTable) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it cancels the pool
    _WORKER_TABLE[:] = [table]


def _worker_task(task: _Task) -> _TaskResult:
    return _run_task(_WORKER_TABLE[0], task)


def _run_in_pool(
    table: ScoreTable,
    tasks: Sequence[_Task],
    workers: int,
    record: Callable[[_Task, _TaskResult], None],
) -> None:
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(table,))
    try:
        pending: dict[Future[_TaskResult], _Task] = {
            pool.submit(_worker_task, task): task for task in tasks
        }
        for future in as_completed(pending):
            record(pending[future], future.result())
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _exact_json(value: Fraction) -> int | str:
    """An exact parameter value for JSON: an int, else its exact decimal text, else "p/q".

    >>> _exact_json(Fraction(1)), _exact_json(Fraction(1, 8)), _exact_json(Fraction(1, 3))
    (1, '0.125', '1/3')
    """
    return value.numerator if value.denominator == 1 else decimal_text(value)
