"""The code's bounds, thresholds and hardness measures are the formulas the paper's claims prove.

The sympy claims prove statements about formulas (the lower bound's
exponent 11 n / H3(Delta, V), theta*, the Bernstein exponents, the SR/SySRs
bound K(K-1)/2 exp(-(n - K)/(logbar(K) H))). Nothing there reads the
functions users call. Two claims link them:

- ``code-bound-formulas``. The rational functions of
  ``sysrs_ref.theory.bounds`` and ``sysrs_ref.theory.threshold`` run, unmodified,
  on :class:`Traced` numbers: each carries a sympy expression over the paper's
  symbols and a rational point. Arithmetic builds the expression; a comparison
  is decided at the point and recorded, so one run follows one path of the
  code and returns, on that path, the code's value as a formula. On every path
  the grid reaches, that formula must simplify to the claim's own formula
  (taken from the claim's statement data, not copied), and the code must refuse
  exactly the grid points outside its documented domain. The grids hold every
  boundary of every condition and points on both sides of it, so every path is
  reached (the detail lists the paths). The functions of an instance
  (``sysrs_bound``, ``sr_bound``, ``ucbe_bound``, ``ucbe_max_a``) run on every
  small matrix and every budget, and their prefactor and exponent must be the
  proven formula at H computed independently (below) and logbar(K) = 1/2 +
  sum_{i=2}^K 1/i.
- ``code-hardness-formulas``. ``hardness`` and ``arm_hardness`` on every
  matrix of a stated domain (deterministic, Bernoulli, finite laws, the
  paper's convention, and matrices whose exact numerators force each of the
  moment code's integer paths) against a direct implementation of the
  definitions: variances and covariances as expectations over the explicit
  joint law of (J, the cells' noise), H3 as the smallest max_i i H_{3,i} over
  every order of tied models (brute force, not the exchange argument),
  H_{3,i} from the lower-bound claim's H3(Delta, V) and theta* from the
  theta-star claim's formula.
"""

from __future__ import annotations

import inspect
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache

import sympy as sp

from proofs_check import bernstein, corollary, csr_bound, lower_bound, theta_star
from proofs_check.common import Expr, is_identity, parse, sym
from proofs_check.registry import Claim, Method, Outcome, Status
from sysrs_ref import Instance
from sysrs_ref.errors import BoundConditionError, ParameterError
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory import bounds, hardness, threshold
from sysrs_ref.theory.hardness import ArmHardness, Hardness, arm_hardness

__all__ = [
    "CLAIMS",
    "Traced",
    "brute_hardness",
    "check_bound_formulas",
    "check_hardness_formulas",
    "formula",
    "trace",
]

_LOG: list[tuple[str, Expr, bool]] = []
"""The comparisons of the running traced call: (relation, left - right, outcome)."""


def formula(function: Callable[..., object], parameter: str) -> Expr:
    """The formula a claim's check proves: the default of its statement-data *parameter*, parsed."""
    default = inspect.signature(function).parameters[parameter].default
    return default if isinstance(default, Fraction) else parse(str(default))


