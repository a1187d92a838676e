"""The contract every fast kernel follows, and helpers they share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.fast import _compiled
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._table import ScoreTable

__all__ = ["BLOCK_BYTES", "Chunk", "Kernel", "prefix_at"]

#: Size of the gathered block :func:`prefix_at` works on at a time (bytes).
BLOCK_BYTES = 8 * 2**20


@dataclass(frozen=True, eq=False)
class Chunk:
    """A kernel's result for the R runs of one DrawBatch at B budgets.

    ``chosen`` (R, B), ``ranking`` (R, B, K) or None, ``spent`` (B,): the
    spend is the same for every run at a given budget, for every algorithm here.
    """

    chosen: npt.NDArray[np.int32]
    ranking: npt.NDArray[np.int32] | None
    spent: npt.NDArray[np.int64]
    exact_decisions: int = 0


#: kernel(table, budgets, draws, ranking=..., params=...) -> Chunk
Kernel = Callable[[ScoreTable, tuple[int, ...], DrawBatch, bool, AlgorithmParams], Chunk]


def prefix_at(
    table: ScoreTable,
    draws: DrawBatch,
    counts: Sequence[int],
    *,
    scale: int = 1,
    dtype: type[np.generic] | None = None,
    block_bytes: int = BLOCK_BYTES,
    offsets: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]:
    """Prefix sums at chosen counts: ``out[p, r, i]`` = *scale* x (sum of model i's first ``counts[p]`` scores in run r),
    plus ``offsets[r, i]`` when *offsets* (R x K) is given.

    *counts* must be strictly increasing, from 1 to at most L. Shape (P, R, K):
    the sums after ``counts[p]`` queries form one contiguous (R, K) slab, which
    is what the phase-by-phase kernels read. Only the P slabs asked for are
    kept (a grid of SR schedules needs a few hundred of the L counts). The
    scores are gathered in query order and summed (synchronized draws: left to
    right, *block_bytes* of positions at a time; otherwise model by model, by
    segments between the counts when they are sparse; so too a table of B
    blocks, one per run, where the runs' scores lie far apart). Integer tables give
    exact integer sums of the numerators (*dtype* int32 or int64 as the caller
    knows fits, default int64); float tables float64 sums, whose error
    :mod:`sysrs_ref.fast.certify` bounds whatever the order of the additions.

    >>> from sysrs_ref import Draw, Instance
    >>> from sysrs_ref.fast import DrawBatch, score_table
    >>> table = score_table(Instance([[1, 0, 1, 1], [0, 1, 1, 0]]))
    >>> draws = DrawBatch.from_draws([Draw(((3, 2, 1, 0),), (0, 1))])
    >>> prefix_at(table, draws, [1, 3, 4]).tolist()
    [[[1, 0]], [[2, 2]], [[3, 2]]]
    """
    wanted = np.asarray(counts, dtype=np.intp)
    if wanted.ndim != 1 or len(wanted) == 0 or wanted[0] < 1 or np.any(np.diff(wanted) <= 0):
        raise ValueError(f"counts must be strictly increasing positive integers, got {list(counts)}")
    width = int(wanted[-1])
    if width > table.n_queries:
        raise ValueError(f"counts go up to {width}, beyond the {table.n_queries} queries")
    target = (np.int64 if table.exact else np.float64) if dtype is None else dtype
    factor = np.asarray(scale, dtype=target)  # the caller knows scale x every sum fits in dtype
    out = np.empty((len(wanted), draws.n_runs, table.n_models), dtype=target)
    module = _compiled.library()
    if module is not None:  # one compiled sweep, left to right: the same integers; floats within the same bound
        _compiled.prefix_at(module, table.compact, draws.query_orders, wanted, out, scale, offsets)  # scaled too
        return cast("npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]", out)
    if draws.synchronized and table.blocks == 1:
        _synchronized_prefix(table, draws, wanted, factor, out, block_bytes)
        return _offset(out, offsets)
    # model by model; also for a table of one block per run (stochastic runs), whose runs are far apart
    starts = np.concatenate(([0], wanted[:-1]))  # segment p holds positions counts[p-1] .. counts[p]-1
    dense = 4 * len(wanted) > width  # many counts: one running sum, then the columns asked for
    for model in range(table.n_models):  # each model's (R, width) block of scores is gathered contiguously
        orders = draws.query_orders[:, 0 if draws.synchronized else model, :width]
        gathered = np.take(table.compact[model], orders, mode="clip")
        if dense:
            sums = np.cumsum(gathered, axis=1, dtype=target)
            sums = sums if len(wanted) == width else sums[:, wanted - 1]
        else:  # segment sums, then their running sums
            sums = np.cumsum(np.add.reduceat(gathered, starts, axis=1, dtype=target), axis=1)
        if scale != 1:
            sums *= factor
        out[:, :, model] = sums.T
    return _offset(out, offsets)


def _offset(
    out: npt.NDArray[Any], offsets: npt.NDArray[np.int64] | None
) -> npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]:
    """*out* (P, R, K) plus *offsets* (R, K) in every slab, where given (the numpy passes)."""
    if offsets is not None:
        out += offsets.astype(out.dtype)[None]
    return cast("npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]", out)


def _synchronized_prefix(
    table: ScoreTable,
    draws: DrawBatch,
    wanted: npt.NDArray[np.intp],
    factor: npt.NDArray[Any],
    out: npt.NDArray[Any],
    block_bytes: int,
) -> None:
    """:func:`prefix_at` for synchronized draws: whole rows of scores, running sums slab by slab."""
    width = int(wanted[-1])
    # The table query-major, in the sums' dtype and scaled: one query's scores for all models in a row.
    rows = np.multiply(table.compact.T, factor, dtype=out.dtype)
    # A block of positions at a time in one reused buffer: it stays in the caches and in the
    # allocator's hands, where arrays of hundreds of MB would be fresh pages every time.
    step = max(1, block_bytes // max(1, draws.n_runs * table.n_models * out.itemsize))
    buffer = np.empty((min(step, width), draws.n_runs, table.n_models), dtype=out.dtype)
    carry = np.zeros((draws.n_runs, table.n_models), dtype=out.dtype)
    done = 0  # slabs of out already written
    for low in range(0, width, step):
        high = min(width, low + step)
        block = buffer[: high - low]
        np.take(rows, draws.query_orders[:, 0, low:high].T, axis=0, out=block, mode="clip")
        np.add(block[0], carry, out=block[0])
        for position in range(1, high - low):  # left to right, one contiguous (R, K) slab at a time
            np.add(block[position - 1], block[position], out=block[position])
        ends = int(np.searchsorted(wanted, high, side="right"))  # counts that end in this block
        if ends > done:
            np.take(block, wanted[done:ends] - 1 - low, axis=0, out=out[done:ends])
            done = ends
        carry[...] = block[-1]
