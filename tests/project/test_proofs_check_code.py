"""The code claims of proofs_check fail, with a counterexample, when the code or the statement is broken.

Each mutation compiles a deliberately wrong copy of the real function (its
source with one change) and patches it in; the claim must report ``fails``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

import sysrs_ref.fast.certify as certify
from proofs_check import (
    Status,
    all_claims,
    code_certify,
    code_contracts,
    code_schedule,
    code_symbolic,
    code_ucb,
    code_ucb_symbolic,
    symbolic,
)
from proofs_check.code_symbolic import ContractsBound
from sysrs_ref.algorithms import drive, sr
from sysrs_ref.algorithms.base import Outcome as RunOutcome
from sysrs_ref.draws import Draw
from tests.planted import assert_fails, mutated

SMALL_K = 8  # the SMT half for K <= 8 in these tests; the model check half runs its full domain


def _schedule_module() -> ModuleType:
    import importlib

    return importlib.import_module("sysrs_ref.schedule")


@pytest.fixture(autouse=True)
def fresh_schedule_cache() -> Iterator[None]:
    """schedule() caches; a mutated capped rule must neither see nor leave cached schedules."""
    module = _schedule_module()
    module._schedule.cache_clear()
    yield
    module._schedule.cache_clear()


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


SMALL_SYMBOLIC = ContractsBound(max_k=3, max_l=2, max_l_two=3)  # a few seconds per algorithm


def test_symbolic_sr_eliminating_the_earliest_tied_model_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.successive_rejects")
    monkeypatch.setattr(module, "_by_sum", mutated(module._by_sum, "-rank[model], model)", "rank[model], model)"))
    outcome = code_symbolic.check_symbolic_contracts(SMALL_SYMBOLIC, (("sysrs", None),))
    assert_fails(outcome, "sysrs, scores", "draw Draw(", "expected")
    assert outcome.all_methods == ("symbolic",)


def test_symbolic_sar_ranking_by_index_instead_of_priority_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.successive_accepts_rejects")
    broken = mutated(module._successive_accepts_rejects, "(-sums[model], draw.rank[model])", "(-sums[model], model)")
    monkeypatch.setattr(module, "_successive_accepts_rejects", broken)
    outcome = code_symbolic.check_symbolic_contracts(SMALL_SYMBOLIC, (("sar", 2),))
    # only the second draw (priority reversed) tells index from priority
    assert_fails(outcome, "sar m=2, scores", "arm_priority=(2, 1, 0)")


def test_symbolic_uniform_overspending_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.uniform")
    broken = mutated(
        module._uniform,
        "per_model = budget_n(budget, n_models, draw.n_queries) // n_models",
        "per_model = -(-budget_n(budget, n_models, draw.n_queries) // n_models)",  # a ceiling: over budget
    )
    monkeypatch.setattr(module, "_uniform", broken)
    assert_fails(code_symbolic.check_symbolic_contracts(SMALL_SYMBOLIC, (("us", None),)), "us, scores", "spent")


def test_symbolic_run_that_raises_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.uniform")
    broken = mutated(module._uniform, "// n_models", "// n_models + 1")  # reads past the query order
    monkeypatch.setattr(module, "_uniform", broken)
    assert_fails(code_symbolic.check_symbolic_contracts(SMALL_SYMBOLIC, (("us", None),)), "raised IndexError")


def test_symbolic_contracts_hold_on_a_small_domain() -> None:
    outcome = code_symbolic.check_symbolic_contracts(SMALL_SYMBOLIC, (("sr", None), ("syus", None)))
    assert outcome.status == Status.HOLDS, outcome.detail
    assert "K = 2 with L <= 3, K in [3, 3] with L <= 2" in outcome.domain


def test_symbolic_values_branch_and_refuse_concrete_reads() -> None:
    from proofs_check.symbolic import Symbolic, explore

    x, y = Symbolic.symbol("t_x", 0, 1), Symbolic.symbol("t_y", 0, 1)
    # the sign of x - y: three feasible paths (less, equal, greater), each once
    outcomes = [result for _, result in explore([x, y], lambda: (x > y) - (x < y))]
    assert sorted(outcomes) == [-1, 0, 1]
    assert [r for _, r in explore([x, y], lambda: x + y > 2)] == [False]  # infeasible side never taken
    assert sorted(size for _, size in explore([x, y], lambda: len({x, y}))) == [1, 2]  # a set compares with ==
    with pytest.raises(TypeError):
        _ = x.numerator
    with pytest.raises(TypeError):
        round(x)


def test_halved_index_key_tolerance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.algorithms.ucb_index import IndexKey

    broken = mutated(IndexKey.tolerance_for, "2.0**-40", "2.0**-53")
    monkeypatch.setattr(IndexKey, "tolerance_for", broken)
    assert_fails(code_ucb.check_ucb_tolerance(), "IndexKey", "a=", "N=")


def test_index_key_tolerance_certifying_a_wider_range_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.algorithms.ucb_index import IndexKey

    broken = mutated(IndexKey.tolerance_for, "Fraction(2) ** -1000 < a", "Fraction(2) ** -1100 < a")
    monkeypatch.setattr(IndexKey, "tolerance_for", broken)
    assert_fails(code_ucb.check_ucb_tolerance(), "certifies outside the proved range")


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("err = 8 * UNIT * root", "err = 1 * UNIT * root", "gap / 4"),
        ("mean_err = (2 * n_queries + 8) * UNIT", "mean_err = (n_queries + 1) * UNIT", "float scores"),
        ("n_queries**2 * denominator < 2**52", "n_queries**2 * denominator < 2**54", "means_exact"),
        ("if not n_queries < MAX_TERMS:", "if not n_queries < 2 * MAX_TERMS:", "outside the proved range"),
    ],
)
def test_broken_ucb_bounds_fail(monkeypatch: pytest.MonkeyPatch, old: str, new: str, fragment: str) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.fast._ucb_exact")
    monkeypatch.setattr(module, "bounds_for", mutated(module.bounds_for, old, new))
    assert_fails(code_ucb.check_ucb_tolerance(), fragment)


def test_bounds_for_refuses_outside_the_proved_range() -> None:
    from fractions import Fraction

    from sysrs_ref import Instance
    from sysrs_ref.fast import score_table
    from sysrs_ref.fast._ucb_exact import bounds_for

    table = score_table(Instance([[1, 0], [0, 1]]))
    assert bounds_for(table, Fraction(1)).gap > 0
    for a in (Fraction(1, 2**1000), Fraction(2**1000)):
        with pytest.raises(ValueError, match="2\\^-1000 < a < 2\\^1000"):
            bounds_for(table, a)
    huge = type("Huge", (), {"n_queries": 2**40, "denominator": 1, "exact": True})()
    with pytest.raises(ValueError, match="L < 2\\^40"):
        bounds_for(huge, Fraction(1))  # only n_queries is read before refusing


def test_compiled_threshold_without_its_range_guard_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pytest.TempPathFactory
) -> None:
    from pathlib import Path

    source = code_certify.PHASES_C.read_text(encoding="utf-8")
    unguarded = Path(str(tmp_path)) / "phases.c"
    unguarded.write_text(source.replace("counts[slot] >= CERTIFIED_TERMS", "counts[slot] >= INT64_MAX"), "utf-8")
    monkeypatch.setattr(code_certify, "PHASES_C", unguarded)
    assert_fails(code_certify.check_tolerance(), "phases.c has no guard")
    wider = Path(str(tmp_path)) / "wider.c"
    wider.write_text(source.replace("((int64_t)1) << 40", "((int64_t)1) << 50"), "utf-8")
    monkeypatch.setattr(code_certify, "PHASES_C", wider)
    assert_fails(code_certify.check_tolerance(), "beyond the proved range")


SMALL_UCB = ContractsBound(max_k=3, max_l=1, max_l_two=2)  # K = 2 with L <= 2, K = 3 with L = 1: about a second


def test_symbolic_ucb_contracts_hold_on_a_small_domain() -> None:
    outcome = code_ucb_symbolic.check_ucb_contracts(SMALL_UCB)
    assert outcome.status == Status.HOLDS, outcome.detail
    assert outcome.all_methods == ("symbolic",)
    assert "K = 2 with L <= 2, K in [3, 3] with L <= 1" in outcome.domain
    assert "over-approximation" in outcome.domain and "N1, N2 <= 2" in outcome.domain


def test_root_intervals_enclose_the_square_roots() -> None:
    from fractions import Fraction

    for value in (Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(10, 7), Fraction(1, 10), Fraction(9, 4)):
        low, high = code_ucb_symbolic.root_interval(value)
        assert low * low <= value <= high * high
        assert high - low in (0, Fraction(1, 2**code_ucb_symbolic.ROOT_BITS))
    assert code_ucb_symbolic.root_interval(Fraction(9, 4)) == (Fraction(3, 2), Fraction(3, 2))


def test_abstracted_roots_restore_the_real_comparison() -> None:
    from fractions import Fraction

    import sysrs_ref.algorithms.ucb_index as ucb_index

    real = ucb_index.compare_indices
    with code_ucb_symbolic.abstracted_roots(Fraction(1), 3) as symbols:
        assert ucb_index.compare_indices is not real
        assert [str(s) for s in symbols] == ["b_2", "b_3"]  # sqrt(1/1) is exact: no symbol
        # concrete means still get the exact comparison
        assert ucb_index.compare_indices(Fraction(0), 1, Fraction(1, 2), 4, Fraction(1)) == 0
    assert ucb_index.compare_indices is real


def test_wrong_exact_index_comparison_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import sysrs_ref.algorithms.ucb_index as ucb_index

    broken = mutated(ucb_index.sign_of_root_sum, "difference = 4 * p * q - b * b", "difference = 2 * p * q - b * b")
    monkeypatch.setattr(ucb_index, "sign_of_root_sum", broken)
    outcome = code_ucb_symbolic.check_ucb_contracts(SMALL_UCB)
    assert_fails(outcome, "compare_indices(m1, 1, m2, 2, a) returns", "m1=", "a=")


@pytest.mark.parametrize(
    ("target", "old", "new", "fragments"),
    [
        ("_ucb", "for _ in range(n - n_models):", "for _ in range(n - n_models + 1):", ("ucbe a=1, scores", "spent")),
        ("_ucb", "if counts[model] < n_queries:", "if counts[model] <= n_queries:", ("raised IndexError",)),
        ("rank_by_mean", "rank[i])))", "-rank[i])))", ("by exact mean then priority", "draw Draw(")),
    ],
)
def test_broken_ucb_bookkeeping_fails_the_symbolic_claim(
    monkeypatch: pytest.MonkeyPatch, target: str, old: str, new: str, fragments: tuple[str, ...]
) -> None:
    import importlib

    module = importlib.import_module("sysrs_ref.algorithms.ucb")
    monkeypatch.setattr(module, target, mutated(getattr(module, target), old, new))
    assert_fails(code_ucb_symbolic.check_ucb_contracts(SMALL_UCB), *fragments)


def test_every_code_claim_has_a_failing_variant_here() -> None:
    tested = {
        "code-schedule-paper",
        "code-schedule-capped",
        "code-spend-formula",
        "code-budget-percentage",
        "code-certify-tolerance",
        "code-ucb-tolerance",
        "code-algorithm-contracts",
        "code-contracts-symbolic",
        "code-ucb-contracts-symbolic",
        # broken in tests/project/test_proofs_check_formulas.py:
        "code-bound-formulas",
        "code-hardness-formulas",
        "code-exact-engines",
        "code-decisions-uniform",  # the decision claims' planted bugs: test_proofs_check_decisions.py
        "code-decisions-sr",
        "code-decisions-sar",
        "code-decisions-ucb",
    }
    assert tested == {claim.id for claim in all_claims(SMALL_K) if claim.id.startswith("code-")}


def test_witnesses_of_any_length_are_read_exactly() -> None:
    """A z3 numeral beyond Python's 4,300-digit int(str) limit is read exactly, the limit untouched."""
    limit = sys.get_int_max_str_digits()
    big = "-" + "9" * 4901
    assert symbolic._exact_int(z3.IntVal(big)) == -(10**4901 - 1)
    assert sys.get_int_max_str_digits() == limit


