"""UCB-E-LRF's numpy fit: the reference's ensemble with the C members stacked in arrays.

:func:`fit_ensemble_fast` is :func:`~sysrs_ref.algorithms.lrf_model.fit_ensemble`
with the C members stacked in arrays: the same stream (SplitMix64 in uint64
arithmetic, the same indices), the same dropout, initial factors, ALS sweeps
and ensemble statistics, so only the order of floating-point additions
differs (agreement to 1e-10 on [0, 1] scores, tested); rank 1, the paper's
setting, uses batched matrix-vector products instead of r x r solves.

It is an :class:`~sysrs_ref.algorithms.lrf.EnsembleFit`, so the one control
loop of UCB-E-LRF (:func:`~sysrs_ref.algorithms.lrf.ucbe_lrf`) runs with it;
:mod:`sysrs_ref.fast.lrf` exports it.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sysrs_ref._fixed_order import matmul, solve
from sysrs_ref.algorithms.lrf import FloatArray, LRFParams
from sysrs_ref.algorithms.lrf_model import GAMMA, dropout_table

__all__ = ["dropped_cells", "fit_ensemble_fast", "uniforms"]


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


def dropped_cells(
    seed: int, base: npt.NDArray[np.uint64], seen: npt.NDArray[np.intp], dropout: float, first: int | None = None
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """(member, cell) of every observed cell a member leaves out: the reference's gap walk, for all members at once.

    *base* holds each member's first stream index, *seen* the observed cells in
    increasing order. Enough gaps for about q N drops plus eight standard
    deviations are drawn at once (*first*, if given, instead); while a
    member's walk has not passed N, all get twice as many (the same uniforms,
    more of them).

    >>> from sysrs_ref.algorithms.lrf_model import dropped_ranks, dropout_table
    >>> member, cell = dropped_cells(3, np.array([0, 500], dtype=np.uint64), np.arange(100) * 2, 0.2)
    >>> [int(c) // 2 for c in cell[member == 1]] == dropped_ranks(3, 500, 100, dropout_table(0.2))
    True
    """
    table = np.array(dropout_table(dropout))
    count = len(seen)
    if table.size == 0 or count == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    draws = min(count + 1, first or int(count * dropout + 8 * math.sqrt(count * dropout) + 16))
    while True:
        u = uniforms(seed, base[:, None] + np.arange(draws, dtype=np.uint64)[None, :])
        ranks = np.cumsum(np.searchsorted(table, u, side="right") + 1, axis=1) - 1  # d_k = sum of (G + 1) - 1
        if draws == count + 1 or bool((ranks[:, -1] >= count).all()):
            break
        draws = min(count + 1, 2 * draws)
    member, position = np.nonzero(ranks < count)
    return member, seen[ranks[member, position]]


def fit_ensemble_fast(
    scores: FloatArray, seed: int, fit: int, params: LRFParams, ddof: int = 1
) -> tuple[FloatArray, FloatArray]:
    """(S-hat, R) of fit *fit*: the ensemble mean and standard deviation, K x L; NaN in *scores* = not observed.

    Rank 1 (the paper's setting) never forms a member's masked data: member c's
    sums ``sum_i m_cij u_ci^2`` and ``sum_i m_cij s_ij u_ci`` are the products
    of its factors with the shared observed matrices (one matrix product for
    all members) less the few cells its dropout leaves out (a bincount).

    >>> from sysrs_ref.algorithms.lrf_model import fit_ensemble
    >>> scores = np.array([[1.0, np.nan, 0.0], [0.5, 1.0, np.nan]])
    >>> mean, spread = fit_ensemble_fast(scores, 9, 0, LRFParams(members=3, sweeps=2))
    >>> want = fit_ensemble([[1.0, None, 0.0], [0.5, 1.0, None]], 9, 0, members=3, sweeps=2)
    >>> bool(np.allclose(mean, want.mean, atol=1e-12) and np.allclose(spread, want.spread, atol=1e-12))
    True
    """
    n_models, n_queries = scores.shape
    rank, members = params.rank, params.members
    cells = n_models * n_queries
    block = cells + 1 + 2 * (n_models + n_queries) * rank
    base = (np.arange(members, dtype=np.uint64) + np.uint64(members * fit)) * np.uint64(block)  # (C,)
    observed = ~np.isnan(scores)
    member, cell = dropped_cells(seed, base, np.flatnonzero(observed), params.dropout)
    model, query = np.divmod(cell, n_queries)
    values = np.where(observed, scores, 0.0)
    ones = observed.astype(np.float64)
    values_t, ones_t = np.ascontiguousarray(values.T), np.ascontiguousarray(ones.T)  # einsum's fast layout

    def normals(start: int, count: int) -> FloatArray:
        offsets = np.uint64(start) + 2 * np.arange(count, dtype=np.uint64)
        u1 = uniforms(seed, base[:, None] + offsets[None, :])
        u2 = uniforms(seed, base[:, None] + offsets[None, :] + np.uint64(1))
        z: FloatArray = np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * np.pi * u2)
        return z

    u = normals(cells + 1, n_models * rank).reshape(members, n_models, rank)
    v = normals(cells + 1 + 2 * n_models * rank, n_queries * rank).reshape(members, n_queries, rank)
    if rank == 1:
        a, b = u[:, :, 0], v[:, :, 0]
        dropped_values = values[model, query]
        to_query, to_model = member * n_queries + query, member * n_models + model

        def less_dropped(total: FloatArray, where: npt.NDArray[np.intp], weights: FloatArray) -> FloatArray:
            out: FloatArray = total - np.bincount(where, weights, minlength=total.size).reshape(total.shape)
            return out

        for _ in range(params.sweeps):
            a_cells = a.take(to_model)  # a[member, model], by flat index
            numerator = less_dropped(matmul(a, values), to_query, a_cells * dropped_values)
            b = numerator / (less_dropped(matmul(a * a, ones), to_query, a_cells * a_cells) + params.ridge)
            b_cells = b.take(to_query)
            numerator = less_dropped(matmul(b, values_t), to_model, b_cells * dropped_values)
            a = numerator / (less_dropped(matmul(b * b, ones_t), to_model, b_cells * b_cells) + params.ridge)
        return _rank_one_statistics(a, b, ddof)
    else:
        mask = np.broadcast_to(ones, (members, n_models, n_queries)).copy()  # (C, K, L): 1 where member c uses the cell
        mask[member, model, query] = 0.0
        weighted = mask * values[None]
        eye = params.ridge * np.eye(rank)
        for _ in range(params.sweeps):
            gram = np.einsum("cij,cip,ciq->cjpq", mask, u, u) + eye
            v = solve(gram, np.einsum("cij,cip->cjp", weighted, u)[..., None])[..., 0]
            gram = np.einsum("cij,cjp,cjq->cipq", mask, v, v) + eye
            u = solve(gram, np.einsum("cij,cjp->cip", weighted, v)[..., None])[..., 0]
        products = np.einsum("cip,cjp->cij", u, v)
    mean: FloatArray = products.mean(axis=0)
    spread: FloatArray = products.std(axis=0, ddof=ddof) if members > ddof else np.zeros_like(mean)
    return mean, spread


#: Below this one-pass variance a cell's spread is recomputed in two passes (see _rank_one_statistics).
TWO_PASS_BELOW = 1e-6
#: ... unless its products are all this small (mean square): the cancellation is then below 1e-23.
TINY_SQUARES = 1e-8


def _rank_one_statistics(a: FloatArray, b: FloatArray, ddof: int) -> tuple[FloatArray, FloatArray]:
    """Mean and standard deviation over members of the products a_ci b_cj, by matrix products.

    The mean is ``a^T b / C`` and the variance ``(a^2)^T (b^2) - C mean^2``
    over C - ddof: no C x K x L array. That difference loses a few ulps of
    the mean square ``(a^2)^T (b^2) / C`` to cancellation: harmless for the
    spread once the variance is 1e-6 or more (the spread is then off by under
    1e-11), or when the mean square is at most 1e-8 (the variance is then off
    by under 1e-23, the spread by under 1e-11). The other cells are
    recomputed in two passes, as the reference does.
    """
    members = a.shape[0]
    mean: FloatArray = matmul(a.T, b) / members
    if members <= ddof:
        return mean, np.zeros_like(mean)
    squares: FloatArray = matmul((a * a).T, b * b)
    variance: FloatArray = (squares - members * mean * mean) / (members - ddof)
    small = np.nonzero((variance < TWO_PASS_BELOW) & (squares > TINY_SQUARES * members))
    if small[0].size:
        products = a[:, small[0]] * b[:, small[1]]  # (C, cells)
        variance[small] = ((products - products.mean(axis=0)) ** 2).sum(axis=0) / (members - ddof)
    spread: FloatArray = np.sqrt(variance)
    return mean, spread
