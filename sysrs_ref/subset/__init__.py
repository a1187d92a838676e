"""Subset-selection baselines (the paper's Appendix "Subset Selection Experimental Details").

Anchor Point Weighted Score (Vivek et al. 2024), tinyBenchmarks' k-means on
correctness vectors and on IRT embeddings (Polo et al. 2024), and MetaBench
(Kipnis et al. 2025), in numpy; :func:`select_subset` runs one by name, as
``python -m sysrs_ref subset`` does.
"""

from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import KMeansResult, KMedoidsResult, kmeans, kmedoids
from sysrs_ref.subset.gam import GAMFit, fit_gam
from sysrs_ref.subset.irt import ConvergenceReport, IRTFit, estimate_abilities, fit_irt
from sysrs_ref.subset.kmeans_select import kmeans_correctness, kmeans_subset
from sysrs_ref.subset.metabench import metabench, select_items
from sysrs_ref.subset.methods import IRT_DIMENSIONS, SUBSET_METHODS, anchors_for_budget, select_subset
from sysrs_ref.subset.result import SubsetResult

__all__ = [
    "IRT_DIMENSIONS",
    "SUBSET_METHODS",
    "ConvergenceReport",
    "GAMFit",
    "IRTFit",
    "KMeansResult",
    "KMedoidsResult",
    "SubsetResult",
    "anchor_points",
    "anchors_for_budget",
    "estimate_abilities",
    "fit_gam",
    "fit_irt",
    "kmeans",
    "kmeans_correctness",
    "kmeans_subset",
    "kmedoids",
    "metabench",
    "question_correlations",
    "select_items",
    "select_subset",
]
