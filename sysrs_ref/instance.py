"""The score matrix S in [0, 1]^(K x L) of the paper's Formal Setup, validated, with its exact truth.

An :class:`Instance` is both the problem (which model is best) and the
deterministic evaluation oracle of docs/contracts.md: ``instance(i, j)``
returns the score of model ``i`` on query ``j`` as an exact Fraction.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from os import PathLike
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import shown_value
from sysrs_ref._distinct import distinct_sorted
from sysrs_ref.errors import InstanceError
from sysrs_ref.scores import ScoreLike, checked_score

if TYPE_CHECKING:
    FloatMatrix = npt.NDArray[np.float64]

__all__ = ["Instance", "InstanceLike", "as_instance"]


class Instance:
    """A validated K x L score matrix with exact means (K >= 2 models, L >= 1 queries).

    Build it from a numpy array or nested sequences of numbers (ints, floats,
    Fractions, Decimals); :func:`sysrs_ref.loaders.load_scores` reads one from a file. Every score
    must be finite and in [0, 1]; anything else raises
    :class:`~sysrs_ref.errors.InstanceError` naming the problem and where
    ("score at model 3, query 17 is nan"). Models and queries count from 0.

    Scores are held exactly (floats by their exact binary value), so means are
    exact Fractions and a tie between models is a true tie.

    >>> inst = Instance([[1, 1, 0, 0], [1, 0, 1, 1], [0, 1, 1, 1]])
    >>> inst.means
    (Fraction(1, 2), Fraction(3, 4), Fraction(3, 4))
    >>> sorted(inst.best), inst.tiers
    ([1, 2], ((1, 2), (0,)))
    >>> inst(1, 2)
    Fraction(1, 1)
    """

    __slots__ = (
        "_array",
        "_best",
        "_codes",
        "_denominator",
        "_levels",
        "_means",
        "_model_names",
        "_numerators",
        "_query_names",
        "_rows",
        "_scaled",
        "_tiers",
    )

    def __init__(
        self,
        scores: npt.ArrayLike | Sequence[Sequence[ScoreLike]],
        *,
        model_names: Sequence[str] | None = None,
        query_names: Sequence[str] | None = None,
    ) -> None:
        if not isinstance(scores, np.ndarray) and hasattr(scores, "__array__"):
            scores = np.asarray(scores)  # pandas DataFrames, array-likes of other libraries
        # Each distinct score ("level") is converted once; cells hold indices ("codes") into them.
        if isinstance(scores, np.ndarray):
            levels, codes = _levels_from_array(scores)
        else:
            levels, codes = _levels_from_sequences(scores)
        n_models, n_queries = codes.shape
        self._levels: tuple[Fraction, ...] = tuple(levels)
        self._codes = _smallest_codes(codes, len(levels))
        self._model_names = _check_names(model_names, n_models, "model")
        self._query_names = _check_names(query_names, n_queries, "query")

        # One common denominator D: every score is numerator / D, so sums are integers.
        denominator = math.lcm(*(value.denominator for value in levels))
        self._scaled = tuple(value.numerator * (denominator // value.denominator) for value in levels)
        self._denominator = denominator
        # The matrix as Python objects (exact scores, numerators) and as floats is made when first asked for:
        # a large matrix that only the fast paths read is held as its codes (a byte a cell, or two).
        self._rows: tuple[tuple[Fraction, ...], ...] | None = None
        self._numerators: tuple[tuple[int, ...], ...] | None = None
        self._array: FloatMatrix | None = None
        self._means = tuple(Fraction(total, denominator * n_queries) for total in self._row_sums())
        by_mean: dict[Fraction, list[int]] = {}
        for model, mean in enumerate(self._means):
            by_mean.setdefault(mean, []).append(model)
        # sorted by (float, Fraction): rounding to float is monotone, so the order is the Fractions' own, with
        # the Fractions compared only where their floats tie (a million distinct means sort in seconds, not minutes)
        order = sorted(by_mean, key=lambda mean: (float(mean), mean), reverse=True)
        self._tiers = tuple(tuple(by_mean[mean]) for mean in order)
        self._best = frozenset(self._tiers[0])  # made once: a membership test in a loop over K models stays O(1)

    def _row_sums(self) -> list[int]:
        """Each row's sum of numerators, exactly: in int64 when it cannot overflow, else with Python's integers."""
        n_queries = self._codes.shape[1]
        if max(self._scaled) * n_queries < 2**62:
            scaled = np.array(self._scaled, dtype=np.int64)
            if len(scaled) <= 16:  # few levels: count each level's cells in every row
                counts = np.stack([(self._codes == code).sum(axis=1) for code in range(len(scaled))], axis=1)
                return [int(total) for total in counts.astype(np.int64) @ scaled]
            return [int(np.take(scaled, row).sum()) for row in self._codes]
        return [sum(row) for row in self.numerators]

    @property
    def codes(self) -> npt.NDArray[np.unsignedinteger[Any]]:
        """The K x L level codes: score (i, j) is ``levels[codes[i, j]]`` (read-only, the smallest unsigned dtype)."""
        return self._codes

    @property
    def levels(self) -> tuple[Fraction, ...]:
        """The distinct scores the codes index (see :attr:`codes`)."""
        return self._levels

    @property
    def level_numerators(self) -> tuple[int, ...]:
        """Each level as an integer numerator over :attr:`denominator`."""
        return self._scaled

    # -- shape -------------------------------------------------------------------

    @property
    def n_models(self) -> int:
        """K, the number of models (rows)."""
        return int(self._codes.shape[0])

    @property
    def n_queries(self) -> int:
        """L, the number of queries (columns)."""
        return int(self._codes.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """(K, L)."""
        return (self.n_models, self.n_queries)

    @property
    def model_names(self) -> tuple[str, ...] | None:
        """The models' names when the source had them (long .csv), else None."""
        return self._model_names

    @property
    def query_names(self) -> tuple[str, ...] | None:
        """The queries' names when the source had them (long .csv), else None."""
        return self._query_names

    # -- the oracle ----------------------------------------------------------------

    def __call__(self, model: int, query: int) -> Fraction:
        """The score of *model* on *query*: the deterministic evaluation oracle."""
        return self.rows[model][query]

    def score(self, model: int, query: int) -> Fraction:
        """The exact score of *model* on *query*."""
        return self.rows[model][query]

    def row(self, model: int) -> tuple[Fraction, ...]:
        """All exact scores of *model*, query by query."""
        return self.rows[model]

    @property
    def rows(self) -> tuple[tuple[Fraction, ...], ...]:
        """The whole matrix as exact Fractions (made on first use)."""
        if self._rows is None:
            levels = self._levels
            self._rows = tuple(tuple(levels[code] for code in row) for row in self._codes.tolist())
        return self._rows

    @property
    def array(self) -> FloatMatrix:
        """The matrix as read-only float64 (each score correctly rounded; exact for float input; made on first use)."""
        if self._array is None:
            array = np.array([float(value) for value in self._levels], dtype=np.float64)[self._codes]
            array.setflags(write=False)
            self._array = array
        return self._array

    @property
    def denominator(self) -> int:
        """D, the least common denominator of all scores."""
        return self._denominator

    @property
    def numerators(self) -> tuple[tuple[int, ...], ...]:
        """Integer numerators N with S[i][j] == N[i][j] / D exactly (D = :attr:`denominator`; made on first use)."""
        if self._numerators is None:
            scaled = self._scaled
            self._numerators = tuple(tuple(scaled[code] for code in row) for row in self._codes.tolist())
        return self._numerators

    # -- the truth -------------------------------------------------------------

    @property
    def means(self) -> tuple[Fraction, ...]:
        """mu_i, each model's exact mean score over the L queries."""
        return self._means

    @property
    def best_mean(self) -> Fraction:
        """mu*, the largest mean."""
        return self._means[self._tiers[0][0]]

    @property
    def best(self) -> frozenset[int]:
        """The set of best models (more than one when the best mean is tied), made once: asking is O(1)."""
        return self._best

    def is_best(self, model: int) -> bool:
        """Whether *model* has the largest mean (possibly tied)."""
        return self._means[model] == self.best_mean

    @property
    def tiers(self) -> tuple[tuple[int, ...], ...]:
        """Models grouped by equal mean, groups in decreasing mean, models ascending in a group."""
        return self._tiers

    @property
    def ties(self) -> tuple[tuple[int, ...], ...]:
        """The tiers holding more than one model: the exact ties between means."""
        return tuple(tier for tier in self._tiers if len(tier) > 1)

    @property
    def order(self) -> tuple[int, ...]:
        """Models in decreasing mean (tied models listed by index; see :attr:`tiers`)."""
        return tuple(model for tier in self._tiers for model in tier)

    # -- helpers -----------------------------------------------------------------

    def permuted(self, new_position: Sequence[int]) -> Instance:
        """The same instance with model ``i`` moved to row ``new_position[i]``.

        >>> Instance([[1, 0], [0, 0]]).permuted([1, 0]).rows[0]
        (Fraction(0, 1), Fraction(0, 1))
        """
        if sorted(new_position) != list(range(self.n_models)):
            raise InstanceError(f"new_position must be a permutation of 0..{self.n_models - 1}")
        rows: list[tuple[Fraction, ...]] = [()] * self.n_models
        for model, position in enumerate(new_position):
            rows[position] = self.rows[model]
        names = None
        if self._model_names is not None:
            moved = [""] * self.n_models
            for model, position in enumerate(new_position):
                moved[position] = self._model_names[model]
            names = moved
        return Instance(rows, model_names=names, query_names=self._query_names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Instance):
            return NotImplemented
        return self.rows == other.rows

    def __hash__(self) -> int:
        return hash(self.rows)

    def __repr__(self) -> str:
        return f"Instance(K={self.n_models}, L={self.n_queries}, best={sorted(self.best)})"


