"""Shared tools for the checks: symbols, parsing, identities, sign proofs, exact grids.

sympy is untyped, so expressions cross function boundaries here as ``Expr``
(``sympy.Expr``, unchecked by mypy); statement data is always plain text,
Fractions or ints, which is what the tests mutate.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import pairwise, product
from typing import TypeAlias

import mpmath  # type: ignore[import-untyped]  # reason: mpmath ships no type information
import sympy as sp

from proofs_check.claim import Method, Outcome, Status

__all__ = [
    "DPS",
    "Expr",
    "Point",
    "SYMBOLS",
    "fails",
    "first_violation",
    "grid",
    "holds",
    "identity_counterexample",
    "is_identity",
    "nonneg_by_assumptions",
    "parse",
    "show",
    "univariate_counterexample",
    "with_conditions",
]

Expr: TypeAlias = "sp.Expr"
"""A sympy expression. sympy ships no type information (the mypy override in
pyproject.toml), so this is unchecked; statement data is always str/Fraction/int."""
Point = dict[str, Fraction]

DPS = 60
"""Decimal digits of the mpmath evaluation used for numeric checks."""
_TOL = mpmath.mpf(10) ** -40

# Every variable of the paper is a positive real: gaps, means, variances, budgets.
SYMBOLS: dict[str, Expr] = {
    name: sp.Symbol(name, positive=True)
    for name in (
        "mu",
        "Delta",
        "s",
        "V",
        "theta",
        "x",
        "y",
        "eps",
        "sigma2",
        "M",
        "lam",
        "u",
        "n",
        "m",
        "t",
        "a",
        "b",
        "H3",
        "lb",
        "r",
    )
}
SYMBOLS["K"] = sp.Symbol("K", integer=True, positive=True)
SYMBOLS["k"] = sp.Symbol("k", integer=True, positive=True)
SYMBOLS["i"] = sp.Symbol("i", integer=True, positive=True)


def parse(text: str) -> Expr:
    """Parse a statement's expression; ``1/4`` is the exact rational 1/4."""
    return sp.sympify(text, locals=SYMBOLS, rational=True)


def sym(name: str) -> Expr:
    """The paper variable *name*."""
    return SYMBOLS[name]


def show(point: Mapping[str, Fraction | int]) -> str:
    """A point as ``mu=4/5, Delta=3/10``."""
    return ", ".join(f"{key}={value}" for key, value in point.items())


def holds(method: Method, detail: str) -> Outcome:
    return Outcome(Status.HOLDS, method, detail)


def fails(method: Method, detail: str, counterexample: str) -> Outcome:
    return Outcome(Status.FAILS, method, f"{detail} Counterexample: {counterexample}.", counterexample=counterexample)


def with_conditions(
    method: Method, detail: str, conditions: Sequence[str], counterexample: str | None = None
) -> Outcome:
    return Outcome(Status.HOLDS_WITH_CONDITIONS, method, detail, tuple(conditions), counterexample)


def is_identity(lhs: Expr, rhs: Expr) -> bool:
    """True when lhs - rhs simplifies to 0 (symbolic proof of an identity)."""
    difference = sp.simplify(sp.radsimp(sp.expand(lhs - rhs)))
    return bool(difference == 0)


def _evaluate(expr: Expr, point: Mapping[str, Fraction]) -> object:
    names = sorted(point)
    with mpmath.workdps(DPS):
        function = sp.lambdify([SYMBOLS[name] for name in names], expr, modules="mpmath")
        return function(*(mpmath.mpf(point[name].numerator) / point[name].denominator for name in names))