def test_a_check_that_runs_out_of_time_fails_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each solver check of an exploration is bounded (CHECK_TIMEOUT_MS): past it, a clear error, not a hang.

    The system below is nonlinear real arithmetic that z3 does not settle within a minute on a 2-core
    machine, so it cannot within the 0.1 s allowed here.
    """
    monkeypatch.setattr(symbolic, "CHECK_TIMEOUT_MS", 100)
    x, y, z = z3.Reals("x y z")
    explorer = symbolic.Explorer([x > 0, y > 0], {})
    hard = z3.And(
        x * x * x * y - 7 * y * y * x + x * y * 3 == 2,
        x * x + y * y * y * x == 11,
        z * z * z * x * y - 3 * z * x == 5 * y * y,
    )
    with pytest.raises(RuntimeError, match=r"z3 answered unknown \((timeout|canceled)\): no proof"):
        explorer.satisfiable(hard)


def test_the_capped_claim_reuses_the_paper_claims_spend_proofs() -> None:
    """The capped claim's spend proofs are cache hits of the paper claim's (its per-K call): no K proved twice."""
    spend = code_schedule._paper_spend_counterexample
    spend.cache_clear()
    assert [spend(k, 2) for k in (2, 3, 4)] == [None] * 3  # as check_paper_schedule asks, last_weight by position
    assert [code_schedule._paper_spend(k) for k in (2, 3, 4)] == [None] * 3  # as check_capped_schedule asks
    assert (spend.cache_info().misses, spend.cache_info().hits) == (3, 3)
