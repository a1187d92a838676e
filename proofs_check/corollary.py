"""Corollary cor:sufficient_conditions and its proof (Appendix "Proof of Corollary").

N(mu, Delta) = -Delta^2/3 + (mu - 1/3) Delta - (mu - 1/2)^2 is theta*'s numerator,
D = (mu - Delta)(1 - mu), P(mu) = N - 2 Delta D.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import (
    Expr,
    fails,
    grid,
    holds,
    identity_counterexample,
    is_identity,
    parse,
    show,
    sym,
    univariate_counterexample,
    with_conditions,
)
from proofs_check.theta_star import THETA_STAR, arm_stats, domain_points, theta_star_value
from sysrs_ref import Instance
from sysrs_ref.theory import hardness

__all__ = [
    "CLAIMS",
    "NECESSITY_WITNESS",
    "NEGATIVE_THETA_WITNESS",
    "check_case1_linear",
    "check_case1_roots",
    "check_case1_tangent",
    "check_case2_expansion",
    "check_case2_maximum",
    "check_necessity",
]

N_TEXT = "-Delta**2/3 + (mu - 1/3)*Delta - (mu - 1/2)**2"
DELTA_MINUS = "3*mu/2 - 1/2 - sqrt(1 - 3*(1 - mu)**2)/2"
LINEAR = "3*mu/2 - 1"

NEGATIVE_THETA_WITNESS: tuple[tuple[int, ...], ...] = ((1, 1, 1, 1, 1, 0), (1, 1, 1, 0, 0, 1))
"""mu* = 5/6, Delta = 1/6 < 3/2 mu* - 1 = 1/4, theta = -1/2, and H3 > H2."""

NECESSITY_WITNESS: tuple[tuple[int, ...], ...] = ((0, 1, 1, 1, 1), (0, 0, 0, 1, 1), (0, 0, 0, 0, 1))
"""H3 = 32/3 < H2 = 25/2, although arm 3 (theta = 1 <= theta* = 7/4) meets neither condition."""


def _n() -> Expr:
    return parse(N_TEXT)


def check_case1_roots(delta_minus: str = DELTA_MINUS) -> Outcome:
    """Case 1: N is a downward parabola in Delta with lower root Delta_- = 3/2 mu - 1/2 - 1/2 sqrt(1 - 3(1-mu)^2).

    sympy solves N = 0 for Delta; the claimed root must be one of the two and
    the other must exceed it by sqrt(1 - 3(1-mu)^2) (so it is the lower one).
    The leading coefficient is -1/3 < 0.
    """
    d, mu = sym("Delta"), sym("mu")
    n = _n()
    leading = sp.Poly(n, d).LC()
    roots = sp.solve(n, d)
    claimed = parse(delta_minus)
    root = sp.sqrt(1 - 3 * (1 - mu) ** 2)
    for first, second in ((roots[0], roots[1]), (roots[1], roots[0])):
        if is_identity(claimed, first) and is_identity(second - first, root) and leading < 0:
            return holds(
                Method.PROVED,
                f"N has leading coefficient {leading} < 0 and roots "
                f"{roots} (sympy); the claimed Delta_- is the lower one, real iff "
                "mu* >= 1 - 1/sqrt(3).",
            )
    point = identity_counterexample(
        n.subs(d, claimed), sp.Integer(0), [{"mu": Fraction(9, 10)}, {"mu": Fraction(4, 5)}]
    )
    return fails(
        Method.PROVED, f"The roots of N are {roots}, not {delta_minus}.", show(point or {"mu": Fraction(9, 10)})
    )


def check_case1_linear(
    linear: str = LINEAR, negative_witness: tuple[tuple[int, ...], ...] = NEGATIVE_THETA_WITNESS
) -> Outcome:
    """Case 1: Delta_i < linear(mu*) => N < 0 => theta* < 0 <= theta_i => H_3i < H_2i.

    Direct proof: N is increasing in Delta up to its vertex (3 mu - 1)/2, which
    is >= linear(mu) (univariate sign check), and N(mu, linear(mu)) <= 0 on
    [0, 1] (exact univariate sign analysis; for 3/2 mu - 1 it is -(mu-1)^2/4).
    Then Delta < linear gives N < 0. (The paper's route: Delta_- >= 3/2 mu - 1
    since sqrt(1 - 3(1-mu)^2) <= 1.) The last step needs theta_i >= 0, which
    the text assumes ("we focus on positive correlation") but the Corollary does
    not state; the witness shows it is needed.
    """
    d, mu = sym("Delta"), sym("mu")
    n, ell = _n(), parse(linear)
    vertex = sp.solve(sp.diff(n, d), d)[0]
    proved = (
        univariate_counterexample(vertex - ell, "mu", Fraction(0), Fraction(1)) is None
        and univariate_counterexample(-n.subs(d, ell), "mu", Fraction(0), Fraction(1)) is None
    )
    if not proved:
        box = {"mu": (Fraction(0), Fraction(1)), "Delta": (Fraction(0), Fraction(1))}
        for point in grid(box, 60, lambda p: 0 < p["Delta"] < p["mu"] < 1, open_ends=True):
            at = {mu: point["mu"], d: point["Delta"]}
            if point["Delta"] < ell.subs(at) and n.subs(at) >= 0:
                return fails(
                    Method.CHECKED, f"Delta < {linear} does not imply N < 0.", f"{show(point)}: N = {n.subs(at)} >= 0"
                )
        return holds(Method.CHECKED, "No counterexample on the exact grid.")
    instance = Instance([list(row) for row in negative_witness])
    stats = arm_stats(instance, instance.tiers[1][0])
    h = hardness(instance)
    assert h.h3 is not None and h.h2 is not None
    if stats.delta < ell.subs(mu, stats.mu) and stats.theta < 0 and h.h3 >= h.h2:
        return with_conditions(
            Method.PROVED,
            f"Delta < {linear} => N < 0 proved (N(mu, {linear}) = "
            f"{sp.factor(n.subs(d, ell))} <= 0 and N increasing below its vertex "
            f"{vertex}), so theta* < 0. But theta_i > theta* then needs theta_i >= 0: scores "
            f"{[list(r) for r in negative_witness]} have mu*={stats.mu}, Delta={stats.delta} < "
            f"{ell.subs(mu, stats.mu)}, theta={stats.theta} and H3={h.h3} >= H2={h.h2}. "
            "Corrected statement: if every suboptimal arm has theta_i >= 0 and "
            "(theta_i > 2 Delta_i or Delta_i < 3/2 mu* - 1), then H3 < H2.",
            ["theta_i >= 0 (non-negative covariance), assumed in the text but not in the Corollary"],
            counterexample=f"scores {[list(r) for r in negative_witness]}",
        )
    return holds(Method.PROVED, f"Delta < {linear} => N < 0 => H_3i < H_2i.")


def check_case1_tangent(linear: str = LINEAR) -> Outcome:
    """Case 1, last sentence: the linear bound is the tangent of Delta_-(mu*) at mu* = 1 (where theta* = 0).

    Checks Delta_-(1) = linear(1) and lim_{mu->1-} Delta_-'(mu) = linear'(1), and
    that N(mu, Delta_-(mu)) = 0 identically (so theta* = 0 on the curve where
    D > 0). At mu* = 1 itself D = 0 and theta* is 0/0.
    """
    mu, d = sym("mu"), sym("Delta")
    curve, ell = parse(DELTA_MINUS), parse(linear)
    value_ok = sp.simplify(curve.subs(mu, 1) - ell.subs(mu, 1)) == 0
    slope = sp.limit(sp.diff(curve, mu), mu, 1, "-")
    slope_ok = sp.simplify(slope - sp.diff(ell, mu).subs(mu, 1)) == 0
    if not (value_ok and slope_ok):
        return fails(
            Method.PROVED,
            f"{linear} is not tangent to Delta_- at mu*=1.",
            f"Delta_-(1) = {curve.subs(mu, 1)}, slope {slope}; line: {ell.subs(mu, 1)}, slope {sp.diff(ell, mu)}",
        )
    on_curve = is_identity(_n().subs(d, curve), sp.Integer(0))
    denominator_at_one = ((mu - d) * (1 - mu)).subs(mu, 1)
    return with_conditions(
        Method.PROVED,
        f"Delta_-(1) = {curve.subs(mu, 1)} = line(1) and both slopes are {slope}: tangent. "
        f"N = 0 on the curve: {on_curve}. At mu* = 1, D = {denominator_at_one}, so theta* is 0/0 "
        "there; corrected: 'tangent at mu* = 1, the end of the curve theta* = 0 (N = 0)'.",
        ["theta* = 0 on Delta_-(mu*) only where D > 0 (mu* < 1); at mu* = 1 theta* is undefined"],
    )


def check_case2_expansion(
    a: str = "2*Delta - 1", b: str = "1 - Delta - 2*Delta**2", c: str = "5*Delta**2/3 - Delta/3 - 1/4"
) -> Outcome:
    """Case 2: P(mu) = N - 2 Delta (mu - Delta)(1 - mu) = a mu^2 + b mu + c ("Grouping terms")."""
    mu, d = sym("mu"), sym("Delta")
    p = _n() - 2 * d * (mu - d) * (1 - mu)
    claimed = parse(a) * mu**2 + parse(b) * mu + parse(c)
    if is_identity(p, claimed):
        return holds(Method.PROVED, "P(mu*) expands to the printed quadratic (difference simplifies to 0).")
    return fails(
        Method.PROVED,
        f"P(mu*) = {sp.collect(sp.expand(p), mu)}.",
        show(identity_counterexample(p, claimed, domain_points(4)) or {}),
    )


def check_case2_maximum(
    maximum: str = "-Delta*(1 - 2*Delta)*(4 - 3*Delta)/12", delta_max: Fraction = Fraction(1, 2)
) -> Outcome:
    """Case 2: for Delta in (0, delta_max), P is concave, its vertex lies in (Delta, 1), max P = maximum < 0.

    Paper: delta_max = 1/2. The vertex -b/(2a) simplifies to (1 + Delta)/2; every
    sign claim on (0, delta_max) is an exact univariate sign analysis.
    """
    mu, d = sym("mu"), sym("Delta")
    p = sp.expand(_n() - 2 * d * (mu - d) * (1 - mu))
    a_coef, b_coef = p.coeff(mu, 2), p.coeff(mu, 1)
    vertex = sp.simplify(-b_coef / (2 * a_coef))
    top = sp.simplify(p.subs(mu, vertex))
    zero, hi = Fraction(0), delta_max
    checks = [
        ("concave (leading coefficient <= 0)", -a_coef, False),
        ("vertex > Delta", vertex - d, True),
        ("vertex < 1", 1 - vertex, True),
        ("maximum < 0", -parse(maximum), True),
    ]
    if not is_identity(top, parse(maximum)):
        return fails(
            Method.PROVED,
            f"max P = P((1+Delta)/2) = {sp.factor(top)}, not {maximum}.",
            show(identity_counterexample(top, parse(maximum), [{"Delta": Fraction(1, 4)}]) or {}),
        )
    for name, expr, strict in checks:
        point = univariate_counterexample(expr, "Delta", zero, hi, strict=strict, closed=False)
        if point is not None:
            return fails(Method.PROVED, f"On (0, {delta_max}) '{name}' is false.", f"Delta={point}")
    return holds(
        Method.PROVED,
        f"Vertex mu* = {vertex} in (Delta, 1) for Delta in (0, 1/2), so "
        f"the max over [0,1] (and over (Delta,1)) is P(vertex) = {sp.factor(top)}, "
        "strictly negative on (0, 1/2) (roots 0, 1/2, 4/3). Typo: 'the is maximum' -> "
        "'the maximum is'.",
    )


def check_necessity(witness: tuple[tuple[int, ...], ...] = NECESSITY_WITNESS, theta_star: str = THETA_STAR) -> Outcome:
    """Is the per-arm condition necessary for H3 < H2? No: a witness with H3 < H2 where an arm
    has theta_i <= theta* and meets neither of the Corollary's conditions (H3, H2 via ``hardness``)."""
    instance = Instance([list(row) for row in witness])
    h = hardness(instance)
    if h.h3 is None or h.h2 is None or not h.h3 < h.h2:
        return fails(
            Method.CHECKED,
            "Not a witness: H3 < H2 is false.",
            f"scores {[list(r) for r in witness]}: H3={h.h3}, H2={h.h2}",
        )
    for tier in instance.tiers[1:]:
        for arm in tier:
            st = arm_stats(instance, arm)
            bound = theta_star_value(theta_star, st.mu, st.delta)
            if st.theta <= bound and st.theta <= 2 * st.delta and st.delta >= Fraction(3, 2) * st.mu - 1:
                return holds(
                    Method.CHECKED,
                    "Sufficient only: scores "
                    f"{[list(r) for r in witness]} have H3={h.h3} < H2={h.h2}, although "
                    f"model {arm} has theta={st.theta} <= theta*={bound}, theta <= "
                    f"2 Delta={2 * st.delta} and Delta={st.delta} >= 3/2 mu* - 1 = "
                    f"{Fraction(3, 2) * st.mu - 1} (its H_3i > H_2i, but i H_3i is "
                    "dominated by the max).",
                )
    return fails(
        Method.CHECKED, "Not a witness: every arm meets the per-arm condition.", f"scores {[list(r) for r in witness]}"
    )


