"""The paper's probability bounds, each with the conditions under which it is proved.

Every bound has the form ``prefactor * exp(-exponent)`` with a rational
prefactor and exponent for rational inputs, so it is held exactly
(:class:`Bound`) and compared with an exact probability without rounding
error (:meth:`Bound.compare`). A bound refuses, with
:class:`~sysrs_ref.errors.BoundConditionError`, inputs outside the conditions
of its proof.

Scope of Theorem csr_bound (and of the SR bound) for capped schedules. The
proof needs, in every phase k, n_k >= (n - K) / (logbar(K) (K + 1 - k)), or
no possible error in that phase. The capped schedule
(:func:`~sysrs_ref.schedule.schedule`) only raises phases, except those it
caps at L; in a phase with n_k = L every remaining model has seen every query,
so with deterministic scores the unique best model cannot be the worst. So:
deterministic scores, every budget is covered; stochastic scores, only
budgets whose paper schedule needs no cap (n_{K-1} <= L, that is
n - K <= 2 L logbar(K)), since a capped phase has fewer samples than the
proof uses and Lemma bernstein-bounded-wor needs n <= L.

Stochastic scores. The bounds take a
:class:`~sysrs_ref.stochastic.StochasticInstance` (S_ij ~ phi_ij): H2 and H1
from its means, H3 with V_{*,i} jointly over J and the noise (eq. variance,
:func:`~sysrs_ref.theory.hardness.hardness`), and the stochastic coverage
unless every cell is a point mass (a degenerate instance is the deterministic
matrix). ``stochastic=True`` with a matrix reads it as Bernoulli p_ij (the
same as ``StochasticInstance.bernoulli``). The UCB-E bound is stated, for
queries sampled without replacement, for deterministic scores only (Zhou et
al. 2025), so :func:`ucbe_bound` refuses a StochasticInstance with noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context, Decimal, localcontext
from fractions import Fraction

from sysrs_ref.errors import BoundConditionError
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget, logbar, paper_schedule, schedule
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.hardness import Hardness, hardness

__all__ = [
    "Bound",
    "bernstein_paired_bound",
    "bernstein_wor_bound",
    "h3_two_arm",
    "lower_bound",
    "lower_bound_pair",
    "schedule_is_covered",
    "sr_bound",
    "sysrs_bound",
    "ucbe_bound",
    "ucbe_max_a",
]


@dataclass(frozen=True)
class Bound:
    """``prefactor * exp(-exponent)``, exactly; ``name`` says which result it is."""

    name: str
    prefactor: Fraction
    exponent: Fraction

    def decimal(self, digits: int = 40) -> Decimal:
        """The bound's value to *digits* significant digits (correctly rounded)."""
        with localcontext(Context(prec=digits + 10)):
            value = Decimal(self.prefactor.numerator) / Decimal(self.prefactor.denominator)
            power = -(Decimal(self.exponent.numerator) / Decimal(self.exponent.denominator))
            product = value * power.exp()
        with localcontext(Context(prec=digits)):
            return +product

    def __float__(self) -> float:
        return float(self.decimal(20))

    def compare(self, probability: Fraction) -> int:
        """The sign of probability - bound, decided exactly (-1: the bound holds strictly).

        exp(-e) is irrational for rational e != 0, so equality is impossible
        then and enough digits always decide.

        >>> Bound("demo", Fraction(1), Fraction(1)).compare(Fraction(367879, 10**6))
        -1
        >>> Bound("one", Fraction(1, 2), Fraction(0)).compare(Fraction(1, 2))
        0
        """
        if self.exponent == 0 or self.prefactor == 0:
            value = self.prefactor
            return (probability > value) - (probability < value)
        digits = 30
        while True:
            with localcontext(Context(prec=digits + 10)):
                target = Decimal(probability.numerator) / Decimal(probability.denominator)
                gap = target - self.decimal(digits)
                if abs(gap) > Decimal(10) ** (-digits + 2) * max(Decimal(1), abs(target)):
                    return 1 if gap > 0 else -1
            digits *= 2

    def holds_for(self, probability: Fraction) -> bool:
        """Whether probability <= bound."""
        return self.compare(probability) <= 0


