"""Fast UCB-E and SyUCB-E (Appendix "Algorithms", Algorithms UCB-E and SyUCB-E), all budgets at once.

The reference (:mod:`sysrs_ref.algorithms.ucb`) evaluates every model once,
then repeatedly the selectable model (count N < L) with the largest index
U = mean + sqrt(a / N), ties to the smaller rank. Here the whole run is
computed from its draw without simulating the steps, for R runs at once.

**Block merge.** Along its query order, arm i's index at count N is known in
advance: U_i(N) = P_i(N) / (N D) + sqrt(a / N), P_i(N) the sum of its first N
scores (U_i(L) = -inf: no longer selectable). Give the cell (i, N), the pull
made at count N, the key M_i(N) = min over N' <= N of U_i(N'). Claim: the
pulls after the warm-up are the cells in decreasing order of
(M_i(N), -rank_i, -N). Split each arm at its strict new running minima into
blocks; a block's cells share one key, the value U at its start, and keys
strictly decrease from block to block. Suppose every arm sits at a block
start (true after the warm-up, N = 1): its index is then its block key, and
the greedy rule pulls the arm whose key (U, -rank) is largest, which is the
largest key among the blocks not yet pulled (each arm's later blocks have
smaller keys). Inside the block its index stays >= the block key (no new
strict minimum), which beat every other arm's index, and the others do not
move, so the greedy rule pulls it to the end of the block; then every arm is
at a block start again. So budget n makes the first t = n - K cells of that
order (there are K (L - 1), enough for every n <= K L), at every budget a cut
of one order: one computation serves the whole grid. The count of arm i is
1 + its cells among the first t; the final ranking is by exact mean
P_i(N_i) / (N_i D), ties by rank, and the spend is n.

**Exactness.** Keys are float64 (running minima of the float indices); the
t-th largest key theta comes from ``np.partition`` and the counts from binary
searches in each arm's nonincreasing keys. Floats further apart than ``gap``
(4 times a proved error bound, :func:`~sysrs_ref.fast._ucb_exact.bounds_for`)
order the exact keys the same way, and every other decision is taken exactly.
A cut is certified without exact arithmetic when (1) theta's nearest other
keys are more than ``gap`` away, so every other cell is exactly before or
after the band of cells at theta; (2) the band arms' keys (U at each one's
first band cell) are exactly equal: same count and integer prefix sum, or one
arm alone, or both rational and equal (with a = p/q, sqrt(a/N) is rational
iff p q N is a square, and two indices with different (N, P) can only be
equal if both are rational), or, on float scores that are each exactly their
float (:meth:`~sysrs_ref.fast.ScoreTable.floats_exact`), all at count 1 with
equal floats, hence equal first scores, or, on float scores whose numerators
fit in int64 (:meth:`~sysrs_ref.fast.ScoreTable.numerators64`), all at one
count with equal exact numerator sums; (3) no later band cell of a band arm has a float
index within ``gap`` of theta (or it equals the key exactly), so no hidden new
minimum. The band then goes by rank. Any other cut is resolved exactly
(:func:`~sysrs_ref.fast._ucb_exact.resolve_cut`). Final means are exact on
integer scores with L^2 D < 2^52 (correctly rounded floats of distinct
fractions differ); otherwise chains of near-equal means are re-sorted exactly
(:func:`~sysrs_ref.fast._ucb_exact.resolve_ranking`). Exact comparisons are
counted in ``exact_decisions``.
"""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

import numpy as np
import numpy.typing as npt

from sysrs_ref.algorithms.params import AlgorithmParams, Exploration, expect
from sysrs_ref.algorithms.ucb_index import IndexKey
from sysrs_ref.fast import _compiled
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._kernel import Chunk, Kernel
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast._ucb_exact import RunView, count_above, float_means, resolve_cut, resolve_ranking, segments
from sysrs_ref.fast._ucb_runs import GROUP_BYTES, Runs, Setup, Workspace, cut_tables
from sysrs_ref.fast.certify import MAX_TERMS
from sysrs_ref.schedule import check_budget

