"""inspect-ai score values: the number a scorer's value stands for, and one sample's scored epochs.

:func:`score_value` maps inspect's letters (:data:`VALUE_LETTERS`), booleans
and numbers to a number and refuses values that are not one score;
:func:`scored_epoch` turns a sample's scorer entry into an epoch
(exact, as given, and as written), or None for inspect's NaN of an unscored
sample; a :class:`Sample` gathers one sample's epochs. The rules are those of
:mod:`sysrs_ref.loaders.inspect_ai`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from sysrs_ref.errors import LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.scores import SCORE_LETTERS, checked_score

__all__ = ["VALUE_LETTERS", "Sample", "score_value", "scored_epoch"]

#: inspect's letter values: correct, partial, incorrect, no answer (the letters every text reader accepts).
VALUE_LETTERS: Mapping[str, Fraction] = SCORE_LETTERS


def score_value(value: JsonValue, where: str) -> int | float | Fraction:
    """The number that an inspect score *value* stands for; *where* is for errors.

    The rules are those of :mod:`sysrs_ref.loaders.inspect_ai` (**Value**).

    >>> [score_value(v, "x") for v in ("C", "P", "I", "N", True, 0.25)]
    [Fraction(1, 1), Fraction(1, 2), Fraction(0, 1), Fraction(0, 1), 1, 0.25]
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        letter = VALUE_LETTERS.get(value.strip())
        if letter is None:
            raise LoaderError(
                f"{where}: value {value!r} is not one of C, P, I, N (correct, partial, incorrect, no answer) "
                "nor a number"
            )
        return letter
    if isinstance(value, (Mapping, list)):
        raise LoaderError(
            f"{where}: the value is a {'list' if isinstance(value, list) else 'JSON object'} (several values per "
            "sample); a score matrix needs one number per sample: use a scorer with a single value"
        )
    raise LoaderError(f"{where}: the value is {value!r}, not a score")


class _Epoch(NamedTuple):
    """One scored epoch of a sample."""

    exact: Fraction
    number: int | float | Fraction
    """The score as :func:`score_value` gave it (shown in messages as written)."""
    raw: str | int | float
    """The value as the log wrote it (inspect's ``mode`` counts these)."""
    where: str


@dataclasses.dataclass
class Sample:
    """A sample of one log: its id as written and its scored epochs."""

    sample_id: str | int
    epochs: dict[int, _Epoch]


def scored_epoch(score: JsonValue, where: str, scorer: str) -> _Epoch | None:
    """One epoch's score from its scorer entry (at *where*; *scorer* adds the scorer), or None for NaN (unscored)."""
    if not isinstance(score, Mapping) or "value" not in score:
        raise LoaderError(f"{scorer}: the scorer has no value")
    raw = score["value"]
    number = score_value(raw, scorer)
    if isinstance(number, float) and math.isnan(number):
        return None
    try:
        exact = checked_score(number)
    except ValueError as problem:
        raise LoaderError(f"{scorer}: score {problem}; every score must be a number in [0, 1]") from None
    assert isinstance(raw, (str, int, float))  # score_value refused everything else
    return _Epoch(exact, number, raw, where)