class Traced(Fraction):
    """A number of a traced call: a sympy expression over the paper's symbols, and the rational point it stands at.

    Arithmetic builds the expression (and the value at the point); a comparison
    is decided at the point and recorded. ``numerator``, ``denominator``,
    ``int()`` and rounding raise TypeError: code that would read a concrete
    stand-in cannot pass.

    >>> delta = Traced(sym("Delta"), Fraction(1, 4))
    >>> twice = 2 * delta + 1
    >>> twice.expr, twice.value, twice > 1
    (2*Delta + 1, Fraction(3, 2), True)
    """

    __slots__ = ("expr", "value")
    expr: Expr
    value: Fraction

    def __new__(cls, expr: Expr, value: Fraction) -> Traced:
        self = object.__new__(cls)
        self._numerator, self._denominator = 0, 1  # type: ignore[attr-defined]  # reason: Fraction's private slots, never read
        self.expr = expr
        self.value = Fraction(value)
        return self

    @staticmethod
    def _lift(other: object) -> Traced:
        if isinstance(other, Traced):
            return other
        if isinstance(other, bool) or not isinstance(other, int | Fraction):
            raise TypeError(f"traced arithmetic with {type(other).__name__}")
        exact = Fraction(other)
        return Traced(sp.Rational(exact.numerator, exact.denominator), exact)

    def __add__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        o = self._lift(other)
        return Traced(self.expr + o.expr, self.value + o.value)

    def __radd__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        return self._lift(other) + self

    def __sub__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        o = self._lift(other)
        return Traced(self.expr - o.expr, self.value - o.value)

    def __rsub__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        return self._lift(other) - self

    def __mul__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        o = self._lift(other)
        return Traced(self.expr * o.expr, self.value * o.value)

    def __rmul__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        return self._lift(other) * self

    def __truediv__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        o = self._lift(other)
        return Traced(self.expr / o.expr, self.value / o.value)  # ZeroDivisionError at the point, as the code would

    def __rtruediv__(self, other: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        return self._lift(other) / self

    def __pow__(self, exponent: object) -> Traced:  # type: ignore[override]  # reason: a traced operand stays Traced
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            raise TypeError("a traced value is raised to integer powers only")
        return Traced(self.expr**exponent, self.value**exponent)

    def __neg__(self) -> Traced:
        return Traced(-self.expr, -self.value)

    def __pos__(self) -> Traced:
        return self

    def __abs__(self) -> Traced:
        return -self if self < 0 else self

    def _compare(self, other: object, relation: str, outcome: bool) -> bool:
        _LOG.append((relation, sp.expand(self.expr - self._lift(other).expr), outcome))
        return outcome

    def __lt__(self, other: object) -> bool:
        return self._compare(other, "<", self.value < self._lift(other).value)

    def __le__(self, other: object) -> bool:
        return self._compare(other, "<=", self.value <= self._lift(other).value)

    def __gt__(self, other: object) -> bool:
        return self._compare(other, ">", self.value > self._lift(other).value)

    def __ge__(self, other: object) -> bool:
        return self._compare(other, ">=", self.value >= self._lift(other).value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, int | Fraction):
            return NotImplemented
        return self._compare(other, "==", self.value == self._lift(other).value)

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, int | Fraction):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:  # type: ignore[override]  # reason: numbers.Complex declares no hash
        return 0

    def __bool__(self) -> bool:
        return self != 0

    def _refuse(self, *args: object) -> object:
        raise TypeError("a traced value has no concrete numerator, denominator, integer part or rounding")

    numerator = property(_refuse)
    denominator = property(_refuse)
    __int__ = __floor__ = __ceil__ = __trunc__ = __round__ = __float__ = _refuse  # type: ignore[assignment]  # reason: one refusal for every conversion
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __rpow__ = __divmod__ = _refuse  # type: ignore[assignment]  # reason: refuses
    limit_denominator = as_integer_ratio = _refuse  # type: ignore[assignment]  # reason: refuses

    def __repr__(self) -> str:
        return f"Traced({self.expr} at {self.value})"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


Path = tuple[tuple[str, str, bool], ...]


def trace(
    function: Callable[..., object], point: dict[str, Fraction]
) -> tuple[Path, object, list[tuple[str, Expr, bool]]]:
    """Run *function* on Traced arguments (each the paper's symbol of its name, at *point*): its path and result.

    The result is the returned value, or the exception raised (a value, not raised); then the path's comparisons
    (relation, left - right, outcome).
    """
    _LOG.clear()
    arguments = [Traced(_symbol(name), value) for name, value in point.items()]
    try:
        result: object = function(*arguments)
    except (BoundConditionError, ParameterError, ZeroDivisionError) as error:
        result = error
    path = tuple((relation, sp.srepr(difference), outcome) for relation, difference, outcome in _LOG)
    conditions = list(_LOG)
    _LOG.clear()
    return path, result, conditions


@cache
def _symbol(name: str) -> Expr:
    try:
        return sym(name)
    except KeyError:
        return sp.Symbol(name, positive=True)


def _on_path(expr: Expr, conditions: Sequence[tuple[str, Expr, bool]]) -> Expr:
    """*expr* with the path's equalities (a decided ``==``) solved and substituted."""
    for relation, difference, outcome in conditions:
        if relation == "==" and outcome and difference.free_symbols:
            symbol = sorted(difference.free_symbols, key=str)[0]
            plain = sp.Dummy("x")  # no sign assumption: the path may pin a positive symbol to 0
            solutions = sp.solve(difference.subs(symbol, plain), plain)
            if len(solutions) == 1:
                expr = expr.subs(symbol, solutions[0])
    return expr


def _value(expr: Expr, point: dict[str, Fraction]) -> Fraction:
    value = sp.nsimplify(expr).subs({_symbol(k): sp.Rational(v.numerator, v.denominator) for k, v in point.items()})
    return Fraction(int(value.p), int(value.q))


Spec = tuple[
    str,  # name
    Callable[..., object],  # the code
    dict[str, tuple[Fraction, ...]],  # the grid: each argument's values
    Callable[[dict[str, Fraction]], bool],  # the documented domain
    Callable[[object], "dict[str, Expr | None]"],  # the code's result as named parts (expressions or None)
    "dict[str, Expr | None]",  # the proven formula's parts
]


def _bound_parts(result: object) -> dict[str, Expr | None]:
    assert isinstance(result, bounds.Bound)
    return {"prefactor": _expr(result.prefactor), "exponent": _expr(result.exponent)}


