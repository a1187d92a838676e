"""The Wilson interval and the X% Confidence Budget (sysrs_ref.experiments._metrics) against the paper's definition."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from sysrs_ref.errors import ParameterError
from sysrs_ref.experiments._metrics import NEVER, confidence_budget, level, summarize_cbs, wilson_interval

GRID = [Fraction(p) for p in (8, 12, 16, 20, 25, 30, 35)]


def naive_cb(grid: list[Fraction], accuracies: list[Fraction], x: Fraction) -> Fraction | None:
    """The paper's words, literally: the minimum b* such that accuracy >= X% at every evaluated b >= b*."""
    candidates = [b for b in grid if all(a * 100 >= x for g, a in zip(grid, accuracies, strict=True) if g >= b)]
    return min(candidates) if candidates else None


@pytest.mark.parametrize(
    ("correct", "expected", "why"),
    [
        ([90, 95, 99, 100, 100, 100, 100], Fraction(8), "monotone, above from the start"),
        ([80, 95, 85, 100, 100, 100, 100], Fraction(20), "dips below after first reaching: the CB is after the dip"),
        ([95, 96, 97, 98, 99, 100, 89], NEVER, "ends below: never, not 100 and not the first crossing"),
        ([89, 90, 89, 90, 90, 90, 90], Fraction(20), "exactly at the threshold counts as reaching it"),
        ([0, 0, 0, 0, 0, 0, 90], Fraction(35), "only the last point"),
        ([100] * 7, Fraction(8), "perfect everywhere: the first grid point"),
        ([89] * 7, NEVER, "never reached at all"),
    ],
)
def test_confidence_budget_on_hand_made_curves(correct: list[int], expected: Fraction | None, why: str) -> None:
    assert confidence_budget(GRID, correct, 100, Fraction(90)) == expected, why


def test_the_level_is_exact_not_a_float() -> None:
    # 2/3 of 3 runs is 66.666...%: it meets 200/3 % exactly, but not 66.67%, and 0.1 * 3 is not 0.3 in floats
    assert confidence_budget([Fraction(50)], [2], 3, Fraction(200, 3)) == 50
    assert confidence_budget([Fraction(50)], [2], 3, level("66.67")) is NEVER
    assert confidence_budget([Fraction(1)], [3], 10, level("30")) == 1


def test_never_is_distinct_from_one_hundred() -> None:
    grid = [Fraction(50), Fraction(100)]
    assert confidence_budget(grid, [0, 10], 10, Fraction(100)) == Fraction(100)
    assert confidence_budget(grid, [10, 9], 10, Fraction(100)) is NEVER


@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=12),
    st.sampled_from([Fraction(50), Fraction(90), Fraction(95), Fraction(100), Fraction(185, 2)]),
)
def test_confidence_budget_is_the_papers_definition(correct: list[int], x: Fraction) -> None:
    grid = [Fraction(i + 1) for i in range(len(correct))]
    accuracies = [Fraction(c, 20) for c in correct]
    assert confidence_budget(grid, correct, 20, x) == naive_cb(grid, accuracies, x)


@given(st.lists(st.integers(0, 20), min_size=1, max_size=10))
def test_confidence_budget_grows_with_the_level(correct: list[int]) -> None:
    grid = [Fraction(i + 1) for i in range(len(correct))]
    budgets = [confidence_budget(grid, correct, 20, Fraction(x)) for x in (50, 80, 90, 95, 100)]
    reached = [b for b in budgets if b is not None]
    assert reached == sorted(reached)  # a higher level never has a smaller CB
    assert budgets[len(reached) :] == [None] * (len(budgets) - len(reached))  # once never, never above


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (([Fraction(1), Fraction(2)], [1], 10, Fraction(90)), "one count per grid point"),
        (([Fraction(2), Fraction(1)], [1, 1], 10, Fraction(90)), "strictly increasing"),
        (([Fraction(1)], [11], 10, Fraction(90)), "between 0 and runs"),
        (([Fraction(1)], [1], 0, Fraction(90)), "runs must be a positive integer"),
    ],
)
def test_confidence_budget_refuses_bad_curves(
    args: tuple[list[Fraction], list[int], int, Fraction], pattern: str
) -> None:
    with pytest.raises(ParameterError, match=pattern):
        confidence_budget(*args)


def test_summaries_over_datasets() -> None:
    full = summarize_cbs([Fraction(8), Fraction(17), Fraction(5)])
    assert (full.mean, full.worst, full.reached, full.total) == (Fraction(10), Fraction(17), 3, 3)
    partial = summarize_cbs([Fraction(8), NEVER, Fraction(5)])
    assert (partial.mean, partial.worst, partial.reached, partial.total) == (None, None, 2, 3)
    with pytest.raises(ParameterError, match="at least one dataset"):
        summarize_cbs([])


@pytest.mark.parametrize(
    ("correct", "runs", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1000, 1000, 0.9962, 1.0),
        (892, 1000, 0.8712, 0.9098),
    ],
)
def test_wilson_interval_known_values(correct: int, runs: int, low: float, high: float) -> None:
    # the closed form in 40-digit decimal arithmetic, rounded to 4 digits (0/10: z^2 / (10 + z^2) = 0.2775)
    got = wilson_interval(correct, runs)
    assert (round(got[0], 4), round(got[1], 4)) == (low, high)


@given(st.integers(1, 5000).flatmap(lambda runs: st.tuples(st.integers(0, runs), st.just(runs))))
def test_wilson_interval_properties(case: tuple[int, int]) -> None:
    correct, runs = case
    low, high = wilson_interval(correct, runs)
    p = correct / runs
    assert 0.0 <= low <= p <= high <= 1.0
    assert high - low > 0  # never empty, not even at p = 0 or 1
    mirror = wilson_interval(runs - correct, runs)
    assert math.isclose(mirror[0], 1 - high, abs_tol=1e-12) and math.isclose(mirror[1], 1 - low, abs_tol=1e-12)
    wider = wilson_interval(correct, runs, z=2.576)  # 99% contains 95%
    assert wider[0] <= low + 1e-12 and high <= wider[1] + 1e-12


def test_wilson_interval_shrinks_like_one_over_root_runs() -> None:
    widths = [wilson_interval(n // 2, n)[1] - wilson_interval(n // 2, n)[0] for n in (100, 400, 1600)]
    assert widths[0] / widths[1] == pytest.approx(2, rel=0.02) and widths[1] / widths[2] == pytest.approx(2, rel=0.02)


@pytest.mark.parametrize("bad", [(-1, 10), (11, 10), (0, 0), (True, 10), (1.0, 10)])
def test_wilson_interval_refuses_bad_counts(bad: tuple[object, object]) -> None:
    with pytest.raises(ParameterError):
        wilson_interval(*bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["0", "101", "x", "nan", "-5%", ""])
def test_level_refuses_what_is_not_a_percentage(text: str) -> None:
    with pytest.raises(ParameterError, match="accuracy level"):
        level(text)
