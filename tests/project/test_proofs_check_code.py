"""The code claims of proofs_check fail, with a counterexample, when the code or the statement is broken.

Each mutation compiles a deliberately wrong copy of the real function (its
source with one change) and patches it in; the claim must report ``fails``.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from fractions import Fraction
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

import sysrs_ref.fast.certify as certify
from proofs_check import (
    Status,
    all_claims,
    code_certify,
    code_contracts,
    code_fast_exhaustive,
    code_fast_static,
    code_schedule,
    code_symbolic,
    code_ucb,
    code_ucb_symbolic,
    symbolic,
)
from proofs_check.claim import Domains, Outcome
from proofs_check.code_symbolic import ContractsBound
from sysrs_ref.algorithms import drive, sr
from sysrs_ref.algorithms.base import Outcome as RunOutcome
from sysrs_ref.draws import Draw
from sysrs_ref.fast import compiled
from tests.backends import needs_compiled
from tests.planted import assert_fails, mutated

SMALL_K = 8  # the SMT half for K <= 8 in these tests; the model check half runs its full domain


def _schedule_module() -> ModuleType:
    import importlib

    return importlib.import_module("sysrs_ref.schedule")


@pytest.fixture(autouse=True)
def fresh_schedule_cache() -> Iterator[None]:
    """schedule() caches; a mutated capped rule must neither see nor leave cached schedules."""
    module = _schedule_module()
    cached = (
        module._schedule,
        code_schedule._level_counterexample,
        code_schedule._paper_levels_counterexample,
        code_schedule._capped_levels_counterexample,
        code_schedule._divisor_lemmas_counterexample,
    )
    for function in cached:
        function.cache_clear()
    yield
    for function in cached:
        function.cache_clear()


def test_capped_levels_with_a_floor_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    monkeypatch.setattr(
        module, "_levels", mutated(module._levels, "_ceil_div(level, n_models + 1 - k)", "level // (n_models + 1 - k)")
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
    broken = mutated(module._paper_levels, "_ceil_div(level, n_models + 1 - k)", "level // (n_models + 1 - k)")
    monkeypatch.setattr(module, "_paper_levels", broken)
    assert_fails(code_schedule.check_paper_schedule(SMALL_K), "paper_schedule gives")
    assert code_schedule._paper_levels_counterexample(20) is not None  # the symbolic half alone, beyond K = 12


def test_large_k_bounds_missing_a_term_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    bounds = mutated(
        module._logbar_bounds.__wrapped__,
        "scale // i for i in range(2, n_models + 1)) + scale // 2",
        "scale // i for i in range(2, n_models + 1))",
    )
    monkeypatch.setattr(module, "_logbar_bounds", bounds)
    assert code_schedule._real_bounds_counterexample(2048) is not None
    found = code_schedule._level_counterexample(2048)
    assert found is not None and "n=" in found


def test_large_k_level_without_its_exact_fallback_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    broken = mutated(module._level, "first if first == last else", "first if True else")
    # in the module's own namespace, so that the symbolic run's stand-ins for its callees reach it
    monkeypatch.setattr(module, "_level", types.FunctionType(broken.__code__, vars(module), "_level"))
    found = code_schedule._level_every_k_counterexample()
    assert found is not None and "K=" in found and "low=" in found
    assert code_schedule._level_counterexample(5) is None  # below 2048 the path is the exact one


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


def test_budget_text_parsing_broken_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _schedule_module()
    original = module.Budget.__dict__["parse"]
    source = textwrap.dedent(inspect.getsource(module.Budget.parse.__func__)).removeprefix("@classmethod\n")
    assert source.count("> len(str(full)):") == 1
    namespace = dict(vars(module))
    exec(compile(source.replace("> len(str(full)):", ">= len(str(full)):"), "<mutated parse>", "exec"), namespace)
    monkeypatch.setattr(module.Budget, "parse", classmethod(namespace["parse"]))
    assert_fails(code_schedule.check_budget_text(3), "'10' for K=3, L=7", "the contract 10")
    monkeypatch.setattr(module, "_PERCENT", re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?"))  # no ".5"
    monkeypatch.setattr(module.Budget, "parse", original)
    assert_fails(code_schedule.check_budget_text(3), "'.1%' for K=2, L=1000", "the contract 2")


def test_wrong_statements_fail_in_the_smt_half() -> None:
    # the code is right, the statement is not: z3 finds the counterexample (or the runs contradict it)
    assert_fails(code_schedule.check_paper_schedule(SMALL_K, last_weight=3), "K=", "n=")
    assert_fails(code_schedule.check_spend_formula(SMALL_K, last_weight=3), "spent")
    assert_fails(code_schedule.check_budget_percentage(SMALL_K, threshold=101), "the contract")


def test_smt_half_alone_finds_a_wrong_spend_weight() -> None:
    assert code_schedule._paper_spend_counterexample(5, 2) is None
    found = code_schedule._paper_spend_counterexample(5, 3)
    assert found is not None and "n=" in found
    assert code_schedule._spend_counterexample(2) is None
    assert code_schedule._spend_counterexample(3) is not None


def test_the_lemmas_for_every_k_and_d_hold() -> None:
    assert code_schedule._divisor_lemmas_counterexample() is None
    assert code_schedule._bracket_counterexample() is None
    assert code_schedule._level_every_k_counterexample() is None


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


def test_fast_sr_ignoring_the_tolerance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    elimination = importlib.import_module("sysrs_ref.fast._elimination")
    monkeypatch.setattr(elimination, "tolerance", lambda n_terms, largest: 0.0 * largest)
    outcome = code_fast_exhaustive.check_fast_certified(
        tiers=((4, code_fast_exhaustive.GRIDS[4]),), algorithms=("sysrs",)
    )
    assert_fails(outcome, "sysrs (", "reference (")


def test_the_default_domain_reaches_the_exactly_float_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The UCB cut's shortcut for scores that are each exactly their float is run by code-fast-certified's default."""
    runs = importlib.import_module("sysrs_ref.fast._ucb_runs")
    original = runs.Runs.identity
    reached: list[bool] = []

    def identity(self: Any, rows: Any, positions: Any) -> Any:
        reached.append(bool(self.setup.first_exact))
        return original(self, rows, positions)

    monkeypatch.setattr(runs.Runs, "identity", identity)
    float_tiers = [tier for tier in code_fast_exhaustive.DEFAULT_TIERS if tier[1] == code_fast_exhaustive.FLOAT_GRID]
    assert float_tiers and all(
        float(level).as_integer_ratio() == level.as_integer_ratio() for _, grid in float_tiers for level in grid
    )
    with compiled.numpy_only():
        outcome = code_fast_exhaustive.check_fast_certified(tiers=float_tiers, algorithms=("syucbe",))
    assert outcome.status is Status.HOLDS
    assert any(reached)