def _expr(value: object) -> Expr | None:
    if value is None:
        return None
    if isinstance(value, Traced):
        return value.expr
    if isinstance(value, int | Fraction):
        exact = Fraction(value)
        return sp.Rational(exact.numerator, exact.denominator)
    raise TypeError(f"unexpected result part {value!r}")


def _specs() -> list[Spec]:
    d, s, v, n = sym("Delta"), sym("s"), sym("V"), sym("n")
    h3_of_s = lower_bound._h3()  # H3(Delta, V) with V = s - Delta^2, the lower bound claims' expression
    h3_of_v = h3_of_s.subs(s, v + d**2)
    eleven = lower_bound.check_final_constant.__defaults__[2]  # type: ignore[index]  # reason: (step, claimed, final)
    final = sp.Rational(eleven.numerator, eleven.denominator)
    wor = formula(bernstein.check_parameter_choice, "s_squared")  # s^2: the exponent of Lemma bernstein-bounded-wor
    paired = wor.subs({sym("M"): formula(bernstein.check_range_bound, "bound")}).subs({sym("eps"): d})
    numerator = formula(theta_star.check_numerator, "proposition")
    theta = parse(theta_star.THETA_STAR)
    cov = sp.factor(sp.together(numerator / theta))  # D = N / theta*, read off the proven theta*
    half, quarter = Fraction(1, 2), Fraction(1, 4)
    edges = (Fraction(-1, 4), Fraction(0), Fraction(1, 4), half, Fraction(3, 4), Fraction(1), Fraction(5, 4))
    masses = {
        key: formula(lower_bound.check_moments, name) for key, name in (("10", "p10"), ("01", "p01"), ("00", "p00"))
    }
    return [
        (
            "h3_two_arm(Delta, V)",
            bounds.h3_two_arm,
            {
                "Delta": (Fraction(-1, 2), Fraction(0), Fraction(1, 10), half, Fraction(2)),
                "V": (Fraction(0), Fraction(1, 8)),
            },
            lambda p: p["Delta"] > 0,
            lambda r: {"value": _expr(r)},
            {"value": h3_of_v},
        ),
        (
            "lower_bound(n, Delta, s)",
            bounds.lower_bound,
            {
                "n": (Fraction(0), Fraction(1), Fraction(7)),
                "Delta": (Fraction(0), Fraction(1, 10), quarter, half),
                "s": (Fraction(0), Fraction(1, 10), Fraction(1, 5), quarter, Fraction(2, 5), half, Fraction(3, 5)),
            },
            lambda p: 0 < p["Delta"] < half and p["Delta"] <= p["s"] <= half and p["n"] >= 1,
            _bound_parts,
            {"prefactor": sp.Rational(1, 4), "exponent": final * n / h3_of_s},
        ),
        (
            "lower_bound_pair(Delta, s)",
            bounds.lower_bound_pair,
            {
                "Delta": (Fraction(0), Fraction(1, 10), quarter, half),
                "s": (Fraction(0), Fraction(1, 10), Fraction(1, 5), quarter, Fraction(2, 5), half, Fraction(3, 5)),
            },
            lambda p: 0 < p["Delta"] < half and p["Delta"] <= p["s"] <= half,
            lambda r: _pair_parts(r),
            {
                "P(1,0)": masses["10"],
                "P(0,1)": masses["01"],
                "P(0,0)": masses["00"],
                "P(1,1)": sp.Integer(0),
                "Q(1,0)": masses["01"],
                "Q(0,1)": masses["10"],
                "Q(0,0)": masses["00"],
                "Q(1,1)": sp.Integer(0),
            },
        ),
        (
            "bernstein_wor_bound(n, N, eps, sigma2, M)",
            bounds.bernstein_wor_bound,
            {
                "n": (Fraction(0), Fraction(1), Fraction(3)),
                "N": (Fraction(2), Fraction(3)),
                "eps": (Fraction(-1, 2), Fraction(0), Fraction(1, 3)),
                "sigma2": (Fraction(-1, 4), Fraction(0), quarter, Fraction(1), Fraction(2)),
                "M": (Fraction(-1), Fraction(0), Fraction(1)),
            },
            lambda p: 1 <= p["n"] <= p["N"] and p["eps"] > 0 and p["M"] > 0 and 0 <= p["sigma2"] <= p["M"] ** 2,
            _bound_parts,
            {"prefactor": sp.Integer(1), "exponent": wor},
        ),
        (
            "bernstein_paired_bound(n, N, Delta, sigma2)",
            bounds.bernstein_paired_bound,
            {
                "n": (Fraction(0), Fraction(1), Fraction(3)),
                "N": (Fraction(2), Fraction(3)),
                "Delta": (Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(1), Fraction(3, 2)),
                "sigma2": (Fraction(-1, 4), Fraction(0), quarter),
            },
            lambda p: 0 <= p["Delta"] <= 1 and 1 <= p["n"] <= p["N"] and p["sigma2"] >= 0,
            _bound_parts,
            {"prefactor": sp.Integer(1), "exponent": paired},
        ),
        (
            "theta_star_numerator(mu, Delta)",
            threshold.theta_star_numerator,
            {"mu": edges, "Delta": edges},
            lambda p: 0 <= p["Delta"] <= p["mu"] <= 1,
            lambda r: {"value": _expr(r)},
            {"value": numerator},
        ),
        (
            "cov_max(mu, Delta)",
            threshold.cov_max,
            {"mu": edges, "Delta": edges},
            lambda p: 0 <= p["Delta"] <= p["mu"] <= 1,
            lambda r: {"value": _expr(r)},
            {"value": cov},
        ),
        (
            "theta_star(mu, Delta)",
            threshold.theta_star,
            {"mu": edges, "Delta": edges},
            lambda p: 0 <= p["Delta"] <= p["mu"] <= 1,
            lambda r: {"value": _expr(r)},
            {"value": theta},  # None (undefined) exactly where D = 0: checked at each point
        ),
        (
            "corollary_gap_bound(mu)",
            threshold.corollary_gap_bound,
            {"mu": edges},
            lambda p: 0 <= p["mu"] <= 1,
            lambda r: {"value": _expr(r)},
            {"value": parse(corollary.LINEAR)},
        ),
    ]


