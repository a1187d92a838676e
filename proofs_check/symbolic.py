"""Symbolic execution of the real reference code: scores as z3 reals, every comparison a branch.

:class:`Symbolic` is a number the reference algorithms accept as a score: a
subclass of :class:`fractions.Fraction` (so :func:`sysrs_ref.scores.as_score`
lets it through unchanged) whose value is a z3 term over the score symbols.
Its arithmetic builds terms; its comparisons (``<``, ``==``, ``bool``, ...)
ask the :class:`Explorer` which way to go. The explorer runs the code once
per *path*, depth first: at each comparison whose outcome the path so far
does not decide (z3: both outcomes satisfiable), it takes ``True`` first and
comes back for ``False`` later; a comparison the path decides is followed
without branching. Every feasible path is run exactly once, so a property
checked at the end of every path holds for every score matrix of the domain
(the scores' box, e.g. [0, 1]^(K x L)), not for samples.

What the code may do with a :class:`Symbolic`: add, subtract, multiply,
divide by a non-zero constant, negate, compare, hash (every symbolic value
hashes to 0, so sets and dicts compare them with ``==``, which branches).
``float()`` gives NaN: a float filter (``IndexKey``'s) then never certifies,
and the exact comparison it falls back on is what is explored (the filter's
soundness is proved separately, claim ``code-ucb-tolerance``). Anything
else (``numerator``, ``int()``, rounding) raises TypeError, so code that
would silently read a concrete stand-in cannot pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.smt import Term, rational

__all__ = ["CHECK_TIMEOUT_MS", "Explorer", "PathLimitError", "Symbolic", "concrete", "explore"]

T = TypeVar("T")

_ACTIVE: list[Explorer] = []


class PathLimitError(Exception):
    """More paths than the explorer was allowed to run."""


Number = int | Fraction
"""An exact coefficient or bound: an int when integral (cheaper), else a Fraction."""
Polynomial = tuple[tuple[tuple[int, ...], Number], ...]
"""A polynomial in the score symbols, canonical: sorted (monomial, coefficient) pairs, no zero coefficient.

A monomial is the sorted tuple of its symbols' indices (``()`` is the constant term)."""

_SYMBOLS: list[Term] = []
_SIGNS = {
    "<": frozenset({-1}),
    "<=": frozenset({-1, 0}),
    ">": frozenset({1}),
    ">=": frozenset({0, 1}),
    "==": frozenset({0}),
}
_ALL = frozenset({-1, 0, 1})


_TERMS: dict[Polynomial, Term] = {}
"""Each polynomial's z3 term, built once (the explorer asks for the same differences again and again)."""


def _term(polynomial: Polynomial) -> Term:
    """The z3 term of *polynomial*."""
    found = _TERMS.get(polynomial)
    if found is None:
        found = _TERMS[polynomial] = _build(polynomial)
    return found


def _build(polynomial: Polynomial) -> Term:
    parts = []
    for monomial, coefficient in polynomial:
        factors = [_SYMBOLS[index] for index in monomial]
        if coefficient != 1 or not factors:
            factors.insert(0, rational(coefficient))
        product = factors[0]
        for factor in factors[1:]:
            product = product * factor
        parts.append(product)
    return z3.Sum(parts) if len(parts) > 1 else (parts[0] if parts else rational(0))


