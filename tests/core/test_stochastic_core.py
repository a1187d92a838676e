"""StochasticInstance and StochasticDraw (sysrs_ref/stochastic.py): the forms, the truth, the noise rule.

The noise rule (docs/contracts.md §17): a cell's score for the noise u is s_v
for the least slot v with u / 2^53 < F_v. The reference decides it with exact
Fractions (:meth:`StochasticInstance.outcome`); the fast realisation with
integer thresholds ceil(F_v 2^53) (:meth:`StochasticInstance.realise_codes`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance, random_draw, select
from sysrs_ref.errors import DrawError, InstanceError, ParameterError
from sysrs_ref.stochastic import NOISE_RANGE, StochasticDraw, StochasticInstance, random_stochastic_draw
from tests.strategies import ALGORITHM_NAMES, stochastic_draws_for, stochastic_instances


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(stochastic_instances(floats=True) | stochastic_instances(), st.data())
def test_the_reference_rule_and_the_thresholds_agree(instance: StochasticInstance, data: st.DataObject) -> None:
    """realise (exact Fractions) == realise_codes (int64 thresholds), noise at the edges of every slot included."""
    edges = sorted({int(t) for t in instance.thresholds.ravel()} | {0, NOISE_RANGE - 1})
    near = st.sampled_from(edges).flatmap(lambda t: st.sampled_from([max(0, t - 1), min(NOISE_RANGE - 1, t)]))
    cells = instance.n_models * instance.n_queries
    flat = data.draw(st.lists(near | st.integers(0, NOISE_RANGE - 1), min_size=cells, max_size=cells))
    noise = np.array(flat, dtype=np.int64).reshape(instance.shape)
    realised = instance.realise(noise)
    codes = instance.realise_codes(noise)
    assert realised.rows == tuple(tuple(instance.levels[c] for c in row) for row in codes.tolist())


@settings(max_examples=100, deadline=None)
@given(stochastic_instances())
def test_laws_are_probability_distributions_and_give_the_means(instance: StochasticInstance) -> None:
    """Every law sums to exactly 1, its support is in levels, and mu_i = (1/L) sum_j E[S_ij]."""
    for model in range(instance.n_models):
        total = Fraction(0)
        for query in range(instance.n_queries):
            law = instance.law(model, query)
            assert sum(p for _, p in law) == 1
            assert all(p > 0 and s in instance.levels for s, p in law)
            assert instance.cumulative(model, query)[-1] == 1
            total += sum(s * p for s, p in law)
        assert instance.means[model] == total / instance.n_queries
    assert instance.best == frozenset(i for i, mu in enumerate(instance.means) if mu == max(instance.means))


@settings(max_examples=100, deadline=None)
@given(stochastic_instances(), st.data())
def test_the_realised_law_is_within_2_to_the_minus_53(instance: StochasticInstance, data: st.DataObject) -> None:
    """Slot v gets (T_v - T_(v-1)) / 2^53 of the noise: q_v to within 2^-53, exactly when F_(v-1), F_v are dyadic."""
    model = data.draw(st.integers(0, instance.n_models - 1))
    query = data.draw(st.integers(0, instance.n_queries - 1))
    before, previous = 0, Fraction(0)
    thresholds = instance.thresholds[model, query].tolist()
    for (_, q), level, threshold in zip(
        instance.slots(model, query), instance.cumulative(model, query), thresholds, strict=True
    ):
        realised = Fraction(threshold - before, NOISE_RANGE)
        assert abs(realised - q) < Fraction(1, NOISE_RANGE)
        if (level * NOISE_RANGE).denominator == 1 and (previous * NOISE_RANGE).denominator == 1:
            assert realised == q
        before, previous = threshold, level


@settings(max_examples=100, deadline=None)
@given(stochastic_instances(kinds=("bernoulli",), floats=True))
def test_float_thresholds_by_numpy_equal_the_exact_ceiling(instance: StochasticInstance) -> None:
    """For float p, numpy's ceil(p * 2^53) is the exact ceil(F * 2^53) (the product of a double by 2^53 is exact)."""
    for model in range(instance.n_models):
        for query in range(instance.n_queries):
            exact = [-((-f.numerator * NOISE_RANGE) // f.denominator) for f in instance.cumulative(model, query)]
            assert instance.thresholds[model, query].tolist() == exact


def test_dyadic_probabilities_are_realised_exactly() -> None:
    """p = 3/8: exactly 3/8 of the 2^53 noise values give the score 1."""
    instance = StochasticInstance.bernoulli([[Fraction(3, 8)], [Fraction(1, 2)]])
    assert instance.thresholds[0, 0].tolist() == [3 * 2**50, 2**53]
    assert instance.outcome(0, 0, 3 * 2**50 - 1) == 1
    assert instance.outcome(0, 0, 3 * 2**50) == 0


def test_a_third_is_realised_to_within_one_noise_value() -> None:
    """p = 1/3 is not a multiple of 2^-53: the threshold is ceil(2^53 / 3)."""
    instance = StochasticInstance.bernoulli([[Fraction(1, 3)], [0]])
    threshold = -(-(2**53) // 3)
    assert instance.thresholds[0, 0, 0] == threshold
    assert instance.outcome(0, 0, threshold - 1) == 1
    assert instance.outcome(0, 0, threshold) == 0


def test_float_probabilities_are_compared_exactly() -> None:
    """0.1 is 3602879701896397 / 2^55: u / 2^53 < 0.1 exactly when u < 900719925474099.25, i.e. u <= ...099."""
    instance = StochasticInstance.bernoulli(np.array([[0.1], [0.0]]))
    assert instance.outcome(0, 0, 900719925474099) == 1
    assert instance.outcome(0, 0, 900719925474100) == 0
    assert instance.realise_codes(np.array([[900719925474099], [0]])).tolist() == [[1], [0]]
    assert instance.realise_codes(np.array([[900719925474100], [0]])).tolist() == [[0], [0]]


def test_samples_pick_repeat_floor_u_e_over_2_53() -> None:
    """Samples: the repeat picked is floor(u E / 2^53), for E = 3."""
    instance = StochasticInstance.samples([[[0, Fraction(1, 2), 1]], [[0, 0, 0]]])
    for u in (0, 2**53 // 3, 2**53 // 3 + 1, 2 * 2**53 // 3 + 1, 2**53 - 1):
        assert instance.outcome(0, 0, u) == Fraction(u * 3 // 2**53, 2)


def test_finite_laws_follow_the_support_order() -> None:
    """Slots in the support's order: support (1, 0, 1/2) with probabilities (1/4, 1/4, 1/2)."""
    instance = StochasticInstance.finite(
        [1, 0, Fraction(1, 2)], [[[Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]], [[0, 1, 0]]]
    )
    assert [instance.outcome(0, 0, u) for u in (0, 2**51, 2**52)] == [1, 0, Fraction(1, 2)]
    assert instance.law(1, 0) == ((Fraction(0), Fraction(1)),)
    assert instance.second_moment(0, 0) == Fraction(1, 4) + Fraction(1, 8)


def test_numpy_noise_is_the_top_53_bits_of_each_64_bit_output() -> None:
    """The contract for other languages: noise[i][j] = next PCG64 output >> 11, row by row, after the orders."""
    generator = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(3,)))
    twin = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(3,)))
    drawn = random_stochastic_draw(generator, 3, 4, synchronized=False)
    assert drawn.draw == random_draw(twin, 3, 4, synchronized=False)
    raw = twin.bit_generator.random_raw(12) >> np.uint64(11)
    assert [u for row in drawn.noise for u in row] == raw.tolist()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_point_masses_give_exactly_the_deterministic_runs(data: st.DataObject) -> None:
    """A deterministic matrix as point masses: the same outcome for the same Draw, whatever the noise."""
    matrix = data.draw(stochastic_instances(kinds=("deterministic",))).mean_instance
    algorithm = data.draw(st.sampled_from(ALGORITHM_NAMES))
    synchronized = algorithm.startswith("sy")
    drawn = data.draw(stochastic_draws_for(*matrix.shape, synchronized))
    budget = data.draw(st.integers(matrix.n_models, matrix.n_models * matrix.n_queries))
    stochastic = StochasticInstance.deterministic(matrix)
    assert select(stochastic, budget, algorithm, draw=drawn) == select(matrix, budget, algorithm, draw=drawn.draw)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(stochastic_instances(), st.data())
def test_a_stochastic_run_is_the_run_on_the_realised_matrix(instance: StochasticInstance, data: st.DataObject) -> None:
    """Each cell is evaluated at most once, so the run equals the deterministic run on realise(noise)."""
    algorithm = data.draw(st.sampled_from(ALGORITHM_NAMES))
    drawn = data.draw(stochastic_draws_for(*instance.shape, algorithm.startswith("sy")))
    budget = data.draw(st.integers(instance.n_models, instance.n_models * instance.n_queries))
    outcome = select(instance, budget, algorithm, draw=drawn)
    assert outcome == select(instance.realise(drawn.noise), budget, algorithm, draw=drawn.draw)
    assert len(set(outcome.requests)) == len(outcome.requests)


def test_select_draws_the_noise_after_the_orders() -> None:
    """select(seed=s) on a stochastic instance uses random_stochastic_draw(s, ...)."""
    instance = StochasticInstance.bernoulli(np.random.default_rng(0).random((4, 30)))
    drawn = random_stochastic_draw(5, 4, 30, synchronized=True)
    assert select(instance, "40%", "sysrs", seed=5) == select(instance, "40%", "sysrs", draw=drawn)


def test_the_oracle_refuses_a_cell_asked_twice() -> None:
    """Without replacement: a second evaluation of a cell in one run is a DrawError."""
    oracle = StochasticInstance.bernoulli([[0.5], [0.5]]).oracle([[0], [0]])
    assert oracle(0, 0) == 1
    with pytest.raises(DrawError, match="evaluated twice"):
        oracle(0, 0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: StochasticInstance.bernoulli([[0.5, float("nan")], [0, 1]]),
            "Bernoulli probability at model 0, query 1 is nan",
        ),
        (
            lambda: StochasticInstance.bernoulli([[1.5], [0]]),
            "Bernoulli probability at model 0, query 0 is 1.5, outside",
        ),
        (lambda: StochasticInstance.bernoulli([[0.5, 0.5]]), "at least 2 models"),
        (lambda: StochasticInstance.finite([0, 1], [[[0.5, 0.4]], [[1, 0]]]), "model 0, query 0 sum to 0.9, not 1"),
        (lambda: StochasticInstance.finite([0, 1], [[[Fraction(1, 2), Fraction(1, 3)]], [[1, 0]]]), "exactly 1"),
        (lambda: StochasticInstance.finite([0, 0], [[[1, 0]], [[1, 0]]]), "distinct"),
        (lambda: StochasticInstance.finite([0, 2], [[[1, 0]], [[1, 0]]]), "support value 1 is 2, outside"),
        (lambda: StochasticInstance.finite([0, 1], [[[1, 0, 0]], [[1, 0, 0]]]), "3 per cell but the support has 2"),
        (lambda: StochasticInstance.finite([0, 1], [[[-0.5, 1.5]], [[1, 0]]]), "probability at model 0, query 0"),
        (lambda: StochasticInstance.samples([[0, 1], [1, 0]]), "3-D array"),
        (lambda: StochasticInstance.samples([[[0, 2]], [[1, 0]]]), "sample at model 0, query 0, repeat 1 is 2"),
        (lambda: StochasticInstance.samples(np.zeros((2, 3, 0))), "at least 1 repeat"),
    ],
)
def test_bad_stochastic_instances_are_refused_with_the_cell(make: object, message: str) -> None:
    """Every invalid form is an InstanceError naming the cell and the problem."""
    assert callable(make)
    with pytest.raises(InstanceError, match=message.replace("(", r"\(").replace(".", r"\.")):
        make()


