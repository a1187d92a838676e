"""The Anchor Point Weighted Score (Vivek et al. 2024), as the paper's appendix states it.

Appendix "Subset Selection Experimental Details", "Subset Selection via
Anchor Point Weighted Score": with C the L x L inter-question Pearson
correlation over the K models (C[j, i] = corr(S[:, j], S[:, i])) and
D = 1 - C, k-medoids on D gives k representative questions q_1 < ... < q_k
(:func:`~sysrs_ref.subset.clustering.kmedoids` from k-medoids++ seeds; the
seed is the only randomness). Each question q is
assigned to its most-correlated medoid a_q = argmax_l C[q_l, q]; the weight
of anchor q_l is w_l = |{q : a_q = l}| / L; model i's estimate is
mu-hat_i = sum_l w_l S[i, q_l].

The k-medoids local search is ``kmedoids_method``:

- ``"fasterpam"`` (the default): eager FasterPAM swaps, what the original
  Anchor Points code runs (``kmedoids.fasterpam``); the better optimum, but
  slow for large L and k (each swap re-evaluates all k medoids).
- ``"alternate"``: the alternating (Voronoi) iteration, each medoid moved to
  its cluster's member of least total distance until none moves; many times
  faster for large L and k, but usually a higher k-medoids objective (so
  other anchors and weights than FasterPAM's). Same k-medoids++ seeds for the
  same seed.

Rules this module fixes (the paper does not):

- **Constant questions.** Pearson correlation is undefined (0/0) for a
  question on which all K models score the same. Here a constant question has
  correlation 1 with itself and with every constant question of the same
  value, and 0 with every other question (so distance 0, resp. 1). No entry
  of C is ever NaN. (The original code maps every NaN to 0, which puts a
  constant question at distance 1 from itself.)
- **Ties in the assignment.** A medoid is assigned to itself (its correlation
  with itself, 1, is maximal); any other tie goes to the lowest l, i.e. the
  medoid with the lowest question index. Hence every anchor has weight at
  least 1/L, and with k = L every question is its own anchor with weight 1/L.
- Computed correlations are symmetrised, clipped to [-1, 1], and the
  diagonal is exactly 1, so D is symmetric, in [0, 2], with a zero diagonal.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.errors import ParameterError
from sysrs_ref.subset.clustering import KMedoidsMethod, Seed, as_generator, kmedoids
from sysrs_ref.subset.result import SubsetResult, check_subset_inputs, make_result

__all__ = ["anchor_need", "anchor_points", "question_correlations"]


def anchor_need(n_models: int, n_queries: int, k: int = 0) -> Need:
    """What the Anchor Point Weighted Score needs on a K x L matrix with k anchors (:func:`~sysrs_ref._limits.check_need`).

    The L x L correlations and distances (float64) at once; O(K L^2) to
    compute them and O(k L^2) per pass of k-medoids, at rates measured with
    the compiled kernels (the least work: one pass).

    >>> anchor_need(100, 1_000_000, 10).memory // 2**40
    21
    """
    return Need(
        f"anchor on {matrix_shape(n_models, n_queries)}",
        "L x L correlations and distances of float64; O(K L^2) then O(k L^2) per k-medoids pass",
        memory=3 * 8 * n_queries * n_queries,
        seconds=2e-9 * n_models * n_queries * n_queries + 1e-8 * k * n_queries * n_queries,
    )


def question_correlations(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The L x L Pearson correlations between the questions (columns) of a K x L matrix, never NaN.

    Refused up front (:class:`~sysrs_ref.errors.TooLargeError`, :func:`anchor_need`) when the
    L x L matrices do not fit this machine's memory or the time limit.

    Constant columns follow the module's rule: 1 with themselves and with
    constant columns of the same value, 0 with all others.

    >>> question_correlations([[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]]).tolist()
    [[1.0, -1.0, 0.0, 0.0], [-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim == 2:
        check_need(anchor_need(values.shape[0], values.shape[1]))
    constant = np.ptp(values, axis=0) == 0
    centred = values - values.mean(axis=0)
    centred[:, constant] = 0.0
    # scale each column by its largest |entry| first, so that squaring cannot underflow to 0
    largest = np.abs(centred).max(axis=0)
    largest[constant] = 1.0
    unit = centred / largest
    squares = np.einsum("kl,kl->l", unit, unit)  # >= 1 for a non-constant column
    squares[constant] = 1.0
    products = fixed_order.matmul(unit.T, unit)  # in a fixed order, not BLAS: the same bits on every machine
    # clip((products + products.T) / 2 / sqrt(outer(squares, squares)), -1, 1), in two L x L buffers
    correlations: npt.NDArray[np.float64] = products + products.T
    correlations /= 2
    scale = np.multiply.outer(squares, squares, out=products)
    np.sqrt(scale, out=scale)
    correlations /= scale
    np.clip(correlations, -1.0, 1.0, out=correlations)
    where = np.flatnonzero(constant)
    if len(where):
        level = values[0, where]
        correlations[where, :] = 0.0
        correlations[:, where] = 0.0
        correlations[np.ix_(where, where)] = (level[:, None] == level[None, :]).astype(np.float64)
    np.fill_diagonal(correlations, 1.0)
    return correlations


def anchor_points(
    scores: npt.ArrayLike,
    k: int,
    *,
    seed: Seed,
    kmedoids_method: KMedoidsMethod = "fasterpam",
    correlations: npt.NDArray[np.float64] | None = None,
) -> SubsetResult:
    """Select k anchor questions by the Anchor Point Weighted Score and estimate every model's mean.

    Method ``"anchor"``: k-medoids on D = 1 - C (:func:`question_correlations`;
    ``kmedoids_method`` ``"fasterpam"``, the original code's, or the faster
    ``"alternate"``, see the module docstring), questions assigned to their most-correlated medoid, weights = fractional
    cluster sizes, estimates = weighted anchor scores, ``chosen`` = argmax
    (ties: lowest model index). Deterministic given the seed. *correlations*,
    if given, must be ``question_correlations(scores)``: a caller running many
    seeds or budgets on one matrix computes them once. A matrix whose L x L
    correlations would not fit the memory or the time limit is refused up
    front with :class:`~sysrs_ref.errors.TooLargeError` (:func:`anchor_need`).

    >>> s = [[1, 1, 0, 0, 1, 0], [1, 1, 0, 0, 0, 1], [0, 0, 1, 1, 1, 0]]
    >>> r = anchor_points(s, 6, seed=0)
    >>> r.anchors, r.estimates == (0.5, 0.5, 0.5)
    ((0, 1, 2, 3, 4, 5), True)
    >>> anchor_points(s, 2, seed=0, kmedoids_method="alternate").anchors
    (0, 2)
    """
    values = check_subset_inputs(scores, k)
    check_need(anchor_need(values.shape[0], values.shape[1], k))
    rng = as_generator(seed)
    n_questions = values.shape[1]
    if correlations is None:
        correlations = question_correlations(values)
    elif correlations.shape != (n_questions, n_questions):
        raise ParameterError(f"correlations must be L x L = {n_questions} x {n_questions}, got {correlations.shape}")
    distances = 1.0 - correlations
    np.fill_diagonal(distances, 0.0)
    medoids = np.array(kmedoids(distances, k, seed=rng, method=kmedoids_method).medoids, dtype=np.intp)
    assignment = np.argmax(correlations[medoids, :], axis=0)  # the first maximum: the lowest l
    assignment[medoids] = np.arange(k)
    weights = np.bincount(assignment, minlength=k) / n_questions
    return make_result("anchor", values, medoids.tolist(), weights.tolist())
