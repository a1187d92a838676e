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

__all__ = ["DEFAULT_MAX_K", "Claim", "Method", "Outcome", "Status"]


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
