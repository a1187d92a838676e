"""The fast SR, SySRs, US and SyUS kernels give exactly the reference's outcomes.

Independent reference: :func:`sysrs_ref.fast._reference_kernel.reference_kernel`
drives the pure-Python step generators (exact Fractions) once per run and
budget. The fast kernels share nothing with it but the schedule.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Draw, Instance
from sysrs_ref.algorithms.params import NoParams
from sysrs_ref.fast import DrawBatch, compiled, random_draws, run_fast, score_table
from sysrs_ref.fast._kernel import prefix_at
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast._table import ScoreTable
from tests.real_data import real
from tests.strategies import draws_for, fast_cases, instances

FAST_HERE = ("us", "syus", "sr", "sysrs")
SYNCHRONIZED = {"us": False, "syus": True, "sr": False, "sysrs": True}


def assert_same_as_reference(table: ScoreTable, name: str, budgets: tuple[int, ...], draws: DrawBatch) -> int:
    """Compare every field of every run at every budget; return the exact decisions taken."""
    fast = run_fast(table, name, budgets, draws)
    ref = reference_kernel(name)(table, budgets, draws, True, NoParams())
    assert fast.ranking is not None and ref.ranking is not None
    for run in range(draws.n_runs):
        for column, budget in enumerate(budgets):
            got = fast.outcome(run, column)
            want = (
                int(ref.chosen[run, column]),
                tuple(int(m) for m in ref.ranking[run, column]),
                int(ref.spent[column]),
            )
            assert got == want, f"{name} run {run} budget {budget}: fast {got} != reference {want}"
            assert got[2] <= budget
    return fast.exact_decisions


@pytest.mark.slow
@pytest.mark.usefixtures("backend")
@settings(max_examples=300)
@given(fast_cases(FAST_HERE), st.booleans())
def test_fast_equals_reference(case: tuple[Instance, str, tuple[int, ...], DrawBatch], prefer_float: bool) -> None:
    """Binary, coarse and float scores with duplicate rows; integer and certified float paths."""
    instance, name, budgets, draws = case
    assert_same_as_reference(score_table(instance, prefer_float=prefer_float), name, budgets, draws)


@pytest.mark.slow
@settings(max_examples=200)
@given(
    instances(max_models=5, max_queries=12),
    st.booleans(),
    st.data(),
    st.integers(1, 400),
    st.booleans(),
)
def test_prefix_at_equals_naive_running_sums(
    instance: Instance, synchronized: bool, data: st.DataObject, block_bytes: int, prefer_float: bool
) -> None:
    """prefix_at at any counts and block size, compiled or in numpy: exact on integer tables (scaled, and offset per
    run and model when asked: SR's keys), within the certified bound on floats."""
    n_models, n_queries = instance.shape
    table = score_table(instance, prefer_float=prefer_float)
    runs = data.draw(st.lists(draws_for(n_models, n_queries, synchronized), min_size=1, max_size=3))
    draws = DrawBatch.from_draws(runs)
    counts = sorted(data.draw(st.sets(st.integers(1, n_queries), min_size=1)))
    scale = data.draw(st.sampled_from([1, n_models])) if table.exact else 1
    offsets = None
    if table.exact and data.draw(st.booleans(), label="offsets"):
        offsets = np.array(
            data.draw(st.lists(st.integers(-50, 50), min_size=n_models * len(runs), max_size=n_models * len(runs))),
            dtype=np.int64,
        ).reshape(len(runs), n_models)
    with compiled.numpy_only() if data.draw(st.booleans(), label="numpy only") else contextlib.nullcontext():
        got = prefix_at(table, draws, counts, scale=scale, block_bytes=block_bytes, offsets=offsets)
    for run in range(draws.n_runs):
        for model in range(n_models):
            order = draws.query_orders[run, 0 if synchronized else model]
            for slab, count in enumerate(counts):
                exact = table.exact_sum(model, order[:count].tolist())
                if table.exact:
                    assert got[slab, run, model] == scale * exact + (0 if offsets is None else offsets[run, model])
                else:
                    value, approx = Fraction(exact, table.denominator), Fraction(float(got[slab, run, model]))
                    # certify.py's bound on one sum: (N + 1) 2^-52 times the sum
                    assert abs(approx - value) <= (count + 1) * Fraction(1, 2**52) * max(value, approx)


@pytest.mark.parametrize("name", FAST_HERE)
def test_float_path_resolves_ties_exactly(name: str) -> None:
    """Binary scores forced through the float path: ties everywhere, each settled exactly."""
    rng = np.random.default_rng(11)
    instance = Instance((rng.random((6, 12)) < 0.5).astype(float))
    draws = random_draws(3, 30, 6, 12, synchronized=SYNCHRONIZED[name])
    table = score_table(instance, prefer_float=True)
    assert not table.exact
    budgets = (6, 20, 40, 72)
    assert_same_as_reference(table, name, budgets, draws)


def test_near_tie_below_float_resolution_is_decided_exactly() -> None:
    """Sums that differ by 2^-60, below float64 rounding of 0.5: the exact order wins."""
    tiny = 2.0**-60
    assert 0.5 + tiny == 0.5  # in float64 the two sums below are equal
    instance = Instance([[0.5, tiny, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
    table = score_table(instance)
    assert not table.exact  # D = 2^60 does not fit: the certified float path
    # priority prefers model 1, so a float tie would wrongly pick it
    draws = DrawBatch.from_draws([Draw(((0, 1, 2),), (1, 0, 2))])
    for name in ("sysrs", "syus"):
        fast = run_fast(table, name, (9,), draws)
        assert fast.chosen[0, 0] == 0, name
        assert fast.exact_decisions >= 1
    assert_same_as_reference(table, "sysrs", (9,), draws)


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["math", "narrative_qa", "commonsense"])
@pytest.mark.parametrize("name", FAST_HERE)
def test_real_matrices(dataset: str, name: str) -> None:
    """12 runs at 3 budgets on real matrices (narrative_qa: F1 floats, the certified path)."""
    instance = real(dataset)
    n_models, n_queries = instance.shape
    budgets = tuple(p * n_models * n_queries // 100 for p in (5, 15, 35))
    draws = random_draws(2026, 12, n_models, n_queries, synchronized=SYNCHRONIZED[name])
    assert_same_as_reference(score_table(instance), name, budgets, draws)


def test_budget_grid_is_common_random_numbers() -> None:
    """Each budget of a grid gives what a grid of that budget alone gives (same draws)."""
    rng = np.random.default_rng(5)
    instance = Instance((rng.random((7, 30)) < 0.6).astype(int))
    for name in FAST_HERE:
        draws = random_draws(9, 20, 7, 30, synchronized=SYNCHRONIZED[name])
        grid = (7, 30, 77, 150, 210)
        together = run_fast(instance, name, grid, draws)
        for column, budget in enumerate(grid):
            alone = run_fast(instance, name, (budget,), draws)
            assert np.array_equal(together.chosen[:, column], alone.chosen[:, 0])
            assert together.ranking is not None and alone.ranking is not None
            assert np.array_equal(together.ranking[:, column], alone.ranking[:, 0])


def test_chunking_does_not_change_results() -> None:
    rng = np.random.default_rng(6)
    instance = Instance(rng.integers(0, 4, (5, 9)) / 4)
    draws = random_draws(1, 23, 5, 9, synchronized=True)
    whole = run_fast(instance, "sysrs", (5, 20, 45), draws)
    pieces = run_fast(instance, "sysrs", (5, 20, 45), draws, chunk=4)
    assert np.array_equal(whole.chosen, pieces.chosen)
    assert whole.ranking is not None and pieces.ranking is not None
    assert np.array_equal(whole.ranking, pieces.ranking)


def test_random_draws_match_random_draw() -> None:
    """random_draws(seed) is R successive random_draw calls on default_rng(seed)."""
    from sysrs_ref import random_draw

    for synchronized in (True, False):
        gen = np.random.default_rng(44)
        expected = [random_draw(gen, 6, 17, synchronized=synchronized) for _ in range(5)]
        batch = random_draws(44, 5, 6, 17, synchronized=synchronized)
        assert [batch.draw(r) for r in range(5)] == expected


def test_bad_inputs_are_refused() -> None:
    instance = Instance([[1, 0], [0, 1]])
    sync = random_draws(0, 2, 2, 2, synchronized=True)
    with pytest.raises(ValueError, match="synchronized"):
        run_fast(instance, "sysrs", (3,), random_draws(0, 2, 2, 2, synchronized=False))
    with pytest.raises(ValueError, match="at least the number of models"):
        run_fast(instance, "sysrs", (1,), sync)
    with pytest.raises(ValueError, match="at most K\\*L"):
        run_fast(instance, "sysrs", (5,), sync)
    with pytest.raises(ValueError, match="unknown algorithm"):
        run_fast(instance, "nope", (3,), sync)
    with pytest.raises(ValueError, match="permutation"):
        DrawBatch(np.array([[[0, 0]]]), np.array([[0, 1]]))
    with pytest.raises(ValueError, match="draws are for"):
        run_fast(Instance([[1, 0, 1], [0, 1, 1]]), "sysrs", (3,), sync)


@settings(max_examples=100)
@given(instances(max_models=4, max_queries=6))
def test_int64_numerators_are_the_exact_ones_or_none(instance: Instance) -> None:
    """numerators64 holds every N_ij of the float path exactly (the numerators over the common denominator), or is
    None when the denominator is 2^63 or more or the table is over NUMERATOR_BYTES; the kernels' exact decisions
    rest on it."""
    table = score_table(instance, prefer_float=True)
    numerators = table.numerators64()
    if table.denominator >= 2**63:
        assert numerators is None
        return
    assert numerators is not None and numerators.dtype == np.int64 and not numerators.flags.writeable
    assert [tuple(row) for row in numerators.tolist()] == [table.numerator_row(m) for m in range(table.n_models)]


def test_int64_numerators_stop_at_their_byte_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose int64 numerators would take more than NUMERATOR_BYTES gets none (the kernels then decide its
    ties as without them), and the outcome stays the reference's."""
    import sysrs_ref.fast._table as table_module

    instance = Instance([[0.1, 0.2, 0.7], [0.3, 0.0, 0.7], [0.3, 0.0, 0.5]])
    monkeypatch.setattr(table_module, "NUMERATOR_BYTES", 8 * 9 - 1)
    table = score_table(instance, prefer_float=True)
    assert table.numerators64() is None
    draws = random_draws(2, 12, 3, 3, synchronized=True)
    fast = run_fast(table, "sysrs", (3, 5, 7, 9), draws)
    want = reference_kernel("sysrs")(table, (3, 5, 7, 9), draws, True, NoParams())
    assert np.array_equal(fast.chosen, want.chosen)


@settings(max_examples=100)
@given(instances(max_models=5, max_queries=4), st.lists(st.integers(min_value=0, max_value=4), max_size=4))
def test_row_classes_are_the_first_model_with_the_same_exact_row(instance: Instance, copies: list[int]) -> None:
    """row_classes maps each model to the first one whose row holds exactly the same scores (rows copied to make
    classes); it is made once and read-only (every SyUCB-E call on the table shares it)."""
    rows = [list(row) for row in instance.rows]
    rows += [rows[index % len(rows)] for index in copies]
    table = score_table(Instance(rows), prefer_float=True)
    exact = [table.numerator_row(model) for model in range(table.n_models)]
    classes = table.row_classes()
    assert classes.tolist() == [exact.index(row) for row in exact]
    assert not classes.flags.writeable and table.row_classes() is classes


def test_a_grids_elimination_plan_is_shared_and_read_only() -> None:
    """The schedules' slabs of a grid are worked out once and shared by every chunk of runs: the arrays are
    read-only, and they are the schedules' own (slot -1 before anything is seen)."""
    from sysrs_ref.fast._elimination import _plan
    from sysrs_ref.schedule import schedule

    plan = _plan(4, 6, (4, 9, 24))
    assert _plan(4, 6, (4, 9, 24)) is plan
    assert not plan.slots.flags.writeable and not plan.spent.flags.writeable
    for row, budget in zip(plan.slots.tolist(), (4, 9, 24), strict=True):
        lengths = schedule(4, 6, budget)
        assert [plan.counts[slot] if slot >= 0 else 0 for slot in row] == list(lengths)


@settings(max_examples=100)
@given(st.integers(0, 2**32), st.integers(1, 6), st.integers(2, 6), st.integers(1, 8), st.booleans(), st.data())
def test_a_chunk_is_its_runs_with_their_ranks(
    seed: int, n_runs: int, n_models: int, n_queries: int, synchronized: bool, data: st.DataObject
) -> None:
    """A chunk of a batch holds its runs' orders, priorities and ranks (each run's priority inverted), read-only."""
    batch = random_draws(seed, n_runs, n_models, n_queries, synchronized=synchronized)
    start = data.draw(st.integers(0, n_runs - 1))
    stop = data.draw(st.integers(start + 1, n_runs))
    part = batch.chunk(start, stop)
    assert np.array_equal(part.query_orders, batch.query_orders[start:stop])
    assert np.array_equal(part.arm_priority, batch.arm_priority[start:stop])
    for run in range(stop - start):
        assert part.rank[run, part.arm_priority[run]].tolist() == list(range(n_models))
    assert not any(array.flags.writeable for array in (part.query_orders, part.arm_priority, part.rank))
