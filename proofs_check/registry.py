"""The claim registry: :func:`all_claims` and :func:`claim_by_id`.

The claims' types live in :mod:`proofs_check.claim`, below this module and
below every claim module; this module only lists the claims, one module a line.
"""

from __future__ import annotations

from proofs_check.claim import DEFAULT_MAX_K, Claim

__all__ = ["all_claims", "claim_by_id"]


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
        code_fast_exhaustive,
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
        *code_fast_exhaustive.CLAIMS,
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
