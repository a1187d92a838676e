"""The hierarchical priors of :mod:`sysrs_ref.subset.irt` and its log posterior with analytic gradient.

The model is the multidimensional 2PL ``P_ij = sigmoid(alpha_j . theta_i - beta_j)``
with ``theta_i, alpha_j`` in R^(D-1) and ``beta_j`` in R. :func:`log_posterior`
is the exact log joint density, constants included, of

- the data: ``sum_ij S_ij Z_ij - softplus(Z_ij)`` with ``Z_ij = alpha_j . theta_i - beta_j``,
  the Bernoulli log-likelihood, read for a fractional ``S_ij`` in [0, 1] as the
  negative cross-entropy with target ``S_ij``;
- the abilities: ``theta_i ~ N(0, I_(D-1))``, fixed (this pins the location and
  the scale of the latent space);
- the items: ``alpha_jd ~ N(mu_alpha, sigma_alpha^2)`` independently for each of
  the ``D - 1`` coordinates (one scalar mean and one scale shared by all of
  them) and ``beta_j ~ N(mu_beta, sigma_beta^2)``;
- the hyperparameters: ``mu_alpha, mu_beta ~ N(0, 10^2)`` and a precision
  ``1 / sigma^2 ~ Gamma(1, 1)`` (shape 1, rate 1) for ``sigma_alpha`` and
  ``sigma_beta``. The optimiser moves ``s = log sigma``; with the Jacobian, the
  density of ``s`` is ``2 exp(-2 s - e^(-2 s))``: mode ``sigma = 1``, and a
  ``1 / sigma^2`` penalty as ``sigma -> 0``.

Why these. py-irt's hierarchical 2PL (the one tinyBenchmarks runs) has the same
structure: normal item parameters around a learned mean with a N(0, 10^6)
hyperprior, and a Gamma(1, 1) variable ``u`` with ``scale = 1 / u``; it fits it
by variational inference, not MAP. Joint MAP over an item parameter *and* its
prior scale has a degenerate direction: shrinking all ``alpha_j`` to
``mu_alpha`` while ``sigma_alpha -> 0`` gains ``n log(1 / sigma_alpha)``
(``n = L (D - 1)``). The ``1 / sigma^2`` penalty of a Gamma prior on the
*precision* bounds that corner at about ``sigma = sqrt(2 / n)``, where py-irt's
Gamma on ``1 / sigma`` would only stop it near ``1 / n``. When the data carry
little information per item (few models, or discriminations that hardly
differ) the MAP still sits in that corner: a small ``sigma_alpha`` in the fitted
``hyper`` is the sign of it. The means are N(0, 10^2) rather than py-irt's
nearly flat N(0, 10^6): equally weak at the scale of logits.

Hyperparameters travel as one float64 vector in the order of :data:`HYPER_NAMES`.

Every product, exponential and logarithm here is computed in a fixed order
(:mod:`sysrs_ref._fixed_order`), never by BLAS or the processor's vectorised
``exp``: the same inputs give the same bits on every machine, so a seeded fit
does too.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._fixed_order import NUMPY_KERNELS, FixedOrderKernels

__all__ = [
    "HYPER_NAMES",
    "MU_PRIOR_SD",
    "Gradient",
    "log_posterior",
    "log_posterior_and_gradient",
    "log_posterior_gradient",
    "sigmoid",
]

FloatArray = npt.NDArray[np.float64]

#: The order of the hyperparameter vector: the means and the log-scales of the item priors.
HYPER_NAMES = ("mu_alpha", "log_sigma_alpha", "mu_beta", "log_sigma_beta")
#: The standard deviation of the normal hyperprior on ``mu_alpha`` and ``mu_beta``.
MU_PRIOR_SD = 10.0
_HALF_LOG_2PI = 0.9189385332046727  # 0.5 log(2 pi), as a literal: the same double everywhere
_LOG_2 = 0.6931471805599453
_LOG_MU_PRIOR_SD = 2.302585092994046  # log(10)


class Gradient(NamedTuple):
    """The gradient of the log posterior, one array per parameter block (shapes as the parameters)."""

    theta: FloatArray
    alpha: FloatArray
    beta: FloatArray
    hyper: FloatArray


def sigmoid(z: FloatArray) -> FloatArray:
    """The logistic function ``1 / (1 + exp(-z))``, elementwise, without overflow warnings.

    >>> sigmoid(np.array([-800.0, 0.0, 800.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return fixed_order.sigmoid(z)


def log_posterior(
    scores: FloatArray,
    theta: FloatArray,
    alpha: FloatArray,
    beta: FloatArray,
    hyper: FloatArray,
    *,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> float:
    """The log joint density ``log p(S, theta, alpha, beta, hyper)`` of the module docstring.

    ``scores`` is K x L, ``theta`` K x (D-1), ``alpha`` L x (D-1), ``beta`` (L,)
    and ``hyper`` the vector of :data:`HYPER_NAMES`. No validation: the caller
    (:func:`sysrs_ref.subset.irt.fit_irt`) has checked the shapes. *kernels*
    runs exp, log1p and sigmoid, as in :func:`~sysrs_ref.subset.irt.fit_irt`
    (the two functions below take it too).

    At zero, every prediction is 1/2 and costs log 2 whatever the score:

    >>> s = np.array([[1.0, 0.0], [0.5, 1.0]])
    >>> value = log_posterior(s, np.zeros((2, 1)), np.zeros((2, 1)), np.zeros(2), np.zeros(4))
    >>> prior = -6 * 0.5 * math.log(2 * math.pi) + 2 * (math.log(2) - 1) - 2 * math.log(10 * math.sqrt(2 * math.pi))
    >>> math.isclose(value, 4 * math.log(0.5) + prior)
    True
    """
    return _evaluate(scores, theta, alpha, beta, hyper, kernels, with_value=True)[0]


def log_posterior_gradient(
    scores: FloatArray,
    theta: FloatArray,
    alpha: FloatArray,
    beta: FloatArray,
    hyper: FloatArray,
    *,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> Gradient:
    """The gradient of :func:`log_posterior` in every parameter block.

    With ``R = S - P`` (K x L): ``R alpha - theta`` in theta;
    ``R^T theta - (alpha - mu_alpha) / sigma_alpha^2`` in alpha;
    ``-sum_i R_ij - (beta_j - mu_beta) / sigma_beta^2`` in beta;
    ``sum (x - mu) / sigma^2 - mu / 10^2`` in each ``mu`` and
    ``sum (x - mu)^2 / sigma^2 - n + 2 / sigma^2 - 2`` in each ``s = log sigma``
    (x the n item parameters under that prior). Cost: one K x (D-1) x L product
    for the logits, two for the gradient, and a few elementwise passes.

    >>> s = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> grad = log_posterior_gradient(s, np.array([[1.0], [-1.0]]), np.ones((2, 1)), np.zeros(2), np.zeros(4))
    >>> np.allclose(grad.beta, 0.0)  # the residuals S - P cancel in each column, and beta = mu_beta
    True
    """
    return _evaluate(scores, theta, alpha, beta, hyper, kernels, with_value=False)[1]


def log_posterior_and_gradient(
    scores: FloatArray,
    theta: FloatArray,
    alpha: FloatArray,
    beta: FloatArray,
    hyper: FloatArray,
    *,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> tuple[float, Gradient]:
    """Both :func:`log_posterior` and :func:`log_posterior_gradient`, sharing the logits.

    >>> s = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> value, grad = log_posterior_and_gradient(s, np.zeros((2, 1)), np.zeros((2, 1)), np.zeros(2), np.zeros(4))
    >>> grad.hyper.tolist()  # alpha = beta = mu = 0 and sigma = 1: only ``-n + 2 - 2`` in each log-scale
    [0.0, -2.0, 0.0, -2.0]
    """
    return _evaluate(scores, theta, alpha, beta, hyper, kernels, with_value=True)


def _loglik(scores: FloatArray, z: FloatArray, kernels: FixedOrderKernels) -> float:
    """``sum S z - softplus(z)`` with ``softplus(z) = max(z, 0) + log1p(exp(-|z|))``, stable for any z."""
    return (
        fixed_order.dot(scores, z)
        - float(np.maximum(z, 0.0).sum())
        - float(kernels.log1p(kernels.exp(-np.abs(z))).sum())
    )


def _evaluate(
    scores: FloatArray,
    theta: FloatArray,
    alpha: FloatArray,
    beta: FloatArray,
    hyper: FloatArray,
    kernels: FixedOrderKernels,
    *,
    with_value: bool,
) -> tuple[float, Gradient]:
    """The log posterior (NaN unless ``with_value``) and its gradient; one K x L buffer, reused in place."""
    z = fixed_order.matmul(theta, alpha.T)
    z -= beta
    loglik = _loglik(scores, z, kernels) if with_value else math.nan
    # S - sigmoid(z); exp(-z) overflows to inf for z < -709, and 1 / inf = 0 is right
    resid = np.subtract(scores, kernels.sigmoid(z), out=z)

    mu_a, s_a, mu_b, s_b = (float(v) for v in hyper)
    prec_a, prec_b = (float(v) for v in kernels.exp([-2.0 * s_a, -2.0 * s_b]))
    dev_a, dev_b = alpha - mu_a, beta - mu_b
    ss_a, ss_b = fixed_order.dot(dev_a, dev_a), fixed_order.dot(dev_b, dev_b)
    grad = Gradient(
        theta=fixed_order.matmul(resid, alpha) - theta,
        alpha=fixed_order.matmul(resid.T, theta) - dev_a * prec_a,
        beta=-resid.sum(axis=0) - dev_b * prec_b,
        hyper=np.array(
            [
                float(dev_a.sum()) * prec_a - mu_a / MU_PRIOR_SD**2,
                ss_a * prec_a - alpha.size + 2.0 * prec_a - 2.0,
                float(dev_b.sum()) * prec_b - mu_b / MU_PRIOR_SD**2,
                ss_b * prec_b - beta.size + 2.0 * prec_b - 2.0,
            ]
        ),
    )
    if not with_value:
        return math.nan, grad
    log_prior = -0.5 * fixed_order.dot(theta, theta) - theta.size * _HALF_LOG_2PI
    log_prior += -0.5 * ss_a * prec_a - alpha.size * (s_a + _HALF_LOG_2PI)
    log_prior += -0.5 * ss_b * prec_b - beta.size * (s_b + _HALF_LOG_2PI)
    for mu in (mu_a, mu_b):
        log_prior += -0.5 * (mu / MU_PRIOR_SD) ** 2 - _LOG_MU_PRIOR_SD - _HALF_LOG_2PI
    for s, prec in ((s_a, prec_a), (s_b, prec_b)):  # Gamma(1, 1) on the precision e^(-2s), Jacobian 2 e^(-2s)
        log_prior += _LOG_2 - 2.0 * s - prec
    return loglik + log_prior, grad