@needs_compiled
def test_fast_ucb_top_trusting_near_float_means_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chosen model alone (as reproduce asks for it): a compiled top that never hands a near tie of float means
    to the exact steps chooses by the float order, and code-fast-certified finds it."""
    compiled_passes = importlib.import_module("sysrs_ref.fast._compiled")
    original = compiled_passes.ucb_top

    def far_apart(*args: Any) -> Any:
        top, leaders = original(*args)
        leaders[:, :, 1] = -float("inf")
        return top, leaders

    monkeypatch.setattr(compiled_passes, "ucb_top", far_apart)
    outcome = code_fast_exhaustive.check_fast_certified(
        tiers=((4, code_fast_exhaustive.GRIDS[4]),), algorithms=("syucbe",)
    )
    assert_fails(outcome, "syucbe (compiled pass)", "reference (")


@needs_compiled
def test_fast_sr_exact_sums_of_the_wrong_numerators_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled SR decides close calls on exact numerator sums: given other numerators (each cell its own
    position), it splits the exact ties the priority must break, and code-fast-certified finds it."""
    table_module = importlib.import_module("sysrs_ref.fast._table")
    original = table_module.ScoreTable.numerators64

    def positions(self: Any) -> Any:
        numerators = original(self)
        return None if numerators is None else np.arange(numerators.size).reshape(numerators.shape)

    monkeypatch.setattr(table_module.ScoreTable, "numerators64", positions)
    outcome = code_fast_exhaustive.check_fast_certified(
        tiers=((4, code_fast_exhaustive.GRIDS[4]),), algorithms=("sysrs",)
    )
    assert_fails(outcome, "sysrs (compiled pass)", "reference (")


def test_the_default_domain_reaches_the_exact_sums_of_float_bands(monkeypatch: pytest.MonkeyPatch) -> None:
    """The UCB cut's exact-sum certification of float bands (numerators in int64) is run by code-fast-certified."""
    ucb = importlib.import_module("sysrs_ref.fast._ucb")
    original = ucb._equal_exact_sums
    settled: list[bool] = []

    def spy(*args: Any) -> Any:
        equal = original(*args)
        settled.append(bool(equal.any()))
        return equal

    monkeypatch.setattr(ucb, "_equal_exact_sums", spy)
    with compiled.numpy_only():
        outcome = code_fast_exhaustive.check_fast_certified(
            tiers=((4, code_fast_exhaustive.GRIDS[4]),), algorithms=("syucbe",)
        )
    assert outcome.status is Status.HOLDS
    assert any(settled)


def test_fast_matrices_are_one_per_orbit() -> None:
    """The 0/1 matrices up to row and column permutations: 7 of 2 x 2, 36 of 3 x 3 (OEIS A002724)."""
    levels = (Fraction(0), Fraction(1))
    for shape, count in (((2, 2), 7), ((3, 3), 36), ((2, 3), 13)):
        found = list(code_fast_exhaustive._orbit_representatives(levels, *shape))
        assert len(found) == count
        assert len({tuple(map(tuple, rows)) for rows in found}) == count