def identity_counterexample(lhs: Expr, rhs: Expr, points: Iterable[Point]) -> Point | None:
    """A point where lhs != rhs (exact rational evaluation), or None."""
    difference = lhs - rhs
    for point in points:
        value = sp.nsimplify(difference).subs(
            {SYMBOLS[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
        )
        if value.is_number and abs(complex(sp.N(value, DPS))) > 1e-30:
            return dict(point)
    return None


def first_violation(expr: Expr, points: Iterable[Point], *, strict: bool = False) -> Point | None:
    """The first point where ``expr >= 0`` (``> 0`` if *strict*) is false, or None.

    Evaluated with mpmath at :data:`DPS` digits; a value within 1e-40 of 0
    counts as 0 (so a strict claim fails at an equality point).
    """
    names: list[str] | None = None
    function: Callable[..., object] | None = None
    with mpmath.workdps(DPS):
        for point in points:
            if names is None or sorted(point) != names:
                names = sorted(point)
                function = sp.lambdify([SYMBOLS[name] for name in names], expr, modules="mpmath")
            assert function is not None
            value = function(*(mpmath.mpf(point[name].numerator) / point[name].denominator for name in names))
            if isinstance(value, mpmath.mpc):
                if abs(value.imag) > _TOL:
                    continue  # outside the real domain of the expression
                value = value.real
            if value < -_TOL or (strict and value <= _TOL):
                return dict(point)
    return None


def grid(
    box: Mapping[str, tuple[Fraction, Fraction]],
    steps: int,
    keep: Callable[[Point], bool] = lambda point: True,
    *,
    random_points: int = 200,
    seed: int = 20240611,
    open_ends: bool = False,
) -> list[Point]:
    """An exact rational grid over *box* (``steps`` steps per axis) plus seeded random points.

    Random points are rationals with denominator 10^6 drawn from a
    ``random.Random(seed)``; only points satisfying *keep* are returned.
    """
    names = list(box)
    axes = []
    for name in names:
        low, high = box[name]
        ticks = range(1, steps) if open_ends else range(steps + 1)
        axes.append([low + (high - low) * Fraction(j, steps) for j in ticks])
    points = [dict(zip(names, values, strict=True)) for values in product(*axes)]
    rng = random.Random(seed)
    for _ in range(random_points):
        points.append(
            {
                name: box[name][0] + (box[name][1] - box[name][0]) * Fraction(rng.randint(1, 999_999), 1_000_000)
                for name in names
            }
        )
    return [point for point in points if keep(point)]


def nonneg_by_assumptions(expr: Expr) -> bool:
    """True when sympy proves expr >= 0 from the positivity of every symbol in it (after factoring)."""
    factored = sp.factor(sp.together(expr))
    return bool(factored.is_nonnegative)


def univariate_counterexample(
    expr: Expr, name: str, low: Fraction, high: Fraction, *, strict: bool = False, closed: bool = True
) -> Fraction | None:
    """Prove ``expr >= 0`` (``> 0``) on [low, high] for a rational function of one variable.

    The sign can only change at a real root of the numerator or denominator;
    the numerator's and denominator's real roots are isolated exactly
    (``sympy.real_roots``), and the sign is evaluated exactly at each root,
    between consecutive roots and at the ends. Returns a rational point where
    the inequality is false (or the nearest rational to a root where it is), or
    None, which is a proof.
    """
    variable = SYMBOLS[name]
    rational = sp.together(expr)
    numerator, denominator = sp.fraction(rational)
    cuts: set[Fraction] = {low, high}
    for is_numerator, polynomial in ((True, numerator), (False, denominator)):
        poly = sp.Poly(polynomial, variable)
        if poly.degree() <= 0:
            continue
        for root in sp.real_roots(poly):
            if root.is_rational:
                cuts.add(Fraction(int(root.p), int(root.q)))
                continue
            approx = Fraction(str(sp.Rational(str(sp.N(root, 40)))))
            inside = low < approx < high if not closed else low <= approx <= high
            if inside and strict and is_numerator:
                return approx  # expr vanishes at this irrational point
            if low < approx < high:
                cuts.add(approx)
    ordered = sorted(cuts)
    tests = [c for c in ordered if c in (low, high) or _is_exact_cut(c)]
    tests += [(a + b) / 2 for a, b in pairwise(ordered)]
    for point in sorted(tests):
        if not closed and point in (low, high):
            continue
        if not low <= point <= high:
            continue
        value = rational.subs(variable, sp.Rational(point.numerator, point.denominator))
        if value.has(sp.zoo, sp.nan, sp.oo) or not value.is_number:
            continue
        if value < 0 or (strict and value == 0):
            return point
    return None


def _is_exact_cut(value: Fraction) -> bool:
    """Cuts with small denominators are exact rational roots; 40-digit approximations are not."""
    return value.denominator < 10**30
