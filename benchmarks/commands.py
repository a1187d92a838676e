"""W7 and W107 through the commands users run: wall and CPU time, against an earlier commit side by side.

Run from the repository root (minutes; not in the default test run):

    .venv/bin/python -m benchmarks.commands                      # W7: reproduce, then 11 simulate calls
    .venv/bin/python -m benchmarks.commands --workload w107      # W107: reproduce --grid paper, a in {0.1, 1, 10, 100}
    .venv/bin/python -m benchmarks.commands --workload both --against b76c2c7 --repeat 3
    .venv/bin/python -m benchmarks.commands --numpy-too          # and again with the compiled passes off: what they buy

- **W7 by reproduce**: ``reproduce --grid table --algorithms us,syus,sr,sysrs,ucbe:a=1,syucbe:a=1
  --runs 1000 --workers 2 --no-plots`` into a fresh folder (no cache).
- **W7 by simulate**: one ``simulate --scores NAME --algorithm all --budgets 8%,...,35% --runs 1000
  --workers 2 --quiet --json`` per shipped benchmark, one after the other (11 processes and pools).
- **W107**: ``reproduce --grid paper --algorithms paper,ucbe:a=100,syucbe:a=100 --runs 1000
  --workers 2 --no-plots``.

Each command runs in its own process tree, as a user's shell runs it
(``process_memory.user_environment``), with this interpreter and
``PYTHONPATH`` set to the tree it measures. The times come from runs that
nothing samples (``process_memory.run_timed``): the wall time and the CPU time
of the whole process tree, workers included (a busy machine stretches the wall
time far more than this). ``--against REV`` checks REV out into a work tree of
its own (``git worktree add``, under ``--trees``, kept for the next time),
builds its compiled library there as ``pip install`` does (``pip wheel``, the
library taken from the wheel), and then runs every way on both trees in turn,
alternating which goes first (A B, B A, ...), so that both meet the same
machine; it prints one table: each way's median wall and CPU time on each tree,
the ratios, the floor (``benchmarks.floor``, measured in the same sitting) and
whether both trees wrote the same results, byte for byte (``reproduce``:
results.json and every table; ``simulate``: its JSON). ``--memory`` adds a
sampled pass for the peak PSS.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.process_memory import run_measured, run_timed, simulate_command
from sysrs_ref.datasets import shipped_datasets

TABLE_BUDGETS = "8%,12%,16%,20%,25%,30%,35%"
W7_ALGORITHMS = ("us", "syus", "sr", "sysrs", "ucbe:a=1", "syucbe:a=1")
W107_ALGORITHMS = "paper,ucbe:a=100,syucbe:a=100"
ENVIRONMENT = "SYSRS_REF_COMPILED"  # "0" switches the compiled passes off (sysrs_ref.fast.compiled)
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Tree:
    """A checkout to measure: its label in the table and its folder (the root of its ``sysrs_ref``)."""

    label: str
    path: Path


@dataclass
class Way:
    """One way of running a workload: its commands (given the pass's output folder) and what each pass measured."""

    name: str
    commands: Callable[[Path], list[list[str]]]
    passes: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """Per tree label: (wall seconds, CPU seconds) of each pass."""
    outputs: dict[str, Path] = field(default_factory=dict)
    """Per tree label: the first pass's outputs (its folder, and the commands' JSON on stdout in stdout-N.json)."""


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's waited-for children and their waited-for descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure(
    commands: list[list[str]], tree: Tree, keep: Path | None, memory: bool = False
) -> tuple[float, float, int]:
    """Run *commands* on *tree* one after the other: total wall seconds, CPU seconds of their process trees, and
    with *memory* the largest peak PSS (bytes). *keep*: write each command's JSON output there (stdout-N.json)."""
    seconds, peak, cpu = 0.0, 0, _children_cpu()
    before, here = os.environ.get("PYTHONPATH"), Path.cwd()
    os.environ["PYTHONPATH"] = str(tree.path)  # the commands' environment (process_memory.user_environment)
    os.chdir(tempfile.gettempdir())  # not the repository root: `python -m` would import this tree's package from it
    try:
        for number, command in enumerate(commands):
            measured = run_measured(command, pss=True) if memory else run_timed(command)
            if measured.returncode != 0:
                raise RuntimeError(f"{' '.join(command)} failed ({measured.returncode}): {measured.stderr.strip()}")
            if keep is not None and measured.stdout.lstrip()[:1] in ("{", "["):  # simulate's JSON, not a summary
                (keep / f"stdout-{number}.json").write_text(measured.stdout)
            seconds += measured.seconds
            peak = max(peak, measured.peak_pss)
    finally:
        os.chdir(here)
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
    return seconds, _children_cpu() - cpu, peak


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


