"""The one rule for every process the package starts: it ends with its parent, and an interruption ends it at once.

Two kinds of children follow it:

- **Worker pools** (:func:`process_pool`: ``simulate``, ``reproduce``, the
  subset study, ``python -m proofs_check``): every worker ties its life to
  its parent's (on Linux ``prctl(PR_SET_PDEATHSIG)``, so that the kernel
  sends it SIGKILL when the parent dies, however it dies, SIGKILL
  included; elsewhere a thread that polls the parent's id), leaves Ctrl-C
  and SIGTERM to the parent, and is killed, not waited for, when the parent
  is interrupted.
- **Other programs** (:class:`ProcessGroup`: ``conform``'s adapter): the
  program runs in a process group of its own, whose leader is a watchdog
  that holds the read end of a pipe only the parent writes to; when the
  parent ends, however it ends, the pipe closes and the watchdog kills the
  whole group, so the program's own children go too. The parent ends the
  group the same way when it is done with it.

:func:`sigterm_interrupts` turns SIGTERM into an exception in the main
thread, so that the paths that stop on Ctrl-C stop on it too (the command
lines use it). SIGHUP keeps its default action: it ends the parent, and
the rules above end its children.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from types import FrameType
from typing import ParamSpec, TypeVar

__all__ = ["PARENT_POLL_SECONDS", "ProcessGroup", "process_pool", "sigterm_interrupts"]

P = ParamSpec("P")
T = TypeVar("T")

#: prctl's option "send me this signal when my parent dies" (linux/prctl.h).
_PR_SET_PDEATHSIG = 1

#: How often a worker without prctl checks that its parent is alive (the portable fallback).
PARENT_POLL_SECONDS = 0.5

#: How long, at most, an interrupted run waits for its killed workers to be reaped and the pool's thread to end.
_REAP_SECONDS = 10.0


# -- SIGTERM as an exception ---------------------------------------------------------------------------------------


@contextmanager
def sigterm_interrupts(raised: Callable[[], BaseException]) -> Iterator[None]:
    """While the block runs, the first SIGTERM raises ``raised()`` in the main thread (the previous handler after).

    Only the first SIGTERM raises: later ones are ignored, so that they do
    not break the clean-up the first one started (SIGKILL still ends the
    process, and its workers die with it). Outside the main thread (where
    Python cannot set a handler) nothing changes.

    >>> with sigterm_interrupts(KeyboardInterrupt):
    ...     signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    True
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    done = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal done
        if not done:
            done = True
            raise raised()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


# -- the local pool: workers that end with their parent, stopped at once on an interruption ------------------------


@contextmanager
def process_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[object, ...] = (),
    *,
    start_method: str | None = None,
) -> Iterator[ProcessPoolExecutor]:
    """A pool of *workers* local processes that end with this one, and are killed on an interruption.

    Every worker first ties its life to its parent's (:func:`_guard_worker`:
    on Linux the kernel sends it SIGKILL when the parent dies, however it
    dies, SIGKILL included; elsewhere a thread polls the parent's id every
    :data:`PARENT_POLL_SECONDS`), leaves Ctrl-C and SIGTERM to the parent
    (it ignores both), then runs *initializer*. The pool's ``submit``, which
    forks the workers, holds Ctrl-C and SIGTERM back until it returns
    (:class:`_Pool`). On a normal exit the pool is shut down, waiting for
    nothing but idle workers; on any exception (Ctrl-C, the command line's
    SIGTERM, an error) pieces not started are cancelled and the workers
    killed and reaped before the exception goes on. *start_method* is
    multiprocessing's (None: its default; "fork" lets the workers inherit
    closures, as ``python -m proofs_check`` needs).

    Why both: prctl is immediate and covers SIGKILL, which no handler in the
    parent can; the poll is what other systems have. Linux sends the death
    signal when the *thread* that started a worker ends, so submit from the
    thread that holds the pool; a worker whose parent died before prctl took
    effect sees another parent id and exits at once.

    >>> with process_pool(1) as pool:
    ...     pool.submit(abs, -3).result()
    3
    """
    context = multiprocessing.get_context(start_method)
    # the parent a worker must see: this process, unless a fork server starts the workers (then it is their parent)
    parent = os.getpid() if context.get_start_method() in ("fork", "spawn") else None
    pool = _Pool(
        max_workers=workers,
        mp_context=context,
        initializer=_guard_worker,
        initargs=(parent, initializer, initargs),
    )
    try:
        yield pool
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)


#: The interruptions the command lines turn into exceptions (Ctrl-C, and SIGTERM: sysrs_ref.cli.Terminated).
_INTERRUPTIONS = frozenset({signal.SIGINT, signal.SIGTERM})


class _Pool(ProcessPoolExecutor):
    """A process pool whose ``submit`` holds Ctrl-C and SIGTERM back while it runs, so that neither is lost.

    ``submit`` is where the pool forks its workers, and after a fork Python
    runs the parent's at-fork hooks (logging's, for one). An interruption whose
    handler runs inside such a hook raises there, and Python reports the
    exception as ignored and goes on: the command would never learn of it and
    would wait for pieces that run for ever. Held back (``pthread_sigmask``)
    the signal stays pending until ``submit`` returns, and is then raised in
    the caller, where it stops the pool as any interruption does.
    """

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        with _interruptions_held():
            return super().submit(fn, *args, **kwargs)


