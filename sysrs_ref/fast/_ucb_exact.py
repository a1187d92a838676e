"""The exact part of the UCB-E / SyUCB-E fast path: error bounds and the rare near-tie resolutions.

:mod:`sysrs_ref.fast._ucb` orders float64 approximations of the indices and
means; this module says how far a float may be from its exact value
(:class:`Bounds`) and re-decides exactly, with Fractions and
:func:`~sysrs_ref.algorithms.ucb_index.compare_indices`, every decision whose
floats are too close to be trusted: where the cut of the pull sequence falls
(:func:`resolve_cut`) and the order of near-equal final means
(:func:`resolve_ranking`).

Notation (one run): arm i's *key* at count N (N = 1 .. L-1) is the running
minimum M_i(N) = min over N' <= N of U_i(N'); ``keys[i, N - 1]`` is its float
approximation (the running minimum of the float indices). The pulls after the
warm-up are the cells (i, N) in decreasing order of (M_i(N), -rank_i, -N).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from sysrs_ref._distinct import distinct_sorted
from sysrs_ref.algorithms.ucb_index import compare_indices
from sysrs_ref.fast import _compiled
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast.certify import MAX_TERMS

__all__ = [
    "Bounds",
    "RunView",
    "bounds_for",
    "count_above",
    "float_means",
    "resolve_cut",
    "resolve_ranking",
    "segments",
    "square_roots",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
UNIT = 2.0**-53  # unit roundoff of float64


@dataclass(frozen=True)
class Bounds:
    """Error bounds of the fast path's floats for one score table and exploration parameter.

    - ``gap``: two float indices (or keys) more than ``gap`` apart order the
      exact ones the same way (``gap`` is 4 times a bound on each float's error);
    - ``mean_tol``: the same for two float means; ``means_exact`` is True when
      float means are correctly rounded and order equal and distinct fractions
      exactly (integer scores with L * L * D < 2^52), so no check is needed;
    - ``integer``: prefix sums are exact int64 sums of the numerators (the
      table is exact and N D is a finite float); else float64 sums of the scores.
    """

    gap: float
    mean_tol: float
    means_exact: bool
    integer: bool = True


def bounds_for(table: ScoreTable, a: Fraction) -> Bounds:
    """The error bounds for *table* and exploration *a* (2^-1000 < a < 2^1000).

    Index U = mean + sqrt(a/N) in float64: the mean P / (N D), computed from
    an int64 prefix sum as P times the float reciprocal of N D, has relative
    error below 4.01 u (u = 2^-53: conversion of P, of N D, the reciprocal, the
    product), sqrt(fl(a) / N) below 2.01 u, the sum u: the error is below
    5.01 u + 3.01 u sqrt(a) < 8 u (1 + sqrt(a)). On float scores the prefix sum
    adds (N - 1) u P and each score's rounding u (plus 2^-1075 for a
    subnormal), and the reciprocal and product two more, so a mean (at most 1)
    is off by less than (L + 4) 1.01 u; we allow (2 L + 8) u. Final means are
    divided (one rounding less). Integer scores whose denominator is too large
    for a float (L D >= 2^900) take the float path too. These bounds are
    proved (``python -m proofs_check --claim code-ucb-tolerance``) for
    L < 2^40 (:data:`~sysrs_ref.fast.certify.MAX_TERMS`) and
    2^-1000 < a < 2^1000; ValueError outside (the kernels then run the
    reference).

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table
    >>> bounds_for(score_table(Instance([[1, 0], [0, 1]])), Fraction(1)).means_exact
    True
    """
    n_queries, denominator = table.n_queries, table.denominator
    if not n_queries < MAX_TERMS:
        raise ValueError(f"the fast UCB-E error bounds are proved for L < 2^40 queries, got L = {n_queries}")
    if not Fraction(2) ** -1000 < a < Fraction(2) ** 1000:
        raise ValueError(f"the fast UCB-E error bounds are proved for 2^-1000 < a < 2^1000, got a = {a!s:.40}")
    root = 1.0 + math.sqrt(float(a))
    if table.exact and n_queries * denominator < 2**900:
        largest_sum = table.largest_row_sum()  # fits: ScoreTable checks K L max < 2^62
        exact_floats = largest_sum < 2**53 and n_queries * denominator < 2**53 and n_queries**2 * denominator < 2**52
        err = 8 * UNIT * root
        return Bounds(4 * err, 0.0 if exact_floats else 2.0**-48, exact_floats)
    mean_err = (2 * n_queries + 8) * UNIT
    return Bounds(4 * (mean_err + 8 * UNIT * root), 4 * mean_err, False, integer=False)


def float_means(
    sums: npt.NDArray[Any], inverse: FloatArray, divisors: FloatArray, out: FloatArray | None = None
) -> FloatArray:
    """The means of the float indices: *sums* times *inverse*, or divided by *divisors* where those are nonzero.

    *inverse* and *divisors* run along the last axis of *sums* (one entry per
    count N); the means go to *out* when given. A multiplication by the
    reciprocal costs a fraction of a division, with one rounding more
    (:func:`bounds_for` allows for it). Where sqrt(a/N) is rational an index
    can equal another count's exactly, and the correctly rounded quotient
    keeps such equal keys equal in floats, so their cuts are certified
    without exact arithmetic: there, in the few columns with a nonzero
    divisor, the mean is divided. The compiled passes compute the same floats
    (``sysrs_ref/fast/_csrc/common.h``).

    >>> float_means(np.array([6, 6]), np.array([1 / 9, 1 / 9]), np.array([0.0, 9.0])).tolist()
    [0.6666666666666666, 0.6666666666666666]
    """
    means: FloatArray = np.multiply(sums, inverse, out=out, dtype=np.float64)
    columns = np.flatnonzero(divisors)
    if len(columns):
        means[..., columns] = np.divide(sums[..., columns], divisors[columns], dtype=np.float64)
    return means


def count_above(rows: FloatArray, row_ids: IntArray, theta: FloatArray, *, strict: bool) -> IntArray:
    """For nonincreasing rows: how many entries of ``rows[row_ids[q]]`` are > theta[q] (>= if not strict).

    A binary search vectorized over the queries q (in compiled code, step for
    step, where the compiled passes run: :func:`sysrs_ref.fast._compiled.count_above`).

    >>> rows = np.array([[3.0, 2.0, 2.0, 1.0]])
    >>> count_above(rows, np.zeros(2, np.intp), np.array([2.0, 2.0]), strict=True).tolist()
    [1, 1]
    >>> count_above(rows, np.zeros(1, np.intp), np.array([2.0]), strict=False).tolist()
    [3]
    """
    module = _compiled.library()
    if module is not None and rows.dtype == np.float64 and theta.shape == row_ids.shape and row_ids.ndim == 1:
        return _compiled.count_above(module, rows, row_ids, theta, strict)
    width = rows.shape[1]
    flat = rows.reshape(-1)
    base = row_ids.astype(np.intp) * width
    low = np.zeros(row_ids.shape, dtype=np.intp)
    high = np.full(row_ids.shape, width, dtype=np.intp)
    for _ in range(width.bit_length()):
        mid = (low + high) >> 1
        value = flat[base + np.minimum(mid, width - 1)]
        right = (value > theta) if strict else (value >= theta)
        right &= low < high
        low = np.where(right, mid + 1, low)
        high = np.where(right, high, mid)
    return low


def segments(starts: IntArray, lengths: IntArray) -> tuple[IntArray, IntArray]:
    """Flatten ranges: (owner, position) for position in starts[k] .. starts[k] + lengths[k] - 1.

    >>> [x.tolist() for x in segments(np.array([5, 0]), np.array([2, 3]))]
    [[0, 0, 1, 1, 1], [5, 6, 0, 1, 2]]
    """
    owner = np.repeat(np.arange(len(starts)), lengths)
    first = np.cumsum(lengths) - lengths
    position = np.arange(int(lengths.sum())) - np.repeat(first, lengths) + np.repeat(starts, lengths)
    return owner, position


@functools.lru_cache(maxsize=64)
def square_roots(a: Fraction, n_queries: int) -> npt.NDArray[np.int64]:
    """``roots[N - 1] = r`` when sqrt(a / N) = r / (q N) is rational (a = p / q, r^2 = p q N), else -1.

    -1 only means "no shortcut": a value too large for int64 is left at -1 too. Read-only, made once per (a, L).

    >>> square_roots(Fraction(1), 5).tolist()
    [1, -1, -1, 2, -1]
    """
    product = a.numerator * a.denominator
    out = np.full(n_queries, -1, dtype=np.int64)
    for count in range(1, n_queries + 1):
        root = math.isqrt(product * count)
        if root * root == product * count and root < 2**62:
            out[count - 1] = root
    out.setflags(write=False)
    return out


@dataclass(eq=False)
class RunView:
    """One run's arrays, for the exact resolutions (exact prefix sums of float rows made on demand)."""

    table: ScoreTable
    a: Fraction
    bounds: Bounds
    keys: FloatArray  # (K, L-1): float running minima of the indices
    prefix: npt.NDArray[np.int64] | FloatArray  # (K, L): prefix sums along each arm's order
    orders: npt.NDArray[np.int32]  # (1 or K, L)
    rank: npt.NDArray[np.int32]  # (K,)
    inverse: FloatArray  # (L,): 1 / float(N * D) (integer scores) or 1 / N (float scores) for N = 1 .. L
    divisors: FloatArray  # (L,): float(N * D) or N where sqrt(a / N) is rational, else 0 (see float_means)
    roots: FloatArray  # (L-1,): float sqrt(a / N)
    squares: npt.NDArray[np.int64]  # (L,): square_roots(a, L)
    decisions: int = 0
    _exact: dict[int, list[int]] = field(default_factory=dict)

    def index(self, arm: int, start: int, stop: int) -> FloatArray:
        """Float indices of *arm* at counts start+1 .. stop, computed as the kernel does (bit for bit)."""
        out = float_means(self.prefix[arm, start:stop], self.inverse[start:stop], self.divisors[start:stop])
        out += self.roots[start:stop]
        return out

    def mean(self, arm: int, count: int) -> Fraction:
        """The exact mean of *arm*'s first *count* scores along its order."""
        return Fraction(self.exact_sum(arm, count), count * self.table.denominator)

    def exact_sum(self, arm: int, count: int) -> int:
        """The exact numerator sum of *arm*'s first *count* scores along its order (the mean is it over N D)."""
        if self.bounds.integer:
            return int(self.prefix[arm, count - 1])
        sums = self._exact.setdefault(arm, [0])  # exact prefix sums, extended as far as asked
        if len(sums) <= count:
            row, total = self.table.numerator_row(arm), sums[-1]
            for query in self.orders[arm if self.orders.shape[0] > 1 else 0, len(sums) - 1 : count].tolist():
                total += row[query]
                sums.append(total)
        return sums[count]

    def compare(self, arm1: int, count1: int, arm2: int, count2: int) -> int:
        """The exact sign of U_arm1(count1) - U_arm2(count2) (one exact decision unless trivially 0)."""
        exact = self.bounds.integer
        if count1 == count2 and exact and self.prefix[arm1, count1 - 1] == self.prefix[arm2, count2 - 1]:
            return 0
        self.decisions += 1
        if count1 == count2:  # equal roots: the sign of the sums' difference (over N D)
            sum1, sum2 = self.exact_sum(arm1, count1), self.exact_sum(arm2, count2)
            return (sum1 > sum2) - (sum1 < sum2)
        mean1, mean2 = self.mean(arm1, count1), self.mean(arm2, count2)
        root1, root2 = int(self.squares[count1 - 1]), int(self.squares[count2 - 1])
        if root1 >= 0 and root2 >= 0:  # both indices rational
            q = self.a.denominator
            value1, value2 = mean1 + Fraction(root1, q * count1), mean2 + Fraction(root2, q * count2)
            return (value1 > value2) - (value1 < value2)
        return compare_indices(mean1, count1, mean2, count2, self.a)


