"""Draw: all the randomness of one run, as plain integers (docs/contracts.md).

A run of any algorithm is the pure function ``outcome = algorithm(budget, draw)``
driven by an oracle. The draw holds:

- ``query_orders``: permutations of the L queries. A *synchronized* draw has
  one order, shared by all models (SyUS, SySRs, SyUCB-E); an *unsynchronized*
  draw has one order per model (US, SR, UCB-E), ``query_orders[i]`` for model
  ``i``. A model is always evaluated on the next queries of its order, so
  sampling is without replacement by construction.
- ``arm_priority``: a permutation of the K models, highest priority first.
  It is used only to break ties: among tied models, the one earlier in the
  priority is chosen as best, kept when the worst is eliminated, and ranked
  higher, as if it had a slightly higher score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sysrs_ref._checks import check_int, generator_of
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import matrix_shape
from sysrs_ref.errors import DrawError

__all__ = ["Draw", "random_draw"]


@dataclass(frozen=True)
class Draw:
    """Query orders and arm priority of one run; validated on construction.

    >>> d = Draw(query_orders=((2, 0, 1),), arm_priority=(1, 0))
    >>> d.n_models, d.n_queries, d.synchronized
    (2, 3, True)
    >>> d.order_of(0), d.rank
    ((2, 0, 1), (1, 0))
    """

    query_orders: tuple[tuple[int, ...], ...]
    arm_priority: tuple[int, ...]
    rank: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """``rank[model]`` is the model's position in :attr:`arm_priority` (0 = wins every tie)."""

    def __post_init__(self) -> None:
        priority = _as_int_tuple(self.arm_priority, "arm_priority")
        n_models = len(priority)
        if n_models < 2:
            raise DrawError(f"arm_priority must order at least 2 models, got {n_models}")
        if sorted(priority) != list(range(n_models)):
            raise DrawError(f"arm_priority must be a permutation of the models 0..{n_models - 1}, got {list(priority)}")
        orders = tuple(_as_int_tuple(order, "query order") for order in self.query_orders)
        if len(orders) not in (1, n_models):
            raise DrawError(
                f"a draw holds 1 query order (synchronized) or one per model ({n_models}), got {len(orders)}"
            )
        n_queries = len(orders[0])
        if n_queries < 1:
            raise DrawError("query orders must hold at least 1 query")
        expected = list(range(n_queries))
        for index, order in enumerate(orders):
            if sorted(order) != expected:
                raise DrawError(
                    f"query order {index} must be a permutation of the queries 0..{n_queries - 1} (each exactly once)"
                )
        rank = [0] * n_models
        for position, model in enumerate(priority):
            rank[model] = position
        object.__setattr__(self, "query_orders", orders)
        object.__setattr__(self, "arm_priority", priority)
        object.__setattr__(self, "rank", tuple(rank))

    @property
    def n_models(self) -> int:
        """K, the number of models the draw is for."""
        return len(self.arm_priority)

    @property
    def n_queries(self) -> int:
        """L, the number of queries the draw is for."""
        return len(self.query_orders[0])

    @property
    def synchronized(self) -> bool:
        """True when one query order is shared by all models."""
        return len(self.query_orders) == 1

    def order_of(self, model: int) -> tuple[int, ...]:
        """The query order *model* follows (the shared one in a synchronized draw)."""
        return self.query_orders[0] if self.synchronized else self.query_orders[model]

    def require(self, n_models: int, n_queries: int, *, synchronized: bool, who: str) -> None:
        """Raise DrawError unless the draw fits a K x L instance and *who*'s kind of algorithm."""
        if (self.n_models, self.n_queries) != (n_models, n_queries):
            raise DrawError(
                f"the draw is for {matrix_shape(self.n_models, self.n_queries)}, "
                f"the instance has {n_models} x {n_queries}"
            )
        if synchronized and not self.synchronized:
            raise DrawError(
                f"{who} needs a synchronized draw (one query order shared by all models); "
                f"this draw has {len(self.query_orders)} orders, one per model"
            )
        if not synchronized and self.synchronized:
            raise DrawError(
                f"{who} needs one query order per model ({self.n_models}); this draw is synchronized (one shared order)"
            )

    def permuted(self, new_position: Sequence[int]) -> Draw:
        """The draw for the instance whose model ``i`` moved to row ``new_position[i]``.

        The priority names the moved models; per-model orders move with their model.

        >>> Draw(((0, 1), (1, 0)), (0, 1)).permuted([1, 0])
        Draw(query_orders=((1, 0), (0, 1)), arm_priority=(1, 0))
        """
        if sorted(new_position) != list(range(self.n_models)):
            raise DrawError(f"new_position must be a permutation of 0..{self.n_models - 1}")
        priority = tuple(new_position[model] for model in self.arm_priority)
        if self.synchronized:
            return Draw(self.query_orders, priority)
        orders: list[tuple[int, ...]] = [()] * self.n_models
        for model, position in enumerate(new_position):
            orders[position] = self.query_orders[model]
        return Draw(tuple(orders), priority)


def random_draw(rng: np.random.Generator | int, n_models: int, n_queries: int, *, synchronized: bool) -> Draw:
    """Draw uniformly at random: the arm priority, then the query order(s).

    Exactly: ``arm_priority = rng.permutation(K)``, then, for a synchronized
    draw one ``rng.permutation(L)``, otherwise K of them, model 0 first. An int
    (a numpy integer too) is taken as the seed of ``numpy.random.default_rng``;
    a seed that is not a non-negative integer is a ParameterError, a K or L
    that is not an integer a DrawError. Global random state is never touched.
    The draw holds K + L (synchronized) or K + K L (not) Python ints, about
    36 bytes and 0.1 microseconds each: beyond this machine's memory or the
    time limit it is refused up front with a TooLargeError.

    >>> d = random_draw(7, 3, 4, synchronized=False)
    >>> len(d.query_orders), sorted(d.query_orders[2])
    (3, [0, 1, 2, 3])
    >>> d == random_draw(7, 3, 4, synchronized=False)
    True
    """
    n_models = check_int(n_models, "n_models (K)", least=0, error=DrawError)
    n_queries = check_int(n_queries, "n_queries (L)", least=0, error=DrawError)
    count = 1 if synchronized else n_models
    entries = n_models + count * n_queries
    if entries > 2**20:  # a smaller draw always fits: no message is built on the hot path
        check_need(
            Need(
                f"a{'' if synchronized else 'n unsynchronized'} draw for {matrix_shape(n_models, n_queries)}",
                f"{'K + L' if synchronized else 'K + K L'} Python ints, about 36 bytes and 0.1 microseconds each",
                memory=36 * entries,
                seconds=1e-7 * entries,
            )
        )
    generator = generator_of(rng, "seed")
    priority = tuple(int(x) for x in generator.permutation(n_models))
    orders = tuple(tuple(int(x) for x in generator.permutation(n_queries)) for _ in range(count))
    return Draw(orders, priority)


def _as_int_tuple(values: Sequence[int] | object, what: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise DrawError(f"{what} must be a sequence of integers, got {type(values).__name__}")
    out = []
    for value in values:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise DrawError(f"{what} must hold integers, got {value!r}")
        out.append(int(value))
    return tuple(out)
