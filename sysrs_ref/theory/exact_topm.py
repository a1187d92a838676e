"""Exact top-m laws and top-m identification errors, over a uniformly random draw.

The draw is uniform as in :mod:`sysrs_ref.theory.exact`. The predicted top-m
set of a run is ``ranking[:m]``; for SAR and SySAR (``sar``, ``sysar``) it is
the set they return, and its law comes from the phase DPs of
:mod:`sysrs_ref.theory.exact_sar`. For the other algorithms (whose ranking is
the reverse elimination order, or decreasing empirical mean) it is computed by
brute force: every draw is run with the reference (K! priorities times L! or
(L!)^K query orders), so only tiny instances pass the ``limit``.

A predicted set is *correct* under the paper's tie rule when it is the top-m
set of some ranking consistent with the true ties (:func:`is_topm_correct`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from math import factorial, lgamma, log, log10

from sysrs_ref._checks import check_int
from sysrs_ref._limits import check_need
from sysrs_ref.algorithms.driver import drive
from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import ALGORITHMS, ParamValue
from sysrs_ref.algorithms.successive_accepts_rejects import check_m
from sysrs_ref.draws import Draw
from sysrs_ref.errors import ParameterError, TooLargeToEnumerateError
from sysrs_ref.instance import Instance
from sysrs_ref.theory import exact_sar
from sysrs_ref.theory.exact import (
    DEFAULT_LIMIT,
    _check_limit,
    _prepare,
    _scientific,
    approximate,
    enumeration_need,
)
from sysrs_ref.topm import topm_errors

__all__ = ["is_topm_correct", "topm_distribution", "topm_enumeration_size", "topm_error_probability"]

_ENGINES = {"sar": exact_sar.sar_prefix_distribution, "sysar": exact_sar.sysar_prefix_distribution}


def _prepare_topm(
    instance: Instance, algorithm: str, budget: int, m: int, params: dict[str, ParamValue]
) -> tuple[str, int, AlgorithmParams]:
    """The registered name, m as an int, and the parsed parameters (m set to the target for SAR/SySAR)."""
    if not isinstance(instance, Instance):
        raise TypeError(f"instance must be an Instance, got {type(instance).__name__}")
    places = check_m(m, instance.n_models)
    name, typed = _prepare(instance, algorithm, budget, dict(params))  # params cannot hold m: it is our own argument
    return name, places, ALGORITHMS[name].for_target(typed, places)


def _brute_size(instance: Instance, name: str, budget: int, limit: int) -> int:
    """K! x (L! or (L!)^K) x budget evaluations of the brute force; past *limit*, refused (from logarithms first)."""
    check_int(limit, "limit")
    n_models, n_queries = instance.shape
    orders = 1 if ALGORITHMS[name].synchronized else n_models
    digits = (lgamma(n_models + 1) + orders * lgamma(n_queries + 1)) / log(10) + log10(budget)
    if digits > log10(max(limit, 1)) + 1e-9:  # far past the limit: the product of factorials is never built
        _refuse_brute(n_models, n_queries, name, budget, limit, _scientific(digits))
    size: int = factorial(n_models) * factorial(n_queries) ** orders * budget
    if size > limit:
        _refuse_brute(n_models, n_queries, name, budget, limit, approximate(size))
    return size


def _refuse_brute(n_models: int, n_queries: int, name: str, budget: int, limit: int, shown: str) -> None:
    raise TooLargeToEnumerateError(
        f"the top-m law of {name} on {n_models} x {n_queries} at budget {budget} is computed by running "
        f"every draw, about {shown} evaluations, over the limit of {approximate(limit)}; "
        "use a tiny instance (K = 3, L <= 4), sar or sysar, or raise --limit"
    )


def _topm_size(instance: Instance, name: str, budget: int, limit: int) -> int:
    """The work of the top-m law of a checked case: SAR's and SySAR's DP bound or the brute force's; past *limit*, refused."""
    if name in _ENGINES:
        return _check_limit(instance, name, budget, limit)
    return _brute_size(instance, name, budget, limit)


def topm_enumeration_size(
    instance: Instance, algorithm: str, budget: int, m: int, *, limit: int = DEFAULT_LIMIT, **params: ParamValue
) -> int:
    """An upper bound on the work of :func:`topm_distribution`, computed cheaply, if at most *limit*.

    For ``sar`` and ``sysar``, the DP bound of
    :func:`~sysrs_ref.theory.exact.enumeration_size`; for the other
    algorithms, the evaluations of the brute force: K! x (L! or (L!)^K draws)
    x budget. Above *limit*,
    :class:`~sysrs_ref.errors.TooLargeToEnumerateError` with the message of
    :func:`topm_distribution`; the brute force's count is checked in log space
    first, so a large L costs nothing.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 0], [1, 0, 1], [0, 0, 1]])
    >>> topm_enumeration_size(inst, "sysar", 6, 2), topm_enumeration_size(inst, "sysrs", 6, 2)
    (54, 216)
    >>> topm_enumeration_size(Instance([[0] * 10**4, [1] * 10**4]), "sr", 10**4, 1)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.TooLargeToEnumerateError: the top-m law of sr on 2 x 10000 at budget 10000 is computed by running every draw, about 1.6e+71323 evaluations, over the limit of 1e+07; use a tiny instance (K = 3, L <= 4), sar or sysar, or raise --limit
    """
    name, _, _ = _prepare_topm(instance, algorithm, budget, m, dict(params))
    return _topm_size(instance, name, budget, limit)


