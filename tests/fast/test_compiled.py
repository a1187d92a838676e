"""The compiled passes (C, through sysrs_ref.fast._compiled) compute exactly what the numpy passes compute.

Every pass is compared with its numpy counterpart on the same inputs, array for
array, and every kernel's outcome with the compiled passes on and off; the
fast paths' own tests compare both with the reference. The README's install
builds the passes (sysrs_ref/fast/_csrc), and tests/fast/test_native_build.py
fails where they were not built, so these tests run wherever the suite runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from typing import Any
from unittest import mock

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Instance, random_draw
from sysrs_ref.algorithms.params import NoParams
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import KERNELS, DrawBatch, _compiled, _elimination, _ucb, compiled, score_table
from sysrs_ref.fast._batch import simulation_draws
from sysrs_ref.fast._elimination import phase_sums
from sysrs_ref.fast._kernel import prefix_at
from sysrs_ref.fast._table import ScoreTable
from sysrs_ref.fast._ucb import _cut, _order_statistics
from sysrs_ref.fast._ucb_exact import RunView, count_above, resolve_cut
from sysrs_ref.fast._ucb_runs import Runs, Setup, Workspace
from tests.backends import assert_same_outcome
from tests.strategies import (
    blocky_keys,
    draws_for,
    fast_cases,
    instances,
    mean_tables,
    nonincreasing_keys,
    permutation_cases,
)

MODULE = _compiled.library()
pytestmark = pytest.mark.skipif(
    MODULE is None, reason="the compiled passes were not built here (see test_native_build)"
)

FloatArray = npt.NDArray[np.float64]


@pytest.mark.slow
@settings(max_examples=200)
@given(instances(max_models=5, max_queries=9), st.booleans(), st.data())
def test_ucb_keys_are_numpys(instance: Instance, synchronized: bool, data: st.DataObject) -> None:
    """Prefix sums and keys (running minima of the indices) equal numpy's, bit for bit, on integer and float tables."""
    table = score_table(instance)
    n_models, n_queries = instance.shape
    runs = data.draw(st.lists(draws_for(n_models, n_queries, synchronized), min_size=1, max_size=3))
    draws = DrawBatch.from_draws(runs)
    a = data.draw(st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(7, 3), Fraction(100)]))
    setup = Setup(table, a, synchronized)
    fast = Runs(setup, draws, Workspace(setup, len(runs), synchronized))
    if setup.integer:  # the compiled sweep reads the compact integers: no int64 copy of the table (8 bytes a cell)
        assert "values" not in vars(setup)
    with compiled.numpy_only():
        plain = Runs(setup, draws, Workspace(setup, len(runs), synchronized))
    assert fast.prefix.dtype == plain.prefix.dtype
    assert np.array_equal(fast.prefix, plain.prefix)
    assert np.array_equal(fast.keys, plain.keys)


@pytest.mark.slow
@settings(max_examples=200)
@given(instances(max_models=5, min_queries=3, max_queries=9), st.booleans(), st.data())
def test_both_backends_leave_the_same_cuts_to_exact_resolution(
    instance: Instance, synchronized: bool, data: st.DataObject
) -> None:
    """The numpy certification settles exactly the cuts the compiled one settles (same pulls, same theta sent to
    resolve_cut), with the same cells: an uncertified cut costs exact arithmetic, so a backend that certifies less
    is slower (the numpy one once certified almost nothing when its prefix sums were int32)."""
    table = score_table(instance)
    n_models, n_queries = instance.shape
    runs = data.draw(st.lists(draws_for(n_models, n_queries, synchronized), min_size=1, max_size=3))
    draws = DrawBatch.from_draws(runs)
    a = data.draw(st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(100)]))
    total = n_models * (n_queries - 1)
    pulls = np.array(sorted(data.draw(st.sets(st.integers(1, total - 1), min_size=1, max_size=4))), dtype=np.intp)
    setup = Setup(table, a, synchronized)
    made = Runs(setup, draws, Workspace(setup, len(runs), synchronized))
    fast, fast_resolved = _cut_and_resolved(made, pulls)
    with compiled.numpy_only():
        plain, plain_resolved = _cut_and_resolved(made, pulls)
    assert np.array_equal(fast, plain)
    assert fast_resolved == plain_resolved


