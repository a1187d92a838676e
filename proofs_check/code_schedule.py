"""The code's schedules and budgets (sysrs_ref/schedule.py): the real functions, proved for every n and L.

The schedule's arithmetic is written once, on integers (``_level``,
``_exact_level``, ``_ceil_div``, ``_paper_levels``, ``_levels``,
``schedule_spend``), and :mod:`proofs_check.symint` runs those very
functions on z3 integers, path by path. Each claim rests on:

- **U0 for every K** (symbolic, modular): the real ``_level`` is run with
  K, n and its callees' results symbolic (``logbar(K)`` = p / q, and
  ``_logbar_bounds(K)`` = (low, high, 2^P) with only the bracket
  low <= 2^P logbar(K) <= high assumed); on both of its paths for K >= 2048
  (the bounds' ceilings agree: their value; they disagree: the exact
  fallback) and on its path for K < 2048 it returns ceil((n - K) / logbar(K))
  exactly: z3 answers unsat to the contrary, for every K >= 2 and n >= K.
  The bracket lemma is proved for every K by induction on the sum
  ``_logbar_bounds`` computes (low_2 = 2^P = 2^P logbar(2); adding
  floor(2^P / (K+1)) to low and 1 to the width keeps the bracket), and
  ``_level`` with the real bounds is run symbolically at every K <= ``max_k``
  and at K in :data:`LARGE_K` (both paths of the large-K branch), so a wrong
  bound shows as an exact n.
- **The levels** (symbolic, per K): the real ``_paper_levels(K, U)`` is
  ceil(U / (K + 1 - k)) for every integer U, at every K <= ``max_k`` and in
  :data:`LARGE_K`; the real ``_levels(K, L, U)`` is min(L, ceil(U / (K+1-k)))
  for every L and U at every K <= :data:`MODEL_K`.
- **Lemmas for every divisor d** (z3, d symbolic): N: ceil(ceil(y)/d) =
  ceil(y/d); M: ceil(U/d) <= ceil(U/(d-1)); S: ceil(U/d) <= ceil((U+1)/d);
  C: ceil(U/d) >= L when U >= d L.
- **The spend for every K** (induction): sum_{d=2}^{K} ceil(x/d) +
  ceil(x/2) < x logbar(K) + K, so the paper's schedule spends less than n.
- **Exhaustive**: the public wrappers (paper_schedule, capped_schedule's
  bisection, schedule(), the budget parsers) against the contract's rule on
  every K <= 12, L <= 30, n in [K, K L], and every budget text of a stated
  alphabet and length.
"""

from __future__ import annotations

import functools
import importlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType, SimpleNamespace
from typing import Protocol, TypeVar, cast
from unittest import mock

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.smt import Term, ceil_var, rational, refute
from proofs_check.symint import Path, Run, SymInt, explore, term
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
    "check_budget_text",
    "contract_budget",
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
# The contract's rule: eq. (budget-schedule) and the capped rule, as docs/contracts.md section 6 states them
# (what the exhaustive half compares the public functions with, and the per-K LP of a wrong spend weight).


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
# The proofs about the real functions (run on z3 integers) and the lemmas they rest on.

#: The large K at which ``_level`` and ``_paper_levels`` also run with the real bounds (the K >= 2048 branch).
LARGE_K = (2048, 2049, 4096)


def _schedule_module() -> ModuleType:
    """sysrs_ref.schedule, looked up at each run (the package's attribute ``schedule`` is the function)."""
    return importlib.import_module("sysrs_ref.schedule")


def _ceil_facts(quotient: Term, numerator: Term, divisor: Term) -> list[Term]:
    """q = ceil(a / d) for d > 0: d q >= a and d (q - 1) < a."""
    return [divisor * quotient >= numerator, divisor * (quotient - 1) < numerator]


def _not_ceil(value: Term, numerator: Term, divisor: Term) -> Term:
    """value != ceil(numerator / divisor), for a positive divisor (linear when the divisor is a number)."""
    return z3.Or(divisor * value < numerator, divisor * (value - 1) >= numerator)


def _shown(path: Path[object], names: Sequence[str]) -> str:
    """The counterexample of *path*'s solver (sat): the values of *names*."""
    assert path.run is not None
    model = path.run.solver.model()
    values = {str(decl): model[decl] for decl in model.decls()}
    return ", ".join(f"{name}={values[name]}" for name in names if name in values)


