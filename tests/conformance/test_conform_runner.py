"""The conformance runner and ``conform``: each way a reply is judged, the selection options and the report.

Fake adapters are Python scripts written into tmp_path that answer each case
id with a fixed reply; the vectors are tiny hand-made folders in tmp_path.
The reply validator (:mod:`sysrs_ref.conformance._reply_check`, ``jsonschema``
with integral floats kept apart from integers) is held to the plain standard
validator on the committed vectors and on mutations of them.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref.cli import main
from sysrs_ref.conformance import FAMILIES
from sysrs_ref.conformance._reply_check import schema_error
from sysrs_ref.conformance.compare import FLOAT_TOLERANCE, RELATIVE_TOLERANCE, first_difference
from sysrs_ref.conformance.runner import STATUSES, run_cases
from sysrs_ref.conformance.schema import reply_schema
from sysrs_ref.conformance.vectors import TAGS, load_tag_rules
from sysrs_ref.errors import InstanceError, SysrsError
from sysrs_ref.json_types import JsonValue
from tests.strategies import json_mutations

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "data" / "vectors"

RULES = {
    "ties": "a tie decided by the arm priority (highest first), never by row index (contracts §3)",
    "budget": "a budget is an integer in [K, K L], never overspent (contracts §5)",
    "exactness": "means compared exactly, as rationals (contracts §13)",
}

# ---------------------------------------------------------------- fixtures: vectors folders and fake adapters


def algorithms_case(case_id: str, *, tags: list[str] | None = None, note: str = "", budget: int = 12) -> dict[str, Any]:
    """An algorithms case with an answer: K = 2, L = 6 (the input is never run through the reference here)."""
    case: dict[str, Any] = {"id": case_id, "tags": tags or []}
    if note:
        case["note"] = note
    case["input"] = {
        "algorithm": "sysrs",
        "params": {},
        "K": 2,
        "L": 6,
        "budget": budget,
        "scores": [[1, 0, 1, 0, 0, 1], [0, 0, 1, 0, 0, 1]],
        "scores_exact": [["1", "0", "1", "0", "0", "1"], ["0", "0", "1", "0", "0", "1"]],
        "draw": {"query_orders": [[0, 1, 2, 3, 4, 5]], "arm_priority": [0, 1]},
    }
    case["expected"] = {"chosen": 0, "ranking": [0, 1], "spent": 4, "batches": [[[0, 0], [0, 1], [1, 0], [1, 1]]]}
    return case


def budgets_case(case_id: str, *, refused: str | None = None, tags: list[str] | None = None) -> dict[str, Any]:
    """A budgets case: 8% of 80 x 1000, or a refusal case of a 101% budget when *refused* is given."""
    if refused is not None:
        return {
            "id": case_id,
            "tags": tags or ["refusal"],
            "input": {"percentage": "101%", "K": 2, "L": 3},
            "refused": refused,
        }
    return {
        "id": case_id,
        "tags": tags or [],
        "input": {"percentage": "8%", "K": 80, "L": 1000},
        "expected": {"budget": 6400},
    }


def exact(text: str, number: float) -> dict[str, JsonValue]:
    return {"exact": text, "float": number}


def write_folder(folder: Path, families: dict[str, list[dict[str, Any]]], *, tags: bool = True) -> Path:
    """A vectors folder holding *families* (format version 2, the RULES as its tags unless tags=False)."""
    folder.mkdir(parents=True, exist_ok=True)
    for family, cases_list in families.items():
        document: dict[str, Any] = {
            "format": "sysrs-ref-vectors",
            "version": 2,
            "generator": "tests",
            "family": family,
            "description": "hand-made",
        }
        if tags:
            used = {tag for case in cases_list for tag in case.get("tags", [])}
            document["tags"] = {tag: rule for tag, rule in RULES.items() if tag in used}
        document["cases"] = cases_list
        (folder / f"{family}.json").write_text(json.dumps(document))
    return folder


ADAPTER = """
import json, os, sys
REPLIES = json.loads({replies!r})
for line in sys.stdin:
    case_id = json.loads(line)["id"]
    reply = REPLIES.get(case_id, {{"unsupported": "pid {{pid}}"}})
    text = reply if isinstance(reply, str) else json.dumps({{"id": case_id, **reply}})
    print(text.replace("{{pid}}", str(os.getpid())), flush=True)
