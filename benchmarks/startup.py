"""How fast the command line starts: the median wall time of a few commands, each in a fresh process.

Run: .venv/bin/python benchmarks/startup.py [--runs 10] [--records 20] [--importtime]

It times ``python -m sysrs_ref --help``, ``live next`` on a temporary UCB-E
session (4 models x 50 queries), fresh and after --records rounds of
``live next`` / ``live record`` (a session replays its log on every command),
and ``select --scores gsm --budget 12%``: --runs subprocess runs each, the
median printed (with the minimum and the maximum). ``--help`` and
``live next`` are meant to take at most 0.3 s on a 2-core machine. With
--importtime it then prints the 15 slowest imports of each command (one
``python -X importtime`` run: cumulative and own time in ms). Stdlib and
the package only; nothing here is a test.
"""

from __future__ import annotations

import argparse
import csv
import io
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple


class Command(NamedTuple):
    """One command line to time: a label and the arguments after ``python -m sysrs_ref``."""

    label: str
    args: tuple[str, ...]


class Import(NamedTuple):
    """One line of ``-X importtime``: the module, its own time and its cumulative time (microseconds)."""

    module: str
    own_us: int
    cumulative_us: int


def sysrs(
    python: str, *args: str, cwd: Path, stderr: int | None = subprocess.DEVNULL, flags: Sequence[str] = ()
) -> str:
    """Run ``python [flags] -m sysrs_ref ARGS`` in *cwd*; its stdout (or its stderr if *stderr* is PIPE)."""
    done = subprocess.run(
        [python, *flags, "-m", "sysrs_ref", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        check=True,
    )
    return done.stderr if stderr == subprocess.PIPE else done.stdout


def make_session(python: str, folder: Path, records: int) -> Path:
    """A UCB-E session on 4 models x 50 queries in *folder*, with *records* rounds of scores recorded."""
    (folder / "models.txt").write_text("".join(f"m{i}\n" for i in range(4)))
    (folder / "queries.txt").write_text("".join(f"q{j}\n" for j in range(50)))
    run = folder / "run"
    sysrs(
        python,
        "live",
        "init",
        "--models",
        "models.txt",
        "--queries",
        "queries.txt",
        "--budget",
        "50%",
        "--algorithm",
        "ucbe",
        "--seed",
        "0",
        "--dir",
        str(run),
        cwd=folder,
    )
    for _ in range(records):
        pairs = [
            row
            for row in csv.reader(io.StringIO(sysrs(python, "live", "next", "--dir", str(run), cwd=folder)))
            if row and not row[0].startswith("#")
        ][1:]  # the header model,query, then the pairs
        if not pairs:
            break
        lines = ["model,query,score"]
        lines += [f"{model},{query},{(7 * int(model[1:]) + 3 * int(query[1:])) % 2}" for model, query in pairs]
        (folder / "scores.csv").write_text("\n".join(lines) + "\n")
        sysrs(python, "live", "record", "--dir", str(run), "--scores", "scores.csv", cwd=folder)
    return run


def wall_times(python: str, command: Command, runs: int, cwd: Path) -> list[float]:
    """The wall time of *runs* fresh processes running *command*, in seconds."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        sysrs(python, *command.args, cwd=cwd)
        times.append(time.perf_counter() - began)
    return times


def slowest_imports(python: str, command: Command, cwd: Path, count: int = 15) -> list[Import]:
    """The *count* imports of *command* with the largest cumulative time (one ``-X importtime`` run)."""
    report = sysrs(python, *command.args, cwd=cwd, stderr=subprocess.PIPE, flags=("-X", "importtime"))
    found = []
    for line in report.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, module = line.removeprefix("import time:").split("|")
        found.append(Import(module.strip(), int(own), int(cumulative)))
    return sorted(found, key=lambda item: item.cumulative_us, reverse=True)[:count]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="processes per command (default 10)")
    parser.add_argument("--records", type=int, default=20, help="rounds recorded before the second live next (20)")
    parser.add_argument("--importtime", action="store_true", help="also print the 15 slowest imports of each")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run (default: this one)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "fresh").mkdir()
        (folder / "recorded").mkdir()
        fresh = make_session(args.python, folder / "fresh", 0)
        recorded = make_session(args.python, folder / "recorded", args.records)
        commands = [
            Command("--help", ("--help",)),
            Command("live next (fresh)", ("live", "next", "--dir", str(fresh))),
            Command(f"live next ({args.records} rounds recorded)", ("live", "next", "--dir", str(recorded))),
            Command("select --scores gsm --budget 12%", ("select", "--scores", "gsm", "--budget", "12%")),
        ]
        print(f"{args.python} -m sysrs_ref ..., {args.runs} runs each (seconds of wall time)")
        for command in commands:
            times = wall_times(args.python, command, args.runs, folder)
            print(
                f"  {command.label:<40} median {statistics.median(times):.3f}  (min {min(times):.3f}, max {max(times):.3f})"
            )
        if args.importtime:
            for command in commands:
                print(f"\nslowest imports of {command.label} (ms: cumulative, own):")
                for item in slowest_imports(args.python, command, folder):
                    print(f"  {item.cumulative_us / 1000:8.1f} {item.own_us / 1000:8.1f}  {item.module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