def _pair_parts(result: object) -> dict[str, Expr | None]:
    assert isinstance(result, tuple)
    p, q = result
    return {
        f"{name}({a},{b})": _expr(law[(a, b)])
        for name, law in (("P", p), ("Q", q))
        for a, b in ((1, 0), (0, 1), (0, 0), (1, 1))
    }


def _points(grid: dict[str, tuple[Fraction, ...]]) -> Iterator[dict[str, Fraction]]:
    names = list(grid)
    for values in itertools.product(*(grid[name] for name in names)):
        yield dict(zip(names, values, strict=True))


def _check_spec(spec: Spec) -> tuple[str | None, int]:
    """The first disagreement of one function with its formula (or None), and the number of paths."""
    name, function, grid, inside, parts, proven = spec
    checked: dict[Path, None] = {}
    for point in _points(grid):
        path, result, conditions = trace(function, point)
        where = f"{name} at {', '.join(f'{k}={v}' for k, v in point.items())}"
        refused = isinstance(result, Exception)
        if refused != (not inside(point)):
            said = f"refused ({result})" if refused else "returned a value"
            return f"{where}: {said}, but the point is {'inside' if inside(point) else 'outside'} its domain", 0
        if refused:
            checked.setdefault(path, None)
            continue
        if name.startswith("theta_star("):
            undefined = _value(proven["value"].as_numer_denom()[1], point) == 0 if proven["value"] is not None else True
            if (result is None) != undefined:
                return f"{where}: returned {result!r}; theta* is {'undefined' if undefined else 'defined'} there", 0
            if result is None:
                checked.setdefault(path, None)
                continue
        if path in checked:
            continue
        got = parts(result)
        for part, expected in proven.items():
            mine = got.get(part)
            assert mine is not None and expected is not None
            if not is_identity(_on_path(mine, conditions), _on_path(expected, conditions)):
                return (
                    f"{where}: the code's {part} on this path is {sp.simplify(mine)}, the proven formula "
                    f"{sp.simplify(expected)} (at the point: {_value(mine, point)} vs {_value(expected, point)})",
                    0,
                )
        checked[path] = None
    return None, len(checked)


# -- the bounds of an instance ------------------------------------------------------------------------------


def _logbar(n_models: int) -> Fraction:
    """logbar(K) = 1/2 + sum_{i=2}^K 1/i (the paper's definition, computed here, not read from the code)."""
    return Fraction(1, 2) + sum((Fraction(1, i) for i in range(2, n_models + 1)), Fraction(0))


def _matrices(shapes: Sequence[tuple[int, int, tuple[Fraction, ...]]]) -> Iterator[tuple[tuple[Fraction, ...], ...]]:
    for n_models, n_queries, values in shapes:
        for cells in itertools.product(values, repeat=n_models * n_queries):
            yield tuple(tuple(cells[i * n_queries : (i + 1) * n_queries]) for i in range(n_models))


INSTANCE_SHAPES: tuple[tuple[int, int, tuple[Fraction, ...]], ...] = (
    (2, 1, (Fraction(0), Fraction(1, 2), Fraction(1))),
    (2, 2, (Fraction(0), Fraction(1, 2), Fraction(1))),
    (3, 2, (Fraction(0), Fraction(1))),
    (2, 3, (Fraction(0), Fraction(1))),
    (4, 1, (Fraction(0), Fraction(1, 2), Fraction(1))),
)


