"""Tests of MetaBench's item selection and GAM calibration (sysrs_ref.subset.metabench)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref.errors import BudgetError, InstanceError, ParameterError, ScoreError
from sysrs_ref.subset.gam import fit_gam
from sysrs_ref.subset.metabench import (
    fisher_information,
    metabench,
    metabench_estimates,
    quantile_bins,
    select_items,
)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def exact_bins(theta: list[int], k: int) -> list[list[int]]:
    """The type-7 quantile bins computed with Fractions (the specification, for integer abilities)."""
    ordered, n = sorted(theta), len(theta)
    tau = []
    for t in range(k + 1):
        pos = Fraction(t * (n - 1), k)
        low = int(pos)
        tau.append(ordered[low] + (pos - low) * (ordered[min(low + 1, n - 1)] - ordered[low]))
    return [
        [i for i, v in enumerate(theta) if tau[t] <= v < tau[t + 1] or (t == k - 1 and v == tau[k])] for t in range(k)
    ]


# --- Fisher information ---------------------------------------------------------------------


@settings(max_examples=60)
@given(st.floats(-4, 4), st.floats(-3, 3), st.floats(-4, 4))
def test_fisher_information_is_the_expected_curvature(theta: float, a: float, beta: float) -> None:
    info = fisher_information([theta], [a], [beta])[0, 0]
    p = sigmoid(np.array(a * theta - beta))
    assert info == pytest.approx(a * a * p * (1 - p), rel=1e-9, abs=1e-300)  # p (1 - p) loses digits
    # = -E[d^2/dtheta^2 log p(y | theta)], by central second differences of the log-likelihood
    h = 1e-4

    def loglik(y: int, t: float) -> float:
        q = float(sigmoid(np.array(a * t - beta)))
        return float(np.log(q) if y else np.log1p(-q))

    curvature = [(loglik(y, theta + h) - 2 * loglik(y, theta) + loglik(y, theta - h)) / h**2 for y in (0, 1)]
    assert info == pytest.approx(-((1 - p) * curvature[0] + p * curvature[1]), abs=1e-5)


def test_fisher_information_shape_and_extremes() -> None:
    info = fisher_information([-1e4, 0.0, 1e4], [1.0, -2.0], [0.0, 1.0])
    assert info.shape == (3, 2) and np.all(np.isfinite(info)) and np.all(info >= 0)
    assert info[1, 0] == 0.25 and info[0, 0] == 0.0


# --- quantile bins --------------------------------------------------------------------------


@settings(max_examples=100)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=15), st.integers(1, 20))
def test_quantile_bins_match_exact_type7_quantiles(theta: list[int], k: int) -> None:
    bins = [b.tolist() for b in quantile_bins(np.array(theta, dtype=float), k)]
    assert bins == exact_bins(theta, k)
    assert sorted(i for b in bins for i in b) == list(range(len(theta)))  # a partition
    for low, high in itertools.pairwise(bins):  # in ability order
        if low and high:
            assert max(theta[i] for i in low) <= min(theta[i] for i in high)
    for b in bins:  # tied abilities share a bin
        assert all(theta[j] != theta[i] for i in b for c in bins if c is not b for j in c)


@settings(max_examples=50)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=20, unique=True), st.integers(1, 30))
def test_quantile_bins_with_distinct_abilities(theta: list[float], k: int) -> None:
    bins = quantile_bins(theta, k)
    assert len(bins) == k
    sizes = [b.size for b in bins]
    if k <= len(theta):
        assert min(sizes) >= 1  # every bin has a model
    else:
        assert sizes.count(1) == len(theta) and sizes.count(0) == k - len(theta)  # one model per bin


def test_quantile_bins_by_hand() -> None:
    # K = 10, k = 3: type-7 positions 0, 3, 6, 9 -> sorted ranks [0, 3), [3, 6), [6, 9]
    theta = np.array([9, 0, 8, 1, 7, 2, 6, 3, 5, 4], dtype=float)
    assert [b.tolist() for b in quantile_bins(theta, 3)] == [[1, 3, 5], [7, 8, 9], [0, 2, 4, 6]]


# --- Step 2: selection ----------------------------------------------------------------------


def test_select_items_bins_by_hand() -> None:
    # With a = 1 the information a question gives at theta is g(theta - beta), g(z) = e^-|z| / (1 + e^-|z|)^2,
    # largest at beta = theta and falling with |theta - beta|.
    theta = np.array([-3.0, -1.0, 1.0, 3.0])
    a = np.ones(9)
    beta = np.array([-3.0, -1.0, 1.0, 3.0, 0.0, -2.0, 2.0, -2.0, 10.0])
    # k = 2: bins {-3, -1} and {1, 3}. Over bin 1, beta = -2 averages g(1) = 0.1966 against
    # (g(0) + g(2)) / 2 = 0.1775 for beta = -3 or -1: question 5 (its twin, question 7, loses on index);
    # bin 2 symmetrically takes question 6 (beta = 2)
    assert select_items(theta, a, beta, 2) == (5, 6)
    # k = K = 4: one model per bin, each takes the question at its own ability
    assert select_items(theta, a, beta, 4) == (0, 1, 2, 3)
    # k > K: the four bin picks, then by global average information: beta = 0 (question 4,
    # (2 g(1) + 2 g(3)) / 4 = 0.1209), then beta = -2 and 2 (0.1113 each: a tie, the lower index
    # first), then the twin question 7, then beta = 10
    overall = fisher_information(theta, a, beta).mean(axis=0)
    assert overall[4] > overall[5] == overall[6] == overall[7] > overall[8]
    assert select_items(theta, a, beta, 6) == (0, 1, 2, 3, 4, 5)
    assert select_items(theta, a, beta, 9) == (0, 1, 2, 3, 4, 5, 6, 7, 8)


def test_select_items_skips_questions_already_selected() -> None:
    # both models' favourite is question 0; the second bin must take its next best, question 2
    theta, a, beta = [0.0, 0.2], [1.0, 1.0, 1.0], [0.1, 5.0, 0.5]
    assert select_items(theta, a, beta, 2) == (0, 2)


def naive_select(theta: np.ndarray, a: np.ndarray, beta: np.ndarray, k: int) -> tuple[int, ...]:
    """The paper's Step 2 with Python loops, over the non-empty bins then the global average."""
    n_models, n_questions = theta.size, a.size
    info = [
        [
            a[j] ** 2 * sigmoid(a[j] * theta[i] - beta[j]) * (1 - sigmoid(a[j] * theta[i] - beta[j]))
            for j in range(n_questions)
        ]
        for i in range(n_models)
    ]
    chosen: list[int] = []

    def best(models: list[int]) -> int:
        scores = {j: sum(info[i][j] for i in models) / len(models) for j in range(n_questions) if j not in chosen}
        top = max(scores.values())
        return min(j for j, v in scores.items() if v == top)

    for members in quantile_bins(theta, k):
        if members.size:
            chosen.append(best(members.tolist()))
    while len(chosen) < k:
        chosen.append(best(list(range(n_models))))
    return tuple(chosen)


