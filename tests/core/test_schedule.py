"""The SR/SySRs phase schedule (eq. budget-schedule), its capping, and budgets from percentages."""

from __future__ import annotations

import importlib
import math
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from sysrs_ref import (
    budget_from_percentage,
    capped_schedule,
    logbar,
    paper_schedule,
    parse_budget,
    schedule,
    schedule_spend,
)
from tests.naive import naive_schedule
from tests.strategies import shapes_and_budgets


def test_logbar_exact_values() -> None:
    assert logbar(2) == 1
    assert logbar(3) == Fraction(4, 3)
    assert logbar(4) == Fraction(19, 12)
    # logbar(K) = 1/2 + H_K - 1 with H_K the harmonic number
    assert logbar(10) == Fraction(1, 2) + sum(Fraction(1, i) for i in range(1, 11)) - 1


def test_pinned_example_k4_n100() -> None:
    """By hand: logbar(4) = 19/12, (n-K)/logbar = 96*12/19 = 60.63.

    n_1 = ceil(60.63/4) = 16, n_2 = ceil(60.63/3) = 21, n_3 = ceil(60.63/2) = 31;
    spend 16 + 21 + 2*31 = 99. With L = 30 the last phase must be capped:
    levels U with ceil(U/4) + min(30, ceil(U/3)) + 2*30 <= 100 end at U = 68,
    giving (17, 23, 30) and spend exactly 100.
    """
    assert paper_schedule(4, 100) == (16, 21, 31)
    assert schedule(4, 31, 100) == (16, 21, 31)
    assert schedule_spend((16, 21, 31)) == 99
    assert schedule(4, 30, 100) == (17, 23, 30)
    assert schedule_spend(schedule(4, 30, 100)) == 100


def test_two_models_full_budget_is_full_evaluation() -> None:
    """For K = 2 the paper's n_1 = ceil((n-2)/2) is L-1 at n = 2L: the full budget is used instead."""
    assert paper_schedule(2, 8) == (3,)
    assert schedule(2, 4, 8) == (4,)
    assert schedule(2, 4, 7) == (3,)


def test_budget_k_gives_empty_phases() -> None:
    assert schedule(5, 10, 5) == (0, 0, 0, 0)


@given(shapes_and_budgets())
def test_schedule_properties(case: tuple[int, int, int]) -> None:
    n_models, n_queries, budget = case
    lengths = schedule(n_models, n_queries, budget)
    assert len(lengths) == n_models - 1
    assert all(0 <= n_k <= n_queries for n_k in lengths)
    assert list(lengths) == sorted(lengths)
    assert schedule_spend(lengths) <= budget
    paper = paper_schedule(n_models, budget)
    if paper[-1] <= n_queries and budget < n_models * n_queries:
        assert lengths == paper
    else:
        # capped: never below the paper's schedule capped at L (budget is only ever added)
        assert all(c >= min(p, n_queries) for c, p in zip(lengths, paper, strict=True))
    if budget == n_models * n_queries:
        assert lengths == (n_queries,) * (n_models - 1)


@given(shapes_and_budgets())
def test_paper_formula_spends_at_most_n(case: tuple[int, int, int]) -> None:
    """Audibert et al.'s identity: the uncapped schedule never spends more than n."""
    n_models, _, budget = case
    assert schedule_spend(paper_schedule(n_models, budget)) <= budget


@given(shapes_and_budgets())
def test_capped_schedule_is_maximal(case: tuple[int, int, int]) -> None:
    """The next larger schedule of the form min(L, ceil(U/(K+1-k))) overspends (or none is left).

    Phase k grows past n_k at level U = n_k (K+1-k) + 1, so the next schedule is the one
    at the smallest such level.
    """
    n_models, n_queries, budget = case
    lengths = capped_schedule(n_models, n_queries, budget)
    assert schedule_spend(lengths) <= budget
    growable = [n_k * (n_models + 1 - k) + 1 for k, n_k in enumerate(lengths, start=1) if n_k < n_queries]
    if growable:
        level = min(growable)
        nxt = tuple(min(n_queries, math.ceil(Fraction(level, n_models + 1 - k))) for k in range(1, n_models))
        assert nxt != lengths
        assert schedule_spend(nxt) > budget


