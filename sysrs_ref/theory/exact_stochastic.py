"""Exact laws of the returned model on small stochastic instances (S_ij ~ phi_ij), over the draw and the law.

A stochastic run evaluates each cell at most once and its draw is
independent of the noise, so it is the deterministic run on the *realised*
matrix r (:meth:`~sysrs_ref.stochastic.StochasticInstance.realise`), and

    P(returns i) = sum_r P(r) P_draw(returns i | r),

with P(r) the product of the stated laws phi_ij (not the noise's 2^-53
approximation of them) and P_draw the deterministic engines' exact law
(:mod:`sysrs_ref.theory.exact`). Two engines compute it:

- :func:`mixture_law`, for every algorithm: P_draw(. | r) depends on r only
  through a *statistic*, the multiset of its columns for the synchronized
  algorithms (the shared order is uniform) and the tuple of its rows' value
  multisets for the unsynchronized ones (each row has its own uniform order).
  :func:`statistic_law` gives the statistic's exact law (a DP over queries
  that merges equal multisets; for rows, a product of per-row laws, the rows
  being independent), and the deterministic engine is called once per value.
- :func:`phase_law`, for SyUS, SySRs and SySAR (:data:`PHASE_ALGORITHMS`),
  much faster: a forward DP over the phases on (query types not used yet,
  the active models' sums, active models, accepted models, consistent
  priorities), where a *query type* merges queries with equal column laws
  and a phase draws a multiset of query types (hypergeometric) and then the
  active models' sums over it (independent cells: a product of per-model
  convolutions). Ties split the priorities lazily as in
  :mod:`sysrs_ref.theory._exact_common`.

Both are exact Fractions; tests/reference/test_stochastic_exact.py checks them against
each other, against a brute force over every draw and realisation, and
against Monte Carlo runs of the reference. Entry point:
:func:`sysrs_ref.theory.exact.outcome_distribution` (and
``error_probability``, ``enumeration_size``, ``exact_law``), which accept a
:class:`~sysrs_ref.stochastic.StochasticInstance`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from math import comb, factorial, lcm, prod

from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.algorithms.successive_accepts_rejects import sar_decision
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import schedule
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory._exact_common import Perms, all_perms, count_submultisets, split_first, split_last, submultisets

__all__ = [
    "PHASE_ALGORITHMS",
    "Statistic",
    "mixture_law",
    "mixture_size",
    "phase_law",
    "phase_size",
    "statistic_law",
    "statistic_count_bound",
]

#: The algorithms :func:`phase_law` handles (the others go through :func:`mixture_law`).
PHASE_ALGORITHMS = ("syus", "sysrs", "sysar")

#: A realised matrix up to what the algorithm cannot see: rows of level codes, columns sorted
#: (synchronized) or each row sorted (unsynchronized).
Statistic = tuple[tuple[int, ...], ...]

Law = dict[int, Fraction]
CellLaw = tuple[tuple[int, Fraction], ...]


def _cell_law(instance: StochasticInstance, model: int, query: int) -> CellLaw:
    """phi_ij as (level code, probability) pairs, zeros left out."""
    code_of = {level: code for code, level in enumerate(instance.levels)}
    return tuple((code_of[score], p) for score, p in instance.law(model, query))


# -- the statistic and the mixture -----------------------------------------------------


def statistic_law(instance: StochasticInstance, *, synchronized: bool) -> dict[Statistic, Fraction]:
    """The exact law of the realised matrix's statistic: its column multiset, or its rows' value multisets.

    Synchronized: rows of level codes (indices into ``instance.levels``) whose
    columns are in sorted order; unsynchronized: each row sorted. The values
    are positive Fractions summing to 1 (the stated laws phi_ij, cells
    independent), in sorted order of the statistic.

    >>> from fractions import Fraction as F
    >>> inst = StochasticInstance.bernoulli([[F(1, 2), 1], [0, F(1, 4)]])
    >>> statistic_law(inst, synchronized=False)
    {((0, 1), (0, 0)): Fraction(3, 8), ((0, 1), (0, 1)): Fraction(1, 8), ((1, 1), (0, 0)): Fraction(3, 8), ((1, 1), (0, 1)): Fraction(1, 8)}
    >>> statistic_law(inst, synchronized=True)[((0, 1), (0, 1))]   # columns (0, 0) and (1, 1): 1/2 * 1/4
    Fraction(1, 8)
    """
    return dict(sorted(_statistics(instance, synchronized=synchronized)))


def _statistics(instance: StochasticInstance, *, synchronized: bool) -> Iterator[tuple[Statistic, Fraction]]:
    """The statistic's values and probabilities, unsorted; lazily for rows (a product of per-row laws)."""
    n_models, n_queries = instance.shape
    if synchronized:
        columns = [_product([_cell_law(instance, i, j) for i in range(n_models)]) for j in range(n_queries)]
        for multiset, p in _multiset_law(columns).items():
            yield tuple(zip(*multiset, strict=True)), p
        return
    rows = [
        {
            tuple(code for (code,) in multiset): p
            for multiset, p in _multiset_law(
                [tuple(((code,), p) for code, p in _cell_law(instance, i, j)) for j in range(n_queries)]
            ).items()
        }
        for i in range(n_models)
    ]
    for combo in itertools.product(*(row.items() for row in rows)):
        yield tuple(key for key, _ in combo), prod((p for _, p in combo), start=Fraction(1))


