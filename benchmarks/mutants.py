"""A curated mutation check: realistic one-line bugs, each written into a copy of the tree, and the tests run on it.

Run: .venv/bin/python -m benchmarks.mutants [--only NAME ...] [--root TREE] [--list]

Each :class:`Mutant` is a (file, old text, new text, tests) record: the
runner copies the tree (``sysrs_ref``, ``tests``, ``data``, ``pyproject.toml``;
*--root* another checkout, e.g. an older one to compare), replaces the old
text once in the copy (it must occur exactly once), rebuilds the compiled
library when a C source changed, and runs pytest on the mutant's tests in
the copy. A mutant is *killed* when the tests fail (or time out), *missed*
when they pass, *n/a* when its old text is not in that tree. Test files the
tree lacks are left out, so an older tree is measured with its own tests.
The score is killed / (killed + missed). Not part of the default test run:
it takes several minutes (docs/benchmarks.md, "Mutation check").

The mutants cover the reference (bounds, the stochastic exact law), the
schedule, the loaders, the cache and live sessions: each changes what a
user sees, except those marked ``equivalent`` (with the reason), which are
kept to show that the check does not count them.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
_COPIED = ("sysrs_ref", "tests", "data", "pyproject.toml")
_TIMEOUT = 900


class Mutant(NamedTuple):
    """One bug: in *file*, *old* becomes *new*; *tests* (paths or node ids) should fail."""

    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    equivalent: str = ""
    """Why the mutant cannot change any outcome, when it cannot (it is then expected to be missed)."""


# the quick files first: pytest stops at the first failure (-x)
_BOUNDS = ("tests/reference/test_guarded_conditions.py", "tests/reference/test_theory_lemmas.py")
# each area's bugs die in its own folder: a contributor who runs tests/live or tests/experiments catches them
_LIVE = ("tests/live/test_live_replay.py", "tests/live/test_live_session.py", "tests/live/test_live_crash.py")
_CACHE = (
    "tests/experiments/test_cache_entries.py",
    "tests/experiments/test_experiments.py",
    "tests/experiments/test_checkpoints.py",
)
_READERS = ("tests/core/test_bounded_inputs.py", "tests/conformance/test_vectors_files.py")
_SIZES = ("tests/core/test_bounded_inputs.py",)
_SCHEDULE = (
    "tests/reference/test_guarded_conditions.py",
    "tests/core/test_schedule.py",
    "tests/core/test_schedule_coverage.py",
)
_ARRAYS = ("tests/io/test_input_limits.py", "tests/cli/test_hostile_input.py")
_INSPECT = ("tests/reference/test_guarded_conditions.py", "tests/io/test_loaders_inspect.py")

MUTANTS: tuple[Mutant, ...] = (
    # -- found by review: the suite used to miss each of these
    Mutant(
        "paired-bound-n-check",
        "sysrs_ref/theory/bounds.py",
        '    if not 1 <= n <= population:\n        raise BoundConditionError(f"the lemma needs 1 <= n <= N, got n = {n}, '
        'N = {population}")\n    if sigma2 < 0:',
        "    if sigma2 < 0:",
        _BOUNDS,
    ),
    Mutant(
        "wor-bound-variance-check",
        "sysrs_ref/theory/bounds.py",
        "if bound_m <= 0 or not 0 <= sigma2 <= bound_m**2:",
        "if bound_m <= 0 or not 0 <= sigma2:",
        _BOUNDS,
    ),
    Mutant("live-stray-scores", "sysrs_ref/live/session.py", "        if stray:\n", "        if stray[:0]:\n", _LIVE),
    Mutant("live-score-above-one", "sysrs_ref/live/session.py", "if not 0 <= score <= 1:", "if not 0 <= score:", _LIVE),
    Mutant(
        "live-open-logs-batches",
        "sysrs_ref/live/session.py",
        "            session._log_new_batches()  # a crash may have come",
        "            pass  # a crash may have come",
        _LIVE,
    ),
    Mutant(
        "compiled-cut-lower-gap",
        "sysrs_ref/fast/_csrc/cut.inc",
        "nearest[2 * cut] > value + gap && nearest[2 * cut + 1] < value - gap",
        "nearest[2 * cut] > value + gap",
        (
            "tests/fast/test_fast_ucb.py::test_float_keys_in_the_opposite_order_to_the_exact_ones",
            "tests/fast/test_fast_ucb.py::test_fast_equals_reference",
        ),
    ),
    Mutant(
        "sysar-reject-tie-first",
        "sysrs_ref/theory/exact_stochastic.py",
        "(split_first if accept else split_last)",
        "(split_first if accept else split_first)",
        ("tests/reference/test_guarded_conditions.py", "tests/reference/test_stochastic_exact.py"),
    ),
    Mutant(
        "inspect-first-scored-epoch",
        "sysrs_ref/loaders/_inspect_epochs.py",
        "first = sample.epochs.get(1)",
        "first = epochs[0]",
        _INSPECT,
        equivalent="with --epochs first the reader keeps epoch 1 alone (_inspect_reading._samples skips every other "
        "epoch, and an .eval's later epoch files are not even opened), so a sample's only scored epoch is epoch 1",
    ),
    Mutant(
        "cache-top-m-targets",
        "sysrs_ref/experiments/_cache.py",
        "if [item[0] for item in items] != list(targets):",
        "if len(items) != len(targets):",
        _CACHE,
    ),
    # -- written for this check
    Mutant(
        "cache-checksum-without-top-m",
        "sysrs_ref/experiments/_entry.py",
        'if name != "checksum"}',
        'if name not in ("checksum", "top_m")}',
        _CACHE,
    ),
    Mutant(
        "cache-checksum-ignored",
        "sysrs_ref/experiments/_entry.py",
        'if entry["checksum"] != entry_checksum(entry):',
        'if not entry["checksum"]:',
        _CACHE,
    ),
    Mutant(  # the cache's and the checkpoints' stale rule: entries live under the dataset's name, not its hash
        "cache-stale-dataset",
        "sysrs_ref/experiments/_entry.py",
        'STALE_FIELDS = frozenset({"format", "version", "sha256"})',
        'STALE_FIELDS = frozenset({"format", "version"})',
        _CACHE,
    ),
    Mutant(
        "cache-count-true-is-one",
        "sysrs_ref/experiments/_entry.py",
        "    if type(value) is not int:\n",
        "    if not isinstance(value, int):\n",
        _CACHE,
    ),
    Mutant(
        "checkpoint-count-true-is-one",
        "sysrs_ref/experiments/_checkpoint.py",
        "not all(type(item) is int for item in items)",
        "not all(isinstance(item, int) for item in items)",
        _CACHE,
    ),
    Mutant(
        "top-m-target-true-is-one",
        "sysrs_ref/experiments/_entry.py",
        "len(item) == 4 and type(item[0]) is int",
        "len(item) == 4",
        _CACHE,
    ),
    Mutant(
        "cache-count-upper-bound",
        "sysrs_ref/experiments/_entry.py",
        "if value < least or (most is not None and value > most):",
        "if value < least:",
        _CACHE,
    ),
    Mutant(
        "schedule-no-cap",
        "sysrs_ref/schedule.py",
        "return tuple(min(n_queries, -(-level // (n_models + 1 - k))) for k in range(1, n_models))",
        "return tuple(-(-level // (n_models + 1 - k)) for k in range(1, n_models))",
        _SCHEDULE,
    ),
    Mutant(
        "schedule-spend-last-once",
        "sysrs_ref/schedule.py",
        "return sum(lengths) + lengths[-1]",
        "return sum(lengths)",
        _SCHEDULE,
    ),
    Mutant(
        "schedule-full-budget-uncapped",
        "sysrs_ref/schedule.py",
        "if lengths[-1] > n_queries or budget == n_models * n_queries:",
        "if lengths[-1] > n_queries:",
        _SCHEDULE,
    ),
    Mutant(
        "budget-above-full",
        "sysrs_ref/schedule.py",
        "    if budget > full:",
        "    if budget > full + 1:",
        _SCHEDULE,
    ),
    Mutant(
        "npy-header-offset",
        "sysrs_ref/loaders/arrays.py",
        "if declared > available - stream.tell():",
        "if declared > available:",
        _ARRAYS,
    ),
    Mutant(
        "npy-object-dtype",
        "sysrs_ref/loaders/arrays.py",
        "    if dtype.hasobject:\n        raise InstanceError(_pickle_message(where))",
        "    if dtype.hasobject and False:\n        raise InstanceError(_pickle_message(where))",
        _ARRAYS,
        equivalent="read_array(allow_pickle=False) refuses the same arrays, and _read_array turns its ValueError "
        "into the same message; the header check only refuses earlier",
    ),
    Mutant(
        "npz-stored-bound",
        "sysrs_ref/loaders/arrays.py",
        "return min(info.file_size, compressed)",
        "return info.file_size",
        _ARRAYS,
    ),
    Mutant(
        "live-second-score",
        "sysrs_ref/live/session.py",
        "if self._scores.setdefault(pair, score) != score:",
        "if self._scores.setdefault(pair, score) is None:",
        _LIVE,
    ),
    Mutant(
        "h3-zero-gap",
        "sysrs_ref/theory/bounds.py",
        '    if delta <= 0:\n        raise BoundConditionError(f"H3(Delta, V) needs Delta > 0',
        '    if delta < 0:\n        raise BoundConditionError(f"H3(Delta, V) needs Delta > 0',
        _BOUNDS,
    ),
    Mutant(
        "lower-bound-half",
        "sysrs_ref/theory/bounds.py",
        "if not 0 < delta < Fraction(1, 2):",
        "if not 0 < delta <= Fraction(1, 2):",
        _BOUNDS,
    ),
    Mutant(
        "sidecar-size",
        "sysrs_ref/loaders/files.py",
        "    if size > MAX_SIDECAR_BYTES:",
        "    if size > 2 * MAX_SIDECAR_BYTES:",
        ("tests/io/test_names.py", "tests/cli/test_hostile_input.py"),
    ),
    Mutant(
        "inspect-first-unscored-count",
        "sysrs_ref/loaders/_inspect_epochs.py",
        "                unscored_first += 1\n",
        "                pass\n",
        _INSPECT,
        equivalent="unreachable through the reader: with --epochs first a sample holds epoch 1 alone, and a sample "
        "with no scored epoch 1 has no epochs at all, so it is a missing cell before this branch",
    ),
    # -- the one rule for readers (sysrs_ref/_files.py) and the one place for sizes (sysrs_ref/_limits.py)
    Mutant(
        "reader-any-file-kind",
        "sysrs_ref/_files.py",
        "        if not stat.S_ISREG(info.st_mode):",
        "        if stat.S_ISDIR(info.st_mode):",
        _READERS,
    ),
    Mutant(
        "reader-blocks-on-fifo",
        "sysrs_ref/_files.py",
        "os.O_RDONLY | os.O_NONBLOCK |",
        "os.O_RDONLY |",
        _READERS,
    ),
    Mutant(
        "reader-size-from-stat-only",
        "sysrs_ref/_files.py",
        "    if len(data) > limit:  # the file grew after fstat",
        "    if len(data) > limit + 1:  # the file grew after fstat",
        _READERS,
    ),
    Mutant(
        "reader-stat-size-ignored",
        "sysrs_ref/_files.py",
        "        if limit is not None and info.st_size > limit:",
        "        if limit is not None and info.st_size > limit + 1:",
        _READERS,
    ),
    Mutant(
        "json-depth-one-more",
        "sysrs_ref/_files.py",
        "    if depth > MAX_JSON_DEPTH:",
        "    if depth > MAX_JSON_DEPTH + 1:",
        _READERS,
    ),
    Mutant(
        "json-depth-counts-strings",
        "sysrs_ref/_files.py",
        "    outside = (np.cumsum(quotes, dtype=np.int64) & 1) == 0",
        "    outside = np.ones_like(quotes)",
        _READERS,
    ),
    Mutant(
        "json-depth-escaped-quote",
        "sysrs_ref/_files.py",
        """.replace(b'\\\\"', b"")""",
        "",
        _READERS,
    ),
    Mutant(
        "json-depth-shortcut-too-wide",
        "sysrs_ref/_files.py",
        'if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH else 0',
        'if data.count(b"[") + data.count(b"{") > 2 * MAX_JSON_DEPTH else 0',
        _READERS,
    ),
    Mutant(
        "vectors-version-true",
        "sysrs_ref/conformance/vectors.py",
        "    if type(version) is not int or version not in _READ_VERSIONS:",
        "    if version not in _READ_VERSIONS:",
        _READERS,
    ),
    Mutant(
        "limits-memory-doubled",
        "sysrs_ref/_limits.py",
        "    if need.memory > room:",
        "    if need.memory > 2 * room:",
        _SIZES,
    ),
    Mutant(
        "limits-time-doubled",
        "sysrs_ref/_limits.py",
        "    if need.seconds > limit:",
        "    if need.seconds > 2 * limit:",
        _SIZES,
    ),
    Mutant(
        "limits-fast-path-either",
        "sysrs_ref/_limits.py",
        "if need.memory <= _ALWAYS_BYTES and need.seconds <= _ALWAYS_SECONDS:",
        "if need.memory <= _ALWAYS_BYTES or need.seconds <= _ALWAYS_SECONDS:",
        _SIZES,
    ),
    Mutant(
        "limits-zero-is-zero",
        "sysrs_ref/_limits.py",
        '    return float("inf") if value == 0 else value',
        "    return value",
        _SIZES,
    ),
    Mutant(
        "limits-workers-doubled",
        "sysrs_ref/_limits.py",
        "    if count > MAX_WORKERS:",
        "    if count > 2 * MAX_WORKERS:",
        _SIZES,
    ),
    Mutant(
        "simulate-elimination-unchecked",
        "sysrs_ref/simulation/_engine.py",
        "        check_need(elimination_need(",
        "        (elimination_need(",
        _SIZES,
    ),
    Mutant(
        "subset-anchor-linear",
        "sysrs_ref/subset/methods.py",
        "memory=3 * 8 * n_queries * n_queries,",
        "memory=3 * 8 * n_queries,",
        _SIZES,
    ),
)


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


def _run(mutant: Mutant, source: Path, work: Path) -> tuple[str, float]:
    """'killed', 'missed' or 'n/a', and the seconds the tests took."""
    target = work / mutant.file
    original = (source / mutant.file).read_text(encoding="utf-8")
    if original.count(mutant.old) != 1:
        return "n/a", 0.0
    tests = [test for test in mutant.tests if (work / test.split("::")[0]).exists()]
    if not tests:
        return "n/a", 0.0
    target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    began = time.perf_counter()
    try:
        if "_csrc" in mutant.file:
            _build(work)
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", *tests]
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutants; print one line each and the score."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to mutate (default: this checkout)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for mutant in chosen:
            print(f"{mutant.name:32} {mutant.file}{'  (equivalent)' if mutant.equivalent else ''}")
        return 0
    source = args.root.resolve()
    counts = {"killed": 0, "missed": 0, "n/a": 0}
    missed: list[Mutant] = []
    with tempfile.TemporaryDirectory(prefix="sysrs-mutants-") as folder:
        work = Path(folder)
        _copy(source, work)
        if not list((work / "sysrs_ref" / "fast").glob("_native_lib*")):  # an archive of the sources: built here
            _build(work)
        for mutant in chosen:
            status, seconds = _run(mutant, source, work)
            counts[status] += 1
            if status == "missed":
                missed.append(mutant)
            print(f"{status:7} {mutant.name:32} {seconds:6.1f} s  {mutant.file}", flush=True)
    judged = counts["killed"] + counts["missed"]
    real = [m for m in missed if not m.equivalent]
    print(
        f"killed {counts['killed']} of {judged} ({100 * counts['killed'] / max(judged, 1):.0f} %), n/a {counts['n/a']}"
    )
    for mutant in missed:
        print(f"missed: {mutant.name}" + (f" (equivalent: {mutant.equivalent})" if mutant.equivalent else ""))
    return 1 if real else 0


if __name__ == "__main__":
    raise SystemExit(main())
