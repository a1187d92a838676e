"""Fast SAR and SySAR (Successive Accepts and Rejects): every budget of a grid from one set of prefix sums.

As for SR (:mod:`sysrs_ref.fast._elimination`), after phase k every active
model has seen the first n_k queries of its order, so its sum is the prefix
sum P_i(n_k), taken once at every n_k some budget's schedule uses. Each phase
then replays the reference's decision
(:func:`~sysrs_ref.algorithms.successive_accepts_rejects.sar_decision`) for
all runs at once: sort the active models by the integer key
``P * K + (K - 1 - rank)`` (decreasing: larger sum first, then earlier in the
priority, exactly the reference's order), read the sums at positions 1, m',
m' + 1 and last (m' = places left, per run), accept the first when
``P(1) - P(m'+1) > P(m') - P(last)``, else reject the last.

On float scores the sums are certified (:mod:`sysrs_ref.fast.certify`): a
run's phase is decided from floats when the gap difference is further from 0
than the tolerance (it combines four sums, each within a quarter of it) and
the leaving model is the only one within the tolerance of the extreme sum
(or all such sums are exactly 0.0, true ties); otherwise that run's phase is
decided with exact integer sums, as the reference does. With one place left
(m' = 1) no arithmetic is needed: the gap difference is P(last) - P(2) <= 0,
so the worst is rejected.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams, TopMSize, expect
from sysrs_ref.algorithms.successive_accepts_rejects import check_m, sar_decision
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._elimination import phase_sums
from sysrs_ref.fast._kernel import Chunk
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast.certify import exact_prefix_sum, tolerance

__all__ = ["accept_reject_kernel"]

IntArray = npt.NDArray[np.intp]


def accept_reject_kernel(
    table: ScoreTable,
    budgets: tuple[int, ...],
    draws: DrawBatch,
    ranking: bool,
    params: AlgorithmParams,
) -> Chunk:
    """SAR (unsynchronized draws) or SySAR (synchronized draws) with ``params.m`` at every budget of *budgets*.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.algorithms.params import TopMSize
    >>> from sysrs_ref.fast import random_draws, score_table
    >>> inst = Instance([[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]])
    >>> out = accept_reject_kernel(score_table(inst), (16,), random_draws(1, 2, 4, 4, synchronized=True), True, TopMSize(2))
    >>> out.ranking[:, 0].tolist(), out.spent.tolist()
    ([[0, 1, 2, 3], [0, 1, 2, 3]], [16])
    """
    n_runs, n_models = draws.n_runs, table.n_models
    places = check_m(expect(params, TopMSize, "SAR and SySAR").m, n_models)
    sums = phase_sums(table, budgets, draws)
    slot, rank, keys, floats = sums.slot, sums.rank, sums.keys, sums.floats
    # the rank term of the key, as a slab: the n_k = 0 phase (nothing seen) sorts by priority alone
    priority_key = (n_models - 1 - rank).reshape(-1)
    chosen = np.empty((n_runs, len(budgets)), dtype=np.int32)
    ranks = np.empty((n_runs, len(budgets), n_models), dtype=np.int32) if ranking else None
    runs = np.arange(n_runs)
    offsets = (runs * n_models)[:, None]
    decisions = 0
    for column, lengths in enumerate(sums.schedules):
        cells = np.arange(n_runs * n_models, dtype=np.intp).reshape(n_runs, n_models)
        order = np.empty((n_runs, n_models), dtype=np.int32)  # the final ranking, filled from both ends
        accepted = np.zeros(n_runs, dtype=np.intp)
        rejected = np.zeros(n_runs, dtype=np.intp)
        for phase, n_k in enumerate(lengths):
            size = n_models - phase
            live = cells[:, :size]
            left = places - accepted  # m', per run
            if n_k == 0:
                position, accept = _integer_phase(np.take(priority_key, live), left, size, n_models, scaled=False)
            elif keys is not None:
                position, accept = _integer_phase(np.take(keys[slot[n_k]], live), left, size, n_models, scaled=True)
            else:
                assert floats is not None
                values = np.take(floats[slot[n_k]], live)
                position, accept, resolved = _float_phase(table, draws, n_k, values, live - offsets, rank, left)
                decisions += resolved
            leaving = live[runs, position]
            spot = np.where(accept, accepted, n_models - 1 - rejected)
            order[runs, spot] = leaving - runs * n_models
            accepted += accept
            rejected += ~accept
            live[runs, position] = live[:, size - 1]
            live[:, size - 1] = leaving
        order[runs, accepted] = cells[:, 0] - runs * n_models  # the model left at the end
        chosen[:, column] = order[:, 0]
        if ranks is not None:
            ranks[:, column] = order
    return Chunk(chosen, ranks, sums.spent, decisions)


def _integer_phase(
    keys: npt.NDArray[np.int64], left: IntArray, size: int, n_models: int, *, scaled: bool
) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """(position in live of the leaving model, accepted?) from distinct integer keys, per run."""
    ordered = -np.sort(-keys, axis=1)  # decreasing: SAR's sigma order
    sums = ordered // n_models if scaled else np.zeros_like(ordered)  # the key's rank term is < K
    rows = np.arange(keys.shape[0])
    inside = np.clip(left, 1, size - 1)  # m' clipped where the decision is forced anyway
    accept_gap = sums[:, 0] - sums[rows, inside]
    reject_gap = sums[rows, inside - 1] - sums[:, size - 1]
    accept = (left >= size) | ((left > 0) & (accept_gap > reject_gap))
    position = np.where(accept, keys.argmax(axis=1), keys.argmin(axis=1))
    return position.astype(np.intp), accept


def _float_phase(
    table: ScoreTable,
    draws: DrawBatch,
    n_k: int,
    sums: npt.NDArray[np.float64],
    live: IntArray,
    rank: npt.NDArray[np.int64],
    left: IntArray,
) -> tuple[IntArray, npt.NDArray[np.bool_], int]:
    """The decision of each run from certified float sums; uncertain runs decided exactly."""
    n_runs, size = sums.shape
    rows = np.arange(n_runs)
    live_rank = np.take_along_axis(rank, live, axis=1)
    ordered = -np.sort(-sums, axis=1)
    margin = tolerance(n_k, ordered[:, 0])
    inside = np.clip(left, 1, size - 1)
    difference = (ordered[:, 0] - ordered[rows, inside]) - (ordered[rows, inside - 1] - ordered[:, size - 1])
    forced = (left >= size) | (left <= 0)
    accept = (left >= size) | ((left > 0) & (difference > 0))
    # m' = 1 needs no arithmetic: the gap difference is mean(last) - mean(2) <= 0 exactly, so SAR rejects
    # (this is what makes SAR with m = 1 exactly SR, and it decides every 2-model final phase)
    accept &= left != 1
    sure = forced | (left == 1) | (np.abs(difference) > margin)
    # the leaving model: the largest sum (accept) or the smallest (reject), ties by priority
    top = sums >= (ordered[:, 0] - margin)[:, None]
    bottom = sums <= (ordered[:, size - 1] + margin)[:, None]
    near = np.where(accept[:, None], top, bottom)
    single = (near.sum(axis=1) == 1) | ~(near & (sums > 0.0)).any(axis=1)
    position = np.where(
        accept, np.where(near, -live_rank, -(2**62)).argmax(axis=1), np.where(near, live_rank, -1).argmax(axis=1)
    ).astype(np.intp)
    unsure = np.flatnonzero(~(sure & single))
    for run in unsure.tolist():
        exact = [exact_prefix_sum(table, draws, run, int(model), n_k) for model in live[run].tolist()]
        spots = sorted(range(size), key=lambda spot: (-exact[spot], int(live_rank[run, spot])))
        choice = sar_decision([Fraction(exact[spot]) for spot in spots], int(left[run]))
        accept[run] = choice
        position[run] = spots[0] if choice else spots[-1]
    return position, accept, len(unsure)