"""


def fake(tmp_path: Path, replies: dict[str, Any]) -> list[str]:
    """A command answering each case id with its reply: a raw line (a string) or the reply's keys (an object).

    "{pid}" in a reply becomes the adapter's process id; an id without a reply is answered unsupported "pid N".
    """
    script = tmp_path / "adapter.py"
    script.write_text(textwrap.dedent(ADAPTER).format(replies=json.dumps(replies)))
    return [sys.executable, str(script)]


def _families(folder: Path) -> list[str]:
    """--family for each family file in *folder* (without it, conform reads every family's file)."""
    return [arg for path in sorted(folder.glob("*.json")) for arg in ("--family", path.stem)]


def conform_json(
    capsys: pytest.CaptureFixture[str], folder: Path, command: list[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    status = main(
        ["conform", "--vectors", str(folder), *_families(folder), "--json", "--timeout", "20", *extra, "--", *command]
    )
    return status, json.loads(capsys.readouterr().out)


def conform_text(capsys: pytest.CaptureFixture[str], folder: Path, command: list[str], *extra: str) -> tuple[int, str]:
    status = main(["conform", "--vectors", str(folder), *_families(folder), "--timeout", "20", *extra, "--", *command])
    return status, capsys.readouterr().out


def outcomes(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {f["id"]: (f["status"], f["message"]) for f in report["failures"]}


OUTPUT = {"chosen": 0, "ranking": [0, 1], "spent": 4, "batches": [[[0, 0], [0, 1], [1, 0], [1, 1]]]}


# ---------------------------------------------------------------- how a reply is judged, (a) to (g)


def test_malformed_replies_restart_the_implementation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_folder(tmp_path / "v", {"budgets": [budgets_case(f"b{i}") for i in range(5)]})
    replies = {"b1": "this is not JSON", "b3": '{"id": "someone-else", "output": {"budget": 6400}}'}
    status, report = conform_json(capsys, folder, fake(tmp_path, replies))
    found = outcomes(report)
    assert status == 1 and report["families"]["budgets"]["malformed"] == 2
    assert found["b1"] == ("malformed", "not JSON: 'this is not JSON'")
    assert found["b3"] == ("malformed", "the answer is not an object with \"id\": 'b3' (got 'someone-else')")
    pids = [found[f"b{i}"][1] for i in (0, 2, 4)]  # unsupported "pid N": a new process after each malformed reply
    assert len(set(pids)) == 3 and all(pid.startswith("pid ") for pid in pids)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            {"output": {**OUTPUT, "batches": [[[0, 0]], [[0, 1]], []]}},
            "output.batches[2]: [] should be non-empty",
        ),
        ({"output": {**OUTPUT, "chosen": "0"}}, "output.chosen: '0' is not of type 'integer'"),
        ({"output": {**OUTPUT, "spent": 4.0}}, "output.spent: 4.0 is not of type 'integer'"),
        ({"output": {**OUTPUT, "batches": [[[0, 0, 1]]]}}, "output.batches[0][0]: [0, 0, 1] is too long"),
        ({"output": {"chosen": 0, "ranking": [0, 1], "batches": []}}, "output: 'spent' is a required property"),
        ({"output": [0, 1]}, "output: [0, 1] is not of type 'object'"),
        (
            {"refused": "nope"},
            "refused: 'nope' is not one of ['instance', 'params', 'budget', 'draw', 'conditions', 'too_large']",
        ),
        ({"output": OUTPUT, "extra": 1}, "Additional properties are not allowed ('extra' was unexpected)"),
        ({}, 'the answer has no "output", "unsupported", "error" or "refused"'),
        ({"output": OUTPUT, "error": "x"}, 'the answer has "output" and "error": exactly one of them, please'),
    ],
)
def test_a_reply_against_the_reply_schema_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reply: dict[str, Any], message: str
) -> None:
    folder = write_folder(
        tmp_path / "v", {"algorithms": [algorithms_case("a0"), algorithms_case("a1"), algorithms_case("a2")]}
    )
    status, report = conform_json(capsys, folder, fake(tmp_path, {"a1": reply}))
    found = outcomes(report)
    assert status == 1 and report["families"]["algorithms"]["invalid"] == 1
    assert found["a1"] == ("invalid", message)
    assert found["a0"][1] == found["a2"][1]  # the same process answered before and after: no restart