def _cut_and_resolved(runs: Runs, pulls: npt.NDArray[np.intp]) -> tuple[npt.NDArray[np.intp], list[tuple[int, float]]]:
    """_cut's cells, and the (pulls, theta) of every cut it sent to exact resolution, sorted."""
    resolved: list[tuple[int, float]] = []
    real = resolve_cut

    def spy(view: RunView, wanted: int, theta: float) -> npt.NDArray[np.intp]:
        resolved.append((wanted, theta))
        return real(view, wanted, theta)

    with mock.patch.object(_ucb, "resolve_cut", spy):
        cells = _cut(runs, pulls)
    return cells, sorted(resolved)


def _assert_select_is_sorting(
    keys: FloatArray,
    stops: npt.NDArray[np.int64],
    pulls: npt.NDArray[np.int64],
    selected: tuple[FloatArray, npt.NDArray[np.intp], npt.NDArray[np.intp], _compiled.CutFacts],
) -> None:
    """ucb_select's answers are sorting's on the keys made (row i of run r: its first ``stops[r, i]``, nonincreasing):
    theta the pulls-th largest, above / upto the keys > / >= it by row, theta's nearest keys either side, the keys
    above it in all and the band arms (rows with keys at theta), the first of them listed by row."""
    theta, above, upto, facts = selected
    for run in range(keys.shape[0]):
        rows = [keys[run, model, : stops[run, model]] for model in range(keys.shape[1])]
        assert all(np.all(row[1:] <= row[:-1]) for row in rows)
        descending = np.sort(np.concatenate(rows))[::-1]
        values = descending[pulls - 1]
        assert theta[run].tolist() == values.tolist()
        # a nonincreasing row's keys > v are the first searchsorted(-row, -v, "left") of it, those >= v "right"
        greater = np.array([np.searchsorted(-row, -values, side="left") for row in rows]).T
        at_least = np.array([np.searchsorted(-row, -values, side="right") for row in rows]).T
        assert above[run].tolist() == greater.tolist()
        assert upto[run].tolist() == at_least.tolist()
        for column in range(len(pulls)):
            bigger, smaller = int(greater[column].sum()), int(at_least[column].sum())
            assert facts.nearest[run, column, 0] == (descending[bigger - 1] if bigger else np.inf)
            assert facts.nearest[run, column, 1] == (descending[smaller] if smaller < len(descending) else -np.inf)
            band = np.flatnonzero(upto[run, column] > above[run, column])
            assert facts.sizes[run, column].tolist() == [above[run, column].sum(), len(band)]
            listed = min(len(band), facts.bands.shape[2])
            assert facts.bands[run, column, :listed].tolist() == band[:listed].tolist()


@pytest.mark.slow
@settings(max_examples=400)
@given(nonincreasing_keys(), st.booleans())
def test_ucb_select_finds_the_order_statistics(
    case: tuple[FloatArray, npt.NDArray[np.int64], FloatArray], binned: bool
) -> None:
    """theta is the pulls-th largest key (by sorting), above / upto count the keys > / >= it, whatever the guesses,
    from the guesses' bracket or the histogram's."""
    keys, pulls, memory = case
    assert MODULE is not None
    whole = np.full(keys.shape[:2], keys.shape[2], dtype=np.int64)
    _assert_select_is_sorting(keys, whole, pulls, _compiled.ucb_select(MODULE, keys, pulls, memory.copy(), binned))


@settings(max_examples=150)
@given(blocky_keys(), st.booleans())
def test_ucb_select_counts_keys_in_long_blocks(
    case: tuple[FloatArray, npt.NDArray[np.int64], npt.NDArray[np.int64], FloatArray], binned: bool
) -> None:
    """On rows of long runs of equal keys, each made only to its stop, the answers are sorting's on the keys made:
    the histogram's block search that passes over equal keys a stretch at a time, the quickselect over theta's bin's
    blocks weighted by their lengths and each model's block search against every theta lose nothing."""
    keys, stops, pulls, memory = case
    assert MODULE is not None
    selected = _compiled.ucb_select(MODULE, keys, pulls, memory.copy(), binned, stops=stops)
    _assert_select_is_sorting(keys, stops, pulls, selected)


