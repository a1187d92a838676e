"""Compare an implementation's output with a vector's expected output; say where they first differ.

Integers, lists and booleans must be equal. An exact value (``{"exact":
"p/q", "float": x}`` in the vectors) may be answered with the same object,
with the "p/q" text alone (compared exactly), or with a number, for
floating-point implementations: within a relative :data:`RELATIVE_TOLERANCE`
of x, and of the exact value's sign (an exact 0 must be answered 0, a
positive value with a positive number), so a float computation that loses
the sign fails. An expected bare float (the ``bounds`` family's ``value``,
prefactor * exp(-exponent) in double precision) may be answered with any
JSON number within a relative :data:`FLOAT_TOLERANCE`. For an algorithm case
the requests are compared first, since the first diverging request is where
two implementations part.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from sysrs_ref.conformance.values import JsonValue, parse_exact
from sysrs_ref.errors import ScoreError

__all__ = ["FLOAT_TOLERANCE", "RELATIVE_TOLERANCE", "first_difference"]

#: How close a float answer must be to an exact expected value (relative; absolute 1e-12 near 0).
RELATIVE_TOLERANCE = 1e-9

#: How close an answer must be to an expected bare float (relative). The vectors' value is prefactor * exp(-exponent)
#: computed to 20 digits and rounded once to the nearest double; in double arithmetic the exp and the product are
#: rounded too, and most languages' exp (C's libm, JavaScript, numpy) is not correctly rounded, so the answer may
#: be an ulp or a few away and equality would fail good implementations: 1e-12 allows thousands of ulps and no
#: real mistake.
FLOAT_TOLERANCE = 1e-12


def _is_number(value: JsonValue) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _sign(value: float | Fraction) -> int:
    return (value > 0) - (value < 0)


def _exact_difference(path: str, expected: Mapping[str, JsonValue], got: JsonValue) -> str | None:
    """None when *got* answers the exact value *expected*; else what is wrong."""
    exact = parse_exact(expected["exact"])
    if isinstance(got, Mapping):
        got = got.get("exact", got.get("float"))
    mismatch = f"{path}: expected {_show(expected)}, got {_show(got)}"
    if isinstance(got, str):
        try:
            return None if parse_exact(got) == exact else mismatch
        except ScoreError:
            return mismatch
    target = expected["float"]
    if not _is_number(got) or not isinstance(target, (int, float)):
        return mismatch
    assert isinstance(got, (int, float))
    if _sign(got) != _sign(exact):
        zero = " (an exact 0 must be answered 0)" if exact == 0 else ""
        return f"{mismatch}: the sign differs{zero}"
    close = math.isclose(got, target, rel_tol=RELATIVE_TOLERANCE, abs_tol=RELATIVE_TOLERANCE * 1e-3)
    return None if close else mismatch


def _float_difference(path: str, expected: float, got: JsonValue) -> str | None:
    """None when *got* is a number within a relative FLOAT_TOLERANCE of the expected bare float."""
    if _is_number(got):
        assert isinstance(got, (int, float))
        if math.isclose(got, expected, rel_tol=FLOAT_TOLERANCE, abs_tol=0.0):
            return None
        return f"{path}: expected {expected!r}, got {got!r} (not within a relative {FLOAT_TOLERANCE:g})"
    return f"{path}: expected {expected!r}, got {_show(got)}"


def _show(value: JsonValue) -> str:
    if isinstance(value, Mapping) and "exact" in value:
        return str(value["exact"])
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _difference(path: str, expected: JsonValue, got: JsonValue) -> str | None:
    if isinstance(expected, Mapping) and set(expected) == {"exact", "float"}:
        return _exact_difference(path, expected, got)
    if isinstance(expected, float):
        return _float_difference(path, expected, got)
    if isinstance(expected, Mapping):
        if not isinstance(got, Mapping):
            return f"{path}: expected an object, got {_show(got)}"
        for key, value in expected.items():
            if key not in got:
                return f"{path}.{key}: missing"
            found = _difference(f"{path}.{key}", value, got[key])
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(got, list):
            return f"{path}: expected a list, got {_show(got)}"
        for index, (want, have) in enumerate(zip(expected, got, strict=False)):
            found = _difference(f"{path}[{index}]", want, have)
            if found:
                return found
        if len(expected) != len(got):
            return f"{path}: expected {len(expected)} items, got {len(got)}"
        return None
    if expected is None:
        return None if got is None else f"{path}: expected null (infinite or undefined), got {_show(got)}"
    same = type(expected) is type(got) and expected == got
    return None if same else f"{path}: expected {_show(expected)}, got {_show(got)}"


def _requests(batches: JsonValue) -> list[tuple[int, int, JsonValue]]:
    """(batch, position in batch, request) for every request."""
    out: list[tuple[int, int, JsonValue]] = []
    if isinstance(batches, list):
        for number, batch in enumerate(batches):
            if isinstance(batch, list):
                out.extend((number, position, request) for position, request in enumerate(batch))
    return out


def _request_difference(expected: JsonValue, got: JsonValue) -> str | None:
    if not isinstance(got, list) or not all(isinstance(batch, list) for batch in got):
        return f"batches: expected a list of batches of [model, query] requests, got {_show(got)}"
    want, have = _requests(expected), _requests(got)
    for index, (w, h) in enumerate(zip(want, have, strict=False)):
        if w[2] != h[2] or w[:2] != h[:2]:
            where = f"request {index + 1} (batch {w[0] + 1}, item {w[1] + 1})"
            if w[2] == h[2]:
                return f"{where}: the same request [model, query] = {w[2]}, but in batch {h[0] + 1} as item {h[1] + 1}"
            return f"{where}: expected [model, query] = {w[2]}, got {h[2]}"
    if len(want) != len(have):
        return f"batches: expected {len(want)} requests in all, got {len(have)}"
    return None


def first_difference(family: str, expected: Mapping[str, JsonValue], got: JsonValue) -> str | None:
    """None when *got* matches *expected*; else where they first differ, e.g. ``ranking[2]: expected 1, got 3``.

    >>> first_difference("schedules", {"n_k": [1, 2], "spend": 5}, {"n_k": [1, 3], "spend": 5})
    'n_k[1]: expected 2, got 3'
    >>> first_difference("hardness", {"H2": {"exact": "1/3", "float": 1 / 3}}, {"H2": 0.3333333333333333})
    >>> first_difference("hardness", {"theta": {"exact": "0", "float": 0.0}}, {"theta": -1e-17})
    'theta: expected 0, got -1e-17: the sign differs (an exact 0 must be answered 0)'
    >>> first_difference("bounds", {"value": 0.125}, {"value": 0.125000000000001})
    """
    if not isinstance(got, Mapping):
        return f"output: expected a JSON object, got {_show(got)}"
    if family == "algorithms" and "batches" in expected:
        found = _request_difference(expected["batches"], got.get("batches"))
        if found:
            return found
        expected = {key: value for key, value in expected.items() if key != "batches"}
    found = _difference("", expected, got)
    return None if found is None else found.removeprefix(".")
