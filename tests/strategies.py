"""Hypothesis strategies shared by every test module (one place, reused everywhere)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TypedDict, Unpack

import numpy as np
import numpy.typing as npt
from hypothesis import assume, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, ScoreLike
from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams
from sysrs_ref.fast import DrawBatch, NoisyDrawBatch
from sysrs_ref.stochastic import StochasticDraw, StochasticInstance
from sysrs_ref.subset.clustering import squared_distances
from tests.param_types import AlgorithmParamValues, ExplorationParam

#: The algorithms whose draw is query orders (a Draw): all but UCB-E-LRF, whose properties have their own tests.
ALGORITHM_NAMES = tuple(name for name, spec in ALGORITHMS.items() if not spec.cells)
SYNCHRONIZED = tuple(name for name in ALGORITHM_NAMES if ALGORITHMS[name].synchronized)
UNSYNCHRONIZED = tuple(name for name in ALGORITHM_NAMES if not ALGORITHMS[name].synchronized)

#: Above this many values, :func:`fractions_in` draws a denominator and a numerator instead of one value of a list.
_LISTED_FRACTIONS = 5000


def fractions_in(low: Fraction | int, high: Fraction | int, max_denominator: int) -> st.SearchStrategy[Fraction]:
    """Every fraction in [low, high] with a denominator up to *max_denominator*: st.fractions' values, drawn cheaply.

    ``st.fractions(low, high, max_denominator=...)`` takes about 1.7 ms a draw (it builds a new strategy for each,
    through ``flatmap`` and ``builds``), which would make it the larger part of generating a matrix of rationals.
    Up to a few thousand values this is one choice among them, simplest first (Hypothesis shrinks towards the
    smallest denominator, then the smallest magnitude); beyond, a denominator and then a numerator in range.
    """
    return _fractions_in(Fraction(low), Fraction(high), max_denominator)


@functools.lru_cache(maxsize=512)
def _fractions_in(low: Fraction, high: Fraction, max_denominator: int) -> st.SearchStrategy[Fraction]:
    numerators = _numerators(low, high, max_denominator)
    denominators = tuple(numerators)
    if not denominators:
        raise ValueError(f"no fraction in [{low}, {high}] has a denominator up to {max_denominator}")
    if sum(last - first + 1 for first, last in numerators.values()) <= _LISTED_FRACTIONS:
        return st.sampled_from(_listed_fractions(numerators))

    @st.composite
    def by_parts(draw: st.DrawFn) -> Fraction:
        q = draw(st.sampled_from(denominators))
        return Fraction(draw(st.integers(*numerators[q])), q)

    return by_parts()


def _numerators(low: Fraction, high: Fraction, max_denominator: int) -> dict[int, tuple[int, int]]:
    """Denominator q -> (first, last) numerator p with p / q in [low, high], for each q up to *max_denominator*."""
    ranges = {q: (math.ceil(low * q), math.floor(high * q)) for q in range(1, max_denominator + 1)}
    return {q: (first, last) for q, (first, last) in ranges.items() if first <= last}


def _listed_fractions(numerators: dict[int, tuple[int, int]]) -> list[Fraction]:
    """The fractions p / q of *numerators* (q -> first and last p, as :func:`_numerators` gives), simplest first."""
    values = {Fraction(p, q) for q, (first, last) in numerators.items() for p in range(first, last + 1)}
    return sorted(values, key=lambda v: (v.denominator, abs(v), v))


def _unrank(n: int, rank: int) -> tuple[int, ...]:
    """The permutation of range(n) at *rank* in lexicographic order (rank 0 is the identity)."""
    left, out = list(range(n)), []
    for size in range(n, 0, -1):
        index, rank = divmod(rank, math.factorial(size - 1))
        out.append(left.pop(index))
    return tuple(out)


@functools.cache
def permutations_of(n: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Every permutation of range(n), from one choice: its lexicographic rank (it shrinks towards the identity).

    ``st.permutations`` makes n - 1 choices, and drawing orders is a large part of the property tests' time.
    """
    return st.integers(0, math.factorial(n) - 1).map(functools.partial(_unrank, n))


binary_scores = st.sampled_from([0, 1])
#: Continuous scores with small denominators, so that exact ties between sums are common.
coarse_scores = fractions_in(0, 1, 4)
#: Scores in {0, 1/2, 1}: ties between sums, and between means, are very common.
half_scores: st.SearchStrategy[ScoreLike] = st.sampled_from([0, Fraction(1, 2), 1])
#: Arbitrary floats in [0, 1] (held exactly by the reference).
float_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)
#: Floats among which subnormals and tiny normals are common: the common denominator is then up to 2^1074.
tiny_scores = st.sampled_from([5e-324, 1e-310, 2.0**-1022, 1e-300, 2.0**-60, 0.0]) | float_scores


_ELEMENTS: dict[str, st.SearchStrategy[ScoreLike]] = {
    "binary": binary_scores,
    "coarse": coarse_scores,
    "float": float_scores,
    "tiny": tiny_scores,
    "halves": half_scores,
}


@functools.cache
def _rows(kind: str, n_queries: int) -> st.SearchStrategy[list[ScoreLike]]:
    """One row of *n_queries* scores of *kind*, built once per shape (a strategy is costly to build per example)."""
    return st.lists(_ELEMENTS[kind], min_size=n_queries, max_size=n_queries)


@st.composite
def matrices(
    draw: st.DrawFn,
    *,
    min_models: int = 2,
    max_models: int = 5,
    min_queries: int = 1,
    max_queries: int = 6,
    kind: str | None = None,
) -> list[list[ScoreLike]]:
    """A K x L score matrix of one kind of score, sometimes with duplicate rows.

    The kind is binary, coarse rationals or floats, drawn; or, on request, halves or tiny floats (subnormals).
    """
    n_models = draw(st.integers(min_models, max_models))
    n_queries = draw(st.integers(min_queries, max_queries))
    chosen_kind = kind or draw(st.sampled_from(["binary", "coarse", "float"]))
    row = _rows(chosen_kind, n_queries)
    rows: list[list[ScoreLike]] = [draw(row) for _ in range(n_models)]
    if draw(st.booleans()):  # duplicate a model: exact ties everywhere
        source, target = draw(st.integers(0, n_models - 1)), draw(st.integers(0, n_models - 1))
        rows[target] = list(rows[source])
    return rows


class MatrixShape(TypedDict, total=False):
    """The keyword arguments of :func:`matrices`, passed on by :func:`instances` and :func:`cases`."""

    min_models: int
    max_models: int
    min_queries: int
    max_queries: int
    kind: str | None


def instances(**kwargs: Unpack[MatrixShape]) -> st.SearchStrategy[Instance]:
    """Validated instances built from :func:`matrices`."""
    return matrices(**kwargs).map(Instance)


@functools.cache
def draws_for(n_models: int, n_queries: int, synchronized: bool) -> st.SearchStrategy[Draw]:
    """A uniformly arbitrary draw for a K x L instance (built once per shape: building one per example is costly)."""
    order = permutations_of(n_queries)
    orders = (
        st.lists(order, min_size=1, max_size=1)
        if synchronized
        else st.lists(order, min_size=n_models, max_size=n_models)
    )
    return st.builds(
        lambda qs, prio: Draw(tuple(qs), tuple(prio)),
        orders,
        permutations_of(n_models),
    )


exploration_values = st.one_of(
    st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(10), Fraction(1, 4), Fraction(4)]),
    fractions_in(Fraction(1, 50), 100, 50),
)


@dataclass(frozen=True)
class Case:
    """One algorithm run: instance, algorithm name, budget, draw, parameters."""

    instance: Instance
    algorithm: str
    budget: int
    draw: Draw
    params: dict[str, Fraction]


@st.composite
def cases(
    draw: st.DrawFn,
    /,
    *,
    algorithms: tuple[str, ...] = ALGORITHM_NAMES,
    full_budget: bool = False,
    **matrix_kwargs: Unpack[MatrixShape],
) -> Case:
    """A random run of one of *algorithms* on a small instance, budget in [K, K*L]."""
    instance = draw(instances(**matrix_kwargs))
    name = draw(st.sampled_from(algorithms))
    spec = ALGORITHMS[name]
    n_models, n_queries = instance.shape
    full = n_models * n_queries
    budget = full if full_budget else draw(st.integers(n_models, full))
    run_draw = draw(draws_for(n_models, n_queries, spec.synchronized))
    params: dict[str, Fraction] = {"a": draw(exploration_values)} if "a" in spec.defaults else {}
    if "m" in spec.defaults:  # SAR, SySAR: the size of the top-m set
        params["m"] = Fraction(draw(st.integers(1, n_models - 1)))
    return Case(instance, name, budget, run_draw, params)


@st.composite
def topm_cases(
    draw: st.DrawFn, *, min_models: int = 3, max_models: int = 4, max_queries: int | None = None
) -> tuple[Instance, int]:
    """A small tie-heavy instance (scores in {0, 1/2, 1}) and a budget in [K, K*L], for top-m engines.

    Without *max_queries*: L <= 3 for K = 3 and L <= 2 for K = 4, so that every draw can be enumerated.
    """
    n_models = draw(st.integers(min_models, max_models))
    limit = max_queries if max_queries is not None else (3 if n_models <= 3 else 2)
    rows = draw(matrices(min_models=n_models, max_models=n_models, max_queries=limit, kind="halves"))
    instance = Instance(rows)
    budget = draw(st.integers(n_models, n_models * instance.n_queries))
    return instance, budget


