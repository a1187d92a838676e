"""Lemma bernstein-bounded-wor and Lemma bernstein-paired (Appendix "Two Concentration Bounds")."""

from __future__ import annotations

import random
from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import (
    Point,
    fails,
    holds,
    identity_counterexample,
    is_identity,
    parse,
    show,
    sym,
    univariate_counterexample,
    with_conditions,
)

__all__ = [
    "CLAIMS",
    "check_event_reduction",
    "check_mgf_series",
    "check_moment_bound",
    "check_parameter_choice",
    "check_range_bound",
]


def _points(names: tuple[str, ...], count: int = 12, seed: int = 3) -> list[Point]:
    rng = random.Random(seed)
    return [{name: Fraction(rng.randint(1, 97), rng.randint(1, 13)) for name in names} for _ in range(count)]


def check_moment_bound(half: Fraction = Fraction(1, 2), base: int = 3) -> Outcome:
    """eq. (mom-bound-stoch): sigma^2 M^{k-2} <= half * sigma^2 k! (M/base)^{k-2} for all k >= 2.

    Paper: half = 1/2, base = 3. Dividing by sigma^2 M^{k-2} > 0 the claim is
    f(k) := half * k! / base^{k-2} >= 1. f(k+1)/f(k) = (k+1)/base (simplified
    by sympy), so f decreases while k + 1 < base and is non-decreasing after:
    its minimum over k >= 2 is at k0 = max(2, base - 1), evaluated exactly.
    The first step E|Z|^k <= sigma^2 M^{k-2} is |Z|^{k-2} <= M^{k-2}.
    """
    k = sym("k")
    f = sp.Rational(half.numerator, half.denominator) * sp.factorial(k) / sp.Integer(base) ** (k - 2)
    ratio = sp.simplify(sp.combsimp(f.subs(k, k + 1) / f))
    if not is_identity(ratio, (k + 1) / sp.Integer(base)):
        raise AssertionError(f"unexpected ratio {ratio}")
    k0 = max(2, base - 1)
    minimum = f.subs(k, k0)
    if minimum < 1:
        return fails(
            Method.PROVED,
            f"half*k!/base^(k-2) has minimum {minimum} < 1 at k={k0}.",
            f"k={k0}: sigma^2 M^{k0 - 2} > {half} sigma^2 {k0}! (M/{base})^{k0 - 2}",
        )
    return holds(
        Method.PROVED,
        f"f(k) = k!/(2*3^(k-2)) has f(k+1)/f(k) = {ratio}, so f is "
        f"non-decreasing for k >= 2 and min f = f({k0}) = {minimum} >= 1 "
        "(equality at k = 2 and k = 3; f(4) = 4/3). Holds for every k >= 2.",
    )


def check_mgf_series(closed_form: str = "lam**2*sigma2/(2*(1 - lam*M/3))") -> Outcome:
    """Proof of Lemma bernstein-bounded-wor: sum_{k>=2} lam^k sigma^2/2 (M/3)^{k-2} = closed_form.

    Paper: lam^2 sigma^2 / (2 (1 - u)) with u = lam M/3 in (0, 1). sympy sums
    the geometric series (valid for lam M < 3) and the difference simplifies to 0.
    Then 1 + x <= e^x (x >= 0) gives the exp bound.
    """
    k, lam, sigma2, m = sym("k"), sym("lam"), sym("sigma2"), sym("M")
    series = sp.summation(lam**k * sigma2 / 2 * (m / 3) ** (k - 2), (k, 2, sp.oo))
    piece = sp.piecewise_fold(series)
    value = piece.args[0][0] if isinstance(piece, sp.Piecewise) else piece
    claimed = parse(closed_form)
    if is_identity(value, claimed):
        return holds(
            Method.PROVED,
            "Geometric series summed by sympy (for lam M/3 < 1, i.e. u in (0, 1)) equals lam^2 sigma^2 / (2(1-u)).",
        )
    point = identity_counterexample(
        value, claimed, [{"lam": Fraction(1, 2), "sigma2": Fraction(1, 3), "M": Fraction(1)}]
    )
    return fails(Method.PROVED, f"The series is {sp.simplify(value)}, not {closed_form}.", show(point or {}))


