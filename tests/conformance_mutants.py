"""Subtly wrong implementations behind the conformance protocol: the vectors must catch each one.

Run as ``python tests/conformance_mutants.py MUTANT``; it answers cases like
``python -m sysrs_ref.conformance.adapter`` (the reference, exact), except for
the one mistake its name says:

- ``float64``: computes in IEEE doubles (the float64 model of the vectors generator);
- ``float64-indices``: exact sums and means, but UCB indices rounded to doubles;
- ``ties-by-index``: breaks ties by row index instead of the arm priority;
- ``schedule-floor``: rounds the SR schedule down instead of up;
- ``overspend``: asks for one evaluation more than it should;
- ``sar-m``: SAR decides with m where the contract says m' = m minus the models accepted so far;
- ``refusal-output``: answers an input it should refuse with an output.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping
from fractions import Fraction

from sysrs_ref.conformance._float64 import float_answer
from sysrs_ref.conformance.solve import refusal_kind, solve
from sysrs_ref.errors import SysrsError
from sysrs_ref.json_types import JsonValue

MUTANTS = ("float64", "float64-indices", "ties-by-index", "schedule-floor", "overspend", "sar-m", "refusal-output")

#: Outputs of the right shape, for answering a refusal case with an output.
_SHAPED: dict[str, dict[str, JsonValue]] = {
    "algorithms": {"chosen": 0, "ranking": [0, 1], "spent": 2, "batches": [[[0, 0], [1, 0]]]},
    "schedules": {"n_k": [1], "spend": 2, "capped": False, "paper_n_k": [1]},
    "budgets": {"budget": 1},
}

_m_of_case = 0  # sar-m: the case's m, which the patched decision uses instead of m'


def _install(mutant: str) -> None:
    """Patch the reference where the mutant's one mistake lives."""
    if mutant == "schedule-floor":  # by module name: the package's attribute `schedule` is the function
        schedule_module = importlib.import_module("sysrs_ref.schedule")
        # every ceiling of the schedule (U0, the paper's levels, the capped levels) now rounds down
        setattr(schedule_module, "_ceil_div", lambda numerator, divisor: numerator // divisor)  # noqa: B010
    elif mutant == "sar-m":
        sar_module = importlib.import_module("sysrs_ref.algorithms.successive_accepts_rejects")
        decide = getattr(sar_module, "sar_decision")  # noqa: B009

        def with_m(ordered_sums: list[Fraction], to_accept: int) -> bool:
            return bool(decide(ordered_sums, _m_of_case))

        setattr(sar_module, "sar_decision", with_m)  # noqa: B010


def _output(mutant: str, family: str, data: dict[str, JsonValue]) -> dict[str, JsonValue]:
    global _m_of_case
    if mutant == "ties-by-index" and isinstance(data.get("draw"), Mapping) and isinstance(data.get("K"), int):
        draw = data["draw"]
        assert isinstance(draw, Mapping) and isinstance(data["K"], int)
        data = {**data, "draw": {**draw, "arm_priority": list(range(data["K"]))}}
    if mutant == "sar-m":
        params = data.get("params")
        _m_of_case = int(str(params.get("m", "1"))) if isinstance(params, Mapping) else 1
    output = solve(family, data)  # refusals raise here, before any mutation of the answer
    if mutant.startswith("float64"):
        return float_answer(family, data, indices_only=mutant == "float64-indices") or output
    if mutant == "overspend" and family == "algorithms":
        batches = output["batches"]
        spent = output["spent"]
        assert isinstance(batches, list) and isinstance(spent, int)
        return {**output, "spent": spent + 1, "batches": [*batches, [[output["chosen"], 0]]]}
    return output


def answer(mutant: str, line: str) -> str:
    """The mutant's reply line to one case line."""
    case = json.loads(line)
    family, data = str(case["family"]), dict(case["input"])
    try:
        output = _output(mutant, family, data)
    except SysrsError as err:
        kind = refusal_kind(err)
        if mutant == "refusal-output" and family in _SHAPED:
            return json.dumps({"id": case["id"], "output": _SHAPED[family]})
        return json.dumps({"id": case["id"], "refused": kind} if kind else {"id": case["id"], "error": str(err)})
    return json.dumps({"id": case["id"], "output": output})


def main(mutant: str) -> int:
    """Answer every case line of stdin as the mutant *mutant*."""
    if mutant not in MUTANTS:
        print(f"unknown mutant {mutant!r}: one of {', '.join(MUTANTS)}", file=sys.stderr)
        return 2
    _install(mutant)
    for line in sys.stdin:
        if line.strip():
            print(answer(mutant, line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