@pytest.mark.parametrize(("n_models", "width", "n_bins"), [(40, 4000, 8192), (16, 65600, 65536)])
def test_ucb_select_is_sorting_with_more_bins(n_models: int, width: int, n_bins: int) -> None:
    """With more keys times budgets a run than 4096 bins hold at 4096 each, the histogram takes more bins (8192 here,
    then the most, 65536: a bin's number still fits its 16 bits), and the answers are still sorting's: normal keys
    rounded to hundredths (long blocks of equal keys where they are dense, short ones in the tails), 150 budgets from
    one key to nearly all of them."""
    rng = np.random.default_rng(11)
    keys = -np.sort(-np.round(rng.standard_normal((1, n_models, width)), 2), axis=2)
    stops = np.full((1, n_models), width, dtype=np.int64)
    cells = n_models * width
    pulls = np.concatenate([[1, 2, 3, 10, 100], np.linspace(1000, cells - 1, 145)]).astype(np.int64)
    assert len(np.unique(pulls)) == 150 and n_bins // 2 * 4096 < cells * 150 <= n_bins * 4096 * (n_bins // 65536 + 1)
    memory = np.full((2, len(pulls)), np.nan)
    assert MODULE is not None and len(pulls) >= _compiled.BINNED_FROM
    _assert_select_is_sorting(keys, stops, pulls, _compiled.ucb_select(MODULE, keys, pulls, memory, True))


def test_ucb_select_is_the_numpy_cut_on_real_keys() -> None:
    """On a real matrix's keys, the compiled order statistics equal numpy's partition and binary searches."""
    table = score_table(load_dataset("mmlu"))
    setup = Setup(table, Fraction(1), False)
    draws = simulation_draws(3, 0, 6, table.n_models, table.n_queries, synchronized=False)
    runs = Runs(setup, draws, Workspace(setup, draws.n_runs, False))
    pulls = np.array([5, 4000, 20000], dtype=np.intp)  # fewer than BINNED_FROM: the bracket from the guesses
    assert len(pulls) < _compiled.BINNED_FROM
    many = np.unique(np.linspace(1, 40000, _compiled.BINNED_FROM + 4).astype(np.intp))  # the binned bracket
    for wanted in (pulls, many):
        shape = (draws.n_runs, len(wanted), table.n_models)
        rows = np.broadcast_to(np.arange(shape[0] * shape[2]).reshape(shape[0], 1, shape[2]), shape)
        fast = _order_statistics(runs, wanted, rows)
        with compiled.numpy_only():
            plain = _order_statistics(runs, wanted, rows)
        for mine, numpys in zip(fast, plain, strict=True):
            assert np.array_equal(mine, numpys)


@settings(max_examples=200)
@given(nonincreasing_keys(), st.booleans(), st.data())
def test_count_above_is_numpys(
    case: tuple[FloatArray, npt.NDArray[np.int64], FloatArray], strict: bool, data: st.DataObject
) -> None:
    """The compiled count of a row's entries above theta is the numpy binary search's, on sorted rows and on rows
    that are not (NaN and unsorted entries too: the same steps, so the same counts); and it is the true count on a
    sorted row."""
    keys, _, _ = case
    rows = keys.reshape(-1, keys.shape[2])
    if data.draw(st.booleans(), label="unsorted, with a NaN"):
        rows = rows[:, ::-1].copy()
        rows[0, 0] = np.nan
    asked = data.draw(st.lists(st.integers(0, len(rows) - 1), min_size=0, max_size=8), label="rows")
    row_ids = np.array(asked, dtype=np.intp)
    values = st.one_of(st.floats(-3.0, 4.0, allow_nan=False), st.sampled_from(rows.reshape(-1).tolist()))
    theta = np.array(data.draw(st.lists(values, min_size=len(asked), max_size=len(asked)), label="theta"))
    assert MODULE is not None
    mine = _compiled.count_above(MODULE, rows, row_ids, theta, strict)
    with compiled.numpy_only():
        plain = count_above(rows, row_ids, theta, strict=strict)
    assert mine.tolist() == plain.tolist()
    if not np.isnan(rows).any():
        truth = [
            int(((rows[i] > t) if strict else (rows[i] >= t)).sum()) for i, t in zip(asked, theta.tolist(), strict=True)
        ]
        assert mine.tolist() == truth