def _first_counterexample(
    paths: Sequence[Path[object]], negation: Callable[[object], Term], names: Sequence[str]
) -> str | None:
    """None when *negation* of each path's result is unsat on that path; else the first counterexample."""
    for path in paths:
        assert path.run is not None
        solver = path.run.solver
        solver.push()
        solver.add(negation(path.value))
        answer = solver.check()
        if answer == z3.sat:
            return _shown(path, names)
        solver.pop()
        if answer != z3.unsat:
            return f"z3 answered {answer} ({solver.reason_unknown()}): no proof"
    return None


@functools.cache
def _level_counterexample(n_models: int) -> str | None:
    """None when the real _level(K, n) is ceil((n - K) / logbar(K)) for every n >= K, at this K (real bounds)."""
    module = _schedule_module()
    exact = module.logbar(n_models)

    def call(run: Run) -> object:
        budget = run.integer("n")
        run.assume(budget.term >= n_models)
        return budget, module._level(n_models, budget)

    def negation(value: object) -> Term:
        budget, level = cast(tuple[SymInt, SymInt], value)
        return _not_ceil(term(level), (budget.term - n_models) * exact.denominator, z3.IntVal(exact.numerator))

    try:
        return _first_counterexample(list(explore(call)), negation, ("n",))
    except (TypeError, ArithmeticError) as err:
        return f"the real _level could not run on a symbolic n: {err}"


def _level_every_k_counterexample() -> str | None:
    """None when the real _level returns ceil((n - K) / logbar(K)) <= n - K on each path, for every K >= 2, n >= K.

    Its callees are given by their contracts: logbar(K) = p / q >= 1, and
    _logbar_bounds(K) = (low, high, S) with 0 < low <= S p / q <= high (the
    bracket lemma, :func:`_bracket_counterexample`).
    """
    module = _schedule_module()
    names = ("K", "n", "low", "high", "S", "p", "q")

    def call(run: Run) -> object:
        n_models, budget, low, high, scale, p, q = (run.integer(name) for name in names)
        run.assume(n_models.term >= 2, budget.term >= n_models.term, scale.term >= 1, low.term >= 1)
        run.assume(p.term >= q.term, q.term >= 1, low.term * q.term <= scale.term * p.term)
        run.assume(scale.term * p.term <= high.term * q.term)
        exact = SimpleNamespace(numerator=p, denominator=q)
        with (
            mock.patch.object(module, "_logbar_bounds", lambda k: (low, high, scale)),
            mock.patch.object(module, "logbar", lambda k: exact),
        ):
            return budget - n_models, p, q, module._level(n_models, budget)

    def negation(value: object) -> Term:
        spare, p, q, level = cast(tuple[SymInt, SymInt, SymInt, SymInt], value)
        return z3.Or(_not_ceil(term(level), spare.term * q.term, p.term), term(level) > spare.term)

    try:
        return _first_counterexample(list(explore(call)), negation, names)
    except (TypeError, ArithmeticError) as err:
        return f"the real _level could not run on symbolic inputs: {err}"


def _bracket_counterexample() -> str | None:
    """None when z3 proves the bracket lemma for every K >= 2 by induction on the sum _logbar_bounds computes.

    low_K = sum_{i=2}^{K} floor(S/i) + floor(S/2), high_K = low_K + K - 1, S = 2^P even: low_K <= S logbar(K)
    <= high_K. Base K = 2: low = S = S logbar(2). Step K -> K + 1: low grows by f = floor(S / (K+1)), S logbar
    by r = S / (K+1), f <= r < f + 1, the width by 1. Each part unsat in z3 (S, K symbolic).
    """
    scale, n_models, low, width, floor_part = z3.Ints("S K low width f")
    product, share = z3.Reals("Slogbar r")  # S logbar(K), S / (K + 1)
    base = z3.Solver()
    base.add(scale >= 2, scale % 2 == 0)
    base.add(z3.Not(z3.And(scale / 2 + scale / 2 <= scale, scale <= scale / 2 + scale / 2 + 1)))
    step = z3.Solver()
    step.add(scale >= 2, n_models >= 2, width == n_models - 1, low <= product, product <= low + width)
    step.add(share * (n_models + 1) == scale, *_ceil_facts(floor_part + 1, scale + 1, n_models + 1))
    step.add(z3.Not(z3.And(low + floor_part <= product + share, product + share <= low + floor_part + width + 1)))
    for name, solver in (("base", base), ("step", step)):
        found = refute(solver)
        if found is not None:
            return f"bracket lemma, {name}: {found}"
    return None


