"""python -m proofs_check: every claim has its expected status, and the command line contract."""

from __future__ import annotations

import doctest
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofs_check import DEFAULT_MAX_K, Claim, Method, Outcome, Status, all_claims
from proofs_check.__main__ import _record, main, render_table
from tests.pages import FLAGS, fences

ROOT = Path(__file__).resolve().parents[2]

Results = list[tuple[Claim, Outcome, float]]

CODE_CLAIMS = {
    "code-schedule-paper",
    "code-schedule-capped",
    "code-spend-formula",
    "code-budget-percentage",
    "code-certify-tolerance",
    "code-ucb-tolerance",
    "code-algorithm-contracts",
    "code-contracts-symbolic",
    "code-ucb-contracts-symbolic",
    "code-bound-formulas",
    "code-hardness-formulas",
    "code-exact-engines",
    "code-decisions-uniform",
    "code-decisions-sr",
    "code-decisions-sar",
    "code-decisions-ucb",
}


@pytest.fixture(scope="module")
def results() -> Results:
    """The full registry (schedules proved for every K <= DEFAULT_MAX_K), run once for this module."""
    return [(claim, claim.run(), 0.0) for claim in all_claims()]


@pytest.mark.slow
def test_every_claim_has_its_expected_status(results: Results) -> None:
    wrong = {c.id: (o.status.value, c.expected.value, o.detail) for c, o, _ in results if o.status != c.expected}
    assert wrong == {}


@pytest.mark.slow
def test_registry_covers_the_paper(results: Results) -> None:
    ids = [c.id for c, _, _ in results]
    assert len(ids) == len(set(ids)) >= 30
    for prefix in ("hardness-", "bernstein-", "csr-", "theta-star-", "cor-", "two-arm-", "lb-"):
        assert any(i.startswith(prefix) for i in ids), prefix
    assert {i for i in ids if i.startswith("code-")} == CODE_CLAIMS


@pytest.mark.slow
def test_code_claims_state_method_and_domain(results: Results) -> None:
    by_id = {c.id: o for c, o, _ in results}
    for claim_id in CODE_CLAIMS:
        outcome = by_id[claim_id]
        assert outcome.status == Status.HOLDS, (claim_id, outcome.detail)
        assert outcome.domain and outcome.methods
    for claim_id in ("code-schedule-paper", "code-schedule-capped", "code-spend-formula", "code-budget-percentage"):
        assert by_id[claim_id].all_methods == ("smt", "model-checked-against-code")
        assert f"every K in [2, {DEFAULT_MAX_K}]" in by_id[claim_id].domain
        assert f"for every K in [2, {DEFAULT_MAX_K}]" in by_id[claim_id].detail
    assert by_id["code-certify-tolerance"].all_methods == ("smt",)
    assert "1099511627776" in by_id["code-certify-tolerance"].domain
    assert by_id["code-ucb-tolerance"].all_methods == ("smt",)
    assert "L in [1, 2^40)" in by_id["code-ucb-tolerance"].domain
    assert by_id["code-algorithm-contracts"].all_methods == ("bounded-exhaustive",)
    assert "K L <= 6" in by_id["code-algorithm-contracts"].domain
    symbolic = by_id["code-contracts-symbolic"]
    assert symbolic.all_methods == ("symbolic",)
    assert "every score matrix in [0, 1]^(K x L)" in symbolic.domain and "K = 2 with L <= 5" in symbolic.domain
    assert "UCB-E, SyUCB-E: code-ucb-contracts-symbolic" in symbolic.domain
    ucb = by_id["code-ucb-contracts-symbolic"]
    assert ucb.all_methods == ("symbolic",)
    assert "K = 2 with L <= 3, K in [3, 3] with L <= 2" in ucb.domain and "over-approximation" in ucb.domain
    assert by_id["code-bound-formulas"].all_methods == ("symbolic", "bounded-exhaustive")
    assert "every input on each path the exact grid reaches" in by_id["code-bound-formulas"].domain
    assert by_id["code-hardness-formulas"].all_methods == ("bounded-exhaustive",)
    assert "K = 3, L = 2, scores in {0, 1/2, 1}" in by_id["code-hardness-formulas"].domain
    exact = by_id["code-exact-engines"]
    assert exact.all_methods == ("bounded-exhaustive",)
    assert "K = 2, L = 3, scores in {0, 1}" in exact.domain and "bayes_error" in exact.domain
    for claim_id in ("code-decisions-uniform", "code-decisions-sr", "code-decisions-sar", "code-decisions-ucb"):
        decisions = by_id[claim_id]
        assert decisions.all_methods == ("symbolic", "bounded-exhaustive")
        assert "every score matrix in [0, 1]^(K x L)" in decisions.domain and "{0, 1/2, 1}" in decisions.domain
    assert by_id["lb-constant-11"].all_methods == ("sympy",)