def _product(cells: list[CellLaw]) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """The joint law of independent cells: (tuple of codes, probability)."""
    return tuple(
        (tuple(code for code, _ in combo), prod((p for _, p in combo), start=Fraction(1)))
        for combo in itertools.product(*cells)
    )


def _multiset_law(
    items: Iterable[Iterable[tuple[tuple[int, ...], Fraction]]],
) -> dict[tuple[tuple[int, ...], ...], Fraction]:
    """Law of the sorted tuple of independent draws, one from each law of *items* (a DP merging equal ones)."""
    states: dict[tuple[tuple[int, ...], ...], Fraction] = {(): Fraction(1)}
    for law in items:
        options = tuple(law)
        new: dict[tuple[tuple[int, ...], ...], Fraction] = {}
        for drawn, p in states.items():
            for value, q in options:
                grown = tuple(sorted((*drawn, value)))
                new[grown] = new.get(grown, Fraction(0)) + p * q
        states = new
    return states


def statistic_count_bound(instance: StochasticInstance, *, synchronized: bool) -> int:
    """A cheap upper bound on how many values :func:`statistic_law` has (its support).

    Synchronized: min(prod_j |support of column j|, C(T + L - 1, L)), T the
    number of columns any query can show; unsynchronized: the product over
    rows of the same count for one row.

    >>> inst = StochasticInstance.bernoulli([[0.5, 0.5, 0.5], [0.5, 0.5, 1]])
    >>> statistic_count_bound(inst, synchronized=True), statistic_count_bound(inst, synchronized=False)
    (20, 16)
    """
    n_models, n_queries = instance.shape
    sizes = [[len(instance.law(i, j)) for j in range(n_queries)] for i in range(n_models)]
    if synchronized:
        values_per_row = [
            len({score for j in range(n_queries) for score, _ in instance.law(i, j)}) for i in range(n_models)
        ]
        kinds = prod(values_per_row)
        return min(
            prod(prod(sizes[i][j] for i in range(n_models)) for j in range(n_queries)),
            comb(kinds + n_queries - 1, n_queries),
        )
    total = 1
    for i in range(n_models):
        kinds = len({score for j in range(n_queries) for score, _ in instance.law(i, j)})
        total *= min(prod(sizes[i]), comb(kinds + n_queries - 1, n_queries))
    return total


def _realised(instance: StochasticInstance, statistic: Statistic) -> Instance:
    return Instance([[instance.levels[code] for code in row] for row in statistic])


def mixture_law(instance: StochasticInstance, algorithm: str, engine: Callable[[Instance], Law]) -> Law:
    """sum over the statistic's values s of P(s) * engine(s as an Instance): the law of the returned model.

    *algorithm* is a registered name (it says whether the draw is
    synchronized); *engine* maps a deterministic Instance to its exact law
    over the uniform draw, such as ``lambda r: exact_law(r, "sr", 4,
    NoParams())``. Zero probabilities are left out.

    >>> from fractions import Fraction as F
    >>> from sysrs_ref.theory.exact import exact_law
    >>> from sysrs_ref.algorithms.params import NoParams
    >>> inst = StochasticInstance.bernoulli([[F(1, 2), F(1, 2)], [F(1, 4), 0]])
    >>> mixture_law(inst, "sr", lambda r: exact_law(r, "sr", 3, NoParams()))   # P(S_0 > S_1) + P(tie) / 2 = 7/16 + 1/4
    {0: Fraction(11, 16), 1: Fraction(5, 16)}
    """
    synchronized = get_algorithm(algorithm).synchronized
    out: Law = {}
    for statistic, p in _statistics(instance, synchronized=synchronized):
        for model, q in engine(_realised(instance, statistic)).items():
            out[model] = out.get(model, Fraction(0)) + p * q
    return {model: p for model, p in sorted(out.items()) if p}