def _ways(workload: str, runs: int, workers: int, simulate: bool) -> list[Way]:
    """The ways of *workload* (w7, w107 or both) to measure."""
    ways = []
    if workload in ("w7", "both"):
        algorithms = ",".join(W7_ALGORITHMS)
        ways.append(Way("W7 by reproduce", lambda out: [_reproduce(out / "out", "table", algorithms, runs, workers)]))
        if simulate:
            names = [dataset.name for dataset in shipped_datasets()]
            ways.append(
                Way(
                    "W7 by 11 simulate calls",
                    lambda out: [simulate_command(name, "all", TABLE_BUDGETS, runs, workers) for name in names],
                )
            )
    if workload in ("w107", "both"):
        ways.append(
            Way("W107 by reproduce", lambda out: [_reproduce(out / "out", "paper", W107_ALGORITHMS, runs, workers)])
        )
    return ways


def prepare(revision: str, trees: Path) -> Tree:
    """A work tree of *revision* under *trees*, with its compiled library built (made once, then reused)."""
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}")
    folder = trees / commit[:12]
    if not (folder / "sysrs_ref").is_dir():
        trees.mkdir(parents=True, exist_ok=True)
        _git("worktree", "add", "--detach", str(folder), commit)
    if not list((folder / "sysrs_ref" / "fast").glob("_native_lib*")):
        print(f"building {revision}'s compiled library (pip wheel) ...", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory() as wheels:
            subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, str(folder)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            (wheel,) = Path(wheels).glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.startswith("sysrs_ref/fast/_native_lib"):
                        (folder / name).write_bytes(archive.read(name))
    return Tree(f"{revision} ({commit[:7]})" if not commit.startswith(revision) else commit[:7], folder)


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _same_results(first: Path, second: Path) -> tuple[bool, list[str]]:
    """Whether two passes wrote the same results (every file outside the cache, and the commands' stdout)."""
    names = sorted(
        str(path.relative_to(first))
        for path in first.rglob("*")
        if path.is_file() and "cache" not in path.relative_to(first).parts
    )
    other = sorted(
        str(path.relative_to(second))
        for path in second.rglob("*")
        if path.is_file() and "cache" not in path.relative_to(second).parts
    )
    differ = sorted(set(names) ^ set(other))
    differ += [name for name in names if name in other and not filecmp.cmp(first / name, second / name, shallow=False)]
    return not differ, differ


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        cell.ljust(width) if i == 0 else cell.rjust(width)
        for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
    )


def table(ways: list[Way], trees: list[Tree], floors: dict[str, float]) -> list[str]:
    """The side-by-side table: per way and tree the median wall and CPU, CPU over the floor; ratios and identity."""
    widths = [28, 24, 10, 10, 11]
    lines = [_row(["way", "tree", "wall s", "CPU s", "CPU/floor"], widths)]
    for way in ways:
        floor = floors.get(way.name.split()[0].lower())
        medians = {}
        for tree in trees:
            measured = way.passes.get(tree.label, [])
            if not measured:
                continue
            wall = statistics.median(w for w, _ in measured)
            cpu = statistics.median(c for _, c in measured)
            medians[tree.label] = (wall, cpu)
            shown = "" if floor is None else f"{cpu / floor:.2f}"
            lines.append(_row([way.name, tree.label, f"{wall:.1f}", f"{cpu:.1f}", shown], widths))
            lines.append(f"    passes: {', '.join(f'{w:.1f}/{c:.1f}' for w, c in measured)} (wall/CPU s)")
        if len(trees) == 2 and len(medians) == 2:
            (wall_a, cpu_a), (wall_b, cpu_b) = medians[trees[0].label], medians[trees[1].label]
            same, differ = _same_results(way.outputs[trees[0].label], way.outputs[trees[1].label])
            verdict = "yes, byte for byte" if same else f"NO: {', '.join(differ[:6])}"
            lines.append(
                f"    {trees[0].label} / {trees[1].label}: wall {wall_a / wall_b:.3f}, CPU {cpu_a / cpu_b:.3f}; "
                f"results identical: {verdict}"
            )
    for workload, floor in sorted(floors.items()):
        lines.append(
            f"floor of {workload.upper()}: {floor:.1f} s CPU (python -m benchmarks.floor --workload {workload})"
        )
    return lines


