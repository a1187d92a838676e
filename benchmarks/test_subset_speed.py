"""MetaBench's GAM calibration with the SVD's rotations in numpy and in C (pytest-benchmark; not in the default run).

Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python -m pytest benchmarks/test_subset_speed.py -s
- one ``metabench_model`` on math (the subset study's full-matrix protocol at 10%: the unidimensional 2PL
  fitted once, then the anchors and the GAM with its GCV search): CPU time, best of 3, with numpy's
  rotations (the default) and with ``jacobi_sweeps_compiled``; the two models asserted equal bit for bit.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import compiled, jacobi_sweeps_compiled
from sysrs_ref.subset.irt import fit_irt
from sysrs_ref.subset.metabench import MetaBenchModel, metabench_model
from sysrs_ref.subset.methods import IRT_SEED, anchors_for_budget


def _best_cpu_seconds(run: Any, rounds: int = 3) -> tuple[float, MetaBenchModel]:
    best, out = float("inf"), None
    for _ in range(rounds):
        began = time.process_time()
        out = run()
        best = min(best, time.process_time() - began)
    assert out is not None
    return best, out


@pytest.mark.skipif(not compiled.available(), reason="the compiled passes were not built here")
def test_metabench_gam_numpy_vs_compiled_rotations(benchmark: Any) -> None:
    scores = np.asarray(load_dataset("math").array, dtype=np.float64)
    k = anchors_for_budget("10%", *scores.shape)
    irt = fit_irt(scores, 2, seed=IRT_SEED)
    numpy_s, plain = _best_cpu_seconds(lambda: metabench_model(scores, k, irt))
    compiled_s, fast = _best_cpu_seconds(lambda: metabench_model(scores, k, irt, jacobi=jacobi_sweeps_compiled))
    assert fast.anchors == plain.anchors and fast.gam.fitted.tobytes() == plain.gam.fitted.tobytes()
    benchmark.pedantic(metabench_model, args=(scores, k, irt), kwargs={"jacobi": jacobi_sweeps_compiled}, rounds=1)
    benchmark.extra_info.update(numpy_s=round(numpy_s, 3), compiled_s=round(compiled_s, 3))
    print(
        f"\nmath, MetaBench at 10% (k = {k}): numpy rotations {numpy_s:.2f} s CPU, "
        f"compiled {compiled_s:.2f} s CPU ({numpy_s / compiled_s:.1f}x)"
    )
