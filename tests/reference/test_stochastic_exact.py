"""Exact error probabilities of stochastic instances (sysrs_ref.theory.exact_stochastic).

- brute force: every draw (all arm priorities, all query orders) and every realisation (the product
  of the cells' laws phi_ij), each run by the reference through ``select`` with a StochasticDraw
  whose noise realises that outcome; the law must equal the engine's, exactly, for all eight
  algorithms;
- the two engines (the phase DP of SyUS, SySRs, SySAR and the deterministic engines mixed over the
  statistic) agree, and the statistic is sufficient (the deterministic law does not change when
  the columns, or each row, are permuted);
- a degenerate instance gives exactly the deterministic answer;
- Monte Carlo runs of the reference on dyadic laws (the noise realises them exactly) agree with
  the exact error within Hoeffding's bound;
- refusals: too large, UCB-E-LRF.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, select
from sysrs_ref.algorithms.params import Exploration, NoParams, TopMSize
from sysrs_ref.errors import ParameterError, TooLargeToEnumerateError
from sysrs_ref.stochastic import StochasticDraw, StochasticInstance, random_stochastic_draw
from sysrs_ref.theory import DEFAULT_LIMIT, enumeration_size, error_probability, outcome_distribution
from sysrs_ref.theory.exact import exact_law
from sysrs_ref.theory.exact_stochastic import (
    PHASE_ALGORITHMS,
    mixture_law,
    phase_law,
    phase_size,
    statistic_count_bound,
    statistic_law,
)
from sysrs_ref.theory.exact_stochastic_ucb import syucbe_law, syucbe_size
from sysrs_ref.theory.exact_sync import syucbe_distribution
from tests.param_types import AlgorithmParamValues
from tests.strategies import (
    ALGORITHM_NAMES,
    exploration_values,
    instances,
    stochastic_exact_cases,
    stochastic_instances,
)


def _noise_for(instance: StochasticInstance, model: int, query: int, score: Fraction) -> int:
    """A noise value whose outcome at the cell is *score*: the start of its first slot with positive probability."""
    for slot, (value, probability) in enumerate(instance.slots(model, query)):
        if value == score and probability:
            return 0 if slot == 0 else int(instance.thresholds[model, query, slot - 1])
    raise AssertionError(f"{score} is not an outcome of cell ({model}, {query})")


def brute_law(
    instance: StochasticInstance, algorithm: str, budget: int, params: AlgorithmParamValues
) -> dict[int, Fraction]:
    """The law of the chosen model over every draw and every realisation, by running the reference."""
    spec = ALGORITHMS[algorithm]
    n_models, n_queries = instance.shape
    one_order = list(itertools.permutations(range(n_queries)))
    all_orders = [(o,) for o in one_order] if spec.synchronized else list(itertools.product(one_order, repeat=n_models))
    draws = [
        Draw(tuple(orders), priority) for orders in all_orders for priority in itertools.permutations(range(n_models))
    ]
    cells = [(i, j) for i in range(n_models) for j in range(n_queries)]
    law: dict[int, Fraction] = {}
    for outcome in itertools.product(*(instance.law(i, j) for i, j in cells)):
        p = math.prod((q for _, q in outcome), start=Fraction(1))
        noise = [[0] * n_queries for _ in range(n_models)]
        for (i, j), (score, _) in zip(cells, outcome, strict=True):
            noise[i][j] = _noise_for(instance, i, j, score)
        rows = tuple(tuple(row) for row in noise)
        for d in draws:
            chosen = select(instance, budget, algorithm, draw=StochasticDraw(d, rows), **params).chosen
            law[chosen] = law.get(chosen, Fraction(0)) + p / len(draws)
    return {model: p for model, p in sorted(law.items()) if p}


def _error(
    instance: Instance | StochasticInstance, algorithm: str, budget: int, params: AlgorithmParamValues
) -> Fraction:
    """error_probability with the case's a and m (m as an int)."""
    m = int(params["m"]) if "m" in params else None
    return error_probability(instance, algorithm, budget, a=params.get("a"), m=m)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_engine_equals_brute_force(algorithm: str, data: st.DataObject) -> None:
    instance, budget, params = data.draw(stochastic_exact_cases(algorithm))
    law = outcome_distribution(instance, algorithm, budget, **params)
    assert law == brute_law(instance, algorithm, budget, params)
    best = sum((p for model, p in law.items() if model in instance.best), Fraction(0))
    assert _error(instance, algorithm, budget, params) == 1 - best


