"""The subset baselines' fits with the fixed-order kernels in numpy and in C (pytest-benchmark; not in the default run).

Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python -m pytest benchmarks/test_subset_speed.py -s
- the unidimensional 2PL fitted to gsm (``fit_irt(scores, 2)``, 2,000 Adam steps: exp, log1p and sigmoid on the
  80 x 1000 logits at every step): CPU time, best of 3, with numpy's loops (the default) and with
  ``COMPILED_KERNELS``; the two fits asserted equal bit for bit;
- one ``metabench_model`` on math (the subset study's full-matrix protocol at 10%: the 2PL fitted once, then the
  anchors and the GAM with its GCV search, whose SVD rotations are the kernels' ``jacobi``): the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytest

from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import COMPILED_KERNELS, compiled
from sysrs_ref.subset.irt import fit_irt
from sysrs_ref.subset.metabench import metabench_model
from sysrs_ref.subset.methods import IRT_SEED, anchors_for_budget

T = TypeVar("T")
needs_compiled = pytest.mark.skipif(not compiled.available(), reason="the compiled passes were not built here")


def _best_cpu_seconds(run: Callable[[], T], rounds: int = 3) -> tuple[float, T]:
    best, out = float("inf"), None
    for _ in range(rounds):
        began = time.process_time()
        out = run()
        best = min(best, time.process_time() - began)
    assert out is not None
    return best, out


@needs_compiled
def test_irt_fit_numpy_vs_compiled_kernels(benchmark: Any) -> None:
    scores = np.asarray(load_dataset("gsm").array, dtype=np.float64)
    numpy_s, plain = _best_cpu_seconds(lambda: fit_irt(scores, 2, seed=IRT_SEED))
    compiled_s, fast = _best_cpu_seconds(lambda: fit_irt(scores, 2, seed=IRT_SEED, kernels=COMPILED_KERNELS))
    assert fast.theta.tobytes() == plain.theta.tobytes() and fast.report == plain.report
    benchmark.pedantic(fit_irt, args=(scores, 2), kwargs={"seed": IRT_SEED, "kernels": COMPILED_KERNELS}, rounds=1)
    benchmark.extra_info.update(numpy_s=round(numpy_s, 3), compiled_s=round(compiled_s, 3))
    print(
        f"\ngsm, the 2PL (D = 2, 2,000 steps): numpy kernels {numpy_s:.2f} s CPU, "
        f"compiled {compiled_s:.2f} s CPU ({numpy_s / compiled_s:.1f}x)"
    )


@needs_compiled
def test_metabench_gam_numpy_vs_compiled_kernels(benchmark: Any) -> None:
    scores = np.asarray(load_dataset("math").array, dtype=np.float64)
    k = anchors_for_budget("10%", *scores.shape)
    irt = fit_irt(scores, 2, seed=IRT_SEED, kernels=COMPILED_KERNELS)
    numpy_s, plain = _best_cpu_seconds(lambda: metabench_model(scores, k, irt))
    compiled_s, fast = _best_cpu_seconds(lambda: metabench_model(scores, k, irt, kernels=COMPILED_KERNELS))
    assert fast.anchors == plain.anchors and fast.gam.fitted.tobytes() == plain.gam.fitted.tobytes()
    benchmark.pedantic(metabench_model, args=(scores, k, irt), kwargs={"kernels": COMPILED_KERNELS}, rounds=1)
    benchmark.extra_info.update(numpy_s=round(numpy_s, 3), compiled_s=round(compiled_s, 3))
    print(
        f"\nmath, MetaBench at 10% (k = {k}): numpy kernels {numpy_s:.2f} s CPU, "
        f"compiled {compiled_s:.2f} s CPU ({numpy_s / compiled_s:.1f}x)"
    )
