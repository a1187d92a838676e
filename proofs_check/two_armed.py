"""The two-armed examples (Section "The Two-Armed Case"), eq. (Nocov) and eq. (Bernstein-condition-analogue).

Binary 2 x L score matrices, mu = mu*, Delta the gap; H3 = 2 H_{3,2}.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import Expr, fails, holds, parse, sym, univariate_counterexample
from proofs_check.theta_star import arm_stats, binary_pairs
from sysrs_ref import Instance
from sysrs_ref.theory import hardness

__all__ = ["CLAIMS", "check_dominance", "check_uncorrelated"]


def _h3(variance: Expr) -> Expr:
    d = sym("Delta")
    return 2 * (2 * variance + sp.Rational(2, 3) * (1 + d) * d) / d**2


def _uncorrelated_pairs(max_queries: int = 6) -> list[Instance]:
    """Every 2 x L 0/1 instance (L <= max_queries) with zero covariance, a unique best and D > 0."""
    out = []
    for length in range(1, max_queries + 1):
        for a, c in itertools.product(itertools.product((0, 1), repeat=length), repeat=2):
            n1, n2 = sum(a), sum(c)
            both = sum(x * y for x, y in zip(a, c, strict=True))
            if n2 < n1 < length and n2 > 0 and length * both == n1 * n2:
                out.append(Instance([list(a), list(c)]))
    return out


def check_uncorrelated(order: int = 2) -> Outcome:
    """(i) theta = 0: V_{*,2} = Var(S_1) + Var(S_2) (eq. Nocov), H3 = H3', and H3 = Theta(1/Delta^order).

    Paper: order 2. For binary scores with theta = 0, V = mu(1-mu) + (mu-Delta)(1-mu+Delta),
    and lim_{Delta->0} Delta^order H3 = 8 mu(1-mu) in (0, 2] for fixed mu in (0, 1)
    (sympy). Every 2 x L 0/1 instance (L <= 6) with zero covariance has
    V = V_1 + V_2 and H3 = H3' (``sysrs_ref.theory.hardness``).
    """
    mu, d = sym("mu"), sym("Delta")
    variance = mu * (1 - mu) + (mu - d) * (1 - mu + d)
    limit = sp.simplify(sp.limit(d**order * _h3(variance), d, 0, "+"))
    count = 0
    for instance in _uncorrelated_pairs():
        st = arm_stats(instance, instance.tiers[1][0])
        count += 1
        h = hardness(instance)
        expected = 2 * (2 * (st.v_best + st.v_arm) + Fraction(2, 3) * (1 + st.delta) * st.delta) / st.delta**2
        if h.h3 != h.h3_prime or h.h3 != expected:
            return fails(
                Method.CHECKED,
                "Zero covariance but V != V_1 + V_2.",
                f"scores {[list(r) for r in instance.numerators]}",
            )
    finite_positive = (
        not limit.has(sp.nan, sp.oo, sp.zoo, -sp.oo)
        and univariate_counterexample(limit, "mu", Fraction(0), Fraction(1), strict=True, closed=False) is None
    )
    if not finite_positive:
        return fails(
            Method.PROVED,
            f"lim Delta^{order} H3 = {limit}, so H3 is not Theta(1/Delta^{order}).",
            f"theta=0, binary, mu fixed: limit {limit}",
        )
    return holds(
        Method.PROVED,
        f"lim_(Delta->0) Delta^2 H3 = {sp.factor(limit)} in (0, 2] for "
        f"mu* in (0,1); V = V_1 + V_2 and H3 = H3' on all {count} zero-covariance binary "
        "2 x L instances (L <= 6).",
    )


def check_dominance(variance: str = "Delta - Delta**2", order: int = 1) -> Outcome:
    """(ii) point-wise dominance (S_2j = 1 => S_1j = 1): theta = 1, V_{*,2} = Delta - Delta^2,
    Var <= Delta, and H3 = Theta(1/Delta^order) (paper: order 1).

    X - Y is {0,1}-valued, so E(X-Y)^2 = E(X-Y) = Delta and V = Delta - Delta^2;
    E[XY] = E[Y] gives Cov = (mu-Delta)(1-mu), theta = 1. Checked exactly on every
    dominant 2 x L 0/1 instance (L <= 5, D > 0) with ``hardness``;
    lim Delta^order H3 = 16/3 (sympy).
    """
    d = sym("Delta")
    claimed = parse(variance)
    count = 0
    for instance in binary_pairs():
        best, other = instance.tiers[0][0], instance.tiers[1][0]
        top, low = instance.numerators[best], instance.numerators[other]
        if any(y > x for x, y in zip(top, low, strict=True)):
            continue
        count += 1
        st = arm_stats(instance, other)
        h = hardness(instance)
        v_star = st.v_best + st.v_arm - 2 * st.cov
        value = claimed.subs(d, sp.Rational(st.delta.numerator, st.delta.denominator))
        if (
            st.theta != 1
            or v_star != Fraction(str(value))
            or v_star > st.delta
            or h.h3 != 2 * (2 * v_star + Fraction(2, 3) * (1 + st.delta) * st.delta) / st.delta**2
        ):
            return fails(
                Method.CHECKED,
                f"V_(*,2) = {variance} is false under dominance.",
                f"scores {[list(r) for r in instance.numerators]}: theta={st.theta}, V={v_star}, claimed {value}",
            )
    limit = sp.limit(d**order * _h3(claimed), d, 0, "+")
    if not (limit.is_positive and limit.is_finite):
        return fails(
            Method.PROVED,
            f"lim Delta^{order} H3 = {limit}: not Theta(1/Delta^{order}).",
            f"dominance, V = {variance}: limit {limit}",
        )
    return holds(
        Method.PROVED,
        "X - Y in {0, 1} gives V = Delta - Delta^2 <= Delta and theta = 1; "
        f"lim_(Delta->0) Delta H3 = {limit}; exact check on all {count} dominant binary "
        "2 x L instances (L <= 5).",
    )


def _claims() -> tuple[Claim, ...]:
    sec = "Section 'The Two-Armed Case'"
    return (
        Claim(
            "two-arm-uncorrelated",
            f"{sec} (i), eq. (Nocov)",
            "theta = 0 => V_(*,2) = Var(S_1) + Var(S_2), H3 = H3' = Theta(1/Delta^2)",
            Status.HOLDS,
            lambda: check_uncorrelated(),
        ),
        Claim(
            "two-arm-dominance",
            f"{sec} (ii), eq. (Bernstein-condition-analogue)",
            "point-wise dominance => theta = 1, V_(*,2) = Delta - Delta^2, H3 = Theta(1/Delta)",
            Status.HOLDS,
            lambda: check_dominance(),
        ),
    )


CLAIMS = _claims()