@pytest.mark.slow
def test_established_verdicts(results: Results) -> None:
    by_id = {c.id: o for c, o, _ in results}
    conditional = {i for i, o in by_id.items() if o.status == Status.HOLDS_WITH_CONDITIONS}
    assert conditional == {"bernstein-parameter-choice", "theta-star-tight", "cor-case1-linear", "cor-case1-tangent"}
    assert "theta=0 <= theta*=1/5" in (by_id["theta-star-tight"].counterexample or "")
    assert by_id["cor-case1-linear"].conditions and "theta_i >= 0" in by_id["cor-case1-linear"].conditions[0]
    for outcome in by_id.values():
        assert outcome.detail
        if outcome.status == Status.HOLDS_WITH_CONDITIONS:
            assert outcome.conditions


@pytest.mark.slow
def test_table_marks_every_claim_ok(results: Results) -> None:
    table = render_table(results)
    assert "UNEXPECTED" not in table
    assert f"{len(results)}/{len(results)} claims have their expected status" in table
    assert "Claims that fail or need conditions:" in table
    code_table = table[table.index("Claims about the code:") :]
    header = code_table.splitlines()[1].split()
    assert header == ["claim", "method", "status", "time", "domain"]
    assert "code-schedule-capped         smt+model-checked-against-code  holds" in code_table


@pytest.mark.slow
def test_the_theory_page_shows_the_default_run(results: Results) -> None:
    """docs/theory.md's table is what ``python -m proofs_check`` prints (times elided), from this module's run.

    The page shows it in a ``text`` fence after the command's not-run ``bash`` fence: the audit runs once
    for the suite, here, not a second time for the page.
    """
    blocks = fences(ROOT / "docs" / "theory.md")
    shown = [
        after.body
        for before, after in itertools.pairwise(blocks)
        if before.language == "bash" and before.body.strip() == "python -m proofs_check" and after.language == "text"
    ]
    assert len(shown) == 1, "docs/theory.md shows `python -m proofs_check` and its output exactly once"
    printed = render_table(results) + "\n"
    assert doctest.OutputChecker().check_output(shown[0], printed, FLAGS), (
        f"docs/theory.md shows\n{shown[0]}\nbut python -m proofs_check prints\n{printed}"
    )


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == [c.id for c in all_claims()]


def test_single_claim_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "lb-constant-11", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["claims"]] == ["lb-constant-11"]
    assert data["claims"][0]["status"] == "holds" and data["claims"][0]["method"] == "proved"
    assert data["claims"][0]["methods"] == ["sympy"]


