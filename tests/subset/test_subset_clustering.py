"""k-means and k-medoids of :mod:`sysrs_ref.subset.clustering`: invariants, determinism, recovery, errors."""

from __future__ import annotations

import itertools
from typing import Literal
from unittest import mock

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, strategies as st

from sysrs_ref.errors import ParameterError
from sysrs_ref.subset import clustering
from sysrs_ref.subset._clustering_kernels import alternate_medoids, nearest_centres, pair_distances, points_order
from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import as_generator, kmeans, kmedoids, squared_distances
from tests.strategies import assignment_cases, distance_matrices, point_sets, score_matrices, seeds

FloatArray = npt.NDArray[np.float64]


def test_squared_distances_are_exact_differences() -> None:
    points = np.array([[0.1, 0.2], [0.3, 0.7]])
    got = squared_distances(points, points)
    assert got[0, 0] == 0.0 and got[1, 1] == 0.0
    assert got[0, 1] == pytest.approx(0.2**2 + 0.5**2, abs=1e-15)


# -- k-means --------------------------------------------------------------------


@given(point_sets(), st.data(), seeds)
def test_kmeans_invariants(points: FloatArray, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, len(points)))
    result = kmeans(points, k, seed=seed)
    history = np.array(result.objective_history)
    assert len(history) == result.iterations + 1
    assert (np.diff(history) <= 0).all(), "the objective must be non-increasing"
    assert result.centres.shape == (k, points.shape[1])
    assert result.labels.shape == (len(points),)
    assert ((result.labels >= 0) & (result.labels < k)).all()
    assert (np.bincount(result.labels, minlength=k) > 0).all(), "every cluster must be non-empty"
    recomputed = ((points - result.centres[result.labels]) ** 2).sum()
    assert result.objective == pytest.approx(recomputed, rel=1e-9, abs=1e-9)
    # labels are nearest-centre labels, up to rounding and the re-seeded points (which sit on their centre)
    nearest = squared_distances(points, result.centres).min(axis=0)
    own = squared_distances(points, result.centres)[result.labels, np.arange(len(points))]
    assert np.allclose(own, nearest, rtol=1e-9, atol=1e-9)


@given(point_sets(), st.data(), seeds)
def test_kmeans_is_deterministic_given_the_seed(points: FloatArray, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, len(points)))
    first, second = kmeans(points, k, seed=seed), kmeans(points, k, seed=np.random.default_rng(seed))
    assert np.array_equal(first.centres, second.centres)
    assert np.array_equal(first.labels, second.labels)
    assert first.objective_history == second.objective_history


@given(point_sets(), seeds)
def test_kmeans_with_k_equal_n_puts_every_point_alone(points: FloatArray, seed: int) -> None:
    result = kmeans(points, len(points), seed=seed)
    assert sorted(result.labels.tolist()) == list(range(len(points)))
    assert result.objective == 0.0


def test_kmeans_lloyd_iterates_and_decreases() -> None:
    points = np.random.default_rng(0).normal(size=(300, 2))
    result = kmeans(points, 8, seed=4)
    assert result.iterations > 2
    assert all(b < a for a, b in itertools.pairwise(result.objective_history))


def test_kmeans_recovers_separated_clusters() -> None:
    rng = np.random.default_rng(11)
    truth = np.repeat(np.arange(3), 15)
    centres = np.array([[0.0, 0.0], [50.0, 0.0], [0.0, 50.0]])
    points = centres[truth] + rng.normal(size=(45, 2))
    result = kmeans(points, 3, seed=5)
    assert _same_partition(result.labels, truth)


def test_kmeans_empty_cluster_rule_on_identical_points() -> None:
    result = kmeans(np.zeros((4, 2)), 3, seed=0)
    assert (np.bincount(result.labels, minlength=3) > 0).all()
    assert result.objective == 0.0


# -- k-medoids ------------------------------------------------------------------


@given(distance_matrices(), st.data(), seeds)
def test_kmedoids_invariants(matrix: FloatArray, data: st.DataObject, seed: int) -> None:
    n = len(matrix)
    k = data.draw(st.integers(1, n))
    result = kmedoids(matrix, k, seed=seed)
    medoids = np.array(result.medoids)
    history = np.array(result.objective_history)
    assert (np.diff(history) < 0).all(), "every swap must lower the objective"
    assert list(result.medoids) == sorted(set(result.medoids)) and len(medoids) == k
    assert ((medoids >= 0) & (medoids < n)).all()
    assert ((result.labels >= 0) & (result.labels < k)).all()
    assert (np.bincount(result.labels, minlength=k) > 0).all(), "every cluster must be non-empty"
    assert (result.labels[medoids] == np.arange(k)).all(), "a medoid is in its own cluster"
    own = matrix[medoids[result.labels], np.arange(n)]
    assert (own == matrix[medoids].min(axis=0)).all(), "labels are nearest-medoid labels"
    assert result.objective == pytest.approx(own.sum(), rel=1e-12, abs=1e-12)