def mixture_size(
    instance: StochasticInstance, algorithm: str, engine_size: Callable[[Instance], int], *, cap: int
) -> int:
    """The work of :func:`mixture_law`: the sum over the statistic's values of *engine_size* (each at least 1).

    Cheap first: when :func:`statistic_count_bound` exceeds *cap*, that bound
    is returned; otherwise the values are enumerated and their sizes summed,
    stopping as soon as the sum exceeds *cap* (the number returned then only
    says "more than *cap*").

    >>> inst = StochasticInstance.bernoulli([[0.5, 0.5], [0.5, 0.5]])
    >>> mixture_size(inst, "us", lambda r: 10, cap=1000), mixture_size(inst, "us", lambda r: 10, cap=50)
    (90, 60)
    """
    synchronized = get_algorithm(algorithm).synchronized
    bound = statistic_count_bound(instance, synchronized=synchronized)
    if bound > cap:
        return bound
    total = 0
    for statistic, _ in _statistics(instance, synchronized=synchronized):
        total += max(1, engine_size(_realised(instance, statistic)))
        if total > cap:
            break
    return total


# -- the phase DP of SyUS, SySRs and SySAR ----------------------------------------------


class _Columns:
    """Query types (queries with equal column laws) with integer laws: score numerators, probabilities times D."""

    def __init__(self, instance: StochasticInstance) -> None:
        n_models, n_queries = instance.shape
        scale = lcm(*(level.denominator for level in instance.levels))
        #: the levels' common denominator: a score is its numerator over it
        self.scale = scale
        numerator = [int(level * scale) for level in instance.levels]
        cells = [[_cell_law(instance, i, j) for j in range(n_queries)] for i in range(n_models)]
        #: D, the common denominator of every probability
        self.denominator = lcm(*(p.denominator for row in cells for cell in row for _, p in cell))
        laws: dict[tuple[tuple[tuple[int, int], ...], ...], int] = {}
        for j in range(n_queries):
            column = tuple(
                tuple((numerator[code], int(p * self.denominator)) for code, p in cells[i][j]) for i in range(n_models)
            )
            laws[column] = laws.get(column, 0) + 1
        self.types = list(laws)
        self.counts = tuple(laws.values())
        self._sums: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, int], ...]] = {}

    def sum_law(self, model: int, taken: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """(sum, weight) of model's sum over *taken* (a multiset of query types): weights over D^|taken|, cached."""
        if (model, taken) in self._sums:
            return self._sums[model, taken]
        law: dict[int, int] = {0: 1}
        for t, k in enumerate(taken):
            for _ in range(k):
                new: dict[int, int] = {}
                for s, p in law.items():
                    for value, q in self.types[t][model]:
                        new[s + value] = new.get(s + value, 0) + p * q
                law = new
        self._sums[model, taken] = tuple(law.items())
        return self._sums[model, taken]


#: (query types not used, active models, accepted models, sums (min active sum 0, inactive 0), priorities)
_State = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], Perms]


