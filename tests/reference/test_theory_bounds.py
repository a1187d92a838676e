"""Theorem csr_bound, the SR bound and the UCB-E bound against exact error probabilities.

The exact error of each algorithm is enumerated over every draw by brute force
(tests/exact_cases.py), independently of the package's exact engine.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from sysrs_ref import BoundConditionError, BudgetError, Instance, ScoreLike, schedule
from sysrs_ref.theory import Bound, schedule_is_covered, sr_bound, sysrs_bound, ucbe_bound, ucbe_max_a
from tests.exact_cases import exact_error
from tests.strategies import instance_and_budget


@settings(max_examples=80, deadline=None)
@given(instance_and_budget(max_models=3, max_queries=4))
def test_sysrs_error_is_below_theorem_csr_bound(case: tuple[Instance, int]) -> None:
    """Deterministic scores: every budget is covered (capped phases at L cannot err)."""
    inst, budget = case
    bound = sysrs_bound(inst, budget)
    assert bound.prefactor == Fraction(inst.n_models * (inst.n_models - 1), 2)
    assert bound.holds_for(exact_error(inst, "sysrs", budget))


@settings(max_examples=40, deadline=None)
@given(st.one_of(instance_and_budget(max_models=2, max_queries=4), instance_and_budget(max_models=3, max_queries=3)))
def test_sr_error_is_below_the_sr_bound(case: tuple[Instance, int]) -> None:
    inst, budget = case
    assert sr_bound(inst, budget).holds_for(exact_error(inst, "sr", budget))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(instance_and_budget(max_models=2, max_queries=4), st.fractions(min_value=Fraction(1, 100), max_value=1))
def test_ucbe_error_is_below_its_bound_for_admissible_a(case: tuple[Instance, int], share: Fraction) -> None:
    inst, budget = case
    assume(budget > inst.n_models)
    a = share * ucbe_max_a(inst, budget)
    error = exact_error_ucbe(inst, budget, a)
    assert ucbe_bound(inst, budget, a).holds_for(error)


def exact_error_ucbe(inst: Instance, budget: int, a: Fraction) -> Fraction:
    import itertools

    from sysrs_ref import ALGORITHMS, Draw, drive

    orders = list(itertools.permutations(range(inst.n_queries)))
    wrong = total = 0
    for per_model in itertools.product(orders, repeat=inst.n_models):
        for priority in itertools.permutations(range(inst.n_models)):
            out = drive(ALGORITHMS["ucbe"].start(budget, Draw(per_model, priority), a=a), inst)
            wrong += not inst.is_best(out.chosen)
            total += 1
    return Fraction(wrong, total)


def test_a_bound_that_is_not_vacuous() -> None:
    """K = 2, rows all-ones and all-zeros: H3 = 2 (0 + 2/3 * 2 * 1) / 1 = 8/3, n = 8:
    bound exp(-6 / (8/3)) = exp(-9/4) ~ 0.105 < 1, and SySRs never errs here."""
    inst = Instance([[1, 1, 1, 1], [0, 0, 0, 0]])
    bound = sysrs_bound(inst, 8)
    assert bound.exponent == Fraction(9, 4) and float(bound) < 0.11
    assert exact_error(inst, "sysrs", 8) == 0


def test_capped_schedules_are_covered_only_for_deterministic_scores() -> None:
    """K = 4, L = 30, n = 100: the paper's n_3 = 31 > L. Deterministic scores: the phase capped
    at L = 30 sees everything, so it cannot err. Stochastic scores: not proved."""
    assert schedule(4, 30, 100) == (17, 23, 30)
    assert schedule_is_covered(4, 30, 100, stochastic=False)
    assert not schedule_is_covered(4, 30, 100, stochastic=True)
    assert schedule_is_covered(4, 31, 100, stochastic=True)
    rows: list[list[ScoreLike]] = [[Fraction(3, 4)] * 30, [Fraction(1, 2)] * 30, [Fraction(1, 4)] * 30, [0] * 30]
    probabilities = Instance(rows)
    with pytest.raises(BoundConditionError, match="n_3 = 31 > L = 30"):
        sysrs_bound(probabilities, 100, stochastic=True)
    assert sysrs_bound(probabilities, 100).exponent > 0


def test_bounds_refuse_inputs_outside_their_conditions() -> None:
    tied = Instance([[1, 0], [0, 1]])
    with pytest.raises(BoundConditionError, match="unique best model"):
        sysrs_bound(tied, 3)
    with pytest.raises(BoundConditionError, match="unique best model"):
        sr_bound(tied, 3)
    with pytest.raises(BoundConditionError, match="unique best model"):
        ucbe_max_a(tied, 3)
    inst = Instance([[1, 1, 1, 0], [0, 1, 0, 1]])
    with pytest.raises(BoundConditionError, match=r"0 < a <= 25/36 \(n - K\)/H1"):
        ucbe_bound(inst, 8, 1)
    with pytest.raises(BoundConditionError, match=r"0 < a"):
        ucbe_bound(inst, 8, 0)
    with pytest.raises(BudgetError):
        sysrs_bound(inst, 9)


def test_bound_arithmetic_is_exact() -> None:
    bound = Bound("x", Fraction(3), Fraction(1, 2))
    assert str(bound.decimal(12)) == "1.81959197914"  # 3 exp(-1/2) = 1.8195919791379...
    assert bound.compare(Fraction(18195919791380, 10**13)) == 1
    assert bound.compare(Fraction(18195919791379, 10**13)) == -1


def test_ucbe_max_a_is_25_36ths_of_the_budget_past_one_query_each_over_h1() -> None:
    """Audibert et al.'s a <= (25/36) (n - K) / H1, exactly: here H1 = 16 + 16 and n - K = 8 - 2."""
    assert ucbe_max_a(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), 8) == Fraction(25, 36) * 6 / 32