__all__ = ["run_view", "syucbe_kernel", "ucb_outcomes", "ucbe_kernel"]

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _make_kernel(name: str, synchronized: bool) -> Kernel:
    def kernel(
        table: ScoreTable,
        budgets: tuple[int, ...],
        draws: DrawBatch,
        ranking: bool,
        params: AlgorithmParams,
    ) -> Chunk:
        draws.require(table.n_models, table.n_queries, synchronized=synchronized, who=name)
        a = expect(params, Exploration, name).a
        # a beyond float64, or L beyond the range where the float bounds are proved: only the reference is exact
        if IndexKey.tolerance_for(a) == float("inf") or table.n_queries >= MAX_TERMS:
            return reference_kernel(name)(table, budgets, draws, ranking, params)
        return ucb_outcomes(table, budgets, draws, a, ranking=ranking)

    kernel.__name__ = f"{name}_kernel"
    kernel.__doc__ = f"The fast {name} kernel (see :mod:`sysrs_ref.fast._ucb`)."
    return kernel


#: kernel(table, budgets, draws, ranking, params): UCB-E, one query order per model.
ucbe_kernel = _make_kernel("ucbe", synchronized=False)
#: kernel(table, budgets, draws, ranking, params): SyUCB-E, one shared order per run.
syucbe_kernel = _make_kernel("syucbe", synchronized=True)


def _counts(runs: Runs, budgets: tuple[int, ...]) -> IntArray:
    """Final counts ``(R, B, K)``: 1 + each arm's cells among the first n - K of the pull order.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table, random_draws
    >>> table = score_table(Instance([[1, 1, 0], [0, 1, 0]]))
    >>> setup = Setup(table, Fraction(1), synchronized=True)
    >>> runs = Runs(setup, random_draws(0, 1, 2, 3, synchronized=True), Workspace(setup, 1, True))
    >>> _counts(runs, (2, 4, 6)).tolist()
    [[[1, 1], [3, 1], [3, 3]]]
    """
    n_runs, n_models, width = runs.keys.shape
    pulls = np.array([budget - n_models for budget in budgets], dtype=np.intp)
    total = n_models * width
    inner = np.flatnonzero((pulls > 0) & (pulls < total))
    if len(inner) == len(budgets):  # every budget cuts inside the order (as a grid usually does): no copy
        counts: IntArray = _cut(runs, pulls)
        counts += 1
        return counts
    counts = np.ones((n_runs, len(budgets), n_models), dtype=np.intp)
    counts[:, pulls == total, :] = width + 1
    if len(inner):
        counts[:, inner, :] += _cut(runs, pulls[inner])
    return counts


def _cut(runs: Runs, pulls: IntArray) -> IntArray:
    """Each arm's cells among the first ``pulls[b]`` of the order, ``(R, B, K)``, for 0 < pulls < K (L-1)."""
    keys, gap = runs.keys, runs.bounds.gap
    n_runs, n_models, width = keys.shape
    shape = (n_runs, len(pulls), n_models)
    module = _compiled.library()
    if module is not None:  # the same order statistics and decisions, made in compiled code
        theta, above, upto, facts = _select(module, runs, pulls)
        cells, settled = _compiled.ucb_cut(module, cut_tables(runs), theta, above, upto, facts, pulls)
        for run, column in np.argwhere(~settled).tolist():
            cells[run, column] = resolve_cut(runs.view(run), int(pulls[column]), float(theta[run, column]))
        return cells
    rows = np.broadcast_to(np.arange(n_runs * n_models).reshape(n_runs, 1, n_models), shape)
    theta, above, upto = _order_statistics(runs, pulls, rows)
    at_key = keys.reshape(-1)
    nearest_up = np.where(above > 0, at_key[rows * width + np.maximum(above - 1, 0)], np.inf).min(axis=2)
    nearest_down = np.where(upto < width, at_key[rows * width + np.minimum(upto, width - 1)], -np.inf).max(axis=2)
    band = upto - above
    in_band = band > 0
    first = np.minimum(above, width - 1)  # a band arm's first band cell: its key is U there
    apart = (nearest_up > theta + gap) & (nearest_down < theta - gap)
    certified = apart & _same_keys(runs, rows, first, in_band, apart)
    certified &= _interiors_clear(runs, rows, above, upto, theta, certified) & runs.setup.certify
    # Certified cuts: the band's cells go by rank, each arm's in its own order.
    need = pulls[None, :] - above.sum(axis=2)
    priority = np.broadcast_to(runs.draws.arm_priority[:, None, :], shape).astype(np.intp)
    band_by_rank = np.take_along_axis(band, priority, axis=2)
    before = np.cumsum(band_by_rank, axis=2) - band_by_rank
    share_by_rank = np.clip(need[:, :, None] - before, 0, band_by_rank)
    rank = np.broadcast_to(runs.draws.rank[:, None, :], shape).astype(np.intp)
    result: IntArray = above + np.take_along_axis(share_by_rank, rank, axis=2)
    for run, column in np.argwhere(~certified).tolist():
        result[run, column] = resolve_cut(runs.view(run), int(pulls[column]), float(theta[run, column]))
    return result


