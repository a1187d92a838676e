"""Exact comparison of UCB indices mu + sqrt(a/N), and the float filter in front of it."""

from __future__ import annotations

import math
from fractions import Fraction

import sympy
from hypothesis import given, strategies as st

from sysrs_ref.algorithms.ucb_index import IndexKey, compare_indices, sign_of_root_sum
from tests.strategies import a_values, counts, fractions_in, means, near_ties, nonneg, rationals


def sympy_sign(r: Fraction, p: Fraction, q: Fraction) -> int:
    value = sympy.Rational(r) + sympy.sqrt(sympy.Rational(p)) - sympy.sqrt(sympy.Rational(q))
    if value.is_zero:
        return 0
    return 1 if value.is_positive else -1


@given(rationals, nonneg, nonneg)
def test_sign_of_root_sum_matches_sympy(r: Fraction, p: Fraction, q: Fraction) -> None:
    assert sign_of_root_sum(r, p, q) == sympy_sign(r, p, q)


@given(
    fractions_in(0, 3, 12),
    fractions_in(0, 3, 12),
)
def test_exact_ties_between_rational_roots(x: Fraction, y: Fraction) -> None:
    """sqrt(x^2) - sqrt(y^2) + (y - x) is exactly 0: perfect squares make true ties."""
    assert sign_of_root_sum(y - x, x * x, y * y) == 0


@given(means, counts, means, counts, a_values)
def test_compare_indices_is_antisymmetric_and_matches_sympy(
    m1: Fraction, n1: int, m2: Fraction, n2: int, a: Fraction
) -> None:
    sign = compare_indices(m1, n1, m2, n2, a)
    assert sign == -compare_indices(m2, n2, m1, n1, a)
    assert sign == sympy_sign(m1 - m2, a / n1, a / n2)


@given(near_ties())
def test_index_key_orders_exactly_even_below_float_resolution(
    case: tuple[Fraction, int, Fraction, int, Fraction],
) -> None:
    """The float filter never decides a comparison that floats cannot resolve."""
    m1, n1, m2, n2, a = case
    tolerance = IndexKey.tolerance_for(a)
    k1 = IndexKey(1, m1, n1, rank=0, a=a, tolerance=tolerance)
    k2 = IndexKey(2, m2, n2, rank=1, a=a, tolerance=tolerance)
    sign = compare_indices(m1, n1, m2, n2, a)
    assert (k1 < k2) == (sign > 0 or sign == 0)  # equal: rank 0 goes first
    assert (k2 < k1) == (sign < 0)


@given(means, counts, means, counts, a_values, st.booleans())
def test_index_key_order_equals_exact_order(
    m1: Fraction, n1: int, m2: Fraction, n2: int, a: Fraction, first_has_priority: bool
) -> None:
    tolerance = IndexKey.tolerance_for(a)
    r1, r2 = (0, 1) if first_has_priority else (1, 0)
    k1, k2 = IndexKey(1, m1, n1, r1, a, tolerance), IndexKey(2, m2, n2, r2, a, tolerance)
    sign = compare_indices(m1, n1, m2, n2, a)
    expected = sign > 0 or (sign == 0 and first_has_priority)
    assert (k1 < k2) == expected
    assert (k2 < k1) == (not expected)


def test_filter_is_disabled_for_extreme_a() -> None:
    assert IndexKey.tolerance_for(Fraction(1, 2**1100)) == math.inf
    assert IndexKey.tolerance_for(Fraction(2**1100)) == math.inf
    key1 = IndexKey(0, Fraction(1), 1, 0, Fraction(2**1100), math.inf)
    key2 = IndexKey(1, Fraction(0), 1, 1, Fraction(2**1100), math.inf)
    assert key1 < key2 and not key2 < key1