@pytest.mark.parametrize("algorithm", PHASE_ALGORITHMS)
@settings(max_examples=30, deadline=None)
@given(
    instance=stochastic_instances(max_models=4, max_queries=4, max_slots=3),
    data=st.data(),
)
def test_phase_dp_equals_the_mixture(algorithm: str, instance: StochasticInstance, data: st.DataObject) -> None:
    """Two different computations of the same law: the phase DP, and the deterministic engine mixed over columns."""
    assume(statistic_count_bound(instance, synchronized=True) <= 2000)  # the mixture calls the engine per value
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    m = data.draw(st.integers(1, n_models - 1))
    params = TopMSize(m) if algorithm == "sysar" else NoParams()
    mixed = mixture_law(instance, algorithm, lambda r: exact_law(r, algorithm, budget, params))
    assert phase_law(instance, algorithm, budget, m=m) == mixed


@settings(max_examples=60, deadline=None)
@given(
    instance=stochastic_instances(max_models=3, max_queries=4, max_slots=3),
    a=exploration_values,
    data=st.data(),
)
def test_syucbe_dp_equals_the_mixture(instance: StochasticInstance, a: Fraction, data: st.DataObject) -> None:
    """SyUCB-E's step DP against the deterministic engine mixed over the column multisets, at every kind of law."""
    assume(statistic_count_bound(instance, synchronized=True) <= 300)  # the mixture calls the engine per value
    n_models, n_queries = instance.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    mixed = mixture_law(instance, "syucbe", lambda r: exact_law(r, "syucbe", budget, Exploration(a)))
    assert syucbe_law(instance, budget, a) == mixed
    assert syucbe_size(instance, budget) >= 1


@settings(max_examples=40, deadline=None)
@given(matrix=instances(max_models=3, max_queries=4), a=exploration_values, data=st.data())
def test_syucbe_dp_on_point_masses_is_the_deterministic_engine(
    matrix: Instance, a: Fraction, data: st.DataObject
) -> None:
    n_models, n_queries = matrix.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    deterministic = {i: p for i, p in syucbe_distribution(matrix, budget, a).items() if p}
    assert syucbe_law(StochasticInstance.deterministic(matrix), budget, a) == dict(sorted(deterministic.items()))


def test_syucbe_by_hand() -> None:
    """K = 2, L = 2, n = 3, a = 1: after the warm-up on query 0 the larger index is evaluated again, on query 1.

    S_0j ~ B(1/2) on both queries, model 1 a point mass 1/2. Warm-up: S_00 = 1 (index 2 > 3/2)
    or S_00 = 0 (index 1 < 3/2). If S_00 = 1, model 0 sees S_01: its mean 1 or 1/2 against 1/2
    (a tie lost half the time): P(0) = 1/2 (1/2 + 1/4). If S_00 = 0, model 1 is evaluated
    again and keeps mean 1/2 > 0: P(0) = 0. So P(0) = 3/8.
    """
    half = Fraction(1, 2)
    inst = StochasticInstance.finite([0, half, 1], [[[half, 0, half]] * 2, [[0, 1, 0]] * 2])
    assert syucbe_law(inst, 3, Fraction(1)) == {0: Fraction(3, 8), 1: Fraction(5, 8)}
    assert outcome_distribution(inst, "syucbe", 3, a=1) == {0: Fraction(3, 8), 1: Fraction(5, 8)}


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_statistic_is_sufficient(algorithm: str, data: st.DataObject) -> None:
    """The deterministic law depends on the columns' multiset (synchronized) or each row's multiset only."""
    instance, budget, params = data.draw(stochastic_exact_cases(algorithm))
    matrix = instance.mean_instance
    n_queries = matrix.n_queries
    if ALGORITHMS[algorithm].synchronized:
        order = data.draw(st.permutations(range(n_queries)))
        shuffled = [[row[j] for j in order] for row in matrix.rows]
    else:
        shuffled = [[row[j] for j in data.draw(st.permutations(range(n_queries)))] for row in matrix.rows]
    assert outcome_distribution(Instance(shuffled), algorithm, budget, **params) == outcome_distribution(
        matrix, algorithm, budget, **params
    )


