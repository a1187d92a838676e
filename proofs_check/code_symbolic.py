"""The phase algorithms' contracts, by symbolic execution of the real reference code (method ``symbolic``).

The scores are z3 real symbols x_ij in [0, 1], one per cell, handed to the
unmodified reference algorithms (``sysrs_ref/algorithms``: us, syus, sr,
sysrs, sar and sysar with m = 1 and m = 2) through
:func:`~sysrs_ref.algorithms.drive`, as :class:`~proofs_check.symbolic.Symbolic`
numbers whose comparisons branch. Every feasible path of the run *and* of
the contract check (:func:`proofs_check.code_contracts.contract_violation`,
run on the same symbolic scores) is explored once, so each contract below
holds for **every** score matrix in [0, 1]^(K x L) (real scores, ties
included: an equality is a branch like any other), for every budget
n in [K, K L] and each draw of the domain:

- spent <= n, and spent is the number of requests;
- every request is a (model, query) pair of the instance, asked once, each
  model's queries a prefix of its query order;
- synchronized algorithms (syus, sysrs, sysar) ask every active model the
  same queries in each phase;
- the ranking is a permutation of the models and the chosen model is its first;
- ties go by the draw's priority (us/syus: exact mean, then priority; sr/sysrs:
  the smallest sum leaves, among equal sums the latest in the priority, ranking
  in reverse elimination order; sar/sysar: the accepted model has the largest
  sum, ties to the earliest, the rejected one the smallest, ties to the latest).

**Draws.** The scores are symbolic, the draw is not. For code that reads
queries only through the draw's orders and compares models only through
their scores and priority ranks, relabelling the queries of model i by its
order and the models by the priority maps the run under any draw to the run
under the identity draw on relabelled scores; the symbolic scores cover all
relabellings, so the identity draw would cover every draw. The claim does not
take that equivariance on trust: each (K, L) also runs a second draw, the
priority reversed and the orders reversed (synchronized) or rotated by one
more place per model (unsynchronized), where model index and priority
disagree and position and query differ, so code that uses a model's index
instead of its priority, or a position instead of the query at it, breaks a
contract there.

UCB-E and SyUCB-E are not in this claim: their exact index comparisons are
polynomial (degree 4) in the scores, and nonlinear real arithmetic made even
K = 2, L = 3 take minutes; they stay bounded-exhaustive
(``code-algorithm-contracts``). A failure gives the path's witness: exact
rational scores, re-run concretely to confirm the broken contract.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from fractions import Fraction

from proofs_check.code_contracts import contract_violation
from proofs_check.registry import Claim, Method, Outcome, Status
from proofs_check.symbolic import Explorer, Symbolic, concrete, explore
from sysrs_ref.algorithms import drive, get_algorithm
from sysrs_ref.algorithms.params import AlgorithmParams, ParamValue
from sysrs_ref.algorithms.registry import AlgorithmSpec
from sysrs_ref.draws import Draw

__all__ = [
    "ALGORITHMS",
    "DEFAULT_BOUND",
    "ContractsBound",
    "Exploration",
    "Extras",
    "RunCheck",
    "Variant",
    "bound_for",
    "check_symbolic_contracts",
    "claims",
    "contract_check",
    "draws",
    "explore_contracts",
]

ALGORITHMS: tuple[tuple[str, int | None], ...] = (
    ("us", None),
    ("syus", None),
    ("sr", None),
    ("sysrs", None),
    ("sar", 1),
    ("sysar", 1),
    ("sar", 2),
    ("sysar", 2),
)
"""(algorithm, m for SAR/SySAR) of every variant explored (m = 2 needs K >= 3)."""


@dataclass(frozen=True)
class ContractsBound:
    """The symbolic domain: every K in [2, max_k] with L <= max_l, and K = 2 with L <= max_l_two."""

    max_k: int
    max_l: int
    max_l_two: int

    def shapes(self) -> list[tuple[int, int]]:
        """Every (K, L) of the domain."""
        shapes = [(2, n_queries) for n_queries in range(1, max(self.max_l, self.max_l_two) + 1)]
        shapes += [(k, n) for k in range(3, self.max_k + 1) for n in range(1, self.max_l + 1)]
        return shapes

    def describe(self) -> str:
        """The domain in words."""
        two = f"K = 2 with L <= {max(self.max_l, self.max_l_two)}"
        rest = f", K in [3, {self.max_k}] with L <= {self.max_l}" if self.max_k >= 3 else ""
        return two + rest

    def widened(self, contracts: tuple[int, int] | None) -> ContractsBound:
        """This domain (a default) where *contracts* is None, else every K' <= K, L' <= L, K = 2 keeping this L."""
        if contracts is None:
            return self
        max_k, max_l = contracts
        return ContractsBound(max_k=max_k, max_l=max_l, max_l_two=max(max_l, self.max_l_two))


DEFAULT_BOUND = ContractsBound(max_k=3, max_l=3, max_l_two=5)
"""The default run's domain (``--contracts K,L`` for more, e.g. 4,5)."""


