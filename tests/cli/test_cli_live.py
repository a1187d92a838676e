"""``python -m sysrs_ref live``: init, next, record, status from any harness, ending as ``select``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sysrs_ref.cli import main


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    """The command's JSON output (parsed JSON: Any, as json.loads gives it)."""
    assert main(argv) == 0
    found = json.loads(capsys.readouterr().out)
    assert isinstance(found, dict)
    return found


def _ids(tmp_path: Path) -> tuple[Path, Path]:
    models, queries = tmp_path / "models.txt", tmp_path / "queries.json"
    models.write_text("".join(f"model-{i}\n" for i in range(6)) + "\n")
    queries.write_text(json.dumps({"queries": [f"item/{j}" for j in range(25)]}))  # convert's sidecar shape
    return models, queries


#: Scores with two decimals: "0.1" as text is 1/10, as a float it is not, and ties between sums are common.
DECIMALS = np.round(np.random.default_rng(7).random((6, 25)), 2)


@pytest.mark.parametrize(("algorithm", "extra"), [("sysrs", []), ("ucbe", ["--a", "0.5"]), ("us", []), ("sr", [])])
@pytest.mark.parametrize("kind", ["npy", "csv"])
def test_the_command_line_loop_ends_as_select(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], algorithm: str, extra: list[str], kind: str
) -> None:
    """Scores as a .npy holds them (--float) end as select on the .npy; as exact decimals, as select on a .csv matrix."""
    if kind == "npy":
        np.save(tmp_path / "scores.npy", DECIMALS)
    else:
        (tmp_path / "scores.csv").write_text("".join(",".join(f"{v:.2f}" for v in row) + "\n" for row in DECIMALS))
    models, queries = _ids(tmp_path)
    run = str(tmp_path / "run")
    started = _json(
        capsys,
        [
            "live",
            "init",
            "--models",
            str(models),
            "--queries",
            str(queries),
            "--budget",
            "30%",
            "--algorithm",
            algorithm,
            "--seed",
            "3",
            "--dir",
            run,
            "--json",
            *extra,
        ],
    )
    assert (started["spent"], started["budget"], started["done"], started["K"], started["L"]) == (0, 45, False, 6, 25)
    rounds, phase = 0, 1
    while True:
        pending = _json(capsys, ["live", "next", "--dir", run, "--json"])["pending"]
        assert isinstance(pending, list)
        if not pending:
            break
        lines = ["query,score,model"]  # any column order, extra columns ignored
        lines += [
            f"{p['query']},{DECIMALS[int(p['model'][6:]), int(p['query'][5:])]:.2f},{p['model']}" for p in pending
        ]
        (tmp_path / "answers.csv").write_text("\n".join(lines) + "\n")
        recorded = _json(
            capsys,
            [
                "live",
                "record",
                "--dir",
                run,
                "--scores",
                str(tmp_path / "answers.csv"),
                "--json",
                *(["--float"] if kind == "npy" else []),
            ],
        )
        assert recorded["done"] or recorded["phase"] == phase + 1  # a whole batch recorded: the algorithm moved on
        phase = recorded["phase"]
        rounds += 1
    status = _json(capsys, ["live", "status", "--dir", run, "--json"])
    chosen = _json(
        capsys,
        [
            "select",
            "--scores",
            str(tmp_path / f"scores.{kind}"),
            "--budget",
            "30%",
            "--algorithm",
            algorithm,
            "--seed",
            "3",
            "--json",
            *extra,
        ],
    )
    assert status["done"] is True and status["spent"] == chosen["spent"] and rounds >= 1
    assert status["chosen"] == f"model-{chosen['chosen']}"
    assert status["ranking"] == [f"model-{i}" for i in chosen["ranking"]]


