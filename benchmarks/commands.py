"""W7 and W107 through the commands users run (issue 24): wall time and peak memory of each.

Run from the repository root (minutes; not in the default test run):

    .venv/bin/python -m benchmarks.commands                 # W7: reproduce, then 11 simulate calls
    .venv/bin/python -m benchmarks.commands --workload w107 # W107: reproduce --grid paper, a in {0.1, 1, 10, 100}
    .venv/bin/python -m benchmarks.commands --repeat 3      # each command three times (the median is printed)

- **W7 by reproduce**: ``reproduce --grid table --algorithms us,syus,sr,sysrs,ucbe:a=1,syucbe:a=1
  --runs 1000 --workers 2 --no-plots`` into a fresh folder (no cache).
- **W7 by simulate**: one ``simulate --scores NAME --algorithm all --budgets 8%,...,35% --runs 1000
  --workers 2 --quiet --json`` per shipped benchmark, one after the other (11 processes and pools).
- **W107**: ``reproduce --grid paper --algorithms paper,ucbe:a=100,syucbe:a=100 --runs 1000
  --workers 2 --no-plots``.

Each command runs in its own process tree, measured by ``process_memory.run_measured``
(wall seconds, and the peak PSS of the tree, sampled every 20 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.process_memory import run_measured
from sysrs_ref.datasets import shipped_datasets

TABLE_BUDGETS = "8%,12%,16%,20%,25%,30%,35%"


def _measure(commands: list[list[str]]) -> tuple[float, int]:
    """Run *commands* one after the other; their total wall seconds and largest peak PSS (bytes)."""
    seconds, peak = 0.0, 0
    for command in commands:
        measured = run_measured(command, pss=True)
        if measured.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({measured.returncode}): {measured.stderr.strip()}")
        seconds += measured.seconds
        peak = max(peak, measured.peak_pss)
    return seconds, peak


def _reproduce(out: Path, grid: str, algorithms: str, runs: int, workers: int) -> list[list[str]]:
    command = [sys.executable, "-m", "sysrs_ref", "reproduce", "--out", str(out), "--grid", grid]
    command += ["--algorithms", algorithms, "--runs", str(runs), "--workers", str(workers), "--no-plots", "--quiet"]
    return [command]


def _simulates(runs: int, workers: int) -> list[list[str]]:
    return [
        [sys.executable, "-m", "sysrs_ref", "simulate", "--scores", dataset.name, "--algorithm", "all"]
        + ["--budgets", TABLE_BUDGETS, "--runs", str(runs), "--workers", str(workers), "--quiet", "--json"]
        for dataset in shipped_datasets()
    ]


def main(argv: list[str] | None = None) -> int:
    """Time W7 (both ways) or W107; print one line per way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=("w7", "w107"), default="w7")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        ways: dict[str, list[list[str]]] = {}
        for attempt in range(args.repeat):
            out = Path(folder) / f"out{attempt}"
            if args.workload == "w7":
                ways.setdefault("W7 by reproduce", []).extend(
                    _reproduce(out, "table", "us,syus,sr,sysrs,ucbe:a=1,syucbe:a=1", args.runs, args.workers)
                )
            else:
                ways.setdefault("W107 by reproduce", []).extend(
                    _reproduce(out, "paper", "paper,ucbe:a=100,syucbe:a=100", args.runs, args.workers)
                )
        for way, commands in ways.items():
            times, peaks = zip(*(_measure([command]) for command in commands), strict=True)
            _report(way, list(times), max(peaks))
        if args.workload == "w7":
            times, peaks = zip(
                *(_measure(_simulates(args.runs, args.workers)) for _ in range(args.repeat)), strict=True
            )
            _report("W7 by 11 simulate calls", list(times), max(peaks))
    return 0


def _report(way: str, times: list[float], peak: int) -> None:
    shown = ", ".join(f"{t:.1f}" for t in times)
    print(f"{way}: median {statistics.median(times):.1f} s ({shown}); peak {peak / 2**30:.2f} GiB PSS", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
