"""`python -m sysrs_ref exact`: its contract and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sysrs_ref.cli import main
from sysrs_ref.loaders import load_scores

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "fixtures"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["exact", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_exact_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SySRs on [[1,1,1,0],[0,1,0,1]] at n = 6 errs with probability 1/3 (tests/reference/test_exact_small.py)."""
    scores = tmp_path / "two.csv"
    scores.write_text("1,1,1,0\n0,1,0,1\n")
    status, out, _ = run(capsys, "--scores", str(scores), "--budget", "6", "--algorithm", "sysrs", "--json")
    payload = json.loads(out)
    assert status == 0
    assert {"algorithm", "K", "L", "budget", "error", "error_float"} <= set(payload)
    assert (payload["algorithm"], payload["K"], payload["L"], payload["budget"]) == ("sysrs", 2, 4, 6)
    assert payload["error"] == "1/3" and payload["error_float"] == pytest.approx(1 / 3)


def test_exact_text_and_ucb_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "--scores", str(FIXTURE / "tiny_long.csv"), "--budget", "50%", "--algorithm", "syucbe", "--a", "0.1"
    )
    assert status == 0 and "SyUCB-E" in out and "P(no best model chosen)" in out
    status, out, _ = run(
        capsys,
        "--scores",
        str(FIXTURE / "tiny_long.csv"),
        "--budget",
        "50%",
        "--algorithm",
        "syucbe",
        "--a",
        "0.1",
        "--json",
    )
    assert json.loads(out)["params"] == {"a": "0.1"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "12%", "--algorithm", "sr"], "needs more than"),
        (["--budget", "12%", "--algorithm", "sysrs", "--a", "1"], "no parameter 'a'"),
        (["--budget", "3", "--algorithm", "sysrs"], "at least the number of models"),
        (["--budget", "12%", "--algorithm", "nope"], "unknown algorithm"),
    ],
)
def test_exact_refusals_are_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    status, out, err = run(capsys, "--scores", "gsm", *args)
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_exact_top_m(capsys: pytest.CaptureFixture[str]) -> None:
    """--top-m M: the engine's exact top-M error; SAR and SySAR run with m = M."""
    from fractions import Fraction

    from sysrs_ref.theory import topm_error_probability

    tiny = FIXTURE / "tiny_matrix.csv"
    instance = load_scores(tiny)
    params: dict[str, object] = {}
    for algorithm in ("sar", "sysar", "sysrs"):
        status, out, _ = run(
            capsys, "--scores", str(tiny), "--budget", "8", "--algorithm", algorithm, "--top-m", "2", "--json"
        )
        payload = json.loads(out)
        assert status == 0 and payload["top_m"] == 2
        assert Fraction(payload["error"]) == topm_error_probability(instance, algorithm, 8, 2)
        params[algorithm] = payload["params"]
    assert params["sysrs"] == {} and params["sar"] == {"m": "2"}
    status, out, _ = run(capsys, "--scores", str(tiny), "--budget", "8", "--algorithm", "sysar", "--top-m", "3")
    assert status == 0 and "P(ranking[:3] is not a true top-3 set)" in out
    for args, message in (
        (["--top-m", "2,3"], "takes one m"),
        (["--top-m", "4"], "m <= K - 1 = 3"),
        (["--top-m", "2", "--m", "3"], "leave out --m or give --m 2"),
    ):
        status, out, err = run(capsys, "--scores", str(tiny), "--budget", "8", "--algorithm", "sar", *args)
        assert status == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_a_raised_limit_in_scientific_form_still_refuses_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--limit 1e3000 on 1,000 x 1 SR: 1000! (4e+2567) is within it, so SR's count starts; it stops a phase past the
    limit (counting every phase took seconds, and the limit could not be written as the refusals print it)."""
    import numpy as np

    path = tmp_path / "wide.npy"
    np.save(path, np.arange(1000).reshape(1000, 1) % 2 / 1.0)
    status, out, err = run(capsys, "--scores", str(path), "--budget", "100%", "--algorithm", "sr", "--limit", "1e3000")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: exact enumeration of sr on 1000 x 1 at budget 1000 needs more than ")
    assert err.endswith(
        " cases, over the limit of 1e+3000; use a smaller instance (K <= 4, L <= 7 is always fine) or raise --limit\n"
    )
    status, _, err = run(capsys, "--scores", str(path), "--budget", "100%", "--limit", "1.5")
    assert status == 2 and "argument --limit: a whole number such as 10000000 or 1e7, up to 1e100000" in err


def test_one_case_is_said_in_the_singular(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """SyUS at n = K on one query: one case (the column), said as such."""
    path = tmp_path / "column.csv"
    path.write_text("1\n0\n1\n")
    status, out, _ = run(capsys, "--scores", str(path), "--budget", "3", "--algorithm", "syus")
    assert status == 0 and out.rstrip().endswith("; 1 case enumerated at most")
