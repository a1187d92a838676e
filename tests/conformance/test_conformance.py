"""The test vectors (no drift, valid against their schema) and the conformance runner (every way an adapter can fail)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sysrs_ref.cli import main
from sysrs_ref.conformance import FAMILIES, SCHEMA, first_difference, load_vectors
from sysrs_ref.conformance.cases import cases
from sysrs_ref.json_types import JsonValue

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "data" / "vectors"


@pytest.mark.slow
def test_committed_vectors_are_a_fresh_generation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No silent drift: `python -m sysrs_ref vectors --out data/vectors` regenerates the committed bytes.

    One generation serves both the drift check and the command's own contract (its report, the files' mode,
    a refused target): each generation takes seconds.
    """
    assert main(["vectors", "--out", str(tmp_path / "v"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(Path(p).name for p in report["files"]) == sorted([*(f"{f}.json" for f in FAMILIES), "schema.json"])
    assert oct(os.stat(report["files"][0]).st_mode & 0o777) != oct(0o600)  # readable like any file, not mkstemp's 0600
    names = sorted(p.name for p in (tmp_path / "v").iterdir())
    assert names == sorted(p.name for p in COMMITTED.iterdir() if p.suffix == ".json")
    for name in names:
        assert (tmp_path / "v" / name).read_bytes() == (COMMITTED / name).read_bytes(), f"{name} drifted"
    (tmp_path / "file").write_text("")
    assert main(["vectors", "--out", str(tmp_path / "file")]) == 2


def test_the_committed_schema_is_the_packages_schema() -> None:
    """The committed schema.json is SCHEMA and a valid 2020-12 schema.

    Every committed vectors file is validated against it by jsonschema (and by the package's own validator) in
    tests/conformance/test_conform_runner.py::test_both_validators_accept_every_committed_vectors_file.
    """
    schema = json.loads((COMMITTED / "schema.json").read_text())
    assert schema == json.loads(json.dumps(SCHEMA))
    jsonschema.Draft202012Validator.check_schema(schema)


def _first_case(family: str) -> dict[str, Any]:
    """The committed vectors file of *family* cut to its first case (the schema checks each case alone)."""
    document: dict[str, Any] = json.loads((COMMITTED / f"{family}.json").read_text())
    return {**document, "cases": document["cases"][:1]}


def test_the_schema_rejects_what_it_should() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    document = _first_case("algorithms")
    assert not list(validator.iter_errors(document))
    document["cases"][0]["expected"]["ranking"] = ["0"]  # a string where a model index belongs
    assert list(validator.iter_errors(document))
    document = _first_case("hardness")
    assert not list(validator.iter_errors(document))
    document["cases"][0]["expected"]["H2"] = {"exact": "0.5", "float": 0.5}  # not "p/q"
    assert list(validator.iter_errors(document))


def test_the_vectors_cover_the_corners() -> None:
    ids = [case.id for case in cases("algorithms")]
    for name in ("us", "syus", "sr", "sysrs", "ucbe", "syucbe", "sar", "sysar"):
        for corner in (
            "ties-everywhere",
            "duplicate-models",
            "budget-K",
            "budget-KL",
            "capped-schedule",
            "continuous",
            "two-models",
            "one-query",
            "dominating",
        ):
            assert any(i.startswith(f"{name}-{corner}-") for i in ids), (name, corner)
    for case in cases("algorithms"):  # SAR, SySAR: m = 1, a middle m and K - 1 on the corners that vary parameters
        corner = "-".join(case.id.split("-")[1:-2])
        if case.input["algorithm"] in ("sar", "sysar") and corner in ("binary", "ties-everywhere", "random-a"):
            k = case.input["K"]
            assert isinstance(k, int)
            stem = case.id.split("-m")[0]
            assert {f"{stem}-m{m}-1" for m in {1, max(1, k // 2), k - 1}} <= set(ids), case.id
    loaded: dict[str, Any] = load_vectors(COMMITTED)
    answered = {family: [c for c in loaded[family] if "expected" in c] for family in FAMILIES}
    capped = [c for c in answered["schedules"] if c["expected"]["capped"]]
    assert capped and all(c["expected"]["spend"] <= c["input"]["budget"] for c in answered["schedules"])
    assert any(c["expected"]["arms"] is None for c in answered["hardness"])  # a tied best model
    assert {c["input"]["algorithm"] for c in loaded["exact"]} == {
        "us",
        "syus",
        "sr",
        "sysrs",
        "ucbe",
        "syucbe",
        "sar",
        "sysar",
    }
    assert all("top_m_error" in c["expected"] for c in answered["exact"] if c["input"]["algorithm"] in ("sar", "sysar"))


@pytest.mark.slow
def test_the_reference_adapter_conforms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--reference", "--json", "--timeout", "300"]) == 0  # a hang-guard: cases take < 2 s
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == 0 and report["passed"] == report["cases"] == sum(len(cases(f)) for f in FAMILIES)


ADAPTER = """
import json, sys, time
for line in sys.stdin:
    case = json.loads(line)
    case_id, data = case["id"], case["input"]
    budget = int(data["percentage"].rstrip("%").split(".")[0]) * data["K"] * data["L"] // 100 if "." not in data["percentage"] else None
    {body}
    print(json.dumps(reply), flush=True)
"""


def adapter(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "adapter.py"
    script.write_text(
        textwrap.dedent(ADAPTER).replace("{body}", textwrap.indent(textwrap.dedent(body), "    ").strip())
    )
    return [sys.executable, str(script)]


def conform(capsys: pytest.CaptureFixture[str], command: list[str], *extra: str) -> tuple[int, dict[str, Any]]:
    status = main(
        [
            "conform",
            "--family",
            "budgets",
            "--case",
            "budget-8pct-*",
            "--case",
            "budget-1_25pct-*",
            "--timeout",
            "60",  # a hang-guard only: these adapters answer in milliseconds
            "--json",
            *extra,
            "--",
            *command,
        ]
    )
    return status, json.loads(capsys.readouterr().out)


def test_runner_pass_and_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = """
    if budget is None:
        reply = {"id": case_id, "output": {"budget": 1}}  # wrong for the decimal percentages
    else:
        reply = {"id": case_id, "output": {"budget": budget}}
    """
    status, report = conform(capsys, adapter(tmp_path, body))
    assert status == 1 and report["cases"] == 8 and report["passed"] == 4
    failure = report["failures"][0]
    assert failure["status"] == "fail" and failure["id"].startswith("budget-1_25pct-")
    assert failure["message"].startswith("budget: expected ") and failure["message"].endswith(", got 1")


def test_runner_crash_is_reported_and_the_rest_still_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = """
    if case_id == "budget-8pct-K80-L1000":
        print("something broke", file=sys.stderr)
        sys.exit(3)
    reply = {"id": case_id, "output": {"budget": budget}} if budget is not None else {"id": case_id, "unsupported": "no decimals"}
    """
    status, report = conform(capsys, adapter(tmp_path, body))
    statuses = {f["id"]: (f["status"], f["message"]) for f in report["failures"]}
    assert status == 1
    crash = statuses["budget-8pct-K80-L1000"]
    assert crash[0] == "crash" and "exit status 3" in crash[1] and "something broke" in crash[1]
    assert report["families"]["budgets"]["pass"] == 3  # the other 8% cases ran in a fresh process
    assert report["families"]["budgets"]["unsupported"] == 4


@pytest.mark.slow
def test_runner_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = """
    if case_id == "budget-8pct-K450-L541":
        time.sleep(3600)  # never answers: the runner must give up on it and kill it
    reply = {"id": case_id, "output": {"budget": budget}} if budget is not None else {"id": case_id, "error": "refused"}
    """
    # 5 s: long enough for every other case (each answers in milliseconds, in a fresh process after the kill)
    status, report = conform(capsys, adapter(tmp_path, body), "--timeout", "5")
    statuses = {f["id"]: f for f in report["failures"]}
    assert status == 1 and statuses["budget-8pct-K450-L541"]["status"] == "timeout"
    assert "no answer within 5 s" in statuses["budget-8pct-K450-L541"]["message"]
    assert report["families"]["budgets"]["pass"] == 3 and report["families"]["budgets"]["error"] == 4


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('print("hello")\ncontinue', "not JSON"),
        ('reply = {"id": "someone-else", "output": {}}', 'not an object with "id"'),
        ('reply = {"id": case_id}', 'no "output"'),
    ],
)
def test_runner_malformed_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str) -> None:
    status, report = conform(capsys, adapter(tmp_path, body))
    assert status == 1 and report["passed"] == 0 and len(report["failures"]) == 8
    assert all(expected in f["message"] for f in report["failures"]), report["failures"][0]


def test_runner_text_report_and_user_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = adapter(tmp_path, 'reply = {"id": case_id, "output": {"budget": budget if budget is not None else 7}}')
    status = main(["conform", "--family", "budgets", "--case", "budget-1_25pct-K80-L1000", "--", *command])
    out = capsys.readouterr().out
    assert status == 1 and "FAIL        budgets/budget-1_25pct-K80-L1000: budget: expected 1000, got 7" in out
    assert "0/1 cases passed" in out
    for argv, message in (
        (["conform"], "either --reference or the command"),
        (["conform", "--reference", "--", "node", "x.js"], "either --reference or the command"),
        (["conform", "--case", "nothing-*", "--reference"], "no case matches"),
        (["conform", "--timeout", "0", "--reference"], "--timeout must be a positive"),
        (["conform", "--vectors", str(tmp_path / "none"), "--reference"], "cannot read the vectors file"),
        (
            ["conform", "--family", "budgets", "--", str(tmp_path / "no-such-program")],
            "cannot start the implementation",
        ),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)


def test_first_difference() -> None:
    exact: JsonValue = {"exact": "1/3", "float": 1 / 3}
    assert first_difference("hardness", {"H2": exact}, {"H2": "1/3"}) is None
    assert first_difference("hardness", {"H2": exact}, {"H2": {"exact": "2/6", "float": 0.33}}) is None
    assert first_difference("hardness", {"H2": exact}, {"H2": 0.33333333333}) is None  # a float within 1e-9
    assert first_difference("hardness", {"H2": exact}, {"H2": 0.3333}) == "H2: expected 1/3, got 0.3333"
    assert first_difference("hardness", {"H2": None}, {"H2": 5}) == "H2: expected null (infinite or undefined), got 5"
    assert first_difference("schedules", {"n_k": [1, 2]}, {"n_k": [1, 2, 3]}) == "n_k: expected 2 items, got 3"
    assert first_difference("schedules", {"capped": True}, {}) == "capped: missing"
    assert first_difference("schedules", {"spend": 3}, {"spend": 3.0}) == "spend: expected 3, got 3.0"
    expected: dict[str, JsonValue] = {
        "chosen": 0,
        "ranking": [0, 1],
        "spent": 3,
        "batches": [[[0, 1], [1, 1]], [[0, 2]]],
    }
    assert first_difference("algorithms", expected, {**expected, "batches": [[[0, 1]], [[1, 1], [0, 2]]]}) == (
        "request 2 (batch 1, item 2): the same request [model, query] = [1, 1], but in batch 2 as item 1"
    )
    assert first_difference("algorithms", expected, {**expected, "chosen": 1}) == "chosen: expected 0, got 1"


def test_the_guide_example_is_the_committed_case() -> None:
    guide = (ROOT / "docs" / "conformance.md").read_text()
    blocks = [part.split("```", 1)[0] for part in guide.split("```json\n")[1:]]
    shown = next(block for block in blocks if '"sysrs-ties-everywhere-1"' in block)
    case = next(
        c for c in load_vectors(COMMITTED, ["algorithms"])["algorithms"] if c["id"] == "sysrs-ties-everywhere-1"
    )
    assert json.loads(shown) == case  # the guide shows the whole case, as committed
    text = json.dumps(case)
    for fragment in (
        '"budget": 12',
        '"query_orders": [[0, 3, 1, 5, 4, 2]]',
        '"arm_priority": [1, 3, 2, 0]',
        '"chosen": 1',
        '"ranking": [1, 3, 2, 0]',
        '"spent": 10',
        '"batches": [[[0, 0], [0, 3], [1, 0], [1, 3], [2, 0], [2, 3], [3, 0], [3, 3]], [[1, 1], [3, 1]]]',
    ):
        assert fragment in shown and fragment in text, fragment