def test_unsupported_and_error_replies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_folder(tmp_path / "v", {"budgets": [budgets_case("b0"), budgets_case("b1", refused="budget")]})
    replies = {"b0": {"unsupported": "no budgets here"}, "b1": {"error": "out of memory"}}
    status, report = conform_json(capsys, folder, fake(tmp_path, replies))
    assert status == 1 and report["passed"] == 0
    assert outcomes(report) == {
        "b0": ("unsupported", "no budgets here"),
        "b1": ("error", "the implementation gave an error: out of memory"),
    }


def test_refusal_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_folder(
        tmp_path / "v",
        {
            "budgets": [
                budgets_case("r-right", refused="budget"),
                budgets_case("r-other-kind", refused="budget"),
                budgets_case("r-output", refused="budget"),
                budgets_case("answered-refused"),
                budgets_case("answered"),
            ]
        },
    )
    replies = {
        "r-right": {"refused": "budget"},
        "r-other-kind": {"refused": "draw"},
        "r-output": {"output": {"budget": 6}},
        "answered-refused": {"refused": "budget"},
        "answered": {"output": {"budget": 6400}},
    }
    status, report = conform_json(capsys, folder, fake(tmp_path, replies))
    assert status == 1 and report["passed"] == 2 and report["families"]["budgets"]["fail"] == 3
    assert outcomes(report) == {
        "r-other-kind": ("fail", "expected a refusal of kind 'budget', got 'draw'"),
        "r-output": ("fail", "expected a refusal (budget), got an output"),
        "answered-refused": ("fail", "refused the case ('budget') but it has an answer"),
    }


def test_budget_violations_come_before_the_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_folder(
        tmp_path / "v",
        {
            "algorithms": [
                algorithms_case("over", budget=12),
                algorithms_case("requests", budget=12),
                algorithms_case("ok"),
            ]
        },
    )
    thirteen = [[[0, q], [1, q]] for q in range(6)] + [[[0, 0]]]  # 13 requests
    replies = {
        "over": {"output": {**OUTPUT, "spent": 13, "batches": thirteen}},
        "requests": {"output": {**OUTPUT, "spent": 4, "batches": thirteen}},
        "ok": {"output": {**OUTPUT, "ranking": [1, 0]}},
    }
    status, report = conform_json(capsys, folder, fake(tmp_path, replies))
    assert status == 1
    assert outcomes(report) == {
        "over": ("fail", "budget violation: 13 requests and spent 13 with a budget of 12"),
        "requests": ("fail", "budget violation: 13 requests and spent 4 with a budget of 12"),
        "ok": ("fail", "ranking[0]: expected 0, got 1"),  # (g): the first difference
    }


def test_results_carry_the_case_note_and_tags(tmp_path: Path) -> None:
    cases_list: list[tuple[str, Any]] = [
        ("algorithms", algorithms_case("a0", tags=["ties", "budget"], note="all rows tie")),
        ("algorithms", algorithms_case("a1")),
        ("budgets", budgets_case("b0", refused="budget")),
    ]
    results = run_cases(fake(tmp_path, {"a0": {"output": OUTPUT}, "b0": {"refused": "budget"}}), cases_list, timeout=20)
    assert [(r.id, r.status, r.note, r.tags) for r in results] == [
        ("a0", "pass", "all rows tie", ("ties", "budget")),
        ("a1", "unsupported", "", ()),
        ("b0", "pass", "", ("refusal",)),
    ]
    assert "invalid" in STATUSES


def test_a_case_without_expected_or_refused_is_refused_before_anything_runs(tmp_path: Path) -> None:
    broken = budgets_case("b0")
    del broken["expected"]
    with pytest.raises(InstanceError, match='exactly one of "expected" and "refused"'):
        run_cases([str(tmp_path / "never-started")], [("budgets", broken)])