def _real_bounds_counterexample(n_models: int) -> str | None:
    """None when the real _logbar_bounds(K) brackets the exact 2^P logbar(K) (checked exactly at this K)."""
    low, high, scale = _schedule_module()._logbar_bounds(n_models)
    exact = _schedule_module().logbar(n_models)
    if low * exact.denominator <= scale * exact.numerator <= high * exact.denominator and high - low <= n_models:
        return None
    return f"_logbar_bounds({n_models}) = ({low}, {high}, 2^{scale.bit_length() - 1}) does not bracket logbar(K)"


@functools.cache
def _paper_levels_counterexample(n_models: int) -> str | None:
    """None when the real _paper_levels(K, U) is (ceil(U / (K + 1 - k)))_k for every integer U, at this K."""
    module = _schedule_module()

    def call(run: Run) -> object:
        level = run.integer("U")
        return level, module._paper_levels(n_models, level)

    def negation(value: object) -> Term:
        level, levels = cast(tuple[SymInt, Sequence[SymInt]], value)
        if len(levels) != n_models - 1:
            return z3.BoolVal(True)
        return z3.Or(
            [_not_ceil(term(got), level.term, z3.IntVal(n_models + 1 - k)) for k, got in enumerate(levels, start=1)]
        )

    try:
        return _first_counterexample(list(explore(call)), negation, ("U",))
    except (TypeError, ArithmeticError) as err:
        return f"the real _paper_levels could not run on a symbolic U: {err}"


@functools.cache
def _capped_levels_counterexample(n_models: int) -> str | None:
    """None when the real _levels(K, L, U) is (min(L, ceil(U / (K + 1 - k))))_k for every L >= 1 and U, at this K."""
    module = _schedule_module()

    def call(run: Run) -> object:
        n_queries, level = run.integer("L"), run.integer("U")
        run.assume(n_queries.term >= 1)
        return n_queries, level, module._levels(n_models, n_queries, level)

    def negation(value: object) -> Term:
        n_queries, level, levels = cast(tuple[SymInt, SymInt, Sequence[SymInt | int]], value)
        if len(levels) != n_models - 1:
            return z3.BoolVal(True)
        wrong = []
        for k, got in enumerate(levels, start=1):
            ceiling = z3.Int(f"c{k}")
            wrong.append(
                z3.And(
                    *_ceil_facts(ceiling, level.term, z3.IntVal(n_models + 1 - k)),
                    term(got) != z3.If(n_queries.term <= ceiling, n_queries.term, ceiling),
                )
            )
        return z3.Or(wrong)

    try:
        return _first_counterexample(list(explore(call)), negation, ("L", "U"))
    except (TypeError, ArithmeticError) as err:
        return f"the real _levels could not run on symbolic L, U: {err}"


@functools.cache
def _divisor_lemmas_counterexample() -> str | None:
    """The four facts about q = ceil(x / d) the composition uses, for every integer d >= 1; None when z3 proves all.

    N: ceil(ceil(y) / d) = ceil(y / d) for real y >= 0 (so ceil(U0 / d) is the paper's level);
    M: ceil(U / d) <= ceil(U / (d - 1)) for integers U >= 0 and d >= 3 (levels non-decreasing in k);
    S: ceil(U / d) <= ceil((U + 1) / d) for integer U (levels, so the spend, non-decreasing in U);
    C: ceil(U / d) >= L for integers L >= 1, U >= d L (at U = K L every level is L).
    The divisor is symbolic: each part is one query in nonlinear integer/real arithmetic, answered unsat.
    """
    divisor, level, limit, a, b, u0 = z3.Ints("d U L a b U0")
    y = z3.Real("y")
    parts = {
        "N": [y >= 0, *_ceil_facts(u0, y, 1), *_ceil_facts(a, u0, divisor), *_ceil_facts(b, y, divisor), a != b],
        "M": [level >= 0, divisor >= 3, *_ceil_facts(a, level, divisor), *_ceil_facts(b, level, divisor - 1), a > b],
        "S": [*_ceil_facts(a, level, divisor), *_ceil_facts(b, level + 1, divisor), a > b],
        "C": [limit >= 1, level >= divisor * limit, *_ceil_facts(a, level, divisor), a < limit],
    }
    for name, facts in parts.items():
        solver = z3.Solver()
        solver.add(divisor >= 1, *facts)
        found = refute(solver, ("d", "U", "L", "y"))
        if found is not None:
            return f"lemma {name}: {found}"
    return None


