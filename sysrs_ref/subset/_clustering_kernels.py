"""Vectorised kernels of :mod:`sysrs_ref.subset.clustering` (private helpers; use :func:`kmeans` and :func:`kmedoids`).

**Exact nearest centres from one matrix product** (:func:`nearest_centres`).
The k-means assignment must equal the one computed from the coordinate
differences, D[c, x] = the sum of the fl(fl(x_i - c_i)^2) in the order of
the einsum loop of :func:`~sysrs_ref.subset.clustering.squared_distances`
(exact zeros, exact ties). The expansion E[c, x] = fl(||x||^2 - 2 x.c +
||c||^2) costs one matrix product but is not D. Error bound, with u = 2^-53
the unit roundoff, d the dimension, s = ||x||^2 + ||c||^2 and
delta = ||x - c||^2 <= 2 s the true values, and a dot product of length d,
summed in any order, with or without FMA (BLAS), within gamma_d = d u / (1 - d u)
of sum |a_i b_i| (Higham 2002, eq. 3.5):

- |E - delta| <= 2 gamma_d s + gamma_2 (2 s)(1 + gamma_d): the norms within
  gamma_d ||x||^2 and gamma_d ||c||^2, 2 x.c within 2 gamma_d ||x|| ||c|| <= gamma_d s,
  then two roundings of a sum of magnitude <= 2 s (1 + gamma_d);
- |D - delta| <= gamma_{d+2} delta <= 2 gamma_{d+2} s: each fl(fl(x_i - c_i)^2)
  within gamma_3 of (x_i - c_i)^2, then a sum of d non-negative terms;
- so |E - D| <= (4 d + 8) u s (1 + O(d u)); with subnormals, add at most
  2^-1075 for each product that underflows (fewer than 5 d, counting those of
  2 x.c twice; a subtraction or addition with a subnormal result is exact).

The code takes B(x) = 8 (d + 4) u (||x||^2 + max_c ||c||^2) + (8 d + 32) 2^-1074
(computed norms), more than twice that bound: the margin, at least 28 u s,
absorbs the rounding of the computed norms, of B and of E_min + 2 B (a few u s).
Every exact minimiser c* of D satisfies E[c*] - B <= D[c*] <= D[c] <= E[c] + B
for all c, so E[c*] <= min_c E[c] + 2 B. A point with a single centre within
2 B of its smallest E therefore has that centre as its exact nearest one; for
the other points D is computed (from the coordinate differences, by the same
einsum loop as ``squared_distances``: bit-identical, see :func:`pair_distances`)
for the candidate centres only, and the lowest-indexed exact minimum among
them is the lowest-indexed one overall. Rows where 4 s could overflow get
every centre as a candidate.

**Alternating k-medoids** (:func:`alternate_medoids`): the Voronoi iteration
(Park & Jun 2009; scikit-learn-extra's ``method="alternate"``), see
:func:`~sysrs_ref.subset.clustering.kmedoids`.
"""

from __future__ import annotations

import math
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["alternate_medoids", "nearest_centres", "nearest_medoids", "pair_distances", "points_order"]

FloatArray: TypeAlias = npt.NDArray[np.float64]
IndexArray: TypeAlias = npt.NDArray[np.intp]

CHUNK_ELEMENTS = 1 << 21  # bounds the temporaries (16 MiB of float64)
_UNIT_ROUNDOFF = 2.0**-53
_SMALLEST_SUBNORMAL = 2.0**-1074


def pair_distances(points: FloatArray, centres: FloatArray, order: Literal["C", "F"] = "C") -> FloatArray:
    """Row-wise squared distances ||points[j] - centres[j]||^2, bit-identical to ``squared_distances`` entries.

    ``squared_distances`` sums the d squares in the order its einsum iterates,
    which follows the memory layout of its points (its centres being
    C-ordered): block-wise (SIMD) along the coordinates for C-ordered points,
    one coordinate after the other for F-ordered points (both n > 1 and d > 1;
    e.g. the transpose of a score matrix). ``order`` is that layout: the
    differences are laid out alike, so the same einsum loop computes the sums.

    >>> pair_distances(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[3.0, 4.0], [1.0, 1.0]]))
    array([25.,  0.])
    """
    count = len(points)
    diff = np.subtract(points, centres, order=order)
    if order == "F" and count == 1:  # a single row is C-ordered too: give the loop two rows
        diff = np.asfortranarray(np.concatenate([diff, diff]))
    result: FloatArray = np.einsum("cnd,cnd->cn", diff[None], diff[None])[0, :count]  # squared_distances' subscripts
    return result


