"""Item response theory for the subset-selection baselines: a multidimensional 2PL fitted by MAP.

**The model.** Model i (row i of the K x L score matrix S) has an ability
``theta_i`` in R^(D-1); question j has a discrimination ``alpha_j`` in R^(D-1)
and a difficulty ``beta_j``; ``P_ij = sigmoid(alpha_j . theta_i - beta_j)``.
D = 2 is the unidimensional 2PL of MetaBench (Kipnis et al. 2025); tinyBenchmarks
(Polo et al. 2024) embeds question j as ``(alpha_j, beta_j)`` in R^D
(:meth:`IRTFit.embeddings`). The paper fits it "with hierarchical priors via MAP
estimation for 2000 epochs" (Appendix "Subset Selection Experimental Details").

**The objective** is the log joint density of :mod:`sysrs_ref.subset._irt_priors`:
the Bernoulli log-likelihood, for a fractional ``S_ij`` the negative
cross-entropy with target ``S_ij``; ``theta_i ~ N(0, I)``;
``alpha_jd ~ N(mu_alpha, sigma_alpha^2)``, ``beta_j ~ N(mu_beta, sigma_beta^2)``;
``mu_alpha, mu_beta ~ N(0, 10^2)`` and ``1 / sigma^2 ~ Gamma(1, 1)`` for both
scales. MAP maximises it jointly over theta, alpha, beta and the four
hyperparameters (the scales through ``log sigma``). That module says why these
priors. **Caveat:** joint MAP over a prior scale has a degenerate corner, every
``alpha_j`` shrunk onto ``mu_alpha`` with ``sigma_alpha`` near
``sqrt(2 / (L (D - 1)))``; it wins when the data say little about how the
discriminations differ (few models per question, or many latent dimensions).
The fit then reports ``converged=False`` (the objective creeps on) and a tiny
``hyper["sigma_alpha"]``, and the embeddings carry little beyond ``beta``.

**The optimiser** is deterministic full-batch Adam ascent on the analytic
gradient: a fixed learning rate (default 0.05), ``beta1 = 0.9``,
``beta2 = 0.999``, ``eps = 1e-8``, bias-corrected, ``epochs`` steps. The start
is drawn from ``seed`` alone (never the global random state):
``theta ~ N(0, I)``, ``alpha ~ N(0, I / (D - 1))`` (so that ``alpha_j . theta_i``
starts at unit variance), ``beta_j`` the logit of the share of models failing
question j (clipped to [0.01, 0.99]), ``mu_beta`` their mean, ``mu_alpha = 0``,
``sigma_beta = 1`` and ``sigma_alpha = 1 / sqrt(D - 1)``.

**Identifiability.** The likelihood depends on theta and alpha only through
``alpha_j . theta_i``: for D - 1 > 1 they are identified only up to an
orthogonal transformation (rotation or reflection) of the latent space, which
the prior N(0, I) on theta does not see and the shared mean ``mu_alpha`` only
partly breaks, so compare fits through :meth:`IRTFit.probabilities`, which are
identified. The scale is tied by the prior ``theta ~ N(0, I)``, the location by
its zero mean. For D = 2 the remaining sign is fixed after the fit: if the mean
of alpha is negative, theta, alpha and ``mu_alpha`` change sign (the posterior
is unchanged), so that a higher theta means a stronger model.

**The same fit on every machine.** Every product, exponential, logarithm and
linear solve is computed in a fixed order (:mod:`sysrs_ref._fixed_order`),
never by BLAS, LAPACK or the processor's vectorised ``exp``: for a given numpy
version, the same scores and seed give the same bits, and so the same
``converged`` flag, anchors and estimates, whatever the processor, BLAS kernel
or thread count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._fixed_order import NUMPY_KERNELS, FixedOrderKernels
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.errors import ParameterError, ScoreError
from sysrs_ref.subset._irt_priors import log_posterior_and_gradient, log_posterior_gradient, sigmoid

__all__ = ["ConvergenceReport", "IRTFit", "estimate_abilities", "fit_irt", "irt_need"]

FloatArray = npt.NDArray[np.float64]

#: The number of final epochs over which :func:`fit_irt` measures the relative change of the objective.
CONVERGENCE_WINDOW = 100
_ADAM_BETA1, _ADAM_BETA2, _ADAM_EPS = 0.9, 0.999, 1e-8


@dataclass(frozen=True)
class ConvergenceReport:
    """How the optimisation of :func:`fit_irt` ended.

    ``objective`` and ``gradient_norm`` (Euclidean, over every parameter and
    hyperparameter) are at the returned parameters, after ``epochs`` steps.
    ``history`` holds the objective at epochs 0, ``history_every``,
    ``2 history_every``, ... and last at ``epochs``. ``relative_change`` is
    ``|f(epochs) - f(epochs - w)| / max(1, |f(epochs)|)`` with
    ``w = min(100, epochs)``, and ``converged`` says whether it is at most
    ``tolerance``.

    >>> report = fit_irt([[1, 0, 1], [0, 0, 1], [1, 1, 1]], epochs=1000, history_every=250).report
    >>> len(report.history), report.history[-1] == report.objective, report.converged
    (5, True, True)
    """

    epochs: int
    objective: float
    gradient_norm: float
    converged: bool
    relative_change: float
    tolerance: float
    history_every: int
    history: tuple[float, ...] = field(repr=False)


@dataclass(frozen=True, eq=False)
class IRTFit:
    """The MAP parameters of the 2PL: K x (D-1) abilities, L x (D-1) discriminations, L difficulties.

    ``hyper`` holds ``mu_alpha``, ``sigma_alpha``, ``mu_beta`` and ``sigma_beta``.
    The arrays are read-only; equality is identity (arrays have no single truth value).

    >>> fit = fit_irt([[1, 1, 0], [1, 0, 0], [0, 0, 0]], epochs=200)
    >>> fit.theta.shape, fit.alpha.shape, fit.beta.shape, sorted(fit.hyper)
    ((3, 1), (3, 1), (3,), ['mu_alpha', 'mu_beta', 'sigma_alpha', 'sigma_beta'])
    >>> bool(fit.theta[0, 0] > fit.theta[2, 0])  # D = 2: the stronger model has the higher ability
    True
    """

    theta: FloatArray
    alpha: FloatArray
    beta: FloatArray
    hyper: dict[str, float]
    report: ConvergenceReport

    def probabilities(self) -> FloatArray:
        """The fitted K x L matrix ``P_ij = sigmoid(alpha_j . theta_i - beta_j)``.

        >>> p = fit_irt([[1, 1, 0], [1, 0, 0], [0, 0, 0]], epochs=200).probabilities()
        >>> p.shape, bool(p[0, 0] > p[2, 2])
        ((3, 3), True)
        """
        return sigmoid(fixed_order.matmul(self.theta, self.alpha.T) - self.beta)

    def embeddings(self) -> FloatArray:
        """The L x D question embeddings ``(alpha_j, beta_j)`` of tinyBenchmarks, one row per question.

        >>> fit = fit_irt([[1, 1, 0], [1, 0, 0], [0, 0, 0]], dim=3, epochs=50)
        >>> fit.embeddings().shape, bool((fit.embeddings()[:, -1] == fit.beta).all())
        ((3, 3), True)
        """
        return np.column_stack([self.alpha, self.beta])


def irt_need(n_models: int, n_questions: int, dim: int, epochs: int) -> Need:
    """What :func:`fit_irt` needs: (K + L)(D - 1) parameters with their gradient and Adam moments, K x L logits.

    O(epochs K L D) work, at a rate measured with the compiled kernels.

    >>> irt_need(3, 100, 10**9, 2000).memory // 2**30
    4604
    """
    d = max(dim - 1, 0)
    return Need(
        f"an IRT fit (D = {dim:,}, {epochs:,} epochs) on {matrix_shape(n_models, n_questions)}",
        "(K + L)(D - 1) parameters with their gradient and Adam moments, K x L logits; O(epochs K L D)",
        memory=8 * (6 * (n_models + n_questions) * d + 4 * n_models * n_questions),
        seconds=2e-8 * epochs * n_models * n_questions * d,
    )


def fit_irt(
    scores: npt.ArrayLike,
    dim: int = 2,
    *,
    epochs: int = 2000,
    learning_rate: float = 0.05,
    seed: int | np.random.Generator = 0,
    tolerance: float = 1e-6,
    history_every: int = 10,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> IRTFit:
    """Fit the D-dimensional 2PL (D - 1 latent dimensions) to a K x L score matrix by MAP.

    ``scores`` holds numbers in [0, 1], at least 2 models (rows) and 1 question
    (column). ``epochs`` full-batch Adam steps of size ``learning_rate`` from a
    start drawn from ``seed`` (an int, or a Generator that this call advances);
    the objective is recorded every ``history_every`` epochs (see
    :class:`ConvergenceReport`, whose ``converged`` uses ``tolerance``).
    *kernels* runs the fit's exp, log, log1p and sigmoid: numpy's fixed-order
    loops by default, :data:`sysrs_ref.fast.COMPILED_KERNELS` the same doubles
    in C, in about half the time. The
    module docstring gives the model, the priors, the start and the
    identifiability caveat. Cost per epoch: three K x L x (D-1) products and a
    few K x L elementwise passes.

    Raises :class:`~sysrs_ref.errors.ScoreError` for a score matrix that is not
    2-D, too small, or has a value that is NaN or outside [0, 1], and
    :class:`~sysrs_ref.errors.TooLargeError`, before any work, for sizes whose
    memory or time (:func:`irt_need`) is beyond this machine or the time limit,
    :class:`~sysrs_ref.errors.ParameterError` for ``dim < 2``, ``epochs < 1``,
    a learning rate or tolerance that is not a positive finite number,
    ``history_every < 1`` or a seed that is neither an int nor a Generator.

    >>> fit = fit_irt([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], epochs=300, seed=1)
    >>> [round(float(p), 2) for p in fit.probabilities().mean(axis=1)]  # close to the row means .75, .5, .25
    [0.72, 0.5, 0.28]
    >>> fit_irt([[1, 0], [0, 1]], dim=1)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: dim must be at least 2 (D - 1 >= 1 latent dimensions), got 1
    """
    matrix = _checked_scores(scores, min_models=2, what="scores")
    _check_int("dim", dim, 2, " (D - 1 >= 1 latent dimensions)")
    _check_int("epochs", epochs, 1)
    _check_int("history_every", history_every, 1)
    _check_positive("learning_rate", learning_rate)
    _check_positive("tolerance", tolerance)
    check_need(irt_need(matrix.shape[0], matrix.shape[1], dim, epochs))
    rng = _generator(seed)
    n_models, n_questions = matrix.shape
    d = dim - 1

    # one flat parameter vector, with views for the blocks: theta, alpha, beta, hyper
    sizes = np.cumsum([n_models * d, n_questions * d, n_questions])
    x = np.empty(int(sizes[-1]) + 4)
    theta, alpha = x[: sizes[0]].reshape(n_models, d), x[sizes[0] : sizes[1]].reshape(n_questions, d)
    beta, hyper = x[sizes[1] : sizes[2]], x[sizes[2] :]
    theta[:] = rng.standard_normal((n_models, d))
    alpha[:] = rng.standard_normal((n_questions, d)) / math.sqrt(d)
    fail = np.clip(1.0 - matrix.mean(axis=0), 0.01, 0.99)
    beta[:] = kernels.log(fail / (1.0 - fail))
    hyper[:] = (0.0, -0.5 * float(kernels.log(float(d))), float(beta.mean()), 0.0)

    window = min(CONVERGENCE_WINDOW, epochs)
    first = np.zeros_like(x)
    second = np.zeros_like(x)
    history: list[float] = []
    before_window = math.nan
    for step in range(epochs):
        record = step % history_every == 0
        if record or step == epochs - window:
            value, grad = log_posterior_and_gradient(matrix, theta, alpha, beta, hyper, kernels=kernels)
            if record:
                history.append(value)
            if step == epochs - window:
                before_window = value
        else:
            grad = log_posterior_gradient(matrix, theta, alpha, beta, hyper, kernels=kernels)
        g = np.concatenate([block.ravel() for block in grad])
        first *= _ADAM_BETA1
        first += (1.0 - _ADAM_BETA1) * g
        second *= _ADAM_BETA2
        second += (1.0 - _ADAM_BETA2) * (g * g)
        t = step + 1
        x += (learning_rate / (1.0 - _ADAM_BETA1**t)) * first / (np.sqrt(second / (1.0 - _ADAM_BETA2**t)) + _ADAM_EPS)

    value, grad = log_posterior_and_gradient(matrix, theta, alpha, beta, hyper, kernels=kernels)
    history.append(value)
    gradient_norm = math.sqrt(sum(fixed_order.dot(block, block) for block in grad))
    change = abs(value - before_window) / max(1.0, abs(value))
    if d == 1 and alpha.mean() < 0.0:  # the sign convention of the module docstring; the posterior is symmetric
        theta *= -1.0
        alpha *= -1.0
        hyper[0] *= -1.0
    report = ConvergenceReport(
        epochs=epochs,
        objective=value,
        gradient_norm=gradient_norm,
        converged=bool(change <= tolerance),
        relative_change=change,
        tolerance=tolerance,
        history_every=history_every,
        history=tuple(history),
    )
    hyper_dict = {
        "mu_alpha": float(hyper[0]),
        "sigma_alpha": float(kernels.exp(hyper[1])),
        "mu_beta": float(hyper[2]),
        "sigma_beta": float(kernels.exp(hyper[3])),
    }
    return IRTFit(theta=_frozen(theta), alpha=_frozen(alpha), beta=_frozen(beta), hyper=hyper_dict, report=report)


def estimate_abilities(
    scores_on_subset: npt.ArrayLike,
    alpha_subset: npt.ArrayLike,
    beta_subset: npt.ArrayLike,
    *,
    epochs: int = 100,
    tolerance: float = 1e-8,
) -> FloatArray:
    """Re-estimate the K abilities by MAP with the item parameters held fixed (MetaBench's per-subset step).

    ``scores_on_subset`` is K x L' (K >= 1 models, L' >= 1 questions, scores in
    [0, 1]), ``alpha_subset`` L' x (D-1) (or (L',) for D = 2) and
    ``beta_subset`` (L',), e.g. ``fit.alpha[cols]`` and ``fit.beta[cols]``.
    Each model's ``theta_i`` maximises ``sum_j S_ij Z_ij - softplus(Z_ij) -
    |theta_i|^2 / 2``, the fit's likelihood with the prior ``N(0, I)``. That
    objective is strictly concave (its Hessian is at most ``-I``), so the
    maximiser is unique and no seed is needed: Newton's method from
    ``theta = 0``, with step halving until the Armijo condition holds (a full
    step once the predicted gain is below the rounding of the objective), for
    at most ``epochs`` iterations, stopping once every gradient entry is at
    most ``tolerance`` in absolute value. Returns a K x (D-1) array.

    Raises :class:`~sysrs_ref.errors.ScoreError` for bad scores (as
    :func:`fit_irt`) and :class:`~sysrs_ref.errors.ParameterError` for item
    parameters of the wrong shape or not finite, ``epochs < 1`` or a
    tolerance that is not a positive finite number.

    >>> theta = estimate_abilities([[1, 1, 0], [0, 0, 0]], [1.0, 2.0, 1.0], [0.0, 0.5, 1.0])
    >>> theta.shape, bool(theta[0, 0] > 0 > theta[1, 0])
    ((2, 1), True)
    """
    matrix = _checked_scores(scores_on_subset, min_models=1, what="scores_on_subset")
    _check_int("epochs", epochs, 1)
    _check_positive("tolerance", tolerance)
    n_models, n_questions = matrix.shape
    alpha = _checked_items("alpha_subset", alpha_subset, n_questions, matrix=True)
    beta = _checked_items("beta_subset", beta_subset, n_questions, matrix=False)
    d = alpha.shape[1]
    pairs = (alpha[:, :, None] * alpha[:, None, :]).reshape(n_questions, d * d)
    theta = np.zeros((n_models, d))
    value = _ability_objective(matrix, theta, alpha, beta)
    for _ in range(epochs):
        prob = sigmoid(fixed_order.matmul(theta, alpha.T) - beta)
        grad = fixed_order.matmul(matrix - prob, alpha) - theta
        if float(np.abs(grad).max()) <= tolerance:
            break
        neg_hessian = fixed_order.matmul(prob * (1.0 - prob), pairs).reshape(n_models, d, d) + np.eye(d)
        step = fixed_order.solve(neg_hessian, grad[:, :, None])[:, :, 0]
        slope = np.einsum("kd,kd->k", grad, step)  # > 0: the Newton step is an ascent direction
        # a predicted gain below the rounding of the objective: take the full (quadratically convergent) step
        negligible = slope <= 1e-12 * (1.0 + np.abs(value))
        size = np.ones(n_models)
        for _ in range(60):
            candidate = theta + size[:, None] * step
            new = _ability_objective(matrix, candidate, alpha, beta)
            accepted = negligible | (new >= value + 1e-4 * size * slope)
            if accepted.all():
                break
            size = np.where(accepted, size, 0.5 * size)
        theta = np.where(accepted[:, None], candidate, theta)
        value = np.where(accepted, new, value)
    return theta


def _ability_objective(matrix: FloatArray, theta: FloatArray, alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """Each model's log-likelihood plus its log prior N(0, I), up to a constant: a (K,) vector."""
    z = fixed_order.matmul(theta, alpha.T) - beta
    return np.asarray(
        (matrix * z - fixed_order.softplus(z)).sum(axis=1) - 0.5 * (theta * theta).sum(axis=1), dtype=np.float64
    )


def _checked_scores(scores: npt.ArrayLike, *, min_models: int, what: str) -> FloatArray:
    """``scores`` as a fresh float64 K x L matrix, or ScoreError saying what is wrong and where."""
    try:
        matrix = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ScoreError(f"{what} must be a K x L matrix (models x questions) of numbers in [0, 1]: {err}") from None
    if matrix.ndim != 2:
        raise ScoreError(
            f"{what} must be a 2-D K x L matrix (models x questions), got an array of shape {matrix.shape}"
        )
    n_models, n_questions = matrix.shape
    if n_models < min_models:
        raise ScoreError(f"{what} needs at least {min_models} model(s) (rows), got {n_models}")
    if n_questions < 1:
        raise ScoreError(f"{what} needs at least 1 question (column), got 0")
    bad = np.argwhere(~((matrix >= 0.0) & (matrix <= 1.0)))  # NaN fails both comparisons
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise ScoreError(f"{what}[{i}, {j}] = {matrix[i, j]} is not a score in [0, 1] ({len(bad)} such entries)")
    return matrix


def _checked_items(name: str, values: npt.ArrayLike, n_questions: int, *, matrix: bool) -> FloatArray:
    """Item parameters as float64: alpha L' x (D-1) (a vector is one column), beta (L',); ParameterError if not."""
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ParameterError(f"{name} must be an array of numbers: {err}") from None
    if matrix and array.ndim == 1:
        array = array[:, None]
    expected = f"({n_questions}, D - 1) or ({n_questions},)" if matrix else f"({n_questions},)"
    if array.ndim != (2 if matrix else 1) or array.shape[0] != n_questions or array.size == 0:
        raise ParameterError(f"{name} must have shape {expected}, one row per column of the scores; got {array.shape}")
    if not np.isfinite(array).all():
        raise ParameterError(f"{name} must be finite, got {array[~np.isfinite(array)][0]}")
    return array


def _check_int(name: str, value: object, minimum: int, hint: str = "") -> None:
    """ParameterError unless ``value`` is an integer (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ParameterError(f"{name} must be at least {minimum}{hint}, got {value}")


def _check_positive(name: str, value: object) -> None:
    """ParameterError unless ``value`` is a finite number greater than 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name} must be a positive number, got {value!r}")
    if not (math.isfinite(float(value)) and value > 0):
        raise ParameterError(f"{name} must be a positive finite number, got {value}")


def _generator(seed: object) -> np.random.Generator:
    """The Generator itself, or a fresh one seeded by a non-negative int; ParameterError otherwise."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer or a numpy.random.Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def _frozen(array: FloatArray) -> FloatArray:
    """A read-only copy of ``array``."""
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out
