"""The compiled (numba) UCB-E / SyUCB-E keys: prefix sums and running minima of the indices, row by row.

Imported only through :mod:`sysrs_ref.fast._compiled_passes` (and so through
:mod:`sysrs_ref.fast.compiled`), never directly: numba is optional. Every row
is made by one loop, :func:`_extend`, with the float operations of the numpy
passes of :class:`~sysrs_ref.fast.ucb_runs.Runs` in the same order, so the
arrays are numpy's bit for bit wherever they are made.

:func:`ucb_keys_upto` makes each row only as far as the cut of the largest
budget can reach. Cell (i, N) is pulled at budget n only if its key is at
least theta(n), the (n - K)-th largest key, and theta falls as n grows. A
floor g with at least ``needed`` keys >= g (the largest budget's pulls) is
below every theta of the grid, so a row may stop once one of its keys is
below g: every key after it is smaller still (keys do not increase along a
row) and never pulled. Each row keeps its first key below g, so every count
of keys >= some value v >= g, and every key next to a cut, is the full row's;
below g a stopped row simply holds fewer keys, and a count at such a v is
still at least ``needed``, as the full rows' is. Order statistics, cuts and
their certification read the same values either way
(:func:`sysrs_ref.fast.compiled.ucb_select` takes each row's length). g
starts at the previous runs' theta of the largest budget and falls (by
doubling steps from a quarter of its typical change, then to minus infinity,
where every row is whole) until at least ``needed`` keys are >= g: the
guess changes the work, never a number.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ucb_keys", "ucb_keys_upto"]

#: Lowerings of the floor before ucb_keys_upto makes the remaining rows whole (floor minus infinity).
_LOWERINGS = 40


#: Positions made between two looks at the floor (a loop without an exit in every step runs faster).
_STRIDE = 64


@njit(inline="always")
def _mean(total, position, inverse, divisors):
    """The mean of an index, as :func:`sysrs_ref.fast.ucb_exact.float_means` makes it: divided where sqrt(a/N) is
    rational (*divisors* nonzero), else multiplied by the reciprocal."""
    divisor = divisors[position]
    return total / divisor if divisor != 0.0 else total * inverse[position]


@njit(inline="always")
def _span(row, order, inverse, divisors, roots, out, key, first, stop, total, lowest):
    """Positions first .. stop - 1 (first >= 1) of a row from its sum and key before them; (sum, key) after.

    Unsigned positions and queries: numba then adds no fix-up for negative
    indices to every access (the loop runs about twice as fast).
    """
    for position in range(np.uint64(first), np.uint64(stop)):
        total += row[np.uint64(order[position])]
        out[position] = total
        index = _mean(total, position, inverse, divisors) + roots[position]
        if index < lowest:
            lowest = index
        key[position] = lowest
    return total, lowest


@njit(inline="always")
def _extend(row, order, inverse, divisors, roots, out, key, start, floor):
    """One (run, model) row from position *start* on, until a key falls below *floor* or the row ends.

    ``out[N - 1]`` = P(N), the sum of the first N scores along *order*, left to
    right (as ``np.cumsum``); ``key[N - 1]`` = the running minimum of
    :func:`_mean` (P(N'), N' - 1) + roots[N' - 1] over N' <= N (as ``np.minimum.accumulate``).
    The floor is looked at every :data:`_STRIDE` positions, so a row goes on
    less than that many keys past its first below the floor. Returns the row's
    length: the position after its last key. A row made to its end also gets
    ``out[L - 1]``, the sum of all its scores.
    """
    width = key.shape[0]
    if start > 0 and key[start - 1] < floor:
        return start
    if start == 0:
        out[0] = row[order[0]]
        total = out[0]  # in the sums' dtype (int64 for integer tables)
        lowest = _mean(total, 0, inverse, divisors) + roots[0]
        key[0] = lowest
        position = 1
    else:
        total, lowest, position = out[start - 1], key[start - 1], start
    while position < width and not lowest < floor:
        stop = min(position + _STRIDE, width)
        total, lowest = _span(row, order, inverse, divisors, roots, out, key, position, stop, total, lowest)
        position = stop
    if position == width and start < width:
        out[width] = total + row[order[width]]
    return position


@njit(cache=True, nogil=True)
def ucb_keys(values, orders, inverse, divisors, roots, prefix, keys):
    """``prefix[r, i, N-1]`` = P_i(N) along run r's order of model i; ``keys`` = running min of the indices.

    Every row whole: one pass per (run, model) row (gather, running sum, index, running minimum).
    """
    n_runs, n_rows, _ = orders.shape
    for run in range(n_runs):
        for model in range(values.shape[0]):
            order = orders[run, 0 if n_rows == 1 else model]
            if keys.shape[2] == 0:  # one query: no key, the sum alone
                prefix[run, model, 0] = values[model, order[0]]
                continue
            row = values[model]
            _extend(row, order, inverse, divisors, roots, prefix[run, model], keys[run, model], 0, -np.inf)


@njit(cache=True, nogil=True)
def ucb_keys_upto(values, orders, inverse, divisors, roots, prefix, keys, needed, guess, step, stops):
    """:func:`ucb_keys`, each row only as far as a cut of at most *needed* pulls can reach; its length in *stops*.

    *needed* is the largest budget's pulls, 0 < needed < K (L - 1); *guess*
    (minus infinity: none) and *step* (its typical change, NaN or 0: none) set
    the first floor. Run r's rows are made until a key is below the floor,
    which falls until at least *needed* keys are at or above it; then
    ``stops[r, i]`` is row i's length, and ``keys[r, i, :stops[r, i]]`` and
    ``prefix[r, i, :stops[r, i]]`` are :func:`ucb_keys`'s (the rest is not written).
    """
    n_runs, n_rows, _ = orders.shape
    n_models = values.shape[0]
    for run in range(n_runs):
        floor = guess
        delta = 0.25 * step if step > 0 else max(abs(guess), 1.0) * 2.0**-20
        stops[run, :] = 0
        for lowering in range(_LOWERINGS + 1):
            if lowering == _LOWERINGS:
                floor = -np.inf
            count = 0  # keys >= floor
            for model in range(n_models):
                order = orders[run, 0 if n_rows == 1 else model]
                row, start = values[model], stops[run, model]
                stop = _extend(row, order, inverse, divisors, roots, prefix[run, model], keys[run, model], start, floor)
                stops[run, model] = stop
                while stop > 0 and keys[run, model, stop - 1] < floor:  # less than _STRIDE keys
                    stop -= 1
                count += stop
            if count >= needed:
                break
            floor -= delta
            delta *= 2.0
