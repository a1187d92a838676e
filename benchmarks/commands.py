"""W7 and W107 through the commands users run: wall time and peak memory of each.

Run from the repository root (minutes; not in the default test run):

    .venv/bin/python -m benchmarks.commands                 # W7: reproduce, then 11 simulate calls
    .venv/bin/python -m benchmarks.commands --workload w107 # W107: reproduce --grid paper, a in {0.1, 1, 10, 100}
    .venv/bin/python -m benchmarks.commands --repeat 3      # each command three times (the median is printed)
    .venv/bin/python -m benchmarks.commands --numpy-too     # and again with the compiled passes off: what they buy

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
import itertools
import os
import resource
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.process_memory import run_measured, run_timed, simulate_command
from sysrs_ref.datasets import shipped_datasets

TABLE_BUDGETS = "8%,12%,16%,20%,25%,30%,35%"
W7_ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe:a=1", "syucbe:a=1")
W107_ALGORITHMS = "paper,ucbe:a=100,syucbe:a=100"
ENVIRONMENT = "SYSRS_REF_COMPILED"  # "0" switches the compiled passes off (sysrs_ref.fast.compiled)


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's waited-for children and their waited-for descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure(commands: list[list[str]], memory: bool = False) -> tuple[float, int, float]:
    """Run *commands* one after the other: their total wall seconds, with *memory* the largest peak PSS (bytes), and
    the CPU seconds of their process trees (every worker included: a busy machine stretches the wall time, not this)."""
    seconds, peak, cpu = 0.0, 0, _children_cpu()
    for command in commands:
        measured = run_measured(command, pss=True) if memory else run_timed(command)
        if measured.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({measured.returncode}): {measured.stderr.strip()}")
        seconds += measured.seconds
        peak = max(peak, measured.peak_pss)
    return seconds, peak, _children_cpu() - cpu


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
    """Time W7 (both ways) or W107; print one line per way (and with ``--numpy-too`` one more, and the ratio)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=("w7", "w107"), default="w7")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--memory", action="store_true", help="one more pass of each way, for its peak PSS")
    parser.add_argument(
        "--numpy-too", action="store_true", help=f"each way again with {ENVIRONMENT}=0 (numpy alone), and the ratios"
    )
    parser.add_argument("--no-simulate", action="store_true", help="W7 through reproduce only")
    args = parser.parse_args(argv)
    grid, algorithms = ("table", ",".join(W7_ALGORITHMS)) if args.workload == "w7" else ("paper", W107_ALGORITHMS)
    with tempfile.TemporaryDirectory() as folder:  # a fresh output folder each time: no cache
        passes = itertools.count()

        def reproduce() -> list[list[str]]:
            return [_reproduce(Path(folder) / str(next(passes)), grid, algorithms, args.runs, args.workers)]

        _way(f"{args.workload.upper()} by reproduce", reproduce, args.repeat, args.memory, args.numpy_too)
    if args.workload == "w7" and not args.no_simulate:
        simulates = [
            simulate_command(dataset.name, "all", TABLE_BUDGETS, args.runs, args.workers)
            for dataset in shipped_datasets()
        ]
        _way("W7 by 11 simulate calls", lambda: simulates, args.repeat, args.memory, args.numpy_too)
    return 0


def _way(way: str, commands: Callable[[], list[list[str]]], repeat: int, memory: bool, numpy_too: bool) -> None:
    """Measure one way: *repeat* timed passes (each pass's *commands*), one sampled with *memory*, and with
    *numpy_too* *repeat* more passes with the compiled passes off and the ratios."""
    measured = [_measure(commands()) for _ in range(repeat)]
    _report(way, measured, _measure(commands(), True) if memory else None)
    if numpy_too:
        os.environ[ENVIRONMENT] = "0"  # the commands' environment (process_memory.user_environment) reads it
        try:
            alone = [_measure(commands()) for _ in range(repeat)]
        finally:
            del os.environ[ENVIRONMENT]
        _report(f"{way}, numpy alone", alone, None)
        wall = statistics.median(t for t, _, _ in alone) / statistics.median(t for t, _, _ in measured)
        cpu = statistics.median(c for _, _, c in alone) / statistics.median(c for _, _, c in measured)
        print(f"{way}: the compiled passes make it {wall:.1f} times faster in wall time, {cpu:.1f} in CPU time")


def _report(way: str, measured: list[tuple[float, int, float]], memory: tuple[float, int, float] | None) -> None:
    times = [seconds for seconds, _, _ in measured]
    cpus = [cpu for _, _, cpu in measured]
    shown = ", ".join(f"{t:.1f}" for t in times)
    peak = "" if memory is None else f"; peak {memory[1] / 2**30:.2f} GiB PSS (in {memory[0]:.1f} s, sampled)"
    print(
        f"{way}: median {statistics.median(times):.1f} s ({shown}), CPU median {statistics.median(cpus):.1f} s{peak}",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
