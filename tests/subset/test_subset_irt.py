"""Tests of the MAP 2PL of sysrs_ref.subset.irt: recovery, the analytic gradient, determinism, abilities, bad input."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref.errors import ParameterError, ScoreError
from sysrs_ref.fast import COMPILED_KERNELS
from sysrs_ref.subset._irt_priors import HYPER_NAMES, log_posterior, log_posterior_and_gradient, sigmoid
from sysrs_ref.subset.irt import estimate_abilities, fit_irt
from tests.strategies import irt_points

FloatArray = npt.NDArray[np.float64]
#: The full-length fits below (recovery, seeds, abilities) run on the compiled kernels: numpy's doubles bit for bit
#: (tests/fast/test_fixed_order_compiled.py), in about half the time; the short fits keep numpy's loops.
KERNELS = COMPILED_KERNELS


def simulate(
    seed: int, n_models: int, n_questions: int, d: int
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Binary scores from a 2PL: theta ~ N(0, I), alpha ~ LogNormal(0, 0.5^2) per coordinate, beta ~ N(0, 1).

    Returns (scores, theta, alpha, beta, true probabilities).
    """
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal((n_models, d))
    alpha = rng.lognormal(0.0, 0.5, (n_questions, d))
    beta = rng.standard_normal(n_questions)
    prob = sigmoid(theta @ alpha.T - beta)
    return (rng.random(prob.shape) < prob).astype(np.float64), theta, alpha, beta, prob


def corr(a: FloatArray, b: FloatArray) -> float:
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


# ---------------------------------------------------------------- recovery


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_recovers_unidimensional_2pl(seed: int) -> None:
    # 300 models x 200 questions. An ability is seen through 200 items of mean information
    # alpha^2 P (1 - P) of about 0.2, so its standard error is about 1/sqrt(40) = 0.16 against a
    # spread of 1: correlation ~ 0.99. A discrimination is seen through 300 models (theta^2 P (1-P)
    # ~ 0.15 each): standard error ~ 0.15 against a spread of ~ 0.6 (LogNormal(0, 0.5)), i.e. ~ 0.97,
    # less for the very easy or hard items; a difficulty (spread 1, error ~ 0.15 / alpha) ~ 0.98.
    # Observed (data seeds 1-5): theta 0.987-0.989, alpha 0.93-0.95, beta 0.987-0.99.
    scores, theta, alpha, beta, prob = simulate(seed, 300, 200, 1)
    fit = fit_irt(scores, 2, seed=seed, kernels=KERNELS)
    # the sign convention: a positive correlation (not just |corr|) for theta and alpha
    assert corr(fit.theta, theta) > 0.95
    assert corr(fit.alpha, alpha) > 0.9
    assert corr(fit.beta, beta) > 0.95
    assert fit.alpha.mean() > 0
    # Adam at a fixed step circles the optimum: over the last 100 of the paper's 2,000 epochs the objective
    # still moves by about 1e-5 of itself on this data (1.4e-5 for seed 1, so `converged` at 1e-6 is False),
    # the same on every machine; a fit far from the optimum moves by 1e-3 or more
    assert fit.report.relative_change < 1e-4, fit.report
    # MAP: the fitted log posterior beats the truth's, whose hyperparameters are set to the truth's sample moments
    truth_hyper = np.array([alpha.mean(), math.log(alpha.std()), beta.mean(), math.log(beta.std())])
    assert fit.report.objective >= log_posterior(scores, theta, alpha, beta, truth_hyper)
    assert np.abs(fit.probabilities() - prob).mean() < 0.05
    assert fit.report.gradient_norm < 1e-3 * abs(fit.report.objective)


