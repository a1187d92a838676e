"""The mutation check: realistic one-line bugs, each written into a copy of the tree, and its area's tests run on it.

Run: .venv/bin/python -m benchmarks.mutants [--area NAME ...] [--only NAME ...] [--judge tests|proofs]
[--marks EXPR] [--jobs N] [--root TREE] [--traces DIR] [--whole-area] [--list]

Each mutant of :mod:`benchmarks.mutant_catalog` is a (file, old text, new
text) record. The runner copies the tree (``sysrs_ref``, ``proofs_check``,
``tests``, ``data``, ``examples``, ``docs``, ``pyproject.toml``; *--root*
another checkout, e.g. an older one to compare) once per job, replaces the
old text once in the copy (it must occur exactly once), rebuilds the
compiled library when a C source changed, and runs tests of the mutant's
*area* (its folder of ``tests/``, under pytest's ``-m`` *--marks*, by default
the harness tier left out) in the copy, stopping at the first failure.
A mutant is *killed* when they fail (or time out), *missed* when they pass,
*n/a* when its old text is not in that tree. The score is
killed / (killed + missed), overall and per area; equivalent mutants are
reported apart.

Only the tests that execute the mutated lines judge a mutant: each area's
tests run once, clean, under coverage.py with a context per test and phase
(:mod:`benchmarks._mutant_trace`, made once per run and kept in the job's
copy, ``.mutants/trace-AREA.json``), and :func:`select` picks, per mutant,
the tests that executed one of its lines (with the tests sharing a wider
fixture when the line ran in a setup, and every test that starts a process,
since a child is not traced). A mutant whose lines no test executes is
*missed* at once ("not executed"); a line run at import or collection, a C
source (``_csrc``, not traced) or an area whose clean run fails is judged by
the whole area, as is every mutant under ``--whole-area``.

``--judge proofs`` runs ``python -m proofs_check`` (its default domains)
instead of the tests: how many of the bugs the audit alone catches.

Not part of the default test run: it takes tens of minutes (docs/benchmarks.md, "Mutation check").
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
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
from typing import NamedTuple

from benchmarks.mutant_catalog import AREAS, MUTANTS, Area, Mutant

ROOT = Path(__file__).resolve().parent.parent
_COPIED = ("sysrs_ref", "proofs_check", "tests", "data", "examples", "docs", "pyproject.toml", "README.md")
_TIMEOUT = 1800
#: An area's traced clean run may take far longer than a mutant's judges (every test, under coverage.py).
_TRACE_TIMEOUT = 4 * 3600


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


class Trace(NamedTuple):
    """Which tests of an area execute which lines: the JSON that :mod:`benchmarks._mutant_trace` writes."""

    files: dict[str, dict[str, list[str]]]
    """Per file (relative to the tree), per line, the contexts ``<test id>|<phase>`` that executed it."""
    spawners: list[str]
    """The tests that started a process (what it executed is not traced)."""
    fixtures: dict[str, list[str]]
    """Per test, its fixtures wider than a function."""


def _statement_lines(text: str, start: int, end: int) -> set[int]:
    """The lines ``start..end`` (1-based) of *text*, with the first line of each statement that contains one.

    coverage.py records a statement that spans lines under its first line: a mutant of a continuation line
    (an ``if``'s second line of conditions) counts as executed when that statement is.
    """
    lines = set(range(start, end + 1))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return lines
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.end_lineno is not None:
            inner = [line for line in range(start, end + 1) if node.lineno <= line <= node.end_lineno]
            if inner and not any(
                isinstance(child, ast.stmt)
                and child.end_lineno is not None
                and child.lineno <= line <= child.end_lineno
                for child in ast.iter_child_nodes(node)
                for line in inner
            ):
                lines.add(node.lineno)
    return lines


def _mutated_lines(original: str, old: str) -> tuple[int, int]:
    """The first and last line (1-based) of the one occurrence of *old* in *original*."""
    offset = original.index(old)
    first = original.count("\n", 0, offset) + 1
    return first, first + old.count("\n")


def select(trace: Trace, file: str, lines: set[int]) -> list[str] | None:
    """The tests (ids, parameters dropped) that must judge a mutant of *lines* of *file*; None: the whole area.

    The tests that execute one of the lines, the tests that share a wide fixture with a test that executed
    one in its setup, and every test that starts a process. The whole area when a line ran outside any test
    (at import or collection: every test may depend on it); an empty list when no test executes it.

    >>> trace = Trace({"m.py": {"3": ["t.py::a[1]|call", "t.py::b|setup"], "4": [""]}}, [], {"t.py::b": ["f"],
    ...     "t.py::c": ["f"], "t.py::a[1]": []})
    >>> select(trace, "m.py", {3})
    ['t.py::a', 't.py::b', 't.py::c']
    >>> select(trace, "m.py", {5}), select(trace, "m.py", {3, 4})
    ([], None)
    """
    contexts = {context for line in lines for context in trace.files.get(file, {}).get(str(line), [])}
    if "" in contexts:
        return None
    tests = {context.split("|")[0] for context in contexts}
    wide = {
        fixture
        for context in contexts
        if context.endswith("|setup")
        for fixture in trace.fixtures.get(context.split("|")[0], [])
    }
    tests |= {test for test, fixtures in trace.fixtures.items() if wide & set(fixtures)}
    if tests:
        tests |= set(trace.spawners)
    elif trace.spawners:
        tests = set(trace.spawners)
    return sorted({test.split("[")[0] for test in tests})


def _pytest(marks: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", "-m", marks]


class _Traces:
    """The traces of each area under one mark expression, made once (in the first job's copy that needs one)."""

    def __init__(self, marks: str, kept: Path | None = None) -> None:
        self.marks = marks
        self.kept = kept
        """A folder where the traces are kept and found again (``--traces``), or None."""
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.done: dict[str, Trace | None] = {}
        self.areas: queue.Queue[Area] = queue.Queue()
        """The areas to trace before any mutant is judged, shared out among the jobs."""

    def plan(self, mutants: Sequence[Mutant]) -> None:
        """Queue the area of each of *mutants* whose judges are picked from a trace."""
        for name in dict.fromkeys(m.area.name for m in mutants if m.file.endswith(".py")):
            self.areas.put(next(area for area in AREAS if area.name == name))

    def get(self, area: Area, work: Path) -> Trace | None:
        """The trace of *area*'s tests, or None when its clean run failed (then the whole area judges)."""
        with self.lock:
            lock = self.locks.setdefault(area.name, threading.Lock())
        with lock:
            if area.name not in self.done:
                self.done[area.name] = self._make(area, work)
            return self.done[area.name]

    def _make(self, area: Area, work: Path) -> Trace | None:
        if self.kept is not None:
            found = self.kept / f"trace-{area.name}.json"
            stamp = _tree_stamp(work, self.marks)
            if found.exists():
                raw = json.loads(found.read_text(encoding="utf-8"))
                if raw.get("tree") == stamp:
                    _say(f"trace   {area.name:12} {len(raw['fixtures'])} tests, from {found}")
                    return Trace(raw["files"], raw["spawners"], raw["fixtures"])
                _say(f"trace   {area.name:12} {found} was made from another tree or --marks: traced again")
            trace = self._run(area, work)
            if trace is not None:
                self.kept.mkdir(parents=True, exist_ok=True)
                raw = json.loads((work / ".mutants" / found.name).read_text(encoding="utf-8"))
                _write_atomically(found, json.dumps({**raw, "tree": stamp}))
            return trace
        return self._run(area, work)

    def _run(self, area: Area, work: Path) -> Trace | None:
        tests = [test for test in area.tests if (work / test).exists()]
        output = work / ".mutants" / f"trace-{area.name}.json"
        output.parent.mkdir(exist_ok=True)
        shutil.copy2(Path(__file__).with_name("_mutant_trace.py"), work / "_mutant_trace.py")
        began = time.perf_counter()
        environment = {**os.environ, "SYSRS_MUTANTS_TRACE": str(output)}
        command = [*_pytest(self.marks), "-p", "_mutant_trace", *tests]
        for _ in range(2):  # once more after a failure: a test that fails once on a loaded machine is not the tree's
            try:
                done = subprocess.run(
                    command, cwd=work, env=environment, capture_output=True, check=False, timeout=_TRACE_TIMEOUT
                )
            except subprocess.TimeoutExpired as expired:
                done = subprocess.CompletedProcess(
                    command, -1, expired.stdout or b"", (expired.stderr or b"") + b"\ntimed out\n"
                )
                break
            if done.returncode == 0:
                break
        seconds = time.perf_counter() - began
        log = output.with_suffix(".log")
        log.write_bytes(done.stdout + done.stderr)
        if done.returncode != 0 or not output.exists():
            last = (done.stdout.decode(errors="replace").strip().splitlines() or [""])[-1]
            _say(
                f"trace   {area.name:12} the clean run failed (exit {done.returncode}: {last}; {log}): "
                "the whole area judges"
            )
            return None
        raw = json.loads(output.read_text(encoding="utf-8"))
        trace = Trace(raw["files"], raw["spawners"], raw["fixtures"])
        _say(
            f"trace   {area.name:12} {len(trace.fixtures)} tests, {len(trace.spawners)} start processes "
            f"{seconds:6.1f} s"
        )
        return trace


_SAYING = threading.Lock()


def _say(line: str) -> None:
    """Print *line* whole, even while other threads print theirs."""
    with _SAYING:
        print(line, flush=True)


def _tree_stamp(work: Path, marks: str) -> str:
    """A digest of every Python, C and data file a trace depends on (package, audit, tests) and of *marks*.

    A kept trace is used again only under the same digest: a trace of another
    tree would pick the judges of a mutant from lines that have moved.
    """
    digest = hashlib.sha256(marks.encode())
    for top in ("sysrs_ref", "proofs_check", "tests"):
        for path in sorted((work / top).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".c", ".inc", ".h", ".json", ".npz", ".npy", ".csv"):
                digest.update(str(path.relative_to(work)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _write_atomically(path: Path, text: str) -> None:
    """Write *text* to *path* through a temporary file in its folder and a rename."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _command(
    mutant: Mutant, work: Path, judge: str, marks: str, traces: _Traces | None
) -> tuple[list[str] | None, str]:
    """The command that judges *mutant* in *work* (None: the tree has none of its tests) and a note on it."""
    if judge == "proofs":
        return [sys.executable, "-m", "proofs_check", "--json"], ""
    tests = [test for test in mutant.area.tests if (work / test).exists()]
    if not tests:
        return None, ""
    if traces is None or "_csrc" in mutant.file or not mutant.file.endswith(".py"):
        return [*_pytest(marks), "-x", *tests], "whole area"
    trace = traces.get(mutant.area, work)
    if trace is None:
        return [*_pytest(marks), "-x", *tests], "whole area"
    original = (work / mutant.file).read_text(encoding="utf-8")
    first, last = _mutated_lines(original, mutant.old)
    chosen = select(trace, mutant.file, _statement_lines(original, first, last))
    if chosen is None:
        return [*_pytest(marks), "-x", *tests], "whole area (line run at import)"
    if not chosen:
        return [], "not executed"
    return [*_pytest(marks), "-x", *chosen], counted_tests(len(chosen))


def counted_tests(count: int) -> str:
    """``1 test``, ``2 tests``."""
    return f"{count} test" + ("" if count == 1 else "s")


def _run(
    mutant: Mutant, source: Path, work: Path, judge: str, marks: str, traces: _Traces | None
) -> tuple[str, float, str]:
    """'killed', 'missed' or 'n/a', the seconds the judge took, and which tests judged."""
    target = work / mutant.file
    original = (source / mutant.file).read_text(encoding="utf-8")
    if original.count(mutant.old) != 1:
        return "n/a", 0.0, ""
    command, note = _command(mutant, work, judge, marks, traces)
    if command is None:
        return "n/a", 0.0, ""
    if not command:
        return "missed", 0.0, note
    target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    began = time.perf_counter()
    try:
        if "_csrc" in mutant.file:
            _build(work)
        try:
            done = subprocess.run(command, cwd=work, capture_output=True, timeout=_TIMEOUT, check=False)
            status = "missed" if done.returncode in (0, 5) else "killed"  # 5: the marks left none of the tests
        except subprocess.TimeoutExpired:
            status = "killed"
    finally:
        target.write_text(original, encoding="utf-8")
        if "_csrc" in mutant.file:
            _build(work)
    return status, time.perf_counter() - began, note


def _worker(
    jobs: queue.Queue[Mutant],
    source: Path,
    judge: str,
    marks: str,
    traces: _Traces | None,
    results: dict[str, str],
    lock: threading.Lock,
) -> None:
    with tempfile.TemporaryDirectory(prefix="sysrs-mutants-") as folder:
        work = Path(folder)
        _copy(source, work)
        if not list((work / "sysrs_ref" / "fast").glob("_native_lib*")):  # an archive of the sources: built here
            _build(work)
        while traces is not None:
            try:
                area = traces.areas.get_nowait()
            except queue.Empty:
                break
            traces.get(area, work)
        while True:
            try:
                mutant = jobs.get_nowait()
            except queue.Empty:
                return
            status, seconds, note = _run(mutant, source, work, judge, marks, traces)
            with lock:
                results[mutant.name] = status
                _say(f"{status:7} {mutant.area.name:12} {mutant.name:36} {seconds:6.1f} s  {mutant.file}  ({note})")


def _summary(chosen: Sequence[Mutant], results: dict[str, str]) -> list[str]:
    """The per-area table and the missed mutants, as printed lines."""
    lines = [f"{'area':12} {'killed':>6} {'missed':>6} {'equiv.':>6} {'n/a':>4}  score (of the non-equivalent)"]
    total = [0, 0]
    for area in AREAS:
        mine = [m for m in chosen if m.area.name == area.name]
        if not mine:
            continue
        killed = sum(results.get(m.name) == "killed" for m in mine)
        missed = sum(results.get(m.name) == "missed" and not m.equivalent for m in mine)
        equivalent = sum(bool(m.equivalent) and results.get(m.name) in ("killed", "missed") for m in mine)
        absent = sum(results.get(m.name) == "n/a" for m in mine)
        total[0] += killed
        total[1] += missed
        score = f"{100 * killed / (killed + missed):.0f} %" if killed + missed else "-"
        lines.append(f"{area.name:12} {killed:6} {missed:6} {equivalent:6} {absent:4}  {score}")
    judged = total[0] + total[1]
    lines.append(f"{'all':12} {total[0]:6} {total[1]:6}" + (f"  {100 * total[0] / judged:.0f} %" if judged else ""))
    for mutant in chosen:
        if results.get(mutant.name) == "missed":
            why = f" (equivalent: {mutant.equivalent})" if mutant.equivalent else ""
            lines.append(f"missed: {mutant.name}{why}")
        elif mutant.name not in results:
            lines.append(f"not judged: {mutant.name} (its job ended early: see the error above)")
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
    parser.add_argument(
        "--traces",
        type=Path,
        metavar="DIR",
        help="keep each area's trace in DIR and use the one found there (made from the same tree and --marks)",
    )
    parser.add_argument(
        "--whole-area",
        action="store_true",
        help="run every test of the area for each mutant (default: only the tests that execute its lines)",
    )
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
    traces = None if args.whole_area or args.judge == "proofs" else _Traces(args.marks, args.traces)
    if traces is not None:
        traces.plan(chosen)
    threads = [
        threading.Thread(target=_worker, args=(jobs, source, args.judge, args.marks, traces, results, lock))
        for _ in range(min(args.jobs, len(chosen)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("\n".join(_summary(chosen, results)))
    return 1 if any(results.get(m.name, "missed") == "missed" and not m.equivalent for m in chosen) else 0


if __name__ == "__main__":
    raise SystemExit(main())
