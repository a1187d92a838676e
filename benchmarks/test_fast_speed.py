"""The fast path against the reference on the same work (pytest-benchmark; not in the default run).

Run: .venv/bin/python -m pytest benchmarks -k fast -s   (-s shows each algorithm's speed-up)
For each algorithm on gsm (80 models x 1000 queries) at 20%: the reference's
runs per second (a few runs) and the fast path's (1000 runs), on the same
draws, with the outcomes of the shared runs asserted equal. The target:
the fast path at least 100x the reference's runs per second for SySRs.
SAR and SySAR run with m = 5.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from sysrs_ref import ALGORITHMS, parse_budget
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import ScoreTable, run_fast, score_table
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.simulation import simulation_draws

FAST_RUNS = 1000
REFERENCE_RUNS = 4


@pytest.fixture(scope="module")
def gsm() -> ScoreTable:
    return score_table(load_dataset("gsm"))


@pytest.mark.parametrize(
    "algorithm", [name for name, spec in ALGORITHMS.items() if not spec.cells]
)  # LRF: test_lrf_speed
def test_fast_vs_reference_gsm_20_percent(benchmark: Any, gsm: ScoreTable, algorithm: str) -> None:
    spec = ALGORITHMS[algorithm]
    budget = parse_budget("20%", gsm.n_models, gsm.n_queries)
    draws = simulation_draws(0, 0, FAST_RUNS, gsm.n_models, gsm.n_queries, synchronized=spec.synchronized)
    params = {"m": 5} if "m" in spec.defaults else {}  # SAR, SySAR: the top-5 set
    fast = benchmark.pedantic(run_fast, args=(gsm, algorithm, (budget,), draws), kwargs=params, rounds=3, iterations=1)
    began = time.perf_counter()
    ref = reference_kernel(algorithm)(gsm, (budget,), draws.chunk(0, REFERENCE_RUNS), True, spec.parse_params(params))
    reference_rate = REFERENCE_RUNS / (time.perf_counter() - began)
    fast_rate = FAST_RUNS / benchmark.stats.stats.min
    assert fast.ranking is not None and ref.ranking is not None
    assert np.array_equal(fast.chosen[:REFERENCE_RUNS], ref.chosen)
    assert np.array_equal(fast.ranking[:REFERENCE_RUNS], ref.ranking)
    assert int(fast.spent.max()) == int(ref.spent[0]) <= budget
    benchmark.extra_info.update(
        reference_runs_per_s=round(reference_rate, 2),
        fast_runs_per_s=round(fast_rate, 1),
        speedup=round(fast_rate / reference_rate, 1),
    )
    print(
        f"\n{algorithm}: reference {reference_rate:.2f} runs/s, fast {fast_rate:.0f} runs/s, "
        f"{fast_rate / reference_rate:.0f}x"
    )
    if algorithm == "sysrs":
        assert fast_rate >= 100 * reference_rate
