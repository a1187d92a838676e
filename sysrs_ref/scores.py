"""Exact scores: turning one number into a :class:`~fractions.Fraction` in [0, 1].

The reference compares means exactly (DESIGN.md section 4), so every score is
held as a ``Fraction``. A float converts to the Fraction of its exact binary
value (``0.1`` becomes ``3602879701896397/36028797018963968``), a ``Decimal``
or a decimal string to its exact decimal value (``"0.1"`` becomes ``1/10``).
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from numbers import Rational

import numpy as np

from sysrs_ref.errors import ScoreError

__all__ = ["ScoreLike", "as_score", "describe_bad_score", "fraction_text", "parse_decimal"]

#: What may stand for a score: Python and numpy numbers, Fractions and Decimals.
ScoreLike = int | float | Fraction | Decimal | np.integer | np.floating | np.bool_

_ZERO = Fraction(0)
_ONE = Fraction(1)


def describe_bad_score(value: object) -> str | None:
    """Say why *value* is not a score in [0, 1], or return None if it is one.

    >>> describe_bad_score(0.5) is None
    True
    >>> describe_bad_score(float("nan"))
    'is nan'
    >>> describe_bad_score(1.5)
    'is 1.5, outside [0, 1]'
    """
    try:
        exact = _to_fraction(value)
    except _NotANumber as err:
        return str(err)
    if exact < _ZERO or exact > _ONE:
        shown = value.item() if isinstance(value, np.generic) else value
        return f"is {shown}, outside [0, 1]"
    return None


def as_score(value: object) -> Fraction:
    """Return *value* as an exact Fraction, checking that it is a score in [0, 1].

    Raises :class:`~sysrs_ref.errors.ScoreError` for NaN, infinities,
    non-numbers and numbers outside [0, 1].

    >>> as_score(1)
    Fraction(1, 1)
    >>> as_score(0.25)
    Fraction(1, 4)
    >>> as_score(Decimal("0.1"))
    Fraction(1, 10)
    """
    if type(value) is Fraction and _ZERO <= value <= _ONE:
        return value
    problem = describe_bad_score(value)
    if problem is not None:
        raise ScoreError(f"score {problem}")
    return _to_fraction(value)


class _NotANumber(Exception):
    pass


def _to_fraction(value: object) -> Fraction:
    """Exact Fraction of a real number; raise _NotANumber with a reason otherwise."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (bool, np.bool_)):
        return _ONE if value else _ZERO
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        as_float = float(value)
        if math.isnan(as_float):
            raise _NotANumber("is nan")
        if math.isinf(as_float):
            raise _NotANumber(f"is {as_float}")
        return Fraction(as_float)
    if isinstance(value, Decimal):
        if value.is_nan():
            raise _NotANumber("is nan")
        if value.is_infinite():
            raise _NotANumber(f"is {'-' if value < 0 else ''}inf")
        return Fraction(value)
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    raise _NotANumber(f"is {value!r}, not a number")


def parse_decimal(text: str) -> Fraction:
    """Parse a decimal literal (``"0.75"``, ``"1e-3"``, ``"1"``) exactly.

    Raises ValueError with a short reason ("is nan", "is 'abc', not a number").

    >>> parse_decimal("0.1")
    Fraction(1, 10)
    >>> parse_decimal(" 1e-2 ")
    Fraction(1, 100)
    """
    stripped = text.strip()
    try:
        number = Decimal(stripped)
    except InvalidOperation:
        shown = stripped if stripped else "empty"
        raise ValueError(f"is {shown!r}, not a number" if stripped else "is empty") from None
    try:
        return _to_fraction(number)
    except _NotANumber as err:
        raise ValueError(str(err)) from None


def fraction_text(value: Fraction) -> str:
    """The exact text "p/q" of a Fraction ("p" when q = 1), however many digits it has.

    ``str(Fraction)`` refuses numbers of more than 4300 digits (Python's
    int-to-str limit); exact hardness measures of float matrices can be that
    long. Decimal converts integers exactly with no such limit.

    >>> fraction_text(Fraction(3000000, 49)), fraction_text(Fraction(4))
    ('3000000/49', '4')
    >>> len(fraction_text(Fraction(3**10000, 2)))
    4774
    """
    numerator = str(Decimal(value.numerator))
    return numerator if value.denominator == 1 else f"{numerator}/{Decimal(value.denominator)}"