@contextmanager
def _interruptions_held() -> Iterator[None]:
    """Block SIGINT and SIGTERM in this thread for the block, then restore the mask (pending ones then arrive)."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks (and no fork)
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTIONS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop *pool* now: kill its workers (running pieces are lost, none was recorded), cancel the rest, reap them.

    It reads two private attributes of CPython's pool before ``shutdown`` clears them: the worker
    processes, and the thread that manages them, waited for so that it has closed its queues before the
    interpreter's exit hook looks at them (in 3.11 the two can race and print a traceback).
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    for process in processes:  # first, needing no lock of the pool's (an interruption may have left one taken)
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)  # the manager thread cancels what no worker had taken
    deadline = time.monotonic() + _REAP_SECONDS
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(max(0.0, deadline - time.monotonic()))
    if manager is not None:
        manager.join(max(0.0, deadline - time.monotonic()))


def _guard_worker(parent: int | None, initializer: Callable[..., object] | None, initargs: tuple[object, ...]) -> None:
    """In a new worker: end with the parent, leave Ctrl-C and SIGTERM to it, then run *initializer*."""
    # Ctrl-C and SIGTERM are the parent's to handle (it kills the pool), also when sent to the whole process
    # group: a worker dying of them first would turn the interruption into a broken pool
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # forked inside the parent's _interruptions_held: ignored, not held
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTIONS)
    if not _death_signal():
        _watch_parent(os.getppid() if parent is None else parent)
    if parent is not None and os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    if initializer is not None:
        initializer(*initargs)


def _death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """The portable fallback: a daemon thread that ends this process once its parent is no longer *parent*."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="sysrs-parent-watch", daemon=True).start()


# -- another program, in a process group of its own that ends with us ---------------------------------------------

#: The group's leader: it ignores the interruptions, waits until the parent's end of its stdin closes (the parent
#: ended the group, or died), then kills its whole group, itself included.
_WATCHDOG = (
    "import os, signal, sys\n"
    "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_IGN)\n"
    "while os.read(0, 4096): pass\n"
    "os.killpg(0, signal.SIGKILL)\n"
)


class ProcessGroup:
    """*command* started in a process group of its own, which ends, whole, with this process or at :meth:`end`.

    The group's leader is a small watchdog (a Python process, ``-I -S``)
    reading a pipe whose write end only this process holds: when this
    process ends, however it ends (SIGKILL included), or calls :meth:`end`,
    the pipe closes and the watchdog kills every process of the group with
    SIGKILL, so a program that forks leaves nothing behind. The group is
    not the terminal's foreground group: Ctrl-C reaches this process only,
    which ends the group. Where there are no process groups (Windows) the
    program is started and killed alone. *popen* goes to
    :class:`subprocess.Popen` (stdin, stdout, stderr, ...).

    >>> group = ProcessGroup([sys.executable, "-c", "print('hi')"], stdout=subprocess.PIPE)
    >>> group.process.communicate()[0].strip(), group.end()
    (b'hi', None)
    """

    def __init__(self, command: Sequence[str], **popen: object) -> None:
        self._write: int | None = None
        self._leader: subprocess.Popen[bytes] | None = None
        group: dict[str, int] = {}
        if hasattr(os, "killpg"):
            read, self._write = os.pipe()  # neither end is inherited by the command (close_fds, non-inheritable)
            try:
                self._leader = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _WATCHDOG],
                    stdin=read,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    process_group=0,
                )
            except BaseException:
                os.close(self._write)
                raise
            finally:
                os.close(read)
            group = {"process_group": self._leader.pid}
        try:
            # reason for the ignore: keyword dicts hide which of Popen's text/bytes overloads applies (bytes here)
            self.process: subprocess.Popen[bytes] = subprocess.Popen(list(command), **group, **popen)  # type: ignore[call-overload]
        except BaseException:
            self.end()
            raise

    def end(self) -> None:
        """Kill every process of the group (the command's children too), reap the command and the watchdog.

        Its stdin is closed; its stdout and stderr are left to their readers (a
        thread reading them sees their end). Calling it again does nothing.
        """
        process: subprocess.Popen[bytes] | None = getattr(self, "process", None)
        leader, self._leader = self._leader, None
        if leader is not None:  # alive until now, so its group id is still this group's
            with contextlib.suppress(OSError):
                os.killpg(leader.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):  # the leader itself, whatever became of its group
                leader.kill()
            leader.wait()
        elif process is not None and process.returncode is None:
            with contextlib.suppress(OSError):
                process.kill()
        if process is not None:
            process.wait()
            if process.stdin is not None:
                with contextlib.suppress(OSError, ValueError):
                    process.stdin.close()
        if self._write is not None:
            os.close(self._write)
            self._write = None
