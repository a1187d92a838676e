"""python -m proofs_check: every claim has its expected status, and the command line contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofs_check import Claim, Outcome, Status, all_claims
from proofs_check.__main__ import main, render_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results() -> list[tuple[Claim, Outcome]]:
    """The full registry, run once for this module."""
    return [(claim, claim.run()) for claim in all_claims()]


def test_every_claim_has_its_expected_status(results: list[tuple[Claim, Outcome]]) -> None:
    wrong = {c.id: (o.status.value, c.expected.value) for c, o in results if o.status != c.expected}
    assert wrong == {}


def test_registry_covers_the_paper(results: list[tuple[Claim, Outcome]]) -> None:
    ids = [c.id for c, _ in results]
    assert len(ids) == len(set(ids)) >= 30
    for prefix in ("hardness-", "bernstein-", "csr-", "theta-star-", "cor-", "two-arm-", "lb-"):
        assert any(i.startswith(prefix) for i in ids), prefix


def test_established_verdicts(results: list[tuple[Claim, Outcome]]) -> None:
    by_id = {c.id: o for c, o in results}
    conditional = {i for i, o in by_id.items() if o.status == Status.HOLDS_WITH_CONDITIONS}
    assert conditional == {"bernstein-parameter-choice", "theta-star-tight", "cor-case1-linear", "cor-case1-tangent"}
    assert "theta=0 <= theta*=1/5" in (by_id["theta-star-tight"].counterexample or "")
    assert by_id["cor-case1-linear"].conditions and "theta_i >= 0" in by_id["cor-case1-linear"].conditions[0]
    for outcome in by_id.values():
        assert outcome.detail
        if outcome.status == Status.HOLDS_WITH_CONDITIONS:
            assert outcome.conditions


def test_table_marks_every_claim_ok(results: list[tuple[Claim, Outcome]]) -> None:
    table = render_table(results)
    assert "UNEXPECTED" not in table
    assert f"{len(results)}/{len(results)} claims have their expected status" in table
    assert "Claims that fail or need conditions:" in table


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == [c.id for c in all_claims()]


def test_single_claim_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "lb-constant-11", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["claims"]] == ["lb-constant-11"]
    assert data["claims"][0]["status"] == "holds" and data["claims"][0]["method"] == "proved"


def test_single_claim_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "theta-star-tight"]) == 0
    out = capsys.readouterr().out
    assert "theta-star-tight" in out and "holds-with-conditions" in out


@pytest.mark.parametrize("argv", [["--claim", "no-such-claim"], ["--bogus"], ["--claim"]])
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "python -m proofs_check --claim" in capsys.readouterr().out


def test_subprocess_json_contract() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "proofs_check", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,  # a hang-guard only: it takes a few seconds, several times that on a loaded machine
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"claims"}
    for claim in data["claims"]:
        assert {"id", "paper_ref", "statement", "status", "detail"} <= set(claim)
        assert claim["status"] in ("holds", "holds-with-conditions", "fails")
        assert claim["method"] in ("proved", "checked")
        assert claim["as_expected"] is True
