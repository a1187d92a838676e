"""A process census: every living process of a session, read from /proc (Linux only).

A command under test is started as the leader of a session of its own, so
that everything it starts, however deep (a pool's workers, an adapter's
process group and what the adapter forks), is in that session, and is
counted, unless it deliberately starts a session of its own. A process is
named by (pid, start time), so a reused pid is never mistaken for it; a
zombie (dead, not yet reaped) is not alive.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["HANG_GUARD", "HAS_PROC", "Proc", "alive", "census", "children", "kill", "left_alive", "started", "wait_for"]

#: Seconds to wait, at most, for something that must happen (processes appear, a command ends, processes go).
HANG_GUARD = 120.0

#: Whether this system has /proc to read processes from.
HAS_PROC = Path("/proc/self/stat").is_file()

#: A process: its pid and its start time (field 22 of /proc/PID/stat).
Proc = tuple[int, str]


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat from the state on (the command name, in parentheses, may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _living(field: int, value: int) -> set[Proc]:
    """Every living process (zombies excluded) whose /proc stat field *field* (from the state on) is *value*."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[field]) == value and fields[0] not in "ZX":
                found.add((int(entry), fields[19]))
    return found


def census(session: int) -> set[Proc]:
    """Every living process of *session* (zombies excluded)."""
    return _living(3, session)


def children(parent: int) -> set[Proc]:
    """The living processes whose parent is *parent*."""
    return _living(1, parent)


def alive(proc: Proc) -> bool:
    """Whether *proc* still runs (a zombie, dead but not yet reaped, does not)."""
    fields = _stat(proc[0])
    return fields is not None and fields[19] == proc[1] and fields[0] not in "ZX"


def kill(procs: set[Proc]) -> None:
    """SIGKILL what is left of *procs* (processes a test started)."""
    for pid, start in procs:
        if alive((pid, start)):
            os.kill(pid, signal.SIGKILL)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Return once *condition* holds; AssertionError naming *what* after :data:`HANG_GUARD` seconds."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {HANG_GUARD:.0f} s"
        time.sleep(0.05)


def left_alive(procs: set[Proc]) -> set[Proc]:
    """The processes of *procs* still alive once they are all gone or the hang-guard is over."""
    deadline = time.monotonic() + HANG_GUARD
    while (living := {proc for proc in procs if alive(proc)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return living


def _as_from_a_terminal() -> None:
    """Ctrl-C and SIGHUP at their defaults, as a terminal starts a command (a suite run with ``&`` inherits SIGINT
    ignored, one run with ``nohup`` SIGHUP)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@contextmanager
def started(
    argv: Sequence[str], stderr: Path, *, at_least: int, cwd: Path, env: dict[str, str]
) -> Iterator[tuple[subprocess.Popen[bytes], set[Proc]]]:
    """Start *argv* as a session leader, wait until its session holds *at_least* processes; yield it and them.

    On the way out whatever is left of the session is killed (SIGKILL), even when the test fails.
    """
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            list(argv),
            stdout=subprocess.DEVNULL,
            stderr=errors,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_as_from_a_terminal,
        )
        try:
            wait_for(
                lambda: (process.poll() is None and len(census(process.pid)) >= at_least) or process.poll() is not None,
                f"{at_least} processes in the session of {' '.join(argv)}",
            )
            assert process.poll() is None, f"exited with {process.returncode}: {stderr.read_text()[-2000:]!r}"
            yield process, census(process.pid)
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            kill(census(process.pid))
