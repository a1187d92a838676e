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


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["select", "--budget", "100%"], "error: one run of the reference on 1000000 models x 1 query at a budget of"),
        (["hardness"], "error: the exact hardness of 1000000 models x 1 query would take about 2.3 days"),
        (
            ["simulate", "--algorithm", "sysrs", "--runs", "10", "--budgets", "50%"],
            "error: 10 runs (x budgets x algorithms) of successive elimination on K = 1,000,000 models would take",
        ),
        (
            ["exact", "--budget", "100%"],
            "error: exact enumeration of sysrs on 1000000 x 1 at budget 1000000 needs more than 8.3e+5565708 cases",
        ),
        (["exact", "--budget", "100%", "--algorithm", "syus"], "error: exact on 1000000 models x 1 query would take"),
    ],
)
def test_a_matrix_s_header_is_enough_to_refuse(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    said: str,
) -> None:
    """An .npy of 1,000,000 x 1 is refused from its header: the matrix is never read (reading it would fail here)."""
    path = _declared(tmp_path / "wide.npy", (1_000_000, 1))
    monkeypatch.setattr("sysrs_ref.loaders.load_stochastic", _never)
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "60")
    status, out, err = run_main(capsys, argv[0], "--scores", str(path), *argv[1:])
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(said)


def test_a_subset_job_is_refused_from_the_header(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """anchor on 2 x 1,000,000 (its L x L matrices) is refused from the .npy header: the matrix is never read."""
    path = _declared(tmp_path / "long.npy", (2, 1_000_000))
    monkeypatch.setattr("sysrs_ref.cli._subset.resolve_scores", _never)
    status, out, err = run_main(capsys, "subset", "--scores", str(path), "--method", "anchor", "--budget", "10%")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: anchor on 2 models x 1000000 queries would need 21.8 TiB of memory")


def _declared(path: Path, shape: tuple[int, int]) -> Path:
    """An .npy of float64 zeros of *shape* at *path*: its header and its bytes."""
    import numpy as np

    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": "<f8", "fortran_order": False, "shape": shape})
        handle.write(b"\0" * (8 * shape[0] * shape[1]))
    return path


def _never(*args: object, **kwargs: object) -> object:
    raise AssertionError("the matrix was read")
