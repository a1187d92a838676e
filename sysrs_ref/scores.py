"""Exact scores: turning one number into a :class:`~fractions.Fraction` in [0, 1].

The reference compares means exactly (docs/contracts.md), so every score is
held as a ``Fraction``. A float converts to the Fraction of its exact binary
value (``0.1`` becomes ``3602879701896397/36028797018963968``), a ``Decimal``
or a decimal string to its exact decimal value (``"0.1"`` becomes ``1/10``).

:func:`parse_score_text` is the one parser of a score written as text (a
``.csv`` matrix, a long ``.csv``, ``convert --from long-csv``, ``live
record``): it accepts exactly the spellings listed in its docstring.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from numbers import Rational
from types import MappingProxyType

import numpy as np

from sysrs_ref._checks import shortened
from sysrs_ref.errors import ScoreError

__all__ = [
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "SCORE_LETTERS",
    "SCORE_SPELLINGS",
    "SCORE_WORDS",
    "ScoreLike",
    "as_score",
    "bounded_decimal",
    "checked_score",
    "decimal_text",
    "fraction_text",
    "parse_decimal",
    "parse_score_text",
    "shortened",
]

#: What may stand for a score: Python and numpy numbers, Fractions and Decimals.
ScoreLike = int | float | Fraction | Decimal | np.integer | np.floating | np.bool_

_ZERO = Fraction(0)
_ONE = Fraction(1)

#: A nonzero decimal is read only if its magnitude lies within [1e-1000, 1e1001): its adjusted exponent
#: (that of its leading digit) is within [-MAX_EXPONENT, MAX_EXPONENT].
MAX_EXPONENT = 1000
#: ... and if it has at most MAX_DIGITS digits (``"1.50"`` has 3): every double's exact decimal expansion fits.
MAX_DIGITS = 1000

#: inspect-ai's letter values, as written (upper case): C correct, P partial, I incorrect, N no answer.
SCORE_LETTERS: Mapping[str, Fraction] = MappingProxyType(
    {"C": Fraction(1), "P": Fraction(1, 2), "I": Fraction(0), "N": Fraction(0)}
)
#: Booleans written as words, in any letter case ("True", "FALSE"): what pandas and Python's ``str`` write.
SCORE_WORDS: Mapping[str, Fraction] = MappingProxyType({"true": Fraction(1), "false": Fraction(0)})
#: The accepted spellings in one phrase, for messages and help.
SCORE_SPELLINGS = "a decimal in [0, 1] (0.5, .5, 1e-1), true or false (any case), or C, P, I, N (1, 1/2, 0, 0)"


def checked_score(value: object) -> Fraction:
    """Return *value* as an exact Fraction in [0, 1], or raise ValueError saying what is wrong.

    The ValueError's message is a phrase to put after "score ...": "is nan",
    "is 1.5, outside [0, 1]", "is 'x', not a number". Callers add where the
    score was and raise their own error type.

    >>> checked_score(0.25)
    Fraction(1, 4)
    >>> checked_score(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: is nan
    """
    if type(value) is float and 0.0 <= value <= 1.0:  # the common case: a harness's float, few distinct values
        return _float_fraction(value)
    if type(value) is int and (value == 0 or value == 1):
        return _ONE if value else _ZERO
    if type(value) is Fraction and _ZERO <= value <= _ONE:
        return value
    exact = _to_fraction(value)
    if exact < _ZERO or exact > _ONE:
        shown = value.item() if isinstance(value, np.generic) else value
        raise ValueError(f"is {shown}, outside [0, 1]")
    return exact


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
    >>> as_score(1.5)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ScoreError: score is 1.5, outside [0, 1]
    """
    try:
        return checked_score(value)
    except ValueError as err:
        raise ScoreError(f"score {err}") from None


@functools.lru_cache(maxsize=4096)
def _float_fraction(value: float) -> Fraction:
    """The exact Fraction of a finite float, remembered: a harness's scores repeat (0.0, 1.0, a few shares)."""
    return Fraction(value)


def _to_fraction(value: object) -> Fraction:
    """Exact Fraction of a real number; ValueError with a reason otherwise."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (bool, np.bool_)):
        return _ONE if value else _ZERO
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        as_float = float(value)
        if math.isnan(as_float):
            raise ValueError("is nan")
        if math.isinf(as_float):
            raise ValueError(f"is {as_float}")
        return Fraction(as_float)
    if isinstance(value, Decimal):
        return _decimal_fraction(_checked_decimal(value, str(value)))
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    raise ValueError(f"is {value!r}, not a number")


def parse_decimal(text: str) -> Fraction:
    """Parse a decimal literal (``"0.75"``, ``"1e-3"``, ``"1"``) exactly: the one parser of decimal numbers.

    The number is refused, before any conversion, unless it is finite and
    either 0 or of magnitude within [1e-1000, 1e1001) (its leading digit's
    exponent within +-:data:`MAX_EXPONENT`) with at most :data:`MAX_DIGITS`
    digits. Within these bounds the exact Fraction has at most about 2000
    digits, so the work is linear in ``len(text)``; ``1e-99999999`` would
    otherwise cost 10**99999999. Scores, percentages, exploration parameters
    and grids all lie far inside.

    Raises ValueError with a short reason to put after the value's name ("is
    nan", "is 'abc', not a number", "is 1e-99999, below 1e-1000 in magnitude:
    too small to hold exactly (round it, ...)").

    >>> parse_decimal("0.1")
    Fraction(1, 10)
    >>> parse_decimal(" 1e-2 ")
    Fraction(1, 100)
    >>> parse_decimal("1e-99999999")
    Traceback (most recent call last):
    ...
    ValueError: is 1e-99999999, below 1e-1000 in magnitude: too small to hold exactly (round it, to 0 if it is negligible)
    """
    return _decimal_fraction(bounded_decimal(text))


def parse_score_text(text: str) -> Fraction:
    """Parse one score written as text, exactly: the one parser of scores in text files.

    Surrounding spaces are ignored. Accepted, and nothing else:

    - a decimal number in [0, 1], read exactly by :func:`parse_decimal`
      within its bounds (``"0.1"`` is 1/10; ``".5"``, ``"1e-1"``, ``"1.0"``,
      ``"+0"`` are accepted);
    - ``true`` or ``false`` in any letter case (:data:`SCORE_WORDS`): 1 and 0;
    - inspect-ai's letters, upper case only (:data:`SCORE_LETTERS`): ``C``
      (correct) 1, ``P`` (partial) 1/2, ``I`` (incorrect) 0, ``N`` (no
      answer) 0.

    Raises ValueError with a phrase to put after "score ", as
    :func:`checked_score` does: "is empty", "is nan", "is 1.5, outside [0, 1]",
    "is 'yes', not a score: write ...", or :func:`parse_decimal`'s reason for
    a number beyond its bounds.

    >>> [parse_score_text(t) for t in (" 0.25", ".5", "1e-1", "TRUE", "false", "C", "P", "I", "N")]
    [Fraction(1, 4), Fraction(1, 2), Fraction(1, 10), Fraction(1, 1), Fraction(0, 1), Fraction(1, 1), Fraction(1, 2), Fraction(0, 1), Fraction(0, 1)]
    >>> parse_score_text("1.5")
    Traceback (most recent call last):
    ...
    ValueError: is 1.5, outside [0, 1]
    >>> parse_score_text("c")
    Traceback (most recent call last):
    ...
    ValueError: is 'c', not a score: write a decimal in [0, 1] (0.5, .5, 1e-1), true or false (any case), or C, P, I, N (1, 1/2, 0, 0)
    """
    stripped = text.strip()
    spelled = SCORE_LETTERS.get(stripped)
    if spelled is None:
        spelled = SCORE_WORDS.get(stripped.lower())
    if spelled is not None:
        return spelled
    number = _decimal_or_none(stripped)
    if number is None:
        raise ValueError(
            f"is {shortened(stripped)!r}, not a score: write {SCORE_SPELLINGS}" if stripped else "is empty"
        )
    value = _decimal_fraction(_checked_decimal(number, stripped))
    if not _ZERO <= value <= _ONE:
        raise ValueError(f"is {shortened(stripped)}, outside [0, 1]")
    return value


def bounded_decimal(text: str) -> Decimal:
    """The finite Decimal that :func:`parse_decimal` reads in *text*, bounds checked, not yet converted.

    For callers that keep the number as written (a loader shows it in its
    messages); ValueError as :func:`parse_decimal`.

    >>> bounded_decimal(" 0.50 ")
    Decimal('0.50')
    >>> bounded_decimal("1" * 1001)
    Traceback (most recent call last):
    ...
    ValueError: has 1001 digits ('11111111111111111111...11111111111111111111'), more than the 1000 an exact number may have (round it to fewer digits)
    """
    stripped = text.strip()
    number = _decimal_or_none(stripped)
    if number is None:
        raise ValueError(f"is {shortened(stripped)!r}, not a number" if stripped else "is empty")
    return _checked_decimal(number, stripped)


def _decimal_or_none(stripped: str) -> Decimal | None:
    """The Decimal that *stripped* spells, unchecked, or None when it spells none."""
    try:
        return Decimal(stripped)
    except InvalidOperation:  # also an exponent beyond Decimal's own limits (about 1e999999999999999999)
        return None


def _checked_decimal(number: Decimal, shown: str) -> Decimal:
    """*number* if finite and within the bounds of :func:`parse_decimal`; ValueError naming *shown* otherwise."""
    if number.is_nan():
        raise ValueError("is nan")
    if number.is_infinite():
        raise ValueError(f"is {'-' if number < 0 else ''}inf")
    if not number:
        return number
    shown = shortened(shown)
    if number.adjusted() < -MAX_EXPONENT:
        raise ValueError(
            f"is {shown}, below 1e-{MAX_EXPONENT} in magnitude: too small to hold exactly "
            "(round it, to 0 if it is negligible)"
        )
    if number.adjusted() > MAX_EXPONENT:
        raise ValueError(
            f"is {shown}, above 1e+{MAX_EXPONENT} in magnitude: too large to hold exactly "
            f"(write a number below 1e+{MAX_EXPONENT})"
        )
    digits = len(number.as_tuple().digits)
    if digits > MAX_DIGITS:
        raise ValueError(
            f"has {digits} digits ({shown!r}), more than the {MAX_DIGITS} an exact number may have "
            "(round it to fewer digits)"
        )
    return number


def _decimal_fraction(number: Decimal) -> Fraction:
    """The exact Fraction of a Decimal that :func:`_checked_decimal` accepted (a zero of any exponent is 0)."""
    return Fraction(number) if number else _ZERO


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


def decimal_text(value: Fraction) -> str:
    """A Fraction as its exact decimal text ("0.1", "12", "1.25"), or "p/q" when it has no finite one.

    >>> decimal_text(Fraction(1, 10)), decimal_text(Fraction(12)), decimal_text(Fraction(-5, 4)), decimal_text(Fraction(1, 3))
    ('0.1', '12', '-1.25', '1/3')
    """
    if value.denominator == 1:
        return fraction_text(value)
    twos = fives = 0
    rest = value.denominator
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        return fraction_text(value)
    digits = max(twos, fives)
    scaled = abs(value.numerator) * 10**digits // value.denominator
    whole, frac = divmod(scaled, 10**digits)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{frac:0{digits}d}".rstrip("0").rstrip(".")
