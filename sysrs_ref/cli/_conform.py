"""The ``conform`` subcommand: test another implementation against the vectors, through a line-delimited JSON protocol."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import threading
from collections.abc import Mapping

from sysrs_ref.cli._progress import Progress
from sysrs_ref.conformance.cases import FAMILIES
from sysrs_ref.conformance.runner import STATUSES, CaseResult, run_cases
from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.conformance.vectors import TAGS, default_vectors_dir, family_cases, load_tag_rules, load_vectors
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
    sub.add_argument(
        "--exclude", action="append", metavar="PATTERN", help="leave out cases whose id matches (glob, repeatable)"
    )
    sub.add_argument(
        "--tag", action="append", metavar="TAG", help="only cases carrying this tag, e.g. ties (repeatable)"
    )
    sub.add_argument(
        "--max-failures",
        type=int,
        default=10,
        metavar="N",
        help="failures shown per family (default 10; the rest are counted, --json lists them all)",
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


def _matches(case_id: str, patterns: list[str] | None) -> bool:
    return any(fnmatch.fnmatchcase(case_id, pattern) for pattern in patterns or [])


def _tags_of(case: Mapping[str, JsonValue]) -> list[str]:
    tags = case.get("tags")
    return [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []


def _selected(args: argparse.Namespace) -> tuple[list[tuple[str, Mapping[str, JsonValue]]], dict[str, dict[str, str]]]:
    """The (family, case) pairs chosen by the options, and the rule of each tag by family."""
    families = list(dict.fromkeys(args.family or FAMILIES))  # each family once, however often it is named
    folder = args.vectors
    if folder is None and (default_vectors_dir() / "algorithms.json").is_file():
        folder = str(default_vectors_dir())
    if folder is not None:
        loaded = load_vectors(folder, families)
        rules = {family: load_tag_rules(folder, [family]) for family in families}
    else:  # an installed package without the repository's data/: the same vectors, made now
        loaded = {family: family_cases(family) for family in families}
        rules = {family: dict(TAGS) for family in families}
    if args.tag:
        known = {tag for family in families for tag in rules[family]}
        known |= {tag for family in families for case in loaded[family] for tag in _tags_of(case)}
        unknown = [tag for tag in args.tag if tag not in known]
        if unknown:
            raise SysrsError(f"no tag {unknown[0]!r} in these vectors; the tags are: {', '.join(sorted(known))}")
    chosen: list[tuple[str, Mapping[str, JsonValue]]] = [
        (family, case)
        for family in families
        for case in loaded[family]
        if (not args.case or _matches(str(case.get("id")), args.case))
        and not _matches(str(case.get("id")), args.exclude)
        and (not args.tag or any(tag in args.tag for tag in _tags_of(case)))
    ]
    if not chosen:
        asked = f"--family {families} --case {args.case}"
        asked += f" --exclude {args.exclude}" if args.exclude else ""
        asked += f" --tag {args.tag}" if args.tag else ""
        raise SysrsError(f"no case matches {asked}: nothing to run")
    return chosen, rules


def run(args: argparse.Namespace) -> int:
    """Run the selected vectors through an implementation; 0 when every case passes, 1 otherwise."""
    command = list(args.implementation)
    if command and command[0] == "--":
        command = command[1:]
    if args.reference == bool(command):
        raise SysrsError("give either --reference or the command of your implementation after --, not both or neither")
    if args.reference:
        command = [sys.executable, "-m", "sysrs_ref.conformance.adapter"]
    if not 0 < args.timeout <= threading.TIMEOUT_MAX:  # a longer wait overflows the clock of every thread wait
        raise SysrsError(
            f"--timeout must be a positive number of seconds, at most {threading.TIMEOUT_MAX:.0f}, got {args.timeout}"
        )
    if args.max_failures < 0:
        raise SysrsError(f"--max-failures must be 0 or more, got {args.max_failures}")
    cases, rules = _selected(args)
    with Progress(len(cases), "cases", enabled=False if args.quiet else None) as bar:
        bar.update(0)
        results = run_cases(command, cases, timeout=args.timeout, progress=bar.update)
    passed = all(result.status == "pass" for result in results)
    if args.json:
        print(json.dumps(_summary(command, results)))
    else:
        print(_report(command, results, rules, args.max_failures))
    return 0 if passed else 1


def _counts(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for result in results:
        family = out.setdefault(result.family, dict.fromkeys(STATUSES, 0))
        family[result.status] += 1
    return out


def _tag_counts(results: list[CaseResult]) -> dict[str, dict[str, dict[str, int]]]:
    """family -> tag -> {"passed", "cases"}, tags in order of first appearance."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for result in results:
        family = out.setdefault(result.family, {})
        for tag in result.tags:
            counts = family.setdefault(tag, {"passed": 0, "cases": 0})
            counts["cases"] += 1
            counts["passed"] += result.status == "pass"
    return out


