"""The Monte-Carlo engine's pieces on a Dask cluster (``--scheduler``): a client's executor, and a clear error.

``distributed`` is the optional ``distributed`` extra; without it, or without a reachable scheduler,
:func:`dask_executor` raises a :class:`~sysrs_ref.errors.ParameterError` saying which.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager

from sysrs_ref.errors import ParameterError

__all__ = ["dask_executor"]


@contextmanager
def dask_executor(scheduler: str, workers: int, in_flight_per_worker: int) -> Iterator[tuple[Executor, int]]:
    """(executor, pieces to keep submitted) on the Dask scheduler at *scheduler*; cancels what is left on error.

    The pieces kept submitted are *in_flight_per_worker* for each of the larger of *workers* and the
    cluster's threads.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ParameterError(
            "--scheduler needs Dask: install the 'distributed' extra (pip install -e '.[distributed]')"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise ParameterError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
    try:
        threads = sum(int(count) for count in client.nthreads().values())
        executor = client.get_executor()
        try:
            yield executor, in_flight_per_worker * max(workers, threads)
        except BaseException:
            executor.shutdown(wait=False)  # cancels, on the cluster, every piece submitted and not finished
            raise
    finally:
        client.close()