@settings(max_examples=40, deadline=None)
@given(instance=stochastic_instances(max_models=3, max_queries=3, max_slots=2), synchronized=st.booleans())
def test_statistic_law_is_the_image_of_the_realisations(instance: StochasticInstance, synchronized: bool) -> None:
    """statistic_law = the law of every realisation (product of phi_ij) mapped to its sorted form."""
    n_models, n_queries = instance.shape
    code = {level: c for c, level in enumerate(instance.levels)}
    expected: dict[tuple[tuple[int, ...], ...], Fraction] = {}
    cells = [(i, j) for i in range(n_models) for j in range(n_queries)]
    for outcome in itertools.product(*(instance.law(i, j) for i, j in cells)):
        rows = [[code[outcome[i * n_queries + j][0]] for j in range(n_queries)] for i in range(n_models)]
        if synchronized:
            key = tuple(zip(*sorted(zip(*rows, strict=True)), strict=True))
        else:
            key = tuple(tuple(sorted(row)) for row in rows)
        expected[key] = expected.get(key, Fraction(0)) + math.prod((q for _, q in outcome), start=Fraction(1))
    law = statistic_law(instance, synchronized=synchronized)
    assert law == expected and sum(law.values()) == 1
    assert len(law) <= statistic_count_bound(instance, synchronized=synchronized)


@pytest.mark.parametrize("algorithm", ALGORITHM_NAMES)
@settings(max_examples=15, deadline=None)
@given(matrix=instances(max_models=3, max_queries=4), data=st.data())
def test_a_degenerate_instance_gives_the_deterministic_answer(
    algorithm: str, matrix: Instance, data: st.DataObject
) -> None:
    n_models, n_queries = matrix.shape
    budget = data.draw(st.integers(n_models, n_models * n_queries))
    params: AlgorithmParamValues = {}
    if algorithm in ("sar", "sysar"):
        params["m"] = Fraction(data.draw(st.integers(1, n_models - 1)))
    point_masses = StochasticInstance.deterministic(matrix)
    assert outcome_distribution(point_masses, algorithm, budget, **params) == outcome_distribution(
        matrix, algorithm, budget, **params
    )
    assert _error(point_masses, algorithm, budget, params) == _error(matrix, algorithm, budget, params)
    assert enumeration_size(point_masses, algorithm, budget, **params) == enumeration_size(
        matrix, algorithm, budget, **params
    )


