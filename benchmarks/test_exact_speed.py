"""The slowest exact enumerations of tests/reference/test_exact_engine.py, timed (the suite checks only their size and law).

Run: .venv/bin/python -m pytest benchmarks/test_exact_speed.py -s. Each of these K = 4, L = 7
worst cases should take seconds (the promise of docs/theory.md); the assertion is on the time, so
it lives here and not in the default test run.
"""

from __future__ import annotations

from typing import Any

import pytest

from sysrs_ref.theory import outcome_distribution
from tests.exact_cases import SLOWEST, WORST


@pytest.mark.parametrize(("algorithm", "name", "budget"), SLOWEST)
def test_worst_case_enumeration_time(benchmark: Any, algorithm: str, name: str, budget: int) -> None:
    law = benchmark.pedantic(outcome_distribution, args=(WORST[name], algorithm, budget), rounds=1, iterations=1)
    assert sum(law.values()) == 1
    assert benchmark.stats.stats.max < 10, f"{algorithm} on {name} at n={budget}: more than 10 s"
