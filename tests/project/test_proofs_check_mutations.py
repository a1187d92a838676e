"""Each check can fail: a deliberately wrong variant of every claim's statement reports ``fails``."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from proofs_check import (
    Outcome,
    Status,
    all_claims,
    bernstein as bern,
    corollary as cor,
    csr_bound as csr,
    hardness_relations as hr,
    lower_bound as lb,
    theta_star as ts,
    two_armed as two,
)

WRONG_THETA = ts.THETA_STAR.replace("- 1/4", "- 1/3")

# claim id -> wrong variants (a changed constant, sign or expression); each must report `fails`.
MUTATIONS: dict[str, list[Callable[[], Outcome]]] = {
    "hardness-h2-le-h1": [lambda: hr.check_h2_le_h1(Fraction(1, 2))],
    "hardness-h1-le-logbar-h2": [lambda: hr.check_h1_le_logbar_h2(Fraction(-1, 2))],
    "hardness-logbar-le-log2k": [
        lambda: hr.check_logbar_le_log2k("log(K)"),
        lambda: hr.check_logbar_le_log2k("log(K + 1)"),
    ],
    "bernstein-moment-bound": [
        lambda: bern.check_moment_bound(half=Fraction(1, 3)),
        lambda: bern.check_moment_bound(base=4),
    ],
    "bernstein-mgf-series": [lambda: bern.check_mgf_series("lam**2*sigma2/(2*(1 + lam*M/3))")],
    "bernstein-parameter-choice": [
        lambda: bern.check_parameter_choice(u="M*eps/(2*sigma2 + M*eps)"),
        lambda: bern.check_parameter_choice(s_squared="(n*eps)**2/(2*n*sigma2 + M*n*eps/3)"),
    ],
    "bernstein-paired-range": [lambda: bern.check_range_bound("1"), lambda: bern.check_range_bound("1 - Delta")],
    "bernstein-paired-event": [lambda: bern.check_event_reduction(-1)],
    "csr-union-count": [lambda: csr.check_union_count("K*(K+1)/2")],
    "csr-phase-exponent": [
        lambda: csr.check_phase_exponent(first_arm_offset=0),
        lambda: csr.check_phase_exponent(numerator="n"),
    ],
    "csr-budget": [lambda: csr.check_budget(Fraction(0))],
    "theta-star-numerator": [lambda: ts.check_numerator(completed="-Delta**2/3 + (mu - 1/3)*Delta - (mu - 1/3)**2")],
    "theta-star-step-equivalently": [
        lambda: ts.check_step_equivalently(four_times="-mu**2 - Delta/3 + mu + mu*Delta - Delta**2/3 + 1/4")
    ],
    "theta-star-step-rearrange": [
        lambda: ts.check_rearrange(
            line3="2*(mu*(1 - mu) + (mu - Delta)*(1 - mu + Delta) - 2*theta*(mu - Delta)*(1 - mu))"
            " + (1 + Delta)*Delta/3"
        )
    ],
    "theta-star-variance-bound": [lambda: ts.check_variance_bound("m*(1 - m)/2")],
    "theta-star-sufficient": [lambda: ts.check_sufficient(WRONG_THETA)],
    "theta-star-tight": [lambda: ts.check_tight(WRONG_THETA)],
    "theta-star-crosscheck": [lambda: ts.check_crosscheck(WRONG_THETA)],
    "cor-case1-roots": [lambda: cor.check_case1_roots("3*mu/2 - 1/2 - sqrt(1 - 2*(1 - mu)**2)/2")],
    "cor-case1-linear": [lambda: cor.check_case1_linear("3*mu/2 - 1/2")],
    "cor-case1-tangent": [lambda: cor.check_case1_tangent("2*mu - 3/2")],
    "cor-case2-expansion": [lambda: cor.check_case2_expansion(c="4*Delta**2/3 - Delta/3 - 1/4")],
    "cor-case2-maximum": [
        lambda: cor.check_case2_maximum("-Delta*(1 - 2*Delta)*(4 - 3*Delta)/6"),
        lambda: cor.check_case2_maximum("Delta*(1 - 2*Delta)*(4 - 3*Delta)/12"),
        lambda: cor.check_case2_maximum(delta_max=Fraction(3, 4)),
    ],
    "cor-necessity": [lambda: cor.check_necessity(((1, 1, 1, 1, 0), (1, 1, 1, 0, 0), (1, 1, 0, 0, 0)))],
    "two-arm-uncorrelated": [lambda: two.check_uncorrelated(1)],
    "two-arm-dominance": [lambda: two.check_dominance("Delta - 2*Delta**2"), lambda: two.check_dominance(order=2)],
    "lb-moments": [lambda: lb.check_moments(variance="s - 2*Delta**2"), lambda: lb.check_moments(p10="(s + Delta)/3")],
    "lb-bhattacharyya": [lambda: lb.check_bc("1 - s + sqrt(s**2 - Delta**2)/2")],
    "lb-sqrt-bound": [lambda: lb.check_sqrt_bound(Fraction(1))],
    "lb-bc-range": [lambda: lb.check_bc_range(low=Fraction(3, 4))],
    "lb-log-bound": [lambda: lb.check_log_bound(factor=Fraction(1)), lambda: lb.check_log_bound(low=Fraction(1, 10))],
    "lb-step-i": [
        lambda: lb.check_step_i(Fraction(10)),
        lambda: lb.check_step_i(Fraction(16, 3)),
        lambda: lb.check_step_i(product="3*s/4 + Delta/4 - Delta**2/4"),
    ],
    "lb-constant-11": [
        lambda: lb.check_final_constant(claimed=Fraction(10), final=Fraction(10)),
        lambda: lb.check_final_constant(final=Fraction(11, 2)),
    ],
}

CASES = [
    (claim_id, index, variant) for claim_id, variants in MUTATIONS.items() for index, variant in enumerate(variants)
]


def test_every_claim_has_a_mutation() -> None:
    # the code's claims (code-*) have theirs in tests/project/test_proofs_check_code.py
    assert set(MUTATIONS) == {claim.id for claim in all_claims() if not claim.id.startswith("code-")}


@pytest.mark.parametrize(("claim_id", "index", "variant"), CASES, ids=[f"{c}-{i}" for c, i, _ in CASES])
def test_wrong_variant_fails(claim_id: str, index: int, variant: Callable[[], Outcome]) -> None:
    outcome = variant()
    assert outcome.status == Status.FAILS, (claim_id, index, outcome.detail)
    assert outcome.counterexample, (claim_id, index)