def _instance_bounds() -> tuple[str | None, int]:
    """sysrs_bound, sr_bound, ucbe_max_a, ucbe_bound on every matrix of INSTANCE_SHAPES and every budget."""
    count = formula(csr_bound.check_union_count, "count")
    numerator = formula(csr_bound.check_phase_exponent, "numerator")
    kk, n = sym("K"), sym("n")
    cases = 0
    for rows in _matrices(INSTANCE_SHAPES):
        instance = Instance([list(row) for row in rows])
        n_models, n_queries = instance.shape
        truth = brute_hardness([[Fraction(x) for x in row] for row in rows], bernoulli=False, paper=False)
        bernoulli = brute_hardness([[Fraction(x) for x in row] for row in rows], bernoulli=True, paper=False)
        for budget in range(n_models, n_models * n_queries + 1):
            at = {kk: n_models, n: budget}
            prefactor = Fraction(str(count.subs(at)))
            top = Fraction(str(numerator.subs(at)))
            expected: list[tuple[str, Callable[..., bounds.Bound], bool, Fraction | None]] = [
                ("sysrs_bound", bounds.sysrs_bound, False, truth.h3),
                ("sr_bound", bounds.sr_bound, False, truth.h2),
                ("sysrs_bound stochastic", bounds.sysrs_bound, True, bernoulli.h3),
                ("sr_bound stochastic", bounds.sr_bound, True, bernoulli.h2),
            ]
            for name, function, stochastic, measure in expected:
                cases += 1
                covered = not stochastic or budget - n_models <= 2 * n_queries * _logbar(n_models)
                where = f"{name}, scores {[[str(x) for x in row] for row in rows]}, n={budget}"
                try:
                    got: bounds.Bound | None = function(instance, budget, stochastic=stochastic)
                except BoundConditionError:
                    got = None
                except Exception as error:  # anything but a refusal is a failure of the code, not of the check
                    return f"{where}: raised {type(error).__name__}: {error}", cases
                if measure is None or not covered:
                    if got is not None:
                        return f"{where}: gave a bound outside its conditions (tied best or uncovered budget)", cases
                    continue
                if got is None:
                    return f"{where}: refused inside its conditions", cases
                exponent = top / (_logbar(n_models) * measure)
                if (got.prefactor, got.exponent) != (prefactor, exponent):
                    return (
                        f"{where}: prefactor {got.prefactor}, exponent {got.exponent}; the proven bound has "
                        f"{prefactor}, {exponent}",
                        cases,
                    )
            if truth.h1 is None:
                continue
            largest = Fraction(25, 36) * (budget - n_models) / truth.h1
            cases += 1
            if bounds.ucbe_max_a(instance, budget) != largest:
                return (
                    f"ucbe_max_a, scores {rows}, n={budget}: {bounds.ucbe_max_a(instance, budget)} != {largest}",
                    cases,
                )
            for a in (largest / 2, largest, largest * 2, Fraction(0)):
                try:
                    ucb: bounds.Bound | None = bounds.ucbe_bound(instance, budget, a)
                except BoundConditionError:
                    ucb = None
                admissible = 0 < a <= largest
                want = (Fraction(2 * budget * n_models), 2 * a / 25) if admissible else None
                if (None if ucb is None else (ucb.prefactor, ucb.exponent)) != want:
                    return f"ucbe_bound, scores {rows}, n={budget}, a={a}: {ucb} != {want}", cases
    return None, cases


# -- hardness, from the definitions ---------------------------------------------------------------------------

Law = tuple[tuple[Fraction, Fraction], ...]


class BruteHardness:
    """The measures of :func:`brute_hardness` (None: infinite) and the per-arm quantities, by model."""

    def __init__(
        self,
        h1: Fraction | None,
        h2: Fraction | None,
        h3: Fraction | None,
        h3_prime: Fraction | None,
        deltas: tuple[Fraction, ...],
        arms: dict[int, tuple[Fraction | None, ...]],
    ) -> None:
        self.h1, self.h2, self.h3, self.h3_prime, self.deltas, self.arms = h1, h2, h3, h3_prime, deltas, arms


@cache
def _h3_formula() -> Callable[[Fraction, Fraction], Fraction]:
    """H_{3,i} = H3(Delta, V) of the lower-bound claims, as an exact function of (Delta, V)."""
    d, v = sym("Delta"), sym("V")
    expr = lower_bound._h3().subs(sym("s"), v + d**2)

    @cache
    def h3(delta: Fraction, variance: Fraction) -> Fraction:
        value = expr.subs(
            {
                d: sp.Rational(delta.numerator, delta.denominator),
                v: sp.Rational(variance.numerator, variance.denominator),
            }
        )
        return Fraction(int(value.p), int(value.q))

    return h3


