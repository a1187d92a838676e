"""Exact error probabilities of the registered algorithms on small instances, and the exact Bayes error.

The probability is over a uniformly random :class:`~sysrs_ref.draws.Draw`: a
uniform arm priority and uniform query order(s) (one shared order for SyUS,
SySRs, SyUCB-E and SySAR; K independent orders for US, SR, UCB-E and SAR),
for a fixed score matrix. Nothing is sampled: the engines enumerate
equivalence classes of draws (what each model, or each shared column,
reveals) with their exact probabilities, so the answers are Fractions. How,
per family, is described in :mod:`sysrs_ref.theory.exact_sync`,
:mod:`sysrs_ref.theory.exact_unsync` and :mod:`sysrs_ref.theory.exact_sar`
(SAR and SySAR, whose top-m law is
:func:`sysrs_ref.theory.exact_topm.topm_distribution`; here, the law of the
first model they accept, ``ranking[0]``).

Before enumerating, :func:`enumeration_size` bounds the work cheaply, and
:func:`error_probability` refuses (``TooLargeToEnumerateError``) an instance
whose bound exceeds ``limit``. K <= 4 and L <= 7 is always within
:data:`DEFAULT_LIMIT` for US, SyUS, SR, SySRs and SyUCB-E; for UCB-E only
when the rows have few distinct scores (binary rows are fine), since its
engine is a DP on the joint state of all models; the same holds for SAR
(always fine for SySAR).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from sysrs_ref._checks import check_int
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.algorithms.params import AlgorithmParams, Exploration, TopMSize, expect
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.algorithms.successive_accepts_rejects import check_m
from sysrs_ref.errors import ParameterError, TooLargeToEnumerateError
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory import exact_sar, exact_stochastic, exact_stochastic_ucb, exact_sync, exact_unsync

__all__ = [
    "DEFAULT_LIMIT",
    "approximate",
    "bayes_error",
    "enumeration_size",
    "error_probability",
    "exact_law",
    "enumeration_need",
    "exact_need",
    "least_size_log10",
    "outcome_distribution",
]

#: The default bound on the enumeration's size (cases or states) before refusing.
DEFAULT_LIMIT = 10**7

_SIZES: dict[str, Callable[[Instance, int], int]] = {
    "us": exact_unsync.us_size,
    "syus": exact_sync.syus_size,
    "sr": exact_unsync.sr_size,
    "sysrs": exact_sync.sysrs_size,
    "ucbe": exact_unsync.ucbe_size,
    "syucbe": exact_sync.syucbe_size,
    "sar": exact_sar.sar_size,
    "sysar": exact_sar.sysar_size,
}


_SMALL = {name: "K <= 4, L <= 7 is always fine" for name in ("us", "syus", "sr", "sysrs", "syucbe", "sysar")} | {
    name: "K <= 4, L <= 7 with at most two distinct scores per row is fine" for name in ("ucbe", "sar")
}


def _prepare(
    instance: Instance | StochasticInstance, algorithm: str, budget: int, params: dict[str, ParamValue]
) -> tuple[str, AlgorithmParams]:
    """The algorithm's registered name and its parameters, parsed (SAR's m checked against K)."""
    spec = get_algorithm(_check(instance, algorithm, budget))
    typed = spec.parse_params(params)
    if isinstance(typed, TopMSize):
        check_m(typed.m, instance.n_models)
    return spec.name, typed


def _check(instance: Instance | StochasticInstance, algorithm: str, budget: int) -> str:
    """The algorithm's registered name, once the instance, the algorithm and the budget are checked."""
    if not isinstance(instance, (Instance, StochasticInstance)):
        raise TypeError(f"instance must be an Instance or a StochasticInstance, got {type(instance).__name__}")
    spec = get_algorithm(algorithm)
    if spec.cells:
        raise ParameterError(
            f"{spec.name} has no exact law here: its randomness includes a 64-bit stream seed and floating-point "
            "fits; estimate it with simulate"
        )
    check_budget(budget, instance.n_models, instance.n_queries)
    return spec.name


