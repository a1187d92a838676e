"""Uniform sampling baselines US and SyUS (Experiments, "Baselines").

Both evaluate every model on floor(n / K) queries without replacement and
return the model with the largest empirical mean. US takes each model's
queries from its own order; SyUS evaluates all models on the same queries
(the first floor(n / K) of the shared order).
"""

from __future__ import annotations

from fractions import Fraction

from sysrs_ref.algorithms.base import AlgorithmRun, Outcome, Request, Step, accept_scores, rank_by_mean
from sysrs_ref.draws import Draw
from sysrs_ref.schedule import Budget, budget_n

__all__ = ["syus", "us"]


def us(budget: int | Budget, draw: Draw) -> AlgorithmRun:
    """Uniform Sampling (US): each model on floor(n/K) queries of its own order.

    Needs an unsynchronized draw (one query order per model). One batch.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0], [0, 1, 0]])
    >>> drive(us(4, Draw(((0, 1, 2), (2, 1, 0)), (1, 0))), inst).ranking
    (0, 1)
    """
    return _uniform("us", budget, draw, synchronized=False)


def syus(budget: int | Budget, draw: Draw) -> AlgorithmRun:
    """Synchronized Uniform Sampling (SyUS): all models on the same floor(n/K) queries.

    Needs a synchronized draw (one shared query order). One batch.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0], [0, 1, 0]])
    >>> drive(syus(4, Draw(((2, 1, 0),), (1, 0))), inst).ranking  # tie on queries 2, 1
    (1, 0)
    """
    return _uniform("syus", budget, draw, synchronized=True)


def _uniform(name: str, budget: int | Budget, draw: Draw, *, synchronized: bool) -> AlgorithmRun:
    draw.require(draw.n_models, draw.n_queries, synchronized=synchronized, who=name)
    n_models = draw.n_models
    per_model = budget_n(budget, n_models, draw.n_queries) // n_models
    batch = tuple(
        Request(model, draw.order_of(model)[position]) for model in range(n_models) for position in range(per_model)
    )
    scores = accept_scores(batch, (yield batch))
    sums = [Fraction(0)] * n_models
    for request, score in zip(batch, scores, strict=True):
        sums[request.model] += score
    ranking = rank_by_mean(range(n_models), sums, [per_model] * n_models, draw.rank)
    return Outcome(name, ranking[0], ranking, len(batch), (Step(batch),))
