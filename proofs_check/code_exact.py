"""The exact error-probability engines against brute force, on every instance of a stated domain (bounded-exhaustive).

The engines (``sysrs_ref/theory/exact*.py``) never run the algorithms on
every draw: they enumerate equivalence classes of draws with combinatorial
weights (binomials, multinomials, counts of sub-multisets, dynamic programs
over phases or steps). The check here is the definition itself: the law of
the returned model (``ranking[:m]`` for SAR's and SySAR's top-m law) is the
fraction of draws, over every arm priority and every query order (one shared
order, or one per model), on which the reference algorithm, run through
``drive``, returns it. A stochastic instance adds every realisation of its
cells, each with its probability (each (model, query) pair is asked at most
once, so a run on a realisation is a run on the instance).

To keep the default run short, the brute force runs once per orbit of the
score matrices under permutations of the rows and of the columns, and every
matrix of the orbit is compared with the law of its representative relabelled:
a uniform draw is invariant under relabelling the models and the queries, and
the algorithms read a model only through its scores and its priority and a
query only through the orders (the symbolic contracts' second draw checks
that). The engines themselves run on every matrix of the domain.

A law is compared as the engine returns it: its keys are the outcomes that can
happen, each with a positive probability, so an engine that lists an
impossible outcome (probability 0) disagrees with the brute force.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from math import prod

from proofs_check.claim import Claim, Method, Outcome, Status
from sysrs_ref import Instance
from sysrs_ref.algorithms import drive, get_algorithm
from sysrs_ref.draws import Draw
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory import bayes_error, outcome_distribution, topm_distribution

__all__ = [
    "ALGORITHMS",
    "CLAIMS",
    "DEFAULT_SHAPES",
    "STOCHASTIC",
    "brute_bayes_error",
    "brute_law",
    "check_bayes_error",
    "check_exact_engines",
    "claims",
    "shapes_for",
]

Matrix = tuple[tuple[Fraction, ...], ...]
Law = dict[tuple[int, ...], Fraction]

ALGORITHMS: tuple[tuple[str, dict[str, Fraction | int]], ...] = (
    ("us", {}),
    ("syus", {}),
    ("sr", {}),
    ("sysrs", {}),
    ("ucbe", {"a": Fraction(1)}),
    ("syucbe", {"a": Fraction(1)}),
    ("sar", {"m": 1}),
    ("sar", {"m": 2}),
    ("sysar", {"m": 1}),
    ("sysar", {"m": 2}),
)
"""(algorithm, parameters) of every checked engine; m = 2 only where K >= 3."""

WIDER: tuple[tuple[str, dict[str, Fraction | int]], ...] = (
    ("ucbe", {"a": Fraction(1, 8)}),
    ("syucbe", {"a": Fraction(1, 8)}),
)
"""Added by --exact K,L: UCB-E's and SyUCB-E's engines with another exploration parameter."""

HALF = Fraction(1, 2)
DEFAULT_SHAPES: tuple[tuple[int, int, tuple[Fraction, ...]], ...] = (
    (2, 1, (Fraction(0), HALF, Fraction(1))),
    (2, 2, (Fraction(0), HALF, Fraction(1))),
    (2, 3, (Fraction(0), Fraction(1))),
    (3, 1, (Fraction(0), HALF, Fraction(1))),
    (3, 2, (Fraction(0), Fraction(1))),
)
"""(K, L, score values) of the default domain: every K x L matrix with scores among the values.