@pytest.mark.slow
def test_recovers_three_dimensional_2pl_up_to_rotation() -> None:
    # D = 3: theta and alpha are only identified up to an orthogonal map, so compare what is
    # identified: the probabilities, and the latent subspace (true theta is a linear function of the
    # fitted theta, R^2 close to 1 in each coordinate).
    # observed (data seeds 7-9): mean |P - P_true| 0.041-0.044 against 0.061-0.070 for D = 2; R^2 0.90-0.94
    scores, theta, _, _, prob = simulate(7, 300, 200, 2)
    fit = fit_irt(scores, 3, seed=0, kernels=KERNELS)
    assert fit.theta.shape == (300, 2) and fit.alpha.shape == (200, 2)
    assert np.abs(fit.probabilities() - prob).mean() < 0.05
    design = np.column_stack([fit.theta, np.ones(300)])
    coef, *_ = np.linalg.lstsq(design, theta, rcond=None)
    r2 = 1.0 - ((design @ coef - theta) ** 2).sum(axis=0) / ((theta - theta.mean(axis=0)) ** 2).sum(axis=0)
    assert (r2 > 0.8).all(), r2
    # a one-dimensional fit cannot match the two-dimensional truth as well
    flat = fit_irt(scores, 2, seed=0, kernels=KERNELS)
    assert np.abs(fit.probabilities() - prob).mean() < np.abs(flat.probabilities() - prob).mean()


# ---------------------------------------------------------------- the objective and its gradient


def naive_log_posterior(
    scores: FloatArray, theta: FloatArray, alpha: FloatArray, beta: FloatArray, hyper: FloatArray
) -> float:
    """The documented log joint density, written out term by term with the math module."""
    mu_a, s_a, mu_b, s_b = (float(v) for v in hyper)

    def log_normal(x: float, mean: float, sd: float) -> float:
        return -0.5 * ((x - mean) / sd) ** 2 - math.log(sd) - 0.5 * math.log(2 * math.pi)

    def log_precision_prior(s: float) -> float:  # Gamma(1, 1) on tau = e^(-2 s), times |d tau / d s|
        tau = math.exp(-2 * s)
        return -tau + math.log(2 * tau)

    total = 0.0
    for i in range(scores.shape[0]):
        for j in range(scores.shape[1]):
            p = 1 / (1 + math.exp(-(float(theta[i] @ alpha[j]) - beta[j])))
            total += scores[i, j] * math.log(p) + (1 - scores[i, j]) * math.log(1 - p)
    total += sum(log_normal(float(t), 0, 1) for t in theta.ravel())
    total += sum(log_normal(float(a), mu_a, math.exp(s_a)) for a in alpha.ravel())
    total += sum(log_normal(float(b), mu_b, math.exp(s_b)) for b in beta)
    total += log_normal(mu_a, 0, 10) + log_normal(mu_b, 0, 10)
    return total + log_precision_prior(s_a) + log_precision_prior(s_b)


@settings(max_examples=40)
@given(irt_points())
def test_log_posterior_is_the_documented_density(point: tuple[FloatArray, ...]) -> None:
    assert math.isclose(log_posterior(*point), naive_log_posterior(*point), rel_tol=1e-10, abs_tol=1e-9)


@settings(max_examples=40)
@given(irt_points())
def test_gradient_matches_central_differences(point: tuple[FloatArray, ...]) -> None:
    scores, *params = point
    _, grad = log_posterior_and_gradient(scores, *params)
    h = 1e-5
    for block, analytic in zip(params, grad, strict=True):
        assert analytic.shape == block.shape
        for index in np.ndindex(block.shape):
            saved = block[index]
            block[index] = saved + h
            up = log_posterior(scores, *params)
            block[index] = saved - h
            down = log_posterior(scores, *params)
            block[index] = saved
            numeric = (up - down) / (2 * h)
            assert math.isclose(analytic[index], numeric, rel_tol=1e-5, abs_tol=1e-5), (index, analytic[index], numeric)


def test_sigmoid_is_stable_and_symmetric() -> None:
    z = np.array([-1000.0, -30.0, -1.0, 0.0, 1.0, 30.0, 1000.0])
    p = sigmoid(z)
    assert np.all(np.isfinite(p)) and np.allclose(p + sigmoid(-z), 1.0)
    assert math.isclose(p[2], 1 / (1 + math.e))


# ---------------------------------------------------------------- determinism


def test_same_seed_same_fit_and_no_global_state() -> None:
    scores, *_ = simulate(3, 40, 30, 1)
    np.random.seed(12345)
    first = fit_irt(scores, 3, epochs=300, seed=5)
    after_fit = np.random.random()
    second = fit_irt(scores, 3, epochs=300, seed=np.random.default_rng(5))
    for a, b in [(first.theta, second.theta), (first.alpha, second.alpha), (first.beta, second.beta)]:
        assert np.array_equal(a, b)
    assert first.report == second.report and first.hyper == second.hyper
    np.random.seed(12345)
    assert np.random.random() == after_fit  # the fit drew nothing from numpy's global random state


