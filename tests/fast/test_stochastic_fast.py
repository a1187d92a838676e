"""The fast paths on stochastic instances: exactly the reference's outcome for every noisy draw.

The reference is :func:`sysrs_ref.select` with a
:class:`~sysrs_ref.stochastic.StochasticDraw` (pure Python, exact Fractions,
each evaluation through the noise rule); the fast path realises each run's
matrix from thresholds in numpy and runs the deterministic kernels on the
runs side by side (:mod:`sysrs_ref.fast._stochastic`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sysrs_ref
from sysrs_ref import Instance, irt_benchmark
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.datasets import load_dataset
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.fast import (
    DrawBatch,
    NoisyDrawBatch,
    random_draws,
    random_noisy_draws,
    run_fast,
    score_table,
    stochastic_table,
)
from sysrs_ref.fast._batch import simulation_draws, simulation_noisy_draws
from sysrs_ref.fast._stochastic import realise_runs
from sysrs_ref.fast._table import realised_table
from sysrs_ref.stochastic import StochasticInstance, random_stochastic_draw
from tests.param_types import AlgorithmParamValues
from tests.strategies import stochastic_fast_cases, stochastic_instances

#: Every algorithm with a fast kernel, with the parameters it is tested at.
CONFIGS: tuple[tuple[str, AlgorithmParamValues], ...] = (
    ("us", {}),
    ("syus", {}),
    ("sr", {}),
    ("sysrs", {}),
    ("ucbe", {"a": Fraction(1)}),
    ("ucbe", {"a": Fraction(1, 10)}),
    ("syucbe", {"a": Fraction(1)}),
    ("syucbe", {"a": Fraction(4)}),
    ("sar", {"m": Fraction(1)}),
    ("sar", {"m": Fraction(2)}),
    ("sysar", {"m": Fraction(1)}),
    ("sysar", {"m": Fraction(2)}),
)
NAMES = tuple(sorted({name for name, _ in CONFIGS}))


def _params(name: str, n_models: int, chosen: int) -> AlgorithmParamValues:
    """The parameters of *name*'s *chosen*-th configuration; SAR's m kept below K."""
    options = [params for config, params in CONFIGS if config == name]
    params = options[chosen % len(options)].copy()
    if "m" in params:
        params["m"] = min(params["m"], Fraction(n_models - 1))
    return params


def assert_same_as_reference(
    scores: StochasticInstance,
    name: str,
    budgets: tuple[int, ...],
    batch: NoisyDrawBatch,
    params: AlgorithmParamValues,
    *,
    prefer_float: bool = False,
    runs: list[int] | None = None,
    chunk: int | None = None,
) -> None:
    """Every field of every run (or of *runs*) at every budget equals select(..., draw=batch.draw(r))."""
    fast = run_fast(stochastic_table(scores, prefer_float=prefer_float), name, budgets, batch, chunk=chunk, **params)
    for run in range(batch.n_runs) if runs is None else runs:
        draw = batch.draw(run)
        for column, budget in enumerate(budgets):
            ref = sysrs_ref.select(scores, budget, name, draw=draw, **params)
            want = (ref.chosen, tuple(ref.ranking), ref.spent)
            assert fast.outcome(run, column) == want, f"{name} {params} run {run} budget {budget}"


@pytest.mark.usefixtures("backend")
@settings(max_examples=150, deadline=None)
@given(stochastic_fast_cases(NAMES), st.booleans(), st.integers(0, 3), st.integers(1, 3))
def test_fast_equals_reference_on_stochastic_instances(
    case: tuple[StochasticInstance, str, tuple[int, ...], NoisyDrawBatch], prefer_float: bool, which: int, chunk: int
) -> None:
    """Bernoulli, finite, samples and point masses (ties, zero probabilities), integer and float paths, any chunking."""
    instance, name, budgets, batch = case
    params = _params(name, instance.n_models, which)
    assert_same_as_reference(instance, name, budgets, batch, params, prefer_float=prefer_float, chunk=chunk)


@settings(max_examples=60, deadline=None)
@given(stochastic_fast_cases(NAMES, floats=True), st.integers(0, 3))
def test_fast_equals_reference_on_float_probabilities(
    case: tuple[StochasticInstance, str, tuple[int, ...], NoisyDrawBatch], which: int
) -> None:
    """Bernoulli p_ij given as float64 (thresholds from their exact binary values)."""
    instance, name, budgets, batch = case
    assert_same_as_reference(instance, name, budgets, batch, _params(name, instance.n_models, which))


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_real_size_irt_bernoulli(name: str, params: AlgorithmParamValues) -> None:
    """30 x 400 Bernoulli cells (p = 1/4 or 3/4 from a 2PL benchmark): sampled runs equal the reference."""
    p = 0.25 + 0.5 * np.asarray(irt_benchmark(30, 400, seed=4).array)
    instance = StochasticInstance.bernoulli(p)
    batch = random_noisy_draws(11, 6, 30, 400, synchronized=get_algorithm(name).synchronized)
    assert_same_as_reference(instance, name, (960, 3000), batch, params, runs=[0, 5])


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_samples_with_thousands_of_distinct_scores(name: str, params: AlgorithmParamValues) -> None:
    """6 x 200 x 3 float samples: 3600 distinct levels (codes wider than a byte), float sums certified; equal runs."""
    cube = np.random.default_rng(9).random((6, 200, 3))
    instance = StochasticInstance.samples(cube)
    assert len(instance.levels) == 3600
    batch = random_noisy_draws(2, 3, 6, 200, synchronized=get_algorithm(name).synchronized)
    assert_same_as_reference(instance, name, (60, 600), batch, params)


@pytest.mark.parametrize("name", ["syus", "sr", "sysrs", "ucbe", "syucbe", "sysar"])
def test_shipped_benchmark_as_bernoulli(name: str) -> None:
    """mmlu (82 x 567) with p = 0.15 + 0.7 score: a non-dyadic float law; two sampled runs equal the reference."""
    scores = np.asarray(load_dataset("mmlu").array)
    instance = StochasticInstance.bernoulli(0.15 + 0.7 * scores)
    n_models, n_queries = instance.shape
    batch = simulation_noisy_draws(3, 0, 2, n_models, n_queries, synchronized=get_algorithm(name).synchronized)
    params: AlgorithmParamValues = {"a": Fraction(1)} if "ucb" in name else {}
    assert_same_as_reference(instance, name, (n_models * n_queries * 8 // 100,), batch, params)


@settings(max_examples=80, deadline=None)
@given(stochastic_instances(max_models=4, max_queries=6), st.integers(1, 4), st.booleans(), st.integers(0, 2**32))
def test_realised_blocks_are_the_realised_matrices(
    instance: StochasticInstance, runs: int, synchronized: bool, seed: int
) -> None:
    """Block r, read along the returned orders, is instance.realise(noise[r]) read along run r's orders."""
    n_models, n_queries = instance.shape
    batch = random_noisy_draws(seed, runs, n_models, n_queries, synchronized=synchronized)
    table, reading = realise_runs(stochastic_table(instance), batch)
    assert table.blocks == runs
    for run in range(runs):
        realised = instance.realise(batch.noise[run]).rows
        orders = batch.draws.query_orders[run]
        for model in range(n_models):
            order = orders[0 if synchronized else model].tolist()
            positions = reading.query_orders[run, 0 if synchronized else model].tolist()
            got = [table.exact_mean(model, [p]) for p in positions]
            assert got == [realised[model][q] for q in order]


