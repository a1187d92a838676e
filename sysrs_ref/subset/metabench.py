"""MetaBench: Fisher-information item selection and a GAM calibration (Kipnis et al. 2025).

The paper's Appendix "Subset Selection Experimental Details", subsection
"MetaBench from Kipnis et al.", in three steps on the K x L score matrix S:

1. fit a unidimensional 2PL IRT model, ``P_ij = sigmoid(a_j theta_i - beta_j)``
   (:func:`sysrs_ref.subset.irt.fit_irt` with ``dim=2``);
2. select ``k`` questions by Fisher information ``a_j^2 P_ij (1 - P_ij)``
   over equal-probability quantile bins of the abilities (:func:`select_items`);
3. re-estimate every ability on the subset ``Q`` only and fit the GAM
   ``mu_i = f_1(theta_i^Q) + f_2(mean score of model i on Q) + c`` to the
   full-benchmark means by penalised least squares with cubic regression
   splines (:mod:`sysrs_ref.subset.gam`, after Wood's ``"cr"`` smooths); the
   predicted best model is the argmax of the fitted values (:func:`metabench_estimates`).

Steps 2 and 3 are pure functions of arrays (the IRT parameters are inputs);
:func:`metabench` chains all three. Every rule the paper leaves open is fixed
here and stated where it applies:

- **Quantiles** (:func:`quantile_bins`): ``tau_t`` is the ``(t-1)/k`` quantile
  of the K abilities by linear interpolation between order statistics
  (Hyndman-Fan type 7, numpy's and R's default), computed with exact integer
  positions ``(t-1)(K-1)/k`` so that a boundary on an order statistic is that
  ability exactly. Bin ``t`` is ``[tau_t, tau_(t+1))``, the last one closed.
  Tied abilities share a bin; a bin can be empty (ties, or ``k > K``).
- **Bins used** (:func:`select_items`): every *non-empty* bin, in order of
  ``t``, yields one question; the remaining slots are then filled by the
  global rule. There are at most ``min(k, K)`` non-empty bins, and exactly
  that many when the abilities are distinct, so this is the paper's
  ``t = 1 .. min(k, K)`` whenever those bins are all non-empty (distinct
  abilities, ``k <= K``), and matches its remark that slots beyond ``K`` remain
  "since each bin yields at most one distinct item". Read literally, for
  ``k > K`` the first ``K`` of ``k`` equal-probability bins would cover only
  the lowest ``K/k`` of the ability distribution, some of them empty (their
  average Fisher information undefined); here, with distinct abilities and
  ``k >= K``, every model has its own bin and yields one question.
- **Ties** in any argmax go to the lowest question index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._fixed_order import NUMPY_KERNELS, FixedOrderKernels
from sysrs_ref.errors import BudgetError, ParameterError, ScoreError
from sysrs_ref.subset.gam import GAMFit, fit_gam
from sysrs_ref.subset.irt import IRTFit, estimate_abilities, fit_irt
from sysrs_ref.subset.result import SubsetResult, check_subset_inputs

__all__ = [
    "MetaBenchModel",
    "fisher_information",
    "metabench",
    "metabench_estimates",
    "metabench_model",
    "quantile_bins",
    "select_items",
]

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.intp]


def _vector(values: npt.ArrayLike, name: str, length: int | None = None) -> FloatArray:
    """*values* as a finite 1-D float64 array (of the given length), else a ParameterError."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]  # a K x 1 ability matrix, as the IRT fit returns it
    if array.ndim != 1 or array.size == 0:
        raise ParameterError(f"{name} must be a non-empty vector, got shape {array.shape}")
    if length is not None and array.size != length:
        raise ParameterError(f"{name} must have {length} entries, got {array.size}")
    if not np.all(np.isfinite(array)):
        raise ParameterError(f"{name} must be finite numbers (no NaN or infinity)")
    return array


