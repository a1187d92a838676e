"""UCB-E-LRF's numpy path against its reference (pytest-benchmark; not in the default test run).

Run: OPENBLAS_NUM_THREADS=1 .venv/bin/python -m pytest benchmarks/test_lrf_speed.py -s
- one fit (paper settings: C = 64, r = 1, 10 sweeps) with 35% of the cells observed on gsm
  (80 x 1000) and arc_challenge (218 x 1172): the reference's time (one fit) and the numpy
  path's, their results asserted equal to 1e-10;
- one whole run to 35% with the numpy path on gsm and arc_challenge (a reference run would
  be its ~750 and ~2400 fits at the reference's time each: hours; the projection is printed).
See benchmarks/lrf_projection.py for the cost of the paper's whole LRF experiment.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from sysrs_ref.algorithms.lrf import LRFParams, random_lrf_draw
from sysrs_ref.algorithms.lrf_model import fit_ensemble
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast.lrf import fit_ensemble_fast, run_lrf
from sysrs_ref.schedule import parse_budget

DATASETS = ("gsm", "arc_challenge")


def matrix(name: str) -> np.ndarray:
    return np.asarray(load_dataset(name).array, dtype=np.float64)


@pytest.mark.parametrize("name", DATASETS)
def test_fit_fast_vs_reference(benchmark: Any, name: str) -> None:
    scores = matrix(name)
    observed = scores.copy()
    observed[np.random.default_rng(0).random(scores.shape) >= 0.35] = np.nan
    params = LRFParams()
    mean, spread = benchmark.pedantic(fit_ensemble_fast, args=(observed, 7, 3, params), rounds=3, iterations=1)
    listed = [[None if np.isnan(x) else float(x) for x in row] for row in observed]
    began = time.perf_counter()
    want = fit_ensemble(listed, 7, 3)
    reference = time.perf_counter() - began
    assert np.max(np.abs(mean - np.array(want.mean))) < 1e-10
    assert np.max(np.abs(spread - np.array(want.spread))) < 1e-10
    fast = benchmark.stats.stats.min
    fits = (parse_budget("35%", *scores.shape) - parse_budget("5%", *scores.shape)) // 32
    benchmark.extra_info.update(reference_s=round(reference, 2), fast_s=round(fast, 4), speedup=round(reference / fast))
    print(
        f"\n{name}: one fit at 35% observed: reference {reference:.1f} s, numpy {fast * 1000:.0f} ms "
        f"({reference / fast:.0f}x); a reference run to 35% would take about {fits} fits x {reference:.0f} s "
        f"= {fits * reference / 3600:.1f} h"
    )


@pytest.mark.parametrize("name", DATASETS)
def test_run_to_35_percent(benchmark: Any, name: str) -> None:
    scores = matrix(name)
    n_models, n_queries = scores.shape
    budgets = [parse_budget(p, n_models, n_queries) for p in ("8%", "20%", "35%")]
    draw = random_lrf_draw(0, n_models, n_queries)
    rankings = benchmark.pedantic(run_lrf, args=(scores, budgets, draw), rounds=1, iterations=1)
    assert [sorted(r) for r in rankings] == [list(range(n_models))] * 3
    print(f"\n{name}: one UCB-E-LRF run to 35% (checkpoints 8, 20, 35%): {benchmark.stats.stats.min:.0f} s")