@st.composite
def lrf_draws(draw: st.DrawFn, n_models: int, n_queries: int) -> LRFDraw:
    """An arbitrary UCB-E-LRF draw for a K x L instance: cell order, arm priority, 64-bit seed."""
    order = draw(permutations_of(n_models * n_queries))
    priority = draw(permutations_of(n_models))
    return LRFDraw(order, priority, draw(st.integers(0, 2**64 - 1)))


@st.composite
def lrf_params(draw: st.DrawFn) -> LRFParams:
    """Small, fast UCB-E-LRF settings covering both variants and both documented options."""
    return LRFParams(
        warmup=draw(st.sampled_from([Fraction(0), Fraction(5), Fraction(25), Fraction(50), Fraction(100)])),
        batch=draw(st.integers(1, 4)),
        members=draw(st.integers(2, 4)),
        sweeps=draw(st.integers(1, 3)),
        dropout=draw(st.sampled_from([0.0, 0.05, 0.5])),
        bonus_on_observed=draw(st.booleans()),
        unseen_first=draw(st.booleans()),
    )


# -- subset selection (sysrs_ref.subset) ---------------------------------------------------------

FloatArray = npt.NDArray[np.float64]


@st.composite
def point_sets(draw: st.DrawFn) -> FloatArray:
    """n x d points, from a coarse grid (many duplicates and ties) or arbitrary floats."""
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 3))
    element = draw(
        st.sampled_from(
            [st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.floats(-10, 10, allow_nan=False)]
        )
    )
    return np.array(draw(st.lists(st.lists(element, min_size=d, max_size=d), min_size=n, max_size=n)), dtype=float)


@st.composite
def distance_matrices(draw: st.DrawFn) -> FloatArray:
    """n x n non-negative matrices with a zero diagonal: Euclidean, 1 - correlation-like, or arbitrary asymmetric."""
    points = draw(point_sets())
    kind = draw(st.sampled_from(["euclidean", "random", "coarse"]))
    n = len(points)
    if kind == "euclidean":
        matrix = np.sqrt(squared_distances(points, points))
    else:
        element = st.sampled_from([0.0, 1.0, 2.0]) if kind == "coarse" else st.floats(0, 2, allow_nan=False)
        matrix = np.array(
            draw(st.lists(st.lists(element, min_size=n, max_size=n), min_size=n, max_size=n)), dtype=float
        )
    np.fill_diagonal(matrix, 0.0)
    return matrix


#: Float arrays with repeated values, both zeros and a few shapes: what :func:`sysrs_ref._distinct.distinct_sorted` reads.
repeated_floats = st.integers(0, 3).flatmap(
    lambda ndim: st.lists(
        st.sampled_from([0.0, -0.0, 0.25, 1.0, -3.5, 1e-300, 5e-324]) | st.floats(-1e6, 1e6), max_size=24
    ).map(lambda values: np.array(values, dtype=np.float64).reshape((-1,) + (1,) * max(0, ndim - 1)))
)


@st.composite
def score_matrices(draw: st.DrawFn, max_models: int = 6, max_questions: int = 10) -> FloatArray:
    """K x L scores: binary, in {0, 1/2, 1} or arbitrary in [0, 1]; often with constant columns."""
    n_models = draw(st.integers(2, max_models))
    n_questions = draw(st.integers(1, max_questions))
    element = draw(
        st.sampled_from([st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0)])
    )
    rows = draw(
        st.lists(st.lists(element, min_size=n_questions, max_size=n_questions), min_size=n_models, max_size=n_models)
    )
    scores = np.array(rows, dtype=float)
    for column in draw(st.sets(st.integers(0, n_questions - 1), max_size=n_questions)):
        scores[:, column] = draw(st.sampled_from([0.0, 0.5, 1.0]))
    return scores


@st.composite
def irt_points(draw: st.DrawFn) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """A small instance with fractional scores and a random parameter point (moderate logits)."""
    n_models, n_questions, d = draw(st.integers(2, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scores = rng.choice([0.0, 0.25, 0.5, 1.0], size=(n_models, n_questions))
    hyper = np.array([rng.normal(), rng.normal(0, 0.5), rng.normal(), rng.normal(0, 0.5)])
    return (
        scores,
        rng.normal(size=(n_models, d)),
        rng.normal(size=(n_questions, d)),
        rng.normal(size=n_questions),
        hyper,
    )


# -- live sessions (sysrs_ref.live) ----------------------------------------------------------------


@dataclass(frozen=True)
class LiveCase:
    """A live session's settings and the matrix its scores come from (ids ``m<i>`` and ``q<j>``)."""

    instance: Instance
    algorithm: str
    budget: int
    seed: int
    params: dict[str, Fraction | int]

    @property
    def models(self) -> list[str]:
        return [f"m{i}" for i in range(self.instance.n_models)]

    @property
    def queries(self) -> list[str]:
        return [f"q{j}" for j in range(self.instance.n_queries)]

    def score(self, model: str, query: str) -> Fraction:
        """The matrix's score for the pair named by ids."""
        return self.instance.score(int(model[1:]), int(query[1:]))


@st.composite
def live_cases(draw: st.DrawFn, *, algorithms: tuple[str, ...] = tuple(ALGORITHMS)) -> LiveCase:
    """Any registered algorithm (UCB-E-LRF small and fast) on a small instance, with a budget, a seed, parameters."""
    name = draw(st.sampled_from(algorithms))
    small = ALGORITHMS[name].cells
    instance = draw(instances(max_models=3 if small else 5, max_queries=4 if small else 6))
    n_models, n_queries = instance.shape
    params: dict[str, Fraction | int] = {}
    if "a" in ALGORITHMS[name].defaults:
        params["a"] = draw(exploration_values)
    if "m" in ALGORITHMS[name].defaults:
        params["m"] = draw(st.integers(1, n_models - 1))
    if small:
        params.update(
            members=draw(st.integers(2, 3)),
            sweeps=draw(st.integers(1, 2)),
            warmup=draw(st.sampled_from([0, 25, 50])),
            batch=draw(st.integers(1, 3)),
        )
    budget = draw(st.integers(n_models, n_models * n_queries))
    return LiveCase(instance, name, budget, draw(st.integers(0, 2**32)), params)


# -- long .csv results (sysrs_ref.loaders.load_long_csv) ------------------------------------------

#: Ids of models and queries: short, never empty, with commas, quotes, spaces and non-ASCII inside (never at the ends).
csv_ids = st.text(alphabet=st.sampled_from(list("abxyz019 ,\"'/_-é")), min_size=1, max_size=5).filter(
    lambda text: text == text.strip()
)
#: Scores as a long .csv may write them (several spellings of one value among them).
csv_score_texts = st.sampled_from(["0", "1", "0.5", ".5", "0.25", "0.1", "1e-1", "0.333", "1.000", "0e0", "0.75"])


@dataclass(frozen=True)
class LongCsvTable:
    """A long .csv in memory: the header's column order and the data rows (model, query, score text) in file order."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, str, str], ...]
    """Each (model, query) pair once, except identical repeats of earlier rows."""


@st.composite
def long_csv_tables(draw: st.DrawFn, *, max_models: int = 4, max_queries: int = 5) -> LongCsvTable:
    """A random subset of the cells of a random K x L table, in random order, with random identical repeats."""
    models = draw(st.lists(csv_ids, min_size=1, max_size=max_models, unique=True))
    queries = draw(st.lists(csv_ids, min_size=1, max_size=max_queries, unique=True))
    pairs = [(model, query) for model in models for query in queries]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    rows = [(model, query, draw(csv_score_texts)) for model, query in chosen]
    for _ in range(draw(st.integers(0, 3))):  # identical repeats, anywhere after the original
        source = draw(st.integers(0, len(rows) - 1))
        rows.insert(draw(st.integers(source + 1, len(rows))), rows[source])
    header = tuple(draw(st.permutations(["model", "query", "score", "note"])))
    return LongCsvTable(header, tuple(rows))


@st.composite
def packable_matrices(draw: st.DrawFn) -> FloatArray:
    """Matrices for the shipped benchmarks' file format: 0/1 (any cell count, not only multiples of 8), or any
    finite floats, -0.0 and subnormals included (the format must give back every bit)."""
    n_rows = draw(st.integers(1, 9))
    n_columns = draw(st.integers(1, 13))
    element = draw(
        st.sampled_from(
            [
                st.sampled_from([0.0, 1.0]),
                st.sampled_from([0.0, -0.0, 1.0]),
                st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True),
            ]
        )
    )
    rows = draw(st.lists(st.lists(element, min_size=n_columns, max_size=n_columns), min_size=n_rows, max_size=n_rows))
    return np.array(rows, dtype=np.float64)


# -- seeds, shapes and budgets ----------------------------------------------------------------------

#: Seeds for numpy's generators (sysrs_ref.subset).
seeds = st.integers(0, 2**32 - 1)


@st.composite
def shapes_and_budgets(draw: st.DrawFn, max_models: int = 40, max_queries: int = 60) -> tuple[int, int, int]:
    """K, L and a budget in [K, K*L] (for the phase schedule)."""
    n_models = draw(st.integers(2, max_models))
    n_queries = draw(st.integers(1, max_queries))
    budget = draw(st.integers(n_models, n_models * n_queries))
    return n_models, n_queries, budget


# -- exact error probabilities and the theorems' bounds (sysrs_ref.theory) --------------------------


@st.composite
def tiny_cases(draw: st.DrawFn, algorithm: str) -> tuple[Instance, int, ExplorationParam]:
    """A tiny instance (brute force stays fast), any budget in [K, K*L], binary or coarse scores."""
    spec = ALGORITHMS[algorithm]
    n_models = draw(st.integers(2, 3))
    max_queries = 4 if (spec.synchronized or n_models == 2) else 3
    rows = draw(
        matrices(
            min_models=n_models,
            max_models=n_models,
            max_queries=max_queries,
            kind=draw(st.sampled_from(["binary", "coarse"])),
        )
    )
    instance = Instance(rows)
    budget = draw(st.integers(n_models, n_models * instance.n_queries))
    params: ExplorationParam = {"a": draw(exploration_values)} if "a" in spec.defaults else {}
    return instance, budget, params


@st.composite
def instance_and_budget(draw: st.DrawFn, max_models: int, max_queries: int) -> tuple[Instance, int]:
    """An instance with a single best model and a budget in [K, K*L]."""
    inst = Instance(draw(matrices(max_models=max_models, max_queries=max_queries)))
    assume(len(inst.best) == 1)
    n_models, n_queries = inst.shape
    return inst, draw(st.integers(n_models, n_models * n_queries))


@st.composite
def bayes_parameters(draw: st.DrawFn) -> tuple[Fraction, Fraction]:
    """Delta and s of Theorem lower-bound's two hypotheses: 0 < Delta <= s <= 1/2 (denominators up to 100)."""
    delta = draw(fractions_in(Fraction(1, 100), Fraction(49, 100), 100))
    s = draw(fractions_in(delta, Fraction(1, 2), 100))
    return delta, s


@st.composite
def delta_and_s(draw: st.DrawFn) -> tuple[Fraction, Fraction]:
    """Delta and s of Theorem lower-bound's construction: 0 < Delta <= s <= 1/2 (denominators up to 40)."""
    delta = draw(fractions_in(Fraction(1, 40), Fraction(19, 40), 40))
    s = draw(fractions_in(delta, Fraction(1, 2), 40))
    return delta, s


Distribution = list[tuple[Fraction, Fraction]]  # (value, probability)

#: Values of the Bernstein lemmas' populations: in [-1, 1], denominators up to 6.
grid = fractions_in(-1, 1, 6)
#: Values in [0, 1], denominators up to 4.
unit = fractions_in(0, 1, 4)
#: The probability of a two-point distribution's first value.
probability = st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(3, 4), Fraction(1, 5)])


