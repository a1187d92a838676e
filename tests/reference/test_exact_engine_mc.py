"""Monte Carlo agreement of the exact engine with an independent numpy simulator.

The simulator below re-implements the six algorithms from the paper's
description (it never calls the package's algorithms; it only uses the SR
schedule, which is a specification), vectorized over runs, with scores as
integers (numerators over a common denominator) so sums and means compare
exactly; UCB indices are floats compared with a 1e-9 tolerance, far below
the gap between distinct indices on these tiny instances and far above
rounding, so exact index ties are ties.

For each instance and algorithm, R = 10^5 runs with a fixed seed; the
simulated error must lie within 4 standard errors sqrt(p(1-p)/R) of the exact
value p. Under a normal approximation a correct engine fails one comparison
with probability about 6e-5, all 12 with probability about 8e-4; the seed is
fixed, so the test is deterministic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pytest

from sysrs_ref import Instance, ScoreLike
from sysrs_ref.schedule import schedule
from sysrs_ref.theory import error_probability

IntArray = npt.NDArray[np.int64]
RUNS = 100_000
SEED = 20240611

#: K = 4, L = 4, fractional scores; means 5/8, 9/16, 1/2, 9/16
FRACTIONAL_4X4: list[list[ScoreLike]] = [
    [1, Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)],
    [Fraction(3, 4), Fraction(3, 4), Fraction(1, 4), Fraction(1, 2)],
    [Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)],
    [Fraction(1, 4), 1, Fraction(1, 2), Fraction(1, 2)],
]

INSTANCES = {
    # K = 3, L = 5, binary, rows positively correlated; means 3/5, 2/5, 2/5
    "binary-3x5": (Instance([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [1, 0, 1, 0, 0]]), 7),
    "fractional-4x4": (Instance(FRACTIONAL_4X4), 8),
}


def _draw(
    rng: np.random.Generator, runs: int, n_models: int, n_queries: int, synchronized: bool
) -> tuple[IntArray, IntArray]:
    """Ranks (runs x K; 0 wins ties) and query orders (runs x K x L; equal rows if synchronized)."""
    ranks = np.argsort(rng.random((runs, n_models)), axis=1).argsort(axis=1)
    count = 1 if synchronized else n_models
    orders = np.argsort(rng.random((runs, count, n_queries)), axis=2)
    if synchronized:
        orders = np.repeat(orders, n_models, axis=1)
    return ranks.astype(np.int64), orders.astype(np.int64)


def simulate(instance: Instance, algorithm: str, budget: int, a: float, seed: int) -> float:
    """Fraction of RUNS in which *algorithm* returns a model that is not a best one."""
    rng = np.random.default_rng(seed)
    n_models, n_queries = instance.shape
    scores = np.array(instance.numerators, dtype=np.int64)  # S * D
    scale = instance.denominator
    synchronized = algorithm.startswith("sy")
    ranks, orders = _draw(rng, RUNS, n_models, n_queries, synchronized)
    values = np.take_along_axis(np.broadcast_to(scores, (RUNS, n_models, n_queries)), orders, axis=2)
    runs = np.arange(RUNS)
    if algorithm in ("us", "syus"):
        sums = values[:, :, : budget // n_models].sum(axis=2)
        chosen = np.argmax(sums * n_models + (n_models - 1 - ranks), axis=1)
    elif algorithm in ("sr", "sysrs"):
        active = np.ones((RUNS, n_models), dtype=bool)
        for n_k in schedule(n_models, n_queries, budget):
            key = values[:, :, :n_k].sum(axis=2) * n_models + (n_models - 1 - ranks)
            worst = np.argmin(np.where(active, key, np.iinfo(np.int64).max), axis=1)
            active[runs, worst] = False
        chosen = np.argmax(active, axis=1)
    else:
        counts = np.ones((RUNS, n_models), dtype=np.int64)
        sums = values[:, :, 0].copy()
        for _ in range(budget - n_models):
            index = sums / (scale * counts) + np.sqrt(a / counts)
            index = np.where(counts < n_queries, index, -np.inf)
            top = index.max(axis=1, keepdims=True)
            tied = index >= top - 1e-9
            pick = np.argmin(np.where(tied, ranks, n_models), axis=1)
            live = np.isfinite(top[:, 0])
            position = np.minimum(counts[runs, pick], n_queries - 1)
            sums[runs, pick] += np.where(live, values[runs, pick, position], 0)
            counts[runs, pick] += live
        # largest mean, ties to the earlier priority: compare sums_i / counts_i exactly
        lcm = math.lcm(*range(1, n_queries + 1))
        means = sums * (lcm // counts)
        chosen = np.argmax(means * n_models + (n_models - 1 - ranks), axis=1)
    best = np.array([instance.is_best(m) for m in range(n_models)])
    return float(np.mean(~best[chosen]))


@pytest.mark.parametrize("name", sorted(INSTANCES))
@pytest.mark.parametrize("algorithm", ["us", "syus", "sr", "sysrs", "ucbe", "syucbe"])
def test_monte_carlo_agrees_with_exact(name: str, algorithm: str) -> None:
    instance, budget = INSTANCES[name]
    exact = error_probability(instance, algorithm, budget, **({"a": 1} if "ucb" in algorithm else {}))
    simulated = simulate(instance, algorithm, budget, 1.0, SEED)
    p = float(exact)
    standard_error = math.sqrt(p * (1 - p) / RUNS)
    assert abs(simulated - p) <= 4 * standard_error, (simulated, exact)
    assert 0 < p < 1  # a non-trivial comparison (else the bound above is an equality test)