#: What a function that takes an instance takes: an Instance, or a score matrix it makes one of.
InstanceLike = Instance | npt.NDArray[Any] | Sequence[Sequence[ScoreLike]]


def as_instance(scores: object, what: str = "instance") -> Instance:
    """*scores* as an :class:`Instance`: an Instance as it is, a numpy array or nested lists of scores wrapped.

    What takes an instance takes a score matrix too. InstanceError for
    anything else, naming *what* and what to pass (a file name or a shipped
    benchmark's name is loaded with ``load_scores`` or ``load_dataset``).

    >>> as_instance([[1, 0], [0, 1]]).shape
    (2, 2)
    >>> as_instance("gsm")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: instance must be an Instance or a score matrix (a numpy array or nested lists of scores), got the str 'gsm'; load a benchmark with load_dataset(name) or a file with load_scores(path)
    """
    if isinstance(scores, Instance):
        return scores
    if isinstance(scores, np.ndarray) or hasattr(scores, "__array__"):
        return Instance(scores)
    if isinstance(scores, (list, tuple)):
        return Instance(scores)
    name = type(scores).__name__
    shown = f"the {name} {shown_value(scores)}" if isinstance(scores, (str, bytes, PathLike)) else name
    raise InstanceError(
        f"{what} must be an Instance or a score matrix (a numpy array or nested lists of scores), got {shown}; "
        "load a benchmark with load_dataset(name) or a file with load_scores(path)"
    )