def _select(
    module: ModuleType, runs: Runs, pulls: IntArray
) -> tuple[FloatArray, IntArray, IntArray, _compiled.CutFacts]:
    """The compiled order statistics of every cut, from the thetas the runs' workspace remembers (rows read only as
    far as they were made)."""
    memory = runs.work.guesses(len(pulls))
    return _compiled.ucb_select(module, runs.keys, pulls.astype(np.int64), memory, stops=runs.stops)


def _order_statistics(runs: Runs, pulls: IntArray, rows: IntArray) -> tuple[FloatArray, IntArray, IntArray]:
    """theta (R, B), the ``pulls[b]``-th largest key of each run, and per arm its keys > theta and >= theta (R, B, K)."""
    keys = runs.keys
    n_runs, n_models, width = keys.shape
    module = _compiled.library()
    if module is not None:  # in compiled code: the same three arrays
        return _select(module, runs, pulls)[:3]
    sample = runs.work.sample[:n_runs]
    sample[...] = keys.reshape(n_runs, n_models * width)
    kth = n_models * width - pulls
    sample.partition(np.unique(kth), axis=1)
    theta: FloatArray = sample[:, kth]  # (R, B): the float key of the last pull
    rows2, theta3 = keys.reshape(n_runs * n_models, width), np.broadcast_to(theta[:, :, None], rows.shape)
    above = count_above(rows2, rows.reshape(-1), theta3.reshape(-1), strict=True).reshape(rows.shape)
    upto = count_above(rows2, rows.reshape(-1), theta3.reshape(-1), strict=False).reshape(rows.shape)
    return theta, above, upto


def _same_keys(runs: Runs, rows: IntArray, first: IntArray, in_band: BoolArray, wanted: BoolArray) -> BoolArray:
    """Do all band arms of each (run, budget) have exactly the same key U(first + 1)? (Exact sums only if *wanted*.)"""
    big = np.iinfo(np.int64).max
    identity = runs.identity(rows, first)
    same: BoolArray = (np.where(in_band, first, big).min(axis=2) == np.where(in_band, first, -1).max(axis=2)) & (
        np.where(in_band, identity, big).min(axis=2) == np.where(in_band, identity, -big).max(axis=2)
    )
    if runs.setup.rational_int64 and not same.all():
        numerator, count = runs.rational(rows, first)
        pick = np.argmax(in_band, axis=2)[:, :, None]
        ref_numerator = np.take_along_axis(numerator, pick, axis=2)
        ref_count = np.take_along_axis(count, pick, axis=2)
        equal = (numerator >= 0) & (numerator * ref_count == ref_numerator * count)
        same |= np.where(in_band, equal, True).all(axis=2)
    if runs.setup.numerators is not None and not same.all():
        same |= _equal_exact_sums(runs, first, in_band, wanted & ~same)
    return same


def _equal_exact_sums(runs: Runs, first: IntArray, in_band: BoolArray, wanted: BoolArray) -> BoolArray:
    """Float scores: are all band arms of each wanted (run, budget) at one count, with equal exact numerator sums?

    Equal counts N and equal sums P give equal keys P / (N D) + sqrt(a / N), whatever the floats; the sums are
    Python integers here (the compiled cut adds the same int64 numerators in 128 bits).
    """
    numerators, orders = runs.setup.numerators, runs.draws.query_orders
    assert numerators is not None
    equal = np.zeros(wanted.shape, dtype=bool)
    for run, column in np.argwhere(wanted & in_band.any(axis=2)).tolist():
        arms = np.flatnonzero(in_band[run, column]).tolist()
        counts = {int(first[run, column, arm]) + 1 for arm in arms}
        if len(counts) == 1:
            count = counts.pop()
            rows = [orders[run, 0 if orders.shape[1] == 1 else arm, :count] for arm in arms]
            sums = {sum(numerators[arm, row].tolist()) for arm, row in zip(arms, rows, strict=True)}
            equal[run, column] = len(sums) == 1
    return equal


