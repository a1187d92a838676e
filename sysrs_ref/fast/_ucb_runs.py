"""The arrays of a group of UCB-E / SyUCB-E runs for the fast path (:mod:`sysrs_ref.fast._ucb`).

:class:`Setup` holds what depends on the table and a only (error bounds, float
scales, rational square roots, row classes); :class:`Runs` holds a group's
prefix sums P_i(N) along each arm's order and its float keys (running minima
of the float indices), in work arrays (:class:`Workspace`) reused from group
to group.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sysrs_ref.fast import _compiled
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast._ucb_exact import Bounds, RunView, bounds_for, float_means, square_roots

__all__ = ["GROUP_BYTES", "Runs", "Setup", "Workspace", "cut_tables", "prefix_sums"]

Prefix = npt.NDArray[np.int64] | npt.NDArray[np.int32] | npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]

#: Runs are processed in groups whose largest array stays near this size (bytes): small
#: enough for the allocator to reuse memory between groups, and friendlier to the caches.
GROUP_BYTES = 4 * 2**20


class Setup:
    """What depends on the table and a only: error bounds, float scales, rational square roots."""

    def __init__(
        self, table: ScoreTable, a: Fraction, synchronized: bool, tolerance: float = 0.0, certify: bool = True
    ) -> None:
        n_models, n_queries, denominator = table.n_models, table.n_queries, table.denominator
        self.table, self.a, self.certify = table, a, certify
        self.bounds: Bounds = bounds_for(table, a)
        if tolerance > 0:  # wider tolerances stay correct (they only need to exceed twice the error)
            gap, mean_tol = max(self.bounds.gap, tolerance), max(self.bounds.mean_tol, tolerance)
            self.bounds = dataclasses.replace(self.bounds, gap=gap, mean_tol=mean_tol, means_exact=False)
        counts = range(1, n_queries + 1)
        self.integer = self.bounds.integer
        if self.integer and n_queries * denominator < 2**53:  # every N D exactly a float
            self.scale = np.arange(1, n_queries + 1, dtype=np.float64) * float(denominator)
        elif self.integer:
            self.scale = np.array([float(n * denominator) for n in counts], dtype=np.float64)
        else:
            self.scale = np.arange(1, n_queries + 1, dtype=np.float64)
        self.roots = np.sqrt(float(a) / np.arange(1, n_queries, dtype=np.float64))
        self.squares = square_roots(a, n_queries)
        # The indices' means are P times the float reciprocal of the scale, divided only where sqrt(a / N) is
        # rational (ucb_exact.float_means); the final means are divided (Bounds.means_exact relies on it).
        self.inverse = 1.0 / self.scale
        self.divisors = np.where(self.squares >= 0, self.scale, 0.0)
        # Rational indices (P q + r D) / (N D q) compared in int64, when that cannot overflow: every factor and
        # every term of Runs.rational is at most top (a position without a rational root, r = -1, gives -D).
        self.rational_int64 = False
        if self.integer:
            largest = table.largest_row_sum()
            top = max(largest, 1) * a.denominator + max(int(self.squares.max()), 1) * denominator
            self.rational_int64 = top * n_queries < 2**62
        # Arms of one class have equal exact sums at equal counts (float scores; integer ones compare sums).
        self.classes = np.arange(n_models, dtype=np.int64)
        # Float scores each exactly their float: two arms' first scores (count 1, no sum) are equal iff their floats are.
        self.first_exact = not self.integer and table.floats_exact()
        # Float scores whose numerators fit in int64: two arms at one count tie exactly iff their exact numerator sums
        # are equal (the compiled cut sums them in 128 bits; numpy in Python integers).
        self.numerators = None if self.integer else table.numerators64()
        if synchronized and not self.integer:  # identical rows along one shared order
            self.classes = table.row_classes()

    @functools.cached_property
    def values(self) -> Prefix:
        """The scores the numpy passes add: int64 numerators (integer tables) or float64, K x L; made when first asked
        (the compiled passes read the table's compact integers instead: 8 bytes a cell less in every worker)."""
        values: Prefix = self.table.values if self.integer else self.table.floats
        return values


class Workspace:
    """Work arrays for up to *capacity* runs, reused from group to group (fresh memory is slow to touch)."""

    def __init__(self, setup: Setup, capacity: int, synchronized: bool) -> None:
        n_models, n_queries, stride = setup.table.n_models, setup.table.n_queries, setup.table.compact.shape[1]
        # int32 prefix sums when every row sum fits (half the memory of the largest work array), else the values' dtype
        small = setup.integer and setup.table.largest_row_sum() < 2**31
        self.prefix: Prefix
        if small:
            self.prefix = np.empty((capacity, n_models, n_queries), dtype=np.int32)
        elif setup.integer:
            self.prefix = np.empty((capacity, n_models, n_queries), dtype=np.int64)
        else:
            self.prefix = np.empty((capacity, n_models, n_queries), dtype=np.float64)
        self.keys = np.empty((capacity, n_models, n_queries - 1), dtype=np.float64)
        self.sample = np.empty((capacity, n_models * (n_queries - 1)), dtype=np.float64)
        index = np.int32 if n_models * stride < 2**31 else np.intp  # int32 indices take faster
        self.cells = None if synchronized else np.empty((capacity, n_models, n_queries), dtype=index)
        self.offsets = (np.arange(n_models, dtype=index) * stride)[None, :, None]  # rows of B L for B blocks
        self.stops = np.empty((capacity, n_models), dtype=np.int64)  # row lengths of keys made only as far as needed
        self._guesses = np.empty((2, 0), dtype=np.float64)

    def guesses(self, n_budgets: int) -> FloatArray:
        """The compiled cut's first guesses, kept from group to group (:func:`sysrs_ref.fast._compiled.ucb_select`)."""
        if self._guesses.shape[1] != n_budgets:
            self._guesses = np.full((2, n_budgets), np.nan)
        return self._guesses


class Runs:
    """A group of runs: prefix sums and float keys, and what the exact resolutions need.

    With the cuts' *pulls* (every budget's n - K, each 0 < n - K < K (L - 1)),
    the compiled sweep makes each row only as far as the largest cut can reach
    (:func:`sysrs_ref.fast._compiled.ucb_keys_upto`): ``stops[r, i]`` is row
    i's length in run r, and every cut, count and certification read from the
    rows is the whole rows'. A run's rows are made whole before its exact
    resolution (:meth:`view`) reads them. Without *pulls*, or on numpy, every
    row is whole and ``stops`` is None.
    """

    def __init__(self, setup: Setup, draws: DrawBatch, work: Workspace, pulls: IntArray | None = None) -> None:
        self.setup, self.draws, self.bounds, self.work = setup, draws, setup.bounds, work
        n_runs, width = draws.n_runs, setup.table.n_queries - 1
        self.prefix: Prefix = work.prefix[:n_runs]
        keys: FloatArray = work.keys[:n_runs]
        self.stops: npt.NDArray[np.int64] | None = None
        module = _compiled.library()
        self._module = module
        if module is not None:  # the same arrays in one compiled sweep
            scores = setup.table.compact if setup.integer else setup.values
            orders, means = draws.query_orders, (setup.inverse, setup.divisors, setup.roots)
            if pulls is not None and len(pulls):
                self.stops = work.stops[:n_runs]
                memory = work.guesses(len(pulls))[:, int(np.argmax(pulls))]
                needed = int(pulls.max())
                _compiled.ucb_keys_upto(module, scores, orders, means, self.prefix, keys, needed, memory, self.stops)
            else:
                _compiled.ucb_keys(module, scores, orders, means, self.prefix, keys)
        else:
            prefix_sums(setup.values, draws, self.prefix, work)
            float_means(self.prefix[:, :, :width], setup.inverse[:width], setup.divisors[:width], out=keys)
            np.add(keys, setup.roots, out=keys)
            np.minimum.accumulate(keys, axis=2, out=keys)
        self.keys = keys
        self._views: dict[int, RunView] = {}

    @property
    def decisions(self) -> int:
        """Exact decisions taken so far in this group."""
        return sum(view.decisions for view in self._views.values())

    def view(self, run: int) -> RunView:
        """Run *run*'s arrays for the exact resolutions (one view per run, so exact sums are reused); its rows whole."""
        if run not in self._views:
            setup = self.setup
            if self.stops is not None and self._module is not None:  # rows made only as far as the cuts reach
                one = slice(run, run + 1)
                scores = setup.table.compact if setup.integer else setup.values
                orders = self.draws.query_orders[one]
                means = (setup.inverse, setup.divisors, setup.roots)
                _compiled.ucb_keys(self._module, scores, orders, means, self.prefix[one], self.keys[one])
                self.stops[run] = self.keys.shape[2]
            self._views[run] = RunView(
                setup.table,
                setup.a,
                setup.bounds,
                self.keys[run],
                self.prefix[run],
                self.draws.query_orders[run],
                self.draws.rank[run],
                setup.inverse,
                setup.divisors,
                setup.roots,
                setup.squares,
            )
        return self._views[run]

    def identity(self, rows: IntArray, positions: IntArray) -> npt.NDArray[np.int64]:
        """For flat rows r K + i and 0-based positions: arms with equal identities at one position tie exactly.

        The integer prefix sum on integer scores (as int64, whatever the prefix sums' dtype: an int32 identity
        would turn the int64 sentinels of ``ucb._same_keys`` into -1); the row's class on float ones, except at
        position 0 when every score is exactly its float (``setup.first_exact``): there the first score's float
        bits (the callers compare identities at equal positions only).
        """
        at = rows * self.prefix.shape[2] + positions
        if self.setup.integer:
            values: npt.NDArray[np.int64] = self.prefix.reshape(-1)[at]
            return values.astype(np.int64, copy=False)
        classes: npt.NDArray[np.int64] = self.setup.classes[rows % self.prefix.shape[1]]
        if self.setup.first_exact:
            first = self.prefix.reshape(-1)[at].view(np.int64)
            classes = np.where(positions == 0, first, classes)
        return classes

    def rational(self, rows: IntArray, positions: IntArray) -> tuple[npt.NDArray[np.int64], IntArray]:
        """Index at a position as numerator P q + r D over N (common factor D q dropped); -1 if irrational.

        Only when ``setup.rational_int64``. Two indices with different (N, P) are equal
        only if both are rational: if x1 + sqrt(a/N1) = x2 + sqrt(a/N2) with N1 != N2, the
        difference d of the roots is rational and nonzero, so is their sum (a/N1 - a/N2) / d,
        hence each root; with N1 = N2 the means, so P1 = P2.
        """
        setup = self.setup
        sums = self.prefix.reshape(-1)[rows * self.prefix.shape[2] + positions].astype(np.int64)
        roots = setup.squares[positions]
        numerator = sums * setup.a.denominator + roots * setup.table.denominator
        return np.where(roots >= 0, numerator, -1), positions + 1


def cut_tables(runs: Runs) -> _compiled.CutTables:
    """The plain arrays of *runs* that the compiled cut (:func:`sysrs_ref.fast._compiled.ucb_cut`) reads."""
    setup = runs.setup
    settings = np.array(
        [
            runs.bounds.gap,
            float(setup.integer),
            float(setup.rational_int64),
            float(setup.certify),
            float(setup.a.denominator) if setup.rational_int64 else 0.0,
            float(setup.table.denominator) if setup.rational_int64 else 0.0,
            float(setup.first_exact),
            float(setup.numerators is not None),
        ],
        dtype=np.float64,
    )
    numerators = setup.numerators if setup.numerators is not None else np.zeros((0, 0), dtype=np.int64)
    return _compiled.CutTables(
        runs.prefix,
        runs.draws.rank,
        setup.classes,
        setup.squares,
        setup.inverse,
        setup.divisors,
        setup.roots,
        settings,
        numerators,
        runs.draws.query_orders,
    )


def prefix_sums(values: Prefix, draws: DrawBatch, out: Prefix, work: Workspace) -> None:
    """``out[r, i, N - 1]``: the sum of model i's first N scores along its order in run r.

    >>> from sysrs_ref import Draw, Instance
    >>> from sysrs_ref.fast import DrawBatch, score_table
    >>> setup = Setup(score_table(Instance([[1, 0, 1], [0, 1, 1]])), Fraction(1), synchronized=False)
    >>> draws = DrawBatch.from_draws([Draw(((2, 1, 0), (0, 1, 2)), (0, 1))])
    >>> out = np.empty((1, 2, 3), dtype=np.int64)
    >>> prefix_sums(setup.values, draws, out, Workspace(setup, 1, synchronized=False))
    >>> out.tolist()
    [[[1, 1, 2], [0, 1, 2]]]
    """
    # Indices are valid by construction; mode="clip" skips numpy's slower checked path.
    if work.cells is None:  # synchronized: one order per run
        for run in range(draws.n_runs):
            np.take(values, draws.query_orders[run, 0], axis=1, out=out[run], mode="clip")
    else:
        cells = work.cells[: draws.n_runs]
        np.add(draws.query_orders, work.offsets, out=cells)
        np.take(values.reshape(-1), cells, out=out, mode="clip")
    np.cumsum(out, axis=2, out=out)
