"""The project's own implementation behind the conformance protocol: ``python -m sysrs_ref.conformance.adapter``.

It reads one case per line on stdin and answers one line per case on stdout
(:mod:`sysrs_ref.conformance.runner` documents the protocol): an ``output``,
a ``refused`` kind for an input the package refuses
(:func:`~sysrs_ref.conformance.solve.refusal_kind`), ``unsupported`` for an
unknown family or algorithm, or an ``error`` for a line that is not a case. Algorithm cases
are answered by the numpy fast path (chosen model, ranking, spend) with the
requests of the reference step generator; every other family by the
reference. ``python -m sysrs_ref conform --reference`` runs the vectors
against it.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from sysrs_ref._files import JsonFormatError, parse_json
from sysrs_ref.conformance.cases import FAMILIES
from sysrs_ref.conformance.solve import refusal_kind, solve
from sysrs_ref.errors import SysrsError, UnknownAlgorithmError

__all__ = ["answer", "main"]


def answer(line: str) -> str:
    """The answer line to one case line.

    >>> answer('{"family": "budgets", "id": "b1", "input": {"percentage": "12%", "K": 80, "L": 1000}}')
    '{"id": "b1", "output": {"budget": 9600}}'
    >>> answer('{"family": "budgets", "id": "b2", "input": {"percentage": "101%", "K": 2, "L": 3}}')
    '{"id": "b2", "refused": "budget"}'
    >>> answer('{"family": "rankings", "id": "r1", "input": {}}')
    '{"id": "r1", "unsupported": "no family \\'rankings\\' here"}'
    """
    try:
        case = parse_json(line)
    except JsonFormatError as err:
        return json.dumps({"id": None, "error": f"not JSON: {err}"})
    if not isinstance(case, dict):
        return json.dumps({"id": None, "error": "a case must be a JSON object"})
    case_id, family, data = case.get("id"), case.get("family"), case.get("input")
    if family not in FAMILIES:
        return json.dumps({"id": case_id, "unsupported": f"no family {family!r} here"})
    if not isinstance(data, dict):
        return json.dumps({"id": case_id, "error": 'the case has no "input" object'})
    try:
        output = solve(str(family), data, fast=True)
    except UnknownAlgorithmError as err:
        return json.dumps({"id": case_id, "unsupported": str(err)})
    except SysrsError as err:
        kind = refusal_kind(err)
        return json.dumps({"id": case_id, "refused": kind} if kind else {"id": case_id, "error": str(err)})
    return json.dumps({"id": case_id, "output": output})


def main(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Answer every case line of *stdin* on *stdout* until it closes."""
    for line in stdin:
        if line.strip():
            stdout.write(answer(line) + "\n")
            stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
