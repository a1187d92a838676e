"""Exact comparison of UCB-E exploration indices U_i = mu_i + sqrt(a / N_i).

The index involves a square root, so it is irrational in general; the
reference never rounds it. :func:`compare_indices` decides the sign of
U_1 - U_2 exactly with rational arithmetic (docs/contracts.md). Two indices
can be exactly equal (e.g. a = 1: 0 + sqrt(1/1) == 1/2 + sqrt(1/4)), and then
the arm priority decides.

:class:`IndexKey` orders arms for a heap. It first compares float64
approximations and falls back to the exact comparison whenever the two floats
are within a tolerance that provably exceeds their rounding error, so the
order it gives is always the exact one.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["IndexKey", "compare_indices", "sign_of_root_sum"]


def sign_of_root_sum(r: Fraction, p: Fraction, q: Fraction) -> int:
    """The sign (-1, 0 or 1) of r + sqrt(p) - sqrt(q), exactly, for rationals p, q >= 0.

    Write f = sqrt(p) - sqrt(q), whose sign is that of p - q. If r and f do not
    have opposite signs the answer is immediate. Otherwise compare r^2 with
    f^2 = p + q - 2 sqrt(pq): with B = r^2 - p - q, sign(r^2 - f^2) is the
    sign of B + 2 sqrt(pq), which is 1 if B > 0, and for B <= 0 the sign of
    4pq - B^2 (B = 0 and pq = 0 gives 0). Then |r| > |f| means the sign of r.

    >>> sign_of_root_sum(Fraction(-1, 2), Fraction(1), Fraction(1, 4))
    0
    >>> sign_of_root_sum(Fraction(0), Fraction(2), Fraction(1))
    1
    """
    if p < 0 or q < 0:
        raise ValueError("square roots of negative numbers")
    sign_f = (p > q) - (p < q)
    sign_r = (r > 0) - (r < 0)
    if sign_r == 0:
        return sign_f
    if sign_f == 0 or sign_f == sign_r:
        return sign_r
    b = r * r - p - q
    if b > 0:
        r_beats_f = 1
    else:
        difference = 4 * p * q - b * b
        r_beats_f = (difference > 0) - (difference < 0)
    # r_beats_f = sign(r^2 - f^2) = sign(|r| - |f|)
    return sign_r * r_beats_f


def compare_indices(mean1: Fraction, count1: int, mean2: Fraction, count2: int, a: Fraction) -> int:
    """The sign of (mean1 + sqrt(a/count1)) - (mean2 + sqrt(a/count2)), exactly.

    >>> compare_indices(Fraction(0), 1, Fraction(1, 2), 4, Fraction(1))
    0
    >>> compare_indices(Fraction(1, 2), 2, Fraction(1, 2), 3, Fraction(1, 10))
    1
    """
    if count1 == count2:
        return (mean1 > mean2) - (mean1 < mean2)
    return sign_of_root_sum(mean1 - mean2, a / count1, a / count2)


class IndexKey:
    """A heap entry for one arm: orders arms by decreasing U_i, then by arm priority.

    ``key1 < key2`` means arm 1 is selected before arm 2: a larger index, or an
    equal index and an earlier place in the priority (a smaller ``rank``).

    Fast filter: ``approx = float(mean) + sqrt(float(a) / count)``. With means
    in [0, 1], a correctly rounded ``float(mean)``, and ``float(a)`` a normal
    float (checked), each approximation is within 2^-51 (1 + sqrt(a)) of the
    exact index, so two approximations further apart than 2^-40 (1 + sqrt(a))
    (over 1000 times the worst rounding) order the exact indices the same way.
    Closer ones are compared exactly.
    """

    __slots__ = ("a", "approx", "count", "mean", "model", "rank", "tolerance")

    def __init__(self, model: int, mean: Fraction, count: int, rank: int, a: Fraction, tolerance: float) -> None:
        self.model = model
        self.mean = mean
        self.count = count
        self.rank = rank
        self.a = a
        self.tolerance = tolerance
        self.approx = float(mean) + math.sqrt(float(a) / count) if tolerance < math.inf else 0.0

    @staticmethod
    def tolerance_for(a: Fraction) -> float:
        """The filter's tolerance for exploration parameter *a* (infinite: always exact)."""
        if not (Fraction(2) ** -1000 < a < Fraction(2) ** 1000):
            return math.inf
        return 2.0**-40 * (1.0 + math.sqrt(float(a)))

    def __lt__(self, other: IndexKey) -> bool:
        gap = self.approx - other.approx
        if gap > self.tolerance:
            return True
        if gap < -self.tolerance:
            return False
        sign = compare_indices(self.mean, self.count, other.mean, other.count, self.a)
        if sign != 0:
            return sign > 0
        return self.rank < other.rank

    def __repr__(self) -> str:
        return f"IndexKey(model={self.model}, mean={self.mean}, count={self.count})"