@dataclass(frozen=True)
class _Segment:
    arm: int
    rank: int
    start: int  # first cell (0-based position along the arm)
    stop: int
    count: int  # the count N whose exact index U(N) is the key of these cells
    approx: float


def _window(view: RunView, theta: float) -> tuple[float, float]:
    """The float keys chained to *theta* by gaps <= gap: the smallest closed interval [lo, hi] around it."""
    gap, keys = view.bounds.gap, view.keys
    n_models = keys.shape[0]
    arms = np.arange(n_models, dtype=np.intp)
    width = 64 * gap
    while True:
        top = np.full(n_models, theta + width)
        bottom = np.full(n_models, theta - width)
        first = count_above(keys, arms, top, strict=True)
        last = count_above(keys, arms, bottom, strict=False)
        owner, position = segments(first, last - first)
        values = distinct_sorted(keys[owner, position])
        at = int(np.searchsorted(values, theta))
        breaks = np.flatnonzero(np.diff(values) > gap)
        lo = values[breaks[breaks < at][-1] + 1] if np.any(breaks < at) else values[0]
        hi = values[breaks[breaks >= at][0]] if np.any(breaks >= at) else values[-1]
        if (hi + gap < theta + width and lo - gap > theta - width) or width == math.inf:
            return float(lo), float(hi)
        width = width * 16 if width < 4 else math.inf