@st.composite
def distributions(draw: st.DrawFn, values: st.SearchStrategy[Fraction]) -> Distribution:
    """A point mass or a two-point distribution."""
    first = draw(values)
    if draw(st.booleans()):
        return [(first, Fraction(1))]
    p = draw(probability)
    return [(first, p), (draw(values), 1 - p)]


# -- UCB indices mu + sqrt(a/N) (sysrs_ref.algorithms.ucb_index) ------------------------------------

rationals = fractions_in(-4, 4, 30)
nonneg = fractions_in(0, 9, 30)
means = fractions_in(0, 1, 40)
counts = st.integers(1, 60)
a_values = fractions_in(Fraction(1, 20), 100, 20)


@st.composite
def near_ties(draw: st.DrawFn) -> tuple[Fraction, int, Fraction, int, Fraction]:
    """Pairs of indices that are exactly equal, or differ by a tiny rational nudge."""
    a = draw(st.sampled_from([Fraction(1), Fraction(4), Fraction(1, 4), Fraction(9)]))
    n1, n2 = draw(st.sampled_from([1, 4, 9, 16, 25, 36])), draw(st.sampled_from([1, 4, 9, 16, 25, 36]))
    root1 = Fraction(math.isqrt(a.numerator), math.isqrt(a.denominator)) / math.isqrt(n1)
    root2 = Fraction(math.isqrt(a.numerator), math.isqrt(a.denominator)) / math.isqrt(n2)
    m1 = draw(fractions_in(0, 1, 12))
    m2 = m1 + root1 - root2  # then U1 == U2 exactly
    nudge = draw(st.sampled_from([Fraction(0), Fraction(1, 10**18), -Fraction(1, 10**18), Fraction(1, 2**60)]))
    m2 += nudge
    return m1, n1, m2, n2, a


# -- the fast paths (sysrs_ref.fast) -----------------------------------------------------------------


@st.composite
def fast_cases(draw: st.DrawFn, algorithms: tuple[str, ...]) -> tuple[Instance, str, tuple[int, ...], DrawBatch]:
    """An instance, one of *algorithms*, budgets (K and K*L among them) and 1-4 draws."""
    instance = draw(instances(max_models=5, max_queries=6))
    name = draw(st.sampled_from(algorithms))
    n_models, n_queries = instance.shape
    full = n_models * n_queries
    budgets = tuple(draw(st.lists(st.integers(n_models, full), min_size=1, max_size=4)))
    budgets += (n_models, full)  # the corners: nothing to spend on phases, and every pair
    runs = draw(st.lists(draws_for(n_models, n_queries, ALGORITHMS[name].synchronized), min_size=1, max_size=4))
    return instance, name, budgets, DrawBatch.from_draws(runs)


#: An instance, UCB-E or SyUCB-E, the draws, a, and the budgets.
UcbProblem = tuple[Instance, str, DrawBatch, Fraction, tuple[int, ...]]


@st.composite
def ucb_problems(
    draw: st.DrawFn, *, kind: str | None = None, max_queries: int = 7, a: Fraction | None = None
) -> UcbProblem:
    """An instance, an algorithm, 1-3 draws, a, and a budget grid that always holds K and K*L."""
    instance = draw(instances(max_models=5, max_queries=max_queries, kind=kind))
    name = draw(st.sampled_from(["syucbe", "ucbe"]))
    n_models, n_queries = instance.shape
    runs = draw(st.lists(draws_for(n_models, n_queries, ALGORITHMS[name].synchronized), min_size=1, max_size=3))
    exploration = a if a is not None else draw(exploration_values)
    extra = draw(st.lists(st.integers(n_models, n_models * n_queries), max_size=4))
    budgets = tuple(sorted({n_models, n_models * n_queries, *extra}))
    return instance, name, DrawBatch.from_draws(runs), exploration, budgets


#: Rows of non-increasing integer keys (1-4 rows of one width).
key_rows = st.integers(1, 40).flatmap(
    lambda width: st.lists(
        st.lists(st.integers(0, 100), min_size=width, max_size=width).map(lambda row: sorted(row, reverse=True)),
        min_size=1,
        max_size=4,
    )
)

#: K x 6 matrices of decimal floats (0.1 is not a dyadic rational: integer sums with a large denominator).
decimal_matrices = st.integers(2, 4).flatmap(
    lambda k: st.lists(
        st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.7, 1.0]), min_size=6, max_size=6), min_size=k, max_size=k
    )
)


# -- subset selection: clustering and the GAM (sysrs_ref.subset) -------------------------------------


@st.composite
def assignment_cases(draw: st.DrawFn) -> tuple[FloatArray, FloatArray]:
    """C- or F-ordered points and C-ordered centres made to tie: points, midpoints, subset means, grid points."""
    points = draw(point_sets())
    n, d = points.shape
    index = st.integers(0, n - 1)
    centres: list[FloatArray] = []
    for kind in draw(st.lists(st.sampled_from(["point", "midpoint", "mean", "grid"]), min_size=1, max_size=2 * n)):
        if kind == "point":
            centres.append(points[draw(index)])
        elif kind == "midpoint":
            centres.append((points[draw(index)] + points[draw(index)]) / 2)
        elif kind == "mean":
            centres.append(points[sorted(draw(st.sets(index, min_size=1)))].mean(axis=0))
        else:
            centres.append(np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=d, max_size=d))))
    return np.array(points, order=draw(st.sampled_from(["C", "F"]))), np.array(centres, dtype=np.float64)


#: Sorted knots, 3 to 12 of them in [-10, 10], at least 0.01 apart.
knot_sets = (
    st.lists(st.floats(-10.0, 10.0, allow_nan=False), min_size=3, max_size=12, unique=True)
    .map(lambda v: np.sort(np.array(v)))
    .filter(lambda k: bool(np.min(np.diff(k)) > 1e-2))
)


# -- simulate (sysrs_ref.simulation) ------------------------------------------------------------------

#: An instance, an algorithm, budgets, runs, a seed and the algorithm's parameters.
SimulationCase = tuple[Instance, str, list[int | str], int, int, AlgorithmParamValues]