def _count(k: object, name: str, error: type[ParameterError] | type[BudgetError], high: int | None = None) -> int:
    """*k* as an int in [1, high], else *error*."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise error(f"{name} must be an integer, got {k!r}")
    if k < 1 or (high is not None and k > high):
        raise error(f"{name} must be between 1 and {high if high is not None else 'infinity'}, got {k}")
    return int(k)


def fisher_information(theta: npt.ArrayLike, a: npt.ArrayLike, beta: npt.ArrayLike) -> FloatArray:
    """The K x L Fisher information ``a_j^2 P_ij (1 - P_ij)``, ``P_ij = sigmoid(a_j theta_i - beta_j)``.

    *theta* holds the K abilities, *a* and *beta* the L discriminations and
    difficulties; ``P (1 - P)`` is computed as ``e^-|z| / (1 + e^-|z|)^2``, so
    no overflow for large ``|z|``. Raises
    :class:`~sysrs_ref.errors.ParameterError` for non-finite or mismatched input.

    >>> fisher_information([0.0, 1.0], [2.0, 1.0], [0.0, 1.0]).round(6).tolist()
    [[1.0, 0.196612], [0.419974, 0.25]]
    """
    th = _vector(theta, "theta (the abilities)")
    disc = _vector(a, "a (the discriminations)")
    diff = _vector(beta, "beta (the difficulties)", disc.size)
    z = np.abs(th[:, None] * disc[None, :] - diff[None, :])
    e = fixed_order.exp(-z)
    return np.asarray(disc[None, :] ** 2 * e / (1.0 + e) ** 2, dtype=np.float64)


def quantile_bins(theta: npt.ArrayLike, k: int) -> list[IndexArray]:
    """The k equal-probability quantile bins of the abilities, as arrays of model indices (increasing).

    Bin ``t`` (0-based here) is ``{i : tau_t <= theta_i < tau_(t+1)}``, the last
    bin also holding ``theta_i = tau_k = max theta``; ``tau_t`` is the ``t/k``
    quantile by linear interpolation (type 7) at the exact position
    ``t (K-1) / k`` among the sorted abilities. Every model is in exactly one
    bin; tied abilities share one; bins can be empty. Raises
    :class:`~sysrs_ref.errors.ParameterError` for bad *theta* or ``k < 1``.

    >>> [b.tolist() for b in quantile_bins([0.3, 0.1, 0.4, 0.2], 2)]
    [[1, 3], [0, 2]]
    >>> [b.tolist() for b in quantile_bins([1.0, 0.0], 4)]  # k > K: empty bins
    [[1], [], [], [0]]
    """
    th = _vector(theta, "theta (the abilities)")
    bins = _count(k, "the number of bins k", ParameterError)
    ordered = np.sort(th)
    position = np.arange(bins, dtype=np.int64) * (th.size - 1)
    low, rest = np.divmod(position, bins)
    high = np.minimum(low + 1, th.size - 1)
    # For a data value v, tau_t <= v exactly when v >= sorted[low_t] (tau_t falls on a value, rest 0) or
    # v >= sorted[low_t + 1] (tau_t strictly between two values): compare with those, never with a rounded
    # interpolation, which can round onto sorted[low_t] when two abilities are a few ulps apart.
    cut = np.where(rest == 0, ordered[low], ordered[high])
    which = np.searchsorted(cut, th, side="right") - 1
    return [np.flatnonzero(which == t).astype(np.intp) for t in range(bins)]


def select_items(theta: npt.ArrayLike, a: npt.ArrayLike, beta: npt.ArrayLike, k: int) -> tuple[int, ...]:
    """The k questions of MetaBench's Step 2, in the order chosen.

    For each non-empty bin of :func:`quantile_bins` in order (at most
    ``min(k, K)`` of them; see the module docstring), take the
    not-yet-selected question with the highest average Fisher information over
    the models in it; then, until there are k, the
    not-yet-selected question with the highest average Fisher information over
    all K models. Ties go to the lowest question index; deterministic. Raises
    :class:`~sysrs_ref.errors.ParameterError` for bad parameters and
    :class:`~sysrs_ref.errors.BudgetError` unless ``1 <= k <= L``.

    >>> select_items([-2.0, 2.0], [1.0, 1.0, 1.0, 2.0], [-2.0, 2.0, 0.0, 0.0], 3)
    (0, 1, 2)
    """
    info = fisher_information(theta, a, beta)
    n_questions = info.shape[1]
    count = _count(k, "k (the number of questions to select)", BudgetError, n_questions)
    taken = np.zeros(n_questions, dtype=bool)
    chosen: list[int] = []
    for members in quantile_bins(theta, count):
        if members.size:  # at most min(k, K) bins are non-empty
            average = np.where(taken, -1.0, info[members].mean(axis=0))
            question = int(np.argmax(average))  # the first maximum: the lowest index on ties
            taken[question] = True
            chosen.append(question)
    overall = info.mean(axis=0)
    for question in np.argsort(-overall, kind="stable").tolist():
        if len(chosen) == count:
            break
        if not taken[question]:
            taken[question] = True
            chosen.append(int(question))
    return tuple(chosen)


def metabench_estimates(
    scores: npt.ArrayLike,
    anchors: Sequence[int],
    theta_subset: npt.ArrayLike,
    full_means: npt.ArrayLike,
) -> FloatArray:
    """MetaBench's Step 3 given the abilities re-estimated on the anchors: the GAM's fitted means (K,).

    Fits ``full_means_i = f_1(theta_subset_i) + f_2(mean of scores[i, anchors]) + c``
    with :func:`~sysrs_ref.subset.gam.fit_gam` (10-knot cubic regression
    splines, centred, smoothing by GCV) and returns the fitted values.
    *theta_subset* may be (K,) or K x 1. Raises
    :class:`~sysrs_ref.errors.ScoreError` for scores outside [0, 1],
    :class:`~sysrs_ref.errors.ParameterError` for bad anchors or vectors.

    >>> s = np.array([[0, 0, 1, 0], [1, 0, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=float)
    >>> [round(float(v), 6) for v in metabench_estimates(s, [0, 1], [-1.0, 0.0, 1.0, 2.0], s.mean(axis=1))]
    [0.25, 0.5, 0.75, 1.0]
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 2 or values.size == 0:
        raise ParameterError(f"scores must be a non-empty K x L matrix, got shape {values.shape}")
    if not np.all(np.isfinite(values) & (values >= 0) & (values <= 1)):
        raise ScoreError("scores must be finite and in [0, 1]")
    n_models, n_questions = values.shape
    picked = list(anchors)
    if (
        not picked
        or any(isinstance(q, bool) or not isinstance(q, (int, np.integer)) for q in picked)
        or not all(0 <= q < n_questions for q in picked)
        or len(set(picked)) != len(picked)
    ):
        raise ParameterError(f"anchors must be distinct question indices in [0, {n_questions}), got {picked}")
    theta = _vector(theta_subset, "theta_subset (the abilities on the anchors)", n_models)
    means = _vector(full_means, "full_means (the full-benchmark means)", n_models)
    return _calibrate(values[:, picked], theta, means).fitted


def _calibrate(
    on_anchors: FloatArray, theta: FloatArray, means: FloatArray, kernels: FixedOrderKernels = NUMPY_KERNELS
) -> GAMFit:
    """Step 3's GAM: full means ~ f_1(ability on the anchors) + f_2(mean score on the anchors) + c."""
    return fit_gam(np.column_stack([theta, on_anchors.mean(axis=1)]), means, kernels=kernels)


@dataclass(frozen=True, eq=False)
class MetaBenchModel:
    """MetaBench fitted on some models: its anchors (selection order), their item parameters, and the GAM.

    :meth:`predict` applies it to other models' scores on the anchors: their
    abilities re-estimated on the anchors (item parameters fixed), then the GAM.
    """

    anchors: tuple[int, ...]
    alpha: FloatArray
    beta: FloatArray
    gam: GAMFit

    def predict(self, scores_on_anchors: npt.ArrayLike) -> FloatArray:
        """The predicted full-benchmark means of models whose scores on ``anchors`` (in that order) are given.

        >>> s = np.array([[1, 0, 0, 0, 1, 0], [1, 1, 0, 0, 1, 1], [1, 1, 1, 0, 1, 1], [1, 1, 1, 1, 0, 1]], dtype=float)
        >>> model = metabench_model(s, 3, fit_irt(s, 2, epochs=50))
        >>> bool(np.allclose(model.predict(s[:, list(model.anchors)]), model.gam.fitted))
        True
        """
        values = np.asarray(scores_on_anchors, dtype=np.float64)
        theta = estimate_abilities(values, self.alpha, self.beta)
        return self.gam.predict(np.column_stack([theta[:, 0], values.mean(axis=1)]))


def metabench_model(
    scores: npt.ArrayLike, k: int, fit: IRTFit, *, kernels: FixedOrderKernels = NUMPY_KERNELS
) -> MetaBenchModel:
    """Steps 2 and 3 on the models of *scores* given their 2PL *fit*: the anchors and the calibrated GAM.

    *kernels* runs the GAM's fixed-order arithmetic (:func:`~sysrs_ref.subset.gam.fit_gam`).

    >>> s = np.array([[1, 0, 0, 0, 1, 0], [1, 1, 0, 0, 1, 1], [1, 1, 1, 0, 1, 1], [1, 1, 1, 1, 0, 1]], dtype=float)
    >>> len(metabench_model(s, 3, fit_irt(s, 2, epochs=50)).anchors)
    3
    """
    values = check_subset_inputs(scores, k)
    if fit.theta.shape != (values.shape[0], 1) or fit.beta.shape != (values.shape[1],):
        raise ParameterError(
            f"the IRT fit must be a unidimensional 2PL of these {values.shape[0]} x {values.shape[1]} scores"
        )
    anchors = select_items(fit.theta[:, 0], fit.alpha[:, 0], fit.beta, int(k))
    picked = list(anchors)
    alpha, beta = fit.alpha[picked], fit.beta[picked]
    theta = estimate_abilities(values[:, picked], alpha, beta)
    gam = _calibrate(values[:, picked], theta[:, 0], values.mean(axis=1), kernels)
    return MetaBenchModel(anchors, alpha, beta, gam)


def metabench(
    scores: npt.ArrayLike,
    k: int,
    *,
    epochs: int = 2000,
    seed: int = 0,
    fit: IRTFit | None = None,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> SubsetResult:
    """Run MetaBench on a K x L score matrix with k anchor questions: IRT fit, selection, GAM, argmax.

    Step 1 fits :func:`~sysrs_ref.subset.irt.fit_irt` with ``dim=2`` (*epochs*,
    *seed*), Step 2 is :func:`select_items` on its abilities, discriminations
    and difficulties, Step 3 re-estimates the abilities on the anchors with
    :func:`~sysrs_ref.subset.irt.estimate_abilities` (MAP by Newton's method
    with the item parameters fixed, at its default settings; *epochs* counts
    only the Adam steps of Step 1) and calibrates
    with :func:`metabench_estimates`, the response being the full means. The
    result's ``anchors`` are sorted; its ``estimates`` are the GAM's fitted
    means, **not** a weighted anchor mean: MetaBench has no anchor weights, so
    ``weights`` are the equal ``1/k`` placeholders. ``chosen`` is the argmax of
    the estimates, ties to the lowest model index. Input errors as
    :func:`~sysrs_ref.subset.result.check_subset_inputs`. A given *fit* (a
    unidimensional 2PL of these scores) replaces Step 1 (:func:`metabench_model`);
    *kernels* runs the fixed-order arithmetic of the IRT fit and the GAM
    (:data:`sysrs_ref.fast.COMPILED_KERNELS`: the same doubles in C).

    >>> s = np.array([[1, 0, 0, 0, 1, 0], [1, 1, 0, 0, 1, 1], [1, 1, 1, 0, 1, 1], [1, 1, 1, 1, 0, 1]])
    >>> r = metabench(s, 3, epochs=50)
    >>> r.method, r.k, len(set(r.anchors)), r.weights
    ('metabench', 3, 3, (0.3333333333333333, 0.3333333333333333, 0.3333333333333333))
    """
    values = check_subset_inputs(scores, k)
    count = int(k)
    irt = fit if fit is not None else fit_irt(values, dim=2, epochs=epochs, seed=seed, kernels=kernels)
    model = metabench_model(values, count, irt, kernels=kernels)
    anchors, estimates = model.anchors, model.gam.fitted
    return SubsetResult(
        method="metabench",
        k=count,
        anchors=tuple(sorted(anchors)),
        weights=(1.0 / count,) * count,
        estimates=tuple(float(v) for v in estimates),
        chosen=int(np.argmax(estimates)),  # the first maximum: ties go to the lowest model index
    )
