"""The algorithms' decision rules, each stated once, declaratively, beside the paper's algorithm.

Each rule says *which* model an algorithm must evaluate, eliminate, accept or
reject, given only the exact empirical means (sum / count), the counts, the
active models and the arm priority (docs/contracts.md sections 3 and 7-10).
None of them reads the reference's code: a rule is a predicate ("the model
whose mean is at most every other active mean, ...") or the unique model
satisfying one, evaluated by comparing means pairwise. The checker
(:mod:`proofs_check.code_decisions`) runs the real step generators and asks,
at every step, whether the decision made is the rule's.

The scores may be exact rationals or symbolic numbers
(:class:`~proofs_check.symbolic.Symbolic`): the rules only add, divide by a
count and compare, so on symbolic scores every comparison is a branch of the
exploration and the rule is checked on every path.

- **US, SyUS** (Experiments, "Baselines"): each model is evaluated on q
  queries, the largest q with K q <= n (:func:`uniform_allocation`); the
  ranking is :func:`ranked_by_mean`.
- **SR** (Audibert et al. 2010) and **SySRs** (Algorithm 1, line 7): after
  phase k, the eliminated model is the active model whose exact mean is at
  most every other active model's, among equal means the one latest in the
  arm priority (:func:`eliminated`).
- **SAR** (Bubeck, Wang and Viswanathan 2013) and **SySAR**: after each
  phase, the arm with the largest gap leaves, accepted if it is in the
  empirical top m', else rejected; equal largest gaps on both sides reject
  (:func:`sar_leaver`).
- **UCB-E, SyUCB-E** (Appendix "Algorithms", Algorithms UCB-E and SyUCB-E):
  the model evaluated next is the selectable model (N_i < L) whose index
  U_i = mu_i + sqrt(a / N_i) is at least every other selectable model's,
  among equal indices the one earliest in the arm priority
  (:func:`ucb_choice_problem`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

__all__ = [
    "IndexSign",
    "Number",
    "eliminated",
    "exact_index_sign",
    "mean",
    "ranked_by_mean",
    "sar_leaver",
    "ucb_choice_problem",
    "uniform_allocation",
]

Number = Fraction | int
"""An exact score, sum or mean (a :class:`~proofs_check.symbolic.Symbolic` is a Fraction too)."""

IndexSign = Callable[[int, int], int]
"""sign(U_i - U_j) for two models i, j (exact): the UCB-E index comparison the rule uses."""


def mean(total: Number, count: int) -> Number:
    """The exact empirical mean total / count; 0 for a model not evaluated yet (every such model ties at 0).

    >>> mean(Fraction(3), 4), mean(Fraction(0), 0)
    (Fraction(3, 4), 0)
    """
    return total * Fraction(1, count) if count else 0


def _before(i: int, j: int, means: Sequence[Number], priority: Sequence[int]) -> bool:
    """Whether model i comes before j in the order by decreasing exact mean, then earlier in the priority."""
    if means[i] != means[j]:
        return bool(means[i] > means[j])
    return priority.index(i) < priority.index(j)


def uniform_allocation(budget: int, n_models: int) -> int:
    """US's and SyUS's queries per model: the largest q with K q <= n (floor(n / K), stated without a division).

    >>> uniform_allocation(7, 3), uniform_allocation(6, 3)
    (2, 2)
    """
    return max(q for q in range(budget + 1) if n_models * q <= budget)


def ranked_by_mean(models: Sequence[int], means: Sequence[Number], priority: Sequence[int]) -> tuple[int, ...]:
    """The ranking of US, SyUS, UCB-E, SyUCB-E: model i's place is the number of models before it.

    Model j is before i when its exact mean is larger, or equal and j is earlier in the arm priority.

    >>> ranked_by_mean([0, 1, 2], [Fraction(1, 2), Fraction(1), Fraction(1, 2)], (2, 1, 0))
    (1, 2, 0)
    """
    places = {i: sum(_before(j, i, means, priority) for j in models if j != i) for i in models}
    return tuple(sorted(models, key=places.__getitem__))


def eliminated(active: Sequence[int], means: Sequence[Number], priority: Sequence[int]) -> int:
    """SR's and SySRs's eliminated model: the smallest exact mean, among equal means the latest in the priority.

    It is the one active model e with, for every other active j, mean_e < mean_j, or mean_e = mean_j and e
    later than j in the priority.

    >>> eliminated([0, 1, 2], [Fraction(1), Fraction(0), Fraction(0)], (1, 2, 0))
    2
    """
    (found,) = [e for e in active if all(_before(j, e, means, priority) for j in active if j != e)]
    return found


def sar_leaver(
    active: Sequence[int], means: Sequence[Number], priority: Sequence[int], places: int
) -> tuple[int, bool]:
    """SAR's and SySAR's decision after a phase: (the model that leaves, whether it is accepted).

    sigma orders the active models by decreasing exact mean, equal means earlier in the priority first
    (sigma(1) first). With m' = *places* still to fill: if m' = 0 the last of sigma is rejected; if m' is the
    number of active models the first is accepted; otherwise each active arm has Bubeck et al.'s gap,
    mean(sigma(j)) - mean(sigma(m' + 1)) for the empirical top m' (j <= m', accepted if it leaves) and
    mean(sigma(m')) - mean(sigma(j)) for the others (rejected if it leaves). The arm with the largest gap
    leaves; among equal gaps a rejection beats an acceptance, the accepted arm is the first of sigma
    and the rejected one the last.

    >>> sar_leaver([0, 1, 2, 3], [Fraction(1), Fraction(3, 4), Fraction(1, 4), Fraction(0)], (0, 1, 2, 3), 2)
    (3, False)
    """
    sigma = ranked_by_mean(active, means, priority)
    if places == 0:
        return sigma[-1], False
    if places == len(sigma):
        return sigma[0], True
    gaps = [
        (means[model] - means[sigma[places]]) if place < places else (means[sigma[places - 1]] - means[model])
        for place, model in enumerate(sigma)
    ]
    largest = [place for place in range(len(sigma)) if all(gaps[place] >= gap for gap in gaps)]
    rejected = [place for place in largest if place >= places]
    if rejected:
        return sigma[max(rejected)], False
    return sigma[min(largest)], True


def exact_index_sign(mean1: Fraction, count1: int, mean2: Fraction, count2: int, a: Fraction) -> int:
    """sign((mean1 + sqrt(a/count1)) - (mean2 + sqrt(a/count2))) exactly, for rational means and a > 0.

    Independent of the reference's squaring argument: equality is decided by solving for the roots
    (sqrt(q) - sqrt(p) = r with r != 0 forces sqrt(p) = (q - p - r^2) / (2 r), a rational to check), and
    an inequality by enclosing both indices in rational intervals (integer square roots), halved until
    they separate (they do, the indices being unequal).

    >>> exact_index_sign(Fraction(0), 1, Fraction(1, 2), 4, Fraction(1))      # 0 + 1 = 1/2 + 1/2
    0
    >>> exact_index_sign(Fraction(1, 2), 2, Fraction(1, 2), 3, Fraction(1, 10))
    1
    """
    p, q, r = a / count1, a / count2, mean1 - mean2
    if p == q:
        return (r > 0) - (r < 0)
    if r != 0:
        root = (q - p - r * r) / (2 * r)
        if root >= 0 and root * root == p and root + r >= 0:
            return 0
    bits = 64
    while True:
        scale = 2**bits
        low1 = mean1 + Fraction(math.isqrt(math.floor(p * scale * scale)), scale)
        low2 = mean2 + Fraction(math.isqrt(math.floor(q * scale * scale)), scale)
        step = Fraction(1, scale)
        if low1 > low2 + step:
            return 1
        if low2 > low1 + step:
            return -1
        bits *= 2


def ucb_choice_problem(chosen: int, selectable: Sequence[int], sign: IndexSign, priority: Sequence[int]) -> str | None:
    """Why *chosen* is not UCB-E's next model, in words, or None when it is.

    The next model is the selectable model i with, for every other selectable j, U_i > U_j, or U_i = U_j
    and i earlier than j in the arm priority (a unique model: the order is total).

    >>> ucb_choice_problem(1, [0, 1], lambda i, j: 0, (0, 1))
    'model 0 has an equal index and comes earlier in the priority'
    """
    if chosen not in selectable:
        return f"model {chosen} is not selectable (selectable: {list(selectable)})"
    for other in selectable:
        if other == chosen:
            continue
        difference = sign(chosen, other)
        if difference < 0:
            return f"model {other} has a larger index"
        if difference == 0 and priority.index(other) < priority.index(chosen):
            return f"model {other} has an equal index and comes earlier in the priority"
    return None
