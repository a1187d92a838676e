"""The ``conform`` subcommand: test another implementation against the vectors, through a line-delimited JSON protocol."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Mapping

from sysrs_ref.cli._progress import Progress
from sysrs_ref.conformance.cases import FAMILIES
from sysrs_ref.conformance.runner import STATUSES, CaseResult, run_cases
from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.conformance.vectors import default_vectors_dir, family_cases, load_vectors
from sysrs_ref.errors import SysrsError

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--family algorithms --case 'sysrs-*' -- node examples/conformance/sysrs.js"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``conform``."""
    sub.add_argument("--vectors", metavar="DIR", help="the vectors folder (default: this checkout's data/vectors)")
    sub.add_argument(
        "--family",
        action="append",
        metavar="NAME",
        choices=FAMILIES,
        help=f"only this family (repeatable): {', '.join(FAMILIES)}",
    )
    sub.add_argument(
        "--case", action="append", metavar="PATTERN", help="only cases whose id matches (glob, repeatable)"
    )
    sub.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds per case (default 10)")
    sub.add_argument(
        "--reference",
        action="store_true",
        help="test this package's own adapter (python -m sysrs_ref.conformance.adapter)",
    )
    sub.add_argument(
        "--quiet", action="store_true", help="no progress bar (it is drawn only when stderr is a terminal)"
    )
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_argument(
        "implementation",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the command that runs your implementation",
    )


def _selected(args: argparse.Namespace) -> list[tuple[str, Mapping[str, JsonValue]]]:
    families = args.family or list(FAMILIES)
    folder = args.vectors
    if folder is None and (default_vectors_dir() / "algorithms.json").is_file():
        folder = str(default_vectors_dir())
    if folder is not None:
        loaded = load_vectors(folder, families)
    else:  # an installed package without the repository's data/: the same vectors, made now
        loaded = {family: family_cases(family) for family in families}
    chosen: list[tuple[str, Mapping[str, JsonValue]]] = [
        (family, case)
        for family in families
        for case in loaded[family]
        if not args.case or any(fnmatch.fnmatchcase(str(case.get("id")), pattern) for pattern in args.case)
    ]
    if not chosen:
        raise SysrsError(f"no case matches --family {families} --case {args.case}: nothing to run")
    return chosen


def run(args: argparse.Namespace) -> int:
    """Run the selected vectors through an implementation; 0 when every case passes, 1 otherwise."""
    command = list(args.implementation)
    if command and command[0] == "--":
        command = command[1:]
    if args.reference == bool(command):
        raise SysrsError("give either --reference or the command of your implementation after --, not both or neither")
    if args.reference:
        command = [sys.executable, "-m", "sysrs_ref.conformance.adapter"]
    if not args.timeout > 0:
        raise SysrsError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    cases = _selected(args)
    with Progress(len(cases), "cases", enabled=False if args.quiet else None) as bar:
        bar.update(0)
        results = run_cases(command, cases, timeout=args.timeout, progress=bar.update)
    passed = all(result.status == "pass" for result in results)
    if args.json:
        print(json.dumps(_summary(command, results)))
    else:
        print(_report(command, results))
    return 0 if passed else 1


def _counts(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for result in results:
        family = out.setdefault(result.family, dict.fromkeys(STATUSES, 0))
        family[result.status] += 1
    return out


def _summary(command: list[str], results: list[CaseResult]) -> dict[str, JsonValue]:
    return {
        "command": list(command),
        "cases": len(results),
        "passed": sum(r.status == "pass" for r in results),
        "failed": sum(r.status != "pass" for r in results),
        "families": {family: dict(counts) for family, counts in _counts(results).items()},
        "failures": [
            {"family": r.family, "id": r.id, "status": r.status, "message": r.message}
            for r in results
            if r.status != "pass"
        ],
    }


def _report(command: list[str], results: list[CaseResult]) -> str:
    lines = [f"conformance of: {' '.join(command)}"]
    for family, counts in _counts(results).items():
        others = ", ".join(f"{counts[s]} {s}" for s in STATUSES[1:] if counts[s])
        lines.append(
            f"  {family:<11} {counts['pass']:>4}/{sum(counts.values())} passed" + (f" ({others})" if others else "")
        )
    failures = [r for r in results if r.status != "pass"]
    shown = failures[:40]
    for result in shown:
        lines.append(f"  {result.status.upper():<11} {result.family}/{result.id}: {result.message}")
    if len(failures) > len(shown):
        lines.append(f"  ... and {len(failures) - len(shown)} more (--json lists them all)")
    passed = len(results) - len(failures)
    lines.append(f"{passed}/{len(results)} cases passed" + ("" if failures else ": conforms"))
    return "\n".join(lines)
