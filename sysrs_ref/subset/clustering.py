"""k-means and k-medoids clustering for the subset-selection baselines (numpy only, seeded).

Appendix "Subset Selection Experimental Details" runs k-medoids on 1 - C for
the Anchor Point Weighted Score (Vivek et al. 2024) and k-means on question
embeddings for the tinyBenchmarks selections (Polo et al. 2024); "the only
randomness across runs comes from the seed" of the clustering. Both functions
take an int seed (of ``numpy.random.default_rng``) or a ``numpy.random.Generator``,
never touch global random state, and are deterministic given the seed.

:func:`kmeans` -- Lloyd's algorithm (Lloyd 1982) from k-means++ seeds
(Arthur & Vassilvitskii 2007; the plain variant, one candidate per step).

- Assignment: each point goes to its nearest centre (squared Euclidean
  distance, computed from the coordinate differences); ties go to the lowest
  centre index. It is computed from one matrix product (||x||^2 - 2 x.c +
  ||c||^2), the exact distances being recomputed only for the points whose
  best and second-best centres are within a rounding-error bound of each
  other (:mod:`~sysrs_ref.subset._clustering_kernels`): the labels and the
  distances are those of the coordinate differences, bit for bit.
- Empty clusters: after an assignment, each empty cluster l, in increasing l,
  is re-seeded at the point farthest from its own centre among the points of
  clusters with at least two members (ties: lowest point index); the point
  moves to cluster l and centre l is set to it. No cluster is ever empty.
- If k-means++ finds every point at distance 0 from the chosen centres (fewer
  distinct points than k), the next centre is drawn uniformly among the points
  not yet chosen.
- Stop: labels unchanged, or the objective (the sum of squared distances)
  decreased by at most ``tol``, or ``max_iter`` iterations. An iteration whose
  rounded objective is *larger* (possible only by floating-point rounding) is
  discarded and the algorithm stops, so the history is non-increasing.

:func:`kmedoids` -- from k-medoids++ seeds (the k-means++ rule with weights
D^2), one of two local searches (``method``):

``"fasterpam"`` (the default) -- the SWAP phase of PAM (Kaufman & Rousseeuw
1990) in its eager FasterPAM form (Schubert & Rousseeuw 2021; the original
Anchor Points code calls ``kmedoids.fasterpam``).

- Candidates c = 0, 1, ..., n - 1 are visited cyclically; for a non-medoid c
  the change of the objective for swapping c with each medoid is computed in
  O(n) (FastPAM1's nearest / second-nearest trick), and the best swap (ties:
  lowest medoid position) is made at once if it lowers the objective. A swap
  that does not strictly lower the rounded objective is undone.
- Stop: n candidates in a row without a swap, or ``max_iter`` passes.

``"alternate"`` -- the Voronoi iteration (Park & Jun 2009; scikit-learn-extra's
``KMedoids(method="alternate")``): much faster for large n and k, but usually
a worse local optimum (a medoid only moves within its own cluster, while a
FasterPAM swap can move it anywhere).

- The medoids are kept in increasing order. A round assigns every point to
  its nearest medoid (the labels rule below), then replaces each cluster's
  medoid by the member minimising the sum of the distances of the cluster's
  members to it (ties: the current medoid if it is a minimiser, else the
  lowest index).
- Stop: a round that changes no medoid, or ``max_iter`` rounds. The objective
  cannot increase: with clusters C_l and medoids m_l, the new medoid m'_l has
  sum_{j in C_l} D[m'_l, j] <= sum_{j in C_l} D[m_l, j] (m_l is a candidate),
  and reassigning every point to its nearest new medoid can only lower each
  term. Only the rounding of those sums can break this, so a round whose
  rounded objective is not strictly below the previous is undone and ends the
  iteration: the history is strictly decreasing.

- Labels: every point goes to its nearest medoid, ties to the medoid with the
  lowest point index, except that a medoid is always in its own cluster (its
  distance to itself, 0, is minimal), so no cluster is empty; medoids are
  returned in increasing order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import counted
from sysrs_ref.errors import ParameterError
from sysrs_ref.subset._clustering_kernels import (
    CHUNK_ELEMENTS,
    FloatArray,
    IndexArray,
    alternate_medoids,
    nearest_centres,
    nearest_medoids,
)

__all__ = [
    "KMeansResult",
    "KMedoidsMethod",
    "KMedoidsResult",
    "Seed",
    "as_generator",
    "kmeans",
    "kmeans_need",
    "kmedoids",
    "kmedoids_need",
    "squared_distances",
]

Seed: TypeAlias = int | np.random.Generator
"""An int seed of ``numpy.random.default_rng`` or a Generator (used, and advanced, in place)."""

KMedoidsMethod: TypeAlias = Literal["fasterpam", "alternate"]
"""The local search of :func:`kmedoids`: FasterPAM swaps or the alternating (Voronoi) iteration."""

_CHUNK_ELEMENTS = CHUNK_ELEMENTS  # bounds the temporary of squared_distances (16 MiB of float64)


def as_generator(seed: Seed) -> np.random.Generator:
    """The Generator of a seed: ``default_rng(seed)`` for a non-negative int, the Generator itself otherwise.

    >>> int(as_generator(3).integers(100)) == int(as_generator(3).integers(100))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer or a numpy.random.Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def squared_distances(points: FloatArray, centres: FloatArray) -> FloatArray:
    """The c x n matrix of squared Euclidean distances ||points[j] - centres[i]||^2.

    Computed from the coordinate differences (no ||x||^2 - 2 x.c + ||c||^2
    cancellation), so a point at a centre is at distance exactly 0.

    >>> squared_distances(np.array([[0.0, 0.0], [3.0, 4.0]]), np.array([[0.0, 0.0]]))
    array([[ 0., 25.]])
    """
    n_points, dim = points.shape
    out = np.empty((len(centres), n_points), dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // max(1, n_points * dim))
    for start in range(0, len(centres), step):
        diff = points[None, :, :] - centres[start : start + step, None, :]
        out[start : start + step] = np.einsum("cnd,cnd->cn", diff, diff)
    return out


@dataclass(frozen=True, eq=False)  # holds arrays: compare the fields, not the results
class KMeansResult:
    """The outcome of :func:`kmeans`: centres, labels and the objective after every iteration.

    ``objective_history[0]`` is the objective of the k-means++ centres with
    their assignment, then one entry per iteration kept (``iterations`` of
    them); ``labels`` are the assignment to ``centres``.

    >>> r = kmeans(np.array([[0.0], [1.0], [10.0]]), 2, seed=0)
    >>> r.labels.tolist() in ([0, 0, 1], [1, 1, 0]), r.objective
    (True, 0.5)
    """

    centres: FloatArray
    labels: IndexArray
    objective_history: tuple[float, ...]
    iterations: int

    @property
    def objective(self) -> float:
        """The final objective: the sum of squared distances of the points to their centres."""
        return self.objective_history[-1]


@dataclass(frozen=True, eq=False)  # holds arrays: compare the fields, not the results
class KMedoidsResult:
    """The outcome of :func:`kmedoids`: medoids (increasing), labels and the objective after every step.

    ``labels[j]`` is the position in ``medoids`` of point j's medoid;
    ``objective_history[0]`` is the objective of the k-medoids++ seeds, then
    one entry per swap (``"fasterpam"``) or per round kept (``"alternate"``);
    ``iterations`` counts the passes over the candidates (``"fasterpam"``) or
    the rounds run, the last one included (``"alternate"``).

    >>> d = np.abs(np.subtract.outer([0.0, 1.0, 10.0, 11.0], [0.0, 1.0, 10.0, 11.0]))
    >>> r = kmedoids(d, 2, seed=0)
    >>> r.labels.tolist(), r.objective
    ([0, 0, 1, 1], 2.0)
    """

    medoids: tuple[int, ...]
    labels: IndexArray
    objective_history: tuple[float, ...]
    iterations: int

    @property
    def objective(self) -> float:
        """The final objective: the sum of the distances of the points to their medoids."""
        return self.objective_history[-1]


def _check_count(value: int, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{what} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ParameterError(f"{what} must be {bound}, got {value}")
    return int(value)


def _real_matrix(values: npt.ArrayLike, what: str, *, read_only: bool = False) -> FloatArray:
    """A float64 copy of *values* (with *read_only*, a C-ordered float64 array itself: the caller won't write)."""
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ParameterError(f"{what} must be a non-empty 2-D array, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise ParameterError(f"{what} must hold real numbers, got dtype {array.dtype}")
    reuse = read_only and array.dtype == np.float64 and array.flags.c_contiguous
    result = array if reuse else np.array(array, dtype=np.float64)
    if not np.isfinite(result).all():
        raise ParameterError(f"{what} must be finite (no NaN or infinity)")
    return result


def _plus_plus(n_points: int, k: int, rng: np.random.Generator, weights_of: Callable[[int], FloatArray]) -> list[int]:
    """k distinct seeds: uniform first, then each with probability proportional to weights_of(seed) minima."""
    chosen = [int(rng.integers(n_points))]
    closest = weights_of(chosen[0])
    for _ in range(1, k):
        cumulative = np.cumsum(closest)
        total = float(cumulative[-1])
        if total > 0:
            index = int(np.searchsorted(cumulative, rng.random() * total, side="right"))
            if index >= n_points:  # rng.random() * total rounded up to total
                index = int(np.flatnonzero(closest > 0)[-1])
        else:  # every point sits on a seed: draw uniformly among the others
            remaining = np.setdiff1d(np.arange(n_points), chosen)
            index = int(remaining[rng.integers(len(remaining))])
        chosen.append(index)
        closest = np.minimum(closest, weights_of(index))
    return chosen


def _assign(points: FloatArray, centres: FloatArray) -> tuple[IndexArray, FloatArray]:
    """Nearest-centre labels and distances, empty clusters re-seeded (centres updated in place)."""
    k = len(centres)
    labels, own = nearest_centres(points, centres)  # = argmin of squared_distances, the lowest centre index
    counts = np.bincount(labels, minlength=k)
    for cluster in range(k):
        if counts[cluster] == 0:
            movable = np.where(counts[labels] > 1, own, -1.0)
            point = int(np.argmax(movable))  # the farthest, ties to the lowest point index
            counts[labels[point]] -= 1
            counts[cluster] = 1
            labels[point] = cluster
            own[point] = 0.0
            centres[cluster] = points[point]
    return labels, own


def _means(points: FloatArray, labels: IndexArray, k: int) -> FloatArray:
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=k)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    sums = np.add.reduceat(points[order], starts, axis=0)
    result: FloatArray = sums / counts[:, None]
    return result


def kmeans_need(n_points: int, dim: int, k: int) -> Need:
    """What :func:`kmeans` needs for n points in d dimensions and k clusters (:func:`~sysrs_ref._limits.check_need`).

    A float64 copy of the points (the distances are made in chunks), and
    O(n k d) for k-means++ and for each Lloyd iteration. The seconds count
    the least work, k-means++ and one assignment, at a rate measured with
    numpy (about 1e-9 s per n k d each); the iterations, up to ``max_iter``,
    come on top, so a refused call would take at least that long.

    >>> need = kmeans_need(10**6, 1000, 1000)
    >>> need.memory // 2**30, round(need.seconds)
    (7, 2000)
    """
    return Need(
        f"k-means of {counted(n_points, 'point', grouped=True)} in {counted(dim, 'dimension', grouped=True)} "
        f"into k = {k:,} clusters",
        "a float64 copy of the points; O(n k d) for k-means++ and for each Lloyd iteration",
        memory=8 * (n_points * dim + 3 * k * dim + 4 * n_points),
        seconds=1e-9 * 2 * n_points * k * dim,
    )


def _positive(value: object) -> int | None:
    """*value* as an int if it is a positive integer (a size to estimate from), else None (checked later)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        return None
    return int(value)


def kmeans(points: npt.ArrayLike, k: int, *, seed: Seed, max_iter: int = 300, tol: float = 0.0) -> KMeansResult:
    """Lloyd's k-means of n points (rows) into k non-empty clusters, from k-means++ seeds.

    Minimises the sum of squared Euclidean distances of the points to their
    centres; the rules for ties, empty clusters and stopping are in the
    module docstring. ``objective_history`` is non-increasing. Refused up
    front (:class:`~sysrs_ref.errors.TooLargeError`, :func:`kmeans_need`)
    when the copy of the points does not fit this machine's memory or
    k-means++ and one assignment are beyond the time limit.

    >>> r = kmeans(np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]]), 2, seed=1)
    >>> sorted(r.centres.tolist()), r.objective
    ([[0.0, 0.5], [5.0, 5.5]], 1.0)
    """
    raw = np.asarray(points)
    clusters = _positive(k)
    if raw.ndim == 2 and clusters is not None:  # before the copy and the work: from the sizes alone
        check_need(kmeans_need(raw.shape[0], raw.shape[1], min(clusters, raw.shape[0])))
    data = _real_matrix(raw, "points")
    k = _check_count(k, "k (the number of clusters)", 1, len(data))
    max_iter = _check_count(max_iter, "max_iter", 1)
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
        raise ParameterError(f"tol must be a finite number >= 0, got {tol!r}")
    rng = as_generator(seed)
    seeds = _plus_plus(len(data), k, rng, lambda i: squared_distances(data, data[i : i + 1])[0])
    centres = data[seeds].copy()
    labels, own = _assign(data, centres)
    history = [math.fsum(own.tolist())]
    for _ in range(max_iter):
        new_centres = _means(data, labels, k)
        new_labels, new_own = _assign(data, new_centres)
        objective = math.fsum(new_own.tolist())
        if objective > history[-1]:
            break  # only rounding can raise Lloyd's objective: keep the better state
        improvement = history[-1] - objective
        changed = not np.array_equal(new_labels, labels)
        centres, labels = new_centres, new_labels
        history.append(objective)
        if not changed or improvement <= tol:
            break
    centres.setflags(write=False)
    labels.setflags(write=False)
    return KMeansResult(centres, labels, tuple(history), len(history) - 1)


def _nearest_two(distances: FloatArray, medoids: IndexArray) -> tuple[IndexArray, FloatArray, FloatArray]:
    """Per point: the position of its nearest medoid (a medoid: itself), that distance, the second smallest."""
    near, d_near = nearest_medoids(distances, medoids)
    d_second = np.full(len(near), np.inf) if len(medoids) == 1 else np.partition(distances[medoids], 1, axis=0)[1]
    return near, d_near, d_second


def _fasterpam(matrix: FloatArray, medoids: IndexArray, max_iter: int) -> tuple[IndexArray, list[float], int]:
    """Eager FasterPAM swaps from *medoids*: the final medoids, the objective history and the passes run."""
    n_points, k = len(matrix), len(medoids)
    near, d_near, d_second = _nearest_two(matrix, medoids)
    history = [math.fsum(d_near.tolist())]
    is_medoid = np.zeros(n_points, dtype=bool)
    is_medoid[medoids] = True
    last_swap, passes, converged = -1, 0, False
    while not converged and passes < max_iter:
        passes += 1
        swapped = False
        for candidate in range(n_points):
            if candidate == last_swap:  # n candidates in a row without a swap
                converged = True
                break
            if is_medoid[candidate]:
                continue
            row = matrix[candidate]
            shared = np.minimum(row - d_near, 0.0)  # points keeping their medoid
            removal = np.minimum(row, d_second) - d_near - shared  # points losing it
            change = shared.sum() + np.bincount(near, weights=removal, minlength=k)
            position = int(np.argmin(change))
            if change[position] >= 0:
                continue
            trial = medoids.copy()
            trial[position] = candidate
            trial_near, trial_d_near, trial_d_second = _nearest_two(matrix, trial)
            objective = math.fsum(trial_d_near.tolist())
            if objective >= history[-1]:
                continue  # an improvement by rounding only: undone
            is_medoid[medoids[position]] = False
            is_medoid[candidate] = True
            medoids, near, d_near, d_second = trial, trial_near, trial_d_near, trial_d_second
            history.append(objective)
            last_swap, swapped = candidate, True
        if not swapped:
            converged = True
    return medoids, history, passes


def kmedoids_need(n_points: int, k: int, method: KMedoidsMethod = "fasterpam", *, copied: bool = True) -> Need:
    """What :func:`kmedoids` needs for n points and k medoids (:func:`~sysrs_ref._limits.check_need`).

    Beside the caller's n x n distances: a float64 copy of them when they
    are not C-ordered float64 already (*copied*), the n x n masks of the
    checks (a byte each) and two k x n blocks. The seconds count the least
    work at rates measured with numpy: the checks' passes over the n x n
    matrix and, for ``"fasterpam"``, its first pass, which visits every
    candidate in O(n) (about 1e-8 s per n^2); further passes, up to
    ``max_iter``, come on top.

    >>> need = kmedoids_need(10**6, 10)
    >>> need.memory // 2**40, round(need.seconds / 3600)
    (8, 3)
    """
    rate = 1e-8 if method == "fasterpam" else 3e-9
    return Need(
        f"k-medoids ({method}) of {counted(n_points, 'point', grouped=True)} into k = {k:,} medoids",
        "the n x n distances (a copy unless float64 and C-ordered) and their masks; O(n^2) per pass",
        memory=(9 if copied else 1) * n_points * n_points + 16 * k * n_points,
        seconds=rate * n_points * n_points,
    )


def kmedoids(
    distances: npt.ArrayLike, k: int, *, seed: Seed, method: KMedoidsMethod = "fasterpam", max_iter: int = 100
) -> KMedoidsResult:
    """k-medoids of n points given their n x n distances (FasterPAM swaps or alternating rounds, k-medoids++ seeds).

    ``distances[m, j]`` is read as the distance of point j to medoid m; the
    matrix must be finite, non-negative, with a zero diagonal (symmetry is
    not required). Minimises the sum of the distances of the points to their
    medoids by ``method`` (``"fasterpam"`` or ``"alternate"``, from the same
    seeds for the same seed); ``max_iter`` bounds the passes, resp. rounds.
    Rules in the module docstring. With k = n every point is its own medoid.
    ``objective_history`` is strictly decreasing. Refused up front
    (:class:`~sysrs_ref.errors.TooLargeError`, :func:`kmedoids_need`) when
    what it allocates does not fit this machine's memory or its least work
    is beyond the time limit.

    >>> kmedoids(np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 4.0], [5.0, 4.0, 0.0]]), 3, seed=0).medoids
    (0, 1, 2)
    >>> d = np.abs(np.subtract.outer([0.0, 1.0, 2.0, 10.0, 11.0], [0.0, 1.0, 2.0, 10.0, 11.0]))
    >>> r = kmedoids(d, 2, seed=0, method="alternate")
    >>> r.medoids, r.labels.tolist(), r.objective
    ((1, 4), [0, 0, 0, 1, 1], 3.0)
    """
    if method not in ("fasterpam", "alternate"):
        raise ParameterError(f"method must be 'fasterpam' or 'alternate', got {method!r}")
    raw = np.asarray(distances)
    medoid_count = _positive(k)
    if raw.ndim == 2 and medoid_count is not None:  # before the copy, the checks and the work: from the sizes alone
        copied = not (raw.dtype == np.float64 and raw.flags.c_contiguous)
        check_need(kmedoids_need(raw.shape[0], min(medoid_count, raw.shape[0]), method, copied=copied))
    matrix = _real_matrix(raw, "distances", read_only=True)  # an L x L matrix: no copy
    n_points = len(matrix)
    if matrix.shape != (n_points, n_points):
        raise ParameterError(f"distances must be a square n x n matrix, got shape {matrix.shape}")
    if (matrix < 0).any() or (np.diagonal(matrix) != 0).any():
        raise ParameterError(
            "distances must be non-negative with a zero diagonal (each point at distance 0 from itself)"
        )
    k = _check_count(k, "k (the number of medoids)", 1, n_points)
    max_iter = _check_count(max_iter, "max_iter", 1)
    rng = as_generator(seed)
    start = np.array(_plus_plus(n_points, k, rng, lambda i: matrix[i] ** 2), dtype=np.intp)
    search = _fasterpam if method == "fasterpam" else alternate_medoids
    medoids, history, iterations = search(matrix, start, max_iter)
    final = np.sort(medoids)
    labels, _ = nearest_medoids(matrix, final)
    labels.setflags(write=False)
    return KMedoidsResult(tuple(int(m) for m in final), labels, tuple(history), iterations)