def enumeration_size(
    instance: Instance | StochasticInstance,
    algorithm: str,
    budget: int,
    *,
    limit: int = DEFAULT_LIMIT,
    **params: ParamValue,
) -> int:
    """An upper bound on the cases (or DP states) the exact engine would enumerate, if at most *limit*.

    It depends only on the shape of the instance's rows or columns (how many
    distinct values, how often), the algorithm and the budget, never on
    running the enumeration. For a non-degenerate
    :class:`~sysrs_ref.stochastic.StochasticInstance` it is
    :func:`~sysrs_ref.theory.exact_stochastic.phase_size` (SyUS, SySRs,
    SySAR), :func:`~sysrs_ref.theory.exact_stochastic_ucb.syucbe_size`
    (SyUCB-E) or :func:`~sysrs_ref.theory.exact_stochastic.mixture_size` (the
    others).

    A size above *limit* raises
    :class:`~sysrs_ref.errors.TooLargeToEnumerateError` with the message
    :func:`error_probability` (and ``exact`` on the command line) gives, and
    the counting stops there: the lower bound from K alone
    (:func:`least_size_log10`) is checked first, in log space, and SR's and
    SAR's counts (products over K - 1 phases that grow past any limit in a
    few of them) stop as soon as they pass *limit*, so a huge instance is
    refused in O(K) work, not after minutes of big-integer products. Raise
    *limit* to count larger sizes.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 1, 0], [0, 1, 0, 1]])
    >>> enumeration_size(inst, "syus", 4)  # 2-multisets of the column types (1,0)x2, (1,1), (0,1)
    4
    >>> enumeration_size(inst, "sysrs", 4) <= DEFAULT_LIMIT
    True
    >>> enumeration_size(Instance([[i % 2] for i in range(4000)]), "sr", 4000, limit=10**20000)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.TooLargeToEnumerateError: exact enumeration of sr on 4000 x 1 at budget 4000 needs more than 1.6e+20485 cases, over the limit of 1e+20000; use a smaller instance (K <= 4, L <= 7 is always fine) or raise --limit
    """
    name, _ = _prepare(instance, algorithm, budget, dict(params))
    return _check_limit(instance, name, budget, limit)


#: The size functions that stop counting once past a cap (their own argument): a refusal needs no more.
_CAPPED = frozenset({"sr", "sar"})


def _count(instance: Instance, name: str, budget: int, cap: int) -> int:
    """*name*'s size on a matrix: exact up to *cap*; past it SR's and SAR's counts stop (more than *cap*, at most the size)."""
    if name == "sr":
        return exact_unsync.sr_size(instance, budget, cap)
    if name == "sar":
        return exact_sar.sar_size(instance, budget, cap)
    return _SIZES[name](instance, budget)


def _size(instance: Instance | StochasticInstance, name: str, budget: int, cap: int) -> int:
    """The enumeration size of a checked case, exact up to *cap*; past it, a number more than *cap* (:func:`_count`)."""
    if isinstance(instance, StochasticInstance):
        if instance.degenerate:
            return _count(instance.mean_instance, name, budget, cap)
        if name in exact_stochastic.PHASE_ALGORITHMS:
            return exact_stochastic.phase_size(instance, name, budget)
        if name == "syucbe":
            return exact_stochastic_ucb.syucbe_size(instance, budget)
        return exact_stochastic.mixture_size(instance, name, lambda r: _count(r, name, budget, cap), cap=cap)
    return _count(instance, name, budget, cap)


def approximate(count: int) -> str:
    """A non-negative integer of any size in the message's short scientific form.

    >>> approximate(3_200_000_000), approximate(10**7), approximate(10**400)
    ('3.2e+09', '1e+07', '1e+400')
    """
    if count < 10**300:
        return f"{float(count):.2g}"
    return _scientific(math.log10(count))  # exact enough for two significant digits, for ints of any size


def _scientific(log: float) -> str:
    """10 ** *log* in :func:`approximate`'s form, from its logarithm alone (the number is never built)."""
    if log < 300:
        return f"{10**log:.2g}"
    exponent = math.floor(log)
    mantissa = float(f"{10 ** (log - exponent):.2g}")
    if mantissa >= 10:
        mantissa, exponent = 1.0, exponent + 1
    return f"{mantissa:g}e+{exponent}"


