"""The vectors' pinning cases: exact arithmetic that float64 gets wrong, refusals, and tied suboptimal models.

The exactness matrices hold float64 values chosen so that a float64
implementation (sums in request order, means sum / count, UCB indices
mean + sqrt(a / count)) answers differently from exact arithmetic, with the
arm priority set so that it shows. Two traps are written by hand for every
algorithm: ``0.1 + 0.2`` against ``0.30000000000000004 + 0`` (a float tie
that is no exact tie) and ``1 + 2^-53 + 2^-53`` against ``2^-52 + 1 + 0`` (an
exact tie that float64 splits), and for UCB-E and SyUCB-E a third: two
indices mean + sqrt(1/N) at different counts that are exactly equal. The
rest were found by a seeded search over
small matrices of decimal-looking doubles and are kept here as literals, so
regenerating the vectors needs no search. Every case meant to pin exactness
is checked when the vectors are written: its ``exactness`` tag and its note
come from the float64 model (:mod:`sysrs_ref.conformance._float64`), and the
generator fails if the model agrees with the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction

import numpy as np

from sysrs_ref.algorithms.registry import ALGORITHMS
from sysrs_ref.conformance._case import Case
from sysrs_ref.conformance._refusals import refusal_cases
from sysrs_ref.conformance.values import JsonValue, matrix_json

__all__ = ["pinning_cases"]

_Matrix = list[list[float]]

_TRAPS: tuple[tuple[str, str, _Matrix, list[int]], ...] = (
    (
        "float-tie",
        "Model 0 scores 0.1 + 0.2, model 1 scores 0.30000000000000004 + 0: equal in float64, but model 1's exact "
        "sum is larger; the arm priority puts model 0 first, so a float tie goes to model 0.",
        [[0.1, 0.2], [0.30000000000000004, 0.0]],
        [0, 1],
    ),
    (
        "exact-tie",
        "Model 0 scores 1 + 2^-53 + 2^-53, model 1 scores 2^-52 + 1 + 0: the sums are exactly equal (a tie the arm "
        "priority gives to model 0), but float64 rounds model 0's running sum back to 1.",
        [[1.0, 2.0**-53, 2.0**-53], [2.0**-52, 1.0, 0.0]],
        [0, 1],
    ),
)

#: UCB-E and SyUCB-E with a = 1, n = 7: after the warm-up model 1 is asked three times, then the indices tie exactly.
_INDEX_TIE = (
    "index-tie",
    "UCB indices that are exactly equal: model 0's 0.2 + sqrt(1/1) and model 1's (1 + 1 + 0.20000000000000007 + "
    "0.6) / 4 + sqrt(1/4) are the same rational, a tie the arm priority gives to model 0 (request [0, 1]); in "
    "float64 model 1's index rounds to 1.2000000000000002 > 1.2 and it asks [1, 4] first.",
    [[0.2, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.20000000000000007, 0.6, 0.0]],
    [0, 1],
)

#: Found by the seeded search (algorithm, params, scores, budget, query orders, arm priority).
_FOUND: tuple[tuple[str, dict[str, str], _Matrix, int, list[list[int]], list[int]], ...] = (
    ("us", {}, [[0.0, 0.30000000000000004, 0.25], [0.2, 0.15, 0.4]], 5, [[2, 1, 0], [1, 2, 0]], [1, 0]),
    ("us", {}, [[1.0, 0.25, 0.3], [0.6, 0.8, 0.15]], 6, [[2, 1, 0], [2, 1, 0]], [0, 1]),
    ("us", {}, [[0.0, 0.05, 1.0, 0.0], [0.45, 0.1, 0.5, 0.25]], 7, [[3, 1, 2, 0], [1, 0, 2, 3]], [0, 1]),
    (
        "syus",
        {},
        [[0.3, 0.15, 2.220446049250313e-16, 0.6], [0.7, 0.30000000000000004, 0.5, 0.45]],
        4,
        [[3, 1, 2, 0]],
        [0, 1],
    ),
    ("syus", {}, [[0.25, 0.4, 0.3, 0.7], [0.8, 0.5, 0.6, 0.05]], 7, [[3, 0, 1, 2]], [0, 1]),
    ("syus", {}, [[0.5, 0.3, 0.6], [1.0, 0.9, 1.1102230246251565e-16], [1.0, 0.35, 0.1]], 6, [[0, 2, 1]], [0, 2, 1]),
    ("sr", {}, [[0.0, 0.30000000000000004, 0.25], [0.2, 0.15, 0.4]], 5, [[2, 1, 0], [1, 2, 0]], [1, 0]),
    ("sr", {}, [[1.0, 0.25, 0.3], [0.6, 0.8, 0.15]], 6, [[2, 1, 0], [2, 1, 0]], [0, 1]),
    ("sr", {}, [[0.0, 0.05, 1.0, 0.0], [0.45, 0.1, 0.5, 0.25]], 7, [[3, 1, 2, 0], [1, 0, 2, 3]], [0, 1]),
    ("sysrs", {}, [[0.25, 0.4, 0.3, 0.7], [0.8, 0.5, 0.6, 0.05]], 7, [[3, 0, 1, 2]], [0, 1]),
    (
        "sysrs",
        {},
        [[0.2, 0.15, 0.30000000000000004, 0.05, 0.25], [0.8, 0.2, 0.35, 0.0, 0.25]],
        5,
        [[3, 1, 4, 0, 2]],
        [0, 1],
    ),
    (
        "sysrs",
        {},
        [[0.0, 0.15, 0.35, 0.15], [0.9999999999999999, 0.1, 0.7, 0.0], [1.0, 0.2, 0.3, 0.2]],
        6,
        [[1, 2, 3, 0]],
        [0, 1, 2],
    ),
    ("sar", {"m": "1"}, [[0.0, 0.30000000000000004, 0.25], [0.2, 0.15, 0.4]], 5, [[2, 1, 0], [1, 2, 0]], [1, 0]),
    (
        "sar",
        {"m": "1"},
        [[1.1102230246251565e-16, 0.45, 0.2], [0.9999999999999999, 0.0, 0.7], [0.25, 0.1, 0.45]],
        8,
        [[1, 0, 2], [2, 1, 0], [2, 0, 1]],
        [1, 2, 0],
    ),
    (
        "sar",
        {"m": "1"},
        [[0.9999999999999999, 0.5, 0.8], [0.15, 0.2, 0.0], [1.0, 0.3, 0.9999999999999999]],
        9,
        [[2, 0, 1], [0, 2, 1], [2, 0, 1]],
        [2, 1, 0],
    ),
    (
        "sysar",
        {"m": "1"},
        [[0.2, 0.15, 0.30000000000000004, 0.05, 0.25], [0.8, 0.2, 0.35, 0.0, 0.25]],
        5,
        [[3, 1, 4, 0, 2]],
        [0, 1],
    ),
    (
        "sysar",
        {"m": "1"},
        [
            [0.9999999999999999, 0.25, 0.30000000000000004, 0.25],
            [0.9999999999999999, 0.9999999999999999, 0.8, 1.1102230246251565e-16],
            [0.1, 0.9, 0.4, 0.1],
        ],
        6,
        [[1, 3, 0, 2]],
        [1, 2, 0],
    ),
    (
        "sysar",
        {"m": "1"},
        [
            [0.1, 0.30000000000000004, 0.30000000000000004, 0.05],
            [0.35, 0.05, 0.9999999999999999, 0.5],
            [0.4, 0.25, 2.220446049250313e-16, 0.30000000000000004],
        ],
        6,
        [[3, 1, 2, 0]],
        [1, 2, 0],
    ),
    ("ucbe", {"a": "10"}, [[1.1102230246251565e-16, 0.9, 0.45], [0.2, 0.8, 0.35]], 6, [[2, 1, 0], [1, 0, 2]], [1, 0]),
    (
        "ucbe",
        {"a": "10"},
        [[0.9999999999999999, 0.2, 0.4, 0.15], [0.3, 0.1, 0.4, 0.6]],
        3,
        [[0, 1, 3, 2], [3, 2, 0, 1]],
        [0, 1],
    ),
    (
        "ucbe",
        {"a": "1"},
        [[0.5, 1.1102230246251565e-16, 0.1, 1.0], [1.1102230246251565e-16, 0.0, 0.6, 0.45]],
        4,
        [[0, 2, 1, 3], [2, 1, 3, 0]],
        [1, 0],
    ),
    ("syucbe", {"a": "10"}, [[0.0, 0.30000000000000004, 0.25], [0.2, 0.15, 0.4]], 5, [[2, 1, 0]], [1, 0]),
    (
        "syucbe",
        {"a": "10"},
        [[0.9999999999999999, 0.25, 0.7], [0.9999999999999999, 0.6, 0.30000000000000004]],
        5,
        [[2, 0, 1]],
        [0, 1],
    ),
    (
        "syucbe",
        {"a": "0.1"},
        [[0.3, 0.25, 0.25], [0.45, 1.1102230246251565e-16, 0.3], [0.05, 0.2, 0.7]],
        5,
        [[2, 0, 1]],
        [2, 1, 0],
    ),
)

#: Found by a seeded search where exact sums and means but indices rounded to float64 answer otherwise.
_FOUND_INDICES: tuple[tuple[str, dict[str, str], _Matrix, int, list[list[int]], list[int]], ...] = (
    ("ucbe", {"a": "1"}, [[0.45, 1.0, 0.30000000000000004], [0.35, 0.4, 0.75]], 5, [[2, 0, 1], [1, 0, 2]], [1, 0]),
    (
        "ucbe",
        {"a": "2"},
        [[0.30000000000000004, 0.4, 0.1, 0.9], [0.25, 0.7, 0.5, 0.5]],
        5,
        [[0, 3, 2, 1], [1, 2, 3, 0]],
        [1, 0],
    ),
    (
        "ucbe",
        {"a": "1"},
        [[0.8, 0.75, 0.05, 0.1], [0.4, 0.8, 2.220446049250313e-16, 0.1]],
        7,
        [[2, 1, 3, 0], [2, 1, 3, 0]],
        [0, 1],
    ),
    ("syucbe", {"a": "2"}, [[0.6, 0.4, 0.5], [0.20000000000000007, 0.8, 0.25]], 5, [[0, 1, 2]], [0, 1]),
    (
        "syucbe",
        {"a": "4"},
        [[0.2, 0.20000000000000007, 0.6, 0.20000000000000007], [0.0, 0.20000000000000007, 0.6, 0.4]],
        7,
        [[3, 1, 0, 2]],
        [1, 0],
    ),
    (
        "syucbe",
        {"a": "2"},
        [[0.45, 1.1102230246251565e-16, 2.220446049250313e-16], [0.3, 0.9, 1.1102230246251565e-16], [0.7, 0.4, 0.05]],
        5,
        [[2, 1, 0]],
        [2, 1, 0],
    ),
)

#: Found by a seeded search where SAR's decision from float64 means and from float64 sums both answer otherwise.
_FOUND_GAPS: tuple[tuple[str, dict[str, str], _Matrix, int, list[list[int]], list[int]], ...] = (
    (
        "sar",
        {"m": "1"},
        [[0.05, 0.9, 0.8, 0.1], [0.9, 0.6, 0.1, 0.6], [0.20000000000000007, 0.8, 0.9, 1.0], [0.45, 0.6, 0.4, 0.55]],
        12,
        [[3, 0, 1, 2], [2, 0, 1, 3], [2, 1, 3, 0], [0, 3, 2, 1]],
        [2, 1, 3, 0],
    ),
    (
        "sar",
        {"m": "2"},
        [
            [1.1102230246251565e-16, 0.55, 0.7, 1.1102230246251565e-16, 0.3],
            [0.6, 0.7, 0.20000000000000007, 0.1, 0.6],
            [0.55, 0.0, 0.45, 0.3, 0.9],
            [0.55, 0.55, 1.0, 0.0, 0.15],
        ],
        19,
        [[2, 1, 3, 0, 4], [2, 1, 0, 4, 3], [1, 3, 4, 0, 2], [4, 2, 0, 3, 1]],
        [1, 3, 2, 0],
    ),
    (
        "sysar",
        {"m": "1"},
        [
            [0.85, 1.0, 0.5, 1.1102230246251565e-16, 0.9],
            [0.5, 0.85, 0.9, 0.20000000000000007, 0.7],
            [0.5, 0.75, 0.9999999999999999, 0.6, 0.85],
            [0.3, 0.25, 0.35, 0.85, 0.3],
        ],
        12,
        [[2, 0, 1, 4, 3]],
        [2, 1, 3, 0],
    ),
    (
        "sysar",
        {"m": "1"},
        [
            [0.30000000000000004, 0.2, 0.25, 0.0],
            [0.8, 0.3, 0.8, 1.1102230246251565e-16],
            [0.8, 0.05, 0.4, 0.20000000000000007],
        ],
        11,
        [[2, 1, 3, 0]],
        [1, 0, 2],
    ),
)

_GAP_NOTE = (
    "Found by a seeded search: SAR's accept and reject gaps computed in float64 decide otherwise, whether from "
    "float means (sum / count) or from float sums (contracts §10, §13)."
)

#: Algorithm runs whose schedule the literal capped reading, or a float64 logbar(K), changes (contracts §6).
_SCHEDULE_RUNS: tuple[tuple[str, int, int, int, str], ...] = (
    (
        "capped-literal",
        4,
        9,
        33,
        "K = 4, L = 9, n = 33: the capped schedule is (6, 8, 9); scaling the paper's rounded (5, 7, 10) by 9/7, "
        "the literal reading of 'reallocate proportionally', gives (6, 9, 9) and other batches (contracts §6).",
    ),
    (
        "logbar-float",
        5,
        32,
        112,
        "K = 5, n = 112: the paper's schedule is exactly (12, 15, 20, 30); with logbar(5) in float64 the quotients "
        "land just above 15 and 30 and ceil gives (12, 16, 20, 31): other batches (contracts §6, §13).",
    ),
)

#: UCB-E-LRF at rank 2: its ALS solves 2 x 2 systems by Gaussian elimination with partial pivoting (contracts §11.5).
_LRF_RANK = {"rank": "2", "batch": "2", "members": "4", "sweeps": "2"}

_INDEX_NOTE = (
    "Found by a seeded search: even with exact sums and means, UCB indices rounded to float64 "
    "(float(mean) + sqrt(a / N)) order these models otherwise."
)

_SEARCH_NOTE = "Found by a seeded search: float64 sums and means (and UCB indices) order these models otherwise."


def _algorithm_input(
    algorithm: str, params: dict[str, str], scores: _Matrix, budget: int, orders: list[list[int]], priority: list[int]
) -> dict[str, JsonValue]:
    return {
        "algorithm": algorithm,
        "params": dict(params),
        "K": len(scores),
        "L": len(scores[0]),
        "budget": budget,
        **matrix_json([[Fraction(x) for x in row] for row in scores]),
        "draw": {"query_orders": [list(order) for order in orders], "arm_priority": list(priority)},
    }


def _exactness_algorithm_cases() -> Iterator[Case]:
    for name, spec in ALGORITHMS.items():
        if spec.cells:
            continue
        params = {"a": "1"} if "a" in spec.defaults else {"m": "1"} if "m" in spec.defaults else {}
        traps = (*_TRAPS, _INDEX_TIE) if "a" in spec.defaults else _TRAPS
        for label, note, scores, priority in traps:
            n_models, n_queries = len(scores), len(scores[0])
            orders = [list(range(n_queries))] * (1 if spec.synchronized else n_models)
            budget = 7 if label == "index-tie" else n_models * n_queries
            data = _algorithm_input(name, params, scores, budget, orders, priority)
            yield Case("algorithms", f"{name}-exact-{label}", data, note, ("exactness",))
    for number, (name, params, scores, budget, orders, priority) in enumerate(_FOUND):
        data = _algorithm_input(name, params, scores, budget, orders, priority)
        yield Case("algorithms", f"{name}-exact-found-{number + 1}", data, _SEARCH_NOTE, ("exactness",))
    for number, (name, params, scores, budget, orders, priority) in enumerate(_FOUND_INDICES):
        data = _algorithm_input(name, params, scores, budget, orders, priority)
        yield Case("algorithms", f"{name}-exact-index-{number + 1}", data, _INDEX_NOTE, ("exactness",))
    for number, (name, params, scores, budget, orders, priority) in enumerate(_FOUND_GAPS):
        data = _algorithm_input(name, params, scores, budget, orders, priority)
        yield Case("algorithms", f"{name}-exact-gap-{number + 1}", data, _GAP_NOTE, ("exactness",))
    yield from _schedule_runs()
    yield _lrf_rank_case()


def _schedule_runs() -> Iterator[Case]:
    """SR, SySRs, SAR and SySAR on the shapes where a wrong schedule shows in the batches."""
    for label, n_models, n_queries, budget, note in _SCHEDULE_RUNS:
        rng = np.random.default_rng([2029, n_models, n_queries, budget])
        scores = [[float(x) for x in row] for row in (rng.random((n_models, n_queries)) < 0.5)]
        for name in ("sr", "sysrs", "sar", "sysar"):
            spec = ALGORITHMS[name]
            orders = [[int(x) for x in rng.permutation(n_queries)] for _ in range(1 if spec.synchronized else n_models)]
            priority = [int(x) for x in rng.permutation(n_models)]
            params = {"m": "2"} if "m" in spec.defaults else {}
            data = _algorithm_input(name, params, scores, budget, orders, priority)
            yield Case("algorithms", f"{name}-schedule-{label}", data, note)


def _lrf_rank_case() -> Case:
    rng = np.random.default_rng(2030)
    n_models, n_queries = 5, 6
    scores = [[float(x) for x in row] for row in (rng.random((n_models, n_queries)) < 0.55)]
    data: dict[str, JsonValue] = {
        "algorithm": "ucbe-lrf",
        "params": dict(_LRF_RANK),
        "K": n_models,
        "L": n_queries,
        "budget": 16,
        **matrix_json([[Fraction(x) for x in row] for row in scores]),
        "draw": {
            "cell_order": [int(x) for x in rng.permutation(n_models * n_queries)],
            "arm_priority": [int(x) for x in rng.permutation(n_models)],
            "seed": int(rng.integers(0, 2**53)),
        },
    }
    note = (
        "rank 2: every ALS update solves a 2 x 2 system by Gaussian elimination with partial pivoting, then back "
        "substitution (contracts §11.5); a rank-1 fit chooses model 2, not 3."
    )
    return Case("algorithms", "ucbe-lrf-rank2", data, note)


#: (K, n) where float64 logbar(K) puts (n - K) / (logbar(K) (K + 1 - k)) just above an integer: ceil is one more.
_FLOAT_CEILINGS = ((5, 112), (5, 219), (5, 326), (6, 357), (7, 300))


def _schedule_cases() -> Iterator[Case]:
    for n_models, budget in _FLOAT_CEILINGS:
        yield Case(
            "schedules",
            f"schedule-exact-K{n_models}-n{budget}",
            {"K": n_models, "L": 1000, "budget": budget},
            "logbar(K) in float64 is off by an ulp, which moves one phase length across an integer.",
            ("exactness",),
        )


_FLOAT_PERCENTAGES = (
    ("0.29%", 100, 1000),
    ("0.57%", 10, 1000),
    ("2.3%", 3, 1000),
    ("9.2%", 50, 200),
    ("32.3%", 3, 1000),
    ("1.14%", 50, 100),
)


_BUDGET_NOTE = "p K L / 100 is an integer, but with p read as a float64 the product falls just below it."

_EVERY_ORDER = (
    "p K L / 100 is an integer, and every float64 order of the expression falls just below it: p*K*L/100, "
    "p*(K*L)/100, p/100*K*L, p/100*(K*L), p*0.01*K*L, p*K/100*L, p*L*K/100, p*L/100*K, K*L/100*p, p*(K*L/100), "
    "L*(K*p)/100, p*L*(K/100), floor(p*K*L)//100 (contracts §5)."
)

_BUDGET_NOTES = {"32.3%": _EVERY_ORDER, "1.14%": _EVERY_ORDER}


def _budget_cases() -> Iterator[Case]:
    for percentage, n_models, n_queries in _FLOAT_PERCENTAGES:
        yield Case(
            "budgets",
            f"budget-exact-{percentage.rstrip('%').replace('.', '_')}pct-K{n_models}-L{n_queries}",
            {"percentage": percentage, "K": n_models, "L": n_queries},
            _BUDGET_NOTES.get(percentage, _BUDGET_NOTE),
            ("exactness",),
        )


_HARDNESS: tuple[tuple[str, str, tuple[str, ...], _Matrix], ...] = (
    (
        "tied-arms",
        "Models 1 and 2 tie at mean 1/2 with different rows: arms lists 1 before 2, and H3 places the one with the "
        "larger H_{3,i} first.",
        ("tied-arms",),
        [[1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]],
    ),
    (
        "tied-arms-h3-h3prime",
        "Models 1, 2 and 3 tie (mean 1/2): arms lists them as 1, 2, 3; H3 places them by decreasing H_{3,i} "
        "as 3, 1, 2, and H3' by decreasing H'_{3,i} as 1, 3, 2.",
        ("tied-arms",),
        [
            [1.0, 1.0, 1.0, 1.0, 0.0, 1.0],
            [1.0, 0.75, 0.0, 0.0, 0.25, 1.0],
            [0.5, 1.0, 0.25, 0.5, 0.25, 0.5],
            [0.0, 1.0, 0.25, 0.5, 1.0, 0.25],
        ],
    ),
    (
        "exact-best-float-tie",
        "Row 1's exact sum 1.5 - 2^-53 is below row 0's 1.5, but float64 rounds it to 1.5: a float tie for the best "
        "makes every H infinite (null) where the exact ones are finite.",
        ("exactness",),
        [[0.5, 1.0], [0.5, 0.9999999999999999], [0.30000000000000004, 1.0]],
    ),
    (
        "exact-sign-theta-star",
        "Found by a seeded search over small matrices of doubles: float64 moments lose a sign or an order here.",
        ("exactness",),
        [[2.0**-53, 2.0**-53], [0.9999999999999999, 2.0**-53], [2.0**-53, 0.45]],
    ),
    (
        "exact-sign-cov",
        "Found by a seeded search over small matrices of doubles: float64 moments lose a sign or an order here.",
        ("exactness",),
        [[0.9, 0.9999999999999999, 1.0], [0.8, 0.7, 0.25], [0.4, 0.4, 0.4]],
    ),
    (
        "exact-sign-v-star",
        "Found by a seeded search over small matrices of doubles: float64 moments lose a sign or an order here.",
        ("exactness",),
        [[0.45, 0.30000000000000004], [0.35, 0.5], [0.05, 0.2]],
    ),
    (
        "exact-arm-order",
        "Found by a seeded search over small matrices of doubles: float64 moments lose a sign or an order here.",
        ("exactness",),
        [[0.0, 2.0**-53, 0.9999999999999999], [0.30000000000000004, 0.3, 0.4], [0.1, 0.8, 0.9]],
    ),
)


def _hardness_cases() -> Iterator[Case]:
    for name, note, tags, scores in _HARDNESS:
        data = matrix_json([[Fraction(x) for x in row] for row in scores])
        yield Case("hardness", f"hardness-{name}", dict(data), note, tags)


def pinning_cases(family: str) -> list[Case]:
    """The exactness, tied-arms and refusal cases of *family*, in a fixed order."""
    makers: dict[str, Callable[[], Iterator[Case]]] = {
        "algorithms": _exactness_algorithm_cases,
        "schedules": _schedule_cases,
        "budgets": _budget_cases,
        "hardness": _hardness_cases,
    }
    return [*(makers[family]() if family in makers else ()), *refusal_cases(family)]