@st.composite
def simulations(draw: st.DrawFn) -> SimulationCase:
    """A small simulate call: any algorithm but UCB-E-LRF, 1-3 budgets, 1-6 runs, a seed, a and m when used."""
    instance = draw(instances(max_models=4, max_queries=5))
    algorithm = draw(st.sampled_from(ALGORITHM_NAMES))
    n_models, n_queries = instance.shape
    budgets: list[int | str] = draw(st.lists(st.integers(n_models, n_models * n_queries), min_size=1, max_size=3))
    runs = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32))
    params: AlgorithmParamValues = {"a": draw(exploration_values)} if "a" in ALGORITHMS[algorithm].defaults else {}
    if "m" in ALGORITHMS[algorithm].defaults and draw(st.booleans()):
        params["m"] = Fraction(draw(st.integers(1, n_models - 1)))
    return instance, algorithm, budgets, runs, seed, params


#: Values of every JSON type, none an integral float (a JSON reader keeps 1.0 apart from 1; the standard
#: validator's "integer" would not): what a mutation puts where another type belongs.
_JSON_REPLACEMENTS: tuple[object, ...] = ("x", "0.5", 0.5, -1, 7, None, True, [], {}, [0], {"zz": 1})


def _json_nodes(value: object, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The path of every node of a JSON document (the root too), depth first."""
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_json_nodes(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_json_nodes(item, (*path, index)))
    return out


def _at(document: object, path: tuple[str | int, ...]) -> object:
    for part in path:
        document = document[part]  # type: ignore[index]
    return document


@st.composite
def json_mutations(draw: st.DrawFn, document: object) -> tuple[str, object]:
    """(what was done, the mutated copy) of a JSON *document*: one node's key dropped, its type changed,
    its list emptied, or a key added to its object.
    """
    import copy

    mutated = copy.deepcopy(document)
    path = draw(st.sampled_from(_json_nodes(mutated)))
    node = _at(mutated, path)
    choices = ["retype"]
    if isinstance(node, dict):
        choices += ["add-key"] + (["drop-key"] if node else [])
    if isinstance(node, list) and node:
        choices.append("empty")
    how = draw(st.sampled_from(choices))
    if how == "drop-key":
        assert isinstance(node, dict)
        key = draw(st.sampled_from(sorted(node)))
        del node[key]
        return f"dropped {key!r} at {list(path)}", mutated
    if how == "add-key":
        assert isinstance(node, dict)
        node["zz_added"] = draw(st.sampled_from(_JSON_REPLACEMENTS))
        return f"added a key at {list(path)}", mutated
    if how == "empty":
        assert isinstance(node, list)
        node.clear()
        return f"emptied the list at {list(path)}", mutated
    value = copy.deepcopy(draw(st.sampled_from(_JSON_REPLACEMENTS)))
    if not path:
        return f"replaced the document by {value!r}", value
    parent = _at(mutated, path[:-1])
    parent[path[-1]] = value  # type: ignore[index]
    return f"replaced {list(path)} by {value!r}", mutated


# -- fuzzing the readers and the command line (tests/cli/test_fuzz.py): every input small, so parsing is bounded ------

#: Ways to write a number, good and bad: scores, budgets, percentages, parameters, grid points, seeds.
NUMBER_TOKENS = (
    *("0", "1", "0.5", "1.0", ".5", "5.", "0.25", "1e-3", "1E-2", "0e0", "-0", "+0.5", "3", "12", "40"),
    *("-1", "2", "1.5", "101", "-5", "1e3", "1e-1000", "1e-1001", "1e1000", "0." + "0" * 60 + "1", "9" * 40),
    *("1e-99999999", "1e99999999", "-1e-99999999", "1e+99999999", "0.5e-99999999", "1e-9999999999999999999"),
    *("nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1/2", "0x1", "1_0", "\u0661", "\u00bd", "0,5", "++1"),
    *("1e", "e5", "--1", ".", "", " ", "x", "true", "null", "[]", "\x00", "\U0001f600"),
    *("5%", "12%", "50%", "100%", "0%", "101%", "-5%", "1.25%", "%", "%%", "5 %", "nan%", "1e-99999999%"),
)
number_tokens = st.one_of(st.sampled_from(NUMBER_TOKENS), st.text(max_size=6))
#: Tokens of a csv cell or an id: numbers, words, separators, quotes, control characters.
cell_tokens = st.one_of(
    number_tokens,
    st.sampled_from(["model", "query", "score", "a", "b", "q1", '"', '"a,b"', "a\nb", "\r", "\t", "#"]),
)


@st.composite
def csv_texts(draw: st.DrawFn) -> str:
    """A .csv file's text: a matrix or a long model,query,score table of random cells, or random text."""
    kind = draw(st.sampled_from(["matrix", "long", "text", "wide-cell"]))
    if kind == "text":
        return draw(st.text(max_size=200))
    if kind == "wide-cell":  # one cell longer than the csv module's field limit (131,072 characters)
        return draw(st.sampled_from(["", "model,query,score\na,q1,"])) + "0." + "1" * 140_000 + "\n"
    rows = draw(st.integers(0, 4))
    width = draw(st.integers(1, 4))
    lines: list[list[str]] = []
    if kind == "long":
        header = draw(st.permutations(["model", "query", "score", *draw(st.lists(cell_tokens, max_size=1))]))
        lines.append(draw(st.sampled_from([header, header[:2], [*header, "score"], [h.upper() for h in header]])))
        width = len(header)
    for _ in range(rows):
        ragged = draw(st.integers(0, 9)) == 0
        cells = st.one_of(st.sampled_from(["0", "1", "0.5", "a", "b", "q1", "q2"]), cell_tokens)
        lines.append(draw(st.lists(cells, min_size=1 if ragged else width, max_size=width + 1 if ragged else width)))
    text = "".join(",".join(line) + draw(st.sampled_from(["\n", "\r\n", "\r", ""])) for line in lines)
    return draw(st.sampled_from(["", "\ufeff"])) + text


@st.composite
def npy_headers(draw: st.DrawFn) -> bytes:
    """A .npy file with the magic, a version and a header of random but plausible keys, then some bytes."""
    descr = draw(
        st.one_of(
            st.sampled_from(["<f8", "<f4", "<i8", "|u1", "|b1", "|O", "<U3", "<c16", ">f8", "|V8"]),
            st.sampled_from(["<M8[s]", "[('a', '<f8')]", "<f16", "|S0", "<f0", "x"]),
            st.text(max_size=5),
        )
    )
    sizes = st.one_of(st.integers(0, 6), st.sampled_from([-1, 2**31, 2**40, 10**12, 2**63 - 1, 2**64]))
    shape = tuple(draw(st.lists(sizes, max_size=3)))
    order = draw(st.sampled_from(["False", "True", "0", "'x'"]))
    shape_text = draw(st.sampled_from([repr(shape), "[1, 2]", "(1.5,)", "'x'", "(2, 3"]))
    descr_text = descr if descr.startswith("[") else repr(descr)
    header = f"{{'descr': {descr_text}, 'fortran_order': {order}, 'shape': {shape_text}, }}"
    header = draw(st.sampled_from([header, header.replace("'descr'", "'desc'"), "{}", header[:-2], header + "x"]))
    major = draw(st.sampled_from([1, 2, 3, 0, 9]))
    encoded = header.encode("latin-1", "replace")
    pad = draw(st.integers(0, 70))
    encoded = encoded + b" " * pad + b"\n"
    length = len(encoded) if draw(st.booleans()) else draw(st.integers(0, 2**16 - 1))
    prefix = b"\x93NUMPY" + bytes([major, 0])
    prefix += length.to_bytes(4 if major >= 2 else 2, "little") if length < 2**16 else b"\xff\xff"
    return prefix + encoded + draw(st.binary(max_size=64))


@st.composite
def npy_arrays(draw: st.DrawFn) -> bytes:
    """The bytes numpy.save writes for a small array of some dtype and dimension (NaNs, infinities, out of [0, 1])."""
    import io

    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    dtype = draw(st.sampled_from(["float64", "float32", "float16", "int64", "uint8", "bool", "complex128", "U2", "S2"]))
    count = int(np.prod(shape)) if shape else 1
    values = draw(
        st.lists(st.sampled_from([0.0, 1.0, 0.5, -1.0, 2.0, 1e300, math.nan, math.inf]), min_size=count, max_size=count)
    )
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and 1e300 cast to integers: whatever numpy makes
        numbers = np.array(values).reshape(shape)
        array = numbers.astype(dtype) if dtype[0] not in "US" else numbers.astype(str).astype(dtype)
    if draw(st.booleans()):
        array = np.asfortranarray(array)
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """*data* as it is, truncated, with a byte changed, or with bytes appended."""
    how = draw(st.sampled_from(["as-is", "truncate", "flip", "append"]))
    if how == "truncate" or (how == "flip" and not data):
        return data[: draw(st.integers(0, len(data)))]
    if how == "flip":
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
    if how == "append":
        return data + draw(st.binary(min_size=1, max_size=16))
    return data


@st.composite
def npy_files(draw: st.DrawFn) -> bytes:
    """Bytes for a .npy reader: random, after the magic, a crafted header, or a real array (damaged or not)."""
    kind = draw(st.sampled_from(["random", "magic", "header", "array", "pickle"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    if kind == "magic":
        return b"\x93NUMPY" + draw(st.binary(max_size=120))
    if kind == "header":
        return draw(npy_headers())
    if kind == "pickle":
        import io

        buffer = io.BytesIO()
        np.save(buffer, np.array([[0.5, None]], dtype=object), allow_pickle=True)
        return draw(damaged(buffer.getvalue()))
    return draw(damaged(draw(npy_arrays())))


@st.composite
def npz_files(draw: st.DrawFn) -> bytes:
    """Bytes for a .npz reader: random, or a zip of members named like a packed matrix's (any content)."""
    import io
    import zipfile

    if draw(st.integers(0, 4)) == 0:
        return draw(st.one_of(st.binary(max_size=200), st.binary(max_size=100).map(lambda b: b"PK\x03\x04" + b)))
    names = draw(
        st.lists(
            st.sampled_from(["scores.npy", "shape.npy", "bits.npy", "other.npy", "scores", "a/b.npy"]),
            max_size=3,
            unique=True,
        )
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            method = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
            content = draw(st.one_of(npy_files(), st.sampled_from([b""])))
            archive.writestr(zipfile.ZipInfo(name), content, compress_type=method)
    return draw(damaged(buffer.getvalue()))


@st.composite
def grid_texts(draw: st.DrawFn) -> str:
    """A grid file: lines of percentages, comments, blank lines and mistakes."""
    lines = draw(
        st.lists(
            st.one_of(number_tokens, st.sampled_from(["# a comment", "8%  # the first", "", "12", "12%"])), max_size=6
        )
    )
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def json_values(draw: st.DrawFn, max_leaves: int = 8) -> object:
    """A small JSON value of any type (no NaN)."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 10**6),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(NUMBER_TOKENS),
        st.text(max_size=6),
    )
    return draw(
        st.recursive(
            leaves,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
            max_leaves=max_leaves,
        )
    )


#: Lines no JSON reader should choke on: huge integers, deep nesting, NaN, bad UTF-8, control characters.
NASTY_JSON = (
    "[" * 2000,
    "[" * 2000 + "]" * 2000,
    '{"a": ' * 1500 + "1" + "}" * 1500,
    "1" * 5000,
    '{"t": "score", "model": "a", "query": "q1", "score": ' + "1" * 5000 + "}",
    '{"t": "score", "model": "a", "query": "q1", "score": 1e999999}',
    '{"t": "score", "model": "a", "query": "q1", "score": "1e-99999999"}',
    '{"t": "score", "model": "a", "query": "q1", "score": "1/0"}',
    '{"t": "score", "model": "a", "query": "q1", "score": NaN}',
    '{"t": "batch", "index": 1, "pairs": [["a", "q1"]]}',
    '{"id": "x", "output": ' + "[" * 2000 + "]" * 2000 + "}",
    '"\\ud800"',
    "\x00",
)


@st.composite
def json_texts(draw: st.DrawFn, document: object) -> str:
    """The text of a JSON file meant to hold *document*: a mutation of it, random JSON, a nasty line, or noise."""
    import json

    kind = draw(st.sampled_from(["mutated", "mutated", "random", "nasty", "text", "truncated"]))
    if kind == "mutated":
        return json.dumps(draw(json_mutations(document))[1])
    if kind == "random":
        return json.dumps(draw(json_values()))
    if kind == "nasty":
        return draw(st.sampled_from(NASTY_JSON))
    if kind == "truncated":
        text = json.dumps(document)
        return text[: draw(st.integers(0, len(text)))]
    return draw(st.text(max_size=80))


@st.composite
def jsonl_texts(draw: st.DrawFn, records: list[object]) -> str:
    """A JSON-lines file meant to hold *records*: one line changed, dropped, duplicated or cut, or noise added."""
    import json

    lines = [json.dumps(record) for record in records]
    how = draw(st.sampled_from(["change", "change", "drop", "duplicate", "cut", "noise"]))
    at = draw(st.integers(0, max(len(lines) - 1, 0)))
    if how == "change" and lines:
        lines[at] = draw(json_texts(records[at]))
    elif how == "drop" and lines:
        del lines[at]
    elif how == "duplicate" and lines:
        lines.insert(at, lines[at])
    elif how == "cut":
        text = "\n".join(lines)
        return text[: draw(st.integers(0, len(text)))]
    else:
        lines.insert(at, draw(st.text(max_size=40)))
    return "\n".join(lines) + "\n"


@st.composite
def reply_lines(draw: st.DrawFn, case_id: str, expected: object) -> str:
    """A conformance reply line to the case *case_id*: right, mutated, of another shape, or not JSON at all."""
    import json

    good = {"id": case_id, "output": expected}
    kind = draw(st.sampled_from(["mutated", "mutated", "keys", "random", "nasty", "text"]))
    if kind == "mutated":
        return json.dumps(draw(json_mutations(good))[1])
    if kind == "keys":
        keys = draw(st.lists(st.sampled_from(["output", "unsupported", "error", "refused", "note"]), max_size=3))
        reply: dict[str, object] = {"id": draw(st.sampled_from([case_id, "other", 1]))}
        reply.update({key: draw(json_values(max_leaves=3)) for key in keys})
        return json.dumps(reply)
    if kind == "random":
        return json.dumps(draw(json_values()))
    if kind == "nasty":
        return draw(st.sampled_from(NASTY_JSON))
    return draw(st.text(max_size=80))


@st.composite
def argument_lists(draw: st.DrawFn, options: dict[str, tuple[str, ...] | None], max_size: int = 6) -> list[str]:
    """Command-line words: options of *options* with a value from their tuple (None: a flag; an empty tuple: any
    number token, huge ones too), in random order, some repeated or missing their value, now and then a stray
    word. A tuple bounds the work an option can ask for (--runs, --limit): list only values that stay small."""
    words: list[str] = []
    names = sorted(options)
    for _ in range(draw(st.integers(0, max_size))):
        choice = draw(st.integers(0, 11))
        if choice == 0:
            words.append(draw(st.sampled_from(["--", "-x", "--nope", "stray", "-", "--json=1", "--he"])))
            continue
        name = draw(st.sampled_from(names))
        values = options[name]
        words.append(name)
        if values is None or choice == 1:  # a flag, or an option missing its value
            continue
        words.append(draw(st.sampled_from(values) if values else number_tokens))
    return words


# -- hardened inputs (tests/cli/test_hostile_input.py) ------------------------------------------------


@st.composite
def huge_exponent_texts(draw: st.DrawFn) -> str:
    """A nonzero decimal literal whose exponent puts it far outside [1e-1000, 1e+1000]: "-3.25e-99999999" and so on.

    The mantissa has at most 7 digits before its point, so the leading digit's exponent is beyond +-1000 whatever
    it is; the exponent itself may be far beyond what Decimal holds (1e999999999999999999).
    """
    whole = draw(st.integers(1, 10**6))
    decimals = draw(st.one_of(st.just(""), st.integers(0, 10**4).map(lambda digits: f".{digits}")))
    exponent = draw(st.one_of(st.integers(1001, 10**20), st.integers(-(10**20), -1010)))
    sign, marker, space = (draw(st.sampled_from(choices)) for choices in (["", "-", "+"], ["e", "E"], ["", " "]))
    return f"{space}{sign}{whole}{decimals}{marker}{exponent}{space}"


@st.composite
def long_digit_texts(draw: st.DrawFn) -> str:
    """A decimal literal of more than 1000 digits (nonzero), within the exponent bounds: "0.1111...1", "2.000...0"."""
    count = draw(st.integers(1001, 5000))
    digit = draw(st.sampled_from("123456789"))
    return draw(st.sampled_from([f"{digit * count}e-{count}", "0." + digit * count, digit + "." + "0" * count]))


@st.composite
def ordinary_decimals(draw: st.DrawFn) -> tuple[str, Fraction]:
    """A decimal literal within the bounds of parse_decimal, and its exact value: "-12.5", "3e-7", "1e-1000"."""
    if draw(st.integers(0, 9)) == 0:  # at the bounds: a leading digit of exponent -1000 or +1000
        digit, exponent = draw(st.integers(1, 9)), draw(st.sampled_from([-1000, 1000]))
        return f"{digit}e{exponent}", digit * Fraction(10) ** exponent
    coefficient = draw(st.integers(-(10**40), 10**40))
    exponent = draw(st.integers(-60, 60))
    exact = coefficient * Fraction(10) ** exponent
    sign, digits = ("-" if coefficient < 0 else draw(st.sampled_from(["", "+"]))), str(abs(coefficient))
    if draw(st.booleans()):
        text = f"{sign}{digits}{draw(st.sampled_from(['e', 'E']))}{exponent}"
    elif exponent >= 0:
        text = sign + digits + "0" * exponent
    else:
        padded = digits.rjust(1 - exponent, "0")
        text = f"{sign}{padded[:exponent]}.{padded[exponent:]}"
    space = draw(st.sampled_from(["", " ", "\t"]))
    return f"{space}{text}{space}", exact


@st.composite
def forged_npy_files(draw: st.DrawFn) -> tuple[bytes, tuple[int, ...]]:
    """The bytes of an .npy file whose header declares more data than follows it, and the declared shape."""
    import io

    descr = draw(st.sampled_from(["<f8", "<f4", "<i8", "<i4", "|u1", "|b1"]))
    shape = tuple(draw(st.lists(st.integers(1, 10**12), min_size=1, max_size=3)))
    declared = math.prod(shape) * np.dtype(descr).itemsize
    header = {"descr": descr, "fortran_order": draw(st.booleans()), "shape": shape}
    buffer = io.BytesIO()
    if draw(st.booleans()):
        np.lib.format.write_array_header_1_0(buffer, header)
    else:
        np.lib.format.write_array_header_2_0(buffer, header)
    size = draw(st.integers(0, min(declared - 1, 2048)))
    return buffer.getvalue() + draw(st.binary(min_size=size, max_size=size)), shape


#: numpy's integer types: each stands for a Python int wherever the package takes one.
NUMPY_INTEGER_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@st.composite
def numpy_integers(draw: st.DrawFn, value: int) -> np.integer:
    """*value* as a numpy integer of a type that holds it."""
    fitting = [kind for kind in NUMPY_INTEGER_TYPES if np.iinfo(kind).min <= value <= np.iinfo(kind).max]
    kind = draw(st.sampled_from(fitting))
    return kind(value)


#: Seeds that are no seed: negative integers (numpy's too), floats, fractions, text, None, booleans.
bad_seeds = st.one_of(
    st.integers(max_value=-1),
    st.integers(-(2**62), -1).map(np.int64),
    st.floats(),
    st.fractions(),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.sampled_from([np.float64(1.0), np.True_, 1j, b"1", [1]]),
)


@st.composite
def score_spellings(draw: st.DrawFn) -> tuple[str, Fraction]:
    """A score written as text in one of the spellings parse_score_text accepts, and its exact value.

    A decimal in [0, 1] (``1``, ``0.250``, ``.5``, ``25e-2``, ``+0``), ``true``/``false`` in a random letter case,
    or one of inspect's letters C, P, I, N; with spaces around it or not. Never a comma, quote or newline.
    """
    kind = draw(st.sampled_from(["decimal", "word", "letter"]))
    if kind == "word":
        word, value = draw(st.sampled_from([("true", Fraction(1)), ("false", Fraction(0))]))
        text = "".join(c.upper() if draw(st.booleans()) else c for c in word)
    elif kind == "letter":
        text, value = draw(
            st.sampled_from([("C", Fraction(1)), ("P", Fraction(1, 2)), ("I", Fraction(0)), ("N", Fraction(0))])
        )
    else:
        places = draw(st.integers(0, 6))
        numerator = draw(st.integers(0, 10**places))
        value = Fraction(numerator, 10**places)
        digits = str(numerator).rjust(places + 1, "0")
        whole, fraction = digits[: len(digits) - places], digits[len(digits) - places :]
        style = draw(st.sampled_from(["plain", "exponent", "no-leading-zero", "signed", "padded"]))
        if style == "exponent":
            text = f"{numerator}e-{places}"
        elif style == "no-leading-zero" and whole == "0" and places:
            text = f".{fraction}"
        elif style == "signed":
            text = f"+{whole}.{fraction}" if places else f"+{whole}"
        elif style == "padded":
            text = f"{whole}.{fraction}000"
        else:
            text = f"{whole}.{fraction}" if places else whole
    space = draw(st.sampled_from(["", " ", "  "]))
    return f"{space}{text}{space}", value


#: Words and letters that are no score: other cases of the letters, other words, numbers out of range, nan.
non_score_spellings = st.sampled_from(
    ["c", "p", "i", "n", "yes", "no", "T", "F", "1.5", "-0.5", "2", "nan", "inf", "x"]
)


# -- stochastic instances ----------------------------------------------------------------------

#: Probabilities with small denominators (ties between means and point masses are common).
coarse_probabilities = st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(1)])


@st.composite
def stochastic_instances(
    draw: st.DrawFn,
    *,
    kinds: tuple[str, ...] = ("bernoulli", "finite", "samples", "deterministic"),
    min_models: int = 2,
    max_models: int = 4,
    min_queries: int = 1,
    max_queries: int = 6,
    max_slots: int = 3,
    floats: bool = False,
) -> StochasticInstance:
    """A small StochasticInstance of one of *kinds*: exact rational laws (or floats), with ties and point masses.

    Bernoulli p_ij from :data:`coarse_probabilities` (0 and 1 are point masses);
    finite laws on a support of 1 .. *max_slots* scores with probabilities in
    quarters and thirds; samples of 1 .. *max_slots* repeats from {0, 1/2, 1};
    deterministic: a coarse score matrix. ``floats=True`` gives Bernoulli
    probabilities as float64 (exact binary values, noise thresholds by numpy).
    """
    kind = draw(st.sampled_from(kinds))
    n_models = draw(st.integers(min_models, max_models))
    n_queries = draw(st.integers(min_queries, max_queries))
    if kind == "bernoulli":
        if floats:
            cells = st.floats(0.0, 1.0, allow_nan=False) | st.sampled_from([0.0, 0.25, 0.5, 1.0])
            p = np.array(draw(st.lists(cells, min_size=n_models * n_queries, max_size=n_models * n_queries)))
            return StochasticInstance.bernoulli(p.reshape(n_models, n_queries))
        rows = [[draw(coarse_probabilities) for _ in range(n_queries)] for _ in range(n_models)]
        return StochasticInstance.bernoulli(rows)
    if kind == "finite":
        n_slots = draw(st.integers(1, max_slots))
        support = draw(st.lists(coarse_scores, min_size=n_slots, max_size=n_slots, unique=True))
        table = [[_finite_cell(draw, n_slots) for _ in range(n_queries)] for _ in range(n_models)]
        return StochasticInstance.finite(support, table)
    if kind == "samples":
        n_repeats = draw(st.integers(1, max_slots))
        cube = [[[draw(half_scores) for _ in range(n_repeats)] for _ in range(n_queries)] for _ in range(n_models)]
        return StochasticInstance.samples(cube)
    matrix: list[list[ScoreLike]] = [[draw(half_scores) for _ in range(n_queries)] for _ in range(n_models)]
    return StochasticInstance.deterministic(matrix)


def _finite_cell(draw: st.DrawFn, n_slots: int) -> list[Fraction]:
    """Probabilities for *n_slots* outcomes summing to exactly 1 (often a point mass)."""
    denominator = draw(st.sampled_from([1, 2, 3, 4]))
    cuts = sorted(draw(st.lists(st.integers(0, denominator), min_size=n_slots - 1, max_size=n_slots - 1)))
    edges = [0, *cuts, denominator]
    return [Fraction(edges[v + 1] - edges[v], denominator) for v in range(n_slots)]


def stochastic_draws_for(n_models: int, n_queries: int, synchronized: bool) -> st.SearchStrategy[StochasticDraw]:
    """A Draw for K x L and the noise of every cell: integers in [0, 2^53), edges (0, 2^53 - 1, 2^52) included."""
    edges = st.sampled_from([0, 1, 2**51, 2**52, 3 * 2**51, 2**53 - 1])
    noise = st.lists(
        st.lists(edges | st.integers(0, 2**53 - 1), min_size=n_queries, max_size=n_queries),
        min_size=n_models,
        max_size=n_models,
    )
    return st.builds(
        lambda d, u: StochasticDraw(d, tuple(tuple(row) for row in u)),
        draws_for(n_models, n_queries, synchronized),
        noise,
    )


# -- the theory against exact stochastic errors (tests/reference/test_stochastic_theory.py) -------------------


def realisation_count(instance: StochasticInstance) -> int:
    """How many realised matrices a StochasticInstance has: the product of its cells' law sizes."""
    return math.prod(len(instance.law(i, j)) for i in range(instance.n_models) for j in range(instance.n_queries))


@st.composite
def stochastic_cases(
    draw: st.DrawFn,
    *,
    max_models: int = 3,
    max_queries: int = 4,
    max_slots: int = 2,
    max_realisations: int = 64,
    kinds: tuple[str, ...] = ("bernoulli", "finite", "samples", "deterministic"),
) -> tuple[StochasticInstance, int]:
    """A small StochasticInstance with a unique best model and few realisations, and a budget in [K, K*L]."""
    instance = draw(
        stochastic_instances(kinds=kinds, max_models=max_models, max_queries=max_queries, max_slots=max_slots)
    )
    assume(len(instance.best) == 1 and realisation_count(instance) <= max_realisations)
    n_models, n_queries = instance.shape
    return instance, draw(st.integers(n_models, n_models * n_queries))


@st.composite
def separated_bernoulli_cases(
    draw: st.DrawFn, *, max_models: int = 3, max_queries: int = 4, max_realisations: int = 64
) -> tuple[StochasticInstance, int]:
    """Bernoulli instances whose best model is far ahead (p in {1, 3/4} against {0, 1/4}): bounds below 1 occur.

    A random row holds the best model; the budget is in [K, K*L], drawn towards the top.
    """
    n_models = draw(st.integers(2, max_models))
    n_queries = draw(st.integers(1, max_queries))
    high, low = (
        st.sampled_from([Fraction(1), Fraction(1), Fraction(3, 4)]),
        st.sampled_from([Fraction(0), Fraction(0), Fraction(1, 4)]),
    )
    best = draw(st.integers(0, n_models - 1))
    rows = [[draw(high if model == best else low) for _ in range(n_queries)] for model in range(n_models)]
    instance = StochasticInstance.bernoulli(rows)
    assume(len(instance.best) == 1 and realisation_count(instance) <= max_realisations)
    full = n_models * n_queries
    budget = draw(st.integers(n_models, full) | st.integers(max(n_models, full - n_queries), full))
    return instance, budget


#: Gaps Delta in (0, 1/2) for Theorem lower-bound's hypotheses at s = Delta (a product law on {0, 1}^2).
lower_bound_gaps = fractions_in(Fraction(1, 16), Fraction(7, 16), 16)


#: Flip rates eps in [0, 1/2) for the noise study's symmetric flip: the dyadic levels of the study, and other rationals.
flip_rates = st.sampled_from([Fraction(0), Fraction(1, 16), Fraction(1, 8), Fraction(1, 4)]) | fractions_in(
    0, Fraction(5, 12), 12
)


@st.composite
def stochastic_files(
    draw: st.DrawFn, *, max_models: int = 4, max_queries: int = 5
) -> dict[str, npt.NDArray[np.float64]]:
    """The arrays of a stochastic score file, as the command line reads them (docs/cli.md, "Random scores").

    One of: ``{"samples": K x L x E}`` (scores in {0, 1/4, 1/2, 1}), ``{"support": V, "probabilities":
    K x L x V}`` (probabilities in quarters, summing to exactly 1), or ``{"bernoulli": K x L}`` (p_ij in
    quarters, for ``--stochastic bernoulli``); float64, every value exact.
    """
    n_models = draw(st.integers(2, max_models))
    n_queries = draw(st.integers(1, max_queries))
    kind = draw(st.sampled_from(["samples", "finite", "bernoulli"]))
    quarters = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    if kind == "bernoulli":
        cells = draw(st.lists(quarters, min_size=n_models * n_queries, max_size=n_models * n_queries))
        return {"bernoulli": np.array(cells).reshape(n_models, n_queries)}
    if kind == "samples":
        repeats = draw(st.integers(1, 3))
        size = n_models * n_queries * repeats
        cells = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=size, max_size=size))
        return {"samples": np.array(cells).reshape(n_models, n_queries, repeats)}
    n_slots = draw(st.integers(1, 3))
    support = draw(st.lists(quarters, min_size=n_slots, max_size=n_slots, unique=True))
    table = []
    for _ in range(n_models * n_queries):
        cuts = sorted(draw(st.lists(st.integers(0, 4), min_size=n_slots - 1, max_size=n_slots - 1)))
        edges = [0, *cuts, 4]
        table.append([(edges[v + 1] - edges[v]) / 4 for v in range(n_slots)])
    return {"support": np.array(support), "probabilities": np.array(table).reshape(n_models, n_queries, n_slots)}


# -- noisy draw batches for the fast paths on stochastic instances ---------------------------------------


@st.composite
def stochastic_fast_cases(
    draw: st.DrawFn, algorithms: tuple[str, ...], *, floats: bool = False, max_runs: int = 4
) -> tuple[StochasticInstance, str, tuple[int, ...], NoisyDrawBatch]:
    """A small stochastic instance, one of *algorithms*, a grid of budgets and R noisy draws for it.

    The draws mix edge noises (:func:`stochastic_draws_for`) and PCG64 streams
    (:func:`~sysrs_ref.fast._batch.random_noisy_draws`); budgets run from K to K L.
    """
    from sysrs_ref.algorithms.registry import get_algorithm
    from sysrs_ref.fast._batch import random_noisy_draws

    instance = draw(stochastic_instances(max_models=4, max_queries=6, floats=floats))
    name = draw(st.sampled_from(algorithms))
    n_models, n_queries = instance.shape
    synchronized = get_algorithm(name).synchronized
    grid = draw(st.lists(st.integers(n_models, n_models * n_queries), min_size=1, max_size=4))
    budgets = tuple(sorted(set(grid)))
    runs = draw(st.integers(1, max_runs))
    if draw(st.booleans()):
        batch = NoisyDrawBatch.from_draws(
            draw(st.lists(stochastic_draws_for(n_models, n_queries, synchronized), min_size=runs, max_size=runs))
        )
    else:
        batch = random_noisy_draws(draw(st.integers(0, 2**32)), runs, n_models, n_queries, synchronized=synchronized)
    return instance, name, budgets, batch


@st.composite
def stochastic_exact_cases(
    draw: st.DrawFn, algorithm: str, max_runs: int = 1500
) -> tuple[StochasticInstance, int, AlgorithmParamValues]:
    """A stochastic instance small enough to brute-force (every draw x every realisation), a budget, parameters.

    Shapes: K = 2 with L <= 4, K = 3 with L <= 3; the number of draws times
    the number of realisations (prod_ij |phi_ij|) stays <= *max_runs*: when a
    shape has many draws (unsynchronized K = 3, L = 3 or K = 2, L = 4), a
    Bernoulli instance with only a few random cells (the others 0 or 1).
    Budgets in [K, K L]; ``a`` for the UCB family, ``m`` in [1, K - 1] for SAR.
    """
    spec = ALGORITHMS[algorithm]
    n_models = draw(st.integers(2, 3))
    n_queries = draw(st.integers(1, 4 if n_models == 2 else 3))
    orders = math.factorial(n_queries) ** (1 if spec.synchronized else n_models)
    draws = orders * math.factorial(n_models)
    if draws * 4 <= max_runs:
        instance = draw(
            stochastic_instances(
                min_models=n_models, max_models=n_models, min_queries=n_queries, max_queries=n_queries, max_slots=2
            )
        )
        assume(
            draws * math.prod(len(instance.law(i, j)) for i in range(n_models) for j in range(n_queries)) <= max_runs
        )
    else:
        random_cells = max(0, (max_runs // draws).bit_length() - 1)  # 2^random_cells realisations
        noisy = set(draw(st.lists(st.integers(0, n_models * n_queries - 1), max_size=random_cells)))
        rows = [
            [
                draw(st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(2, 3)]))
                if i * n_queries + j in noisy
                else Fraction(draw(st.integers(0, 1)))
                for j in range(n_queries)
            ]
            for i in range(n_models)
        ]
        instance = StochasticInstance.bernoulli(rows)
    budget = draw(st.integers(n_models, n_models * n_queries))
    params: AlgorithmParamValues = {}
    if "a" in spec.defaults:
        params["a"] = draw(exploration_values)
    if "m" in spec.defaults:
        params["m"] = Fraction(draw(st.integers(1, n_models - 1)))
    return instance, budget, params


def successive_rejects_cases() -> st.SearchStrategy[tuple[StochasticInstance, int]]:
    """Stochastic (instance, budget) cases for the SR and SySRs bounds: any small laws, or a best model far ahead."""
    return st.one_of(
        stochastic_cases(max_models=4, max_queries=6, max_slots=3, max_realisations=4**6),
        separated_bernoulli_cases(max_models=4, max_queries=6, max_realisations=4**6),
    )


#: UCB exploration parameters a for the exact engines' tests: small, below 1, 1, above 1.
exploration_values = st.sampled_from([Fraction(1, 10), Fraction(1, 4), Fraction(1), Fraction(4)])


# -- the compiled passes (sysrs_ref.fast.compiled) ---------------------------------------------------


@st.composite
def nonincreasing_keys(draw: st.DrawFn) -> tuple[FloatArray, npt.NDArray[np.int64], FloatArray]:
    """(keys, pulls, memory): R x K x W rows of nonincreasing floats (ties common), budgets' pulls, first guesses.

    The guesses are NaN (nothing known), the keys themselves, or arbitrary floats, even outside the rows' range.
    """
    n_runs, n_models, width = draw(st.integers(1, 3)), draw(st.integers(2, 6)), draw(st.integers(1, 40))
    coarse = draw(st.booleans())
    values = st.integers(0, 6).map(float) if coarse else st.floats(-2.0, 3.0, allow_nan=False, width=32).map(float)
    raw = np.array(draw(st.lists(values, min_size=n_runs * n_models * width, max_size=n_runs * n_models * width)))
    keys = np.ascontiguousarray(-np.sort(-raw.reshape(n_runs, n_models, width), axis=2))
    pulls = np.array(
        draw(st.lists(st.integers(1, n_models * width), min_size=1, max_size=5, unique=True)), dtype=np.int64
    )
    guess = st.one_of(st.just(math.nan), st.sampled_from(raw.tolist()), st.floats(-10.0, 10.0, allow_nan=False))
    step = st.one_of(st.just(math.nan), st.floats(0.0, 5.0, allow_nan=False))
    memory = np.array(
        [
            draw(st.lists(guess, min_size=len(pulls), max_size=len(pulls))),
            draw(st.lists(step, min_size=len(pulls), max_size=len(pulls))),
        ],
        dtype=np.float64,
    )
    return keys, pulls, memory


@st.composite
def blocky_keys(draw: st.DrawFn) -> tuple[FloatArray, npt.NDArray[np.int64], npt.NDArray[np.int64], FloatArray]:
    """(keys, stops, pulls, memory): R x K x W nonincreasing rows made of blocks (runs of equal keys) 1 to 60 long,
    as UCB-E's keys with small a come, each row made only to its stop (1 to W; the rest is NaN, never read), 1 to 12
    budgets' pulls (at most the keys made), and first guesses (NaN, or keys of the rows).
    """
    n_runs, n_models, width = draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 150))
    keys = np.full((n_runs, n_models, width), np.nan)
    stops = np.empty((n_runs, n_models), dtype=np.int64)
    for run, model in np.ndindex(n_runs, n_models):
        stop = draw(st.one_of(st.just(width), st.integers(1, width)))
        lengths = draw(st.lists(st.integers(1, 60), min_size=1, max_size=stop))
        values = sorted(draw(st.lists(st.integers(0, 40), min_size=len(lengths), max_size=len(lengths))), reverse=True)
        row = np.repeat(np.array(values, dtype=np.float64) / 8.0, lengths)
        row = np.concatenate([row, np.full(max(stop - len(row), 0), row[-1])])[:stop]
        keys[run, model, :stop], stops[run, model] = row, stop
    made = int(stops.sum(axis=1).min())
    pulls = np.array(draw(st.lists(st.integers(1, made), min_size=1, max_size=12, unique=True)), dtype=np.int64)
    finite = keys[np.isfinite(keys)].tolist()
    guess = st.one_of(st.just(math.nan), st.sampled_from(finite))
    memory = np.array(
        [draw(st.lists(guess, min_size=len(pulls), max_size=len(pulls))), [math.nan] * len(pulls)], dtype=np.float64
    )
    return keys, stops, pulls, memory


#: An instance, synchronized or not, its draws, a, cuts' pulls below K (L - 1), and the first guess for the largest.
TruncationCase = tuple[Instance, bool, DrawBatch, Fraction, npt.NDArray[np.intp], FloatArray]


@st.composite
def truncation_cases(draw: st.DrawFn) -> TruncationCase:
    """For keys made only as far as the cuts reach (``ucb_keys_upto``): 2-9 queries, 1-4 draws, 1-4 cuts of
    0 < pulls < K (L - 1), and (theta, its typical change) for the largest: NaN, a plausible key (ties with the
    rows' keys are common on 0/1 scores), or arbitrary, even far outside the keys' range."""
    instance = draw(instances(max_models=5, min_queries=2, max_queries=9))
    synchronized = draw(st.booleans())
    n_models, n_queries = instance.shape
    runs = draw(st.lists(draws_for(n_models, n_queries, synchronized), min_size=1, max_size=4))
    a = draw(st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(9, 4), Fraction(100)]))
    total = n_models * (n_queries - 1)
    assume(total > 1)
    pulls = np.array(draw(st.lists(st.integers(1, total - 1), min_size=1, max_size=4)), dtype=np.intp)
    guess = st.one_of(
        st.just(math.nan),
        st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 1 + math.sqrt(0.5)]),
        st.floats(-1e6, 1e6, allow_nan=False),
    )
    step = st.one_of(st.just(math.nan), st.just(0.0), st.floats(1e-12, 10.0))
    memory = np.array([draw(guess), draw(step)], dtype=np.float64)
    return instance, synchronized, DrawBatch.from_draws(runs), a, pulls, memory


