"""``python -m sysrs_ref simulate``: the JSON contract of docs/cli.md, text, progress, mistakes."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from sysrs_ref import load_scores, simulate
from sysrs_ref.cli import main
from tests.cli_runner import PROJECT_ROOT, assert_user_mistake, one_json_object, run_cli, run_main
from tests.real_data import real

TINY = PROJECT_ROOT / "data" / "fixtures" / "tiny_matrix.csv"  # 4 x 6, model 0 best
CONTRACT_KEYS = {"algorithm", "params", "K", "L", "runs", "seed", "results"}
ROW_KEYS = {"budget_pct", "budget", "accuracy", "spent_max"}


@pytest.fixture(scope="module")
def gsm() -> str:
    """The shipped benchmark gsm (80 x 1000), by the name --scores accepts."""
    return "gsm"


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_contract(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(
        capsys,
        "simulate",
        "--scores",
        str(gsm),
        "--algorithm",
        "sysrs",
        "--budgets",
        "8%,1.25%,2000",
        "--runs",
        "20",
        "--seed",
        "1",
        "--json",
    )
    assert status == 0, err
    assert err == ""  # stderr is not a terminal here: no progress bar
    payload = one_json_object(out)
    assert set(payload) == CONTRACT_KEYS
    assert payload["algorithm"] == "sysrs" and payload["params"] == {}
    assert (payload["K"], payload["L"], payload["runs"], payload["seed"]) == (80, 1000, 20, 1)
    rows = payload["results"]
    assert [row["budget"] for row in rows] == [6400, 1000, 2000]
    assert [row["budget_pct"] for row in rows] == [8, 1.25, 2.5]
    for row in rows:
        assert set(row) >= ROW_KEYS
        assert isinstance(row["budget_pct"], (int, float)) and not isinstance(row["budget_pct"], bool)
        assert isinstance(row["budget"], int)
        assert isinstance(row["accuracy"], float) and 0.0 <= row["accuracy"] <= 1.0
        assert isinstance(row["spent_max"], int) and 0 < row["spent_max"] <= row["budget"]
    assert rows[0]["accuracy"] > rows[1]["accuracy"]  # 8% finds the best model more often than 1.25%
    expected = simulate(real(gsm), "sysrs", ["8%", "1.25%", "2000"], 20, 1).to_json()
    assert payload == json.loads(json.dumps(expected))


def test_text_output(capsys: pytest.CaptureFixture[str], gsm: str) -> None:
    status, out, err = run_main(
        capsys,
        "simulate",
        "--scores",
        str(gsm),
        "--algorithm",
        "sr",
        "--budgets",
        "8%,1.25%",
        "--runs",
        "10",
    )
    assert status == 0, err
    assert err == ""
    assert not out.lstrip().startswith("{")
    lines = out.splitlines()
    assert lines[0].startswith(f"SR on {gsm}: 80 models x 1000 queries, 10 runs, seed 0, 1 worker, ")
    assert re.search(r", \d+\.\d\d s$", lines[0]), lines[0]  # the time taken
    assert "budget" in lines[1] and "accuracy" in lines[1] and "spent_max" in lines[1]
    result = simulate(real(gsm), "sr", ["8%", "1.25%"], 10)
    for line, row in zip(lines[3:5], result.rows, strict=True):
        assert line.split() == [
            f"{row.budget_pct:g}%",
            f"{row.budget:,}",
            f"{row.accuracy:.4f}",
            f"{row.correct}/10",
            f"{row.spent_max:,}",
        ]
    assert "true best model (model 0)" in lines[5]


def test_one_run_and_one_query_are_counted_in_the_singular(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "tiny.csv").write_text("1\n0\n")
    common = ["simulate", "--scores", str(tmp_path / "tiny.csv"), "--budgets", "100%", "--runs", "1"]
    status, out, err = run_main(capsys, *common, "--algorithm", "sr")
    assert status == 0, err
    assert out.startswith(f"SR on {tmp_path / 'tiny.csv'}: 2 models x 1 query, 1 run, seed 0, ")
    status, out, err = run_main(capsys, *common, "--algorithm", "sr,sysrs")
    assert status == 0, err
    assert out.startswith(f"2 algorithms on {tmp_path / 'tiny.csv'}: 2 models x 1 query, 1 run each, seed 0, ")


def test_a_is_passed_to_ucbe(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(
        capsys,
        "simulate",
        "--scores",
        str(TINY),
        "--algorithm",
        "ucbe",
        "--budgets",
        "4,50%,100%",
        "--runs",
        "8",
        "--a",
        "0.1",
        "--seed",
        "2",
        "--json",
    )
    assert status == 0, err
    payload = one_json_object(out)
    assert payload["params"] == {"a": "0.1"}
    assert payload == simulate(load_scores(TINY), "ucbe", [4, "50%", "100%"], 8, 2, a="0.1").to_json()
    assert payload["results"][2]["accuracy"] == 1.0  # every query seen: model 0 is found
    status, text, err = run_main(
        capsys, "simulate", "--scores", str(TINY), "--algorithm", "ucbe", "--budgets", "4", "--runs", "2", "--a", "0.1"
    )
    assert status == 0, err
    assert "UCB-E" in text.splitlines()[0] and "a = 0.1" in text.splitlines()[0]


def test_progress_bar_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, gsm: str
) -> None:
    argv = ["simulate", "--scores", str(gsm), "--algorithm", "sysrs", "--budgets", "8%", "--runs", "30", "--json"]
    for quiet in (False, True):
        terminal = FakeTTY()
        monkeypatch.setattr(sys, "stderr", terminal)
        status = main(argv + (["--quiet"] if quiet else []))
        monkeypatch.undo()
        assert status == 0
        assert one_json_object(capsys.readouterr().out)["runs"] == 30
        drawn = terminal.getvalue()
        if quiet:
            assert drawn == ""
        else:
            assert drawn.startswith("\rsysrs [") and drawn.endswith("\n")
            assert "30/30" in drawn and "100.0%" in drawn


def test_help_shows_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "python -m sysrs_ref simulate --scores gsm --algorithm sysrs --budgets 8%,20%,35%" in out
    for flag in ("--budgets", "--runs", "--workers", "--quiet", "--seed", "--a", "--json"):
        assert flag in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "simulate" in capsys.readouterr().out


MISTAKES: dict[str, tuple[list[str], str]] = {
    "missing file": (["--scores", "{missing}"], r"no_such_file\.npy.*no such file"),
    "bad budget": (["--budgets", "8%,abc"], r"'abc'"),
    "empty budget item": (["--budgets", "8%,,20%"], r"--budgets '8%,,20%' has an empty item"),
    "budget below K": (["--budgets", "79"], r"at least the number of models \(K=80\)"),
    "percentage too small": (["--budgets", "0.05%"], r"below the number of models"),
    "runs 0": (["--runs", "0"], r"--runs must be a positive integer, got 0"),
    "runs not a number": (["--runs", "ten"], r"--runs.*'ten'"),
    "workers 0": (["--workers", "0"], r"--workers must be a positive integer, got 0"),
    "negative seed": (["--seed", "-2"], r"--seed must be a non-negative integer, got -2"),
    "unknown algorithm": (["--algorithm", "nope"], r"unknown algorithm 'nope'"),
    "--a for sysrs": (["--a", "0.1"], r"sysrs has no parameter 'a'"),
    "bad --a for ucbe": (["--algorithm", "ucbe", "--a", "-1"], r"exploration parameter a"),
}


def _argv(changes: list[str], gsm: str, missing: Path) -> list[str]:
    options = {"--scores": str(gsm), "--algorithm": "sysrs", "--budgets": "8%", "--runs": "3"}
    extra: list[str] = []
    for flag, value in zip(changes[::2], changes[1::2], strict=True):
        if flag in options:
            options[flag] = value.format(missing=missing)
        else:
            extra += [flag, value]
    return ["simulate", *(item for pair in options.items() for item in pair), *extra]


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_user_mistakes(capsys: pytest.CaptureFixture[str], gsm: str, tmp_path: Path, mistake: str) -> None:
    changes, pattern = MISTAKES[mistake]
    status, out, err = run_main(capsys, *_argv(changes, gsm, tmp_path / "no_such_file.npy"))
    line = assert_user_mistake(status, out, err)
    assert re.search(pattern, line), f"{line!r} does not match {pattern!r}"


@pytest.mark.parametrize("missing_flag", ["--scores", "--algorithm", "--budgets", "--runs"])
def test_required_options(capsys: pytest.CaptureFixture[str], gsm: str, tmp_path: Path, missing_flag: str) -> None:
    argv = _argv([], gsm, tmp_path)
    at = argv.index(missing_flag)
    status, out, err = run_main(capsys, *(argv[:at] + argv[at + 2 :]))
    line = assert_user_mistake(status, out, err)
    assert missing_flag in line


def test_subprocess_two_workers_and_a_mistake(gsm: str, tmp_path: Path) -> None:
    result = run_cli(
        "simulate",
        "--scores",
        str(gsm),
        "--algorithm",
        "syus",
        "--budgets",
        "2%,10%",
        "--runs",
        "40",
        "--seed",
        "5",
        "--workers",
        "2",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # a pipe is not a terminal: no progress bar
    payload = one_json_object(result.stdout)
    assert payload == simulate(real(gsm), "syus", ["2%", "10%"], 40, 5).to_json()
    bad = run_cli("simulate", "--scores", str(gsm), "--algorithm", "sysrs", "--budgets", "8%", "--runs", "0")
    line = assert_user_mistake(bad.returncode, bad.stdout, bad.stderr)
    assert "--runs" in line


def test_ctrl_c_is_one_line_and_status_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from sysrs_ref import cli
    from sysrs_ref.cli import _simulate

    def interrupted(args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_simulate, "run", interrupted)
    status = cli.main(["simulate", "--scores", "x.npy", "--algorithm", "sysrs", "--budgets", "8%", "--runs", "1"])
    assert status == 130
    assert capsys.readouterr().err == "interrupted\n"
