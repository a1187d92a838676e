"""Cubic regression splines and an additive model fitted by penalised least squares.

MetaBench (Kipnis et al. 2025; the paper's Appendix "Subset Selection
Experimental Details", subsection "MetaBench") calibrates its predictions with a
generalised additive model ``mu_i = f_1(x_i1) + ... + f_p(x_ip) + c`` whose
smooths are cubic splines. This module is a numpy-only version of mgcv's
``"cr"`` smooth (Wood 2017, *Generalized Additive Models*, 2nd ed., Section 5.3.1):

- **Knots.** ``m = min(knots, d)`` knots, ``d`` the number of distinct values of
  the covariate (values closer than ``1e-9`` times its range count as one),
  spaced evenly through the sorted distinct values with linear interpolation
  and the end knots at the extremes (mgcv's ``place.knots``). A covariate whose
  range is at most ``1e-12 * max(1, max|x|)`` is constant: its term drops out
  (``f_t = 0``, no coefficients).
- **Basis.** The natural cubic spline through the knots, parameterised by its
  values ``beta`` at the knots (second derivatives ``delta = F beta``, zero at
  the end knots), extended linearly beyond them. With two knots it is a line.
- **Penalty.** ``integral f''(x)^2 dx = beta' S beta`` with ``S = D' B^(-1) D``:
  symmetric, positive semi-definite, of rank ``m - 2``; its null space is the
  constants and the lines.
- **Identifiability.** Each smooth is centred, ``sum_i f_t(x_it) = 0`` over the
  fitting data, by reparameterising ``beta = Z gamma`` with ``Z`` the null space
  of ``1' X_t`` from a QR decomposition (as mgcv does); the intercept ``c`` is
  then the mean response.
- **Small n.** With ``q = 1 + sum_t (m_t - 1)`` coefficients the fit needs
  ``q <= n - 1`` (so that ``n - tr(A) >= 1``): while it fails, the term with the
  most knots (the first on ties) loses a knot; when every term is a line the
  last term is dropped. ``n >= 2`` observations are required.
- **Smoothing parameters.** Each penalty is first normalised as in mgcv,
  ``S_t <- S_t * ||X_t||_inf^2 / ||S_t||_1`` (on the centred basis), so that the
  smoothing parameter ``lambda_t`` is scale free. Unless given, the
  ``lambda_t`` minimise ``GCV = n RSS / (n - tr(A))^2`` (``A`` the influence
  matrix) by **coordinate search over the grid** :data:`LAMBDA_GRID`
  (``10^-8 .. 10^8`` in steps of ``10^0.25``): start every term at ``1``, then
  sweep the penalised terms in order, setting each one's ``lambda`` to the grid
  value that minimises GCV with the others fixed, until a sweep changes nothing
  (at most 50 sweeps). GCV values within ``1e-10`` times the response variance
  of the minimum count as ties, broken towards the larger ``lambda`` (the
  smoother fit). Deterministic.

The penalised least-squares problem is solved by an SVD of ``[R; sqrt(lambda)
E]`` (``X = QR``, ``E' E = S``), dropping singular values below ``1e-12`` times the
largest, so collinear covariates (as MetaBench's two can nearly be) give the
minimum-norm solution, never NaN. Each SVD of the search starts its Jacobi
rotations from the previous one's right singular vectors (the matrices differ
only in one ``lambda``), in the fixed order of the search.

**The same fit on every machine.** The linear algebra is :mod:`sysrs_ref._fixed_order`'s:
Gaussian elimination, Householder QR (``R`` and ``Q' y`` only) and a one-sided
Jacobi SVD, with products summed in a fixed order, never BLAS or LAPACK: for a
given numpy version the same data give the same bits on every processor, BLAS
kernel and thread count, so the GCV search cannot choose another ``lambda`` on
another machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._fixed_order import NUMPY_KERNELS, FixedOrderKernels, JacobiSweeps
from sysrs_ref.errors import ParameterError

__all__ = ["LAMBDA_GRID", "GAMFit", "cr_basis", "cr_penalty", "fit_gam", "place_knots"]

FloatArray = npt.NDArray[np.float64]

#: The grid of (normalised) smoothing parameters searched by GCV: 10^-8 .. 10^8, 65 values.
LAMBDA_GRID: tuple[float, ...] = tuple(float(10.0 ** (e / 4)) for e in range(-32, 33))
_MAX_SWEEPS = 50
_RCOND = 1e-12


def _distinct(x: FloatArray) -> FloatArray:
    """The sorted distinct values of *x*, merging values closer than 1e-9 times the range."""
    values = np.unique(x)
    tol = 1e-9 * float(values[-1] - values[0])
    kept = [float(values[0])]
    for v in values[1:]:
        if v - kept[-1] > tol:
            kept.append(float(v))
    return np.array(kept)


def _is_constant(x: FloatArray) -> bool:
    return bool(np.ptp(x) <= 1e-12 * max(1.0, float(np.max(np.abs(x)))))


def place_knots(x: npt.ArrayLike, n_knots: int) -> FloatArray:
    """The ``min(n_knots, d)`` knots of a cubic regression spline for covariate *x* (mgcv's ``place.knots``).

    ``d`` counts the distinct values of *x* (closer than 1e-9 of the range counts
    as one). The knots run evenly through the sorted distinct values, with
    linear interpolation between neighbours, from the smallest to the largest.
    A constant *x* gives a single knot.

    >>> place_knots([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 4).tolist()
    [0.0, 2.0, 4.0, 6.0]
    >>> place_knots([3.0, 1.0, 1.0, 2.0], 10).tolist()
    [1.0, 2.0, 3.0]
    """
    values = np.asarray(x, dtype=np.float64).ravel()
    if values.size == 0 or not np.all(np.isfinite(values)):
        raise ParameterError("place_knots needs a non-empty covariate of finite numbers")
    if _is_constant(values):
        return values[:1].copy()
    xs = _distinct(values)
    m = min(int(n_knots), xs.size)
    if m < 2:
        raise ParameterError(f"a cubic regression spline needs at least 2 knots, got {n_knots}")
    pos = np.arange(m) * ((xs.size - 1) / (m - 1))
    lo = np.minimum(np.floor(pos).astype(np.intp), xs.size - 2)
    frac = pos - lo
    knots = xs[lo] * (1.0 - frac) + xs[lo + 1] * frac
    knots[0], knots[-1] = xs[0], xs[-1]
    return np.asarray(knots, dtype=np.float64)


def _check_knots(knots: npt.ArrayLike) -> FloatArray:
    k = np.asarray(knots, dtype=np.float64)
    if k.ndim != 1 or k.size < 2 or not np.all(np.isfinite(k)) or np.any(np.diff(k) <= 0):
        raise ParameterError("knots must be at least 2 finite, strictly increasing numbers")
    return k


def _second_derivative_maps(k: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(D, B)`` of Wood (2017) Section 5.3.1: the second derivatives at the knots solve ``B delta = D beta``."""
    h = np.diff(k)
    m = k.size
    d = np.zeros((m - 2, m))
    b = np.zeros((m - 2, m - 2))
    for i in range(m - 2):
        d[i, i], d[i, i + 1], d[i, i + 2] = 1.0 / h[i], -1.0 / h[i] - 1.0 / h[i + 1], 1.0 / h[i + 1]
        b[i, i] = (h[i] + h[i + 1]) / 3.0
        if i + 1 < m - 2:
            b[i, i + 1] = b[i + 1, i] = h[i + 1] / 6.0
    return d, b


def cr_penalty(knots: npt.ArrayLike) -> FloatArray:
    """The m x m penalty ``S`` with ``beta' S beta = integral f''(x)^2 dx`` for the spline with knot values ``beta``.

    ``S = D' B^(-1) D`` (Wood 2017, Section 5.3.1): symmetric, positive
    semi-definite, annihilating constants and lines; zero for two knots.

    >>> s = cr_penalty([0.0, 1.0, 2.0, 4.0])
    >>> bool(np.allclose(s @ np.ones(4), 0)), bool(np.allclose(s @ np.array([0.0, 1.0, 2.0, 4.0]), 0))
    (True, True)
    >>> round(float(np.array([0.0, 1.0, 0.0, 0.0]) @ s @ np.array([0.0, 1.0, 0.0, 0.0])), 6)  # 192/23
    8.347826
    """
    k = _check_knots(knots)
    if k.size == 2:
        return np.zeros((2, 2))
    d, b = _second_derivative_maps(k)
    s = fixed_order.matmul(d.T, fixed_order.solve(b, d))
    return np.asarray((s + s.T) / 2.0, dtype=np.float64)


def cr_basis(x: npt.ArrayLike, knots: npt.ArrayLike) -> FloatArray:
    """The n x m design matrix of the natural cubic spline with the given knots, at the points *x*.

    Row ``i`` holds the weights with which the knot values ``beta`` combine to
    ``f(x_i)``: ``f = cr_basis(x, knots) @ beta``. Beyond the end knots the
    spline continues linearly (its second derivative is zero there).

    >>> b = cr_basis([0.0, 0.5, 3.0], [0.0, 1.0, 2.0])
    >>> b.shape, b[0].tolist()
    ((3, 3), [1.0, 0.0, 0.0])
    >>> [round(float(v), 6) for v in b @ np.array([1.0, 3.0, 5.0])]  # a line stays a line
    [1.0, 2.0, 7.0]
    """
    k = _check_knots(knots)
    xs = np.asarray(x, dtype=np.float64).ravel()
    if not np.all(np.isfinite(xs)):
        raise ParameterError("cr_basis needs finite covariate values")
    m, h = k.size, np.diff(k)
    f = np.zeros((m, m))
    if m > 2:
        d, b = _second_derivative_maps(k)
        f[1:-1] = fixed_order.solve(b, d)
    out = np.zeros((xs.size, m))
    j = np.clip(np.searchsorted(k, xs, side="right") - 1, 0, m - 2)
    hj, right, left = h[j], k[j + 1] - xs, xs - k[j]
    inside = (xs >= k[0]) & (xs <= k[-1])
    cm = (right**3 / hj - hj * right) / 6.0
    cp = (left**3 / hj - hj * left) / 6.0
    rows = np.flatnonzero(inside)
    out[rows] = cm[rows, None] * f[j[rows]] + cp[rows, None] * f[j[rows] + 1]
    out[rows, j[rows]] += right[rows] / hj[rows]
    out[rows, j[rows] + 1] += left[rows] / hj[rows]
    eye = np.eye(m)
    slope_lo = (eye[1] - eye[0]) / h[0] - h[0] / 6.0 * f[1]
    slope_hi = (eye[-1] - eye[-2]) / h[-1] + h[-1] / 6.0 * f[-2]
    below, above = xs < k[0], xs > k[-1]
    out[below] = eye[0] + (xs[below] - k[0])[:, None] * slope_lo
    out[above] = eye[-1] + (xs[above] - k[-1])[:, None] * slope_hi
    return out


@dataclass(frozen=True, eq=False)
class GAMFit:
    """A fitted additive model ``f_1(x_1) + ... + f_p(x_p) + c``; see :func:`fit_gam`.

    ``knots[t]`` and ``coefficients[t]`` are term ``t``'s knots and its values at
    them (both empty when the term dropped out); ``smoothing[t]`` is its
    normalised ``lambda`` (``0.0`` for a dropped or unpenalised, two-knot term);
    ``edf`` is ``tr(A)``, the effective degrees of freedom including the
    intercept; ``gcv`` is ``n RSS / (n - edf)^2``; ``fitted`` the fitted values.
    """

    intercept: float
    knots: tuple[FloatArray, ...]
    coefficients: tuple[FloatArray, ...]
    smoothing: tuple[float, ...]
    edf: float
    gcv: float
    fitted: FloatArray

    def partial(self, new_covariates: npt.ArrayLike) -> FloatArray:
        """The n x p matrix of the term values ``f_t(x_it)`` at new covariates (n x p), intercept excluded.

        >>> x = np.linspace(0.0, 1.0, 20)[:, None]
        >>> fit = fit_gam(x, 2.0 * x[:, 0], penalties=[1.0])
        >>> [round(float(v), 6) for v in fit.partial([[0.0], [1.0]])[:, 0]]
        [-1.0, 1.0]
        """
        new = _covariate_matrix(new_covariates, len(self.knots))
        out = np.zeros(new.shape)
        for t, (k, beta) in enumerate(zip(self.knots, self.coefficients, strict=True)):
            if k.size:
                out[:, t] = fixed_order.matmul(cr_basis(new[:, t], k), beta)
        return out

    def predict(self, new_covariates: npt.ArrayLike) -> FloatArray:
        """The predictions ``c + sum_t f_t(x_it)`` at new covariates (n x p), shape (n,).

        >>> x = np.linspace(0.0, 1.0, 20)[:, None]
        >>> fit = fit_gam(x, 1.0 + 2.0 * x[:, 0])
        >>> [round(float(v), 6) for v in fit.predict([[0.5], [2.0]])]
        [2.0, 5.0]
        """
        return np.asarray(self.intercept + self.partial(new_covariates).sum(axis=1), dtype=np.float64)


def _covariate_matrix(covariates: npt.ArrayLike, p: int | None = None) -> FloatArray:
    x = np.asarray(covariates, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ParameterError(f"covariates must be an n x p matrix with n, p >= 1, got shape {x.shape}")
    if p is not None and x.shape[1] != p:
        raise ParameterError(f"covariates must have {p} columns (one per term), got {x.shape[1]}")
    if not np.all(np.isfinite(x)):
        raise ParameterError("covariates must be finite numbers (no NaN or infinity)")
    return x


def _knot_counts(x: FloatArray, knots: int) -> list[int]:
    """Knots per term after dropping constant covariates and shrinking for small n (module docstring)."""
    n, p = x.shape
    counts = [0 if _is_constant(x[:, t]) else min(knots, _distinct(x[:, t]).size) for t in range(p)]
    while 1 + sum(m - 1 for m in counts if m) > n - 1:
        widest = max(counts)
        if widest > 2:
            counts[counts.index(widest)] -= 1
        else:
            last = max(t for t in range(p) if counts[t])
            counts[last] = 0
    return counts


def _root(s: FloatArray, jacobi: JacobiSweeps) -> FloatArray:
    """A matrix ``E`` with ``E' E = s`` for a symmetric PSD *s* (rows of zero eigenvalues dropped).

    The SVD of a symmetric PSD matrix is its eigendecomposition: ``s = V diag(w) V'``, ``E = diag(sqrt(w)) V'``.
    """
    _, values, vectors = fixed_order.svd(s, jacobi=jacobi)
    keep = values > _RCOND * max(float(values.max(initial=0.0)), 1e-300)
    return np.asarray(np.sqrt(values[keep])[:, None] * vectors[:, keep].T, dtype=np.float64)


def _null_space_of_sum(sums: FloatArray) -> FloatArray:
    """An m x (m - 1) matrix Z with orthonormal columns orthogonal to *sums* (non-zero): a Householder reflection.

    ``H = I - 2 v v' / v'v`` maps *sums* onto a multiple of ``e_1``; its other columns span the null space of ``sums'``.
    """
    norm = float(np.sqrt(fixed_order.dot(sums, sums)))
    v = np.array(sums, dtype=np.float64)
    v[0] += norm if v[0] >= 0.0 else -norm
    reflection = np.eye(sums.size) - (2.0 / fixed_order.dot(v, v)) * np.multiply.outer(v, v)
    return np.asarray(reflection[:, 1:], dtype=np.float64)


def fit_gam(
    covariates: npt.ArrayLike,
    response: npt.ArrayLike,
    *,
    knots: int = 10,
    penalties: Sequence[float] | None = None,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> GAMFit:
    """Fit ``y_i = c + sum_t f_t(x_it)`` by penalised least squares with centred cubic regression splines.

    *covariates* is n x p (one column per term), *response* has length n >= 2,
    *knots* (>= 2) is the largest number of knots per term (mgcv's default 10).
    *penalties* fixes the p normalised smoothing parameters (``>= 0``);
    ``None`` chooses them by GCV. The module docstring states every rule:
    knot placement and reduction, dropped terms, centring, penalty
    normalisation, the GCV coordinate search and its ties. *kernels* runs the
    rotations of its SVDs (``kernels.jacobi``, :func:`~sysrs_ref._fixed_order.svd`;
    the default is numpy's loop, :data:`sysrs_ref.fast.COMPILED_KERNELS` the
    same doubles in C). Raises :class:`~sysrs_ref.errors.ParameterError` for
    malformed input.

    >>> x = np.linspace(0.0, 1.0, 30)
    >>> fit = fit_gam(np.column_stack([x, x**2]), 3.0 * x + 1.0)
    >>> bool(np.allclose(fit.fitted, 3.0 * x + 1.0)), round(fit.intercept, 6)
    (True, 2.5)
    """
    x = _covariate_matrix(covariates)
    n, p = x.shape
    y = np.asarray(response, dtype=np.float64)
    if y.shape != (n,) or not np.all(np.isfinite(y)):
        raise ParameterError(f"response must be {n} finite numbers (one per row of covariates), got shape {y.shape}")
    if n < 2:
        raise ParameterError("fit_gam needs at least 2 observations")
    if isinstance(knots, bool) or not isinstance(knots, int) or knots < 2:
        raise ParameterError(f"knots must be an integer >= 2, got {knots!r}")
    fixed: list[float] | None = None
    if penalties is not None:
        fixed = [float(v) for v in penalties]
        if len(fixed) != p or not all(np.isfinite(v) and v >= 0 for v in fixed):
            raise ParameterError(f"penalties must be {p} finite numbers >= 0 (one per term), got {list(penalties)}")

    counts = _knot_counts(x, knots)
    term_knots: list[FloatArray] = []
    columns: list[FloatArray] = [np.ones((n, 1))]
    constraints: list[FloatArray] = []
    roots: list[FloatArray] = []
    for t in range(p):
        if not counts[t]:
            term_knots.append(np.zeros(0))
            continue
        k = place_knots(x[:, t], counts[t])
        basis = cr_basis(x[:, t], k)
        z = _null_space_of_sum(basis.sum(axis=0))
        xt = fixed_order.matmul(basis, z)
        st = fixed_order.matmul(fixed_order.matmul(z.T, cr_penalty(k)), z)
        norm_s = float(np.abs(st).sum(axis=0).max())
        if norm_s > 0:
            st = st * (float(np.abs(xt).sum(axis=1).max()) ** 2 / norm_s)
        term_knots.append(k)
        columns.append(xt)
        constraints.append(z)
        roots.append(_root(st, kernels.jacobi))
    design = np.hstack(columns)
    r_mat, rotated = fixed_order.householder_qr(design, y)
    qty = rotated[: design.shape[1]]
    rss_outside = fixed_order.dot(rotated[design.shape[1] :], rotated[design.shape[1] :])
    widths = [c.shape[1] for c in columns]
    starts = np.cumsum([0, *widths])
    active = [t for t in range(p) if counts[t]]

    previous: list[FloatArray] = []  # the last solve's V: the next, nearby, SVD starts from it

    def solve(lams: Sequence[float]) -> tuple[FloatArray, float, float]:
        blocks = [r_mat]
        for i, root in enumerate(roots):
            if root.size:
                pad = np.zeros((root.shape[0], design.shape[1]))
                pad[:, starts[i + 1] : starts[i + 2]] = np.sqrt(lams[i]) * root
                blocks.append(pad)
        u, s, v = fixed_order.svd(np.vstack(blocks), start=previous[-1] if previous else None, jacobi=kernels.jacobi)
        previous[:] = [v]
        keep = s > _RCOND * s[0]
        u_top = u[: r_mat.shape[0], keep]
        coef = fixed_order.matmul(v[:, keep], fixed_order.matmul(u_top.T, qty) / s[keep])
        rss = rss_outside + float(np.sum((qty - fixed_order.matmul(r_mat, coef)) ** 2))
        edf = float(np.sum(u_top**2))
        return coef, edf, n * rss / (n - edf) ** 2

    lams = [1.0] * len(roots) if fixed is None else [fixed[t] for t in active]
    if fixed is None:
        tol = 1e-10 * max(float(np.var(y)), 1e-300)
        for _ in range(_MAX_SWEEPS):
            changed = False
            for i, root in enumerate(roots):
                if not root.size:
                    continue
                scores = [solve([*lams[:i], g, *lams[i + 1 :]])[2] for g in LAMBDA_GRID]
                best = min(scores)
                choice = max(g for g, v in zip(LAMBDA_GRID, scores, strict=True) if v <= best + tol)
                changed |= choice != lams[i]
                lams[i] = choice
            if not changed:
                break
    coef, edf, gcv = solve(lams)
    coefficients: list[FloatArray] = []
    smoothing: list[float] = []
    for t in range(p):
        if t in active:
            i = active.index(t)
            coefficients.append(fixed_order.matmul(constraints[i], coef[starts[i + 1] : starts[i + 2]]))
            smoothing.append(lams[i] if roots[i].size else 0.0)
        else:
            coefficients.append(np.zeros(0))
            smoothing.append(0.0)
    return GAMFit(
        intercept=float(coef[0]),
        knots=tuple(term_knots),
        coefficients=tuple(coefficients),
        smoothing=tuple(smoothing),
        edf=edf,
        gcv=gcv,
        fitted=fixed_order.matmul(design, coef),
    )
