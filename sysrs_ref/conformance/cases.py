"""The inputs of the test vectors, family by family: small, deterministic, and chosen for their corners.

Every matrix and draw here comes from fixed data or from
``numpy.random.default_rng(seed)`` with a fixed seed, so regenerating the
vectors gives the same bytes. Scores are float64 values (binary, quarters, or
random doubles), so a JSON number and its exact "p/q" text name the same value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from sysrs_ref.algorithms.registry import ALGORITHMS
from sysrs_ref.conformance._case import Case
from sysrs_ref.conformance._pinning import pinning_cases
from sysrs_ref.conformance.values import JsonValue, matrix_json
from sysrs_ref.scores import decimal_text

__all__ = ["FAMILIES", "Case", "cases"]

Matrix = list[list[Fraction]]

#: The families, one vectors file each, in order.
FAMILIES = ("algorithms", "schedules", "budgets", "hardness", "bounds", "exact")


def _binary(rng: np.random.Generator, n_models: int, n_queries: int, p: float = 0.55) -> Matrix:
    return [[Fraction(int(x)) for x in row] for row in (rng.random((n_models, n_queries)) < p)]


def _doubles(rng: np.random.Generator, n_models: int, n_queries: int) -> Matrix:
    return [[Fraction(float(x)) for x in row] for row in rng.random((n_models, n_queries))]


def _quarters(rng: np.random.Generator, n_models: int, n_queries: int) -> Matrix:
    return [[Fraction(int(x), 4) for x in row] for row in rng.integers(0, 5, (n_models, n_queries))]


def _rows(*rows: str) -> Matrix:
    return [[Fraction(int(ch)) for ch in row] for row in rows]


@dataclass(frozen=True)
class _Corner:
    name: str
    note: str
    matrix: Callable[[np.random.Generator], Matrix]
    budget: Callable[[int, int], int]


_CORNERS = (
    _Corner(
        "binary", "random binary scores, a budget in the middle", lambda g: _binary(g, 4, 6), lambda k, l: (k * l) // 2
    ),
    _Corner(
        "ties-everywhere",
        "every model has the same row: every comparison is a tie, broken by the arm priority",
        lambda g: _rows(*["101001"] * 4),
        lambda k, l: (k * l) // 2,
    ),
    _Corner(
        "constant-rows",
        "all scores 1/2: every model ties at every step",
        lambda g: [[Fraction(1, 2)] * 5 for _ in range(3)],
        lambda k, l: 9,
    ),
    _Corner(
        "duplicate-models",
        "models 0 and 2 are identical best models (a tie for best)",
        lambda g: _rows("110110", "100100", "110110", "010001"),
        lambda k, l: 14,
    ),
    _Corner("budget-K", "n = K: one evaluation per model at most", lambda g: _binary(g, 4, 5), lambda k, l: k),
    _Corner("budget-KL", "n = K L: every pair can be evaluated", lambda g: _binary(g, 3, 5), lambda k, l: k * l),
    _Corner(
        "capped-schedule",
        "K = 4, L = 30, n = 100: the paper's n_3 = 31 > L, so the schedule is capped",
        lambda g: _binary(g, 4, 30, 0.5),
        lambda k, l: 100,
    ),
    _Corner("continuous", "random float64 scores in [0, 1)", lambda g: _doubles(g, 4, 7), lambda k, l: 15),
    _Corner(
        "quarters",
        "scores in {0, 1/4, 1/2, 3/4, 1}: ties between different rows",
        lambda g: _quarters(g, 5, 6),
        lambda k, l: 17,
    ),
    _Corner("two-models", "K = 2", lambda g: _binary(g, 2, 7), lambda k, l: 9),
    _Corner("one-query", "L = 1, so n = K", lambda g: _rows("1", "0", "1"), lambda k, l: 3),
    _Corner(
        "dominating",
        "model 3 scores 1 everywhere, the others rarely",
        lambda g: _rows("010000", "000100", "100010", "111111", "001000"),
        lambda k, l: 12,
    ),
    _Corner("random-a", "random binary, 5 x 8", lambda g: _binary(g, 5, 8), lambda k, l: 23),
    _Corner("random-b", "random binary, 6 x 9, a larger budget", lambda g: _binary(g, 6, 9, 0.6), lambda k, l: 40),
)

#: Exploration parameters for the UCB family: the paper's three, and the default first.
_EXPLORATION = ("1", "0.1", "10")


def _draw(rng: np.random.Generator, n_models: int, n_queries: int, synchronized: bool) -> dict[str, JsonValue]:
    priority = [int(x) for x in rng.permutation(n_models)]
    orders = [[int(x) for x in rng.permutation(n_queries)] for _ in range(1 if synchronized else n_models)]
    return {"query_orders": orders, "arm_priority": priority}


#: UCB-E-LRF's vector settings: small enough for the pure-Python fits, batches smaller than L so runs take steps.
_LRF_PARAMS = (
    {"batch": "2", "members": "8", "sweeps": "3"},
    {"warmup": "0", "batch": "2", "members": "8", "sweeps": "3"},
    {"batch": "3", "members": "4", "sweeps": "2", "bonus_on_observed": "0", "unseen_first": "1"},
)


def _lrf_cases() -> Iterator[Case]:
    """ucbe-lrf on every corner: the paper's variant, No Warm-up, and banditeval's options on a few corners."""
    for number, corner in enumerate(_CORNERS):
        matrix = corner.matrix(np.random.default_rng([2026, number]))
        n_models, n_queries = len(matrix), len(matrix[0])
        rng = np.random.default_rng([2028, number])
        params = _LRF_PARAMS if corner.name in ("binary", "ties-everywhere", "random-a") else _LRF_PARAMS[:2]
        for param in params:
            label = "-nowarmup" if param.get("warmup") == "0" else "-banditeval" if "unseen_first" in param else ""
            priority = [int(x) for x in rng.permutation(n_models)]
            cells = [int(x) for x in rng.permutation(n_models * n_queries)]
            draw: dict[str, JsonValue] = {
                "cell_order": cells,
                "arm_priority": priority,
                "seed": int(rng.integers(0, 2**53)),
            }
            yield Case(
                "algorithms",
                f"ucbe-lrf-{corner.name}{label}",
                {
                    "algorithm": "ucbe-lrf",
                    "params": dict(param),
                    "K": n_models,
                    "L": n_queries,
                    "budget": corner.budget(n_models, n_queries),
                    **matrix_json(matrix),
                    "draw": draw,
                },
                corner.note,
            )


def _algorithm_cases() -> Iterator[Case]:
    yield from _query_draw_cases()
    yield from _lrf_cases()


def _query_draw_cases() -> Iterator[Case]:
    for name, spec in ALGORITHMS.items():
        if spec.cells:
            continue
        for number, corner in enumerate(_CORNERS):
            rng = np.random.default_rng([2026, number])  # the same matrices for every algorithm
            matrix = corner.matrix(rng)
            n_models, n_queries = len(matrix), len(matrix[0])
            budget = corner.budget(n_models, n_queries)
            draws_rng = np.random.default_rng([2027, number, len(name)])
            params = [{"a": a} for a in _EXPLORATION] if "a" in spec.defaults else [{}]
            if "m" in spec.defaults:  # SAR, SySAR: a middle m first, then the extremes
                sizes = dict.fromkeys((max(1, n_models // 2), 1, n_models - 1))
                params = [{"m": str(m)} for m in sizes]
            if corner.name not in ("binary", "ties-everywhere", "random-a"):
                params = params[:1]  # the other exploration values on a few corners only
            for param in params:
                for repeat in range(2):
                    suffix = "".join(f"-{key}{value}" for key, value in param.items()) + f"-{repeat + 1}"
                    yield Case(
                        "algorithms",
                        f"{name}-{corner.name}{suffix}",
                        {
                            "algorithm": name,
                            "params": {key: decimal_text(Fraction(value)) for key, value in param.items()},
                            "K": n_models,
                            "L": n_queries,
                            "budget": budget,
                            **matrix_json(matrix),
                            "draw": _draw(draws_rng, n_models, n_queries, spec.synchronized),
                        },
                        corner.note,
                    )


def _schedule_cases() -> Iterator[Case]:
    shapes = ((2, 1), (2, 4), (3, 5), (4, 30), (4, 31), (5, 7), (10, 20), (80, 1000), (450, 541))
    for n_models, n_queries in shapes:
        full = n_models * n_queries
        budgets = sorted({n_models, n_models + 1, full // 3, full // 2, (4 * full) // 5, full - 1, full})
        for budget in (b for b in budgets if n_models <= b <= full):
            yield Case(
                "schedules",
                f"schedule-K{n_models}-L{n_queries}-n{budget}",
                {"K": n_models, "L": n_queries, "budget": budget},
            )


def _budget_cases() -> Iterator[Case]:
    for percentage in ("1.25%", "8%", "12%", "33.333%", "50%", "99.99%", "100%", "1%", "2.5%"):
        for n_models, n_queries in ((80, 1000), (450, 541), (39, 5761), (3, 100)):
            name = percentage.rstrip("%").replace(".", "_")
            yield Case(
                "budgets",
                f"budget-{name}pct-K{n_models}-L{n_queries}",
                {"percentage": percentage, "K": n_models, "L": n_queries},
            )


_HARDNESS_MATRICES: tuple[tuple[str, str, Callable[[], Matrix]], ...] = (
    ("binary-3x6", "three binary models", lambda: _rows("111011", "110001", "010010")),
    (
        "correlated",
        "the second model fails where the best fails",
        lambda: _rows("1110111101", "1100111001", "0100100001"),
    ),
    ("theta-negative", "theta_i = -1/2 < 0 (the Corollary's missing condition)", lambda: _rows("111110", "111001")),
    (
        "constant-rows",
        "zero variances: theta 0 below theta*, H3 < H2",
        lambda: [[Fraction(3, 4)] * 4, [Fraction(1, 2)] * 4],
    ),
    ("tied-best", "two best models: every H is infinite (null)", lambda: _rows("1101", "1011", "0001")),
    ("perfect-best", "mu* = 1: theta and theta* are 0/0 (null)", lambda: _rows("1111", "1011", "0110")),
    ("quarters", "scores in quarters", lambda: _quarters(np.random.default_rng(31), 4, 6)),
    ("doubles", "random float64 scores", lambda: _doubles(np.random.default_rng(32), 3, 5)),
)


def _hardness_cases() -> Iterator[Case]:
    for name, note, matrix in _HARDNESS_MATRICES:
        yield Case("hardness", f"hardness-{name}", dict(matrix_json(matrix())), note)


def _bound_cases() -> Iterator[Case]:
    instance = matrix_json(_rows("1110111101", "1100111001", "0100100001"))
    for bound, budget in (("sysrs", 12), ("sysrs", 30), ("sr", 12), ("sr", 30)):
        yield Case("bounds", f"bound-{bound}-n{budget}", {"bound": bound, "budget": budget, **instance})
    yield Case("bounds", "bound-ucbe-n30-a0.01", {"bound": "ucbe", "budget": 30, "a": "1/100", **instance})
    for n, population, epsilon, sigma2, bound_m in ((4, 10, "1/2", "1/4", "1"), (10, 10, "1/10", "1/100", "1")):
        yield Case(
            "bounds",
            f"bound-bernstein-wor-n{n}-N{population}",
            {
                "bound": "bernstein_wor",
                "n": n,
                "population": population,
                "epsilon": epsilon,
                "sigma2": sigma2,
                "M": bound_m,
            },
        )
    for n, population, delta, sigma2 in ((5, 5, "1/5", "4/25"), (20, 50, "1/10", "1/5"), (3, 3, "0", "1/9")):
        yield Case(
            "bounds",
            f"bound-bernstein-paired-n{n}-N{population}-d{delta}",
            {"bound": "bernstein_paired", "n": n, "population": population, "delta": delta, "sigma2": sigma2},
        )
    for n, delta, s in ((10, "1/10", "3/10"), (100, "1/20", "1/2")):
        yield Case("bounds", f"bound-lower-n{n}-d{delta}", {"bound": "lower", "n": n, "delta": delta, "s": s})


def _exact_cases() -> Iterator[Case]:
    matrices = (
        ("two-models", _rows("1110", "0101")),
        ("three-models", _rows("1101", "1010", "0110")),
        ("with-tie", _rows("110", "101", "011")),
    )
    for name, spec in ALGORITHMS.items():
        if spec.cells:  # no exact law: UCB-E-LRF's randomness includes a 64-bit stream seed
            continue
        for label, matrix in matrices:
            n_models, n_queries = len(matrix), len(matrix[0])
            for budget in sorted({n_models + 1, (n_models * n_queries) // 2, n_models * n_queries - 1}):
                params = {"a": "1"} if "a" in spec.defaults else {}
                if "m" in spec.defaults:  # SAR, SySAR: the top-2 set where there is one to find
                    params = {"m": str(min(2, n_models - 1))}
                yield Case(
                    "exact",
                    f"exact-{name}-{label}-n{budget}",
                    {"algorithm": name, "params": params, "budget": budget, **matrix_json(matrix)},
                )
    for name in ("us", "sysrs", "ucbe"):
        yield Case(
            "exact",
            f"exact-{name}-never-chosen",
            {
                "algorithm": name,
                "params": {"a": "1"} if name == "ucbe" else {},
                "budget": 11,
                **matrix_json(_rows("1101", "0000", "1011")),
            },
            'Model 1 scores 0 everywhere and is never chosen: law has no key "1", so the keys are model '
            "indices, not positions among the models that can be chosen (contracts §18.2).",
        )
    for name, rows, draws in (
        ("sysrs", ("110100101", "011011010"), "2! 9! = 725,760"),
        ("us", ("11010", "01101"), "2! (5!)^2 = 28,800"),
        ("sar", ("1101", "0110", "1001"), "3! (4!)^3 = 82,944"),
    ):
        yield Case(
            "exact",
            f"exact-{name}-{len(rows)}x{len(rows[0])}-largest",
            {
                "algorithm": name,
                "params": {"m": "1"} if name == "sar" else {},
                "budget": len(rows) * 2,
                **matrix_json(_rows(*rows)),
            },
            f"Just below the too_large threshold: {draws} draws <= 10^6, so it must be answered; one query more "
            "is refused (contracts §18.2).",
        )


def cases(family: str) -> list[Case]:
    """The inputs of one family, in a fixed order."""
    makers: dict[str, Callable[[], Iterator[Case]]] = {
        "algorithms": _algorithm_cases,
        "schedules": _schedule_cases,
        "budgets": _budget_cases,
        "hardness": _hardness_cases,
        "bounds": _bound_cases,
        "exact": _exact_cases,
    }
    return [*makers[family](), *pinning_cases(family)]
