"""A claim's types: :class:`Claim`, :class:`Status`, :class:`Method`, :class:`Outcome`.

A claim is one algebraic step of the paper, or one invariant of the code
(the ``code-`` claims: schedules and budgets, the fast paths' certification,
the algorithms' contracts). Its check is a function of the step's *statement
data* (a constant, a sign, an expression) or of the code it reads, so the
same check run on a deliberately wrong variant, or on deliberately broken
code, reports ``fails`` (see the tests).

``expected`` is the status we established by doing the maths: exit status 0
of ``python -m proofs_check`` means "every claim has the status we
established", not "the paper is right everywhere".

This module sits below every claim module and below :mod:`proofs_check.registry`
(which lists the claims), so no two modules of the package import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["DEFAULT_MAX_K", "Claim", "Domains", "Method", "Outcome", "Status"]


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
    for every input of the stated domain, unbounded in n and L.
    ``bounded-exhaustive``: the code was run on every input of a
    stated finite domain and every run checked. ``symbolic``: the real code
    was run on symbolic inputs (z3 reals) along every feasible path of a
    stated domain (:mod:`proofs_check.symbolic`), so the check covers every
    real input there, not samples. ``static``: the source of the code (Python
    syntax trees, C text) was read and every site of a stated kind checked
    against structural rules. A counterexample is exact either way.
    """

    PROVED = "proved"
    CHECKED = "checked"
    SMT = "smt"
    BOUNDED_EXHAUSTIVE = "bounded-exhaustive"
    SYMBOLIC = "symbolic"
    STATIC = "static"


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


@dataclass(frozen=True)
class Domains:
    """The domains the code claims run on: the defaults, or those the command line's size options widen.

    ``max_k``: the schedule claims' largest K; each pair, when given, widens one claim family's domain
    (None: the family's own default): ``contracts`` and ``ucb_contracts`` (K, L) the symbolic contracts,
    ``exact`` (K, L) the exact engines' brute force, ``decisions`` (K, L) the decision claims' symbolic
    domain and ``decision_cells`` (B, T) their exhaustive one, ``fast_cells`` (C, N) the fast passes' exhaustive
    one (:mod:`proofs_check.code_fast_exhaustive`).

    >>> Domains(contracts=(3, 5)).max_k
    200
    """

    max_k: int = DEFAULT_MAX_K
    contracts: tuple[int, int] | None = None
    ucb_contracts: tuple[int, int] | None = None
    exact: tuple[int, int] | None = None
    decisions: tuple[int, int] | None = None
    decision_cells: tuple[int, int] | None = None
    fast_cells: tuple[int, int] | None = None
