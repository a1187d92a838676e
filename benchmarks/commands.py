"""W7 and W107 through the commands users run: wall time and peak memory of each.

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

Each command runs in its own process tree, as a user's shell runs it
(``process_memory.user_environment``). The times come from runs that nothing samples
(``process_memory.run_timed``); with ``--memory`` one more pass of each way is
measured by ``process_memory.run_measured`` for the peak PSS of the tree.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.process_memory import run_measured, run_timed, simulate_command
from sysrs_ref.datasets import shipped_datasets

TABLE_BUDGETS = "8%,12%,16%,20%,25%,30%,35%"
W7_ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe:a=1", "syucbe:a=1")
W107_ALGORITHMS = "paper,ucbe:a=100,syucbe:a=100"


def _measure(commands: list[list[str]], memory: bool = False) -> tuple[float, int]:
    """Run *commands* one after the other: their total wall seconds, and with *memory* the largest peak PSS (bytes)."""
    seconds, peak = 0.0, 0
    for command in commands:
        measured = run_measured(command, pss=True) if memory else run_timed(command)
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
    parser.add_argument("--memory", action="store_true", help="one more pass of each way, for its peak PSS")
    args = parser.parse_args(argv)
    grid, algorithms = ("table", ",".join(W7_ALGORITHMS)) if args.workload == "w7" else ("paper", W107_ALGORITHMS)
    with tempfile.TemporaryDirectory() as folder:  # a fresh output folder each time: no cache
        commands = [
            [_reproduce(Path(folder) / str(n), grid, algorithms, args.runs, args.workers)]
            for n in range(args.repeat + args.memory)
        ]
        measured = [_measure(one) for one in commands[: args.repeat]]
        _report(
            f"{args.workload.upper()} by reproduce", measured, _measure(commands[-1], True) if args.memory else None
        )
    if args.workload == "w7":
        simulates = [
            simulate_command(dataset.name, "all", TABLE_BUDGETS, args.runs, args.workers)
            for dataset in shipped_datasets()
        ]
        measured = [_measure(simulates) for _ in range(args.repeat)]
        _report("W7 by 11 simulate calls", measured, _measure(simulates, True) if args.memory else None)
    return 0


def _report(way: str, measured: list[tuple[float, int]], memory: tuple[float, int] | None) -> None:
    times = [seconds for seconds, _ in measured]
    shown = ", ".join(f"{t:.1f}" for t in times)
    peak = "" if memory is None else f"; peak {memory[1] / 2**30:.2f} GiB PSS (in {memory[0]:.1f} s, sampled)"
    print(f"{way}: median {statistics.median(times):.1f} s ({shown}){peak}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
