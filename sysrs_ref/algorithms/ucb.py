"""UCB-E without replacement (Algorithm "UCB-E") and Synchronized UCB-E (Algorithm "SyUCB-E").

Warm-up: every model is evaluated once (one batch of K requests). Then, for
t = K+1 .. n, the selectable model with the largest exploration index
U_i = mu_i + sqrt(a / N_i) is evaluated on the next query of its order (one
request per step); a model that has seen all L queries is no longer
selectable (Experiments, "Baselines"). Finally the model with the largest
empirical mean is returned. UCB-E takes each model's queries from its own
order (its warm-up query is the first of that order, as good as a uniform
draw); SyUCB-E follows the shared order sigma, so a model's N-th evaluation is
on sigma(N), for every model.

Indices are compared exactly (:mod:`sysrs_ref.algorithms.ucb_index`); ties in
the index or in the final mean go to the model earlier in the arm priority.
"""

from __future__ import annotations

import heapq
from decimal import Decimal
from fractions import Fraction

from sysrs_ref.algorithms.base import (
    AlgorithmRun,
    Outcome,
    Request,
    Step,
    accept_scores,
    rank_by_mean,
)
from sysrs_ref.algorithms.ucb_index import IndexKey
from sysrs_ref.draws import Draw
from sysrs_ref.errors import ParameterError
from sysrs_ref.schedule import Budget, budget_n
from sysrs_ref.scores import parse_decimal

__all__ = ["exploration", "syucbe", "ucbe"]

#: The paper's experiments use a in {0.1, 1, 10} (and 100); a = 1 is its best for the 90% CB.
DEFAULT_A = Fraction(1)


def exploration(a: int | float | str | Fraction | Decimal) -> Fraction:
    """The exploration parameter a > 0 as an exact Fraction (a decimal string exactly: "0.1" is 1/10).

    >>> exploration("0.1"), exploration(10)
    (Fraction(1, 10), Fraction(10, 1))
    """
    if isinstance(a, bool):
        raise ParameterError(f"exploration parameter a must be a positive number, got {a!r}")
    try:
        value = parse_decimal(str(a)) if isinstance(a, (str, Decimal)) else _exact(a)
    except ValueError as err:
        raise ParameterError(f"exploration parameter a {err}") from None
    if value <= 0:
        raise ParameterError(f"exploration parameter a must be positive, got {a}")
    return value


def _exact(a: int | float | Fraction | Decimal) -> Fraction:
    if isinstance(a, float) and not a == a:
        raise ValueError("is nan")
    try:
        return Fraction(a)
    except (OverflowError, ValueError):
        raise ValueError(f"is {a}, not a finite number") from None
    except TypeError:
        raise ValueError(f"is {a!r}, not a number") from None


def ucbe(budget: int | Budget, draw: Draw, a: int | float | str | Fraction | Decimal = DEFAULT_A) -> AlgorithmRun:
    """UCB-E without replacement (Appendix "Algorithms", Algorithm UCB-E), exploration *a*.

    Needs an unsynchronized draw (one query order per model).

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0], [0, 1, 0]])
    >>> out = drive(ucbe(4, Draw(((0, 1, 2), (0, 1, 2)), (1, 0)), a=1), inst)
    >>> out.chosen, [tuple(r) for r in out.requests]
    (0, [(0, 0), (1, 0), (0, 1), (0, 2)])
    """
    return _ucb("ucbe", budget, draw, exploration(a), synchronized=False)


def syucbe(budget: int | Budget, draw: Draw, a: int | float | str | Fraction | Decimal = DEFAULT_A) -> AlgorithmRun:
    """Synchronized UCB-E (Appendix "Algorithms", Algorithm SyUCB-E), exploration *a*.

    Needs a synchronized draw (one shared query order sigma).

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0], [0, 1, 0]])
    >>> drive(syucbe(5, Draw(((2, 1, 0),), (0, 1)), a="0.1"), inst).ranking
    (0, 1)
    """
    return _ucb("syucbe", budget, draw, exploration(a), synchronized=True)


def _ucb(name: str, budget: int | Budget, draw: Draw, a: Fraction, *, synchronized: bool) -> AlgorithmRun:
    draw.require(draw.n_models, draw.n_queries, synchronized=synchronized, who=name)
    n_models, n_queries = draw.n_models, draw.n_queries
    n = budget_n(budget, n_models, n_queries)
    tolerance = IndexKey.tolerance_for(a)
    sums = [Fraction(0)] * n_models
    counts = [0] * n_models

    warm_up = tuple(Request(model, draw.order_of(model)[0]) for model in range(n_models))
    for request, score in zip(warm_up, accept_scores(warm_up, (yield warm_up)), strict=True):
        sums[request.model] += score
        counts[request.model] += 1
    trace = [Step(warm_up)]

    def key(model: int) -> IndexKey:
        mean = sums[model] / counts[model]
        return IndexKey(model, mean, counts[model], draw.rank[model], a, tolerance)

    heap = [key(model) for model in range(n_models) if counts[model] < n_queries]
    heapq.heapify(heap)
    for _ in range(n - n_models):
        if not heap:  # every model has seen every query (only when n = K*L)
            break
        model = heapq.heappop(heap).model
        request = Request(model, draw.order_of(model)[counts[model]])
        batch = (request,)
        (score,) = accept_scores(batch, (yield batch))
        sums[model] += score
        counts[model] += 1
        trace.append(Step(batch))
        if counts[model] < n_queries:
            heapq.heappush(heap, key(model))

    ranking = rank_by_mean(range(n_models), sums, counts, draw.rank)
    return Outcome(name, ranking[0], ranking, sum(counts), tuple(trace))
