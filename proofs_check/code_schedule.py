"""The code's schedules and budgets (sysrs_ref/schedule.py), proved for every n and L by SMT.

Each claim has two halves, and fails if either does:

- **SMT** (unbounded n, L): for every K from 2 to ``max_k``, z3 answers
  unsat to the negation of the claim about the *model* below. For fixed K
  every quantity is linear in n, L and the levels (logbar(K) is an exact
  Fraction; q = ceil(a / b) is b q >= a and b (q - 1) < a), a decidable
  theory (linear integer/real arithmetic), so unsat is a proof for every
  n >= K and every L, not a search.
- **Model checked against the code**: the model, evaluated exactly, equals
  the real functions (:func:`~sysrs_ref.schedule.paper_schedule`,
  :func:`~sysrs_ref.schedule.capped_schedule`,
  :func:`~sysrs_ref.schedule.schedule`, the algorithms' spend, the budget
  parser) on every K <= 12, L <= 30 and n in [K, K L]. A floor for a
  ceiling or a search for U* that stops early in the code makes this half
  fail with the first input where code and model differ.

The model is written once (:func:`paper_levels`, :func:`capped_levels`,
:func:`spend`) over an arithmetic that is either exact (Fractions, for the
model check) or symbolic (z3 terms, for the proofs), so the formula z3
proves is the formula checked against the code.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypeVar

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.smt import Term, ceil_var, rational, refute
from sysrs_ref.errors import BudgetError
from sysrs_ref.schedule import (
    Budget,
    budget_from_percentage,
    capped_schedule,
    logbar,
    paper_schedule,
    schedule,
    schedule_spend,
)

__all__ = [
    "MODEL_K",
    "MODEL_L",
    "Concrete",
    "Symbolic",
    "capped_levels",
    "check_budget_percentage",
    "check_capped_schedule",
    "check_paper_schedule",
    "check_spend_formula",
    "claims",
    "model_capped",
    "model_schedule",
    "paper_levels",
    "spend",
]

MODEL_K = 12
"""The model check covers every K <= MODEL_K ..."""
MODEL_L = 30
"""... every L <= MODEL_L and every n in [K, K L]."""

N = TypeVar("N")


class Arithmetic(Protocol[N]):
    """What the model needs: exact ceilings of a quotient by a positive integer, minima, rationals."""

    def ceil_div(self, numerator: N, divisor: int) -> N: ...

    def minimum(self, a: N, b: N) -> N: ...

    def rational(self, value: Fraction) -> N: ...


class Concrete:
    """Exact evaluation: ints, and Fractions where a quotient is not whole."""

    def ceil_div(self, numerator: Fraction | int, divisor: int) -> Fraction | int:
        if isinstance(numerator, int):
            return -(-numerator // divisor)
        return math.ceil(numerator / divisor)

    def minimum(self, a: Fraction | int, b: Fraction | int) -> Fraction | int:
        return min(a, b)

    def rational(self, value: Fraction) -> Fraction | int:
        return value


class Symbolic:
    """z3 terms: every ceiling a fresh variable with its two linear constraints (real ones when *relax*)."""

    def __init__(self, solver: z3.Solver, *, relax: bool = False) -> None:
        self.solver = solver
        self.relax = relax
        self._count = 0

    def ceil_div(self, numerator: Term, divisor: int) -> Term:
        self._count += 1
        return ceil_var(self.solver, numerator, divisor, f"c{self._count}", real=self.relax)

    def minimum(self, a: Term, b: Term) -> Term:
        return z3.If(a <= b, a, b)

    def rational(self, value: Fraction) -> Term:
        return rational(value)


# ---------------------------------------------------------------------------------------------------------------
# The model: eq. (budget-schedule) and the capped rule, as docs/contracts.md section 6 states them.


def paper_levels(ar: Arithmetic[N], n_models: int, budget: N) -> list[N]:
    """n_k = ceil((n - K) / (logbar(K) (K + 1 - k))), k = 1..K-1 (eq. budget-schedule)."""
    scaled = (budget - ar.rational(Fraction(n_models))) * ar.rational(1 / logbar(n_models))  # type: ignore[operator]  # N is a TypeVar over ints, Fractions and z3 terms, which declare no arithmetic to mypy
    return [ar.ceil_div(scaled, n_models + 1 - k) for k in range(1, n_models)]


def start_level(ar: Arithmetic[N], n_models: int, budget: N) -> N:
    """U0 = ceil((n - K) / logbar(K)): the capped rule's lowest level."""
    scaled = (budget - ar.rational(Fraction(n_models))) * ar.rational(1 / logbar(n_models))  # type: ignore[operator]  # N is a TypeVar over ints, Fractions and z3 terms, which declare no arithmetic to mypy
    return ar.ceil_div(scaled, 1)


