"""UCB-E-LRF reference: run properties, the dropout walk, ALS against its closed form, ensemble pairing."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance, drive
from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams, random_lrf_draw, ucbe_lrf
from sysrs_ref.algorithms.lrf_model import (
    Matrix,
    dropout_gap,
    dropout_table,
    dropped_ranks,
    fit_ensemble,
    fit_member,
    fit_members,
    mix64,
    uniform,
)
from sysrs_ref.errors import DrawError, ParameterError
from tests.strategies import instances, lrf_draws, lrf_params

SMALL = LRFParams(batch=3, members=3, sweeps=2)

FitMembers = Callable[..., list[Matrix]]


@settings(max_examples=60, deadline=None)
@given(instances(max_models=4, max_queries=5), lrf_params(), st.data())
def test_run_properties(instance: Instance, params: LRFParams, data: st.DataObject) -> None:
    """Spend is exactly the budget, no pair twice, the warm-up is the draw's first cells, all distinct."""
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    draw = data.draw(lrf_draws(n_models, n_queries))
    out = drive(ucbe_lrf(budget, draw, params), instance)
    requests = out.requests
    assert out.spent == len(requests) == budget
    assert len(set(requests)) == len(requests)
    assert sorted(out.ranking) == list(range(n_models)) and out.ranking[0] == out.chosen
    warm = min(budget, int(params.warmup * n_models * n_queries / 100))
    assert [r.model * n_queries + r.query for r in requests[:warm]] == list(draw.cell_order[:warm])
    assert len(set(draw.cell_order[:warm])) == warm
    for step in out.trace[1 if warm else 0 :]:  # each step: one model, at most `batch` queries
        assert len({r.model for r in step.requests}) == 1 and len(step.requests) <= params.batch
    assert drive(ucbe_lrf(budget, draw, params), instance) == out  # the draw decides everything


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 300), st.sampled_from([0.001, 0.05, 0.3, 0.9]), st.integers(0, 2**40))
def test_dropout_gaps_walk_the_observed_cells(seed: int, observed: int, dropout: float, base: int) -> None:
    """Dropped numbers are increasing, below N, and each is the previous one plus 1 plus the next gap."""
    table = dropout_table(dropout)
    assert table[-1] == 1.0 and all(
        x <= y for x, y in itertools.pairwise(table)
    )  # 1 - p rounds: equal steps have no mass
    ranks = dropped_ranks(seed, base, observed, table)
    assert all(0 <= r < observed for r in ranks) and ranks == sorted(set(ranks))
    expected = dropout_gap(table, uniform(seed, base))
    for k, rank in enumerate(ranks):
        assert rank == expected
        expected = rank + 1 + dropout_gap(table, uniform(seed, base + k + 1))
    assert expected >= observed  # the walk stopped because it passed the last observed cell


def test_dropout_leaves_out_each_cell_with_probability_q() -> None:
    """Over 20 000 members x 50 cells at q = 0.05: the overall rate within 0.002 of q (9 sd: false
    failure < 1e-18), and every cell's rate within 0.01 of q (a cell's sd is 0.0015; 6.5 sd, union
    bound over 50 cells: < 1e-8). Fixed seed."""
    table = dropout_table(0.05)
    hits = np.zeros(50)
    for member in range(20_000):
        hits[dropped_ranks(77, member * 51, 50, table)] += 1
    rates = hits / 20_000
    assert abs(rates.mean() - 0.05) < 0.002
    assert np.all(np.abs(rates - 0.05) < 0.01)


def test_full_budget_sees_everything_and_chooses_a_best_model() -> None:
    instance = Instance([[1, 1, 0, 1, 1], [1, 0, 0, 1, 0], [0, 1, 1, 0, 0]])
    for seed in range(5):
        draw = random_lrf_draw(seed, 3, 5)
        out = drive(ucbe_lrf(15, draw, SMALL), instance)
        assert sorted(out.requests) == [(i, j) for i in range(3) for j in range(5)]
        assert instance.is_best(out.chosen)
        # all observed: by the means (models 1 and 2 tie at 2/5: the priority decides)
        assert list(out.ranking) == [0, *sorted((1, 2), key=draw.arm_priority.index)]