def test_noisy_draws_are_random_stochastic_draws() -> None:
    """random_noisy_draws = successive random_stochastic_draw calls; simulation runs = their child streams."""
    generator = np.random.default_rng(8)
    batch = random_noisy_draws(8, 3, 3, 5, synchronized=False)
    successive = [random_stochastic_draw(generator, 3, 5, synchronized=False) for _ in range(3)]
    assert [batch.draw(r) for r in range(3)] == successive
    noisy = simulation_noisy_draws(5, 2, 6, 4, 7, synchronized=True)
    plain = simulation_draws(5, 2, 6, 4, 7, synchronized=True)
    for row, run in enumerate(range(2, 6)):
        child = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(run,)))
        assert noisy.draw(row) == random_stochastic_draw(child, 4, 7, synchronized=True)
        assert noisy.draws.draw(row) == plain.draw(row)  # the noise comes after: the Draw is today's
    assert noisy.chunk(1, 3).draw(1) == noisy.draw(2)


def test_noisy_batch_refuses_bad_noise() -> None:
    """Shape, dtype and range of the noise are checked at the edge."""
    draws = random_draws(0, 2, 2, 3, synchronized=True)
    with pytest.raises(DrawError, match=r"shape \(R, K, L\)"):
        NoisyDrawBatch(draws, np.zeros((2, 3, 2), dtype=np.int64))
    with pytest.raises(DrawError, match=r"in \[0, 2\^53\)"):
        NoisyDrawBatch(draws, np.full((2, 2, 3), 2**53, dtype=np.int64))
    with pytest.raises(DrawError, match="needs a DrawBatch"):
        NoisyDrawBatch(None, np.zeros((2, 2, 3), dtype=np.int64))  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_point_masses_give_the_matrix_runs(name: str, params: AlgorithmParamValues) -> None:
    """deterministic(M) with or without noise gives exactly M's outcomes for the same Draw."""
    matrix = np.random.default_rng(2).integers(0, 3, size=(4, 9)) / 2
    synchronized = get_algorithm(name).synchronized
    noisy = random_noisy_draws(1, 12, 4, 9, synchronized=synchronized)
    want = run_fast(Instance(matrix), name, (8, 20, 36), noisy.draws, **params)
    for draws in (noisy, noisy.draws):
        got = run_fast(StochasticInstance.deterministic(matrix), name, (8, 20, 36), draws, **params)
        assert got.ranking is not None and want.ranking is not None
        assert (got.chosen == want.chosen).all() and (got.ranking == want.ranking).all()


