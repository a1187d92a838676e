"""The formula and exact-engine claims of proofs_check fail, with a counterexample, on deliberately broken code.

Each mutation compiles the real function with one change (:func:`tests.code_mutants.mutated`)
and patches it in where the claim's code finds it; every claim stops at its first counterexample, so these are quick.
"""

from __future__ import annotations

import importlib
from fractions import Fraction

import pytest

import sysrs_ref.theory.bounds as bounds
import sysrs_ref.theory.exact as exact
import sysrs_ref.theory.exact_sync as exact_sync
import sysrs_ref.theory.exact_unsync as exact_unsync
import sysrs_ref.theory.threshold as threshold
from proofs_check import code_exact, code_formulas
from proofs_check.common import parse, sym
from sysrs_ref import Instance
from sysrs_ref.algorithms.params import AlgorithmParams
from tests.planted import assert_fails, mutated

hardness_module = importlib.import_module("sysrs_ref.theory.hardness")  # the package re-exports a function of that name


def test_lower_bound_with_a_constant_of_10_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "lower_bound", mutated(bounds.lower_bound, "11 * n", "10 * n"))
    assert_fails(code_formulas.check_bound_formulas(), "lower_bound(n, Delta, s) at", "the proven formula")


def test_a_logbar_without_its_half_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        bounds,
        "_successive_rejects_bound",
        mutated(
            bounds._successive_rejects_bound,
            "(logbar(n_models) * measure)",
            "((logbar(n_models) - Fraction(1, 2)) * measure)",
        ),
    )
    assert_fails(code_formulas.check_bound_formulas(), "sysrs_bound, scores", "the proven bound has")


def test_a_bound_that_accepts_delta_at_one_half_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        bounds,
        "_check_lower",
        mutated(bounds._check_lower, "0 < delta < Fraction(1, 2)", "0 < delta <= Fraction(1, 2)"),
    )
    assert_fails(code_formulas.check_bound_formulas(), "Delta=1/2", "outside its domain")


def test_theta_star_numerator_with_another_constant_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        threshold,
        "theta_star_numerator",
        mutated(threshold.theta_star_numerator, "mu_star - Fraction(1, 4)", "mu_star - Fraction(1, 3)"),
    )
    assert_fails(code_formulas.check_bound_formulas(), "theta_star_numerator(mu, Delta)")


def test_h3_with_tied_models_in_the_loosest_order_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        hardness_module,
        "_ordered_max",
        mutated(hardness_module._ordered_max, "sorted(group, reverse=True)", "sorted(group)"),
    )
    assert_fails(code_formulas.check_hardness_formulas(), "H3", "definition")


def test_a_syus_tie_given_to_the_first_model_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    old = "        for model in tied:\n            _add(out, model, Fraction(weight, total * len(tied)))"
    monkeypatch.setattr(
        exact_sync,
        "syus_distribution",
        mutated(exact_sync.syus_distribution, old, "        _add(out, tied[0], Fraction(weight, total))"),
    )
    assert_fails(code_exact.check_exact_engines(), "syus {}, scores", "brute force")


def test_multisets_weighed_alike_instead_of_by_binomials_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Uniform over the multisets of values instead of over the queries: equal from L = 3 on only."""
    old = "    total = comb(sum(counts), size)\n    law: dict[int, Fraction] = {}\n    for taken, weight in submultisets(counts, size):"
    new = (
        "    total = sum(1 for _ in submultisets(counts, size))\n    law: dict[int, Fraction] = {}\n"
        "    for taken, _ in submultisets(counts, size):\n        weight = 1"
    )
    monkeypatch.setattr(exact_unsync, "_sum_law", mutated(exact_unsync._sum_law, old, new))
    assert_fails(code_exact.check_exact_engines(), "us {}, scores", "'brute force'")


def test_an_engine_listing_an_impossible_model_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model listed, those that cannot be returned with probability 0: the laws list positive ones only."""
    real = exact._deterministic_law

    def every_model(instance: Instance, name: str, budget: int, params: AlgorithmParams) -> dict[int, Fraction]:
        law = real(instance, name, budget, params)
        return {model: law.get(model, Fraction(0)) for model in range(instance.n_models)}

    monkeypatch.setattr(exact, "_deterministic_law", every_model)
    assert_fails(code_exact.check_exact_engines(), "law of the returned model", "'engine': {'0': '0', '1': '1'}")


def test_bayes_error_brute_force_is_the_sum_over_sequences() -> None:
    assert code_exact.brute_bayes_error(1, Fraction(1, 4), Fraction(1, 2)) == Fraction(3, 8)
    assert code_exact.check_bayes_error(lambda n, d, s: code_exact.brute_bayes_error(n, d, s) + (n == 6)) is not None


def test_traced_numbers_follow_one_path_and_refuse_concrete_reads() -> None:
    delta = code_formulas.Traced(sym("Delta"), Fraction(1, 4))
    path, result, conditions = code_formulas.trace(bounds.h3_two_arm, {"Delta": Fraction(1, 4), "V": Fraction(3, 16)})
    assert isinstance(result, code_formulas.Traced) and result.value == Fraction(28, 3)
    assert [relation for relation, _, _ in conditions] == ["<="] and len(path) == 1
    with pytest.raises(TypeError):
        _ = delta.numerator
    with pytest.raises(TypeError):
        _ = delta.denominator


def test_a_traced_value_differs_from_another_and_is_truthy_when_not_zero() -> None:
    """``!=`` and ``bool`` of a traced value are those of its exact value (each comparison is logged too)."""
    half = code_formulas.Traced(parse("1/2"), Fraction(1, 2))
    third = code_formulas.Traced(parse("1/3"), Fraction(1, 3))
    assert (half != third) is True and (half != half) is False and (half != Fraction(1, 2)) is False
    assert bool(half) and not bool(half - half)
