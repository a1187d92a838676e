"""The one integer validator: counts, seeds and limits given by a user (API or command line)."""

from __future__ import annotations

import numbers

from sysrs_ref.errors import ParameterError, SysrsError

__all__ = ["check_int"]


def check_int(value: object, name: str, *, least: int = 1, error: type[SysrsError] = ParameterError) -> int:
    """*value* as an int when it is an integer (a numpy integer too, not a bool) of at least *least*; else *error*.

    >>> check_int(3, "runs"), check_int(0, "--seed", least=0)
    (3, 0)
    >>> check_int(0, "--runs")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: --runs must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        kind = {0: "a non-negative integer", 1: "a positive integer"}.get(least, f"an integer of at least {least}")
        raise error(f"{name} must be {kind}, got {value!r}")
    return int(value)