def test_draws_must_fit_the_scores() -> None:
    """Noise for a matrix, no noise for a noisy instance and UCB-E-LRF on one are refused, naming the fix."""
    instance = StochasticInstance.bernoulli([[0.5, 1], [0.25, 0]])
    noisy = random_noisy_draws(0, 2, 2, 2, synchronized=True)
    with pytest.raises(DrawError, match="give a DrawBatch"):
        run_fast(instance.mean_instance, "sysrs", (2,), noisy)
    with pytest.raises(DrawError, match="NoisyDrawBatch"):
        run_fast(instance, "sysrs", (2,), noisy.draws)
    with pytest.raises(ParameterError, match="stochastic"):
        run_fast(instance, "ucbe-lrf", (2,), noisy)


def test_realised_table_levels() -> None:
    """Exact numerators over the levels' common denominator, floats when they do not fit; Bernoulli codes as is."""
    exact = realised_table((Fraction(0), Fraction(1, 3), Fraction(1)), np.array([[2, 1], [0, 1]], dtype=np.uint8), 2)
    assert exact.exact and exact.values.tolist() == [[3, 1], [0, 1]] and exact.denominator == 3
    assert exact.block(0).rows == ((Fraction(1), Fraction(1, 3)), (Fraction(0), Fraction(1, 3)))
    wide = realised_table((Fraction(0), Fraction(1, 2**70), Fraction(1)), np.array([[1], [2]], dtype=np.uint8), 1)
    assert not wide.exact and wide.numerator_row(1) == (2**70,) and wide.floats.tolist() == [[2.0**-70], [1.0]]
    same = score_table(Instance([[1, 0], [0, 1]]))
    bernoulli = realised_table((Fraction(0), Fraction(1)), np.array([[1, 0], [0, 1]], dtype=np.int8), 2)
    assert (bernoulli.compact == same.compact).all() and bernoulli.largest_row_sum() == same.largest_row_sum()


def test_a_deterministic_batch_is_unchanged() -> None:
    """The unified drawing loop still gives random_draws' and simulation_draws' batches (no noise drawn)."""
    batch = random_draws(4, 3, 3, 6, synchronized=False)
    again = random_noisy_draws(4, 1, 3, 6, synchronized=False)
    assert batch.draw(0) == again.draws.draw(0)
    assert isinstance(simulation_draws(0, 0, 2, 3, 4, synchronized=True), DrawBatch)