L = 3 is the least where a row or a column repeats a value beside another (counts (2, 1)): the first case where
drawing a multiset of values (not of queries) with the wrong weights changes a law."""

STOCHASTIC: tuple[tuple[str, StochasticInstance], ...] = (
    (
        "bernoulli [[3/4, 1/2], [1/2, 1/4]]",
        StochasticInstance.bernoulli([[Fraction(3, 4), HALF], [HALF, Fraction(1, 4)]]),
    ),
    ("bernoulli [[1, 1/2], [1/2, 1/2]]", StochasticInstance.bernoulli([[1, HALF], [HALF, HALF]])),
    ("bernoulli [[1/2, 1], [0, 1/2]]", StochasticInstance.bernoulli([[HALF, 1], [0, HALF]])),
    (
        "bernoulli [[1/2, 1], [1/2, 0], [1, 1/3]]",
        StochasticInstance.bernoulli([[HALF, 1], [HALF, 0], [1, Fraction(1, 3)]]),
    ),
    (
        "finite on {0, 1/2, 1}: [[(1/2, 1/2, 0), (1/3, 1/3, 1/3)], [(0, 1/2, 1/2), (0, 0, 1)]]",
        StochasticInstance.finite(
            [0, HALF, 1],
            [
                [[HALF, HALF, 0], [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]],
                [[0, HALF, HALF], [0, 0, 1]],
            ],
        ),
    ),
)
"""The stochastic instances checked (each against every realisation of its cells)."""

BAYES_DOMAIN = "bayes_error: every n in [1, 6], Delta in {1/10, 1/4, 2/5}, s in {Delta, (Delta + 1/2)/2, 1/2}"


def shapes_for(bound: tuple[int, int] | None) -> tuple[tuple[int, int, tuple[Fraction, ...]], ...]:
    """The default shapes, or every K' <= K, L' <= L with binary scores (three-valued where K' L' <= 4) for --exact K,L."""
    if bound is None:
        return DEFAULT_SHAPES
    top_k, top_l = bound
    return tuple(
        (k, length, (Fraction(0), HALF, Fraction(1)) if k * length <= 4 else (Fraction(0), Fraction(1)))
        for k in range(2, top_k + 1)
        for length in range(1, top_l + 1)
    )


def _describe(shapes: Sequence[tuple[int, int, tuple[Fraction, ...]]], wider: bool) -> str:
    parts = [f"K = {k}, L = {length}, scores in {{{', '.join(map(str, values))}}}" for k, length, values in shapes]
    return (
        "every score matrix of "
        + "; ".join(parts)
        + ", every budget n in [K, K L], for us, syus, sr, sysrs, ucbe and syucbe (a = 1"
        + (" and 1/8" if wider else "")
        + "), sar and sysar "
        "(m = 1, and 2 when K >= 3; ranking[:m]'s law too); brute force once per orbit under row and column "
        "permutations, the engines on every matrix; plus the stochastic instances "
        + "; ".join(name for name, _ in STOCHASTIC)
        + " at every budget; "
        + BAYES_DOMAIN
    )


def _draws(n_models: int, n_queries: int, synchronized: bool) -> list[Draw]:
    orders = list(itertools.permutations(range(n_queries)))
    chosen: Iterator[tuple[tuple[int, ...], ...]] = (
        ((order,) for order in orders) if synchronized else itertools.product(orders, repeat=n_models)
    )
    every = list(chosen)
    return [
        Draw(query_orders, priority) for priority in itertools.permutations(range(n_models)) for query_orders in every
    ]


def brute_law(matrix: Matrix, name: str, params: dict[str, Fraction | int], budget: int, m: int) -> Law:
    """The law of ``ranking[:m]`` over every draw, by running the reference algorithm on each (the definition)."""
    spec = get_algorithm(name)
    typed = spec.parse_params(params)
    draws = _draws(len(matrix), len(matrix[0]), spec.synchronized)
    counts: dict[tuple[int, ...], int] = {}
    for draw in draws:
        ranking = drive(spec.factory(budget, draw, typed), lambda i, j: matrix[i][j]).ranking
        counts[ranking[:m]] = counts.get(ranking[:m], 0) + 1
    return {prefix: Fraction(count, len(draws)) for prefix, count in counts.items()}


class _Brute:
    """brute_law, run once per orbit of the matrices under row and column permutations (module docstring)."""

    def __init__(self) -> None:
        self._canonical: dict[Matrix, tuple[Matrix, tuple[int, ...]]] = {}
        self._laws: dict[tuple[Matrix, str, str, int, int], Law] = {}
        self.runs = 0

    def _orbit(self, matrix: Matrix) -> tuple[Matrix, tuple[int, ...]]:
        """The orbit's representative rep and rows, rep[i] a column permutation of matrix[rows[i]]."""
        found = self._canonical.get(matrix)
        if found is None:
            columns = list(itertools.permutations(range(len(matrix[0]))))
            found = min(
                (tuple(tuple(matrix[r][c] for c in order) for r in rows), rows)
                for rows in itertools.permutations(range(len(matrix)))
                for order in columns
            )
            self._canonical[matrix] = found
        return found

    def law(self, matrix: Matrix, name: str, params: dict[str, Fraction | int], budget: int, m: int) -> Law:
        """The law of ranking[:m] on *matrix*: its representative's, model i of rep read as model rows[i]."""
        rep, rows = self._orbit(matrix)
        key = (rep, name, repr(sorted(params.items())), budget, m)
        law = self._laws.get(key)
        if law is None:
            law = self._laws[key] = brute_law(rep, name, params, budget, m)
            self.runs += len(_draws(len(rep), len(rep[0]), get_algorithm(name).synchronized))
        return {tuple(rows[i] for i in prefix): p for prefix, p in law.items()}


