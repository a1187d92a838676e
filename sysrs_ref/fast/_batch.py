"""DrawBatch: the draws of R runs as arrays, for the fast paths (docs/contracts.md); NoisyDrawBatch adds the noise.

A :class:`DrawBatch` holds exactly what R :class:`~sysrs_ref.draws.Draw` objects
hold, as integer arrays: ``query_orders`` of shape (R, 1, L) for synchronized
draws (one shared order per run) or (R, K, L) for unsynchronized ones (one
order per model), and ``arm_priority`` of shape (R, K). Run r of a batch is
the draw :meth:`DrawBatch.draw` (r), so any run of a fast path can be replayed
by the reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import check_int, check_seed, generator_of
from sysrs_ref._words import matrix_shape
from sysrs_ref.draws import Draw
from sysrs_ref.errors import DrawError
from sysrs_ref.fast import _compiled
from sysrs_ref.stochastic import NOISE_RANGE, StochasticDraw

__all__ = [
    "DrawBatch",
    "NoisyDrawBatch",
    "random_draws",
    "random_noisy_draws",
    "simulation_draws",
    "simulation_noisy_draws",
]

IntArray = npt.NDArray[np.int32]


@dataclass(frozen=True, eq=False)
class DrawBatch:
    """The draws of R runs: query orders (R, 1 or K, L) and arm priorities (R, K).

    >>> batch = DrawBatch.from_draws([Draw(((1, 0),), (0, 1)), Draw(((0, 1),), (1, 0))])
    >>> batch.n_runs, batch.synchronized, batch.rank.tolist()
    (2, True, [[0, 1], [1, 0]])
    >>> batch.draw(1) == Draw(((0, 1),), (1, 0))
    True
    """

    query_orders: IntArray
    arm_priority: IntArray

    def __post_init__(self) -> None:
        if self.__dict__.get("_trusted"):
            return
        orders = np.asarray(self.query_orders)
        priority = np.asarray(self.arm_priority)
        if orders.ndim != 3 or priority.ndim != 2 or orders.shape[0] != priority.shape[0]:
            raise DrawError(
                "a DrawBatch needs query_orders of shape (R, 1 or K, L) and arm_priority "
                f"of shape (R, K); got {orders.shape} and {priority.shape}"
            )
        n_models = priority.shape[1]
        if orders.shape[1] not in (1, n_models) or n_models < 2 or orders.shape[2] < 1:
            raise DrawError(
                f"query_orders of shape {orders.shape} do not fit {n_models} models: "
                "need (R, 1, L) or (R, K, L) with K >= 2 and L >= 1"
            )
        for array, size, what in ((orders, orders.shape[2], "query order"), (priority, n_models, "arm_priority")):
            if not np.issubdtype(array.dtype, np.integer):
                raise DrawError(f"{what} must hold integers, got dtype {array.dtype}")
            if array.size and not (
                np.array_equal(np.sort(array, axis=-1), np.broadcast_to(np.arange(size), array.shape))
            ):
                raise DrawError(f"every {what} must be a permutation of 0..{size - 1}")
        _freeze(self, orders.astype(np.int32), priority.astype(np.int32))

    @classmethod
    def _trusted(cls, orders: IntArray, priority: IntArray, rank: IntArray | None = None) -> DrawBatch:
        """A batch from arrays known to be valid (made here): no O(R K L log L) check; its ranks made if not given."""
        batch = cls.__new__(cls)
        batch.__dict__["_trusted"] = True
        _freeze(batch, orders, priority, rank)
        return batch

    @property
    def rank(self) -> IntArray:
        """``rank[r, model]``: the model's position in run r's priority (0 wins every tie)."""
        rank: IntArray = self.__dict__["_rank"]
        return rank

    @property
    def n_runs(self) -> int:
        """R, the number of runs."""
        return int(self.arm_priority.shape[0])

    @property
    def n_models(self) -> int:
        """K."""
        return int(self.arm_priority.shape[1])

    @property
    def n_queries(self) -> int:
        """L."""
        return int(self.query_orders.shape[2])

    @property
    def synchronized(self) -> bool:
        """True when each run has one query order shared by all models."""
        return int(self.query_orders.shape[1]) == 1

    def draw(self, run: int) -> Draw:
        """Run *run*'s draw as a :class:`~sysrs_ref.draws.Draw` (for the reference)."""
        orders = tuple(tuple(int(q) for q in order) for order in self.query_orders[run])
        return Draw(orders, tuple(int(m) for m in self.arm_priority[run]))

    def chunk(self, start: int, stop: int) -> DrawBatch:
        """Runs start .. stop - 1 as a batch of their own (views of this one's arrays, its ranks included)."""
        return DrawBatch._trusted(self.query_orders[start:stop], self.arm_priority[start:stop], self.rank[start:stop])

    def require(self, n_models: int, n_queries: int, *, synchronized: bool, who: str) -> None:
        """Raise DrawError unless the batch fits a K x L instance and *who*'s kind of algorithm."""
        if (self.n_models, self.n_queries) != (n_models, n_queries):
            raise DrawError(
                f"the draws are for {matrix_shape(self.n_models, self.n_queries)}, "
                f"the instance has {n_models} x {n_queries}"
            )
        if synchronized != self.synchronized:
            kind = "a synchronized draw (one shared query order)" if synchronized else ("one query order per model")
            raise DrawError(f"{who} needs {kind} in every run")

    @classmethod
    def from_draws(cls, draws: Sequence[Draw]) -> DrawBatch:
        """Stack R draws of the same shape and kind into a batch."""
        if not draws:
            raise DrawError("a DrawBatch needs at least one draw")
        shapes = {(d.n_models, d.n_queries, d.synchronized) for d in draws}
        if len(shapes) != 1:
            raise DrawError("all draws of a batch must have the same K, L and kind")
        return cls(
            np.array([d.query_orders for d in draws], dtype=np.int32),
            np.array([d.arm_priority for d in draws], dtype=np.int32),
        )