#: Seeds, a run range and a shape for the compiled permutations (sysrs_ref.fast._compiled.permutations).
permutation_cases = st.tuples(
    st.integers(0, 2**64 - 1), st.integers(0, 10**6), st.integers(1, 6), st.integers(2, 40), st.integers(1, 300)
)


# -- machine-independent arithmetic (sysrs_ref._fixed_order) --------------------------------------------------

#: Finite doubles where exp is a normal number (no overflow, no subnormal result).
exp_arguments = st.floats(min_value=-708.0, max_value=709.0, allow_nan=False)
#: One double for exp: any, NaN and infinities included, crowded near the ends of its range (subnormal results,
#: overflow), and about k ln 2 for every binary exponent k of the result, from below the subnormals to above the largest.
_exp_any_argument = st.one_of(
    st.floats(),
    st.floats(min_value=-746.0, max_value=-707.0),
    st.floats(min_value=708.0, max_value=710.0),
    st.tuples(st.integers(-1080, 1026), st.floats(-0.5, 0.5)).map(lambda kf: (kf[0] + kf[1]) * math.log(2.0)),
    exp_arguments,
)
#: Any doubles for exp (a short list of them).
exp_any_arguments = st.lists(_exp_any_argument, min_size=1, max_size=8)
#: Arguments for every fixed-order elementwise function at once: exp's, both sides of 0 and of -1 for log and log1p,
#: subnormals, in arrays long enough to cross the compiled loops' chunks of 256.
elementwise_arguments = st.lists(
    st.one_of(
        _exp_any_argument,
        st.floats(min_value=-1.5, max_value=1.5),
        st.floats(min_value=-1e-300, max_value=1e-300),
        st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, math.inf, -math.inf, math.nan]),
    ),
    min_size=1,
    max_size=600,
)
#: Positive normal doubles, for log.
log_arguments = st.floats(min_value=2.3e-308, max_value=1.7e308, allow_nan=False, allow_infinity=False)
#: Doubles above -1 (down to -1 + 2^-20), small ones included, for log1p.
log1p_arguments = st.one_of(
    st.floats(min_value=-1.0 + 2.0**-20, max_value=1e300, allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e-10, max_value=1e-10, allow_nan=False),
)


