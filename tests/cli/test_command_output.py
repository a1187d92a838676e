"""Output that cannot be written (a full disk, a closed stdout) is one line on stderr and status 2, never silence."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from sysrs_ref.cli import main

COMMANDS = [
    ["select", "--scores", "data/fixtures/tiny_matrix.csv", "--budget", "12"],
    [
        "simulate",
        "--scores",
        "data/fixtures/tiny_matrix.csv",
        "--algorithm",
        "sysrs",
        "--budgets",
        "12",
        "--runs",
        "5",
        "--json",
    ],
    ["datasets"],
    ["datasets", "--json"],
    ["hardness", "--scores", "data/fixtures/tiny_matrix.csv"],
]
ROOT = Path(__file__).resolve().parents[2]


def _run(words: list[str], stdout: IO[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sysrs_ref", *words],
        cwd=ROOT,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_a_full_disk_is_one_line_and_status_2(words: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _run(words, stdout=full)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: the output could not be written to stdout ([Errno 28] No space left on device)"
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell closes stdout")
@pytest.mark.parametrize("words", [*COMMANDS, ["live", "next", "--dir", "no-such-run"]], ids=" ".join)
def test_a_closed_stdout_is_refused_before_anything_runs(words: list[str]) -> None:
    done = subprocess.run(  # the shell starts the command with stdout closed, as `>&-` does
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "sysrs_ref", *words],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["error: stdout is closed, so no output could be written: nothing was run"]


@pytest.mark.slow
def test_a_reader_that_stops_still_ends_quietly() -> None:
    """``| head -1``: the reader closes the pipe; the command stops with status 0 and says nothing."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sysrs_ref", "datasets"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=300) == 0
    assert process.stderr.read() == b""


class _Unwritable(io.StringIO):
    """A stderr every write to which fails, as ``2> /dev/full`` does."""

    def write(self, text: str, /) -> int:
        raise OSError(28, "No space left on device")


@pytest.mark.parametrize(
    "words",
    [
        ["select", "--scores", "no-such-file.csv", "--budget", "12"],  # a user's mistake: SysrsError
        ["select", "--scores", "data/fixtures/tiny_matrix.csv"],  # a usage mistake: argparse
        ["no-such-command"],
    ],
    ids=["error", "usage", "command"],
)
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_an_unwritable_stderr_keeps_the_exit_status(
    words: list[str], stderr: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stderr", _Unwritable() if stderr == "full" else None)
    assert main(words) == 2
    assert capsys.readouterr().out == ""  # the message is lost, not sent to stdout instead


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("words", [["select", "--scores", "no-such-file.csv", "--budget", "12"], ["nonsense"]])
def test_an_error_written_to_a_full_stderr_still_exits_2(words: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "sysrs_ref", *words], cwd=ROOT, stdout=subprocess.PIPE, stderr=full, timeout=300
        )
    assert (done.returncode, done.stdout) == (2, b"")
