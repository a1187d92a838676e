"""The vectors' refusal cases: inputs the contract says to refuse, each with the kind of refusal it must meet.

Each family gets cases of the refusals that apply to it (docs/contracts.md,
"Refusals"): a budget below K or above K L, a draw that is no permutation or
of the wrong kind (one shared order given to SR), K = 1, a score outside
[0, 1], a parameter outside its domain, a bound asked outside the conditions
of its proof, an exact enumeration out of reach, and inputs wrong in two ways
at once, which pin the order of the checks (instance, params, budget, draw).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction

from sysrs_ref.conformance._case import Case
from sysrs_ref.conformance.values import JsonValue, matrix_json

__all__ = ["refusal_cases"]


def _bad_scores(scores: list[list[str]]) -> dict[str, JsonValue]:
    """A matrix given as exact texts (and as numbers), even where it is no valid instance."""
    return {
        "scores": [[float(Fraction(x)) for x in row] for row in scores],
        "scores_exact": [list(row) for row in scores],
    }


def _object(data: Mapping[str, object]) -> dict[str, JsonValue]:
    """*data* (plain JSON values) typed as a JSON object."""
    value = json.loads(json.dumps(data))
    assert isinstance(value, dict)
    return value


def _refusal(family: str, name: str, kind: str, note: str, data: dict[str, JsonValue]) -> Case:
    return Case(family, f"refuse-{name}", data, note, ("refusal",), refused=kind)


_BINARY = [["1", "0", "1"], ["0", "1", "1"], ["0", "0", "1"]]


def _run(
    algorithm: str, budget: int, orders: list[list[int]], priority: list[int], **more: JsonValue
) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {
        "algorithm": algorithm,
        "params": {},
        "K": 3,
        "L": 3,
        "budget": budget,
        **_bad_scores(_BINARY),
        "draw": {"query_orders": [list(order) for order in orders], "arm_priority": list(priority)},
    }
    data.update(more)
    return data


_ONE = [[0, 1, 2]]
_THREE = [[0, 1, 2], [2, 1, 0], [1, 0, 2]]


def _refusal_algorithm_cases() -> Iterator[Case]:
    yield _refusal("algorithms", "budget-below-K", "budget", "n = 2 < K = 3.", _run("sysrs", 2, _ONE, [0, 1, 2]))
    yield _refusal("algorithms", "budget-above-KL", "budget", "n = 10 > K L = 9.", _run("us", 10, _THREE, [0, 1, 2]))
    yield _refusal(
        "algorithms",
        "order-not-permutation",
        "draw",
        "Query order [0, 0, 2] repeats query 0.",
        _run("sr", 6, [[0, 1, 2], [0, 0, 2], [1, 0, 2]], [0, 1, 2]),
    )
    yield _refusal(
        "algorithms",
        "priority-not-permutation",
        "draw",
        "arm_priority [0, 1, 1] is no permutation of the models.",
        _run("syus", 6, _ONE, [0, 1, 1]),
    )
    yield _refusal(
        "algorithms",
        "synchronized-draw-to-sr",
        "draw",
        "SR needs one query order per model; a single shared order is a synchronized draw.",
        _run("sr", 6, _ONE, [0, 1, 2]),
    )
    yield _refusal(
        "algorithms",
        "orders-to-sysrs",
        "draw",
        "SySRs needs exactly one shared query order, got one per model.",
        _run("sysrs", 6, _THREE, [0, 1, 2]),
    )
    yield _refusal(
        "algorithms",
        "one-model",
        "instance",
        "K = 1: there is nothing to choose between.",
        {**_run("sysrs", 3, _ONE, [0]), "K": 1, **_bad_scores([["1", "0", "1"]])},
    )
    yield _refusal(
        "algorithms",
        "score-above-one",
        "instance",
        "A score of 3/2 is outside [0, 1].",
        {**_run("us", 6, _THREE, [0, 1, 2]), **_bad_scores([["3/2", "0", "1"], ["0", "1", "1"], ["0", "0", "1"]])},
    )
    yield _refusal(
        "algorithms",
        "shape-disagrees",
        "instance",
        "The case says L = 4 but its matrix has 3 columns.",
        {**_run("us", 6, _THREE, [0, 1, 2]), "L": 4},
    )
    yield _refusal(
        "algorithms",
        "ucbe-a-zero",
        "params",
        "UCB-E needs a > 0.",
        {**_run("ucbe", 6, _THREE, [0, 1, 2]), "params": {"a": "0"}},
    )
    yield _refusal(
        "algorithms",
        "sar-m-K",
        "params",
        "m = K = 3: SAR needs 1 <= m <= K - 1.",
        {**_run("sar", 6, _THREE, [0, 1, 2]), "params": {"m": "3"}},
    )
    yield _refusal(
        "algorithms",
        "unknown-parameter",
        "params",
        "SySRs takes no parameter 'a'.",
        {**_run("sysrs", 6, _ONE, [0, 1, 2]), "params": {"a": "1"}},
    )
    yield _refusal(
        "algorithms",
        "budget-before-draw",
        "budget",
        "Both the budget (2 < K) and the draw (SR given one order) are wrong: the budget is checked first.",
        _run("sr", 2, _ONE, [0, 1, 2]),
    )
    yield _refusal(
        "algorithms",
        "params-before-budget",
        "params",
        "Both the parameter (a = -1) and the budget (10 > K L) are wrong: parameters are checked first.",
        {**_run("syucbe", 10, _ONE, [0, 1, 2]), "params": {"a": "-1"}},
    )


def _schedule_refusals() -> Iterator[Case]:
    for name, kind, data, note in (
        ("budget-below-K", "budget", {"K": 4, "L": 10, "budget": 3}, "n = 3 < K = 4."),
        ("budget-above-KL", "budget", {"K": 4, "L": 10, "budget": 41}, "n = 41 > K L = 40."),
        ("one-model", "instance", {"K": 1, "L": 10, "budget": 5}, "K = 1: no schedule of K - 1 >= 1 phases."),
    ):
        yield _refusal("schedules", f"schedule-{name}", kind, note, dict(data))


def _budget_refusals() -> Iterator[Case]:
    for name, kind, data, note in (
        ("above-100", "budget", {"percentage": "101%", "K": 3, "L": 10}, "101% of K L is more than K L."),
        ("below-K", "budget", {"percentage": "5%", "K": 3, "L": 10}, "floor(5% of 30) = 1 < K = 3."),
        ("one-model", "instance", {"percentage": "50%", "K": 1, "L": 10}, "K = 1: no instance."),
    ):
        yield _refusal("budgets", f"budget-{name}", kind, note, _object(data))


def _hardness_refusals() -> Iterator[Case]:
    yield _refusal("hardness", "hardness-one-model", "instance", "K = 1.", _bad_scores([["1", "0"]]))
    yield _refusal(
        "hardness",
        "hardness-score-below-zero",
        "instance",
        "A score of -1/4.",
        _bad_scores([["1", "-1/4"], ["0", "1"]]),
    )


_TIED = _bad_scores([["1", "1", "0"], ["1", "0", "1"], ["0", "0", "1"]])
_UNIQUE = _bad_scores([["1", "1", "1", "0"], ["1", "1", "0", "0"], ["0", "1", "0", "0"]])


def _bound_cases() -> Iterator[Case]:
    for name, data, note in (
        ("sysrs-tied-best", {"bound": "sysrs", "budget": 6, **_TIED}, "Two models tie for the best: H3 is infinite."),
        ("sr-tied-best", {"bound": "sr", "budget": 6, **_TIED}, "Two models tie for the best: H2 is infinite."),
        (
            "ucbe-a-too-large",
            {"bound": "ucbe", "budget": 8, "a": "100", **_UNIQUE},
            "The UCB-E bound needs a <= 25/36 (n - K) / H1.",
        ),
        (
            "bernstein-wor-n-above-N",
            {"bound": "bernstein_wor", "n": 11, "population": 10, "epsilon": "1/2", "sigma2": "1/4", "M": "1"},
            "The lemma samples n <= N without replacement.",
        ),
        (
            "bernstein-wor-eps-zero",
            {"bound": "bernstein_wor", "n": 4, "population": 10, "epsilon": "0", "sigma2": "1/4", "M": "1"},
            "The lemma needs eps > 0.",
        ),
        ("lower-n-zero", {"bound": "lower", "n": 0, "delta": "1/10", "s": "3/10"}, "Theorem lower-bound needs n >= 1."),
    ):
        yield _refusal("bounds", f"bound-{name}", "conditions", note, _object(data))


def _large() -> dict[str, JsonValue]:
    scores = [[Fraction(k * k % 997, 1024) for k in range(40 * model + 1, 40 * model + 41)] for model in range(8)]
    return dict(matrix_json(scores))


def _exact_cases() -> Iterator[Case]:
    big = _large()
    for name in ("us", "sysrs"):
        yield _refusal(
            "exact",
            f"exact-{name}-too-large",
            "too_large",
            "8 models x 40 queries: far more draws than any exact enumeration can visit.",
            {"algorithm": name, "params": {}, "budget": 160, **big},
        )
    yield _refusal(
        "exact",
        "exact-budget-below-K",
        "budget",
        "n = 2 < K = 3.",
        {"algorithm": "sysrs", "params": {}, "budget": 2, **_TIED},
    )


def refusal_cases(family: str) -> list[Case]:
    """The refusal cases of *family*, in a fixed order."""
    makers: dict[str, Callable[[], Iterator[Case]]] = {
        "algorithms": _refusal_algorithm_cases,
        "schedules": _schedule_refusals,
        "budgets": _budget_refusals,
        "hardness": _hardness_refusals,
        "bounds": _bound_cases,
        "exact": _exact_cases,
    }
    return list(makers[family]())
