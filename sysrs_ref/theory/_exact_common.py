"""Shared pieces of the exact error-probability engine (:mod:`sysrs_ref.theory.exact`).

- *Priorities are kept lazily*: instead of looping over the K! arm priorities,
  a branch of the enumeration carries the set of priorities (as rank tuples,
  ``rank[model]``) still consistent with the tie-breaks it has made. A uniform
  priority conditioned on such a set is uniform on it, so a tie among models T
  splits the set by which model of T comes first (or last) in the priority,
  each part with probability |part| / |set|. Instances without ties never split.
- *Multisets*: a without-replacement draw of b items from counts ``rem`` gives
  the multiset k with probability prod_t C(rem_t, k_t) / C(sum rem, b)
  (multivariate hypergeometric); only multisets matter where the algorithm
  only uses sums.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from math import comb

__all__ = [
    "EXACT_COUNT_MAX",
    "Perms",
    "all_perms",
    "best_by_mean",
    "count_submultisets",
    "count_submultisets_upto",
    "split_first",
    "split_last",
    "submultisets",
]

#: Above this many items, counts of sub-multisets are bounded by binomials (cheap) instead.
EXACT_COUNT_MAX = 64

#: A set of arm priorities, each given as ``rank`` (``rank[model]`` = position, 0 = wins ties).
Perms = frozenset[tuple[int, ...]]


def best_by_mean(counts: Sequence[int], sums: Sequence[int]) -> list[int]:
    """The models with the largest empirical mean sums[i] / counts[i], compared exactly by cross-multiplying.

    The UCB family's final choice (before the priority breaks ties): every
    count is positive.

    >>> best_by_mean([2, 4, 1], [1, 2, 1]), best_by_mean([2, 4], [1, 2])
    ([2], [0, 1])
    """
    best = [0]
    for model in range(1, len(counts)):
        lhs, rhs = sums[model] * counts[best[0]], sums[best[0]] * counts[model]
        if lhs > rhs:
            best = [model]
        elif lhs == rhs:
            best.append(model)
    return best


def all_perms(n_models: int) -> Perms:
    """Every arm priority of K models, as rank tuples.

    >>> sorted(all_perms(2))
    [(0, 1), (1, 0)]
    """
    return frozenset(itertools.permutations(range(n_models)))


def split_first(perms: Perms, models: Sequence[int]) -> dict[int, Perms]:
    """Split *perms* by which of *models* comes first in the priority (wins the tie).

    >>> {m: len(p) for m, p in split_first(all_perms(3), [0, 2]).items()}
    {0: 3, 2: 3}
    """
    if len(models) == 1:
        return {models[0]: perms}
    return _split(perms, tuple(models), False)


def split_last(perms: Perms, models: Sequence[int]) -> dict[int, Perms]:
    """Split *perms* by which of *models* comes last in the priority (is eliminated on a tie).

    >>> {m: len(p) for m, p in split_last(all_perms(3), [0, 1, 2]).items()}
    {0: 2, 1: 2, 2: 2}
    """
    if len(models) == 1:
        return {models[0]: perms}
    return _split(perms, tuple(models), True)


@functools.lru_cache(maxsize=65536)
def _split(perms: Perms, models: tuple[int, ...], last: bool) -> dict[int, Perms]:
    parts: dict[int, set[tuple[int, ...]]] = {}
    for rank in perms:
        ranks = [rank[m] for m in models]
        pick = models[ranks.index(max(ranks) if last else min(ranks))]
        parts.setdefault(pick, set()).add(rank)
    return {model: frozenset(part) for model, part in sorted(parts.items())}


def submultisets(rem: Sequence[int], size: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every multiset k <= rem with |k| = size, with its weight prod_t C(rem_t, k_t).

    The weights sum to C(sum rem, size) (Vandermonde).

    >>> list(submultisets((2, 1), 2))
    [((2, 0), 1), ((1, 1), 2)]
    """
    n_types = len(rem)
    suffix = [0] * (n_types + 1)
    for t in range(n_types - 1, -1, -1):
        suffix[t] = suffix[t + 1] + rem[t]

    def rec(t: int, left: int) -> Iterator[tuple[tuple[int, ...], int]]:
        if t == n_types:
            if left == 0:
                yield (), 1
            return
        low = max(0, left - suffix[t + 1])
        for k in range(min(rem[t], left), low - 1, -1):
            for rest, weight in rec(t + 1, left - k):
                yield (k, *rest), comb(rem[t], k) * weight

    if size < 0 or size > suffix[0]:
        return iter(())
    return rec(0, size)


def count_submultisets(rem: Sequence[int], size: int) -> int:
    """The number of multisets k <= rem with |k| = size (coefficient of z^size in prod (1+..+z^rem_t)).

    >>> count_submultisets((2, 1), 2), count_submultisets((1,) * 7, 3)
    (2, 35)
    """
    total = sum(rem)
    if total > EXACT_COUNT_MAX:  # cheap bound for large rows: at most the size-subsets
        return comb(total, size) if 0 <= size <= total else 0
    poly = [1]
    for count in rem:
        new = [0] * (len(poly) + count)
        for degree, value in enumerate(poly):
            for extra in range(count + 1):
                new[degree + extra] += value
        poly = new
    return poly[size] if 0 <= size < len(poly) else 0


def count_submultisets_upto(rem: Sequence[int]) -> int:
    """The number of multisets k <= rem of any size: prod_t (rem_t + 1).

    >>> count_submultisets_upto((2, 1))
    6
    """
    total = 1
    for count in rem:
        total *= count + 1
    return total