def random_draws(
    rng: np.random.Generator | int, runs: int, n_models: int, n_queries: int, *, synchronized: bool
) -> DrawBatch:
    """R draws, exactly those of R successive ``random_draw(rng, K, L, synchronized=...)`` calls.

    For each run in turn: ``arm_priority = rng.permutation(K)``, then one
    ``rng.permutation(L)`` (synchronized) or K of them, model 0 first. An int is
    the seed of ``numpy.random.default_rng``.

    >>> from sysrs_ref import random_draw
    >>> gen = np.random.default_rng(3)
    >>> batch = random_draws(3, 2, 4, 5, synchronized=False)
    >>> batch.draw(1) == [random_draw(gen, 4, 5, synchronized=False) for _ in range(2)][1]
    True
    """
    generator = generator_of(rng, "seed")
    runs = check_int(runs, "the number of runs", error=DrawError)
    return _draw_runs(repeat(generator, runs), runs, n_models, n_queries, synchronized, noise=False)[0]


def random_noisy_draws(
    rng: np.random.Generator | int, runs: int, n_models: int, n_queries: int, *, synchronized: bool
) -> NoisyDrawBatch:
    """R stochastic draws, exactly those of R successive ``random_stochastic_draw(rng, K, L, synchronized=...)`` calls.

    Per run: the draw as :func:`random_draws`, then the K x L noise
    ``rng.integers(0, 2**53, size=(K, L), dtype=np.int64)``.

    >>> from sysrs_ref.stochastic import random_stochastic_draw
    >>> gen = np.random.default_rng(3)
    >>> batch = random_noisy_draws(3, 2, 4, 5, synchronized=True)
    >>> batch.draw(1) == [random_stochastic_draw(gen, 4, 5, synchronized=True) for _ in range(2)][1]
    True
    """
    generator = generator_of(rng, "seed")
    runs = check_int(runs, "the number of runs", error=DrawError)
    draws, noise = _draw_runs(repeat(generator, runs), runs, n_models, n_queries, synchronized, noise=True)
    assert noise is not None
    return NoisyDrawBatch._trusted(draws, noise)