# ---------------------------------------------------------------- floats: the tolerances and the sign rule


def test_a_bare_float_is_compared_within_a_relative_1e_12() -> None:
    assert FLOAT_TOLERANCE == 1e-12 and RELATIVE_TOLERANCE == 1e-9
    value = 0.3011942119122021
    assert first_difference("bounds", {"value": value}, {"value": value * (1 + 5e-13)}) is None
    assert first_difference("bounds", {"value": 1.0}, {"value": 1}) is None  # a JSON number, however it is written
    assert first_difference("bounds", {"value": value}, {"value": value * (1 + 5e-12)}) == (
        f"value: expected {value!r}, got {value * (1 + 5e-12)!r} (not within a relative 1e-12)"
    )
    assert first_difference("bounds", {"value": 0.5}, {"value": "0.5"}) == "value: expected 0.5, got 0.5"
    assert first_difference("bounds", {"value": 0.5}, {"value": True}) == "value: expected 0.5, got True"


def test_an_exact_value_answered_with_a_number_needs_its_sign() -> None:
    third = exact("1/3", 1 / 3)
    assert first_difference("hardness", {"H1": third}, {"H1": 1 / 3 * (1 + 5e-10)}) is None
    assert first_difference("hardness", {"H1": third}, {"H1": 1 / 3 * (1 + 5e-9)}) is not None
    tiny = exact("1/1000000000000000", 1e-15)
    assert first_difference("hardness", {"H1": tiny}, {"H1": 3e-16}) is None  # within the absolute 1e-12
    assert first_difference("hardness", {"H1": tiny}, {"H1": -3e-16}) == (
        "H1: expected 1/1000000000000000, got -3e-16: the sign differs"
    )
    zero = exact("0", 0.0)
    assert first_difference("hardness", {"H1": zero}, {"H1": 0.0}) is None
    assert first_difference("hardness", {"H1": zero}, {"H1": 0}) is None
    assert first_difference("hardness", {"H1": zero}, {"H1": 1e-17}) == (
        "H1: expected 0, got 1e-17: the sign differs (an exact 0 must be answered 0)"
    )
    negative = exact("-1/4", -0.25)
    assert first_difference("hardness", {"H1": negative}, {"H1": 0.25}) == (
        "H1: expected -1/4, got 0.25: the sign differs"
    )
    assert first_difference("hardness", {"H1": negative}, {"H1": "-1/4"}) is None  # the text: exactly
    assert first_difference("hardness", {"H1": negative}, {"H1": "-2/8"}) is None
    assert first_difference("hardness", {"H1": negative}, {"H1": "-0.25"}) == "H1: expected -1/4, got -0.25"


def test_the_sign_rule_through_the_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = {"prefactor": exact("3", 3.0), "exponent": exact("0", 0.0), "value": 3.0}
    folder = write_folder(
        tmp_path / "v",
        {
            "bounds": [
                {"id": f"c{i}", "tags": ["exactness"], "input": {"bound": "sr"}, "expected": expected} for i in range(3)
            ]
        },
    )
    replies = {
        "c0": {"output": {"prefactor": 3, "exponent": 0, "value": 3.000000000001}},
        "c1": {"output": {"prefactor": "3/1", "exponent": -1e-300, "value": 3}},
        "c2": {"output": {"prefactor": 3.0, "exponent": "0", "value": 3.0000000001}},
    }
    status, report = conform_json(capsys, folder, fake(tmp_path, replies))
    assert status == 1 and report["passed"] == 1
    assert outcomes(report) == {
        "c1": ("fail", "exponent: expected 0, got -1e-300: the sign differs (an exact 0 must be answered 0)"),
        "c2": ("fail", "value: expected 3.0, got 3.0000000001 (not within a relative 1e-12)"),
    }


# ---------------------------------------------------------------- conform: selection, report, JSON


