"""Exact numbers in language-neutral JSON: "p/q" strings beside floats, score matrices both ways.

A score in the vectors is a float64 value; the vectors give it twice, as a
JSON number (its shortest round-trip decimal, which any JSON reader turns
back into the same double) and as the exact rational value of that double,
"p/q" (``scores_exact``). Derived exact quantities (hardness, bounds,
probabilities) are :func:`exact_value` objects ``{"exact": "p/q", "float": x}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from sysrs_ref.errors import ScoreError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.scores import fraction_text

__all__ = ["JsonValue", "exact_value", "matrix_json", "parse_exact", "score_number", "scores_of"]


_RATIONAL = re.compile(r"^-?\d+(/\d+)?$")

#: The longest "p/q" text read: far above any value the vectors hold, far below a costly conversion.
_MAX_TEXT = 100_000


def parse_exact(text: object) -> Fraction:
    """A rational from its exact text "p/q" (or "p").

    >>> parse_exact("3/8"), parse_exact("-2")
    (Fraction(3, 8), Fraction(-2, 1))
    """
    if not isinstance(text, str) or len(text) > _MAX_TEXT or not _RATIONAL.match(text.strip()):
        shown = text if not isinstance(text, str) or len(text) <= 80 else f"{text[:40]}...({len(text)} characters)"
        raise ScoreError(f'expected an exact rational "p/q" of at most {_MAX_TEXT} characters, got {shown!r}')
    numerator, _, denominator = text.strip().partition("/")
    return Fraction(_integer(numerator), _integer(denominator or "1"))


def _integer(digits: str) -> int:
    """int(*digits*) for any length: Python refuses to convert more than 4300 digits at once, so in chunks."""
    sign, body = (-1, digits[1:]) if digits.startswith("-") else (1, digits)
    value = 0
    for start in range(0, len(body), 4000):
        chunk = body[start : start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return sign * value


def exact_value(value: Fraction | None) -> JsonValue:
    """``{"exact": "p/q", "float": x}``, or None (an infinite or undefined quantity).

    >>> exact_value(Fraction(1, 3))
    {'exact': '1/3', 'float': 0.3333333333333333}
    """
    if value is None:
        return None
    return {"exact": fraction_text(value), "float": float(value)}


def score_number(value: Fraction) -> int | float:
    """A score as a JSON number: an int when it is one, else the double it is exactly.

    >>> score_number(Fraction(1)), score_number(Fraction(1, 4))
    (1, 0.25)
    """
    if value.denominator == 1:
        return value.numerator
    number = float(value)
    if Fraction(number) != value:
        raise ScoreError(f"score {value} is not a float64 value: the vectors only hold scores that are")
    return number


def matrix_json(scores: Sequence[Sequence[Fraction]]) -> dict[str, JsonValue]:
    """``{"scores": numbers, "scores_exact": "p/q" strings}`` of a matrix of float64 scores."""
    return {
        "scores": [[score_number(x) for x in row] for row in scores],
        "scores_exact": [[fraction_text(x) for x in row] for row in scores],
    }


def scores_of(case_input: Mapping[str, object]) -> list[list[Fraction]]:
    """The exact matrix of a case input (from ``scores_exact``)."""
    rows = case_input.get("scores_exact")
    if not isinstance(rows, list) or not rows or not all(isinstance(row, list) for row in rows):
        raise ScoreError('a case input needs "scores_exact": a list of rows of "p/q" strings')
    return [[parse_exact(x) for x in row] for row in rows]
