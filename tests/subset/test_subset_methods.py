"""The subset-selection baselines: Anchor Point Weighted Score and tinyBenchmarks' k-means selection."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, strategies as st

from sysrs_ref.errors import BudgetError, InstanceError, ParameterError, ScoreError, SysrsError
from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import kmeans
from sysrs_ref.subset.kmeans_select import (
    correctness_embeddings,
    kmeans_correctness,
    kmeans_subset,
    nearest_questions,
)
from sysrs_ref.subset.methods import subset_need
from sysrs_ref.subset.result import SubsetResult, check_subset_inputs, weighted_estimates
from tests.strategies import score_matrices, seeds

FloatArray = npt.NDArray[np.float64]
Method = Callable[[FloatArray, int, int], SubsetResult]


def _random_embedding(scores: FloatArray, k: int, seed: int) -> SubsetResult:
    embeddings = np.random.default_rng(seed).integers(0, 3, size=(scores.shape[1], 2)).astype(float)
    return kmeans_subset(scores, embeddings, k, seed=seed, method="kmeans-random")


METHODS: dict[str, Method] = {
    "anchor": lambda s, k, seed: anchor_points(s, k, seed=seed),
    "kmeans-correctness": lambda s, k, seed: kmeans_correctness(s, k, seed=seed),
    "kmeans-random": _random_embedding,
}


@pytest.mark.parametrize("name", sorted(METHODS))
@given(scores=score_matrices(), data=st.data(), seed=seeds)
def test_result_invariants(name: str, scores: FloatArray, data: st.DataObject, seed: int) -> None:
    n_models, n_questions = scores.shape
    k = data.draw(st.integers(1, n_questions))
    result = METHODS[name](scores, k, seed)
    assert result.method == name and result.k == k
    assert len(result.anchors) == len(result.weights) == k
    assert list(result.anchors) == sorted(set(result.anchors)), "anchors are distinct, in increasing order"
    assert all(0 <= q < n_questions for q in result.anchors)
    assert abs(sum(result.weights) - 1.0) < 1e-12
    counts = np.array(result.weights) * n_questions
    assert np.allclose(counts, np.round(counts), atol=1e-9) and (np.round(counts) >= 1).all()
    naive = [
        sum(w * scores[i, q] for q, w in zip(result.anchors, result.weights, strict=True)) for i in range(n_models)
    ]
    assert np.allclose(result.estimates, naive, rtol=0, atol=1e-12)
    assert not np.isnan(result.estimates).any()
    best = max(result.estimates)
    assert result.chosen == result.estimates.index(best), "the first maximum: ties to the lowest model"
    assert list(result.to_json()) == ["method", "k", "anchors", "weights", "estimates", "chosen"]
    assert METHODS[name](scores, k, seed) == result, "deterministic given the seed"


@pytest.mark.parametrize("name", sorted(METHODS))
@given(scores=score_matrices(), seed=seeds)
def test_k_equal_to_l_is_exact(name: str, scores: FloatArray, seed: int) -> None:
    n_questions = scores.shape[1]
    result = METHODS[name](scores, n_questions, seed)
    assert result.anchors == tuple(range(n_questions))
    assert result.weights == (1 / n_questions,) * n_questions
    assert np.allclose(result.estimates, scores.mean(axis=1), rtol=0, atol=1e-12)


# -- Anchor Point Weighted Score ---------------------------------------------------


@given(score_matrices())
def test_question_correlations_never_nan_and_match_pearson(scores: FloatArray) -> None:
    correlations = question_correlations(scores)
    n_questions = scores.shape[1]
    assert correlations.shape == (n_questions, n_questions)
    assert np.isfinite(correlations).all()
    assert (correlations == correlations.T).all() and (np.diagonal(correlations) == 1.0).all()
    assert (np.abs(correlations) <= 1.0).all()
    constant = np.ptp(scores, axis=0) == 0
    # numpy's own formula squares the deviations: for spreads below ~1e-150 it underflows to NaN or to a
    # wrong finite value, so compare only columns whose spread numpy can square
    varying = np.flatnonzero(np.ptp(scores, axis=0) > 1e-100)
    if len(varying) >= 1:
        with np.errstate(all="ignore"):
            pearson = np.atleast_2d(np.corrcoef(scores[:, varying], rowvar=False))
        defined = np.isfinite(pearson)  # numpy's own formula underflows on tiny (subnormal) spreads
        assert np.allclose(correlations[np.ix_(varying, varying)][defined], pearson[defined], rtol=0, atol=1e-12)
    for a in np.flatnonzero(constant):
        for b in range(n_questions):
            if b == a:
                expected = 1.0
            elif constant[b]:
                expected = float(scores[0, a] == scores[0, b])
            else:
                expected = 0.0
            assert correlations[a, b] == expected


def test_constant_column_rule_on_an_example() -> None:
    scores = np.array([[1.0, 0.0, 1.0, 0.5, 1.0], [1.0, 1.0, 1.0, 0.5, 0.0], [1.0, 0.0, 1.0, 0.5, 1.0]])
    correlations = question_correlations(scores)
    assert correlations[0, 2] == 1.0  # two all-1 questions
    assert correlations[0, 3] == 0.0  # all-1 vs all-1/2
    assert correlations[0, 1] == 0.0  # constant vs varying
    assert correlations[1, 4] == pytest.approx(-1.0)
    result = anchor_points(scores, 2, seed=0)
    assert np.isfinite(result.estimates).all()


@given(scores=score_matrices(), data=st.data(), seed=seeds)
def test_anchor_weights_follow_the_most_correlated_medoid(scores: FloatArray, data: st.DataObject, seed: int) -> None:
    n_questions = scores.shape[1]
    k = data.draw(st.integers(1, n_questions))
    result = anchor_points(scores, k, seed=seed)
    correlations = question_correlations(scores)
    anchors = list(result.anchors)
    expected = np.zeros(k)
    for question in range(n_questions):
        if question in anchors:
            expected[anchors.index(question)] += 1
        else:
            row = [correlations[q, question] for q in anchors]
            expected[row.index(max(row))] += 1
    assert result.weights == tuple(expected / n_questions)


# -- tinyBenchmarks k-means -----------------------------------------------------------


def test_correctness_embedding_is_the_columns() -> None:
    scores = np.array([[1.0, 0.0, 0.5], [0.0, 0.0, 1.0]])
    assert correctness_embeddings(scores).tolist() == [[1.0, 0.0], [0.0, 0.0], [0.5, 1.0]]


def test_two_centres_with_the_same_nearest_question_get_distinct_anchors() -> None:
    embeddings = np.array([[0.0], [1.0], [1.1], [5.0]])
    centres = np.array([[1.0], [1.0], [4.0]])  # the first two centres share their nearest question, 1
    assert nearest_questions(embeddings, centres) == [1, 2, 3]
    centres = np.array([[0.55], [0.45]])  # ties: question 0 or 1 at distance 0.45^2 / 0.55^2
    assert nearest_questions(embeddings, centres) == [1, 0]


@given(scores=score_matrices(), data=st.data(), seed=seeds)
def test_kmeans_subset_uses_nearest_questions_and_cluster_sizes(
    scores: FloatArray, data: st.DataObject, seed: int
) -> None:
    n_questions = scores.shape[1]
    k = data.draw(st.integers(1, n_questions))
    result = kmeans_correctness(scores, k, seed=seed)
    clusters = kmeans(scores.T, k, seed=seed)
    anchors = nearest_questions(scores.T, clusters.centres)
    sizes = np.bincount(clusters.labels, minlength=k)
    expected = sorted(zip(anchors, (sizes / n_questions).tolist(), strict=True))
    assert list(zip(result.anchors, result.weights, strict=True)) == expected


# -- helpers and errors ------------------------------------------------------------------


def test_weighted_estimates_and_result_json() -> None:
    scores = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    assert weighted_estimates(scores, [0, 1], [0.75, 0.25]).tolist() == [0.75, 0.25]
    result = kmeans_subset(scores, [[0.0], [0.0], [9.0], [9.0]], 2, seed=1, method="demo")
    assert result.to_json() == {
        "method": "demo",
        "k": 2,
        "anchors": [0, 2],
        "weights": [0.5, 0.5],
        "estimates": [1.0, 0.5],
        "chosen": 0,
    }


def test_ties_between_models_go_to_the_lowest_index() -> None:
    scores = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    assert anchor_points(scores, 2, seed=0).chosen == 1
    assert kmeans_correctness(scores, 2, seed=0).chosen == 1


GOOD = [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]


@pytest.mark.parametrize("name", sorted(METHODS))
@pytest.mark.parametrize(
    ("scores", "k", "error", "message"),
    [
        ([0.0, 1.0], 1, InstanceError, "2-D matrix"),
        ([[0.0, 1.0]], 1, InstanceError, "at least 2 models"),
        ([[0.0, 1.0], [1.0]], 1, InstanceError, "2-D matrix"),
        ([["a", "b"], ["c", "d"]], 1, InstanceError, "real numbers"),
        ([[0.0, 1.5], [1.0, 0.0]], 1, ScoreError, "model 0, question 1 is 1.5"),
        ([[0.0, 1.0], [-0.1, 0.0]], 1, ScoreError, "in \\[0, 1\\]"),
        ([[0.0, 1.0], [np.nan, 0.0]], 1, ScoreError, "finite"),
        (GOOD, 0, BudgetError, r"k must be between 1 and L \(= 3\) anchor questions, got 0"),
        (GOOD, 4, BudgetError, r"k must be between 1 and L \(= 3\) anchor questions, got 4"),
        (GOOD, 1.5, BudgetError, "must be an integer"),
        (GOOD, True, BudgetError, "must be an integer"),
    ],
)
def test_bad_inputs_are_rejected(name: str, scores: object, k: object, error: type[SysrsError], message: str) -> None:
    calls: dict[str, Callable[[], SubsetResult]] = {
        "anchor": lambda: anchor_points(scores, k, seed=0),  # type: ignore[arg-type]  # deliberately malformed
        "kmeans-correctness": lambda: kmeans_correctness(scores, k, seed=0),  # type: ignore[arg-type]  # idem
        "kmeans-random": lambda: kmeans_subset(scores, [[0.0], [1.0], [2.0]], k, seed=0),  # type: ignore[arg-type]
    }
    with pytest.raises(error, match=message):
        calls[name]()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: anchor_points(GOOD, 2, seed=-3), "seed must be"),
        (lambda: kmeans_correctness(GOOD, 2, seed="7"), "seed must be"),  # type: ignore[arg-type]  # wrong type
        (lambda: kmeans_subset(GOOD, [[0.0], [1.0]], 2, seed=0), "one row per question"),
        (lambda: kmeans_subset(GOOD, [0.0, 1.0, 2.0], 2, seed=0), "one row per question"),
        (lambda: kmeans_subset(GOOD, [[0.0], [np.inf], [1.0]], 2, seed=0), "finite"),
        (lambda: kmeans_subset(GOOD, [[0.0], [1.0], [2.0]], 2, seed=0, method=""), "method"),
        (lambda: SubsetResult("m", 2, (0,), (1.0,), (1.0, 0.0), 0), "k anchors"),
        (lambda: SubsetResult("m", 2, (0, 0), (0.5, 0.5), (1.0, 0.0), 0), "distinct"),
        (lambda: SubsetResult("m", 1, (0,), (1.0,), (1.0, 0.0), 2), "not a model index"),
    ],
)
def test_bad_parameters_are_rejected(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        call()


def test_check_subset_inputs_returns_float_scores() -> None:
    checked = check_subset_inputs([[0, 1], [1, 1]], 1)
    assert checked.dtype == np.float64 and checked.tolist() == [[0.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize("n_queries", [1, 1000, 14_042])
def test_anchor_needs_its_three_l_by_l_float64_matrices(n_queries: int) -> None:
    """Correlations, distances and the k-medoids' work matrix: 3 x 8 L^2 bytes, whatever K and k."""
    assert subset_need("anchor", 10, n_queries, 1).memory >= 3 * 8 * n_queries * n_queries
