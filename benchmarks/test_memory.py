"""Peak memory of ``simulate`` on every shipped benchmark (the target: under 4 GiB with R = 1000, any budget).

Run: .venv/bin/python -m pytest benchmarks/test_memory.py -s   (several minutes; not in the default run)

Each case runs ``python -m sysrs_ref simulate --runs 1000 --workers 2`` at
1%, 35% and 100% (at 100% every query of every model is read: the widest
prefix sums) in a subprocess, and samples the resident memory of the whole
process tree (the parent and both workers, summed) every 20 ms from /proc.
The peak is asserted below 4 GiB and printed.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.process_memory import run_measured, simulate_command
from sysrs_ref.datasets import dataset_names

LIMIT = 4 * 2**30
ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe", "syucbe")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dataset", dataset_names())
def test_simulate_peak_memory_under_4_gib(dataset: str, algorithm: str) -> None:
    command = simulate_command(dataset, algorithm, "1%,35%,100%", 1000, 2)
    measured = run_measured(command)
    assert measured.returncode == 0, measured.stderr
    result = json.loads(measured.stdout)
    assert [row["spent_max"] <= row["budget"] for row in result["results"]] == [True] * 3
    print(f"\n{dataset} {algorithm}: peak {measured.peak / 2**20:.0f} MiB, {measured.seconds:.1f} s")
    assert measured.peak < LIMIT, f"{dataset} {algorithm}: peak resident memory {measured.peak / 2**30:.2f} GiB"
