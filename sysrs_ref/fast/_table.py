"""The score matrix prepared for the fast paths: exact integers when they fit, floats otherwise.

The reference sums scores exactly. The fast paths do the same whenever they
can: every score is N_ij / D for one common denominator D
(:attr:`~sysrs_ref.instance.Instance.denominator`), and when every sum a fast
path forms fits in int64, they work on the integer numerators N_ij, so every
comparison is exact and ties are true ties (binary scores, and decimal scores
with a few digits, are always in this case).

Otherwise (for example float scores such as F1 or BLEU, whose common
denominator has up to 1075 bits) the fast paths sum float64 values and
*certify* each decision with a proved bound on the rounding error: a decision
whose float margin is below the bound is re-decided exactly from the integer
numerators (:meth:`ScoreTable.exact_sum`). The outcome is therefore always the
reference's; only the speed depends on how often that happens.

A table may also hold B matrices side by side (``blocks`` = B, K x B L):
the realised matrices of B stochastic runs (:mod:`sysrs_ref.fast._stochastic`),
run b reading columns b L .. (b + 1) L - 1 through query orders offset by b L.
Such a table is made from level codes (:func:`realised_table`) without any
Python :class:`~sysrs_ref.instance.Instance`; its exact numerators are made
row by row, only when an exact decision asks for them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from sysrs_ref.instance import Instance

__all__ = ["EXACT_LEVELS", "INT_LIMIT", "ScoreTable", "realised_table", "score_table"]

#: Integer sums are exact when every key the fast paths build stays below this.
INT_LIMIT = 2**62

#: :meth:`ScoreTable.floats_exact` checks tables of at most this many distinct scores.
EXACT_LEVELS = 2**16

#: :meth:`ScoreTable.numerators64` makes int64 numerators for tables of at most this many bytes of them (8 a cell).
NUMERATOR_BYTES = 64 * 2**20

Values = npt.NDArray[np.int64] | npt.NDArray[np.float64]


class ScoreTable:
    """An :class:`~sysrs_ref.instance.Instance` (or B realised matrices side by side) as arrays for the fast paths.

    - ``exact``: True when ``values`` holds the int64 numerators N_ij (scores are
      N_ij / ``denominator``) and every sum of a row (of one block) times K
      fits in int64; False when ``values`` holds the float64 scores.
    - ``values``: the K x B L matrix (read-only), int64 or float64 as above.
    - ``compact``: ``values`` in the smallest dtype that holds them (int8 for
      binary scores): cheaper to gather.
    - ``n_queries``: L; ``blocks``: B (1 for :func:`score_table`).

    >>> table = score_table(Instance([[1, 0], [0, 1]]))
    >>> table.exact, table.n_models, table.n_queries, table.blocks
    (True, 2, 2, 1)
    """

    def __init__(
        self,
        exact: bool,
        compact: npt.NDArray[np.generic],
        denominator: int,
        n_queries: int,
        *,
        instance: Instance | None = None,
        values: Values | None = None,
        levels: tuple[tuple[int, ...], npt.NDArray[np.float64], npt.NDArray[np.integer[Any]]] | None = None,
    ) -> None:
        """Use :func:`score_table` or :func:`realised_table`; this one trusts its arguments.

        *levels* (realised tables): the levels' numerators over *denominator*,
        their floats, and the K x B L level codes.
        """
        compact.setflags(write=False)
        self.exact = exact
        self.compact = compact
        self.denominator = denominator
        self.n_queries = n_queries
        self.blocks = int(compact.shape[1]) // n_queries
        self._instance = instance
        self._values = values
        self._levels = levels
        self._rows: dict[int, tuple[int, ...]] = {}
        self._floats_exact: bool | None = None
        self._numerators: npt.NDArray[np.int64] | None = None
        self._classes: npt.NDArray[np.int64] | None = None

    @property
    def n_models(self) -> int:
        """K."""
        return int(self.compact.shape[0])

    @property
    def values(self) -> Values:
        """The K x B L matrix: int64 numerators (``exact``) or float64 scores; read-only, made once when asked."""
        if self._values is None:
            values: Values = self.compact.astype(np.int64) if self.exact else self.compact.astype(np.float64)
            values.setflags(write=False)
            self._values = values
        return self._values

    @property
    def floats(self) -> npt.NDArray[np.float64]:
        """Every score as float64, correctly rounded (K x B L).

        >>> score_table(Instance([[1, 0], [0, 0.5]])).floats.tolist()
        [[1.0, 0.0], [0.0, 0.5]]
        """
        if not self.exact:
            return np.asarray(self.values, dtype=np.float64)
        if self._instance is not None:
            return self._instance.array
        assert self._levels is not None
        return np.take(self._levels[1], self._levels[2])

    @property
    def instance(self) -> Instance:
        """The matrix as an :class:`~sysrs_ref.instance.Instance` (one block), made on first use for a realised table.

        ValueError for a table of several blocks (use :meth:`block`).
        """
        if self._instance is None:
            if self.blocks != 1:
                raise ValueError(f"this table holds {self.blocks} matrices side by side: use block(b)")
            self._instance = self.block(0)
        return self._instance

    def block(self, index: int) -> Instance:
        """Block *index* (a run's realised matrix) as an :class:`~sysrs_ref.instance.Instance` (slow: Fractions).

        >>> table = realised_table((Fraction(0), Fraction(1)), np.array([[1, 0, 0, 0], [0, 1, 1, 1]]), 2)
        >>> table.block(1).rows
        ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(1, 1)))
        """
        if self.blocks == 1 and self._instance is not None:
            return self._instance
        low, high = index * self.n_queries, (index + 1) * self.n_queries
        return Instance(
            [
                [Fraction(n, self.denominator) for n in self.numerator_row(model)[low:high]]
                for model in range(self.n_models)
            ]
        )

    def floats_exact(self) -> bool:
        """Is every score exactly its float64? Then equal floats are equal scores.

        Checked once per distinct score (and once per table), only up to
        :data:`EXACT_LEVELS` distinct scores: False beyond (not known, so not
        relied on).

        >>> score_table(Instance([[0.5, 1 / 3], [1, 0]])).floats_exact()  # float input: each score its float
        True
        >>> score_table(Instance([[Fraction(1, 3), 0], [0, 1]])).floats_exact()
        False
        """
        if self._floats_exact is None:
            levels: Sequence[Fraction] = ()
            if self._instance is not None:
                levels = self._instance.levels
            elif self._levels is not None:
                levels = [Fraction(numerator, self.denominator) for numerator in self._levels[0]]
            self._floats_exact = 0 < len(levels) <= EXACT_LEVELS and all(
                float(level).as_integer_ratio() == (level.numerator, level.denominator) for level in levels
            )
        return self._floats_exact

    def numerator_row(self, model: int) -> tuple[int, ...]:
        """Model *model*'s exact numerators N_ij (all B L of them), made once when asked.

        >>> score_table(Instance([[0.5, 0.25], [1, 0]])).numerator_row(0)
        (2, 1)
        """
        if model not in self._rows:
            if self._instance is not None:  # one row from the codes (the whole matrix of Python integers is big)
                scaled = self._instance.level_numerators
                self._rows[model] = tuple(scaled[code] for code in self._instance.codes[model].tolist())
            elif self._levels is not None:
                numerators = self._levels[0]
                self._rows[model] = tuple(numerators[code] for code in self._levels[2][model].tolist())
            else:
                self._rows[model] = tuple(int(n) for n in self.values[model].tolist())
        return self._rows[model]

    def numerators64(self) -> npt.NDArray[np.int64] | None:
        """Every numerator N_ij as int64 (K x B L, read-only) when the denominator is below 2^63, else None.

        Scores lie in [0, 1], so no numerator exceeds the denominator: below 2^63
        they all fit in int64, and a sum of fewer than 2^64 of them in 128 bits
        (the compiled passes sum them so, ``sysrs_ref/fast/_csrc/common.h``).
        None too for a table whose numerators would take more than
        :data:`NUMERATOR_BYTES` (the kernels then decide those ties as
        without them: only speed differs). Made once, when first asked; not
        pickled (workers make their own).

        >>> score_table(Instance([[0.5, 0.25], [1, 0]]), prefer_float=True).numerators64().tolist()
        [[2, 1], [4, 0]]
        >>> score_table(Instance([[2.0**-70, 1.0], [0, 1]])).numerators64() is None  # D = 2^70
        True
        """
        if self.denominator >= 2**63 or 8 * self.compact.size > NUMERATOR_BYTES:
            return None
        if self._numerators is None:
            if self._instance is not None:
                levels = np.array(self._instance.level_numerators, dtype=np.int64)
                numerators = levels[self._instance.codes]
            elif self._levels is not None:
                numerators = np.array(self._levels[0], dtype=np.int64)[self._levels[2]]
            else:  # exact tables only: values holds the numerators
                numerators = np.asarray(self.values, dtype=np.int64)
            numerators.setflags(write=False)
            self._numerators = numerators
        return self._numerators

    def row_classes(self) -> npt.NDArray[np.int64]:
        """Each model's class: the first model whose row has exactly the same scores (K, read-only; made once).

        Rows of equal floats are compared on their exact numerators too, so equal
        floats of different scores (rounded Fractions) keep their rows apart.

        >>> score_table(Instance([[0.5, 1e-300], [0.25, 0.5], [0.5, 1e-300]])).row_classes().tolist()
        [0, 1, 0]
        """
        if self._classes is None:
            _, first, inverse = np.unique(self.floats, axis=0, return_index=True, return_inverse=True)
            classes = first[inverse.reshape(-1)].astype(np.int64)
            for model in np.flatnonzero(classes != np.arange(len(classes))).tolist():
                if self.numerator_row(model) != self.numerator_row(int(classes[model])):
                    classes[model] = model  # equal floats of different scores
            classes.setflags(write=False)
            self._classes = classes
        return self._classes

    def largest_row_sum(self) -> int:
        """The largest sum of one model's numerators over one block's L queries (``exact`` tables).

        >>> realised_table((Fraction(0), Fraction(1)), np.array([[1, 1, 0, 1], [0, 1, 1, 0]]), 2).largest_row_sum()
        2
        """
        shaped = self.compact.reshape(self.n_models, self.blocks, self.n_queries)  # summed in int64 without a copy
        return int(shaped.sum(axis=2, dtype=np.int64).max(initial=0))

    def exact_sum(self, model: int, queries: Iterable[int]) -> int:
        """The exact sum of *model*'s numerators over *queries* (divide by D for the scores).

        >>> table = score_table(Instance([[0.5, 0.25], [1, 0]]))
        >>> table.exact_sum(0, [0, 1]), table.denominator
        (3, 4)
        """
        return sum(map(self.numerator_row(model).__getitem__, queries))

    def exact_mean(self, model: int, queries: Iterable[int]) -> Fraction:
        """The exact mean score of *model* over *queries* (at least one)."""
        chosen = [int(query) for query in queries]
        return Fraction(self.exact_sum(model, chosen), self.denominator * len(chosen))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the rows made on demand (workers make their own)."""
        state = dict(self.__dict__)
        state["_rows"] = {}
        state["_numerators"] = None
        return state

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "float"
        return f"ScoreTable({kind}, K={self.n_models}, L={self.n_queries}, blocks={self.blocks})"