@functools.cache
def _spend_counterexample(last_weight: int) -> str | None:
    """None when z3 proves sum_{d=2}^{K} ceil(x/d) + (w - 1) ceil(x/2) < x logbar(K) + K for every K >= 2, x >= 0.

    w is the weight of n_(K-1) (2). By induction on K: P(j): S_j <= X_j + j - 1 with S_j = sum_{d=2}^{j} ceil(x/d),
    X_j = x sum_{d=2}^{j} 1/d; P(1) holds (0 <= 0); P(j) gives P(j + 1) since c = ceil(r) < r + 1, r = x/(j+1).
    Then the spend S_K + (w - 1) ceil(x/2) against x logbar(K) + K = X_K + x/2 + K.
    """
    x, partial, weighted, share = z3.Reals("x X Xnext r")
    count, total, ceiling, j = z3.Ints("S Snext c j")
    step = z3.Solver()
    step.add(j >= 1, x >= 0, count <= partial + j - 1, share * (j + 1) == x, *_ceil_facts(ceiling, share, 1))
    step.add(total == count + ceiling, weighted == partial + share, z3.Not(total <= weighted + j))
    final = z3.Solver()
    half = z3.Int("c2")
    final.add(x >= 0, count <= partial + z3.Int("K") - 1, z3.Int("K") >= 2, *_ceil_facts(half, x / 2, 1))
    final.add(count + (last_weight - 1) * half >= partial + x / 2 + z3.Int("K"))
    for name, solver in (("induction step", step), ("spend", final)):
        found = refute(solver, ("K", "j", "x"))
        if found is not None:
            return f"{name}: {found}"
    return None


def _paper_spend_counterexample(n_models: int, last_weight: int) -> str | None:
    """None when the formula's spend (weight *last_weight* on n_(K-1)) is at most n for every n >= K, at this K.

    The LP relaxation of eq. (budget-schedule) (the levels ceil((n - K) / (logbar(K) d)), lemma N), one K at a
    time: the per-K proof a wrong weight fails with an exact n (the induction, :func:`_spend_counterexample`,
    covers every K).
    """
    for relax in (True, False):
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


@dataclass(frozen=True)
class _Proof:
    largest_k: int
    seconds: float


def _prove(ks: Sequence[int], per_k: Callable[[int], str | None]) -> tuple[_Proof, str | None]:
    """Run *per_k* for each K of *ks*; the first counterexample, prefixed with its K."""
    started = time.perf_counter()
    for n_models in ks:
        found = per_k(n_models)
        if found is not None:
            return _Proof(n_models - 1, time.perf_counter() - started), f"K={n_models}: {found}"
    return _Proof(max(ks), time.perf_counter() - started), None


def _every_k_problem() -> str | None:
    """The proofs for every K: the bracket lemma, _level (modular), the divisor lemmas, the spend."""
    for name, found in (
        ("bracket", _bracket_counterexample()),
        ("_level for every K", _level_every_k_counterexample()),
        ("divisor lemmas", _divisor_lemmas_counterexample()),
        ("spend for every K", _spend_counterexample(2)),
    ):
        if found is not None:
            return f"{name}: {found}"
    return None


def _per_k_problem(max_k: int, large_k: Sequence[int] = LARGE_K) -> str | None:
    """The real _level (real bounds, every path) at every K <= max_k and in LARGE_K; _paper_levels there too.

    _paper_levels runs at the K of *large_k* beyond max_k (a K of 4096 takes seconds: the tests pick fewer).
    """
    _, found = _prove([*LARGE_K, *range(2, max_k + 1)], _level_counterexample)  # the large-K branch first
    for n_models in LARGE_K:
        found = found or _real_bounds_counterexample(n_models)
    if found is None:
        _, found = _prove([*range(2, max_k + 1), *(k for k in large_k if k > max_k)], _paper_levels_counterexample)
    return found


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


_BOTH = (Method.SYMBOLIC, Method.SMT, Method.BOUNDED_EXHAUSTIVE)
_SMT_EXHAUSTIVE = (Method.SMT, Method.BOUNDED_EXHAUSTIVE)


def _model_domain(max_k: int) -> str:
    large = ", ".join(map(str, LARGE_K))
    return (
        f"every K >= 2: _level (U0) and the spend, every integer n >= K (unbounded); the real levels for every n "
        f"and L at every K in [2, {max_k}] and K in {{{large}}} (_levels: K <= {min(MODEL_K, max_k)}); the public wrappers "
        f"exhaustively on every K <= {MODEL_K}, L <= {MODEL_L}, n in [K, K L]"
    )


