"""The distinct values of an array, ascending: ``numpy.unique``'s values, without importing ``numpy.ma``.

``numpy.unique`` (numpy 2) asks ``numpy.ma`` whether its argument is masked,
and importing ``numpy.ma`` costs more than many of the calls that need the
distinct values (a command-line call reading one matrix, a worker process
resolving one cut). :func:`distinct_sorted` sorts and keeps the first value of
each run of equal values, as ``numpy.unique``'s sorting path does.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["distinct_sorted"]

G = TypeVar("G", bound=np.generic)


def distinct_sorted(values: npt.NDArray[G]) -> npt.NDArray[G]:
    """The distinct values of *values* (any shape), ascending, as a new 1-D array: ``numpy.unique(values)``'s values.

    Values that compare equal are one value (so ``-0.0`` and ``0.0`` are one,
    whichever of them is kept); NaN is not expected (a NaN would be kept once
    per occurrence, since NaN != NaN).

    >>> distinct_sorted(np.array([[3, 1, 3], [2, 1, 0]])).tolist()
    [0, 1, 2, 3]
    >>> distinct_sorted(np.array([], dtype=np.float64)).tolist()
    []
    """
    ordered = np.sort(values, axis=None)
    first = np.ones(ordered.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]