def mixed_folder(tmp_path: Path) -> Path:
    """12 algorithms cases (a00..a11, tagged ties or budget alternately, a note on a00) and 3 budgets cases."""
    algorithms = [
        algorithms_case(
            f"a{i:02}", tags=["ties"] if i % 2 == 0 else ["budget", "exactness"], note="all rows tie" if i == 0 else ""
        )
        for i in range(12)
    ]
    budgets = [budgets_case("b0", tags=["budget"]), budgets_case("b1"), budgets_case("b2", refused="budget")]
    return write_folder(tmp_path / "v", {"algorithms": algorithms, "budgets": budgets})


def wrong_everywhere(tmp_path: Path) -> list[str]:
    """Every algorithms case fails (its ranking), the budgets cases pass."""
    replies: dict[str, Any] = {f"a{i:02}": {"output": {**OUTPUT, "ranking": [1, 0]}} for i in range(12)}
    replies |= {"b0": {"output": {"budget": 6400}}, "b1": {"output": {"budget": 6400}}, "b2": {"refused": "budget"}}
    return fake(tmp_path, replies)


def test_the_text_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = wrong_everywhere(tmp_path)
    status, out = conform_text(capsys, mixed_folder(tmp_path), command, "--max-failures", "2")
    assert status == 1
    assert out == textwrap.dedent(
        f"""\
        conformance of: {" ".join(command)}
          algorithms     0/12 passed (12 fail)
          budgets        3/3 passed
          FAIL        algorithms/a00: ranking[0]: expected 0, got 1
                      why: all rows tie
                      rule (ties): {RULES["ties"]}
          FAIL        algorithms/a01: ranking[0]: expected 0, got 1
                      rule (budget): {RULES["budget"]}
                      rule (exactness): {RULES["exactness"]}
          ... and 10 more in algorithms (--json lists them all)
          family/tag            passed  cases
          algorithms/ties            0      6
          algorithms/budget          0      6
          algorithms/exactness       0      6
          budgets/budget             1      1
          budgets/refusal            1      1
        3/15 cases passed
        """
    )


def test_max_failures_is_per_family_and_json_lists_them_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = mixed_folder(tmp_path)
    replies: dict[str, Any] = {f"a{i:02}": {"output": {**OUTPUT, "chosen": 1}} for i in range(12)}
    replies |= {"b0": {"output": {"budget": 1}}, "b1": {"output": {"budget": 2}}, "b2": {"output": {"budget": 3}}}
    command = fake(tmp_path, replies)
    status, out = conform_text(capsys, folder, command)  # default: 10 per family
    assert status == 1
    assert (
        out.count("FAIL        algorithms/") == 10 and "  ... and 2 more in algorithms (--json lists them all)" in out
    )
    assert out.count("FAIL        budgets/") == 3 and "more in budgets" not in out
    status, out = conform_text(capsys, folder, command, "--max-failures", "0")
    assert "FAIL " not in out and "... and 12 more in algorithms" in out and "... and 3 more in budgets" in out
    status, report = conform_json(capsys, folder, command, "--max-failures", "1")
    assert len(report["failures"]) == 15
    assert main(["conform", "--vectors", str(folder), "--max-failures", "-1", "--", *command]) == 2
    assert "--max-failures must be 0 or more" in capsys.readouterr().err


def test_the_json_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, report = conform_json(capsys, mixed_folder(tmp_path), wrong_everywhere(tmp_path))
    assert status == 1
    assert list(report) == ["command", "cases", "passed", "failed", "families", "tags", "failures"]
    assert (report["cases"], report["passed"], report["failed"]) == (15, 3, 12)
    assert list(report["families"]["algorithms"]) == list(STATUSES)
    assert report["families"]["algorithms"]["fail"] == 12 and report["families"]["budgets"]["pass"] == 3
    assert report["tags"] == {
        "algorithms": {
            "ties": {"passed": 0, "cases": 6},
            "budget": {"passed": 0, "cases": 6},
            "exactness": {"passed": 0, "cases": 6},
        },
        "budgets": {"budget": {"passed": 1, "cases": 1}, "refusal": {"passed": 1, "cases": 1}},
    }
    assert report["failures"][0] == {
        "family": "algorithms",
        "id": "a00",
        "status": "fail",
        "message": "ranking[0]: expected 0, got 1",
        "note": "all rows tie",
        "tags": ["ties"],
    }
    assert report["failures"][1]["note"] == "" and report["failures"][1]["tags"] == ["budget", "exactness"]


