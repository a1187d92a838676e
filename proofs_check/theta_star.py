"""Proposition thm:theta-star and its proof (Appendix "Proof of Proposition thm:theta-star").

Notation: mu = mu*, Delta = Delta_i, D = (mu - Delta)(1 - mu) = Cov_max,
b = 2/3 (1 + Delta) Delta, theta = Cov_{*,i} / D. H_{3,i} < H_{2,i} iff
2 V_{*,i} + b < 1, and V_{*,i} = V_1 + V_i - 2 theta D.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import (
    Expr,
    Point,
    fails,
    grid,
    holds,
    identity_counterexample,
    is_identity,
    parse,
    show,
    sym,
    with_conditions,
)
from sysrs_ref import Instance
from sysrs_ref.theory import hardness

__all__ = [
    "ArmStats",
    "CLAIMS",
    "NON_BINARY_WITNESS",
    "THETA_STAR",
    "arm_stats",
    "binary_pairs",
    "check_crosscheck",
    "check_numerator",
    "check_rearrange",
    "check_step_equivalently",
    "check_sufficient",
    "check_tight",
    "check_variance_bound",
    "domain_points",
    "theta_star_value",
]

THETA_STAR = "(-Delta**2/3 + Delta*mu - Delta/3 - mu**2 + mu - 1/4)/((mu - Delta)*(1 - mu))"
"""theta*(mu*, Delta_i) exactly as printed in Proposition thm:theta-star."""

NON_BINARY_WITNESS: tuple[tuple[Fraction, ...], ...] = (
    (Fraction(4, 5), Fraction(4, 5)),
    (Fraction(1, 2), Fraction(1, 2)),
)
"""Constant scores 4/5 and 1/2: theta = 0 <= theta* = 1/5, yet H_{3,2} < H_{2,2}."""


@dataclass(frozen=True)
class ArmStats:
    """Exact mu*, Delta_i, V_1, V_i, Cov_{*,i} and theta_i of one suboptimal arm."""

    mu: Fraction
    delta: Fraction
    v_best: Fraction
    v_arm: Fraction
    cov: Fraction

    @property
    def d(self) -> Fraction:
        return (self.mu - self.delta) * (1 - self.mu)

    @property
    def theta(self) -> Fraction:
        return self.cov / self.d


def arm_stats(instance: Instance, arm: int) -> ArmStats:
    """The statistics of *arm* against the (unique) best model of *instance*."""
    (best,) = instance.tiers[0]
    x, y = instance.rows[best], instance.rows[arm]
    length = len(x)
    mx, my = sum(x, Fraction(0)) / length, sum(y, Fraction(0)) / length
    vx = sum(((a - mx) ** 2 for a in x), Fraction(0)) / length
    vy = sum(((a - my) ** 2 for a in y), Fraction(0)) / length
    cov = sum(((a - mx) * (c - my) for a, c in zip(x, y, strict=True)), Fraction(0)) / length
    return ArmStats(mx, mx - my, vx, vy, cov)


def theta_star_value(theta_star: str, mu: Fraction, delta: Fraction) -> Fraction:
    """theta*(mu, Delta) evaluated exactly."""
    value = parse(theta_star).subs(
        {
            sym("mu"): sp.Rational(mu.numerator, mu.denominator),
            sym("Delta"): sp.Rational(delta.numerator, delta.denominator),
        }
    )
    return Fraction(int(value.p), int(value.q))


def binary_pairs(max_queries: int = 5) -> list[Instance]:
    """Every 2 x L 0/1 instance (L <= max_queries) with a unique best and D > 0."""
    out = []
    for length in range(1, max_queries + 1):
        for a, c in itertools.product(itertools.product((0, 1), repeat=length), repeat=2):
            if sum(a) <= sum(c) or sum(a) == length or sum(c) == 0:
                continue
            out.append(Instance([list(a), list(c)]))
    return out


def domain_points(steps: int = 40) -> list[Point]:
    """Exact rational grid (plus seeded random points) on 0 < Delta < mu < 1."""
    box = {"mu": (Fraction(0), Fraction(1)), "Delta": (Fraction(0), Fraction(1))}
    return grid(box, steps, lambda p: 0 < p["Delta"] < p["mu"] < 1, open_ends=True)


def _bonus() -> Expr:
    d = sym("Delta")
    return sp.Rational(2, 3) * (1 + d) * d


def _binary_threshold() -> Expr:
    """(2 mu(1-mu) + 2 (mu-Delta)(1-mu+Delta) + b - 1) / (4D): theta where 2V + b = 1 for binary scores."""
    mu, d = sym("mu"), sym("Delta")
    return (2 * mu * (1 - mu) + 2 * (mu - d) * (1 - mu + d) + _bonus() - 1) / (4 * (mu - d) * (1 - mu))


def _exact(expr: Expr, point: Point) -> Fraction:
    """A rational expression evaluated exactly at a rational point."""
    value = expr.subs({sym(k): sp.Rational(v.numerator, v.denominator) for k, v in point.items()})
    return Fraction(int(value.p), int(value.q))


def check_numerator(
    proposition: str = "-Delta**2/3 + Delta*mu - Delta/3 - mu**2 + mu - 1/4",
    corollary: str = "-Delta**2/3 + Delta*(mu - 1/3) - (mu**2 - mu + 1/4)",
    completed: str = "-Delta**2/3 + (mu - 1/3)*Delta - (mu - 1/2)**2",
) -> Outcome:
    """theta*'s numerator: Proposition thm:theta-star vs. Appendix "Proof of Corollary" (N and its case-1 form)."""
    forms = {"Proposition": parse(proposition), "Corollary N": parse(corollary), "Corollary case 1": parse(completed)}
    names = list(forms)
    for first, second in itertools.pairwise(names):
        if not is_identity(forms[first], forms[second]):
            point = identity_counterexample(forms[first], forms[second], domain_points(5))
            return fails(Method.PROVED, f"The {first} and {second} numerators differ.", show(point or {}))
    return holds(Method.PROVED, "The three printed forms of the numerator N(mu*, Delta) are equal.")


