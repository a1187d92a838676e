"""The theory against exact stochastic error probabilities: hardness, the lemmas, the bounds.

Stochastic scores S_ij ~ phi_ij (StochasticInstance). Every probability here
is exact: the error of an algorithm is taken over the uniform draw AND the
stated laws phi_ij (:func:`sysrs_ref.theory.error_probability`); it is also
cross-checked against the mixture over every realised matrix,
P(error) = sum_r P(r) P_draw(chosen not in the stochastic best | r).

Each bound test counts, in ``COUNTS``, the cases it tried, those where the
bound's conditions held and those where the bound was below 1 (not vacuous);
the last test prints them (``pytest -s``).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import assume, event, given, reject, settings, strategies as st

from sysrs_ref import BoundConditionError, Instance, ParameterError, schedule
from sysrs_ref.errors import TooLargeToEnumerateError
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory import (
    arm_hardness,
    bayes_error,
    bernstein_paired_bound,
    bernstein_wor_bound,
    enumeration_size,
    error_probability,
    h3_two_arm,
    hardness,
    lower_bound,
    outcome_distribution,
    schedule_is_covered,
    sr_bound,
    sysrs_bound,
    ucbe_bound,
    ucbe_max_a,
)
from tests.exact_tails import mean_of_sum_at_least
from tests.strategies import (
    fractions_in,
    lower_bound_gaps,
    matrices,
    realisation_count,
    stochastic_cases,
    stochastic_instances,
    successive_rejects_cases,
)

#: (test, what) -> how many cases; printed by the last test.
COUNTS: Counter[tuple[str, str]] = Counter()

Law = tuple[tuple[Fraction, Fraction], ...]


def _count(test: str, what: str) -> None:
    COUNTS[(test, what)] += 1
    event(f"{test}: {what}")


def mixture_error(instance: StochasticInstance, algorithm: str, budget: int) -> Fraction:
    """P(error) = sum over realised matrices r of P(r) * P_draw(chosen not in instance.best | r), by enumeration."""
    n_models, n_queries = instance.shape
    laws = [instance.law(i, j) for i in range(n_models) for j in range(n_queries)]
    total = Fraction(0)
    for outcome in itertools.product(*laws):
        weight = math.prod((p for _, p in outcome), start=Fraction(1))
        scores = [s for s, _ in outcome]
        realised = Instance([scores[i * n_queries : (i + 1) * n_queries] for i in range(n_models)])
        law = outcome_distribution(realised, algorithm, budget)
        total += weight * sum((p for model, p in law.items() if model not in instance.best), Fraction(0))
    return total


#: The enumeration size (:func:`enumeration_size`) past which a Hypothesis case is skipped: keeps the file fast.
SMALL_LIMIT = 2 * 10**5


def exact_error(instance: StochasticInstance, algorithm: str, budget: int, a: Fraction | None = None) -> Fraction:
    """The exact stochastic error of the package (:func:`error_probability` over the draw and the laws).

    Inside a Hypothesis test, a case whose enumeration would pass SMALL_LIMIT is rejected (``reject``).
    """
    params = {} if a is None else {"a": a}
    try:
        enumeration_size(instance, algorithm, budget, limit=SMALL_LIMIT, **params)
    except TooLargeToEnumerateError:
        reject()
    return error_probability(instance, algorithm, budget, a=a, limit=SMALL_LIMIT)


# -- hardness of stochastic instances (eq. variance) ---------------------------------------------------


def joint_moments(instance: StochasticInstance, first: int, second: int) -> tuple[Fraction, Fraction, Fraction]:
    """(Var S_{first J}, Var S_{second J}, Var(S_{first J} - S_{second J})) by enumerating J and both cells' laws."""
    n_queries = instance.n_queries
    outcomes: list[tuple[Fraction, Fraction, Fraction]] = []  # (x, y, probability)
    for query in range(n_queries):
        for (x, p), (y, q) in itertools.product(instance.law(first, query), instance.law(second, query)):
            outcomes.append((x, y, p * q / n_queries))

    def variance(values: list[tuple[Fraction, Fraction]]) -> Fraction:
        mean = sum((v * w for v, w in values), Fraction(0))
        return sum((v * v * w for v, w in values), Fraction(0)) - mean * mean

    return (
        variance([(x, w) for x, _, w in outcomes]),
        variance([(y, w) for _, y, w in outcomes]),
        variance([(x - y, w) for x, y, w in outcomes]),
    )


