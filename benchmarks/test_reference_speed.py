"""Timing of the pure-Python reference on real data (pytest-benchmark; not in the default test run).

Run: .venv/bin/python -m pytest benchmarks
The Foundation issue's target: `select` with every algorithm at 35% on ifeval
(450 models x 541 queries) in under 60 s.
"""

from __future__ import annotations

from typing import Any

import pytest

from sysrs_ref import ALGORITHMS, Instance, parse_budget, select
from sysrs_ref.datasets import load_dataset


@pytest.fixture(scope="module")
def ifeval() -> Instance:
    return load_dataset("ifeval")


@pytest.mark.parametrize(
    "algorithm", [name for name, spec in ALGORITHMS.items() if not spec.cells]
)  # LRF: test_lrf_speed
def test_reference_select_ifeval_35_percent(benchmark: Any, ifeval: Instance, algorithm: str) -> None:
    budget = parse_budget("35%", *ifeval.shape)
    outcome = benchmark.pedantic(select, args=(ifeval, budget, algorithm), kwargs={"seed": 1}, rounds=3, iterations=1)
    assert outcome.spent <= budget
    assert ifeval.is_best(outcome.chosen)  # at 35% every algorithm finds the best model on ifeval with this seed
    assert benchmark.stats.stats.max < 60.0


def test_reference_load_ifeval(benchmark: Any) -> None:
    """Loading the shipped ifeval (unpacking, SHA-256 check, exact Instance)."""
    instance = benchmark.pedantic(load_dataset, args=("ifeval",), rounds=3, iterations=1)
    assert instance.shape == (450, 541)
