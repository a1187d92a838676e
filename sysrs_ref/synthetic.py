"""Synthetic benchmarks with correlated models, for the demo and for tests.

:func:`irt_benchmark` draws a binary score matrix from a two-parameter
item-response model: model i has ability theta_i, query j has difficulty b_j
and discrimination alpha_j, and S_ij = 1 with probability
sigmoid(alpha_j (theta_i - b_j)). Because every model meets the same easy
and hard queries, models' scores are positively correlated across queries,
the structure SySRs exploits.
"""

from __future__ import annotations

import numpy as np

from sysrs_ref._checks import generator_of
from sysrs_ref.instance import Instance

__all__ = ["irt_benchmark"]


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
    if n_models < 2 or n_queries < 1:
        raise ValueError(f"need at least 2 models and 1 query, got {n_models} x {n_queries}")
    rng = generator_of(seed, "seed")
    ability = 1.0 + 0.5 * np.sort(rng.normal(0.0, 1.0, n_models))[::-1]
    difficulty = rng.normal(0.0, 1.5, n_queries)
    discrimination = rng.lognormal(0.3, 0.3, n_queries)
    logits = discrimination[None, :] * (ability[:, None] - difficulty[None, :])
    probability = 1.0 / (1.0 + np.exp(-logits))
    scores = (rng.random((n_models, n_queries)) < probability).astype(np.float64)
    order = np.argsort(-scores.mean(axis=1), kind="stable")
    return Instance(scores[order])