def resolve_cut(view: RunView, pulls: int, theta: float) -> IntArray:
    """Pulls per arm among the first *pulls* cells of the exact order; *theta* is the float key of the last one.

    Cells whose float keys chain to *theta* (gaps <= gap) form a window; every
    cell above it is exactly before every window cell, every cell below
    exactly after. Inside the window each arm's exact running minimum is
    followed exactly, which splits its cells into segments of equal key; the
    segments are sorted exactly (value, then rank) and filled in order.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table, random_draws
    >>> from sysrs_ref.fast._ucb import run_view
    >>> table = score_table(Instance([[1, 0, 1, 1], [0, 1, 1, 0]]))
    >>> view = run_view(table, random_draws(2, 1, 2, 4, synchronized=True), Fraction(1))
    >>> theta = float(np.sort(view.keys, axis=None)[::-1][2])  # the float key of the third pull
    >>> resolve_cut(view, 3, theta).tolist()  # budget 2 + 3: model 0 pulled once more, model 1 twice
    [1, 2]
    """
    lo, hi = _window(view, theta)
    keys, n_models = view.keys, view.keys.shape[0]
    arms = np.arange(n_models, dtype=np.intp)
    first = count_above(keys, arms, np.full(n_models, hi), strict=True)
    last = count_above(keys, arms, np.full(n_models, lo), strict=False)
    found: list[_Segment] = []
    for arm in np.flatnonzero(last > first).tolist():
        found.extend(_arm_segments(view, arm, int(first[arm]), int(last[arm])))
    order = sorted(found, key=functools.cmp_to_key(functools.partial(_compare, view)))
    result = first.copy()
    left = pulls - int(first.sum())
    for segment in order:
        take = min(left, segment.stop - segment.start)
        result[segment.arm] += take
        left -= take
        if left == 0:
            break
    if left != 0:
        raise AssertionError(f"resolve_cut: {left} pulls not placed (theta={theta!r})")
    return result