def test_no_warm_up_starts_from_a_blank_fit() -> None:
    """warmup = 0: the first fit sees nothing, every index is 0, the priority's first model goes first."""
    instance = Instance([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    draw = LRFDraw(tuple(range(9)), (2, 0, 1), seed=11)
    out = drive(ucbe_lrf(4, draw, LRFParams(warmup=Fraction(0), batch=2, members=2, sweeps=1)), instance)
    first = out.trace[0].requests
    assert {r.model for r in first} == {2} and len(first) == 2
    assert [r.query for r in first] == [0, 1]  # all R are 0: ties go by the cell order (cells 6, 7 first)


@settings(max_examples=40, deadline=None)
@given(instances(max_models=4, max_queries=4), st.data())
def test_no_warm_up_by_the_pseudocode_finishes_the_first_model_first(instance: Instance, data: st.DataObject) -> None:
    """A finding, not a choice: with warmup 0 and the paper's pseudocode, a row without observations
    solves to u_i = 0 (ridge ALS), so its imputation and spread are exactly 0 and its index is 0. The
    first batch goes to the priority's first model; while only its row has data, every column's factor
    has the sign of its own factor, so its imputations, hence its index, stay >= 0 and it keeps winning
    (ties included) until its row is complete. In practice the next models follow the same way, one by
    one in priority order, so at budget b the best model has been seen only with probability about b
    (banditeval's unseen_first=1 avoids this; the paper's No Warm-up numbers need it)."""
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    draw = data.draw(lrf_draws(n_models, n_queries))
    params = LRFParams(warmup=Fraction(0), batch=data.draw(st.integers(1, 3)), members=3, sweeps=2)
    out = drive(ucbe_lrf(budget, draw, params), instance)
    first = min(budget, n_queries)
    assert [r.model for r in out.requests[:first]] == [draw.arm_priority[0]] * first


def test_splitmix64_stream() -> None:
    """The stream's words are SplitMix64's (seed 0: 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4)."""
    gamma = 0x9E3779B97F4A7C15
    assert mix64(gamma) == 0xE220A8397B1DCDAF
    assert mix64(2 * gamma) == 0x6E789E6AA1B965F4
    values = [uniform(2026, i) for i in range(2000)]
    assert all(0.0 <= u < 1.0 for u in values)
    assert abs(sum(values) / len(values) - 0.5) < 0.03  # mean of 2000 uniforms: sd 0.0065, so 4.6 sd


def test_als_matches_the_closed_form_rank_one_solution() -> None:
    """Fully observed, no dropout: ALS with ridge lambda converges to (sigma_1 - lambda) u_1 v_1^T."""
    rng = np.random.default_rng(8)
    matrix = rng.random((5, 7)) * 0.8 + 0.1
    u_svd, sigma, vt = np.linalg.svd(matrix)
    for ridge in (0.1, 1e-9):
        expected = (sigma[0] - ridge) * np.outer(u_svd[:, 0], vt[0])
        fitted = fit_member(matrix.tolist(), [[1.0]] * 5, [[0.5]] * 7, ridge=ridge, sweeps=200)
        assert np.allclose(np.array(fitted), expected, atol=1e-9)
    ensemble = fit_ensemble(matrix.tolist(), seed=3, fit=0, members=4, dropout=0.0, ridge=0.1, sweeps=200)
    assert np.allclose(np.array(ensemble.mean), (sigma[0] - 0.1) * np.outer(u_svd[:, 0], vt[0]), atol=1e-8)
    assert np.max(ensemble.spread) < 1e-8  # same data, converged: no spread


def mispaired_fit_members(
    datas: Sequence[Sequence[Sequence[float | None]]],
    us: Sequence[list[list[float]]],
    vs: Sequence[list[list[float]]],
    *,
    ridge: float,
    sweeps: int,
) -> list[Matrix]:
    """The public implementations' defect, restated: in each half-step, row a of member c's data
    (laid out member-major, index c * rows + a) is solved against the factors of member
    (c * rows + a) mod C (tiled), not of member c."""
    members = len(datas)
    u = [[row[:] for row in m] for m in us]
    v = [[row[:] for row in m] for m in vs]
    n_models, n_queries = len(datas[0]), len(datas[0][0])

    def solve(cells: list[float | None], factors: list[list[float]]) -> list[float]:
        gram = ridge + sum(f[0] * f[0] for value, f in zip(cells, factors, strict=True) if value is not None)
        return [sum(value * f[0] for value, f in zip(cells, factors, strict=True) if value is not None) / gram]

    for _ in range(sweeps):
        v = [
            [solve([row[j] for row in datas[c]], u[(c * n_queries + j) % members]) for j in range(n_queries)]
            for c in range(members)
        ]
        u = [
            [solve(list(datas[c][i]), v[(c * n_models + i) % members]) for i in range(n_models)] for c in range(members)
        ]
    return [
        tuple(tuple(u[c][i][0] * v[c][j][0] for j in range(n_queries)) for i in range(n_models)) for c in range(members)
    ]


def check_pairing(fit: FitMembers) -> None:
    """Identical data and factors give identical members; different data give each member its own fit."""
    rng = np.random.default_rng(4)
    data_a = rng.random((3, 4)).tolist()
    data_b = (rng.random((3, 4)) * 0.3).tolist()
    u0 = [[0.7], [0.2], [0.9]]
    v0 = [[0.4], [0.8], [0.1], [0.6]]
    same = fit([data_a, data_a, data_a], [u0, u0, u0], [v0, v0, v0], ridge=0.1, sweeps=5)
    assert same[0] == same[1] == same[2]
    mixed = fit([data_a, data_b, data_a], [u0, [[0.1]] * 3, u0], [v0, [[0.3]] * 4, v0], ridge=0.1, sweeps=5)
    assert mixed[0] == fit_member(data_a, u0, v0, ridge=0.1, sweeps=5)
    assert mixed[1] == fit_member(data_b, [[0.1]] * 3, [[0.3]] * 4, ridge=0.1, sweeps=5)


def test_each_member_fits_its_own_data() -> None:
    check_pairing(fit_members)


def test_the_pairing_test_catches_the_mispaired_ensemble() -> None:
    with pytest.raises(AssertionError):
        check_pairing(mispaired_fit_members)


def test_dropout_gives_the_ensemble_a_spread() -> None:
    """With dropout each member sees other cells: R > 0 somewhere; the same (seed, fit) gives the same fit."""
    scores: list[list[float | None]] = np.random.default_rng(5).random((4, 6)).tolist()
    scores[0][0] = None
    first = fit_ensemble(scores, seed=9, fit=2, members=8, dropout=0.3, sweeps=5)
    assert max(max(row) for row in first.spread) > 1e-3
    assert fit_ensemble(scores, seed=9, fit=2, members=8, dropout=0.3, sweeps=5) == first
    assert fit_ensemble(scores, seed=9, fit=3, members=8, dropout=0.3, sweeps=5) != first


def test_options_differ_as_documented() -> None:
    """unseen_first: a model never observed is taken first (banditeval); the paper imputes it instead."""
    instance = Instance([[1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 1]])
    order = tuple([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])  # warm-up 25% = 3 cells, all of model 0
    draw = LRFDraw(order, (0, 1, 2), seed=5)
    base = LRFParams(warmup=Fraction(25), batch=1, members=4, sweeps=3)
    eager = drive(ucbe_lrf(4, draw, dataclasses.replace(base, unseen_first=True)), instance)
    assert eager.trace[1].requests[0].model == 1  # unseen models 1 and 2 have B = inf; priority: 1
    paper = drive(ucbe_lrf(4, draw, base), instance)
    assert paper.trace[1].requests[0].model == 0  # imputation: model 0 has the largest B


def test_bad_draws_and_parameters_are_refused() -> None:
    with pytest.raises(DrawError, match="cell_order"):
        LRFDraw((0, 1, 2), (0, 1), seed=1)
    with pytest.raises(DrawError, match="seed"):
        LRFDraw((0, 1, 2, 3), (0, 1), seed=-1)
    with pytest.raises(ParameterError, match="warmup"):
        LRFParams(warmup=Fraction(101))
    with pytest.raises(ParameterError, match="members must be at least 2"):
        LRFParams(members=1)