def check_step_equivalently(
    theta_star: str = THETA_STAR, four_times: str = "-mu**2 - Delta/3 + mu + mu*Delta - Delta**2/3 - 1/4"
) -> Outcome:
    """Proof, "or equivalently": theta > theta* <=> 4(...) < 4 theta (mu-Delta)(1-mu).

    4 theta D - 4(...) = 4 D (theta - theta*) is an identity and D > 0 on
    0 < Delta < mu < 1 (both factors positive), so the two inequalities are equivalent.
    """
    theta, mu, d = sym("theta"), sym("mu"), sym("Delta")
    dd = (mu - d) * (1 - mu)
    lhs = 4 * theta * dd - 4 * parse(four_times)
    rhs = 4 * dd * (theta - parse(theta_star))
    if not is_identity(lhs, rhs):
        point = identity_counterexample(lhs, rhs, [dict(p, theta=Fraction(1, 2)) for p in domain_points(5)])
        return fails(
            Method.PROVED,
            "4 theta D - 4(...) != 4 D (theta - theta*), so the rearrangement is not an equivalence.",
            show(point or {}),
        )
    return holds(
        Method.PROVED,
        "4 theta D - 4(...) = 4 D (theta - theta*) identically and D = (mu-Delta)(1-mu) > 0 on the domain.",
    )