@cache
def _theta_star(mu: Fraction, delta: Fraction) -> Fraction | None:
    d = (mu - delta) * (1 - mu)
    return None if d == 0 else theta_star.theta_star_value(theta_star.THETA_STAR, mu, delta)


def _expectation(law: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    return sum((p * x for x, p in law), Fraction(0))


def _variance(law: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    mean = _expectation(law)
    return sum((p * (x - mean) ** 2 for x, p in law), Fraction(0))


def brute_hardness(
    rows: Sequence[Sequence[Fraction]] | Sequence[Sequence[Law]], *, bernoulli: bool, paper: bool
) -> BruteHardness:
    """Delta_i, H1, H2, H3, H3' and the per-arm quantities from the definitions (module docstring).

    *rows* holds scores, or (with ``bernoulli``) success probabilities, or each cell's law as (value, p) pairs.
    """
    cells: list[list[Law]] = []
    for row in rows:
        out: list[Law] = []
        for cell in row:
            if isinstance(cell, tuple):
                out.append(cell)
            elif bernoulli:
                out.append(((Fraction(1), Fraction(cell)), (Fraction(0), 1 - Fraction(cell))))
            else:
                out.append(((Fraction(cell), Fraction(1)),))
        cells.append(out)
    n_models, n_queries = len(cells), len(cells[0])
    step = Fraction(1, n_queries)

    def joint(a: int, b: int) -> list[tuple[Fraction, Fraction]]:
        """The law of S_aJ - S_bJ over J uniform and independent cells."""
        return [(x - y, step * p * q) for j in range(n_queries) for x, p in cells[a][j] for y, q in cells[b][j]]

    def single(a: int) -> list[tuple[Fraction, Fraction]]:
        return [(x, step * p) for j in range(n_queries) for x, p in cells[a][j]]

    means = [_expectation(single(i)) for i in range(n_models)]
    best_mean = max(means)
    best = [i for i in range(n_models) if means[i] == best_mean]
    order = sorted(range(n_models), key=lambda i: (-means[i], i))
    gaps = [best_mean - means[i] for i in order]
    deltas = (gaps[1], *gaps[1:])
    if len(best) > 1:
        return BruteHardness(None, None, None, None, deltas, {})
    (top,) = best
    h1 = sum((1 / delta**2 for delta in deltas), Fraction(0))
    h2 = max(i / deltas[i - 1] ** 2 for i in range(2, n_models + 1))
    h3_of = _h3_formula()
    arms: dict[int, tuple[Fraction | None, ...]] = {}
    h3i: dict[int, Fraction] = {}
    h3pi: dict[int, Fraction] = {}
    for i in order[1:]:
        delta = best_mean - means[i]
        v_star = _variance(joint(top, i))
        var_best, var = _variance(single(top)), _variance(single(i))
        cov = (var_best + var - v_star) / 2
        h3i[i] = h3_of(delta, v_star)
        if paper:  # per-arm sample variances (divisor L - 1), deterministic scores
            scale = Fraction(n_queries, n_queries - 1) if n_queries > 1 else Fraction(1)
            h3pi[i] = h3_of(delta, scale * (var_best + var))
        else:
            h3pi[i] = h3_of(delta, var_best + var)
        d = (best_mean - delta) * (1 - best_mean)
        theta = cov / d if d else None
        arms[i] = (delta, var_best, var, cov, v_star, theta, _theta_star(best_mean, delta))
    orders = [order[1:]] if paper else _tie_orders(order[1:], means)
    h3 = min(max((pos + 2) * h3i[i] for pos, i in enumerate(o)) for o in orders)
    h3p = min(max((pos + 2) * h3pi[i] for pos, i in enumerate(o)) for o in orders)
    return BruteHardness(h1, h2, h3, h3p, deltas, arms)


def _tie_orders(models: Sequence[int], means: Sequence[Fraction]) -> list[tuple[int, ...]]:
    """Every order of *models* by non-increasing mean (tied models in any order)."""
    return [o for o in itertools.permutations(models) if all(means[a] >= means[b] for a, b in itertools.pairwise(o))]


HARDNESS_SHAPES: tuple[tuple[int, int, tuple[Fraction, ...]], ...] = (
    (2, 1, (Fraction(0), Fraction(1, 2), Fraction(1))),
    (2, 2, (Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(1))),
    (2, 3, (Fraction(0), Fraction(1))),
    (3, 1, (Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1))),
    (3, 2, (Fraction(0), Fraction(1, 2), Fraction(1))),
    (4, 1, (Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1))),
    (4, 2, (Fraction(0), Fraction(1))),
)
"""Every matrix of these shapes, read as scores and as Bernoulli probabilities (the paper's convention too).

K = 3, L = 2 on three values is the least shape with tied suboptimal models of different H_{3,i} (best (1, 1/2)
against (1/2, 0) and (0, 1/2)), where the order of tied models changes H3."""

