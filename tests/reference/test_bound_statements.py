"""The bounds are the paper's statements, constants included, not merely some valid bounds.

A valid bound checked against exact errors cannot tell its constant from a weaker one: 1/4 exp(-10 n / H3)
or 2 n K exp(-a/25) holds wherever the paper's bound does on the small cases the exact tests enumerate. So
each bound is compared here with its statement written out from the paper: Theorem lower-bound,
1/4 exp(-11 n / H3(Delta, V)) with H3(Delta, V) = (2V + 2/3 (1 + Delta) Delta) / Delta^2 and V = s - Delta^2;
eq. (guarantees-UCBE), 2 n K exp(-2a / 25) for 0 < a <= 25/36 (n - K) / H1.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance
from sysrs_ref.theory import h3_two_arm, hardness, lower_bound, ucbe_bound, ucbe_max_a
from tests.strategies import delta_and_s, fractions_in, instance_and_budget


def _h3(delta: Fraction, variance: Fraction) -> Fraction:
    """H3(Delta, V) as the paper defines it before Theorem lower-bound."""
    return (2 * variance + Fraction(2, 3) * (1 + delta) * delta) / delta**2


@settings(max_examples=40)
@given(delta_and_s(), st.integers(1, 10**6))
def test_the_lower_bound_is_one_quarter_exp_minus_11_n_over_h3(case: tuple[Fraction, Fraction], n: int) -> None:
    delta, s = case
    variance = s - delta**2
    bound = lower_bound(n, delta, s)
    assert h3_two_arm(delta, variance) == _h3(delta, variance)
    assert (bound.prefactor, bound.exponent) == (Fraction(1, 4), 11 * n / _h3(delta, variance))


def test_the_lower_bound_on_one_case_by_hand() -> None:
    # Delta = 1/10, s = 3/10: V = 29/100, H3 = (58/100 + 2/3 * 11/10 * 1/10) / (1/100) = 196/3; 11 * 10 * 3/196
    assert lower_bound(10, Fraction(1, 10), Fraction(3, 10)).exponent == Fraction(330, 196)


@settings(max_examples=25)
@given(instance_and_budget(max_models=4, max_queries=5), fractions_in(Fraction(1, 100), 1, 100))
def test_the_ucbe_bound_is_2nK_exp_minus_2a_over_25(case: tuple[Instance, int], share: Fraction) -> None:
    instance, budget = case
    n_models = instance.n_models
    h1 = hardness(instance).h1
    assert h1 is not None
    if budget == n_models:
        return  # no a satisfies 0 < a <= 0
    assert ucbe_max_a(instance, budget) == Fraction(25, 36) * (budget - n_models) / h1
    a = share * Fraction(25, 36) * (budget - n_models) / h1
    bound = ucbe_bound(instance, budget, a)
    assert (bound.prefactor, bound.exponent) == (Fraction(2 * budget * n_models), 2 * a / 25)
