"""The SMT side of the code claims: z3 solvers, exact ceilings as linear constraints, verdicts.

z3 ships no type information, so its terms cross function boundaries here as
``Term`` (unchecked by mypy). A claim is proved when z3 answers ``unsat`` to
its negation; ``sat`` gives a counterexample (the model), ``unknown`` is no
proof and is reported as a failure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TypeAlias

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

__all__ = ["Term", "ceil_var", "rational", "refute", "refute_terms"]

Term: TypeAlias = "z3.ArithRef"
"""A z3 arithmetic term (unchecked by mypy)."""


def rational(value: Fraction | int) -> Term:
    """*value* as an exact z3 rational (never through a float)."""
    value = Fraction(value)
    if value.denominator == 1:
        return z3.RealVal(value.numerator)
    return z3.RealVal(f"{value.numerator}/{value.denominator}")  # a numeral, exact (z3.Q would also simplify it)


def ceil_var(solver: z3.Solver, numerator: Term, divisor: int, name: str, *, real: bool = False) -> Term:
    """A fresh variable q = ceil(numerator / divisor) for a positive integer *divisor*.

    q = ceil(a / b) <=> b q >= a and b (q - 1) < a: two linear constraints.
    With *real* the variable is real (the LP relaxation: every integer
    solution is a real one, so an unsat relaxation proves the integer claim).
    """
    if divisor <= 0:
        raise ValueError(f"divisor must be positive, got {divisor}")
    q = z3.Real(name) if real else z3.Int(name)
    solver.add(divisor * q >= numerator, divisor * (q - 1) < numerator)
    return q


def refute(solver: z3.Solver, shown: tuple[str, ...] = ()) -> str | None:
    """None when *solver* (holding a claim's negation) is unsat, else the counterexample as text.

    *shown* names the variables to print (all of them when empty).
    """
    model = _model(solver)
    if not isinstance(model, z3.ModelRef):
        return model
    names = shown or tuple(sorted(str(decl) for decl in model.decls()))
    values = {str(decl): model[decl] for decl in model.decls()}
    return ", ".join(f"{name}={values[name]}" for name in names if name in values)


def refute_terms(solver: z3.Solver, shown: dict[str, Term]) -> str | None:
    """As :func:`refute`, printing the value of each term of *shown* (a rational as an integer or a 17-digit float)."""
    model = _model(solver)
    if not isinstance(model, z3.ModelRef):
        return model
    parts = []
    for name, term in shown.items():
        value = model.eval(term, model_completion=True)
        if z3.is_rational_value(value):
            exact = Fraction(value.numerator_as_long(), value.denominator_as_long())
            parts.append(f"{name}={exact if exact.denominator == 1 else format(float(exact), '.17g')}")
        else:
            parts.append(f"{name}={value.as_decimal(20) if z3.is_algebraic_value(value) else value}")
    return ", ".join(parts)


def _model(solver: z3.Solver) -> z3.ModelRef | str | None:
    """The counterexample model when *solver* is sat; None when unsat (proved); the reason when z3 gave up."""
    result = solver.check()
    if result == z3.unsat:
        return None
    if result != z3.sat:
        return f"z3 answered {result} ({solver.reason_unknown()}): no proof"
    return solver.model()
