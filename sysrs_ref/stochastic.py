"""Stochastic scores S_ij ~ phi_ij (the paper's Formal Setup), with the evaluation noise as data.

A :class:`StochasticInstance` gives every cell (model i, query j) a finite law
phi_ij over scores in [0, 1]. It is made from one of three forms:

- :meth:`StochasticInstance.bernoulli`: a K x L matrix of success
  probabilities p_ij (S_ij = 1 with probability p_ij, else 0);
- :meth:`StochasticInstance.finite`: a shared support of V scores and a
  K x L x V array of probabilities (exact rationals accepted);
- :meth:`StochasticInstance.samples`: a K x L x E array of observed scores
  (E repeats per cell, such as inspect epochs), one picked uniformly;

and :meth:`StochasticInstance.deterministic` reads a score matrix as point
masses, which gives exactly the deterministic runs (docs/contracts.md §17).

**The noise rule.** A cell's law is a list of *outcome slots* (score
s_v, probability q_v), v = 0 .. V - 1, in the order of its form (Bernoulli:
the score 1 then the score 0; a finite law: the support's order; samples:
the samples' order), with cumulative probabilities F_v = q_0 + ... + q_v
(exact). An evaluation's noise is an integer u in [0, 2^53); the score is
s_v for the smallest v with u / 2^53 < F_v, compared exactly. A stochastic
run draws one u per cell (a K x L array, :class:`StochasticDraw`); a cell
is evaluated at most once per run, so the run equals the deterministic run
on the *realised* matrix (:meth:`StochasticInstance.realise`).

The noise realises each probability to within 2^-53: exactly when every
F_v * 2^53 is an integer (Bernoulli p = 1/2, 3/8 ...), otherwise slot v has
probability (ceil(F_v 2^53) - ceil(F_(v-1) 2^53)) / 2^53. The truth (the
means mu_i, the best models) and the exact error probabilities of
:mod:`sysrs_ref.theory.exact_stochastic` use the stated law phi_ij.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import generator_of
from sysrs_ref.draws import Draw, random_draw
from sysrs_ref.errors import DrawError, InstanceError
from sysrs_ref.instance import Instance, as_instance
from sysrs_ref.scores import checked_score

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "MAX_SAMPLE_VALUES",
    "NOISE_BITS",
    "NOISE_RANGE",
    "StochasticDraw",
    "StochasticInstance",
    "StochasticKind",
    "check_sample_count",
    "random_stochastic_draw",
]

#: The noise of one evaluation is an integer in [0, NOISE_RANGE) = [0, 2^53).
NOISE_BITS = 53
NOISE_RANGE = 2**NOISE_BITS

#: The most values K x L x E samples may hold. Every sample becomes an exact Fraction, at about 13 s and 325 MB per
#: million values: more is refused at once, with that estimate, rather than started (:func:`check_sample_count`).
MAX_SAMPLE_VALUES = 4_000_000
_SECONDS_PER_MILLION, _MB_PER_MILLION = 13, 325


def check_sample_count(shape: tuple[int, ...]) -> None:
    """InstanceError when samples of *shape* hold more than :data:`MAX_SAMPLE_VALUES` values, with what they would cost.

    >>> check_sample_count((2, 2, 20_000_000))
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.InstanceError: samples of shape 2 x 2 x 20000000 hold 80,000,000 values; reading them exactly would take about 17 minutes and 26 GB of memory (about 13 s and 325 MB per million values), and at most 4,000,000 are read: use fewer repeats per cell (e.g. their mean: convert --epochs mean) or give each cell's law as support and probabilities (an .npz)
    """
    count = 1
    for length in shape:
        count *= int(length)
    if count <= MAX_SAMPLE_VALUES:
        return
    seconds = count * _SECONDS_PER_MILLION // 10**6
    took = f"{seconds // 60:,} minutes" if seconds >= 120 else f"{seconds} s"
    gigabytes = count * _MB_PER_MILLION / 10**9
    memory = f"{gigabytes:.1f}" if gigabytes < 10 else f"{gigabytes:,.0f}"
    raise InstanceError(
        f"samples of shape {' x '.join(str(length) for length in shape)} hold {count:,} values; reading them exactly "
        f"would take about {took} and {memory} GB of memory (about {_SECONDS_PER_MILLION} s and "
        f"{_MB_PER_MILLION} MB per million values), and at most {MAX_SAMPLE_VALUES:,} are read: use fewer repeats "
        "per cell (e.g. their mean: convert --epochs mean) or give each cell's law as support and probabilities "
        "(an .npz)"
    )


#: The form a stochastic instance was made from.
StochasticKind = Literal["bernoulli", "finite", "samples", "deterministic"]

_ONE = Fraction(1)
_SUM_TOLERANCE = 1e-9

IntArray = npt.NDArray[np.int64]


class StochasticInstance:
    """K x L cells, each with a finite law phi_ij over scores in [0, 1]; validated, with its exact truth.

    Build it with :meth:`bernoulli`, :meth:`finite`, :meth:`samples` or
    :meth:`deterministic`; anything invalid raises
    :class:`~sysrs_ref.errors.InstanceError` naming the cell. The truth is
    that of :attr:`mean_instance`, the K x L matrix of expected scores
    E[S_ij]: mu_i, the best models, the tiers.

    >>> inst = StochasticInstance.bernoulli([[Fraction(3, 4), 1], [Fraction(1, 2), Fraction(1, 4)]])
    >>> inst.means, sorted(inst.best)
    ((Fraction(7, 8), Fraction(3, 8)), [0])
    >>> inst.law(0, 0)
    ((Fraction(1, 1), Fraction(3, 4)), (Fraction(0, 1), Fraction(1, 4)))
    >>> inst.outcome(0, 0, 0), inst.outcome(0, 0, 3 * 2**51)   # u / 2^53 < 3/4, then = 3/4
    (Fraction(1, 1), Fraction(0, 1))
    """

    __slots__ = ("_codes", "_cumulative", "_kind", "_levels", "_mean_instance", "_thresholds")

    def __init__(
        self,
        kind: StochasticKind,
        levels: Sequence[Fraction],
        codes: npt.NDArray[np.intp],
        cumulative: npt.NDArray[np.float64] | npt.NDArray[np.object_],
        mean_instance: Instance,
    ) -> None:
        """Use the named constructors; this one trusts its (already validated) arguments."""
        self._kind: StochasticKind = kind
        self._levels = tuple(levels)
        codes.setflags(write=False)
        cumulative.setflags(write=False)
        self._codes = codes
        self._cumulative = cumulative
        self._mean_instance = mean_instance
        self._thresholds: IntArray | None = None

    # -- the four forms ------------------------------------------------------------------

    @classmethod
    def bernoulli(cls, probabilities: npt.ArrayLike | Sequence[object]) -> StochasticInstance:
        """Bernoulli scores: S_ij = 1 with probability p_ij, else 0 (slots: the score 1, then 0).

        *probabilities* is a K x L matrix of numbers in [0, 1] (floats by their
        exact binary value, Fractions, Decimals).

        >>> StochasticInstance.bernoulli([[0.5, 1.0], [0.25, 0.0]]).means
        (Fraction(3, 4), Fraction(1, 8))
        """
        means = _matrix(probabilities, "Bernoulli probability")
        if isinstance(probabilities, np.ndarray) and probabilities.dtype.kind == "f":
            cumulative: npt.NDArray[np.float64] | npt.NDArray[np.object_] = np.stack(
                [np.asarray(probabilities, dtype=np.float64), np.ones(means.shape)], axis=2
            )
        else:
            cumulative = np.empty((*means.shape, 2), dtype=object)
            cumulative[:, :, 0] = _object_matrix(means.rows)
            cumulative[:, :, 1] = _ONE
        codes = np.empty((*means.shape, 2), dtype=np.intp)
        codes[:, :, 0], codes[:, :, 1] = 1, 0
        return cls("bernoulli", (Fraction(0), _ONE), codes, cumulative, means)

    @classmethod
    def finite(
        cls, support: Sequence[object] | npt.ArrayLike, probabilities: npt.ArrayLike | Sequence[object]
    ) -> StochasticInstance:
        """A finite law per cell on a shared support: P(S_ij = support[v]) = probabilities[i][j][v].

        *support* holds V >= 1 distinct scores in [0, 1]; *probabilities* is
        K x L x V, non-negative. Each cell's probabilities must sum to 1:
        exactly when given as exact numbers (ints, Fractions, Decimals),
        within 1e-9 when any is a float, and are then divided by their exact
        sum.

        >>> inst = StochasticInstance.finite([0, 0.5, 1], [[[0, 1, 0]], [[Fraction(1, 2), 0, Fraction(1, 2)]]])
        >>> inst.means, inst.law(1, 0)
        ((Fraction(1, 2), Fraction(1, 2)), ((Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))))
        """
        values = _support(support)
        table = _probability_array(probabilities, len(values))
        n_models, n_queries, n_slots = table.shape
        cumulative = np.empty(table.shape, dtype=object)
        mean_rows: list[list[Fraction]] = []
        for model in range(n_models):
            row: list[Fraction] = []
            for query in range(n_queries):
                cell = [table[model, query, slot] for slot in range(n_slots)]
                weights = _cell_probabilities(cell, model, query)
                running = Fraction(0)
                for slot, weight in enumerate(weights):
                    running += weight
                    cumulative[model, query, slot] = running
                row.append(sum((w * v for w, v in zip(weights, values, strict=True)), Fraction(0)))
            mean_rows.append(row)
        levels = sorted(set(values))
        code_of = {value: levels.index(value) for value in values}
        codes = np.broadcast_to(
            np.array([code_of[v] for v in values], dtype=np.intp), (n_models, n_queries, n_slots)
        ).copy()
        return cls("finite", levels, codes, cumulative, Instance(mean_rows))

    @classmethod
    def samples(cls, samples: npt.ArrayLike | Sequence[object]) -> StochasticInstance:
        """E observed scores per cell, one picked uniformly: a K x L x E array of scores in [0, 1].

        Slot e is sample e with probability 1/E (equal samples add up).

        >>> inst = StochasticInstance.samples([[[1, 0]], [[0.5, 0.5]]])
        >>> inst.means, inst.law(0, 0)
        ((Fraction(1, 2), Fraction(1, 2)), ((Fraction(1, 1), Fraction(1, 2)), (Fraction(0, 1), Fraction(1, 2))))
        """
        array = np.asarray(samples)
        if array.ndim != 3:
            raise InstanceError(f"samples must be a 3-D array (models x queries x repeats), got shape {array.shape}")
        n_models, n_queries, n_repeats = array.shape
        if n_repeats < 1:
            raise InstanceError("samples need at least 1 repeat per cell (the third axis is empty)")
        if n_models < 2 or n_queries < 1:
            raise InstanceError(f"need at least 2 models and 1 query, got samples of shape {array.shape}")
        check_sample_count(array.shape)
        _check_samples(array)
        flat_array = array.reshape(n_models, n_queries * n_repeats)
        flat = Instance(flat_array.tolist() if flat_array.dtype == object else flat_array)
        levels = sorted({value for row in flat.rows for value in row})
        code_of = {value: code for code, value in enumerate(levels)}
        codes = np.array([[code_of[v] for v in row] for row in flat.rows], dtype=np.intp).reshape(array.shape)
        steps = tuple(Fraction(e + 1, n_repeats) for e in range(n_repeats))
        cumulative = np.empty(array.shape, dtype=object)
        cumulative[...] = np.array(steps, dtype=object)[None, None, :]
        mean_rows = [
            [
                sum(flat.rows[model][query * n_repeats : (query + 1) * n_repeats], Fraction(0)) / n_repeats
                for query in range(n_queries)
            ]
            for model in range(n_models)
        ]
        return cls("samples", levels, codes, cumulative, Instance(mean_rows))

    @classmethod
    def deterministic(cls, instance: object) -> StochasticInstance:
        """A score matrix as point masses (one slot per cell): its runs are exactly the deterministic ones.

        >>> StochasticInstance.deterministic([[1, 0], [0, 0]]).realise([[5, 6], [7, 8]]).rows
        ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(0, 1)))
        """
        base = as_instance(instance, "the instance")
        levels = sorted({value for row in base.rows for value in row})
        code_of = {value: code for code, value in enumerate(levels)}
        codes = np.array([[[code_of[v]] for v in row] for row in base.rows], dtype=np.intp)
        cumulative = np.ones((*base.shape, 1), dtype=np.float64)
        return cls("deterministic", levels, codes, cumulative, base)

    # -- shape and truth ------------------------------------------------------------------

    @property
    def kind(self) -> StochasticKind:
        """The form the instance was made from: bernoulli, finite, samples or deterministic."""
        return self._kind

    @property
    def n_models(self) -> int:
        """K."""
        return int(self._codes.shape[0])

    @property
    def n_queries(self) -> int:
        """L."""
        return int(self._codes.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """(K, L)."""
        return (self.n_models, self.n_queries)

    @property
    def n_slots(self) -> int:
        """V, the number of outcome slots per cell (2 for Bernoulli, E for samples, 1 when deterministic)."""
        return int(self._codes.shape[2])

    @property
    def mean_instance(self) -> Instance:
        """The K x L matrix of expected scores E[S_ij] as an Instance: it carries the truth."""
        return self._mean_instance

    @property
    def means(self) -> tuple[Fraction, ...]:
        """mu_i = (1/L) sum_j E[S_ij], exactly (the paper's definition of the best model)."""
        return self._mean_instance.means

    @property
    def best(self) -> frozenset[int]:
        """The models with the largest mu_i."""
        return self._mean_instance.best

    @property
    def tiers(self) -> tuple[tuple[int, ...], ...]:
        """Models grouped by equal mu_i, in decreasing mu_i."""
        return self._mean_instance.tiers

    @property
    def levels(self) -> tuple[Fraction, ...]:
        """Every score a cell can take, ascending, exactly."""
        return self._levels

    @property
    def codes(self) -> npt.NDArray[np.intp]:
        """``codes[i, j, v]``: the level (index into :attr:`levels`) of slot v of cell (i, j); read-only."""
        return self._codes

    # -- the laws -------------------------------------------------------------------------

    def cumulative(self, model: int, query: int) -> tuple[Fraction, ...]:
        """F_0, ..., F_(V-1) of the cell, exactly (the last is 1)."""
        return tuple(Fraction(value) for value in self._cumulative[model, query].tolist())

    def slots(self, model: int, query: int) -> tuple[tuple[Fraction, Fraction], ...]:
        """The cell's outcome slots (score s_v, probability q_v) in the noise rule's order, zeros kept."""
        scores = [self._levels[code] for code in self._codes[model, query].tolist()]
        out, before = [], Fraction(0)
        for score, level in zip(scores, self.cumulative(model, query), strict=True):
            out.append((score, level - before))
            before = level
        return tuple(out)

    def law(self, model: int, query: int) -> tuple[tuple[Fraction, Fraction], ...]:
        """phi_ij as (score, probability) pairs: equal scores merged, zero probabilities left out, in slot order."""
        merged: dict[Fraction, Fraction] = {}
        for score, probability in self.slots(model, query):
            if probability:
                merged[score] = merged.get(score, Fraction(0)) + probability
        return tuple(merged.items())

    def second_moment(self, model: int, query: int) -> Fraction:
        """E[S_ij^2], exactly (for the variances of eq. variance)."""
        return sum((p * s * s for s, p in self.law(model, query)), Fraction(0))

    @property
    def degenerate(self) -> bool:
        """True when every cell is a point mass (the instance is a deterministic matrix).

        A cell is a point mass when its slots of positive probability all
        hold one score (read off the cumulative probabilities at once).

        >>> StochasticInstance.bernoulli([[1, 0], [0, 1]]).degenerate, StochasticInstance.bernoulli([[0.5], [1]]).degenerate
        (True, False)
        """
        cumulative = self._cumulative
        before = np.concatenate([np.zeros_like(cumulative[:, :, :1]), cumulative[:, :, :-1]], axis=2)
        possible = np.asarray(cumulative > before, dtype=bool)
        first = np.take_along_axis(self._codes, possible.argmax(axis=2)[:, :, None], axis=2)
        return bool(((self._codes == first) | ~possible).all())

    # -- the noise rule ------------------------------------------------------------------

    def outcome(self, model: int, query: int, noise: int) -> Fraction:
        """The score of cell (model, query) for the noise *noise*: s_v for the least v with noise / 2^53 < F_v.

        >>> StochasticInstance.samples([[[0, 1, 1]], [[0, 0, 0]]]).outcome(0, 0, 2**53 // 3)
        Fraction(0, 1)
        """
        u = Fraction(noise, NOISE_RANGE)
        codes: list[int] = self._codes[model, query].tolist()
        for code, level in zip(codes, self.cumulative(model, query), strict=True):
            if u < level:
                return self._levels[code]
        raise DrawError(f"noise {noise} is outside [0, 2^53)")  # unreachable for valid noise: F_last = 1

    def realise(self, noise: Sequence[Sequence[int]] | npt.NDArray[np.integer]) -> Instance:
        """The K x L matrix of scores the noise *noise* (K x L integers in [0, 2^53)) gives every cell.

        >>> StochasticInstance.bernoulli([[0.5, 0.5], [0, 1]]).realise([[0, 2**52], [0, 0]]).rows[0]
        (Fraction(1, 1), Fraction(0, 1))
        """
        rows = _noise_rows(noise, self.shape)
        return Instance([[self.outcome(i, j, u) for j, u in enumerate(row)] for i, row in enumerate(rows)])

    def oracle(self, noise: Sequence[Sequence[int]] | npt.NDArray[np.integer]) -> Callable[[int, int], Fraction]:
        """An evaluation oracle for one run: ``oracle(i, j)`` is the cell's outcome for its noise.

        DrawError if a cell is asked for twice (each cell is evaluated at most
        once per run: sampling without replacement).
        """
        rows = _noise_rows(noise, self.shape)
        asked: set[tuple[int, int]] = set()

        def evaluate(model: int, query: int) -> Fraction:
            if (model, query) in asked:
                raise DrawError(f"cell (model {model}, query {query}) was evaluated twice in one run")
            asked.add((model, query))
            return self.outcome(model, query, rows[model][query])

        return evaluate

    # -- for the fast paths ---------------------------------------------------------------

    @property
    def thresholds(self) -> IntArray:
        """``thresholds[i, j, v] = ceil(F_v * 2^53)``, int64 (read-only): slot v is the least with noise < it."""
        if self._thresholds is None:
            if self._cumulative.dtype == np.float64:
                table = np.ceil(np.asarray(self._cumulative, dtype=np.float64) * float(NOISE_RANGE)).astype(np.int64)
            else:
                ceil = np.frompyfunc(lambda f: -((-f.numerator * NOISE_RANGE) // f.denominator), 1, 1)
                table = np.asarray(ceil(self._cumulative), dtype=np.int64)
            table.setflags(write=False)
            self._thresholds = table
        return self._thresholds

    def realise_codes(self, noise: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
        """The level codes (K x L) the noise gives, by the thresholds (numpy; equal to :meth:`realise`).

        >>> inst = StochasticInstance.bernoulli(np.array([[0.5, 0.5], [0.0, 1.0]]))
        >>> inst.realise_codes(np.array([[0, 2**52], [0, 0]])).tolist()
        [[1, 0], [0, 1]]
        """
        slot = (np.asarray(noise, dtype=np.int64)[:, :, None] >= self.thresholds).sum(axis=2)
        codes: npt.NDArray[np.intp] = np.take_along_axis(self._codes, slot[:, :, None], axis=2)[:, :, 0]
        return codes

    def __repr__(self) -> str:
        return (
            f"StochasticInstance({self._kind}, K={self.n_models}, L={self.n_queries}, "
            f"V={self.n_slots}, best={sorted(self.best)})"
        )


@dataclass(frozen=True)
class StochasticDraw:
    """All the randomness of one stochastic run: the :class:`~sysrs_ref.draws.Draw` and the noise of every cell.

    ``noise[i][j]`` in [0, 2^53) is the noise of cell (model i, query j)
    (:class:`StochasticInstance`'s noise rule).

    >>> d = StochasticDraw(Draw(((1, 0),), (0, 1)), ((0, 1), (2, 3)))
    >>> d.synchronized, d.noise[1][0]
    (True, 2)
    """

    draw: Draw
    noise: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.draw, Draw):
            raise DrawError(f"a StochasticDraw needs a Draw, got {type(self.draw).__name__}")
        rows = _noise_rows(self.noise, (self.draw.n_models, self.draw.n_queries))
        object.__setattr__(self, "noise", tuple(tuple(row) for row in rows))

    @property
    def synchronized(self) -> bool:
        """Whether the query order is shared by all models."""
        return self.draw.synchronized


def random_stochastic_draw(
    rng: np.random.Generator | int, n_models: int, n_queries: int, *, synchronized: bool
) -> StochasticDraw:
    """A random draw, then the noise: ``random_draw(rng, ...)``, then ``rng.integers(0, 2**53, size=(K, L))``.

    The noise is drawn after the query orders from the same generator, so the
    :class:`~sysrs_ref.draws.Draw` is exactly ``random_draw``'s and a
    deterministic instance's runs do not change. With numpy's PCG64,
    ``noise[i][j]`` is the next 64-bit output shifted right by 11 (its top 53
    bits; numpy's bounded-integer method for a power-of-two range), row by
    row (docs/contracts.md §17).

    >>> d = random_stochastic_draw(5, 2, 3, synchronized=True)
    >>> d.draw == random_draw(5, 2, 3, synchronized=True), len(d.noise), all(0 <= u < 2**53 for row in d.noise for u in row)
    (True, 2, True)
    """
    generator = generator_of(rng, "seed")
    draw = random_draw(generator, n_models, n_queries, synchronized=synchronized)
    noise = generator.integers(0, NOISE_RANGE, size=(n_models, n_queries), dtype=np.int64)
    return StochasticDraw(draw, tuple(tuple(int(u) for u in row) for row in noise.tolist()))


# -- validation ------------------------------------------------------------------------


def _matrix(values: object, what: str) -> Instance:
    """A K x L matrix of numbers in [0, 1] as an Instance (its checks), errors naming *what*."""
    try:
        return as_instance(values, f"the {what} matrix")
    except InstanceError as problem:
        message = str(problem).replace("score at", f"{what} at").replace("scores must", f"{what}s must")
        raise InstanceError(message) from None


def _object_matrix(rows: Sequence[Sequence[Fraction]]) -> npt.NDArray[np.object_]:
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, row in enumerate(rows):
        out[i, :] = list(row)
    return out


def _support(support: object) -> list[Fraction]:
    array = np.asarray(support, dtype=object) if not isinstance(support, np.ndarray) else support
    if array.ndim != 1 or array.shape[0] < 1:
        raise InstanceError(f"the support must be a non-empty 1-D list of scores, got shape {array.shape}")
    values = []
    for index, value in enumerate(array.tolist()):
        try:
            values.append(checked_score(value))
        except ValueError as problem:
            raise InstanceError(f"support value {index} {problem}") from None
    if len(set(values)) != len(values):
        raise InstanceError("the support's scores must be distinct")
    return values


def _probability_array(probabilities: object, n_slots: int) -> npt.NDArray[np.object_]:
    try:
        array = np.asarray(probabilities, dtype=object)
    except ValueError:
        raise InstanceError("probabilities must be a K x L x V array (models x queries x support)") from None
    if array.ndim != 3:
        raise InstanceError(
            f"probabilities must be a 3-D array (models x queries x support), got {array.ndim} dimension(s)"
        )
    if array.shape[2] != n_slots:
        raise InstanceError(f"probabilities have {array.shape[2]} per cell but the support has {n_slots} scores")
    if array.shape[0] < 2 or array.shape[1] < 1:
        raise InstanceError(f"need at least 2 models and 1 query, got probabilities of shape {array.shape}")
    return array


def _cell_probabilities(cell: Sequence[object], model: int, query: int) -> list[Fraction]:
    where = f"model {model}, query {query}"
    exact, inexact = [], False
    for value in cell:
        if isinstance(value, (float, np.floating)):
            inexact = True
        try:
            number = checked_score(value)
        except ValueError as problem:
            raise InstanceError(f"probability at {where} {problem}") from None
        exact.append(number)
    total = sum(exact, Fraction(0))
    if inexact and abs(total - 1) <= _SUM_TOLERANCE and total > 0:
        return [value / total for value in exact]
    if total != 1:
        raise InstanceError(
            f"the probabilities at {where} sum to {float(total)!r}, not 1"
            + ("" if inexact else " (exact numbers must sum to exactly 1)")
        )
    return exact


def _check_samples(array: npt.NDArray[np.generic]) -> None:
    """InstanceError naming the first sample that is not a score in [0, 1] (model, query, repeat).

    Numeric arrays are screened at once; the first bad sample (or every
    sample of an object array) gets :func:`~sysrs_ref.scores.checked_score`'s message.
    """
    if array.dtype.kind in "biuf":
        as_float = array.astype(np.float64)
        bad = ~np.isfinite(as_float) | (as_float < 0) | (as_float > 1)
        suspects = [tuple(int(x) for x in np.argwhere(bad)[0])] if bad.any() else []
    else:
        suspects = list(np.ndindex(*array.shape))
    for model, query, repeat in suspects:
        try:
            checked_score(array[model, query, repeat])
        except ValueError as problem:
            raise InstanceError(f"sample at model {model}, query {query}, repeat {repeat} {problem}") from None


def _noise_rows(noise: object, shape: tuple[int, int]) -> list[list[int]]:
    if isinstance(noise, np.ndarray):
        if noise.dtype.kind not in "iu":
            raise DrawError(f"noise must hold integers, got an array of dtype {noise.dtype}")
        rows_in: object = noise.tolist()
    else:
        rows_in = noise
    if not isinstance(rows_in, (list, tuple)) or len(rows_in) != shape[0]:
        raise DrawError(f"noise must be a {shape[0]} x {shape[1]} array of integers (one per cell)")
    rows = []
    for row in rows_in:
        if not isinstance(row, (list, tuple)) or len(row) != shape[1]:
            raise DrawError(f"noise must be a {shape[0]} x {shape[1]} array of integers (one per cell)")
        out = []
        for value in row:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise DrawError(f"noise must hold integers, got {value!r}")
            if not 0 <= value < NOISE_RANGE:
                raise DrawError(f"noise must be in [0, 2^53), got {value}")
            out.append(int(value))
        rows.append(out)
    return rows