# ---------------------------------------------------------------------------------------------------------------
# The claims.


def check_paper_schedule(max_k: int, last_weight: int = 2, large_k: Sequence[int] = LARGE_K) -> Outcome:
    """paper_schedule(K, n) is non-decreasing and spends at most n, for every n >= K.

    *last_weight* is the statement's weight of n_{K-1} in the spend (2; the
    tests feed a wrong one); *large_k*: the K >= 2048 where _paper_levels runs.
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
    started = time.perf_counter()
    found = _per_k_problem(max_k, large_k) or _every_k_problem()
    if found is None and last_weight != 2:  # another statement: an exact n at the first K, then every K
        _, found = _prove(range(2, max_k + 1), lambda k: _paper_spend_counterexample(k, last_weight))
        found = found or _spend_counterexample(last_weight)
    if found is not None:
        return _fail(_BOTH, domain, "z3 found an input where the real schedule code breaks the claim.", found)
    seconds = time.perf_counter() - started
    return _hold(
        _BOTH,
        domain,
        f"Proved ({seconds:.1f} s of z3). The real _level, run on symbolic K, n and its callees' contracts, returns "
        "U0 = ceil((n - K)/logbar(K)) on each of its paths (K < 2048; K >= 2048 with the bounds' ceilings agreeing, "
        "and disagreeing: the exact fallback), for every K >= 2 and n >= K; the bracket lemma it relies on is proved "
        f"for every K by induction. With the real bounds, _level is U0 at every K <= {max_k} and K in {LARGE_K}; the "
        "real _paper_levels(K, U) is ceil(U/(K+1-k)) for every U there. Lemma N: that is ceil((n-K)/(logbar(K)"
        "(K+1-k))); lemma M (every d): non-decreasing in k; the induction: spend < x logbar(K) + K = n for every K. "
        f"paper_schedule (its checks, then _paper_levels(K, _level(K, n))) equals the formula on every K <= {MODEL_K}, "
        f"n <= {MODEL_L} K.",
    )


def check_capped_schedule(max_k: int, large_k: Sequence[int] = LARGE_K) -> Outcome:
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
    started = time.perf_counter()
    found = _per_k_problem(max_k, large_k) or _every_k_problem()
    if found is None:
        _, found = _prove(range(2, min(MODEL_K, max_k) + 1), _capped_levels_counterexample)
    if found is not None:
        return _fail(_BOTH, domain, "z3 found an input where the real capped rule's code breaks the claim.", found)
    seconds = time.perf_counter() - started
    return _hold(
        _BOTH,
        domain,
        f"Proved ({seconds:.1f} s of z3): the real _level is U0 <= n - K < K L for every K (so the search range is "
        "not empty); the real _levels(K, L, U) is min(L, ceil(U/(K+1-k))) for every L, U at every K <= "
        f"{min(MODEL_K, max_k)}; lemma N (every d): ceil(U0/d) is the paper's n_k, so the capped levels at U0 are min(L, paper "
        "n_k) and spend at most the paper's spend < n: U* exists; lemma S: each level, so the spend, is "
        "non-decreasing in U, so U* (the largest U in [U0, K L] with spend <= n) is where the bisection's invariant "
        "spend(low) <= n < spend(high) ends; lemma M: the levels are non-decreasing in k, min(L, .) keeps that and "
        "caps at L; lemma C: at U = K L every level is L, spend K L, so n = K L gives all L. capped_schedule's "
        "bisection and schedule()'s choice (paper's schedule when its n_{K-1} <= L and n < K L, else the capped "
        f"one) equal the rule on every K <= {MODEL_K}, L <= {MODEL_L}, n in [K, K L].",
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
        f"symbolic (the real schedule_spend on symbolic levels) and smt: every K in [2, {max_k}], all integers "
        f"n_1..n_(K-1); bounded-exhaustive: runs of sr, sysrs, sar and sysar "
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
        run = Run([])  # the real schedule_spend, on symbolic integer levels
        symbols = tuple(run.integer(f"n{k}") for k in range(1, n_models))
        levels = [symbol.term for symbol in symbols]
        real = term(_schedule_module().schedule_spend(symbols))
        phases = phase_spend(levels)
        run.solver.add(z3.Or(sum(levels[:-1]) + last_weight * levels[-1] != phases, real != phases))
        return refute(run.solver)

    proof, found = _prove(range(2, max_k + 1), per_k)
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
        f"smt: every K in [2, {max_k}], every integer L >= 1 and rational p in (0, 100]; bounded-exhaustive: "
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
                        _SMT_EXHAUSTIVE,
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
                            _SMT_EXHAUSTIVE,
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

    proof, found = _prove(range(2, max_k + 1), per_k)
    if found is not None:
        return _fail(_SMT_EXHAUSTIVE, domain, "z3 found a percentage where the contract's rule fails.", found)
    return _hold(
        _SMT_EXHAUSTIVE,
        domain,
        f"Proved for every K in [2, {proof.largest_k}]: with t = p L (so p <= 100 is t <= 100 L, linear), "
        "n = floor(K t / 100) > K L, or (K <= n <= K L) != (t >= 100), is unsat in linear integer/real arithmetic "
        "with floor (decidable). So a percentage is refused exactly when p < 100/L, never for exceeding K L; "
        "the code returns floor(p K L / 100) and refuses exactly there on the small domain.",
    )


#: The budget texts checked: every string of these characters up to the length below (blanks, both signs, a
#: decimal point, an exponent's letter, the percent sign and digits that make numbers in and out of range).
BUDGET_ALPHABET = "0159.%+- e"
BUDGET_TEXT_LENGTH = 5
#: The (K, L) each text is parsed for: K L = 21 (an integer or a percentage lands below, in and above [K, K L])
#: K L = 100 (n = floor(p), every percentage's integer part) and K L = 2000 (a fraction of a percent counts).
BUDGET_SHAPES = ((3, 7), (2, 50), (2, 1000))


def _digits(text: str) -> bool:
    return bool(text) and all(character in "0123456789" for character in text)


def contract_budget(text: str, n_models: int, n_queries: int) -> int | None:
    """docs/contracts.md section 5, read literally: the budget *text* names for (K, L), or None (refused).

    Written from the contract's words, independently of the code's regular expressions.
    """
    full = n_models * n_queries
    stripped = text.strip()
    if stripped.endswith("%"):
        body = stripped[:-1].strip()
        sign = -1 if body[:1] == "-" else 1
        body = body[1:] if body[:1] in ("+", "-") else body
        whole, _, decimals = body.partition(".")
        if "." in decimals or not (_digits(whole) or _digits(decimals)):
            return None
        if (whole and not _digits(whole)) or (decimals and not _digits(decimals)):
            return None
        percent = sign * (int(whole or "0") + Fraction(int(decimals or "0"), 10 ** len(decimals)))
        if not 0 < percent <= 100:
            return None
        budget = math.floor(percent * full / 100)
    else:
        digits = stripped[1:] if stripped[:1] == "+" else stripped
        if not _digits(digits):
            return None
        budget = int(digits)
    return budget if n_models <= budget <= full else None


def check_budget_text(max_length: int = BUDGET_TEXT_LENGTH) -> Outcome:
    """Budget.parse of every text of :data:`BUDGET_ALPHABET` up to *max_length* characters is the contract's."""
    domain = (
        f"bounded-exhaustive: every string of the characters {BUDGET_ALPHABET!r} of length 0 to {max_length}, "
        f"for (K, L) in {BUDGET_SHAPES}"
    )
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    texts = [""]
    count = 0
    for length in range(max_length + 1):
        if length:
            texts = [text + character for text in texts for character in BUDGET_ALPHABET]
        for text in texts:
            for n_models, n_queries in BUDGET_SHAPES:
                count += 1
                want = contract_budget(text, n_models, n_queries)
                try:
                    got: int | None = Budget.parse(text, n_models, n_queries).n
                except BudgetError:
                    got = None
                if got != want:
                    return _fail(
                        methods,
                        domain,
                        "Budget.parse disagrees with the contract's budget syntax.",
                        f"{text!r} for K={n_models}, L={n_queries}: Budget.parse gives "
                        f"{'a BudgetError' if got is None else got}, the contract {'a refusal' if want is None else want}",
                    )
    return _hold(
        methods,
        domain,
        f"Budget.parse gives the contract's n, or refuses exactly where the contract does, on each of {count} "
        "(text, K, L): integers with or without '+', percentages with a sign, a decimal point, blanks around the "
        "number; exponents, doubled signs, lone points and out-of-range values refused.",
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
        Claim(
            "code-budget-text",
            "sysrs_ref/schedule.py: Budget.parse, parse_budget; docs/contracts.md section 5",
            "a budget text gives the contract's n (an integer, or floor(p K L / 100) of a percentage), or is refused "
            "exactly where the contract refuses it",
            Status.HOLDS,
            check_budget_text,
            weight=4,
        ),
    )