def brute_force_h3(instance: StochasticInstance, prime: bool) -> Fraction:
    """min over every decreasing-mean order of the models of max_{i>=2} i H_{3,i} (H'_{3,i}), by enumeration."""
    means = instance.means
    (best,) = instance.best

    def h(model: int) -> Fraction:
        var_best, var, var_difference = joint_moments(instance, best, model)
        delta = means[best] - means[model]
        spread = 2 * var_best + 2 * var if prime else 2 * var_difference
        return (spread + Fraction(2, 3) * (1 + delta) * delta) / delta**2

    others = [model for model in range(instance.n_models) if model != best]
    return min(
        max(position * h(model) for position, model in enumerate(order, start=2))
        for order in itertools.permutations(others)
        if all(means[order[k]] >= means[order[k + 1]] for k in range(len(order) - 1))
    )


@settings(max_examples=80, deadline=None)
@given(stochastic_instances(max_models=4, max_queries=6, max_slots=3))
def test_v_star_is_the_joint_variance_over_the_query_and_the_noise(instance: StochasticInstance) -> None:
    """eq. variance: V_{*,i}, Var(S_{i*J}), Var(S_{(i)J}) equal the brute-force joint variances, exactly; H3, H3' too."""
    assume(len(instance.best) == 1)
    (best,) = instance.best
    for arm in arm_hardness(instance):
        assert (arm.var_best, arm.var, arm.v_star) == joint_moments(instance, best, arm.model)
    h = hardness(instance)
    assert h.h3 == brute_force_h3(instance, prime=False)
    assert h.h3_prime == brute_force_h3(instance, prime=True)
    assert (h.h1, h.h2) == (hardness(instance.mean_instance).h1, hardness(instance.mean_instance).h2)


@settings(max_examples=60, deadline=None)
@given(matrices(max_models=5, max_queries=6))
def test_a_degenerate_instance_has_exactly_the_deterministic_hardness(rows: list[list[object]]) -> None:
    matrix = Instance(rows)  # type: ignore[arg-type]
    points = StochasticInstance.deterministic(matrix)
    assert points.degenerate
    assert hardness(points) == hardness(matrix)
    assert hardness(points, convention="paper") == hardness(matrix, convention="paper")
    if len(matrix.best) == 1:
        assert arm_hardness(points) == arm_hardness(matrix)


@settings(max_examples=60, deadline=None)
@given(matrices(max_models=5, max_queries=6, kind="coarse"))
def test_the_bernoulli_option_is_the_bernoulli_stochastic_instance(rows: list[list[object]]) -> None:
    """hardness(P, bernoulli=True) == hardness(StochasticInstance.bernoulli(P)), per arm too."""
    matrix = Instance(rows)  # type: ignore[arg-type]
    coins = StochasticInstance.bernoulli(matrix.rows)
    assert hardness(matrix, bernoulli=True) == hardness(coins)
    if len(matrix.best) == 1:
        assert arm_hardness(matrix, bernoulli=True) == arm_hardness(coins)


def test_hardness_refuses_contradictory_options() -> None:
    coins = StochasticInstance.bernoulli([[Fraction(1, 2), 1], [0, Fraction(1, 4)]])
    with pytest.raises(ParameterError, match="carries its own laws"):
        hardness(coins, bernoulli=True)
    with pytest.raises(ParameterError, match="deterministic matrices only"):
        hardness(coins, convention="paper")