def check_parameter_choice(
    u: str = "M*eps/(3*sigma2 + M*eps)",
    lam: str = "eps*(1 - u)/sigma2",
    s: str = "n*eps*sqrt(1 - u)/sqrt(2*n*sigma2)",
    s_squared: str = "(n*eps)**2/(2*n*sigma2 + 2*M*n*eps/3)",
) -> Outcome:
    """End of the proof of Lemma bernstein-bounded-wor: the choice of u, lambda, s.

    Checks (1) u = lambda M / 3, (2) 0 < u < 1, (3) n sigma^2 lambda/(2(1-u)) + s^2/lambda = n eps,
    (4) s^2 = (n eps)^2 / (2 n sigma^2 + 2/3 M n eps), and (5) the Markov step
    lambda (n sigma^2 lambda/(2(1-u)) + s^2/lambda) = n sigma^2 lambda^2/(2(1-u)) + s^2.
    """
    n, eps, sigma2, m = sym("n"), sym("eps"), sym("sigma2"), sym("M")
    u_e = parse(u)
    lam_e = parse(lam).subs(sym("u"), u_e)
    s_e = parse(s).subs(sym("u"), u_e)
    threshold = n * sigma2 * lam_e / (2 * (1 - u_e)) + s_e**2 / lam_e
    checks = [
        ("u = lambda M/3", u_e, lam_e * m / 3),
        ("n sigma^2 lambda/(2(1-u)) + s^2/lambda = n eps", threshold, n * eps),
        ("s^2 = (n eps)^2/(2 n sigma^2 + 2/3 M n eps)", s_e**2, parse(s_squared)),
        (
            "s^2 = n eps^2/(2 sigma^2 + 2/3 M eps) (the lemma's exponent)",
            s_e**2,
            n * eps**2 / (2 * sigma2 + sp.Rational(2, 3) * m * eps),
        ),
        ("Markov step", lam_e * threshold, n * sigma2 * lam_e**2 / (2 * (1 - u_e)) + s_e**2),
    ]
    for name, lhs, rhs in checks:
        if not is_identity(lhs, rhs):
            point = identity_counterexample(lhs, rhs, _points(("n", "eps", "sigma2", "M")))
            return fails(Method.PROVED, f"Identity '{name}' is false.", show(point or {}))
    if not (sp.factor(u_e).is_positive and sp.factor(sp.together(1 - u_e)).is_positive):
        return fails(Method.PROVED, "u is not provably in (0, 1).", f"u = {u_e}")
    return with_conditions(
        Method.PROVED,
        "All five identities simplify to 0 and u, 1-u are positive rational expressions, so "
        "u in (0, 1). The choice divides by sigma^2: the proof needs sigma^2 > 0, which the "
        "lemma does not assume (sigma^2 = 0 means every Z = 0 a.s., so P(mean >= eps) = 0 and "
        "the bound holds trivially).",
        ["sigma^2 > 0 (the case sigma^2 = 0 is trivial but not covered by the proof's choice)"],
    )


def check_range_bound(bound: str = "1 + Delta") -> Outcome:
    """Proof of Lemma bernstein-paired: |Z| = |Y - X + Delta| <= M = 1 + Delta for X, Y in [0,1], Delta in [0,1].

    Z is affine in (X, Y), so |Z| is maximal at a corner of [0,1]^2: values
    Delta, Delta, 1 + Delta, Delta - 1. bound - |corner| >= 0 on [0, 1] is
    proved per corner by exact univariate sign analysis, and the bound is
    attained at (X, Y) = (0, 1).
    """
    d = sym("Delta")
    m = parse(bound)
    for x, y in ((0, 0), (1, 1), (0, 1), (1, 0)):
        corner = y - x + d
        for signed in (corner, -corner):
            point = univariate_counterexample(m - signed, "Delta", Fraction(0), Fraction(1))
            if point is not None:
                return fails(
                    Method.PROVED,
                    f"|Y - X + Delta| <= {bound} is false.",
                    f"X={x}, Y={y}, Delta={point}: |Z| = {abs(y - x + point)} > "
                    f"{m.subs(d, sp.Rational(point.numerator, point.denominator))}",
                )
    return holds(
        Method.PROVED,
        "At the four corners |Z| is Delta, Delta, 1+Delta, 1-Delta, all "
        "<= 1 + Delta on [0, 1]; attained at (X, Y) = (0, 1).",
    )


