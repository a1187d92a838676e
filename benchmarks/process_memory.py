"""The resident memory of a process tree, from /proc (Linux): what the memory benchmarks sample."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root: int) -> int:
    """Resident bytes of *root* and all its descendants, from /proc (0 once it has ended)."""
    return sum(_resident(pid)[0] for pid in _family(root))


def tree_pss(root: int) -> int:
    """Proportional set size of *root* and its descendants: each shared page split between its sharers.

    Forked workers share their parent's pages until they write them; summed RSS
    counts such a page once per process, PSS once in all (/proc/PID/smaps_rollup).
    """
    return sum(_resident(pid)[1] for pid in _family(root))


def _rss(pid: int) -> int:
    """RSS bytes of one process (statm alone: far cheaper than smaps_rollup); 0 once it has ended."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _resident(pid: int) -> tuple[int, int]:
    """(RSS, PSS) bytes of one process; zeros once it has ended."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except (OSError, IndexError, ValueError):
        return 0, 0
    pss = next((int(line.split()[1]) * 1024 for line in rollup.splitlines() if line.startswith("Pss:")), 0)
    return pages * PAGE, pss


def _family(root: int) -> set[int]:
    """*root* and all its descendants now running, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    family, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in family]
        family.update(children)
        frontier.extend(children)
    return family


def simulate_command(scores: str, algorithm: str, budgets: str, runs: int, workers: int, *extra: str) -> list[str]:
    """``python -m sysrs_ref simulate`` on *scores* with this interpreter, quiet, its JSON on stdout.

    >>> simulate_command("gsm", "all", "8%", 10, 2)[3:]
    ['simulate', '--scores', 'gsm', '--algorithm', 'all', '--budgets', '8%', '--runs', '10', '--workers', '2', '--quiet', '--json']
    """
    command = [sys.executable, "-m", "sysrs_ref", "simulate", "--scores", scores, "--algorithm", algorithm]
    command += ["--budgets", budgets, "--runs", str(runs), "--workers", str(workers), "--quiet", "--json"]
    return command + list(extra)


class Measured(NamedTuple):
    """A finished command: exit status, output, wall seconds, peak summed RSS and peak summed PSS of its tree."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak: int
    peak_pss: int = 0


def user_environment() -> dict[str, str]:
    """This environment without ``PYTHONDONTWRITEBYTECODE``: a user's shell caches bytecode (an editable install's
    modules are otherwise compiled from source by every process, about 0.1 s a command here)."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_timed(command: list[str]) -> Measured:
    """Run *command* to its end, unsampled (reading ``/proc`` every 20 ms costs a few percent of a core, which a
    2-core machine running two workers pays in wall time): its status, output and wall seconds (no memory)."""
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=user_environment(), check=False)
    return Measured(done.returncode, done.stdout, done.stderr, time.perf_counter() - began, 0, 0)


def run_measured(command: list[str], interval: float = 0.02, *, pss: bool = False) -> Measured:
    """Run *command* to its end, sampling its tree's summed RSS (and, with *pss*, PSS) every *interval* seconds."""
    began = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=user_environment()
    )
    peak = peak_pss = 0
    while process.poll() is None:
        family = _family(process.pid)
        sizes = [_resident(pid) if pss else (_rss(pid), 0) for pid in family]
        peak = max(peak, sum(size[0] for size in sizes))
        peak_pss = max(peak_pss, sum(size[1] for size in sizes))
        time.sleep(interval)
    out, err = process.communicate()
    return Measured(process.returncode, out, err, time.perf_counter() - began, peak, peak_pss)
