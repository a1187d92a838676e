"""UCB-E-LRF with numpy (issue 9, in progress): the ensemble fitted all members at once, and budget checkpoints.

:func:`fit_ensemble_fast` is :func:`~sysrs_ref.algorithms.lrf_model.fit_ensemble`
with the C members stacked in arrays: the same stream (SplitMix64 in uint64
arithmetic, the same indices), the same dropout, initial factors, ALS sweeps
and ensemble statistics, so only the order of floating-point additions
differs (agreement to 1e-10 on [0, 1] scores, tested); rank 1, the paper's
setting, uses batched matrix-vector products instead of r x r solves.
:func:`run_lrf` replays the reference's run and records, at every budget of a
grid, the choice a separate run with that budget would make (the prefix of
the requests up to the budget, then the final fit with the next fit number).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams
from sysrs_ref.algorithms.lrf_model import GAMMA
from sysrs_ref.schedule import check_budget

__all__ = ["fit_ensemble_fast", "run_lrf", "uniforms"]

FloatArray = npt.NDArray[np.float64]


def uniforms(seed: int, indices: npt.NDArray[np.uint64]) -> FloatArray:
    """The stream's uniforms at *indices*, vectorized (:func:`~sysrs_ref.algorithms.lrf_model.uniform`).

    >>> from sysrs_ref.algorithms.lrf_model import uniform
    >>> float(uniforms(5, np.array([3], dtype=np.uint64))[0]) == uniform(5, 3)
    True
    """
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps modulo 2^64, as SplitMix64 wants
        z = indices + np.uint64(1)
        z *= np.uint64(GAMMA)
        z += np.uint64(seed)
        for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            z ^= z >> np.uint64(shift)
            z *= np.uint64(factor)
        z ^= z >> np.uint64(31)
        z >>= np.uint64(11)
    out: FloatArray = z.astype(np.float64)
    out *= 2.0**-53
    return out


def fit_ensemble_fast(
    scores: FloatArray, seed: int, fit: int, params: LRFParams, ddof: int = 1
) -> tuple[FloatArray, FloatArray]:
    """(S-hat, R) of fit *fit*: the ensemble mean and standard deviation, K x L; NaN in *scores* = not observed."""
    n_models, n_queries = scores.shape
    rank, members = params.rank, params.members
    cells = n_models * n_queries
    block = cells + 2 * (n_models + n_queries) * rank
    base = (np.arange(members, dtype=np.uint64) + np.uint64(members * fit)) * np.uint64(block)  # (C,)
    observed = ~np.isnan(scores)
    seen = np.flatnonzero(observed).astype(np.uint64)  # only observed cells need their dropout uniform
    mask = np.zeros((members, cells))
    mask[:, seen.astype(np.intp)] = uniforms(seed, base[:, None] + seen[None, :]) >= params.dropout
    mask = mask.reshape(members, n_models, n_queries)  # (C, K, L): 1 where member c uses the cell
    values = np.where(observed, scores, 0.0)

    def normals(start: int, count: int) -> FloatArray:
        offsets = np.uint64(start) + 2 * np.arange(count, dtype=np.uint64)
        u1 = uniforms(seed, base[:, None] + offsets[None, :])
        u2 = uniforms(seed, base[:, None] + offsets[None, :] + np.uint64(1))
        z: FloatArray = np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * np.pi * u2)
        return z

    u = normals(cells, n_models * rank).reshape(members, n_models, rank)
    v = normals(cells + 2 * n_models * rank, n_queries * rank).reshape(members, n_queries, rank)
    weighted = mask * values[None]  # (C, K, L)
    eye = params.ridge * np.eye(rank)
    if rank == 1:  # batched matrix-vector products (BLAS): sum_i m_cij u_ci^2 and sum_i m_cij s_ij u_ci
        a, b = u[:, :, 0], v[:, :, 0]
        for _ in range(params.sweeps):
            b = (a[:, None, :] @ weighted)[:, 0] / (((a * a)[:, None, :] @ mask)[:, 0] + params.ridge)
            a = (weighted @ b[:, :, None])[:, :, 0] / ((mask @ (b * b)[:, :, None])[:, :, 0] + params.ridge)
        products = a[:, :, None] * b[:, None, :]
    else:
        for _ in range(params.sweeps):
            gram = np.einsum("cij,cip,ciq->cjpq", mask, u, u) + eye
            v = np.linalg.solve(gram, np.einsum("cij,cip->cjp", weighted, u)[..., None])[..., 0]
            gram = np.einsum("cij,cjp,cjq->cipq", mask, v, v) + eye
            u = np.linalg.solve(gram, np.einsum("cij,cjp->cip", weighted, v)[..., None])[..., 0]
        products = np.einsum("cip,cjp->cij", u, v)
    mean: FloatArray = products.mean(axis=0)
    spread: FloatArray = products.std(axis=0, ddof=ddof) if members > ddof else np.zeros_like(mean)
    return mean, spread


def _estimates(scores: FloatArray, mean: FloatArray, spread: FloatArray, bonus: float, on_observed: bool) -> FloatArray:
    observed = ~np.isnan(scores)
    value = np.where(observed, scores, mean)
    extra = bonus * spread if on_observed else np.where(observed, 0.0, bonus * spread)
    out: FloatArray = (value + extra).sum(axis=1) / scores.shape[1]
    return out


def run_lrf(
    matrix: Sequence[Sequence[float]] | FloatArray,
    budgets: Sequence[int],
    draw: LRFDraw,
    params: LRFParams | None = None,
) -> list[tuple[int, ...]]:
    """The ranking UCB-E-LRF returns at each of *budgets*, from one run to the largest (checkpoints).

    Entry b is what ``drive(ucbe_lrf(budgets[b], draw, params), Instance(matrix))`` returns as
    its ranking (up to float rounding in the fits; tested).

    >>> from sysrs_ref.algorithms.lrf import random_lrf_draw
    >>> small = LRFParams(batch=2, members=3, sweeps=2)
    >>> [r[0] for r in run_lrf([[1, 1, 1, 0], [0, 0, 1, 0]], [2, 8], random_lrf_draw(1, 2, 4), small)]
    [0, 0]
    """
    settings = params if params is not None else LRFParams()
    truth = np.asarray(matrix, dtype=np.float64)
    n_models, n_queries = truth.shape
    if (draw.n_models, draw.n_queries) != (n_models, n_queries):
        raise ValueError(f"the draw is for {draw.n_models} x {draw.n_queries}, the matrix is {n_models} x {n_queries}")
    grid = sorted({check_budget(b, n_models, n_queries) for b in budgets})
    rank = np.empty(n_models, dtype=np.int64)
    rank[np.asarray(draw.arm_priority)] = np.arange(n_models)
    where = np.empty(n_models * n_queries, dtype=np.int64)
    where[np.asarray(draw.cell_order)] = np.arange(n_models * n_queries)
    observed = np.full((n_models, n_queries), np.nan)
    results: dict[int, tuple[int, ...]] = {}
    pending = list(grid)
    fit = 0

    def evaluate(cells: Sequence[tuple[int, int]], spent: int) -> int:
        """Evaluate *cells* in order; at each checkpoint inside, the final choice on what is seen there."""
        for model, query in cells:
            observed[model, query] = truth[model, query]
            spent += 1
            if pending and spent == pending[0]:
                mean, _ = fit_ensemble_fast(observed, draw.seed, fit, settings)
                final = _estimates(observed, mean, np.zeros_like(mean), 0.0, False)
                results[pending.pop(0)] = tuple(int(m) for m in np.lexsort((rank, -final)))
        return spent

    warm = min(grid[-1], int(settings.warmup * n_models * n_queries / 100))
    spent = evaluate([(cell // n_queries, cell % n_queries) for cell in draw.cell_order[:warm]], 0)
    while pending:
        open_models = np.flatnonzero(np.isnan(observed).any(axis=1))
        mean, spread = fit_ensemble_fast(observed, draw.seed, fit, settings)
        fit += 1
        index = _estimates(observed, mean, spread, settings.eta, settings.bonus_on_observed)
        if settings.unseen_first:
            index = np.where(np.isnan(observed).all(axis=1), np.inf, index)
        best = open_models[np.lexsort((rank[open_models], -index[open_models]))[0]]
        free = np.flatnonzero(np.isnan(observed[best]))
        free = free[np.lexsort((where[best * n_queries + free], -spread[best, free]))]
        spent = evaluate([(int(best), int(q)) for q in free[: min(settings.batch, pending[-1] - spent)]], spent)
    return [results[b] for b in budgets]