@given(distance_matrices(), st.data(), seeds)
def test_kmedoids_ends_in_a_swap_local_optimum(matrix: FloatArray, data: st.DataObject, seed: int) -> None:
    n = len(matrix)
    k = data.draw(st.integers(1, n))
    result = kmedoids(matrix, k, seed=seed, max_iter=1000)
    for position in range(k):
        for candidate in set(range(n)) - set(result.medoids):
            trial = list(result.medoids)
            trial[position] = candidate
            assert matrix[trial].min(axis=0).sum() >= result.objective - 1e-9


@given(distance_matrices(), st.data(), seeds)
def test_kmedoids_is_deterministic_given_the_seed(matrix: FloatArray, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, len(matrix)))
    first, second = kmedoids(matrix, k, seed=seed), kmedoids(matrix, k, seed=as_generator(seed))
    assert first.medoids == second.medoids
    assert np.array_equal(first.labels, second.labels)
    assert first.objective_history == second.objective_history


@given(distance_matrices(), seeds)
def test_kmedoids_with_k_equal_n_makes_every_point_a_medoid(matrix: FloatArray, seed: int) -> None:
    result = kmedoids(matrix, len(matrix), seed=seed)
    assert result.medoids == tuple(range(len(matrix)))
    assert result.labels.tolist() == list(range(len(matrix)))
    assert result.objective == 0.0


def test_kmedoids_recovers_separated_clusters() -> None:
    rng = np.random.default_rng(3)
    truth = np.repeat(np.arange(4), 12)
    centres = np.array([[0.0, 0.0], [40.0, 0.0], [0.0, 40.0], [40.0, 40.0]])
    points = centres[truth] + rng.normal(size=(48, 2))
    distances = np.sqrt(squared_distances(points, points))
    result = kmedoids(distances, 4, seed=2024)
    assert _same_partition(result.labels, truth)
    # each medoid is the point of its cluster with the least total distance to the others
    for position, medoid in enumerate(result.medoids):
        members = np.flatnonzero(result.labels == position)
        costs = distances[np.ix_(members, members)].sum(axis=1)
        assert distances[medoid, members].sum() == pytest.approx(costs.min())


def _same_partition(labels: npt.NDArray[np.intp], truth: npt.NDArray[np.int64]) -> bool:
    pairs = {(int(a), int(b)) for a, b in zip(labels, truth, strict=True)}
    return len(pairs) == len(set(labels.tolist())) == len(set(truth.tolist()))


# -- errors ---------------------------------------------------------------------

GOOD_POINTS = np.array([[0.0], [1.0], [2.0]])
GOOD_DISTANCES = np.abs(np.subtract.outer([0.0, 1.0, 2.0], [0.0, 1.0, 2.0]))


@pytest.mark.parametrize(
    ("points", "k", "options", "message"),
    [
        (GOOD_POINTS, 0, {}, "k (the number of clusters) must be between 1 and 3"),
        (GOOD_POINTS, 4, {}, "k (the number of clusters) must be between 1 and 3"),
        (GOOD_POINTS, 1.5, {}, "must be an integer"),
        (np.array([0.0, 1.0]), 1, {}, "non-empty 2-D array"),
        (np.array([[0.0], [np.nan]]), 1, {}, "finite"),
        (np.array([["a"], ["b"]]), 1, {}, "real numbers"),
        (GOOD_POINTS, 2, {"max_iter": 0}, "max_iter must be at least 1"),
        (GOOD_POINTS, 2, {"tol": -1.0}, "tol must be"),
        (GOOD_POINTS, 2, {"seed": -1}, "seed must be"),
        (GOOD_POINTS, 2, {"seed": "x"}, "seed must be"),
    ],
)
def test_kmeans_rejects_bad_input(points: FloatArray, k: int, options: dict[str, object], message: str) -> None:
    arguments: dict[str, object] = {"seed": 0, **options}
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kmeans(points, k, **arguments)  # type: ignore[arg-type]  # deliberately wrong types