@given(shapes_and_budgets(max_models=12, max_queries=20))
def test_agrees_with_naive_scan(case: tuple[int, int, int]) -> None:
    n_models, n_queries, budget = case
    assert list(schedule(n_models, n_queries, budget)) == naive_schedule(n_models, n_queries, budget)


@given(st.integers(2, 60), st.integers(1, 400))
def test_paper_formula_is_the_level_form(n_models: int, budget_offset: int) -> None:
    """ceil((n-K)/(logbar (K+1-k))) == ceil(ceil((n-K)/logbar) / (K+1-k)): the capping's parametrisation."""
    budget = n_models + budget_offset
    level = math.ceil(Fraction(budget - n_models) / logbar(n_models))
    assert paper_schedule(n_models, budget) == tuple(
        math.ceil(Fraction(level, n_models + 1 - k)) for k in range(1, n_models)
    )


#: (K, n - K) where the large-K path (K >= 2048) cannot settle U0 = ceil((n - K) / logbar(K)) from its bracket of
#: logbar(K), found by search over n - K = 3^e: U0 lies strictly between the bracket's two ceilings.
UNSETTLED = {
    "K=2048,n-K=3^94": (2048, 3**94),
    "K=2048,n-K=3^95": (2048, 3**95),
    "K=3000,n-K=3^94": (3000, 3**94),
    "K=4096,n-K=3^95": (4096, 3**95),
}


@pytest.mark.parametrize(("n_models", "spare"), UNSETTLED.values(), ids=UNSETTLED.keys())
def test_large_k_level_is_exact_where_the_logbar_bracket_cannot_settle_it(n_models: int, spare: int) -> None:
    """Beyond 2048 models U0 comes from sums of 1/i rounded to P bits; when they disagree, only the exact logbar does."""
    module = importlib.import_module("sysrs_ref.schedule")  # the package's attribute ``schedule`` is the function
    low, high, scale = module._logbar_bounds(n_models)
    level = math.ceil(Fraction(spare) / logbar(n_models))
    assert -(-spare * scale // high) < level < -(-spare * scale // low)  # neither end of the bracket is U0
    assert paper_schedule(n_models, n_models + spare) == tuple(
        math.ceil(Fraction(level, n_models + 1 - k)) for k in range(1, n_models)
    )


@given(st.sampled_from((2048, 2049, 3000)), st.integers(2**140, 2**200))
def test_large_k_paper_formula_is_the_level_form_for_huge_budgets(n_models: int, spare: int) -> None:
    """Above about 2^145 evaluations the bracket's ceilings mostly differ: the exact fallback decides most examples."""
    level = math.ceil(Fraction(spare) / logbar(n_models))
    lengths = paper_schedule(n_models, n_models + spare)
    assert (lengths[0], lengths[-1]) == (math.ceil(Fraction(level, n_models)), math.ceil(Fraction(level, 2)))


@pytest.mark.parametrize(
    ("text", "n_models", "n_queries", "expected"),
    [
        ("12%", 80, 1000, 9600),
        ("1.25%", 80, 1000, 1000),
        ("8%", 80, 1000, 6400),
        ("100%", 80, 1000, 80000),
        ("0.1%", 80, 1000, 80),
        ("33.333%", 3, 7, 6),  # floor(33.333 * 21 / 100) = floor(6.99993)
        ("1.1%", 450, 541, 2677),  # floor(0.011 * 243450) = floor(2677.95)
        ("0.57%", 10, 1000, 57),  # float arithmetic gives 56.99999999999999 here
    ],
)
def test_budget_from_percentage_exact(text: str, n_models: int, n_queries: int, expected: int) -> None:
    assert budget_from_percentage(text, n_models, n_queries) == expected
    assert parse_budget(text, n_models, n_queries) == expected


@given(st.integers(0, 10_000), st.integers(2, 500), st.integers(1, 5_000))
def test_budget_from_percentage_matches_integer_arithmetic(hundredths: int, n_models: int, n_queries: int) -> None:
    """p = hundredths/100 percent: n = floor(hundredths * K * L / 10000) in exact integers."""
    expected = hundredths * n_models * n_queries // 10_000
    text = f"{hundredths // 100}.{hundredths % 100:02d}%"
    if hundredths == 0 or expected < n_models:
        with pytest.raises(ValueError):
            budget_from_percentage(text, n_models, n_queries)
    else:
        assert budget_from_percentage(text, n_models, n_queries) == expected