# -- validation -------------------------------------------------------------------


def _check_shape(n_models: int, n_queries: int) -> None:
    if n_models < 2:
        raise InstanceError(f"need at least 2 models (rows) to choose from, got {n_models}")
    if n_queries < 1:
        raise InstanceError("need at least 1 query (column), got 0")


Levels = tuple[list[Fraction], "npt.NDArray[np.integer[Any]]"]


def _levels_from_array(array: npt.NDArray[np.generic]) -> Levels:
    if array.ndim != 2:
        raise InstanceError(
            f"scores must be a 2-D matrix (models x queries), got {array.ndim} dimension(s) with shape {array.shape}"
        )
    if array.dtype.kind not in "biuf":
        raise InstanceError(f"scores must be real numbers, got an array of dtype {array.dtype}")
    _check_shape(*array.shape)
    as_float = np.asarray(array, dtype=np.float64)  # only for the checks (no copy of float64); exact values: `array`
    bad = ~((as_float >= 0) & (as_float <= 1))  # NaN fails both comparisons; so do -inf and inf
    if bad.any():
        model, query = (int(x) for x in np.argwhere(bad)[0])
        try:
            checked_score(array[model, query])
        except ValueError as problem:
            raise InstanceError(f"score at model {model}, query {query} {problem}") from None
    found = _few_levels(array)
    if found is not None:
        levels, codes = found
    else:
        levels, codes = np.unique(array, return_inverse=True)
    return [checked_score(level) for level in levels.tolist()], codes.reshape(array.shape)