@pytest.mark.parametrize(
    ("matrix", "k", "message"),
    [
        (GOOD_DISTANCES[:2], 1, "square"),
        (GOOD_DISTANCES - 0.5, 1, "non-negative"),
        (GOOD_DISTANCES + 1.0, 1, "zero diagonal"),
        (GOOD_DISTANCES, 0, "between 1 and 3"),
        (GOOD_DISTANCES, 4, "between 1 and 3"),
        (np.full((2, 2), np.inf), 1, "finite"),
    ],
)
def test_kmedoids_rejects_bad_input(matrix: FloatArray, k: int, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        kmedoids(matrix, k, seed=0)


# -- fast k-means assignment: bit-identical to the exact (coordinate-difference) one ---------------


def _assign_exact(points: FloatArray, centres: FloatArray) -> tuple[npt.NDArray[np.intp], FloatArray]:
    """A verbatim copy of the former ``clustering._assign`` (squared_distances, argmin, empty-cluster rule)."""
    n_points, k = len(points), len(centres)
    distances = squared_distances(points, centres)
    labels = np.argmin(distances, axis=0).astype(np.intp)  # the first minimum: the lowest centre index
    own = distances[labels, np.arange(n_points)]
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


def _check_nearest_centres(points: FloatArray, centres: FloatArray) -> None:
    with np.errstate(all="ignore"):  # overflowing cases warn in squared_distances
        exact = squared_distances(points, centres)
        labels, own = nearest_centres(points, centres)
    assert np.array_equal(labels, np.argmin(exact, axis=0))
    assert np.array_equal(own, exact[labels, np.arange(len(points))], equal_nan=True)
    if len(centres) <= len(points):  # kmeans' _assign, with the empty-cluster rule
        fast_centres, exact_centres = centres.copy(), centres.copy()
        with np.errstate(all="ignore"):
            fast, reference = clustering._assign(points, fast_centres), _assign_exact(points, exact_centres)
        assert np.array_equal(fast[0], reference[0])
        assert np.array_equal(fast[1], reference[1], equal_nan=True)
        assert np.array_equal(fast_centres, exact_centres, equal_nan=True)


@given(assignment_cases())
def test_fast_assignment_equals_the_exact_one_on_ties(case: tuple[FloatArray, FloatArray]) -> None:
    _check_nearest_centres(*case)


def _random_case(seed: int, kind: str, order: Literal["C", "F"]) -> tuple[FloatArray, FloatArray]:
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 250)), int(rng.integers(1, 90))
    scale = {"binary": 1.0, "normal": 1.0, "huge": 1e153, "tiny": 1e-160, "offset": 1.0}[kind]
    points = rng.integers(0, 2, size=(n, d)).astype(np.float64) if kind == "binary" else rng.normal(size=(n, d)) * scale
    if kind == "offset":  # large norms, small distances: the expansion is far from exact
        points += 1e6
    k = int(rng.integers(1, n + 1))
    centres = points[rng.integers(n, size=k)].copy()  # exact zeros and exact ties
    for position in rng.choice(k, size=k // 2, replace=False):
        members = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
        centres[position] = points[members].mean(axis=0)
    if k >= 2:  # points (nearly) half-way between two centres: the expanded distances (nearly) tie
        for j in rng.choice(n, size=n // 3, replace=False):
            a, b = rng.choice(k, size=2, replace=False)
            points[j] = (centres[a] + centres[b]) / 2
            if rng.random() < 0.5:
                points[j] = np.nextafter(points[j], np.inf)
    return np.array(points, order=order), centres


@given(seeds, st.sampled_from(["binary", "normal", "huge", "tiny", "offset"]), st.sampled_from(["C", "F"]))
def test_fast_assignment_equals_the_exact_one_on_random_inputs(seed: int, kind: str, order: Literal["C", "F"]) -> None:
    _check_nearest_centres(*_random_case(seed, kind, order))


@given(seeds, st.sampled_from(["binary", "offset"]), st.sampled_from(["C", "F"]), st.integers(1, 400))
def test_ties_are_resolved_in_blocks_of_bounded_size(
    seed: int, kind: str, order: Literal["C", "F"], chunk: int
) -> None:
    """Every point tied with several centres: the exact distances are taken a block at a time, with the same labels."""
    from sysrs_ref.subset import _clustering_kernels

    points, centres = _random_case(seed, kind, order)
    centres = np.vstack([centres, centres[::-1]])  # every centre at least twice: ties everywhere
    k = len(centres)
    with np.errstate(all="ignore"):
        exact = squared_distances(points, centres)
    sizes: list[int] = []

    def counted(a: FloatArray, b: FloatArray, how: Literal["C", "F"] = "C") -> FloatArray:
        sizes.append(len(a))
        return pair_distances(a, b, how)

    with (
        mock.patch.object(_clustering_kernels, "CHUNK_ELEMENTS", chunk * points.shape[1]),
        mock.patch.object(_clustering_kernels, "pair_distances", counted),
        np.errstate(all="ignore"),
    ):
        labels, own = nearest_centres(points, centres)
    assert np.array_equal(labels, np.argmin(exact, axis=0))
    assert np.array_equal(own, exact[labels, np.arange(len(points))], equal_nan=True)
    *blocks, last = sizes  # the blocks of tied pairs, then every point's own distance
    assert last == len(points) and blocks and max(blocks) <= chunk + k


@given(seeds, st.sampled_from(["C", "F"]))
def test_pair_distances_are_the_entries_of_squared_distances(seed: int, order: Literal["C", "F"]) -> None:
    points, centres = _random_case(seed, "normal", order)
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(len(points), size=20), rng.integers(len(centres), size=20)
    got = pair_distances(points[rows], centres[cols], points_order(points))
    assert np.array_equal(got, squared_distances(points, centres)[cols, rows])
    single = pair_distances(points[rows[:1]], centres[cols[:1]], points_order(points))  # one row: still its loop
    assert np.array_equal(single, squared_distances(points, centres)[cols[:1], rows[:1]])


def _same_kmeans(points: FloatArray, k: int, seed: int) -> None:
    fast = kmeans(points, k, seed=seed)
    with mock.patch.object(clustering, "_assign", _assign_exact):
        exact = kmeans(points, k, seed=seed)
    assert np.array_equal(fast.labels, exact.labels)
    assert np.array_equal(fast.centres, exact.centres)
    assert fast.objective_history == exact.objective_history and fast.iterations == exact.iterations


@given(point_sets(), st.sampled_from(["C", "F"]), st.data(), seeds)
def test_kmeans_is_bit_identical_to_the_exact_assignment(
    points: FloatArray, order: Literal["C", "F"], data: st.DataObject, seed: int
) -> None:
    _same_kmeans(np.array(points, order=order), data.draw(st.integers(1, len(points))), seed)


@given(seeds, st.sampled_from(["binary", "normal", "offset"]), st.sampled_from(["C", "F"]))
def test_kmeans_is_bit_identical_to_the_exact_assignment_on_random_inputs(
    seed: int, kind: str, order: Literal["C", "F"]
) -> None:
    points, _ = _random_case(seed, kind, order)
    _same_kmeans(points, int(np.random.default_rng(seed).integers(1, min(len(points), 40) + 1)), seed)


@pytest.mark.parametrize("k", [1, 7, 60, 300])
def test_kmeans_on_score_columns_is_bit_identical(k: int) -> None:
    """kmeans_correctness' case: the transposed (F-ordered) columns of a binary score matrix, ties everywhere."""
    rng = np.random.default_rng(k)
    scores = (rng.random((20, 400)) < rng.random(400)).astype(np.float64)
    _same_kmeans(scores.T, k, seed=k)


# -- alternating k-medoids ----------------------------------------------------------------------


@given(distance_matrices(), st.data(), seeds)
def test_alternate_kmedoids_invariants(matrix: FloatArray, data: st.DataObject, seed: int) -> None:
    n = len(matrix)
    k = data.draw(st.integers(1, n))
    result = kmedoids(matrix, k, seed=seed, method="alternate", max_iter=1000)
    medoids = np.array(result.medoids)
    history = np.array(result.objective_history)
    # each round keeps the old medoid as a candidate and then reassigns to the nearest medoid, so the
    # objective cannot rise; a round that does not strictly lower the rounded objective is undone
    assert (np.diff(history) < 0).all(), "the objective must be strictly decreasing (so non-increasing)"
    assert len(history) <= result.iterations <= 1000
    assert list(result.medoids) == sorted(set(result.medoids)) and len(medoids) == k
    assert ((result.labels >= 0) & (result.labels < k)).all()
    assert (np.bincount(result.labels, minlength=k) > 0).all(), "every cluster must be non-empty"
    assert (result.labels[medoids] == np.arange(k)).all(), "a medoid is in its own cluster"
    own = matrix[medoids[result.labels], np.arange(n)]
    assert (own == matrix[medoids].min(axis=0)).all(), "labels are nearest-medoid labels"
    others = np.setdiff1d(np.arange(n), medoids)
    assert (result.labels[others] == np.argmin(matrix[medoids][:, others], axis=0)).all(), "ties: lowest position"
    assert result.objective == pytest.approx(own.sum(), rel=1e-12, abs=1e-12)
    # same k-medoids++ start as FasterPAM; the end is a fixed point: every medoid is a best member
    assert result.objective_history[0] == kmedoids(matrix, k, seed=seed).objective_history[0]
    for position, medoid in enumerate(result.medoids):
        members = np.flatnonzero(result.labels == position)
        costs = matrix[np.ix_(members, members)].sum(axis=1)
        assert matrix[medoid, members].sum() <= costs.min() + 1e-9 * (1.0 + costs.min())


@given(distance_matrices(), st.data(), seeds)
def test_alternate_kmedoids_is_deterministic_given_the_seed(matrix: FloatArray, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, len(matrix)))
    first = kmedoids(matrix, k, seed=seed, method="alternate")
    second = kmedoids(matrix, k, seed=as_generator(seed), method="alternate")
    assert first.medoids == second.medoids and first.iterations == second.iterations
    assert np.array_equal(first.labels, second.labels)
    assert first.objective_history == second.objective_history


@given(distance_matrices(), seeds)
def test_alternate_kmedoids_with_k_equal_n_makes_every_point_a_medoid(matrix: FloatArray, seed: int) -> None:
    result = kmedoids(matrix, len(matrix), seed=seed, method="alternate")
    assert result.medoids == tuple(range(len(matrix)))
    assert result.labels.tolist() == list(range(len(matrix)))
    assert result.objective == 0.0 and result.iterations == 1


def _blobs(seed: int) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(4), 12)
    centres = np.array([[0.0, 0.0], [40.0, 0.0], [0.0, 40.0], [40.0, 40.0]])
    points = centres[truth] + rng.normal(size=(48, 2))
    return np.sqrt(squared_distances(points, points)), truth


