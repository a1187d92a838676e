"""Exact laws of the top-m sets SAR and SySAR return (Successive Accepts and Rejects), on small instances.

The draw is uniform, as everywhere in :mod:`sysrs_ref.theory.exact`: a
uniform arm priority and a uniform shared query order (SySAR) or K
independent uniform query orders (SAR). The rule, its tie-breaking and the
ranking are those of :mod:`sysrs_ref.algorithms.successive_accepts_rejects`;
the engines here return the law of the *ranking prefix* ``ranking[:m]`` (the
accepted models in the order they were accepted, then the model left at the
end when a place is left), whose set is the top-m set SAR returns.

Both engines are forward DPs over the K - 1 phases, like
:func:`~sysrs_ref.theory.exact_sync.sysrs_distribution`, on merged states

- SySAR: (column types not used yet, active models, accepted tuple,
  consistent priorities); phase k draws a multiset of n_k - n_{k-1} column
  types (the multiset fixes every model's sum);
- SAR: (each active model's values not used yet, active models, accepted
  tuple, consistent priorities); phase k draws, independently for each active
  model, a multiset of n_k - n_{k-1} of its own values. A deactivated model is
  dropped from the state (its later draws are summed out), so the state only
  grows with the active models.

The decision (:func:`~sysrs_ref.algorithms.successive_accepts_rejects.sar_decision`)
depends only on the sorted sums, never on the priority; the priority only
picks *which* tied model leaves: the first in it among those tied at the top
(accept) or the last among those tied at the bottom (reject). So priorities
are kept lazily (:mod:`sysrs_ref.theory._exact_common`) and a branch splits
only at an actual tie. Weights are integers counting (priority, query sets)
pairs; they are divided by the total once, at the end.

Public entry points: :func:`sysrs_ref.theory.exact_topm.topm_distribution`
(the ranking prefix) and :func:`sysrs_ref.theory.exact.outcome_distribution`
(its first model).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from fractions import Fraction
from math import comb, factorial, prod

from sysrs_ref.algorithms.successive_accepts_rejects import check_m, sar_decision
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget, schedule
from sysrs_ref.theory._exact_common import Perms, all_perms, count_submultisets, split_first, split_last, submultisets
from sysrs_ref.theory.exact_sync import column_types, sysrs_size
from sysrs_ref.theory.exact_unsync import row_types

__all__ = ["sar_prefix_distribution", "sar_size", "sysar_prefix_distribution", "sysar_size"]

#: The law of ``ranking[:m]``: each possible prefix and its probability.
PrefixLaw = dict[tuple[int, ...], Fraction]
Multiset = tuple[int, ...]


def sysar_size(instance: Instance, budget: int) -> int:
    """Upper bound on the branches of the SySAR phase DP: block multisets times K! priority splits.

    Given the multisets of column types drawn in the phases and the priority,
    a SySAR run is determined, so SySRs' bound
    (:func:`~sysrs_ref.theory.exact_sync.sysrs_size`) holds unchanged; it
    does not depend on m.

    >>> sysar_size(Instance([[1, 1, 0], [1, 0, 1], [0, 0, 1]]), 6)  # n = (1, 2): 3 distinct columns, 3 x 3 x 3!
    54
    """
    return sysrs_size(instance, budget)


def sar_size(instance: Instance, budget: int, cap: int | None = None) -> int:
    """Upper bound on the branches of the SAR phase DP: per phase, the smaller of two counts, summed.

    A branch of phase k is (a state, one block multiset per active model, a
    part of the state's priorities). With T_i(k) the number of sequences of
    block multisets (sizes n_1, n_2 - n_1, ..., n_k - n_{k-1}) model i can
    draw, and P_i(k) the number of pairs (unused values after phase k - 1,
    block of phase k), two honest bounds on their number are

    - K! * prod_i T_i(k): given the priority and every model's blocks, the
      run is determined;
    - K! * D_k * (product of the K - k + 1 largest P_i(k)), with
      D_k = K!/(K-k+1)! * 2^(k-1) deactivation histories (who left, accepted
      or not): the states of a history differ by the active models' unused
      values and by disjoint parts of the priorities.

    T_i and P_i are exact for rows of at most :data:`EXACT_ROW_MAX` queries
    (a small DP over the row's sub-multisets), bounded by products of
    sub-multiset counts of the whole row above. It does not depend on m.
    The rows' counts are made phase by phase: with *cap*, counting stops as
    soon as the running sum passes it (the number returned is then more than
    *cap* and at most the size, each phase adding at least K!), so a refusal
    costs K! and a few phases of O(K) work instead of the K^2 sub-multiset
    counts and products of K numbers that the whole size takes on a large K.
    Within *cap* the size is exact.

    >>> sar_size(Instance([[1, 1, 0], [1, 0, 1], [0, 0, 1]]), 6)  # n = (1, 2): (min(8, 1 * 8) + min(27, 6 * 9)) x 3!
    210
    >>> sar_size(Instance([[1, 1, 0], [1, 0, 1], [0, 0, 1]]), 6, cap=40)  # the first phase, 8 x 3!, passes 40
    48
    """
    n_models = instance.n_models
    lengths = schedule(n_models, instance.n_queries, budget)
    priorities = factorial(n_models)
    if cap is not None and priorities > cap:
        return priorities
    phases = zip(*(_row_counts(row_types(instance, i)[1], lengths) for i in range(n_models)), strict=True)
    total, histories = 0, 1  # histories = perm(K, k) * 2^k, made one factor a phase
    for k, counts in enumerate(phases):
        sequences = prod(sequence for sequence, _ in counts)
        largest = sorted((pairs for _, pairs in counts), reverse=True)[: n_models - k]
        total += min(sequences, histories * prod(largest))
        if cap is not None and total * priorities > cap:
            break
        histories *= (n_models - k) * 2
    return total * priorities


#: Rows of up to this many queries get exact per-phase counts in :func:`sar_size`.
EXACT_ROW_MAX = 12


def _row_counts(row: Multiset, lengths: tuple[int, ...]) -> Iterator[tuple[int, int]]:
    """Per phase, made when asked for: (block sequences up to it, (unused values, block) pairs), exact for small rows."""
    seen = 0
    if sum(row) > EXACT_ROW_MAX:  # cheap overcounts, from the whole row
        sequences = 1
        for n_k in lengths:
            choices = max(1, count_submultisets(row, n_k - seen))
            sequences *= choices
            yield sequences, count_submultisets(row, seen) * choices
            seen = n_k
        return
    reached: dict[Multiset, int] = {row: 1}  # unused values -> block sequences reaching them
    for n_k in lengths:
        if n_k == seen:  # an empty block: every state stays, with its one (empty) block
            yield sum(reached.values()), len(reached)
            continue
        new: dict[Multiset, int] = {}
        pairs = 0
        for rem, count in reached.items():
            for taken, _ in submultisets(rem, n_k - seen):
                left = tuple(r - k for r, k in zip(rem, taken, strict=True))
                new[left] = new.get(left, 0) + count
                pairs += 1
        reached = new
        yield sum(reached.values()), pairs
        seen = n_k


@functools.lru_cache(maxsize=65536)
def _decide(ordered: tuple[int, ...], to_accept: int) -> bool:
    return sar_decision([Fraction(value) for value in ordered], to_accept)


def _leaving(
    active: tuple[int, ...], sums: dict[int, int], to_accept: int, perms: Perms
) -> tuple[bool, dict[int, Perms]]:
    """Whether the phase accepts, and the leaving model with its part of *perms* for each tie-break."""
    ordered = tuple(sorted((sums[i] for i in active), reverse=True))
    accept = _decide(ordered, to_accept)
    target = ordered[0] if accept else ordered[-1]
    tied = [i for i in active if sums[i] == target]
    return accept, (split_first if accept else split_last)(perms, tied)


def _without(items: tuple[int, ...], item: int) -> tuple[int, ...]:
    return tuple(i for i in items if i != item)


def _prepare(instance: Instance, budget: int, m: int) -> tuple[int, tuple[int, ...]]:
    if not isinstance(instance, Instance):
        raise TypeError(f"instance must be an Instance, got {type(instance).__name__}")
    check_budget(budget, instance.n_models, instance.n_queries)
    return check_m(m, instance.n_models), schedule(instance.n_models, instance.n_queries, budget)


def _prefix_law(finals: dict[tuple[tuple[int, ...], tuple[int, ...]], int], m: int, total: int) -> PrefixLaw:
    """The law of ranking[:m] from the weights of the final (active = (last,), accepted) pairs."""
    out: dict[tuple[int, ...], int] = {}
    for (active, accepted), weight in finals.items():
        prefix = accepted if len(accepted) == m else (*accepted, *active)
        out[prefix] = out.get(prefix, 0) + weight
    law = {prefix: Fraction(weight, total) for prefix, weight in sorted(out.items()) if weight}
    if sum(law.values()) != 1:  # pragma: no cover - an engine bug, never a user's mistake
        raise AssertionError(f"the exact top-{m} law does not sum to 1: {law}")
    return law


def sysar_prefix_distribution(instance: Instance, budget: int, m: int) -> PrefixLaw:
    """Exact law of SySAR's ``ranking[:m]`` (its top-m set, in acceptance order) over a uniform draw.

    Forward DP over phases on (column types not used yet, active models,
    accepted tuple, consistent priorities), as described in the module
    docstring. *budget* must lie in [K, K*L] (BudgetError) and 1 <= m <= K-1
    (ParameterError). Keys are the prefixes that occur, values their positive
    probabilities, summing to 1. No size check: callers use
    :func:`sysar_size` (:func:`~sysrs_ref.theory.exact_topm.topm_distribution` does).

    Two models right on disjoint queries, one shared query each phase:

    >>> inst = Instance([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> sysar_prefix_distribution(inst, 3, 2)   # no query seen: the priority decides
    {(0, 1): Fraction(1, 6), (0, 2): Fraction(1, 6), (1, 0): Fraction(1, 6), (1, 2): Fraction(1, 6), (2, 0): Fraction(1, 6), (2, 1): Fraction(1, 6)}
    >>> sysar_prefix_distribution(inst, 9, 2)   # every query seen: models 0 and 1, 0 accepted first
    {(0, 1): Fraction(1, 1)}
    """
    places, lengths = _prepare(instance, budget, m)
    types, counts = column_types(instance)
    n_models, n_queries = instance.shape
    State = tuple[Multiset, tuple[int, ...], tuple[int, ...], Perms]
    states: dict[State, int] = {(counts, tuple(range(n_models)), (), all_perms(n_models)): factorial(n_models)}
    total = factorial(n_models)
    seen = 0
    for phase, n_k in enumerate(lengths):
        block = n_k - seen
        total *= comb(n_queries - seen, block)
        seen = n_k
        last_phase = phase == len(lengths) - 1
        new: dict[State, int] = {}
        for (rem, active, accepted, perms), p in states.items():
            share = p // len(perms)
            for taken, weight in submultisets(rem, block):
                left = tuple(r - k for r, k in zip(rem, taken, strict=True))
                sums = {
                    i: sum((c - r) * types[t][i] for t, (c, r) in enumerate(zip(counts, left, strict=True)))
                    for i in active
                }
                accept, parts = _leaving(active, sums, places - len(accepted), perms)
                for leaving, part in parts.items():
                    key = (
                        () if last_phase else left,
                        _without(active, leaving),
                        (*accepted, leaving) if accept else accepted,
                        frozenset() if last_phase else part,
                    )
                    new[key] = new.get(key, 0) + share * weight * len(part)
        states = new
    finals: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for (_, active, accepted, _), p in states.items():
        finals[(active, accepted)] = finals.get((active, accepted), 0) + p
    return _prefix_law(finals, places, total)


def sar_prefix_distribution(instance: Instance, budget: int, m: int) -> PrefixLaw:
    """Exact law of SAR's ``ranking[:m]`` (its top-m set, in acceptance order) over a uniform draw.

    Forward DP over phases on (each active model's unused values, active
    models, accepted tuple, consistent priorities); each active model draws
    its phase block independently of the others, from its own uniform order.
    *budget* must lie in [K, K*L] (BudgetError) and 1 <= m <= K-1
    (ParameterError). Keys are the prefixes that occur, values their positive
    probabilities, summing to 1. No size check: callers use :func:`sar_size`
    (:func:`~sysrs_ref.theory.exact_topm.topm_distribution` does).

    >>> inst = Instance([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> law = sar_prefix_distribution(inst, 9, 2)   # every value seen: the means decide
    >>> law
    {(0, 1): Fraction(1, 1)}
    >>> sar_prefix_distribution(inst, 3, 2) == sysar_prefix_distribution(inst, 3, 2)  # nothing seen
    True
    """
    places, lengths = _prepare(instance, budget, m)
    n_models, n_queries = instance.shape
    rows = [row_types(instance, i) for i in range(n_models)]

    @functools.cache
    def moves(model: int, rem: Multiset, block: int) -> list[tuple[Multiset, int, int]]:
        """(values left, ways, sum of the values used so far) for each block multiset."""
        kinds, counts = rows[model]
        out = []
        for taken, weight in submultisets(rem, block):
            left = tuple(r - k for r, k in zip(rem, taken, strict=True))
            out.append((left, weight, sum((c - r) * v for c, r, v in zip(counts, left, kinds, strict=True))))
        return out

    State = tuple[tuple[Multiset, ...], tuple[int, ...], tuple[int, ...], Perms]
    start = tuple(counts for _, counts in rows)
    states: dict[State, int] = {(start, tuple(range(n_models)), (), all_perms(n_models)): factorial(n_models)}
    total = factorial(n_models)
    seen = 0
    for phase, n_k in enumerate(lengths):
        block = n_k - seen
        ways = comb(n_queries - seen, block)  # one model's block draws, all told
        total *= ways**n_models
        seen = n_k
        last_phase = phase == len(lengths) - 1
        new: dict[State, int] = {}
        for (rems, active, accepted, perms), p in states.items():
            share = p // len(perms) * ways ** (n_models - len(active))  # the inactive models' draws
            options = [moves(i, rem, block) for i, rem in zip(active, rems, strict=True)]
            for combo in itertools.product(*options):
                weight = share
                for _, ways_i, _ in combo:
                    weight *= ways_i
                sums = {i: move[2] for i, move in zip(active, combo, strict=True)}
                accept, parts = _leaving(active, sums, places - len(accepted), perms)
                for leaving, part in parts.items():
                    key = (
                        ()
                        if last_phase
                        else tuple(move[0] for i, move in zip(active, combo, strict=True) if i != leaving),
                        _without(active, leaving),
                        (*accepted, leaving) if accept else accepted,
                        frozenset() if last_phase else part,
                    )
                    new[key] = new.get(key, 0) + weight * len(part)
        states = new
    finals: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for (_, active, accepted, _), p in states.items():
        finals[(active, accepted)] = finals.get((active, accepted), 0) + p
    return _prefix_law(finals, places, total)
