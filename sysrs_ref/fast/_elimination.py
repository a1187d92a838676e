"""Fast SR and SySRs (Algorithm 1): every budget of a grid from one set of prefix sums.

For run r, model i follows its query order (SySRs: the run's shared order);
after phase k every active model has seen the first n_k queries of its order,
so its phase-k sum is the prefix sum P_i(n_k) along that order. The kernel
gathers the scores in order once, takes the prefix sums once at every n_k
that some budget's schedule (:func:`sysrs_ref.schedule.schedule`, capped
when it must be) ends a phase at, and replays the K - 1 eliminations of each
budget on those sums: the common-random-numbers grid costs one gather and one
pass of running sums, plus K - 1 vectorized arg-mins per budget.

Elimination rule, as the reference: the active model with the smallest sum
is eliminated; among equal sums, the one latest in the arm priority (largest
rank). On integer numerators the key ``P * K + (K - 1 - rank)`` makes that one
exact arg-min. On float scores, see :mod:`sysrs_ref.fast.certify`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.fast import _compiled
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._kernel import Chunk, prefix_at
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast.certify import exact_prefix_sum, tolerance
from sysrs_ref.schedule import schedule, schedule_spend

__all__ = ["PhaseSums", "phase_sums", "successive_rejects_kernel"]


@dataclass(frozen=True, eq=False)
class _Plan:
    """What a grid's schedules fix for every chunk of runs: read-only, shared by the calls that ask again."""

    schedules: tuple[tuple[int, ...], ...]
    counts: tuple[int, ...]  # every n_k > 0 of some schedule, increasing: the slabs, in order
    slot: Mapping[int, int]  # n_k -> its slab (a read-only view)
    slots: npt.NDArray[np.int64]  # (B, K - 1): the slab each phase of each budget reads, -1 before anything is seen
    spent: npt.NDArray[np.int64]  # (B,): each schedule's spend


@dataclass(frozen=True, eq=False)
class PhaseSums:
    """What the phase-by-phase kernels (SR, SySRs, SAR, SySAR) read: schedules and prefix sums at their n_k.

    ``slot[n_k]`` is the slab of ``keys`` (integer tables: exact keys
    ``P * K + (K - 1 - rank)``) or of ``floats`` (float tables: certified
    float sums) holding every run's sums after n_k queries; ``spent[b]`` is
    budget b's schedule spend.
    """

    plan: _Plan
    rank: npt.NDArray[np.int64]
    keys: npt.NDArray[np.signedinteger[Any]] | None
    floats: npt.NDArray[np.float64] | None

    @property
    def schedules(self) -> tuple[tuple[int, ...], ...]:
        """Each budget's schedule."""
        return self.plan.schedules

    @property
    def slot(self) -> Mapping[int, int]:
        """n_k -> its slab."""
        return self.plan.slot

    @property
    def spent(self) -> npt.NDArray[np.int64]:
        """Each budget's schedule spend (read-only)."""
        return self.plan.spent


def phase_sums(table: ScoreTable, budgets: tuple[int, ...], draws: DrawBatch) -> PhaseSums:
    """The schedules of *budgets* and the prefix sums at every n_k they use, once for the whole grid."""
    plan = _plan(table.n_models, table.n_queries, budgets)
    counts = list(plan.counts)
    rank = draws.rank.astype(np.int64)
    keys = _keys(table, draws, counts, rank)
    floats = None if keys is not None or not counts else prefix_at(table, draws, counts)
    return PhaseSums(plan, rank, keys, None if floats is None else floats.astype(np.float64, copy=False))


@lru_cache(maxsize=64)
def _plan(n_models: int, n_queries: int, budgets: tuple[int, ...]) -> _Plan:
    """The schedules of *budgets* on K x L and what follows from them (every chunk of a grid asks again)."""
    schedules = tuple(_schedule(n_models, n_queries, budget) for budget in budgets)
    counts = tuple(sorted({n_k for lengths in schedules for n_k in lengths if n_k > 0}))
    slot = {n_k: index for index, n_k in enumerate(counts)}  # n_k -> its slab of prefix sums
    slots = np.array([[slot.get(n_k, -1) for n_k in lengths] for lengths in schedules], dtype=np.int64)
    spent = np.array([schedule_spend(lengths) for lengths in schedules], dtype=np.int64)
    slots.setflags(write=False)
    spent.setflags(write=False)
    return _Plan(schedules, counts, MappingProxyType(slot), slots.reshape(len(budgets), n_models - 1), spent)


#: The schedules of the budgets seen (exact Fractions each time: every piece of a 107-budget grid asked again).
_schedule = lru_cache(maxsize=4096)(schedule)