def test_alternate_kmedoids_recovers_separated_clusters() -> None:
    distances, truth = _blobs(3)
    result = kmedoids(distances, 4, seed=2024, method="alternate")
    assert _same_partition(result.labels, truth)
    for position, medoid in enumerate(result.medoids):
        members = np.flatnonzero(result.labels == position)
        costs = distances[np.ix_(members, members)].sum(axis=1)
        assert distances[medoid, members].sum() == costs.min()


@pytest.mark.parametrize("seed", range(6))
def test_fasterpam_and_alternate_agree_on_separated_clusters(seed: int) -> None:
    distances, truth = _blobs(seed)
    fasterpam = kmedoids(distances, 4, seed=seed)
    alternate = kmedoids(distances, 4, seed=seed, method="alternate")
    assert fasterpam.medoids == alternate.medoids
    assert np.array_equal(fasterpam.labels, alternate.labels) and _same_partition(alternate.labels, truth)
    assert fasterpam.objective_history[0] == alternate.objective_history[0]
    assert fasterpam.objective == pytest.approx(alternate.objective, rel=1e-12)


@pytest.mark.parametrize("second", [3, 4])
def test_alternate_keeps_the_current_medoid_on_a_tie(second: int) -> None:
    distances = np.abs(np.subtract.outer([0.0, 1.0, 2.0, 10.0, 11.0], [0.0, 1.0, 2.0, 10.0, 11.0]))
    medoids, history, rounds = alternate_medoids(distances, np.array([second, 0]), 10)
    assert medoids.tolist() == [1, second]  # 3 and 4 both cost 1 in {3, 4}: the current one stays
    assert history == [4.0, 3.0] and rounds == 2