def _floor(workload: str, runs: int, tree: Tree) -> float:
    """The floor of *workload* measured now (benchmarks.floor, this tree's compiled passes), in CPU seconds."""
    with tempfile.TemporaryDirectory() as folder:
        numbers = Path(folder) / "floor.json"
        command = [sys.executable, "-m", "benchmarks.floor", "--workload", workload, "--runs", str(runs)]
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree.path), str(ROOT)]))
        subprocess.run([*command, "--json", str(numbers)], check=True, env=environment, stdout=subprocess.DEVNULL)
        total: float = json.loads(numbers.read_text())["total"]
    return total


def main(argv: list[str] | None = None) -> int:
    """Time W7 (both ways) and/or W107 on this tree (and with ``--against`` on another, side by side)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--workload", choices=("w7", "w107", "both"), default="w7")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--against", metavar="REV", help="an earlier commit (or branch, tag) to time side by side")
    parser.add_argument(
        "--trees",
        type=Path,
        default=Path(tempfile.gettempdir()) / "sysrs-ref-trees",
        help="where --against keeps its work trees (default: %(default)s)",
    )
    parser.add_argument("--no-floor", action="store_true", help="do not measure the floor")
    parser.add_argument("--memory", action="store_true", help="one more pass of each way, for its peak PSS")
    parser.add_argument(
        "--numpy-too", action="store_true", help=f"each way again with {ENVIRONMENT}=0 (numpy alone), and the ratios"
    )
    parser.add_argument("--no-simulate", action="store_true", help="W7 through reproduce only")
    args = parser.parse_args(argv)
    head = _git("rev-parse", "--short", "HEAD")
    dirty = " + changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
    trees = [Tree(f"this tree ({head}{dirty})", ROOT)]
    if args.against:
        trees.append(prepare(args.against, args.trees))
    ways = _ways(args.workload, args.runs, args.workers, not args.no_simulate)
    floors: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        passes = 0
        for repeat in range(args.repeat):
            order = trees if repeat % 2 == 0 else trees[::-1]  # A B, then B A: both meet the same machine
            for way in ways:
                for tree in order:
                    passes += 1
                    out = Path(folder) / str(passes)
                    out.mkdir()
                    first = tree.label not in way.outputs
                    wall, cpu, _ = _measure(way.commands(out), tree, out if first else None)
                    way.passes.setdefault(tree.label, []).append((wall, cpu))
                    if first:
                        way.outputs[tree.label] = out
                    else:
                        shutil.rmtree(out)
                    print(f"{way.name}, {tree.label}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr, flush=True)
            if repeat == 0 and not args.no_floor:  # in the same sitting, between the passes
                for workload in ("w7", "w107"):
                    if args.workload in (workload, "both"):
                        floors[workload] = _floor(workload, args.runs, trees[0])
        for line in table(ways, trees, floors):
            print(line, flush=True)
        for way in ways:
            if args.memory:
                out = Path(folder) / "memory"
                out.mkdir(exist_ok=True)
                seconds, _, peak = _measure(way.commands(out), trees[0], None, True)
                print(f"{way.name}: peak {peak / 2**30:.2f} GiB PSS (in {seconds:.1f} s, sampled)", flush=True)
                shutil.rmtree(out)
            if args.numpy_too:
                _numpy_too(way, trees[0], args.repeat, Path(folder))
    return 0


def _numpy_too(way: Way, tree: Tree, repeat: int, folder: Path) -> None:
    """*repeat* more passes of *way* with the compiled passes off, and the ratios to the passes with them."""
    os.environ[ENVIRONMENT] = "0"  # the commands' environment (process_memory.user_environment) reads it
    try:
        alone = []
        for number in range(repeat):
            out = folder / f"numpy-{number}"
            out.mkdir()
            wall, cpu, _ = _measure(way.commands(out), tree, None)
            alone.append((wall, cpu))
            shutil.rmtree(out)
    finally:
        del os.environ[ENVIRONMENT]
    measured = way.passes[tree.label]
    wall = statistics.median(w for w, _ in alone) / statistics.median(w for w, _ in measured)
    cpu = statistics.median(c for _, c in alone) / statistics.median(c for _, c in measured)
    shown = ", ".join(f"{w:.1f}/{c:.1f}" for w, c in alone)
    print(f"{way.name}, numpy alone: {shown} (wall/CPU s)")
    print(f"{way.name}: the compiled passes make it {wall:.1f} times faster in wall time, {cpu:.1f} in CPU time")


if __name__ == "__main__":
    raise SystemExit(main())
