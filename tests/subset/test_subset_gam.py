"""Tests of the cubic regression splines and the GCV-fitted additive model (sysrs_ref.subset.gam)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref.errors import ParameterError
from sysrs_ref.fast import COMPILED_KERNELS
from sysrs_ref.subset.gam import LAMBDA_GRID, cr_basis, cr_penalty, fit_gam, place_knots
from tests.strategies import knot_sets


def smooth_example(seed: int, n: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, 2))
    truth = np.sin(2 * np.pi * x[:, 0]) + x[:, 1] ** 2
    return x, truth, truth + 0.1 * rng.normal(size=n)


# --- the basis and its penalty ---------------------------------------------------------------


def test_place_knots_follows_mgcv() -> None:
    # mgcv's place.knots: evenly through the sorted distinct values, interpolating between them.
    assert place_knots(np.arange(10.0), 4).tolist() == [0.0, 3.0, 6.0, 9.0]
    assert np.allclose(place_knots(np.arange(11.0), 4), [0.0, 10 / 3, 20 / 3, 10.0])
    assert place_knots([5.0, 1.0, 1.0, 1.0, 3.0], 10).tolist() == [1.0, 3.0, 5.0]  # duplicates count once
    assert place_knots([2.0, 2.0, 2.0], 10).tolist() == [2.0]  # a constant covariate: one knot


@settings(max_examples=60)
@given(knot_sets, st.integers(0, 2**32 - 1))
def test_penalty_is_symmetric_psd_and_annihilates_lines(knots: np.ndarray, seed: int) -> None:
    s = cr_penalty(knots)
    m = knots.size
    assert np.array_equal(s, s.T)
    eigenvalues = np.linalg.eigvalsh(s)
    scale = float(np.abs(eigenvalues).max())
    assert eigenvalues.min() >= -1e-9 * scale
    # the null space is exactly the constants and the lines: rank m - 2
    assert int(np.sum(eigenvalues > 1e-9 * scale)) == m - 2
    assert np.allclose(s @ np.ones(m), 0.0, atol=1e-9 * scale)
    assert np.allclose(s @ knots, 0.0, atol=1e-9 * scale * np.abs(knots).max())
    beta = np.random.default_rng(seed).normal(size=m)
    assert beta @ s @ beta >= -1e-9 * scale * (beta @ beta)


def test_penalty_is_the_integrated_squared_second_derivative() -> None:
    knots = np.array([0.0, 0.3, 1.0, 1.5, 2.5, 4.0])
    x = np.linspace(knots[0], knots[-1], 200_001)
    h = x[1] - x[0]
    basis = cr_basis(x, knots)
    for seed in range(3):
        beta = np.random.default_rng(seed).normal(size=knots.size)
        f = basis @ beta
        second = (f[2:] - 2 * f[1:-1] + f[:-2]) / h**2
        # Riemann sum of a piecewise-linear f'' squared: error O(h) relative, well below 1e-4
        assert np.isclose(np.sum(second**2) * h, beta @ cr_penalty(knots) @ beta, rtol=1e-4)


@settings(max_examples=40)
@given(knot_sets, st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_basis_interpolates_knot_values_and_keeps_lines(knots: np.ndarray, a: float, b: float) -> None:
    assert np.allclose(cr_basis(knots, knots), np.eye(knots.size), atol=1e-9)
    # a natural cubic spline through collinear knot values is that line, also beyond the knots
    x = np.linspace(knots[0] - 5.0, knots[-1] + 5.0, 101)
    assert np.allclose(cr_basis(x, knots) @ (a + b * knots), a + b * x, atol=1e-8)


def test_basis_is_a_natural_c2_spline() -> None:
    knots = np.array([0.0, 1.0, 1.5, 3.0])
    beta = np.array([0.0, 2.0, -1.0, 0.5])
    eps = 1e-4

    def second(at: float) -> float:
        f = cr_basis([at - eps, at, at + eps], knots) @ beta
        return float((f[0] - 2 * f[1] + f[2]) / eps**2)

    # f'' is ~10 here and its slope f''' ~30, so over the 4 eps straddling a knot a continuous f''
    # moves ~0.01, while a C1-only spline would jump by O(1)
    for knot in knots[1:-1]:  # f'' continuous across inner knots
        assert abs(second(knot - 2 * eps) - second(knot + 2 * eps)) < 0.05
    for end in (knots[0], knots[-1]):  # and zero at the end knots (natural)
        assert abs(second(end)) < 1e-2


# --- the additive model ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_gam_reproduces_a_smooth_function(seed: int) -> None:
    x, truth, y = smooth_example(seed)
    fit = fit_gam(x, y)
    error = fit.fitted - truth
    # Noise sd 0.1, n = 200: a well-smoothed fit with ~12 effective parameters has a variance-only
    # RMSE of 0.1 * sqrt(12 / 200) ~ 0.025; 0.05 leaves room for bias but fails an unsmoothed
    # or oversmoothed fit (an interpolating fit has RMSE ~ 0.1, a linear one ~ 0.3).
    assert np.sqrt(np.mean(error**2)) < 0.05
    assert np.abs(error).max() < 0.2
    for lam in fit.smoothing:  # GCV picked an interior grid value for both terms
        assert LAMBDA_GRID[0] < lam < LAMBDA_GRID[-1]
    assert 5.0 < fit.edf < 19.0


@pytest.mark.slow
def test_gcv_choice_is_a_coordinatewise_grid_minimum() -> None:
    x, _, y = smooth_example(0, n=80)
    fit = fit_gam(x, y)
    assert np.isclose(fit.gcv, 80 * np.sum((y - fit.fitted) ** 2) / (80 - fit.edf) ** 2)
    for t in range(2):
        i = LAMBDA_GRID.index(fit.smoothing[t])
        for j in (i - 1, i + 1):
            lams = list(fit.smoothing)
            lams[t] = LAMBDA_GRID[j]
            assert fit_gam(x, y, penalties=lams).gcv >= fit.gcv - 1e-12
    again = fit_gam(x, y, penalties=fit.smoothing)
    assert np.allclose(again.fitted, fit.fitted, rtol=0, atol=1e-12)


def test_linear_truth_is_reproduced_with_high_smoothing() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-1.0, 2.0, size=(50, 2))
    truth = 1.0 + 2.0 * x[:, 0] - 3.0 * x[:, 1]
    stiff = fit_gam(x, truth, penalties=[1e8, 1e8])
    assert np.allclose(stiff.fitted, truth, atol=1e-8)
    assert np.allclose(stiff.predict([[0.0, 0.0], [5.0, -4.0]]), [1.0, 23.0], atol=1e-6)  # lines extrapolate
    chosen = fit_gam(x, truth)  # every lambda fits exactly: GCV ties go to the smoothest
    assert chosen.smoothing == (LAMBDA_GRID[-1], LAMBDA_GRID[-1])
    assert np.allclose(chosen.fitted, truth, atol=1e-8)
    assert chosen.edf == pytest.approx(3.0, abs=1e-3)
    # with noise, infinite smoothing is ordinary least squares on (1, x1, x2)
    y = truth + rng.normal(size=50)
    design = np.column_stack([np.ones(50), x])
    ols = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert np.allclose(fit_gam(x, y, penalties=[1e8, 1e8]).fitted, ols, atol=1e-5)


def test_zero_smoothing_is_the_unpenalised_regression_spline() -> None:
    x, _, y = smooth_example(2, n=60)
    fit = fit_gam(x, y, knots=6, penalties=[0.0, 0.0])
    design = np.column_stack([np.ones(60), *(cr_basis(x[:, t], fit.knots[t]) for t in range(2))])
    projection = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert np.allclose(fit.fitted, projection, atol=1e-8)
    assert fit.edf == pytest.approx(11.0, abs=1e-6)  # 1 + 5 + 5 free coefficients


@pytest.mark.slow
@settings(max_examples=25)
@given(st.integers(2, 40), st.integers(1, 3), st.integers(0, 2**32 - 1), st.booleans())
def test_centred_finite_and_small_n_safe(n: int, p: int, seed: int, rounded: bool) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    if rounded:  # few distinct values, ties
        x = np.round(x)
    y = rng.normal(size=n) + x.sum(axis=1)
    # the rotations in C: numpy's doubles (tests/fast/test_fixed_order_compiled.py), a tenth of the time
    fit = fit_gam(x, y, kernels=COMPILED_KERNELS)
    parts = fit.partial(x)
    assert np.all(np.isfinite(fit.fitted)) and np.isfinite(fit.gcv) and np.isfinite(fit.edf)
    assert np.allclose(parts.sum(axis=0), 0.0, atol=1e-8 * max(1.0, float(np.abs(y).max())) * n)
    assert np.allclose(fit.predict(x), fit.fitted, atol=1e-9)
    assert fit.intercept == pytest.approx(float(np.mean(y)))
    coefficients = 1 + sum(max(k.size - 1, 0) for k in fit.knots)
    assert coefficients <= n - 1 and 1.0 - 1e-9 <= fit.edf <= coefficients + 1e-9


def test_knots_shrink_for_small_n_and_terms_drop() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(5, 2)), rng.normal(size=5)
    # (5, 5) knots shrink, the first of the widest each time, to (2, 3): 1 + 1 + 2 = 4 = n - 1 coefficients
    assert [k.size for k in fit_gam(x, y).knots] == [2, 3]
    assert [k.size for k in fit_gam(x[:3], y[:3]).knots] == [2, 0]  # one line, the last term dropped
    two = fit_gam(x[:2], y[:2])
    assert [k.size for k in two.knots] == [0, 0] and np.allclose(two.fitted, y[:2].mean())


def test_constant_covariate_drops_out() -> None:
    x, _, y = smooth_example(4, n=60)
    with_constant = fit_gam(np.column_stack([x[:, 0], np.full(60, 0.7)]), y)
    alone = fit_gam(x[:, :1], y)
    assert with_constant.knots[1].size == 0 and with_constant.smoothing[1] == 0.0
    assert np.allclose(with_constant.fitted, alone.fitted)
    assert np.all(with_constant.partial([[0.5, 3.0]])[:, 1] == 0.0)


@pytest.mark.slow
def test_collinear_covariates_do_not_break_the_fit() -> None:
    x, _, y = smooth_example(5, n=39)
    fit = fit_gam(np.column_stack([x[:, 0], 2.0 * x[:, 0] + 1.0]), y)
    assert np.all(np.isfinite(fit.fitted)) and np.isfinite(fit.gcv)
    assert np.allclose(fit.partial(np.column_stack([x[:, 0], 2.0 * x[:, 0] + 1.0])).sum(axis=0), 0.0, atol=1e-9)


@pytest.mark.slow
def test_deterministic() -> None:
    x, _, y = smooth_example(6, n=50)
    first, second = fit_gam(x, y), fit_gam(x, y)
    assert np.array_equal(first.fitted, second.fitted) and first.smoothing == second.smoothing


@pytest.mark.parametrize(
    ("covariates", "response", "kwargs"),
    [
        (np.zeros(5), np.zeros(5), {}),  # not a matrix
        (np.full((5, 1), np.nan), np.zeros(5), {}),
        (np.zeros((5, 1)), np.zeros(4), {}),
        (np.zeros((5, 1)), np.array([0.0, 1.0, np.inf, 0.0, 0.0]), {}),
        (np.zeros((1, 1)), np.zeros(1), {}),  # n < 2
        (np.eye(5), np.zeros(5), {"knots": 1}),
        (np.eye(5), np.zeros(5), {"knots": True}),
        (np.eye(5)[:, :2], np.zeros(5), {"penalties": [1.0]}),
        (np.eye(5)[:, :2], np.zeros(5), {"penalties": [1.0, -1.0]}),
    ],
)
def test_bad_input_raises_parameter_error(
    covariates: np.ndarray, response: np.ndarray, kwargs: dict[str, object]
) -> None:
    with pytest.raises(ParameterError):
        fit_gam(covariates, response, **kwargs)  # type: ignore[arg-type]  # deliberately wrong types


def test_bad_knots_and_prediction_shapes() -> None:
    with pytest.raises(ParameterError):
        cr_basis([0.5], [0.0, 0.0, 1.0])  # not strictly increasing
    with pytest.raises(ParameterError):
        cr_penalty([1.0])
    fit = fit_gam(np.eye(5)[:, :2], np.arange(5.0))
    with pytest.raises(ParameterError):
        fit.predict(np.zeros((3, 3)))
