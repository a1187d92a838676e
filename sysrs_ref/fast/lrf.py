"""UCB-E-LRF's fast path: its ensemble fits in numpy and in C, and the one control loop driven with them.

Two :class:`~sysrs_ref.algorithms.lrf.EnsembleFit` routines to pass as
``fit=`` to :func:`~sysrs_ref.select`, :func:`~sysrs_ref.algorithms.lrf.ucbe_lrf`
or :meth:`~sysrs_ref.algorithms.registry.AlgorithmSpec.run` (the reference's
pure-Python fit, their default, takes tens of seconds per fit on a shipped
benchmark): :func:`fit_ensemble_compiled`, the compiled fit (the reference's
doubles bit for bit, no BLAS) where it was built and the rank is 1, else the
numpy fit; and :func:`fit_ensemble_fast`, the numpy fit (the reference's to
1e-10, the same doubles whatever was built), which the command line's
``select`` and live sessions use.

:func:`run_lrf` is not a second copy of UCB-E-LRF: it answers the requests
of the step generator :func:`~sysrs_ref.algorithms.lrf.ucbe_lrf_rankings`
(the loop of :func:`~sysrs_ref.algorithms.lrf.ucbe_lrf`, run to the largest
budget and making the choice at every smaller one) from the score matrix,
with :func:`fit_ensemble_compiled`; :func:`lrf_rankings` does so for the runs
of a simulation.

>>> from sysrs_ref import irt_benchmark, select
>>> small = irt_benchmark(6, 40, seed=0)
>>> select(small, "30%", "ucbe-lrf", seed=1, fit=fit_ensemble_compiled).chosen
1
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.lrf import (
    FloatArray,
    LRFDraw,
    LRFParams,
    Ranking,
    RankingsRun,
    random_lrf_draw,
    ucbe_lrf_rankings,
)
from sysrs_ref.fast import _compiled
from sysrs_ref.fast._lrf_numpy import fit_ensemble_fast

__all__ = ["fit_ensemble_compiled", "fit_ensemble_fast", "lrf_rankings", "run_lrf"]


def fit_ensemble_compiled(
    scores: FloatArray, seed: int, fit: int, params: LRFParams, ddof: int = 1
) -> tuple[FloatArray, FloatArray]:
    """(S-hat, R) of fit *fit*: compiled where built and switched on (rank 1), else :func:`fit_ensemble_fast`.

    An :class:`~sysrs_ref.algorithms.lrf.EnsembleFit`. The compiled fit sums
    in the reference's order (docs/contracts.md 11.5), so its doubles are the
    reference's :func:`~sysrs_ref.algorithms.lrf.fit_ensemble_reference`'s,
    bit for bit and on every processor; the numpy fit agrees with them to 1e-10.

    >>> from sysrs_ref.algorithms.lrf import fit_ensemble_reference
    >>> scores = np.array([[1.0, np.nan, 0.0], [0.5, 1.0, np.nan]])
    >>> mean, spread = fit_ensemble_compiled(scores, 9, 0, LRFParams(members=3, sweeps=2))
    >>> want = fit_ensemble_reference(scores, 9, 0, LRFParams(members=3, sweeps=2))
    >>> bool(np.allclose(mean, want[0], rtol=0, atol=1e-12) and np.allclose(spread, want[1], rtol=0, atol=1e-12))
    True
    """
    module = _compiled.library()
    if module is not None:
        out = _compiled.lrf_fit(module, scores, seed, fit, params, ddof)
        if out is not None:
            return out
    return fit_ensemble_fast(scores, seed, fit, params, ddof)


def run_lrf(
    matrix: Sequence[Sequence[float]] | FloatArray,
    budgets: Sequence[int],
    draw: LRFDraw,
    params: LRFParams | None = None,
) -> list[tuple[int, ...]]:
    """The ranking UCB-E-LRF returns at each of *budgets*, from one run to the largest (checkpoints).

    Drives ``ucbe_lrf_rankings(budgets, draw, params, fit=fit_ensemble_compiled)``
    against *matrix*, so entry b is exactly what
    ``drive(ucbe_lrf(budgets[b], draw, params, fit=fit_ensemble_compiled), Instance(matrix))``
    returns as its ranking: the reference's ranking where the compiled fit
    runs (the same doubles), and where numpy fits (as
    :func:`~sysrs_ref.select` does), the reference's up to float rounding in
    the fits (tested).
    ValueError if the draw is for another shape; BudgetError for a budget
    outside [K, K L].

    >>> from sysrs_ref.algorithms.lrf import random_lrf_draw
    >>> small = LRFParams(batch=2, members=3, sweeps=2)
    >>> [r[0] for r in run_lrf([[1, 1, 1, 0], [0, 0, 1, 0]], [2, 8], random_lrf_draw(1, 2, 4), small)]
    [0, 0]
    """
    truth = np.asarray(matrix, dtype=np.float64)
    if truth.ndim != 2 or (draw.n_models, draw.n_queries) != truth.shape:
        raise ValueError(f"the draw is for {draw.n_models} x {draw.n_queries}, the matrix has shape {truth.shape}")
    return _answer(ucbe_lrf_rankings(budgets, draw, params, fit=fit_ensemble_compiled), truth)


def _answer(run: RankingsRun, truth: FloatArray) -> list[Ranking]:
    """Drive *run* to its end, answering every request (model, query) with ``truth[model, query]``."""
    try:
        batch = next(run)
        while True:
            batch = run.send(truth[[r.model for r in batch], [r.query for r in batch]].tolist())
    except StopIteration as stop:
        rankings: list[Ranking] = stop.value
    return rankings


def lrf_rankings(
    matrix: FloatArray, budgets: Sequence[int], seed: int, start: int, stop: int, params: LRFParams
) -> npt.NDArray[np.int32]:
    """Rankings (runs, budgets, K) of runs *start* .. *stop* - 1 of a simulation seeded *seed*.

    Run r's draw is ``random_lrf_draw(default_rng(SeedSequence(seed, spawn_key=(r,))), K, L)``,
    the same child stream as the other algorithms' draws (:func:`~sysrs_ref.simulation.simulation_draws`);
    each run serves every budget (:func:`run_lrf`).

    >>> lrf_rankings(np.array([[1.0, 1, 0], [0, 0, 1]]), [3, 6], 0, 0, 2, LRFParams(members=2, sweeps=1)).shape
    (2, 2, 2)
    """
    n_models, n_queries = matrix.shape
    out = np.empty((stop - start, len(budgets), n_models), dtype=np.int32)
    for run in range(start, stop):
        child = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))
        out[run - start] = run_lrf(matrix, budgets, random_lrf_draw(child, n_models, n_queries), params)
    return out
