"""Stochastic instances on the fast paths: each run's realised matrix, B runs side by side.

A stochastic run evaluates each cell at most once, so it is the deterministic
run on its *realised* matrix (:meth:`~sysrs_ref.stochastic.StochasticInstance.realise`:
cell (i, j) scores s_v for the least slot v with noise < ceil(F_v 2^53)),
judged against the stochastic truth (the best models of mu_i = (1/L)
sum_j E[S_ij], the paper's Formal Setup). The fast kernels are vectorised over
runs on one table, so the realised matrices of a chunk of B runs are laid
side by side, K x B L (:func:`~sysrs_ref.fast._table.realised_table`), each
already in its run's query order, and run b reads positions b L .. b L + L - 1
(:func:`realise_runs`): every kernel then runs unchanged, reads each run's
scores contiguously, and its exact fallbacks read run b's exact numerators.

:class:`StochasticTable` is what is prepared once per instance (thresholds,
slot codes, the truth) and sent to worker processes; :func:`realise_runs`
turns a chunk's noise into its table with a few vectorised passes (one
comparison for Bernoulli scores, whose level codes are the table itself).
When no noise can change any cell (point masses, such as
:meth:`~sysrs_ref.stochastic.StochasticInstance.deterministic`), the
realised matrix is :attr:`StochasticTable.fixed` and runs need no noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from sysrs_ref.fast._batch import DrawBatch, NoisyDrawBatch
from sysrs_ref.fast._table import ScoreTable, realised_table, score_table
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.topm import TopMTruth

__all__ = ["StochasticTable", "realise_runs", "stochastic_table"]

#: Level codes (or slot numbers), in the smallest unsigned dtype that holds them.
Codes = npt.NDArray[np.unsignedinteger[Any]]


def _smallest(count: int) -> type[np.unsignedinteger[Any]]:
    """The smallest unsigned integer dtype holding 0 .. count - 1.

    >>> _smallest(256).__name__, _smallest(257).__name__, _smallest(70000).__name__
    ('uint8', 'uint16', 'uint32')
    """
    for dtype in (np.uint8, np.uint16, np.uint32):
        if count <= int(np.iinfo(dtype).max) + 1:
            return dtype
    return np.uint64


@dataclass(frozen=True, eq=False)
class StochasticTable:
    """A :class:`~sysrs_ref.stochastic.StochasticInstance` prepared for the fast paths (compact, picklable).

    - ``levels``: every score a cell can take, ascending (exact);
    - ``thresholds``: K x L x (V - 1) int64, ceil(F_v 2^53) for the slots but
      the last (whose threshold is 2^53, above every noise);
    - ``slot_codes``: (V,) level code of each slot when every cell shares it
      (Bernoulli, finite laws), else None and ``codes`` (K x L x V) holds them;
    - ``fixed``: the realised matrix's table when no noise can change a cell, else None;
    - ``best`` and ``truth``: the stochastic truth (the mean instance's best
      models and tiers, for top-m);
    - ``prefer_float``: realised tables take the certified float path (tests).

    >>> table = stochastic_table(StochasticInstance.bernoulli([[1, 0.5], [0, 0.25]]))
    >>> table.shape, table.slot_codes.tolist(), table.fixed is None, sorted(table.best)
    ((2, 2), [1, 0], True, [0])
    """

    shape: tuple[int, int]
    levels: tuple[Fraction, ...]
    thresholds: npt.NDArray[np.int64]
    slot_codes: Codes | None
    codes: Codes | None
    fixed: ScoreTable | None
    best: frozenset[int]
    truth: TopMTruth
    prefer_float: bool = False

    @property
    def n_models(self) -> int:
        """K."""
        return self.shape[0]

    @property
    def n_queries(self) -> int:
        """L."""
        return self.shape[1]


def stochastic_table(instance: StochasticInstance, *, prefer_float: bool = False) -> StochasticTable:
    """Prepare *instance* once for :func:`realise_runs`: thresholds, slot codes, the truth, the fixed matrix if any.

    A slot v can be realised only when ceil(F_v 2^53) > ceil(F_(v-1) 2^53); the
    matrix is fixed when every cell's possible slots share one level.
    *prefer_float* as in :func:`~sysrs_ref.fast._table.score_table`, for every realised table.

    >>> table = stochastic_table(StochasticInstance.deterministic([[1, 0], [0.5, 1]]))
    >>> table.fixed is not None, table.fixed.values.tolist()
    (True, [[2, 0], [1, 2]])
    """
    n_models, n_queries = instance.shape
    thresholds = np.asarray(instance.thresholds, dtype=np.int64)
    n_slots = thresholds.shape[2]
    codes = np.asarray(instance.codes).astype(_smallest(len(instance.levels)))
    uniform = bool((codes == codes[:1, :1, :]).all())
    below = np.concatenate([np.zeros((n_models, n_queries, 1), dtype=np.int64), thresholds[:, :, :-1]], axis=2)
    possible = thresholds > below
    first = np.take_along_axis(codes, possible.argmax(axis=2)[:, :, None], axis=2)
    fixed = None
    if bool(((codes == first) | ~possible).all()):
        if instance.kind == "deterministic":
            fixed = score_table(instance.mean_instance, prefer_float=prefer_float)
        else:
            fixed = realised_table(instance.levels, first[:, :, 0], n_queries, prefer_float=prefer_float)
    inner = np.ascontiguousarray(thresholds[:, :, : n_slots - 1])
    inner.setflags(write=False)
    return StochasticTable(
        (n_models, n_queries),
        instance.levels,
        inner,
        codes[0, 0].copy() if uniform else None,
        None if uniform else codes,
        fixed,
        instance.best,
        TopMTruth.of(instance.mean_instance),
        prefer_float,
    )


def realise_runs(table: StochasticTable, draws: NoisyDrawBatch) -> tuple[ScoreTable, DrawBatch]:
    """The realised matrices of R runs side by side, each in its run's query order, and the draws that read them.

    Block r of the K x R L table holds ``instance.realise(draws.noise[r])``
    with each model's row gathered along its order in run r (the shared order
    for synchronized draws); the returned draws read position t of block r
    as query r L + t, with run r's arm priority. A kernel run on both gives
    exactly run r's outcome (only the scores along the orders matter), and
    reads each run's scores contiguously.

    >>> from sysrs_ref import Draw
    >>> from sysrs_ref.stochastic import StochasticDraw
    >>> inst = StochasticInstance.bernoulli([[0.5, 1], [0, 0.5]])
    >>> one = StochasticDraw(Draw(((1, 0),), (0, 1)), ((0, 2**52), (0, 2**52)))
    >>> two = StochasticDraw(Draw(((0, 1),), (1, 0)), ((2**52, 0), (5, 5)))
    >>> realised, reading = realise_runs(stochastic_table(inst), NoisyDrawBatch.from_draws([one, two]))
    >>> realised.values.tolist(), reading.query_orders.tolist()
    ([[1, 1, 0, 1], [0, 0, 0, 1]], [[[0, 1]], [[2, 3]]])
    >>> inst.realise(two.noise).rows == realised.block(1).rows
    True
    """
    codes = _codes(table, draws.noise)
    n_models, n_runs, n_queries = codes.shape
    if n_runs * n_queries >= 2**31:
        raise ValueError(f"{n_runs} runs of {n_queries} queries are too many for one chunk (int32 positions)")
    in_order = np.empty_like(codes)
    orders = draws.draws.query_orders
    for run in range(n_runs):  # run by run: each run's cells stay in the caches
        if draws.synchronized:
            np.take(codes[:, run, :], orders[run, 0], axis=1, out=in_order[:, run, :], mode="clip")
        else:
            in_order[:, run, :] = np.take_along_axis(codes[:, run, :], orders[run], axis=1)
    count = 1 if draws.synchronized else n_models
    positions = np.arange(n_runs * n_queries, dtype=np.int32).reshape(n_runs, 1, n_queries)
    reading = DrawBatch._trusted(np.broadcast_to(positions, (n_runs, count, n_queries)), draws.draws.arm_priority)
    flat = in_order.reshape(n_models, n_runs * n_queries)
    return realised_table(table.levels, flat, n_queries, prefer_float=table.prefer_float), reading


def _codes(table: StochasticTable, noise: npt.NDArray[np.int64]) -> Codes | npt.NDArray[np.int8]:
    """The level code of every cell of every run, (K, R, L): the least slot v with noise < ceil(F_v 2^53)."""
    n_runs = int(noise.shape[0])
    n_models, n_queries = table.shape
    cells = noise.transpose(1, 0, 2)  # (K, R, L): each model's runs one after another
    thresholds = table.thresholds[:, None, :, :]
    n_inner = table.thresholds.shape[2]
    shape = (n_models, n_runs, n_queries)
    if n_inner == 1 and table.slot_codes is not None:  # two slots per cell: one comparison
        first_slot = np.empty(shape, dtype=np.bool_)
        np.less(cells, thresholds[..., 0], out=first_slot)
        first_code, second_code = (int(c) for c in table.slot_codes)
        if (first_code, second_code) == (1, 0):  # Bernoulli: the score 1 when the noise is below p 2^53
            return first_slot.view(np.int8)
        if (first_code, second_code) == (0, 1):
            return np.logical_not(first_slot, out=first_slot).view(np.int8)
        code_type = _smallest(len(table.levels))
        chosen: Codes = np.where(first_slot, code_type(first_code), code_type(second_code))
        return chosen
    slot = np.zeros(shape, dtype=_smallest(n_inner + 1))
    above = np.empty(shape, dtype=np.bool_)
    for v in range(n_inner):
        np.greater_equal(cells, thresholds[..., v], out=above)
        np.add(slot, above, out=slot)
    if table.slot_codes is not None:
        same: Codes = np.take(table.slot_codes, slot)
        return same
    assert table.codes is not None
    n_slots = table.codes.shape[2]
    base = (np.arange(n_models * n_queries, dtype=np.int64) * n_slots).reshape(n_models, 1, n_queries)
    each: Codes = np.take(table.codes.reshape(-1), base + slot)
    return each