def _compare(where: str, engine: Law, expected: Law) -> str | None:
    """The disagreement in words, or None: the engine's law as it is returned, each outcome listed with a positive
    probability (as ``outcome_distribution`` documents), so a listed zero is a disagreement too."""
    expected = {k: v for k, v in expected.items() if v}
    if engine == expected:
        return None
    shown = {"engine": _show(engine), "brute force": _show(expected)}
    return f"{where}: {shown}"


def _show(law: Law) -> dict[str, str]:
    return {",".join(map(str, k)): str(v) for k, v in sorted(law.items())}


def _exact_laws(
    instance: Instance | StochasticInstance, name: str, params: dict[str, Fraction | int], budget: int, m: int
) -> tuple[Law, Law | None]:
    """The engines' law of the returned model, and (SAR, SySAR) of ranking[:m]."""
    if "a" in params:
        law = outcome_distribution(instance, name, budget, a=params["a"])
    elif "m" in params:
        law = outcome_distribution(instance, name, budget, m=params["m"])
    else:
        law = outcome_distribution(instance, name, budget)
    chosen: Law = {(model,): p for model, p in law.items()}
    if name in ("sar", "sysar") and isinstance(instance, Instance):
        prefixes: Law = dict(topm_distribution(instance, name, budget, m))  # m is SAR's parameter too
        return chosen, prefixes
    return chosen, None


def _marginal(law: Law) -> Law:
    out: Law = {}
    for prefix, p in law.items():
        out[prefix[:1]] = out.get(prefix[:1], Fraction(0)) + p
    return out


def _cases(n_models: int, wider: bool) -> Iterator[tuple[str, dict[str, Fraction | int], int]]:
    for name, params in ALGORITHMS + (WIDER if wider else ()):
        m = int(params.get("m", 1))
        if m < n_models:
            yield name, params, m


def _deterministic(
    shapes: Sequence[tuple[int, int, tuple[Fraction, ...]]], brute: _Brute, wider: bool
) -> tuple[str | None, int]:
    """The first disagreement (or None) and the number of engine calls."""
    calls = 0
    for n_models, n_queries, values in shapes:
        for cells in itertools.product(values, repeat=n_models * n_queries):
            matrix = tuple(tuple(cells[i * n_queries : (i + 1) * n_queries]) for i in range(n_models))
            for budget in range(n_models, n_models * n_queries + 1):
                for name, params, m in _cases(n_models, wider):
                    expected = brute.law(matrix, name, params, budget, m)
                    calls += 1
                    where = f"{name} {params}, scores {[[str(x) for x in row] for row in matrix]}, n={budget}"
                    try:
                        chosen, prefixes = _exact_laws(Instance(matrix), name, params, budget, m)
                    except Exception as error:  # an engine's own consistency check (law summing to 1) is a failure too
                        return f"{where}: the engine raised {type(error).__name__}: {error}", calls
                    problem = _compare(f"{where}, law of the returned model", chosen, _marginal(expected))
                    if problem is None and prefixes is not None:
                        problem = _compare(f"{where}, law of ranking[:{m}]", prefixes, expected)
                    if problem is not None:
                        return problem, calls
    return None, calls


def _realisations(instance: StochasticInstance) -> Iterator[tuple[Matrix, Fraction]]:
    n_models, n_queries = instance.shape
    cells = [instance.law(i, j) for i in range(n_models) for j in range(n_queries)]
    for combo in itertools.product(*cells):
        p = prod((w for _, w in combo), start=Fraction(1))
        if p:
            values = [v for v, _ in combo]
            yield tuple(tuple(values[i * n_queries : (i + 1) * n_queries]) for i in range(n_models)), p


