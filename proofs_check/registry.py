"""The claim registry: :class:`Claim`, :class:`Status`, :class:`Outcome` and :func:`all_claims`.

A claim is one algebraic step of the paper, or one invariant of the code
(the ``code-`` claims: schedules and budgets, the fast paths' certification,
the algorithms' contracts). Its check is a function of the step's *statement
data* (a constant, a sign, an expression) or of the code it reads, so the
same check run on a deliberately wrong variant, or on deliberately broken
code, reports ``fails`` (see the tests).

``expected`` is the status we established by doing the maths: exit status 0
of ``python -m proofs_check`` means "every claim has the status we
established", not "the paper is right everywhere".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["DEFAULT_MAX_K", "Claim", "Method", "Outcome", "Status", "all_claims", "claim_by_id"]


class Status(str, Enum):
    """The verdict on one claim."""

    HOLDS = "holds"
    HOLDS_WITH_CONDITIONS = "holds-with-conditions"
    FAILS = "fails"


class Method(str, Enum):
    """How the verdict was reached.

    The paper's claims (sympy): ``proved``: every part is a symbolic argument
    (an identity simplified to 0 or factored, a sign read off factors, a
    vertex or a derivative), possibly with a numeric cross-check on top.
    ``checked``: at least one part rests on exact evaluation on a finite set
    of points (an exact rational grid plus seeded random points, or an
    exhaustive enumeration of small instances).

    The code's claims: ``smt``: an SMT solver (z3) answered unsat to the
    negation of the claim, in a decidable theory (linear integer/real
    arithmetic for fixed K, nonlinear real arithmetic for the float bounds),
    for every input of the stated domain, unbounded in n and L; such claims
    also list ``model-checked-against-code`` among their methods when the
    encoding was checked against the real functions on a stated small
    domain. ``bounded-exhaustive``: the code was run on every input of a
    stated finite domain and every run checked. ``symbolic``: the real code
    was run on symbolic inputs (z3 reals) along every feasible path of a
    stated domain (:mod:`proofs_check.symbolic`), so the check covers every
    real input there, not samples. A counterexample is exact either way.
    """

    PROVED = "proved"
    CHECKED = "checked"
    SMT = "smt"
    BOUNDED_EXHAUSTIVE = "bounded-exhaustive"
    SYMBOLIC = "symbolic"
    MODEL_CHECKED = "model-checked-against-code"


@dataclass(frozen=True)
class Outcome:
    """The result of running one check."""

    status: Status
    method: Method
    detail: str
    conditions: tuple[str, ...] = ()
    counterexample: str | None = None
    methods: tuple[Method, ...] = ()
    """Every method the verdict rests on (empty: just ``method``, a sympy claim)."""
    domain: str = ""
    """The inputs the verdict covers (empty: the paper's domain, in the statement)."""

    @property
    def all_methods(self) -> tuple[str, ...]:
        """The methods as named in the report: ``sympy`` for the paper's claims, else :attr:`methods`."""
        if self.methods:
            return tuple(method.value for method in self.methods)
        return (self.method.value,) if self.method not in (Method.PROVED, Method.CHECKED) else ("sympy",)


@dataclass(frozen=True)
class Claim:
    """One algebraic step of the paper and its check (bound to the paper's statement data)."""

    id: str
    paper_ref: str
    statement: str
    expected: Status
    run: Callable[[], Outcome] = field(compare=False, repr=False)
    weight: float = field(default=0.0, compare=False)
    """Roughly the CPU seconds of the default run (a parallel run starts the heaviest work first)."""
    group: str = field(default="", compare=False)
    """Claims of one group share cached work (the schedule lemmas): a parallel run runs them in one worker."""


#: The default largest K of the schedule claims (``--max-k`` raises it).
DEFAULT_MAX_K = 200


def all_claims(
    max_k: int = DEFAULT_MAX_K,
    contracts: tuple[int, int] | None = None,
    ucb_contracts: tuple[int, int] | None = None,
    exact: tuple[int, int] | None = None,
    decisions: tuple[int, int] | None = None,
    decision_cells: tuple[int, int] | None = None,
) -> tuple[Claim, ...]:
    """Every registered claim: the paper's, in paper order, then the code's.

    The schedules are proved up to *max_k* models; *contracts* (K, L), when
    given, widens the symbolic contracts' domain to every K <= K and L <= L,
    and *ucb_contracts* UCB-E's and SyUCB-E's; *exact* (K, L) checks the
    exact engines against brute force on every K' <= K, L' <= L; *decisions*
    (K, L) widens the decision claims' symbolic domain, *decision_cells* (B, T)
    their exhaustive one (K L <= B binary, K L <= T three-valued).
    """
    from proofs_check import (
        bernstein,
        code_certify,
        code_contracts,
        code_decisions,
        code_exact,
        code_formulas,
        code_schedule,
        code_symbolic,
        code_ucb,
        code_ucb_symbolic,
        corollary,
        csr_bound,
        hardness_relations,
        lower_bound,
        theta_star,
        two_armed,
    )

    return (
        *hardness_relations.CLAIMS,
        *bernstein.CLAIMS,
        *csr_bound.CLAIMS,
        *theta_star.CLAIMS,
        *corollary.CLAIMS,
        *two_armed.CLAIMS,
        *lower_bound.CLAIMS,
        *code_schedule.claims(max_k),
        *code_certify.CLAIMS,
        *code_ucb.CLAIMS,
        *code_contracts.CLAIMS,
        *code_symbolic.claims(code_symbolic.bound_for(contracts)),
        *code_ucb_symbolic.claims(code_ucb_symbolic.bound_for(ucb_contracts)),
        *code_formulas.CLAIMS,
        *code_exact.claims(exact),
        *code_decisions.claims(decisions, decision_cells),
    )


def claim_by_id(
    claim_id: str,
    max_k: int = DEFAULT_MAX_K,
    contracts: tuple[int, int] | None = None,
    ucb_contracts: tuple[int, int] | None = None,
    exact: tuple[int, int] | None = None,
    decisions: tuple[int, int] | None = None,
    decision_cells: tuple[int, int] | None = None,
) -> Claim | None:
    """The claim called *claim_id*, or None."""
    for claim in all_claims(max_k, contracts, ucb_contracts, exact, decisions, decision_cells):
        if claim.id == claim_id:
            return claim
    return None
