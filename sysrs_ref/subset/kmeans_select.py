"""tinyBenchmarks' k-means subset selection (Polo et al. 2024) on given question embeddings.

Appendix "Subset Selection Experimental Details", "Subset Selection via
K-means": k-means with k clusters on question embeddings x_1, ..., x_L
(:func:`~sysrs_ref.subset.clustering.kmeans`: Lloyd from k-means++ seeds; the
seed is the only randomness); the anchor of cluster l is the question
nearest to its centre, q_l = argmin_{q in [L]} ||x_q - c_l|| (over *all*
questions, as the paper writes); its weight is the fractional cluster size
w_l = |cluster_l| / L; model i's estimate is mu-hat_i = sum_l w_l S[i, q_l].

Two embeddings in the paper: the "correctness" one, x_j = S[:, j] (the column
of S; :func:`kmeans_correctness`), and the IRT one, x_j = (alpha_j, beta_j),
computed elsewhere and passed to :func:`kmeans_subset`.

Rules this module fixes (the paper does not):

- **Two centres with the same nearest question.** The clusters pick their
  anchors in order l = 0, 1, ..., k - 1, each taking the nearest question not
  yet taken (ties: lowest question index), so the k anchors are distinct; a
  cluster whose nearest question was taken keeps its own weight.
- Distances are squared Euclidean, computed from coordinate differences.
- Anchors are reported in increasing question order, each with its weight.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.errors import ParameterError
from sysrs_ref.subset.clustering import Seed, as_generator, kmeans, squared_distances
from sysrs_ref.subset.result import SubsetResult, check_subset_inputs, make_result

__all__ = [
    "correctness_embeddings",
    "kmeans_correctness",
    "kmeans_correctness_need",
    "kmeans_subset",
    "nearest_questions",
]


def correctness_embeddings(scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The correctness embedding: question j as its score vector over the models, x_j = S[:, j] (L x K).

    >>> correctness_embeddings([[1, 0, 1], [0, 0, 1]]).tolist()
    [[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    """
    return np.array(np.asarray(scores, dtype=np.float64).T)


def nearest_questions(embeddings: npt.NDArray[np.float64], centres: npt.NDArray[np.float64]) -> list[int]:
    """The anchor of each centre: its nearest question not taken by an earlier centre (ties: lowest index).

    >>> x = np.array([[0.0], [1.0], [3.0]])
    >>> nearest_questions(x, np.array([[0.9], [1.2], [2.0]]))  # 1 is taken when the second centre picks
    [1, 0, 2]
    """
    distances = squared_distances(embeddings, centres)
    taken = np.zeros(len(embeddings), dtype=bool)
    anchors: list[int] = []
    for row in distances:
        question = int(np.argmin(np.where(taken, np.inf, row)))
        taken[question] = True
        anchors.append(question)
    return anchors


def kmeans_subset(
    scores: npt.ArrayLike,
    embeddings: npt.ArrayLike,
    k: int,
    *,
    seed: Seed,
    method: str = "kmeans-correctness",
) -> SubsetResult:
    """Select k anchor questions by k-means on the given L x d question embeddings and estimate every model's mean.

    ``embeddings[j]`` embeds question j (column j of ``scores``); ``method``
    is the name recorded in the result (e.g. ``"kmeans-irt-5"``). Weights are
    fractional cluster sizes, estimates the weighted anchor scores,
    ``chosen`` the argmax (ties: lowest model index). Deterministic given the seed.

    >>> s = [[1, 1, 0, 0], [0, 0, 1, 1]]
    >>> r = kmeans_subset(s, [[0.0], [0.1], [5.0], [5.1]], 2, seed=0, method="demo")
    >>> r.anchors, r.weights, r.estimates
    ((0, 2), (0.5, 0.5), (0.5, 0.5))
    """
    values = check_subset_inputs(scores, k)
    if not isinstance(method, str) or not method:
        raise ParameterError(f"method must be a non-empty name, got {method!r}")
    points = np.asarray(embeddings)
    n_questions = values.shape[1]
    if points.ndim != 2 or points.shape[0] != n_questions or points.shape[1] < 1:
        raise ParameterError(
            f"embeddings must be an L x d array with one row per question (L = {n_questions}), got shape {points.shape}"
        )
    if points.dtype.kind not in "biuf" or not np.isfinite(points.astype(np.float64)).all():
        raise ParameterError("embeddings must be finite real numbers")
    points = points.astype(np.float64)
    clusters = kmeans(points, k, seed=as_generator(seed))
    anchors = nearest_questions(points, clusters.centres)
    weights = np.bincount(clusters.labels, minlength=k) / n_questions
    return make_result(method, values, anchors, weights.tolist())


def kmeans_correctness_need(n_models: int, n_queries: int, k: int) -> Need:
    """What :func:`kmeans_correctness` needs: L points in K dimensions, O(k K L) for k-means++ and each Lloyd iteration.

    The seconds count the least work (k-means++ and one iteration) at a rate
    measured with numpy; a run can take longer.

    >>> round(kmeans_correctness_need(5000, 5000, 500).seconds)
    500
    """
    return Need(
        f"kmeans-correctness with k = {k:,} on {matrix_shape(n_models, n_queries)}",
        "L points in K dimensions; O(k K L) for k-means++ and for each Lloyd iteration",
        memory=8 * (2 * n_models * n_queries + 2 * k * n_queries),
        seconds=2e-8 * 2 * k * n_models * n_queries,
    )


def kmeans_correctness(scores: npt.ArrayLike, k: int, *, seed: Seed) -> SubsetResult:
    """tinyBenchmarks' correctness-based selection: :func:`kmeans_subset` with x_j = S[:, j].

    Refused up front with :class:`~sysrs_ref.errors.TooLargeError` beyond the
    memory or the time limit (:func:`kmeans_correctness_need`).

    >>> r = kmeans_correctness([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]], 4, seed=3)
    >>> r.method, r.anchors, r.estimates
    ('kmeans-correctness', (0, 1, 2, 3), (0.5, 0.5, 0.5))
    """
    values = check_subset_inputs(scores, k)
    check_need(kmeans_correctness_need(values.shape[0], values.shape[1], k))
    return kmeans_subset(values, correctness_embeddings(values), k, seed=seed, method="kmeans-correctness")