@pytest.mark.slow
@settings(max_examples=200)
@given(instances(max_models=5, max_queries=9, kind="binary"), st.booleans(), st.data())
def test_prefix_at_is_numpys(instance: Instance, synchronized: bool, data: st.DataObject) -> None:
    """Integer sums at chosen counts equal numpy's (synchronized: query-major columns; otherwise row by row)."""
    table = score_table(instance)
    n_models, n_queries = instance.shape
    draws = DrawBatch.from_draws(
        data.draw(st.lists(draws_for(n_models, n_queries, synchronized), min_size=1, max_size=3))
    )
    counts = sorted(data.draw(st.sets(st.integers(1, n_queries), min_size=1)))
    scale = data.draw(st.sampled_from([1, n_models]))
    fast = prefix_at(table, draws, counts, scale=scale)
    with compiled.numpy_only():
        plain = prefix_at(table, draws, counts, scale=scale)
    assert fast.dtype == plain.dtype and np.array_equal(fast, plain)


@pytest.mark.slow
@settings(max_examples=300)
@given(fast_cases(("sr", "sysrs", "us", "syus", "ucbe", "syucbe", "sar", "sysar")))
def test_every_kernel_gives_numpys_outcome(case: tuple[Instance, str, tuple[int, ...], DrawBatch]) -> None:
    """Every fast kernel: the same choices, rankings, spends and exact decisions with the compiled passes on and off."""
    instance, name, budgets, draws = case
    params = ALGORITHMS[name].parse_params({"a": "1"} if "ucb" in name else {})
    table = score_table(instance)
    fast = KERNELS[name](table, budgets, draws, True, params)
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, True, params)
    assert_same_outcome(fast, plain)


@pytest.mark.parametrize("name", ["sr", "sysrs"])
@pytest.mark.parametrize(
    "rows", [[[1, 0, 1], [0, 1, 1], [1, 1, 0]], [[0.1, 0.2, 1e-300], [0.3, 0.0, 0.0], [0.2, 0.1, 0.0]]]
)
def test_a_budget_of_k_alone_sees_no_score(name: str, rows: list[list[float]]) -> None:
    """Budget K alone (every n_k is 0: no prefix sums at all, on integer or float tables): priority decides every
    phase, with the compiled passes as with numpy."""
    instance = Instance(rows)
    table = score_table(instance)
    draws = simulation_draws(2, 0, 8, 3, 3, synchronized=name == "sysrs")
    fast = KERNELS[name](table, (3,), draws, True, NoParams())
    with compiled.numpy_only():
        plain = KERNELS[name](table, (3,), draws, True, NoParams())
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)
    assert fast.chosen[:, 0].tolist() == draws.arm_priority[:, 0].tolist()  # nothing seen: the first in priority


@pytest.mark.parametrize("name", ["sr", "sysrs"])
def test_eliminations_over_long_runs_of_one_slab_are_numpys(name: str) -> None:
    """SR on 60 real models: early phases share n_k for tens of phases, late ones change it every phase; every
    winner and elimination order is numpy's, phase by phase."""
    instance = Instance(np.asarray(load_dataset("ifeval").array)[:60, :90])
    table = score_table(instance)
    draws = simulation_draws(5, 0, 12, 60, 90, synchronized=name == "sysrs")
    budgets = (60, 61, 200, 540, 1000, 2700, 5400)
    fast = KERNELS[name](table, budgets, draws, True, NoParams())
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, True, NoParams())
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)