#: The algorithms whose every enumeration size is at least K! (K! priorities, or (K - 1)! on random scores).
_FACTORIAL = frozenset({"sr", "sysrs", "ucbe", "syucbe", "sar", "sysar"})

#: Seconds per score to read a matrix of distinct floats as exact fractions and group its columns (measured, 2 cores).
_READ_SECONDS = 1e-4


def least_size_log10(n_models: int, algorithm: str, *, stochastic: bool = False) -> float:
    """log10 of a lower bound on :func:`enumeration_size` for every instance with K = *n_models*, from K alone.

    K! for SR, SySRs, UCB-E, SyUCB-E, SAR and SySAR (every size has a factor
    K!, one per arm priority, and its other factors are at least 1); K^2 for
    US (K models, each with at least one multiset); 1 for SyUS. On
    non-degenerate random scores the phase engines and SyUCB-E count (K - 1)!
    priority sets. Computed in log space (``lgamma``), so a K of 10^6 costs
    nothing: :func:`error_probability` refuses on it before counting.

    >>> round(least_size_log10(10, "sysrs"), 4), least_size_log10(10, "us"), least_size_log10(10, "syus")
    (6.5598, 2.0, 0.0)
    """
    if algorithm in _FACTORIAL:
        return math.lgamma(n_models + (0 if stochastic else 1)) / math.log(10)
    return 2 * math.log10(n_models) if algorithm == "us" else 0.0


def exact_need(n_models: int, n_queries: int, algorithm: str, budget: int, limit: int = DEFAULT_LIMIT) -> Need:
    """What ``exact`` of *algorithm* on a K x L score matrix needs before it enumerates: reading it, O(K L).

    Raises :class:`~sysrs_ref.errors.TooLargeToEnumerateError` when the
    enumeration is beyond *limit* from K alone (:func:`least_size_log10`),
    with the message :func:`error_probability` gives; the command line
    checks both on an ``.npy`` header's K x L before the matrix is read.

    >>> exact_need(4, 6, "sysrs", 12).what
    'exact on 4 models x 6 queries'
    >>> exact_need(1_000_000, 1, "sysrs", 1_000_000)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.TooLargeToEnumerateError: exact enumeration of sysrs on 1000000 x 1 at budget 1000000 needs more than 8.3e+5565708 cases, over the limit of 1e+07; use a smaller instance (K <= 4, L <= 7 is always fine) or raise --limit
    """
    name = get_algorithm(algorithm).name
    _check_least(n_models, n_queries, name, budget, limit, stochastic=False)
    return Need(
        f"exact on {matrix_shape(n_models, n_queries)}",
        "reading K L scores as exact fractions and grouping the columns, O(K L)",
        seconds=_READ_SECONDS * n_models * n_queries,
    )


_SMALL_STOCHASTIC = (
    dict.fromkeys(exact_stochastic.PHASE_ALGORITHMS, "with Bernoulli laws K <= 4, L <= 6 is fine")
    | {
        name: f"with Bernoulli laws K = 2, L <= 6 or K = 3, L <= {queries} is fine"
        for name, queries in (("us", 5), ("sr", 5), ("sar", 5), ("ucbe", 4))
    }
    | {"syucbe": "with Bernoulli laws K <= 3, L <= 5 or K = 4, L <= 4 is fine"}
)


def _check_limit(instance: Instance | StochasticInstance, name: str, budget: int, limit: int) -> int:
    """The enumeration size of a checked case; past *limit*, :class:`TooLargeToEnumerateError` (counted up to it only)."""
    check_int(limit, "limit")
    n_models, n_queries = instance.shape
    stochastic = isinstance(instance, StochasticInstance) and not instance.degenerate
    _check_least(n_models, n_queries, name, budget, limit, stochastic=stochastic)
    size = _size(instance, name, budget, limit)
    if size > limit:
        bound = stochastic or name in _CAPPED  # a count stopped past the limit is only a lower bound
        _refuse(n_models, n_queries, name, budget, limit, stochastic, bound=bound, shown=approximate(size))
    return size


#: Cases an enumeration gets through in a second, at most: 0.1 microsecond a case is below any exact step in Python.
_CASES_PER_SECOND = 10**7


