"""The UCB-E / SyUCB-E fast path (sysrs_ref.fast._ucb) gives exactly the reference's outcomes."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, drive
from sysrs_ref.algorithms.params import Exploration
from sysrs_ref.algorithms.ucb_index import compare_indices
from sysrs_ref.errors import DrawError
from sysrs_ref.fast import KERNELS, DrawBatch, ScoreTable, random_draws, run_fast, score_table
from sysrs_ref.fast._kernel import Chunk
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast._ucb import _counts, run_view, syucbe_kernel, ucb_outcomes, ucbe_kernel
from sysrs_ref.fast._ucb_exact import Bounds, RunView, _window, bounds_for, count_above
from sysrs_ref.fast._ucb_runs import Runs, Setup, Workspace
from tests.real_data import real
from tests.strategies import (
    UcbProblem,
    decimal_matrices,
    draws_for,
    exploration_values,
    instances,
    key_rows,
    ucb_problems,
)

SYNCHRONIZED = {"ucbe": False, "syucbe": True}


def reference(problem: UcbProblem) -> Chunk:
    instance, name, draws, a, budgets = problem
    return reference_kernel(name)(score_table(instance), budgets, draws, True, Exploration(a))


def assert_same(fast: Chunk, ref: Chunk) -> None:
    assert fast.ranking is not None and ref.ranking is not None
    assert np.array_equal(fast.ranking, ref.ranking), (fast.ranking.tolist(), ref.ranking.tolist())
    assert np.array_equal(fast.chosen, ref.chosen)
    assert np.array_equal(fast.spent, ref.spent)


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=300)
@given(ucb_problems())
def test_fast_equals_reference(problem: UcbProblem) -> None:
    instance, name, draws, a, budgets = problem
    expected = reference(problem)
    assert_same(KERNELS[name](score_table(instance), budgets, draws, True, Exploration(a)), expected)
    chosen = KERNELS[name](score_table(instance), budgets, draws, False, Exploration(a))
    assert chosen.ranking is None and np.array_equal(chosen.chosen, expected.chosen)


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("name", ["ucbe", "syucbe"])
def test_a_denominator_beyond_int64_is_compared_exactly(name: str) -> None:
    """Scores over 3^45 (> 2^62): the int64 rational comparison is not taken, and nothing overflows."""
    tiny = Fraction(1, 3**45)
    instance = Instance([[Fraction(0), tiny], [tiny, Fraction(0)]])  # the largest row sum is 1 over 3^45
    table = score_table(instance)
    assert table.denominator > 2**62 and not Setup(table, Fraction(1, 10), name == "syucbe").rational_int64
    draws = random_draws(4, 6, 2, 2, synchronized=SYNCHRONIZED[name])
    ref = reference((instance, name, draws, Fraction(1, 10), (2, 3, 4)))
    assert_same(KERNELS[name](table, (2, 3, 4), draws, True, Exploration(Fraction(1, 10))), ref)


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=150)
@given(ucb_problems(kind="binary", max_queries=20, a=Fraction(1)) | ucb_problems(kind="coarse", max_queries=12))
def test_exact_index_ties_on_binary_and_coarse_scores(problem: UcbProblem) -> None:
    # a = 1 on binary scores: 0 + sqrt(1/1) == 1/2 + sqrt(1/4) == 2/3 + sqrt(1/9) ... exact ties
    instance, _, draws, a, budgets = problem
    assert_same(ucb_outcomes(score_table(instance), budgets, draws, a), reference(problem))


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=150)
@given(ucb_problems(kind="binary", max_queries=16, a=Fraction(1)) | ucb_problems(), st.sampled_from([2.0**-10, 0.125]))
def test_audit_mode_resolves_everything_exactly(problem: UcbProblem, tolerance: float) -> None:
    # every cut through resolve_cut (wide windows: many exact comparisons), every chain of means
    # within the tolerance re-sorted exactly: still the reference's outcome
    instance, _, draws, a, budgets = problem
    fast = ucb_outcomes(score_table(instance), budgets, draws, a, tolerance=tolerance, certify=False)
    assert_same(fast, reference(problem))
    chosen = ucb_outcomes(score_table(instance), budgets, draws, a, ranking=False, tolerance=tolerance, certify=False)
    assert chosen.ranking is None and np.array_equal(chosen.chosen, fast.chosen)


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=300)
@given(
    ucb_problems(kind="binary", max_queries=16, a=Fraction(1))
    | ucb_problems(kind="coarse", max_queries=12)
    | ucb_problems(),
    st.sampled_from([2.0**-12, 2.0**-6, 0.125]),
)
def test_certification_stays_sound_with_wider_tolerances(problem: UcbProblem, tolerance: float) -> None:
    # The float certification of cuts (clear neighbours, equal band keys, no hidden new minimum
    # inside a band) must hold for any tolerance at least the proved one: widened, it is put to
    # work on every near tie these small instances have, and must still give the reference's outcome.
    instance, _, draws, a, budgets = problem
    expected = reference(problem)
    assert_same(ucb_outcomes(score_table(instance), budgets, draws, a, tolerance=tolerance), expected)
    # without the ranking only the chosen model's near ties are resolved: still the reference's choice
    chosen = ucb_outcomes(score_table(instance), budgets, draws, a, ranking=False, tolerance=tolerance)
    assert chosen.ranking is None and np.array_equal(chosen.chosen, expected.chosen)


def key_view(keys: np.ndarray, gap: float) -> RunView:
    """A RunView with only keys and the gap: all that _window reads."""
    zero = np.zeros(1)
    return RunView(
        None,  # type: ignore[arg-type]  # no table: _window reads only the keys and the gap
        Fraction(1),
        Bounds(gap, gap, means_exact=False),
        keys,
        keys,
        np.zeros((1, 1), np.int32),
        np.zeros(len(keys), np.int32),
        zero,
        zero,
        zero,
        np.zeros(1, np.int64),
    )


def chain_around(keys: np.ndarray, theta: float, gap: float) -> tuple[float, float]:
    values = sorted(set(keys.ravel().tolist()))
    low = high = values.index(theta)
    while low > 0 and values[low] - values[low - 1] <= gap:
        low -= 1
    while high < len(values) - 1 and values[high + 1] - values[high] <= gap:
        high += 1
    return values[low], values[high]


@given(key_rows, st.data())
def test_window_is_the_chain_of_keys_around_theta(rows: list[list[int]], data: st.DataObject) -> None:
    keys = np.array(rows, dtype=np.float64) / 64
    theta = float(data.draw(st.sampled_from(sorted(set(keys.ravel())))))
    gap = data.draw(st.sampled_from([1 / 32, 1 / 64, 1 / 128]))
    assert _window(key_view(keys, gap), theta) == chain_around(keys, theta, gap)


@pytest.mark.parametrize("gap", [1 / 64, 1 / 1024])
def test_window_grows_past_its_first_guess(gap: float) -> None:
    # 2001 keys spaced by gap: one chain, 30 times wider than the first window of 64 gaps
    keys = np.array([np.arange(2000, -1, -1), np.arange(2000, -1, -1) - 0.5]) * gap
    theta = float(keys[0, 700])
    assert _window(key_view(keys, gap), theta) == chain_around(keys, theta, gap) == (-0.5 * gap, 2000 * gap)


@given(key_rows, st.data())
def test_count_above_counts(rows: list[list[int]], data: st.DataObject) -> None:
    keys = np.array(rows, dtype=np.float64)
    row_ids = np.array(data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=1, max_size=6)), dtype=np.intp)
    theta = np.array(data.draw(st.lists(st.integers(-1, 101), min_size=len(row_ids), max_size=len(row_ids))), float)
    for strict in (True, False):
        expected = [sum((v > t) if strict else (v >= t) for v in rows[r]) for r, t in zip(row_ids, theta, strict=True)]
        assert count_above(keys, row_ids, theta, strict=strict).tolist() == expected


@settings(max_examples=100)
@given(ucb_problems(max_queries=10), st.data())
def test_one_pass_serves_every_budget(problem: UcbProblem, data: st.DataObject) -> None:
    instance, _, draws, a, budgets = problem
    table = score_table(instance)
    grid = ucb_outcomes(table, budgets, draws, a)
    assert grid.ranking is not None
    budget = data.draw(st.sampled_from(budgets))
    alone = ucb_outcomes(table, (budget,), draws, a)
    assert alone.ranking is not None
    column = budgets.index(budget)
    assert np.array_equal(alone.ranking[:, 0], grid.ranking[:, column])
    assert np.array_equal(alone.chosen[:, 0], grid.chosen[:, column])


@settings(max_examples=60)
@given(decimal_matrices, st.data())
def test_integer_scores_with_a_large_denominator(rows: list[list[float]], data: st.DataObject) -> None:
    # 0.1 is 3602879701896397 / 2^55: integer sums, but float means are not correctly rounded
    instance = Instance(rows)
    table = score_table(instance)
    n_models, n_queries = instance.shape
    assert (table.exact and not bounds_for(table, Fraction(1)).means_exact) or table.denominator == 1
    name = data.draw(st.sampled_from(sorted(SYNCHRONIZED)))
    runs = data.draw(st.lists(draws_for(n_models, n_queries, SYNCHRONIZED[name]), min_size=1, max_size=3))
    a = data.draw(exploration_values)
    budgets = tuple(range(n_models, n_models * n_queries + 1, 3)) + (n_models * n_queries,)
    problem = (instance, name, DrawBatch.from_draws(runs), a, budgets)
    assert_same(ucb_outcomes(table, budgets, problem[2], a), reference(problem))


def test_float_sums_that_differ_only_by_rounding() -> None:
    # Rows 0 and 1 hold the same floats in other orders: exact means equal, float cumsums not always.
    row = [0.1, 0.2, 0.3, 0.7, 0.6, 0.9]
    instance = Instance([row, row[::-1], [0.5, 0.4, 1e-300, 0.2, 0.3, 0.1]])
    table = score_table(instance)
    assert not table.exact
    draws = random_draws(7, 60, 3, 6, synchronized=False)
    sums = np.cumsum(np.asarray(instance.array)[np.arange(3)[None, :, None], draws.query_orders], axis=2)
    assert np.any(sums[:, 0, -1] != sums[:, 1, -1]), "the float sums should differ somewhere"
    budgets = (3, 9, 12, 15, 18)
    fast = ucbe_kernel(table, budgets, draws, True, Exploration(Fraction(1)))
    assert fast.exact_decisions > 0
    assert_same(fast, reference_kernel("ucbe")(table, budgets, draws, True, Exploration(Fraction(1))))


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_float_scores_whose_first_scores_tie_exactly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Float scores, each exactly its float (0.4 is not dyadic): arms whose first scores are equal have exactly
    # equal keys U(1) = s + sqrt(a), which small a keeps for many cells. Their cuts are certified from the floats
    # (Setup.first_exact) instead of resolved exactly: fewer exact decisions, still the reference's outcome.
    rows = np.random.default_rng(5).choice([0.0, 0.4, 1.0], size=(6, 12)).tolist()
    instance = Instance(rows)
    table = score_table(instance, prefer_float=True)
    assert not table.exact and table.floats_exact()
    draws = random_draws(3, 40, 6, 12, synchronized=SYNCHRONIZED[name])
    budgets, a = tuple(range(6, 73, 2)), Fraction(1, 10)
    fast = ucb_outcomes(table, budgets, draws, a)
    assert_same(fast, reference((instance, name, draws, a, budgets)))
    monkeypatch.setattr(ScoreTable, "floats_exact", lambda self: False)  # no shortcut: every such cut resolved
    without = ucb_outcomes(score_table(instance, prefer_float=True), budgets, draws, a)
    assert_same(without, fast)
    assert fast.exact_decisions < without.exact_decisions


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=100)
@given(ucb_problems(kind="binary", max_queries=12, a=Fraction(1)) | ucb_problems(kind="coarse", max_queries=12))
def test_float_path_on_tied_scores(problem: UcbProblem) -> None:
    # the certified float path (equal first scores tie exactly when every score is its float) on scores with
    # many exact ties, against the reference
    instance, _, draws, a, budgets = problem
    assert_same(ucb_outcomes(score_table(instance, prefer_float=True), budgets, draws, a), reference(problem))


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_the_chosen_model_behind_a_tie_of_identical_models(name: str) -> None:
    # Models 0 and 1 are the same row; model 2 has 1e-300 more in all, which every float sum loses:
    # the three float means tie, 0 and 1 exactly, 2 only in floats. Exactly, model 2 is the best at
    # the full budget, also when 0 and 1 come first in the priority: without the ranking, the near
    # ties chained to the top (0 = 1, then 1 ~ 2) must still be resolved.
    row = [0.5, 0.25, 0.25, 0.0]
    instance = Instance([row, row, [0.5, 0.25, 0.25, 1e-300]])
    table = score_table(instance)
    assert not table.exact
    draws = random_draws(3, 30, 3, 4, synchronized=SYNCHRONIZED[name])
    assert any(draws.arm_priority[run].tolist()[2] == 2 for run in range(30))  # model 2 last in some runs
    for ranking in (True, False):
        chosen = KERNELS[name](table, (12,), draws, ranking, Exploration(Fraction(1))).chosen
        assert chosen.tolist() == [[2]] * 30


@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_integer_table_whose_denominator_overflows_a_float(name: str) -> None:
    # 5e-324 = 2^-1074: numerators 0, 1, 2 over D = 2^1074; N * D is no float, the float sums take over
    instance = Instance([[0.0, 1e-323, 5e-324], [5e-324, 5e-324, 0.0], [1e-323, 0.0, 0.0]])
    table = score_table(instance)
    assert table.exact and not bounds_for(table, Fraction(1)).integer
    draws = random_draws(2, 20, 3, 3, synchronized=SYNCHRONIZED[name])
    budgets = tuple(range(3, 10))
    problem = (instance, name, draws, Fraction(1), budgets)
    assert_same(ucb_outcomes(table, budgets, draws, Fraction(1)), reference(problem))


def test_a_hand_made_exact_index_tie() -> None:
    # After the warm-up model 1 (score 0) has U = 0 + 1; model 0 reaches 2/4 + sqrt(1/4) = 1 at count 4.
    instance = Instance([[1, 0, 0, 1, 1, 0], [0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]])
    order = (0, 1, 2, 3, 4, 5)
    table = score_table(instance)
    for priority in ((0, 1, 2), (1, 0, 2), (2, 1, 0)):
        draws = DrawBatch.from_draws([Draw((order,), priority)])
        budgets = tuple(range(3, 19))
        fast = syucbe_kernel(table, budgets, draws, True, Exploration(Fraction(1)))
        assert_same(fast, reference_kernel("syucbe")(table, budgets, draws, True, Exploration(Fraction(1))))


def fast_counts(table: ScoreTable, name: str, draws: DrawBatch, a: Fraction, budgets: tuple[int, ...]) -> np.ndarray:
    """Each model's evaluations in each run at each budget, (R, B, K), from the fast path's cut."""
    setup = Setup(table, a, SYNCHRONIZED[name])
    return _counts(Runs(setup, draws, Workspace(setup, draws.n_runs, SYNCHRONIZED[name])), budgets)


def reference_counts(
    instance: Instance, name: str, draws: DrawBatch, a: Fraction, budgets: tuple[int, ...]
) -> np.ndarray:
    """The same counts from the reference's requests."""
    out = np.zeros((draws.n_runs, len(budgets), instance.n_models), dtype=np.intp)
    for run in range(draws.n_runs):
        for column, budget in enumerate(budgets):
            outcome = drive(ALGORITHMS[name].start(budget, draws.draw(run), a=a), instance)
            for request in outcome.requests:
                out[run, column, request.model] += 1
    return out


