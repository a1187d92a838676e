"""The numpy UCB-E-LRF (issue 9, in progress) against the reference: the stream, the fits, whole runs with checkpoints."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sysrs_ref import Instance, drive
from sysrs_ref.algorithms.lrf import LRFParams, random_lrf_draw, ucbe_lrf
from sysrs_ref.algorithms.lrf_model import fit_ensemble, uniform
from sysrs_ref.fast.lrf import fit_ensemble_fast, run_lrf, uniforms

#: Fits agree to this absolute tolerance (only the order of float additions differs).
TOLERANCE = 1e-10


@given(st.integers(0, 2**64 - 1), st.lists(st.integers(0, 2**40), min_size=1, max_size=20))
def test_vectorized_stream_is_the_reference_stream(seed: int, indices: list[int]) -> None:
    got = uniforms(seed, np.array(indices, dtype=np.uint64))
    assert got.tolist() == [uniform(seed, i) for i in indices]  # exactly: integer arithmetic, then one scaling


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.integers(1, 2), st.integers(0, 2**32), st.integers(0, 50), st.data())
def test_fast_fit_equals_the_reference_fit(
    n_models: int, n_queries: int, rank: int, seed: int, fit: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    scores = rng.random((n_models, n_queries))
    scores[rng.random((n_models, n_queries)) < data.draw(st.sampled_from([0.0, 0.3, 0.8]))] = np.nan
    params = LRFParams(rank=rank, members=data.draw(st.integers(2, 6)), dropout=data.draw(st.sampled_from([0.0, 0.05, 0.5])),
                       sweeps=data.draw(st.integers(1, 4)))
    listed = [[None if np.isnan(x) else float(x) for x in row] for row in scores]
    want = fit_ensemble(listed, seed, fit, rank=rank, members=params.members, dropout=params.dropout,
                        ridge=params.ridge, sweeps=params.sweeps)
    mean, spread = fit_ensemble_fast(scores, seed, fit, params)
    assert np.allclose(mean, np.array(want.mean), rtol=0, atol=TOLERANCE)
    assert np.allclose(spread, np.array(want.spread), rtol=0, atol=TOLERANCE)


def test_runs_with_checkpoints_equal_separate_reference_runs() -> None:
    """One fast run records every budget's ranking; each equals a separate reference run at that budget.

    Instances with continuous scores, where no two indices fall within TOLERANCE of each other
    (ties that are exact, such as the blank fit's zeros, are exact in both)."""
    rng = np.random.default_rng(17)
    for case in range(6):
        n_models, n_queries = 3 + case % 2, 5 + case % 3
        matrix = np.round(rng.random((n_models, n_queries)), 3)
        params = LRFParams(warmup=Fraction(case % 3 * 10), batch=1 + case % 3, members=4, sweeps=3)
        draw = random_lrf_draw(case, n_models, n_queries)
        full = n_models * n_queries
        budgets = sorted({n_models, n_models + 1, full // 2, full - 1, full})
        fast = run_lrf(matrix, budgets, draw, params)
        instance = Instance(matrix.tolist())
        for budget, ranking in zip(budgets, fast):
            assert drive(ucbe_lrf(budget, draw, params), instance).ranking == ranking, (case, budget)
