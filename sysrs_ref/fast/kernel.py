"""The contract every fast kernel follows, and helpers they share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref.fast.batch import DrawBatch
from sysrs_ref.fast.table import ScoreTable

__all__ = ["Chunk", "Kernel", "gather_scores", "prefix_by_position", "ranking_from_keys"]


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
Kernel = Callable[[ScoreTable, tuple[int, ...], DrawBatch, bool, Mapping[str, Fraction]], Chunk]


def gather_scores(table: ScoreTable, draws: DrawBatch, width: int) -> npt.NDArray[np.int64] | npt.NDArray[np.float64]:
    """Scores in query order: ``out[r, i, t] = S[i, order_r(i)[t]]`` for t < width, shape (R, K, width).

    For a synchronized batch every model follows run r's one shared order.
    """
    orders = draws.query_orders[:, :, :width]
    models = np.arange(table.n_models)[None, :, None]
    out: npt.NDArray[np.int64] | npt.NDArray[np.float64] = table.values[models, orders]
    return out


def ranking_from_keys(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    """Models in increasing order of *keys* along the last axis (keys must be distinct)."""
    return np.argsort(keys, axis=-1, kind="stable").astype(np.int32)


def prefix_by_position(
    table: ScoreTable, draws: DrawBatch, width: int, *, scale: int = 1, dtype: type[np.generic] | None = None
) -> npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]:
    """Prefix sums by position: ``out[t, r, i]`` = *scale* x (sum of model i's first t + 1 scores in run r).

    Shape (width, R, K): the sums after t + 1 queries form one contiguous (R, K)
    slab, which is what the phase-by-phase kernels read. Integer tables give
    integer sums of the numerators (exact; *dtype* int32 or int64 as the caller
    knows fits, default int64), float tables float64 sums added left to right
    (the order :mod:`sysrs_ref.fast.certify` bounds).
    """
    target = (np.int64 if table.exact else np.float64) if dtype is None else dtype
    source = table.compact
    factor = np.asarray(scale, dtype=target)
    if draws.synchronized:
        positions = draws.query_orders[:, 0, :width].T  # (width, R)
        out = np.empty((width, draws.n_runs, table.n_models), dtype=target)
        np.multiply(source.T[positions], factor, out=out, casting="unsafe")  # row gathers
        for position in range(1, width):  # one contiguous slab at a time, left to right
            np.add(out[position - 1], out[position], out=out[position])
    else:
        out = np.empty((width, draws.n_runs, table.n_models), dtype=target)
        for model in range(table.n_models):  # gather and sum each model's (R, width) block contiguously
            sums = np.cumsum(np.take(source[model], draws.query_orders[:, model, :width]), axis=1, dtype=target)
            if scale != 1:
                sums *= factor
            out[:, :, model] = sums.T
    return cast("npt.NDArray[np.signedinteger[Any]] | npt.NDArray[np.float64]", out)