def _summary(command: list[str], results: list[CaseResult]) -> dict[str, JsonValue]:
    return {
        "command": list(command),
        "cases": len(results),
        "passed": sum(r.status == "pass" for r in results),
        "failed": sum(r.status != "pass" for r in results),
        "families": {family: dict(counts) for family, counts in _counts(results).items()},
        "tags": {
            family: {tag: dict(counts) for tag, counts in tags.items()} for family, tags in _tag_counts(results).items()
        },
        "failures": [
            {
                "family": r.family,
                "id": r.id,
                "status": r.status,
                "message": r.message,
                "note": r.note,
                "tags": list(r.tags),
            }
            for r in results
            if r.status != "pass"
        ],
    }


_INDENT = " " * 14  # under the family/id of a failure line


def _failure_lines(result: CaseResult, rules: Mapping[str, str]) -> list[str]:
    """A failure: its line, then why the case exists and the rule behind each of its tags."""
    lines = [f"  {result.status.upper():<11} {result.family}/{result.id}: {result.message}"]
    if result.note:
        lines.append(f"{_INDENT}why: {result.note}")
    for tag in result.tags:
        lines.append(f"{_INDENT}rule ({tag}): {rules.get(tag, 'not stated in the vectors')}")
    return lines


def _tag_table(results: list[CaseResult]) -> list[str]:
    """The passed and total cases of each family/tag (nothing when no case has a tag)."""
    rows = [
        (f"{family}/{tag}", counts["passed"], counts["cases"])
        for family, tags in _tag_counts(results).items()
        for tag, counts in tags.items()
    ]
    if not rows:
        return []
    width = max(len("family/tag"), *(len(label) for label, _, _ in rows))
    lines = [f"  {'family/tag':<{width}}  passed  cases"]
    lines.extend(f"  {label:<{width}}  {passed:>6}  {cases:>5}" for label, passed, cases in rows)
    return lines


def _report(
    command: list[str], results: list[CaseResult], rules: Mapping[str, Mapping[str, str]], max_failures: int
) -> str:
    lines = [f"conformance of: {' '.join(command)}"]
    counts_by_family = _counts(results)
    for family, counts in counts_by_family.items():
        others = ", ".join(f"{counts[s]} {s}" for s in STATUSES[1:] if counts[s])
        lines.append(
            f"  {family:<11} {counts['pass']:>4}/{sum(counts.values())} passed" + (f" ({others})" if others else "")
        )
    failures = [r for r in results if r.status != "pass"]
    for family in counts_by_family:
        mine = [r for r in failures if r.family == family]
        for result in mine[:max_failures]:
            lines.extend(_failure_lines(result, rules.get(family, {})))
        if len(mine) > max_failures:
            lines.append(f"  ... and {len(mine) - max_failures} more in {family} (--json lists them all)")
    lines.extend(_tag_table(results))
    passed = len(results) - len(failures)
    lines.append(f"{passed}/{len(results)} cases passed" + ("" if failures else ": conforms"))
    return "\n".join(lines)