def check_rearrange(
    line2: str = "4*(-mu**2 - Delta/3 + mu + mu*Delta - Delta**2/3) - 4*theta*(mu - Delta)*(1 - mu)",
    line3: str = "2*(mu*(1 - mu) + (mu - Delta)*(1 - mu + Delta) "
    "- 2*theta*(mu - Delta)*(1 - mu)) + 2*(1 + Delta)*Delta/3",
) -> Outcome:
    """Proof, "by rearranging the terms" and "and thus": both displays are the same inequality.

    line2 - 1 = 4(... - 1/4) - 4 theta D (moving the 1/4) and line3 = line2, identically.
    """
    theta, mu, d = sym("theta"), sym("mu"), sym("Delta")
    line1 = 4 * (-(mu**2) - d / 3 + mu + mu * d - d**2 / 3 - sp.Rational(1, 4)) - 4 * theta * (mu - d) * (1 - mu)
    second, third = parse(line2), parse(line3)
    points = [dict(p, theta=Fraction(1, 3)) for p in domain_points(5)]
    for name, lhs, rhs in (("rearranging", second - 1, line1), ("and thus", third, second)):
        if not is_identity(lhs, rhs):
            return fails(
                Method.PROVED,
                f"Step '{name}' is not an identity.",
                show(identity_counterexample(lhs, rhs, points) or {}),
            )
    return holds(
        Method.PROVED,
        "Both steps are identities: the third display is "
        "2(mu(1-mu) + (mu-Delta)(1-mu+Delta) - 2 theta D) + 2/3(1+Delta)Delta < 1.",
    )


def check_variance_bound(bound: str = "m*(1 - m)") -> Outcome:
    """Proof: V_1 <= mu*(1-mu*), V_i <= (mu*-Delta)(1-mu*+Delta) for [0,1]-valued scores.

    Var X = E X^2 - m^2 and m(1-m) - Var X = E X - E X^2 = E[X(1-X)] >= 0 (an
    identity in the moments), with equality iff X is {0,1}-valued. Cross-checked
    on every 0/1 population of size <= 6 and on random exact populations.
    """
    ex, ex2 = sp.symbols("EX EX2", real=True)
    claimed = parse(bound).subs(sym("m"), ex)
    proved = is_identity(claimed - (ex2 - ex**2), ex - ex2)
    populations: list[tuple[Fraction, ...]] = [
        tuple(Fraction(v) for v in values) for size in range(1, 7) for values in itertools.product((0, 1), repeat=size)
    ]
    populations += [tuple(Fraction(j, 7) for j in values) for values in itertools.product(range(8), repeat=3)]
    for population in populations:
        m = sum(population, Fraction(0)) / len(population)
        var = sum(((v - m) ** 2 for v in population), Fraction(0)) / len(population)
        value = parse(bound).subs(sym("m"), sp.Rational(m.numerator, m.denominator))
        if var > value:
            return fails(
                Method.CHECKED,
                f"Var X <= {bound} is false.",
                f"X uniform on {[str(v) for v in population]}: Var = {var} > {value}",
            )
    if proved:
        return holds(
            Method.PROVED,
            "m(1-m) - Var X = E[X(1-X)] >= 0 for X in [0,1] (identity); "
            "equality iff X is {0,1}-valued. Cross-checked on 638 exact populations.",
        )
    return holds(Method.CHECKED, "No counterexample on 638 exact populations.")


def check_sufficient(theta_star: str = THETA_STAR) -> Outcome:
    """Proposition thm:theta-star: theta_i > theta* => H_{3,i} < H_{2,i} (=> H3 < H2 if for all i).

    2 V_* + b - 1 <= 2(mu(1-mu) + (mu-Delta)(1-mu+Delta) - 2 theta D) + b - 1
    = 4 D (theta_b - theta), where theta_b is the binary threshold; the
    implication holds for every admissible (V_1, V_i) iff theta* >= theta_b on
    0 < Delta < mu < 1. For the paper's theta*, theta* - theta_b simplifies
    to 0. Otherwise theta* - theta_b is searched for a negative value on an
    exact grid. H_{3,i} < H_{2,i} <=> 2 V_* + b < 1 (multiply by Delta^2 > 0),
    and the max over i of smaller terms is smaller.
    """
    difference = sp.simplify(parse(theta_star) - _binary_threshold())
    if difference == 0:
        return holds(
            Method.PROVED,
            "theta* equals the threshold at which binary scores (the "
            "largest variances) give 2V_* + 2/3(1+Delta)Delta = 1, so theta > theta* "
            "forces 2V_* + 2/3(1+Delta)Delta < 1, i.e. H_3i < H_2i. Typo in the proof: "
            "'H_3 = max_k k H_{3,i}' should read 'max_k k H_{3,k}'.",
        )
    threshold = _binary_threshold()
    for point in domain_points():
        mu, d = point["mu"], point["Delta"]
        low = max(theta_star_value(theta_star, mu, d), Fraction(0))
        high = min(_exact(threshold, point), Fraction(1))
        if low < high:  # a realisable theta in (theta*, theta_b) and in [0, 1]
            theta = (low + high) / 2
            dd = (mu - d) * (1 - mu)
            v_star = mu * (1 - mu) + (mu - d) * (1 - mu + d) - 2 * theta * dd
            lhs = 2 * v_star + Fraction(2, 3) * (1 + d) * d
            return fails(
                Method.CHECKED,
                "theta* is below the binary threshold somewhere, so theta > theta* does not force H_3i < H_2i.",
                f"{show(point)}, binary scores with theta={theta} > theta*="
                f"{theta_star_value(theta_star, mu, d)}: 2V_* + 2/3(1+Delta)Delta = "
                f"{lhs} >= 1",
            )
    return holds(Method.CHECKED, "theta* >= binary threshold on the exact grid (not proved).")