def successive_rejects_kernel(
    table: ScoreTable,
    budgets: tuple[int, ...],
    draws: DrawBatch,
    ranking: bool,
    params: AlgorithmParams,
) -> Chunk:
    """SR (unsynchronized draws) or SySRs (synchronized draws) at every budget of *budgets*.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import random_draws, score_table
    >>> inst = Instance([[1, 1, 0, 1], [1, 0, 1, 0], [0, 0, 1, 0]])
    >>> out = successive_rejects_kernel(score_table(inst), (9,), random_draws(1, 2, 3, 4, synchronized=True), True, {})
    >>> out.ranking[:, 0].tolist(), out.spent.tolist()
    ([[0, 1, 2], [0, 1, 2]], [8])
    """
    n_runs = draws.n_runs
    sums = phase_sums(table, budgets, draws)
    decisions = 0
    module = _compiled.library()
    if module is not None:  # the same eliminations in compiled code; uncertified float ones exactly below
        plan = sums.plan
        if sums.floats is None:  # integer keys, or no phase of any budget sees a score (every slot is -1)
            keys = sums.keys if sums.keys is not None else np.zeros((0, n_runs, table.n_models), dtype=np.int64)
            order = _compiled.eliminate(module, keys, plan.slots, sums.rank)
        else:
            counts = np.array(plan.counts, dtype=np.int64)
            numerators, orders = table.numerators64(), draws.query_orders
            order, unsettled, decisions = _compiled.eliminate_floats(
                module, sums.floats, plan.slots, counts, sums.rank, numerators, orders
            )
            for column in range(len(budgets)):
                runs = np.flatnonzero(unsettled[:, column])
                if runs.size:
                    order[runs, column], resolved = _eliminations(table, draws, sums, column, runs)
                    decisions += resolved
    else:
        order = np.empty((n_runs, len(budgets), table.n_models), dtype=np.int32)
        for column in range(len(budgets)):
            order[:, column], resolved = _eliminations(table, draws, sums, column, np.arange(n_runs))
            decisions += resolved
    return Chunk(order[:, :, 0].copy(), order if ranking else None, sums.spent, decisions)


def _eliminations(
    table: ScoreTable, draws: DrawBatch, sums: PhaseSums, column: int, runs: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], int]:
    """Budget *column*'s eliminations in *runs*, vectorized over them: (the winner, then the eliminated models,
    last one first, per run; the number of float decisions made exactly)."""
    n_models = table.n_models
    subset: npt.NDArray[np.intp] | slice = runs if len(runs) < draws.n_runs else slice(None)  # all: no copies
    rank = sums.rank[subset]
    flat_rank = rank.reshape(-1)
    offsets = (np.arange(len(runs)) * n_models)[:, None]
    rows = np.arange(len(runs))
    decisions = 0
    # cells[r, :size] are run r's models still in play, as flat cells r K + model of its (R', K)
    # slabs; the eliminated one is swapped to the end of the live part, so the arrays stay rectangular.
    cells = np.arange(len(runs) * n_models, dtype=np.intp).reshape(len(runs), n_models)
    for phase, n_k in enumerate(sums.schedules[column]):
        size = n_models - phase
        live = cells[:, :size]
        if n_k == 0:  # nothing seen yet: every active model ties; the last in priority goes
            position = np.take(flat_rank, live).argmax(axis=1)
        elif sums.keys is not None:
            position = np.take(sums.keys[sums.slot[n_k]][subset], live).argmin(axis=1)
        else:
            assert sums.floats is not None
            slab = np.take(sums.floats[sums.slot[n_k]][subset], live)
            position, resolved = _float_worst(table, draws, n_k, slab, live - offsets, rank, runs)
            decisions += resolved
        worst = live[rows, position]
        live[rows, position] = live[:, size - 1]
        live[:, size - 1] = worst
    # cells now list the winner first, then the eliminated models, last eliminated first
    return cells - offsets, decisions


def _keys(
    table: ScoreTable, draws: DrawBatch, counts: list[int], rank: npt.NDArray[np.int64]
) -> npt.NDArray[np.signedinteger[Any]] | None:
    """Integer elimination keys ``P * K + (K - 1 - rank)`` at each of *counts*, (P, R, K); None for floats.

    The arg-min of a run's keys over its active models is the model SR eliminates:
    the smallest sum, and among equal sums the latest in the priority. int32 when it fits.
    """
    if not table.exact or not counts:
        return None
    n_models = table.n_models
    largest = int(table.compact.max(initial=0)) * counts[-1]
    small = (largest + 1) * n_models < 2**31
    offsets = n_models - 1 - rank  # the keys in the sums' own pass
    return cast(
        "npt.NDArray[np.signedinteger[Any]]",
        prefix_at(table, draws, counts, scale=n_models, dtype=np.int32 if small else np.int64, offsets=offsets),
    )


def _float_worst(
    table: ScoreTable,
    draws: DrawBatch,
    n_k: int,
    sums: npt.NDArray[np.float64],
    live: npt.NDArray[np.intp],
    rank: npt.NDArray[np.int64],
    runs: npt.NDArray[np.intp],
) -> tuple[npt.NDArray[np.intp], int]:
    """The position in *live* of the model each of *runs* eliminates, from certified float sums (row i: runs[i])."""
    live_rank = np.take_along_axis(rank, live, axis=1)
    smallest = sums.min(axis=1)
    near = sums <= (smallest + tolerance(n_k, sums.max(axis=1)))[:, None]
    # One candidate, or only sums that are exactly 0.0 (exact zeros): decided by priority.
    settled = (near.sum(axis=1) == 1) | ~(near & (sums > 0.0)).any(axis=1)
    position = np.where(near, live_rank, -1).argmax(axis=1)
    unsettled = np.flatnonzero(~settled)
    for row in unsettled.tolist():
        run = int(runs[row])
        candidates = np.flatnonzero(near[row]).tolist()
        exact = {spot: exact_prefix_sum(table, draws, run, int(live[row, spot]), n_k) for spot in candidates}
        position[row] = min(candidates, key=lambda spot: (exact[spot], -int(live_rank[row, spot])))
    return position, len(unsettled)
