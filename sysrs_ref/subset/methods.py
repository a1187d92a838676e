"""The four subset-selection baselines behind one name, and the budget-to-anchors rule.

Appendix "Subset Selection Experimental Details": at budget fraction b the
methods pick k = floor(b L) anchor questions and evaluate all K models on
them. :func:`anchors_for_budget` maps a budget given as evaluations n or as a
percentage p to k exactly (k = floor(n / K), k = floor(p L / 100)), and
:func:`select_subset` runs a method by its command-line name:

- ``anchor``: Anchor Point Weighted Score (Vivek et al. 2024), :mod:`~sysrs_ref.subset.anchor`;
- ``kmeans-correctness``: k-means on the questions' score columns (Polo et al. 2024);
- ``kmeans-irt``: k-means on the questions' (alpha_j, beta_j) from a D-dimensional 2PL
  fitted by MAP (Polo et al. 2024; D = ``dim``, default 2), :mod:`~sysrs_ref.subset.irt`;
- ``metabench``: Fisher-information item selection and a GAM (Kipnis et al. 2025),
  :mod:`~sysrs_ref.subset.metabench`.

The IRT fits use the fixed seed :data:`IRT_SEED` (the paper fits them once
and caches them); *seed* is the clustering's, the only randomness across runs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sysrs_ref._fixed_order import NUMPY_KERNELS, FixedOrderKernels
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.errors import BudgetError, ParameterError
from sysrs_ref.schedule import parse_percentage
from sysrs_ref.subset.anchor import anchor_need, anchor_points
from sysrs_ref.subset.irt import IRTFit, fit_irt
from sysrs_ref.subset.kmeans_select import kmeans_correctness, kmeans_correctness_need, kmeans_subset
from sysrs_ref.subset.metabench import metabench
from sysrs_ref.subset.result import SubsetResult, check_subset_inputs

__all__ = ["IRT_DIMENSIONS", "IRT_SEED", "SUBSET_METHODS", "anchors_for_budget", "select_subset"]

#: The methods by command-line name.
SUBSET_METHODS: tuple[str, ...] = ("anchor", "kmeans-correctness", "kmeans-irt", "metabench")

#: The IRT dimensions D the paper evaluates for ``kmeans-irt``.
IRT_DIMENSIONS: tuple[int, ...] = (2, 5, 10, 15)

#: The seed of every IRT fit's initialisation (fitted once per matrix, as the paper does).
IRT_SEED = 0


def anchors_for_budget(budget: int | str, n_models: int, n_queries: int) -> int:
    """k, the anchors a budget pays for: floor(n / K) for n evaluations, floor(p L / 100) for "p%".

    Every model is evaluated on every anchor, so n evaluations buy floor(n / K)
    anchors, and b = n / (K L) gives floor(b L), the paper's k. BudgetError
    when that is below 1 or above L.

    >>> anchors_for_budget("10%", 80, 1000), anchors_for_budget(8000, 80, 1000), anchors_for_budget("1.25%", 80, 437)
    (100, 100, 5)
    """
    if isinstance(budget, str) and budget.strip().endswith("%"):
        k = int(parse_percentage(budget.strip()) * n_queries / 100)  # Fraction: floor, exactly
        where = f"{budget.strip()} of L = {counted(n_queries, 'query', 'queries')}"
    else:
        try:
            evaluations = int(budget) if not isinstance(budget, bool) else -1
        except ValueError:
            raise BudgetError(f"budget must be evaluations (8000) or a percentage (10%), got {budget!r}") from None
        k = evaluations // n_models
        where = f"{counted(evaluations, 'evaluation')} for K = {n_models} models"
    if not 1 <= k <= n_queries:
        raise BudgetError(f"{where} buys k = {k} anchor questions; k must be between 1 and L = {n_queries}")
    return k


def subset_need(method: str, n_models: int, n_queries: int, k: int, *, dim: int = 2, epochs: int = 2000) -> Need:
    """What *method* needs on a K x L matrix with k anchors: memory at once and the least work, from the sizes alone.

    - ``anchor``: the L x L correlations and distances (float64), O(K L^2) to
      compute them and O(k L^2) per pass of k-medoids;
    - ``kmeans-correctness``: L points in K dimensions, O(k K L) for k-means++
      and for each Lloyd iteration (at least one);
    - ``kmeans-irt``, ``metabench``: an IRT fit of dimension D (2 for
      metabench) over (K + L)(D - 1) parameters, its Adam moments and K x L
      logits, O(epochs K L D); then k-means on L points in D dimensions.

    The seconds count the least work (one k-means iteration, one k-medoids
    pass) at rates measured with the compiled kernels; a run can take longer.

    >>> need = subset_need("anchor", 100, 1_000_000, 10)
    >>> need.memory // 2**40
    21
    >>> round(subset_need("kmeans-correctness", 5000, 5000, 500).seconds)
    500
    """
    if method == "anchor":
        return anchor_need(n_models, n_queries, k)
    if method == "kmeans-correctness":
        return kmeans_correctness_need(n_models, n_queries, k)
    d = (dim if method == "kmeans-irt" else 2) - 1
    return Need(
        f"{method} (D = {d + 1:,}, {epochs:,} epochs) on {matrix_shape(n_models, n_queries)}",
        "an IRT fit: (K + L)(D - 1) parameters with their gradient and Adam moments, K x L logits; O(epochs K L D)",
        memory=8 * (6 * (n_models + n_queries) * d + 4 * n_models * n_queries + 2 * k * n_queries),
        seconds=2e-8 * epochs * n_models * n_queries * d + 2e-8 * 2 * k * n_queries * d,
    )


def select_subset(
    scores: npt.ArrayLike,
    method: str,
    k: int,
    *,
    seed: int | np.random.Generator = 0,
    dim: int | None = None,
    irt: IRTFit | None = None,
    epochs: int = 2000,
    kernels: FixedOrderKernels = NUMPY_KERNELS,
) -> SubsetResult:
    """Run the subset-selection *method* with *k* anchors on a K x L score matrix.

    *seed* seeds the clustering (anchor, kmeans-*); *dim* is kmeans-irt's D
    (default 2; refused by the other methods); *irt* reuses a fitted IRT for
    kmeans-irt (it must have dimension *dim*), *epochs* the IRT's epochs;
    *kernels* runs the fixed-order arithmetic of the IRT fit and metabench's GAM
    (:data:`sysrs_ref.fast.COMPILED_KERNELS`: the same doubles in C, faster).

    >>> s = [[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]]
    >>> select_subset(s, "kmeans-correctness", 4, seed=1).estimates
    (0.75, 0.5, 0.25)
    >>> select_subset(s, "nope", 2)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: unknown subset method 'nope'; choose one of anchor, kmeans-correctness, kmeans-irt, metabench
    """
    if method not in SUBSET_METHODS:
        raise ParameterError(f"unknown subset method {method!r}; choose one of {', '.join(SUBSET_METHODS)}")
    if dim is not None and method != "kmeans-irt":
        raise ParameterError(f"--dim is the IRT dimension of kmeans-irt; {method} takes none")
    values = check_subset_inputs(scores, k)
    size = 2 if dim is None else dim
    if method == "kmeans-irt" and (isinstance(size, bool) or not isinstance(size, int) or size < 2):
        raise ParameterError(f"dim must be an integer of at least 2 (D - 1 >= 1 latent dimensions), got {dim!r}")
    check_need(subset_need(method, values.shape[0], values.shape[1], k, dim=size, epochs=epochs))
    if method == "anchor":
        return anchor_points(values, k, seed=seed)
    if method == "kmeans-correctness":
        return kmeans_correctness(values, k, seed=seed)
    if method == "metabench":
        return metabench(values, k, epochs=epochs, seed=IRT_SEED, kernels=kernels)
    fit = irt if irt is not None else fit_irt(values, size, epochs=epochs, seed=IRT_SEED, kernels=kernels)
    if fit.embeddings().shape != (values.shape[1], size):
        raise ParameterError(
            f"the given IRT fit has embeddings {fit.embeddings().shape}, not L x D = {values.shape[1]} x {size}"
        )
    return kmeans_subset(values, fit.embeddings(), k, seed=seed, method="kmeans-irt")