def assert_same_counts_and_outcomes(instance: Instance, name: str, draws: DrawBatch, budgets: tuple[int, ...]) -> None:
    table, a = score_table(instance), Fraction(1)
    assert np.array_equal(
        fast_counts(table, name, draws, a, budgets), reference_counts(instance, name, draws, a, budgets)
    )
    assert_same(
        KERNELS[name](table, budgets, draws, True, Exploration(a)), reference((instance, name, draws, a, budgets))
    )


def all_priorities(name: str, n_models: int, n_queries: int) -> DrawBatch:
    """Every arm priority, each model's queries in order 0, 1, ... (one shared order when synchronized)."""
    order = tuple(range(n_queries))
    orders = (order,) if SYNCHRONIZED[name] else (order,) * n_models
    return DrawBatch.from_draws([Draw(orders, priority) for priority in itertools.permutations(range(n_models))])


@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_a_new_minimum_hidden_below_float_rounding(name: str) -> None:
    # Models 0 and 1 have the same row, so equal exact keys: a band of two arms. With a = 1,
    # U(1) = 0 + 1 and U(4) = (2 - 2^-52) / 4 + 1/2 = 1 - 2^-54, which rounds to 1.0: the float
    # keys stay flat where the exact key drops. Certifying that band by rank alone would put all
    # of one arm's band before the other's; the exact order interleaves them at the drop.
    row = [0.0, 1.0, 0.3125, 0.6875 - 2.0**-52, 0.0, 1.0]
    instance = Instance([row, row, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]])
    assert score_table(instance).exact and float(Fraction(2 - Fraction(1, 2**52), 4) + Fraction(1, 2)) == 1.0
    assert_same_counts_and_outcomes(instance, name, all_priorities(name, 3, 6), tuple(range(3, 19)))


