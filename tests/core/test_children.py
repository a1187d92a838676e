"""The one rule for every process the package starts (sysrs_ref._children), checked on the module itself.

The commands that use it (simulate, reproduce, conform, proofs_check) are tested end to end in their own
folders; here are its pieces: SIGTERM turned into one exception, the pool's workers leaving Ctrl-C and
SIGTERM to their parent and killed on an interruption, and a process group ended whole, what the command
forked included. Every wait is a hang-guard (tests.census.HANG_GUARD) around something that must happen;
whatever a test started is killed on the way out, even when it fails.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

import pytest

from sysrs_ref._children import ProcessGroup, process_pool, sigterm_interrupts
from tests.census import HAS_PROC, Proc, alive, kill, left_alive

needs_proc = pytest.mark.skipif(not HAS_PROC, reason="reads processes in /proc, which only Linux has")
needs_masks = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs signal masks")


class _Stop(Exception):
    """What the SIGTERM handler raises in these tests."""


def test_the_first_sigterm_raises_later_ones_are_ignored_and_the_handler_is_put_back() -> None:
    calls: list[int] = []

    def before(signum: int, frame: FrameType | None) -> None:
        calls.append(signum)

    previous = signal.signal(signal.SIGTERM, before)
    try:
        with sigterm_interrupts(_Stop):
            with pytest.raises(_Stop):
                signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGTERM)  # a second one during the clean-up: ignored
        assert signal.getsignal(signal.SIGTERM) is before
        signal.raise_signal(signal.SIGTERM)
        assert calls == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def _worker_signals() -> tuple[bool, bool, list[int]]:
    """In a worker: whether it ignores Ctrl-C and SIGTERM, and which of the two it holds back."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return (
        signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
        signal.getsignal(signal.SIGTERM) is signal.SIG_IGN,
        sorted(int(s) for s in held if s in (signal.SIGINT, signal.SIGTERM)),
    )


@needs_masks
def test_workers_ignore_ctrl_c_and_sigterm_and_hold_neither_back() -> None:
    """The parent handles both (it kills the pool); a worker that held them back would keep them pending."""
    with process_pool(1, start_method="fork") as pool:
        assert pool.submit(_worker_signals).result(timeout=120) == (True, True, [])


def _proc(pid: int) -> Proc:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return pid, fields[19]


@needs_proc
def test_an_interruption_kills_the_workers_of_the_pool_before_it_goes_on() -> None:
    workers: set[Proc] = set()
    try:
        with pytest.raises(KeyboardInterrupt), process_pool(2, start_method="fork") as pool:
            for _ in range(4):
                pool.submit(time.sleep, 3600)
            workers = {_proc(pid) for pid in pool._processes}
            assert len(workers) == 2
            raise KeyboardInterrupt
        assert not [worker for worker in workers if alive(worker)]
    finally:
        kill(workers)


#: A program that forks a child (which sleeps), prints the child's pid, then sleeps too.
FORKS = """
import os, sys, time
child = os.fork()
if child == 0:
    time.sleep(3600)
    os._exit(0)
print(child, flush=True)
time.sleep(3600)
"""


@needs_proc
def test_ending_a_process_group_ends_what_its_command_forked() -> None:
    group = ProcessGroup([sys.executable, "-c", FORKS], stdout=subprocess.PIPE)
    started: set[Proc] = set()
    try:
        assert group.process.stdout is not None
        started = {_proc(group.process.pid), _proc(int(group.process.stdout.readline()))}
        group.end()
        assert group.process.returncode == -signal.SIGKILL
        assert not left_alive(started), "the command's child outlived its group"
        group.end()  # again: nothing happens
    finally:
        group.end()
        kill(started)
