"""UCB-E-LRF's compiled fit: the reference's doubles bit for bit, and the same runs as the reference and numpy."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance, drive
from sysrs_ref.algorithms.lrf import LRFParams, fit_ensemble_reference, random_lrf_draw, ucbe_lrf
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import compiled
from sysrs_ref.fast.lrf import fit_ensemble_compiled, fit_ensemble_fast, run_lrf
from tests.backends import needs_compiled


def _bits(array: np.ndarray) -> list[int]:
    """The doubles' bit patterns (so that -0.0 and 0.0, or two NaNs, are told apart)."""
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64).ravel().tolist()


@needs_compiled
@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 12),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**20),
    st.sampled_from([2, 3, 15, 16, 17, 64, 65]),  # inside one vector, across tiles and across 64-bit drop words
    st.data(),
)
def test_compiled_fit_is_the_reference_fit_bit_for_bit(
    n_models: int, n_queries: int, seed: int, fit: int, members: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    scores = rng.random((n_models, n_queries))
    if data.draw(st.booleans()):
        scores = np.round(scores)  # 0/1 scores, as most benchmarks' (products 0 * factor = -0.0 among them)
    scores[rng.random((n_models, n_queries)) < data.draw(st.sampled_from([0.0, 0.3, 0.8, 1.0]))] = np.nan
    params = LRFParams(
        members=members,
        dropout=data.draw(st.sampled_from([0.0, 0.001, 0.05, 0.5, 0.95])),
        ridge=data.draw(st.sampled_from([0.1, 1e-6, 3.0])),
        sweeps=data.draw(st.integers(1, 4)),
    )
    ddof = data.draw(st.sampled_from([0, 1, 2]))
    mean, spread = fit_ensemble_compiled(scores, seed, fit, params, ddof)
    want_mean, want_spread = fit_ensemble_reference(scores, seed, fit, params, ddof)
    assert _bits(mean) == _bits(want_mean)
    assert _bits(spread) == _bits(want_spread)


@needs_compiled
def test_compiled_fit_on_a_real_benchmark_is_the_reference_fit() -> None:
    """A 12 x 60 corner of gsm, 35% observed, the paper's settings (64 members, 10 sweeps): the same doubles."""
    scores = np.asarray(load_dataset("gsm").array, dtype=np.float64)[:12, :60].copy()
    scores[np.random.default_rng(0).random(scores.shape) >= 0.35] = np.nan
    mean, spread = fit_ensemble_compiled(scores, 2**63 + 5, 40, LRFParams())
    want_mean, want_spread = fit_ensemble_reference(scores, 2**63 + 5, 40, LRFParams())
    assert _bits(mean) == _bits(want_mean) and _bits(spread) == _bits(want_spread)
    numpy_mean, numpy_spread = fit_ensemble_fast(scores, 2**63 + 5, 40, LRFParams())
    assert np.max(np.abs(numpy_mean - mean)) < 1e-10 and np.max(np.abs(numpy_spread - spread)) < 1e-10


def test_without_the_compiled_passes_the_numpy_fit_runs() -> None:
    scores = np.array([[1.0, np.nan, 0.0], [0.5, 1.0, np.nan]])
    params = LRFParams(members=3, sweeps=2)
    with compiled.numpy_only():
        got = fit_ensemble_compiled(scores, 9, 0, params)
    want = fit_ensemble_fast(scores, 9, 0, params)
    assert _bits(got[0]) == _bits(want[0]) and _bits(got[1]) == _bits(want[1])


def test_rank_above_one_is_fitted_by_numpy() -> None:
    scores = np.array([[1.0, np.nan, 0.0], [0.5, 1.0, np.nan], [0.0, 0.25, 1.0]])
    params = LRFParams(rank=2, members=3, sweeps=2)
    got = fit_ensemble_compiled(scores, 4, 1, params)
    want = fit_ensemble_fast(scores, 4, 1, params)
    assert _bits(got[0]) == _bits(want[0]) and _bits(got[1]) == _bits(want[1])


@needs_compiled
def test_the_compiled_wrapper_refuses_what_c_cannot_take() -> None:
    from sysrs_ref.fast import _native

    scores = np.zeros((2, 2))
    mean, spread = np.empty((2, 2)), np.empty((2, 2))
    with pytest.raises(ValueError, match="out of range"):
        _native.lrf_fit(scores, 2**64, 0, 4, np.zeros(0), 0.1, 2, 1, mean, spread)
    with pytest.raises(TypeError, match="float32"):
        _native.lrf_fit(scores, 0, 0, 4, np.zeros(0), 0.1, 2, 1, mean.astype(np.float32), spread)


@needs_compiled
@pytest.mark.parametrize("case", range(6))
def test_compiled_runs_are_the_numpy_runs_and_the_reference_runs(case: int) -> None:
    """Whole runs with checkpoints: the compiled fit, the numpy fit and the reference choose alike.

    Continuous scores, where no two indices fall within the numpy fit's 1e-10 of each other; the compiled
    fit is the reference's bit for bit, so with it the rankings are the reference's exactly."""
    rng = np.random.default_rng(100 + case)
    n_models, n_queries = 3 + case % 3, 6 + case
    matrix = np.round(rng.random((n_models, n_queries)), 3)
    params = LRFParams(warmup=Fraction(case % 3 * 10), batch=1 + case % 3, members=4 + 7 * case, sweeps=2 + case % 2)
    draw = random_lrf_draw(case, n_models, n_queries)
    full = n_models * n_queries
    budgets = sorted({n_models, full // 3, full // 2, full - 1, full})
    fast = run_lrf(matrix, budgets, draw, params)
    with compiled.numpy_only():
        numpy_runs = run_lrf(matrix, budgets, draw, params)
    assert fast == numpy_runs
    instance = Instance(matrix.tolist())
    for budget, ranking in zip(budgets, fast, strict=True):
        assert drive(ucbe_lrf(budget, draw, params), instance).ranking == ranking, (case, budget)
