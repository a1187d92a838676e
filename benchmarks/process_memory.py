"""The resident memory of a process tree, from /proc (Linux): what the memory benchmarks sample."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root: int) -> int:
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


class Measured(NamedTuple):
    """A finished command: its exit status, output, wall seconds and peak resident bytes of its process tree."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak: int


def run_measured(command: list[str], interval: float = 0.02) -> Measured:
    """Run *command* to its end, sampling :func:`tree_rss` every *interval* seconds."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(interval)
    out, err = process.communicate()
    return Measured(process.returncode, out, err, time.perf_counter() - began, peak)
