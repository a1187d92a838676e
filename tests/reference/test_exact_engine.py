"""The exact error-probability engine (sysrs_ref.theory.exact) against brute force, by hand, and limits.

Brute force here is independent of the engine: it enumerates every draw with
itertools (all priorities, all query orders) and runs the reference on each.
Monte Carlo agreement is in tests/reference/test_exact_engine_mc.py.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, ScoreLike, drive
from sysrs_ref._limits import TIME_LIMIT_VARIABLE, duration
from sysrs_ref.errors import (
    BudgetError,
    ParameterError,
    SysrsError,
    TooLargeError,
    TooLargeToEnumerateError,
    UnknownAlgorithmError,
)
from sysrs_ref.theory import (
    DEFAULT_LIMIT,
    enumeration_size,
    error_probability,
    exact_sar,
    exact_unsync,
    outcome_distribution,
    topm_error_probability,
)
from sysrs_ref.theory.exact import approximate, exact_need, least_size_log10
from tests.exact_cases import SLOWEST, THREE, TWO, WORST, exact_error
from tests.strategies import ALGORITHM_NAMES, instances, tiny_cases


def brute_distribution(instance: Instance, algorithm: str, budget: int, **params: Fraction) -> dict[int, Fraction]:
    """The law of the chosen model over all K! priorities x all query orders, by running the reference."""
    spec = ALGORITHMS[algorithm]
    n_models, n_queries = instance.shape
    one_order = list(itertools.permutations(range(n_queries)))
    all_orders = [(o,) for o in one_order] if spec.synchronized else list(itertools.product(one_order, repeat=n_models))
    counts: dict[int, int] = {}
    total = 0
    for orders in all_orders:
        for priority in itertools.permutations(range(n_models)):
            out = drive(spec.start(budget, Draw(tuple(orders), priority), **params), instance)
            counts[out.chosen] = counts.get(out.chosen, 0) + 1
            total += 1
    return {model: Fraction(c, total) for model, c in sorted(counts.items())}


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@settings(max_examples=40)
@given(data=st.data())
def test_engine_equals_brute_force(algorithm: str, data: st.DataObject) -> None:
    instance, budget, params = data.draw(tiny_cases(algorithm))
    law = outcome_distribution(instance, algorithm, budget, **params)
    assert law == brute_distribution(instance, algorithm, budget, **params)
    assert sum(law.values()) == 1 and all(p > 0 for p in law.values())
    best = sum((p for m, p in law.items() if m in instance.best), Fraction(0))
    assert error_probability(instance, algorithm, budget, **params) == 1 - best


TIES = Instance([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 0]])  # three models tied at 1/2
CAPPED_ROWS: list[list[ScoreLike]] = [[1, 1, 0, Fraction(1, 2)], [Fraction(1, 2), 1, 0, 1]]
CAPPED = Instance(CAPPED_ROWS)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@pytest.mark.parametrize("instance", [TIES, CAPPED], ids=["ties", "capped"])
def test_every_budget_equals_brute_force(algorithm: str, instance: Instance) -> None:
    """All budgets K..K*L (including the capped schedules and n = K*L) on tie-heavy instances."""
    n_models, n_queries = instance.shape
    if not ALGORITHMS[algorithm].synchronized and n_models == 3:
        instance = Instance([row[:3] for row in instance.rows])
        n_queries = 3
    for budget in range(n_models, n_models * n_queries + 1):
        assert outcome_distribution(instance, algorithm, budget) == brute_distribution(instance, algorithm, budget), (
            budget
        )
        assert error_probability(instance, algorithm, budget) == exact_error(instance, algorithm, budget)


# -- values computed by hand ----------------------------------------------------------------------


def test_pinned_sysrs_and_sr_values() -> None:
    """The values of tests/reference/test_exact_small.py, now from the engine."""
    assert error_probability(TWO, "sysrs", 4) == Fraction(3, 8)
    assert error_probability(TWO, "sysrs", 5) == Fraction(1, 3)
    assert error_probability(TWO, "sysrs", 6) == Fraction(1, 3)
    assert error_probability(TWO, "sysrs", 7) == Fraction(1, 4)
    assert error_probability(TWO, "sysrs", 8) == 0
    assert error_probability(TWO, "sr", 8) == 0
    assert error_probability(TWO, "sr", 4) == Fraction(3, 8)
    assert error_probability(THREE, "sysrs", 6) == Fraction(1, 3)
    assert error_probability(THREE, "sysrs", 9) == 0


def test_us_by_hand() -> None:
    """US on TWO = [[1,1,1,0],[0,1,0,1]], n = 4: each model sums 2 of its own values.

    S_0 in {2, 1} w.p. 1/2 each (C(3,2)/6, 3/6); S_1 in {2, 1, 0} w.p. 1/6, 4/6, 1/6.
    P(S_1 > S_0) = 1/2 * 1/6 = 1/12, P(tie) = 1/2 * 1/6 + 1/2 * 4/6 = 5/12, lost half the time:
    error = 1/12 + 5/24 = 7/24.
    """
    assert error_probability(TWO, "us", 4) == Fraction(7, 24)
    assert outcome_distribution(TWO, "us", 4) == {0: Fraction(17, 24), 1: Fraction(7, 24)}


def test_us_makes_a_few_fractions_per_model_and_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    """US's law on K = 60 binary models at n = K: the product over the tied models is made once per sum and each
    model divides its own factor out of it, so O(N K) exact steps (N = K sums here), never a fresh product per model
    (O(K^3): 74 s at K = 300, 20 hours at the limit's K = 3,162)."""
    made = 0

    def counting(*args: int) -> Fraction:
        nonlocal made
        made += 1
        return Fraction(*args)

    big = Instance([[i % 3 == 0] for i in range(60)])
    expected = {model: Fraction(1, 20) for model in range(0, 60, 3)}  # the 20 models at 1 tie: each wins 1/20
    monkeypatch.setattr(exact_unsync, "Fraction", counting)
    assert exact_unsync.us_distribution(big, 60) == expected
    assert made <= 3 * 60


def test_ucbe_by_hand() -> None:
    """UCB-E on TWO, n = 3, a = 1: warm-up X_0 ~ B(3/4), X_1 ~ B(1/2), then one more evaluation.

    - X_0 = 1, X_1 = 0 (3/8): model 0 is evaluated again and wins. Error 0.
    - X_0 = 0, X_1 = 1 (1/8): model 1 is evaluated again, mean >= 1/2 > 0. Error 1.
    - X_0 = X_1 = 1 (3/8): the tie goes to the model first in the priority, which is
      evaluated again: it keeps mean 1 (and then wins the final tie too) w.p. 2/3 if it
      is model 0 ({1,1,0} left), 1/3 if it is model 1 ({0,1,0} left). Error 1/2 * 1/3 +
      1/2 * 1/3 = 1/3.
    - X_0 = X_1 = 0 (1/8): if model 0 goes (1/2) it draws a 1 and wins; if model 1 goes it
      ends at mean 1/2 or at 0 tied with model 0 and ahead in the priority. Error 1/2.
    Total: 1/8 + 3/8 * 1/3 + 1/8 * 1/2 = 5/16.
    """
    assert error_probability(TWO, "ucbe", 3, a=1) == Fraction(5, 16)
    assert error_probability(TWO, "ucbe", 3, a="1") == Fraction(5, 16)


# -- validation and limits ----------------------------------------------------------------------


def test_validation() -> None:
    with pytest.raises(BudgetError):
        error_probability(TWO, "sysrs", 1)
    with pytest.raises(BudgetError):
        error_probability(TWO, "sysrs", 9)
    with pytest.raises(UnknownAlgorithmError):
        error_probability(TWO, "nope", 4)
    with pytest.raises(ParameterError, match="no parameter 'a'"):
        error_probability(TWO, "sr", 4, a=1)
    with pytest.raises(ParameterError, match="positive"):
        error_probability(TWO, "ucbe", 4, a=0)
    with pytest.raises(ParameterError, match="limit"):
        error_probability(TWO, "sr", 4, limit=0)
    with pytest.raises(ParameterError):
        enumeration_size(TWO, "sysrs", 4, a=1)


def test_too_large_is_refused_with_its_size() -> None:
    rng = random.Random(5)
    big = Instance([[Fraction(rng.randrange(1000), 997) for _ in range(10)] for _ in range(6)])
    for algorithm in ("sr", "sysrs", "ucbe", "syucbe"):
        size = enumeration_size(big, algorithm, 30, limit=10**100)
        assert size > DEFAULT_LIMIT
        with pytest.raises(TooLargeToEnumerateError) as caught:
            error_probability(big, algorithm, 30)
        message = str(caught.value)
        with pytest.raises(TooLargeToEnumerateError) as sized:  # Python's size call refuses as the law does
            enumeration_size(big, algorithm, 30)
        assert str(sized.value) == message
        shown = (  # SR's count stops once past the limit: the message gives the count so far
            f"more than {approximate(exact_unsync.sr_size(big, 30, DEFAULT_LIMIT))}"
            if algorithm == "sr"
            else f"about {approximate(size)}"
        )
        assert f"needs {shown} cases" in message and "6 x 10" in message and "budget 30" in message
        assert isinstance(caught.value, SysrsError)
    with pytest.raises(TooLargeToEnumerateError):  # a small limit refuses even a tiny instance
        error_probability(TWO, "sysrs", 6, limit=1)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@settings(max_examples=20)
@given(data=st.data())
def test_the_bound_from_k_alone_is_a_lower_bound(algorithm: str, data: st.DataObject) -> None:
    instance, budget, params = data.draw(tiny_cases(algorithm))
    size = enumeration_size(instance, algorithm, budget, **params)
    assert 10 ** least_size_log10(instance.n_models, algorithm) <= size * (1 + 1e-12)


@pytest.mark.parametrize("algorithm", ["sr", "sar"])
@settings(max_examples=40)
@given(instance=instances(max_models=6, max_queries=14, kind="coarse"), data=st.data())
def test_a_capped_count_is_the_size_within_the_cap_and_a_lower_bound_past_it(
    algorithm: str, instance: Instance, data: st.DataObject
) -> None:
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    count = exact_unsync.sr_size if algorithm == "sr" else exact_sar.sar_size
    size = count(instance, budget)
    cap = data.draw(st.integers(0, 2 * size))
    capped = count(instance, budget, cap)
    assert capped == size if size <= cap else cap < capped <= size


@pytest.mark.parametrize("algorithm", ["sr", "sar"])
def test_a_count_past_the_limit_stops_within_a_phase_or_two(monkeypatch: pytest.MonkeyPatch, algorithm: str) -> None:
    """K = 300, L = 13: K! (10^614) is within a limit of 10^700, so SR's and SAR's counts start; each phase adds
    more than 10^100, so they stop after a phase or two: a few sub-multiset counts per model, not one per model and
    phase (90,000 here; the K^2 that took minutes at K = 4,000). Python and ``exact`` say the same line."""
    calls = 0
    for module, name in ((exact_unsync, "count_submultisets"), (exact_sar, "count_submultisets")):
        real = getattr(module, name)

        def counting(rem: tuple[int, ...], size: int, real: Callable[[tuple[int, ...], int], int] = real) -> int:
            nonlocal calls
            calls += 1
            return real(rem, size)

        monkeypatch.setattr(module, name, counting)
    big = Instance([[Fraction((i * j) % 3, 2) for j in range(13)] for i in range(300)])
    with pytest.raises(TooLargeToEnumerateError) as caught:
        enumeration_size(big, algorithm, 1950, limit=10**700)
    assert calls <= 10 * 300
    assert f"{algorithm} on 300 x 13 at budget 1950 needs more than " in str(caught.value)
    with pytest.raises(TooLargeToEnumerateError) as law:
        error_probability(big, algorithm, 1950, limit=10**700)
    assert str(law.value) == str(caught.value)


@pytest.mark.parametrize("algorithm", ["sysrs", "sar"])
def test_an_enumeration_within_a_raised_limit_meets_the_time_limit(
    monkeypatch: pytest.MonkeyPatch, algorithm: str
) -> None:
    """6 x 10 of distinct scores at n = 30: more than 10^7 cases, so past a second at 0.1 microsecond a case; with
    the limit raised to 10^100 the size passes, and the time limit (1 second here) refuses before any case runs."""
    rng = random.Random(5)
    big = Instance([[Fraction(rng.randrange(1000), 997) for _ in range(10)] for _ in range(6)])
    size = enumeration_size(big, algorithm, 30, limit=10**100)
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "1")
    monkeypatch.setattr("sysrs_ref.theory.exact._deterministic_law", _never_enumerated)
    monkeypatch.setattr("sysrs_ref.theory.exact_sar.sar_prefix_distribution", _never_enumerated)
    with pytest.raises(TooLargeError) as caught:
        error_probability(big, algorithm, 30, limit=10**100)
    assert str(caught.value).startswith(
        f"exact enumeration of {algorithm} on 6 x 10 at budget 30 would take about {duration(size / 10**7)} "
        f"(up to {approximate(size)} cases, at least 0.1 microsecond each), more than the limit of 1 second"
    )
    if algorithm == "sar":
        with pytest.raises(TooLargeError):
            topm_error_probability(big, algorithm, 30, 2, limit=10**100)
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "0")  # lifted: the enumeration starts
    with pytest.raises(AssertionError, match="enumerated"):
        error_probability(big, algorithm, 30, limit=10**100)


