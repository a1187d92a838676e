"""Fast US and SyUS: every budget of a grid from one set of prefix sums.

At budget n every model is evaluated on the first m = floor(n / K) queries of
its order (SyUS: the run's shared order); its sum is the prefix sum P_i(m).
The ranking is by decreasing sum (all counts are m), ties by arm priority:
on integer numerators the key ``P * K + (K - 1 - rank)`` sorts exactly; on
float scores, neighbours in the float order closer than the certified
tolerance (:mod:`sysrs_ref.fast.certify`) are re-sorted with exact sums.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._kernel import Chunk, prefix_at
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast.certify import exact_prefix_sum, tolerance

__all__ = ["uniform_kernel"]


def uniform_kernel(
    table: ScoreTable,
    budgets: tuple[int, ...],
    draws: DrawBatch,
    ranking: bool,
    params: AlgorithmParams,
) -> Chunk:
    """US (unsynchronized draws) or SyUS (synchronized draws) at every budget of *budgets*.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import random_draws, score_table
    >>> inst = Instance([[1, 1, 0], [0, 1, 0]])
    >>> out = uniform_kernel(score_table(inst), (6,), random_draws(0, 2, 2, 3, synchronized=False), True, {})
    >>> out.chosen[:, 0].tolist(), out.spent.tolist()
    ([0, 0], [6])
    """
    n_runs, n_models = draws.n_runs, table.n_models
    per_model = [budget // n_models for budget in budgets]
    counts = sorted(set(per_model))
    prefix = prefix_at(table, draws, counts)  # (P, R, K): the sums after each count m
    rank = draws.rank.astype(np.int64)
    chosen = np.empty((n_runs, len(budgets)), dtype=np.int32)
    ranks = np.empty((n_runs, len(budgets), n_models), dtype=np.int32) if ranking else None
    spent = np.array([m * n_models for m in per_model], dtype=np.int64)
    decisions = 0
    for column, m in enumerate(per_model):
        sums = prefix[counts.index(m)]
        if table.exact:  # exact keys, distinct: the chosen model is their arg-max
            keys = sums * n_models + (n_models - 1 - rank)
            if ranks is None:
                chosen[:, column] = np.argmax(keys, axis=1)
                continue
            order = np.argsort(-keys, axis=1).astype(np.int32)
        else:
            order, resolved = _float_order(table, draws, sums.astype(np.float64, copy=False), m, rank)
            decisions += resolved
        chosen[:, column] = order[:, 0]
        if ranks is not None:
            ranks[:, column] = order
    return Chunk(chosen, ranks, spent, decisions)


def _float_order(
    table: ScoreTable,
    draws: DrawBatch,
    sums: npt.NDArray[np.float64],
    m: int,
    rank: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int32], int]:
    """Models by decreasing sum, ties by rank; close float neighbours re-sorted exactly."""
    order = np.lexsort((rank, -sums), axis=1).astype(np.int32)
    ordered = np.take_along_axis(sums, order, axis=1)
    margin = tolerance(m, ordered[:, 0])[:, None]
    close = (ordered[:, :-1] - ordered[:, 1:] <= margin) & (ordered[:, :-1] > 0.0)
    resolved = 0
    for run in np.flatnonzero(close.any(axis=1)).tolist():
        position = 0
        flags = close[run].tolist()
        while position < len(flags):
            if not flags[position]:
                position += 1
                continue
            end = position
            while end < len(flags) and flags[end]:
                end += 1
            members = order[run, position : end + 1].tolist()  # a cluster of close neighbours
            exact = {model: exact_prefix_sum(table, draws, run, model, m) for model in members}
            members.sort(key=lambda model: (-exact[model], int(rank[run, model])))
            order[run, position : end + 1] = members
            resolved += 1
            position = end + 1
    return order, resolved
