"""The rules docs/contracts.md states for the vectors, recomputed from the prose and checked against every case.

Each test restates one rule as the contracts write it (the bounds' formulas
and conditions of §18.1, the too_large rule of §18.2, the exact family's
keys, the capped schedule of §6, budgets of §5) and checks it on the
committed vectors, and that the deviation the rule's cases were made for
(a float64 order, the literal capped reading, gaps of float sums) answers
otherwise on them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref import Instance, hardness, logbar
from sysrs_ref.algorithms.registry import ALGORITHMS
from sysrs_ref.conformance._float64 import float_answer, float_sar_by_sums
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.solve import EXACT_DRAWS_MAX
from sysrs_ref.conformance.values import parse_exact, scores_of

ROOT = Path(__file__).resolve().parents[2]
CASES: dict[str, dict[str, dict[str, Any]]] = {
    family: {
        case["id"]: case for case in json.loads((ROOT / "data" / "vectors" / f"{family}.json").read_text())["cases"]
    }
    for family in ("algorithms", "budgets", "bounds", "exact")
}


def _q(value: Any) -> Fraction:
    return parse_exact(value)


def _documented_bound(given: dict[str, Any]) -> tuple[Fraction, Fraction] | str:
    """(prefactor, exponent) by contracts §18.1, or the kind of refusal it states."""
    kind = given["bound"]
    if kind in ("sysrs", "sr", "ucbe"):
        instance = Instance(scores_of(given))
        k, length, n = instance.n_models, instance.n_queries, given["budget"]
        if not k <= n <= k * length:
            return "budget"
        h = hardness(instance)
        if kind == "ucbe":
            a = _q(given["a"])
            if h.h1 is None or not 0 < a <= Fraction(25, 36) * (n - k) / h.h1:
                return "conditions"
            return Fraction(2 * n * k), 2 * a / 25
        measure = h.h3 if kind == "sysrs" else h.h2
        if measure is None:
            return "conditions"
        return Fraction(k * (k - 1), 2), (n - k) / (logbar(k) * measure)
    n = given["n"]
    if kind == "bernstein_wor":
        big_n, eps, sigma2, bound_m = given["population"], _q(given["epsilon"]), _q(given["sigma2"]), _q(given["M"])
        if not (1 <= n <= big_n and eps > 0 and bound_m > 0 and 0 <= sigma2 <= bound_m**2):
            return "conditions"
        return Fraction(1), n * eps**2 / (2 * sigma2 + Fraction(2, 3) * bound_m * eps)
    if kind == "bernstein_paired":
        big_n, delta, sigma2 = given["population"], _q(given["delta"]), _q(given["sigma2"])
        if not (0 <= delta <= 1 and 1 <= n <= big_n and sigma2 >= 0):
            return "conditions"
        bound_m = 1 + delta  # the range of (Y - X) + Delta
        return Fraction(1), n * delta**2 / (2 * sigma2 + Fraction(2, 3) * bound_m * delta)
    assert kind == "lower"
    delta, s = _q(given["delta"]), _q(given["s"])
    if not (0 < delta < Fraction(1, 2) and delta <= s <= Fraction(1, 2) and n >= 1):
        return "conditions"
    variance = s - delta**2
    h3 = (2 * variance + Fraction(2, 3) * (1 + delta) * delta) / delta**2  # the one-model H_{3,i}
    return Fraction(1, 4), 11 * n / h3


@pytest.mark.parametrize("case_id", sorted(CASES["bounds"]))
def test_every_bound_case_follows_the_formulas_and_conditions_of_the_contracts(case_id: str) -> None:
    case = CASES["bounds"][case_id]
    if "scores_exact" in case["input"] and any(_q(x) > 1 for row in case["input"]["scores_exact"] for x in row):
        assert case["refused"] == "instance"
        return
    documented = _documented_bound(case["input"])
    if isinstance(documented, str):
        assert case["refused"] == documented
    else:
        expected = case["expected"]
        assert (_q(expected["prefactor"]["exact"]), _q(expected["exponent"]["exact"])) == documented


def test_every_bound_refusal_has_a_case() -> None:
    kinds = {case["refused"] for case in CASES["bounds"].values() if "refused" in case}
    assert kinds == {"conditions", "budget", "instance"}
    assert sum("refused" in case for case in CASES["bounds"].values()) >= 20


def _draws(case: dict[str, Any]) -> int:
    given = case["input"]
    k, length = len(given["scores_exact"]), len(given["scores_exact"][0])
    orders = 1 if ALGORITHMS[given["algorithm"]].synchronized else k
    return math.factorial(k) * math.prod([math.factorial(length)] * orders)


def test_too_large_is_exactly_more_than_a_million_draws() -> None:
    """Every exact case with a valid budget is refused too_large iff its draws number more than 10^6."""
    assert EXACT_DRAWS_MAX == 10**6
    for case_id, case in CASES["exact"].items():
        if case.get("refused") in ("budget", "params", "instance"):
            continue
        assert (case.get("refused") == "too_large") == (_draws(case) > EXACT_DRAWS_MAX), case_id
    sides = {
        (case["input"]["algorithm"], "refused" in case)
        for case_id, case in CASES["exact"].items()
        if re.search(r"-\d+x\d+-", case_id)
    }
    assert {(name, side) for name in ("us", "sysrs", "sar") for side in (False, True)} <= sides


def test_the_exact_outputs_have_the_documented_keys() -> None:
    for case_id, case in CASES["exact"].items():
        if "expected" not in case:
            continue
        expected, algorithm = case["expected"], case["input"]["algorithm"]
        topm = algorithm in ("sar", "sysar")
        assert set(expected) == {"error", "law", *(("top_m_law", "top_m_error") if topm else ())}, case_id
        assert all(key.isdigit() and _q(value["exact"]) > 0 for key, value in expected["law"].items()), case_id
        assert sum(_q(value["exact"]) for value in expected["law"].values()) == 1
        if topm:
            m = int(case["input"]["params"]["m"])
            assert all(len(key.split(",")) == m for key in expected["top_m_law"]), case_id
    for name in ("us", "sysrs", "ucbe"):  # a model never chosen has no key: the keys are indices, not positions
        assert set(CASES["exact"][f"exact-{name}-never-chosen"]["expected"]["law"]) == {"0", "2"}
    keys = CASES["exact"]["exact-sar-three-models-n4"]["expected"]["top_m_law"]
    assert "0,1" in keys and "1,0" in keys  # ranking order, not sorted


# Float64 orders of the budget expression p K L / 100 (contracts §5): each must miss the two every-order cases.
ORDERS: dict[str, Callable[[float, int, int], float]] = {
    "p*K*L/100": lambda p, k, n: p * k * n / 100,
    "p*(K*L)/100": lambda p, k, n: p * (k * n) / 100,
    "p/100*K*L": lambda p, k, n: p / 100 * k * n,
    "p/100*(K*L)": lambda p, k, n: p / 100 * (k * n),
    "p*0.01*K*L": lambda p, k, n: p * 0.01 * k * n,
    "p*K/100*L": lambda p, k, n: p * k / 100 * n,
    "p*L*K/100": lambda p, k, n: p * n * k / 100,
    "p*L/100*K": lambda p, k, n: p * n / 100 * k,
    "K*L/100*p": lambda p, k, n: k * n / 100 * p,
    "p*(K*L/100)": lambda p, k, n: p * (k * n / 100),
    "L*(K*p)/100": lambda p, k, n: n * (k * p) / 100,
    "p*L*(K/100)": lambda p, k, n: p * n * (k / 100),
    "floor(p*K*L)//100": lambda p, k, n: math.floor(p * k * n) // 100,
}


@pytest.mark.parametrize("case_id", ["budget-exact-32_3pct-K3-L1000", "budget-exact-1_14pct-K50-L100"])
def test_every_float_order_of_the_budget_misses_the_every_order_cases(case_id: str) -> None:
    case = CASES["budgets"][case_id]
    given = case["input"]
    p, k, n = Fraction(given["percentage"].rstrip("%")), given["K"], given["L"]
    assert case["expected"]["budget"] == math.floor(p * k * n / 100)
    for name, order in ORDERS.items():
        assert math.floor(order(float(p), k, n)) == case["expected"]["budget"] - 1, name


def _phase_lengths(case: dict[str, Any]) -> list[int]:
    """n_1, n_2, ... as the expected batches show them: the cumulative count of a model present in every batch."""
    batches = case["expected"]["batches"]
    last = case["expected"]["chosen"]
    counts, total = [], 0
    for batch in batches:
        total += sum(model == last for model, _ in batch)
        counts.append(total)
    return counts


@pytest.mark.parametrize("name", ["sr", "sysrs", "sar", "sysar"])
def test_the_algorithm_schedule_cases_show_the_contracts_schedule(name: str) -> None:
    """K = 4, L = 9, n = 33: (6, 8, 9), not the literal reading's (6, 9, 9); K = 5, n = 112: (12, 15, 20, 30)."""
    literal = CASES["algorithms"][f"{name}-schedule-capped-literal"]
    assert _phase_lengths(literal) == [6, 8, 9]
    logbar_case = CASES["algorithms"][f"{name}-schedule-logbar-float"]
    assert _phase_lengths(logbar_case) == [12, 15, 20, 30]
    answer = float_answer("algorithms", logbar_case["input"])
    assert answer is not None and first_difference("algorithms", logbar_case["expected"], answer) is not None


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_the_sar_gap_cases_catch_float_means_and_float_sums(number: int) -> None:
    case = next(c for i, c in CASES["algorithms"].items() if i.endswith(f"-exact-gap-{number}"))
    means, sums = float_answer("algorithms", case["input"]), float_sar_by_sums(case["input"])
    assert means is not None and sums is not None
    assert first_difference("algorithms", case["expected"], means) is not None
    assert first_difference("algorithms", case["expected"], sums) is not None


def test_the_lrf_refusals_and_the_rank_two_case_are_there() -> None:
    kinds = {i: c.get("refused") for i, c in CASES["algorithms"].items() if i.startswith("ucbe-lrf-refuse-")}
    assert set(kinds.values()) == {"params", "draw"} and len(kinds) == 7
    assert CASES["algorithms"]["ucbe-lrf-refuse-seed-2-64"]["input"]["draw"]["seed"] == 2**64
    assert CASES["algorithms"]["ucbe-lrf-rank2"]["input"]["params"]["rank"] == "2"
