"""The claim registry: :func:`all_claims` and :func:`claim_by_id`.

The claims' types live in :mod:`proofs_check.claim`, below this module and
below every claim module; this module only lists the claims, one module a line.
"""

from __future__ import annotations

from proofs_check.claim import Claim, Domains

__all__ = ["DEFAULT_DOMAINS", "all_claims", "claim_by_id"]


#: The default domains (no size option given).
DEFAULT_DOMAINS = Domains()


def all_claims(domains: Domains = DEFAULT_DOMAINS) -> tuple[Claim, ...]:
    """Every registered claim: the paper's, in paper order, then the code's, on *domains*.

    The schedules are proved up to ``domains.max_k`` models; each other field of
    :class:`~proofs_check.claim.Domains`, when given, widens one family's domain
    (the command line's size options set them).
    """
    from proofs_check import (
        bernstein,
        code_certify,
        code_contracts,
        code_decisions,
        code_exact,
        code_fast_exhaustive,
        code_fast_static,
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
        *code_schedule.claims(domains.max_k),
        *code_certify.CLAIMS,
        *code_ucb.CLAIMS,
        *code_fast_static.CLAIMS,
        *code_fast_exhaustive.claims(domains.fast_cells),
        *code_contracts.CLAIMS,
        *code_symbolic.claims(code_symbolic.bound_for(domains.contracts)),
        *code_ucb_symbolic.claims(code_ucb_symbolic.bound_for(domains.ucb_contracts)),
        *code_formulas.CLAIMS,
        *code_exact.claims(domains.exact),
        *code_decisions.claims(domains.decisions, domains.decision_cells),
    )


def claim_by_id(claim_id: str, domains: Domains = DEFAULT_DOMAINS) -> Claim | None:
    """The claim called *claim_id* on *domains*, or None."""
    for claim in all_claims(domains):
        if claim.id == claim_id:
            return claim
    return None