def _draw_runs(
    generators: Iterable[np.random.Generator],
    runs: int,
    n_models: int,
    n_queries: int,
    synchronized: bool,
    *,
    noise: bool,
    fresh: bool = False,
) -> tuple[DrawBatch, npt.NDArray[np.int64] | None]:
    """The one drawing loop: run r draws from the r-th generator (the arm priority, the order(s), the noise if asked).

    *fresh*: each generator is new and used for nothing else, so the compiled
    permutations (:func:`sysrs_ref.fast._compiled.permutations`) may draw the same
    numbers without advancing them.
    """
    count = 1 if synchronized else n_models
    module = _compiled.library()
    if fresh and not noise and module is not None:  # numpy's streams, bit for bit, in compiled code
        generators = list(generators)
        made = _compiled.permutations(module, generators, n_models, count, n_queries)
        if made is not None:
            return DrawBatch._trusted(made[1], made[0]), None
    orders = np.empty((runs, count, n_queries), dtype=np.int32)
    priority = np.empty((runs, n_models), dtype=np.int32)
    cells = np.empty((runs, n_models, n_queries), dtype=np.int64) if noise else None
    identity = np.tile(np.arange(n_queries, dtype=np.int64), (count, 1))  # int64 shuffles faster; same stream
    shuffled = np.empty_like(identity)
    for run, generator in enumerate(generators):
        priority[run] = generator.permutation(n_models)
        # the same stream as `count` successive generator.permutation(L) calls, in one call,
        # shuffled in place in one reused buffer (a fresh copy per run is slower)
        np.copyto(shuffled, identity)
        generator.permuted(shuffled, axis=1, out=shuffled)
        orders[run] = shuffled
        if cells is not None:  # after the orders: random_stochastic_draw's order of calls
            cells[run] = generator.integers(0, NOISE_RANGE, size=(n_models, n_queries), dtype=np.int64)
    if cells is not None:
        cells.setflags(write=False)
    return DrawBatch._trusted(orders, priority), cells


def _freeze(batch: DrawBatch, orders: IntArray, priority: IntArray, rank: IntArray | None = None) -> None:
    """Set the batch's arrays, read-only, with each run's ranks (the inverse of its priority, made if not given)."""
    if rank is None:
        rank = np.empty_like(priority)
        n_models = priority.shape[1]
        np.put_along_axis(rank, priority.astype(np.intp), np.arange(n_models, dtype=np.int32)[None, :], axis=1)
    for array in (orders, priority, rank):
        array.setflags(write=False)
    object.__setattr__(batch, "query_orders", orders)
    object.__setattr__(batch, "arm_priority", priority)
    object.__setattr__(batch, "_rank", rank)


def simulation_draws(
    seed: int, start: int, stop: int, n_models: int, n_queries: int, *, synchronized: bool
) -> DrawBatch:
    """The draws of runs *start* .. *stop* - 1 of a simulation seeded with *seed*, as one batch.

    Run r's draw is ``random_draw(numpy.random.default_rng(numpy.random.SeedSequence(seed,
    spawn_key=(r,))), K, L, synchronized=...)``: the r-th child stream of
    ``numpy.random.default_rng(seed).spawn(...)``. Row i of the batch is run
    start + i, whatever the range, so chunks of runs can be drawn anywhere.

    >>> from sysrs_ref import random_draw
    >>> batch = simulation_draws(7, 2, 5, 3, 4, synchronized=True)
    >>> child = np.random.default_rng(7).spawn(5)[3]   # run 3 is row 1 of the batch
    >>> batch.draw(1) == random_draw(child, 3, 4, synchronized=True)
    True
    >>> batch.n_runs, simulation_draws(7, 3, 4, 3, 4, synchronized=True).draw(0) == batch.draw(1)
    (3, True)
    """
    seed, start, stop = _check_range(seed, start, stop, n_models, n_queries)
    children = _children(seed, start, stop)
    return _draw_runs(children, stop - start, n_models, n_queries, synchronized, noise=False, fresh=True)[0]


def simulation_noisy_draws(
    seed: int, start: int, stop: int, n_models: int, n_queries: int, *, synchronized: bool
) -> NoisyDrawBatch:
    """:func:`simulation_draws` for a stochastic instance: run r's draw, then its noise, from run r's generator.

    Run r is ``random_stochastic_draw(numpy.random.default_rng(numpy.random.SeedSequence(seed,
    spawn_key=(r,))), K, L, synchronized=...)``: its :class:`~sysrs_ref.draws.Draw` is exactly
    :func:`simulation_draws`' (so a deterministic instance's runs do not change), then its K x L noise.

    >>> from sysrs_ref.stochastic import random_stochastic_draw
    >>> batch = simulation_noisy_draws(7, 2, 5, 3, 4, synchronized=False)
    >>> child = np.random.default_rng(7).spawn(5)[3]
    >>> batch.draw(1) == random_stochastic_draw(child, 3, 4, synchronized=False)
    True
    >>> batch.draws.draw(1) == simulation_draws(7, 2, 5, 3, 4, synchronized=False).draw(1)
    True
    """
    seed, start, stop = _check_range(seed, start, stop, n_models, n_queries)
    children = _children(seed, start, stop)
    draws, noise = _draw_runs(children, stop - start, n_models, n_queries, synchronized, noise=True)
    assert noise is not None
    return NoisyDrawBatch._trusted(draws, noise)


