"""Reducing a cell's repeated scores (inspect-ai epochs, HELM trials) to one exact score, or keeping them all.

A harness that runs each sample several times (inspect-ai's ``--epochs``,
HELM's ``train_trial_index``) gives several scores per cell. ``--epochs MODE``
says what the score matrix holds:

- ``auto`` (the default): what the harness itself reports: the reducer
  recorded in an inspect-ai log (its default is ``mean``), the mean over
  HELM's trials;
- ``first``: the first epoch (trial) only;
- ``mean``, ``median``, ``mode``, ``max``, ``min``: that reduction of the
  epochs, exactly (the median of an even count is the mean of the middle
  two; the mode is the most frequent value, the earliest of them on a tie);
- ``all``: every epoch kept, a K x L x E array of repeated samples (see
  :class:`~sysrs_ref.loaders.table.Samples`).

Every reduction is computed on exact Fractions, so it does not depend on the
order of summation. Besides :data:`REDUCERS`, :func:`reduce_epochs` computes
inspect-ai's reducers that take a count *k* in their name
(:data:`COUNTED_REDUCER`), so that ``auto`` can follow a log that records
one: ``at_least_k`` (1 when at least *k* epochs score 1 or more, else 0),
``pass_at_k`` (the chance that at least one of *k* epochs drawn without
replacement scores 1 or more: 1 - C(n - c, k) / C(n, k) for *c* such epochs
of *n*) and ``pass_k_k`` (the chance that all *k* do: C(c, k) / C(n, k)),
each with inspect's default threshold of 1.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from math import comb
from typing import Literal, get_args

from sysrs_ref.errors import ParameterError

__all__ = ["COUNTED_REDUCER", "EPOCH_MODES", "REDUCERS", "EpochMode", "check_epochs", "is_reducer", "reduce_epochs"]

#: What ``--epochs`` accepts.
EpochMode = Literal["auto", "first", "mean", "median", "mode", "max", "min", "all"]
EPOCH_MODES: tuple[EpochMode, ...] = get_args(EpochMode)
#: The reductions :func:`reduce_epochs` computes.
REDUCERS = ("first", "mean", "median", "mode", "max", "min")
#: inspect-ai's reducers named with a count of epochs *k*: ``at_least_2``, ``pass_at_3``, ``pass_k_2``.
COUNTED_REDUCER = re.compile(r"^(?P<kind>at_least|pass_at|pass_k)_(?P<k>[1-9][0-9]{0,5})$")


def is_reducer(name: str) -> bool:
    """Whether :func:`reduce_epochs` computes the reducer *name* (one of :data:`REDUCERS`, or a counted one).

    >>> [is_reducer(name) for name in ("median", "pass_at_3", "at_least_0", "collect")]
    [True, True, False, False]
    """
    return name in REDUCERS or COUNTED_REDUCER.match(name) is not None


def check_epochs(mode: str) -> EpochMode:
    """*mode* if it is one of :data:`EPOCH_MODES`, else a :class:`~sysrs_ref.errors.ParameterError`.

    >>> check_epochs("mean")
    'mean'
    >>> check_epochs("avg")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.ParameterError: unknown --epochs mode 'avg'; use one of auto, first, mean, median, mode, max, min, all
    """
    for known in EPOCH_MODES:
        if mode == known:
            return known
    raise ParameterError(f"unknown --epochs mode {mode!r}; use one of {', '.join(EPOCH_MODES)}")


def reduce_epochs(values: Sequence[Fraction], reducer: str) -> Fraction:
    """The exact *reducer* (one of :data:`REDUCERS`, or a counted one) of a cell's epoch scores *values*, in epoch order.

    Raises ValueError for an empty *values*, an unknown *reducer*, or fewer
    *values* than the *k* of ``pass_at_k`` or ``pass_k_k`` (inspect leaves
    such a sample unscored); callers say where, in their own error type.

    >>> scores = [Fraction(1), Fraction(0), Fraction(1), Fraction(1, 2)]
    >>> [str(reduce_epochs(scores, r)) for r in REDUCERS]
    ['1', '5/8', '3/4', '1', '1', '0']
    >>> [str(reduce_epochs(scores, r)) for r in ("at_least_2", "at_least_3", "pass_at_2", "pass_k_2")]
    ['1', '0', '5/6', '1/6']
    """
    if not values:
        raise ValueError("no epoch to reduce")
    counted = COUNTED_REDUCER.match(reducer)
    if counted is not None:
        return _counted(values, counted.group("kind"), int(counted.group("k")))
    if reducer == "first":
        return values[0]
    if reducer == "mean":
        return sum(values, Fraction(0)) / len(values)
    if reducer == "median":
        ordered = sorted(values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    if reducer == "mode":
        return Counter(values).most_common(1)[0][0]  # Counter keeps first-seen order among equal counts
    if reducer == "max":
        return max(values)
    if reducer == "min":
        return min(values)
    raise ValueError(f"unknown epoch reducer {reducer!r}; use one of {', '.join(REDUCERS)}")


def _counted(values: Sequence[Fraction], kind: str, k: int) -> Fraction:
    """``at_least_k``, ``pass_at_k`` or ``pass_k_k`` of *values*: a success is a value of at least 1."""
    total = len(values)
    successes = sum(1 for value in values if value >= 1)
    if kind == "at_least":
        return Fraction(1 if successes >= k else 0)
    if total < k:
        raise ValueError(f"{kind}_{k} needs at least {k} epochs, and there are {total}")
    if kind == "pass_at":
        return 1 - Fraction(comb(total - successes, k), comb(total, k))
    return Fraction(comb(successes, k), comb(total, k))
