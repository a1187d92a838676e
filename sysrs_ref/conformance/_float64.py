"""A deliberately naive float64 implementation of the vectors' families: what exact arithmetic protects against.

It follows every rule of docs/contracts.md (ties by the arm priority, the
batches, the capped schedule, SAR's m') except one: it computes in IEEE
double precision, as most implementations do. Sums accumulate in the order
of the requests, means are sum / count, UCB indices mean + sqrt(a / count),
logbar(K) = 0.5 + sum 1.0 / i, a percentage is read as a float, and the
hardness measures come from two-pass float moments.

The vectors generator runs every case through it: a case whose float answer
differs from the exact one is tagged ``exactness`` and its note says what the
float implementation answers. The mutant adapters of the tests use it too.
It is no reference: never use it for anything else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from sysrs_ref.conformance.values import JsonValue

__all__ = ["float_answer", "float_sar_by_sums"]

Input = Mapping[str, JsonValue]


def _ints(value: JsonValue) -> list[int]:
    assert isinstance(value, list)
    return [int(x) for x in value if isinstance(x, int)]


def _matrix(data: Input) -> list[list[float]]:
    rows = data["scores"]
    assert isinstance(rows, list)
    return [[float(x) for x in row if isinstance(x, (int, float))] for row in rows if isinstance(row, list)]


def _logbar(n_models: int) -> float:
    return 0.5 + sum(1.0 / i for i in range(2, n_models + 1))


def _paper(n_models: int, budget: int) -> list[int]:
    return [math.ceil((budget - n_models) / (_logbar(n_models) * (n_models + 1 - k))) for k in range(1, n_models)]


def _spend(lengths: Sequence[int]) -> int:
    return sum(lengths) + lengths[-1]


def _schedule(n_models: int, n_queries: int, budget: int) -> list[int]:
    paper = _paper(n_models, budget)
    if paper[-1] <= n_queries and budget < n_models * n_queries:
        return paper

    def levels(level: int) -> list[int]:
        return [min(n_queries, -(-level // (n_models + 1 - k))) for k in range(1, n_models)]

    low, high = math.ceil((budget - n_models) / _logbar(n_models)), n_models * n_queries
    if _spend(levels(high)) <= budget:
        return levels(high)
    while high - low > 1:  # the largest level whose spend fits, by bisection
        middle = (low + high) // 2
        low, high = (middle, high) if _spend(levels(middle)) <= budget else (low, middle)
    return levels(low)


class _Run:
    """The state of one run: float sums (exact ones with *exact_means*), counts, the requests, the arm priority."""

    def __init__(self, data: Input, *, exact_means: bool = False) -> None:
        self.exact_means = exact_means
        self.scores = _matrix(data)
        self.n_models, self.n_queries = len(self.scores), len(self.scores[0])
        self.budget = int(str(data["budget"]))
        draw = data["draw"]
        assert isinstance(draw, Mapping)
        orders = draw["query_orders"]
        assert isinstance(orders, list)
        self.orders = [_ints(order) for order in orders]
        self.rank = {model: place for place, model in enumerate(_ints(draw["arm_priority"]))}
        self.sums: list[float | Fraction] = [Fraction(0) if exact_means else 0.0] * self.n_models
        self.counts = [0] * self.n_models
        self.batches: list[list[list[int]]] = []

    def query(self, model: int, position: int) -> int:
        return self.orders[model if len(self.orders) > 1 else 0][position]

    def evaluate(self, pairs: list[tuple[int, int]]) -> None:
        if pairs:
            self.batches.append([[model, self.query(model, position)] for model, position in pairs])
        for model, position in pairs:
            score = self.scores[model][self.query(model, position)]
            self.sums[model] += Fraction(score) if self.exact_means else score
            self.counts[model] += 1

    def mean(self, model: int) -> float | Fraction:
        return self.sums[model] / self.counts[model] if self.counts[model] else 0.0

    def by_mean(self, models: Sequence[int]) -> list[int]:
        """Best first: decreasing mean, ties by the arm priority."""
        return sorted(models, key=lambda m: (-self.mean(m), self.rank[m]))

    def answer(self, ranking: list[int]) -> dict[str, JsonValue]:
        spent = sum(self.counts)
        batches: list[JsonValue] = [[list(pair) for pair in batch] for batch in self.batches]
        return {"chosen": ranking[0], "ranking": list(ranking), "spent": spent, "batches": batches}


def _uniform(data: Input) -> dict[str, JsonValue]:
    run = _Run(data)
    each = run.budget // run.n_models
    run.evaluate([(model, position) for model in range(run.n_models) for position in range(each)])
    return run.answer(run.by_mean(range(run.n_models)))


def _phases(run: _Run, decide: Callable[[list[int]], None], active: list[int]) -> None:
    seen = 0
    for n_k in _schedule(run.n_models, run.n_queries, run.budget):
        run.evaluate([(model, position) for model in sorted(active) for position in range(seen, n_k)])
        seen = n_k
        decide(active)


def _successive_rejects(data: Input) -> dict[str, JsonValue]:
    run = _Run(data)
    active, eliminated = list(range(run.n_models)), []

    def decide(models: list[int]) -> None:
        worst = run.by_mean(models)[-1]
        models.remove(worst)
        eliminated.append(worst)

    _phases(run, decide, active)
    return run.answer(active + eliminated[::-1])


def _successive_accepts_rejects(data: Input, *, by_sums: bool = False) -> dict[str, JsonValue]:
    """SAR and SySAR in float64: gaps of float means (sum / count), or with *by_sums* of the float sums themselves."""
    run = _Run(data)
    params = data.get("params")
    assert isinstance(params, Mapping)
    m = int(str(params.get("m", "1")))
    active, accepted, rejected = list(range(run.n_models)), list[int](), list[int]()

    def decide(models: list[int]) -> None:
        if by_sums:  # every active model has the same count: the sums order them as the means would, exactly
            order = sorted(models, key=lambda m: (-run.sums[m], run.rank[m]))
            means = [run.sums[model] for model in order]
        else:
            order = run.by_mean(models)
            means = [run.mean(model) for model in order]
        places = m - len(accepted)
        accept = places >= len(order) or (places > 0 and means[0] - means[places] > means[places - 1] - means[-1])
        chosen = order[0] if accept else order[-1]
        (accepted if accept else rejected).append(chosen)
        models.remove(chosen)

    _phases(run, decide, active)
    return run.answer(accepted + active + rejected[::-1])


def _ucb(data: Input) -> dict[str, JsonValue]:
    return _ucb_run(data, exact_means=False)


def _ucb_indices(data: Input) -> dict[str, JsonValue]:
    """UCB-E with exact sums and means, but each index rounded to a double: float(mean) + sqrt(a / N)."""
    return _ucb_run(data, exact_means=True)


def _ucb_run(data: Input, *, exact_means: bool) -> dict[str, JsonValue]:
    run = _Run(data, exact_means=exact_means)
    params = data.get("params")
    assert isinstance(params, Mapping)
    a = float(str(params.get("a", "1")))
    run.evaluate([(model, 0) for model in range(run.n_models)])
    while sum(run.counts) < run.budget:
        open_models = [model for model in range(run.n_models) if run.counts[model] < run.n_queries]
        pick = min(open_models, key=lambda m: (-(float(run.mean(m)) + math.sqrt(a / run.counts[m])), run.rank[m]))
        run.evaluate([(pick, run.counts[pick])])
    return run.answer(run.by_mean(range(run.n_models)))


_ALGORITHMS: dict[str, Callable[[Input], dict[str, JsonValue]]] = {
    "us": _uniform,
    "syus": _uniform,
    "sr": _successive_rejects,
    "sysrs": _successive_rejects,
    "sar": _successive_accepts_rejects,
    "sysar": _successive_accepts_rejects,
    "ucbe": _ucb,
    "syucbe": _ucb,
}


def _schedules(data: Input) -> dict[str, JsonValue]:
    n_models, n_queries, budget = (int(str(data[key])) for key in ("K", "L", "budget"))
    lengths, paper = _schedule(n_models, n_queries, budget), _paper(n_models, budget)
    return {"n_k": list(lengths), "spend": _spend(lengths), "capped": lengths != paper, "paper_n_k": list(paper)}


def _budgets(data: Input) -> dict[str, JsonValue]:
    percentage = float(str(data["percentage"]).rstrip("%"))
    return {"budget": math.floor(percentage * int(str(data["K"])) * int(str(data["L"])) / 100)}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _cov(x: Sequence[float], y: Sequence[float]) -> float:
    mx, my = _mean(x), _mean(y)
    return _mean([(a - mx) * (b - my) for a, b in zip(x, y, strict=True)])


def _hardness(data: Input) -> dict[str, JsonValue]:
    rows = _matrix(data)
    means = [_mean(row) for row in rows]
    order = sorted(range(len(rows)), key=lambda m: (-means[m], m))
    best = order[0]
    mu = means[best]
    gaps = [mu - means[m] for m in order]
    deltas: list[JsonValue] = [gaps[1], *gaps[1:]]
    answer: dict[str, JsonValue] = {"best_mean": mu, "mean": _mean(means), "deltas": deltas}
    if gaps[1] == 0:
        return {**answer, "H1": None, "H2": None, "H3": None, "H3_prime": None, "arms": None}
    arms: list[dict[str, float | int | None]] = []
    for model in order[1:]:
        delta = mu - means[model]
        var_best, var, cov = _cov(rows[best], rows[best]), _cov(rows[model], rows[model]), _cov(rows[best], rows[model])
        v_star = var_best + var - 2 * cov
        bonus = 2 / 3 * (1 + delta) * delta
        cov_max = (mu - delta) * (1 - mu)
        numerator = -(delta**2) / 3 + delta * mu - delta / 3 - mu**2 + mu - 0.25
        arms.append(
            {
                "model": model,
                "delta": delta,
                "var": var,
                "cov": cov,
                "v_star": v_star,
                "theta": cov / cov_max if cov_max else None,
                "theta_star": numerator / cov_max if cov_max else None,
                "H2_i": 1 / delta**2,
                "H3_i": (2 * v_star + bonus) / delta**2,
                "H3p": (2 * var_best + 2 * var + bonus) / delta**2,
            }
        )

    def ordered_max(key: str) -> float:
        groups: dict[float, list[float]] = {}
        for arm in arms:
            value = arm[key]
            assert isinstance(value, float)
            groups.setdefault(float(arm["delta"] or 0.0), []).append(value)
        values = [h for group in groups.values() for h in sorted(group, reverse=True)]
        return max(position * h for position, h in enumerate(values, start=2))

    deltas_f = [float(d) for d in deltas if isinstance(d, float)]
    return {
        **answer,
        "H1": sum(1 / d**2 for d in deltas_f),
        "H2": max(i / deltas_f[i - 1] ** 2 for i in range(2, len(deltas_f) + 1)),
        "H3": ordered_max("H3_i"),
        "H3_prime": ordered_max("H3p"),
        "arms": [{key: value for key, value in arm.items() if key != "H3p"} for arm in arms],
    }


def float_answer(family: str, data: Input, *, indices_only: bool = False) -> dict[str, JsonValue] | None:
    """What the naive float64 implementation answers to a case input; None where it has no answer to compare.

    With *indices_only*, the implementation is exact but for UCB indices: it
    sums exactly and rounds each index float(mean) + sqrt(a / N) to a double
    (None for every case but UCB-E's and SyUCB-E's).

    >>> float_answer("budgets", {"percentage": "0.29%", "K": 100, "L": 1000})  # exactly 290
    {'budget': 289}
    >>> float_answer("schedules", {"K": 5, "L": 1000, "budget": 112})["paper_n_k"]  # exactly [12, 15, 20, 30]
    [12, 16, 20, 31]
    """
    try:
        if indices_only:
            ucb = family == "algorithms" and data.get("algorithm") in ("ucbe", "syucbe")
            return _ucb_indices(data) if ucb else None
        if family == "algorithms":
            algorithm = _ALGORITHMS.get(str(data.get("algorithm")))
            return None if algorithm is None else algorithm(data)
        solver = {"schedules": _schedules, "budgets": _budgets, "hardness": _hardness}.get(family)
        return None if solver is None else solver(data)
    except (ArithmeticError, ValueError, KeyError, IndexError, AssertionError):
        return None  # an input it cannot handle (a refusal case): nothing to compare


def float_sar_by_sums(data: Input) -> dict[str, JsonValue] | None:
    """SAR or SySAR in float64 with the gaps taken between float sums, not float means; None for other inputs.

    Exact for binary scores (integer sums are exact in doubles), so only
    cases with fractional scores tell it from exact arithmetic.
    """
    if data.get("algorithm") not in ("sar", "sysar"):
        return None
    try:
        return _successive_accepts_rejects(data, by_sums=True)
    except (ArithmeticError, ValueError, KeyError, IndexError, AssertionError):
        return None
