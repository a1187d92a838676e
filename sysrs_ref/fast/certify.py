"""Certified float comparisons of sums, with exact resolution of the close calls.

Used by the elimination and uniform kernels when the scores are not small
integers over a common denominator (``ScoreTable.exact`` is False).

The bound. A float64 prefix sum of N terms x_t in [0, 1] (each the correctly
rounded float of an exact score, error <= u x_t with u = 2^-53), summed in any
order (each term takes part in at most N - 1 additions; the fast paths add
segment sums, :func:`~sysrs_ref.fast._kernel.prefix_at`), is within
(N + 1) u (1 + 2 N u) P of the exact sum P (Higham, *Accuracy and Stability of
Numerical Algorithms*, section 4.2: gamma_(N-1) times the sum of the terms,
plus one rounding per term); with N < 2^40 this is below N' 2^-52 P-hat for
N' = N + 1. Two sums of the same length whose float values differ by more
than ``tolerance(N, largest) = (N + 1) 2^-50 largest`` (twice the sum of both
bounds) therefore compare the same way exactly. Closer ones are decided from
the exact integer numerators. A float sum of non-negative terms is 0 exactly
when every term is 0, so sums that are all exactly 0.0 are exact ties and need
no exact arithmetic.

The bound is proved (``python -m proofs_check --claim code-certify-tolerance``,
docs/theory.md) for N below :data:`MAX_TERMS`; :func:`tolerance` refuses
anything else, so nothing outside that range is ever certified.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._table import ScoreTable

__all__ = ["MAX_TERMS", "exact_prefix_sum", "tolerance"]

FloatArray = npt.NDArray[np.float64]

MAX_TERMS = 2**40
"""Sums of fewer terms than this are certified: the range over which the tolerance is proved sufficient."""


def tolerance(n_terms: int, largest: FloatArray) -> FloatArray:
    """The margin above which two float sums of *n_terms* terms are ordered exactly.

    ValueError unless 0 <= n_terms < :data:`MAX_TERMS`.

    >>> float(tolerance(3, np.array(2.0))) == 8 * 2.0**-50
    True
    """
    if not 0 <= n_terms < MAX_TERMS:
        raise ValueError(f"certified float sums have 0 <= N < 2^40 terms, got N = {n_terms}")
    bound: FloatArray = (n_terms + 1) * 2.0**-50 * largest
    return bound


def exact_prefix_sum(table: ScoreTable, draws: DrawBatch, run: int, model: int, n_terms: int) -> int:
    """The exact numerator sum of *model*'s first *n_terms* scores along its order in *run*."""
    order = draws.query_orders[run, 0 if draws.synchronized else model, :n_terms]
    return table.exact_sum(model, order.tolist())
