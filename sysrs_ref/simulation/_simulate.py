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
an algorithm without a fast kernel).

A :class:`~sysrs_ref.stochastic.StochasticInstance` (scores S_ij ~ phi_ij)
runs the same way: run r's generator draws the arm priority and the query
order(s) as above, then the noise of every cell, i.e. exactly
``random_stochastic_draw(that generator, K, L, synchronized=...)``; the run is
``select(instance, budget, algorithm, draw=that draw)``, and it is correct
when it chooses a best model of the stochastic truth (mu_i = (1/L) sum_j
E[S_ij]; top-m from the mean instance's tiers). A deterministic matrix given
as point masses (:meth:`~sysrs_ref.stochastic.StochasticInstance.deterministic`)
gives exactly the matrix's results. UCB-E-LRF is refused there. UCB-E-LRF draws an
:class:`~sysrs_ref.algorithms.lrf.LRFDraw` from the same child generator
(``random_lrf_draw``) and runs through :func:`sysrs_ref.fast.lrf.lrf_rankings`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import check_int, check_seed
from sysrs_ref._limits import check_workers
from sysrs_ref.algorithms.registry import ParamValue
from sysrs_ref.errors import BudgetError, ParameterError
from sysrs_ref.fast import score_table, simulation_draws, stochastic_table
from sysrs_ref.instance import InstanceLike, as_instance
from sysrs_ref.json_types import JsonValue
from sysrs_ref.schedule import Budget
from sysrs_ref.scores import decimal_text
from sysrs_ref.simulation._config import Config, parse_algorithm_list
from sysrs_ref.simulation._engine import AnyTable, CellResult, jobs_of, run_jobs
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.topm import TopMCounts, counts_json, parse_top_m

__all__ = ["SimulationResult", "SimulationRow", "simulate", "simulate_many", "simulation_draws"]


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

    >>> res = simulate([[1, 1, 0], [0, 1, 0]], "syucbe", [2, "100%"], runs=3)
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

        >>> simulate([[1, 0], [0, 1]], "sysrs", ["50%"], runs=2).to_json()["results"][0]["budget_pct"]
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


def simulate(
    instance: InstanceLike | StochasticInstance,
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
    family, ``m`` for SAR and SySAR) are passed by keyword. *instance* may be
    a numpy array or nested lists of scores (made an Instance), or a
    :class:`~sysrs_ref.stochastic.StochasticInstance` (see the module's
    docstring: each run draws its noise too, and is judged by the stochastic
    truth; UCB-E-LRF is refused with a ParameterError); counts and the seed
    may be numpy integers.

    *top_m* (such as ``[3, 5, 10]`` or ``"3,5,10"``) adds, per target m, the
    top-m identification, ranking and per-rank errors of the runs' rankings
    at every budget (:attr:`SimulationResult.top_m`; Appendix "Top-m", ties by
    the paper's rule). SAR and SySAR are built for one m: unless ``m`` is
    given, each target's errors come from runs with ``m`` set to that target,
    on the same draws (their ``accuracy`` is that of ``m`` = 1, i.e. SR and
    SySRs).

    >>> inst = [[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]]   # an Instance, or the matrix itself
    >>> res = simulate(inst, "sysrs", ["50%", 12], runs=10, seed=1)
    >>> [(row.budget_pct, row.budget, row.correct, row.spent_max) for row in res.rows]
    [(50.0, 6, 5, 5), (100.0, 12, 10, 12)]
    >>> res.chosen.shape, res.rows[0].accuracy
    ((10, 2), 0.5)
    """
    if isinstance(algorithm, str) and "," in algorithm:
        raise ParameterError(f"simulate runs one algorithm, got {algorithm!r}: use simulate_many for several")
    if not isinstance(algorithm, (str, Config)):
        several = f" {list(algorithm)!r}" if isinstance(algorithm, (list, tuple)) else ""
        raise ParameterError(
            f"simulate runs one algorithm, named by a string such as 'sysrs', got a {type(algorithm).__name__}"
            f"{several}: use simulate_many for several (it takes a list of names or 'sysrs,sr')"
        )
    configs = parse_algorithm_list(algorithm, "algorithm", {}, params) if isinstance(algorithm, str) else (algorithm,)
    return simulate_many(
        instance, configs, budgets, runs, seed, workers=workers, progress=progress, chunk=chunk, top_m=top_m
    )[0]


def simulate_many(
    instance: InstanceLike | StochasticInstance,
    configs: Sequence[Config | str] | str,
    budgets: Sequence[int | np.integer[Any] | str | Budget],
    runs: int,
    seed: int = 0,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int], None] | None = None,
    chunk: int | None = None,
    top_m: Sequence[int] | str | None = None,
) -> tuple[SimulationResult, ...]:
    """Several algorithms on common random numbers: one :class:`SimulationResult` per configuration, in order.

    Every run r draws once per kind (synchronized or not), from
    ``SeedSequence(seed, spawn_key=(r,))``, and every configuration of that
    kind runs on that draw: the results are paired across algorithms and
    each is exactly what :func:`simulate` gives for it alone with the same
    seed. *configs* are :class:`Config` objects, names (``["sysrs", "sr"]``)
    or a list such as ``"sysrs,sr,ucbe:a=1"`` (``"all"``: the six algorithms of the paper's
    table with a = 1). *scheduler* runs the pieces on that Dask scheduler
    instead of *workers* local processes. *progress* is called with 0 once
    the inputs are checked, then with the number of (run, configuration)
    pairs finished after each piece. *instance* may be a
    :class:`~sysrs_ref.stochastic.StochasticInstance`, as for :func:`simulate`.

    >>> inst = [[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]]
    >>> both = simulate_many(inst, "sysrs,ucbe:a=0.5", ["50%"], runs=10, seed=1)
    >>> [(res.algorithm, res.params, res.rows[0].correct) for res in both]
    [('sysrs', {}, 5), ('ucbe', {'a': '0.5'}, 6)]
    >>> both[0].rows == simulate(inst, "sysrs", ["50%"], runs=10, seed=1).rows
    True
    >>> noisy = StochasticInstance.bernoulli([[0.75, 0.75, 0.5], [0.5, 0.25, 0.5]])
    >>> [row.correct for row in simulate_many(noisy, "sysrs", ["100%"], runs=100, seed=1)[0].rows]
    [70]
    """
    stochastic = instance if isinstance(instance, StochasticInstance) else None
    instance = stochastic.mean_instance if stochastic is not None else as_instance(instance)
    chosen_configs = (
        parse_algorithm_list(configs, "algorithms")
        if isinstance(configs, str)
        else tuple(
            found
            for config in configs
            for found in (parse_algorithm_list(config, "algorithms") if isinstance(config, str) else (config,))
        )
    )
    if not all(isinstance(config, Config) for config in chosen_configs):
        raise ParameterError("simulate_many takes algorithm names ('sysrs', 'ucbe:a=1') or Config objects")
    if not chosen_configs:
        raise ParameterError("give at least one algorithm")
    lrf = [config.label for config in chosen_configs if config.cells]
    if stochastic is not None and lrf:
        raise ParameterError(
            f"{lrf[0]} does not run on stochastic instances (its low-rank fit reads each cell's one score); "
            "leave it out, or simulate the mean matrix (StochasticInstance.mean_instance)"
        )
    runs = check_int(runs, "runs")
    workers = check_workers(workers, "workers")
    if chunk is not None:
        chunk = check_int(chunk, "chunk")
    seed = check_seed(seed)
    n_models, n_queries = instance.shape
    grid = _parse_budgets(budgets, n_models, n_queries)
    ints = tuple(budget.n for budget in grid)
    targets = () if top_m is None else parse_top_m(top_m, n_models)
    jobs = jobs_of("instance", instance.shape, chosen_configs, ints, runs, seed, targets)
    if progress is not None:
        progress(0)  # the inputs are valid and the runs start
    found: dict[Config, CellResult] = {}
    table: AnyTable = score_table(instance) if stochastic is None else stochastic_table(stochastic)
    for cells in run_jobs(
        jobs,
        {"instance": table},
        workers=workers,
        scheduler=scheduler,
        chunk=chunk,
        keep_chosen=True,
        progress=progress,
    ):
        found.update(cells)
    best = tuple(sorted(instance.best))
    return tuple(
        _result(config, found[config], grid, runs, seed, best, targets, instance.shape) for config in chosen_configs
    )


def _result(
    config: Config,
    cell: CellResult,
    grid: list[Budget],
    runs: int,
    seed: int,
    best: tuple[int, ...],
    targets: tuple[int, ...],
    shape: tuple[int, int],
) -> SimulationResult:
    rows = []
    for budget, correct, spent_max in zip(grid, cell.correct.tolist(), cell.spent_max.tolist(), strict=True):
        if spent_max > budget.n:  # run_fast's contract; checked here because a wrong row must never be reported
            raise AssertionError(f"{config.algorithm} spent {spent_max} > budget {budget.n}")
        rows.append(SimulationRow(float(budget.percentage), budget.n, correct / runs, int(correct), int(spent_max)))
    assert cell.chosen is not None
    return SimulationResult(
        algorithm=config.algorithm,
        params={key: _exact_json(value) for key, value in config.exact.items()},
        K=shape[0],
        L=shape[1],
        runs=runs,
        seed=seed,
        rows=tuple(rows),
        best=best,
        chosen=cell.chosen,
        top_m={m: cell.top_m[m] for m in targets},
    )


def _parse_budgets(
    budgets: Sequence[int | np.integer[Any] | str | Budget], n_models: int, n_queries: int
) -> list[Budget]:
    """Each budget parsed (:meth:`Budget.parse`): n, and its percentage as given."""
    if isinstance(budgets, (str, bytes, int)) or not isinstance(budgets, (Sequence, np.ndarray)):
        raise BudgetError(f"budgets must be a list of budgets such as ['8%', '20%', 5000], got {budgets!r}")
    if len(budgets) == 0:
        raise BudgetError("give at least one budget")
    return [Budget.parse(given, n_models, n_queries) for given in budgets]


def _exact_json(value: Fraction) -> int | str:
    """An exact parameter value for JSON: an int, else its exact decimal text, else "p/q".

    >>> _exact_json(Fraction(1)), _exact_json(Fraction(1, 8)), _exact_json(Fraction(1, 3))
    (1, '0.125', '1/3')
    """
    return value.numerator if value.denominator == 1 else decimal_text(value)