def _arm_segments(view: RunView, arm: int, first: int, last: int) -> list[_Segment]:
    """Split *arm*'s window cells first .. last-1 by changes of the exact running minimum."""
    gap, rank = view.bounds.gap, int(view.rank[arm])
    approx = view.index(arm, first, last)
    # A cell can lower the exact minimum only if its float index is near or below the float one.
    near = approx[1:] <= view.keys[arm, first : last - 1] + 2 * gap
    start, best, best_approx = first, first, float(approx[0])
    out = []
    for offset in (np.flatnonzero(near) + 1).tolist():
        position, value = first + offset, float(approx[offset])
        if value > best_approx + gap:
            continue
        if value >= best_approx - gap and view.compare(arm, position + 1, arm, best + 1) >= 0:
            continue
        out.append(_Segment(arm, rank, start, position, best + 1, best_approx))
        start, best, best_approx = position, position, value
    out.append(_Segment(arm, rank, start, last, best + 1, best_approx))
    return out


def _compare(view: RunView, x: _Segment, y: _Segment) -> int:
    """-1 when segment x is pulled before y: larger exact key, then smaller rank, then earlier cell."""
    difference = x.approx - y.approx
    if difference > view.bounds.gap:
        return -1
    if difference < -view.bounds.gap:
        return 1
    sign = view.compare(x.arm, x.count, y.arm, y.count)
    if sign != 0:
        return -sign
    return -1 if x.rank < y.rank else 1  # an arm's own segments never tie: their keys decrease


def resolve_ranking(view: RunView, ranking: IntArray, means: FloatArray, counts: IntArray) -> IntArray:
    """Re-sort, exactly, each chain of models whose float means are within ``mean_tol`` of the next.

    *ranking* is the float order (means decreasing, ties by rank); *means* and
    *counts* are indexed by model. Models outside a chain are already in their
    exact place (their float means are further apart than twice the error).

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table, random_draws
    >>> from sysrs_ref.fast._ucb import run_view
    >>> draws = random_draws(3, 1, 2, 2, synchronized=True)  # arm priority (1, 0)
    >>> view = run_view(score_table(Instance([[1, 0], [0, 1]])), draws, Fraction(1))
    >>> resolve_ranking(view, np.array([0, 1]), np.array([0.5, 0.5]), np.array([2, 2])).tolist()
    [1, 0]
    """
    ordered = means[ranking]
    near = (ordered[:-1] - ordered[1:] <= view.bounds.mean_tol).tolist()
    result = ranking.copy()
    link = 0
    while link < len(near):
        if not near[link]:
            link += 1
            continue
        end = link
        while end < len(near) and near[end]:
            end += 1
        chain = result[link : end + 1].tolist()  # models link .. end are chained
        view.decisions += end - link
        chain.sort(key=lambda m: (-view.mean(m, int(counts[m])), int(view.rank[m])))
        result[link : end + 1] = chain
        link = end
    return result
