"""Conditions a user relies on, each stated as what the user sees when it is broken.

Each test fails when its guard is removed: a lemma's hypotheses, SySAR's
tie rule in the exact law, inspect's epoch 1 and the largest budget. A live
log's replay checks are in tests/live/test_live_replay.py, the cache's trust
in its entries in tests/experiments/test_cache_entries.py: each area's
folder catches its area's bugs.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.algorithms.params import TopMSize
from sysrs_ref.errors import BoundConditionError, BudgetError
from sysrs_ref.loaders import load_inspect
from sysrs_ref.schedule import check_budget
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.bounds import bernstein_paired_bound, bernstein_wor_bound
from sysrs_ref.theory.exact import exact_law
from sysrs_ref.theory.exact_stochastic import mixture_law, phase_law

HALF = Fraction(1, 2)


# -- the Bernstein lemmas' hypotheses ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 6, -1])
def test_the_paired_bound_needs_one_to_n_samples(n: int) -> None:
    """Lemma (paired Bernstein, without replacement): 1 <= n <= N, else no bound is stated."""
    with pytest.raises(BoundConditionError, match=r"1 <= n <= N"):
        bernstein_paired_bound(n, 5, Fraction(1, 5), Fraction(4, 25))


@pytest.mark.parametrize("n", [0, 11])
def test_the_wor_bound_needs_one_to_n_samples(n: int) -> None:
    with pytest.raises(BoundConditionError, match=r"1 <= n <= N"):
        bernstein_wor_bound(n, 10, HALF, Fraction(1, 4), Fraction(1))


def test_the_wor_bound_needs_a_variance_within_the_range() -> None:
    """sigma^2 <= M^2: a variance larger than the squared range is impossible, and the bound would be wrong."""
    with pytest.raises(BoundConditionError):
        bernstein_wor_bound(4, 10, HALF, Fraction(5, 4), Fraction(1))
    assert bernstein_wor_bound(4, 10, HALF, Fraction(1), Fraction(1)).exponent > 0  # sigma^2 = M^2 is allowed


# -- SySAR's ties in the exact stochastic law ---------------------------------------------------------------------


def test_sysar_rejects_the_tied_model_latest_in_the_priority() -> None:
    """The phase DP equals the mixture of exact deterministic laws on a 4-model instance where the tie rule matters
    (rejecting the tied model *first* in the priority gives {1: 11/72, ...} instead of {1: 89/576, ...})."""
    instance = StochasticInstance.bernoulli([[0, 0, HALF], [0, HALF, HALF], [1, 0, 1], [HALF, HALF, 1]])
    law = phase_law(instance, "sysar", 9, m=2)
    assert law == mixture_law(instance, "sysar", lambda r: exact_law(r, "sysar", 9, TopMSize(2)))
    assert law == {0: Fraction(1, 48), 1: Fraction(89, 576), 2: Fraction(959, 2304), 3: Fraction(941, 2304)}


# -- inspect: --epochs first is epoch 1 -----------------------------------------------------------------------------


def test_first_is_epoch_one_not_the_first_scored_epoch(tmp_path: Path) -> None:
    """A sample whose epoch 1 has no score has no cell under ``--epochs first`` (its epoch 2 is not taken)."""
    log = {
        "version": 2,
        "status": "success",
        "eval": {"model": "m", "task": "t"},
        "samples": [
            {"id": "s1", "epoch": 2, "scores": {"match": {"value": "C"}}},
            {"id": "s2", "epoch": 1, "scores": {"match": {"value": "I"}}},
        ],
    }
    path = tmp_path / "a.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    table = load_inspect(path, metric="match", epochs="first")
    assert table.queries == ("t/s2",) and table.scores.tolist() == [[0.0]]


# -- budgets --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_models", "n_queries"), [(2, 1), (4, 6), (80, 1000)])
def test_a_budget_one_above_every_pair_is_refused(n_models: int, n_queries: int) -> None:
    full = n_models * n_queries
    assert check_budget(full, n_models, n_queries) == full
    with pytest.raises(BudgetError, match=rf"at most K\*L = {full} .*got {full + 1}"):
        check_budget(full + 1, n_models, n_queries)