def test_exclude_and_tag_select_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, command = mixed_folder(tmp_path), wrong_everywhere(tmp_path)
    _, report = conform_json(capsys, folder, command, "--exclude", "a0*", "--exclude", "b2")
    assert report["cases"] == 4 and {f["id"] for f in report["failures"]} == {"a10", "a11"}  # and b0, b1 pass
    _, report = conform_json(capsys, folder, command, "--tag", "ties")
    assert report["cases"] == 6 and {f["id"] for f in report["failures"]} == {f"a{i:02}" for i in range(0, 12, 2)}
    _, report = conform_json(capsys, folder, command, "--tag", "exactness", "--tag", "refusal")
    assert report["cases"] == 7 and report["passed"] == 1  # a01, a03, ..., a11 and b2
    _, report = conform_json(capsys, folder, command, "--family", "budgets", "--tag", "budget", "--case", "b*")
    assert report["cases"] == 1 and report["passed"] == 1
    assert main(["conform", "--vectors", str(folder), *_families(folder), "--tag", "speed", "--", *command]) == 2
    assert "no tag 'speed' in these vectors; the tags are: budget, exactness, refusal, ties" in capsys.readouterr().err
    assert (
        main(
            [
                "conform",
                "--vectors",
                str(folder),
                *_families(folder),
                "--case",
                "a0*",
                "--exclude",
                "a*",
                "--",
                *command,
            ]
        )
        == 2
    )
    assert "no case matches" in capsys.readouterr().err


def test_tag_rules_come_from_the_files_or_the_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with_tags = write_folder(tmp_path / "with", {"budgets": [budgets_case("b0", tags=["budget"])]})
    assert load_tag_rules(with_tags, ["budgets"]) == {"budget": RULES["budget"]}
    without = write_folder(tmp_path / "without", {"budgets": [budgets_case("b0", tags=["budget", "ours"])]}, tags=False)
    assert load_tag_rules(without, ["budgets"]) == TAGS
    status, out = conform_text(capsys, without, fake(tmp_path, {"b0": {"output": {"budget": 1}}}))
    assert status == 1
    assert f"rule (budget): {TAGS['budget']}" in out and "rule (ours): not stated in the vectors" in out
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "budgets.json").write_text(
        json.dumps({"format": "sysrs-ref-vectors", "version": 2, "family": "budgets", "tags": []})
    )
    with pytest.raises(InstanceError, match="must be an object of rules"):
        load_tag_rules(tmp_path / "bad", ["budgets"])
    with pytest.raises(InstanceError, match="cannot read the vectors file"):
        load_tag_rules(tmp_path / "nowhere", ["budgets"])


# ---------------------------------------------------------------- the reply validator against the standard one


def _standard_accepts(document: object, schema: dict[str, Any]) -> bool:
    return not list(jsonschema.Draft202012Validator(schema).iter_errors(document))


