"""Properties of the eight reference algorithms over random small instances, budgets and draws."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, Outcome, drive, schedule, schedule_spend
from sysrs_ref.algorithms.lrf import LRFDraw
from tests.naive import naive_run
from tests.strategies import SYNCHRONIZED, Case, cases


def run(case: Case) -> Outcome:
    spec = ALGORITHMS[case.algorithm]
    return drive(spec.start(case.budget, case.draw, **case.params), case.instance)


@given(cases())
def test_outcome_is_well_formed(case: Case) -> None:
    out = run(case)
    n_models, n_queries = case.instance.shape
    requests = out.requests
    assert out.algorithm == case.algorithm
    assert out.spent == len(requests) <= case.budget
    assert len(set(requests)) == len(requests), "a model was evaluated twice on a query"
    assert all(0 <= r.model < n_models and 0 <= r.query < n_queries for r in requests)
    assert sorted(out.ranking) == list(range(n_models))
    assert out.ranking[0] == out.chosen


@given(cases())
def test_spend_is_exactly_what_the_algorithm_promises(case: Case) -> None:
    out = run(case)
    n_models, n_queries = case.instance.shape
    if case.algorithm in ("us", "syus"):
        assert out.spent == n_models * (case.budget // n_models)
    elif case.algorithm in ("sr", "sysrs"):
        assert out.spent == schedule_spend(schedule(n_models, n_queries, case.budget))
        assert len(out.eliminated) == n_models - 1
        assert out.ranking == (out.chosen, *reversed(out.eliminated))
    elif case.algorithm in ("sar", "sysar"):
        assert out.spent == schedule_spend(schedule(n_models, n_queries, case.budget))
        assert len(out.eliminated) == n_models - 1
        m = int(case.params["m"])
        assert len(out.accepted) in (m - 1, m)
        assert set(out.ranking[:m]) == set(out.accepted) | ({out.ranking[m - 1]} if len(out.accepted) < m else set())
        assert out.ranking[: len(out.accepted)] == out.accepted
    else:  # one warm-up evaluation per model, then one per step: the whole budget
        assert out.spent == case.budget


@given(cases())
def test_each_model_follows_its_query_order(case: Case) -> None:
    """A model's evaluations are a prefix of its order; synchronized ones share one order."""
    out = run(case)
    per_model: dict[int, list[int]] = {}
    for request in out.requests:
        per_model.setdefault(request.model, []).append(request.query)
    for model, queries in per_model.items():
        assert tuple(queries) == case.draw.order_of(model)[: len(queries)]
    if case.algorithm in SYNCHRONIZED:
        shared = case.draw.query_orders[0]
        for queries in per_model.values():
            assert tuple(queries) == shared[: len(queries)]


@given(cases(algorithms=("syus", "sysrs", "sysar")))
def test_synchronized_batches_give_all_active_models_the_same_queries(case: Case) -> None:
    out = run(case)
    for step in out.trace:
        by_model: dict[int, list[int]] = {}
        for request in step.requests:
            by_model.setdefault(request.model, []).append(request.query)
        assert len({tuple(queries) for queries in by_model.values()}) <= 1


@given(cases(), st.data())
def test_equivariance_under_permuting_models(case: Case, data: st.DataObject) -> None:
    """Permuting rows together with the draw permutes the outcome the same way."""
    n_models = case.instance.n_models
    sigma = data.draw(st.permutations(range(n_models)))
    moved = Case(case.instance.permuted(sigma), case.algorithm, case.budget, case.draw.permuted(sigma), case.params)
    before, after = run(case), run(moved)
    assert after.chosen == sigma[before.chosen]
    assert after.ranking == tuple(sigma[m] for m in before.ranking)
    assert after.spent == before.spent
    assert len(after.trace) == len(before.trace)
    for old, new in zip(before.trace, after.trace, strict=True):
        assert Counter(new.requests) == Counter((sigma[r.model], r.query) for r in old.requests)
        assert new.eliminated == (None if old.eliminated is None else sigma[old.eliminated])


@given(cases(full_budget=True))
def test_full_budget_returns_a_best_model_and_the_true_ranking(case: Case) -> None:
    """At n = K*L every pair is evaluated: the ranking is by exact means, ties by priority."""
    out = run(case)
    means, rank = case.instance.means, case.draw.rank
    assert out.spent == case.budget
    assert case.instance.is_best(out.chosen)
    assert out.ranking == tuple(sorted(range(case.instance.n_models), key=lambda m: (-means[m], rank[m])))


@given(cases())
def test_same_draw_same_outcome(case: Case) -> None:
    assert run(case) == run(case)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(cases(max_models=4, max_queries=5))