def points_order(points: FloatArray) -> Literal["C", "F"]:
    """The layout (for :func:`pair_distances`) in which ``squared_distances(points, centres)`` sums the squares.

    >>> points_order(np.zeros((3, 2))), points_order(np.zeros((2, 3)).T), points_order(np.zeros((1, 3)))
    ('C', 'F', 'C')
    """
    n_points, dim = points.shape
    return "F" if n_points > 1 and dim > 1 and abs(points.strides[0]) < abs(points.strides[1]) else "C"


def nearest_centres(points: FloatArray, centres: FloatArray) -> tuple[IndexArray, FloatArray]:
    """Per point: its nearest centre (the lowest index among exact ties) and the exact squared distance to it.

    Equal to ``argmin`` over the columns of ``squared_distances(points, centres)``
    (and its values) for C- or F-ordered points and C-ordered centres, at the
    cost of one matrix product; the error bound is in the module docstring.

    >>> labels, own = nearest_centres(np.array([[0.0], [1.0], [3.0]]), np.array([[1.0], [2.0], [0.0]]))
    >>> labels.tolist(), own.tolist()
    ([2, 0, 1], [0.0, 0.0, 1.0])
    """
    n_points, dim = points.shape
    order = points_order(points)
    with np.errstate(over="ignore", invalid="ignore"):
        point_norms = np.einsum("nd,nd->n", points, points)
        centre_norms = np.einsum("kd,kd->k", centres, centres)
        scale = point_norms + centre_norms.max()
    slack = 8.0 * (dim + 4) * _UNIT_ROUNDOFF * scale + (8 * dim + 32) * _SMALLEST_SUBNORMAL
    exact_rows = ~np.isfinite(4.0 * scale)  # E could overflow: every centre is a candidate
    labels = np.empty(n_points, dtype=np.intp)
    step = max(1, CHUNK_ELEMENTS // len(centres))
    pairs = max(1, CHUNK_ELEMENTS // max(dim, 1))  # candidate pairs resolved at once: bounds the gathered copies
    for start in range(0, n_points, step):
        stop = min(n_points, start + step)
        with np.errstate(over="ignore", invalid="ignore"):  # only in exact_rows, or ignored there
            expanded = points[start:stop] @ centres.T
            expanded *= -2.0
            expanded += point_norms[start:stop, None]
            expanded += centre_norms[None, :]
        best = np.argmin(expanded, axis=1)
        threshold = expanded[np.arange(stop - start), best] + 2.0 * slack[start:stop]
        candidates = expanded <= threshold[:, None]
        candidates[exact_rows[start:stop]] = True
        labels[start:stop] = best
        counts = np.count_nonzero(candidates, axis=1)
        unsure = np.flatnonzero(counts > 1)
        # the unsure points in blocks of about `pairs` candidate pairs (a point's pairs never split)
        block = np.cumsum(counts[unsure]) // pairs if len(unsure) else unsure
        for first, last in zip(*_runs(block), strict=True):
            points_here = unsure[first:last]
            rows, cols = np.nonzero(candidates[points_here])  # row-major: by point, then by centre index
            exact = pair_distances(points[points_here[rows] + start], centres[cols], order)
            labels[points_here + start] = _first_minima(rows, cols.astype(np.intp), exact)
    own = pair_distances(points, centres[labels], order)
    return labels, own


def _runs(values: IndexArray) -> tuple[list[int], list[int]]:
    """The (starts, stops) of the runs of equal entries of *values*."""
    if len(values) == 0:
        return [], []
    edges = np.flatnonzero(values[1:] != values[:-1]) + 1
    return [0, *edges.tolist()], [*edges.tolist(), len(values)]


def _first_minima(rows: IndexArray, cols: IndexArray, values: FloatArray) -> IndexArray:
    """Per run of equal ``rows`` (sorted, columns increasing within a run): the column ``np.argmin`` would pick.

    That is the first column of least value, a NaN (possible only if the
    distances overflow) counting as the least, as in ``np.argmin``.
    """
    values = np.where(np.isnan(values), -np.inf, values)  # distances are never -inf
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    group = np.cumsum(np.r_[True, rows[1:] != rows[:-1]]) - 1
    minima = np.minimum.reduceat(values, starts)
    hits = np.flatnonzero(values == minima[group])
    first = np.r_[True, group[hits][1:] != group[hits][:-1]]
    result: IndexArray = cols[hits[first]]
    return result


def nearest_medoids(distances: FloatArray, medoids: IndexArray) -> tuple[IndexArray, FloatArray]:
    """Per point: the position of its nearest medoid (ties: the lowest position; a medoid: itself) and that distance.

    >>> d = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    >>> near, own = nearest_medoids(d, np.array([1, 0]))
    >>> near.tolist(), own.tolist()
    ([1, 0, 0], [0.0, 0.0, 1.0])
    """
    block = distances[medoids]
    near = np.argmin(block, axis=0).astype(np.intp)
    near[medoids] = np.arange(len(medoids))
    own: FloatArray = block[near, np.arange(block.shape[1])]
    return near, own


def _costs(distances: FloatArray, members: IndexArray) -> FloatArray:
    """Per member i: sum over the members j of distances[i, j] (one row-sum of the submatrix, chunked by rows)."""
    step = max(1, CHUNK_ELEMENTS // len(members))
    parts = [
        distances[np.ix_(members[start : start + step], members)].sum(axis=1) for start in range(0, len(members), step)
    ]
    result: FloatArray = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return result


def _update(distances: FloatArray, medoids: IndexArray, near: IndexArray) -> IndexArray:
    """Each cluster's medoid replaced by its member of least total distance (ties: keep it, else the lowest index)."""
    order = np.argsort(near, kind="stable")  # the members of each cluster, in increasing point index
    counts = np.bincount(near, minlength=len(medoids))
    updated = medoids.copy()
    bounds = np.cumsum(counts)
    for position in np.flatnonzero(counts > 1):  # a singleton cluster keeps its medoid
        members = order[bounds[position] - counts[position] : bounds[position]]
        costs = _costs(distances, members)
        current = costs[int(np.searchsorted(members, medoids[position]))]
        best = int(np.argmin(costs))  # the lowest index among the minimisers
        if costs[best] < current:
            updated[position] = members[best]
    return updated


def alternate_medoids(distances: FloatArray, start: IndexArray, max_iter: int) -> tuple[IndexArray, list[float], int]:
    """Voronoi iteration from *start*: the final medoids (increasing), the objective history and the rounds run.

    Each round assigns the points to their nearest medoid, then moves every
    medoid to the member of least total distance within its cluster. A round
    that changes no medoid ends the iteration; so does one whose objective is
    not strictly below the previous (possible only by rounding: undone).

    >>> d = np.abs(np.subtract.outer([0.0, 1.0, 2.0, 10.0], [0.0, 1.0, 2.0, 10.0]))
    >>> medoids, history, rounds = alternate_medoids(d, np.array([0, 3]), 10)
    >>> medoids.tolist(), history, rounds
    ([1, 3], [3.0, 2.0], 2)
    """
    medoids = np.sort(start)
    near, own = nearest_medoids(distances, medoids)
    history = [math.fsum(own.tolist())]
    rounds = 0
    while rounds < max_iter:
        rounds += 1
        trial = _update(distances, medoids, near)
        if np.array_equal(trial, medoids):
            break
        trial.sort()
        trial_near, trial_own = nearest_medoids(distances, trial)
        objective = math.fsum(trial_own.tolist())
        if objective >= history[-1]:
            break  # a decrease by rounding only: undone
        medoids, near = trial, trial_near
        history.append(objective)
    return medoids, history, rounds