def _few_levels(array: npt.NDArray[np.generic]) -> tuple[npt.NDArray[np.generic], npt.NDArray[np.uint8]] | None:
    """np.unique's levels and codes, without sorting the matrix, when a sample holds every distinct score.

    The candidates are the distinct values of a sample of at most 2^16 cells;
    if there are at most 256 and every cell equals one of them (checked cell
    by cell, a block of rows at a time), they are exactly the matrix's
    distinct values, ascending, as np.unique gives them. Otherwise None.

    >>> levels, codes = _few_levels(np.array([[0.0, 1.0, 0.5], [1.0, 1.0, 0.0]]))
    >>> levels.tolist(), codes.tolist()
    ([0.0, 0.5, 1.0], [[0, 2, 1], [2, 2, 0]])
    >>> _few_levels(np.arange(300.0).reshape(2, 150) / 300) is None
    True
    """
    flat = array.reshape(-1)
    candidates = distinct_sorted(flat[:: max(1, flat.size // 2**16)])
    if len(candidates) > 256:
        return None
    codes = np.empty(array.shape, dtype=np.uint8)
    step = max(1, 2**22 // max(1, array.shape[1]))  # about 4M cells a block
    for low in range(0, array.shape[0], step):
        block = array[low : low + step]
        found = np.minimum(np.searchsorted(candidates, block), len(candidates) - 1)
        if not np.array_equal(candidates[found], block):
            return None  # a score the sample missed: sort the whole matrix
        codes[low : low + step] = found
    return candidates, codes


def _levels_from_sequences(scores: object) -> Levels:
    if isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable):
        raise InstanceError(f"scores must be a 2-D matrix (models x queries), got {type(scores).__name__}")
    rows_in = list(scores)
    if rows_in and all(isinstance(row, np.ndarray) for row in rows_in):
        try:
            return _levels_from_array(np.array(rows_in))
        except ValueError:
            pass  # ragged: fall through to the row-by-row checks below
    rows: list[list[int]] = []
    interned: dict[Fraction, int] = {}
    for model, row in enumerate(rows_in):
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise InstanceError(
                f"scores must be a 2-D matrix (models x queries): row {model} is "
                f"{type(row).__name__}, not a sequence of scores"
            )
        values = list(row)
        if rows and len(values) != len(rows[0]):
            raise InstanceError(
                f"row {model} has {len(values)} scores but row 0 has {len(rows[0])}:"
                " every model needs a score on every query"
            )
        code_row = []
        for query, value in enumerate(values):
            try:
                exact = checked_score(value)
            except ValueError as problem:
                raise InstanceError(f"score at model {model}, query {query} {problem}") from None
            code_row.append(interned.setdefault(exact, len(interned)))
        rows.append(code_row)
    _check_shape(len(rows), len(rows[0]) if rows else 0)
    return list(interned), np.array(rows, dtype=np.intp)


def _smallest_codes(codes: npt.NDArray[np.integer[Any]], n_levels: int) -> npt.NDArray[np.unsignedinteger[Any]]:
    """*codes* in the smallest unsigned dtype that indexes *n_levels* levels, read-only."""
    dtype = np.uint8 if n_levels <= 2**8 else np.uint16 if n_levels <= 2**16 else np.uint32
    small: npt.NDArray[np.unsignedinteger[Any]] = codes.astype(dtype)
    small.setflags(write=False)
    return small


def _check_names(names: Sequence[str] | None, count: int, what: str) -> tuple[str, ...] | None:
    if names is None:
        return None
    names = tuple(str(name) for name in names)
    if len(names) != count:
        raise InstanceError(f"got {len(names)} {what} names for {count} {what} rows/columns")
    if len(set(names)) != len(names):
        raise InstanceError(f"{what} names must be unique")
    return names
