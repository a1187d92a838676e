"""The suite's own cheap strategies draw what the Hypothesis strategies they replace would."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from tests.strategies import _listed_fractions, _numerators, _unrank, fractions_in, permutations_of


@pytest.mark.parametrize("n", range(7))
def test_ranks_are_every_permutation_once_in_lexicographic_order(n: int) -> None:
    assert [_unrank(n, rank) for rank in range(math.factorial(n))] == list(itertools.permutations(range(n)))


@given(st.integers(0, 30).flatmap(lambda n: st.tuples(st.just(n), permutations_of(n))))
def test_permutations_of_draws_permutations(case: tuple[int, tuple[int, ...]]) -> None:
    n, order = case
    assert sorted(order) == list(range(n))


#: (low, high, largest denominator): listed (a few values), listed near the limit, and drawn by parts.
BOUNDS = [(Fraction(0), Fraction(1), 4), (Fraction(-4), Fraction(4), 30), (Fraction(1, 50), Fraction(100), 50)]


@pytest.mark.parametrize(("low", "high", "largest"), BOUNDS)
@given(data=st.data())
def test_fractions_in_stays_in_its_bounds(low: Fraction, high: Fraction, largest: int, data: st.DataObject) -> None:
    value = data.draw(fractions_in(low, high, largest))
    assert low <= value <= high and value.denominator <= largest


def test_fractions_in_lists_every_value_simplest_first() -> None:
    assert _listed_fractions(_numerators(Fraction(0), Fraction(1), 4)) == [
        0,
        1,
        Fraction(1, 2),
        Fraction(1, 3),
        Fraction(2, 3),
        Fraction(1, 4),
        Fraction(3, 4),
    ]


def test_fractions_in_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError, match="no fraction in"):
        fractions_in(Fraction(2, 5), Fraction(9, 20), 4)
