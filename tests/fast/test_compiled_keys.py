"""UCB keys made only as far as the cuts reach (sysrs_ref.fast._compiled.ucb_keys_upto) decide what whole rows decide.

Rows stop at their first key below a floor that at least the largest cut's
pulls reach; every order statistic, count, certification and outcome must be
the whole rows', whatever the first guess of the floor.
"""

from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings

from sysrs_ref import ALGORITHMS, Instance
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import KERNELS, _compiled, compiled, score_table
from sysrs_ref.fast._batch import simulation_draws
from sysrs_ref.fast._ucb_runs import Runs, Setup, Workspace, cut_tables
from tests.backends import assert_same_outcome
from tests.strategies import TruncationCase, truncation_cases

MODULE = _compiled.library()
pytestmark = pytest.mark.skipif(
    MODULE is None, reason="the compiled passes were not built here (see test_native_build)"
)


@pytest.mark.slow
@settings(max_examples=300)
@given(truncation_cases())
def test_rows_made_as_far_as_the_cuts_reach_cut_as_whole_rows(case: TruncationCase) -> None:
    """Keys and sums are the whole rows' as far as each row goes, a stopped row ends below the largest cut's theta,
    and the order statistics (both brackets), counts and certified cuts are the whole rows', whatever the guess."""
    assert MODULE is not None
    instance, synchronized, draws, a, pulls, memory = case
    setup = Setup(score_table(instance), a, synchronized)
    whole = Runs(setup, draws, Workspace(setup, draws.n_runs, synchronized))
    work = Workspace(setup, draws.n_runs, synchronized)
    work.guesses(len(pulls))[:] = memory[:, None]
    part = Runs(setup, draws, work, pulls)
    assert part.stops is not None and whole.stops is None
    width = whole.keys.shape[2]
    wide = np.array(pulls, dtype=np.int64)
    theta = _compiled.ucb_select(MODULE, whole.keys, wide, np.full((2, len(pulls)), np.nan))[0]
    lowest = theta.min(axis=1)  # the largest cut's theta, run by run
    for run, model in np.ndindex(*part.stops.shape):
        stop = int(part.stops[run, model])
        assert 1 <= stop <= width
        assert np.array_equal(part.keys[run, model, :stop], whole.keys[run, model, :stop])
        assert np.array_equal(part.prefix[run, model, :stop], whole.prefix[run, model, :stop])
        if stop < width:
            assert part.keys[run, model, stop - 1] < lowest[run]
    for binned in (False, True):
        fresh = np.full((2, len(pulls)), np.nan)
        mine = _compiled.ucb_select(MODULE, part.keys, wide, fresh.copy(), binned, stops=part.stops)
        theirs = _compiled.ucb_select(MODULE, whole.keys, wide, fresh.copy(), binned)
        for one, other in zip(mine[:3], theirs[:3], strict=True):
            assert np.array_equal(one, other)
        assert np.array_equal(mine[3].nearest, theirs[3].nearest) and np.array_equal(mine[3].sizes, theirs[3].sizes)
        for cut in np.ndindex(*mine[3].sizes.shape[:2]):  # the listed band arms (the rest is scratch)
            listed = min(int(mine[3].sizes[cut][1]), mine[3].bands.shape[2])
            assert np.array_equal(mine[3].bands[cut][:listed], theirs[3].bands[cut][:listed])
    cells, certified = _compiled.ucb_cut(MODULE, cut_tables(part), *mine, pulls)
    whole_cells, whole_certified = _compiled.ucb_cut(MODULE, cut_tables(whole), *theirs, pulls)
    assert np.array_equal(certified, whole_certified)
    assert np.array_equal(cells[certified], whole_cells[whole_certified])
    view = part.view(draws.n_runs - 1)  # the exact resolutions read whole rows
    assert (part.stops[-1] == width).all()
    assert np.array_equal(view.keys, whole.keys[-1]) and np.array_equal(view.prefix, whole.prefix[-1])


@pytest.mark.slow
@settings(max_examples=200)
@given(truncation_cases())
def test_ucb_outcomes_run_by_run_are_numpys(case: TruncationCase) -> None:
    """Groups of one run, so every run after the first starts from the last one's theta: choices, rankings, spends
    and exact decisions equal numpy's (whole rows), at budgets below K L."""
    instance, synchronized, draws, a, pulls, _ = case
    name = "syucbe" if synchronized else "ucbe"
    params = ALGORITHMS[name].parse_params({"a": a})
    table = score_table(instance)
    budgets = tuple(int(p) + instance.shape[0] for p in pulls)
    with mock.patch("sysrs_ref.fast._ucb.GROUP_BYTES", 1):
        fast = KERNELS[name](table, budgets, draws, True, params)
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, True, params)
    assert_same_outcome(fast, plain)


@pytest.mark.parametrize("synchronized", [False, True])
def test_real_rows_stop_near_the_largest_cut(synchronized: bool) -> None:
    """On a real benchmark at 8% to 35%, the runs after the first make well under 60% of the cells on average (the
    largest cut needs about 35%), and every outcome is numpy's."""
    assert MODULE is not None
    table = score_table(Instance(np.asarray(load_dataset("mmlu").array)))
    n_models, n_queries = table.n_models, table.n_queries
    budgets = tuple(round(share * n_models * n_queries) for share in (0.08, 0.2, 0.35))
    pulls = np.array([budget - n_models for budget in budgets], dtype=np.intp)
    draws = simulation_draws(5, 0, 12, n_models, n_queries, synchronized=synchronized)
    setup = Setup(table, Fraction(1), synchronized)
    work = Workspace(setup, 1, synchronized)
    made = []
    for run in range(draws.n_runs):
        runs = Runs(setup, draws.chunk(run, run + 1), work, pulls)
        _compiled.ucb_select(MODULE, runs.keys, pulls.astype(np.int64), work.guesses(len(pulls)), stops=runs.stops)
        assert runs.stops is not None
        made.append(runs.stops.sum() / (n_models * (n_queries - 1)))
    assert made[0] == 1.0  # nothing known yet: whole rows
    assert np.mean(made[1:]) < 0.6, made
    name = "syucbe" if synchronized else "ucbe"
    params = ALGORITHMS[name].parse_params({"a": "1"})
    with mock.patch("sysrs_ref.fast._ucb.GROUP_BYTES", 1):
        fast = KERNELS[name](table, budgets, draws, False, params)
    with compiled.numpy_only():
        plain = KERNELS[name](table, budgets, draws, False, params)
    assert np.array_equal(fast.chosen, plain.chosen)


def test_rational_ties_stay_certified() -> None:
    """Where sqrt(a/N) is rational, keys of different counts can be exactly equal; dividing there (not multiplying
    by the reciprocal) keeps them equal in floats, so their cuts need no exact arithmetic. On ifeval (a = 1) the
    reciprocal alone made 1,745 exact decisions in these 125 runs; dividing where the root is rational, 18."""
    table = score_table(Instance(np.asarray(load_dataset("ifeval").array)))
    n_models, n_queries = table.n_models, table.n_queries
    budgets = tuple(round(share * n_models * n_queries) for share in (0.08, 0.12, 0.16, 0.2, 0.25, 0.3, 0.35))
    draws = simulation_draws(0, 0, 125, n_models, n_queries, synchronized=False)
    fast = KERNELS["ucbe"](table, budgets, draws, False, ALGORITHMS["ucbe"].parse_params({"a": 1}))
    assert fast.exact_decisions < 100
