"""Local worker processes that end with their parent and stop at once, and the memory they keep for reuse.

The process handling of the Monte-Carlo engine (:mod:`sysrs_ref.simulation._engine`) and of the
subset-selection study: :func:`process_pool` ties every worker's life to its parent's (on Linux with
``prctl(PR_SET_PDEATHSIG)``, elsewhere a thread that polls the parent), holds Ctrl-C and SIGTERM back
while it forks (so that neither is lost in an at-fork hook) and kills the pool on an interruption;
:func:`keep_freed_memory` keeps glibc from handing each piece's arrays back to the system.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["PARENT_POLL_SECONDS", "keep_freed_memory", "process_pool"]

P = ParamSpec("P")
T = TypeVar("T")


#: glibc's mallopt parameters (malloc.h): give memory back to the system only above this much free at
#: the top of the heap, and grow the heap by this much more than asked.
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def keep_freed_memory() -> None:
    """Let this process reuse the memory of one piece's arrays for the next (glibc; elsewhere nothing).

    By default glibc hands freed memory at the top of its heap back to the
    system once 128 KiB or more is free, so every piece's arrays (tens of MB)
    were fresh pages, faulted in and zeroed by the kernel again: W7 at
    R = 400 took 23.2 s, 18.8 s with this (system time 3.7 s, then 1.5 s).
    Freed memory now stays in the heap for the next piece (arrays up to
    32 MiB come from the heap, not from their own mappings); the peak memory
    does not change, only what the process keeps after it. Called by the
    engine in every process that runs pieces (so also in a Python program
    that calls ``simulate``); harmless to call again.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt): nothing to tune
        return
    mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    mallopt(_M_TOP_PAD, 256 * 2**20)
    mallopt(_M_MMAP_THRESHOLD, 32 * 2**20)


# -- the local pool: workers that end with their parent, stopped at once on an interruption ---------

#: prctl's option "send me this signal when my parent dies" (linux/prctl.h).
_PR_SET_PDEATHSIG = 1

#: How often a worker without prctl checks that its parent is alive (the portable fallback).
PARENT_POLL_SECONDS = 0.5

#: How long, at most, an interrupted run waits for its killed workers to be reaped and the pool's thread to end.
_REAP_SECONDS = 10.0


@contextmanager
def process_pool(
    workers: int, initializer: Callable[..., object] | None = None, initargs: tuple[object, ...] = ()
) -> Iterator[ProcessPoolExecutor]:
    """A pool of *workers* local processes that end with this one, and are killed on an interruption.

    Every worker first ties its life to its parent's (:func:`_guard_worker`:
    on Linux the kernel sends it SIGKILL when the parent dies, however it
    dies, SIGKILL included; elsewhere a thread polls the parent's id every
    :data:`PARENT_POLL_SECONDS`), leaves Ctrl-C and SIGTERM to the parent
    (it ignores both), then runs *initializer*. The pool's ``submit``, which
    forks the workers, holds Ctrl-C and SIGTERM back until it returns
    (:class:`_Pool`). On a normal exit the pool is shut
    down, waiting for nothing but idle workers; on any exception (Ctrl-C,
    the command line's SIGTERM, an error) pieces not started are cancelled
    and the workers killed and reaped before the exception goes on.

    Why both: prctl is immediate and covers SIGKILL, which no handler in the
    parent can; the poll is what other systems have. Linux sends the death
    signal when the *thread* that started a worker ends, so submit from the
    thread that holds the pool (:func:`run_jobs` does); a worker whose parent
    died before prctl took effect sees another parent id and exits at once.
    """
    context = multiprocessing.get_context()
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


#: The interruptions the command line turns into exceptions (Ctrl-C, and SIGTERM: sysrs_ref.cli.Terminated).
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