@pytest.mark.parametrize("name", sorted(SYNCHRONIZED))
def test_float_keys_in_the_opposite_order_to_the_exact_ones(name: str) -> None:
    # Scores over D = 2^50, a = 1. Model 0's key after 2 scores summing to 2^49 / D, and model 1's
    # key after 5 scores summing to P / D (P = 2870443451321100; a block of 3 equal keys, as its
    # next scores are 1), differ by less than a float's rounding: float64 puts model 0's above,
    # exactly it is below. A cut next to either must not trust the floats (neither the nearest key
    # above theta nor the nearest below).
    big = 2870443451321100
    model1 = [0.5, 0.5, 0.5, 0.5, (big - 2**51) / 2**50, 1.0, 1.0, 0.0]
    instance = Instance([[0.25, 0.25, 0, 0, 0, 0, 0, 0], model1, [0.0] * 8])
    u0 = Fraction(2**49, 2 * 2**50), 2
    u1 = Fraction(big, 5 * 2**50), 5
    assert compare_indices(*u0, *u1, Fraction(1)) < 0  # exactly, model 0's key is below
    assert float(u0[0]) + (1 / 2) ** 0.5 > float(u1[0]) + (1 / 5) ** 0.5  # in floats, above
    assert_same_counts_and_outcomes(instance, name, all_priorities(name, 3, 8), tuple(range(3, 25)))