def _eliminations_by_hand(keys: np.ndarray, slots: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Per run and budget: the winner, then the eliminated models, last first; each phase's smallest active key goes
    (before anything is seen, the active model latest in the priority)."""
    n_runs, n_models = rank.shape
    out = np.empty((n_runs, len(slots), n_models), dtype=np.int32)
    for run in range(n_runs):
        for budget, row in enumerate(slots.tolist()):
            active = list(range(n_models))
            for phase, slot in enumerate(row):
                if slot < 0:
                    worst = max(active, key=lambda model: rank[run, model])
                else:
                    worst = min(active, key=lambda model: keys[slot, run, model])
                out[run, budget, n_models - 1 - phase] = worst
                active.remove(worst)
            out[run, budget, 0] = active[0]
    return out


@settings(max_examples=100)
@given(
    st.integers(min_value=2, max_value=6),
    st.integers(min_value=1, max_value=3),
    st.sampled_from([np.int32, np.int64]),
    st.booleans(),
    st.data(),
)
def test_compiled_eliminations_follow_the_smallest_key(
    n_models: int, n_runs: int, dtype: type, named: bool, data: st.DataObject
) -> None:
    """The compiled SR eliminations take each phase's smallest active key, whether the keys are SR's own
    ``P K + (K - 1 - rank)``, whose remainder names the model, or any other distinct keys (negative ones too),
    matched by a second pass."""
    n_slabs = data.draw(st.integers(min_value=1, max_value=3))
    rank = np.array([data.draw(st.permutations(range(n_models))) for _ in range(n_runs)], dtype=np.int64)
    if named:
        sums = np.array(
            data.draw(
                st.lists(st.integers(0, 9), min_size=n_slabs * n_runs * n_models, max_size=n_slabs * n_runs * n_models)
            )
        )
        keys = sums.reshape(n_slabs, n_runs, n_models) * n_models + (n_models - 1 - rank)[None]
    else:
        values = data.draw(st.lists(st.integers(-50, 50), min_size=n_models, max_size=n_models, unique=True))
        keys = np.array([data.draw(st.permutations(values)) for _ in range(n_slabs * n_runs)]).reshape(
            n_slabs, n_runs, n_models
        )
    keys = keys.astype(dtype)
    slots = np.array(
        data.draw(
            st.lists(
                st.lists(st.integers(-1, n_slabs - 1), min_size=n_models - 1, max_size=n_models - 1),
                min_size=1,
                max_size=4,
            )
        ),
        dtype=np.int64,
    ).reshape(-1, n_models - 1)
    assert MODULE is not None
    fast = _compiled.eliminate(MODULE, keys, slots, rank)
    assert np.array_equal(fast, _eliminations_by_hand(keys, slots, rank))


@pytest.mark.parametrize("name", ["sr", "sysrs"])
def test_eliminations_on_int64_keys_are_numpys(name: str) -> None:
    """Scores such as 0.1 have 2^55 as denominator: the exact keys need int64, and the compiled pass masks the
    eliminated models with int64's largest value (int32's would hide nothing); the outcome is numpy's."""
    rows = np.random.default_rng(11).integers(0, 10, size=(5, 12)) / 10
    instance = Instance(rows)
    table = score_table(instance)
    draws = simulation_draws(3, 0, 40, 5, 12, synchronized=name == "sysrs")
    budgets = (5, 11, 20, 36, 60)
    keys = phase_sums(table, budgets, draws).keys
    assert table.exact and keys is not None and keys.dtype == np.int64 and keys.max() > 2**31
    fast = KERNELS[name](table, budgets, draws, True, NoParams())
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, True, NoParams())
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)


@pytest.mark.parametrize("name", ["sr", "sysrs"])
@pytest.mark.parametrize("last", [1e-300, 0.0])
def test_float_eliminations_decide_close_calls_on_exact_sums(name: str, last: float) -> None:
    """SR on floats whose sums nearly or exactly tie (0.1 + 0.2 against 0.3, equal rows): the outcome, with the number
    of exact decisions, is numpy's. With a score of 1e-300 the numerators are too long for int64, and the compiled
    filter hands those runs to numpy's exact sums; without it (the floats over D = 2^55) it decides them on 128-bit
    exact sums itself and hands nothing on."""
    rows = [[0.1, 0.2, 0.7, last], [0.3, 0.0, 0.7, 0.0], [0.3, 0.0, 0.7, 0.0], [0.2, 0.1, 0.5, 0.3]]
    table = score_table(Instance(rows), prefer_float=True)
    assert not table.exact and (table.numerators64() is None) == (last > 0)
    draws = simulation_draws(11, 0, 64, 4, 4, synchronized=name == "sysrs")
    budgets = (4, 7, 10, 13, 16)
    replays = []
    real = _elimination._eliminations

    def replay(*args: Any) -> Any:
        replays.append(args)
        return real(*args)

    with mock.patch.object(_elimination, "_eliminations", replay):
        fast = KERNELS[name](table, budgets, draws, True, NoParams())
    assert bool(replays) == (last > 0)
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, True, NoParams())
    assert fast.exact_decisions == plain.exact_decisions > 0
    assert fast.ranking is not None and plain.ranking is not None
    assert np.array_equal(fast.ranking, plain.ranking)