def check_event_reduction(offset: int = 1) -> Outcome:
    """Proof of Lemma bernstein-paired: with Z_t = Y_t - X_t + offset*Delta, mean_Y >= mean_X iff mean_Z >= Delta.

    Paper: offset 1. sum_t Z_t - n Delta = sum_t (Y_t - X_t) + n (offset - 1) Delta
    (sympy, symbolic n); the population mean of Z is mu_Y - mu_X + offset*Delta = 0
    with Delta = mu_X - mu_Y; and E[Z^2] = Var(X - Y) (from raw moments), so
    sigma^2 = V_{*,i}. Finally the lemma's exponent with M = 1 + Delta, eps = Delta.
    """
    t = sp.Symbol("t", integer=True, positive=True)
    n, d = sym("n"), sym("Delta")
    xs, ys = sp.IndexedBase("X"), sp.IndexedBase("Y")
    total = sp.expand(sp.Sum(ys[t] - xs[t] + offset * d, (t, 1, n)).doit())
    rest = sp.simplify(total - sp.Sum(ys[t], (t, 1, n)) + sp.Sum(xs[t], (t, 1, n)) - n * d)
    if rest != 0:
        return fails(
            Method.PROVED,
            f"sum Z_t - n Delta - sum (Y_t - X_t) = {rest} != 0, so the events differ.",
            f"X=(1,), Y=(1,), n=1, Delta=1/2: mean_Y >= mean_X but mean_Z = {offset}/2 < Delta"
            if offset < 1
            else "n=1, Delta=1/2",
        )
    mx, my, ex2, ey2, exy = sp.symbols("mu_X mu_Y EX2 EY2 EXY", real=True)
    delta = mx - my
    mean_z = my - mx + offset * delta
    second = ey2 - 2 * exy + ex2 + 2 * delta * (my - mx) + delta**2  # E[(Y - X + Delta)^2]
    variance = ex2 - 2 * exy + ey2 - (mx - my) ** 2
    if sp.simplify(mean_z) != 0 or sp.simplify(second - variance) != 0:
        return fails(Method.PROVED, "Z is not centred.", "mu_X=3/4, mu_Y=1/4")
    eps, m, sigma2 = sym("eps"), sym("M"), sym("sigma2")
    lemma = n * eps**2 / (2 * sigma2 + sp.Rational(2, 3) * m * eps)
    paired = n * d**2 / (2 * sigma2 + sp.Rational(2, 3) * (1 + d) * d)
    assert is_identity(lemma.subs({eps: d, m: 1 + d}), paired)
    return holds(
        Method.PROVED,
        "sum Z_t - n Delta = sum (Y_t - X_t) (sympy, symbolic n), so the "
        "events coincide; E Z = 0 and E Z^2 = Var(X - Y) = V_{*,i}; substituting "
        "M = 1 + Delta, eps = Delta gives eq. (bernstein-pairs).",
    )


def _claims() -> tuple[Claim, ...]:
    lemma1 = "Lemma bernstein-bounded-wor"
    lemma2 = "Lemma bernstein-paired"
    return (
        Claim(
            "bernstein-moment-bound",
            f"{lemma1}, eq. (mom-bound-stoch)",
            "E|Z|^k <= sigma^2 M^(k-2) <= sigma^2/2 k! (M/3)^(k-2) for all k >= 2",
            Status.HOLDS,
            lambda: check_moment_bound(),
        ),
        Claim(
            "bernstein-mgf-series",
            f"{lemma1}, proof, MGF display",
            "sum_{k>=2} lam^k sigma^2/2 (M/3)^(k-2) = lam^2 sigma^2/(2(1-u)), u = lam M/3",
            Status.HOLDS,
            lambda: check_mgf_series(),
        ),
        Claim(
            "bernstein-parameter-choice",
            f"{lemma1}, proof, choice of u, lambda, s",
            "u = M eps/(3 sigma^2 + M eps), lambda = eps(1-u)/sigma^2, s = n eps sqrt(1-u)/"
            "sqrt(2 n sigma^2) give u = lambda M/3 in (0,1), threshold = n eps, "
            "s^2 = (n eps)^2/(2 n sigma^2 + 2/3 M n eps)",
            Status.HOLDS_WITH_CONDITIONS,
            lambda: check_parameter_choice(),
        ),
        Claim(
            "bernstein-paired-range",
            f"{lemma2}, proof, |Z_t| <= 1 + Delta =: M",
            "X, Y in [0,1], Delta in [0,1] => |Y - X + Delta| <= 1 + Delta",
            Status.HOLDS,
            lambda: check_range_bound(),
        ),
        Claim(
            "bernstein-paired-event",
            f"{lemma2}, proof, event reduction",
            "mean_Y >= mean_X <=> mean_Z >= Delta for Z = Y - X + Delta; E Z = 0, E Z^2 = V",
            Status.HOLDS,
            lambda: check_event_reduction(),
        ),
    )


CLAIMS = _claims()
