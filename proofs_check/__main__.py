"""Command line: ``python -m proofs_check [--json] [--list] [--claim ID] [--max-k K] [--contracts K,L] [--ucb-contracts K,L] [--exact K,L] [--decisions K,L] [--decision-cells B,T] [--jobs J]``.

The claims are independent: with ``--jobs J`` (default 2) they run in J
worker processes, the longest first, and are reported in registry order,
exactly as a sequential run reports them (docs/theory.md).

Exit status: 0 when every claim run has its expected status, 1 otherwise,
2 on a usage error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import NoReturn

from proofs_check.registry import DEFAULT_MAX_K, Claim, Outcome, all_claims, claim_by_id

__all__ = ["Result", "main", "render_table"]

EXAMPLES = """examples:
  python -m proofs_check                       # run every claim, print the table
  python -m proofs_check --json                # one JSON object {"claims": [...]}
  python -m proofs_check --claim lb-constant-11
  python -m proofs_check --claim code-schedule-capped --max-k 400   # the schedule proofs for K <= 400
  python -m proofs_check --claim code-contracts-symbolic --contracts 4,5   # symbolic contracts, K <= 4, L <= 5
  python -m proofs_check --claim code-ucb-contracts-symbolic --ucb-contracts 3,3   # UCB-E's, K <= 3, L <= 3
  python -m proofs_check --claim code-exact-engines --exact 3,3   # exact engines vs brute force, K <= 3, L <= 3
  python -m proofs_check --claim code-decisions-sar --decisions 3,3 --decision-cells 10,6   # deeper decisions
  python -m proofs_check --jobs 1                # one process
  python -m proofs_check --list"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(
        prog="python -m proofs_check",
        description=(
            "Check every algebraic step of the SySRs paper with sympy, and the code's invariants with z3 "
            "and bounded exhaustive runs."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--claim", metavar="ID", help="run only the claim ID")
    parser.add_argument(
        "--max-k",
        metavar="K",
        type=_max_k,
        default=DEFAULT_MAX_K,
        help=f"prove the schedule and budget claims for every K from 2 to K (default {DEFAULT_MAX_K})",
    )
    parser.add_argument(
        "--contracts",
        metavar="K,L",
        type=_contracts,
        default=None,
        help="explore the symbolic contracts for every K' <= K and L' <= L (default: K = 2 with L <= 5, K = 3 with "
        "L <= 3)",
    )
    parser.add_argument(
        "--ucb-contracts",
        metavar="K,L",
        type=_contracts,
        default=None,
        help="explore UCB-E's and SyUCB-E's symbolic contracts for every K' <= K and L' <= L (default: K = 2 with "
        "L <= 3, K = 3 with L <= 2)",
    )
    parser.add_argument(
        "--exact",
        metavar="K,L",
        type=_contracts,
        default=None,
        help="check the exact engines against brute force on every K' <= K and L' <= L (default: K = 2 with L <= 3 "
        "and K = 3 with L <= 2)",
    )
    parser.add_argument(
        "--decisions",
        metavar="K,L",
        type=_contracts,
        default=None,
        help="explore the decision claims' symbolic domain for every K' <= K and L' <= L (default: K = 2 with L <= 4, "
        "K = 3 with L <= 2; UCB-E's K = 2 with L <= 3)",
    )
    parser.add_argument(
        "--decision-cells",
        metavar="B,T",
        type=_contracts,
        default=None,
        help="run the decision claims on every score matrix with K L <= B cells in {0, 1} and K L <= T in "
        "{0, 1/2, 1}, K <= 6 (default: each claim's own, about 8 and 5)",
    )
    parser.add_argument(
        "--jobs",
        metavar="J",
        type=_jobs,
        default=DEFAULT_JOBS,
        help=f"run the claims in J worker processes (default {DEFAULT_JOBS}; 1: in this process)",
    )
    return parser


#: Worker processes of a run (this machine has 2 cores; the claims are independent).
DEFAULT_JOBS = 2


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs needs an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--jobs needs an integer >= 1, got {value}")
    return value


def _contracts(text: str) -> tuple[int, int]:
    try:
        k_text, l_text = text.split(",")
        value = (int(k_text), int(l_text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--contracts needs K,L (two integers, K >= 2, L >= 1), got {text!r}"
        ) from None
    if value[0] < 2 or value[1] < 1:
        raise argparse.ArgumentTypeError(f"--contracts needs K >= 2 and L >= 1, got {text!r}")
    return value


def _max_k(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--max-k needs an integer >= 2, got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"--max-k needs an integer >= 2, got {value}")
    return value


Result = tuple[Claim, Outcome, float]
"""A claim, its outcome and the seconds it took."""


def _record(claim: Claim, outcome: Outcome, seconds: float) -> dict[str, object]:
    return {
        "id": claim.id,
        "paper_ref": claim.paper_ref,
        "statement": claim.statement,
        "status": outcome.status.value,
        "detail": outcome.detail,
        "method": outcome.method.value,
        "methods": list(outcome.all_methods),
        "domain": outcome.domain or "the paper's (see the statement)",
        "seconds": round(seconds, 3),
        "expected": claim.expected.value,
        "as_expected": outcome.status == claim.expected,
        "conditions": list(outcome.conditions),
        "counterexample": outcome.counterexample,
    }


def _aligned(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], free_last: bool = False) -> list[str]:
    """Rows as columns padded to their widest cell (the last one left unpadded when *free_last*)."""
    count = len(header) - (1 if free_last else 0)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(count)]
    lines = []
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)] + list(row[count:])
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join(["-" * width for width in widths] + (["-" * 6] if free_last else [])).rstrip())
    return lines