WIDE: tuple[float, ...] = (0.0, 1.0, 1 - 2.0**-40, 5e-324)
"""2 x 2 matrices of these floats force the moment code's other integer paths (limbs; odd parts times 2^shift)."""

FINITE: tuple[StochasticInstance, ...] = (
    StochasticInstance.finite(
        [0, Fraction(1, 2), 1],
        [
            [[Fraction(1, 2), Fraction(1, 2), 0], [0, 0, 1]],
            [[Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)], [1, 0, 0]],
        ],
    ),
    StochasticInstance.finite(
        [0, Fraction(1, 4), 1],
        [
            [[0, Fraction(1, 2), Fraction(1, 2)], [0, 0, 1]],
            [[Fraction(1, 2), 0, Fraction(1, 2)], [0, 1, 0]],
            [[1, 0, 0], [0, Fraction(1, 2), Fraction(1, 2)]],
        ],
    ),
)


def _hardness_case(
    what: str, computed: Hardness, arms: Sequence[ArmHardness] | None, mine: BruteHardness
) -> str | None:
    got = (computed.h1, computed.h2, computed.h3, computed.h3_prime, computed.deltas)
    want = (mine.h1, mine.h2, mine.h3, mine.h3_prime, mine.deltas)
    if got != want:
        names = ("H1", "H2", "H3", "H3'", "deltas")
        diff = [f"{k} {g} (definition: {w})" for k, g, w in zip(names, got, want, strict=True) if g != w]
        return f"{what}: {'; '.join(map(str, diff))}"
    for arm in arms or ():
        expected = mine.arms[arm.model]
        values = (arm.delta, arm.var_best, arm.var, arm.cov, arm.v_star, arm.theta, arm.theta_star)
        if values != expected:
            return (
                f"{what}, model {arm.model}: (Delta, Var*, V, Cov, V*, theta, theta*) = {values}, definition {expected}"
            )
        if arm.h3 != _h3_formula()(arm.delta, arm.v_star) or arm.condition_gap != (
            arm.delta < Fraction(3, 2) * (computed.best_mean) - 1
        ):
            return (
                f"{what}, model {arm.model}: H_3i {arm.h3} or condition_gap {arm.condition_gap} differ from the formula"
            )
        if arm.condition_correlation != (arm.theta is not None and arm.theta > 2 * arm.delta):
            return f"{what}, model {arm.model}: condition_correlation {arm.condition_correlation}"
    return None


def _hardness_cases() -> tuple[str | None, int]:
    cases = 0
    matrices: list[tuple[tuple[Fraction, ...], ...]] = list(_matrices(HARDNESS_SHAPES))
    for rows in matrices:
        instance = Instance([list(row) for row in rows])
        shown = [[str(x) for x in row] for row in rows]
        for bernoulli, paper in ((False, False), (True, False), (False, True)):
            cases += 1
            computed = hardness(instance, bernoulli=bernoulli, convention="paper" if paper else "exact")
            mine = brute_hardness(rows, bernoulli=bernoulli, paper=paper)
            arms = None
            if not paper and mine.h1 is not None:
                arms = arm_hardness(instance, bernoulli=bernoulli)
            problem = _hardness_case(
                f"scores {shown}{', bernoulli' if bernoulli else ''}{', paper' if paper else ''}", computed, arms, mine
            )
            if problem is not None:
                return problem, cases
    for cells in itertools.product(WIDE, repeat=4):
        rows_f = ((Fraction(cells[0]), Fraction(cells[1])), (Fraction(cells[2]), Fraction(cells[3])))
        instance = Instance([[cells[0], cells[1]], [cells[2], cells[3]]])
        cases += 1
        mine = brute_hardness(rows_f, bernoulli=False, paper=False)
        arms = arm_hardness(instance) if mine.h1 is not None else None
        problem = _hardness_case(f"float scores {[list(cells[:2]), list(cells[2:])]}", hardness(instance), arms, mine)
        if problem is not None:
            return problem, cases
    for stochastic in FINITE:
        cases += 1
        laws = [[stochastic.law(i, j) for j in range(stochastic.n_queries)] for i in range(stochastic.n_models)]
        mine = brute_hardness(laws, bernoulli=False, paper=False)
        arms = arm_hardness(stochastic) if mine.h1 is not None else None
        problem = _hardness_case(f"stochastic {stochastic!r}", hardness(stochastic), arms, mine)
        if problem is not None:
            return problem, cases
    return None, cases