def topm_distribution(
    instance: Instance,
    algorithm: str,
    budget: int,
    m: int,
    *,
    limit: int = DEFAULT_LIMIT,
    **params: ParamValue,
) -> dict[tuple[int, ...], Fraction]:
    """The exact law of ``ranking[:m]`` (the predicted top-m set, in ranking order) over a uniform draw.

    Keys are the prefixes that occur (sorted), values their probabilities
    (positive Fractions summing to 1). *m* must satisfy 1 <= m <= K - 1
    (ParameterError); for ``sar`` and ``sysar`` it is also their parameter
    ``m``, passed through. Other *params* as for :func:`~sysrs_ref.theory.exact.outcome_distribution`.
    Raises :class:`~sysrs_ref.errors.TooLargeToEnumerateError` when
    :func:`topm_enumeration_size` exceeds *limit*.

    SySAR with m = 2, every query seen (n = K*L): models 0 and 1, the clearer one first:

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> topm_distribution(inst, "sysar", 9, 2)
    {(0, 1): Fraction(1, 1)}
    >>> topm_distribution(inst, "sysrs", 9, 2)   # by brute force: SySRs' two last eliminated
    {(0, 1): Fraction(1, 1)}
    """
    name, places, full = _prepare_topm(instance, algorithm, budget, m, dict(params))
    size = _topm_size(instance, name, budget, limit)
    check_need(enumeration_need(*instance.shape, name, budget, size))
    if name in _ENGINES:
        return _ENGINES[name](instance, budget, places)
    return _brute_force(instance, name, budget, places, full)


def _brute_force(
    instance: Instance, name: str, budget: int, m: int, params: AlgorithmParams
) -> dict[tuple[int, ...], Fraction]:
    spec = ALGORITHMS[name]
    n_models, n_queries = instance.shape
    orders = list(itertools.permutations(range(n_queries)))
    order_tuples: Iterable[tuple[tuple[int, ...], ...]] = (
        [(order,) for order in orders] if spec.synchronized else itertools.product(orders, repeat=n_models)
    )
    counts: dict[tuple[int, ...], int] = {}
    total = 0
    for query_orders in order_tuples:
        for priority in itertools.permutations(range(n_models)):
            outcome = drive(spec.run(budget, Draw(tuple(query_orders), priority), params), instance)
            prefix = outcome.ranking[:m]
            counts[prefix] = counts.get(prefix, 0) + 1
            total += 1
    return {prefix: Fraction(count, total) for prefix, count in sorted(counts.items())}


def is_topm_correct(instance: Instance, predicted: Sequence[int]) -> bool:
    """Whether *predicted* is the top-m set (m = its length) of some ranking consistent with the true ties.

    With the true tiers (:attr:`~sysrs_ref.instance.Instance.tiers`, equal
    exact means, best first), it must hold every model of the tiers lying
    entirely within the first m positions, its other members coming from the
    tier that straddles position m. ParameterError unless *predicted* holds
    1 to K - 1 distinct models of the instance.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1], [1, 0], [0, 1], [0, 0]])   # tiers (0,), (1, 2), (3,)
    >>> is_topm_correct(inst, (0, 2)), is_topm_correct(inst, (1, 0)), is_topm_correct(inst, (1, 2))
    (True, True, False)
    """
    chosen = tuple(predicted)
    n_models = instance.n_models
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(range(n_models)):
        raise ParameterError(f"a predicted top-m set must hold distinct models 0..{n_models - 1}, got {predicted!r}")
    m = check_m(len(chosen), n_models)
    return topm_errors(chosen, instance, m).identification == 0  # the one implementation of the tie rule


def topm_error_probability(
    instance: Instance,
    algorithm: str,
    budget: int,
    m: int,
    *,
    limit: int = DEFAULT_LIMIT,
    **params: ParamValue,
) -> Fraction:
    """The exact probability that ``ranking[:m]`` is not a correct top-m set (paper's tie rule).

    1 - P(:func:`is_topm_correct`) under the law of :func:`topm_distribution`
    (same arguments and errors). For m = 1 it equals
    :func:`~sysrs_ref.theory.exact.error_probability`.

    >>> from sysrs_ref import Instance
    >>> inst = Instance([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> topm_error_probability(inst, "sysar", 3, 2)   # nothing seen: right on 2 of the 6 ordered pairs
    Fraction(2, 3)
    """
    law = topm_distribution(instance, algorithm, budget, m, limit=limit, **params)
    return 1 - sum((p for prefix, p in law.items() if is_topm_correct(instance, prefix)), Fraction(0))
