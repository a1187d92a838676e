"""Exact outcome distributions of the synchronized algorithms SyUS, SySRs (Algorithm 1) and SyUCB-E.

The draw is a uniform shared query order and a uniform arm priority. A
synchronized algorithm sees the order only through the sequence of *columns*
(S_1j, ..., S_Kj) it reveals, so queries with equal columns are merged into
one *column type* with a multiplicity, and the enumeration runs over
sequences (or, where the algorithm only sums a block, multisets) of column
types, each with its without-replacement probability. The priority is kept
lazily (:mod:`sysrs_ref.theory._exact_common`): a branch splits only at an
actual tie. Public entry point: :func:`sysrs_ref.theory.exact.outcome_distribution`.
"""

from __future__ import annotations

import functools
from collections import Counter
from fractions import Fraction
from math import comb, factorial

from sysrs_ref.algorithms.ucb_index import compare_indices
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import schedule
from sysrs_ref.theory._exact_common import (
    Perms,
    all_perms,
    best_by_mean,
    count_submultisets,
    split_first,
    split_last,
    submultisets,
)

__all__ = [
    "column_types",
    "syucbe_distribution",
    "syucbe_size",
    "sysrs_distribution",
    "sysrs_size",
    "syus_distribution",
    "syus_size",
]

Distribution = dict[int, Fraction]


def column_types(instance: Instance) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    """The distinct columns of integer numerators (S_ij * D) and how many queries have each.

    >>> column_types(Instance([[1, 0, 1], [0, 1, 0]]))
    ([(1, 0), (0, 1)], (2, 1))
    """
    columns = Counter(zip(*instance.numerators, strict=True))
    types = list(columns)
    return types, tuple(columns[t] for t in types)


def _add(out: Distribution, model: int, p: Fraction) -> None:
    out[model] = out.get(model, Fraction(0)) + p


# -- SyUS ----------------------------------------------------------------------------