def _committed(family: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((COMMITTED / f"{family}.json").read_text())
    return document


def _small(family: str) -> dict[str, Any]:
    """The committed file of *family* cut to its first three cases (mutations need not walk 300 batches)."""
    document = _committed(family)
    return {**document, "cases": document["cases"][:3]}


def _reply(family: str) -> dict[str, Any]:
    """A reply line to the first answered case of *family*: its expected output."""
    case = next(c for c in _committed(family)["cases"] if "expected" in c)
    return {"id": case["id"], "output": case["expected"]}


FILE_SCHEMA: dict[str, Any] = json.loads((COMMITTED / "schema.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_both_validators_accept_every_committed_vectors_file(family: str) -> None:
    document = _committed(family)
    assert schema_error(document, FILE_SCHEMA) is None
    assert _standard_accepts(document, FILE_SCHEMA)


@pytest.mark.parametrize("family", FAMILIES)
def test_both_validators_accept_every_expected_output_as_a_reply(family: str) -> None:
    schema = reply_schema(family)
    jsonschema.Draft202012Validator.check_schema(schema)
    for case in _committed(family)["cases"]:
        reply = (
            {"id": case["id"], "output": case["expected"]}
            if "expected" in case
            else {"id": case["id"], "refused": case["refused"]}
        )
        assert schema_error(reply, schema) is None, case["id"]
        assert _standard_accepts(reply, schema), case["id"]


@pytest.mark.slow
@settings(max_examples=150)
@given(st.sampled_from(FAMILIES).flatmap(lambda family: st.tuples(st.just(family), json_mutations(_small(family)))))
def test_mutated_vectors_files_are_judged_alike(mutation: tuple[str, tuple[str, object]]) -> None:
    family, (what, document) = mutation
    mine = schema_error(document, FILE_SCHEMA)  # type: ignore[arg-type]
    assert (mine is None) == _standard_accepts(document, FILE_SCHEMA), (family, what, mine)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.sampled_from(FAMILIES).flatmap(lambda family: st.tuples(st.just(family), json_mutations(_reply(family)))))
def test_mutated_replies_are_judged_alike(mutation: tuple[str, tuple[str, object]]) -> None:
    family, (what, reply) = mutation
    schema = reply_schema(family)
    mine = schema_error(reply, schema)  # type: ignore[arg-type]
    assert (mine is None) == _standard_accepts(reply, schema), (family, what, mine)


def test_where_the_validators_part_an_integral_float_is_not_an_integer() -> None:
    """The one deliberate difference: JSON readers keep 1.0 apart from 1, and so do the vectors."""
    assert schema_error(1.0, {"type": "integer"}) == "1.0 is not of type 'integer'"
    assert _standard_accepts(1.0, {"type": "integer"})
    assert schema_error(1, {"type": "integer"}) is None
    assert schema_error(True, {"type": "number"}) == "True is not of type 'number'"
    assert not _standard_accepts(True, {"type": "number"})


def test_an_error_names_its_path_and_the_alternative_that_fits_best() -> None:
    root: dict[str, Any] = {
        "$defs": {"pair": {"type": "array", "prefixItems": [{"const": 0}, {"enum": [1, 2]}], "items": False}},
        "type": "object",
        "properties": {
            "pair": {"$ref": "#/$defs/pair"},
            "law": {"type": "object", "additionalProperties": {"type": "integer"}},
            "either": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {"k": {"type": "integer"}}}]},
        },
        "required": ["pair"],
    }
    assert schema_error({"pair": [0, 2]}, root) is None
    checks: list[tuple[Any, str]] = [
        ({"pair": [0, 3]}, "pair[1]: 3 is not one of [1, 2]"),
        ({"pair": [1, 2]}, "pair[0]: 0 was expected"),
        ({"pair": [0, 1], "law": {"0,1": 0.5}}, "law.0,1: 0.5 is not of type 'integer'"),
        ({"pair": [0, 1], "either": {"k": "x"}}, "either.k: 'x' is not of type 'integer'"),  # the object alternative
        ({}, "'pair' is a required property"),
    ]
    for value, message in checks:
        assert schema_error(value, root) == message
        assert not _standard_accepts(value, root), value


def test_without_a_vectors_folder_the_rules_are_the_packages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sysrs_ref.cli._conform.default_vectors_dir", lambda: tmp_path / "no-data")
    command = fake(tmp_path, {})  # every case unsupported
    status = main(["conform", "--family", "budgets", "--tag", "refusal", "--max-failures", "1", "--", *command])
    out = capsys.readouterr().out
    assert status == 1 and f"              rule (refusal): {TAGS['refusal']}\n" in out
    assert out.count("UNSUPPORTED ") == 1 and "budgets/refusal" in out


def test_without_jsonschema_the_check_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.conformance import _reply_check

    _reply_check._validator_class.cache_clear()
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import jsonschema now fails, as when it is not installed
    try:
        with pytest.raises(SysrsError, match=r"the 'conform' extra: pip install 'sysrs-ref\[conform\]'"):
            schema_error({"id": "a"}, {"type": "object"})
    finally:
        _reply_check._validator_class.cache_clear()
