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
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sysrs_ref.datasets import dataset_names

LIMIT = 4 * 2**30
ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe", "syucbe")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root: int) -> int:
    """Resident bytes of *root* and all its descendants, from /proc (0 once it has ended)."""
    parents: dict[int, int] = {}
    resident: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            pages = int((entry / "statm").read_text().split()[1])
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        resident[int(entry.name)] = pages * PAGE
    family, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in family]
        family.update(children)
        frontier.extend(children)
    return sum(resident.get(pid, 0) for pid in family)


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
        peak = max(peak, _tree_rss(process.pid))
        time.sleep(0.02)
    out, err = process.communicate()
    assert process.returncode == 0, err
    result = json.loads(out)
    assert [row["spent_max"] <= row["budget"] for row in result["results"]] == [True] * 3
    print(f"\n{dataset} {algorithm}: peak {peak / 2**20:.0f} MiB, {time.perf_counter() - began:.1f} s")
    assert peak < LIMIT, f"{dataset} {algorithm}: peak resident memory {peak / 2**30:.2f} GiB"