def capped_levels(ar: Arithmetic[N], n_models: int, n_queries: N, level: N) -> list[N]:
    """n_k(U) = min(L, ceil(U / (K + 1 - k))), k = 1..K-1: the capped rule at level U."""
    return [ar.minimum(n_queries, ar.ceil_div(level, n_models + 1 - k)) for k in range(1, n_models)]


def spend(levels: Sequence[N]) -> N:
    """sum_{k<K-1} n_k + 2 n_{K-1}: a model leaving after phase k was evaluated n_k times."""
    total = levels[-1]
    for level in levels:
        total = total + level  # type: ignore[operator]  # N is a TypeVar over ints, Fractions and z3 terms, which declare no arithmetic to mypy
    return total


def phase_spend(levels: Sequence[Term]) -> Term:
    """sum_k (K + 1 - k) (n_k - n_{k-1}), n_0 = 0: what SR and SAR evaluate, phase by phase (K + 1 - k active)."""
    count = len(levels) + 1
    total = levels[0] * count
    for k in range(2, count):
        total = total + (levels[k - 1] - levels[k - 2]) * (count + 1 - k)
    return total


_EXACT = Concrete()


def _ints(values: Sequence[Fraction | int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def model_paper(n_models: int, budget: int) -> tuple[int, ...]:
    """The model's paper schedule, exactly."""
    return _ints(paper_levels(_EXACT, n_models, budget))


def model_capped(n_models: int, n_queries: int, budget: int, level: int | None = None) -> tuple[tuple[int, ...], int]:
    """(schedule, U*): the capped rule, U* the largest U in [U0, K L] with spend <= n (a search from *level*).

    *level*, when given, is a U known to be <= U* (U* is non-decreasing in n:
    the model check sweeps n upwards and passes the last U*).
    """
    low = int(start_level(_EXACT, n_models, budget))
    level = low if level is None else max(level, low)
    top = n_models * n_queries

    def spent(u: int) -> int:
        return int(spend(capped_levels(_EXACT, n_models, n_queries, u)))

    if spent(level) > budget:
        raise AssertionError(f"no U*: spend at U={level} is {spent(level)} > n={budget}")
    while level < top and spent(level + 1) <= budget:
        level += 1
    return _ints(capped_levels(_EXACT, n_models, n_queries, level)), level


def model_schedule(n_models: int, n_queries: int, budget: int, capped: tuple[int, ...]) -> tuple[int, ...]:
    """The schedule SR uses: the paper's when its n_{K-1} <= L and n < K L, else the capped rule's (*capped*)."""
    paper = model_paper(n_models, budget)
    return paper if paper[-1] <= n_queries and budget < n_models * n_queries else capped


# ---------------------------------------------------------------------------------------------------------------
# The SMT proofs, one K (or one divisor d) at a time.


@functools.cache
def _paper_spend_counterexample(n_models: int, last_weight: int) -> str | None:
    """None when z3 proves spend(paper schedule) <= n for every n >= K (this K)."""
    for relax in (True, False):  # the LP relaxation suffices; an integer solver only to show a real counterexample
        solver = z3.SolverFor("QF_LRA" if relax else "QF_LIA")
        budget = z3.Real("n") if relax else z3.Int("n")
        solver.add(budget >= n_models)
        levels = paper_levels(Symbolic(solver, relax=relax), n_models, budget)
        solver.add(sum(levels[:-1]) + last_weight * levels[-1] > budget)
        found = refute(solver, ("n",))
        if found is None:
            return None
        if not relax:
            return found
    return None


def _paper_spend(n_models: int) -> str | None:
    """The statement's spend (weight 2 on n_{K-1}): the cache entry check_paper_schedule's proof made.

    *last_weight* has no default and goes by position, as check_paper_schedule passes it: functools.cache
    keys ``f(K)``, ``f(K, 2)`` and ``f(K, last_weight=2)`` apart, and would prove each K again.
    """
    return _paper_spend_counterexample(n_models, 2)


@functools.cache
def _divisor_lemma_counterexample(divisor: int) -> str | None:
    """The four facts about q = ceil(x / d) the composition uses, for this d; None when z3 proves all four.

    N(d): ceil(ceil(y) / d) = ceil(y / d) for real y >= 0 (so ceil(U0 / d) is the paper's level);
    M(d): ceil(y / d) <= ceil(y / (d - 1)) for real y >= 0 and d >= 3 (levels non-decreasing in k);
    S(d): ceil(U / d) <= ceil((U + 1) / d) for integer U (levels, so the spend, non-decreasing in U);
    C(d): ceil(U / d) >= L for integers L >= 1, U >= d L (at U = K L every level is L).
    """
    checks: list[tuple[str, Callable[[z3.Solver], None]]] = []

    def nested(solver: z3.Solver) -> None:
        y = z3.Real("y")
        solver.add(y >= 0)
        u0 = ceil_var(solver, y, 1, "U0")
        solver.add(ceil_var(solver, u0, divisor, "a") != ceil_var(solver, y, divisor, "b"))

    def monotone_k(solver: z3.Solver) -> None:
        y = z3.Real("y")
        solver.add(y >= 0)
        solver.add(ceil_var(solver, y, divisor, "a") > ceil_var(solver, y, divisor - 1, "b"))

    def monotone_u(solver: z3.Solver) -> None:
        u = z3.Int("U")
        solver.add(ceil_var(solver, u, divisor, "a") > ceil_var(solver, u + 1, divisor, "b"))

    def cover(solver: z3.Solver) -> None:
        u, limit = z3.Ints("U L")
        solver.add(limit >= 1, u >= divisor * limit)
        solver.add(ceil_var(solver, u, divisor, "a") < limit)

    checks = [("N", nested), ("S", monotone_u), ("C", cover)]
    if divisor >= 3:
        checks.append(("M", monotone_k))
    for name, build in checks:
        solver = z3.SolverFor("QF_LIRA")
        build(solver)
        found = refute(solver)
        if found is not None:
            return f"lemma {name}({divisor}): {found}"
    return None


@functools.cache
def _start_counterexample(n_models: int) -> str | None:
    """None when z3 proves U0 = ceil((n - K) / logbar(K)) <= n - K for every n >= K (so U0 < K L when n < K L)."""
    solver = z3.SolverFor("QF_LIRA")
    budget = z3.Int("n")
    solver.add(budget >= n_models)
    solver.add(start_level(Symbolic(solver), n_models, budget) > budget - n_models)
    return refute(solver, ("n",))


@dataclass(frozen=True)
class _Proof:
    largest_k: int
    seconds: float


def _prove(max_k: int, per_k: Callable[[int], str | None], per_d: bool = False) -> tuple[_Proof, str | None]:
    """Run *per_k* (or the divisor lemmas too) for K = 2..max_k; the first counterexample, prefixed with its K."""
    started = time.perf_counter()
    for n_models in range(2, max_k + 1):
        found = per_k(n_models)
        if found is None and per_d:
            found = _divisor_lemma_counterexample(n_models)
        if found is not None:
            return _Proof(n_models - 1, time.perf_counter() - started), f"K={n_models}: {found}"
    return _Proof(max_k, time.perf_counter() - started), None


def _fail(methods: tuple[Method, ...], domain: str, detail: str, counterexample: str) -> Outcome:
    return Outcome(
        Status.FAILS,
        methods[0],
        f"{detail} Counterexample: {counterexample}.",
        counterexample=counterexample,
        methods=methods,
        domain=domain,
    )


def _hold(methods: tuple[Method, ...], domain: str, detail: str) -> Outcome:
    return Outcome(Status.HOLDS, methods[0], detail, methods=methods, domain=domain)


_BOTH = (Method.SMT, Method.MODEL_CHECKED)


def _model_domain(max_k: int) -> str:
    return (
        f"smt: every K in [2, {max_k}], every integer n >= K and L >= 1 with n <= K L (unbounded); "
        f"model checked against the code on every K <= {MODEL_K}, L <= {MODEL_L}, n in [K, K L]"
    )


# ---------------------------------------------------------------------------------------------------------------
# The claims.


def check_paper_schedule(max_k: int, last_weight: int = 2) -> Outcome:
    """paper_schedule(K, n) is non-decreasing and spends at most n, for every n >= K.

    *last_weight* is the statement's weight of n_{K-1} in the spend (2; the
    tests feed a wrong one).
    """
    domain = _model_domain(max_k)
    for n_models in range(2, MODEL_K + 1):
        for budget in range(n_models, n_models * MODEL_L + 1):
            got = paper_schedule(n_models, budget)
            want = model_paper(n_models, budget)
            if got != want:
                return _fail(
                    _BOTH,
                    domain,
                    "The code's paper_schedule differs from eq. (budget-schedule).",
                    f"K={n_models}, n={budget}: paper_schedule gives {got}, the model {want}",
                )

    def per_k(n_models: int) -> str | None:
        return _paper_spend_counterexample(n_models, last_weight)

    proof, found = _prove(max_k, per_k, per_d=True)
    if found is not None:
        return _fail(_BOTH, domain, "z3 found a budget where the paper's schedule breaks the claim.", found)
    return _hold(
        _BOTH,
        domain,
        f"Proved for every K in [2, {proof.largest_k}] ({proof.seconds:.1f} s of z3): spend > n is unsat already "
        "over the reals (the LP relaxation: n_k < (n - K)/(logbar(K)(K+1-k)) + 1 sums to spend < n), so unsat over "
        "the integers; n_k <= n_{k+1} is lemma M(d) (ceil(y/d) <= ceil(y/(d-1)), y >= 0), unsat in linear "
        "integer/real arithmetic, a decidable theory, for each d <= K. The model equals paper_schedule on every "
        f"K <= {MODEL_K}, n <= {MODEL_L} K.",
    )


def check_capped_schedule(max_k: int) -> Outcome:
    """The capped rule: U* exists; its schedule is non-decreasing, <= L, spends <= n; n = K L gives all L.

    Also: schedule() is the paper's schedule or the capped one, as
    docs/contracts.md says, and never exceeds L.
    """
    domain = _model_domain(max_k)
    for n_models in range(2, MODEL_K + 1):
        for n_queries in range(1, MODEL_L + 1):
            level: int | None = None
            for budget in range(n_models, n_models * n_queries + 1):
                want, level = model_capped(n_models, n_queries, budget, level)
                got = capped_schedule(n_models, n_queries, budget)
                where = f"K={n_models}, L={n_queries}, n={budget}"
                if got != want:
                    return _fail(
                        _BOTH,
                        domain,
                        "The code's capped_schedule differs from the capped rule (U* the largest level within n).",
                        f"{where}: capped_schedule gives {got} (spend {sum(got) + got[-1]}), the model {want} "
                        f"(U*={level}, spend {sum(want) + want[-1]})",
                    )
                used = schedule(n_models, n_queries, budget)
                expected = model_schedule(n_models, n_queries, budget, want)
                if used != expected:
                    return _fail(
                        _BOTH,
                        domain,
                        "The code's schedule() picks another schedule than the contract's rule.",
                        f"{where}: schedule gives {used}, the rule {expected}",
                    )
    proof, found = _prove(max_k, _start_counterexample, per_d=True)
    if found is None:
        proof, found = _prove(max_k, _paper_spend)
    if found is not None:
        return _fail(_BOTH, domain, "z3 found a budget where the capped rule breaks the claim.", found)
    return _hold(
        _BOTH,
        domain,
        f"Proved for every K in [2, {proof.largest_k}] by z3 (each part unsat in linear integer/real arithmetic, "
        "decidable): U0 <= n - K < K L (so the search range is not empty); lemma N(d): ceil(U0/d) is the paper's "
        "n_k, so the capped levels at U0 are min(L, paper n_k) and spend at most the paper's spend <= n: U* "
        "exists; lemma S(d): each level, so the spend, is non-decreasing in U, so U* (the largest U in [U0, K L] "
        "with spend <= n) is where the bisection's invariant spend(low) <= n < spend(high) ends; lemma M(d): the "
        "levels are non-decreasing in k, min(L, .) keeps that and caps at L; lemma C(d): at U = K L every level "
        "is L, spend K L, so n = K L gives all L. The model (U* found by a linear search) equals capped_schedule "
        "and schedule() (paper's schedule when its n_{K-1} <= L and n < K L, else the capped one) on every "
        f"K <= {MODEL_K}, L <= {MODEL_L}, n in [K, K L].",
    )


def _requests_per_phase(algorithm: str, n_models: int, n_queries: int, budget: int) -> tuple[int, list[int]]:
    """(spent, requests per phase) of one run of *algorithm* on an all-zero instance with identity orders."""
    from sysrs_ref.algorithms import drive, get_algorithm
    from sysrs_ref.draws import Draw

    spec = get_algorithm(algorithm)
    orders = tuple(range(n_queries))
    draw = Draw((orders,) if spec.synchronized else (orders,) * n_models, tuple(range(n_models)))
    params = {"m": 2} if algorithm in ("sar", "sysar") and n_models > 2 else {}
    outcome = drive(spec.factory(budget, draw, spec.parse(dict(spec.defaults) | params)), [[0] * n_queries] * n_models)
    return outcome.spent, [len(step.requests) for step in outcome.trace]


def check_spend_formula(max_k: int, last_weight: int = 2) -> Outcome:
    """sum_{k<K-1} n_k + 2 n_{K-1} is what SR, SySRs, SAR and SySAR evaluate.

    SMT: the formula equals the phase-by-phase count sum_k (K+1-k)(n_k - n_{k-1})
    for all reals n_k (this K). Model check: a run of each of the four
    algorithms makes (K+1-k)(n_k - n_{k-1}) requests in phase k (n_k from
    :func:`~sysrs_ref.schedule.schedule`) and spends schedule_spend(schedule).
    """
    small_k, small_l = 5, 6
    domain = (
        f"smt: every K in [2, {max_k}], all n_1..n_(K-1); model checked against the code: sr, sysrs, sar and sysar "
        f"(m = 2 when K > 2) on every K <= {small_k}, L <= {small_l}, n in [K, K L]"
    )
    for n_models in range(2, small_k + 1):
        for n_queries in range(1, small_l + 1):
            for budget in range(n_models, n_models * n_queries + 1):
                levels = schedule(n_models, n_queries, budget)
                phases = [
                    (n_models + 1 - k) * (levels[k - 1] - (levels[k - 2] if k > 1 else 0)) for k in range(1, n_models)
                ]
                formula = sum(levels[:-1]) + last_weight * levels[-1]
                for algorithm in ("sr", "sysrs", "sar", "sysar"):
                    spent, per_phase = _requests_per_phase(algorithm, n_models, n_queries, budget)
                    if spent != formula or per_phase != phases or spent != schedule_spend(levels):
                        return _fail(
                            _BOTH,
                            domain,
                            "An algorithm's evaluations differ from the spend formula.",
                            f"{algorithm}, K={n_models}, L={n_queries}, n={budget}, schedule {levels}: spent {spent} "
                            f"in phases {per_phase}; formula {formula}, phases {phases}",
                        )

    def per_k(n_models: int) -> str | None:
        solver = z3.SolverFor("QF_LRA")
        levels = [z3.Real(f"n{k}") for k in range(1, n_models)]
        solver.add(sum(levels[:-1]) + last_weight * levels[-1] != phase_spend(levels))
        return refute(solver)

    proof, found = _prove(max_k, per_k)
    if found is not None:
        return _fail(_BOTH, domain, "The spend formula is not the phase-by-phase count.", found)
    return _hold(
        _BOTH,
        domain,
        f"Proved for every K in [2, {proof.largest_k}]: sum_{{k<K-1}} n_k + 2 n_(K-1) != sum_k (K+1-k)(n_k - n_(k-1)) "
        "is unsat in linear real arithmetic (decidable), so the identity holds for all schedules; and every run "
        "of sr, sysrs, sar, sysar on the small domain makes exactly (K+1-k)(n_k - n_(k-1)) requests in phase k.",
    )


def _percentages(n_models: int, n_queries: int) -> list[Fraction]:
    """The percentages where floor(p K L / 100) steps, and 1/10^4 below each, within (0, 100]."""
    full = n_models * n_queries
    out: set[Fraction] = set()
    for m in range(full + 1):
        point = Fraction(100 * m, full)
        for shift in (Fraction(-1, 10**4), Fraction(0)):
            if 0 < point + shift <= 100:
                out.add(point + shift)
    return sorted(out)


def check_budget_percentage(max_k: int, threshold: int = 100) -> Outcome:
    """A percentage p in (0, 100] gives n = floor(p K L / 100) in [K, K L] exactly when p L >= 100.

    docs/contracts.md section 5: n = floor(p K L / 100), refused outside
    [K, K L]. *threshold* is the statement's bound on p L (100; the tests
    feed a wrong one).
    """
    domain = (
        f"smt: every K in [2, {max_k}], every integer L >= 1 and rational p in (0, 100]; model checked against "
        f"the code (budget_from_percentage, Budget.parse of the decimal text when p has <= 4 decimals) on every "
        f"K <= {MODEL_K}, L <= {MODEL_L} and every p where floor(p K L / 100) steps, and 1/10^4 below"
    )
    for n_models in range(2, MODEL_K + 1):
        for n_queries in range(1, MODEL_L + 1):
            for p in _percentages(n_models, n_queries):
                want = math.floor(p * n_models * n_queries / 100)
                accepted = p * n_queries >= threshold
                try:
                    got: int | None = budget_from_percentage(p, n_models, n_queries)
                except BudgetError:
                    got = None
                if (got is not None) != accepted or (got is not None and got != want):
                    return _fail(
                        _BOTH,
                        domain,
                        "The budget parser disagrees with the contract.",
                        f"K={n_models}, L={n_queries}, p={p}%: the code gives {got}, the contract "
                        f"{want if accepted else 'a BudgetError'}",
                    )
                if accepted and n_models == MODEL_K and (p * 10**4).denominator == 1:
                    digits = str(int(p * 10**4)).rjust(5, "0")
                    text = f"{digits[:-4]}.{digits[-4:]}%"
                    parsed = Budget.parse(text, n_models, n_queries).n
                    if parsed != want:
                        return _fail(
                            _BOTH,
                            domain,
                            "Budget.parse disagrees with the contract.",
                            f"K={n_models}, L={n_queries}, {text!r}: Budget.parse gives {parsed}, the contract {want}",
                        )

    def per_k(n_models: int) -> str | None:
        solver = z3.SolverFor("QF_LIRA")
        pl, n_queries = z3.Real("pL"), z3.Int("L")  # pL = p L, linear for fixed K
        budget = z3.ToInt(n_models * pl / 100)
        solver.add(n_queries >= 1, pl > 0, pl <= 100 * n_queries)
        inside = z3.And(budget >= n_models, budget <= n_models * n_queries)
        solver.add(z3.Or(budget > n_models * n_queries, inside != (pl >= threshold)))
        return refute(solver, ("pL", "L"))

    proof, found = _prove(max_k, per_k)
    if found is not None:
        return _fail(_BOTH, domain, "z3 found a percentage where the contract's rule fails.", found)
    return _hold(
        _BOTH,
        domain,
        f"Proved for every K in [2, {proof.largest_k}]: with t = p L (so p <= 100 is t <= 100 L, linear), "
        "n = floor(K t / 100) > K L, or (K <= n <= K L) != (t >= 100), is unsat in linear integer/real arithmetic "
        "with floor (decidable). So a percentage is refused exactly when p < 100/L, never for exceeding K L; "
        "the code returns floor(p K L / 100) and refuses exactly there on the small domain.",
    )


def claims(max_k: int) -> tuple[Claim, ...]:
    """The schedule and budget claims, proved for K = 2..*max_k* (one group: they share the cached lemmas)."""
    return (
        Claim(
            "code-schedule-paper",
            "sysrs_ref/schedule.py: paper_schedule; eq. (budget-schedule)",
            "for every K and n >= K the paper's schedule is non-decreasing and spends at most n",
            Status.HOLDS,
            functools.partial(check_paper_schedule, max_k),
            weight=19 * max_k / 200,
            group="schedule",
        ),
        Claim(
            "code-schedule-capped",
            "sysrs_ref/schedule.py: capped_schedule, schedule; docs/contracts.md section 6",
            "U* exists; the capped schedule is non-decreasing, each n_k <= L, spends at most n, and n = K L gives "
            "all L; schedule() follows the contract's rule",
            Status.HOLDS,
            functools.partial(check_capped_schedule, max_k),
            weight=22 * max_k / 200,
            group="schedule",
        ),
        Claim(
            "code-spend-formula",
            "sysrs_ref/schedule.py: schedule_spend; algorithms sr, sysrs, sar, sysar",
            "sum_{k<K-1} n_k + 2 n_{K-1} is what SR, SySRs, SAR and SySAR evaluate",
            Status.HOLDS,
            functools.partial(check_spend_formula, max_k),
            weight=5 * max_k / 200,
            group="schedule",
        ),
        Claim(
            "code-budget-percentage",
            "sysrs_ref/schedule.py: budget_from_percentage; docs/contracts.md section 5",
            "a percentage p in (0, 100] lands in [K, K L] exactly when p L >= 100, and is then floor(p K L / 100)",
            Status.HOLDS,
            functools.partial(check_budget_percentage, max_k),
            weight=5 * max_k / 200,
            group="schedule",
        ),
    )