def bound_for(contracts: tuple[int, int] | None) -> ContractsBound:
    """The domain of ``--contracts K,L`` (every K' <= K, L' <= L; K = 2 keeps at least L <= 5), or the default."""
    return DEFAULT_BOUND.widened(contracts)


def draws(n_models: int, n_queries: int, synchronized: bool) -> tuple[Draw, ...]:
    """The identity draw, and the one with the priority reversed and the orders reversed (or rotated)."""
    identity = tuple(range(n_queries))
    if synchronized:
        other: tuple[tuple[int, ...], ...] = (identity[::-1],)
    else:
        other = tuple(identity[(i + 1) % n_queries :] + identity[: (i + 1) % n_queries] for i in range(n_models))
    return (
        Draw((identity,) if synchronized else (identity,) * n_models, tuple(range(n_models))),
        Draw(other, tuple(reversed(range(n_models)))),
    )


def _shown(value: Fraction) -> str:
    return str(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class Variant:
    """One algorithm with its parameters, as the claims name it (``sar m=2``, ``ucbe a=1``)."""

    name: str
    label: str
    spec: AlgorithmSpec
    params: AlgorithmParams
    min_models: int = 2

    @staticmethod
    def of(name: str, **given: ParamValue) -> Variant:
        """*name* with *given* parameters (the others at their defaults); m = M needs K > M models."""
        spec = get_algorithm(name)
        label = name + "".join(f" {key}={value}" for key, value in given.items())
        params = spec.parse(dict(spec.defaults) | given)
        m = given.get("m")
        return Variant(name, label, spec, params, (m + 1) if isinstance(m, int) else 2)


def _variants(algorithms: Sequence[tuple[str, int | None]]) -> list[Variant]:
    return [Variant.of(name) if m is None else Variant.of(name, m=m) for name, m in algorithms]


Extras = Callable[[int, int], AbstractContextManager[list[Symbolic]]]
"""Per (K, L): a context for the runs that yields more symbols to explore (e.g. an abstraction's)."""

RunCheck = Callable[[Variant, Sequence[Sequence[Fraction]], Draw, int], str | None]
"""Runs the variant on the scores (symbolic or exact), the draw and the budget: what it breaks, in words, or None."""


def contract_check(variant: Variant, scores: Sequence[Sequence[Fraction]], draw: Draw, budget: int) -> str | None:
    """The run through :func:`~sysrs_ref.algorithms.drive`, checked against its contract (:func:`contract_violation`)."""
    try:
        run = drive(variant.spec.factory(budget, draw, variant.params), lambda model, query: scores[model][query])
    except Exception as err:  # the code under test failed on this path: a broken contract
        return f"the run raised {type(err).__name__}: {err}"
    return contract_violation(variant.name, run, scores, draw, budget)


@dataclass
class Exploration:
    """What :func:`explore_contracts` found: the first broken contract (or None), and the work done."""

    problem: str | None
    where: str | None
    """The counterexample: the variant, the witness scores re-run concretely, the draw and the budget."""
    paths: int
    runs: int
    seconds: float
    per_shape: dict[tuple[int, int], tuple[int, float]]
    """(K, L) -> (paths, seconds)."""

    def failure(self, domain: str) -> Outcome:
        """The FAILS outcome of a claim over *domain* for the broken contract found (:attr:`problem` is set)."""
        return Outcome(
            Status.FAILS,
            Method.SYMBOLIC,
            f"A path breaks its contract ({self.problem}). Counterexample: {self.where}.",
            counterexample=self.where,
            methods=(Method.SYMBOLIC,),
            domain=domain,
        )


def _counterexample(
    variant: Variant,
    scores: Sequence[Sequence[Symbolic]],
    explorer: Explorer,
    draw: Draw,
    budget: int,
    check: RunCheck = contract_check,
) -> str:
    """The path's witness scores, re-run concretely: the broken contract in words."""
    witness = explorer.model()
    matrix = [[concrete(witness, cell) for cell in row] for row in scores]
    try:
        problem = check(variant, matrix, draw, budget)
    except Exception as err:  # the concrete re-run fails as the symbolic one did
        problem = f"the run raised {type(err).__name__}: {err}"
    shown = [[_shown(value) for value in row] for row in matrix]
    confirmed = problem if problem is not None else "(the concrete re-run keeps the contract: a symbolic-only failure)"
    return f"{variant.label}, scores {shown}, draw {draw}, n={budget}: {confirmed}"


def explore_contracts(
    shapes: Sequence[tuple[int, int]],
    variants: Sequence[Variant],
    extras: Extras | None = None,
    check: RunCheck = contract_check,
) -> Exploration:
    """Every path of every run (each shape, variant, draw, budget) checked against its contract (or *check*).

    Stops at the first path that breaks one: its problem in words, and where (the variant, the path's witness
    scores re-run concretely, the draw and the budget).
    """
    started = time.perf_counter()
    paths = runs = 0
    per_shape: dict[tuple[int, int], tuple[int, float]] = {}
    for n_models, n_queries in shapes:
        shape_started, shape_paths = time.perf_counter(), paths
        scores = [[Symbolic.symbol(f"x_{i}_{j}", 0, 1) for j in range(n_queries)] for i in range(n_models)]
        with extras(n_models, n_queries) if extras is not None else nullcontext([]) as more:
            symbols = [cell for row in scores for cell in row] + more
            for variant in variants:
                if variant.min_models > n_models:
                    continue
                for draw in draws(n_models, n_queries, variant.spec.synchronized):
                    for budget in range(n_models, n_models * n_queries + 1):
                        runs += 1

                        def one(
                            draw: Draw = draw,
                            budget: int = budget,
                            variant: Variant = variant,
                            scores: list[list[Symbolic]] = scores,
                        ) -> str | None:
                            return check(variant, scores, draw, budget)

                        for explorer, problem in explore(symbols, one):
                            paths += 1
                            if problem is not None:
                                where = _counterexample(variant, scores, explorer, draw, budget, check)
                                elapsed = time.perf_counter() - started
                                return Exploration(problem, where, paths, runs, elapsed, per_shape)
        per_shape[(n_models, n_queries)] = (paths - shape_paths, time.perf_counter() - shape_started)
    return Exploration(None, None, paths, runs, time.perf_counter() - started, per_shape)


def check_symbolic_contracts(
    bound: ContractsBound = DEFAULT_BOUND, algorithms: Sequence[tuple[str, int | None]] = ALGORITHMS
) -> Outcome:
    """Every path of every run of the domain keeps its algorithm's contract."""
    methods = (Method.SYMBOLIC,)
    variants = _variants(algorithms)
    names = ", ".join(f"{name}{'' if m is None else f' (m = {m})'}" for name, m in algorithms)
    domain = (
        f"symbolic: every score matrix in [0, 1]^(K x L) (real scores, z3), {bound.describe()}, every budget n in "
        f"[K, K L], two draws per (K, L) (identity; priority and orders reversed or rotated) and the relabelling "
        f"argument for the others; algorithms {names}. UCB-E, SyUCB-E: code-ucb-contracts-symbolic"
    )
    found = explore_contracts(bound.shapes(), variants)
    if found.problem is not None:
        return found.failure(domain)
    return Outcome(
        Status.HOLDS,
        Method.SYMBOLIC,
        f"All {found.paths} feasible paths of {found.runs} symbolic runs ({found.seconds:.1f} s) keep their "
        "contracts: spent <= n, fresh pairs along each query order, synchronized phases alike, ranking a "
        "permutation led by the chosen model, ties by the draw's priority. Every path was explored (z3 decided "
        "each comparison's feasibility over the real scores in [0, 1]), so this holds for every score matrix of "
        "the domain; nothing is claimed outside it.",
        methods=methods,
        domain=domain,
    )


def claims(bound: ContractsBound = DEFAULT_BOUND) -> tuple[Claim, ...]:
    """The symbolic contract claim over *bound*."""
    return (
        Claim(
            "code-contracts-symbolic",
            "sysrs_ref/algorithms: us, syus, sr, sysrs, sar, sysar; docs/contracts.md",
            "for every real score matrix of the domain, every run spends at most n, asks each (model, query) pair "
            "at most once along its query order, asks synchronized phases alike, ranks a permutation led by the "
            "chosen model, and breaks ties by priority",
            Status.HOLDS,
            lambda: check_symbolic_contracts(bound),
            weight=14,
        ),
    )
