"""The mutation check: realistic one-line bugs, each written into a copy of the tree, and its area's tests run on it.

Run: .venv/bin/python -m benchmarks.mutants [--area NAME ...] [--only NAME ...] [--judge tests|proofs]
[--marks EXPR] [--jobs N] [--root TREE] [--list]

Each mutant of :mod:`benchmarks.mutant_catalog` is a (file, old text, new
text) record. The runner copies the tree (``sysrs_ref``, ``proofs_check``,
``tests``, ``data``, ``examples``, ``docs``, ``pyproject.toml``; *--root*
another checkout, e.g. an older one to compare) once per job, replaces the
old text once in the copy (it must occur exactly once), rebuilds the
compiled library when a C source changed, and runs the tests of the
mutant's *area* (its folder of ``tests/``; the harness tier left out) in
the copy. A mutant is *killed* when they fail (or time out), *missed* when
they pass, *n/a* when its old text is not in that tree. The score is
killed / (killed + missed), overall and per area; equivalent mutants are
reported apart.

``--judge proofs`` runs ``python -m proofs_check`` (its default domains)
instead of the tests: how many of the bugs the audit alone catches.

Not part of the default test run: it takes tens of minutes (docs/benchmarks.md, "Mutation check").
"""

from __future__ import annotations

import argparse
import queue
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.mutant_catalog import AREAS, MUTANTS, Mutant

ROOT = Path(__file__).resolve().parent.parent
_COPIED = ("sysrs_ref", "proofs_check", "tests", "data", "examples", "docs", "pyproject.toml", "README.md")
_TIMEOUT = 1800


