"""The decision claims: the rules hold on the reference, and a planted bug in any decision fails them.

Each planted bug compiles a wrong copy of the real function (its source with
one change) and patches it in; the check, on a small domain, must report
``fails`` with a counterexample naming the wrong decision, both by symbolic
execution and by the exhaustive runs.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from collections.abc import Callable
from fractions import Fraction

import pytest

from proofs_check import Method, Status, code_decisions
from proofs_check.code_decisions import Cells, check_decisions, decision_problem, exhaustive_problem
from proofs_check.code_symbolic import ContractsBound, Variant
from proofs_check.decision_rules import (
    eliminated,
    exact_index_sign,
    ranked_by_mean,
    sar_leaver,
    ucb_choice_problem,
    uniform_allocation,
)
from sysrs_ref.algorithms.base import AlgorithmRun, Outcome, Step
from sysrs_ref.algorithms.ucb_index import IndexKey, compare_indices
from sysrs_ref.draws import Draw
from tests.planted import assert_fails, mutated

TINY = ContractsBound(max_k=3, max_l=1, max_l_two=2)  # K = 2 with L <= 2, K = 3 with L = 1: well under a second
SMALL_CELLS = Cells(binary=6, ternary=4, max_k=3)
FAMILY = {family.id.removeprefix("code-decisions-"): family for family in code_decisions.FAMILIES}


def _patch(monkeypatch: pytest.MonkeyPatch, module_name: str, name: str, old: str, new: str) -> None:
    module = importlib.import_module(module_name)
    monkeypatch.setattr(module, name, mutated(getattr(module, name), old, new))


# --- the rules, on examples worked by hand ---------------------------------------------------------------------------


def test_uniform_allocation_is_floor_n_over_k() -> None:
    assert [uniform_allocation(n, 3) for n in range(3, 13)] == [n // 3 for n in range(3, 13)]


def test_elimination_takes_the_latest_tied_model_in_the_priority() -> None:
    half = Fraction(1, 2)
    assert eliminated([0, 1, 2], [half, half, Fraction(1)], (0, 1, 2)) == 1
    assert eliminated([0, 1, 2], [half, half, Fraction(1)], (1, 0, 2)) == 0
    assert eliminated([0, 2], [Fraction(0), half, Fraction(1)], (2, 0, 1)) == 0


def test_sar_rejects_at_equal_gaps_and_accepts_a_larger_lead() -> None:
    # docs/contracts.md section 10: sums 4, 3, 1, 0 over 4 queries, m' = 2: both gaps are 3/4, reject 3
    means = [Fraction(1), Fraction(3, 4), Fraction(1, 4), Fraction(0)]
    assert sar_leaver([0, 1, 2, 3], means, (0, 1, 2, 3), 2) == (3, False)
    assert sar_leaver([0, 1, 2], means, (0, 1, 2, 3), 2) == (0, True)  # lead 3/4 > deficit 1/2
    assert sar_leaver([1, 2], means, (0, 1, 2, 3), 1) == (2, False)
    assert sar_leaver([1, 2], means, (0, 1, 2, 3), 0) == (2, False)
    assert sar_leaver([1, 2], means, (0, 1, 2, 3), 2) == (1, True)
    tied = [Fraction(1, 2)] * 3
    assert sar_leaver([0, 1, 2], tied, (2, 0, 1), 1) == (1, False)  # all tie: reject the latest in the priority
    # m' = 3, means 1, 1, 1/2, 0: sigma(1) and sigma(2) lead by 1, the only rejection gap is 1/2: accept the first
    # of sigma, which the priority decides
    leads = [Fraction(1), Fraction(1), Fraction(1, 2), Fraction(0)]
    assert sar_leaver([0, 1, 2, 3], leads, (0, 1, 2, 3), 3) == (0, True)
    assert sar_leaver([0, 1, 2, 3], leads, (1, 0, 2, 3), 3) == (1, True)


def test_ranking_by_mean_breaks_ties_by_priority() -> None:
    assert ranked_by_mean([0, 1, 2], [Fraction(1, 2), Fraction(1, 2), Fraction(1)], (1, 2, 0)) == (2, 1, 0)


def test_a_root_of_the_equality_with_the_wrong_sign_is_no_tie() -> None:
    """0 + sqrt(1/100) < 3/20 + sqrt(1/400): solving sqrt(q) - sqrt(p) = r gives sqrt(p) = 1/10, but then
    sqrt(q) = 1/10 + r = -1/20 < 0, a root of the squared equation only: the indices are 1/10 and 1/5."""
    assert exact_index_sign(Fraction(0), 10, Fraction(3, 20), 40, Fraction(1, 10)) == -1
    assert exact_index_sign(Fraction(3, 20), 40, Fraction(0), 10, Fraction(1, 10)) == 1


def test_exact_index_sign_agrees_with_the_reference_on_a_grid() -> None:
    means = sorted({Fraction(s, n) for n in range(1, 7) for s in range(n + 1)})
    for a in (Fraction(1), Fraction(1, 10), Fraction(4)):
        for (m1, n1), (m2, n2) in itertools.product(
            [(m, n) for m in means for n in range(1, 7) if (m * n).denominator == 1], repeat=2
        ):
            assert exact_index_sign(m1, n1, m2, n2, a) == compare_indices(m1, n1, m2, n2, a), (m1, n1, m2, n2, a)
    assert exact_index_sign(Fraction(0), 1, Fraction(1, 2), 4, Fraction(1)) == 0  # 0 + 1 = 1/2 + 1/2


def test_ucb_choice_names_the_model_that_beats_the_chosen_one() -> None:
    signs = {(0, 1): -1, (1, 0): 1, (1, 2): 0, (2, 1): 0, (0, 2): -1, (2, 0): 1}
    assert ucb_choice_problem(1, [0, 1, 2], lambda i, j: signs[(i, j)], (0, 1, 2)) is None
    assert ucb_choice_problem(2, [0, 1, 2], lambda i, j: signs[(i, j)], (0, 1, 2)) == (
        "model 1 has an equal index and comes earlier in the priority"
    )
    assert ucb_choice_problem(0, [0, 1, 2], lambda i, j: signs[(i, j)], (0, 1, 2)) == "model 1 has a larger index"
    assert "not selectable" in (ucb_choice_problem(0, [1, 2], lambda i, j: 0, (0, 1, 2)) or "")


# --- the reference makes the rules' decisions ------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["uniform", "sr", "sar", "ucb"])
def test_the_reference_keeps_every_rule_on_a_small_domain(family: str) -> None:
    outcome = check_decisions(FAMILY[family], TINY, Cells(binary=4, ternary=3, max_k=3))
    assert outcome.status == Status.HOLDS, outcome.detail
    assert outcome.all_methods == ("symbolic", "bounded-exhaustive")
    assert "K = 2 with L <= 2, K in [3, 3] with L <= 1" in outcome.domain
    assert "{0, 1} for K L <= 4, and in {0, 1/2, 1} for K L <= 3" in outcome.domain


def test_a_run_is_checked_step_by_step() -> None:
    # SySRs on four identical rows (docs/contracts.md section 3): every elimination is a tie broken by priority
    draw = Draw(((0, 3, 1, 5, 4, 2),), (1, 3, 2, 0))
    rows = [[1, 0, 1, 0, 0, 1]] * 4
    assert decision_problem(Variant.of("sysrs"), rows, draw, 12) is None


# --- planted bugs: each fails symbolically and exhaustively, with a counterexample ----------------------------------

PLANTED = [
    pytest.param(
        "uniform",
        (
            "sysrs_ref.algorithms.uniform",
            "_uniform",
            "budget_n(budget, n_models, draw.n_queries) // n_models",
            "max(1, (budget_n(budget, n_models, draw.n_queries) - 1) // n_models)",
        ),
        ("us, scores", "the rule asks each model its first q ="),
        id="us-allocation-off-by-one",
    ),
    pytest.param(
        "uniform",
        (
            "sysrs_ref.algorithms.uniform",
            "_uniform",
            "budget_n(budget, n_models, draw.n_queries) // n_models",
            "min(-(-budget_n(budget, n_models, draw.n_queries) // n_models), draw.n_queries)",
        ),
        ("us, scores", "the rule asks each model its first q ="),
        id="us-allocation-ceil",
    ),
    pytest.param(
        "sr",
        ("sysrs_ref.algorithms.successive_rejects", "_by_sum", "-rank[model], model)", "rank[model], model)"),
        ("sr, scores", "eliminated model", "the rule eliminates model"),
        id="sr-tie-rule",
    ),
    pytest.param(
        "sr",
        (
            "sysrs_ref.algorithms.successive_rejects",
            "_successive_rejects",
            "worst = heapq.heappop(heap)[2]",
            "worst = (heap.sort() or heap.pop(1))[2]",
        ),
        ("sr, scores", "the rule eliminates model"),
        id="sr-second-worst",
    ),
    pytest.param(
        "sar",
        (
            "sysrs_ref.algorithms.successive_accepts_rejects",
            "sar_decision",
            "accept_gap > reject_gap",
            "accept_gap >= reject_gap",
        ),
        ("sar m=1, scores", "accepted model", "the rule rejects model"),
        id="sar-equal-gaps-accept",
    ),
]


@pytest.mark.parametrize(("family", "patch", "fragments"), PLANTED)
def test_a_planted_decision_bug_fails_both_ways(
    monkeypatch: pytest.MonkeyPatch, family: str, patch: tuple[str, str, str, str], fragments: tuple[str, ...]
) -> None:
    _patch(monkeypatch, *patch)
    outcome = check_decisions(FAMILY[family], TINY, SMALL_CELLS)
    assert_fails(outcome, *fragments)
    assert outcome.method == Method.SYMBOLIC  # the symbolic part found it first
    problem, _ = exhaustive_problem(FAMILY[family].exhaustive, SMALL_CELLS)
    assert problem is not None and fragments[-1] in problem, problem


def test_a_chosen_model_that_is_not_the_first_of_the_ranking_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """SR returning its last eliminated model as the chosen one, its ranking right: ``chosen`` is checked too."""
    _patch(
        monkeypatch,
        "sysrs_ref.algorithms.successive_rejects",
        "_successive_rejects",
        "return Outcome(name, winner, ranking, spent, tuple(trace))",
        "return Outcome(name, worst, ranking, spent, tuple(trace))",
    )
    outcome = check_decisions(FAMILY["sr"], TINY, SMALL_CELLS)
    assert_fails(outcome, "sr, scores", "(chosen ", "the rule (reverse elimination order) ranks")


def _one_batch_per_model(real: Callable[..., AlgorithmRun]) -> Callable[..., AlgorithmRun]:
    """US or SyUS asking the same requests in K batches, one per model: the same scores, the same ranking."""

    def run(name: str, budget: int, draw: Draw, *, synchronized: bool) -> AlgorithmRun:
        inner = real(name, budget, draw, synchronized=synchronized)
        batch = next(inner)
        parts = [tuple(request for request in batch if request.model == model) for model in range(draw.n_models)]
        scores: list[object] = []
        for part in parts:
            scores.extend((yield part))
        try:
            inner.send(scores)
        except StopIteration as stop:
            outcome: Outcome = stop.value
        return dataclasses.replace(outcome, trace=tuple(Step(part) for part in parts))

    return run


def test_a_uniform_allocation_asked_in_several_batches_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("sysrs_ref.algorithms.uniform")
    monkeypatch.setattr(module, "_uniform", _one_batch_per_model(module._uniform))
    outcome = check_decisions(FAMILY["uniform"], TINY, SMALL_CELLS)
    assert_fails(outcome, "us, scores", "queries per model in 2 batch(es)", "model-major, in one batch")


def test_a_flipped_ucb_tie_rule_fails_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        IndexKey, "__lt__", mutated(IndexKey.__lt__, "self.rank < other.rank", "self.rank > other.rank")
    )
    outcome = check_decisions(FAMILY["ucb"], TINY, SMALL_CELLS)
    assert_fails(outcome, "ucbe a=1, scores", "has an equal index and comes earlier in the priority")
    problem, _ = exhaustive_problem(FAMILY["ucb"].exhaustive, SMALL_CELLS)
    assert problem is not None and "equal index" in problem, problem


def test_a_ucb_index_without_its_square_root_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import sysrs_ref.algorithms.ucb as ucb

    # greedy on the mean: the model's count no longer matters
    monkeypatch.setattr(
        ucb, "_ucb", mutated(ucb._ucb, "IndexKey(model, mean, counts[model]", "IndexKey(model, mean, 1")
    )
    problem, _ = exhaustive_problem(FAMILY["ucb"].exhaustive, SMALL_CELLS)
    assert problem is not None and "has a larger index" in problem, problem


def test_the_command_line_widens_the_decision_domains(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from proofs_check.__main__ import main

    argv = ["--claim", "code-decisions-uniform", "--decisions", "2,2", "--decision-cells", "4,3", "--json"]
    assert main(argv) == 0
    (record,) = json.loads(capsys.readouterr().out)["claims"]
    assert record["status"] == "holds" and record["methods"] == ["symbolic", "bounded-exhaustive"]
    assert "K = 2 with L <= 4," in record["domain"]  # K = 2 keeps the default L <= 4
    assert "{0, 1} for K L <= 4, and in {0, 1/2, 1} for K L <= 3 (2 <= K <= 6)" in record["domain"]
    assert main(["--decision-cells", "4"]) == 2
