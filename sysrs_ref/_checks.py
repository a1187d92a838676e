"""The one integer validator: counts, seeds and limits given by a user (API or command line); and how to show them.

numpy is imported only by :func:`generator_of`: ``import sysrs_ref`` imports this module and no numpy.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

from sysrs_ref.errors import ParameterError, SysrsError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["check_int", "check_seed", "generator_of", "shortened", "shown_value"]


def check_int(value: object, name: str, *, least: int = 1, error: type[SysrsError] = ParameterError) -> int:
    """*value* as an int when it is an integer (a numpy integer too, not a bool) of at least *least*; else *error*.

    >>> check_int(3, "runs"), check_int(0, "--seed", least=0)
    (3, 0)
    >>> check_int(0, "--runs")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: --runs must be a positive integer, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:  # numpy's bool is none
        kind = {0: "a non-negative integer", 1: "a positive integer"}.get(least, f"an integer of at least {least}")
        raise error(f"{name} must be {kind}, got {shown_value(value)}")
    return int(value)


def check_seed(value: object, name: str = "seed") -> int:
    """A seed as an int: a non-negative integer (a numpy integer too); ParameterError naming *name* otherwise.

    >>> import numpy as np
    >>> check_seed(np.int64(7))
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: seed must be a non-negative integer, got -1
    """
    return check_int(value, name, least=0)


def generator_of(rng: object, name: str = "rng") -> np.random.Generator:
    """*rng* if it is a numpy Generator, else ``numpy.random.default_rng`` of it as a seed (:func:`check_seed`).

    >>> import numpy as np
    >>> int(generator_of(3).integers(10)) == int(np.random.default_rng(3).integers(10))
    True
    >>> generator_of(-1, "seed")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: seed must be a non-negative integer or a numpy.random.Generator, got -1
    """
    import numpy as np  # here: importing this module must not import numpy

    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, numbers.Integral) or rng < 0:
        raise ParameterError(
            f"{name} must be a non-negative integer or a numpy.random.Generator, got {shown_value(rng)}"
        )
    return np.random.default_rng(int(rng))


def shown_value(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, shortened when long (an int of 5000 digits has no repr).

    >>> shown_value(-1), shown_value("x" * 100, 11), shown_value(10**5000)
    ('-1', "'xxx...xxx'", 'an integer of 5001 digits')
    """
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        return f"an integer of {_digits(value)} digits"
    text = repr(value)
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


def _digits(value: int) -> int:
    """The number of decimal digits of a nonzero int, without converting it to text."""
    count = int(abs(value).bit_length() * 0.30102999566398120) + 1
    return count if abs(value) >= 10 ** (count - 1) else count - 1


def shortened(text: str, limit: int = 40) -> str:
    """*text* as it is when short, else its first and last characters around "...": for error messages.

    >>> shortened("0.25"), shortened("1" * 50, 10)
    ('0.25', '11111...11111')
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}...{text[-half:]}"
