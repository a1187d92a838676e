"""The code claims of proofs_check fail, with a counterexample, when the code or the statement is broken.

Each mutation compiles a deliberately wrong copy of the real function (its
source with one change) and patches it in; the claim must report ``fails``.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

import sysrs_ref.fast.certify as certify
from proofs_check import Status, all_claims, code_certify, code_contracts, code_schedule
from proofs_check.registry import Outcome
from sysrs_ref.algorithms import drive, sr
from sysrs_ref.algorithms.base import Outcome as RunOutcome
from sysrs_ref.draws import Draw

SMALL_K = 8  # the SMT half for K <= 8 in these tests; the model check half runs its full domain


def _schedule_module() -> ModuleType:
    import importlib

    return importlib.import_module("sysrs_ref.schedule")


def mutated(function: Callable[..., object], old: str, new: str) -> Callable[..., object]:
    """*function* compiled from its source with *old* replaced by *new* (exactly once), in its own module."""
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == 1, (function.__name__, old)
    namespace = dict(vars(inspect.getmodule(function)))
    exec(compile(source.replace(old, new), f"<mutated {function.__name__}>", "exec"), namespace)
    result: Callable[..., object] = namespace[function.__name__]
    assert callable(result)
    return result


@pytest.fixture(autouse=True)
def fresh_schedule_cache() -> Iterator[None]:
    """schedule() caches; a mutated capped rule must neither see nor leave cached schedules."""
    module = _schedule_module()
    module._schedule.cache_clear()
    yield
    module._schedule.cache_clear()


def assert_fails(outcome: Outcome, *fragments: str) -> None:
    assert outcome.status == Status.FAILS, outcome.detail
    assert outcome.counterexample
    for fragment in fragments:
        assert fragment in outcome.counterexample, (fragment, outcome.counterexample)


def test_capped_levels_with_a_floor_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    monkeypatch.setattr(
        module, "_levels", mutated(module._levels, "-(-level // (n_models + 1 - k))", "level // (n_models + 1 - k)")
    )
    assert_fails(code_schedule.check_capped_schedule(SMALL_K), "capped_schedule gives", "the model")


def test_search_for_u_star_stopping_early_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    broken = mutated(
        module.capped_schedule, "<= budget:\n            low = middle", "< budget:\n            low = middle"
    )
    monkeypatch.setattr(code_schedule, "capped_schedule", broken)
    assert_fails(code_schedule.check_capped_schedule(SMALL_K), "capped_schedule gives", "U*=")


def test_paper_schedule_with_a_floor_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    broken = mutated(module.paper_schedule, "-(-level // (n_models + 1 - k))", "level // (n_models + 1 - k)")
    monkeypatch.setattr(code_schedule, "paper_schedule", broken)
    assert_fails(code_schedule.check_paper_schedule(SMALL_K), "paper_schedule gives")


def test_schedule_dispatch_ignoring_the_full_budget_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    broken = mutated(module._schedule.__wrapped__, " or budget == n_models * n_queries", "")
    monkeypatch.setattr(code_schedule, "schedule", lambda k, l, n: broken(k, l, n))
    assert_fails(code_schedule.check_capped_schedule(SMALL_K), "schedule gives")


def test_percentage_rounded_up_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    broken = mutated(module.budget_from_percentage, "math.floor(", "math.ceil(")
    monkeypatch.setattr(code_schedule, "budget_from_percentage", broken)
    assert_fails(code_schedule.check_budget_percentage(SMALL_K), "the code gives")


def test_wrong_statements_fail_in_the_smt_half() -> None:
    # the code is right, the statement is not: z3 finds the counterexample (or the runs contradict it)
    assert_fails(code_schedule.check_paper_schedule(SMALL_K, last_weight=3), "K=", "n=")
    assert_fails(code_schedule.check_spend_formula(SMALL_K, last_weight=3), "spent")
    assert_fails(code_schedule.check_budget_percentage(SMALL_K, threshold=101), "the contract")


def test_smt_half_alone_finds_a_wrong_spend_weight() -> None:
    assert code_schedule._paper_spend_counterexample(5, 2) is None
    found = code_schedule._paper_spend_counterexample(5, 3)
    assert found is not None and "n=" in found


def test_divisor_lemmas_hold() -> None:
    assert all(code_schedule._divisor_lemma_counterexample(d) is None for d in range(2, 12))


def test_halved_tolerance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certify, "tolerance", mutated(certify.tolerance, "1) * 2.0**-50 *", "1) * 2.0**-51 *"))
    assert_fails(code_certify.check_tolerance(), "SAR/SySAR", "N=")


def test_unguarded_tolerance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = mutated(certify.tolerance, "if not 0 <= n_terms < MAX_TERMS:", "if n_terms < 0:")
    monkeypatch.setattr(certify, "tolerance", broken)
    assert_fails(code_certify.check_tolerance(), "certifies N=1099511627776")


def test_a_wider_range_than_proved_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certify, "MAX_TERMS", 2**60)  # the bound breaks near N = 2^52
    assert_fails(code_certify.check_tolerance(), "N=")


def test_tolerance_refuses_outside_the_range() -> None:
    import numpy as np

    assert float(certify.tolerance(certify.MAX_TERMS - 1, np.array(1.0))) > 0
    for n_terms in (-1, certify.MAX_TERMS, 2**62):
        with pytest.raises(ValueError, match="2\\^40"):
            certify.tolerance(n_terms, np.array(1.0))


def test_traced_tolerance_is_the_code_formula() -> None:
    import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

    n, m = z3.Reals("N M")
    (traced,) = code_certify._python_tolerance(n, m)  # one path returns: the guard's "in range" branch
    solver = z3.Solver()
    solver.add(traced.exact != (n + 1) * z3.Q(1, 2**50) * m)
    assert solver.check() == z3.unsat
    assert traced.rounds >= 2
    solver = z3.Solver()
    solver.add(*traced.path.conditions)
    solver.add(z3.Or(n < 0, n >= certify.MAX_TERMS))
    assert solver.check() == z3.unsat


def test_contract_violations_are_found() -> None:
    matrix = ((1, 0, 1), (1, 1, 0), (0, 0, 0))
    draw = Draw(((0, 1, 2),) * 3, (2, 0, 1))
    run = drive(sr(6, draw), [list(r) for r in matrix])
    assert code_contracts.contract_violation("sr", run, matrix, draw, 6) is None
    swapped = RunOutcome(
        run.algorithm, run.ranking[1], (run.ranking[1], run.ranking[0], *run.ranking[2:]), run.spent, run.trace
    )
    assert "reverse elimination order" in (code_contracts.contract_violation("sr", swapped, matrix, draw, 6) or "")
    assert "spent" in (code_contracts.contract_violation("sr", run, matrix, draw, run.spent - 1) or "")
    extra = len(run.trace[0].requests)
    repeated = RunOutcome(run.algorithm, run.chosen, run.ranking, run.spent + extra, (*run.trace, run.trace[0]))
    assert "asked twice" in (code_contracts.contract_violation("sr", repeated, matrix, draw, 9 + extra) or "")


def test_broken_tie_rule_fails_the_contract_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.successive_rejects")
    broken = mutated(module._by_sum, "-rank[model], model)", "rank[model], model)")
    monkeypatch.setattr(module, "_by_sum", broken)
    outcome = code_contracts.check_contracts((("sr", None),))
    assert_fails(outcome, "sr, scores", "expected")


def test_every_code_claim_has_a_failing_variant_here() -> None:
    tested = {
        "code-schedule-paper",
        "code-schedule-capped",
        "code-spend-formula",
        "code-budget-percentage",
        "code-certify-tolerance",
        "code-algorithm-contracts",
    }
    assert tested == {claim.id for claim in all_claims(SMALL_K) if claim.id.startswith("code-")}