def check_tight(
    theta_star: str = THETA_STAR, witness: tuple[tuple[Fraction, ...], ...] = NON_BINARY_WITNESS
) -> Outcome:
    """The "if and only if" before Proposition thm:theta-star and "tightly characterizes".

    The exact threshold is theta_exact = (2 V_1 + 2 V_i + b - 1)/(4D), and
    theta* - theta_exact = [2(mu(1-mu) - V_1) + 2((mu-Delta)(1-mu+Delta) - V_i)]/(4D)
    >= 0, zero iff both arms' scores are {0,1}-valued. So the converse holds for
    binary scores (checked on every 2 x L 0/1 instance, L <= 5, with
    ``sysrs_ref.theory.hardness``) and fails in general (the witness).
    """
    mu, d = sym("mu"), sym("Delta")
    v1, vi = sp.symbols("V_1 V_i", positive=True)
    dd = (mu - d) * (1 - mu)
    exact = (2 * v1 + 2 * vi + _bonus() - 1) / (4 * dd)
    slack = (2 * (mu * (1 - mu) - v1) + 2 * ((mu - d) * (1 - mu + d) - vi)) / (4 * dd)
    slack_identity = is_identity(parse(theta_star) - exact, slack)
    for instance in binary_pairs():
        stats = arm_stats(instance, instance.tiers[1][0])
        h = hardness(instance)
        assert h.h2 is not None and h.h3 is not None
        above = stats.theta > theta_star_value(theta_star, stats.mu, stats.delta)
        if above != (h.h3 < h.h2):
            return fails(
                Method.CHECKED,
                "Even for binary scores, theta > theta* is not equivalent to H_3i < H_2i.",
                f"scores {[list(r) for r in instance.numerators]}: theta={stats.theta}, "
                f"theta*={theta_star_value(theta_star, stats.mu, stats.delta)}, "
                f"H3={h.h3}, H2={h.h2}",
            )
    instance = Instance([list(row) for row in witness])
    stats = arm_stats(instance, instance.tiers[1][0])
    h = hardness(instance)
    bound = theta_star_value(theta_star, stats.mu, stats.delta)
    assert h.h2 is not None and h.h3 is not None
    if stats.theta <= bound and h.h3 < h.h2:
        rows = [[str(v) for v in row] for row in witness]
        return with_conditions(
            Method.CHECKED if not slack_identity else Method.PROVED,
            "theta* - theta_exact = [2(mu(1-mu) - V_1) + 2((mu-Delta)(1-mu+Delta) - V_i)]/(4D) "
            "(identity), so theta* is the exact threshold only when both variances are maximal, "
            "i.e. binary scores; there the equivalence was also confirmed on every 2 x L 0/1 "
            "instance with L <= 5. For general [0,1] scores theta* is only sufficient: "
            f"scores {rows} have theta={stats.theta} <= theta*={bound} but H3={h.h3} < H2={h.h2}. "
            "Corrected statement: H_3i < H_2i iff theta_i > theta* when S_(i*)J, S_(i)J are "
            "{0,1}-valued; in general iff theta_i > theta* - [2(mu*(1-mu*) - V_1) + "
            "2(mu_i(1-mu_i) - V_i)]/(4 (mu*-Delta_i)(1-mu*)).",
            ["scores of both arms are {0,1}-valued (V_1 = mu*(1-mu*), V_i = mu_i(1-mu_i))"],
            counterexample=f"scores {rows}: theta=0 <= theta*={bound}, H3={h.h3} < H2={h.h2}",
        )
    return holds(Method.CHECKED, "The equivalence held on every instance tried.")