def _children(seed: int, start: int, stop: int) -> Iterator[np.random.Generator]:
    """Run r's generator for r = start .. stop - 1: ``default_rng(SeedSequence(seed, spawn_key=(r,)))``."""
    for run in range(start, stop):
        yield np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


def _check_range(seed: int, start: int, stop: int, n_models: int, n_queries: int) -> tuple[int, int, int]:
    """The seed and run range as ints, or DrawError naming what is wrong."""
    seed = check_seed(seed)
    for value, what in ((start, "start"), (stop, "stop")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise DrawError(f"{what} must be a non-negative integer, got {value!r}")
    if stop <= start:
        raise DrawError(f"the run range must hold at least one run, got start={start}, stop={stop}")
    for value, what, least in ((n_models, "n_models", 2), (n_queries, "n_queries", 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise DrawError(f"{what} must be an integer >= {least}, got {value!r}")
    return int(seed), int(start), int(stop)


@dataclass(frozen=True, eq=False)
class NoisyDrawBatch:
    """The stochastic draws of R runs: a :class:`DrawBatch` and the noise of every cell, shape (R, K, L) int64.

    ``noise[r, i, j]`` in [0, 2^53) is the noise of cell (i, j) in run r
    (:class:`~sysrs_ref.stochastic.StochasticInstance`'s noise rule); run r is
    the :class:`~sysrs_ref.stochastic.StochasticDraw` :meth:`draw` (r).

    >>> from sysrs_ref.stochastic import StochasticDraw
    >>> one = StochasticDraw(Draw(((1, 0),), (0, 1)), ((5, 6), (7, 8)))
    >>> batch = NoisyDrawBatch.from_draws([one])
    >>> batch.n_runs, batch.noise[0].tolist(), batch.draw(0) == one
    (1, [[5, 6], [7, 8]], True)
    """

    draws: DrawBatch
    noise: npt.NDArray[np.int64]

    def __post_init__(self) -> None:
        if self.__dict__.get("_trusted"):
            return
        if not isinstance(self.draws, DrawBatch):
            raise DrawError(f"a NoisyDrawBatch needs a DrawBatch, got {type(self.draws).__name__}")
        noise = np.asarray(self.noise)
        wanted = (self.draws.n_runs, self.draws.n_models, self.draws.n_queries)
        if noise.shape != wanted or noise.dtype.kind not in "iu":
            raise DrawError(
                f"the noise must be integers of shape (R, K, L) = {wanted}, got {noise.dtype} {noise.shape}"
            )
        if noise.size and (int(noise.min()) < 0 or int(noise.max()) >= NOISE_RANGE):
            raise DrawError("every noise must be in [0, 2^53)")
        noise = noise.astype(np.int64)
        noise.setflags(write=False)
        object.__setattr__(self, "noise", noise)

    @classmethod
    def _trusted(cls, draws: DrawBatch, noise: npt.NDArray[np.int64]) -> NoisyDrawBatch:
        batch = cls.__new__(cls)
        batch.__dict__["_trusted"] = True
        object.__setattr__(batch, "draws", draws)
        object.__setattr__(batch, "noise", noise)
        return batch

    @property
    def n_runs(self) -> int:
        """R."""
        return self.draws.n_runs

    @property
    def synchronized(self) -> bool:
        """True when each run has one query order shared by all models."""
        return self.draws.synchronized

    def draw(self, run: int) -> StochasticDraw:
        """Run *run*'s draw and noise as a :class:`~sysrs_ref.stochastic.StochasticDraw` (for the reference)."""
        cells = tuple(tuple(int(u) for u in row) for row in self.noise[run].tolist())
        return StochasticDraw(self.draws.draw(run), cells)

    def chunk(self, start: int, stop: int) -> NoisyDrawBatch:
        """Runs start .. stop - 1 as a batch of their own."""
        return NoisyDrawBatch._trusted(self.draws.chunk(start, stop), self.noise[start:stop])

    @classmethod
    def from_draws(cls, draws: Sequence[StochasticDraw]) -> NoisyDrawBatch:
        """Stack R stochastic draws of the same shape and kind into a batch."""
        batch = DrawBatch.from_draws([d.draw for d in draws])
        return cls(batch, np.array([d.noise for d in draws], dtype=np.int64))