def _interiors_clear(
    runs: Runs, rows: IntArray, above: IntArray, upto: IntArray, theta: FloatArray, wanted: BoolArray
) -> BoolArray:
    """For each (run, budget): can no later band cell of a band arm lower the arm's exact key?

    Yes when its float index is above theta + gap, or (rational indices) it equals the key exactly.
    """
    run, column, arm = np.nonzero(wanted[:, :, None] & (upto - above >= 2))
    clear = np.ones(wanted.shape, dtype=bool)
    if len(run) == 0:
        return clear
    start = above[run, column, arm]
    # An arm's band is one of its blocks (cells of equal key, = theta); budgets whose cut falls in
    # the same block share it (same run, arm and start, hence same theta): check each block once.
    n_models, width = runs.keys.shape[1:]
    block = (run.astype(np.int64) * n_models + arm) * (width + 1) + start
    _, first, inverse = np.unique(block, return_index=True, return_inverse=True)
    run1, column1, arm1, start1 = run[first], column[first], arm[first], start[first]
    owner, position = segments(start1 + 1, upto[run1, column1, arm1] - start1 - 1)
    row = rows[run1, column1, arm1][owner]
    setup = runs.setup
    sums = runs.prefix.reshape(-1)[row * (width + 1) + position]
    values = float_means(sums, setup.inverse[position], setup.divisors[position]) + setup.roots[position]
    bad = np.flatnonzero(values <= theta[run1, column1][owner] + runs.bounds.gap)
    if len(bad) and runs.setup.rational_int64:
        numerator, count = runs.rational(row[bad], position[bad])
        key_numerator, key_count = runs.rational(row[bad], start1[owner[bad]])
        tie = (numerator >= 0) & (key_numerator >= 0) & (numerator * key_count == key_numerator * count)
        bad = bad[~tie]
    blocked = np.zeros(len(first), dtype=bool)
    blocked[owner[bad]] = True
    failed = blocked[inverse.reshape(-1)]
    clear[run[failed], column[failed]] = False
    return clear