def test_agrees_with_an_independent_naive_implementation(case: Case) -> None:
    out = run(case)
    a = case.params.get("a", Fraction(1))
    m = int(case.params.get("m", 1))
    chosen, ranking, spent, requests = naive_run(case.instance.rows, case.algorithm, case.budget, case.draw, a, m)
    assert (out.chosen, out.ranking, out.spent) == (chosen, ranking, spent)
    assert [tuple(r) for r in out.requests] == requests


def test_ties_are_broken_by_arm_priority_not_by_row() -> None:
    """All models identical: every algorithm returns the priority's first model, ranks by priority.

    (UCB-E-LRF too: at n = K L every cell is observed, so its final means are the exact, tied row means.)"""
    inst = Instance([[1, 0, 1]] * 4)
    for name, spec in ALGORITHMS.items():
        for priority in [(2, 0, 3, 1), (3, 1, 0, 2)]:
            orders = ((0, 1, 2),) if spec.synchronized else ((0, 1, 2),) * 4
            draw = LRFDraw(tuple(range(12)), priority, seed=1) if spec.cells else Draw(orders, priority)
            out = drive(spec.start(12, draw, **({"members": 2, "sweeps": 1} if spec.cells else {})), inst)
            assert out.chosen == priority[0], name
            assert out.ranking == priority, name


def test_budget_equal_to_k_spends_nothing_for_sr_and_eliminates_by_priority() -> None:
    inst = Instance([[0, 1], [1, 1], [1, 0]])
    out = drive(ALGORITHMS["sysrs"].start(3, Draw(((1, 0),), (1, 2, 0))), inst)
    assert out.spent == 0
    assert out.eliminated == (0, 2)
    assert out.chosen == 1


def test_ucb_exhausted_models_are_skipped() -> None:
    """With L = 1, after the warm-up no model is selectable: UCB-E stops at K evaluations (n = K*L)."""
    inst = Instance([[0], [1], [1]])
    out = drive(ALGORITHMS["ucbe"].start(3, Draw(((0,),) * 3, (2, 1, 0))), inst)
    assert out.spent == 3
    assert out.ranking == (2, 1, 0)


def test_exact_ucb_tie_goes_to_priority() -> None:
    """a = 1: model 0 (mean 0 after 1 eval) and model 1 (mean 1/2 after 4 evals) have U = 1 exactly."""
    inst = Instance([[0, 0, 0, 0, 0], [1, 0, 1, 0, 1]])
    # Drive by hand: warm-up, then force model 1 to 4 evaluations with budget.
    # After warm-up: U0 = 0 + 1 = 1, U1 = 1 + 1 = 2 -> model 1 three times:
    # N1=2: mean 1/2, U1 = 1/2 + sqrt(1/2) ~ 1.207 > 1 -> model 1 (query 2 -> 1)
    # N1=3: mean 2/3, U1 = 2/3 + sqrt(1/3) ~ 1.244 > 1 -> model 1 (query 3 -> 0)
    # N1=4: mean 1/2, U1 = 1/2 + 1/2 = 1 == U0: the tie goes to the priority's first model.
    for priority, expected_last in [((0, 1), 0), ((1, 0), 1)]:
        out = drive(ALGORITHMS["syucbe"].start(6, Draw(((0, 1, 2, 3, 4),), priority), a=1), inst)
        assert [r.model for r in out.requests] == [0, 1, 1, 1, 1, expected_last]


@given(cases(algorithms=("sar", "sysar")))
def test_sar_with_m_1_is_successive_rejects(case: Case) -> None:
    """SAR's gap rule never accepts before the last phase when m = 1 (ties reject): it is SR, SySAR is SySRs."""
    twin = {"sar": "sr", "sysar": "sysrs"}[case.algorithm]
    out = drive(ALGORITHMS[case.algorithm].start(case.budget, case.draw, m=1), case.instance)
    reference = drive(ALGORITHMS[twin].start(case.budget, case.draw), case.instance)
    assert (out.chosen, out.ranking, out.spent, out.requests) == (
        reference.chosen,
        reference.ranking,
        reference.spent,
        reference.requests,
    )
    assert out.accepted == ()


def test_sar_accepts_a_clear_leader_early() -> None:
    """m = 2: the leader is 4 ahead of the third model, the worst only 1 behind the second: accept first."""
    inst = Instance([[1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    out = drive(ALGORITHMS["sysar"].start(16, Draw(((0, 1, 2, 3),), (0, 1, 2, 3)), m=2), inst)
    # phase 1 (4 queries): sums 4, 1, 0, 0; lead 4 - 0 = 4 > deficit 1 - 0 = 1: accept 0
    assert out.eliminated[0] == 0 and out.accepted[0] == 0
    assert out.ranking[:2] == (0, 1)
