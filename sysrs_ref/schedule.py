"""Budgets and the Successive Rejects phase schedule (eq. budget-schedule; docs/contracts.md).

All arithmetic here is exact (integers and Fractions); a percentage is parsed as
a decimal, never as a float (:func:`~sysrs_ref.scores.parse_decimal`, which
refuses numbers too large or too small to hold exactly). Integers may be
Python or numpy integers; anything else where a count is expected is a
BudgetError naming it.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from sysrs_ref._checks import check_int, shortened, shown_value
from sysrs_ref._limits import Need, check_need
from sysrs_ref._words import counted
from sysrs_ref.errors import BudgetError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "Budget",
    "budget_from_percentage",
    "budget_n",
    "capped_schedule",
    "check_budget",
    "logbar",
    "paper_schedule",
    "parse_budget",
    "parse_percentage",
    "schedule",
    "schedule_spend",
]


def logbar(n_models: int) -> Fraction:
    """logbar(K) = 1/2 + sum_{i=2}^{K} 1/i, exactly (eq. budget-schedule).

    >>> logbar(2), logbar(4)
    (Fraction(1, 1), Fraction(19, 12))
    """
    if not _is_int(n_models) or n_models < 2:
        raise BudgetError(f"logbar(K) needs K >= 2 models, got {shown_value(n_models)}")
    check_need(logbar_need(int(n_models)))
    return _logbar(int(n_models))


@functools.lru_cache(maxsize=1024, typed=True)  # typed: 2.0 is not served the value of 2
def _logbar(n_models: int) -> Fraction:
    return Fraction(1, 2) + sum((Fraction(1, i) for i in range(2, n_models + 1)), Fraction(0))


def phases_need(n_models: int) -> Need:
    """What a schedule of K - 1 phases needs: a tuple of K - 1 Python ints, built in O(K) integer operations.

    >>> phases_need(10**12).memory
    35999999999964
    """
    return Need(
        f"a schedule for K = {n_models:,} models",
        "K - 1 phase lengths, O(K) integer operations and 36 bytes each",
        memory=36 * (n_models - 1),
        seconds=1e-6 * n_models,
    )


def logbar_need(n_models: int) -> Need:
    """What the exact logbar(K) needs: a sum of K - 1 fractions whose denominators grow to about 1.44 K bits, O(K^2).

    >>> round(logbar_need(10**6).seconds)
    6000
    """
    return Need(
        f"the exact logbar(K) for K = {n_models:,} models",
        "a sum of K - 1 fractions of up to 1.44 K bits: O(K^2) bit operations",
        seconds=6e-9 * n_models * n_models,
    )


def check_budget(budget: int | np.integer[Any], n_models: int, n_queries: int) -> int:
    """Return *budget* if it is an integer with K <= n <= K*L, else raise BudgetError.

    >>> check_budget(100, 4, 30)
    100
    >>> check_budget(3, 4, 30)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.BudgetError: budget must be at least the number of models (K=4), got 3
    """
    if (  # the common case: plain ints, returned as they are
        type(budget) is int
        and type(n_models) is int
        and type(n_queries) is int
        and n_queries > 0
        and 0 < n_models <= budget <= n_models * n_queries
    ):
        return budget
    n_models, n_queries = _shape(n_models, n_queries)
    if not _is_int(budget):
        raise BudgetError(f"budget must be an integer number of evaluations, got {shown_value(budget)}")
    budget = int(budget)
    if budget < n_models:
        raise BudgetError(f"budget must be at least the number of models (K={n_models}), got {shown_value(budget)}")
    full = n_models * n_queries
    if budget > full:
        raise BudgetError(
            f"budget must be at most K*L = {full} (every model on every query), got {shown_value(budget)}"
        )
    return budget


def _is_int(value: object) -> bool:
    """Whether *value* is an integer: a Python or numpy integer, not a bool (numpy's bool is no Integral)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _shape(n_models: object, n_queries: object) -> tuple[int, int]:
    """(K, L) as ints when both are positive integers (numpy integers too), else BudgetError."""
    return (
        check_int(n_models, "K (the number of models)", error=BudgetError),
        check_int(n_queries, "L (the number of queries)", error=BudgetError),
    )


#: The budget syntax (docs/contracts.md, "Budgets"): ASCII digits, an optional leading +, and for a
#: percentage an optional decimal point; no exponent, no underscores, no other scripts' digits.
_INTEGER = re.compile(r"\+?[0-9]+")
_PERCENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_EXPONENT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]+")