def _fraction(value: Fraction | int | str, what: str) -> Fraction:
    try:
        return Fraction(value)
    except (TypeError, ValueError):
        raise BoundConditionError(f"{what} must be a rational number, got {value!r}") from None


def schedule_is_covered(n_models: int, n_queries: int, budget: int, *, stochastic: bool) -> bool:
    """Whether Theorem csr_bound's proof covers the (capped) schedule at this budget (module docstring).

    Covered: every phase k of :func:`~sysrs_ref.schedule.schedule` has
    n_k >= (n - K) / (logbar(K) (K + 1 - k)) (the proof's last step), or,
    with deterministic scores, n_k = L (that phase cannot err). Hence always
    True for deterministic scores, and for stochastic scores exactly when
    n - K <= 2 L logbar(K) (the paper's n_{K-1} fits in L).

    >>> schedule_is_covered(4, 30, 100, stochastic=False), schedule_is_covered(4, 30, 100, stochastic=True)
    (True, False)
    """
    check_budget(budget, n_models, n_queries)
    used = schedule(n_models, n_queries, budget)
    needed = paper_schedule(n_models, budget)
    return all(n_k >= need or (not stochastic and n_k == n_queries) for n_k, need in zip(used, needed, strict=True))


def _read(instance: Instance | StochasticInstance, stochastic: bool | None, name: str) -> tuple[Hardness, bool]:
    """The hardness of *instance* and whether its scores count as stochastic (``stochastic=`` checked against it)."""
    if isinstance(instance, StochasticInstance):
        if stochastic is False and not instance.degenerate:
            raise BoundConditionError(
                f"{name}: stochastic=False asks for deterministic scores, but this StochasticInstance has "
                "cells with noise; leave stochastic out"
            )
        return hardness(instance), (not instance.degenerate if stochastic is None else stochastic)
    return hardness(instance, bernoulli=bool(stochastic)), bool(stochastic)


def _successive_rejects_bound(
    name: str, instance: Instance | StochasticInstance, budget: int, measure: Fraction | None, stochastic: bool
) -> Bound:
    n_models, n_queries = instance.shape
    check_budget(budget, n_models, n_queries)
    if measure is None:
        raise BoundConditionError(
            f"{name} assumes a unique best model; models {sorted(instance.best)} tie for the best mean"
        )
    if not schedule_is_covered(n_models, n_queries, budget, stochastic=stochastic):
        raise BoundConditionError(
            f"{name} is not proved at budget {budget}: the paper's schedule needs "
            f"n_{n_models - 1} = {paper_schedule(n_models, budget)[-1]} > L = {n_queries} queries, and "
            "with stochastic scores a capped phase has fewer samples than the proof uses"
        )
    count = Fraction(n_models * (n_models - 1), 2)
    return Bound(name, count, Fraction(budget - n_models) / (logbar(n_models) * measure))


def sysrs_bound(instance: Instance | StochasticInstance, budget: int, *, stochastic: bool | None = None) -> Bound:
    """Theorem csr_bound: P(SySRs errs) <= K(K-1)/2 exp(-(n - K) / (logbar(K) H3)).

    With a matrix, ``stochastic=True`` reads it as Bernoulli p_ij; a
    :class:`~sysrs_ref.stochastic.StochasticInstance` brings its own laws
    (H3 jointly over J and the noise; stochastic coverage unless it is
    degenerate). BoundConditionError outside the proof's conditions (tied
    best models, or a budget :func:`schedule_is_covered` refuses).

    >>> b = sysrs_bound(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), 8)
    >>> b.prefactor, b.exponent
    (Fraction(1, 1), Fraction(9, 76))
    >>> sysrs_bound(StochasticInstance.bernoulli([[1, 1, 1, 0], [0, 1, 0, 1]]), 8).exponent  # the same matrix
    Fraction(9, 76)
    """
    name = "Theorem csr_bound (SySRs)"
    measures, noisy = _read(instance, stochastic, name)
    return _successive_rejects_bound(name, instance, budget, measures.h3, noisy)


