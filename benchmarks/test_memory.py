"""Peak memory of ``simulate`` on every shipped benchmark (issue 5: under 4 GiB with R = 1000, any budget).

Run: .venv/bin/python -m pytest benchmarks/test_memory.py -s   (several minutes; not in the default run)

Each case runs ``python -m sysrs_ref simulate --runs 1000 --workers 2`` at
1%, 35% and 100% (at 100% every query of every model is read: the widest
prefix sums) in a subprocess, and samples the resident memory of the whole
process tree (the parent and both workers, summed) every 20 ms from /proc.
The peak is asserted below 4 GiB and printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from benchmarks.process_memory import tree_rss
from sysrs_ref.datasets import dataset_names

LIMIT = 4 * 2**30
ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe", "syucbe")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dataset", dataset_names())
def test_simulate_peak_memory_under_4_gib(dataset: str, algorithm: str) -> None:
    command = [
        sys.executable,
        "-m",
        "sysrs_ref",
        "simulate",
        "--scores",
        dataset,
        "--algorithm",
        algorithm,
        "--budgets",
        "1%,35%,100%",
        "--runs",
        "1000",
        "--workers",
        "2",
        "--quiet",
        "--json",
    ]
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.02)
    out, err = process.communicate()
    assert process.returncode == 0, err
    result = json.loads(out)
    assert [row["spent_max"] <= row["budget"] for row in result["results"]] == [True] * 3
    print(f"\n{dataset} {algorithm}: peak {peak / 2**20:.0f} MiB, {time.perf_counter() - began:.1f} s")
    assert peak < LIMIT, f"{dataset} {algorithm}: peak resident memory {peak / 2**30:.2f} GiB"
