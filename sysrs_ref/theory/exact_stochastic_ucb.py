"""Exact law of the model SyUCB-E returns on a small stochastic instance (S_ij ~ phi_ij), by a forward DP over steps.

A stochastic run evaluates each cell at most once, so it is the deterministic
run of SyUCB-E (Appendix "Algorithms", Algorithm SyUCB-E) on the realised
matrix; model i's N-th evaluation is on position N - 1 of the shared uniform
order sigma. The DP of :func:`sysrs_ref.theory.exact_sync.syucbe_distribution`
reveals the query at a position the first time a model reaches it; here it
reveals only the position's *query type* (queries with equal column laws
(phi_1j, ..., phi_Kj) merged, drawn without replacement from the remaining
multiplicities), and each evaluation then branches on the cell's outcome,
drawn from phi_ij of that type (cells are independent, and each is evaluated
once, so the outcome is independent of everything seen before). The
:func:`sysrs_ref.theory.exact_stochastic.mixture_law` computes the same law by
calling the deterministic engine once per column multiset, which is far slower.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from math import comb, factorial, prod

from sysrs_ref.algorithms.ucb_index import compare_indices
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory._exact_common import Perms, all_perms, best_by_mean, split_first
from sysrs_ref.theory.exact_stochastic import Law, _Columns
from sysrs_ref.theory.exact_sync import _count_sequences

__all__ = ["syucbe_law", "syucbe_size"]

#: What a step's decision depends on: (counts N_i, sums as integer numerators, consistent priorities).
_Decision = tuple[tuple[int, ...], tuple[int, ...], Perms]
#: What the scores' laws depend on: (window = revealed query types from position min N_i on, types not revealed).
_Types = tuple[tuple[int, ...], tuple[int, ...]]


def syucbe_law(instance: StochasticInstance, budget: int, a: Fraction) -> Law:
    """Exact law of the model SyUCB-E returns with exploration *a*, over the uniform draw and the laws phi_ij.

    State after each step: every model's count N_i and sum (an integer
    numerator over the levels' common denominator), the query types revealed
    at positions min N_i .. max N_i - 1 (earlier ones matter only through the
    sums; later ones are not revealed), the multiset of types not revealed,
    and the consistent priorities (kept lazily,
    :mod:`sysrs_ref.theory._exact_common`). A step evaluates the selectable
    model (N_i < L) with the largest index mu_i + sqrt(a / N_i), compared
    exactly (:func:`~sysrs_ref.algorithms.ucb_index.compare_indices`; a tie
    goes to the tied model first in the priority), on position N_i: if no
    model has reached it, its type is drawn with probability proportional to
    its remaining multiplicity; then the score is drawn from that type's
    phi_ij. At the budget the largest mean is returned (a tie: first in the
    priority), as :func:`~sysrs_ref.algorithms.base.rank_by_mean` does.
    Weights are integers counting (priority, order, outcome) combinations
    over K! L! D^n, D the probabilities' common denominator. *budget* and
    *a* are taken as checked (use :func:`sysrs_ref.theory.exact.outcome_distribution`).

    >>> from fractions import Fraction as F
    >>> inst = StochasticInstance.bernoulli([[F(3, 4), F(3, 4)], [F(1, 2), F(1, 2)]])
    >>> syucbe_law(inst, 2, F(1))   # the warm-up only: 1 - P(S_0 < S_1) - P(tie) / 2
    {0: Fraction(5, 8), 1: Fraction(3, 8)}
    """
    n_models, n_queries = instance.shape
    columns = _Columns(instance)
    types, counts, scale = columns.types, columns.counts, columns.scale

    @functools.cache
    def cmp_index(s1: int, n1: int, s2: int, n2: int) -> int:
        return compare_indices(Fraction(s1, scale * n1), n1, Fraction(s2, scale * n2), n2, a)

    @functools.cache
    def selected(ns: tuple[int, ...], sums: tuple[int, ...]) -> tuple[int, ...]:
        best: list[int] = []  # the selectable models with the largest index (several on an exact tie)
        for i in range(n_models):
            if ns[i] < n_queries:
                sign = cmp_index(sums[i], ns[i], sums[best[0]], ns[best[0]]) if best else 1
                if sign > 0:
                    best = [i]
                elif sign == 0:
                    best.append(i)
        return tuple(best)

    @functools.cache
    def moves(types_key: _Types, offset: int, drop: int) -> tuple[tuple[_Types, int, int, int], ...]:
        """(next window and unrevealed types, the type evaluated, its weight over divisor) for the position at offset."""
        window, rem = types_key
        if offset < len(window):
            return (((window[drop:], rem), window[offset], 1, 1),)
        remaining = sum(rem)  # the first model at this position reveals its type
        return tuple(
            (((*window, t)[drop:], (*rem[:t], c - 1, *rem[t + 1 :])), t, c, remaining) for t, c in enumerate(rem) if c
        )

    total = factorial(n_models) * factorial(n_queries) * columns.denominator**budget
    states: dict[_Decision, dict[_Types, int]] = {}
    everyone = all_perms(n_models)
    for t, c in enumerate(counts):  # warm-up: every model on position 0
        rem = counts[:t] + (c - 1,) + counts[t + 1 :]
        base = factorial(n_models) * factorial(n_queries - 1) * c
        for combo in itertools.product(*types[t]):
            inner = states.setdefault(((1,) * n_models, tuple(v for v, _ in combo), everyone), {})
            inner[(), rem] = inner.get(((), rem), 0) + base * prod(w for _, w in combo)

    for _ in range(budget - n_models):
        new: dict[_Decision, dict[_Types, int]] = {}
        for (ns, sums, perms), inner in states.items():
            low = min(ns)
            for model, part in split_first(perms, selected(ns, sums)).items():
                offset = ns[model] - low
                new_ns = ns[:model] + (ns[model] + 1,) + ns[model + 1 :]
                drop = min(new_ns) - low
                targets: dict[int, dict[_Types, int]] = {}  # the next states' inner dicts, by the score drawn
                scale_down = len(perms)
                for types_key, p in inner.items():
                    for key, t, factor, divisor in moves(types_key, offset, drop):
                        r = p * len(part) * factor // (scale_down * divisor)
                        for value, w in types[t][model]:
                            target = targets.get(value)
                            if target is None:
                                grown = sums[:model] + (sums[model] + value,) + sums[model + 1 :]
                                target = targets[value] = new.setdefault((new_ns, grown, part), {})
                            target[key] = target.get(key, 0) + r * w
        states = new

    out: dict[int, int] = {}
    for (ns, sums, perms), inner in states.items():
        weight = sum(inner.values())
        for winner, part in split_first(perms, best_by_mean(ns, sums)).items():
            out[winner] = out.get(winner, 0) + weight // len(perms) * len(part)
    return {model: Fraction(p, total) for model, p in sorted(out.items()) if p}


def syucbe_size(instance: StochasticInstance, budget: int) -> int:
    """An estimate of :func:`syucbe_law`'s work: steps x revealed type sequences x sum vectors x priority sets.

    The deterministic engine's count (steps x sequences of <= min(L, n - K + 1)
    query types, :func:`~sysrs_ref.theory.exact_sync.syucbe_size` without its
    K!) times the models' sum vectors after about n / K evaluations each (per
    model the multisets of its levels, C(N + v - 1, v - 1)) times (K - 1)! for
    the priority sets ties split a state into. An estimate, not a bound:
    measured at K = 4, L = 6 (every column law distinct), 10^7 is 1 to 15
    seconds, and the estimate grows more slowly than the time past it.

    >>> syucbe_size(StochasticInstance.bernoulli([[0.5, 0.5], [0.5, 0.25]]), 3)
    90
    """
    n_models, n_queries = instance.shape
    counts = _Columns(instance).counts
    steps = max(1, budget - n_models + 1)
    sequences = _count_sequences(counts, min(n_queries, steps))
    levels = [len({score for j in range(n_queries) for score, _ in instance.law(i, j)}) for i in range(n_models)]
    each = min(n_queries, -(-budget // n_models))
    sums = prod(comb(each + v - 1, v - 1) for v in levels)
    return steps * sequences * sums * factorial(n_models - 1)
