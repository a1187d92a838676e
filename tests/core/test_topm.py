"""Top-m metrics: the direct tie rule against brute force over every consistent ranking, bounds, vectorization."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance
from sysrs_ref.errors import ParameterError
from sysrs_ref.topm import TopMTruth, parse_top_m, topm_counts, topm_errors
from tests.strategies import instances


def consistent_rankings(instance: Instance) -> list[tuple[int, ...]]:
    """Every true ranking: tiers by decreasing mean, each tier in every order."""
    per_tier = [list(itertools.permutations(tier)) for tier in instance.tiers]
    return [tuple(m for block in choice for m in block) for choice in itertools.product(*per_tier)]


def brute_force(ranking: tuple[int, ...], instance: Instance, m: int) -> tuple[int, int, Fraction]:
    """The Appendix's three errors, each minimized over the consistent rankings, by definition."""
    truths = consistent_rankings(instance)
    identification = min(int(set(ranking[:m]) != set(true[:m])) for true in truths)
    ranking_error = min(int(ranking[:m] != true[:m]) for true in truths)
    per_rank = min(Fraction(sum(ranking[r] != true[r] for r in range(m)), m) for true in truths)
    return identification, ranking_error, per_rank


#: Scores in {0, 1/2, 1} on few queries: many exact ties between means.
tied_instances = instances(min_models=2, max_models=6, max_queries=3, kind="binary")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(tied_instances, st.data())
def test_direct_tie_rule_equals_brute_force(instance: Instance, data: st.DataObject) -> None:
    n_models = instance.n_models
    ranking = tuple(data.draw(st.permutations(range(n_models))))
    m = data.draw(st.integers(1, n_models - 1))
    got = topm_errors(ranking, instance, m)
    assert (got.identification, got.ranking, got.per_rank) == brute_force(ranking, instance, m)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(tied_instances, st.data())
def test_metric_bounds(instance: Instance, data: st.DataObject) -> None:
    """Ranking error >= identification error (the Appendix's remark), and ranking >= per-rank >= ranking / m."""
    ranking = tuple(data.draw(st.permutations(range(instance.n_models))))
    m = data.draw(st.integers(1, instance.n_models - 1))
    got = topm_errors(ranking, instance, m)
    assert got.ranking >= got.identification
    assert got.ranking >= got.per_rank >= Fraction(got.ranking, m)
    if m == 1:  # top-1: all three are "the chosen model is not a best model"
        assert got.identification == got.ranking == got.per_rank == int(ranking[0] not in instance.best)


@given(tied_instances, st.data())
def test_every_consistent_ranking_scores_zero(instance: Instance, data: st.DataObject) -> None:
    truths = consistent_rankings(instance)
    true = data.draw(st.sampled_from(truths))
    for m in range(1, instance.n_models):
        assert topm_errors(true, instance, m) == topm_errors(truths[0], instance, m)
        assert topm_errors(true, instance, m).per_rank == 0


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(tied_instances, st.data())
def test_vectorized_counts_are_the_sums_of_the_reference(instance: Instance, data: st.DataObject) -> None:
    n_models = instance.n_models
    runs, budgets = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 3))
    rankings = np.array(
        [[data.draw(st.permutations(range(n_models))) for _ in range(budgets)] for _ in range(runs)], dtype=np.int32
    )
    truth = TopMTruth.of(instance)
    for m in range(1, n_models):
        counts = topm_counts(rankings, truth, m)
        for b in range(budgets):
            errors = [topm_errors(tuple(rankings[r, b]), truth, m) for r in range(runs)]
            assert counts.identification[b] == sum(e.identification for e in errors)
            assert counts.ranking[b] == sum(e.ranking for e in errors)
            assert Fraction(counts.wrong_positions[b], m) == sum((e.per_rank for e in errors), Fraction(0))


def test_the_appendix_examples() -> None:
    """True top-3 {0, 1, 2}: predicting (1, 0, 2) identifies the set; (0, 1, 3) does not."""
    inst = Instance([[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    assert topm_errors((1, 0, 2, 3, 4), inst, 3).identification == 0
    assert topm_errors((1, 0, 2, 3, 4), inst, 3).ranking == 1
    assert topm_errors((1, 0, 2, 3, 4), inst, 3).per_rank == Fraction(2, 3)
    assert topm_errors((0, 1, 3, 2, 4), inst, 3).identification == 1
    # "if two models are tied for rank two, ranking either of these models at rank two or three is correct"
    tied = Instance([[1, 1, 1], [1, 1, 0], [1, 0, 1], [0, 0, 0]])
    for ranking in ((0, 1, 2, 3), (0, 2, 1, 3)):
        assert topm_errors(ranking, tied, 3).ranking == 0
        assert topm_errors(ranking, tied, 2).identification == 0  # either tied model completes the top 2


def test_bad_inputs_are_refused() -> None:
    inst = Instance([[1, 0], [0, 1], [0, 0]])
    with pytest.raises(ParameterError, match="m from 1 to K - 1 = 2"):
        topm_errors((0, 1, 2), inst, 3)
    with pytest.raises(ParameterError, match="distinct models"):
        topm_errors((0, 0, 2), inst, 2)
    with pytest.raises(ParameterError, match="m <= K - 1 = 2"):
        parse_top_m("3", n_models=3)
    with pytest.raises(ParameterError, match="positive integers"):
        parse_top_m("0,2")
    assert parse_top_m([5, 3, 5]) == (3, 5)
