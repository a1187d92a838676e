"""bayes_error: the exact Neyman-Pearson error of the two-hypothesis test of Theorem lower-bound."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref.errors import ParameterError
from sysrs_ref.theory import bayes_error
from tests.strategies import bayes_parameters

OUTCOMES = ((1, 0), (0, 1), (0, 0))


def laws(delta: Fraction, s: Fraction) -> tuple[dict[tuple[int, int], Fraction], dict[tuple[int, int], Fraction]]:
    p = {(1, 0): (s + delta) / 2, (0, 1): (s - delta) / 2, (0, 0): 1 - s}
    q = {(1, 0): (s - delta) / 2, (0, 1): (s + delta) / 2, (0, 0): 1 - s}
    return p, q


def sequence_probability(law: dict[tuple[int, int], Fraction], xs: tuple[tuple[int, int], ...]) -> Fraction:
    out = Fraction(1)
    for x in xs:
        out *= law[x]
    return out


@settings(max_examples=60)
@given(bayes_parameters())
def test_one_sample_is_one_minus_delta_over_two(ps: tuple[Fraction, Fraction]) -> None:
    """TV(P, Q) = (|p - q| + |q - p|) / 2 = Delta, so the error is (1 - Delta) / 2."""
    delta, s = ps
    assert bayes_error(1, delta, s) == (1 - delta) / 2


@settings(max_examples=40)
@given(bayes_parameters(), st.integers(1, 12))
def test_equals_sum_of_minima_over_sequences_and_is_monotone(ps: tuple[Fraction, Fraction], n: int) -> None:
    delta, s = ps
    value = bayes_error(n, delta, s)
    if n <= 5:  # brute force over all 3^n sequences
        p, q = laws(delta, s)
        total = sum(
            (
                min(sequence_probability(p, xs), sequence_probability(q, xs))
                for xs in itertools.product(OUTCOMES, repeat=n)
            ),
            Fraction(0),
        )
        assert value == total / 2
    assert 0 < value <= Fraction(1, 2)
    assert bayes_error(n + 1, delta, s) <= value  # more samples never hurt


def test_symmetric_in_the_hypotheses() -> None:
    """Swapping P and Q (relabelling the models) is the same test: the formula only uses min(P, Q)."""
    delta, s = Fraction(1, 5), Fraction(2, 5)
    p, q = laws(delta, s)
    for n in (1, 2, 3):
        seqs = list(itertools.product(OUTCOMES, repeat=n))
        swapped = sum((min(sequence_probability(q, xs), sequence_probability(p, xs)) for xs in seqs), Fraction(0))
        assert bayes_error(n, delta, s) == swapped / 2


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize(
    ("delta", "s"),
    [(Fraction(1, 4), Fraction(1, 2)), (Fraction(1, 10), Fraction(1, 3)), (Fraction(1, 3), Fraction(1, 3))],
)
def test_minimax_by_brute_force_over_tests(n: int, delta: Fraction, s: Fraction) -> None:
    """Every deterministic test has max(err_P, err_Q) >= bayes_error; the LR test with a fair coin attains it."""
    p, q = laws(delta, s)
    seqs = list(itertools.product(OUTCOMES, repeat=n))
    value = bayes_error(n, delta, s)
    best_max = Fraction(1)
    for says_p in itertools.product((True, False), repeat=len(seqs)):
        err_p = sum((sequence_probability(p, xs) for xs, a in zip(seqs, says_p, strict=True) if not a), Fraction(0))
        err_q = sum((sequence_probability(q, xs) for xs, a in zip(seqs, says_p, strict=True) if a), Fraction(0))
        assert (err_p + err_q) / 2 >= value
        best_max = min(best_max, max(err_p, err_q))
    assert best_max >= value
    # the likelihood-ratio test: P if more (1,0) than (0,1), Q if fewer, a fair coin on a tie
    err_p = err_q = Fraction(0)
    for xs in seqs:
        a, b = xs.count((1, 0)), xs.count((0, 1))
        chance_p = Fraction(1) if a > b else Fraction(0) if a < b else Fraction(1, 2)
        err_p += sequence_probability(p, xs) * (1 - chance_p)
        err_q += sequence_probability(q, xs) * chance_p
    assert err_p == err_q == value


def test_validation() -> None:
    with pytest.raises(ParameterError, match="0 < Delta < 1/2"):
        bayes_error(3, Fraction(0), Fraction(1, 2))
    with pytest.raises(ParameterError, match="0 < Delta < 1/2"):
        bayes_error(3, Fraction(1, 2), Fraction(1, 2))
    with pytest.raises(ParameterError, match="Delta <= s <= 1/2"):
        bayes_error(3, Fraction(1, 4), Fraction(1, 5))
    with pytest.raises(ParameterError, match="Delta <= s <= 1/2"):
        bayes_error(3, Fraction(1, 4), Fraction(3, 5))
    with pytest.raises(ParameterError, match="positive integer"):
        bayes_error(0, Fraction(1, 4), Fraction(1, 2))
    with pytest.raises(ParameterError, match="positive integer"):
        bayes_error(True, Fraction(1, 4), Fraction(1, 2))
    with pytest.raises(ParameterError, match="rational"):
        bayes_error(2, "x", Fraction(1, 2))  # type: ignore[arg-type]
