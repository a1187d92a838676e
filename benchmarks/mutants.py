"""A curated mutation check: realistic one-line bugs, each written into a copy of the tree, and the tests run on it.

Run: .venv/bin/python -m benchmarks.mutants [--only NAME ...] [--root TREE] [--list] [--proofs [--claims-only]]

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

With ``--proofs`` the runner takes :data:`PROOF_MUTANTS` instead, copies
``proofs_check`` too, and runs ``python -m proofs_check`` (the default run)
on each mutant instead of pytest; a mutant's *tests* are then the claims
that should catch it, and ``--claims-only`` runs only those
(``--claim ID`` each, faster). Each line shows the counterexample printed.
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
_COPIED = ("sysrs_ref", "tests", "data", "pyproject.toml", "proofs_check")
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
_LIVE = (
    "tests/reference/test_guarded_conditions.py",
    "tests/live/test_live_session.py",
    "tests/live/test_live_crash.py",
)
_CACHE = ("tests/reference/test_guarded_conditions.py", "tests/experiments/test_experiments.py")
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
        "sysrs_ref/experiments/_cache.py",
        'if name != "checksum"}',
        'if name not in ("checksum", "top_m")}',
        _CACHE,
    ),
    Mutant(
        "cache-checksum-ignored",
        "sysrs_ref/experiments/_cache.py",
        'if entry["checksum"] != entry_checksum(entry):',
        'if not entry["checksum"]:',
        _CACHE,
    ),
    Mutant(
        "cache-stale-dataset",
        "sysrs_ref/experiments/_cache.py",
        '_STALE_FIELDS = frozenset({"format", "version", "sha256"})',
        '_STALE_FIELDS = frozenset({"format", "version"})',
        _CACHE,
        equivalent="a changed sha256 changes the key, hence the entry's path: an entry of another file is never "
        "found there, stale or not; the field only chooses the word of the warning, which no run shows",
    ),
    Mutant(
        "cache-count-upper-bound",
        "sysrs_ref/experiments/_cache.py",
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
)


#: Bugs python -m proofs_check must catch (``--proofs``): *tests* are the claims that should fail.
PROOF_MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "large-k-bounds-drop-half",
        "sysrs_ref/schedule.py",
        "low = sum(scale // i for i in range(2, n_models + 1)) + scale // 2",
        "low = sum(scale // i for i in range(2, n_models + 1))",
        ("code-schedule-paper",),
    ),
    Mutant(
        "large-k-no-exact-fallback",
        "sysrs_ref/schedule.py",
        "return first if first == last else _exact_level(n_models, spare)",
        "return first",
        ("code-schedule-paper",),
    ),
    Mutant(
        "budget-percent-leading-point",
        "sysrs_ref/schedule.py",
        r'_PERCENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")',
        r'_PERCENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?)")',
        ("code-budget-text",),
    ),
    Mutant(
        "budget-integer-digit-count",
        "sysrs_ref/schedule.py",
        "> len(str(full)):  # more digits",
        ">= len(str(full)):  # more digits",
        ("code-budget-text",),
    ),
    Mutant(
        "ucb-key-float-sign",
        "sysrs_ref/algorithms/ucb_index.py",
        "        if gap > self.tolerance:\n            return True\n        if gap < -self.tolerance:",
        "        if gap > 0.0:\n            return True\n        if gap < 0.0:",
        ("code-ucb-tolerance",),
    ),
    Mutant(
        "fast-sr-ignores-tolerance",
        "sysrs_ref/fast/_elimination.py",
        "near = sums <= (smallest + tolerance(n_k, sums.max(axis=1)))[:, None]",
        "near = sums <= smallest[:, None]",
        ("code-fast-certified",),
    ),
    Mutant(
        "compiled-sr-ignores-tolerance",
        "sysrs_ref/fast/_csrc/phases.c",
        "                        if (value <= threshold) {",
        "                        if (value <= smallest) {",
        ("code-fast-certified",),
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


def _commands(mutant: Mutant, work: Path, proofs: bool, claims_only: bool) -> list[list[str]]:
    """The commands that should fail on *mutant*: pytest on its tests, or proofs_check (its claims, or all)."""
    if not proofs:
        tests = [test for test in mutant.tests if (work / test.split("::")[0]).exists()]
        return (
            [[sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", *tests]]
            if tests
            else []
        )
    if claims_only:
        return [[sys.executable, "-m", "proofs_check", "--claim", claim] for claim in mutant.tests]
    return [[sys.executable, "-m", "proofs_check"]]


def _run(
    mutant: Mutant, source: Path, work: Path, proofs: bool = False, claims_only: bool = False
) -> tuple[str, float, str]:
    """'killed', 'missed' or 'n/a', the seconds the commands took, and the counterexample proofs_check printed."""
    target = work / mutant.file
    original = (source / mutant.file).read_text(encoding="utf-8")
    if original.count(mutant.old) != 1:
        return "n/a", 0.0, ""
    commands = _commands(mutant, work, proofs, claims_only)
    if not commands:
        return "n/a", 0.0, ""
    target.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    began = time.perf_counter()
    status, shown = "missed", ""
    try:
        if "_csrc" in mutant.file:
            _build(work)
        for command in commands:
            try:
                done = subprocess.run(command, cwd=work, capture_output=True, timeout=_TIMEOUT, check=False, text=True)
            except subprocess.TimeoutExpired:
                status = "killed"
                break
            if done.returncode != 0:
                status = "killed"
                found = [line.strip() for line in done.stdout.splitlines() if "Counterexample:" in line]
                shown = found[0][found[0].index("Counterexample:") :] if found else ""
                break
    finally:
        target.write_text(original, encoding="utf-8")
        if "_csrc" in mutant.file:
            _build(work)
    return status, time.perf_counter() - began, shown


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutants; print one line each and the score."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to mutate (default: this checkout)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument(
        "--proofs", action="store_true", help="the proofs_check mutants, judged by python -m proofs_check"
    )
    parser.add_argument("--claims-only", action="store_true", help="with --proofs: run only each mutant's claims")
    args = parser.parse_args(argv)
    catalog = PROOF_MUTANTS if args.proofs else MUTANTS
    chosen = [m for m in catalog if not args.only or m.name in args.only]
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
            status, seconds, shown = _run(mutant, source, work, args.proofs, args.claims_only)
            counts[status] += 1
            if status == "missed":
                missed.append(mutant)
            print(f"{status:7} {mutant.name:32} {seconds:6.1f} s  {mutant.file}", flush=True)
            if shown:
                print(f"        {shown[:300]}", flush=True)
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