def render_table(results: Sequence[Result]) -> str:
    """The readable report: the paper's claims, the code's claims (with domains), then every claim not 'holds'."""
    paper = [(c, o, t) for c, o, t in results if not o.methods]
    code = [(c, o, t) for c, o, t in results if o.methods]
    lines: list[str] = []
    if paper:
        lines += _aligned(
            ("claim", "method", "status", "expected", "time", ""),
            [
                (
                    c.id,
                    o.method.value,
                    o.status.value,
                    c.expected.value,
                    f"{t:.1f}s".rjust(6),
                    "ok" if o.status == c.expected else "UNEXPECTED",
                )
                for c, o, t in paper
            ],
        )
    if code:
        if lines:
            lines.append("")
        lines.append("Claims about the code:")
        lines += _aligned(
            ("claim", "method", "status", "", "time", "domain"),
            [
                (
                    c.id,
                    "+".join(o.all_methods),
                    o.status.value,
                    "ok" if o.status == c.expected else "UNEXPECTED",
                    f"{t:.1f}s".rjust(6),
                    o.domain,
                )
                for c, o, t in code
            ],
            free_last=True,
        )
    notes = [(c, o) for c, o, _ in results if o.status.value != "holds" or o.status != c.expected]
    if notes:
        lines.append("")
        lines.append("Claims that fail or need conditions:")
        for claim, outcome in notes:
            lines.append(f"- {claim.id} ({claim.paper_ref}): {outcome.status.value}")
            lines.append(f"    statement: {claim.statement}")
            for condition in outcome.conditions:
                lines.append(f"    condition: {condition}")
            lines.append(f"    {outcome.detail}")
    good = sum(o.status == c.expected for c, o, _ in results)
    counts = {
        name: sum(name in o.all_methods for _, o, _ in results)
        for name in ("sympy", "smt", "symbolic", "bounded-exhaustive", "model-checked-against-code")
    }
    lines.append("")
    lines.append(
        f"{good}/{len(results)} claims have their expected status "
        f"({sum(o.method.value == 'proved' for _, o, _ in results)} proved and "
        f"{sum(o.method.value == 'checked' for _, o, _ in results)} checked with sympy, "
        f"{counts['smt']} smt, {counts['symbolic']} symbolic, {counts['bounded-exhaustive']} bounded-exhaustive, "
        f"{counts['model-checked-against-code']} model-checked-against-code; "
        f"{sum(t for _, _, t in results):.1f} s)."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.claim is not None:
            claim = claim_by_id(
                args.claim,
                args.max_k,
                args.contracts,
                args.ucb_contracts,
                args.exact,
                args.decisions,
                args.decision_cells,
            )
            if claim is None:
                raise _UsageError(f"unknown claim {args.claim!r}; see --list for the claim ids")
            claims: tuple[Claim, ...] = (claim,)
        else:
            claims = all_claims(
                args.max_k, args.contracts, args.ucb_contracts, args.exact, args.decisions, args.decision_cells
            )
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except _UsageError as error:
        print(f"python -m proofs_check: error: {error}", file=sys.stderr)
        return 2
    if args.list:
        for claim in claims:
            print(f"{claim.id}\t{claim.paper_ref}\t{claim.statement}")
        return 0
    results = _run(claims, args.jobs)
    if args.json:
        print(json.dumps({"claims": [_record(c, o, t) for c, o, t in results]}))
    else:
        print(render_table(results))
    return 0 if all(o.status == c.expected for c, o, _ in results) else 1


def _timed(claim: Claim) -> Result:
    started = time.perf_counter()
    outcome = claim.run()
    return claim, outcome, time.perf_counter() - started


_CLAIMS: tuple[Claim, ...] = ()
"""The claims of a parallel run, inherited by the forked workers (a claim's check is a closure: not picklable)."""


def _run_forked(indices: tuple[int, ...]) -> list[tuple[Outcome, float]]:
    return [_timed(_CLAIMS[index])[1:] for index in indices]


def _tasks(claims: tuple[Claim, ...]) -> list[tuple[int, ...]]:
    """The claims' indices in tasks: one per group (in registry order) or ungrouped claim, heaviest first."""
    groups: dict[str, list[int]] = {}
    for index, claim in enumerate(claims):
        groups.setdefault(claim.group or f"#{index}", []).append(index)
    return sorted((tuple(indices) for indices in groups.values()), key=lambda t: -sum(claims[i].weight for i in t))


def _run(claims: tuple[Claim, ...], jobs: int) -> list[Result]:
    """Every claim run, reported in registry order: in *jobs* forked workers, the heaviest tasks started first."""
    global _CLAIMS
    if jobs <= 1 or len(claims) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [_timed(claim) for claim in claims]
    _CLAIMS = claims
    done: dict[int, tuple[Outcome, float]] = {}
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            tasks = _tasks(claims)
            for indices, outcomes in zip(tasks, pool.map(_run_forked, tasks), strict=True):
                done.update(zip(indices, outcomes, strict=True))
    finally:
        _CLAIMS = ()
    return [(claims[index], *done[index]) for index in range(len(claims))]


if __name__ == "__main__":
    sys.exit(main())