@settings(max_examples=60)
@given(st.integers(2, 12), st.integers(1, 25), st.integers(0, 2**32 - 1), st.data())
def test_select_items_properties(n_models: int, n_questions: int, seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    a = rng.uniform(0.2, 2.5, size=n_questions)
    beta = np.round(rng.normal(size=n_questions), 1)  # some repeated difficulties
    k = data.draw(st.integers(1, n_questions))
    chosen = select_items(theta, a, beta, k)
    assert len(chosen) == k == len(set(chosen)) and all(0 <= j < n_questions for j in chosen)
    assert chosen == select_items(theta, a, beta, k)  # deterministic
    # np.mean and sum / n can differ in the last bit, but the discriminations are continuous,
    # so two questions within an ulp of each other have probability zero here
    assert chosen == naive_select(theta, a, beta, k)
    # beyond the K bin picks, questions come in order of global average information
    overall = fisher_information(theta, a, beta).mean(axis=0)
    tail = [overall[j] for j in chosen[min(k, n_models) :]]
    assert tail == sorted(tail, reverse=True)


# --- Step 3: the GAM calibration --------------------------------------------------------------


@pytest.mark.slow
def test_metabench_estimates_is_the_gam_on_ability_and_subset_mean() -> None:
    rng = np.random.default_rng(7)
    scores = (rng.uniform(size=(40, 60)) < np.linspace(0.2, 0.8, 40)[:, None]).astype(float)
    anchors = [3, 10, 11, 25, 40, 59]
    theta = np.linspace(-2.0, 2.0, 40) + 0.1 * rng.normal(size=40)
    means = scores.mean(axis=1)
    expected = fit_gam(np.column_stack([theta, scores[:, anchors].mean(axis=1)]), means).fitted
    got = metabench_estimates(scores, anchors, theta[:, None], means)  # a K x 1 matrix as from the IRT
    assert np.array_equal(got, expected)
    assert got.shape == (40,) and np.all(np.isfinite(got))


@pytest.mark.slow
def test_metabench_estimates_recovers_a_smooth_calibration() -> None:
    rng = np.random.default_rng(8)
    n_models = 39  # the paper's smallest K
    theta = np.sort(rng.normal(size=n_models))
    scores = (rng.uniform(size=(n_models, 30)) < sigmoid(theta)[:, None]).astype(float)
    truth = 0.2 + 0.6 * sigmoid(1.5 * theta)  # the full means a smooth function of the ability
    estimates = metabench_estimates(scores, list(range(30)), theta, truth)
    assert np.abs(estimates - truth).max() < 0.01
    assert int(np.argmax(estimates)) == n_models - 1


# --- errors -----------------------------------------------------------------------------------


def test_bad_inputs_raise_documented_errors() -> None:
    with pytest.raises(ParameterError, match="beta"):
        fisher_information([0.0], [1.0, 1.0], [0.0])
    with pytest.raises(ParameterError, match="theta"):
        fisher_information([np.nan], [1.0], [0.0])
    with pytest.raises(ParameterError):
        quantile_bins([0.0, 1.0], 0)
    with pytest.raises(ParameterError):
        quantile_bins([], 2)
    for bad_k in (0, 4, True, 1.5):
        with pytest.raises(BudgetError):
            select_items([0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], bad_k)  # type: ignore[arg-type]
    scores = np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    means = scores.mean(axis=1)
    with pytest.raises(ScoreError):
        metabench_estimates(scores * 2, [0], [0.0, 1.0, 2.0], means)
    for bad_anchors in ([], [0, 0], [3], [-1], [True]):
        with pytest.raises(ParameterError, match="anchors"):
            metabench_estimates(scores, bad_anchors, [0.0, 1.0, 2.0], means)
    with pytest.raises(ParameterError, match="theta_subset"):
        metabench_estimates(scores, [0], [0.0, 1.0], means)
    with pytest.raises(ParameterError, match="full_means"):
        metabench_estimates(scores, [0], [0.0, 1.0, 2.0], [0.5, np.nan, 0.5])
    # the pipeline validates before fitting anything
    with pytest.raises(BudgetError):
        metabench(scores, 4)
    with pytest.raises(ScoreError):
        metabench(scores - 0.5, 1)
    with pytest.raises(InstanceError):
        metabench(scores[:1], 1)


# --- the full pipeline ------------------------------------------------------------------------


@pytest.mark.slow
def test_metabench_pipeline_on_a_simulated_2pl() -> None:
    rng = np.random.default_rng(11)
    n_models, n_questions, k = 30, 150, 20
    theta = np.sort(rng.normal(size=n_models))
    a = rng.uniform(0.5, 2.0, size=n_questions)
    beta = rng.normal(size=n_questions)
    scores = (rng.uniform(size=(n_models, n_questions)) < sigmoid(theta[:, None] * a - beta)).astype(float)
    result = metabench(scores, k, epochs=300)
    assert result.method == "metabench" and result.k == k
    assert list(result.anchors) == sorted(set(result.anchors)) and len(result.anchors) == k
    assert result.weights == (1.0 / k,) * k
    estimates = np.array(result.estimates)
    assert estimates.shape == (n_models,) and np.all(np.isfinite(estimates))
    assert result.chosen == int(np.argmax(estimates))
    means = scores.mean(axis=1)
    assert np.corrcoef(estimates, means)[0, 1] > 0.9  # the calibration is fitted to the full means
    assert metabench(scores, k, epochs=300) == result  # deterministic
