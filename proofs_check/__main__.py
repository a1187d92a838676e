"""Command line: ``python -m proofs_check [--json] [--list] [--claim ID] [--max-k K] [--contracts K,L] [--ucb-contracts K,L] [--exact K,L] [--decisions K,L] [--decision-cells B,T] [--fast-cells C,V] [--jobs J]``.

The claims are independent: with ``--jobs J`` (default 2) they run in J
worker processes, the longest first, and are reported in registry order,
exactly as a sequential run reports them (docs/theory.md). The workers are
the package's worker pool (:func:`sysrs_ref._children.process_pool`): they
end with this process however it ends (SIGKILL included), and Ctrl-C or
SIGTERM kills them at once.

Every size an option sets is bounded (:data:`LIMITS`, stated in ``--help``
with the time the bound implies): a larger value is refused before anything
runs.

Exit status: 0 when every claim run has its expected status, 1 otherwise,
2 on a usage error or output that cannot be written (one line on stderr,
no traceback), 130 after Ctrl-C, 143 after SIGTERM.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from proofs_check.claim import DEFAULT_MAX_K, Claim, Domains, Outcome
from proofs_check.registry import all_claims, claim_by_id
from sysrs_ref._children import process_pool, sigterm_interrupts
from sysrs_ref._streams import StdoutError, discard, guarded_streams

__all__ = ["LIMITS", "SIZE_OPTIONS", "Limit", "Result", "SizeOption", "main", "render_table"]

PROG = "python -m proofs_check"

EXAMPLES = """examples:
  python -m proofs_check                       # run every claim, print the table
  python -m proofs_check --json                # one JSON object {"claims": [...]}
  python -m proofs_check --claim lb-constant-11
  python -m proofs_check --claim code-schedule-capped --max-k 400   # the schedule proofs for K <= 400
  python -m proofs_check --claim code-contracts-symbolic --contracts 3,5   # symbolic contracts, K <= 3, L <= 5
  python -m proofs_check --claim code-ucb-contracts-symbolic --ucb-contracts 3,3   # UCB-E's, K <= 3, L <= 3
  python -m proofs_check --claim code-exact-engines --exact 3,3   # exact engines vs brute force, K <= 3, L <= 3
  python -m proofs_check --claim code-decisions-sar --decisions 3,3 --decision-cells 10,6   # deeper decisions
  python -m proofs_check --claim code-fast-certified --fast-cells 9,2   # fast passes on 3 x 3 matrices too
  python -m proofs_check --jobs 1                # one process
  python -m proofs_check --list"""

#: The exit status after Ctrl-C (128 + SIGINT) and after SIGTERM (128 + SIGTERM), the shells' convention.
INTERRUPTED, TERMINATED = 130, 143


class _UsageError(Exception):
    pass


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread: a KeyboardInterrupt, so that it stops whatever Ctrl-C stops."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


@dataclass(frozen=True)
class Limit:
    """The largest values a size option accepts, and what running at them costs."""

    most: tuple[tuple[int, ...], ...]
    """The bound: one or more largest values (one number, or one per component: K, L); a value is accepted when
    it is at most one of them in every component."""
    cost: str
    """What the bound implies, measured (CPU time on one core of a 2-core machine, the claims it widens)."""

    def shown(self) -> str:
        """The bound as the option is written (``400``, ``3,5 or 4,3``)."""
        return " or ".join(",".join(str(value) for value in most) for most in self.most)

    def allows(self, values: tuple[int, ...]) -> bool:
        """Whether *values* is within the bound.

        >>> Limit(((3, 5), (4, 3)), "").allows((4, 2)), Limit(((3, 5), (4, 3)), "").allows((4, 4))
        (True, False)
        """
        return any(all(value <= high for value, high in zip(values, most, strict=True)) for most in self.most)


@dataclass(frozen=True)
class SizeOption:
    """One option that sets a size: how it is written, what it sets, its help and its bound."""

    flag: str
    metavar: str
    least: tuple[int, ...]
    """The smallest value of each component."""
    field: str
    """The :class:`~proofs_check.claim.Domains` field it sets ("" for ``--jobs``)."""
    default: tuple[int, ...] | None
    """The value when the option is not given (None: each claim family's own default)."""
    help: str
    """What it does, and its default, without the bound (added from ``limit``)."""
    limit: Limit


#: Worker processes of a run (this machine has 2 cores; the claims are independent).
DEFAULT_JOBS = 2

#: What ``--fast-cells`` costs at its bounds (measured: CPU of code-fast-certified on one core of the 2-core machine).
FAST_CELLS_COST = (
    "code-fast-certified takes about 2.3 min of CPU at 9,2 (3 x 3, 2 x 4 and 4 x 2 over 2 levels: up to 1,296 draws "
    "a matrix for SR) and 1.7 min at 6,4, 22 s at the default"
)

#: Every option that sets a size, in one table: its parsing, the domain it sets, its help, and its largest accepted
#: values with what they cost (a larger value is refused in one line, status 2, before anything runs, and ``--help``
#: states the bound and its cost). An option that sets a size is one row here.
SIZE_OPTIONS: tuple[SizeOption, ...] = (
    SizeOption(
        "--max-k",
        "K",
        (2,),
        "max_k",
        (DEFAULT_MAX_K,),
        f"prove the schedule and budget claims for every K from 2 to K (default {DEFAULT_MAX_K})",
        Limit(((400,),), "about 2.5 min of CPU for the four schedule claims, 1 min at the default 200"),
    ),
    SizeOption(
        "--contracts",
        "K,L",
        (2, 1),
        "contracts",
        None,
        "explore the symbolic contracts for every K' <= K and L' <= L (default: K = 2 with L <= 5, K = 3 with L <= 3)",
        Limit(
            ((3, 5), (4, 3)),
            "code-contracts-symbolic takes about 45 s of CPU at 3,5 and 3.5 min at 4,3, 15 s at the default; "
            "4,4 runs past 13 min",
        ),
    ),
    SizeOption(
        "--ucb-contracts",
        "K,L",
        (2, 1),
        "ucb_contracts",
        None,
        "explore UCB-E's and SyUCB-E's symbolic contracts for every K' <= K and L' <= L (default: K = 2 with L <= 3, "
        "K = 3 with L <= 2)",
        Limit(((3, 3),), "about 7 min of CPU for code-ucb-contracts-symbolic, 6 s at the default"),
    ),
    SizeOption(
        "--exact",
        "K,L",
        (2, 1),
        "exact",
        None,
        "check the exact engines against brute force on every K' <= K and L' <= L (default: K = 2 with L <= 3 and "
        "K = 3 with L <= 2)",
        Limit(
            ((2, 4), (3, 2)),
            "code-exact-engines takes about 2.7 min of CPU at 2,4, 12 s at the default; 3,3 (1,296 draws a matrix "
            "for the unsynchronized algorithms) runs far longer",
        ),
    ),
    SizeOption(
        "--decisions",
        "K,L",
        (2, 1),
        "decisions",
        None,
        "explore the decision claims' symbolic domain for every K' <= K and L' <= L (default: K = 2 with L <= 4, "
        "K = 3 with L <= 2; UCB-E's K = 2 with L <= 3)",
        Limit(
            ((3, 3), (2, 4)),
            "code-decisions-sr takes 13 s of CPU at 3,3, code-decisions-ucb 82 s at 2,4; UCB-E's symbolic paths at "
            "3,3 are those of --ucb-contracts 3,3 (about 7 min)",
        ),
    ),
    SizeOption(
        "--decision-cells",
        "B,T",
        (2, 2),
        "decision_cells",
        None,
        "run the decision claims on every score matrix with K L <= B cells in {0, 1} and K L <= T in {0, 1/2, 1}, "
        "K <= 6 (default: each claim's own, about 8 and 5)",
        Limit(
            ((10, 6),),
            "code-decisions-sr takes 35 s of CPU, code-decisions-sar 97 s (m = 3 on K = 4 to 6 too) and "
            "code-decisions-ucb 85 s at 10,6, against 9 s, 13 s and 30 s at their defaults",
        ),
    ),
    SizeOption(
        "--fast-cells",
        "C,V",
        (4, 2),
        "fast_cells",
        None,
        "add to code-fast-certified every K x L matrix with K, L >= 2 and K L <= C over the V-level near-tie grid "
        "(default: K L <= 4 over 4 levels and K L <= 6 over 3, and K L <= 4 over {0, 1/2, 1}, scores that are floats)",
        Limit(((9, 2), (6, 4)), FAST_CELLS_COST),
    ),
    SizeOption(
        "--jobs",
        "J",
        (1,),
        "",
        (DEFAULT_JOBS,),
        f"run the claims in J worker processes (default {DEFAULT_JOBS}; 1: in this process)",
        Limit(((64,),), "64 worker processes; each holds a copy of the claims, about 100 MB"),
    ),
)

#: Each size option's bound (:data:`SIZE_OPTIONS`), by its flag.
LIMITS: dict[str, Limit] = {option.flag: option.limit for option in SIZE_OPTIONS}


def _bound_help(option: str) -> str:
    limit = LIMITS[option]
    return f"at most {limit.shown()}: {limit.cost}"


def _parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description=(
            "Check every algebraic step of the SySRs paper with sympy, and the code's invariants with z3, "
            "bounded exhaustive runs and static reading of the fast kernels."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout (with --list too)")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--claim", metavar="ID", help="run only the claim ID")
    for option in SIZE_OPTIONS:
        parser.add_argument(
            option.flag,
            metavar=option.metavar,
            type=_sizes(option.flag, option.metavar, option.least),
            default=option.default,
            help=f"{option.help[:-1]}; {_bound_help(option.flag)})"
            if option.help.endswith(")")
            else f"{option.help} ({_bound_help(option.flag)})",
        )
    return parser


def _domains(args: argparse.Namespace) -> Domains:
    """The claims' domains the size options set (a one-number option sets a number, the others a pair)."""
    values: dict[str, Any] = {}  # a number or a pair, each the type of its Domains field (SIZE_OPTIONS' rows)
    for option in SIZE_OPTIONS:
        value = getattr(args, option.flag[2:].replace("-", "_"))
        if option.field and value is not None:
            values[option.field] = value[0] if len(option.least) == 1 else value
    return dataclasses.replace(Domains(), **values)


def _sizes(option: str, metavar: str, least: tuple[int, ...]) -> Callable[[str], tuple[int, ...]]:
    """The parser of *option*'s value: len(*least*) integers separated by commas, each in [least, LIMITS' most].

    A value out of range is a :class:`_UsageError` naming *option* (raised through argparse, which only
    rewords its own kinds of error), with the bound and its cost when it is too large.
    """
    limit = LIMITS[option]
    floor = " and ".join(f"{name} >= {value}" for name, value in zip(metavar.split(","), least, strict=True))
    words = "an integer" if len(least) == 1 else f"{metavar} ({len(least)} integers)"

    def parse(text: str) -> tuple[int, ...]:
        try:
            values = tuple(int(part) for part in text.split(","))
        except ValueError:
            values = ()
        if len(values) != len(least):
            raise _UsageError(f"{option} needs {words}, {floor}, got {text!r}")
        if any(value < low for value, low in zip(values, least, strict=True)):
            raise _UsageError(f"{option} needs {floor}, got {text!r}")
        if not limit.allows(values):
            raise _UsageError(f"{option} {text} is beyond its bound: at most {limit.shown()} ({limit.cost})")
        return values

    return parse


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
        for name in ("sympy", "smt", "symbolic", "bounded-exhaustive", "static")
    }
    lines.append("")
    lines.append(
        f"{good}/{len(results)} claims have their expected status "
        f"({sum(o.method.value == 'proved' for _, o, _ in results)} proved and "
        f"{sum(o.method.value == 'checked' for _, o, _ in results)} checked with sympy, "
        f"{counts['smt']} smt, {counts['symbolic']} symbolic, {counts['bounded-exhaustive']} bounded-exhaustive, "
        f"{counts['static']} static; "
        f"{sum(t for _, _, t in results):.1f} s)."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module)."""
    with guarded_streams(), sigterm_interrupts(Terminated):
        try:
            return _main(argv)
        except Terminated:  # the first SIGTERM came while _main was reporting how something else ended
            print(f"{PROG}: interrupted by SIGTERM", file=sys.stderr)
            return TERMINATED


def _main(argv: Sequence[str] | None) -> int:
    """Parse *argv*, run the claims, print them; what stops the run becomes one line on stderr and a status."""
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        print(f"{PROG}: error: stdout is closed, so no output could be written: nothing was run", file=sys.stderr)
        return 2
    try:
        status = _checked(argv)
        sys.stdout.flush()
    except SystemExit as done:  # --help, after printing it
        sys.stdout.flush()
        return int(done.code or 0)
    except _UsageError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except StdoutError as error:
        print(f"{PROG}: error: the output could not be written to stdout ({error})", file=sys.stderr)
        discard(sys.stdout)
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: the workers are already killed
        terminated = isinstance(interrupt, Terminated)
        print(f"{PROG}: interrupted{' by SIGTERM' if terminated else ''}", file=sys.stderr)
        return TERMINATED if terminated else INTERRUPTED
    except BrokenPipeError:  # piped into e.g. head: stop quietly
        discard(sys.stdout)
        return 0
    return status


def _checked(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    (jobs,) = args.jobs
    domains = _domains(args)
    if args.claim is not None:
        claim = claim_by_id(args.claim, domains)
        if claim is None:
            raise _UsageError(f"unknown claim {args.claim!r}; see --list for the claim ids")
        claims: tuple[Claim, ...] = (claim,)
    else:
        claims = all_claims(domains)
    if args.list:
        if args.json:
            listed = [
                {"id": c.id, "paper_ref": c.paper_ref, "statement": c.statement, "expected": c.expected.value}
                for c in claims
            ]
            print(json.dumps({"claims": listed}))
        else:
            for claim in claims:
                print(f"{claim.id}\t{claim.paper_ref}\t{claim.statement}")
        return 0
    results = _run(claims, jobs)
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
    try:  # the workers end with this process, and are killed at once on Ctrl-C or SIGTERM
        tasks = _tasks(claims)
        with process_pool(min(jobs, len(tasks)), start_method="fork") as pool:
            for indices, outcomes in zip(tasks, pool.map(_run_forked, tasks), strict=True):
                done.update(zip(indices, outcomes, strict=True))
    finally:
        _CLAIMS = ()
    return [(claims[index], *done[index]) for index in range(len(claims))]


if __name__ == "__main__":
    sys.exit(main())