def _copy(source: Path, target: Path) -> None:
    for name in _COPIED:
        path = source / name
        if path.is_dir():
            shutil.copytree(path, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif path.exists():
            shutil.copy2(path, target / name)


def _build(tree: Path) -> None:
    """Compile the C passes of *tree* in place, as the install does (the flags of pyproject.toml)."""
    csrc = tree / "sysrs_ref" / "fast" / "_csrc"
    sources = sorted(str(path) for path in csrc.glob("*.c"))
    for old in (tree / "sysrs_ref" / "fast").glob("_native_lib*"):
        old.unlink()
    output = tree / "sysrs_ref" / "fast" / f"_native_lib{sysconfig.get_config_var('EXT_SUFFIX')}"
    include = sysconfig.get_paths()["include"]
    command = ["cc", "-shared", "-fPIC", "-O2", "-ffp-contract=off", "-fno-fast-math", f"-I{include}"]
    subprocess.run([*command, *sources, "-o", str(output)], check=True, capture_output=True)


def _command(mutant: Mutant, work: Path, judge: str, marks: str) -> list[str] | None:
    """The command that judges *mutant* in *work*, or None when the tree has none of its tests."""
    if judge == "proofs":
        return [sys.executable, "-m", "proofs_check", "--json"]
    tests = [test for test in mutant.area.tests if (work / test).exists()]
    if not tests:
        return None
    return [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "--no-header",
        "-m",
        "not harness",
    ] + [*tests]


def _run(mutant: Mutant, source: Path, work: Path, judge: str, marks: str) -> tuple[str, float]:
    """'killed', 'missed' or 'n/a', and the seconds the judge took."""
    target = work / mutant.file
    original = (source / mutant.file).read_text(encoding="utf-8")
    command = _command(mutant, work, judge, marks)
    if original.count(mutant.old) != 1 or command is None:
        return "n/a", 0.0
    target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    began = time.perf_counter()
    try:
        if "_csrc" in mutant.file:
            _build(work)
        try:
            done = subprocess.run(command, cwd=work, capture_output=True, timeout=_TIMEOUT, check=False)
            status = "missed" if done.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            status = "killed"
    finally:
        target.write_text(original, encoding="utf-8")
        if "_csrc" in mutant.file:
            _build(work)
    return status, time.perf_counter() - began


def _worker(
    jobs: queue.Queue[Mutant], source: Path, judge: str, marks: str, results: dict[str, str], lock: threading.Lock
) -> None:
    with tempfile.TemporaryDirectory(prefix="sysrs-mutants-") as folder:
        work = Path(folder)
        _copy(source, work)
        if not list((work / "sysrs_ref" / "fast").glob("_native_lib*")):  # an archive of the sources: built here
            _build(work)
        while True:
            try:
                mutant = jobs.get_nowait()
            except queue.Empty:
                return
            status, seconds = _run(mutant, source, work, judge, marks)
            with lock:
                results[mutant.name] = status
                print(f"{status:7} {mutant.area.name:12} {mutant.name:36} {seconds:6.1f} s  {mutant.file}", flush=True)


def _summary(chosen: Sequence[Mutant], results: dict[str, str]) -> list[str]:
    """The per-area table and the missed mutants, as printed lines."""
    lines = [f"{'area':12} {'killed':>6} {'missed':>6} {'equiv.':>6} {'n/a':>4}  score (of the non-equivalent)"]
    total = [0, 0]
    for area in AREAS:
        mine = [m for m in chosen if m.area.name == area.name]
        if not mine:
            continue
        killed = sum(results[m.name] == "killed" for m in mine)
        missed = sum(results[m.name] == "missed" and not m.equivalent for m in mine)
        equivalent = sum(bool(m.equivalent) and results[m.name] != "n/a" for m in mine)
        absent = sum(results[m.name] == "n/a" for m in mine)
        total[0] += killed
        total[1] += missed
        score = f"{100 * killed / (killed + missed):.0f} %" if killed + missed else "-"
        lines.append(f"{area.name:12} {killed:6} {missed:6} {equivalent:6} {absent:4}  {score}")
    judged = total[0] + total[1]
    lines.append(f"{'all':12} {total[0]:6} {total[1]:6}" + (f"  {100 * total[0] / judged:.0f} %" if judged else ""))
    for mutant in chosen:
        if results[mutant.name] == "missed":
            why = f" (equivalent: {mutant.equivalent})" if mutant.equivalent else ""
            lines.append(f"missed: {mutant.name}{why}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutants; print one line each, then the score per area."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--area", nargs="+", metavar="AREA", choices=[a.name for a in AREAS], help="only these areas")
    parser.add_argument(
        "--judge", choices=("tests", "proofs"), default="tests", help="the area's tests, or python -m proofs_check"
    )
    parser.add_argument(
        "--marks",
        default="not harness",
        metavar="EXPR",
        help="pytest's -m for the area's tests (default 'not harness'; 'not slow and not harness': the fast target)",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="mutants judged at once, each in a copy")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to mutate (default: this checkout)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    unknown = set(args.only or ()) - {m.name for m in MUTANTS}
    if unknown:
        parser.error(f"no mutant named {', '.join(sorted(unknown))} (--list lists them)")
    if not 1 <= args.jobs <= 16:
        parser.error(f"--jobs takes 1 to 16, got {args.jobs}")
    chosen = [
        m for m in MUTANTS if (not args.only or m.name in args.only) and (not args.area or m.area.name in args.area)
    ]
    if args.list:
        for mutant in chosen:
            note = "  (equivalent)" if mutant.equivalent else ""
            print(f"{mutant.area.name:12} {mutant.name:36} {mutant.file}{note}")
        return 0
    jobs: queue.Queue[Mutant] = queue.Queue()
    for mutant in chosen:
        jobs.put(mutant)
    results: dict[str, str] = {}
    lock = threading.Lock()
    source = args.root.resolve()
    threads = [
        threading.Thread(target=_worker, args=(jobs, source, args.judge, args.marks, results, lock))
        for _ in range(min(args.jobs, len(chosen)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("\n".join(_summary(chosen, results)))
    return 1 if any(results[m.name] == "missed" and not m.equivalent for m in chosen) else 0


if __name__ == "__main__":
    raise SystemExit(main())