def syus_size(instance: Instance, budget: int) -> int:
    """Cases SyUS enumerates: multisets of floor(n/K) column types."""
    _, counts = column_types(instance)
    return count_submultisets(counts, budget // instance.n_models)


def syus_distribution(instance: Instance, budget: int) -> Distribution:
    """Exact law of the model SyUS returns: one multiset of floor(n/K) shared columns.

    The largest sum wins; a tie among T models goes to the one first in a
    uniform priority, each with probability 1/|T|.
    """
    types, counts = column_types(instance)
    per_model = budget // instance.n_models
    total = comb(instance.n_queries, per_model)
    out: Distribution = {}
    for multiset, weight in submultisets(counts, per_model):
        sums = [sum(k * types[t][i] for t, k in enumerate(multiset) if k) for i in range(instance.n_models)]
        top = max(sums)
        tied = [i for i, s in enumerate(sums) if s == top]
        for model in tied:
            _add(out, model, Fraction(weight, total * len(tied)))
    return out


# -- SySRs ----------------------------------------------------------------------------


def sysrs_size(instance: Instance, budget: int) -> int:
    """Upper bound on the branches of the SySRs phase DP: block multisets times K! priority splits."""
    _, counts = column_types(instance)
    lengths = schedule(instance.n_models, instance.n_queries, budget)
    size, seen = 1, 0
    for n_k in lengths:
        size *= max(1, count_submultisets(counts, n_k - seen))
        seen = n_k
    return size * factorial(instance.n_models)


def sysrs_distribution(instance: Instance, budget: int) -> Distribution:
    """Exact law of the model SySRs (Algorithm 1) returns, by a forward DP over phases.

    State after a phase: the multiset of column types not used yet (which fixes
    every model's sum), the active models, and the consistent priorities.
    Phase k draws a multiset of n_k - n_{k-1} column types; the lowest sum is
    eliminated, a tie going to the tied model last in the priority.
    """
    types, counts = column_types(instance)
    n_models = instance.n_models
    lengths = schedule(n_models, instance.n_queries, budget)
    State = tuple[tuple[int, ...], tuple[int, ...], Perms]
    states: dict[State, Fraction] = {(counts, tuple(range(n_models)), all_perms(n_models)): Fraction(1)}
    seen = 0
    for n_k in lengths:
        block = n_k - seen
        seen = n_k
        new: dict[State, Fraction] = {}
        for (rem, active, perms), p in states.items():
            remaining = sum(rem)
            draws = list(submultisets(rem, block)) if block else [((0,) * len(rem), 1)]
            for taken, weight in draws:
                left = tuple(r - k for r, k in zip(rem, taken, strict=True))
                sums = {
                    i: sum((c - r) * types[t][i] for t, (c, r) in enumerate(zip(counts, left, strict=True)))
                    for i in active
                }
                low = min(sums.values())
                tied = [i for i in active if sums[i] == low]
                q = p * Fraction(weight, comb(remaining, block))
                for loser, part in split_last(perms, tied).items():
                    key = (left, tuple(i for i in active if i != loser), part)
                    new[key] = new.get(key, Fraction(0)) + q * Fraction(len(part), len(perms))
        states = new
    out: Distribution = {}
    for (_, active, _), p in states.items():
        _add(out, active[0], p)
    return out


# -- SyUCB-E ---------------------------------------------------------------------------


def syucbe_size(instance: Instance, budget: int) -> int:
    """Upper bound on the SyUCB-E DP: steps x revealed sequences (<= min(L, n-K+1) column types) x K!."""
    n_models, n_queries = instance.shape
    depth = min(n_queries, budget - n_models + 1)
    _, counts = column_types(instance)
    sequences = _count_sequences(counts, depth)
    return sequences * factorial(n_models) * max(1, budget - n_models + 1)


def _count_sequences(counts: tuple[int, ...], depth: int) -> int:
    """Distinct sequences of column types of length <= depth (without replacement).

    Exact for up to 12 queries; above, the number of sequences of distinct queries
    (sum of L! / (L - l)!), an upper bound computed in O(depth).
    """
    n_queries = sum(counts)
    if n_queries > 12:
        total, term = 1, 1
        for length in range(depth):
            term *= n_queries - length
            total += term
        return total

    @functools.cache
    def nodes(rem: tuple[int, ...], left: int) -> int:
        if left == 0:
            return 1
        total = 1
        for t, c in enumerate(rem):
            if c:
                total += nodes(rem[:t] + (c - 1,) + rem[t + 1 :], left - 1)
        return total

    return nodes(counts, depth)


def syucbe_distribution(instance: Instance, budget: int, a: Fraction) -> Distribution:
    """Exact law of the model SyUCB-E returns, by a forward DP over steps on merged states.

    A model's N-th evaluation is on position N-1 of the shared order, so the
    DP reveals the column at a position the first time a model needs it,
    branching over the remaining column types. State: every model's count N_i
    and sum, the revealed column types from position min N_i on (earlier ones
    only matter through the sums), the unrevealed multiset, and the consistent
    priorities. Indices mean + sqrt(a/N) are compared exactly
    (:func:`~sysrs_ref.algorithms.ucb_index.compare_indices`); a tie (in the
    index, or in the final mean) splits the priorities by the tied model first
    in them.
    """
    types, counts = column_types(instance)
    n_models, n_queries = instance.shape
    scale = instance.denominator

    @functools.cache
    def cmp_index(s1: int, n1: int, s2: int, n2: int) -> int:
        return compare_indices(Fraction(s1, scale * n1), n1, Fraction(s2, scale * n2), n2, a)

    # state: (counts N, sums, window = revealed types from position min(N), unrevealed, perms)
    State = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], Perms]
    # weights count (priority, order) pairs: probability = weight / (K! L!), kept integral
    total = factorial(n_models) * factorial(n_queries)
    states: dict[State, int] = {}
    for t, c in enumerate(counts):  # warm-up: every model on position 0
        rem = counts[:t] + (c - 1,) + counts[t + 1 :]
        start: State = ((1,) * n_models, types[t], (), rem, all_perms(n_models))
        states[start] = total // n_queries * c

    for _ in range(budget - n_models):
        new: dict[State, int] = {}
        for (ns, sums, window, rem, perms), p in states.items():
            selectable = [i for i in range(n_models) if ns[i] < n_queries]
            if not selectable:
                key = (ns, sums, window, rem, perms)
                new[key] = new.get(key, 0) + p
                continue
            best = [selectable[0]]
            for i in selectable[1:]:
                sign = cmp_index(sums[i], ns[i], sums[best[0]], ns[best[0]])
                if sign > 0:
                    best = [i]
                elif sign == 0:
                    best.append(i)
            low = min(ns)
            for model, part in split_first(perms, best).items():
                q = p // len(perms) * len(part)
                offset = ns[model] - low
                if offset < len(window):
                    options = [(window, rem, q)]
                else:
                    remaining = sum(rem)
                    options = [
                        (window + (t,), rem[:t] + (c - 1,) + rem[t + 1 :], q // remaining * c)
                        for t, c in enumerate(rem)
                        if c
                    ]
                for win, left, r in options:
                    column = types[win[offset]]
                    new_ns = ns[:model] + (ns[model] + 1,) + ns[model + 1 :]
                    new_sums = sums[:model] + (sums[model] + column[model],) + sums[model + 1 :]
                    drop = min(new_ns) - low
                    key = (new_ns, new_sums, win[drop:], left, part)
                    new[key] = new.get(key, 0) + r
        states = new

    out: Distribution = {}
    for (ns, sums, _, _, perms), p in states.items():
        for winner, part in split_first(perms, best_by_mean(ns, sums)).items():
            _add(out, winner, Fraction(p // len(perms) * len(part), total))
    return out
