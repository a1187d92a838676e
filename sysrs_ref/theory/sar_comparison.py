"""SySAR against SAR: exact top-m errors on small correlated and uncorrelated instances.

The issue asks where synchronization helps a top-m identifier and where it
does not. Both algorithms spend exactly the same budget on the same schedule;
they differ only in whether the active models of a phase see the same
queries. :func:`compare_sar` tabulates their exact top-m identification
errors (:func:`~sysrs_ref.theory.exact_topm.topm_error_probability`, the
paper's tie rule) on labelled instances, and :data:`SUITE` is a fixed set of
K = 4, L = 6 instances with different correlation structures.
:func:`difference_variances` gives the quantity that explains the results:
the variance of a paired score difference on one query, shared (synchronized)
or not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from sysrs_ref.errors import ParameterError
from sysrs_ref.instance import Instance
from sysrs_ref.theory.exact import DEFAULT_LIMIT
from sysrs_ref.theory.exact_topm import topm_error_probability

__all__ = ["SUITE", "SarComparisonRow", "compare_sar", "comparison_table", "difference_variances"]


def _binary(*rows: str) -> Instance:
    return Instance([[int(c) for c in row] for row in rows])


#: K = 4, L = 6 binary instances (a 1 = the model is right on that query), labelled by correlation.
SUITE: Mapping[str, Instance] = MappingProxyType(
    {
        # positively correlated: each model is right wherever the next worse one is (nested rows)
        "nested": _binary("111110", "111100", "111000", "110000"),
        # the same structure with the means of "disjoint"
        "nested-low": _binary("111000", "110000", "100000", "000000"),
        # independent-looking: means 4/6 > 3/6 > 2/6 > 1/6, |Cov| <= 1/12, Cov = 0 for (0,1), (1,2)
        "independent": _binary("111100", "001101", "000110", "001000"),
        # negatively correlated: models right on disjoint queries
        "disjoint": _binary("111000", "000110", "000001", "000000"),
        # models 1 and 2 tied at 1/2, straddling the boundary of the top-2 set; nested rows
        "tie-at-m": _binary("111110", "111000", "110100", "100000"),
    }
)


@dataclass(frozen=True)
class SarComparisonRow:
    """One (instance, m, budget) cell: SAR's and SySAR's exact top-m identification errors."""

    label: str
    """The instance's label (a key of :data:`SUITE`, or the caller's)."""
    n_models: int
    """K."""
    n_queries: int
    """L."""
    m: int
    """The size of the top-m set."""
    budget: int
    """n, in [K, K*L]; both algorithms spend exactly the same evaluations."""
    sar_error: Fraction
    """P(SAR's top-m set is wrong), over a uniform draw."""
    sysar_error: Fraction
    """P(SySAR's top-m set is wrong), over a uniform draw."""

    @property
    def gain(self) -> Fraction:
        """``sar_error - sysar_error``: positive where synchronization helps, negative where it hurts."""
        return self.sar_error - self.sysar_error


def compare_sar(
    instances: Mapping[str, Instance],
    budgets: Iterable[int] | None,
    m: int,
    *,
    limit: int = DEFAULT_LIMIT,
) -> list[SarComparisonRow]:
    """SAR's and SySAR's exact top-*m* errors on each labelled instance, at each budget.

    *budgets* None means every budget K..K*L of each instance; each budget
    must lie in [K, K*L] (BudgetError) and 1 <= m <= K - 1 (ParameterError).
    Rows come instance by instance (in *instances*' order), budgets in the
    given order. Raises TooLargeToEnumerateError as
    :func:`~sysrs_ref.theory.exact_topm.topm_distribution` does.

    >>> rows = compare_sar({"nested": SUITE["nested"]}, [12], 2)
    >>> [(r.label, r.budget, r.sar_error, r.sysar_error) for r in rows]
    [('nested', 12, Fraction(20237, 40500), Fraction(13, 30))]
    >>> rows[0].gain > 0   # synchronization helps here
    True
    """
    if not isinstance(instances, Mapping):
        raise ParameterError("instances must be a mapping from labels to Instances")
    chosen = None if budgets is None else list(budgets)
    rows = []
    for label, instance in instances.items():
        n_models, n_queries = instance.shape
        for budget in range(n_models, n_models * n_queries + 1) if chosen is None else chosen:
            rows.append(
                SarComparisonRow(
                    label,
                    n_models,
                    n_queries,
                    m,
                    budget,
                    topm_error_probability(instance, "sar", budget, m, limit=limit),
                    topm_error_probability(instance, "sysar", budget, m, limit=limit),
                )
            )
    return rows


def difference_variances(instance: Instance, first: int, second: int) -> tuple[Fraction, Fraction]:
    """Var(X - Y) of models *first* and *second* on one uniform query: (shared query, independent queries).

    Synchronized, X and Y are scored on the same query: Var(X - Y) = Var X +
    Var Y - 2 Cov(X, Y); unsynchronized, on independent queries: Var X + Var Y.
    Synchronization shrinks the paired noise exactly when Cov(X, Y) > 0.

    >>> difference_variances(SUITE["nested-low"], 0, 1)   # X - Y in {0, 1}: 1/6 (5/6)
    (Fraction(5, 36), Fraction(17, 36))
    >>> difference_variances(SUITE["disjoint"], 0, 1)
    (Fraction(29, 36), Fraction(17, 36))
    """
    n_models, n_queries = instance.shape
    for model in (first, second):
        if isinstance(model, bool) or not isinstance(model, int) or not 0 <= model < n_models:
            raise ParameterError(f"models must be integers 0..{n_models - 1}, got {model!r}")
    x, y = instance.row(first), instance.row(second)

    def mean(values: Iterable[Fraction]) -> Fraction:
        return sum(values, Fraction(0)) / n_queries

    def var(values: tuple[Fraction, ...]) -> Fraction:
        return mean(v * v for v in values) - mean(values) ** 2

    diff = tuple(a - b for a, b in zip(x, y, strict=True))
    return var(diff), var(x) + var(y)


def comparison_table(rows: Iterable[SarComparisonRow]) -> str:
    """The rows as a Markdown table, errors as decimals to 4 places (from the exact Fractions).

    >>> row = SarComparisonRow("x", 4, 6, 2, 12, Fraction(1, 2), Fraction(13, 30))
    >>> print(comparison_table([row]))
    | instance | K | L | m | n | SAR | SySAR | SAR - SySAR |
    |---|---|---|---|---|---|---|---|
    | x | 4 | 6 | 2 | 12 | 0.5000 | 0.4333 | +0.0667 |
    """
    lines = [
        "| instance | K | L | m | n | SAR | SySAR | SAR - SySAR |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.label} | {r.n_models} | {r.n_queries} | {r.m} | {r.budget} | {_decimal(r.sar_error)} "
            f"| {_decimal(r.sysar_error)} | {_decimal(r.gain, signed=True)} |"
        )
    return "\n".join(lines)


def _decimal(value: Fraction, *, signed: bool = False) -> str:
    """*value* rounded half-up to 4 places, exactly (no float)."""
    scaled = abs(value) * 10**4
    units = int(scaled + Fraction(1, 2))
    sign = "-" if value < 0 and units else ("+" if signed else "")
    return f"{sign}{units // 10**4}.{units % 10**4:04d}"