@pytest.mark.slow
def test_different_seeds_start_apart_and_end_together() -> None:
    scores, *_ = simulate(4, 200, 100, 1)
    fits = [fit_irt(scores, 2, seed=seed, kernels=KERNELS) for seed in (0, 1)]
    assert all(fit.report.relative_change < 1e-4 for fit in fits)  # near the optimum (see the recovery test)
    assert fits[0].report.history[0] != fits[1].report.history[0]  # different starting points
    assert not np.array_equal(fits[0].theta, fits[1].theta)
    assert np.abs(fits[0].probabilities() - fits[1].probabilities()).max() < 0.02
    assert math.isclose(fits[0].report.objective, fits[1].report.objective, rel_tol=1e-5)


# ---------------------------------------------------------------- the fit object


def test_fit_object_shapes_hyper_and_read_only_arrays() -> None:
    scores, *_ = simulate(5, 12, 9, 1)
    fit = fit_irt(scores, 5, epochs=50, history_every=7)
    assert fit.theta.shape == (12, 4) and fit.alpha.shape == (9, 4) and fit.beta.shape == (9,)
    assert fit.embeddings().shape == (9, 5)
    assert np.array_equal(fit.embeddings()[:, :4], fit.alpha) and np.array_equal(fit.embeddings()[:, 4], fit.beta)
    assert set(fit.hyper) == {"mu_alpha", "sigma_alpha", "mu_beta", "sigma_beta"}
    assert fit.hyper["sigma_alpha"] > 0 and fit.hyper["sigma_beta"] > 0
    assert len(HYPER_NAMES) == 4
    assert len(fit.report.history) == len(range(0, 50, 7)) + 1 and fit.report.epochs == 50
    assert fit.report.history[-1] == fit.report.objective
    with pytest.raises(ValueError):
        fit.theta[0, 0] = 1.0


def test_objective_improves_from_the_start() -> None:
    scores, *_ = simulate(6, 30, 20, 1)
    history = fit_irt(scores, 2, epochs=500, history_every=50).report.history
    assert history[-1] > history[0]
    assert history[-1] >= max(history) - 1e-6 * abs(history[-1])


# ---------------------------------------------------------------- estimate_abilities


def test_estimate_abilities_recovers_abilities_with_true_items() -> None:
    # 150 items of known parameters per model: ability standard error ~ 1/sqrt(150 * 0.2) = 0.18
    # against a spread of 1, i.e. correlation ~ 0.98; the threshold 0.9 leaves room.
    scores, theta, alpha, beta, _ = simulate(8, 200, 150, 1)
    estimate = estimate_abilities(scores, alpha, beta)
    assert estimate.shape == (200, 1)
    assert corr(estimate, theta) > 0.9
    # on a subset of 40 columns it still ranks the models well (error ~ 0.35)
    cols = np.arange(0, 150, 4)[:40]
    assert corr(estimate_abilities(scores[:, cols], alpha[cols], beta[cols]), theta) > 0.85
    # the MAP: the gradient of each model's objective vanishes there
    resid = scores - sigmoid(estimate @ alpha.T - beta)
    assert np.abs(resid @ alpha - estimate).max() < 1e-6


def test_estimate_abilities_agrees_with_the_joint_fit() -> None:
    scores, *_ = simulate(9, 60, 40, 2)
    fit = fit_irt(scores, 3, epochs=2000, seed=0, kernels=KERNELS)
    again = estimate_abilities(scores, fit.alpha, fit.beta)
    assert np.abs(again - fit.theta).max() < 1e-2


def test_estimate_abilities_accepts_a_vector_of_discriminations() -> None:
    scores = np.array([[1.0, 1.0, 0.5], [0.0, 0.5, 0.0]])
    as_vector = estimate_abilities(scores, [1.0, 2.0, 0.5], [0.0, 0.5, 1.0])
    as_matrix = estimate_abilities(scores, [[1.0], [2.0], [0.5]], [0.0, 0.5, 1.0])
    assert np.array_equal(as_vector, as_matrix) and as_vector[0, 0] > 0 > as_vector[1, 0]


# ---------------------------------------------------------------- fractional scores and bad input


