"""simulate and simulate_many on stochastic instances: seeded noise, the stochastic truth, invariances."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sysrs_ref
from sysrs_ref.errors import ParameterError
from sysrs_ref.simulation import SimulationResult, simulate, simulate_many
from sysrs_ref.stochastic import StochasticInstance, random_stochastic_draw
from tests.param_types import AlgorithmParamValues
from tests.strategies import stochastic_instances

#: Every algorithm the engine runs on stochastic instances (UCB-E-LRF is refused).
ALL = "us,syus,sr,sysrs,ucbe:a=1,syucbe:a=0.5,sar:m=2,sysar,sar"


def _replay(instance: StochasticInstance, result: SimulationResult, runs: list[int]) -> None:
    """Runs *runs* of *result* equal the reference with random_stochastic_draw(child r) at every budget."""
    synchronized = sysrs_ref.get_algorithm(result.algorithm).synchronized
    params: AlgorithmParamValues = {}
    if "a" in result.params:
        params["a"] = Fraction(result.params["a"])
    if result.algorithm in ("sar", "sysar"):
        params["m"] = Fraction(result.params.get("m", 1))  # m as a top-m target: accuracy is that of m = 1
    for run in runs:
        child = np.random.default_rng(np.random.SeedSequence(result.seed, spawn_key=(run,)))
        draw = random_stochastic_draw(child, result.K, result.L, synchronized=synchronized)
        for column, row in enumerate(result.rows):
            outcome = sysrs_ref.select(instance, row.budget, result.algorithm, draw=draw, **params)
            assert outcome.chosen == result.chosen[run, column], f"{result.algorithm} run {run} budget {row.budget}"


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(stochastic_instances(min_queries=2, max_queries=5), st.integers(0, 2**32), st.integers(1, 4))
def test_run_r_is_the_reference_with_child_r(instance: StochasticInstance, seed: int, chunk: int) -> None:
    """Every run of every algorithm, any chunking: select(instance, n, algorithm, draw=random_stochastic_draw(child r))."""
    n_models, n_queries = instance.shape
    budgets = sorted({n_models, (n_models * n_queries + n_models) // 2, n_models * n_queries})
    for result in simulate_many(
        instance, ALL.replace("sar:m=2", f"sar:m={n_models - 1}"), budgets, 6, seed, chunk=chunk
    ):
        _replay(instance, result, list(range(6)))
        assert result.best == tuple(sorted(instance.best))


def test_real_size_runs_replay() -> None:
    """A 12 x 60 Bernoulli instance (float p_ij): sampled runs of each algorithm equal the reference."""
    p = np.random.default_rng(9).random((12, 60))
    instance = StochasticInstance.bernoulli(p)
    for result in simulate_many(instance, ALL, ["8%", "35%"], 40, seed=17):
        _replay(instance, result, [0, 13, 39])


@pytest.mark.parametrize("workers", [1, 2])
def test_point_masses_equal_the_matrix(workers: int) -> None:
    """StochasticInstance.deterministic(M) gives exactly M's results: rows, every run's choice, top-m, best."""
    matrix = np.random.default_rng(3).integers(0, 3, size=(5, 11)) / 2
    configs = "all,sar,sysar:m=2"
    given = simulate_many(
        StochasticInstance.deterministic(matrix), configs, ["20%", 30], 30, 4, workers=workers, chunk=7, top_m=[2]
    )
    want = simulate_many(matrix, configs, ["20%", 30], 30, 4, top_m=[2])
    for got, expected in zip(given, want, strict=True):
        assert got.rows == expected.rows and got.best == expected.best and got.top_m == expected.top_m
        assert (got.chosen == expected.chosen).all()
    one = simulate(StochasticInstance.deterministic(matrix), "ucbe", ["20%"], 30, 4, a="0.1")
    assert (one.chosen == simulate(matrix, "ucbe", ["20%"], 30, 4, a="0.1").chosen).all()


def test_chunks_and_workers_do_not_change_results() -> None:
    """Pieces of 7 runs on 2 worker processes give the one-piece results, top-m included."""
    instance = StochasticInstance.finite(
        [0, Fraction(1, 2), 1], np.random.default_rng(5).dirichlet([1, 1, 1], size=(6, 15))
    )
    alone = simulate_many(instance, ALL, ["10%", "40%", 90], 50, 2, top_m=[1, 3])
    spread = simulate_many(instance, ALL, ["10%", "40%", 90], 50, 2, top_m=[1, 3], workers=2, chunk=7)
    for one, other in zip(alone, spread, strict=True):
        assert one.rows == other.rows and one.top_m == other.top_m and (one.chosen == other.chosen).all()


def test_truth_is_the_stochastic_one() -> None:
    """best and the top-m truth come from mu_i = (1/L) sum_j E[S_ij], not from any realised matrix."""
    instance = StochasticInstance.bernoulli([[0.5, 0.5, 0.5], [1, 0, Fraction(3, 4)], [0, 0, 1]])
    result = simulate(instance, "sysrs", ["100%"], 20, 0, top_m=[1])
    assert result.best == (1,)
    assert result.rows[0].correct == int(np.isin(result.chosen[:, 0], [1]).sum())
    assert result.top_m[1].identification[0] == 20 - result.rows[0].correct


def test_ucbe_lrf_is_refused() -> None:
    """UCB-E-LRF reads each cell's one score: a ParameterError says so and what to do."""
    instance = StochasticInstance.bernoulli([[0.5, 0.5], [0.25, 1]])
    with pytest.raises(ParameterError, match=r"does not run on stochastic instances.*mean_instance"):
        simulate(instance, "ucbe-lrf", ["50%"], 3)
    with pytest.raises(ParameterError, match="does not run on stochastic instances"):
        simulate_many(instance, "sysrs,ucbe-lrf", ["50%"], 3)


def test_accuracy_matches_the_exact_probability() -> None:
    """K = 2, L = 1, budget 2, US: P(correct) = P(S0 > S1) + P(tie) / 2 = 9/16 + 6/32 = 3/4 for p = (3/4, 1/4).

    4000 runs, fixed seed: the standard error is 0.0068; a 5-sigma band fails
    with probability below 6e-7 for a correct engine.
    """
    instance = StochasticInstance.bernoulli([[Fraction(3, 4)], [Fraction(1, 4)]])
    row = simulate(instance, "us", [2], 4000, 12).rows[0]
    assert abs(row.accuracy - 0.75) < 5 * (0.75 * 0.25 / 4000) ** 0.5