@settings(max_examples=100)
@given(permutation_cases, st.booleans())
def test_permutations_are_numpys(case: tuple[int, int, int, int, int], synchronized: bool) -> None:
    """The compiled draws of a simulation equal numpy's PCG64 permutations, run for run."""
    seed, start, runs, n_models, n_queries = case
    fast = simulation_draws(seed, start, start + runs, n_models, n_queries, synchronized=synchronized)
    with compiled.numpy_only():
        plain = simulation_draws(seed, start, start + runs, n_models, n_queries, synchronized=synchronized)
    assert np.array_equal(fast.query_orders, plain.query_orders)
    assert np.array_equal(fast.arm_priority, plain.arm_priority)
    child = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(start,)))
    assert fast.draw(0) == random_draw(child, n_models, n_queries, synchronized=synchronized)


def test_permutations_leave_other_bit_generators_to_numpy() -> None:
    """A generator that is not a PCG64 is not imitated: numpy draws (None from the compiled pass)."""
    assert MODULE is not None
    other = [np.random.Generator(np.random.MT19937(5))]
    assert _compiled.permutations(MODULE, other, 3, 1, 4) is None
    fresh = [np.random.default_rng(5)]
    made = _compiled.permutations(MODULE, fresh, 3, 1, 4)
    assert made is not None
    again = np.random.default_rng(5)
    assert made[0][0].tolist() == again.permutation(3).tolist()
    assert made[1][0, 0].tolist() == again.permutation(4).tolist()


@settings(max_examples=40)
@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.integers(1, 20_000))
def test_permutations_continue_any_pcg64_state(seed: int, halves: int, n_queries: int) -> None:
    """From a state with a buffered 32-bit half, and across refills of the block of draws, still numpy's numbers."""
    assert MODULE is not None
    generator = np.random.default_rng(seed)
    generator.integers(0, 2**32, size=halves, dtype=np.uint32)  # an odd count leaves numpy a buffered half
    made = _compiled.permutations(MODULE, [generator], 2, 2, n_queries)
    assert made is not None
    assert made[0][0].tolist() == generator.permutation(2).tolist()
    assert all(made[1][0, row].tolist() == generator.permutation(n_queries).tolist() for row in range(2))


def test_numpy_only_and_the_environment_switch_them_off() -> None:
    """numpy_only() and SYSRS_REF_COMPILED=0 turn the compiled passes off; nothing changes otherwise."""
    assert compiled.active() and _compiled.library() is MODULE
    with compiled.numpy_only():
        assert not compiled.active() and _compiled.library() is None
    assert compiled.active() and _compiled.library() is MODULE
    code = "from sysrs_ref.fast import compiled; print(not compiled.active(), compiled.available())"
    for value, expected in (("0", "True True"), ("off", "True True"), ("1", "False True")):
        environment = {**os.environ, compiled.ENVIRONMENT: value}
        out = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
        assert out.stdout.split() == expected.split()


@pytest.mark.parametrize("synchronized", [False, True])
def test_a_band_longer_than_the_listed_one_is_rescanned(synchronized: bool) -> None:
    """20 models with the same row tie at theta in every cut (with one shared order; with their own orders when
    every score is 1): more band arms than ucb_select lists (16), so the certification rescans the models; every
    arm's cells are numpy's."""
    row = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1] if synchronized else [1] * 12
    table = score_table(Instance([row] * 20))
    draws = simulation_draws(9, 0, 6, 20, len(row), synchronized=synchronized)
    pulls = np.array([25, 80, 150, 219], dtype=np.intp)
    setup = Setup(table, Fraction(1), synchronized)
    runs = Runs(setup, draws, Workspace(setup, draws.n_runs, synchronized))
    assert MODULE is not None
    facts = _compiled.ucb_select(MODULE, runs.keys, pulls.astype(np.int64), np.full((2, len(pulls)), np.nan))[3]
    assert (facts.sizes[:, :, 1] > facts.bands.shape[2]).all()
    fast = _cut(runs, pulls)
    with compiled.numpy_only():
        plain = _cut(runs, pulls)
    assert np.array_equal(fast, plain)


