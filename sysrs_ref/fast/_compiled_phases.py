"""The compiled (numba) passes of the phase-by-phase kernels: prefix sums at the phase ends, and SR's eliminations.

Imported only through :mod:`sysrs_ref.fast._compiled_passes` (and so through
:mod:`sysrs_ref.fast.compiled`), never directly: numba is optional. Each
computes what its numpy counterpart computes (:func:`sysrs_ref.fast._kernel.prefix_at`,
:func:`sysrs_ref.fast.elimination.successive_rejects_kernel`), and the tests compare them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["eliminate", "eliminate_floats", "prefix_at", "shared_prefix_at"]


@njit(cache=True, nogil=True)
def shared_prefix_at(columns, orders, wanted, out):
    """:func:`prefix_at` for synchronized draws: *columns* is the table query-major (L, K), one order per run.

    Every model adds the same query's score at each step, so the inner loop
    runs over the models, on contiguous memory.
    """
    n_runs = orders.shape[0]
    n_models = columns.shape[1]
    n_counts = wanted.shape[0]
    totals = np.zeros(n_models, dtype=out.dtype)
    for run in range(n_runs):
        order = orders[run, 0]
        totals[:] = 0
        position = np.uint64(0)  # unsigned positions and queries: no fix-up for negative indices
        for slot in range(n_counts):
            stop = np.uint64(wanted[slot])
            while position < stop:
                column = columns[np.uint64(order[position])]
                for model in range(n_models):
                    totals[model] += column[model]
                position += np.uint64(1)
            out[slot, run, :] = totals


@njit(cache=True, nogil=True)
def prefix_at(values, orders, wanted, out):
    """``out[p, r, i]``: the sum of model i's first ``wanted[p]`` scores along run r's order, left to right."""
    n_runs, n_rows, _ = orders.shape
    n_models = values.shape[0]
    n_counts = wanted.shape[0]
    for run in range(n_runs):
        for model in range(n_models):
            order = orders[run, 0 if n_rows == 1 else model]
            row = values[model]
            total = 0  # numba types it as the sums: int64, or float64 on float scores
            position = np.uint64(0)  # unsigned positions and queries: no fix-up for negative indices (1.3-1.8x)
            for slot in range(n_counts):
                stop = np.uint64(wanted[slot])
                while position < stop:
                    total += row[np.uint64(order[position])]
                    position += np.uint64(1)
                out[slot, run, model] = total


@njit(inline="always")
def _latest_in_priority(rank, cells, size):
    """The position in ``cells[:size]`` of the model latest in the priority (largest *rank*): it goes when no
    score is seen yet."""
    position, latest = 0, rank[cells[0]]
    for spot in range(1, size):
        if rank[cells[spot]] > latest:
            latest, position = rank[cells[spot]], spot
    return position


@njit(inline="always")
def _remove(cells, position, size):
    """Eliminate ``cells[position]``: swap it to the end of the active part ``cells[:size]``."""
    worst = cells[position]
    cells[position] = cells[size - 1]
    cells[size - 1] = worst


@njit(cache=True, nogil=True)
def eliminate(keys, slots, rank, limits, out):
    """SR / SySRs on exact integer keys: ``out[r, b]`` = the winner, then the eliminated models, last one first.

    ``slots[b, phase]`` is the slab of *keys* (P, R, K) read in that phase of
    budget b (-1: nothing seen yet, so the active model latest in the
    priority, the largest *rank*, goes). Each phase removes the active model
    of smallest key, as :func:`sysrs_ref.fast.elimination.successive_rejects_kernel`
    does; the one removed in phase p is written at ``K - 1 - p``.

    *limits* holds the smallest and largest value of the keys' dtype. An
    eliminated model's mask is the largest, an active one's the smallest, so
    ``max(key, mask)`` hides the eliminated ones and each phase is two passes
    over the slab's contiguous row that the compiler vectorizes: the smallest
    masked key, then the model holding it. That model is unique because the
    keys of a slab are distinct (the rank is part of them) and every real key
    is below the largest value (the keys' dtype is chosen so).
    """
    n_runs, n_models = rank.shape
    n_budgets, n_phases = slots.shape
    active, gone = limits[0], limits[1]
    mask = np.empty(n_models, dtype=limits.dtype)
    for run in range(n_runs):
        for budget in range(n_budgets):
            cells = out[run, budget]
            mask[:] = active
            for phase in range(n_phases):
                slot = slots[budget, phase]
                worst = 0
                if slot < 0:
                    latest = -1
                    for model in range(n_models):
                        if mask[model] == active and rank[run, model] > latest:
                            latest, worst = rank[run, model], model
                else:
                    row = keys[slot, run]
                    smallest = gone
                    for model in range(n_models):
                        smallest = min(smallest, max(row[model], mask[model]))
                    for model in range(n_models):  # the one model whose key it is: a sum, so it vectorizes too
                        worst += model if row[model] == smallest else 0
                cells[n_models - 1 - phase] = worst
                mask[worst] = gone
            for model in range(n_models):
                if mask[model] == active:
                    cells[0] = model


@njit(cache=True, nogil=True)
def eliminate_floats(sums, slots, counts, rank, out, unsettled):
    """:func:`eliminate` on certified float sums (P, R, K), as :func:`sysrs_ref.fast.elimination._float_worst` decides.

    In each phase the active model of smallest sum goes when it is the only one
    within ``tolerance(n_k, largest)`` of the smallest (``counts[p]`` = n_k of
    slab p), or when every sum that near is exactly 0.0 (the latest in the
    priority then goes). Otherwise that run and budget needs exact sums:
    ``unsettled[r, b]`` is set and its phases stop; the caller replays it exactly.
    """
    n_runs, n_models = rank.shape
    n_budgets, n_phases = slots.shape
    for run in range(n_runs):
        for budget in range(n_budgets):
            cells = out[run, budget]
            for model in range(n_models):
                cells[model] = model
            for phase in range(n_phases):
                size = n_models - phase
                slot = slots[budget, phase]
                position = 0
                if slot < 0:
                    position = _latest_in_priority(rank[run], cells, size)
                else:
                    row = sums[slot, run]
                    smallest, largest = row[cells[0]], row[cells[0]]
                    for spot in range(1, size):
                        value = row[cells[spot]]
                        smallest = min(smallest, value)
                        largest = max(largest, value)
                    threshold = smallest + np.float64(counts[slot] + 1) * 2.0**-50 * largest
                    near, positive, latest = 0, False, -1
                    for spot in range(size):
                        value = row[cells[spot]]
                        if value <= threshold:
                            near += 1
                            positive = positive or value > 0.0
                            if rank[run, cells[spot]] > latest:
                                latest, position = rank[run, cells[spot]], spot
                    if near > 1 and positive:
                        unsettled[run, budget] = True
                        break
                _remove(cells, position, size)
