"""The exact top-m engines of SAR and SySAR (sysrs_ref.theory.exact_sar, exact_topm) and the SAR/SySAR comparison.

Brute force here is independent of the engines: it enumerates every draw with
itertools (every arm priority x every shared query order, or every tuple of
per-model orders) and runs the reference step generators with ``drive``.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, ScoreLike, drive
from sysrs_ref.errors import ParameterError, SysrsError, TooLargeToEnumerateError
from sysrs_ref.theory import (
    DEFAULT_LIMIT,
    enumeration_size,
    error_probability,
    is_topm_correct,
    outcome_distribution,
    topm_distribution,
    topm_enumeration_size,
    topm_error_probability,
)
from sysrs_ref.theory.exact import approximate
from sysrs_ref.theory.exact_sar import sar_size
from sysrs_ref.theory.sar_comparison import SUITE, compare_sar, comparison_table, difference_variances
from tests.strategies import matrices, topm_cases

TopmLaw = dict[tuple[int, ...], Fraction]


def brute_topm(instance: Instance, algorithm: str, budget: int) -> dict[int, TopmLaw]:
    """For every valid m, the law of ranking[:m] over all draws, by running the reference on each."""
    spec = ALGORITHMS[algorithm]
    n_models, n_queries = instance.shape
    one_order = list(itertools.permutations(range(n_queries)))
    all_orders = [(o,) for o in one_order] if spec.synchronized else list(itertools.product(one_order, repeat=n_models))
    laws: dict[int, TopmLaw] = {}
    draws = [(orders, prio) for orders in all_orders for prio in itertools.permutations(range(n_models))]
    for m in range(1, n_models):
        counts: dict[tuple[int, ...], int] = {}
        for orders, priority in draws:
            out = drive(spec.start(budget, Draw(tuple(orders), priority), m=m), instance)
            assert out.spent <= budget
            counts[out.ranking[:m]] = counts.get(out.ranking[:m], 0) + 1
        laws[m] = {prefix: Fraction(c, len(draws)) for prefix, c in sorted(counts.items())}
    return laws


# -- against brute force ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["sar", "sysar"])
@settings(max_examples=25, deadline=None)
@given(case=topm_cases())
def test_topm_law_equals_brute_force(algorithm: str, case: tuple[Instance, int]) -> None:
    """K = 3, L <= 3 and K = 4, L = 2 (ties everywhere: scores in {0, 1/2, 1}), every valid m."""
    instance, budget = case
    for m, law in brute_topm(instance, algorithm, budget).items():
        assert topm_distribution(instance, algorithm, budget, m) == law, m
        assert sum(law.values()) == 1


TIED_ROWS: list[list[ScoreLike]] = [[1, 0, Fraction(1, 2)], [0, 1, Fraction(1, 2)], [1, Fraction(1, 2), 0]]
TIED = Instance(TIED_ROWS)  # all tied at 1/2
MIXED_ROWS: list[list[ScoreLike]] = [[1, 1], [1, 0], [0, 1], [Fraction(1, 2), Fraction(1, 2)]]
MIXED = Instance(MIXED_ROWS)  # tiers (0,), (1, 2, 3)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["sar", "sysar"])
@pytest.mark.parametrize("instance", [TIED, MIXED], ids=["k3-all-tied", "k4-tiers"])
def test_every_budget_equals_brute_force(algorithm: str, instance: Instance) -> None:
    """Every budget K..K*L, including n = K (nothing seen) and n = K*L (everything seen)."""
    n_models, n_queries = instance.shape
    for budget in range(n_models, n_models * n_queries + 1):
        for m, law in brute_topm(instance, algorithm, budget).items():
            assert topm_distribution(instance, algorithm, budget, m) == law, (budget, m)
            chosen: dict[int, Fraction] = {}
            for prefix, p in law.items():
                chosen[prefix[0]] = chosen.get(prefix[0], Fraction(0)) + p
            assert outcome_distribution(instance, algorithm, budget, m=m) == chosen


@pytest.mark.slow
def test_brute_force_topm_of_other_algorithms() -> None:
    """The brute-force path of topm_distribution (sr, sysrs, us, ...) on a tiny instance."""
    instance = Instance([[1, 0, 1], [1, 1, 0], [0, 0, 1]])
    for algorithm in ("sr", "sysrs", "us", "syus", "ucbe", "syucbe"):
        for budget in (3, 5, 9):
            law = topm_distribution(instance, algorithm, budget, 1)
            assert {prefix[0]: p for prefix, p in law.items()} == outcome_distribution(instance, algorithm, budget)
            pairs = topm_distribution(instance, algorithm, budget, 2)
            assert sum(pairs.values()) == 1 and all(len(prefix) == 2 for prefix in pairs)
    # full budget: every algorithm sees every score and ranks {0, 1} first (0 and 1 tied at 2/3)
    assert topm_error_probability(instance, "sr", 9, 2) == 0


# -- m = 1 is Successive Rejects ------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(rows=matrices(min_models=2, max_models=4, max_queries=5, kind="halves"), data=st.data())
def test_m1_is_sr_and_sysrs(rows: list[list[object]], data: st.DataObject) -> None:
    """SAR with m = 1 has exactly SR's law, SySAR exactly SySRs' (their docstring's claim)."""
    instance = Instance(rows)  # type: ignore[arg-type]
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    for algorithm, base in (("sar", "sr"), ("sysar", "sysrs")):
        expected = outcome_distribution(instance, base, budget)
        assert outcome_distribution(instance, algorithm, budget, m=1) == expected
        assert topm_distribution(instance, algorithm, budget, 1) == {(k,): p for k, p in expected.items()}
        assert topm_error_probability(instance, algorithm, budget, 1) == error_probability(instance, base, budget)


@settings(max_examples=30, deadline=None)
@given(case=topm_cases(min_models=2, max_models=4, max_queries=4))
def test_topm_error_with_m1_is_error_probability(case: tuple[Instance, int]) -> None:
    instance, budget = case
    for algorithm in ("sar", "sysar"):
        assert topm_error_probability(instance, algorithm, budget, 1) == error_probability(
            instance, algorithm, budget, m=1
        )
    if instance.n_models <= 3 and instance.n_queries <= 3:  # the brute-force path too
        for algorithm in ("sr", "sysrs"):
            assert topm_error_probability(instance, algorithm, budget, 1) == error_probability(
                instance, algorithm, budget
            )


# -- the tie rule ---------------------------------------------------------------------------------


def test_tie_rule() -> None:
    """Correct iff the set is the top-m of some ranking consistent with the true ties."""
    inst = Instance([[1, 1], [1, 0], [0, 1], [0, 0]])  # tiers (0,), (1, 2), (3,)
    assert is_topm_correct(inst, (0,)) and not is_topm_correct(inst, (1,))
    assert is_topm_correct(inst, (2, 0)) and is_topm_correct(inst, (0, 1))
    assert not is_topm_correct(inst, (1, 2)) and not is_topm_correct(inst, (0, 3))
    assert is_topm_correct(inst, (2, 1, 0)) and not is_topm_correct(inst, (0, 1, 3))
    tied = Instance([[1, 0], [0, 1], [1, 0]])  # everyone tied: every set is right
    assert all(is_topm_correct(tied, s) for m in (1, 2) for s in itertools.permutations(range(3), m))
    with pytest.raises(ParameterError, match="distinct"):
        is_topm_correct(inst, (0, 0))
    with pytest.raises(ParameterError, match="distinct"):
        is_topm_correct(inst, (0, 4))
    with pytest.raises(ParameterError):
        is_topm_correct(inst, (0, 1, 2, 3))  # m = K is not a top-m question


def test_topm_error_by_hand() -> None:
    """SySAR on [[1,1,0],[0,0,1],[0,0,0]], m = 2, n = 6: n_1 = 1, n_2 = 2 (K = 3).

    Phase 1, one shared query, m' = 2 of 3: accept iff s1 - s3 > s2 - s3, i.e. s1 > s2.
    - query 0 or 1 (2/3): sums (1, 0, 0): accept 0; phase 2 (m' = 1, models 1, 2) sees one
      more query: model 1 leads iff it is query 2 (1/2), else a tie (prob 1/2) decided by
      the priority: error 1/2 * 1/2 = 1/4.
    - query 2 (1/3): sums (0, 1, 0): accept 1; phase 2 (models 0, 2, m' = 1): model 0 leads
      on either remaining query: no error.
    Error: 2/3 * 1/4 = 1/6.
    """
    inst = Instance([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert topm_error_probability(inst, "sysar", 6, 2) == Fraction(1, 6)


# -- validation and limits ------------------------------------------------------------------------


def test_bad_m_is_a_parameter_error() -> None:
    inst = Instance([[1, 0], [0, 1], [1, 1]])
    for bad in (0, 3, -1, "two", 1.5, True):
        with pytest.raises(ParameterError, match="m"):
            topm_distribution(inst, "sar", 4, bad)  # type: ignore[arg-type]
        with pytest.raises(ParameterError, match="m"):
            outcome_distribution(inst, "sysar", 4, m=bad)
    assert topm_distribution(inst, "sysar", 4, "2") == topm_distribution(inst, "sysar", 4, 2)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="no parameter 'm'"):
        error_probability(inst, "sr", 4, m=1)
    with pytest.raises(ParameterError, match="limit"):
        topm_distribution(inst, "sr", 4, 1, limit=0)
    assert error_probability(inst, "sar", 6, m=2) == 1 - outcome_distribution(inst, "sar", 6, m=2)[2]


def test_too_large_is_refused_with_its_size() -> None:
    rng = random.Random(5)
    big = Instance([[Fraction(rng.randrange(1000), 997) for _ in range(10)] for _ in range(6)])
    for algorithm in ("sar", "sysar"):
        size = enumeration_size(big, algorithm, 30, m=2, limit=10**100)
        assert size == topm_enumeration_size(big, algorithm, 30, 2, limit=10**100) > DEFAULT_LIMIT
        with pytest.raises(TooLargeToEnumerateError) as caught:
            topm_error_probability(big, algorithm, 30, 2)
        message = str(caught.value)
        with pytest.raises(TooLargeToEnumerateError) as refused:  # Python's size calls refuse as the law does
            enumeration_size(big, algorithm, 30, m=2)
        with pytest.raises(TooLargeToEnumerateError) as refused_topm:
            topm_enumeration_size(big, algorithm, 30, 2)
        assert str(refused.value) == str(refused_topm.value) == message
        shown = approximate(
            sar_size(big, 30, DEFAULT_LIMIT) if algorithm == "sar" else size
        )  # SAR's count stops past it
        assert shown in message and "6 x 10" in message and "budget 30" in message
        with pytest.raises(TooLargeToEnumerateError):
            error_probability(big, algorithm, 30, m=3)
    with pytest.raises(TooLargeToEnumerateError, match="every draw") as refused:
        topm_distribution(big, "sr", 30, 2)
    assert isinstance(refused.value, SysrsError)
    with pytest.raises(TooLargeToEnumerateError):  # a small limit refuses even a tiny instance
        topm_distribution(TIED, "sysar", 6, 1, limit=1)


BINARY_K4_L7 = [
    Instance([[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1, 0], [1, 0, 1, 0, 1, 0, 1]]),
    Instance([[1, 1, 1, 0, 0, 0, 1]] * 4),
]


def test_k4_l7_within_the_limit() -> None:
    """What the refusal message promises: SySAR always, SAR with binary rows, at K = 4, L = 7."""
    rng = random.Random(11)
    coarse = Instance([[Fraction(rng.randrange(8), 7) for _ in range(7)] for _ in range(4)])
    for budget in range(4, 29):
        assert enumeration_size(coarse, "sysar", budget) <= DEFAULT_LIMIT
        for instance in BINARY_K4_L7:
            assert enumeration_size(instance, "sar", budget) <= DEFAULT_LIMIT
    law = topm_distribution(BINARY_K4_L7[0], "sar", 14, 2)  # the heaviest binary case runs quickly
    assert sum(law.values()) == 1


# -- the comparison the issue asks for ------------------------------------------------------------


def _errors(label: str, m: int) -> list[tuple[int, Fraction, Fraction]]:
    return [(r.budget, r.sar_error, r.sysar_error) for r in compare_sar({label: SUITE[label]}, None, m)]


def test_endpoints_are_equal() -> None:
    """n = K: nothing is seen, the priority decides; n = K*L: everything is seen. Same law either way."""
    for instance in SUITE.values():
        n_models, n_queries = instance.shape
        for m in (1, 2, 3):
            for budget in (n_models, n_models * n_queries):
                assert topm_distribution(instance, "sar", budget, m) == topm_distribution(instance, "sysar", budget, m)


@pytest.mark.parametrize("label", ["nested", "tie-at-m"])
def test_synchronization_helps_on_nested_rows(label: str) -> None:
    """Positively correlated (nested) rows, m = 1 and 2: SySAR strictly better at every 4 < n < 24."""
    for m in (1, 2):
        for budget, sar_error, sysar_error in _errors(label, m):
            if 4 < budget < 24:
                assert sysar_error < sar_error, (m, budget)
    first, second = difference_variances(SUITE[label], 1, 2)
    assert first < second  # Cov > 0 at the top-2 boundary: the paired difference is less noisy


def test_synchronization_hurts_on_disjoint_rows() -> None:
    """Negatively correlated rows (right on disjoint queries), m = 1: SySAR strictly worse for 8 <= n < 24."""
    for budget, sar_error, sysar_error in _errors("disjoint", 1):
        if 8 <= budget < 24:
            assert sysar_error > sar_error, budget
    synchronized, independent = difference_variances(SUITE["disjoint"], 0, 1)
    assert (synchronized, independent) == (Fraction(29, 36), Fraction(17, 36))


def test_nested_rows_are_not_always_better_synchronized() -> None:
    """Even nested rows lose at small budgets when m = 3: constant columns tie every model on the
    shared queries, and the priority (a coin) decides; and "nested-low" (whose boundary pair
    has a constant model, so Cov = 0) loses at every budget 14 <= n < 24."""
    rows = {budget: (sar, sysar) for budget, sar, sysar in _errors("nested", 3)}
    assert all(rows[n][1] > rows[n][0] for n in (8, 9, 10))
    assert all(rows[n][1] < rows[n][0] for n in range(11, 24))
    low = {budget: (sar, sysar) for budget, sar, sysar in _errors("nested-low", 3)}
    assert all(low[n][1] > low[n][0] for n in range(14, 24))
    assert difference_variances(SUITE["nested-low"], 2, 3) == (Fraction(5, 36), Fraction(5, 36))


def test_comparison_table_is_exact() -> None:
    rows = compare_sar({"nested": SUITE["nested"]}, [12], 2)
    assert rows[0].sar_error == Fraction(20237, 40500) and rows[0].sysar_error == Fraction(13, 30)
    assert comparison_table(rows).splitlines()[-1] == "| nested | 4 | 6 | 2 | 12 | 0.4997 | 0.4333 | +0.0663 |"
    with pytest.raises(ParameterError):
        compare_sar([SUITE["nested"]], None, 2)  # type: ignore[arg-type]
