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

from benchmarks.process_memory import run_measured, simulate_command
from sysrs_ref.datasets import shipped_datasets

TABLE_BUDGETS = "8%,12%,16%,20%,25%,30%,35%"
W7_ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe:a=1", "syucbe:a=1")
W107_ALGORITHMS = "paper,ucbe:a=100,syucbe:a=100"


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


def _reproduce(out: Path, grid: str, algorithms: str, runs: int, workers: int) -> list[str]:
    command = [sys.executable, "-m", "sysrs_ref", "reproduce", "--out", str(out), "--grid", grid]
    return command + [
        "--algorithms",
        algorithms,
        "--runs",
        str(runs),
        "--workers",
        str(workers),
        "--no-plots",
        "--quiet",
    ]


def main(argv: list[str] | None = None) -> int:
    """Time W7 (both ways) or W107; print one line per way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=("w7", "w107"), default="w7")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    grid, algorithms = ("table", ",".join(W7_ALGORITHMS)) if args.workload == "w7" else ("paper", W107_ALGORITHMS)
    with tempfile.TemporaryDirectory() as folder:  # a fresh output folder each time: no cache
        commands = [
            [_reproduce(Path(folder) / str(n), grid, algorithms, args.runs, args.workers)] for n in range(args.repeat)
        ]
        _report(f"{args.workload.upper()} by reproduce", [_measure(one) for one in commands])
    if args.workload == "w7":
        simulates = [
            simulate_command(dataset.name, "all", TABLE_BUDGETS, args.runs, args.workers)
            for dataset in shipped_datasets()
        ]
        _report("W7 by 11 simulate calls", [_measure(simulates) for _ in range(args.repeat)])
    return 0


def _report(way: str, measured: list[tuple[float, int]]) -> None:
    times = [seconds for seconds, _ in measured]
    shown = ", ".join(f"{t:.1f}" for t in times)
    peak = max(peak for _, peak in measured)
    print(f"{way}: median {statistics.median(times):.1f} s ({shown}); peak {peak / 2**30:.2f} GiB PSS", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