def _never_enumerated(*args: object) -> object:
    raise AssertionError("enumerated")


def test_a_huge_k_is_refused_without_counting(monkeypatch: pytest.MonkeyPatch) -> None:
    """K = 12: 12! > 10^7 refuses from K alone, in log space; the size functions are never called."""

    def never(*args: object) -> int:
        raise AssertionError("the size was counted")

    monkeypatch.setattr("sysrs_ref.theory.exact._size", never)
    big = Instance([[i % 2] for i in range(12)])
    with pytest.raises(TooLargeToEnumerateError) as caught:
        error_probability(big, "sysrs", 12)
    assert "sysrs on 12 x 1 at budget 12 needs more than 4.8e+08 cases, over the limit of 1e+07" in str(caught.value)
    with pytest.raises(TooLargeToEnumerateError) as from_shape:
        exact_need(12, 1, "sysrs", 12)
    assert str(from_shape.value) == str(caught.value)
    monkeypatch.undo()
    assert error_probability(big, "syus", 12) == error_probability(big, "syus", 12, limit=10**7)  # 1 case: it runs


@pytest.mark.parametrize("algorithm", ["us", "syus", "sr", "sysrs", "syucbe"])
def test_k4_l7_is_always_within_the_limit(algorithm: str) -> None:
    for instance in WORST.values():
        for budget in range(4, 29):
            assert enumeration_size(instance, algorithm, budget) <= DEFAULT_LIMIT


