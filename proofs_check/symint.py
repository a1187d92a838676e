"""Symbolic integers: the real integer code (sysrs_ref/schedule.py's arithmetic) run on z3 integers, path by path.

A :class:`SymInt` is an integer whose value is a z3 term. The code under
test computes with it as with an int: ``+ - *`` build terms, ``//`` by a
positive divisor (an int, or a SymInt the path proves positive) is a fresh
integer q with its two linear facts d q <= a < d q + d (exact floor
division; ``-(-a // d)`` is then the exact ceiling), and every comparison
(``< <= > >= == !=``, ``min``, ``bool``) is a branch: :func:`explore` runs
the code once per feasible path, depth first, asking z3 at each comparison
which outcomes the path so far allows. So a property checked at the end of
every path holds for every integer input satisfying the assumptions, not for
samples. ``int()``, ``hash`` and everything else raise TypeError, so code that
would silently read a concrete stand-in cannot pass.

>>> def level(n):
...     return n // 2 if n > 3 else 0
>>> [(term(path.value), path.conditions) for path in explore(lambda run: level(run.integer("n")))]
[(q1, [3 < n]), (0, [Not(3 < n)])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.smt import Term

__all__ = ["Path", "Run", "SymInt", "explore", "term"]

T = TypeVar("T")


class Run:
    """One run of the code along one path: its solver (facts and decisions so far) and its decisions."""

    def __init__(self, prefix: list[bool], *, relax: bool = False) -> None:
        self.solver = z3.Solver()
        self.relax = relax
        self.prefix = prefix
        self.decisions: list[bool] = []
        self.alternatives: list[list[bool]] = []
        self.conditions: list[Term] = []
        self._fresh = 0

    def integer(self, name: str) -> SymInt:
        """A fresh symbolic integer called *name* (a real when the run is *relax*ed)."""
        return SymInt(z3.Real(name) if self.relax else z3.Int(name), self)

    def assume(self, *facts: Term) -> None:
        """Add *facts* (z3 booleans) to the path: the inputs considered satisfy them."""
        self.solver.add(*facts)

    def fresh(self) -> Term:
        self._fresh += 1
        return z3.Real(f"q{self._fresh}") if self.relax else z3.Int(f"q{self._fresh}")

    def feasible(self, condition: Term) -> bool:
        self.solver.push()
        self.solver.add(condition)
        answer = self.solver.check()
        self.solver.pop()
        if answer == z3.unknown:
            raise ArithmeticError(f"z3 could not decide a branch ({self.solver.reason_unknown()})")
        return bool(answer == z3.sat)

    def branch(self, condition: Term) -> bool:
        """The outcome of *condition* on this path (replaying the prefix, then True first when both are feasible)."""
        position = len(self.decisions)
        if position < len(self.prefix):
            decision = self.prefix[position]
        else:
            can_true, can_false = self.feasible(condition), self.feasible(z3.Not(condition))
            if not (can_true or can_false):
                raise ArithmeticError("an infeasible path reached a comparison")
            decision = can_true
            if can_true and can_false:
                self.alternatives.append([*self.decisions, False])
        self.decisions.append(decision)
        fact = condition if decision else z3.Not(condition)
        self.conditions.append(fact)
        self.solver.add(fact)
        return decision


def term(value: SymInt | int) -> Term:
    """The z3 term of *value* (an int as a numeral)."""
    return value.term if isinstance(value, SymInt) else z3.IntVal(value)


class SymInt:
    """An integer of the code under test whose value is a z3 term of :class:`Run` *run*."""

    __slots__ = ("run", "term")

    def __init__(self, value: Term, run: Run) -> None:
        self.term = value
        self.run = run

    def _other(self, other: object) -> Term:
        if isinstance(other, SymInt):
            return other.term
        if isinstance(other, int) and not isinstance(other, bool):
            return z3.IntVal(other)
        raise TypeError(f"a symbolic integer meets {type(other).__name__}")

    def __add__(self, other: object) -> SymInt:
        return SymInt(self.term + self._other(other), self.run)

    __radd__ = __add__

    def __sub__(self, other: object) -> SymInt:
        return SymInt(self.term - self._other(other), self.run)

    def __rsub__(self, other: object) -> SymInt:
        return SymInt(self._other(other) - self.term, self.run)

    def __mul__(self, other: object) -> SymInt:
        return SymInt(self.term * self._other(other), self.run)

    __rmul__ = __mul__

    def __neg__(self) -> SymInt:
        return SymInt(-self.term, self.run)

    def __floordiv__(self, other: object) -> SymInt:
        return _floor_div(self.term, self._other(other), self.run)

    def __rfloordiv__(self, other: object) -> SymInt:
        return _floor_div(self._other(other), self.term, self.run)

    def _compare(self, condition: Term) -> bool:
        return self.run.branch(condition)

    def __lt__(self, other: object) -> bool:
        return self._compare(self.term < self._other(other))

    def __le__(self, other: object) -> bool:
        return self._compare(self.term <= self._other(other))

    def __gt__(self, other: object) -> bool:
        return self._compare(self.term > self._other(other))

    def __ge__(self, other: object) -> bool:
        return self._compare(self.term >= self._other(other))

    def __eq__(self, other: object) -> bool:  # a branch, as int's == is a decision
        return self._compare(self.term == self._other(other))

    def __ne__(self, other: object) -> bool:  # a branch, as int's != is a decision
        return self._compare(self.term != self._other(other))

    def __bool__(self) -> bool:
        return self._compare(self.term != 0)

    __hash__ = None  # type: ignore[assignment]  # no concrete stand-in: a set or dict of them must not pass

    def __int__(self) -> int:
        raise TypeError("int() of a symbolic integer: the code would read a concrete stand-in")

    __index__ = __int__

    def __repr__(self) -> str:
        return f"SymInt({self.term})"


def _floor_div(numerator: Term, divisor: Term, run: Run) -> SymInt:
    """q = floor(numerator / divisor) for a divisor the path proves positive: d q <= a < d q + d."""
    known = z3.is_int_value(divisor) and divisor.as_long() > 0  # a positive numeral: nothing to ask
    if not known and run.feasible(divisor <= 0):
        raise ArithmeticError(f"division by {divisor}, which this path does not prove positive")
    quotient = run.fresh()
    run.solver.add(divisor * quotient <= numerator, numerator < divisor * quotient + divisor)
    return SymInt(quotient, run)


@dataclass
class Path(Generic[T]):
    """One feasible path: what the code returned, the branch conditions taken, and the run (its solver)."""

    value: T
    conditions: list[Term] = field(default_factory=list)
    run: Run | None = None


def explore(call: Callable[[Run], T], limit: int = 10_000, *, relax: bool = False) -> Iterator[Path[T]]:
    """Run *call* once per feasible path (depth first); yield each path's result with its conditions.

    *call* makes its inputs with :meth:`Run.integer` and states their
    domain with :meth:`Run.assume` before computing. With *relax* every
    integer is a real (the LP relaxation: each integer solution is a real
    one, so a property unsat over the relaxation holds over the integers).
    """
    pending: list[list[bool]] = [[]]
    count = 0
    while pending:
        count += 1
        if count > limit:
            raise ArithmeticError(f"more than {limit} paths")
        run = Run(pending.pop(), relax=relax)
        value = call(run)
        pending.extend(reversed(run.alternatives))
        yield Path(value, run.conditions, run)