def check_crosscheck(theta_star: str = THETA_STAR) -> Outcome:
    """Cross-check: the symbolic theta* agrees with ``sysrs_ref.theory.threshold.theta_star``.

    Exact rational grid mu, Delta in {0, 1/24, ..., 1} with Delta <= mu; the
    reference returns None exactly where D = (mu - Delta)(1 - mu) = 0.
    """
    from sysrs_ref.theory.threshold import theta_star as reference

    count = 0
    for i in range(25):
        for j in range(i + 1):
            mu, d = Fraction(i, 24), Fraction(j, 24)
            expected = reference(mu, d)
            if (mu - d) * (1 - mu) == 0:
                if expected is not None:
                    return fails(Method.CHECKED, "Reference is defined where D = 0.", f"mu={mu}, Delta={d}")
                continue
            count += 1
            mine = theta_star_value(theta_star, mu, d)
            if mine != expected:
                return fails(
                    Method.CHECKED,
                    "theta* differs from sysrs_ref.theory.threshold.",
                    f"mu={mu}, Delta={d}: {mine} != {expected}",
                )
    return holds(Method.CHECKED, f"Equal at all {count} exact grid points with D > 0 (and both undefined where D = 0).")


def _claims() -> tuple[Claim, ...]:
    prop = "Proposition thm:theta-star"
    return (
        Claim(
            "theta-star-numerator",
            f"{prop} and proof of Corollary (N)",
            "The numerator of theta* in Prop. thm:theta-star equals the Corollary's N",
            Status.HOLDS,
            lambda: check_numerator(),
        ),
        Claim(
            "theta-star-step-equivalently",
            f"{prop}, proof, 'or equivalently'",
            "theta > theta* <=> 4 N < 4 theta (mu-Delta)(1-mu)",
            Status.HOLDS,
            lambda: check_step_equivalently(),
        ),
        Claim(
            "theta-star-step-rearrange",
            f"{prop}, proof, 'rearranging' and 'and thus'",
            "4(N + 1/4) - 4 theta D < 1 <=> 2(mu(1-mu) + (mu-Delta)(1-mu+Delta) - 2 theta D) + 2/3(1+Delta)Delta < 1",
            Status.HOLDS,
            lambda: check_rearrange(),
        ),
        Claim(
            "theta-star-variance-bound",
            f"{prop}, proof, variance bounds",
            "V_1 <= mu*(1-mu*), V_i <= (mu*-Delta_i)(1-mu*+Delta_i)",
            Status.HOLDS,
            lambda: check_variance_bound(),
        ),
        Claim(
            "theta-star-sufficient",
            f"{prop} (statement) and eq. (h3-h2-condition)",
            "theta_i > theta*(mu*, Delta_i) => H_3i < H_2i; for all i => H3 < H2",
            Status.HOLDS,
            lambda: check_sufficient(),
        ),
        Claim(
            "theta-star-tight",
            f"Text before {prop} ('if and only if'); Sec. Regimes ('tightly')",
            "H_3i < H_2i if and only if theta_i > theta*(mu*, Delta_i)",
            Status.HOLDS_WITH_CONDITIONS,
            lambda: check_tight(),
        ),
        Claim(
            "theta-star-crosscheck",
            f"{prop}: code vs. paper",
            "sysrs_ref.theory.threshold.theta_star equals the printed theta*(mu*, Delta)",
            Status.HOLDS,
            lambda: check_crosscheck(),
        ),
    )


CLAIMS = _claims()
