"""Exact outcome distributions of the unsynchronized algorithms US, SR and UCB-E.

Each model follows its own uniform query order, independently of the others,
and sees it only through the *values* it reveals: a row is a multiset of
values, and a model's first m values form a uniform m-sub-multiset (weights
prod_v C(c_v, k_v) / C(L, m)). The engines use the independence of the rows
instead of enumerating the joint draw:

- US: each model's sum over floor(n/K) values has an exact law; the winner is
  the largest sum, a tie among T models won by each with probability 1/|T|.
- SR: each model's *trajectory* (its sums at the checkpoints n_1, ..., n_{K-1})
  has an exact law. The phases are then resolved by conditioning on which
  model is eliminated and at which sum t: the other models stay independent,
  each restricted to trajectories that beat t (strictly, or tied and earlier
  in the priority), so the state stays a product of per-model laws.
- UCB-E: a forward DP over steps on the joint state (values used by each
  model), merged, with the priority kept lazily.

Public entry point: :func:`sysrs_ref.theory.exact.outcome_distribution`.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from fractions import Fraction
from math import comb, factorial

from sysrs_ref.algorithms.ucb_index import compare_indices
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import schedule
from sysrs_ref.theory._exact_common import (
    EXACT_COUNT_MAX,
    Perms,
    all_perms,
    best_by_mean,
    count_submultisets,
    split_first,
    split_last,
    submultisets,
)

__all__ = [
    "row_types",
    "sr_distribution",
    "sr_size",
    "ucbe_distribution",
    "ucbe_size",
    "us_distribution",
    "us_size",
]

Distribution = dict[int, Fraction]
Law = dict[tuple[int, ...], int]
Counts = dict[int, int]


def row_types(instance: Instance, model: int) -> tuple[list[int], tuple[int, ...]]:
    """The distinct values (integer numerators) of a row and their multiplicities.

    >>> row_types(Instance([[1, 0, 1], [0, 0, 0]]), 0)
    ([1, 0], (2, 1))
    """
    values = Counter(instance.numerators[model])
    kinds = list(values)
    return kinds, tuple(values[v] for v in kinds)


def _add(out: Distribution, model: int, p: Fraction) -> None:
    out[model] = out.get(model, Fraction(0)) + p


# -- US ------------------------------------------------------------------------------------


def us_size(instance: Instance, budget: int) -> int:
    """Cases US enumerates: per model, multisets of floor(n/K) of its values."""
    per_model = budget // instance.n_models
    return (
        sum(count_submultisets(row_types(instance, i)[1], per_model) for i in range(instance.n_models))
        * instance.n_models
    )


def _sum_law(kinds: list[int], counts: tuple[int, ...], size: int) -> dict[int, Fraction]:
    total = comb(sum(counts), size)
    law: dict[int, Fraction] = {}
    for taken, weight in submultisets(counts, size):
        s = sum(k * v for k, v in zip(taken, kinds, strict=True))
        law[s] = law.get(s, Fraction(0)) + Fraction(weight, total)
    return law


def us_distribution(instance: Instance, budget: int) -> Distribution:
    """Exact law of the model US returns (independent sums; ties won uniformly).

    P(i wins) = sum_s P(S_i = s) E[1 / (1 + J)], J the number of other models
    with sum s, all others at most s. With b_k = P(S_k < s) and
    e_k = P(S_k = s), E[1 / (1 + J)] = integral over t in [0, 1] of
    prod_{k != i} (b_k + e_k t), since 1 / (1 + J) = integral of t^J. For one
    s the models with e_k = 0 give a constant factor; the product F over the
    others (E_s) is made once, and each i in E_s divides its own factor out
    of it, exactly (integer weights, synthetic division). So the work is
    O(V K + sum_s |E_s|^2) <= O(N K) exact operations, V the distinct sums and
    N = sum_s |E_s| the sum of the K laws' sizes: :func:`us_size` counts N K.
    """
    n_models = instance.n_models
    per_model = budget // n_models
    laws = [_sum_law(*row_types(instance, i), per_model) for i in range(n_models)]
    scales = [math.lcm(*(p.denominator for p in law.values())) for law in laws]
    weights = [{value: int(p * scale) for value, p in law.items()} for law, scale in zip(laws, scales, strict=True)]
    below = [0] * n_models  # each model's weight below the current sum s
    everyone = math.prod(scales)
    wins: dict[int, Fraction] = {}
    for s in sorted({value for law in weights for value in law}):
        tied = [k for k in range(n_models) if s in weights[k]]
        constant = math.prod(below[k] for k in range(n_models) if s not in weights[k])
        if constant:
            product = [1]  # F(t) = prod over the tied models of (below + equal t), lowest degree first
            for k in tied:
                equal = weights[k][s]
                product = [
                    (product[j] * below[k] if j < len(product) else 0) + (product[j - 1] * equal if j else 0)
                    for j in range(len(product) + 1)
                ]
            common = math.lcm(*range(1, len(tied) + 1))  # the integral's denominators 1 .. |E_s|
            for i in tied:
                others = _divided(product, below[i], weights[i][s])  # prod over the other tied models
                integral = sum(q * (common // (j + 1)) for j, q in enumerate(others))  # x common
                share = Fraction(weights[i][s] * constant * integral, common * everyone)
                wins[i] = wins.get(i, Fraction(0)) + share
        for k in tied:
            below[k] += weights[k][s]
    return {model: wins[model] for model in sorted(wins)}


def _divided(product: list[int], constant: int, slope: int) -> list[int]:
    """The polynomial *product* / (constant + slope t), exactly (it divides; slope > 0), lowest degree first."""
    quotient = [0] * (len(product) - 1)
    carry = 0
    for j in range(len(product) - 1, 0, -1):  # from the top: q_{j-1} = (f_j - constant q_j) / slope
        quotient[j - 1], left = divmod(product[j] - constant * carry, slope)
        if left:  # pragma: no cover - a factor of the product always divides it
            raise AssertionError("a US sum law's factor does not divide the product of the factors")
        carry = quotient[j - 1]
    return quotient


# -- SR ------------------------------------------------------------------------------------


def _trajectory_law(kinds: list[int], counts: tuple[int, ...], lengths: tuple[int, ...]) -> Law:
    """Law of a model's sums after n_1, ..., n_{K-1} of its own values, as integer weights.

    A weight counts the sequences of query sets (one per phase) giving the
    trajectory; they sum to prod_k C(L - n_{k-1}, n_k - n_{k-1}).
    """
    states: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {(counts, ()): 1}
    seen = 0
    for n_k in lengths:
        block = n_k - seen
        seen = n_k
        new: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        for (rem, sums), p in states.items():
            last = sums[-1] if sums else 0
            for taken, weight in submultisets(rem, block):
                key = (
                    tuple(r - k for r, k in zip(rem, taken, strict=True)),
                    sums + (last + sum(k * v for k, v in zip(taken, kinds, strict=True)),),
                )
                new[key] = new.get(key, 0) + p * weight
        states = new
    law: Law = {}
    for (_, sums), p in states.items():
        law[sums] = law.get(sums, 0) + p
    return law


def sr_size(instance: Instance, budget: int, cap: int | None = None) -> int:
    """Upper bound on the SR search: per phase (models) x (their possible sums) x (tie patterns).

    Each phase k < K-1 branches on the eliminated model, its sum (at most the
    number of n_k-sub-multisets of its row) and the set of models tied with
    it; the last phase is one pass over the final sums. The per-model
    trajectory laws are counted too.

    With *cap*, counting stops as soon as the running count passes it: the
    number returned is then more than *cap* and at most the size (every factor
    is at least 1), so a refusal costs a few phases of O(K) work instead of
    the O(K^2) products of K^2 / 2 bits that the whole size takes on a large K.
    Within *cap* the size is exact.

    >>> inst = Instance([[1, 1, 0], [1, 0, 1], [0, 0, 1]])
    >>> sr_size(inst, 6), sr_size(inst, 6, cap=10)  # n = (1, 2): 3 x 2 x 2^2 x 2 + 12 trajectories; 24 passes 10
    (60, 24)
    """
    n_models = instance.n_models
    lengths = schedule(n_models, instance.n_queries, budget)
    rows = [row_types(instance, i)[1] for i in range(n_models)]
    size = 1
    for k, n_k in enumerate(lengths[:-1]):
        active = n_models - k
        sums = max(count_submultisets(row, n_k) for row in rows)
        size *= active * sums << (active - 1)  # x 2^(active - 1) tie patterns
        if cap is not None and size > cap:
            return size
    size *= max(count_submultisets(row, lengths[-1]) for row in rows)
    for row in rows:
        if cap is not None and size > cap:
            break
        size += _trajectory_count(row, lengths)
    return size


def _trajectory_count(row: tuple[int, ...], lengths: tuple[int, ...]) -> int:
    total, seen = 1, 0
    for n_k in lengths:
        total *= max(1, count_submultisets(row, n_k - seen))
        seen = n_k
    return total


def sr_distribution(instance: Instance, budget: int) -> Distribution:
    """Exact law of the model SR returns, resolving phases on per-model trajectory laws."""
    n_models = instance.n_models
    lengths = schedule(n_models, instance.n_queries, budget)
    laws = {i: _trajectory_law(*row_types(instance, i), lengths) for i in range(n_models)}
    total = factorial(n_models)
    for law in laws.values():
        total *= sum(law.values())
    return {model: Fraction(w, total) for model, w in _sr_phase(laws, all_perms(n_models)).items()}


def _split(law: Law) -> list[tuple[int, Law, Law]]:
    """For each value t of the first coordinate: (t, law of the rest given x = t, given x > t).

    Both laws are joint (not normalised) and drop the first coordinate.
    """
    by_first: dict[int, Law] = {}
    for traj, p in law.items():
        given = by_first.setdefault(traj[0], {})
        given[traj[1:]] = given.get(traj[1:], 0) + p
    out: list[tuple[int, Law, Law]] = []
    above: Law = {}
    for t in sorted(by_first, reverse=True):
        out.append((t, by_first[t], above))
        above = dict(above)
        for rest, weight in by_first[t].items():
            above[rest] = above.get(rest, 0) + weight
    return out


def _sr_last(laws: dict[int, Law], perms: Perms) -> Counts:
    """The last phase: two models, laws over their final sum; ties to the earlier priority.

    Returns weights times priorities: sum of law weights x consistent priorities.
    """
    first, second = sorted(laws)
    law_a = {traj[0]: p for traj, p in laws[first].items()}
    law_b = {traj[0]: p for traj, p in laws[second].items()}
    ahead = sum(1 for rank in perms if rank[first] < rank[second])
    win_a = 0
    total_b = sum(law_b.values())
    below_b = 0  # mass of b strictly below the current value of a
    values_b = sorted(law_b)
    index = 0
    for x in sorted(law_a):
        while index < len(values_b) and values_b[index] < x:
            below_b += law_b[values_b[index]]
            index += 1
        win_a += law_a[x] * (below_b * len(perms) + law_b.get(x, 0) * ahead)
    total_a = sum(law_a.values())
    return {first: win_a, second: total_a * total_b * len(perms) - win_a}


def _sr_phase(laws: dict[int, Law], perms: Perms) -> Counts:
    """Winner weights given independent trajectory laws of the active models and priorities *perms*.

    The weight of a winner sums, over its joint trajectories and consistent
    priorities, the product of the law weights (one per active model).
    """
    active = sorted(laws)
    out: Counts = {}
    if len(active) == 1:
        (winner,) = active
        return {winner: sum(laws[winner].values()) * len(perms)}
    if len(active) == 2 and all(len(traj) == 1 for law in laws.values() for traj in law):
        return _sr_last(laws, perms)
    splits = {j: {t: (level, above) for t, level, above in _split(laws[j])} for j in active}
    for loser in active:
        others = [i for i in active if i != loser]
        for t, (level_loser, _) in splits[loser].items():
            mass = sum(level_loser.values())
            above: dict[int, Law] = {}
            level: dict[int, Law] = {}
            for j in others:
                cut = _cut(splits[j], t)
                level[j], above[j] = cut
            for mask in range(2 ** len(others)):
                tied = [j for b, j in enumerate(others) if mask >> b & 1]
                chosen = {j: (level[j] if j in tied else above[j]) for j in others}
                if any(not law for law in chosen.values()):
                    continue
                part = split_last(perms, [loser, *tied]).get(loser)
                if not part:
                    continue
                for winner, q in _sr_phase(chosen, part).items():
                    out[winner] = out.get(winner, 0) + mass * q
    return out


def _cut(split: dict[int, tuple[Law, Law]], t: int) -> tuple[Law, Law]:
    """(law given x = t, law given x > t) from a model's split, for any t."""
    if t in split:
        return split[t]
    above = [value for value in split if value > t]
    if not above:
        return {}, {}
    lowest = min(above)
    level, higher = split[lowest]
    merged = dict(higher)
    for rest, p in level.items():
        merged[rest] = merged.get(rest, 0) + p
    return {}, merged


