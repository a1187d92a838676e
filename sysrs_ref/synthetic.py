"""Synthetic benchmarks with correlated models, for the demo and for tests.

:func:`irt_benchmark` draws a binary score matrix from a two-parameter
item-response model: model i has ability theta_i, query j has difficulty b_j
and discrimination alpha_j, and S_ij = 1 with probability
sigmoid(alpha_j (theta_i - b_j)). Because every model meets the same easy
and hard queries, models' scores are positively correlated across queries,
the structure SySRs exploits.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._checks import generator_of
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.instance import Instance

__all__ = ["irt_benchmark", "irt_probabilities"]

FloatMatrix = npt.NDArray[np.float64]


def irt_benchmark(n_models: int = 30, n_queries: int = 2000, seed: int = 0) -> Instance:
    """A seeded K x L binary benchmark from a 2PL item-response model, best model in row 0.

    Abilities are theta_i = 1 + 0.5 z_i with z_i standard normal, so the best
    models are close (a hard but realistic selection problem); difficulties are
    N(0, 1.5^2), discriminations log-normal(0.3, 0.3). The draw uses only
    ``numpy.random.default_rng(seed)``, so the same seed gives the same matrix
    (for a given numpy version). Rows are sorted by decreasing mean, ties by row.

    >>> inst = irt_benchmark(5, 200, seed=1)
    >>> inst.shape, inst.is_best(0)
    ((5, 200), True)
    """
    return Instance(irt_probabilities(n_models, n_queries, seed)[1])


def irt_probabilities(
    n_models: int = 30, n_queries: int = 2000, seed: int = 0, *, spread: float | Fraction = 0.5
) -> tuple[FloatMatrix, FloatMatrix]:
    """The success probabilities p_ij of a 2PL item-response benchmark and one 0/1 matrix drawn from them.

    Abilities are theta_i = 1 + spread z_i (z_i standard normal, sorted
    decreasing), difficulties N(0, 1.5^2), discriminations log-normal(0.3,
    0.3), p_ij = sigmoid(alpha_j (theta_i - b_j)), and S_ij = 1 when a uniform
    draw is below p_ij, all from ``numpy.random.default_rng(seed)`` in that
    order. Both matrices have their rows sorted by the drawn matrix's
    decreasing mean (ties by row), so at spread 1/2 the drawn matrix is
    exactly :func:`irt_benchmark`'s. Read p with
    ``StochasticInstance.bernoulli(p)`` for a stochastic benchmark whose truth
    is p's row means. About six K x L float64 arrays are held at once: sizes
    beyond this machine's memory are refused up front with a TooLargeError.

    >>> p, drawn = irt_probabilities(4, 100, seed=1)
    >>> p.shape, bool(((p > 0) & (p < 1)).all()), bool((drawn == irt_benchmark(4, 100, seed=1).array).all())
    ((4, 100), True, True)
    """
    if n_models < 2 or n_queries < 1:
        raise ValueError(f"need at least 2 models and 1 query, got {n_models} x {n_queries}")
    check_need(
        Need(
            f"an IRT benchmark of {matrix_shape(n_models, n_queries)}",
            "about six K x L arrays of float64; O(K L)",
            memory=48 * n_models * n_queries,
            seconds=1e-7 * n_models * n_queries,
        )
    )
    rng = generator_of(seed, "seed")
    ability = 1.0 + float(spread) * np.sort(rng.normal(0.0, 1.0, n_models))[::-1]
    difficulty = rng.normal(0.0, 1.5, n_queries)
    # lognormal(0.3, 0.3) is exp(normal(0.3, 0.3)) on the same draws; exp and the logistic in a fixed order
    # (sysrs_ref._fixed_order), not by the C library's exp: the same benchmark on every machine
    discrimination = fixed_order.exp(rng.normal(0.3, 0.3, n_queries))
    logits = discrimination[None, :] * (ability[:, None] - difficulty[None, :])
    probability: FloatMatrix = fixed_order.sigmoid(logits)
    scores = (rng.random((n_models, n_queries)) < probability).astype(np.float64)
    order = np.argsort(-scores.mean(axis=1), kind="stable")
    return probability[order], scores[order]