def enumeration_need(n_models: int, n_queries: int, name: str, budget: int, size: int) -> Need:
    """What enumerating *size* cases of *name* takes, at least: 0.1 microsecond a case, checked against the time limit.

    The size is an upper bound, so the seconds are too, but the default
    limit of 10^7 cases is a second of it: only a raised ``--limit`` (or
    *limit*) reaches the time limit (``SYSRS_REF_TIME_LIMIT``, an hour by
    default), with sizes of 3.6e+10 cases and more. The seconds of a size of
    any magnitude are an exact int past 10^300, never an overflowing float.

    >>> enumeration_need(1000, 1, "sar", 1000, 10**2570).seconds == 10**2563
    True
    """
    return Need(
        f"exact enumeration of {name} on {n_models} x {n_queries} at budget {budget}",
        f"up to {approximate(size)} cases, at least 0.1 microsecond each",
        seconds=size / _CASES_PER_SECOND if size < 10**300 else size // _CASES_PER_SECOND,
    )


def _check_least(n_models: int, n_queries: int, name: str, budget: int, limit: int, *, stochastic: bool) -> None:
    """Refuse when the lower bound from K alone (:func:`least_size_log10`) is over *limit*: nothing is counted."""
    least = least_size_log10(n_models, name, stochastic=stochastic)
    if least > math.log10(max(limit, 1)) + 1e-9:  # past any rounding of the float logarithm
        _refuse(n_models, n_queries, name, budget, limit, stochastic, bound=True, shown=_scientific(least))


def _refuse(
    n_models: int, n_queries: int, name: str, budget: int, limit: int, stochastic: bool, *, bound: bool, shown: str
) -> None:
    raise TooLargeToEnumerateError(
        f"exact enumeration of {name} on {n_models} x {n_queries}{' stochastic' if stochastic else ''} at "
        f"budget {budget} needs {'more than' if bound else 'about'} "
        f"{shown} cases, over the limit of {approximate(limit)}; use a smaller instance "
        f"({(_SMALL_STOCHASTIC if stochastic else _SMALL)[name]}) or raise --limit"
    )


def outcome_distribution(
    instance: Instance | StochasticInstance,
    algorithm: str,
    budget: int,
    *,
    limit: int = DEFAULT_LIMIT,
    **params: ParamValue,
) -> dict[int, Fraction]:
    """The exact law of the model *algorithm* returns, over a uniformly random draw.

    Keys are the models that can be returned, values their probabilities
    (positive Fractions summing to 1). *instance* may be a
    :class:`~sysrs_ref.stochastic.StochasticInstance` (S_ij ~ phi_ij): the
    law is then over the draw and the stated laws phi_ij
    (:mod:`sysrs_ref.theory.exact_stochastic`); a degenerate one (point
    masses) gives exactly its matrix's law. *params* are the algorithm's parameters
    (``a`` for ``ucbe`` and ``syucbe``, ``m`` for ``sar`` and ``sysar``,
    validated by the registry); *budget* must lie in [K, K*L]. For SAR and
    SySAR the returned model is ``ranking[0]``, the first model accepted
    (or, with no accept, the one left at the end). Raises
    :class:`~sysrs_ref.errors.TooLargeToEnumerateError` when
    :func:`enumeration_size` exceeds *limit*.

    Example, SySRs (Algorithm 1) with K = 2, n = 4: one shared query; model 1
    wins on query 3 (1/4) and on the tie at query 1 with probability 1/2:

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 1, 0], [0, 1, 0, 1]])
    >>> outcome_distribution(inst, "sysrs", 4)
    {0: Fraction(5, 8), 1: Fraction(3, 8)}

    Stochastic: S_0j ~ Bernoulli(3/4), S_1j ~ Bernoulli(1/2), one shared query:

    >>> from sysrs_ref.stochastic import StochasticInstance
    >>> noisy = StochasticInstance.bernoulli([[Fraction(3, 4)] * 2, [Fraction(1, 2)] * 2])
    >>> outcome_distribution(noisy, "sysrs", 3)   # 1 - P(S_0 < S_1) - P(tie) / 2 = 1 - 1/8 - 1/4
    {0: Fraction(5, 8), 1: Fraction(3, 8)}
    """
    name, typed = _prepare(instance, algorithm, budget, dict(params))
    return exact_law(instance, name, budget, typed, limit=limit)