def test_next_prints_a_csv_and_status_reads_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models, queries = _ids(tmp_path)
    run = str(tmp_path / "run")
    assert (
        main(["live", "init", "--models", str(models), "--queries", str(queries), "--budget", "60", "--dir", run]) == 0
    )
    assert "started sysrs on 6 models x 25 queries" in capsys.readouterr().out
    assert main(["live", "next", "--dir", run]) == 0
    captured = capsys.readouterr()
    rows = captured.out.splitlines()
    assert rows[0] == "model,query" and len(rows) > 1 and all(row.startswith("model-") for row in rows[1:])
    assert f"{len(rows) - 1} pairs pending, phase 1; spent 0 of 60" in captured.err
    assert main(["live", "status", "--dir", run]) == 0
    assert f"phase 1: {len(rows) - 1} pairs pending" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("csv", "message"),
    [
        ("model,query\nmodel-0,item/0\n", "line 1: the header lacks 'score'"),
        ("model,query,score\nmodel-0,item/0,1.5\n", "line 2: score is 1.5, outside"),
        ("model,query,score\nmodel-0,item/0,nan\n", "line 2: score is nan"),
        ("model,query,score\nmodel-0\n", "line 2 has 1 cell but the header names 3 columns"),
        ("model,query,score\nmodel-9,item/0,1\n", "unknown model 'model-9'"),
    ],
)
def test_bad_score_files_are_refused_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], csv: str, message: str
) -> None:
    models, queries = _ids(tmp_path)
    run = str(tmp_path / "run")
    assert (
        main(["live", "init", "--models", str(models), "--queries", str(queries), "--budget", "60", "--dir", run]) == 0
    )
    (tmp_path / "bad.csv").write_text(csv)
    capsys.readouterr()
    assert main(["live", "record", "--dir", run, "--scores", str(tmp_path / "bad.csv")]) == 2
    assert message in capsys.readouterr().err
    assert _json(capsys, ["live", "status", "--dir", run, "--json"])["spent"] == 0


def test_user_mistakes_exit_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    models, queries = _ids(tmp_path)
    (tmp_path / "dup.txt").write_text("a\nb\na\n")
    (tmp_path / "bad.json").write_text('{"models": [1, 2]}')
    run = str(tmp_path / "run")
    for argv, message in (
        (["live", "status", "--dir", str(tmp_path / "none")], "no session in"),
        (
            [
                "live",
                "init",
                "--models",
                str(tmp_path / "dup.txt"),
                "--queries",
                str(queries),
                "--budget",
                "10",
                "--dir",
                run,
            ],
            "model id 'a' appears twice",
        ),
        (
            [
                "live",
                "init",
                "--models",
                str(tmp_path / "bad.json"),
                "--queries",
                str(queries),
                "--budget",
                "10",
                "--dir",
                run,
            ],
            "must hold a JSON list of models ids",
        ),
        (
            [
                "live",
                "init",
                "--models",
                str(tmp_path / "missing.txt"),
                "--queries",
                str(queries),
                "--budget",
                "10",
                "--dir",
                run,
            ],
            "cannot read the models file",
        ),
        (
            ["live", "init", "--models", str(models), "--queries", str(queries), "--budget", "5", "--dir", run],
            "at least the number of models",
        ),
        (
            [
                "live",
                "init",
                "--models",
                str(models),
                "--queries",
                str(queries),
                "--budget",
                "10",
                "--algorithm",
                "x",
                "--dir",
                run,
            ],
            "unknown algorithm 'x'",
        ),
        (
            [
                "live",
                "init",
                "--models",
                str(models),
                "--queries",
                str(queries),
                "--budget",
                "10",
                "--seed",
                "-1",
                "--dir",
                run,
            ],
            "--seed must be a non-negative integer",
        ),
    ):
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not Path(run).exists()