# -- UCB-E ---------------------------------------------------------------------------------


def ucbe_size(instance: Instance, budget: int) -> int:
    """Upper bound on the UCB-E step DP: sum over steps of the joint states, times K! priorities.

    The joint states after t steps are at most the tuples of sub-multisets
    (one per row, each of size >= 1) of total size K + t: the coefficient of
    z^(K+t) in prod_i sum_{N>=1} (#N-sub-multisets of row i) z^N.
    """
    n_models, n_queries = instance.shape
    if n_models * n_queries > EXACT_COUNT_MAX:  # far too large anyway: a cheap, crude bound
        crude: int = (budget - n_models + 1) * 2 ** (n_models * n_queries) * factorial(n_models)
        return crude
    poly = [1]
    for i in range(n_models):
        row = row_types(instance, i)[1]
        factor = [0] + [count_submultisets(row, size) for size in range(1, sum(row) + 1)]
        poly = [
            sum(poly[j] * factor[d - j] for j in range(len(poly)) if 0 <= d - j < len(factor))
            for d in range(len(poly) + len(factor) - 1)
        ]
    states = sum(poly[n_models : budget + 1])
    return states * factorial(n_models)


def ucbe_distribution(instance: Instance, budget: int, a: Fraction) -> Distribution:
    """Exact law of the model UCB-E returns, by a forward DP over steps on merged joint states.

    State: for each model, the multiset of its values used so far (which fixes
    N_i, its sum and the law of its next value), and the consistent
    priorities. Each step, the model with the largest index mean + sqrt(a/N)
    (exact comparison; a model with N = L is not selectable; a tie splits the
    priorities by the tied model first in them) draws its next value.
    """
    n_models, n_queries = instance.shape
    scale = instance.denominator
    rows = [row_types(instance, i) for i in range(n_models)]

    @functools.cache
    def cmp_index(s1: int, n1: int, s2: int, n2: int) -> int:
        return compare_indices(Fraction(s1, scale * n1), n1, Fraction(s2, scale * n2), n2, a)

    def stats(i: int, used: tuple[int, ...]) -> tuple[int, int]:
        kinds = rows[i][0]
        return sum(used), sum(k * v for k, v in zip(used, kinds, strict=True))

    # weights count (priority, orders) pairs: probability = weight / (K! (L!)^K), kept integral
    total = factorial(n_models) * factorial(n_queries) ** n_models
    State = tuple[tuple[tuple[int, ...], ...], Perms]
    states: dict[State, int] = {((), all_perms(n_models)): total}
    for i in range(n_models):  # warm-up: each model's first value
        _kinds, counts = rows[i]
        new: dict[State, int] = {}
        for (used_all, perms), p in states.items():
            for t, c in enumerate(counts):
                used = tuple(int(u == t) for u in range(len(counts)))
                key = (used_all + (used,), perms)
                new[key] = new.get(key, 0) + p // n_queries * c
        states = new
    for _ in range(budget - n_models):
        new = {}
        for (used_all, perms), p in states.items():
            info = [stats(i, used_all[i]) for i in range(n_models)]
            selectable = [i for i in range(n_models) if info[i][0] < n_queries]
            if not selectable:
                new[(used_all, perms)] = new.get((used_all, perms), 0) + p
                continue
            best = [selectable[0]]
            for i in selectable[1:]:
                j = best[0]
                sign = cmp_index(info[i][1], info[i][0], info[j][1], info[j][0])
                if sign > 0:
                    best = [i]
                elif sign == 0:
                    best.append(i)
            for model, part in split_first(perms, best).items():
                q = p // len(perms) * len(part)
                counts = rows[model][1]
                used = used_all[model]
                left = n_queries - info[model][0]
                for t, c in enumerate(counts):
                    if c > used[t]:
                        bumped = used[:t] + (used[t] + 1,) + used[t + 1 :]
                        key = (used_all[:model] + (bumped,) + used_all[model + 1 :], part)
                        new[key] = new.get(key, 0) + q // left * (c - used[t])
        states = new
    out: Distribution = {}
    for (used_all, perms), p in states.items():
        info = [stats(i, used_all[i]) for i in range(n_models)]
        best = best_by_mean([count for count, _ in info], [total_sum for _, total_sum in info])
        for winner, part in split_first(perms, best).items():
            _add(out, winner, Fraction(p // len(perms) * len(part), total))
    return out