def test_bad_noise_and_draws_are_refused() -> None:
    """Noise outside [0, 2^53), of the wrong shape or not integers; a plain Draw for a stochastic instance."""
    draw = random_draw(0, 2, 2, synchronized=True)
    with pytest.raises(DrawError, match=r"in \[0, 2\^53\)"):
        StochasticDraw(draw, ((0, 2**53), (0, 0)))
    with pytest.raises(DrawError, match="2 x 2 array"):
        StochasticDraw(draw, ((0, 0),))
    with pytest.raises(DrawError, match="integers"):
        StochasticDraw(draw, ((0, 0.5), (0, 0)))  # type: ignore[arg-type]
    instance = StochasticInstance.bernoulli([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(DrawError, match="needs a StochasticDraw"):
        select(instance, 2, "sysrs", draw=draw)
    with pytest.raises(DrawError, match="is for a StochasticInstance"):
        select(Instance([[1, 0], [0, 1]]), 2, "sysrs", draw=StochasticDraw(draw, ((0, 0), (0, 0))))
    with pytest.raises(ParameterError, match="does not run on stochastic instances"):
        select(instance, 2, "ucbe-lrf")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(stochastic_instances() | stochastic_instances(floats=True))
def test_degenerate_means_every_law_is_one_point(instance: StochasticInstance) -> None:
    """``degenerate`` (read off the cumulative probabilities) is True exactly when every law has one score."""
    one_point = all(len(instance.law(i, j)) == 1 for i in range(instance.n_models) for j in range(instance.n_queries))
    assert instance.degenerate == one_point