def test_max_k_reaches_the_schedule_claims(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "code-spend-formula", "--max-k", "7", "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["methods"] == ["smt", "model-checked-against-code"]
    assert "every K in [2, 7]" in claim["domain"] and claim["seconds"] >= 0


@pytest.mark.slow
def test_contracts_option_widens_the_symbolic_domain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "code-contracts-symbolic", "--contracts", "2,2", "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["methods"] == ["symbolic"] and claim["status"] == "holds"
    assert "K = 2 with L <= 5" in claim["domain"] and "K in [3" not in claim["domain"]


@pytest.mark.slow
def test_exact_option_sets_the_engines_domain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "code-exact-engines", "--exact", "2,1", "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["methods"] == ["bounded-exhaustive"] and claim["status"] == "holds"
    assert "K = 2, L = 1, scores in {0, 1/2, 1}, every budget" in claim["domain"]
    assert "K = 3" not in claim["domain"].split("; plus")[0] and "a = 1 and 1/8" in claim["domain"]


@pytest.mark.slow
def test_ucb_contracts_option_sets_the_ucb_domain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "code-ucb-contracts-symbolic", "--ucb-contracts", "2,2", "--json"]) == 0
    (claim,) = json.loads(capsys.readouterr().out)["claims"]
    assert claim["methods"] == ["symbolic"] and claim["status"] == "holds"
    assert "K = 2 with L <= 3" in claim["domain"] and "K in [3" not in claim["domain"]


def _pid_claim(claim_id: str, group: str = "", weight: float = 0.0) -> Claim:
    import os

    def run() -> Outcome:
        return Outcome(Status.HOLDS, Method.PROVED, f"pid {os.getpid()}")

    return Claim(claim_id, "-", "-", Status.HOLDS, run, weight=weight, group=group)


def test_parallel_run_reports_in_registry_order_and_keeps_groups_together() -> None:
    import os

    from proofs_check.__main__ import _run

    claims = (
        _pid_claim("a", group="g"),
        _pid_claim("b", weight=5),
        _pid_claim("c", group="g"),
        *(claim for claim in all_claims() if claim.id in ("lb-moments", "two-arm-dominance")),
    )
    parallel, sequential = _run(claims, 2), _run(claims, 1)
    assert [c.id for c, _, _ in parallel] == [c.id for c, _, _ in sequential] == [c.id for c in claims]
    details = {c.id: o.detail for c, o, _ in parallel}
    assert details["a"] == details["c"] != f"pid {os.getpid()}"  # one worker ran the group, not this process
    for (_, fast, _), (_, slow, _) in zip(parallel[3:], sequential[3:], strict=True):
        assert fast == slow  # the same outcome, record for record


def test_single_claim_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--claim", "theta-star-tight"]) == 0
    out = capsys.readouterr().out
    assert "theta-star-tight" in out and "holds-with-conditions" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--claim", "no-such-claim"],
        ["--bogus"],
        ["--claim"],
        ["--max-k", "1"],
        ["--max-k", "many"],
        ["--contracts", "4"],
        ["--contracts", "1,3"],
        ["--contracts", "3,x"],
        ["--ucb-contracts", "1,2"],
        ["--jobs", "0"],
        ["--jobs", "two"],
    ],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "python -m proofs_check --claim" in capsys.readouterr().out


@pytest.mark.slow
def test_json_records_of_every_claim(results: Results) -> None:
    for claim, outcome, seconds in results:
        record = _record(claim, outcome, seconds)
        assert {"id", "paper_ref", "statement", "status", "detail", "methods", "domain", "seconds"} <= set(record)
        assert record["status"] in ("holds", "holds-with-conditions", "fails")
        assert record["method"] in ("proved", "checked", "smt", "symbolic", "bounded-exhaustive")
        assert isinstance(record["methods"], list) and record["methods"]
        assert set(record["methods"]) <= {
            "sympy",
            "smt",
            "symbolic",
            "bounded-exhaustive",
            "model-checked-against-code",
        }
        assert record["domain"] and record["as_expected"] is True
        json.dumps(record)


@pytest.mark.slow
def test_subprocess_json_contract() -> None:
    # the command line end to end on two claims (the fixture above runs every claim in-process)
    done = subprocess.run(
        [sys.executable, "-m", "proofs_check", "--json", "--claim", "code-spend-formula", "--max-k", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,  # a hang-guard only: it takes seconds, several times that on a loaded machine
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"claims"}
    (claim,) = data["claims"]
    assert claim["id"] == "code-spend-formula" and claim["status"] == "holds" and claim["as_expected"] is True
    assert claim["methods"] == ["smt", "model-checked-against-code"] and "every K in [2, 3]" in claim["domain"]
    assert claim["seconds"] >= 0
