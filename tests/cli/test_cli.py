"""The command-line contract of docs/cli.md: ``python -m sysrs_ref select|hardness|demo``.

Most tests call :func:`sysrs_ref.cli.main` in-process (fast); a few run the real
``python -m sysrs_ref`` in a subprocess to check exit status, stdout and stderr
exactly as a user or a script sees them.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref import ALGORITHMS, Instance, select
from sysrs_ref.cli import main
from tests.cli_runner import assert_user_mistake, one_json_object, run_cli, run_main

SELECT_KEYS = {"algorithm", "K", "L", "budget", "spent", "chosen", "ranking"}
HARDNESS_KEYS = {"K", "L", "best_mean", "mean", "delta2", "H1", "H2", "H3", "H3_prime"}


@pytest.fixture(scope="session")
def gsm() -> str:
    """The shipped benchmark gsm (80 x 1000), by the name --scores accepts."""
    return "gsm"


# -- select -----------------------------------------------------------------------------------


PERCENT = {"ucbe-lrf": 2}
"""The budget (percent) of select's JSON test, 12 unless named: UCB-E-LRF fits its ensemble every 32 evaluations."""


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_select_json_every_algorithm(capsys: pytest.CaptureFixture[str], gsm: str, algorithm: str) -> None:
    percent = PERCENT.get(algorithm, 12)
    status, out, err = run_main(
        capsys, "select", "--scores", str(gsm), "--budget", f"{percent}%", "--algorithm", algorithm, "--json"
    )
    assert status == 0, err
    assert err == ""
    payload = one_json_object(out)
    assert set(payload) >= SELECT_KEYS
    assert payload["algorithm"] == algorithm
    assert (payload["K"], payload["L"]) == (80, 1000)
    assert payload["budget"] == 80 * 1000 * percent // 100
    assert isinstance(payload["spent"], int) and 0 < payload["spent"] <= payload["budget"]
    ranking = payload["ranking"]
    assert sorted(ranking) == list(range(80))
    assert ranking[0] == payload["chosen"]


