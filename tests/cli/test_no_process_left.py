"""SIGTERM, SIGKILL, SIGHUP and Ctrl-C leave no process behind: proofs_check, conform, simulate, reproduce.

Each command is started as the leader of a session of its own (:mod:`tests.census`) and signalled once its
session holds all the processes it starts (its workers; for ``conform``, the adapter's process group: the
watchdog, the adapter and three children the adapter forks). The census is taken before the signal and the
test asserts that every process of it is gone after, and that the command ended with the status the signal
gives (143, 130, or killed). Nothing here measures a duration: every wait is a hang-guard.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.census import HAS_PROC, census, left_alive, started

ROOT = Path(__file__).resolve().parents[2]

#: An adapter that forks three children which sleep, then never answers: the run is always in a case.
FORKING_ADAPTER = """
import os, sys, time
for _ in range(3):
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)
sys.stdin.readline()
time.sleep(3600)
"""

#: Each command, and how many processes its session holds once it is running (itself included).
COMMANDS: dict[str, tuple[list[str], int]] = {
    "proofs_check": (["-m", "proofs_check", "--jobs", "2"], 3),
    "conform": (
        ["-m", "sysrs_ref", "conform", "--family", "budgets", "--timeout", "3600", "--quiet", "--"]
        + [sys.executable, "-c", FORKING_ADAPTER],
        6,
    ),
    "simulate": (
        ["-m", "sysrs_ref", "simulate", "--scores", "gsm", "--algorithm", "sysrs", "--budgets", "10%"]
        + ["--runs", "10000000", "--workers", "2"],
        3,
    ),
    "reproduce": (
        ["-m", "sysrs_ref", "reproduce", "--grid", "table", "--algorithms", "sysrs,sr", "--no-plots", "--quiet"]
        + ["--runs", "100000", "--workers", "2"],
        3,
    ),
}

#: How each signal is sent and the status the command then ends with.
SIGNALS = {
    "SIGTERM": (signal.SIGTERM, False, 143),
    "SIGKILL": (signal.SIGKILL, False, -signal.SIGKILL),
    "SIGINT": (signal.SIGINT, False, 130),
    "Ctrl-C": (signal.SIGINT, True, 130),  # to the whole foreground group, as a terminal sends it
    "SIGHUP": (signal.SIGHUP, False, -signal.SIGHUP),  # the terminal closed: its default action ends the command
}


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PROC, reason="counts processes in /proc, which only Linux has")
@pytest.mark.parametrize("how", list(SIGNALS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_signal_to_the_command_leaves_no_process(command: str, how: str, tmp_path: Path) -> None:
    argv, processes = COMMANDS[command]
    if command == "reproduce":
        argv = [*argv, "--out", str(tmp_path / "out")]
    signum, to_group, status = SIGNALS[how]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    stderr = tmp_path / "stderr"
    with started([sys.executable, *argv], stderr, at_least=processes, cwd=ROOT, env=env) as (process, before):
        assert len(before) >= processes
        if to_group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        assert process.wait(timeout=120) == status, stderr.read_text()[-2000:]
        assert not left_alive(before), f"{command} left processes behind after {how}"
        assert not census(process.pid), f"{command} started processes that outlived it after {how}"
    if signum not in (signal.SIGKILL, signal.SIGHUP):
        lines = stderr.read_text().splitlines()
        assert len(lines) == 1 and "interrupted" in lines[0], lines
