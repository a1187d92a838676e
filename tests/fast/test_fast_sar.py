"""The fast SAR and SySAR kernel gives exactly the reference's outcomes (every run, budget and m)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Draw, Instance
from sysrs_ref.algorithms.params import TopMSize
from sysrs_ref.fast import DrawBatch, random_draws, run_fast, score_table
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast._table import ScoreTable
from tests.real_data import real
from tests.strategies import draws_for, instances

SYNCHRONIZED = {"sar": False, "sysar": True}


def assert_same_as_reference(table: ScoreTable, name: str, budgets: tuple[int, ...], draws: DrawBatch, m: int) -> int:
    """Compare chosen model, full ranking and spend of every run at every budget; return exact decisions."""
    fast = run_fast(table, name, budgets, draws, m=m)
    ref = reference_kernel(name)(table, budgets, draws, True, TopMSize(m))
    assert fast.ranking is not None and ref.ranking is not None
    for run in range(draws.n_runs):
        for column, budget in enumerate(budgets):
            got = fast.outcome(run, column)
            want = (
                int(ref.chosen[run, column]),
                tuple(int(x) for x in ref.ranking[run, column]),
                int(ref.spent[column]),
            )
            assert got == want, f"{name} m={m} run {run} budget {budget}: fast {got} != reference {want}"
            assert got[2] <= budget
    return fast.exact_decisions


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(instances(max_models=6, max_queries=6), st.sampled_from(sorted(SYNCHRONIZED)), st.booleans(), st.data())
def test_fast_equals_reference(instance: Instance, name: str, prefer_float: bool, data: st.DataObject) -> None:
    """Binary, coarse and float scores with duplicate rows; integer and certified float paths; every m."""
    n_models, n_queries = instance.shape
    full = n_models * n_queries
    budgets = tuple(data.draw(st.lists(st.integers(n_models, full), min_size=1, max_size=4))) + (n_models, full)
    runs = data.draw(st.lists(draws_for(n_models, n_queries, SYNCHRONIZED[name]), min_size=1, max_size=4))
    m = data.draw(st.integers(1, n_models - 1))
    assert_same_as_reference(
        score_table(instance, prefer_float=prefer_float), name, budgets, DrawBatch.from_draws(runs), m
    )


@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_float_path_resolves_ties_exactly(name: str) -> None:
    """Binary scores forced through the float path: gap ties everywhere, each settled exactly."""
    rng = np.random.default_rng(12)
    instance = Instance((rng.random((7, 10)) < 0.5).astype(float))
    table = score_table(instance, prefer_float=True)
    assert not table.exact
    draws = random_draws(4, 30, 7, 10, synchronized=SYNCHRONIZED[name])
    decisions = sum(assert_same_as_reference(table, name, (7, 25, 40, 70), draws, m) for m in (1, 3, 6))
    assert decisions > 0  # the ties were found and decided exactly, not by float luck


def test_gap_tie_below_float_resolution_is_decided_exactly() -> None:
    """Accept gap and reject gap differ by 2^-60: floats see a tie (which rejects), the exact rule accepts."""
    tiny = 2.0**-60
    instance = Instance([[0.5, 0.5, tiny], [0.5, 0.0, 0.0], [0.25, 0.25, 0.0], [0.0, 0.0, 0.0]])
    # n = K L: every phase sees all 3 queries; sums 1 + tiny, 1/2, 1/2, 0 and m' = 2 in phase 1:
    # accept gap (1 + tiny) - 1/2 > reject gap 1/2 - 0 exactly, equal in float64: accept model 0
    assert 1.0 + tiny == 1.0
    table = score_table(instance)
    assert not table.exact  # D = 2^60 does not fit: the certified float path
    draws = DrawBatch.from_draws([Draw(((0, 1, 2),), (0, 1, 2, 3))])
    fast = run_fast(table, "sysar", (12,), draws, m=2)
    assert fast.exact_decisions >= 1
    assert fast.ranking is not None and fast.ranking[0, 0].tolist() == [0, 1, 2, 3]
    assert_same_as_reference(table, "sysar", (12,), draws, 2)


def test_gap_difference_whose_float_sign_is_wrong_is_decided_exactly() -> None:
    """The rounded sums give the gap difference the wrong sign: only the tolerance sends the phase to the exact rule."""
    first_two = [
        [0.29999999999999993, 0.24999999999999978],
        [1.0, 0.25000000000000017],
        [0.0, 0.5],
        [0.9999999999999999, 0.30000000000000004],
    ]
    exact = sorted((Fraction(a) + Fraction(b) for a, b in first_two), reverse=True)
    rounded = [float(total) for total in exact]  # what a correctly rounded float sum holds
    # phase 1 sees the first 2 queries with m' = 2: accept gap P(1) - P(3) against reject gap P(2) - P(4)
    assert (exact[0] - exact[2]) - (exact[1] - exact[3]) == Fraction(1, 2**54)  # accept the first...
    assert (rounded[0] - rounded[2]) - (rounded[1] - rounded[3]) < 0.0  # ...which floats would reject
    # model 2, the last after phase 1, then scores 1 on both remaining queries: rejecting it there would be final
    instance = Instance([row + ([1.0, 1.0] if model == 2 else [0.0, 0.0]) for model, row in enumerate(first_two)])
    table = score_table(instance, prefer_float=True)
    draws = DrawBatch.from_draws([Draw(((0, 1, 2, 3),), (0, 1, 2, 3))])
    fast = run_fast(table, "sysar", (14,), draws, m=2)  # the schedule (2, 3, 4)
    assert fast.exact_decisions >= 1
    assert fast.ranking is not None and fast.ranking[0, 0].tolist() == [3, 2, 1, 0]
    assert_same_as_reference(table, "sysar", (14,), draws, 2)


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["math", "narrative_qa"])
@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_real_matrices(dataset: str, name: str) -> None:
    """12 runs at 3 budgets on real matrices (narrative_qa: F1 floats, the certified path), m = 3."""
    instance = real(dataset)
    n_models, n_queries = instance.shape
    budgets = tuple(p * n_models * n_queries // 100 for p in (5, 15, 35))
    draws = random_draws(2026, 12, n_models, n_queries, synchronized=SYNCHRONIZED[name])
    assert_same_as_reference(score_table(instance), name, budgets, draws, 3)


def test_bad_m_is_refused() -> None:
    instance = Instance([[1, 0], [0, 1], [1, 1]])
    draws = random_draws(0, 2, 3, 2, synchronized=True)
    with pytest.raises(ValueError, match="m \\(the size of the top-m set\\) must be an integer from 1 to K - 1 = 2"):
        run_fast(instance, "sysar", (3,), draws, m=3)
