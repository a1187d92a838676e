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
    yield from _lrf_refusals()


def _lrf(params: dict[str, str], cells: list[int], seed: int) -> dict[str, JsonValue]:
    """A UCB-E-LRF run on the 3 x 3 binary matrix, budget 6, with *params* and the draw (*cells*, *seed*)."""
    data = _run("ucbe-lrf", 6, _ONE, [0, 1, 2], params=dict(params))
    data["draw"] = {"cell_order": list(cells), "arm_priority": [0, 1, 2], "seed": seed}
    return data


_CELLS = [4, 0, 8, 2, 6, 1, 3, 7, 5]
_SMALL_LRF = {"batch": "2", "members": "4", "sweeps": "2"}


def _lrf_refusals() -> Iterator[Case]:
    """UCB-E-LRF's refusals (contracts §11.1, §16): ids start with ucbe-lrf- so that --exclude 'ucbe-lrf-*' drops them."""
    for name, kind, note, data in (
        (
            "dropout-below-domain",
            "params",
            "dropout 0.0005 is neither 0 nor in [0.001, 1) (contracts §11.1).",
            _lrf({**_SMALL_LRF, "dropout": "0.0005"}, _CELLS, 7),
        ),
        (
            "members-one",
            "params",
            "members = 1: the spread needs C >= 2 (contracts §11.1).",
            _lrf({"members": "1"}, _CELLS, 7),
        ),
        (
            "warmup-above-100",
            "params",
            "warmup 1.5e2 = 150 (an exponent is allowed) is above 100 (contracts §11.1).",
            _lrf({**_SMALL_LRF, "warmup": "1.5e2"}, _CELLS, 7),
        ),
        (
            "cell-order-not-permutation",
            "draw",
            "cell_order repeats cell 4 and lacks cell 5: no permutation of the K L = 9 cells (contracts §11.1).",
            _lrf(_SMALL_LRF, [4, 0, 8, 2, 6, 1, 3, 7, 4], 7),
        ),
        (
            "cell-order-short",
            "draw",
            "cell_order has 8 entries, a permutation of 0 .. 7, where K L = 9 (contracts §11.1).",
            _lrf(_SMALL_LRF, [4, 0, 2, 6, 1, 3, 7, 5], 7),
        ),
        (
            "seed-2-64",
            "draw",
            "seed = 2^64 is outside [0, 2^64): refuse it, never reduce it modulo 2^64 (contracts §11.1).",
            _lrf(_SMALL_LRF, _CELLS, 2**64),
        ),
        (
            "seed-negative",
            "draw",
            "seed = -1 is outside [0, 2^64) (contracts §11.1).",
            _lrf(_SMALL_LRF, _CELLS, -1),
        ),
    ):
        yield Case("algorithms", f"ucbe-lrf-refuse-{name}", data, note, ("refusal",), refused=kind)


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
    """The bounds' refusals (contracts §18.1 and §16), one rule each."""
    wor = {"bound": "bernstein_wor", "n": 4, "population": 10, "epsilon": "1/2", "sigma2": "1/4", "M": "1"}
    paired = {"bound": "bernstein_paired", "n": 5, "population": 5, "delta": "1/5", "sigma2": "4/25"}
    lower = {"bound": "lower", "n": 10, "delta": "1/10", "s": "3/10"}
    for name, kind, data, note in (
        (
            "sysrs-tied-best",
            "conditions",
            {"bound": "sysrs", "budget": 6, **_TIED},
            "Two models tie for the best: H3 is infinite.",
        ),
        (
            "sr-tied-best",
            "conditions",
            {"bound": "sr", "budget": 6, **_TIED},
            "Two models tie for the best: H2 is infinite.",
        ),
        (
            "ucbe-a-too-large",
            "conditions",
            {"bound": "ucbe", "budget": 8, "a": "100", **_UNIQUE},
            "The UCB-E bound needs a <= 25/36 (n - K) / H1.",
        ),
        (
            "ucbe-a-zero",
            "conditions",
            {"bound": "ucbe", "budget": 8, "a": "0", **_UNIQUE},
            "The UCB-E bound needs a > 0.",
        ),
        ("ucbe-tied-best", "conditions", {"bound": "ucbe", "budget": 6, "a": "1/100", **_TIED}, "H1 is infinite."),
        (
            "sysrs-budget-below-K",
            "budget",
            {"bound": "sysrs", "budget": 2, **_UNIQUE},
            "n = 2 < K = 3: a budget outside [K, K L] is a budget refusal, as for the algorithms.",
        ),
        ("sr-budget-above-KL", "budget", {"bound": "sr", "budget": 13, **_UNIQUE}, "n = 13 > K L = 12."),
        (
            "ucbe-budget-above-KL",
            "budget",
            {"bound": "ucbe", "budget": 13, "a": "1/100", **_UNIQUE},
            "n = 13 > K L = 12.",
        ),
        (
            "sysrs-score-above-one",
            "instance",
            {"bound": "sysrs", "budget": 6, **_bad_scores([["3/2", "0", "1"], ["0", "1", "1"], ["0", "0", "1"]])},
            "A score of 3/2: the matrix is no instance.",
        ),
        ("bernstein-wor-n-above-N", "conditions", {**wor, "n": 11}, "The lemma samples n <= N without replacement."),
        ("bernstein-wor-n-zero", "conditions", {**wor, "n": 0}, "The lemma needs n >= 1."),
        ("bernstein-wor-eps-zero", "conditions", {**wor, "epsilon": "0"}, "The lemma needs eps > 0."),
        ("bernstein-wor-M-zero", "conditions", {**wor, "M": "0"}, "The lemma needs M > 0."),
        ("bernstein-wor-sigma2-negative", "conditions", {**wor, "sigma2": "-1/4"}, "The lemma needs sigma^2 >= 0."),
        (
            "bernstein-wor-sigma2-above-M2",
            "conditions",
            {**wor, "sigma2": "5/4"},
            "sigma^2 = 5/4 > M^2 = 1: no distribution on [-M, M] has it.",
        ),
        ("bernstein-paired-delta-negative", "conditions", {**paired, "delta": "-1/5"}, "The lemma needs Delta >= 0."),
        ("bernstein-paired-delta-above-one", "conditions", {**paired, "delta": "6/5"}, "The lemma needs Delta <= 1."),
        ("bernstein-paired-n-above-N", "conditions", {**paired, "n": 6}, "The lemma needs n <= N."),
        (
            "bernstein-paired-sigma2-negative",
            "conditions",
            {**paired, "sigma2": "-1/25"},
            "The lemma needs sigma^2 >= 0.",
        ),
        ("lower-n-zero", "conditions", {**lower, "n": 0}, "Theorem lower-bound needs n >= 1."),
        ("lower-delta-zero", "conditions", {**lower, "delta": "0"}, "Theorem lower-bound needs Delta in (0, 1/2)."),
        (
            "lower-delta-half",
            "conditions",
            {**lower, "delta": "1/2", "s": "1/2"},
            "Theorem lower-bound needs Delta < 1/2.",
        ),
        ("lower-s-below-delta", "conditions", {**lower, "s": "1/20"}, "Theorem lower-bound needs s >= Delta."),
        (
            "lower-s-above-half",
            "conditions",
            {**lower, "s": "3/4"},
            "Theorem lower-bound needs s <= 1/2 (P(0,0) = 1 - s >= s), not merely s <= 1.",
        ),
    ):
        yield _refusal("bounds", f"bound-{name}", kind, note + " (contracts §18.1, §16)", _object(data))