def exact_law(
    instance: Instance | StochasticInstance,
    algorithm: str,
    budget: int,
    params: AlgorithmParams,
    *,
    limit: int = DEFAULT_LIMIT,
) -> dict[int, Fraction]:
    """:func:`outcome_distribution` with the parameters parsed already (:meth:`~sysrs_ref.algorithms.registry.AlgorithmSpec.parse_params`).

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.algorithms.params import Exploration
    >>> exact_law(Instance([[1, 1, 1, 0], [0, 1, 0, 1]]), "ucbe", 4, Exploration(Fraction(1)))
    {0: Fraction(17, 24), 1: Fraction(7, 24)}
    """
    name = _check(instance, algorithm, budget)
    if isinstance(params, TopMSize):
        check_m(params.m, instance.n_models)
    size = _check_limit(instance, name, budget, limit)
    check_need(enumeration_need(instance.n_models, instance.n_queries, name, budget, size))
    if isinstance(instance, StochasticInstance):
        if not instance.degenerate:
            return _stochastic_law(instance, name, budget, params)
        instance = instance.mean_instance
    return _deterministic_law(instance, name, budget, params)


def _stochastic_law(
    instance: StochasticInstance, name: str, budget: int, params: AlgorithmParams
) -> dict[int, Fraction]:
    """The law over the draw and phi_ij: the phase DP or SyUCB-E's step DP where they exist, else the mixture."""
    if name in exact_stochastic.PHASE_ALGORITHMS:
        m = params.m if isinstance(params, TopMSize) else 1
        result = exact_stochastic.phase_law(instance, name, budget, m=m)
    elif name == "syucbe":
        result = exact_stochastic_ucb.syucbe_law(instance, budget, expect(params, Exploration, name).a)
    else:
        result = exact_stochastic.mixture_law(instance, name, lambda r: _deterministic_law(r, name, budget, params))
    if sum(result.values()) != 1:  # pragma: no cover - an engine bug, never a user's mistake
        raise AssertionError(f"the exact law of {name} does not sum to 1: {result}")
    return result


def _deterministic_law(instance: Instance, name: str, budget: int, params: AlgorithmParams) -> dict[int, Fraction]:
    """The deterministic engines' law of a checked case (no size check)."""
    a = params.a if isinstance(params, Exploration) else Fraction(1)
    law: dict[int, Fraction]
    if name in ("sar", "sysar"):
        engine = exact_sar.sar_prefix_distribution if name == "sar" else exact_sar.sysar_prefix_distribution
        law = {}
        for prefix, p in engine(instance, budget, expect(params, TopMSize, name).m).items():
            law[prefix[0]] = law.get(prefix[0], Fraction(0)) + p
    elif name == "us":
        law = exact_unsync.us_distribution(instance, budget)
    elif name == "syus":
        law = exact_sync.syus_distribution(instance, budget)
    elif name == "sr":
        law = exact_unsync.sr_distribution(instance, budget)
    elif name == "sysrs":
        law = exact_sync.sysrs_distribution(instance, budget)
    elif name == "ucbe":
        law = exact_unsync.ucbe_distribution(instance, budget, a)
    else:
        law = exact_sync.syucbe_distribution(instance, budget, a)
    result = {model: p for model, p in sorted(law.items()) if p}
    if sum(result.values()) != 1:  # pragma: no cover - an engine bug, never a user's mistake
        raise AssertionError(f"the exact law of {name} does not sum to 1: {result}")
    return result