def test_bernoulli_zero_one_is_degenerate_too() -> None:
    matrix = Instance([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    bernoulli = StochasticInstance.bernoulli([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    for algorithm in ALGORITHM_NAMES:
        assert error_probability(bernoulli, algorithm, 5) == error_probability(matrix, algorithm, 5)


def test_by_hand() -> None:
    """S_0j ~ B(3/4), S_1j ~ B(1/2) on L = 2, n = 3: one query each (n_1 = 1).

    SySRs and SR alike see one independent pair of scores: P(S_0 < S_1) = 1/4 * 1/2 = 1/8,
    P(tie) = 3/8 + 1/8 = 1/2, lost half the time: error 1/8 + 1/4 = 3/8.
    """
    noisy = StochasticInstance.bernoulli([[Fraction(3, 4)] * 2, [Fraction(1, 2)] * 2])
    for algorithm in ("sysrs", "sr", "syus", "us", "sysar", "sar"):
        assert error_probability(noisy, algorithm, 3) == Fraction(3, 8)
    # the best is the stochastic truth: model 1 is best although it realises lower here
    flipped = StochasticInstance.bernoulli([[Fraction(1, 2)] * 2, [Fraction(3, 4)] * 2])
    assert error_probability(flipped, "sysrs", 3) == Fraction(3, 8)


# -- Monte Carlo ----------------------------------------------------------------------------------

RUNS = 8000
SEED = 2311
#: Dyadic laws (the noise realises them exactly): (instance, budget, algorithm, params).
MONTE_CARLO: list[tuple[str, StochasticInstance, int, str, AlgorithmParamValues]] = [
    (
        "bernoulli-3x4-sysrs",
        StochasticInstance.bernoulli(
            [
                [Fraction(3, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 2)],
                [Fraction(1, 2)] * 3 + [Fraction(3, 4)],
                [Fraction(1, 4), Fraction(1, 2), 1, Fraction(1, 2)],
            ]
        ),
        7,
        "sysrs",
        {},
    ),
    (
        "bernoulli-3x4-sr",
        StochasticInstance.bernoulli(
            [
                [Fraction(3, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1, 2)],
                [Fraction(1, 2)] * 3 + [Fraction(3, 4)],
                [Fraction(1, 4), Fraction(1, 2), 1, Fraction(1, 2)],
            ]
        ),
        7,
        "sr",
        {},
    ),
    (
        "finite-2x3-ucbe",
        StochasticInstance.finite(
            [0, Fraction(1, 2), 1],
            [
                [[Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)], [0, 1, 0], [Fraction(1, 2), 0, Fraction(1, 2)]],
                [
                    [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)],
                    [Fraction(1, 4), 0, Fraction(3, 4)],
                    [Fraction(1, 2), Fraction(1, 2), 0],
                ],
            ],
        ),
        4,
        "ucbe",
        {"a": Fraction(1)},
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "instance", "budget", "algorithm", "params"), MONTE_CARLO, ids=[c[0] for c in MONTE_CARLO]
)
def test_monte_carlo_agrees_with_exact(
    name: str, instance: StochasticInstance, budget: int, algorithm: str, params: AlgorithmParamValues
) -> None:
    """RUNS runs of the reference (random_stochastic_draw from spawned generators) against the exact error.

    Hoeffding: P(|p_hat - p| > sqrt(log(2 / 1e-6) / (2 RUNS))) <= 1e-6 for each case, so a correct
    engine fails one of the three with probability at most 3e-6; the seed is fixed, so the test is
    deterministic. Every probability is dyadic, so the noise realises phi_ij exactly.
    """
    exact = _error(instance, algorithm, budget, params)
    assert 0 < exact < 1, name  # a non-trivial comparison
    n_models, n_queries = instance.shape
    synchronized = ALGORITHMS[algorithm].synchronized
    wrong = 0
    for rng in np.random.default_rng(SEED).spawn(RUNS):
        stochastic_draw = random_stochastic_draw(rng, n_models, n_queries, synchronized=synchronized)
        wrong += select(instance, budget, algorithm, draw=stochastic_draw, **params).chosen not in instance.best
    bound = math.sqrt(math.log(2 / 1e-6) / (2 * RUNS))
    assert abs(wrong / RUNS - float(exact)) <= bound, (wrong / RUNS, float(exact), bound)


# -- limits and refusals ----------------------------------------------------------------------------

_P = [Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(3, 4)]
#: K = 4, L = 6 Bernoulli with every query's column law distinct (the phase DP's most work).
WIDE = StochasticInstance.bernoulli([[_P[(i * 7 + j * 3 + i * j) % 5] for j in range(6)] for i in range(4)])


@pytest.mark.parametrize("algorithm", PHASE_ALGORITHMS)
def test_k4_l6_bernoulli_is_within_the_limit(algorithm: str) -> None:
    """The target: K <= 4, L <= 6 Bernoulli laws, every budget (sizes only; times in the report)."""
    for budget in range(4, 25):
        assert phase_size(WIDE, algorithm, budget) <= DEFAULT_LIMIT
        assert enumeration_size(WIDE, algorithm, budget, **({"m": 1} if algorithm == "sysar" else {})) <= DEFAULT_LIMIT


def test_too_large_is_refused_with_its_size() -> None:
    big = StochasticInstance.bernoulli([[Fraction(1, 2)] * 12 for _ in range(6)])
    for algorithm in ("sysrs", "sr", "syucbe", "ucbe"):
        with pytest.raises(TooLargeToEnumerateError) as caught:
            error_probability(big, algorithm, 40)
        message = str(caught.value)
        assert "6 x 12 stochastic" in message and "budget 40" in message and "is fine" in message
    with pytest.raises(TooLargeToEnumerateError, match="over the limit of 10"):
        error_probability(WIDE, "sysrs", 12, limit=10)


def test_ucbe_lrf_is_refused() -> None:
    noisy = StochasticInstance.bernoulli([[Fraction(1, 2)] * 3] * 2)
    with pytest.raises(ParameterError, match="no exact law"):
        error_probability(noisy, "ucbe-lrf", 4)
    with pytest.raises(ParameterError, match="does not run on stochastic instances"):
        select(noisy, 4, "ucbe-lrf")