def _large() -> dict[str, JsonValue]:
    scores = [[Fraction(k * k % 997, 1024) for k in range(40 * model + 1, 40 * model + 41)] for model in range(8)]
    return dict(matrix_json(scores))


def _exact_cases() -> Iterator[Case]:
    big = _large()
    for name, draws in (("us", "8! (40!)^8, about 7.9e387"), ("sysrs", "8! 40!, about 3.3e52")):
        yield _refusal(
            "exact",
            f"exact-{name}-too-large",
            "too_large",
            f"8 models x 40 queries: {draws} draws, far above the 10^6 of the too_large rule (contracts §18.2).",
            {"algorithm": name, "params": {}, "budget": 160, **big},
        )
    for name, rows, draws in (
        ("sysrs", ["1101001011", "0110110100"], "2! 10! = 7,257,600"),
        ("us", ["110100", "011011"], "2! (6!)^2 = 1,036,800"),
        ("sar", ["11010", "01101", "10011"], "3! (5!)^3 = 10,368,000"),
    ):
        yield _refusal(
            "exact",
            f"exact-{name}-{len(rows)}x{len(rows[0])}-too-large",
            "too_large",
            f"Just above the threshold: {draws} draws > 10^6, though this package's engines could enumerate it; "
            f"exact-{name}-...-largest, one query fewer, is answered (contracts §18.2).",
            {
                "algorithm": name,
                "params": {"m": "1"} if name == "sar" else {},
                "budget": len(rows) * 2,
                **_bad_scores([list(r) for r in rows]),
            },
        )
    yield _refusal(
        "exact",
        "exact-budget-below-K",
        "budget",
        "n = 2 < K = 3: the budget is checked before the too_large rule (contracts §18.2, §16).",
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