@settings(max_examples=15)
@given(st.integers(2, 6), st.integers(1, 6), st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_fractional_scores_are_accepted(n_models: int, n_questions: int, dim: int, seed: int) -> None:
    scores = np.random.default_rng(seed).choice([0.0, 0.3, 0.5, 1.0], size=(n_models, n_questions))
    fit = fit_irt(scores, dim, epochs=60, seed=seed)
    prob = fit.probabilities()
    assert prob.shape == (n_models, n_questions) and np.all((prob >= 0) & (prob <= 1))
    assert np.all(np.isfinite(fit.embeddings())) and math.isfinite(fit.report.objective)


def test_all_half_scores_give_half_probabilities() -> None:
    fit = fit_irt(np.full((10, 8), 0.5), 2, epochs=1000)
    assert np.abs(fit.probabilities() - 0.5).max() < 0.02


SCORES = [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scores": [[1.0, math.nan], [0.0, 1.0]]}, ScoreError, "scores[0, 1] = nan is not a score in [0, 1]"),
        ({"scores": [[1.0, -0.1], [0.0, 1.0]]}, ScoreError, "scores[0, 1] = -0.1"),
        ({"scores": [[1.0, 0.0], [1.5, 1.0]]}, ScoreError, "scores[1, 0] = 1.5"),
        ({"scores": [1.0, 0.0]}, ScoreError, "2-D"),
        ({"scores": [[[1.0]], [[0.0]]]}, ScoreError, "2-D"),
        ({"scores": [[1.0, 0.0]]}, ScoreError, "at least 2 model"),
        ({"scores": [[], []]}, ScoreError, "at least 1 question"),
        ({"scores": [[1.0, 0.0], [1.0]]}, ScoreError, "K x L matrix"),
        ({"scores": [["a", "b"], ["c", "d"]]}, ScoreError, "K x L matrix"),
        ({"dim": 1}, ParameterError, "dim must be at least 2 (D - 1 >= 1 latent dimensions), got 1"),
        ({"dim": 2.0}, ParameterError, "dim must be an integer"),
        ({"epochs": 0}, ParameterError, "epochs must be at least 1, got 0"),
        ({"learning_rate": 0.0}, ParameterError, "learning_rate must be a positive finite number"),
        ({"learning_rate": math.nan}, ParameterError, "learning_rate must be a positive finite number"),
        ({"tolerance": -1.0}, ParameterError, "tolerance must be a positive finite number"),
        ({"history_every": 0}, ParameterError, "history_every must be at least 1"),
        ({"seed": -1}, ParameterError, "seed must be a non-negative integer or a numpy.random.Generator"),
        ({"seed": "7"}, ParameterError, "seed must be"),
    ],
)
def test_fit_irt_rejects_bad_input(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    arguments: dict[str, object] = {"scores": SCORES, "dim": 2, "epochs": 5, **kwargs}
    with pytest.raises(error) as info:
        fit_irt(**arguments)  # type: ignore[arg-type]  # deliberately ill-typed arguments
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((SCORES, [1.0], [0.0, 0.0]), {}, ParameterError, "alpha_subset must have shape (2, D - 1) or (2,)"),
        ((SCORES, [1.0, 1.0], [0.0]), {}, ParameterError, "beta_subset must have shape (2,)"),
        ((SCORES, [1.0, math.inf], [0.0, 0.0]), {}, ParameterError, "alpha_subset must be finite"),
        ((SCORES, [1.0, 1.0], [0.0, math.nan]), {}, ParameterError, "beta_subset must be finite"),
        (([[0.5, 2.0]], [1.0, 1.0], [0.0, 0.0]), {}, ScoreError, "scores_on_subset[0, 1] = 2.0"),
        (([[]], [], []), {}, ScoreError, "at least 1 question"),
        ((SCORES, [1.0, 1.0], [0.0, 0.0]), {"epochs": 0}, ParameterError, "epochs must be at least 1"),
        ((SCORES, [1.0, 1.0], [0.0, 0.0]), {"tolerance": 0.0}, ParameterError, "tolerance must be a positive"),
    ],
)
def test_estimate_abilities_rejects_bad_input(
    args: tuple[object, object, object], kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        estimate_abilities(*args, **kwargs)  # type: ignore[arg-type]  # deliberately ill-typed arguments
    assert message in str(info.value)