def _planted_source(relative: str, old: str, new: str) -> Callable[[str], str]:
    """The kernels' source as code_fast_static reads it, with *old* replaced by *new* (once) in *relative*."""

    def read(name: str) -> str:
        text = code_fast_static.read_source(name)
        if name == relative:
            assert text.count(old) == 1, (relative, old)
            text = text.replace(old, new)
        return text

    return read


@pytest.mark.parametrize(
    ("relative", "old", "new", "fragment"),
    [
        (  # a raw float comparison in the SR kernel, outside the tolerance
            "_elimination.py",
            "near = sums <= (smallest + tolerance(n_k, sums.max(axis=1)))[:, None]",
            "near = sums <= smallest[:, None]",
            "`sums <= smallest[:, None]` compares floats without a certified margin",
        ),
        (  # the same, written as a numpy call
            "_elimination.py",
            "near = sums <= (smallest + tolerance(n_k, sums.max(axis=1)))[:, None]",
            "near = np.less_equal(sums, smallest[:, None])",
            "`np.less_equal(sums, smallest[:, None])` compares floats without a certified margin",
        ),
        (  # the tolerance halved where it is used
            "_elimination.py",
            "tolerance(n_k, sums.max(axis=1))",
            "tolerance(n_k, sums.max(axis=1)) / 2",
            "narrows a certified margin",
        ),
        (  # the tolerance of a shorter sum
            "_elimination.py",
            "tolerance(n_k, sums.max(axis=1))",
            "tolerance(n_k - 1, sums.max(axis=1))",
            "tolerance of a changed count",
        ),
        (
            "_uniform.py",
            "margin = tolerance(m, ordered[:, 0])[:, None]",
            "margin = 0.5 * tolerance(m, ordered[:, 0])[:, None]",
            "narrows a certified margin",
        ),
        (  # SAR's gap difference trusted by its float sign alone
            "_accept_reject.py",
            "sure = forced | (left == 1) | (np.abs(difference) > margin)",
            "sure = forced | (left == 1)",
            "`difference > 0` compares floats",
        ),
        ("_ucb.py", "(nearest_up > theta + gap)", "(nearest_up > theta)", "`nearest_up > theta` compares floats"),
        ("_ucb_runs.py", "            runs.bounds.gap,\n", "            runs.bounds.gap / 2,\n", "is not bounds.gap"),
        (  # the compiled SR ignoring the tolerance
            "_csrc/phases.c",
            "if (value <= threshold) {",
            "if (value <= smallest) {",
            "`value <= smallest` compares floats",
        ),
        ("_csrc/phases.c", "* 0x1p-50 * largest;", "* 0x1p-51 * largest;", "not the proved"),
        ("_csrc/cut.inc", "if (index > value + gap) continue;", "if (index > value) continue;", "`index > value`"),
        ("_csrc/cut.inc", "double gap = settings[0];", "double gap = 0.5 * settings[0];", "not the proved"),
    ],
)
def test_a_kernel_comparing_floats_outside_the_margin_fails(relative: str, old: str, new: str, fragment: str) -> None:
    assert_fails(code_fast_static.check_tolerance_use(_planted_source(relative, old, new)), fragment)


def test_index_key_deciding_by_the_float_sign_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("sysrs_ref.algorithms.ucb_index")
    broken = mutated(module.IndexKey.__lt__, "if gap > self.tolerance:", "if gap > 0:")
    monkeypatch.setattr(module.IndexKey, "__lt__", broken)
    assert_fails(code_ucb.check_ucb_tolerance(), "IndexKey.__lt__ answers True where the exact indices say otherwise")


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
        "code-budget-text",
        "code-certify-tolerance",
        "code-ucb-tolerance",
        "code-fast-certified",
        "code-fast-tolerance-use",
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
    assert tested == {claim.id for claim in all_claims(Domains(max_k=SMALL_K)) if claim.id.startswith("code-")}


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


@pytest.mark.parametrize(
    "check",
    [
        lambda: code_schedule.check_paper_schedule(6, large_k=()),
        lambda: code_schedule.check_capped_schedule(6, large_k=()),
        lambda: code_schedule.check_spend_formula(4),
        lambda: code_schedule.check_budget_percentage(6),
        lambda: code_schedule.check_budget_text(4),
        code_certify.check_tolerance,
        code_ucb.check_ucb_tolerance,
        lambda: code_fast_exhaustive.check_fast_certified(
            tiers=((4, code_fast_exhaustive.GRIDS[4]),), algorithms=("sysrs", "syus")
        ),
        code_fast_static.check_tolerance_use,
    ],
    ids=["paper", "capped", "spend", "percentage", "budget-text", "certify", "ucb", "fast-certified", "fast-static"],
)
def test_the_code_claims_hold_on_the_code_as_it_is(check: Callable[[], Outcome]) -> None:
    """The fast target's audit of the code: each code claim on a small domain (the K >= 2048 branch of _level too).

    A bug planted in code these claims cover fails here, not only in the slow full run of ``python -m proofs_check``.
    """
    outcome = check()
    assert outcome.status == Status.HOLDS, outcome.detail
