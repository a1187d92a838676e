"""The compiled (numba) passes: UCB-E / SyUCB-E keys, cuts and rankings; the others re-exported.

Imported only through :mod:`sysrs_ref.fast.compiled`, never directly: numba is
optional, and this module needs it. Each function computes exactly what the
numpy passes it replaces compute (:mod:`sysrs_ref.fast.ucb_runs`,
:mod:`sysrs_ref.fast.ucb`, :func:`sysrs_ref.fast._kernel.prefix_at`), with the
same float operations in the same order, and the tests compare them. The
draws (numpy's permutations on PCG64) are in :mod:`sysrs_ref.fast._compiled_draws`,
the UCB keys in :mod:`sysrs_ref.fast._compiled_keys`, the phase-by-phase kernels'
prefix sums and eliminations in :mod:`sysrs_ref.fast._compiled_phases`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sysrs_ref.fast._compiled_draws import permutations
from sysrs_ref.fast._compiled_keys import _mean, ucb_keys, ucb_keys_upto
from sysrs_ref.fast._compiled_phases import eliminate, eliminate_floats, prefix_at, shared_prefix_at

__all__ = [
    "eliminate",
    "eliminate_floats",
    "permutations",
    "prefix_at",
    "shared_prefix_at",
    "ucb_cut",
    "ucb_keys",
    "ucb_keys_upto",
    "ucb_ranking",
    "ucb_select",
]


#: Bins of the binned first bracket of ucb_select (many budgets): about K W / 4096 keys in each.
_BINS = 4096


@njit(inline="always")
def _bin(value, lowest, scale):
    """The bin of a key: floor((value - lowest) * scale), at most _BINS - 1; nondecreasing in the value."""
    at = (value - lowest) * scale
    if not at > 0.0:  # also NaN, from infinite keys: all in bin 0 (scale is then 0)
        return np.int64(0)
    return _BINS - 1 if at >= _BINS - 1 else np.int64(at)


@njit(inline="always")
def _histogram(rows, lengths, guess, at_least):
    """Fill ``at_least[j]`` with how many keys of *rows* (K, W, nonincreasing; row i's first ``lengths[i]``) lie in
    bins >= j; (lowest, scale).

    The bins span the previous run's thetas (*guess*) and a quarter of their
    range either side, or the keys' whole range when there are no guesses;
    keys beyond go to the end bins.
    """
    n_models = rows.shape[0]
    lowest, highest = rows[0, lengths[0] - 1], rows[0, 0]
    for model in range(1, n_models):
        lowest = min(lowest, rows[model, lengths[model] - 1])
        highest = max(highest, rows[model, 0])
    low_guess, high_guess = np.inf, -np.inf
    for budget in range(guess.shape[0]):
        low_guess, high_guess = min(low_guess, guess[budget]), max(high_guess, guess[budget])
    if low_guess < high_guess:  # no NaN among them, and two of them differ
        margin = 0.25 * (high_guess - low_guess)
        lowest, highest = max(lowest, low_guess - margin), min(highest, high_guess + margin)
    scale = _BINS / (highest - lowest) if highest > lowest else 0.0
    at_least[:] = 0
    for model in range(n_models):
        for position in range(lengths[model]):
            at_least[_bin(rows[model, position], lowest, scale)] += 1
    for at in range(_BINS - 1, -1, -1):
        at_least[at] += at_least[at + 1]
    return lowest, scale


@njit(inline="always")
def _count_from(row, low, high, pivot):
    """low + how many of ``row[low:high]`` (nonincreasing) are >= pivot: a binary search with no branch a step
    (the trip count depends on the length only), on unsigned positions (no fix-up for negative indices)."""
    base, length = np.uint64(low), np.uint64(high - low)
    if high > low:
        while length > np.uint64(1):
            half = length >> np.uint64(1)
            base = base + half if row[base + half] >= pivot else base
            length -= half
        base += np.uint64(1) if row[base] >= pivot else np.uint64(0)
    return np.int64(base)


@njit(cache=True, nogil=True)
def ucb_select(keys, stops, pulls, memory, binned, theta, above, upto):
    """For each run r and budget b: theta[r, b] the ``pulls[b]``-th largest key; per model, how many keys are > and >= it.

    *keys* (R, K, W) are nonincreasing along W; 0 < pulls[b] <= K W. Only
    ``keys[r, i, :stops[r, i]]`` are read: a row made only that far
    (:func:`sysrs_ref.fast._compiled_keys.ucb_keys_upto`) counts as that long. Each row's
    keys >= a pivot are counted by binary search, and a bracket [bottom, top]
    of values with fewer than pulls[b] keys above it and at least pulls[b] in
    or above it is narrowed until it holds few keys (then partitioned) or one value.
    Budgets go by increasing pulls, each starting below the previous one's theta.
    The first bracket: with *binned* (many budgets), the bin of theta in a
    histogram of the run's keys (:func:`_histogram`, made once a run), whose
    ends each row reaches by walking on from the last budget's; otherwise the
    previous run's theta (``memory[0]``, NaN at first) is the first pivot, then steps of the typical change (``memory[1]``) away
    from it, doubling until theta is bracketed, then halving. Every step only
    narrows the bracket, so the result is exact whatever the guesses and bins.
    """
    n_runs, n_models, _ = keys.shape
    n_budgets = pulls.shape[0]
    order = np.argsort(pulls)  # ascending pulls: descending theta
    limit = max(64, n_models)
    low_at = np.empty(n_models, dtype=np.int64)  # A_i: keys before are >= the bracket's top (above theta)
    high_at = np.empty(n_models, dtype=np.int64)  # B_i: keys from here on are < the bracket's bottom
    probe = np.empty(n_models, dtype=np.int64)
    members = np.empty(64, dtype=np.float64)
    at_least = np.zeros(_BINS + 1, dtype=np.int64)  # binned: at_least[j] keys lie in bins >= j
    upper_at = np.empty(n_models, dtype=np.int64)  # binned: each row's keys in bins > theta's
    lower_at = np.empty(n_models, dtype=np.int64)  # binned: each row's keys in bins >= theta's
    guess, step = memory[0], memory[1]
    for run in range(n_runs):
        rows, lengths = keys[run], stops[run]
        low_at[:] = 0
        lowest, scale, current = 0.0, 0.0, _BINS - 1
        upper_at[:] = 0
        lower_at[:] = 0
        if binned:
            lowest, scale = _histogram(rows, lengths, guess, at_least)
        for budget_index in range(n_budgets):
            budget = order[budget_index]
            wanted = pulls[budget]
            above_sum, below_sum = 0, 0
            if binned:  # the bracket: theta's bin, at_least[current + 1] < wanted <= at_least[current]
                while at_least[current] < wanted:
                    current -= 1
                for model in range(n_models):  # walk on: both ends only move right as theta falls
                    row, length = rows[model], lengths[model]
                    upper, lower = upper_at[model], lower_at[model]
                    while upper < length and _bin(row[upper], lowest, scale) > current:
                        upper += 1
                    lower = max(lower, upper)
                    while lower < length and _bin(row[lower], lowest, scale) >= current:
                        lower += 1
                    upper_at[model], lower_at[model] = upper, lower
                    low_at[model] = max(low_at[model], upper)  # also above the last theta: above this one
                    high_at[model] = lower
                    above_sum += low_at[model]
                    below_sum += lower
            else:  # the bracket: below the last theta
                high_at[:] = lengths
                for model in range(n_models):
                    above_sum += low_at[model]
                    below_sum += lengths[model]
            # 0: the guess, 1: stepping away from it, 2: halving
            phase = 0 if not (binned or np.isnan(guess[budget])) else 2
            direction = 0.0
            last_pivot = 0.0
            delta = step[budget]
            while True:
                size = below_sum - above_sum
                top = -np.inf
                bottom = np.inf
                for model in range(n_models):
                    if low_at[model] < high_at[model]:
                        top = max(top, rows[model, low_at[model]])
                        bottom = min(bottom, rows[model, high_at[model] - 1])
                if size <= limit or top == bottom:
                    break
                if phase == 0:
                    pivot = guess[budget]
                elif phase == 1:
                    pivot = last_pivot + direction * delta
                    delta *= 2.0
                else:
                    pivot = bottom + (top - bottom) * 0.5
                if not (bottom < pivot <= top):  # outside the bracket: halve it instead
                    phase = 2
                    pivot = bottom + (top - bottom) * 0.5
                    if pivot <= bottom:
                        pivot = top
                total = 0
                for model in range(n_models):  # keys >= pivot in each row's bracket
                    found = _count_from(rows[model], low_at[model], high_at[model], pivot)
                    probe[model] = found
                    total += found
                side = 1.0 if total >= wanted else -1.0  # theta >= pivot, or theta < pivot
                if total >= wanted:
                    high_at[:] = probe
                    below_sum = total
                else:
                    low_at[:] = probe
                    above_sum = total
                if phase == 0:
                    phase = 1 if delta > 0 else 2
                    direction = side
                elif phase == 1 and side != direction:
                    phase = 2  # crossed: theta is bracketed
                last_pivot = pivot
            if top == bottom and size > limit:
                value = top
            else:
                if size > members.shape[0]:
                    members = np.empty(2 * size, dtype=np.float64)
                at = 0
                for model in range(n_models):
                    for position in range(low_at[model], high_at[model]):
                        members[at] = rows[model, position]
                        at += 1
                kth = size - (wanted - above_sum)
                value = np.partition(members[:size], kth)[kth]
            theta[run, budget] = value
            if not np.isnan(guess[budget]):
                change = abs(value - guess[budget])
                step[budget] = change if np.isnan(step[budget]) else 0.5 * step[budget] + 0.5 * change
            guess[budget] = value
            for model in range(n_models):
                row = rows[model]
                strict = low_at[model]
                while strict < high_at[model] and row[strict] > value:
                    strict += 1
                loose = strict
                while loose < high_at[model] and row[loose] >= value:
                    loose += 1
                above[run, budget, model] = strict
                upto[run, budget, model] = loose
            low_at[:] = above[run, budget]  # the next budget's theta is <= this one


@njit(cache=True, nogil=True)
def _numerator(total, position, squares, a_denominator, denominator):
    """The index at count position + 1 as P q + r D over that count (common factor D q dropped); -1 if irrational."""
    root = squares[position]
    if root < 0:
        return np.int64(-1)
    return np.int64(total) * a_denominator + root * denominator


@njit(cache=True, nogil=True)
def ucb_cut(
    keys, prefix, theta, above, upto, pulls, priority, classes, squares, inverse, divisors, roots, settings, counts
):
    """The certified cuts of :func:`sysrs_ref.fast.ucb._cut`, decided as its numpy code decides them.

    For each run r and budget b (``pulls[b]`` cells of the order), with theta,
    above and upto from :func:`ucb_select`: the cut is certified when theta's
    nearest other keys are more than ``gap`` away, every band arm has exactly
    the same key (the same count and identity, or equal rational indices) and
    no later band cell of a band arm has an index within ``gap`` of theta
    (unless exactly equal to the arm's key). Then ``counts[r, b, i]`` = arm i's
    cells among the first pulls[b], the band shared out by rank, and the
    result is 1; else 0, and the caller resolves that cut exactly.
    *settings* = (gap, integer, rational, certify, a's denominator, D) as float64.
    """
    gap = settings[0]
    integer, rational, certify = settings[1] != 0.0, settings[2] != 0.0, settings[3] != 0.0
    a_denominator, denominator = np.int64(settings[4]), np.int64(settings[5])
    n_runs, n_budgets, n_models = above.shape
    width = keys.shape[2]
    certified = np.zeros((n_runs, n_budgets), dtype=np.bool_)
    for run in range(n_runs):
        for budget in range(n_budgets):
            value = theta[run, budget]
            nearest_up, nearest_down = np.inf, -np.inf
            total_above = 0
            for model in range(n_models):
                low, high = above[run, budget, model], upto[run, budget, model]
                total_above += low
                if low > 0:
                    nearest_up = min(nearest_up, keys[run, model, low - 1])
                if high < width:
                    nearest_down = max(nearest_down, keys[run, model, high])
            if not (certify and nearest_up > value + gap and nearest_down < value - gap):
                continue
            # every band arm has exactly the band's key: its key is U at its first band cell
            reference, reference_first, same = -1, 0, True
            for model in range(n_models):
                low, high = above[run, budget, model], upto[run, budget, model]
                if high <= low:
                    continue
                first = min(low, width - 1)
                if reference < 0:
                    reference, reference_first = model, first
                    continue
                if integer:  # the same count and integer sum
                    identical = prefix[run, model, first] == prefix[run, reference, first]
                else:  # the same row along the shared order
                    identical = classes[model] == classes[reference]
                same = same and first == reference_first and identical
            if not same and rational:
                key = _numerator(
                    prefix[run, reference, reference_first], reference_first, squares, a_denominator, denominator
                )
                same = key >= 0
                for model in range(n_models):
                    low, high = above[run, budget, model], upto[run, budget, model]
                    if high <= low or not same:
                        continue
                    first = min(low, width - 1)
                    numerator = _numerator(prefix[run, model, first], first, squares, a_denominator, denominator)
                    same = numerator >= 0 and numerator * (reference_first + 1) == key * (first + 1)
            if not same:
                continue
            # no hidden new minimum: every later band cell's index is clear of theta, or exactly the key
            clear = True
            for model in range(n_models):
                low, high = above[run, budget, model], upto[run, budget, model]
                if high - low < 2 or not clear:
                    continue
                for position in range(low + 1, high):
                    index = _mean(prefix[run, model, position], position, inverse, divisors) + roots[position]
                    if index > value + gap:
                        continue
                    if rational:
                        numerator = _numerator(
                            prefix[run, model, position], position, squares, a_denominator, denominator
                        )
                        key = _numerator(prefix[run, model, low], low, squares, a_denominator, denominator)
                        if numerator >= 0 and key >= 0 and numerator * (low + 1) == key * (position + 1):
                            continue
                    clear = False
                    break
            if not clear:
                continue
            certified[run, budget] = True
            need = pulls[budget] - total_above
            before = 0
            for place in range(n_models):  # the band's cells go by rank
                model = priority[run, place]
                low, band = above[run, budget, model], upto[run, budget, model] - above[run, budget, model]
                share = min(max(need - before, 0), band)
                before += band
                counts[run, budget, model] = low + share
    return certified


@njit(cache=True, nogil=True)
def ucb_ranking(prefix, counts, scale, priority, ranks):
    """``ranks[r, b]``: the models by decreasing float mean P(N) / scale at their counts, ties by priority.

    As :func:`sysrs_ref.fast.ucb._ranking` with exact float means (a stable sort
    of the means in priority order). When *ranks* holds one model per run and
    budget, only the first: the earliest in priority of the largest mean.
    """
    n_runs, n_budgets, n_models = counts.shape
    means = np.empty(n_models, dtype=np.float64)
    for run in range(n_runs):
        for budget in range(n_budgets):
            for place in range(n_models):
                model = priority[run, place]
                count = counts[run, budget, model]
                means[place] = -(prefix[run, model, count - 1] / scale[count - 1])
            if ranks.shape[2] == 1:
                ranks[run, budget, 0] = priority[run, np.argmin(means)]  # the first of the smallest
                continue
            order = np.argsort(means, kind="mergesort")
            for place in range(n_models):
                ranks[run, budget, place] = priority[run, order[place]]