def test_a_coin_against_a_constant_by_hand() -> None:
    """Model 0 ~ Bernoulli(3/4) and model 1 ~ Bernoulli(1/4) on both queries: Delta = 1/2, no covariance (theta = 0),
    V_* = 3/16 + 3/16 = 3/8, H_{3,2} = (3/4 + 2/3 * 3/2 * 1/2) / (1/4) = 5, H3 = 2 H_{3,2} = 10."""
    quarter = Fraction(1, 4)
    inst = StochasticInstance.bernoulli([[3 * quarter, 3 * quarter], [quarter, quarter]])
    (arm,) = arm_hardness(inst)
    assert (arm.delta, arm.v_star, arm.cov, arm.theta) == (Fraction(1, 2), Fraction(3, 8), Fraction(0), Fraction(0))
    assert hardness(inst).h3 == 10


@settings(max_examples=80, deadline=None)
@given(stochastic_instances(max_models=4, max_queries=6, max_slots=3))
def test_proposition_theta_star_holds_for_stochastic_scores(instance: StochasticInstance) -> None:
    """Proposition thm:theta-star: theta_i > theta*(mu*, Delta_i) implies H_{3,i} < H_{2,i}; its proof needs only
    Var <= mu (1 - mu) for [0, 1] scores, true jointly over J and the noise."""
    assume(len(instance.best) == 1)
    for arm in arm_hardness(instance):
        if arm.theta is not None and arm.theta_star is not None and arm.theta > arm.theta_star:
            _count("proposition theta*", "theta_i > theta*")
            assert arm.h3 is not None and arm.h2 is not None and arm.h3 < arm.h2, (instance, arm)


# -- Lemmas bernstein-bounded-wor and bernstein-paired on stochastic cells --------------------------


@settings(max_examples=80, deadline=None)
@given(stochastic_instances(max_models=2, max_queries=5, max_slots=3), st.data())
def test_bernstein_without_replacement_on_a_row_of_stochastic_cells(
    instance: StochasticInstance, data: st.DataObject
) -> None:
    """Lemma bernstein-bounded-wor: the population is a model's L cells phi_ij, centred by mu_i (eq. bernstein-stochastic)."""
    model = data.draw(st.integers(0, instance.n_models - 1))
    mu = instance.means[model]
    population = [[(s - mu, p) for s, p in instance.law(model, query)] for query in range(instance.n_queries)]
    bound_m = max(abs(z) for cell in population for z, _ in cell)
    _count("lemma bernstein-bounded-wor", "tried")
    assume(bound_m > 0)
    sigma2 = sum((z * z * p for cell in population for z, p in cell), Fraction(0)) / len(population)
    n = data.draw(st.integers(1, len(population)))
    epsilon = bound_m * data.draw(fractions_in(Fraction(1, 20), 1, 20))
    exact = mean_of_sum_at_least([list(cell) for cell in population], n, n * epsilon)
    _count("lemma bernstein-bounded-wor", "conditions held")
    if exact > 0:
        _count("lemma bernstein-bounded-wor", "positive probability")
    assert bernstein_wor_bound(n, len(population), epsilon, sigma2, bound_m).holds_for(exact), (instance, model, n)


@settings(max_examples=80, deadline=None)
@given(stochastic_instances(max_models=3, max_queries=5, max_slots=2), st.data())
def test_bernstein_paired_on_two_rows_of_stochastic_cells(instance: StochasticInstance, data: st.DataObject) -> None:
    """Lemma bernstein-paired: pairs (phi_{X j}, phi_{Y j}) are two models' cells; with X the unique best model,
    sigma^2 is V_{*,i} of the hardness (eq. variance)."""
    first, second = data.draw(st.permutations(range(instance.n_models)))[:2]
    if instance.means[first] < instance.means[second]:
        first, second = second, first
    delta = instance.means[first] - instance.means[second]
    population = [
        [
            (y - x + delta, p * q)
            for (x, p), (y, q) in itertools.product(instance.law(first, j), instance.law(second, j))
        ]
        for j in range(instance.n_queries)
    ]
    sigma2 = sum((z * z * w for cell in population for z, w in cell), Fraction(0)) / len(population)
    if instance.best == {first}:
        (arm,) = [arm for arm in arm_hardness(instance) if arm.model == second]
        assert sigma2 == arm.v_star
    n = data.draw(st.integers(1, instance.n_queries))
    exact = mean_of_sum_at_least(population, n, n * delta)  # mean Y >= mean X  <=>  sum Z >= n Delta
    _count("lemma bernstein-paired", "conditions held")
    if delta > 0 and exact > 0:
        _count("lemma bernstein-paired", "Delta > 0, positive probability")
    assert bernstein_paired_bound(n, instance.n_queries, delta, sigma2).holds_for(exact), (instance, first, second, n)