def score_table(instance: Instance, *, prefer_float: bool = False) -> ScoreTable:
    """Prepare *instance* for the fast paths: int64 numerators if every sum fits, else floats.

    *prefer_float* forces the certified float path even when integers would
    fit (the outcome is the same; tests use it to exercise the exact
    resolution of close calls on tie-heavy data).

    >>> score_table(Instance([[1, 0], [0, 1]])).exact
    True
    >>> score_table(Instance([[0.1, 0.2], [0.3, 0.4]])).exact  # D = 2^55 still fits
    True
    >>> score_table(Instance([[1e-300, 0.2], [0.3, 0.4]])).exact  # D = 2^1049 does not
    False
    """
    scaled = instance.level_numerators  # the levels over D: cells are gathered from their codes, not from Fractions
    largest = max(scaled)
    fits = (largest + 1) * instance.n_queries * instance.n_models < INT_LIMIT and not prefer_float
    if fits:
        levels = _compact(np.array(scaled, dtype=np.int64))
        compact = np.take(levels, instance.codes)
        return ScoreTable(True, compact, instance.denominator, instance.n_queries, instance=instance)
    floats = np.array(instance.array, dtype=np.float64)
    floats.setflags(write=False)
    return ScoreTable(False, floats, instance.denominator, instance.n_queries, instance=instance, values=floats)