def sr_bound(instance: Instance | StochasticInstance, budget: int, *, stochastic: bool | None = None) -> Bound:
    """Eq. (guarantees-SR), Audibert et al. 2010: P(SR errs) <= K(K-1)/2 exp(-(n - K) / (logbar(K) H2)).

    H2 depends on the means only; *stochastic* (implied by a StochasticInstance
    with noise) selects the stochastic coverage, as for :func:`sysrs_bound`.

    >>> sr_bound(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), 8).exponent  # H2 = 2 / (1/4)^2 = 32
    Fraction(3, 16)
    """
    name = "eq. guarantees-SR (SR)"
    measures, noisy = _read(instance, stochastic, name)
    return _successive_rejects_bound(name, instance, budget, measures.h2, noisy)


def ucbe_max_a(instance: Instance | StochasticInstance, budget: int) -> Fraction:
    """The largest admissible exploration parameter: 25/36 (n - K) / H1 (eq. guarantees-UCBE).

    H1 depends on the means only (of a StochasticInstance: its ``mean_instance``).

    >>> ucbe_max_a(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), 8)  # H1 = 16 + 16
    Fraction(25, 192)
    """
    check_budget(budget, *instance.shape)
    means = instance.mean_instance if isinstance(instance, StochasticInstance) else instance
    h1 = hardness(means).h1
    if h1 is None:
        raise BoundConditionError("the UCB-E bound assumes a unique best model")
    return Fraction(25, 36) * (budget - instance.n_models) / h1


def ucbe_bound(instance: Instance | StochasticInstance, budget: int, a: Fraction | int | str) -> Bound:
    """Eq. (guarantees-UCBE): P(UCB-E errs) <= 2 n K exp(-2a/25), for 0 < a <= 25/36 (n - K)/H1.

    Proved by Audibert et al. with replacement and by Zhou et al. 2025 without
    replacement for deterministic scores, which is what this implements: a
    :class:`~sysrs_ref.stochastic.StochasticInstance` is accepted only when
    degenerate (point masses); with noise, BoundConditionError.

    >>> ucbe_bound(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), 8, Fraction(1, 10)).exponent
    Fraction(1, 125)
    """
    if isinstance(instance, StochasticInstance) and not instance.degenerate:
        raise BoundConditionError(
            "eq. guarantees-UCBE is stated without replacement for deterministic scores only (Zhou et al. 2025); "
            "this StochasticInstance has cells with noise"
        )
    exploration = _fraction(a, "a")
    limit = ucbe_max_a(instance, budget)
    if not 0 < exploration <= limit:
        raise BoundConditionError(
            f"the UCB-E bound needs 0 < a <= 25/36 (n - K)/H1 = {float(limit):.6g} at budget {budget}, got a = {a}"
        )
    return Bound("eq. guarantees-UCBE (UCB-E)", Fraction(2 * budget * instance.n_models), 2 * exploration / 25)


def bernstein_wor_bound(n: int, population: int, epsilon: Fraction, sigma2: Fraction, bound_m: Fraction) -> Bound:
    """Lemma bernstein-bounded-wor: P(mean of n draws >= eps) <= exp(-n eps^2 / (2 sigma^2 + 2/3 M eps)).

    For a population of N distributions on [-M, M] with average mean 0 and
    average second moment sigma^2, sampled without replacement (1 <= n <= N), eps > 0.

    >>> bernstein_wor_bound(4, 10, Fraction(1, 2), Fraction(1, 4), Fraction(1)).exponent
    Fraction(6, 5)
    """
    if not 1 <= n <= population:
        raise BoundConditionError(f"the lemma needs 1 <= n <= N, got n = {n}, N = {population}")
    if epsilon <= 0:
        raise BoundConditionError(f"the lemma needs eps > 0, got {epsilon}")
    if bound_m <= 0 or not 0 <= sigma2 <= bound_m**2:
        raise BoundConditionError(
            f"the lemma needs M > 0 and 0 <= sigma^2 <= M^2, got M = {bound_m}, sigma^2 = {sigma2}"
        )
    return Bound(
        "Lemma bernstein-bounded-wor",
        Fraction(1),
        n * epsilon**2 / (2 * sigma2 + Fraction(2, 3) * bound_m * epsilon),
    )