def test_float_eliminations_never_certify_outside_the_proved_range() -> None:
    """A phase of N >= 2^40 terms (certify.MAX_TERMS) is left unsettled, below it the same sums are certified."""
    from sysrs_ref.fast.certify import MAX_TERMS

    assert MODULE is not None
    sums = np.array([[[1.0, 2.0, 3.0]]])  # one slab, one run, three models: every elimination clear-cut
    slots = np.array([[0, 0]], dtype=np.int64)
    rank = np.array([[0, 1, 2]], dtype=np.int64)
    for n_terms, unsettled in ((5, False), (MAX_TERMS - 1, False), (MAX_TERMS, True), (2**62, True), (-1, True)):
        counts = np.array([n_terms], dtype=np.int64)
        orders = np.zeros((1, 1, 1), dtype=np.int32)
        order, flags, decided = _compiled.eliminate_floats(MODULE, sums, slots, counts, rank, None, orders)
        assert decided == 0
        assert bool(flags[0, 0]) is unsettled, n_terms
        if not unsettled:
            assert order[0, 0].tolist() == [2, 1, 0]


@pytest.mark.parametrize("name", ["ucbe", "syucbe"])
def test_float_band_ties_are_certified_by_exact_sums(name: str) -> None:
    """narrative_qa's F1 scores are floats whose numerators fit in int64 (D = 2^58): band arms at one count whose
    float sums tie are certified by their exact numerator sums, in both backends alike (the same choices and exact
    decisions, the chosen model alone, as reproduce asks); without the numerators the same runs make several times
    as many exact decisions (those ties went to the exact resolution), with the same choices."""
    table = score_table(Instance(np.asarray(load_dataset("narrative_qa").array)))
    assert not table.exact and table.numerators64() is not None
    n_models, n_queries = table.n_models, table.n_queries
    budgets = tuple(round(share / 100 * n_models * n_queries) for share in range(2, 100, 3))
    draws = simulation_draws(0, 0, 12, n_models, n_queries, synchronized=name == "syucbe")
    params = ALGORITHMS[name].parse_params({"a": Fraction(1, 10)})
    fast = KERNELS[name](table, budgets, draws, False, params)
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, False, params)
    assert np.array_equal(fast.chosen, plain.chosen)
    assert fast.exact_decisions == plain.exact_decisions
    with mock.patch.object(ScoreTable, "numerators64", lambda self: None):
        without = KERNELS[name](table, budgets, draws, False, params)
    assert np.array_equal(fast.chosen, without.chosen)
    assert 3 * fast.exact_decisions < without.exact_decisions


@settings(max_examples=200)
@given(mean_tables())
def test_ucb_top_is_the_stable_sorts_first_with_the_next_mean(
    case: tuple[npt.NDArray[np.float64], npt.NDArray[np.intp], npt.NDArray[np.float64], npt.NDArray[np.int32]],
) -> None:
    """The compiled top (the chosen model alone on float means) is the first of numpy's stable sort of the means in
    priority order, and its leaders are the sorted means' first two (the same doubles): where they are within the
    tolerance, the near tie reaches the top."""
    assert MODULE is not None
    prefix, counts, scale, priority = case
    top, leaders = _compiled.ucb_top(MODULE, prefix, counts, scale, priority)
    at = np.take_along_axis(prefix, (counts - 1).transpose(0, 2, 1), axis=2).transpose(0, 2, 1)
    means = np.divide(at, scale[counts - 1])
    by_priority = np.take_along_axis(means, np.broadcast_to(priority[:, None, :], means.shape).astype(np.intp), axis=2)
    order = np.argsort(-by_priority, axis=2, kind="stable")
    assert np.array_equal(top[:, :, 0], np.take_along_axis(priority[:, None, :], order[:, :, :1], axis=2)[:, :, 0])
    ordered = -np.sort(-means, axis=2)
    assert leaders[:, :, 0].tobytes() == ordered[:, :, 0].tobytes()
    assert leaders[:, :, 1].tobytes() == ordered[:, :, 1].tobytes()