def _stochastic(brute: _Brute, wider: bool) -> tuple[str | None, int]:
    checked = 0
    for label, instance in STOCHASTIC:
        n_models, n_queries = instance.shape
        for budget in range(n_models, n_models * n_queries + 1):
            for name, params, m in _cases(n_models, wider):
                expected: Law = {}
                for matrix, p in _realisations(instance):
                    for prefix, q in brute.law(matrix, name, params, budget, 1).items():
                        expected[prefix] = expected.get(prefix, Fraction(0)) + p * q
                checked += 1
                where = f"{name} {params}, stochastic {label}, n={budget}"
                try:
                    chosen, _ = _exact_laws(instance, name, params, budget, m)
                except Exception as error:  # as above
                    return f"{where}: the engine raised {type(error).__name__}: {error}", checked
                problem = _compare(where, chosen, expected)
                if problem is not None:
                    return problem, checked
    return None, checked


def brute_bayes_error(n: int, delta: Fraction, s: Fraction) -> Fraction:
    """(1/2) sum over the 3^n sequences x of min(P^n(x), Q^n(x)), P and Q of Theorem lower-bound's proof."""
    p = {"10": (s + delta) / 2, "01": (s - delta) / 2, "00": 1 - s}
    q = {"10": p["01"], "01": p["10"], "00": p["00"]}
    total = Fraction(0)
    for sequence in itertools.product(("10", "01", "00"), repeat=n):
        total += min(
            prod((p[x] for x in sequence), start=Fraction(1)), prod((q[x] for x in sequence), start=Fraction(1))
        )
    return total / 2


def check_bayes_error(engine: Callable[[int, Fraction, Fraction], Fraction] = bayes_error) -> str | None:
    """The first point where *engine* differs from the 3^n-sequence brute force, or None."""
    for delta in (Fraction(1, 10), Fraction(1, 4), Fraction(2, 5)):
        for s in (delta, (delta + HALF) / 2, HALF):
            for n in range(1, 7):
                mine, theirs = brute_bayes_error(n, delta, s), engine(n, delta, s)
                if mine != theirs:
                    return f"bayes_error(n={n}, Delta={delta}, s={s}) = {theirs}, brute force {mine}"
    return None


def check_exact_engines(bound: tuple[int, int] | None = None) -> Outcome:
    """Every engine's law equals the brute-force law on every instance of the domain (module docstring)."""
    shapes = shapes_for(bound)
    domain = _describe(shapes, bound is not None)
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    started = time.perf_counter()
    brute = _Brute()
    wider = bound is not None
    problem, calls = _deterministic(shapes, brute, wider)
    stochastic = 0
    if problem is None:
        problem, stochastic = _stochastic(brute, wider)
    if problem is None:
        problem = check_bayes_error()
    if problem is not None:
        return Outcome(
            Status.FAILS,
            Method.BOUNDED_EXHAUSTIVE,
            f"An exact engine differs from brute-force enumeration. Counterexample: {problem}.",
            counterexample=problem,
            methods=methods,
            domain=domain,
        )
    return Outcome(
        Status.HOLDS,
        Method.BOUNDED_EXHAUSTIVE,
        f"outcome_distribution (and topm_distribution for sar, sysar) equals the law over every draw on "
        f"{calls} deterministic cases and {stochastic} stochastic cases ({brute.runs} brute-force runs), and "
        f"bayes_error equals the sum over every sequence ({time.perf_counter() - started:.1f} s). "
        "Bounded: nothing is claimed outside the domain (larger K, L: --exact K,L).",
        methods=methods,
        domain=domain,
    )


def claims(bound: tuple[int, int] | None = None) -> tuple[Claim, ...]:
    """The claim, on the default domain or on every K' <= K, L' <= L (``--exact K,L``)."""
    return (
        Claim(
            "code-exact-engines",
            "sysrs_ref/theory/exact*.py: outcome_distribution, topm_distribution, bayes_error",
            "each exact engine's law of the returned model (and SAR's, SySAR's law of ranking[:m]) is the law over "
            "every draw (and every realisation of stochastic cells) of the reference algorithm's run",
            Status.HOLDS,
            lambda: check_exact_engines(bound),
            weight=8,
        ),
    )


CLAIMS = claims()