def realised_table(
    levels: Sequence[Fraction], codes: npt.NDArray[np.integer[Any]], n_queries: int, *, prefer_float: bool = False
) -> ScoreTable:
    """A table of B = width / L matrices side by side from level codes: score (i, c) = ``levels[codes[i, c]]``.

    No Instance is made: the levels' numerators over their least common
    denominator D gather into int64 numerators when every block's sums fit
    (as :func:`score_table`; always for Bernoulli levels 0 and 1, whose codes
    are then the table itself), else their floats into float64 scores.
    *codes* is K x B L, any small integer dtype.

    >>> table = realised_table((Fraction(0), Fraction(1, 2), Fraction(1)), np.array([[2, 1], [0, 0]]), 2)
    >>> table.exact, table.values.tolist(), table.denominator
    (True, [[2, 1], [0, 0]], 2)
    >>> realised_table((Fraction(0), Fraction(1, 3)), np.array([[1], [0]]), 1, prefer_float=True).values.tolist()
    [[0.3333333333333333], [0.0]]
    """
    denominator = math.lcm(*(level.denominator for level in levels))
    numerators = tuple(level.numerator * (denominator // level.denominator) for level in levels)
    n_models = int(codes.shape[0])
    fits = (max(numerators) + 1) * n_queries * n_models < INT_LIMIT and not prefer_float
    floats = np.array([float(level) for level in levels], dtype=np.float64)
    if fits:
        table = _compact(np.array(numerators, dtype=np.int64))
        identity = numerators == tuple(range(len(levels)))  # Bernoulli: the codes are the numerators
        compact = codes.astype(table.dtype, copy=False) if identity else np.take(table, codes)
        return ScoreTable(True, compact, denominator, n_queries, levels=(numerators, floats, codes))
    return ScoreTable(False, np.take(floats, codes), denominator, n_queries, levels=(numerators, floats, codes))


def _compact(values: npt.NDArray[np.int64]) -> npt.NDArray[np.generic]:
    """Non-negative int64 *values* in the smallest of int8, int16, int32, int64 that holds them."""
    largest = int(values.max(initial=0))
    for small in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(small).max:
            return values.astype(small)
    return values