def parse_percentage(text: str | int | Decimal | Fraction) -> Fraction:
    """Parse a budget percentage exactly: ``"12%"``, ``"1.25%"``, ``"1.25"``, 8 or Decimal("8").

    Text is read by :func:`~sysrs_ref.scores.parse_decimal` (no exponent, no
    more than 1000 digits), so it costs time linear in its length.

    >>> parse_percentage("1.25%")
    Fraction(5, 4)
    """
    from sysrs_ref.scores import parse_decimal  # here: scores imports numpy, and `import sysrs_ref` imports this module

    if isinstance(text, bool):
        raise BudgetError(f"budget percentage must be a number, got {text!r}")
    if isinstance(text, Fraction):
        value = text
    elif _is_int(text):
        value = Fraction(int(text))
    else:
        written = str(text).strip().removesuffix("%").strip()
        if not isinstance(text, Decimal) and not _PERCENT.fullmatch(written):
            if _EXPONENT.fullmatch(written):
                raise BudgetError(
                    f"budget percentage {shown_value(text)} has an exponent; write it in plain decimals, "
                    "like 12% or 1.25%"
                )
            raise BudgetError(f"budget percentage {shown_value(text)} is not a number (write it like 12% or 1.25%)")
        try:
            value = parse_decimal(written)
        except ValueError as err:
            raise BudgetError(f"budget percentage {err}; write it like 12% or 1.25%") from None
    if not 0 < value <= 100:
        raise BudgetError(f"budget percentage must be in (0%, 100%], got {shown_value(text)}")
    return value


def budget_from_percentage(percentage: str | int | Decimal | Fraction, n_models: int, n_queries: int) -> int:
    """n = floor(p * K * L / 100), exactly; checked to lie in [K, K*L].

    >>> budget_from_percentage("1.25%", 80, 1000), budget_from_percentage("12%", 80, 1000)
    (1000, 9600)
    """
    p = parse_percentage(percentage)
    budget = math.floor(p * n_models * n_queries / 100)
    if budget < n_models:
        raise BudgetError(
            f"budget {p.numerator / p.denominator:g}% of {n_models} x {n_queries} is "
            f"{counted(budget, 'evaluation')}, below the number of models (K={n_models}); use a larger percentage"
        )
    return check_budget(budget, n_models, n_queries)


@dataclass(frozen=True)
class Budget:
    """A budget parsed and validated once: n evaluations for K models and L queries, K <= n <= K*L.

    ``percent`` is the exact percentage of K*L when the budget was given as
    one (``"12%"``), else None. Everything that takes a budget takes an int or
    a Budget; a Budget for the same (K, L) is trusted as it is, never checked
    again.

    >>> Budget.parse("1.25%", 80, 1000)
    Budget(n=1000, n_models=80, n_queries=1000, percent=Fraction(5, 4))
    >>> Budget.parse(500, 4, 300).percentage
    Fraction(125, 3)
    """

    n: int
    n_models: int
    n_queries: int
    percent: Fraction | None = None

    @classmethod
    def parse(cls, value: str | int | np.integer[Any] | Budget, n_models: int, n_queries: int) -> Budget:
        """The budget *value* names: an integer (``5000``, ``"5000"``) or a percentage of K*L (``"12%"``).

        The one parser of budgets (docs/contracts.md, "Budgets"); BudgetError names what is wrong.
        """
        if isinstance(value, Budget):
            return (
                value
                if (value.n_models, value.n_queries) == (n_models, n_queries)
                else cls.parse(value.n, n_models, n_queries)
            )
        n_models, n_queries = _shape(n_models, n_queries)
        if _is_int(value):
            return cls(check_budget(int(value), n_models, n_queries), n_models, n_queries)
        if not isinstance(value, str):
            raise BudgetError(f"budget must be an integer or a percentage like '12%', got {shown_value(value)}")
        stripped = value.strip()
        if stripped.endswith("%"):
            return cls(
                budget_from_percentage(stripped, n_models, n_queries), n_models, n_queries, parse_percentage(stripped)
            )
        if not _INTEGER.fullmatch(stripped):
            raise BudgetError(
                f"budget {shown_value(value)} is neither an integer number of evaluations nor a percentage "
                "like 12% or 1.25%"
            )
        full = n_models * n_queries
        if len(stripped.lstrip("+").lstrip("0")) > len(str(full)):  # more digits than K*L: never converted
            raise BudgetError(
                f"budget must be at most K*L = {full} (every model on every query), got {shortened(stripped)}"
            )
        return cls(check_budget(int(stripped), n_models, n_queries), n_models, n_queries)  # digits: few, checked

    @property
    def percentage(self) -> Fraction:
        """The budget as a percentage of K*L: as given, or 100 n / (K L) exactly."""
        return self.percent if self.percent is not None else Fraction(100 * self.n, self.n_models * self.n_queries)


