"""Command line: ``python -m proofs_check [--json] [--list] [--claim ID]`` (docs/theory.md).

Exit status: 0 when every claim run has its expected status, 1 otherwise,
2 on a usage error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

from proofs_check.registry import Claim, Outcome, all_claims, claim_by_id

__all__ = ["main", "render_table"]

EXAMPLES = """examples:
  python -m proofs_check                       # run every claim, print the table
  python -m proofs_check --json                # one JSON object {"claims": [...]}
  python -m proofs_check --claim lb-constant-11
  python -m proofs_check --list"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(
        prog="python -m proofs_check",
        description="Check every algebraic step of the SySRs paper with sympy.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--claim", metavar="ID", help="run only the claim ID")
    return parser


def _record(claim: Claim, outcome: Outcome) -> dict[str, object]:
    return {
        "id": claim.id,
        "paper_ref": claim.paper_ref,
        "statement": claim.statement,
        "status": outcome.status.value,
        "detail": outcome.detail,
        "method": outcome.method.value,
        "expected": claim.expected.value,
        "as_expected": outcome.status == claim.expected,
        "conditions": list(outcome.conditions),
        "counterexample": outcome.counterexample,
    }


def render_table(results: Sequence[tuple[Claim, Outcome]]) -> str:
    """The readable report: one row per claim, then the details of every claim that is not 'holds'."""
    header = ("claim", "method", "status", "expected", "")
    rows = [
        (c.id, o.method.value, o.status.value, c.expected.value, "ok" if o.status == c.expected else "UNEXPECTED")
        for c, o in results
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths).rstrip())
    notes = [(c, o) for c, o in results if o.status.value != "holds" or o.status != c.expected]
    if notes:
        lines.append("")
        lines.append("Claims that fail or need conditions:")
        for claim, outcome in notes:
            lines.append(f"- {claim.id} ({claim.paper_ref}): {outcome.status.value}")
            lines.append(f"    statement: {claim.statement}")
            for condition in outcome.conditions:
                lines.append(f"    condition: {condition}")
            lines.append(f"    {outcome.detail}")
    good = sum(o.status == c.expected for c, o in results)
    lines.append("")
    lines.append(
        f"{good}/{len(results)} claims have their expected status "
        f"({sum(o.method.value == 'proved' for _, o in results)} proved, "
        f"{sum(o.method.value == 'checked' for _, o in results)} checked)."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.claim is not None:
            claim = claim_by_id(args.claim)
            if claim is None:
                raise _UsageError(f"unknown claim {args.claim!r}; see --list for the claim ids")
            claims: tuple[Claim, ...] = (claim,)
        else:
            claims = all_claims()
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except _UsageError as error:
        print(f"python -m proofs_check: error: {error}", file=sys.stderr)
        return 2
    if args.list:
        for claim in claims:
            print(f"{claim.id}\t{claim.paper_ref}\t{claim.statement}")
        return 0
    results = [(claim, claim.run()) for claim in claims]
    if args.json:
        print(json.dumps({"claims": [_record(c, o) for c, o in results]}))
    else:
        print(render_table(results))
    return 0 if all(o.status == c.expected for c, o in results) else 1


if __name__ == "__main__":
    sys.exit(main())