# -- Theorem csr_bound, the SR bound and the UCB-E bound against exact stochastic errors -------------


def _covered(instance: StochasticInstance, budget: int) -> bool:
    return schedule_is_covered(*instance.shape, budget, stochastic=not instance.degenerate)


@settings(max_examples=60, deadline=None)
@given(successive_rejects_cases())
def test_theorem_csr_bound_holds_for_sysrs_with_stochastic_scores(case: tuple[StochasticInstance, int]) -> None:
    instance, budget = case
    _count("Theorem csr_bound (SySRs)", "tried")
    if not _covered(instance, budget):
        with pytest.raises(BoundConditionError, match="not proved"):
            sysrs_bound(instance, budget)
        return
    bound = sysrs_bound(instance, budget)
    error = exact_error(instance, "sysrs", budget)
    _count("Theorem csr_bound (SySRs)", "covered")
    if float(bound) < 1:
        _count("Theorem csr_bound (SySRs)", "bound below 1")
    assert bound.holds_for(error), (instance, budget, error, float(bound))


@settings(max_examples=40, deadline=None)
@given(successive_rejects_cases())
def test_the_sr_bound_holds_for_sr_with_stochastic_scores(case: tuple[StochasticInstance, int]) -> None:
    """eq. guarantees-SR, for SR sampling without replacement (Hoeffding's reduction holds for stochastic cells)."""
    instance, budget = case
    _count("eq. guarantees-SR (SR)", "tried")
    if not _covered(instance, budget):
        return
    bound = sr_bound(instance, budget)
    error = exact_error(instance, "sr", budget)
    _count("eq. guarantees-SR (SR)", "covered")
    if float(bound) < 1:
        _count("eq. guarantees-SR (SR)", "bound below 1")
    assert bound.holds_for(error), (instance, budget, error, float(bound))


@settings(max_examples=25, deadline=None)
@given(
    stochastic_cases(max_models=2, max_queries=3, kinds=("bernoulli",)),
    st.fractions(min_value=Fraction(1, 100), max_value=1),
)
def test_the_ucbe_formula_against_exact_stochastic_errors(
    case: tuple[StochasticInstance, int], share: Fraction
) -> None:
    """eq. guarantees-UCBE is stated without replacement for deterministic scores only, so ucbe_bound refuses a
    noisy instance; its formula (from the means) is still checked here against the exact stochastic error."""
    instance, budget = case
    assume(budget > instance.n_models)
    a = share * ucbe_max_a(instance, budget)
    _count("eq. guarantees-UCBE (UCB-E), unproved for noise", "tried, 0 < a <= 25/36 (n - K)/H1")
    if instance.degenerate:
        bound = ucbe_bound(instance, budget, a)
    else:
        with pytest.raises(BoundConditionError, match="deterministic scores only"):
            ucbe_bound(instance, budget, a)
        bound = ucbe_bound(instance.mean_instance, budget, a)  # the same formula: n, K, a and H1 of the means
    error = exact_error(instance, "ucbe", budget, a=a)
    if float(bound) < 1:
        _count("eq. guarantees-UCBE (UCB-E), unproved for noise", "bound below 1")
    assert bound.holds_for(error), (instance, budget, a, error)


@settings(max_examples=25, deadline=None)
@given(stochastic_cases(max_models=3, max_queries=3, max_realisations=16), st.sampled_from(["sysrs", "sr", "syus"]))
def test_the_exact_stochastic_error_is_the_mixture_over_realised_matrices(
    case: tuple[StochasticInstance, int], algorithm: str
) -> None:
    instance, budget = case
    assert exact_error(instance, algorithm, budget) == mixture_error(instance, algorithm, budget)


