"""Identification accuracy, its Wilson interval, and the X% Confidence Budget (Section "Experiments").

The paper estimates the error probability e_n = P(I-hat != i*) at each budget
percentage b by the fraction of R independent runs that miss a best model, and
summarizes a curve of such estimates by the **X% Confidence Budget** (CB):
"the minimum budget percentage b* such that the empirical identification
accuracy 1 - e-hat_b satisfies 1 - e-hat_b >= X% for all evaluated budget
percentages b >= b*". Here accuracies are kept as integer counts (correct out
of runs), so the comparison with X is exact (X as a decimal, never a float),
and a curve that ends below X has no CB: :data:`NEVER` (``None``), which is
kept distinct from a CB of 100%.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np

from sysrs_ref._checks import check_int, shown_value
from sysrs_ref.errors import ParameterError
from sysrs_ref.scores import parse_decimal

__all__ = ["NEVER", "Z95", "CBSummary", "confidence_budget", "level", "summarize_cbs", "wilson_interval"]

#: The confidence budget of a curve that does not end at or above the level.
NEVER = None

#: The 0.975 quantile of the standard normal distribution: a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(correct: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success probability, from *correct* successes in *runs* trials.

    With p = correct / runs, the interval is (p + z^2/(2R) -+ z sqrt(p(1-p)/R + z^2/(4R^2))) / (1 + z^2/R).
    Unlike the normal approximation it stays inside [0, 1] and is not empty at
    p = 0 or p = 1 (where it is [0, z^2/(R + z^2)] and its mirror image).

    >>> [round(x, 4) for x in wilson_interval(1000, 1000)]
    [0.9962, 1.0]
    >>> [round(x, 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    """
    for value, what in ((correct, "correct"), (runs, "runs")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise ParameterError(f"{what} must be an integer, got {shown_value(value)}")
    correct, runs = int(correct), int(runs)
    if runs < 1 or not 0 <= correct <= runs:
        raise ParameterError(f"need 0 <= correct <= runs and runs >= 1, got correct={correct}, runs={runs}")
    if not (isinstance(z, (int, float)) and math.isfinite(z) and z > 0):
        raise ParameterError(f"z must be a positive number, got {z!r}")
    p = correct / runs
    z2 = z * z
    centre = p + z2 / (2 * runs)
    spread = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs))
    scale = 1 + z2 / runs
    low = 0.0 if correct == 0 else (centre - spread) / scale
    high = 1.0 if correct == runs else (centre + spread) / scale
    return low, high


def level(value: str | int | Decimal | Fraction) -> Fraction:
    """An accuracy level X as an exact percentage in (0, 100]: "95", "95%", 99.5 as "99.5", or a Fraction.

    Text and Decimals are read by :func:`~sysrs_ref.scores.parse_decimal` (within its bounds).

    >>> level("95%"), level(90), level("99.5")
    (Fraction(95, 1), Fraction(90, 1), Fraction(199, 2))
    """
    exact: Fraction | None = None
    if isinstance(value, Fraction):
        exact = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        exact = Fraction(int(value))
    elif isinstance(value, (str, Decimal)):
        try:
            exact = parse_decimal(value.strip().removesuffix("%") if isinstance(value, str) else str(value))
        except ValueError:
            exact = None
    if exact is None or not 0 < exact <= 100:
        raise ParameterError(
            f"an accuracy level must be a percentage in (0, 100] such as 95 or 99.5%, got {shown_value(value)}"
        )
    return exact


def confidence_budget(
    grid: Sequence[Fraction], correct: Sequence[int], runs: int, accuracy_level: Fraction
) -> Fraction | None:
    """The X% Confidence Budget of one curve: the smallest grid point from which accuracy stays >= X%.

    *grid* holds the budget percentages (strictly increasing), *correct* the
    number of correct runs out of *runs* at each, *accuracy_level* X in
    percent. A point meets the level when ``100 * correct >= X * runs``
    exactly (accuracy equal to X counts). The CB is the first point of the
    longest run of points at the end of the curve that all meet it; if the
    last point does not, the CB is :data:`NEVER` (None), not 100.

    >>> grid = [Fraction(p) for p in (10, 20, 30, 40)]
    >>> confidence_budget(grid, [95, 80, 92, 99], 100, Fraction(90))   # dips at 20%: the CB is 30
    Fraction(30, 1)
    >>> confidence_budget(grid, [95, 96, 97, 89], 100, Fraction(90)) is NEVER
    True
    """
    if len(grid) != len(correct) or not grid:
        raise ParameterError(f"need one count per grid point, got {len(correct)} counts for {len(grid)} points")
    if any(later <= earlier for earlier, later in itertools.pairwise(grid)):
        raise ParameterError("the grid of budget percentages must be strictly increasing")
    check_int(runs, "runs")
    if any(not 0 <= count <= runs for count in correct):
        raise ParameterError(f"every count of correct runs must be between 0 and runs={runs}")
    budget: Fraction | None = NEVER
    for point, count in zip(reversed(grid), reversed(correct), strict=True):
        if 100 * count < accuracy_level * runs:
            break
        budget = point
    return budget


class CBSummary:
    """The mean and the worst case (largest) of one algorithm's CBs over datasets.

    ``mean`` and ``worst`` are :data:`NEVER` (None) when any dataset never
    reaches the level (a mean that leaves a dataset out would look better
    than it is); ``reached`` counts the datasets that do.
    """

    __slots__ = ("mean", "reached", "total", "worst")

    def __init__(self, budgets: Sequence[Fraction | None]) -> None:
        if not budgets:
            raise ParameterError("a summary needs the CB of at least one dataset")
        found = [b for b in budgets if b is not None]
        self.total = len(budgets)
        self.reached = len(found)
        complete = self.reached == self.total
        self.mean: Fraction | None = sum(found, Fraction(0)) / self.total if complete else NEVER
        self.worst: Fraction | None = max(found) if complete else NEVER

    def __repr__(self) -> str:
        return f"CBSummary(mean={self.mean}, worst={self.worst}, reached={self.reached}/{self.total})"


def summarize_cbs(budgets: Sequence[Fraction | None]) -> CBSummary:
    """Mean and worst case of CBs over datasets; :data:`NEVER` unless every dataset reaches the level.

    >>> summarize_cbs([Fraction(8), Fraction(17), Fraction(5)])
    CBSummary(mean=10, worst=17, reached=3/3)
    >>> summarize_cbs([Fraction(8), None])
    CBSummary(mean=None, worst=None, reached=1/2)
    """
    return CBSummary(budgets)