def test_select_json_subprocess(gsm: str) -> None:
    result = run_cli("select", "--scores", str(gsm), "--budget", "12%", "--algorithm", "sysrs", "--seed", "3", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    payload = one_json_object(result.stdout)
    assert set(payload) >= SELECT_KEYS
    assert payload["budget"] == 9600 and payload["spent"] <= 9600
    assert sorted(payload["ranking"]) == list(range(80))
    assert payload["ranking"][0] == payload["chosen"]


def test_select_fits_ucbe_lrf_with_the_references_doubles(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """select's UCB-E-LRF makes the reference's run: the same choice, ranking and spend as the pure-Python fit's."""
    rows = [[(3 * i + 5 * j + i * j) % 4 / 3 for j in range(9)] for i in range(5)]
    scores = tmp_path / "small.csv"
    scores.write_text("\n".join(",".join(str(x) for x in row) for row in rows) + "\n")
    status, out, err = run_main(
        capsys, "select", "--scores", str(scores), "--budget", "30", "--algorithm", "ucbe-lrf", "--seed", "4", "--json"
    )
    assert status == 0, err
    payload = one_json_object(out)
    want = select(Instance(rows), 30, "ucbe-lrf", seed=4)  # the default fit: fit_ensemble_reference
    assert (payload["chosen"], payload["ranking"], payload["spent"]) == (want.chosen, list(want.ranking), want.spent)


def test_select_integer_budget(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(capsys, "select", "--scores", str(gsm), "--budget", "5000", "--json")
    assert status == 0, err
    payload = one_json_object(out)
    assert payload["algorithm"] == "sysrs"  # the default
    assert payload["budget"] == 5000 and payload["spent"] <= 5000


def test_select_a_works_for_ucbe(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(
        capsys, "select", "--scores", str(gsm), "--budget", "3%", "--algorithm", "ucbe", "--a", "0.1", "--json"
    )
    assert status == 0, err
    payload = one_json_object(out)
    assert payload["algorithm"] == "ucbe"
    assert Fraction(payload["params"]["a"]) == Fraction(1, 10)
    assert payload["spent"] <= payload["budget"] == 2400


def test_select_a_is_rejected_for_sysrs(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(
        capsys, "select", "--scores", str(gsm), "--budget", "12%", "--algorithm", "sysrs", "--a", "0.1"
    )
    line = assert_user_mistake(status, out, err)
    assert "sysrs" in line and "'a'" in line


@pytest.mark.parametrize("a", ["0", "-1", "nan", "abc"])
def test_select_bad_a_for_ucbe(capsys: pytest.CaptureFixture[str], gsm: str, a: str) -> None:
    status, out, err = run_main(
        capsys, "select", "--scores", str(gsm), "--budget", "12%", "--algorithm", "ucbe", f"--a={a}"
    )
    line = assert_user_mistake(status, out, err)
    assert "exploration parameter a" in line


@pytest.mark.parametrize("algorithm", ["sysrs", "ucbe", "us"])
def test_select_same_seed_same_output(capsys: pytest.CaptureFixture[str], gsm: str, algorithm: str) -> None:
    # 3%: UCB-E spends its budget one evaluation at a time, and a shorter run repeats just as well
    argv = ("select", "--scores", str(gsm), "--budget", "3%", "--algorithm", algorithm, "--seed", "7", "--json")
    first = run_main(capsys, *argv)
    second = run_main(capsys, *argv)
    assert first[0] == second[0] == 0
    assert first[1] == second[1]
    assert one_json_object(first[1])["seed"] == 7


def test_select_seed_changes_the_draw(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    rankings = set()
    for seed in range(3):
        status, out, err = run_main(
            capsys, "select", "--scores", str(gsm), "--budget", "5%", "--algorithm", "us", "--seed", str(seed), "--json"
        )
        assert status == 0, err
        rankings.add(tuple(one_json_object(out)["ranking"]))
    assert len(rankings) > 1, "--seed had no effect on the run"


def test_select_text_output(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(capsys, "select", "--scores", str(gsm), "--budget", "12%", "--seed", "1", "--json")
    assert status == 0, err
    payload = one_json_object(out)
    status, text, err = run_main(capsys, "select", "--scores", str(gsm), "--budget", "12%", "--seed", "1")
    assert status == 0, err
    assert not text.lstrip().startswith("{")
    assert "SySRs" in text
    assert "80 models x 1000 queries" in text
    assert "9,600" in text
    assert f"model {payload['chosen']}" in text
    verdict = "a true best model" if payload["correct"] else "NOT a best model"
    assert verdict in text
    assert f"{payload['spent']:,}" in text


# -- hardness --------------------------------------------------------------------------------------


def _check_hardness_payload(payload: dict[str, Any]) -> None:
    assert set(payload) >= HARDNESS_KEYS
    assert (payload["K"], payload["L"]) == (80, 1000)
    assert payload["H2"] == pytest.approx(61224.5, abs=0.1)
    assert payload["exact"]["H2"] == "3000000/49"
    assert payload["best_mean"] == pytest.approx(0.956)
    assert payload["delta2"] == pytest.approx(0.007)


def test_hardness_json(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(capsys, "hardness", "--scores", str(gsm), "--json")
    assert status == 0, err
    _check_hardness_payload(one_json_object(out))


def test_hardness_json_subprocess(gsm: str) -> None:
    result = run_cli("hardness", "--scores", str(gsm), "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    _check_hardness_payload(one_json_object(result.stdout))


def test_hardness_text(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(capsys, "hardness", "--scores", str(gsm))
    assert status == 0, err
    assert not out.lstrip().startswith("{")
    assert "K = 80" in out and "L = 1000" in out
    assert "H2" in out and "61224.5" in out
    assert "H3'" in out
    assert "0.9560" in out  # best mean


# -- demo -------------------------------------------------------------------------------------------


def test_demo_text_subprocess() -> None:
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "correct" in result.stdout
    assert "WRONG" not in result.stdout
    assert "picked         model 0" in result.stdout


def test_demo_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(capsys, "demo", "--json")
    assert status == 0, err
    payload = one_json_object(out)
    assert payload["budget"] == 6000
    assert payload["spent"] <= payload["budget"]
    assert payload["chosen"] in payload["true_best"]
    assert payload["correct"] is True
    status, text, err = run_main(capsys, "demo")
    assert status == 0, err
    assert f"model {payload['chosen']}" in text
    assert "correct" in text
    assert "6,000" in text


# -- help -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["select", "hardness", "demo"])
def test_help_shows_an_example(capsys: pytest.CaptureFixture[str], command: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    examples = [line for line in out.splitlines() if "python -m sysrs_ref" in line and command in line]
    assert examples, f"no example line in {command} --help:\n{out}"


def test_top_level_help_shows_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "python -m sysrs_ref demo" in out
    for command in ("select", "hardness", "demo"):
        assert command in out


# -- user mistakes ----------------------------------------------------------------------------------


@pytest.fixture
def nan_csv(tmp_path: Path) -> Path:
    path = tmp_path / "nan_scores.csv"
    path.write_text("1,0,1\n0,nan,1\n", encoding="utf-8")
    return path


MISTAKES: dict[str, tuple[list[str], str]] = {
    # name: (argv with {gsm}/{missing}/{nan_csv} placeholders, regex the one stderr line must match)
    "missing file": (["select", "--scores", "{missing}", "--budget", "10"], r"no_such_file\.npy.*no such file"),
    "nan score csv": (["select", "--scores", "{nan_csv}", "--budget", "4"], r"nan_scores\.csv: line 2, column 2.*nan"),
    "nan score csv hardness": (["hardness", "--scores", "{nan_csv}"], r"nan_scores\.csv: line 2, column 2.*nan"),
    "budget below K": (["select", "--scores", "{gsm}", "--budget", "79"], r"at least the number of models \(K=80\)"),
    "budget above K*L": (["select", "--scores", "{gsm}", "--budget", "80001"], r"at most K\*L = 80000"),
    "budget not a number": (["select", "--scores", "{gsm}", "--budget", "12.5"], r"'12\.5'"),
    "percentage out of range": (["select", "--scores", "{gsm}", "--budget", "101%"], r"101%"),
    "unknown algorithm": (
        ["select", "--scores", "{gsm}", "--budget", "12%", "--algorithm", "nope"],
        r"unknown algorithm 'nope'",
    ),
    "unknown subcommand": (["frobnicate"], r"invalid choice: 'frobnicate'"),
    "no subcommand": ([], r"required"),
    "missing --scores": (["select", "--budget", "10"], r"--scores"),
    "missing --budget": (["select", "--scores", "{gsm}"], r"--budget"),
    "negative --seed": (["select", "--scores", "{gsm}", "--budget", "12%", "--seed", "-1"], r"--seed.*-1"),
    "seed not an integer": (["select", "--scores", "{gsm}", "--budget", "12%", "--seed", "abc"], r"--seed.*'abc'"),
}


def _fill(argv: list[str], gsm: str, missing: Path, nan_csv: Path) -> list[str]:
    return [arg.format(gsm=gsm, missing=missing, nan_csv=nan_csv) for arg in argv]


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_user_mistake_in_process(
    capsys: pytest.CaptureFixture[str], gsm: str, nan_csv: Path, tmp_path: Path, mistake: str
) -> None:
    argv, pattern = MISTAKES[mistake]
    status, out, err = run_main(capsys, *_fill(argv, gsm, tmp_path / "no_such_file.npy", nan_csv))
    line = assert_user_mistake(status, out, err)
    assert re.search(pattern, line), f"{line!r} does not match {pattern!r}"


@pytest.mark.parametrize("mistake", ["missing file", "budget below K", "unknown subcommand", "missing --scores"])
def test_user_mistake_subprocess(gsm: str, nan_csv: Path, tmp_path: Path, mistake: str) -> None:
    argv, pattern = MISTAKES[mistake]
    result = run_cli(*_fill(argv, gsm, tmp_path / "no_such_file.npy", nan_csv))
    line = assert_user_mistake(result.returncode, result.stdout, result.stderr)
    assert re.search(pattern, line), f"{line!r} does not match {pattern!r}"


@pytest.mark.parametrize(
    "argv",
    [
        ["select", "--budget", "10%"],
        ["simulate", "--algorithm", "sysrs", "--budgets", "10%", "--runs", "1"],
        ["hardness"],
    ],
)
def test_a_missing_npy_named_as_a_shipped_benchmark_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str]
) -> None:
    """``--scores math.npy`` with no such file: the shipped benchmark's name, not only "no such file"."""
    monkeypatch.chdir(tmp_path)
    status, out, err = run_main(capsys, argv[0], "--scores", "math.npy", *argv[1:])
    assert status == 2 and out == ""
    assert err == "error: no file 'math.npy'; the shipped benchmark is named without a suffix: math\n"