def budget_n(budget: int | Budget, n_models: int, n_queries: int) -> int:
    """n of *budget*: a Budget for this (K, L) as it is, anything else checked (:func:`check_budget`).

    >>> budget_n(Budget.parse("50%", 2, 4), 2, 4), budget_n(3, 2, 4)
    (4, 3)
    """
    if isinstance(budget, Budget) and (budget.n_models, budget.n_queries) == (n_models, n_queries):
        return budget.n
    return Budget.parse(budget.n if isinstance(budget, Budget) else budget, n_models, n_queries).n


def parse_budget(text: str | int | np.integer[Any], n_models: int, n_queries: int) -> int:
    """A budget given as an integer (``5000``) or a percentage (``"12%"``), as an integer n (:meth:`Budget.parse`).

    >>> parse_budget("5000", 80, 1000), parse_budget("8%", 80, 1000)
    (5000, 6400)
    """
    return Budget.parse(text, n_models, n_queries).n


def paper_schedule(n_models: int, budget: int) -> tuple[int, ...]:
    """(n_1, ..., n_{K-1}) of eq. (budget-schedule), uncapped.

    n_k = ceil( (n - K) / (logbar(K) * (K + 1 - k)) ); after phase k each
    remaining model has been evaluated n_k times.

    >>> paper_schedule(4, 100)
    (16, 21, 31)
    """
    n_models = check_int(n_models, "K (the number of models)", error=BudgetError)
    if not _is_int(budget):
        raise BudgetError(f"budget must be an integer number of evaluations, got {shown_value(budget)}")
    budget = int(budget)
    if budget < n_models:
        raise BudgetError(f"budget must be at least the number of models (K={n_models}), got {shown_value(budget)}")
    check_need(phases_need(n_models))
    return _paper_levels(n_models, _level(n_models, budget))


# The schedule's arithmetic below is written once, on integers, with nothing but + - * //, comparisons and min:
# proofs_check runs these very functions on symbolic integers (claims code-schedule-*, docs/theory.md).