def _exact_int(numeral: z3.IntNumRef) -> int:
    """A z3 integer numeral as a Python int, whatever its length.

    z3's ``as_long`` goes through ``int(str)``, which Python refuses beyond 4,300 digits; a witness of a
    long path can be longer. The digits are read in chunks instead (no change to the interpreter's limit).

    >>> _exact_int(z3.IntVal("1" + "0" * 4999 + "7")) == 10**5000 + 7
    True
    """
    text = numeral.as_string()
    digits = text.lstrip("-")
    value = 0
    for start in range(0, len(digits), 4000):
        chunk = digits[start : start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return -value if text.startswith("-") else value


def _evaluate(polynomial: Polynomial, values: dict[int, Number]) -> Number | None:
    """*polynomial* at *values* (None when a symbol has no rational value there)."""
    total: Number = 0
    for monomial, coefficient in polynomial:
        product = coefficient
        for index in monomial:
            value = values.get(index)
            if value is None:
                return None
            product *= value
        total += product
    return total


def _negated(polynomial: Polynomial) -> Polynomial:
    return tuple((monomial, -coefficient) for monomial, coefficient in polynomial)


@dataclass
class _Decision:
    value: bool
    key: Polynomial  # the compared difference d: the comparison is "sign(d) in _SIGNS[relation]"
    relation: str
    possible: frozenset[int]  # the signs of d the path allowed before the comparison
    branch: bool  # both outcomes feasible: a branch point (one solver push level)
    other: dict[int, Number] | None = None  # a witness of the other outcome, for when it is explored
    flipped: bool = False

    @property
    def signs(self) -> frozenset[int]:
        """The signs of the difference left on this path after the comparison."""
        wanted = _SIGNS[self.relation]
        return self.possible & wanted if self.value else self.possible - wanted


def _condition(difference: Polynomial, relation: str) -> Term:
    term = _term(difference)
    return {"<": term < 0, "<=": term <= 0, ">": term > 0, ">=": term >= 0, "==": term == 0}[relation]


#: The longest one solver check of an exploration may take (z3's ``timeout``, in ms); each takes milliseconds.
CHECK_TIMEOUT_MS = 60_000


class Explorer:
    """Depth-first exploration of the paths of one computation over symbolic scores.

    *domain* holds the constraints on the symbols (their box). The solver
    keeps one push level per branch point of the current path; a *witness*
    (rational values of the symbols satisfying the path) answers one side of
    each new comparison without the solver, so each new comparison costs at
    most one solver call, and a comparison whose difference's sign the path
    already fixes costs none.
    """

    def __init__(
        self, domain: list[Term], witness: dict[int, Number], *, max_paths: int = 10**6, logic: str = "QF_LRA"
    ) -> None:
        self.solver = z3.SolverFor(logic)
        # a bound on each check: nonlinear real arithmetic is decidable but a check can run for hours, and a
        # check that runs out answers unknown, which fails the claim with its reason instead of hanging
        self.solver.set("timeout", CHECK_TIMEOUT_MS)
        self.solver.add(*domain)
        self.trail: list[_Decision] = []
        self.position = 0
        self.max_paths = max_paths
        self.paths = 0
        self.checks = 0
        self.witness: dict[int, Number] = dict(witness)
        self.known: dict[Polynomial, frozenset[int]] = {}

    def _model(self, term: Term) -> dict[int, Number] | None:
        """A witness of the path plus *term*, or None when that is unsatisfiable."""
        self.checks += 1
        self.solver.push()
        self.solver.add(term)
        result = self.solver.check()
        if result == z3.unknown:
            reason = self.solver.reason_unknown()
            self.solver.pop()
            raise RuntimeError(f"z3 answered unknown ({reason}): no proof")
        found = self._witness(self.solver.model()) if result == z3.sat else None
        self.solver.pop()
        return found

    def _witness(self, model: z3.ModelRef) -> dict[int, Number]:
        values: dict[int, Number] = {}
        for index in self.witness:
            value = model.eval(_SYMBOLS[index], model_completion=True)
            if z3.is_rational_value(value):
                values[index] = Fraction(_exact_int(value.numerator()), _exact_int(value.denominator()))
        return values

    def _learn(self, key: Polynomial, signs: frozenset[int]) -> None:
        self.known[key] = signs
        self.known[_negated(key)] = frozenset(-s for s in signs)

    def decide(self, difference: Polynomial, relation: str) -> bool:
        """Whether sign(*difference*) is in the *relation*'s signs on this path (branching when both are feasible)."""
        wanted = _SIGNS[relation]
        possible = self.known.get(difference, _ALL)
        if possible <= wanted or not possible & wanted:  # the path fixes the answer: no decision recorded
            return bool(possible <= wanted)
        if self.position < len(self.trail):  # replaying the prefix of the path
            decision = self.trail[self.position]
            self.position += 1
            if decision.key != difference or decision.relation != relation:
                raise RuntimeError("the computation is not deterministic: a replayed path took other comparisons")
            self._learn(decision.key, decision.signs)
            return decision.value
        value_here = _evaluate(difference, self.witness)
        inside = None if value_here is None else ((value_here > 0) - (value_here < 0)) in wanted
        condition = _condition(difference, relation)
        if inside is None:  # no rational witness: two solver calls
            yes = self._model(condition)
            no = self._model(z3.Not(condition)) if yes is not None else None
        elif inside:
            yes, no = self.witness, self._model(z3.Not(condition))
        else:
            yes, no = self._model(condition), self.witness
        if yes is None or no is None:
            value, branch, other = yes is not None, False, None
        else:
            value, branch, other = True, True, no
            self.solver.push()
            self.solver.add(condition)
            self.witness = yes
        decision = _Decision(value, difference, relation, possible, branch, other)
        self._learn(difference, decision.signs)
        self.trail.append(decision)
        self.position += 1
        return value

    def _advance(self) -> bool:
        """Move to the next path: flip the deepest branch point still on its True side. False when done."""
        while self.trail:
            decision = self.trail.pop()
            if not decision.branch:
                continue
            self.solver.pop()
            if not decision.flipped:
                self.solver.push()
                self.solver.add(z3.Not(_condition(decision.key, decision.relation)))
                assert decision.other is not None
                self.witness = decision.other
                decision.value, decision.flipped, decision.other = False, True, None
                self.trail.append(decision)
                return True
        return False

    def satisfiable(self, term: Term) -> dict[int, Number] | None:
        """A witness of the current path plus *term* (rational values of the symbols), or None when unsat."""
        return self._model(term)

    def model(self) -> dict[int, Number]:
        """Rational scores that take the current path (its witness)."""
        return dict(self.witness)

    def paths_of(self, run: Callable[[], T]) -> Iterator[T]:
        """Run *run* once per feasible path, yielding its result on each (the explorer is active meanwhile)."""
        while True:
            self.position = 0
            self.known = {}
            self.paths += 1
            if self.paths > self.max_paths:
                raise PathLimitError(f"more than {self.max_paths} paths")
            _ACTIVE.append(self)
            try:
                result = run()
            finally:
                _ACTIVE.pop()
            if self.position != len(self.trail):
                raise RuntimeError("the computation is not deterministic: a replayed path took other comparisons")
            yield result
            if not self._advance():
                return


def explore(
    symbols: list[Symbolic],
    run: Callable[[], T],
    *,
    max_paths: int = 10**6,
    logic: str = "QF_LRA",
    constraints: Sequence[Term] = (),
    witness: Mapping[int, Number] | None = None,
) -> Iterator[tuple[Explorer, T]]:
    """(explorer, result) for every feasible path of *run*, the *symbols* ranging over their intervals.

    A symbol's missing bound (None) leaves it unbounded on that side. *constraints* (z3 terms over the
    symbols) restrict the domain further; *witness* then gives values satisfying all of it (by default
    each symbol's lower bound, or 0 when it has none). *logic* is z3's: linear real arithmetic by default
    (the phase algorithms compare sums); "QF_NRA" for code that multiplies symbolic values (a comparison
    z3 cannot decide raises RuntimeError: no proof).
    """
    domain = list(constraints)
    start: dict[int, Number] = {}
    for symbol in symbols:
        ((monomial, _),) = symbol.polynomial
        (index,) = monomial
        if symbol.low is not None:
            domain.append(_SYMBOLS[index] >= rational(symbol.low))
        if symbol.high is not None:
            domain.append(_SYMBOLS[index] <= rational(symbol.high))
        start[index] = symbol.low if symbol.low is not None else 0
    if witness is not None:
        start.update(witness)
    explorer = Explorer(domain, start, max_paths=max_paths, logic=logic)
    for result in explorer.paths_of(run):
        yield explorer, result


def _current() -> Explorer:
    if not _ACTIVE:
        raise TypeError("a symbolic value was compared outside an exploration")
    return _ACTIVE[-1]


Bound = Number | None


def _add(a: Polynomial, b: Polynomial, scale: Number = 1) -> Polynomial:
    if not b:
        return a
    if not a and scale == 1:
        return b
    total = dict(a)
    for monomial, coefficient in b:
        total[monomial] = total.get(monomial, 0) + scale * coefficient
    return tuple(sorted((m, c) for m, c in total.items() if c != 0))


def _multiply(a: Polynomial, b: Polynomial) -> Polynomial:
    total: dict[tuple[int, ...], Number] = {}
    for left, x in a:
        for right, y in b:
            monomial = tuple(sorted(left + right))
            total[monomial] = total.get(monomial, 0) + x * y
    return tuple(sorted((m, c) for m, c in total.items() if c != 0))


def _interval_sum(a: tuple[Bound, Bound], b: tuple[Bound, Bound]) -> tuple[Bound, Bound]:
    low = None if a[0] is None or b[0] is None else a[0] + b[0]
    high = None if a[1] is None or b[1] is None else a[1] + b[1]
    return low, high


def _interval_scale(a: tuple[Bound, Bound], c: Number) -> tuple[Bound, Bound]:
    low = None if a[0] is None else a[0] * c
    high = None if a[1] is None else a[1] * c
    return (low, high) if c >= 0 else (high, low)


class Symbolic(Fraction):
    """A symbolic number: a polynomial in the score symbols, with an interval [low, high] (None: unbounded).

    >>> x = Symbolic.symbol("x", 0, 1)
    >>> (2 * x + 1).low, (2 * x + 1).high
    (Fraction(1, 1), Fraction(3, 1))
    """

    __slots__ = ("high", "low", "polynomial")
    polynomial: Polynomial
    low: Bound
    high: Bound

    def __new__(cls, polynomial: Polynomial, low: Bound = None, high: Bound = None) -> Symbolic:
        self = object.__new__(cls)  # Fraction.__new__'s parsing is not needed: the concrete part is never read
        self._numerator, self._denominator = 0, 1  # type: ignore[attr-defined]  # reason: Fraction's private slots
        self.polynomial = polynomial
        self.low = low
        self.high = high
        return self

    @staticmethod
    def symbol(name: str, low: Fraction | int | None, high: Fraction | int | None) -> Symbolic:
        """A fresh real symbol in [low, high] (None: unbounded on that side)."""
        _SYMBOLS.append(z3.Real(name))
        return Symbolic((((len(_SYMBOLS) - 1,), 1),), low, high)

    @property
    def term(self) -> Term:
        """The z3 term."""
        return _term(self.polynomial)

    # --- arithmetic: polynomials -------------------------------------------------------------------------------
    @staticmethod
    def _lift(value: object) -> Symbolic:
        if isinstance(value, Symbolic):
            return value
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise TypeError(f"symbolic arithmetic with {type(value).__name__}")
        exact = value if isinstance(value, int) or value.denominator != 1 else int(value)
        return Symbolic(((((), exact),) if exact else ()), exact, exact)

    def _interval(self) -> tuple[Bound, Bound]:
        return self.low, self.high

    def _constant(self) -> Number | None:
        return self.low if self.low is not None and self.low == self.high else None

    def __add__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        right = Symbolic._lift(other)
        return Symbolic(_add(self.polynomial, right.polynomial), *_interval_sum(self._interval(), right._interval()))

    def __radd__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        return Symbolic._lift(other) + self

    def __neg__(self) -> Symbolic:
        return Symbolic(_negated(self.polynomial), *_interval_scale(self._interval(), -1))

    def __pos__(self) -> Symbolic:
        return self

    def __sub__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        right = Symbolic._lift(other)
        return Symbolic(
            _add(self.polynomial, right.polynomial, -1),
            *_interval_sum(self._interval(), _interval_scale(right._interval(), -1)),
        )

    def __rsub__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        return Symbolic._lift(other) - self

    def __mul__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        right = Symbolic._lift(other)
        constant = right._constant()
        if constant is not None:
            scaled = tuple((m, c * constant) for m, c in self.polynomial) if constant else ()
            return Symbolic(scaled, *_interval_scale(self._interval(), constant))
        if self._constant() is not None:
            return right * self
        corners = [
            x * y for x in (self.low, self.high) for y in (right.low, right.high) if x is not None and y is not None
        ]
        bounded = len(corners) == 4
        product = _multiply(self.polynomial, right.polynomial)
        return Symbolic(product, min(corners) if bounded else None, max(corners) if bounded else None)

    def __rmul__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        return Symbolic._lift(other) * self

    def __truediv__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        constant = Symbolic._lift(other)._constant()
        if not constant:
            raise TypeError("a symbolic value can only be divided by a non-zero constant")
        return self * (Fraction(1) / constant)

    def __rtruediv__(self, other: object) -> Symbolic:  # type: ignore[override]  # reason: Fraction's operators return Fraction; a symbolic operand must stay Symbolic
        raise TypeError("division by a symbolic value")

    # --- comparisons: branches ---------------------------------------------------------------------------------
    def _compare(self, other: object, relation: str) -> bool:
        difference = self - Symbolic._lift(other)
        low, high = difference.low, difference.high
        signs = frozenset(
            s
            for s in (-1, 0, 1)
            if (s != -1 or low is None or low < 0)
            and (s != 1 or high is None or high > 0)
            and (s != 0 or ((low is None or low <= 0) and (high is None or high >= 0)))
        )
        wanted = _SIGNS[relation]
        if signs <= wanted:
            return True
        if not signs & wanted:
            return False
        return _current().decide(difference.polynomial, relation)

    def __lt__(self, other: object) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: object) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: object) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: object) -> bool:
        return self._compare(other, ">=")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, int | Fraction) or isinstance(other, bool):
            return NotImplemented
        return self._compare(other, "==")

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, int | Fraction) or isinstance(other, bool):
            return NotImplemented
        return not self._compare(other, "==")

    def __hash__(self) -> int:  # type: ignore[override]  # reason: numbers.Complex declares no hash
        return 0  # hash(Fraction(0)): equal values must hash alike, so every symbolic value shares one bucket

    def __bool__(self) -> bool:
        return not self._compare(0, "==")

    def __abs__(self) -> Symbolic:
        return -self if self < 0 else self

    def __float__(self) -> float:
        return math.nan  # a float filter never certifies a symbolic value (see the module's docstring)

    # --- everything that would read a concrete stand-in ---------------------------------------------------------
    def _refuse(self, *args: object) -> object:
        raise TypeError("a symbolic value has no concrete numerator, denominator, integer part or rounding")

    numerator = property(_refuse)
    denominator = property(_refuse)
    __int__ = __floor__ = __ceil__ = __trunc__ = __round__ = _refuse  # type: ignore[assignment]  # reason: one refusal stands for Fraction's five conversions, whose signatures differ
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __divmod__ = _refuse  # type: ignore[assignment]  # reason: refuses
    limit_denominator = as_integer_ratio = _refuse  # type: ignore[assignment]  # reason: refuses

    def __repr__(self) -> str:
        return f"Symbolic({self.term})"

    def __str__(self) -> str:
        return str(self.term)


def concrete(witness: dict[int, Number], value: Symbolic) -> Fraction:
    """The exact value of *value* at *witness* (a path's witness scores, :meth:`Explorer.model`)."""
    found = _evaluate(value.polynomial, witness)
    if found is None:
        raise ValueError(f"{value} has no rational value at the witness")
    return Fraction(found)
