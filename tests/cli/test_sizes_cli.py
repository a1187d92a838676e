"""Sizes on the command line: a long job is said before it starts, one beyond the limit is one line and status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysrs_ref._limits import TIME_LIMIT_VARIABLE
from tests.cli_runner import run_main

TINY = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "tiny_matrix.csv"


@pytest.mark.parametrize(
    ("argv", "note"),
    [
        (
            ["select", "--scores", str(TINY), "--budget", "100%"],
            "note: one run of the reference on 4 models x 6 queries",
        ),
        (
            ["subset", "--scores", str(TINY), "--method", "kmeans-correctness", "--budget", "50%"],
            "note: kmeans-correctness with k = 3 on 4 models x 6 queries takes at least",
        ),
    ],
)
def test_a_long_job_is_said_before_it_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], note: str
) -> None:
    command = argv[0]
    monkeypatch.setattr(f"sysrs_ref.cli._{command}.NOTE_SECONDS", -1.0)  # every job is long
    status, out, err = run_main(capsys, *argv)
    assert status == 0 and out and err.splitlines()[0].startswith(note)
    monkeypatch.undo()
    status, _, err = run_main(capsys, *argv)
    assert status == 0 and "note:" not in err


def test_a_job_beyond_the_time_limit_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Refused before the note: the limit first, then (within it) the estimate."""
    status, out, err = run_main(
        capsys, "subset", "--scores", str(TINY), "--method", "kmeans-irt", "--dim", "1000000000", "--budget", "50%"
    )
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: kmeans-irt (D = 1,000,000,000, 2,000 epochs) on 4 models x 6 queries would need")


def test_workers_beyond_the_bound_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run_main(
        capsys, "simulate", "--scores", str(TINY), "--algorithm", "sysrs", "--budgets", "50%", "--runs", "2",
        "--workers", "100000",
    )  # fmt: skip
    assert status == 2 and err == (
        "error: workers 100000 asks for 100,000 worker processes; at most 256 are started "
        "(more than the CPUs only share them)\n"
    )


def test_the_time_limit_variable_is_named_in_the_refusal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "1")
    status, _, err = run_main(
        capsys, "subset", "--scores", str(TINY), "--method", "kmeans-irt", "--dim", "100000", "--budget", "50%"
    )
    assert status == 2 and f"more than the limit of 1 second ({TIME_LIMIT_VARIABLE}, in seconds; 0 lifts it)" in err
