"""The independent JavaScript implementation, examples/conformance/sysrs.js, against the vectors.

sysrs.js implements every family but UCB-E-LRF, bounds and exact, so it must pass every other case
of data/vectors (refusal cases included), and each of its two deliberate bugs (SYSRS_JS_MUTANT)
must be caught, in the right place. Without Node.js these tests are skipped, and say so.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.cli import main

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "data" / "vectors"
JS = ROOT / "examples" / "conformance" / "sysrs.js"

FAMILIES = ("algorithms", "schedules", "budgets", "hardness")
EXCLUDED = "ucbe-lrf-*"  # UCB-E-LRF is not implemented in sysrs.js
ARGS = [*(arg for family in FAMILIES for arg in ("--family", family)), "--exclude", EXCLUDED, "--timeout", "300"]
ALGORITHMS = {"us", "syus", "sr", "sysrs", "ucbe", "syucbe", "sar", "sysar"}
SCHEDULED = {"sr", "sysrs", "sar", "sysar"}  # the algorithms that use the Successive Rejects schedule


def selected() -> dict[str, dict[str, dict[str, Any]]]:
    """The cases the command above selects, read from the vectors files: family -> id -> case."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for family in FAMILIES:
        data = json.loads((VECTORS / f"{family}.json").read_text(encoding="utf-8"))
        out[family] = {case["id"]: case for case in data["cases"] if not fnmatch.fnmatchcase(case["id"], EXCLUDED)}
    return out


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("Node.js is not installed (no `node` on PATH): examples/conformance/sysrs.js was NOT tested")
    return path


def conform(node: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(["conform", *ARGS, "--json", "--", node, str(JS)])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return status, report


def test_the_selection_is_what_sysrs_js_implements() -> None:
    cases = selected()
    assert all(cases[family] for family in FAMILIES)
    algorithms = {case["input"].get("algorithm") for case in cases["algorithms"].values()}
    assert algorithms >= ALGORITHMS and "ucbe-lrf" not in algorithms
    refusals = {family: sum("refused" in case for case in cases[family].values()) for family in FAMILIES}
    assert all(refusals.values()), refusals  # selected too: sysrs.js must answer each with its kind


@pytest.mark.slow
def test_sysrs_js_passes_every_selected_case(node: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, report = conform(node, capsys)
    assert report["failures"] == []
    assert status == 0
    cases = selected()
    assert report["passed"] == report["cases"] == sum(len(ids) for ids in cases.values())
    for family in FAMILIES:
        assert report["families"][family]["pass"] == len(cases[family]), family


REQUEST = re.compile(r"^request \d+ \(batch \d+, item \d+\): expected \[model, query\] = \[\d+, \d+\], got ")
OUTCOME = re.compile(r"^(chosen|spent|ranking\[\d+\]|batches\S*): expected ")
SCHEDULE = re.compile(r"^(n_k\[\d+\]|paper_n_k\[\d+\]|spend|capped): expected ")


@pytest.mark.slow
@pytest.mark.parametrize("mutant", ["ties-by-index", "schedule-floor"])
def test_a_subtly_wrong_implementation_is_caught(
    node: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, mutant: str
) -> None:
    monkeypatch.setenv("SYSRS_JS_MUTANT", mutant)
    status, report = conform(node, capsys)
    failures: list[dict[str, str]] = report["failures"]
    assert status == 1 and len(failures) > 0 and report["passed"] + len(failures) == report["cases"]
    assert all(failure["status"] == "fail" for failure in failures), failures[:3]
    cases = selected()
    caught = {failure["family"] for failure in failures}
    algorithms = {cases["algorithms"][f["id"]]["input"]["algorithm"] for f in failures if f["family"] == "algorithms"}
    for failure in failures:
        message = failure["message"]
        if failure["family"] == "algorithms":  # the first request where it parts from the reference, else the key
            assert REQUEST.match(message) or OUTCOME.match(message), failure
        else:
            assert failure["family"] == "schedules" and SCHEDULE.match(message), failure
    if mutant == "ties-by-index":  # every algorithm breaks ties; the schedule, budgets and hardness do not
        assert caught == {"algorithms"} and algorithms == ALGORITHMS
        assert any(REQUEST.match(f["message"]) for f in failures)
    else:  # only the schedule and the algorithms that use it
        assert caught == {"schedules", "algorithms"} and algorithms == SCHEDULED
        assert any(f["message"].startswith("paper_n_k[") for f in failures)
