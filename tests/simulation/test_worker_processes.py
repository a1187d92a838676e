"""Worker processes end with their parent; SIGTERM, SIGKILL and Ctrl-C stop ``simulate`` and
``reproduce --workers 2`` at once; run counts that cannot fit are refused before anything is allocated.

The subprocess tests find a command's workers by scanning ``/proc/*/stat`` for its pid as parent (they are
skipped where there is no /proc: Linux only) and identify each by (pid, start time), so a reused pid is
never mistaken for a worker. Nothing here measures a duration: every wait is a generous hang-guard
(:data:`HANG_GUARD`) around something that must happen, and the assertions are on exit statuses, messages
and which processes are left. Whatever a test started is killed on the way out, even when it fails.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import pytest

from sysrs_ref import irt_benchmark, simulate
from sysrs_ref.cli import _reproduce as reproduce_cli, _simulate as simulate_cli, main
from sysrs_ref.cli._main import Terminated
from sysrs_ref.simulation import _processes as processes
from sysrs_ref.simulation._processes import process_pool

T = TypeVar("T")

PROJECT_ROOT = Path(__file__).resolve().parents[2]

#: Seconds to wait, at most, for something that must happen (a process exits, workers appear or go).
HANG_GUARD = 120.0

#: The address space a command may use in the tests that refuse huge run counts: a regression that
#: allocates fails with a MemoryError instead of eating the machine's memory.
MEMORY_LIMIT = 2 * 2**30

#: A simulation far longer than any test: it is always still running when signalled.
SIMULATE = ("simulate", "--scores", "gsm", "--algorithm", "sysrs", "--budgets", "10%", "--runs", "10000000")

#: A reproduction with as many runs per cell as the counts allow: its pieces can only be made lazily.
REPRODUCE = ("reproduce", "--grid", "table", "--algorithms", "sysrs,sr", "--no-plots", "--quiet")

#: ``python -c`` this, then a command: the command line with every piece of work sleeping for ever (in the
#: workers too: they are forked from the patched parent), so a test knows a piece is still running when
#: it signals, and a parent that waited for running pieces would never end.
ENDLESS_PIECES = """
import multiprocessing, sys, time
multiprocessing.set_start_method("fork")
from sysrs_ref.simulation import _engine
def endless(*args, **kwargs):
    while True:
        time.sleep(3600)
_engine._piece = endless
from sysrs_ref.cli import main
sys.exit(main(sys.argv[1:]))
"""

#: ``python -c`` this with a signal's number, then a command: the command line with the signal sent from inside
#: the parent's at-fork hook, where Python swallows what a handler raises (it reports it as ignored): the pool
#: must hold the signal back while it forks its workers, or the command never learns of it and runs on.
SIGNALLED_WHILE_FORKING = """
import multiprocessing, os, signal, sys
multiprocessing.set_start_method("fork")
signum = int(sys.argv.pop(1))
def signal_inside_the_hook():
    os.kill(os.getpid(), signum)
    for _ in range(3):  # bytecode after the signal: a handler not held back runs here, inside the hook
        pass
os.register_at_fork(after_in_parent=signal_inside_the_hook)
from sysrs_ref.cli import main
sys.exit(main(sys.argv[1:]))
"""

needs_proc = pytest.mark.skipif(
    not Path("/proc/self/stat").is_file(), reason="finds the worker processes in /proc, which only Linux has"
)

#: A process: its pid and its start time (field 22 of /proc/PID/stat), so that a reused pid is another process.
Proc = tuple[int, str]


# -- finding processes in /proc --------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat from the state on (the command name, in parentheses, may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _children(parent: int) -> set[Proc]:
    """The living processes whose parent is *parent*."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == parent and fields[0] not in "ZX":
                found.add((int(entry), fields[19]))
    return found


def _alive(proc: Proc) -> bool:
    """Whether *proc* still runs (a zombie, dead but not yet reaped, does not)."""
    fields = _stat(proc[0])
    return fields is not None and fields[19] == proc[1] and fields[0] not in "ZX"