def test_ucbe_k4_l7_binary_within_the_limit() -> None:
    for name in ("binary", "binary-identical"):
        for budget in range(4, 29):
            assert enumeration_size(WORST[name], "ucbe", budget) <= DEFAULT_LIMIT


@pytest.mark.slow
@pytest.mark.parametrize(("algorithm", "name", "budget"), SLOWEST)
def test_worst_cases_are_enumerated_within_the_limit(algorithm: str, name: str, budget: int) -> None:
    """The slowest cases stay under the enumeration limit and give a law (their time: benchmarks/test_exact_speed.py)."""
    assert enumeration_size(WORST[name], algorithm, budget) <= DEFAULT_LIMIT
    law = outcome_distribution(WORST[name], algorithm, budget)
    assert sum(law.values()) == 1


def test_identical_rows_are_fair() -> None:
    """Identical models: every algorithm returns each one with probability 1/K (priority symmetry)."""
    row: list[ScoreLike] = [1, 0, Fraction(1, 2)]
    instance = Instance([row] * 3)
    for algorithm in ALGORITHM_NAMES:
        for budget in (3, 5, 9):
            assert outcome_distribution(instance, algorithm, budget) == {m: Fraction(1, 3) for m in range(3)}
            assert error_probability(instance, algorithm, budget) == 0