@given(score_matrices(), st.data(), seeds)
def test_anchor_points_passes_the_kmedoids_method(scores: FloatArray, data: st.DataObject, seed: int) -> None:
    k = data.draw(st.integers(1, scores.shape[1]))
    distances = 1.0 - question_correlations(scores)
    np.fill_diagonal(distances, 0.0)
    alternate = anchor_points(scores, k, seed=seed, kmedoids_method="alternate")
    assert alternate.anchors == kmedoids(distances, k, seed=seed, method="alternate").medoids
    default = anchor_points(scores, k, seed=seed)
    assert default.anchors == anchor_points(scores, k, seed=seed, kmedoids_method="fasterpam").anchors
    assert default.anchors == kmedoids(distances, k, seed=seed).medoids


def test_unknown_kmedoids_methods_are_rejected() -> None:
    with pytest.raises(ParameterError, match="method must be 'fasterpam' or 'alternate', got 'pam'"):
        kmedoids(GOOD_DISTANCES, 1, seed=0, method="pam")  # type: ignore[arg-type]  # deliberately wrong
    with pytest.raises(ParameterError, match="method must be"):
        anchor_points([[0.0, 1.0], [1.0, 0.0]], 1, seed=0, kmedoids_method="Alternate")  # type: ignore[arg-type]
