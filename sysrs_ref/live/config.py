"""The files of a live session's run directory, and the checks on what goes into them.

``session.json`` (:data:`CONFIG_NAME`) holds the model and query ids, the
algorithm, its parameters (integers, or their exact text: ``"0.1"``,
``"1/3"``), the budget n and the seed; :mod:`sysrs_ref.live.log` holds the
log. These helpers check ids, read the configuration back, and turn
parameters and scores into exact text and back.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from sysrs_ref._checks import shown_value
from sysrs_ref.algorithms.registry import ParamValue
from sysrs_ref.errors import LiveError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.live.log import LOCK_NAME, LOG_NAME
from sysrs_ref.scores import decimal_text, parse_decimal, shortened

__all__ = [
    "CONFIG_NAME",
    "FORMAT",
    "check_ids",
    "check_new_folder",
    "config_ids",
    "config_int",
    "exact_score",
    "param_json",
    "param_value",
    "score_json",
    "shown",
]

#: The session's configuration file in the run directory.
CONFIG_NAME = "session.json"
#: The value of its "format" key.
FORMAT = "sysrs-ref live session 1"


def score_json(score: Fraction) -> JsonValue:
    """A score as the log writes it: a JSON number when it is a float's exact value, else its exact text.

    A float prints as its shortest round-trip decimal, which reads back as the
    same float, so either way the log holds the score exactly.

    >>> score_json(Fraction(0.1)), score_json(Fraction(1, 10)), score_json(Fraction(1, 3)), score_json(Fraction(1))
    (0.1, '0.1', '1/3', 1.0)
    """
    as_float = float(score)
    return as_float if Fraction(as_float) == score else decimal_text(score)


def exact_score(value: JsonValue) -> Fraction:
    """The exact score that :func:`score_json` wrote; ValueError (or ZeroDivisionError) when it is none.

    Decimal text is read by :func:`~sysrs_ref.scores.parse_decimal` (within
    its bounds); "p/q" must be two plain integers (no exponent), so reading a
    log costs time linear in its length whatever it holds.

    >>> exact_score(0.1) == Fraction(0.1), exact_score("0.1"), exact_score("1/3")
    (True, Fraction(1, 10), Fraction(1, 3))
    >>> exact_score("1e99999999/2")
    Traceback (most recent call last):
    ...
    ValueError: '1e99999999/2' is not a score
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, str):
        if "/" not in value:
            return parse_decimal(value)
        if not _RATIO.fullmatch(value.strip()):
            raise ValueError(f"{shortened(value)!r} is not a score")
        top, bottom = value.strip().split("/", 1)  # through Decimal: no limit on the digits, unlike int(str)
        return Fraction(int(Decimal(top)), int(Decimal(bottom)))
    raise ValueError(f"{value!r} is not a score")


#: The exact text "p/q" of :func:`~sysrs_ref.scores.fraction_text`: ASCII digits, no exponent.
_RATIO = re.compile(r"-?[0-9]+/[0-9]+")


def param_value(value: JsonValue) -> ParamValue:
    """A parameter read back from ``session.json``: an int, or its exact text ("p/q" as a Fraction)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if "/" not in value:
            return value  # decimal text: the registry checks it (parse_decimal's bounds)
        top, _, bottom = value.strip().partition("/")
        if _RATIO.fullmatch(value.strip()) and bottom.strip("0"):
            return Fraction(int(Decimal(top)), int(Decimal(bottom)))
        raise LiveError(f"{CONFIG_NAME}: parameter value {shortened(value)!r} is not a number")
    raise LiveError(f"{CONFIG_NAME}: parameter values must be integers or strings, got {shown_value(value)}")


def param_json(value: ParamValue | numbers.Real) -> JsonValue:
    """A parameter as written to ``session.json``: an int as it is, anything else as its exact text.

    >>> param_json(3), param_json(0.5), param_json(Fraction(1, 3)), param_json("0.1")
    (3, '0.5', '1/3', '0.1')
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)  # numpy integers too
    if isinstance(value, str):
        return value
    if isinstance(value, (Fraction, Decimal, float)):
        return decimal_text(Fraction(value))
    return decimal_text(Fraction(float(value)))


def check_ids(ids: Sequence[str], what: str) -> tuple[str, ...]:
    """*ids* as a tuple if they are distinct non-empty strings without surrounding spaces, else LiveError.

    >>> check_ids(["a", "b"], "model")
    ('a', 'b')
    >>> check_ids(["a", "a"], "model")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.LiveError: model id 'a' appears twice; ids must be distinct
    """
    if isinstance(ids, str):
        raise LiveError(f"the {what} ids must be a list of strings, not one string")
    found = tuple(ids)
    bad = [
        item
        for item in found
        if not isinstance(item, str)
        or not item.strip()
        or item != item.strip()
        or any(ord(c) < 32 or ord(c) == 127 for c in item)
    ]
    if bad:
        raise LiveError(
            f"{what} ids must be non-empty strings without surrounding spaces or control characters, got {bad[0]!r}"
        )
    if not found:
        raise LiveError(f"a session needs at least one {what}")
    seen: set[str] = set()
    for item in found:
        if item in seen:
            raise LiveError(f"{what} id {item!r} appears twice; ids must be distinct")
        seen.add(item)
    return found


def config_ids(config: Mapping[str, JsonValue], key: str) -> tuple[str, ...]:
    """The checked id list ``config[key]`` (``"models"`` or ``"queries"``) of a ``session.json``."""
    values = config.get(key)
    if not isinstance(values, list):
        raise LiveError(f"{CONFIG_NAME}: {key!r} must be a list of ids")
    return check_ids([str(v) for v in values], "model" if key == "models" else "query")


def config_int(config: Mapping[str, JsonValue], key: str) -> int:
    """The integer ``config[key]`` of a ``session.json``, else LiveError."""
    value = config.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise LiveError(f"{CONFIG_NAME}: {key!r} must be an integer, got {value!r}")
    return value


def shown(ids: Sequence[str]) -> str:
    """The first five ids, for an error message.

    >>> shown([str(i) for i in range(7)])
    "'0', '1', '2', '3', '4', ... (7 in all)"
    """
    return ", ".join(repr(i) for i in ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")


def check_new_folder(folder: Path) -> None:
    """LiveError unless *folder* is absent, empty, or left empty by a failed start (a lock, an empty log)."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise LiveError(f"{folder} exists and is not a folder: a session needs a new run directory")
    for entry in folder.iterdir():
        if entry.name == LOCK_NAME or (entry.name == LOG_NAME and entry.stat().st_size == 0):
            continue
        raise LiveError(
            f"{folder} exists and is not an empty folder: a session needs a new run directory "
            "(to continue the session there, use it as it is)"
        )