def test_convert_then_live_from_the_sidecar_ends_as_select(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The practitioner's path: harness results -> convert -> live session on those ids -> the outcome of select."""
    fixtures = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "lm-eval" / "good"
    out = tmp_path / "gsm.npy"
    assert (
        main(
            [
                "convert",
                "--from",
                "lm-eval",
                str(fixtures),
                "--metric",
                "exact_match",
                "--filter",
                "strict-match",
                "--missing",
                "drop-queries",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    ids = out.with_suffix(".ids.json")
    sidecar = json.loads(ids.read_text())
    matrix = np.load(out, allow_pickle=False)
    run = str(tmp_path / "run")
    _json(
        capsys, ["live", "init", "--models", str(ids), "--queries", str(ids), "--budget", "50%", "--dir", run, "--json"]
    )
    while pending := _json(capsys, ["live", "next", "--dir", run, "--json"])["pending"]:
        rows = [
            f"{p['model']},{p['query']},{float(matrix[sidecar['models'].index(p['model']), sidecar['queries'].index(p['query'])])!r}"
            for p in pending
        ]
        (tmp_path / "s.csv").write_text("model,query,score\n" + "\n".join(rows) + "\n")
        _json(capsys, ["live", "record", "--dir", run, "--scores", str(tmp_path / "s.csv"), "--json"])
    status = _json(capsys, ["live", "status", "--dir", run, "--json"])
    chosen = _json(capsys, ["select", "--scores", str(out), "--budget", "50%", "--json"])
    assert status["chosen"] == sidecar["models"][chosen["chosen"]]
    assert status["ranking"] == [sidecar["models"][i] for i in chosen["ranking"]]


def test_float_reads_scores_as_a_npy_holds_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0.1 + 0.2 = 0.3 + 0 exactly as decimals (a tie, broken by the draw), but not as floats (model 0 ahead)."""
    matrix = np.array([[0.1, 0.2], [0.3, 0.0]])
    np.save(tmp_path / "m.npy", matrix)
    (tmp_path / "m.csv").write_text("0.1,0.2\n0.3,0.0\n")
    (tmp_path / "models.txt").write_text("m0\nm1\n")
    (tmp_path / "queries.txt").write_text("q0\nq1\n")
    (tmp_path / "all.csv").write_text("model,query,score\nm0,q0,0.1\nm0,q1,0.2\nm1,q0,0.3\nm1,q1,0.0\n")
    picks = {}
    for seed in range(6):
        for flag in ([], ["--float"]):
            run = str(tmp_path / f"run{seed}{len(flag)}")
            _json(
                capsys,
                [
                    "live",
                    "init",
                    "--models",
                    str(tmp_path / "models.txt"),
                    "--queries",
                    str(tmp_path / "queries.txt"),
                    "--budget",
                    "4",
                    "--algorithm",
                    "us",
                    "--seed",
                    str(seed),
                    "--dir",
                    run,
                    "--json",
                ],
            )
            picks[seed, bool(flag)] = _json(
                capsys, ["live", "record", "--dir", run, "--scores", str(tmp_path / "all.csv"), "--json", *flag]
            )["chosen"]
        for kind, as_float in (("npy", True), ("csv", False)):
            chosen = _json(
                capsys,
                [
                    "select",
                    "--scores",
                    str(tmp_path / f"m.{kind}"),
                    "--budget",
                    "4",
                    "--algorithm",
                    "us",
                    "--seed",
                    str(seed),
                    "--json",
                ],
            )["chosen"]
            assert picks[seed, as_float] == f"m{chosen}"
    assert {picks[seed, True] for seed in range(6)} == {"m0"}  # as floats, model 0 is ahead
    assert {picks[seed, False] for seed in range(6)} == {"m0", "m1"}  # as decimals, a tie: the draw decides


def test_live_run_refuses_to_resume_with_other_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another --budget, --algorithm, --seed or --model than the session's: one line naming both values, exit 2.

    The check comes before the harness loads (here, a task file that does not exist is never read).
    """
    models, queries = _ids(tmp_path)
    run = str(tmp_path / "run")
    init = ["live", "init", "--models", str(models), "--queries", str(queries), "--budget", "30", "--seed", "3"]
    assert main([*init, "--dir", run]) == 0
    capsys.readouterr()
    resume = ["live", "run", "--inspect", str(tmp_path / "absent.py@task"), "--scorer", "match", "--dir", run]
    for extra, message in (
        (["--budget", "40"], "--budget 40 (the session's: 30)"),
        (["--budget", "25%"], "--budget 25% (the session's: 30)"),
        (["--algorithm", "ucbe"], "--algorithm ucbe (the session's: sysrs)"),
        (["--seed", "0"], "--seed 0 (the session's: 3)"),
        (["--budget", "40", "--seed", "1"], "--budget 40 (the session's: 30); --seed 1 (the session's: 3)"),
        (["--model", "a", "--model", "b"], "--model a, b (the session's: model-0, model-1, model-2, "),
    ):
        assert main([*resume, *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {run} holds a session with other settings: {message}"), err
        assert err.count("\n") == 1 and "leave th" in err
    assert main([*resume, "--budget", "20%", "--algorithm", "SySRs", "--seed", "3"]) == 2  # the same settings
    err = capsys.readouterr().err  # then the harness loads: no task file there (or no inspect-ai installed)
    assert "no such file" in err or "the optional 'inspect' extra" in err


def test_live_runs_progress_is_a_plain_line_a_call_and_says_what_a_stop_waits_for() -> None:
    import io

    from sysrs_ref.cli._live_run import _Reporter
    from sysrs_ref.live.driver import Failure, RunProgress
    from sysrs_ref.live.status import SessionStatus

    def status(spent: int, done: bool = False) -> SessionStatus:
        return SessionStatus("sysrs", 3, 40, 60, spent, 0, 1, () if done else ("a", "b", "c"), done, None, None)

    out = io.StringIO()
    reporter = _Reporter(out, enabled=True)
    reporter(RunProgress("batch", status(0), 45, 0, 0, 0, (), 0, 0.5, None, None))
    reporter(RunProgress("call", status(15), 45, 15, 1, 0, (), 15, 20.0, 19.5, 60.0))
    reporter(RunProgress("batch", status(15), 45, 15, 1, 0, (), 15, 20.0, 19.5, 60.0))  # said already
    reporter.failure(Failure("b", 15, 1, "TimeoutError()", 1.0))
    reporter.failure(Failure("b", 15, 4, "TimeoutError()", None))  # the error the run stops with: said by it
    reporter(RunProgress("failure", status(15), 45, 15, 2, 1, (), 15, 21.0, 19.5, 60.0))
    reporter(RunProgress("stopping", status(15), 45, 15, 2, 1, (("c", 15),), 15, 22.0, 19.5, 60.0))
    reporter(RunProgress("call", status(59, done=True), 0, 0, 5, 1, (), 59, 90.0, 18.0, 0.0))
    assert out.getvalue().splitlines() == [
        "phase 1: 0 of 45 pairs | spent 0 of 60 | 3 models active | 0 calls",
        "phase 1: 15 of 45 pairs | spent 15 of 60 | 3 models active | 1 call | 19.5 s a call | about 1:00 left",
        "call b (15 samples) failed, try 1: TimeoutError(); retrying in 1.00 s",
        "Ctrl-C: waiting for the call in flight (c: 15 samples) to finish, so that no evaluation is lost; "
        "Ctrl-C again to stop at once and lose it",
        "done | spent 59 of 60 | 5 calls, 1 failed | 18.0 s a call",
    ]
    quiet = io.StringIO()
    silent = _Reporter(quiet, enabled=False)
    silent(RunProgress("call", status(15), 45, 15, 1, 0, (), 15, 20.0, 19.5, 60.0))
    silent.failure(Failure("b", 15, 1, "TimeoutError()", 1.0))
    assert quiet.getvalue() == ""