def _ceil_div(numerator: int, divisor: int) -> int:
    """ceil(numerator / divisor) for a positive integer *divisor*, exactly."""
    return -(-numerator // divisor)


def _paper_levels(n_models: int, level: int) -> tuple[int, ...]:
    """n_k = ceil(U0 / (K + 1 - k)), k = 1..K-1: eq. (budget-schedule), as ceil(x / d) = ceil(ceil(x) / d)."""
    return tuple(_ceil_div(level, n_models + 1 - k) for k in range(1, n_models))


#: Below this K, logbar(K) is computed exactly at once; above, its exact value (a fraction of about 1.44 K bits)
#: is computed only when its bounds cannot settle U0 (:func:`_level`).
_EXACT_BELOW = 2048


def _level(n_models: int, budget: int) -> int:
    """U0 = ceil((n - K) / logbar(K)), exactly, in O(K) operations on small integers.

    For a large K, logbar(K) is bracketed by sums of 1/i rounded down and up
    to P binary digits (:func:`_logbar_bounds`); when both ends give the
    same ceiling, it is U0. Only a quotient within about K 2^-P of an
    integer needs the exact logbar(K), whose sum costs O(K^2) bit operations.
    """
    spare = budget - n_models
    if n_models < _EXACT_BELOW:
        return _exact_level(n_models, spare)
    low, high, scale = _logbar_bounds(n_models)
    first, last = _ceil_div(spare * scale, high), _ceil_div(spare * scale, low)
    return first if first == last else _exact_level(n_models, spare)


def _exact_level(n_models: int, spare: int) -> int:
    """ceil(spare / logbar(K)) = ceil(spare q / p) for logbar(K) = p / q, exactly."""
    exact = logbar(n_models)
    return _ceil_div(spare * exact.denominator, exact.numerator)


@functools.lru_cache(maxsize=64)
def _logbar_bounds(n_models: int) -> tuple[int, int, int]:
    """(low, high, 2^P) with low / 2^P <= logbar(K) <= high / 2^P, high - low <= K."""
    bits = 2 * n_models.bit_length() + 128
    scale = 1 << bits
    low = sum(scale // i for i in range(2, n_models + 1)) + scale // 2
    return low, low + n_models - 1, scale


def schedule_spend(lengths: tuple[int, ...]) -> int:
    """Total evaluations of a schedule: sum_{k<K-1} n_k + 2 n_{K-1}.

    A model eliminated after phase k was evaluated n_k times; the last two
    models both n_{K-1} times.

    >>> schedule_spend((16, 21, 31))
    99
    """
    if not lengths:
        raise BudgetError("a schedule has K - 1 >= 1 phases")
    return sum(lengths) + lengths[-1]


def _levels(n_models: int, n_queries: int, level: int) -> tuple[int, ...]:
    """min(L, ceil(U / (K + 1 - k))) for k = 1..K-1: the schedule at integer level U."""
    return tuple(min(n_queries, _ceil_div(level, n_models + 1 - k)) for k in range(1, n_models))


def capped_schedule(n_models: int, n_queries: int, budget: int) -> tuple[int, ...]:
    """The schedule capped at L with the freed budget given back to earlier phases.

    The rule, exactly. Write U0 = ceil((n - K) / logbar(K)). Since
    ceil(x / d) = ceil(ceil(x) / d) for integer d, the paper's schedule is
    n_k = ceil(U0 / (K + 1 - k)); scaling every uncapped n_k by a factor c >= 1
    is the same as raising U0 to a larger level U. Here

        n_k(U) = min(L, ceil(U / (K + 1 - k))),   k = 1..K-1,

    and the schedule is n_k(U*) with U* the *largest integer* U >= U0 whose
    spend sum_{k<K-1} n_k(U) + 2 n_{K-1}(U) is at most n. This is
    "cap at L and scale the uncapped n_k by the largest factor that keeps the
    total spend within n" (Experiments, "Baselines"): the factor is
    U* logbar(K) / (n - K). Each n_k(U) is non-decreasing in U and in k, so the
    spend is monotone and U* is found by bisection.

    Use :func:`schedule`, which applies this rule only when it is needed.

    >>> capped_schedule(4, 30, 100)
    (17, 23, 30)
    """
    budget = check_budget(budget, n_models, n_queries)
    n_models, n_queries = _shape(n_models, n_queries)
    check_need(phases_need(n_models))
    low = _level(n_models, budget)
    high = n_models * n_queries  # at this level every n_k is L: spend K*L >= n
    if schedule_spend(_levels(n_models, n_queries, high)) <= budget:
        return _levels(n_models, n_queries, high)
    # invariant: spend(low) <= budget < spend(high)
    while high - low > 1:
        middle = (low + high) // 2
        if schedule_spend(_levels(n_models, n_queries, middle)) <= budget:
            low = middle
        else:
            high = middle
    return _levels(n_models, n_queries, low)


def schedule(n_models: int, n_queries: int, budget: int | Budget) -> tuple[int, ...]:
    """(n_1, ..., n_{K-1}) used by SR and SySRs: the paper's, capped when it must be.

    - If the paper's n_{K-1} <= L and n < K*L: the paper's schedule
      (:func:`paper_schedule`), unchanged.
    - If the paper's n_{K-1} > L (some phase would need more queries than
      exist), or n = K*L (the budget pays for every pair; the paper's rounding
      would leave up to K evaluations unspent and could still return a wrong
      model): :func:`capped_schedule`. At n = K*L this gives n_k = L for all k.

    The result never exceeds L, is non-decreasing, and spends at most n.

    >>> schedule(4, 31, 100), schedule(4, 30, 100), schedule(2, 4, 8)
    ((16, 21, 31), (17, 23, 30), (4,))
    """
    n_models, n_queries = _shape(n_models, n_queries)
    return _schedule(n_models, n_queries, budget_n(budget, n_models, n_queries))


@functools.lru_cache(maxsize=4096, typed=True)  # grids ask for the same schedules again and again
def _schedule(n_models: int, n_queries: int, budget: int) -> tuple[int, ...]:
    lengths = paper_schedule(n_models, budget)
    if lengths[-1] > n_queries or budget == n_models * n_queries:
        return capped_schedule(n_models, n_queries, budget)
    return lengths