def ucb_outcomes(
    table: ScoreTable,
    budgets: tuple[int, ...],
    draws: DrawBatch,
    a: Fraction,
    *,
    ranking: bool = True,
    tolerance: float = 0.0,
    certify: bool = True,
) -> Chunk:
    """UCB-E (one order per model) or SyUCB-E (synchronized draws) for every run and budget.

    For the tests of the exact parts (slow): *tolerance* > 0 widens both
    tolerances to at least *tolerance*, so far more cuts and chains of means
    need the certification or the exact resolutions (the outcome must not
    change: wider tolerances are still sound); with *certify* False no cut is
    certified by floats alone, every one goes through the exact resolution.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table, random_draws
    >>> table = score_table(Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1]]))
    >>> draws = random_draws(1, 2, 3, 4, synchronized=True)
    >>> out = ucb_outcomes(table, (3, 8, 12), draws, Fraction(1))
    >>> out.chosen.tolist(), out.spent.tolist()
    ([[0, 0, 0], [2, 2, 0]], [3, 8, 12])
    >>> same = reference_kernel("syucbe")(table, (3, 8, 12), draws, True, Exploration(Fraction(1)))
    >>> bool((out.ranking == same.ranking).all())
    True
    """
    grid = tuple(check_budget(budget, table.n_models, table.n_queries) for budget in budgets)
    setup = Setup(table, a, draws.synchronized, tolerance, certify)
    n_runs, n_models = draws.n_runs, table.n_models
    ranks = np.empty((n_runs, len(grid), n_models if ranking else 1), dtype=np.int32)
    group = min(n_runs, max(1, GROUP_BYTES // (8 * n_models * table.n_queries)))
    work = Workspace(setup, group, draws.synchronized)
    pulls = np.array([budget - n_models for budget in grid], dtype=np.intp)
    total = n_models * (table.n_queries - 1)
    # Rows only as far as the cuts reach, unless a budget spends everything (its ranking reads whole rows).
    cuts = None if (pulls >= total).any() else pulls[pulls > 0]
    decisions = 0
    for start in range(0, n_runs, group):
        stop = min(n_runs, start + group)
        runs = Runs(setup, draws.chunk(start, stop), work, cuts)
        ranks[start:stop] = _ranking(runs, _counts(runs, grid), full=ranking)
        decisions += runs.decisions
    spent = np.array(grid, dtype=np.int64)
    return Chunk(ranks[:, :, 0].copy(), ranks if ranking else None, spent, decisions)


def run_view(table: ScoreTable, draws: DrawBatch, a: Fraction, run: int = 0) -> RunView:
    """Run *run*'s prefix sums and float keys, as the exact resolutions (:mod:`~sysrs_ref.fast._ucb_exact`) see them.

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import score_table, random_draws
    >>> table = score_table(Instance([[1, 0, 1], [0, 1, 1]]))
    >>> view = run_view(table, random_draws(0, 1, 2, 3, synchronized=True), Fraction(1))
    >>> view.keys.shape, view.prefix.shape
    ((2, 2), (2, 3))
    """
    setup = Setup(table, a, draws.synchronized)
    runs = Runs(setup, draws.chunk(run, run + 1), Workspace(setup, 1, draws.synchronized))
    return runs.view(0)


def _ranking(runs: Runs, counts: IntArray, full: bool = True) -> IntArray:
    """Models by decreasing exact mean at their final counts, ties by rank, ``(R, B, K)``.

    Without *full*, only the first of each ranking, the chosen model ``(R, B, 1)``:
    near ties are then resolved exactly only among the models whose float means
    are linked to the largest by a chain of near ties (the others' exact means are
    certainly smaller).
    """
    module = _compiled.library()
    scale, arm_priority = runs.setup.scale, runs.draws.arm_priority
    if module is not None and runs.bounds.means_exact:  # float means order exactly: a stable sort, compiled
        return _compiled.ucb_ranking(module, runs.prefix, counts, scale, arm_priority, full)
    if module is not None and not full:  # the float top, compiled; where a near tie reaches it, the numpy steps
        top, leaders = _compiled.ucb_top(module, runs.prefix, counts, scale, arm_priority)
        near = leaders[:, :, 0] - leaders[:, :, 1] <= runs.bounds.mean_tol
        for run, column in np.argwhere(near).tolist():
            cell = slice(column, column + 1)
            top[run, column] = _float_ranking(runs, counts[run : run + 1, cell], run, full=False)[0, 0]
        return top
    return _float_ranking(runs, counts, 0, full)


def _float_ranking(runs: Runs, counts: IntArray, first_run: int, full: bool) -> IntArray:
    """:func:`_ranking` in numpy for runs first_run, first_run + 1, ... (*counts* holds theirs)."""
    shape = counts.shape
    chosen = slice(first_run, first_run + shape[0])
    prefix_at = np.take_along_axis(runs.prefix[chosen], (counts - 1).transpose(0, 2, 1), axis=2).transpose(0, 2, 1)
    means: FloatArray = np.divide(prefix_at, runs.setup.scale[counts - 1], dtype=np.float64)
    priority = np.broadcast_to(runs.draws.arm_priority[chosen, None, :], shape).astype(np.intp)
    order = np.argsort(-np.take_along_axis(means, priority, axis=2), axis=2, kind="stable")
    ranks: IntArray = np.take_along_axis(priority, order, axis=2)
    if runs.bounds.means_exact:
        return ranks if full else ranks[:, :, :1]
    ordered = np.take_along_axis(means, ranks, axis=2)
    near = ordered[:, :, :-1] - ordered[:, :, 1:] <= runs.bounds.mean_tol
    sorted_counts = np.take_along_axis(counts, ranks, axis=2)
    ident = runs.identity((first_run + np.arange(shape[0]))[:, None, None] * shape[2] + ranks, sorted_counts - 1)
    same = (ident[:, :, :-1] == ident[:, :, 1:]) & (sorted_counts[:, :, :-1] == sorted_counts[:, :, 1:])
    unsure = near & ~same
    if not full:
        unsure &= np.logical_and.accumulate(near, axis=2)  # the near ties chained to the top
    for run, column in np.argwhere(unsure.any(axis=2)).tolist():
        view = runs.view(first_run + run)
        ranks[run, column] = resolve_ranking(view, ranks[run, column], means[run, column], counts[run, column])
    return ranks if full else ranks[:, :, :1]
