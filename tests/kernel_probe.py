"""Digests of every result that a BLAS kernel or the processor could change: ``python -m tests.kernel_probe``.

Prints one JSON object: for each fit or decision of the subset baselines and of
UCB-E-LRF, on small seeded inputs, a SHA-256 of its exact bits (or the decision
itself). tests/subset/test_kernel_independence.py runs it under several forced
OpenBLAS kernels (``OPENBLAS_CORETYPE``) and requires the same object from each.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import numpy.typing as npt

from sysrs_ref import load_dataset, select
from sysrs_ref.fast.lrf import fit_ensemble_fast
from sysrs_ref.subset.anchor import question_correlations
from sysrs_ref.subset.gam import fit_gam
from sysrs_ref.subset.irt import estimate_abilities, fit_irt
from sysrs_ref.subset.methods import select_subset


def _digest(*arrays: npt.ArrayLike) -> str:
    """The SHA-256 of the float64 bytes of *arrays*, in order."""
    hasher = hashlib.sha256()
    for array in arrays:
        hasher.update(np.ascontiguousarray(np.asarray(array, dtype=np.float64)).tobytes())
    return hasher.hexdigest()[:16]


def probe() -> dict[str, object]:
    """The digests and decisions, by name."""
    gsm = load_dataset("gsm").array
    scores = np.asarray(gsm[::4, :120], dtype=np.float64)  # 20 models x 120 queries
    out: dict[str, object] = {}
    for dim in (2, 3):
        fit = fit_irt(scores, dim=dim, epochs=400, seed=1)
        out[f"fit_irt_dim{dim}"] = _digest(fit.theta, fit.alpha, fit.beta, list(fit.hyper.values()))
        out[f"fit_irt_dim{dim}_report"] = [fit.report.converged, fit.report.objective, fit.report.relative_change]
    fit = fit_irt(scores, dim=2, epochs=400, seed=1)
    out["estimate_abilities"] = _digest(estimate_abilities(scores[:, :40], fit.alpha[:40], fit.beta[:40]))
    x = np.linspace(0.0, 1.0, 40)
    gam = fit_gam(np.column_stack([x, np.sin(6.0 * x)]), np.cos(3.0 * x) + 0.1 * x * x)
    out["fit_gam"] = [_digest(gam.fitted, *gam.coefficients), list(gam.smoothing), gam.edf, gam.gcv]
    out["question_correlations"] = _digest(question_correlations(scores))
    for method in ("anchor", "kmeans-correctness", "kmeans-irt", "metabench"):
        result = select_subset(scores, method, 12, seed=0, dim=2 if method == "kmeans-irt" else None, epochs=300)
        out[f"subset_{method}"] = [list(result.anchors), _digest(result.weights), result.chosen]
    math_scores = load_dataset("math")
    lrf = select(math_scores, "8%", "ucbe-lrf", seed=3, fit=fit_ensemble_fast)  # the numpy fit, as live sessions'
    out["ucbe_lrf"] = [lrf.chosen, list(lrf.ranking), lrf.spent]
    return out


if __name__ == "__main__":
    print(json.dumps(probe(), sort_keys=True))
