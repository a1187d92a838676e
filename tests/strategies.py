"""Hypothesis strategies shared by every test module (one place, reused everywhere)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance
from sysrs_ref.algorithms.lrf import LRFDraw, LRFParams
from sysrs_ref.subset.clustering import squared_distances

#: The algorithms whose draw is query orders (a Draw): all but UCB-E-LRF, whose properties have their own tests.
ALGORITHM_NAMES = tuple(name for name, spec in ALGORITHMS.items() if not spec.cells)
SYNCHRONIZED = tuple(name for name in ALGORITHM_NAMES if ALGORITHMS[name].synchronized)
UNSYNCHRONIZED = tuple(name for name in ALGORITHM_NAMES if not ALGORITHMS[name].synchronized)

binary_scores = st.sampled_from([0, 1])
#: Continuous scores with small denominators, so that exact ties between sums are common.
coarse_scores = st.fractions(min_value=0, max_value=1, max_denominator=4)
#: Scores in {0, 1/2, 1}: ties between sums, and between means, are very common.
half_scores = st.sampled_from([0, Fraction(1, 2), 1])
#: Arbitrary floats in [0, 1] (held exactly by the reference).
float_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)


@st.composite
def matrices(
    draw: st.DrawFn,
    *,
    min_models: int = 2,
    max_models: int = 5,
    min_queries: int = 1,
    max_queries: int = 6,
    kind: str | None = None,
) -> list[list[object]]:
    """A K x L score matrix: binary, coarse rationals or floats (or, on request, halves); sometimes with duplicate rows."""
    n_models = draw(st.integers(min_models, max_models))
    n_queries = draw(st.integers(min_queries, max_queries))
    chosen_kind = kind or draw(st.sampled_from(["binary", "coarse", "float"]))
    element = {
        "binary": binary_scores,
        "coarse": coarse_scores,
        "float": float_scores,
        "halves": half_scores,
    }[chosen_kind]
    rows: list[list[object]] = [
        draw(st.lists(element, min_size=n_queries, max_size=n_queries)) for _ in range(n_models)
    ]
    if draw(st.booleans()):  # duplicate a model: exact ties everywhere
        source, target = draw(st.integers(0, n_models - 1)), draw(st.integers(0, n_models - 1))
        rows[target] = list(rows[source])
    return rows


def instances(**kwargs: int | str | None) -> st.SearchStrategy[Instance]:
    """Validated instances built from :func:`matrices`."""
    return matrices(**kwargs).map(Instance)  # type: ignore[arg-type]


def draws_for(n_models: int, n_queries: int, synchronized: bool) -> st.SearchStrategy[Draw]:
    """A uniformly arbitrary draw for a K x L instance."""
    order = st.permutations(range(n_queries)).map(tuple)
    orders = st.lists(order, min_size=1, max_size=1) if synchronized else st.lists(
        order, min_size=n_models, max_size=n_models
    )
    return st.builds(
        lambda qs, prio: Draw(tuple(qs), tuple(prio)),
        orders,
        st.permutations(range(n_models)),
    )


exploration_values = st.one_of(
    st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(10), Fraction(1, 4), Fraction(4)]),
    st.fractions(min_value=Fraction(1, 50), max_value=100, max_denominator=50),
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
    *,
    algorithms: tuple[str, ...] = ALGORITHM_NAMES,
    full_budget: bool = False,
    **matrix_kwargs: int | str | None,
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
    rows = draw(
        matrices(min_models=n_models, max_models=n_models, max_queries=limit, kind="halves")
    )
    instance = Instance(rows)  # type: ignore[arg-type]
    budget = draw(st.integers(n_models, n_models * instance.n_queries))
    return instance, budget


@st.composite
def lrf_draws(draw: st.DrawFn, n_models: int, n_queries: int) -> LRFDraw:
    """An arbitrary UCB-E-LRF draw for a K x L instance: cell order, arm priority, 64-bit seed."""
    order = draw(st.permutations(range(n_models * n_queries)))
    priority = draw(st.permutations(range(n_models)))
    return LRFDraw(tuple(order), tuple(priority), draw(st.integers(0, 2**64 - 1)))


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
        matrix = np.array(draw(st.lists(st.lists(element, min_size=n, max_size=n), min_size=n, max_size=n)), dtype=float)
    np.fill_diagonal(matrix, 0.0)
    return matrix


@st.composite
def score_matrices(draw: st.DrawFn, max_models: int = 6, max_questions: int = 10) -> FloatArray:
    """K x L scores: binary, in {0, 1/2, 1} or arbitrary in [0, 1]; often with constant columns."""
    n_models = draw(st.integers(2, max_models))
    n_questions = draw(st.integers(1, max_questions))
    element = draw(
        st.sampled_from([st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0)])
    )
    rows = draw(st.lists(st.lists(element, min_size=n_questions, max_size=n_questions), min_size=n_models, max_size=n_models))
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
    return scores, rng.normal(size=(n_models, d)), rng.normal(size=(n_questions, d)), rng.normal(size=n_questions), hyper


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
        params.update(members=draw(st.integers(2, 3)), sweeps=draw(st.integers(1, 2)),
                      warmup=draw(st.sampled_from([0, 25, 50])), batch=draw(st.integers(1, 3)))
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
    element = draw(st.sampled_from([
        st.sampled_from([0.0, 1.0]),
        st.sampled_from([0.0, -0.0, 1.0]),
        st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True),
    ]))
    rows = draw(st.lists(st.lists(element, min_size=n_columns, max_size=n_columns), min_size=n_rows, max_size=n_rows))
    return np.array(rows, dtype=np.float64)