def _lengths(algorithm: str, n_models: int, n_queries: int, budget: int) -> tuple[int, ...]:
    return (budget // n_models,) if algorithm == "syus" else schedule(n_models, n_queries, budget)


def phase_law(instance: StochasticInstance, algorithm: str, budget: int, *, m: int = 1) -> Law:
    """Exact law of the model SyUS, SySRs (Algorithm 1) or SySAR returns, by a forward DP over phases.

    State: (query types not used yet, the active models' sums as integer
    numerators, shifted so that the least is 0 (every decision depends on
    differences only), active models, accepted models, consistent
    priorities). A phase draws n_k - n_(k-1) query types without replacement
    (hypergeometric weights), then the active models' sums over them (cells
    independent: per model a convolution of phi_ij). SySRs eliminates the
    lowest sum (a tie: the tied model last in the priority); SySAR accepts or
    rejects by :func:`~sysrs_ref.algorithms.successive_accepts_rejects.sar_decision`
    (top-*m*; the returned model is ``ranking[0]``); SyUS is one phase of
    floor(n/K) queries won by the largest sum (a tie: the first in the
    priority). Weights are integers counting (priority, query set, outcome)
    combinations, probabilities scaled by their common denominator D; an
    inactive model's cells count D each. *budget* and *m* are taken as
    checked (use :func:`sysrs_ref.theory.exact.outcome_distribution`).

    >>> from fractions import Fraction as F
    >>> inst = StochasticInstance.bernoulli([[F(3, 4), F(3, 4)], [F(1, 2), F(1, 2)]])
    >>> phase_law(inst, "sysrs", 3)   # one shared query: 1 - P(S_0 < S_1) - P(tie) / 2 = 1 - 1/8 - 1/4
    {0: Fraction(5, 8), 1: Fraction(3, 8)}
    """
    n_models, n_queries = instance.shape
    columns = _Columns(instance)
    everyone = tuple(range(n_models))
    states: dict[_State, int] = {
        (columns.counts, everyone, (), (0,) * n_models, all_perms(n_models)): factorial(n_models)
    }
    total = factorial(n_models)
    out: dict[int, int] = {}
    seen = 0
    for n_k in _lengths(algorithm, n_models, n_queries, budget):
        block, remaining = n_k - seen, n_queries - seen
        total *= comb(remaining, block) * columns.denominator ** (block * n_models)
        seen = n_k
        new: dict[_State, int] = {}  # SyUS has one phase: its winners go to out, on this phase's total
        for (rem, active, accepted, sums, perms), p in states.items():
            idle = columns.denominator ** (block * (n_models - len(active)))
            for taken, weight in submultisets(rem, block):
                left = tuple(r - k for r, k in zip(rem, taken, strict=True))
                laws = [columns.sum_law(i, taken) for i in active]
                for combo in itertools.product(*laws):
                    grown = list(sums)
                    r = p * weight * idle
                    for i, (value, w) in zip(active, combo, strict=True):
                        grown[i] += value
                        r *= w
                    _step(algorithm, m, (left, active, accepted, tuple(grown), perms), r, new, out)
        states = new
    for (_, active, accepted, _, _), p in states.items():
        winner = accepted[0] if accepted else active[0]
        out[winner] = out.get(winner, 0) + p
    return {model: Fraction(p, total) for model, p in sorted(out.items()) if p}


def _step(algorithm: str, m: int, state: _State, p: int, new: dict[_State, int], out: dict[int, int]) -> None:
    """One phase's decision on *state* (sums updated): add the next states to *new*, SyUS's winners to *out*."""
    rem, active, accepted, sums, perms = state
    share = p // len(perms)
    if algorithm == "syus":
        top = max(sums[i] for i in active)
        for winner, part in split_first(perms, [i for i in active if sums[i] == top]).items():
            out[winner] = out.get(winner, 0) + share * len(part)
        return
    accept = False
    if algorithm == "sysar":
        ordered = sorted((sums[i] for i in active), reverse=True)
        accept = _decide(tuple(ordered), m - len(accepted))
    target = (max if accept else min)(sums[i] for i in active)
    tied = [i for i in active if sums[i] == target]
    for leaving, part in (split_first if accept else split_last)(perms, tied).items():
        kept = tuple(i for i in active if i != leaving)
        low = min(sums[i] for i in kept)
        shifted = tuple(s - low if i in kept else 0 for i, s in enumerate(sums))
        key = (rem, kept, (*accepted, leaving) if accept else accepted, shifted, part)
        new[key] = new.get(key, 0) + share * len(part)


@functools.lru_cache(maxsize=65536)
def _decide(ordered: tuple[int, ...], to_accept: int) -> bool:
    return sar_decision([Fraction(value) for value in ordered], to_accept)


def phase_size(instance: StochasticInstance, algorithm: str, budget: int) -> int:
    """An estimate of :func:`phase_law`'s work: the sum over phases of states x block multisets x sum outcomes.

    For phase k: (multisets of used query types) x (the active models' sum
    vectors, each model's sum over n_(k-1) cells counted as the multisets of
    its levels) x (active sets, and accepted sets for SySAR), times the block
    multisets and the active models' joint sum outcomes over a block, times
    (K - 1)! for the priority sets ties split a state into (an estimate, not
    a bound: measured against the DP's steps and time, 10^7 is about 5 to 60
    seconds for K = 4 to 6).

    >>> phase_size(StochasticInstance.bernoulli([[0.5, 0.5], [0.5, 0.25]]), "sysrs", 3)
    8
    """
    n_models, n_queries = instance.shape
    counts = _Columns(instance).counts
    levels = [len({score for j in range(n_queries) for score, _ in instance.law(i, j)}) for i in range(n_models)]
    levels.sort(reverse=True)
    total, seen = 0, 0
    for k, n_k in enumerate(_lengths(algorithm, n_models, n_queries, budget)):
        block, active = n_k - seen, n_models - k
        states = count_submultisets(counts, seen) * prod(comb(seen + v - 1, v - 1) for v in levels[:active])
        states *= comb(n_models, k) * (2**k if algorithm == "sysar" else 1) * factorial(n_models - 1)
        outcomes = prod(comb(block + v - 1, v - 1) for v in levels[:active])
        total += states * max(1, count_submultisets(counts, block)) * outcomes
        seen = n_k
    return total