@st.composite
def small_matrices(draw: st.DrawFn, *, min_rows: int = 1, max_rows: int = 8, max_cols: int = 8) -> FloatArray:
    """A rows x cols matrix of moderate doubles (|x| <= 100), rows >= cols when min_rows asks for it."""
    cols = draw(st.integers(1, max_cols))
    rows = draw(st.integers(max(min_rows, 1), max(max_rows, min_rows)))
    entries = st.floats(min_value=-100.0, max_value=100.0, allow_nan=False, allow_subnormal=False)
    values = draw(st.lists(entries, min_size=rows * cols, max_size=rows * cols))
    return np.array(values, dtype=np.float64).reshape(rows, cols)


@st.composite
def tall_matrices(draw: st.DrawFn) -> FloatArray:
    """An n x q matrix with n >= q (QR and SVD inputs), possibly with repeated (collinear) columns."""
    matrix = draw(small_matrices(max_rows=10, max_cols=6))
    rows, cols = matrix.shape
    if rows < cols:
        matrix = np.vstack([matrix, np.zeros((cols - rows, cols))])
    if cols > 1 and draw(st.booleans()):
        matrix[:, -1] = matrix[:, 0]
    return matrix


@st.composite
def jacobi_matrices(draw: st.DrawFn) -> FloatArray:
    """An n x q matrix for the SVD's rotations: up to 40 rows (several of einsum's blocks of 8 rows and any tail),
    scales from 1e-3 to 1e3, and sometimes a zero column, a repeated column or 0/1 entries."""
    rows, cols = draw(st.integers(1, 40)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    matrix = rng.standard_normal((rows, cols)) * 10.0 ** draw(st.integers(-3, 3))
    if draw(st.booleans()):
        matrix = np.round(rng.random((rows, cols)))
    if cols > 1 and draw(st.booleans()):
        matrix[:, -1] = matrix[:, 0]
    if draw(st.booleans()):
        matrix[:, draw(st.integers(0, cols - 1))] = 0.0
    return matrix


@st.composite
def well_conditioned_systems(draw: st.DrawFn) -> tuple[FloatArray, FloatArray]:
    """A diagonally dominant n x n matrix (so it is far from singular) and a right-hand side n x r."""
    n = draw(st.integers(1, 6))
    off = draw(small_matrices(min_rows=n, max_rows=n, max_cols=n).filter(lambda m: m.shape == (n, n)))
    matrix = off + np.diag(np.abs(off).sum(axis=1) + 1.0)
    rhs = draw(small_matrices(min_rows=n, max_rows=n, max_cols=3).filter(lambda m: m.shape[0] == n))
    return matrix, rhs


@st.composite
def mean_tables(
    draw: st.DrawFn,
) -> tuple[FloatArray, npt.NDArray[np.intp], FloatArray, npt.NDArray[np.int32]]:
    """(prefix, counts, scale, priority): float prefix sums R x K x L (small integers: equal means common), final counts
    R x B x K in [1, L], positive scales (L,) and each run's arm priority, as the UCB-E rankings read them."""
    n_runs, n_models, length, n_budgets = (
        draw(st.integers(1, 3)),
        draw(st.integers(2, 6)),
        draw(st.integers(1, 8)),
        draw(st.integers(1, 4)),
    )
    size = n_runs * n_models * length
    prefix = np.array(draw(st.lists(st.integers(0, 6).map(float), min_size=size, max_size=size)))
    counts = draw(
        st.lists(st.integers(1, length), min_size=n_runs * n_budgets * n_models, max_size=n_runs * n_budgets * n_models)
    )
    scale = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 0.5]), min_size=length, max_size=length)))
    priority = [list(draw(permutations_of(n_models))) for _ in range(n_runs)]
    return (
        prefix.reshape(n_runs, n_models, length),
        np.array(counts, dtype=np.intp).reshape(n_runs, n_budgets, n_models),
        scale,
        np.array(priority, dtype=np.int32),
    )