def _left_alive(procs: set[Proc]) -> set[Proc]:
    """The processes of *procs* still alive once they are all gone or the hang-guard is over."""
    deadline = time.monotonic() + HANG_GUARD
    while (alive := {proc for proc in procs if _alive(proc)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill(procs: set[Proc]) -> None:
    """SIGKILL what is left of *procs* (processes a test started)."""
    for pid, start in procs:
        if _alive((pid, start)):
            os.kill(pid, signal.SIGKILL)


# -- running a command ---------------------------------------------------------------------------------


def _limit_memory() -> None:
    _as_from_a_terminal()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _as_from_a_terminal() -> None:
    """Ctrl-C at its default in the command, as a terminal starts it: a suite run in the background (``cmd &``
    without job control) inherits SIGINT ignored, and so would the command, which then rightly ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _command(argv: Sequence[str], endless: bool = False) -> list[str]:
    return [sys.executable, *(("-c", ENDLESS_PIECES) if endless else ("-m", "sysrs_ref")), *argv]


def _env() -> dict[str, str]:
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONUNBUFFERED="1")


@contextmanager
def _started(
    argv: Sequence[str],
    stderr: Path,
    *,
    endless: bool = False,
    limit_memory: bool = False,
    stdout: int | IO[Any] = subprocess.DEVNULL,
) -> Iterator[tuple[subprocess.Popen[bytes], set[Proc]]]:
    """Start the command line with *argv* and wait for its two workers; afterwards kill whatever is left of them all."""
    with ExitStack() as stack:
        errors = stack.enter_context(stderr.open("wb"))
        process = subprocess.Popen(
            _command(argv, endless),
            stdout=stdout,
            stderr=errors,
            cwd=PROJECT_ROOT,
            env=_env(),
            preexec_fn=_limit_memory if limit_memory else _as_from_a_terminal,
        )
        workers: set[Proc] = set()
        try:
            deadline = time.monotonic() + HANG_GUARD
            while len(workers := _children(process.pid)) < 2:
                assert process.poll() is None, (
                    f"exited with status {process.returncode} before its workers started: {stderr.read_text()!r}"
                )
                assert time.monotonic() < deadline, "no two worker processes appeared"
                time.sleep(0.05)
            yield process, workers
        finally:
            _reap(process)
            _kill(workers)


def _ended(process: subprocess.Popen[bytes]) -> int:
    """*process*'s exit status, once it has ended (pytest.fail after the hang-guard)."""
    try:
        return process.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the command did not end within {HANG_GUARD:.0f} s of the signal")


def _reap(process: subprocess.Popen[bytes]) -> None:
    """Kill *process* if it still runs, and wait for it."""
    if process.poll() is None:
        process.kill()
    process.wait()


def _one_line(stderr: Path) -> str:
    lines = stderr.read_text().splitlines()
    assert len(lines) == 1, f"expected exactly one line on stderr, got {lines!r}"
    return lines[0]


# -- the parent's death ends its workers -------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize("command", ["simulate", "reproduce"])
def test_sigkill_on_the_parent_ends_its_workers(command: str, tmp_path: Path) -> None:
    argv = [*SIMULATE, "--workers", "2"] if command == "simulate" else [*REPRODUCE, "--runs", "100000"]
    if command == "reproduce":
        argv += ["--out", str(tmp_path / "out"), "--workers", "2"]
    with _started(argv, tmp_path / "stderr") as (process, workers):
        process.send_signal(signal.SIGKILL)
        assert _ended(process) == -signal.SIGKILL
        assert not _left_alive(workers), "the workers outlived their parent"


@needs_proc
def test_workers_of_a_parent_killed_inside_a_piece_end_too(tmp_path: Path) -> None:
    with _started([*SIMULATE, "--workers", "2"], tmp_path / "stderr", endless=True) as (process, workers):
        process.send_signal(signal.SIGKILL)
        assert _ended(process) == -signal.SIGKILL
        assert not _left_alive(workers), "workers busy with a piece outlived their parent"


# -- SIGTERM and Ctrl-C: one line, 143 or 130, workers stopped ---------------------------------------------


@needs_proc
@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [(signal.SIGTERM, 143, "interrupted by SIGTERM"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_signal_ends_simulate_with_one_line_and_its_status(
    signum: int, status: int, line: str, tmp_path: Path
) -> None:
    with _started([*SIMULATE, "--workers", "2"], tmp_path / "stderr") as (process, workers):
        process.send_signal(signum)
        assert _ended(process) == status
        assert _one_line(tmp_path / "stderr") == line
        assert not _left_alive(workers)


@needs_proc
@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [(signal.SIGTERM, 143, "interrupted by SIGTERM"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_signal_does_not_wait_for_the_running_pieces(signum: int, status: int, line: str, tmp_path: Path) -> None:
    """Pieces that never end: the parent must kill its workers rather than wait for them (Ctrl-C used to)."""
    with _started([*SIMULATE, "--workers", "2"], tmp_path / "stderr", endless=True) as (process, workers):
        process.send_signal(signum)
        assert _ended(process) == status
        assert _one_line(tmp_path / "stderr") == line
        assert not _left_alive(workers)


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="needs fork and its hooks")
@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [(signal.SIGTERM, 143, "interrupted by SIGTERM"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_signal_while_the_pool_forks_is_not_lost(signum: int, status: int, line: str) -> None:
    """A signal whose handler would run in an at-fork hook still ends the command, with its one line."""
    argv = [sys.executable, "-c", SIGNALLED_WHILE_FORKING, str(int(signum)), *SIMULATE, "--workers", "2"]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=PROJECT_ROOT,
        env=_env(),
        preexec_fn=_as_from_a_terminal,
    )
    try:
        _, errors = process.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the command did not end within {HANG_GUARD:.0f} s of a signal sent while its pool forked")
    finally:
        _reap(process)  # SIGKILL: the signal itself may be the one the command now ignores
    assert (process.returncode, errors.decode().splitlines()) == (status, [line])


@needs_proc
def test_sigterm_ends_reproduce_and_leaves_no_half_written_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [*REPRODUCE, "--runs", "100000", "--out", str(out), "--workers", "2"]
    with _started(argv, tmp_path / "stderr") as (process, workers):
        process.send_signal(signal.SIGTERM)
        assert _ended(process) == 143
        assert _one_line(tmp_path / "stderr") == (
            f"interrupted by SIGTERM: the finished cells are cached in {out}/cache: "
            "run the same command again to resume"
        )
        assert not _left_alive(workers)
    files = [path for path in out.rglob("*") if path.is_file()]
    assert not [path for path in files if path.name.endswith(".tmp")], "a temporary file was left behind"
    for path in files:
        if path.suffix == ".json":
            json.loads(path.read_text())  # complete: written atomically


@needs_proc
def test_a_pipeline_ends_when_simulate_is_terminated(tmp_path: Path) -> None:
    """``simulate ... --workers 2 | cat``: cat sees the end of its input only when no worker holds the pipe."""
    with ExitStack() as stack:
        consumed = stack.enter_context((tmp_path / "consumed").open("wb"))
        process, workers = stack.enter_context(
            _started([*SIMULATE, "--workers", "2"], tmp_path / "stderr", stdout=subprocess.PIPE)
        )
        assert process.stdout is not None
        cat = subprocess.Popen(["cat"], stdin=process.stdout, stdout=consumed)
        stack.callback(_reap, cat)
        process.stdout.close()  # cat and the command's processes hold the pipe now, not this one
        process.send_signal(signal.SIGTERM)
        assert _ended(process) == 143
        assert _ended(cat) == 0
        assert not _left_alive(workers)


# -- run counts that cannot fit --------------------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([*SIMULATE[:-1], "99999999999999999999", "--workers", "2"], "above the 4 GiB bound"),
        ([*SIMULATE[:-1], "2000000000"], "at most 1,073,741,824 runs fit"),
        ([*REPRODUCE, "--runs", "99999999999999999999", "--workers", "2"], "at most 9,223,372,036,854,775,807 runs"),
    ],
    ids=["simulate-1e20", "simulate-2e9", "reproduce-1e20"],
)
def test_runs_that_cannot_fit_are_refused_without_allocating(argv: list[str], expected: str, tmp_path: Path) -> None:
    if argv[0] == "reproduce":
        argv = [*argv, "--out", str(tmp_path / "out")]
    done = subprocess.run(
        _command(argv),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=PROJECT_ROOT,
        env=_env(),
        preexec_fn=_limit_memory,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "runs are too many" in lines[0], lines
    assert expected in lines[0]


@needs_proc
def test_pieces_of_a_huge_reproduction_are_made_as_they_are_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """10^15 runs per cell within 2 GiB: the workers start (the pieces were not all made first) and SIGTERM ends it.

    Such a reproduction would take far beyond the time limit: lifted (SYSRS_REF_TIME_LIMIT=0) to see it start.
    """
    monkeypatch.setenv("SYSRS_REF_TIME_LIMIT", "0")
    argv = [*REPRODUCE, "--runs", str(10**15), "--out", str(tmp_path / "out"), "--workers", "2"]
    with _started(argv, tmp_path / "stderr", limit_memory=True) as (process, workers):
        process.send_signal(signal.SIGTERM)
        assert _ended(process) == 143
        assert _one_line(tmp_path / "stderr").startswith("interrupted by SIGTERM: ")
        assert not _left_alive(workers)


def test_at_most_two_pieces_per_worker_are_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    submitted, recorded, most = [0], [0], [0]

    class Counting(processes._Pool):
        def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
            submitted[0] += 1
            most[0] = max(most[0], submitted[0] - recorded[0])
            return super().submit(fn, *args, **kwargs)

    def progress(pairs: int) -> None:
        recorded[0] += pairs > 0

    monkeypatch.setattr(processes, "_Pool", Counting)
    instance = irt_benchmark(5, 30, seed=3)
    pooled = simulate(instance, "sysrs", ["20%"], runs=60, seed=4, workers=2, chunk=1, progress=progress)
    assert submitted[0] == recorded[0] == 60
    assert 1 < most[0] <= 2 * 2  # the workers were kept busy, and no more than two pieces each were made ahead
    assert pooled.to_json() == simulate(instance, "sysrs", ["20%"], runs=60, seed=4).to_json()


# -- in this process: the pool, the handler, the messages ---------------------------------------------


def test_an_interruption_kills_the_workers_of_a_pool() -> None:
    """Pieces that would run for an hour: the pool's workers are killed and reaped before the interruption goes on."""
    with pytest.raises(KeyboardInterrupt), process_pool(2) as pool:
        for _ in range(4):
            pool.submit(time.sleep, 3600)
        processes = list(pool._processes.values())  # the pool's own processes, as the engine finds them
        assert len(processes) == 2
        raise KeyboardInterrupt
    assert not [process for process in processes if process.is_alive()]


def _signal_self(signum: int) -> None:
    """Send *signum* to this process, after checking the command line handles it (else it would end pytest)."""
    assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN, None), "no handler for the signal"
    signal.raise_signal(signum)  # the handler runs before this returns


def test_sigterm_in_any_command_is_one_line_and_status_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = signal.getsignal(signal.SIGTERM)

    def terminated(args: object) -> None:
        _signal_self(signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the command")

    monkeypatch.setattr(simulate_cli, "run", terminated)
    status = main(["simulate", "--scores", "x.npy", "--algorithm", "sysrs", "--budgets", "8%", "--runs", "1"])
    assert (status, capsys.readouterr().err) == (143, "interrupted by SIGTERM\n")
    assert signal.getsignal(signal.SIGTERM) == before  # main put the previous handler back


def test_sigterm_in_reproduce_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def terminated(*args: object, **kwargs: object) -> None:
        _signal_self(signal.SIGTERM)

    monkeypatch.setattr(reproduce_cli, "reproduce", terminated)
    assert main(["reproduce", "--out", str(tmp_path / "out"), "--runs", "3"]) == 143
    assert capsys.readouterr().err == (
        f"interrupted by SIGTERM: the finished cells are cached in {tmp_path / 'out'}/cache: "
        "run the same command again to resume\n"
    )


def test_terminated_is_an_interruption_as_ctrl_c_is() -> None:
    assert issubclass(Terminated, KeyboardInterrupt)  # every path that stops on Ctrl-C stops on SIGTERM
