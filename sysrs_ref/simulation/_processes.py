"""Local worker processes that end with their parent and stop at once, and the memory they keep for reuse.

The process handling of the Monte-Carlo engine (:mod:`sysrs_ref.simulation._engine`) and of the
subset-selection study: :func:`process_pool` is the package's one worker pool
(:func:`sysrs_ref._children.process_pool`: every worker ends with its parent, SIGKILL included, and an
interruption kills the pool at once); :func:`keep_freed_memory` keeps glibc from handing each piece's
arrays back to the system.
"""

from __future__ import annotations

import ctypes
import sys

from sysrs_ref._children import PARENT_POLL_SECONDS, process_pool

__all__ = ["PARENT_POLL_SECONDS", "keep_freed_memory", "process_pool"]


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
