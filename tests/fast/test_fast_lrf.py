"""The numpy UCB-E-LRF against the reference: the stream, the dropout walk, the fits, whole runs with checkpoints."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance, drive
from sysrs_ref.algorithms.lrf import LRFParams, random_lrf_draw, ucbe_lrf
from sysrs_ref.algorithms.lrf_model import dropout_table, dropped_ranks, fit_ensemble, uniform
from sysrs_ref.fast._lrf_numpy import _rank_one_statistics, dropped_cells, uniforms
from sysrs_ref.fast.lrf import fit_ensemble_fast, run_lrf

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
    params = LRFParams(
        rank=rank,
        members=data.draw(st.integers(2, 6)),
        dropout=data.draw(st.sampled_from([0.0, 0.05, 0.5])),
        sweeps=data.draw(st.integers(1, 4)),
    )
    listed = [[None if np.isnan(x) else float(x) for x in row] for row in scores]
    want = fit_ensemble(
        listed,
        seed,
        fit,
        rank=rank,
        members=params.members,
        dropout=params.dropout,
        ridge=params.ridge,
        sweeps=params.sweeps,
    )
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
        for budget, ranking in zip(budgets, fast, strict=True):
            assert drive(ucbe_lrf(budget, draw, params), instance).ranking == ranking, (case, budget)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 2**64 - 1),
    st.integers(1, 5),
    st.integers(0, 400),
    st.sampled_from([0.001, 0.05, 0.5, 0.95]),
    st.sampled_from([None, 1, 3]),
)
def test_dropped_cells_are_the_reference_walk(
    seed: int, members: int, observed: int, dropout: float, first: int | None
) -> None:
    """For every member, the same cells as the reference's walk, whatever the first batch of gaps (1 forces doubling)."""
    base = np.arange(members, dtype=np.uint64) * np.uint64(1000)
    seen = np.sort(np.random.default_rng(seed % 1000).choice(2000, size=observed, replace=False)).astype(np.intp)
    member, cell = dropped_cells(seed, base, seen, dropout, first)
    table = dropout_table(dropout)
    for c in range(members):
        assert cell[member == c].tolist() == [int(seen[r]) for r in dropped_ranks(seed, 1000 * c, observed, table)]


@pytest.mark.parametrize("kind", ["random", "identical-members", "tiny", "zero-column", "mixed"])
def test_rank_one_statistics_agree_with_two_passes(kind: str) -> None:
    """The one-pass variance with its two-pass fallback stays within 1e-11 of numpy's two-pass std, also
    where the one-pass formula cancels (identical members: variance 0 under large squares)."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(64, 30)), rng.normal(size=(64, 40))
    if kind == "identical-members":
        a, b = np.repeat(a[:1], 64, axis=0) * 7.0, np.repeat(b[:1], 64, axis=0)
    elif kind == "tiny":
        a, b = a * 1e-5, b * 1e-4
    elif kind == "zero-column":
        b[:, :10] = 0.0
    elif kind == "mixed":
        a[:, :5] = np.repeat(a[:1, :5], 64, axis=0)
        b[:, :5] = np.repeat(b[:1, :5], 64, axis=0) + rng.normal(size=(64, 5)) * 1e-7
    products = a[:, :, None] * b[:, None, :]
    mean, spread = _rank_one_statistics(a, b, ddof=1)
    assert np.max(np.abs(mean - products.mean(axis=0))) < 1e-12
    assert np.max(np.abs(spread - products.std(axis=0, ddof=1))) < 1e-11
