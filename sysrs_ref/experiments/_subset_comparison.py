"""Subset selection against SySRs on one score matrix: the paper's protocol and an honest one.

Appendix "Subset Selection Experimental Details", "Results and Comparison to
SySRs": at each budget b the subset methods pick k = floor(b L) anchors and
every model is evaluated on them; SySRs gets the same b K L evaluations. The
error is the fraction of runs whose chosen model is not a best model.

- :func:`full_matrix_comparison` is the paper's protocol: every method is
  fitted on the whole matrix S (as the paper says, this favours them: knowing
  S already answers the question). Runs of a clustering method differ only
  in its seed (0 .. seeds - 1, one run per seed); MetaBench is deterministic
  (one run); the IRT fits are made once per matrix (seed ``IRT_SEED``).
  SySRs runs ``sysrs_runs`` times (:func:`~sysrs_ref.simulation.simulate`).
- :func:`held_out_comparison` is the honest version: split s (s = 0 .. splits
  - 1) draws ``permutation(K)`` from ``SeedSequence(seed, spawn_key=(s,))``,
  fits every method on the first floor(K / 2) models (their scores on all
  queries, the history a practitioner would have), and picks the best of the
  other models from their anchor scores alone (MetaBench: their abilities on
  the anchors and the GAM calibrated on the fitted half). SySRs runs on the
  same held-out models with b K' L evaluations, ``sysrs_runs`` runs per split.
  A method is right when it picks a best model *of the held-out half*; the
  clustering seed of split s is s.

*kmedoids* is the anchor method's k-medoids search (:func:`~sysrs_ref.subset.clustering.kmedoids`):
``"fasterpam"``, the paper's code's, or ``"alternate"``, which ``reproduce``
uses by default because FasterPAM takes minutes per call on L = 5000 questions.

Labels: ``anchor``, ``kmeans-correctness``, ``kmeans-irt(D=d)``,
``metabench``, ``sysrs``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref._checks import check_int
from sysrs_ref.errors import ParameterError
from sysrs_ref.fast import COMPILED_KERNELS
from sysrs_ref.instance import Instance
from sysrs_ref.simulation import simulate
from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import KMedoidsMethod
from sysrs_ref.subset.irt import IRTFit, fit_irt
from sysrs_ref.subset.kmeans_select import kmeans_correctness, kmeans_subset
from sysrs_ref.subset.metabench import metabench_model
from sysrs_ref.subset.methods import IRT_DIMENSIONS, IRT_SEED, anchors_for_budget
from sysrs_ref.subset.result import SubsetResult

__all__ = ["SUBSET_GRID", "ComparisonCell", "full_matrix_comparison", "held_out_comparison", "labels"]

#: The Appendix's budgets: 5%, 10%, ..., 35%.
SUBSET_GRID: tuple[str, ...] = tuple(f"{p}%" for p in range(5, 36, 5))

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ComparisonCell:
    """One (method, budget) of one protocol on one matrix: how many of its runs chose a best model."""

    label: str
    budget_pct: str
    correct: int
    runs: int

    @property
    def error(self) -> float:
        """The identification error: 1 - correct / runs.

        >>> ComparisonCell("sysrs", "5%", 3, 4).error
        0.25
        """
        return 1.0 - self.correct / self.runs


def labels(dims: Sequence[int] = IRT_DIMENSIONS) -> tuple[str, ...]:
    """The methods' labels in report order, SySRs last.

    >>> labels((2, 5))
    ('anchor', 'kmeans-correctness', 'kmeans-irt(D=2)', 'kmeans-irt(D=5)', 'metabench', 'sysrs')
    """
    return ("anchor", "kmeans-correctness", *(f"kmeans-irt(D={d})" for d in dims), "metabench", "sysrs")


def _picks(
    train: FloatArray,
    k: int,
    seed: int,
    fits: dict[int, IRTFit],
    correlations: FloatArray,
    held: FloatArray | None,
    kmedoids: KMedoidsMethod,
) -> dict[str, int]:
    """Each method's chosen row: of *train* itself (held None) or of the held-out rows, fitted on *train*.

    *fits* and *correlations* (``question_correlations(train)``) are made once per matrix, not per call;
    *kmedoids* is the anchor method's k-medoids local search.
    """

    def pick(result: SubsetResult) -> int:
        if held is None:
            return result.chosen
        estimates = fixed_order.matmul(held[:, list(result.anchors)], np.asarray(result.weights))
        return int(np.argmax(estimates))  # the first maximum, as SubsetResult.chosen

    out = {
        "anchor": pick(anchor_points(train, k, seed=seed, correlations=correlations, kmedoids_method=kmedoids)),
        "kmeans-correctness": pick(kmeans_correctness(train, k, seed=seed)),
    }
    for dim, fit in fits.items():
        out[f"kmeans-irt(D={dim})"] = pick(kmeans_subset(train, fit.embeddings(), k, seed=seed, method="kmeans-irt"))
    return out


def _metabench_pick(train: FloatArray, k: int, fit: IRTFit, held: FloatArray | None) -> int:
    model = metabench_model(train, k, fit, kernels=COMPILED_KERNELS)  # numpy's doubles, in C where built
    estimates = model.gam.fitted if held is None else model.predict(held[:, list(model.anchors)])
    return int(np.argmax(estimates))


def _fitted(train: FloatArray, dims: Sequence[int], epochs: int) -> tuple[dict[int, IRTFit], IRTFit, FloatArray]:
    """What the methods share, made once per matrix: the IRT fit of each D, the D = 2 fit MetaBench uses, the correlations."""
    fits = {dim: fit_irt(train, dim, epochs=epochs, seed=IRT_SEED, kernels=COMPILED_KERNELS) for dim in dims}
    unidimensional = fits[2] if 2 in fits else fit_irt(train, 2, epochs=epochs, seed=IRT_SEED, kernels=COMPILED_KERNELS)
    return fits, unidimensional, question_correlations(train)


def _check(seeds: int, what: str) -> None:
    check_int(seeds, what)


def full_matrix_comparison(
    instance: Instance,
    *,
    budgets: Sequence[str] = SUBSET_GRID,
    seeds: int = 100,
    dims: Sequence[int] = IRT_DIMENSIONS,
    sysrs_runs: int = 1000,
    seed: int = 0,
    epochs: int = 2000,
    kmedoids: KMedoidsMethod = "fasterpam",
) -> tuple[ComparisonCell, ...]:
    """The paper's comparison on one matrix: every method fitted on all of S, SySRs at the same budgets.

    >>> from sysrs_ref.synthetic import irt_benchmark
    >>> cells = full_matrix_comparison(irt_benchmark(6, 40, seed=1), budgets=["25%"], seeds=2, dims=(2,),
    ...                                sysrs_runs=20, epochs=50)
    >>> [(c.label, c.runs) for c in cells]
    [('anchor', 2), ('kmeans-correctness', 2), ('kmeans-irt(D=2)', 2), ('metabench', 1), ('sysrs', 20)]
    """
    _check(seeds, "seeds")
    scores = np.asarray(instance.array, dtype=np.float64)
    n_models, n_queries = scores.shape
    best = instance.best
    fits, unidimensional, correlations = _fitted(scores, dims, epochs)
    sysrs = simulate(instance, "sysrs", list(budgets), sysrs_runs, seed)
    cells: list[ComparisonCell] = []
    for column, pct in enumerate(budgets):
        k = anchors_for_budget(pct, n_models, n_queries)
        hits = dict.fromkeys(labels(dims)[:-2], 0)
        for run in range(seeds):
            for label, chosen in _picks(scores, k, run, fits, correlations, None, kmedoids).items():
                hits[label] += chosen in best
        cells += [ComparisonCell(label, pct, count, seeds) for label, count in hits.items()]
        cells.append(ComparisonCell("metabench", pct, int(_metabench_pick(scores, k, unidimensional, None) in best), 1))
        cells.append(ComparisonCell("sysrs", pct, sysrs.rows[column].correct, sysrs_runs))
    return tuple(cells)


def held_out_comparison(
    instance: Instance,
    *,
    budgets: Sequence[str] = SUBSET_GRID,
    splits: int = 20,
    dims: Sequence[int] = IRT_DIMENSIONS,
    sysrs_runs: int = 100,
    seed: int = 0,
    epochs: int = 2000,
    kmedoids: KMedoidsMethod = "fasterpam",
) -> tuple[ComparisonCell, ...]:
    """The honest comparison: methods fitted on half the models pick the best of the other half; SySRs on that half.

    >>> from sysrs_ref.synthetic import irt_benchmark
    >>> cells = held_out_comparison(irt_benchmark(8, 40, seed=1), budgets=["25%"], splits=2, dims=(2,),
    ...                             sysrs_runs=10, epochs=50)
    >>> [(c.label, c.runs) for c in cells][-2:]
    [('metabench', 2), ('sysrs', 20)]
    """
    _check(splits, "splits")
    scores = np.asarray(instance.array, dtype=np.float64)
    n_models, n_queries = scores.shape
    if n_models < 4:
        raise ParameterError(
            f"the held-out protocol needs at least 4 models (2 to fit, 2 to choose from), got {n_models}"
        )
    names = labels(dims)
    hits = {(label, pct): 0 for label in names for pct in budgets}
    for split in range(splits):
        order = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(split,))).permutation(n_models)
        fitted, held = np.sort(order[: n_models // 2]), np.sort(order[n_models // 2 :])
        train, test = scores[fitted], scores[held]
        test_instance = Instance(test)
        fits, unidimensional, correlations = _fitted(train, dims, epochs)
        sysrs = simulate(test_instance, "sysrs", list(budgets), sysrs_runs, split)
        for column, pct in enumerate(budgets):
            k = anchors_for_budget(pct, n_models, n_queries)
            picks = _picks(train, k, split, fits, correlations, test, kmedoids)
            picks["metabench"] = _metabench_pick(train, k, unidimensional, test)
            for label, chosen in picks.items():
                hits[label, pct] += test_instance.is_best(chosen)
            hits["sysrs", pct] += sysrs.rows[column].correct
    return tuple(
        ComparisonCell(label, pct, hits[label, pct], splits * (sysrs_runs if label == "sysrs" else 1))
        for pct in budgets
        for label in names
    )