def _claims() -> tuple[Claim, ...]:
    cor = "Corollary cor:sufficient_conditions"
    return (
        Claim(
            "cor-case1-roots",
            f"{cor}, proof, case 1 (roots of N)",
            "N is a downward parabola in Delta with lower root Delta_- = 3/2 mu* - 1/2 - 1/2 sqrt(1 - 3(1-mu*)^2)",
            Status.HOLDS,
            lambda: check_case1_roots(),
        ),
        Claim(
            "cor-case1-linear",
            f"{cor}, case 1 (Delta_i < 3/2 mu* - 1)",
            "Delta_i < 3/2 mu* - 1 => N < 0 => H_3i < H_2i",
            Status.HOLDS_WITH_CONDITIONS,
            lambda: check_case1_linear(),
        ),
        Claim(
            "cor-case1-tangent",
            f"{cor}, proof, case 1, last sentence",
            "3/2 mu* - 1 is the tangent of Delta_-(mu*) at mu* = 1 (where theta* = 0)",
            Status.HOLDS_WITH_CONDITIONS,
            lambda: check_case1_tangent(),
        ),
        Claim(
            "cor-case2-expansion",
            f"{cor}, proof, case 2 ('Grouping terms')",
            "P = (2Delta-1) mu*^2 + (1-Delta-2Delta^2) mu* + 5/3 Delta^2 - 1/3 Delta - 1/4",
            Status.HOLDS,
            lambda: check_case2_expansion(),
        ),
        Claim(
            "cor-case2-maximum",
            f"{cor}, proof, case 2 (maximum of P)",
            "max_{mu* in [0,1]} P = -Delta(1-2Delta)(4-3Delta)/12 < 0 for Delta in (0, 1/2)",
            Status.HOLDS,
            lambda: check_case2_maximum(),
        ),
        Claim(
            "cor-necessity",
            f"{cor} and Prop. thm:theta-star (necessity)",
            "The per-arm conditions are sufficient but not necessary for H3 < H2",
            Status.HOLDS,
            lambda: check_necessity(),
        ),
    )


CLAIMS = _claims()
