"""The vectors pin what the oracle promises: exactness cases a float64 implementation fails, refusals, tags.

Each mutant of ``tests/conformance_mutants.py`` (the reference with one
mistake) must fail ``conform``, on the cases tagged with the rule it breaks,
with a report that names that rule.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.cli import main
from sysrs_ref.conformance import FAMILIES, load_vectors
from sysrs_ref.conformance._float64 import float_answer
from sysrs_ref.conformance.adapter import answer
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.schema import REFUSAL_KINDS
from sysrs_ref.conformance.solve import refusal_kind, solve
from sysrs_ref.conformance.vectors import TAGS
from sysrs_ref.errors import SysrsError

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "data" / "vectors"
MUTANTS = Path(__file__).resolve().parents[1] / "conformance_mutants.py"
VECTORS: dict[str, list[dict[str, Any]]] = dict(load_vectors(COMMITTED))


def _tagged(tag: str, families: tuple[str, ...] = FAMILIES) -> list[tuple[str, dict[str, Any]]]:
    return [(family, case) for family in families for case in VECTORS[family] if tag in case["tags"]]


def test_at_least_thirty_exactness_cases_each_with_its_float64_answer() -> None:
    tagged = _tagged("exactness")
    assert len(tagged) >= 30
    assert {family for family, _ in tagged} == {"algorithms", "schedules", "budgets", "hardness"}
    for family, case in tagged:
        assert "In float64 arithmetic the answer is" in case["note"], case["id"]
        answer = float_answer(family, case["input"])
        assert answer is not None and first_difference(family, case["expected"], answer) is not None, case["id"]
    algorithms = Counter(case["input"]["algorithm"] for family, case in tagged if family == "algorithms")
    assert set(algorithms) == {"us", "syus", "sr", "sysrs", "ucbe", "syucbe", "sar", "sysar"}
    assert min(algorithms.values()) >= 4


def test_the_float64_model_agrees_everywhere_else() -> None:
    """Only the exactness cases separate float64 from exact arithmetic, so their tag is exact too."""
    for family in FAMILIES:
        for case in VECTORS[family]:
            if "expected" in case and "exactness" not in case["tags"]:
                answer = float_answer(family, case["input"])
                assert answer is None or first_difference(family, case["expected"], answer) is None, case["id"]


def test_refusal_cases_cover_every_kind_and_the_reference_refuses_them() -> None:
    refusals = [(family, case) for family in FAMILIES for case in VECTORS[family] if "refused" in case]
    assert {case["refused"] for _, case in refusals} == set(REFUSAL_KINDS)
    for family, case in refusals:
        assert "expected" not in case and "refusal" in case["tags"]
        with pytest.raises(SysrsError) as caught:
            solve(family, case["input"])
        assert refusal_kind(caught.value) == case["refused"], case["id"]
    ids = {case["id"] for _, case in refusals}
    assert {"refuse-synchronized-draw-to-sr", "refuse-one-model", "refuse-budget-below-K"} <= ids
    assert {"refuse-exact-us-too-large", "refuse-bound-ucbe-a-too-large"} <= ids


def test_every_file_states_the_rules_of_its_tags() -> None:
    for family in FAMILIES:
        document = json.loads((COMMITTED / f"{family}.json").read_text())
        used = {tag for case in document["cases"] for tag in case["tags"]}
        assert set(document["tags"]) == used and used <= set(TAGS)
        assert document["refusals"] == REFUSAL_KINDS


def test_hardness_has_tied_suboptimal_models_in_both_orders() -> None:
    tied = [case for _, case in _tagged("tied-arms", ("hardness",))]
    assert len(tied) >= 2
    for case in tied:
        arms = case["expected"]["arms"]
        means = [round(sum(row) / len(row), 12) for row in case["input"]["scores"]]
        models = [arm["model"] for arm in arms]
        tied_models = [m for m in models if [means[x] for x in models].count(means[m]) > 1]
        assert tied_models == sorted(tied_models)  # arms: equal means by increasing row index
    description = json.loads((COMMITTED / "hardness.json").read_text())["description"]
    assert "decreasing order of H_{3,i}" in description and "increasing row index" in description


def _conform(capsys: pytest.CaptureFixture[str], mutant: str, *selection: str) -> tuple[dict[str, Any], str]:
    argv = ["conform", "--quiet", "--timeout", "300", "--exclude", "ucbe-lrf-*", *selection]  # a hang-guard only
    argv += ["--", sys.executable, str(MUTANTS), mutant]
    assert main([*argv[:1], "--json", *argv[1:]]) == 1
    report = json.loads(capsys.readouterr().out)
    assert main(argv) == 1
    return report, capsys.readouterr().out


def _ids(report: dict[str, Any]) -> set[str]:
    return {failure["id"] for failure in report["failures"]}


@pytest.mark.slow
def test_a_float64_implementation_fails_exactly_the_exactness_cases(capsys: pytest.CaptureFixture[str]) -> None:
    report, text = _conform(capsys, "float64")
    assert _ids(report) == {case["id"] for _, case in _tagged("exactness")}
    assert report["failed"] == 76
    assert "rule (exactness)" in text and "why: " in text


@pytest.mark.slow
def test_ties_by_row_index_fail_the_ties_cases(capsys: pytest.CaptureFixture[str]) -> None:
    report, text = _conform(capsys, "ties-by-index", "--family", "algorithms")
    ties = {case["id"] for _, case in _tagged("ties")}
    assert report["failed"] == 165
    # every failure is a ties case, but one: a refusal whose bad arm priority the mutant replaces
    assert _ids(report) - ties == {"refuse-priority-not-permutation"}
    assert "rule (ties)" in text and "arm priority" in text


@pytest.mark.slow
def test_floor_in_the_schedule_fails_schedules_and_phased_algorithms(capsys: pytest.CaptureFixture[str]) -> None:
    report, _ = _conform(capsys, "schedule-floor", "--family", "schedules", "--family", "algorithms")
    assert report["families"]["schedules"]["fail"] == 44  # paper_n_k floored too, at n = K L
    assert report["families"]["algorithms"]["fail"] == 129
    failing = {f["id"]: f for f in report["failures"]}
    assert all(
        f["message"].startswith(("n_k", "paper_n_k", "spend")) for f in failing.values() if f["family"] == "schedules"
    )
    phased = ("sr-", "sysrs-", "sar-", "sysar-")
    assert all(i.startswith(phased) for i, f in failing.items() if f["family"] == "algorithms")


@pytest.mark.slow
def test_overspending_by_one_is_a_budget_violation(capsys: pytest.CaptureFixture[str]) -> None:
    report, text = _conform(capsys, "overspend", "--family", "algorithms")
    answered = [
        case for case in VECTORS["algorithms"] if "expected" in case and case["input"]["algorithm"] != "ucbe-lrf"
    ]
    assert report["failed"] == len(answered) == 332
    violations = {f["id"] for f in report["failures"] if f["message"].startswith("budget violation:")}
    assert violations == {c["id"] for c in answered if c["expected"]["spent"] == c["input"]["budget"]}
    assert "budget violation:" in text


@pytest.mark.slow
def test_sar_with_m_for_m_prime_fails_the_sar_m_prime_cases(capsys: pytest.CaptureFixture[str]) -> None:
    report, text = _conform(capsys, "sar-m", "--family", "algorithms", "--case", "sar-*", "--case", "sysar-*")
    assert report["failed"] == 14
    assert _ids(report) <= {case["id"] for _, case in _tagged("sar-m-prime")}
    assert "rule (sar-m-prime)" in text and "m' = m minus the models accepted so far" in text


@pytest.mark.slow
def test_a_refusal_answered_with_an_output_fails(capsys: pytest.CaptureFixture[str]) -> None:
    report, text = _conform(
        capsys,
        "refusal-output",
        "--tag",
        "refusal",
        "--family",
        "algorithms",
        "--family",
        "schedules",
        "--family",
        "budgets",
    )
    assert report["failed"] == report["cases"] == 20
    assert all(f["message"].startswith("expected a refusal") for f in report["failures"])
    assert "rule (refusal)" in text


def test_the_guide_counts_cases_by_family_and_tag() -> None:
    guide = (ROOT / "docs" / "conformance.md").read_text()
    table = guide.split("Cases per family and tag")[1].split("\n\n")[1].splitlines()
    assert table[0].startswith("| family | cases |") and len(table) == 2 + len(FAMILIES)
    tags = [cell.strip(" `") for cell in table[0].strip("|").split("|")[2:]]
    for row in table[2:]:
        cells = [cell.strip(" `") for cell in row.strip("|").split("|")]
        family, count = cells[0], int(cells[1])
        assert count == len(VECTORS[family]), family
        counts = Counter(tag for case in VECTORS[family] for tag in case["tags"])
        assert {tag: int(cell) for tag, cell in zip(tags, cells[2:], strict=True) if cell} == dict(counts), family


@pytest.mark.slow
def test_ucb_indices_rounded_to_float64_fail_too(capsys: pytest.CaptureFixture[str]) -> None:
    """Exact sums are not enough: an index rounded to a double (float(mean) + sqrt(a / N)) fails these cases."""
    report, text = _conform(capsys, "float64-indices", "--family", "algorithms")
    assert report["failed"] == 7
    assert _ids(report) <= {case["id"] for _, case in _tagged("exactness")}
    assert all(failure["id"].startswith(("ucbe-", "syucbe-")) for failure in report["failures"])
    assert "rule (exactness)" in text


@pytest.mark.slow
def test_schema_json_holds_the_reply_schemas_and_the_reference_replies_meet_them() -> None:
    """An outside implementer can validate replies with schema.json alone: $defs/reply-<family>."""
    jsonschema = pytest.importorskip("jsonschema")  # a dev dependency: always there in the suite
    schema = json.loads((COMMITTED / "schema.json").read_text())
    for family in FAMILIES:
        validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/reply-{family}"})
        for case in VECTORS[family][::7]:
            reply = json.loads(answer(json.dumps({"family": family, "id": case["id"], "input": case["input"]})))
            assert not list(validator.iter_errors(reply)), case["id"]
            assert ("refused" in reply) == ("refused" in case), case["id"]
        assert list(validator.iter_errors({"id": "x", "refused": "no-such-kind"}))
        assert list(validator.iter_errors({"id": "x", "output": {}, "error": "both"}))