def test_the_stochastic_bounds_read_the_instance() -> None:
    """A StochasticInstance implies stochastic= (coverage and H3 from its laws); a degenerate one is its matrix."""
    rows: list[list[Fraction]] = [
        [Fraction(3, 4)] * 30,
        [Fraction(1, 2)] * 30,
        [Fraction(1, 4)] * 30,
        [Fraction(0)] * 30,
    ]
    coins = StochasticInstance.bernoulli(rows)
    with pytest.raises(BoundConditionError, match="n_3 = 31 > L = 30"):
        sysrs_bound(coins, 100)
    with pytest.raises(BoundConditionError, match="leave stochastic out"):
        sysrs_bound(coins, 100, stochastic=False)
    assert sysrs_bound(coins, 90) == sysrs_bound(Instance(rows), 90, stochastic=True)
    assert sr_bound(coins, 90) == sr_bound(Instance(rows), 90, stochastic=True)
    points = StochasticInstance.deterministic(rows)
    assert sysrs_bound(points, 100) == sysrs_bound(Instance(rows), 100)  # capped at L = 30: covered, no noise
    assert ucbe_bound(points, 100, Fraction(1, 10)) == ucbe_bound(Instance(rows), 100, Fraction(1, 10))
    assert ucbe_max_a(coins, 100) == ucbe_max_a(Instance(rows), 100)
    with pytest.raises(BoundConditionError, match="deterministic scores only"):
        ucbe_bound(coins, 100, Fraction(1, 10))


# -- Theorem lower-bound on two-model stochastic instances ---------------------------------------


@settings(max_examples=40, deadline=None)
@given(lower_bound_gaps, st.integers(1, 6), st.data())
def test_theorem_lower_bound_on_two_model_stochastic_instances(
    delta: Fraction, n_queries: int, data: st.DataObject
) -> None:
    """Theorem lower-bound at s = Delta: P puts Delta on (1, 0) and 1 - Delta on (0, 0), a product law, so it is
    the instance 'model 0 ~ Bernoulli(Delta), model 1 = 0' with every query alike, and Q swaps the models.
    Sampling such queries without replacement gives i.i.d. pairs, so SySRs and SR (n_1 pairs each) are tests
    on n_1 i.i.d. samples: max(error on P, error on Q) >= the Bayes error >= 1/4 exp(-11 n_1 / H3(Delta, V)),
    V = s - Delta^2, which is V_{*,2} of the instance (H3 = 2 H3(Delta, V))."""
    rows = [[delta] * n_queries, [Fraction(0)] * n_queries]
    on_p, on_q = StochasticInstance.bernoulli(rows), StochasticInstance.bernoulli(rows[::-1])
    variance = delta - delta**2
    (arm,) = arm_hardness(on_p)
    assert arm.v_star == variance and arm_hardness(on_q)[0].v_star == variance
    assert hardness(on_p).h3 == 2 * h3_two_arm(delta, variance)
    budget = data.draw(st.integers(2, 2 * n_queries))
    (pairs,) = schedule(2, n_queries, budget)
    assume(pairs >= 1)
    for algorithm in ("sysrs", "sr"):
        worst = max(exact_error(on_p, algorithm, budget), exact_error(on_q, algorithm, budget))
        _count("Theorem lower-bound", f"{algorithm}: conditions held")
        assert worst >= bayes_error(pairs, delta, delta)
        assert lower_bound(pairs, delta, delta).compare(worst) >= 0, (delta, n_queries, budget, algorithm)


def test_realisation_counts_are_products_of_law_sizes() -> None:
    inst = StochasticInstance.finite([0, Fraction(1, 2), 1], [[[1, 0, 0], [Fraction(1, 2), 0, Fraction(1, 2)]]] * 2)
    assert realisation_count(inst) == 4


def test_zz_print_the_counts() -> None:
    """Prints how many cases each bound test tried and where its conditions held (run with -s)."""
    for (test, what), count in sorted(COUNTS.items()):
        print(f"{test}: {what}: {count}")