HARDNESS_DOMAIN = (
    "every score matrix of "
    + "; ".join(f"K = {k}, L = {length}, scores in {{{', '.join(map(str, v))}}}" for k, length, v in HARDNESS_SHAPES)
    + ", each read as scores, as Bernoulli probabilities and with convention='paper'; every 2 x 2 matrix of the floats "
    "0, 1, 1 - 2^-40, 2^-1074 (the moment code's limb and shifted paths); 2 finite stochastic instances "
    "(2 x 2 and 3 x 2 on 3 values)"
)

BOUNDS_DOMAIN = (
    "h3_two_arm, lower_bound, lower_bound_pair, bernstein_wor_bound, bernstein_paired_bound, theta_star, "
    "theta_star_numerator, cov_max, corollary_gap_bound: every input on each path the exact grid reaches (every "
    "boundary of every condition and both sides of it), symbolic along the path; sysrs_bound, sr_bound (scores and "
    "Bernoulli), ucbe_max_a and ucbe_bound (4 values of a about its limit): every matrix of "
    + "; ".join(f"K = {k}, L = {length}, scores in {{{', '.join(map(str, v))}}}" for k, length, v in INSTANCE_SHAPES)
    + ", every budget n in [K, K L]"
)


def check_bound_formulas() -> Outcome:
    """Every bound and threshold function returns the proven formula, and refuses exactly outside its domain."""
    methods = (Method.SYMBOLIC, Method.BOUNDED_EXHAUSTIVE)
    started = time.perf_counter()
    paths = []
    for spec in _specs():
        problem, count = _check_spec(spec)
        if problem is not None:
            return _failed(problem, methods, BOUNDS_DOMAIN)
        paths.append(f"{spec[0].split('(')[0]} {count}")
    problem, cases = _instance_bounds()
    if problem is not None:
        return _failed(problem, methods, BOUNDS_DOMAIN)
    return Outcome(
        Status.HOLDS,
        Method.SYMBOLIC,
        "On every path (paths per function: "
        + ", ".join(paths)
        + "), the code's value simplifies to the formula the sympy claims prove (lb-constant-11's 11 n/H3(Delta, V), "
        "bernstein-parameter-choice's s^2 with M = 1 + Delta for the paired lemma, theta-star-numerator's N and "
        "theta*, cor-case1-linear's 3/2 mu* - 1), and each refuses exactly outside its conditions; "
        f"{cases} SR/SySRs/UCB-E bounds of instances equal the proven formula at independently computed H "
        f"({time.perf_counter() - started:.1f} s). The UCB-E bound is the paper's formula (cited, not proved here).",
        methods=methods,
        domain=BOUNDS_DOMAIN,
    )


def check_hardness_formulas() -> Outcome:
    """hardness and arm_hardness equal the definitions on every matrix of the domain."""
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    started = time.perf_counter()
    problem, cases = _hardness_cases()
    if problem is not None:
        return _failed(problem, methods, HARDNESS_DOMAIN)
    return Outcome(
        Status.HOLDS,
        Method.BOUNDED_EXHAUSTIVE,
        f"hardness and arm_hardness equal the definitions on all {cases} cases ({time.perf_counter() - started:.1f} s): "
        "Delta_i, H1, H2, V_{*,i} as a variance over the joint law of (J, noise), H_{3,i} from H3(Delta, V), H3 and "
        "H3' minimised over every order of tied models (row order and sample variances for convention='paper'), "
        "theta_i, theta* and both Corollary conditions. Bounded: nothing is claimed outside the domain.",
        methods=methods,
        domain=HARDNESS_DOMAIN,
    )


def _failed(problem: str, methods: tuple[Method, ...], domain: str) -> Outcome:
    return Outcome(
        Status.FAILS,
        methods[0],
        f"The code is not the proven formula. Counterexample: {problem}.",
        counterexample=problem,
        methods=methods,
        domain=domain,
    )


CLAIMS = (
    Claim(
        "code-bound-formulas",
        "sysrs_ref/theory/bounds.py, threshold.py: the bounds and theta* as proved",
        "each bound and threshold function returns, wherever it does not refuse, the formula the paper's claims "
        "prove, and refuses exactly outside the proof's conditions",
        Status.HOLDS,
        check_bound_formulas,
        weight=4,
    ),
    Claim(
        "code-hardness-formulas",
        "sysrs_ref/theory/hardness.py: H1, H2, H3, H3', theta_i (eq. H3, H3k, variance)",
        "hardness and arm_hardness compute Delta_i, H1, H2, H3, H3' and the per-arm quantities as defined, H3 and H3' "
        "taking the tightest order of tied models",
        Status.HOLDS,
        check_hardness_formulas,
        weight=4,
    ),
)
