"""The fast kernels by algorithm name, and the memory each needs: one table, written out (no registration on import).

UCB-E-LRF has no kernel here: it runs run by run (:mod:`sysrs_ref.fast.lrf`).

>>> sorted(KERNELS) == sorted(CELL_BYTES)
True
>>> KERNELS["sysrs"] is KERNELS["sr"], CELL_BYTES["ucbe"]
(True, 8)
"""

from __future__ import annotations

from sysrs_ref.fast._accept_reject import accept_reject_kernel
from sysrs_ref.fast._elimination import successive_rejects_kernel
from sysrs_ref.fast._kernel import Kernel
from sysrs_ref.fast._ucb import syucbe_kernel, ucbe_kernel
from sysrs_ref.fast._uniform import uniform_kernel

__all__ = ["CELL_BYTES", "KERNELS"]

#: Fast kernels by algorithm name.
KERNELS: dict[str, Kernel] = {
    "us": uniform_kernel,
    "syus": uniform_kernel,
    "sr": successive_rejects_kernel,
    "sysrs": successive_rejects_kernel,
    "sar": accept_reject_kernel,
    "sysar": accept_reject_kernel,
    "ucbe": ucbe_kernel,
    "syucbe": syucbe_kernel,
}

#: Bytes a kernel needs per (run, model, query) cell, to size its chunks: orders (4) and gathered scores, then
#: prefix sums in place (8), with slack, for the elimination and uniform kernels; for the UCB kernels a chunk
#: holds only the caller's int32 orders, their own work arrays being sized for one group of runs
#: (:data:`sysrs_ref.fast._ucb_runs.GROUP_BYTES` each), whatever the chunk.
CELL_BYTES: dict[str, int] = {
    "us": 16,
    "syus": 16,
    "sr": 16,
    "sysrs": 16,
    "sar": 16,
    "sysar": 16,
    "ucbe": 8,
    "syucbe": 8,
}
