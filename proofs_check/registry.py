"""The claim registry: :class:`Claim`, :class:`Status`, :class:`Outcome` and :func:`all_claims`.

A claim is one algebraic step of the paper. Its check is a function of the
step's *statement data* (a constant, a sign, an expression), so the same check
run on a deliberately wrong variant reports ``fails`` (see the tests).

``expected`` is the status we established by doing the maths: exit status 0
of ``python -m proofs_check`` means "every claim has the status we
established", not "the paper is right everywhere".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["Claim", "Method", "Outcome", "Status", "all_claims", "claim_by_id"]


class Status(str, Enum):
    """The verdict on one claim."""

    HOLDS = "holds"
    HOLDS_WITH_CONDITIONS = "holds-with-conditions"
    FAILS = "fails"


class Method(str, Enum):
    """How the verdict was reached.

    ``proved``: every part is a symbolic argument (an identity simplified to 0
    or factored, a sign read off factors, a vertex or a derivative), possibly
    with a numeric cross-check on top. ``checked``: at least one part rests on
    exact evaluation on a finite set of points (an exact rational grid plus
    seeded random points, or an exhaustive enumeration of small instances).
    A counterexample is exact either way.
    """

    PROVED = "proved"
    CHECKED = "checked"


@dataclass(frozen=True)
class Outcome:
    """The result of running one check."""

    status: Status
    method: Method
    detail: str
    conditions: tuple[str, ...] = ()
    counterexample: str | None = None


@dataclass(frozen=True)
class Claim:
    """One algebraic step of the paper and its check (bound to the paper's statement data)."""

    id: str
    paper_ref: str
    statement: str
    expected: Status
    run: Callable[[], Outcome] = field(compare=False, repr=False)


def all_claims() -> tuple[Claim, ...]:
    """Every registered claim, in paper order."""
    from proofs_check import (
        bernstein,
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
    )


def claim_by_id(claim_id: str) -> Claim | None:
    """The claim called *claim_id*, or None."""
    for claim in all_claims():
        if claim.id == claim_id:
            return claim
    return None
