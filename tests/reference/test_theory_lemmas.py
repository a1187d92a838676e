"""Lemmas bernstein-bounded-wor and bernstein-paired, and Theorem lower-bound, on small exact cases.

Every probability here is computed exactly by enumeration (subsets of the
population, every outcome of every drawn distribution); the bound is compared
with it exactly (Bound.compare decides p <= c exp(-e) without rounding).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from sysrs_ref import BoundConditionError
from sysrs_ref.theory import bernstein_paired_bound, bernstein_wor_bound, h3_two_arm, lower_bound, lower_bound_pair
from tests.exact_tails import mean_of_sum_at_least
from tests.strategies import Distribution, delta_and_s, distributions, fractions_in, grid, unit


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(distributions(grid), min_size=1, max_size=5), st.data())
def test_bernstein_without_replacement(raw: list[Distribution], data: st.DataObject) -> None:
    """Lemma bernstein-bounded-wor: centred population on [-M, M], n <= N, eps > 0."""
    centre = sum((sum((v * p for v, p in d), Fraction(0)) for d in raw), Fraction(0)) / len(raw)
    population = [[(v - centre, p) for v, p in d] for d in raw]
    bound_m = max(abs(v) for d in population for v, _ in d)
    assume(bound_m > 0)
    sigma2 = sum((sum((v * v * p for v, p in d), Fraction(0)) for d in population), Fraction(0)) / len(population)
    n = data.draw(st.integers(1, len(population)))
    epsilon = bound_m * data.draw(fractions_in(Fraction(1, 20), 1, 20))
    exact = mean_of_sum_at_least(population, n, n * epsilon)
    bound = bernstein_wor_bound(n, len(population), epsilon, sigma2, bound_m)
    assert bound.holds_for(exact), (exact, float(bound))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(distributions(unit), distributions(unit)), min_size=1, max_size=4), st.data())
def test_bernstein_paired(pairs: list[tuple[Distribution, Distribution]], data: st.DataObject) -> None:
    """Lemma bernstein-paired: X_t, Y_t drawn independently from the t-th sampled pair."""

    def mean(d: Distribution) -> Fraction:
        return sum((v * p for v, p in d), Fraction(0))

    mu_x = sum((mean(x) for x, _ in pairs), Fraction(0)) / len(pairs)
    mu_y = sum((mean(y) for _, y in pairs), Fraction(0)) / len(pairs)
    if mu_x < mu_y:
        pairs = [(y, x) for x, y in pairs]
        mu_x, mu_y = mu_y, mu_x
    delta = mu_x - mu_y
    # Z = Y - X + Delta for the pair's product distribution
    population = [[(vy - vx + delta, px * py) for (vx, px), (vy, py) in itertools.product(x, y)] for x, y in pairs]
    sigma2 = sum((sum((z * z * p for z, p in d), Fraction(0)) for d in population), Fraction(0)) / len(pairs)
    n = data.draw(st.integers(1, len(pairs)))
    exact = mean_of_sum_at_least(population, n, n * delta)  # mean Y >= mean X  <=>  sum Z >= n Delta
    assert bernstein_paired_bound(n, len(pairs), delta, sigma2).holds_for(exact)


def test_paired_bound_on_a_dominance_example_by_hand() -> None:
    """X = (1, 1, 0), Y = (1, 0, 0) point masses: Delta = 1/3, Z = Y - X + 1/3 = (1/3, -2/3, 1/3),
    sigma^2 = (1/9 + 4/9 + 1/9)/3 = 2/9. n = 1: P(Y >= X) = P(the query is 0 or 2) = 2/3.
    Bound: exp(-(1/9) / (4/9 + 2/3 * 4/3 * 1/3)) = exp(-(1/9)/(20/27)) = exp(-3/20) = 0.86 >= 2/3.
    """
    bound = bernstein_paired_bound(1, 3, Fraction(1, 3), Fraction(2, 9))
    assert bound.exponent == Fraction(3, 20)
    assert bound.compare(Fraction(2, 3)) == -1


@given(delta_and_s())
def test_lower_bound_construction_moments(case: tuple[Fraction, Fraction]) -> None:
    """Under P, E[X - Y] = Delta; under Q, -Delta; Var(X - Y) = s - Delta^2 under both."""
    delta, s = case
    p, q = lower_bound_pair(delta, s)
    for dist, sign in ((p, 1), (q, -1)):
        assert sum(dist.values()) == 1 and all(v >= 0 for v in dist.values())
        mean = sum((x - y) * w for (x, y), w in dist.items())
        second = sum((x - y) ** 2 * w for (x, y), w in dist.items())
        assert mean == sign * delta
        assert second - mean**2 == s - delta**2


def exact_minimax_error(n: int, delta: Fraction, s: Fraction) -> Fraction:
    """(1 - TV(P^n, Q^n)) / 2 by enumerating the counts (a of (1,0), b of (0,1), rest (0,0))."""
    p, q = lower_bound_pair(delta, s)
    tv = Fraction(0)
    for a in range(n + 1):
        for b in range(n + 1 - a):
            ways = math.comb(n, a) * math.comb(n - a, b)
            rest = n - a - b
            pn = p[(1, 0)] ** a * p[(0, 1)] ** b * p[(0, 0)] ** rest
            qn = q[(1, 0)] ** a * q[(0, 1)] ** b * q[(0, 0)] ** rest
            tv += ways * abs(pn - qn)
    return (1 - tv / 2) / 2


@settings(max_examples=150, deadline=None)
@given(delta_and_s(), st.integers(1, 30))
def test_lower_bound_holds_for_the_best_test(case: tuple[Fraction, Fraction], n: int) -> None:
    """The exact minimax error (Bayes error of the likelihood-ratio test) is >= 1/4 exp(-11 n / H3)."""
    delta, s = case
    assert lower_bound(n, delta, s).compare(exact_minimax_error(n, delta, s)) >= 0


@given(fractions_in(Fraction(1, 200), Fraction(1, 10), 200), st.integers(1, 12))
def test_bhattacharyya_formula_and_tv_bound(k: Fraction, n: int) -> None:
    """With s = 5k, Delta = 3k: sqrt(s^2 - Delta^2) = 4k is rational, so BC is exact.

    BC(P, Q) = (1 - s) + sqrt(s^2 - Delta^2) lies in [1/2, 1], and TV(P^n, Q^n) <= sqrt(1 - BC^(2n)).
    """
    s, delta = 5 * k, 3 * k
    p, q = lower_bound_pair(delta, s)
    # BC = sum_z sqrt(P(z) Q(z)), with P(1,0) Q(1,0) = P(0,1) Q(0,1) = (s^2 - Delta^2)/4 = (2k)^2
    assert p[(1, 0)] * q[(1, 0)] == (2 * k) ** 2 == p[(0, 1)] * q[(0, 1)]
    assert p[(0, 0)] == q[(0, 0)] == 1 - s and p[(1, 1)] == q[(1, 1)] == 0
    bc = (1 - s) + 2 * (2 * k)
    assert Fraction(1, 2) <= bc <= 1
    tv = 1 - 2 * exact_minimax_error(n, delta, s)
    assert tv**2 <= 1 - bc ** (2 * n)


def test_lower_bound_conditions_are_enforced() -> None:
    with pytest.raises(BoundConditionError, match=r"Delta in \(0, 1/2\)"):
        lower_bound(3, Fraction(1, 2), Fraction(1, 2))
    with pytest.raises(BoundConditionError, match=r"s in \[Delta, 1/2\]"):
        lower_bound(3, Fraction(1, 4), Fraction(1, 5))
    with pytest.raises(BoundConditionError, match="n >= 1"):
        lower_bound(0, Fraction(1, 4), Fraction(1, 3))
    with pytest.raises(BoundConditionError, match="1 <= n <= N"):
        bernstein_wor_bound(5, 4, Fraction(1, 2), Fraction(1, 4), Fraction(1))
    with pytest.raises(BoundConditionError, match="eps > 0"):
        bernstein_wor_bound(1, 4, Fraction(0), Fraction(1, 4), Fraction(1))
    with pytest.raises(BoundConditionError, match="0 <= Delta <= 1"):
        bernstein_paired_bound(1, 4, Fraction(-1, 4), Fraction(1, 4))
    with pytest.raises(BoundConditionError, match="Delta > 0"):
        h3_two_arm(Fraction(0), Fraction(1, 4))