def error_probability(
    instance: Instance | StochasticInstance,
    algorithm: str,
    budget: int,
    *,
    a: Fraction | int | str | None = None,
    m: int | str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Fraction:
    """The exact probability that *algorithm* fails to return a best model, over a uniform draw.

    1 - P(chosen in ``instance.best``): with tied best models, returning any
    of them is a success. A :class:`~sysrs_ref.stochastic.StochasticInstance`
    is judged by its stochastic truth (the best mu_i = (1/L) sum_j E[S_ij]),
    the probability being over the draw and the stated laws phi_ij. *algorithm* is one of ``us``, ``syus``, ``sr``,
    ``sysrs`` (the paper's Algorithm 1), ``ucbe``, ``syucbe``, ``sar``,
    ``sysar``; *a* is the exploration parameter of ``ucbe``/``syucbe``
    (default 1, parsed exactly by
    :func:`~sysrs_ref.algorithms.ucb.exploration`) and *m* the top-m size of
    ``sar``/``sysar`` (default 1; their returned model is ``ranking[0]``, for
    the top-m error see :func:`~sysrs_ref.theory.exact_topm.topm_error_probability`),
    each a ParameterError for the other algorithms. Raises
    :class:`~sysrs_ref.errors.TooLargeToEnumerateError` when the enumeration
    would exceed *limit* (see :func:`enumeration_size`).

    Example (tests/reference/test_exact_small.py): SySRs on two models, n = 6, errs
    with probability 1/3; SR at n = 4 with probability 3/8.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 1, 0], [0, 1, 0, 1]])
    >>> error_probability(inst, "sysrs", 6), error_probability(inst, "sr", 4)
    (Fraction(1, 3), Fraction(3, 8))
    """
    params: dict[str, ParamValue] = {} if a is None else {"a": a}
    if m is not None:
        params["m"] = m
    law = outcome_distribution(instance, algorithm, budget, limit=limit, **params)
    return 1 - sum((p for model, p in law.items() if model in instance.best), Fraction(0))


# -- the two-hypothesis test of Theorem lower-bound ---------------------------------------


def bayes_error(n: int, delta: Fraction, s: Fraction) -> Fraction:
    """Exact minimal average error (1 - TV(P^n, Q^n)) / 2 of the test of Theorem lower-bound.

    P and Q live on {(1,0), (0,1), (0,0)} (the paper's proof of Theorem
    lower-bound): P(1,0) = (s + Delta)/2, P(0,1) = (s - Delta)/2,
    P(0,0) = 1 - s, and Q swaps the first two. By Neyman-Pearson the best
    average error (1/2) P^n(test says Q) + (1/2) Q^n(test says P) over all
    tests is (1/2) sum_x min(P^n(x), Q^n(x)) = (1 - TV(P^n, Q^n)) / 2. It is
    computed exactly by enumerating the counts (a, b, c) of the three outcomes
    (multinomial weights), not the 3^n sequences: with p = (s+Delta)/2,
    q = (s-Delta)/2, min(P^n, Q^n) = p^min(a,b) q^max(a,b) (1-s)^c.

    Because Q is P with the two models swapped, the same number is the
    minimax error inf_test max(P^n(error), Q^n(error)): the likelihood-ratio
    test (say P if a > b, Q if a < b, a fair coin if a = b) is symmetric, so
    its two errors are equal, and equal to the average.

    Needs 0 < Delta < 1/2, Delta <= s <= 1/2 and n >= 1 (else ParameterError).

    >>> bayes_error(1, Fraction(1, 4), Fraction(1, 2))  # (1 - Delta) / 2
    Fraction(3, 8)
    >>> bayes_error(2, Fraction(1, 4), Fraction(1, 2))
    Fraction(5, 16)
    """
    check_int(n, "n (the number of samples)")
    try:
        delta, s = Fraction(delta), Fraction(s)
    except (TypeError, ValueError):
        raise ParameterError(f"Delta and s must be rational numbers, got {delta!r}, {s!r}") from None
    if not 0 < delta < Fraction(1, 2):
        raise ParameterError(f"Theorem lower-bound needs 0 < Delta < 1/2, got Delta = {delta}")
    if not delta <= s <= Fraction(1, 2):
        raise ParameterError(f"Theorem lower-bound needs Delta <= s <= 1/2, got s = {s} with Delta = {delta}")
    p, q, r = (s + delta) / 2, (s - delta) / 2, 1 - s
    total = Fraction(0)
    for a_count in range(n + 1):
        for b_count in range(n + 1 - a_count):
            c_count = n - a_count - b_count
            ways = math.factorial(n) // (math.factorial(a_count) * math.factorial(b_count) * math.factorial(c_count))
            low, high = min(a_count, b_count), max(a_count, b_count)
            total += ways * p**low * q**high * r**c_count
    return total / 2
