"""One BLAS thread per worker process, so that the workers, not BLAS's own threads, use the cores.

numpy's OpenBLAS starts as many threads as there are cores in every process;
with ``--workers N`` on N cores that is N x N threads fighting over N cores
(UCB-E-LRF's numpy fit calls BLAS; its compiled fit and the other algorithms
do not). Environment variables such as ``OPENBLAS_NUM_THREADS`` are read
when numpy loads, which in a forked worker has already happened, so
:func:`single_blas_thread` tells every OpenBLAS loaded in the process
directly, as threadpoolctl does: it finds them in ``/proc/self/maps`` (Linux;
elsewhere it does nothing) and calls their ``set_num_threads``. The engine
calls it in the processes that run its pieces for it (its local workers,
Dask's workers), not when it runs a piece in the caller's own process.
"""

from __future__ import annotations

import ctypes
import sys

from sysrs_ref._files import open_regular

__all__ = ["single_blas_thread"]

#: The thread-count setters of the OpenBLAS builds numpy ships or links (scipy-openblas, 64-bit and plain).
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def single_blas_thread() -> int:
    """Set every OpenBLAS loaded in this process to one thread; the number of libraries set (0 if none or not Linux).

    >>> single_blas_thread() >= 0
    True
    """
    if not sys.platform.startswith("linux"):
        return 0
    try:
        with open_regular("/proc/self/maps") as maps:  # the package's one reading rule (a regular file, size 0)
            text = maps.read().decode("utf-8", "replace")
    except OSError:
        return 0
    paths = {line.split()[-1] for line in text.splitlines() if "openblas" in line.lower() and "/" in line}
    count = 0
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)  # already loaded: the same handle, nothing runs
        except OSError:
            continue
        for name in _SETTERS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                setter(1)
                count += 1
                break
    return count