def test_registered_and_checked() -> None:
    assert KERNELS["ucbe"] is ucbe_kernel and KERNELS["syucbe"] is syucbe_kernel
    table = score_table(Instance([[1, 0], [0, 1]]))
    with pytest.raises(DrawError, match="synchronized"):
        syucbe_kernel(table, (2,), random_draws(0, 1, 2, 2, synchronized=False), True, Exploration(Fraction(1)))


def test_extreme_exploration_falls_back_to_the_reference() -> None:
    instance = Instance([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    draws = random_draws(3, 4, 3, 3, synchronized=True)
    for a in (Fraction(1, 2**1001), Fraction(2**1001)):
        fast = syucbe_kernel(score_table(instance), (3, 5, 9), draws, True, Exploration(a))
        assert_same(fast, reference_kernel("syucbe")(score_table(instance), (3, 5, 9), draws, True, Exploration(a)))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("dataset", "percents"), [("gsm", (1, 2, 4)), ("narrative_qa", (2, 5, 8)), ("math", (2, 5, 8))]
)
def test_real_data_equals_reference(dataset: str, percents: tuple[int, ...]) -> None:
    instance = real(dataset)
    table = score_table(instance)
    n_models, n_queries = instance.shape
    budgets = tuple(p * n_models * n_queries // 100 for p in percents)
    for seed, name in enumerate(sorted(SYNCHRONIZED)):  # 20 runs of each algorithm
        draws = random_draws(seed, 20, n_models, n_queries, synchronized=SYNCHRONIZED[name])
        fast = run_fast(table, name, budgets, draws, a=1)
        ref = reference_kernel(name)(table, budgets, draws, True, Exploration(Fraction(1)))
        assert fast.ranking is not None and ref.ranking is not None
        assert np.array_equal(fast.ranking, ref.ranking)
        assert np.array_equal(fast.chosen, ref.chosen)
        assert np.array_equal(fast.spent, np.broadcast_to(ref.spent, fast.spent.shape))


@settings(max_examples=60)
@given(instances(max_models=3, max_queries=5), st.integers(min_value=0, max_value=2**32 - 1), st.booleans())
def test_indices_at_one_count_compare_as_their_exact_sums(instance: Instance, seed: int, synchronized: bool) -> None:
    """At equal counts the roots cancel: RunView.compare is the sign of the exact means' difference (taken on the
    integer sums), one exact decision each, on float and integer scores alike."""
    for prefer_float in (False, True):
        table = score_table(instance, prefer_float=prefer_float)
        draws = random_draws(seed, 1, table.n_models, table.n_queries, synchronized=synchronized)
        view = run_view(table, draws, Fraction(1, 3))
        orders = draws.query_orders[0]
        for count in range(1, table.n_queries + 1):
            for arm1, arm2 in itertools.product(range(table.n_models), repeat=2):
                means = [
                    table.exact_mean(arm, orders[0 if synchronized else arm, :count].tolist()) for arm in (arm1, arm2)
                ]
                before = view.decisions
                sign = view.compare(arm1, count, arm2, count)
                assert sign == (means[0] > means[1]) - (means[0] < means[1])
                trivial = view.bounds.integer and means[0] == means[1]
                assert view.decisions == before + (0 if trivial else 1)