def bernstein_paired_bound(n: int, population: int, delta: Fraction, sigma2: Fraction) -> Bound:
    """Lemma bernstein-paired: P(mean Y >= mean X) <= exp(-n Delta^2 / (2 sigma^2 + 2/3 (1 + Delta) Delta)).

    For paired distributions on [0, 1]^2 with Delta = mu_X - mu_Y in [0, 1] and
    sigma^2 the average of E[((Y - X) + Delta)^2], sampled without replacement.

    >>> bernstein_paired_bound(5, 5, Fraction(1, 5), Fraction(4, 25)).exponent
    Fraction(5, 12)
    """
    if not 0 <= delta <= 1:
        raise BoundConditionError(f"the lemma needs 0 <= Delta <= 1, got {delta}")
    if not 1 <= n <= population:
        raise BoundConditionError(f"the lemma needs 1 <= n <= N, got n = {n}, N = {population}")
    if sigma2 < 0:
        raise BoundConditionError(f"sigma^2 must be >= 0, got {sigma2}")
    if delta == 0:
        return Bound("Lemma bernstein-paired", Fraction(1), Fraction(0))
    return Bound(
        "Lemma bernstein-paired",
        Fraction(1),
        n * delta**2 / (2 * sigma2 + Fraction(2, 3) * (1 + delta) * delta),
    )


def h3_two_arm(delta: Fraction, variance: Fraction) -> Fraction:
    """H3(Delta, V) = (2V + 2/3 (1 + Delta) Delta) / Delta^2 (Theorem lower-bound).

    >>> h3_two_arm(Fraction(1, 4), Fraction(3, 16))
    Fraction(28, 3)
    """
    if delta <= 0:
        raise BoundConditionError(f"H3(Delta, V) needs Delta > 0, got {delta}")
    return (2 * variance + Fraction(2, 3) * (1 + delta) * delta) / delta**2


def _check_lower(delta: Fraction, s: Fraction) -> None:
    if not 0 < delta < Fraction(1, 2):
        raise BoundConditionError(f"Theorem lower-bound needs Delta in (0, 1/2), got {delta}")
    if not delta <= s <= Fraction(1, 2):
        raise BoundConditionError(f"Theorem lower-bound needs s in [Delta, 1/2] = [{delta}, 1/2], got {s}")


def lower_bound_pair(
    delta: Fraction, s: Fraction
) -> tuple[dict[tuple[int, int], Fraction], dict[tuple[int, int], Fraction]]:
    """The distributions P and Q on {0,1}^2 of Theorem lower-bound's proof.

    P(1,0) = (s+Delta)/2, P(0,1) = (s-Delta)/2, P(0,0) = 1-s; Q swaps (1,0) and (0,1).

    >>> p, q = lower_bound_pair(Fraction(1, 10), Fraction(3, 10))
    >>> p[(1, 0)], q[(1, 0)], p[(0, 0)]
    (Fraction(1, 5), Fraction(1, 10), Fraction(7, 10))
    """
    _check_lower(delta, s)
    p = {(1, 0): (s + delta) / 2, (0, 1): (s - delta) / 2, (0, 0): 1 - s, (1, 1): Fraction(0)}
    q = {(1, 0): p[(0, 1)], (0, 1): p[(1, 0)], (0, 0): p[(0, 0)], (1, 1): Fraction(0)}
    return p, q


def lower_bound(n: int, delta: Fraction, s: Fraction) -> Bound:
    """Theorem lower-bound: every test errs with probability >= 1/4 exp(-11 n / H3(Delta, V)) on P or Q.

    V = s - Delta^2 is the variance of X - Y under both P and Q.

    >>> lower_bound(10, Fraction(1, 10), Fraction(3, 10)).exponent  # V = 29/100, H3 = 196/3
    Fraction(165, 98)
    """
    _check_lower(delta, s)
    if n < 1:
        raise BoundConditionError(f"Theorem lower-bound needs n >= 1 samples, got {n}")
    return Bound("Theorem lower-bound", Fraction(1, 4), 11 * n / h3_two_arm(delta, s - delta**2))
