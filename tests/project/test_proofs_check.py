"""python -m proofs_check: every claim has its expected status, and the command line contract."""

from __future__ import annotations

import ast
import doctest
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofs_check import DEFAULT_MAX_K, Claim, Domains, Method, Outcome, Status, all_claims
from proofs_check.__main__ import LIMITS, _record, main, render_table
from tests.import_graph import cycles
from tests.pages import FLAGS, fences

ROOT = Path(__file__).resolve().parents[2]

Results = list[tuple[Claim, Outcome, float]]

CODE_CLAIMS = {
    "code-schedule-paper",
    "code-schedule-capped",
    "code-spend-formula",
    "code-budget-percentage",
    "code-budget-text",
    "code-certify-tolerance",
    "code-ucb-tolerance",
    "code-fast-certified",
    "code-fast-tolerance-use",
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
        methods = ("smt", "bounded-exhaustive")
        expected = methods if claim_id == "code-budget-percentage" else ("symbolic", *methods)
        assert by_id[claim_id].all_methods == expected
        assert f"every K in [2, {DEFAULT_MAX_K}]" in by_id[claim_id].domain
    for claim_id in ("code-schedule-paper", "code-schedule-capped"):
        assert "every K >= 2" in by_id[claim_id].domain and "2048" in by_id[claim_id].domain
    assert by_id["code-budget-text"].all_methods == ("bounded-exhaustive",)
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
    assert by_id["code-fast-tolerance-use"].all_methods == ("static",)
    assert (
        "_elimination.py" in by_id["code-fast-tolerance-use"].domain
        and "cut.inc" in by_id["code-fast-tolerance-use"].domain
    )
    assert "over {0, 1/2, 1}" in by_id["code-fast-certified"].domain
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
    (capped,) = [line for line in code_table.splitlines() if line.startswith("code-schedule-capped ")]
    assert capped.split()[1:3] == ["symbolic+smt+bounded-exhaustive", "holds"]


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
    assert claim["methods"] == ["symbolic", "smt", "bounded-exhaustive"]
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
        ["--max-k", "1000000"],
        ["--contracts", "50,50"],
        ["--contracts", "4,6"],
        ["--ucb-contracts", "40,40"],
        ["--ucb-contracts", "4,3"],
        ["--jobs", "100000"],
    ],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--max-k", "401"], f"--max-k 401 is beyond its bound: at most 400 ({LIMITS['--max-k'].cost})"),
        (
            ["--contracts", "4,4"],
            f"--contracts 4,4 is beyond its bound: at most 3,5 or 4,3 ({LIMITS['--contracts'].cost})",
        ),
        (["--contracts", "3,6"], "--contracts 3,6 is beyond its bound: at most 3,5 or 4,3"),
        (["--ucb-contracts", "3,4"], "--ucb-contracts 3,4 is beyond its bound: at most 3,3"),
        (["--ucb-contracts", "1,2"], "--ucb-contracts needs K >= 2 and L >= 1, got '1,2'"),
        (["--ucb-contracts", "3"], "--ucb-contracts needs K,L (2 integers), K >= 2 and L >= 1, got '3'"),
        (["--jobs", "65"], "--jobs 65 is beyond its bound: at most 64"),
        (["--fast-cells", "9,3"], "--fast-cells 9,3 is beyond its bound: at most 9,2 or 6,4"),
        (["--fast-cells", "3,2"], "--fast-cells needs C >= 4 and V >= 2, got '3,2'"),
    ],
)
def test_a_size_beyond_its_bound_is_refused_naming_the_option(
    argv: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(f"python -m proofs_check: error: {line}")


def test_the_largest_sizes_are_accepted() -> None:
    from proofs_check.__main__ import _parser

    args = _parser().parse_args(["--max-k", "400", "--contracts", "4,3", "--ucb-contracts", "3,3", "--jobs", "64"])
    assert (args.max_k, args.contracts, args.ucb_contracts, args.jobs) == ((400,), (4, 3), (3, 3), (64,))
    assert _parser().parse_args(["--contracts", "3,5"]).contracts == (3, 5)


def test_the_size_options_set_one_domains_record() -> None:
    from proofs_check.__main__ import _domains, _parser

    args = _parser().parse_args(["--max-k", "12", "--decisions", "3,3", "--fast-cells", "9,2", "--jobs", "1"])
    assert _domains(args) == Domains(max_k=12, decisions=(3, 3), fast_cells=(9, 2))
    assert _domains(_parser().parse_args([])) == Domains()


def test_help_states_every_bound_and_its_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help
    for limit in LIMITS.values():
        assert f"at most {limit.shown()}: {' '.join(limit.cost.split())}" in text.replace("- ", "-")


def test_list_json_is_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["claims"]
    assert [entry["id"] for entry in listed] == [c.id for c in all_claims()]
    assert set(listed[0]) == {"id", "paper_ref", "statement", "expected"}


def test_output_that_cannot_be_written_is_one_line_and_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    assert main(["--list"]) == 2
    assert capsys.readouterr().err == (
        "python -m proofs_check: error: the output could not be written to stdout (I/O operation on closed file)\n"
    )
    monkeypatch.setattr(sys, "stdout", None)  # started with stdout closed (`>&-`)
    assert main(["--list"]) == 2
    assert "stdout is closed, so no output could be written: nothing was run" in capsys.readouterr().err


class _Unwritable(io.StringIO):
    def write(self, text: str, /) -> int:
        raise OSError(28, "No space left on device")


def test_an_unwritable_stderr_keeps_the_exit_status(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Unwritable())
    assert main(["--max-k", "many"]) == 2
    monkeypatch.setattr(sys, "stderr", None)  # started with stderr closed (`2>&-`)
    assert main(["--jobs", "0"]) == 2


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "python -m proofs_check --claim" in capsys.readouterr().out


@pytest.mark.slow
def test_json_records_of_every_claim(results: Results) -> None:
    for claim, outcome, seconds in results:
        record = _record(claim, outcome, seconds)
        assert {"id", "paper_ref", "statement", "status", "detail", "methods", "domain", "seconds"} <= set(record)
        assert record["status"] in ("holds", "holds-with-conditions", "fails")
        assert record["method"] in ("proved", "checked", "smt", "symbolic", "bounded-exhaustive", "static")
        assert isinstance(record["methods"], list) and record["methods"]
        assert set(record["methods"]) <= {
            "sympy",
            "smt",
            "symbolic",
            "bounded-exhaustive",
            "static",
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
    assert claim["methods"] == ["symbolic", "smt", "bounded-exhaustive"] and "every K in [2, 3]" in claim["domain"]
    assert claim["seconds"] >= 0


def _proofs_check_imports() -> dict[str, set[str]]:
    """Module -> the proofs_check modules it imports (every import, in functions too), read with :mod:`ast`."""
    package = ROOT / "proofs_check"
    names = {path.stem for path in package.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "proofs_check":
                found |= {alias.name for alias in node.names if alias.name in names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("proofs_check."):
                found.add((node.module or "").split(".")[1])
            elif isinstance(node, ast.Import):
                found |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("proofs_check.")}
        graph[path.stem] = found - {path.stem}
    return graph


def test_proofs_check_has_no_import_cycle() -> None:
    graph = _proofs_check_imports()
    assert graph["registry"] >= {"claim", "code_schedule", "bernstein"}
    assert graph["claim"] == set()
    assert cycles(graph) == [], "the claim types belong in proofs_check.claim, below registry and the claim modules"


def test_the_theory_page_states_every_bound() -> None:
    text = " ".join((ROOT / "docs" / "theory.md").read_text().split())
    for option, limit in LIMITS.items():
        assert f"`{option}` at most {limit.shown()}" in text, option
