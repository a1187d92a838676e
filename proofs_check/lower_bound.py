"""Theorem thm:lower-bound and its proof (Appendix "Proof of Theorem thm:lower-bound").

Domain: Delta in (0, 1/2), s in [Delta, 1/2]; V = s - Delta^2, r = sqrt(s^2 - Delta^2),
BC = BC(P, Q), H3(Delta, V) = (2V + 2/3(1+Delta)Delta)/Delta^2.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import (
    Expr,
    Point,
    fails,
    first_violation,
    grid,
    holds,
    identity_counterexample,
    is_identity,
    parse,
    show,
    sym,
)

__all__ = [
    "CLAIMS",
    "check_bc",
    "check_bc_range",
    "check_final_constant",
    "check_log_bound",
    "check_moments",
    "check_sqrt_bound",
    "check_step_i",
    "lb_points",
]

BC_TEXT = "1 - s + sqrt(s**2 - Delta**2)"


def lb_points(steps: int = 40) -> list[Point]:
    """Exact rational grid and seeded random points on Delta in (0, 1/2), s in [Delta, 1/2]."""
    box = {"Delta": (Fraction(0), Fraction(1, 2)), "s": (Fraction(0), Fraction(1, 2))}
    return grid(box, steps, lambda p: 0 < p["Delta"] < Fraction(1, 2) and p["Delta"] <= p["s"] <= Fraction(1, 2))


def _h3() -> Expr:
    d, s = sym("Delta"), sym("s")
    v = s - d**2
    return (2 * v + sp.Rational(2, 3) * (1 + d) * d) / d**2


def check_moments(
    p10: str = "(s + Delta)/2", p01: str = "(s - Delta)/2", p00: str = "1 - s", variance: str = "s - Delta**2"
) -> Outcome:
    """Proof: P, Q are distributions; E_P[X-Y] = Delta, E_Q[X-Y] = -Delta, Var_P = Var_Q = V = s - Delta^2.

    Q swaps (1,0) and (0,1). Identities by sympy; non-negativity of the masses on
    the domain from s >= Delta and s <= 1/2 (each mass is linear with the
    sign read off after writing s = Delta + t).
    """
    d, s, t = sym("Delta"), sym("s"), sym("t")
    a, b, c = parse(p10), parse(p01), parse(p00)
    mean_p, mean_q = a - b, b - a
    second = a + b
    checks = [
        ("masses sum to 1", a + b + c, sp.Integer(1)),
        ("E_P[X-Y] = Delta", mean_p, d),
        ("E_Q[X-Y] = -Delta", mean_q, -d),
        ("Var_P = V", second - mean_p**2, parse(variance)),
        ("Var_Q = V", second - mean_q**2, parse(variance)),
    ]
    for name, lhs, rhs in checks:
        if not is_identity(lhs, rhs):
            return fails(
                Method.PROVED, f"'{name}' is false.", show(identity_counterexample(lhs, rhs, lb_points(4)) or {})
            )
    masses_ok = (
        all(sp.factor(m.subs(s, d + t)).is_nonnegative is not False for m in (a, b))
        and first_violation(c, lb_points(10)) is None
    )
    if not masses_ok:
        return fails(Method.CHECKED, "A mass is negative.", "s = Delta")
    return holds(
        Method.PROVED,
        "Masses (s+Delta)/2, (s-Delta)/2 >= 0 (s >= Delta), 1-s >= 1/2, "
        "sum 1; E_P = Delta, E_Q = -Delta, Var = s - Delta^2 under both (sympy).",
    )


def check_bc(bc: str = BC_TEXT) -> Outcome:
    """Proof: BC(P,Q) = 2 sqrt((s+Delta)/2 (s-Delta)/2) + 1 - s = (1-s) + sqrt(s^2 - Delta^2);
    H^2 = 2(1 - BC); H(P^n,Q^n) sqrt(1 - H^2/4) = sqrt(1 - BC^{2n}) with H^2 = 2(1 - BC^n)."""
    d, s = sym("Delta"), sym("s")
    direct = 2 * sp.sqrt((s + d) / 2 * (s - d) / 2) + 1 - s
    masses = [((s + d) / 2, (s - d) / 2), ((s - d) / 2, (s + d) / 2), (1 - s, 1 - s)]
    hellinger = sum((sp.sqrt(p) - sp.sqrt(q)) ** 2 for p, q in masses)
    bcn = sp.Symbol("B", positive=True)  # BC^n in [0, 1]
    chain_l = sp.sqrt(2 * (1 - bcn)) * sp.sqrt(1 - 2 * (1 - bcn) / 4)
    chain_ok = sp.simplify(chain_l**2 - (1 - bcn**2)) == 0
    claimed = parse(bc)
    pts = [p for p in lb_points(6) if p["s"] > p["Delta"]]
    if first_violation(direct - claimed, pts) is not None or first_violation(claimed - direct, pts) is not None:
        return fails(
            Method.CHECKED,
            f"BC(P,Q) != {bc}.",
            show(first_violation(-((direct - claimed) ** 2), pts, strict=True) or {}),
        )
    if not (is_identity(direct, claimed) or is_identity(sp.expand(direct**2), sp.expand(claimed**2))):
        method = Method.CHECKED
    else:
        method = Method.PROVED
    if not (chain_ok and is_identity(hellinger, 2 * (1 - direct))):
        return fails(Method.PROVED, "Hellinger identity fails.", "")
    return holds(
        method,
        "sqrt(P(z)Q(z)) summed over the three atoms gives (1-s) + sqrt(s^2-Delta^2); "
        "H^2 = 2(1-BC) (sympy, using sum P = sum Q = 1); sqrt(2(1-B)) sqrt((1+B)/2) = "
        "sqrt(1-B^2).",
    )


def check_sqrt_bound(factor: Fraction = Fraction(1, 2)) -> Outcome:
    """Proof: 1 - sqrt(1 - x) >= factor * x on [0, 1] (paper: factor 1/2), giving (1 - TV)/2 >= BC^{2n}/4.

    For factor 1/2: sqrt(1-x) <= 1 - x/2 <=> 1 - x <= 1 - x + x^2/4 (both sides >= 0). Other
    factors: exact grid on [0, 1].
    """
    x = sym("x")
    f = sp.Rational(factor.numerator, factor.denominator)
    gap = (1 - f * x) ** 2 - (1 - x)
    proved = (
        f <= sp.Rational(1, 2) and sp.factor(sp.expand(gap)).subs(x, sp.Symbol("z", nonnegative=True)).is_nonnegative
    )
    points = grid({"x": (Fraction(0), Fraction(1))}, 200)
    point = first_violation(1 - sp.sqrt(1 - x) - f * x, points)
    if point is not None:
        return fails(Method.CHECKED, f"1 - sqrt(1-x) >= {factor} x is false.", show(point))
    if proved:
        return holds(
            Method.PROVED, f"(1 - x/2)^2 - (1 - x) = {sp.factor(sp.expand(gap))} >= 0 and 1 - x/2 >= 0 on [0, 1]."
        )
    return holds(Method.CHECKED, "No counterexample on a 201-point exact grid.")


def check_bc_range(low: Fraction = Fraction(1, 2), high: Fraction = Fraction(1)) -> Outcome:
    """Proof: BC = (1-s) + sqrt(s^2 - Delta^2) in [1/2, 1] for s in [Delta, 1/2].

    high - BC >= s - r >= 0 when high >= 1 (r <= s); BC - low >= (1 - s - low) + r >= 0
    when low <= 1/2 (s <= 1/2). Other bounds: exact grid search.
    """
    bc = parse(BC_TEXT)
    points = lb_points()
    for name, expr in (
        ("BC >= low", bc - sp.Rational(low.numerator, low.denominator)),
        ("BC <= high", sp.Rational(high.numerator, high.denominator) - bc),
    ):
        point = first_violation(expr, points)
        if point is not None:
            return fails(
                Method.CHECKED,
                f"'{name}' is false (low={low}, high={high}).",
                f"{show(point)}: BC = {sp.N(bc.subs({sym(k): v for k, v in point.items()}), 8)}",
            )
    if low <= Fraction(1, 2) and high >= 1:
        return holds(
            Method.PROVED,
            "1 - BC = s - sqrt(s^2-Delta^2) >= 0 and BC - 1/2 = (1/2 - s) + sqrt(s^2-Delta^2) >= 0 on the domain.",
        )
    return holds(Method.CHECKED, "No counterexample on the exact grid.")


def check_log_bound(factor: Fraction = Fraction(2), low: Fraction = Fraction(1, 2)) -> Outcome:
    """Proof: -log x <= factor (1 - x) on [low, 1] (paper: 2, 1/2).

    g(x) = factor(1-x) + log x is concave (g'' = -1/x^2 < 0), so min g on
    [low, 1] is at an end: g(1) = 0 and g(low) >= 0 is decided exactly by sympy.
    """
    x = sym("x")
    c = sp.Rational(factor.numerator, factor.denominator)
    g = c * (1 - x) + sp.log(x)
    concave = sp.simplify(sp.diff(g, x, 2) + 1 / x**2) == 0
    at_low = g.subs(x, sp.Rational(low.numerator, low.denominator))
    if at_low.is_negative:
        return fails(
            Method.PROVED,
            f"-log x <= {factor}(1-x) is false at x = {low}.",
            f"x={low}: g = {at_low} ~ {sp.N(at_low, 8)} < 0",
        )
    if concave and at_low.is_nonnegative and g.subs(x, 1) == 0:
        return holds(
            Method.PROVED,
            f"g(x) = {factor}(1-x) + log x is concave with g(1) = 0 and g({low}) = {at_low} ~ {sp.N(at_low, 6)} >= 0.",
        )
    return holds(Method.CHECKED, "Undecided symbolically.")


def check_step_i(constant: Fraction = Fraction(32, 3), product: str = "3*s/4 + Delta/4 - Delta**2/2") -> Outcome:
    """Step (i): 2 Delta^2/(s + r) <= constant * Delta^2 / (4V + 4/3(1+Delta)Delta).

    With X = 3/16 (4V + 4/3(1+Delta)Delta) = 3/4 s + Delta/4 - Delta^2/2 > 0 (identity),
    (i) <=> r >= (32/(3 constant)) X - s. For 32/3 the right side is
    -(s - Delta)/4 - Delta^2/2 <= 0 (s = Delta + t, t >= 0); other constants are
    searched on an exact grid.
    """
    d, s, t = sym("Delta"), sym("s"), sym("t")
    v = s - d**2
    x_expr = sp.Rational(3, 16) * (4 * v + sp.Rational(4, 3) * (1 + d) * d)
    if not is_identity(x_expr, parse(product)):
        return fails(
            Method.PROVED,
            f"3/16 (4V + 4/3(1+Delta)Delta) = {sp.expand(x_expr)}.",
            show(identity_counterexample(x_expr, parse(product), lb_points(4)) or {}),
        )
    c = sp.Rational(constant.numerator, constant.denominator)
    r = sp.sqrt(s**2 - d**2)
    lhs = 2 * d**2 / (s + r)
    rhs = c * d**2 / (4 * v + sp.Rational(4, 3) * (1 + d) * d)
    point = first_violation(rhs - lhs, lb_points(60))
    if point is not None:
        return fails(Method.CHECKED, f"Step (i) with constant {constant} is false.", f"{show(point)}: lhs > rhs")
    right = 32 / (3 * c) * x_expr - s
    if (-right).subs(s, d + t).expand().is_nonnegative or sp.factor((-right).subs(s, d + t)).is_nonnegative:
        return holds(
            Method.PROVED,
            f"(i) <=> sqrt(s^2-Delta^2) >= {sp.expand(right)}, whose right "
            "side is -(s-Delta)/4 - Delta^2/2 <= 0 (s >= Delta); 3/16(4V + 4/3(1+Delta)"
            "Delta) = 3/4 s + Delta/4 - Delta^2/2 (identity).",
        )
    return holds(Method.CHECKED, f"No counterexample on the exact grid ({len(lb_points(60))} points).")


def check_final_constant(
    step_constant: Fraction = Fraction(32, 3), claimed: Fraction = Fraction(11), final: Fraction = Fraction(11)
) -> Outcome:
    """Step (i) continued and the final exponent: (32/3) Delta^2/(4V + ...) <= 11/(2 H3), and
    (1/4) exp(-2n * 11/(2 H3)) = (1/4) exp(-11 n / H3).

    Delta^2/(4V + 4/3(1+Delta)Delta) = 1/(2 H3) is an identity, so the middle
    inequality is 32/3 <= 11; the factor 2 of "-2n(...)" cancels the 2 of
    "1/(2 H3)" iff the final constant equals the claimed one. Cross-checked
    numerically: BC^{2n} >= exp(-final n / H3) on the exact grid for n = 1, 7, 60.
    """
    d, s, n = sym("Delta"), sym("s"), sym("n")
    v = s - d**2
    half_inverse = is_identity(d**2 / (4 * v + sp.Rational(4, 3) * (1 + d) * d), 1 / (2 * _h3()))
    if not half_inverse:
        raise AssertionError("Delta^2/(4V + ...) != 1/(2 H3)")
    if step_constant > claimed:
        return fails(
            Method.PROVED,
            f"{step_constant} * 1/(2 H3) <= {claimed}/(2 H3) needs {step_constant} <= {claimed}.",
            f"any point: {step_constant} > {claimed}",
        )
    c, f = (sp.Rational(q.numerator, q.denominator) for q in (claimed, final))
    if not is_identity(2 * n * c / (2 * _h3()), f * n / _h3()):
        return fails(
            Method.PROVED,
            f"-2n * {claimed}/(2 H3) = -{claimed} n/H3, not -{final} n/H3.",
            f"n=1, Delta=1/4, s=1/4: exponents {-claimed} / H3 vs {-final} / H3",
        )
    bc = parse(BC_TEXT)
    for count in (1, 7, 60):
        gap = 2 * count * sp.log(bc) + f * count / _h3()
        point = first_violation(gap, lb_points(30))
        if point is not None:
            return fails(Method.CHECKED, "BC^{2n} < exp(-final n/H3).", f"n={count}, {show(point)}")
    return holds(
        Method.PROVED,
        f"Delta^2/(4V + 4/3(1+Delta)Delta) = 1/(2 H3) (identity); "
        f"{step_constant} <= {claimed}; 2n * {claimed}/(2 H3) = {final} n/H3. "
        "The best constant from this proof is 32/3. Numeric cross-check of "
        "BC^{2n} >= exp(-11 n/H3) for n = 1, 7, 60 on an exact grid.",
    )


def _claims() -> tuple[Claim, ...]:
    thm = "Theorem thm:lower-bound"
    return (
        Claim(
            "lb-moments",
            f"{thm}, first two parts",
            "E_P[X-Y] = Delta, E_Q[X-Y] = -Delta, Var_P = Var_Q = s - Delta^2",
            Status.HOLDS,
            lambda: check_moments(),
        ),
        Claim(
            "lb-bhattacharyya",
            f"{thm}, proof, BC and Hellinger",
            "BC(P,Q) = (1-s) + sqrt(s^2-Delta^2), H^2 = 2(1-BC), TV(P^n,Q^n) <= sqrt(1-BC^{2n})",
            Status.HOLDS,
            lambda: check_bc(),
        ),
        Claim(
            "lb-sqrt-bound",
            f"{thm}, proof, '1 - sqrt(1-x) >= x/2'",
            "1 - sqrt(1-x) >= x/2 for x in [0,1]",
            Status.HOLDS,
            lambda: check_sqrt_bound(),
        ),
        Claim(
            "lb-bc-range",
            f"{thm}, proof, 'Notice that ...'",
            "(1-s) + sqrt(s^2-Delta^2) in [1/2, 1] for s in [Delta, 1/2]",
            Status.HOLDS,
            lambda: check_bc_range(),
        ),
        Claim(
            "lb-log-bound",
            f"{thm}, proof, '-log(x) <= 2(1-x)'",
            "-log x <= 2(1-x) for x in [1/2, 1]",
            Status.HOLDS,
            lambda: check_log_bound(),
        ),
        Claim(
            "lb-step-i",
            f"{thm}, proof, step (i)",
            "2 Delta^2/(s + sqrt(s^2-Delta^2)) <= 32/3 Delta^2/(4V + 4/3(1+Delta)Delta)",
            Status.HOLDS,
            lambda: check_step_i(),
        ),
        Claim(
            "lb-constant-11",
            f"{thm}, proof, constant 11 and final exponent",
            "32/3 Delta^2/(4V + 4/3(1+Delta)Delta) <= 11/(2 H3) and exp(-2n 11/(2H3)) = exp(-11 n/H3)",
            Status.HOLDS,
            lambda: check_final_constant(),
        ),
    )


CLAIMS = _claims()
