"""Successive Rejects (SR, Audibert et al. 2010) and SySRs (the paper's Algorithm 1).

Both run K - 1 phases with the schedule of eq. (budget-schedule)
(:func:`sysrs_ref.schedule.schedule`, capped at L when needed). In phase k
every active model is evaluated on n_k - n_{k-1} new queries, then the model
with the lowest empirical mean over its n_k queries is eliminated. SR takes
each model's queries from its own order; SySRs evaluates all active models on
the *same* queries: positions n_{k-1} .. n_k - 1 of the shared order, a
uniform subset of the queries not used yet (Algorithm 1, line 5).

All active models have exactly n_k scores after phase k, so comparing means is
comparing exact sums. Ties are broken by the draw's arm priority: the tied
model latest in the priority is eliminated. A phase with no new queries
(n_k = n_{k-1}, e.g. n_k = 0 when n = K) still eliminates one model, the
current worst (all remaining models tie when nothing was seen).
"""

from __future__ import annotations

import heapq
from collections.abc import Generator, Sequence
from fractions import Fraction

from sysrs_ref.algorithms.base import AlgorithmRun, Batch, Outcome, Request, Step, accept_scores
from sysrs_ref.draws import Draw
from sysrs_ref.schedule import Budget, schedule

__all__ = ["phase_batch", "sr", "sysrs"]


def sr(budget: int | Budget, draw: Draw) -> AlgorithmRun:
    """Successive Rejects (SR): eliminate the worst model after each of K-1 phases.

    Needs an unsynchronized draw (one query order per model). One batch per phase.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0], [0, 1, 0], [0, 0, 0]])
    >>> out = drive(sr(9, Draw(((0, 1, 2),) * 3, (2, 1, 0))), inst)
    >>> out.ranking, out.spent
    ((0, 1, 2), 9)
    """
    return _successive_rejects("sr", budget, draw, synchronized=False)


def sysrs(budget: int | Budget, draw: Draw) -> AlgorithmRun:
    """Synchronized Successive Rejects (SySRs, Algorithm 1): SR on shared queries.

    Needs a synchronized draw (one shared query order). One batch per phase.

    >>> from sysrs_ref import Instance, Draw, drive
    >>> inst = Instance([[1, 1, 0, 1], [1, 0, 1, 0], [0, 0, 1, 0]])
    >>> out = drive(sysrs(9, Draw(((1, 3, 0, 2),), (0, 1, 2))), inst)
    >>> out.chosen, out.eliminated, out.spent
    (0, (2, 1), 8)
    """
    return _successive_rejects("sysrs", budget, draw, synchronized=True)


def phase_batch(
    draw: Draw, active: list[int], seen: int, n_k: int, sums: list[Fraction]
) -> Generator[Batch, Sequence[object], Batch]:
    """One phase of SR's schedule: every active model on positions *seen* .. *n_k* - 1 of its order.

    Yields the batch (if it is not empty), adds its scores to *sums*, and
    returns it; use as ``batch = yield from phase_batch(...)``. Shared by SR,
    SySRs, SAR and SySAR, which differ only in what they do after a phase.
    """
    batch = tuple(Request(model, draw.order_of(model)[position]) for model in active for position in range(seen, n_k))
    if batch:
        scores = accept_scores(batch, (yield batch))
        for request, score in zip(batch, scores, strict=True):
            sums[request.model] += score
    return batch


def _successive_rejects(name: str, budget: int | Budget, draw: Draw, *, synchronized: bool) -> AlgorithmRun:
    draw.require(draw.n_models, draw.n_queries, synchronized=synchronized, who=name)
    lengths = schedule(draw.n_models, draw.n_queries, budget)
    active = list(range(draw.n_models))
    gone: set[int] = set()  # eliminated since *active* was last rebuilt
    sums = [Fraction(0)] * draw.n_models
    trace: list[Step] = []
    spent = 0
    seen = 0  # n_{k-1}: queries each active model has been evaluated on
    heap: list[tuple[int, int, int]] | None = None  # the active models by (sum, -rank), while no sum changes
    for n_k in lengths:
        batch: tuple[Request, ...] = ()
        if n_k > seen:  # a phase with no new queries changes no sum: the heap stays valid (K phases cost K log K)
            if gone:
                active = [model for model in active if model not in gone]
                gone.clear()
            batch = yield from phase_batch(draw, active, seen, n_k, sums)
            heap = None
        if heap is None:
            heap = _by_sum(sums, [model for model in active if model not in gone], draw.rank)
        worst = heapq.heappop(heap)[2]  # the lowest sum; among ties, the model latest in the priority
        gone.add(worst)
        spent += len(batch)
        seen = n_k
        trace.append(Step(batch, eliminated=worst))
    (winner,) = (model for model in active if model not in gone)
    ranking = (winner, *(step.eliminated for step in reversed(trace) if step.eliminated is not None))
    return Outcome(name, winner, ranking, spent, tuple(trace))


def _by_sum(sums: list[Fraction], models: list[int], rank: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """A heap of *models* by (sum, -rank): each sum replaced by its place among the distinct sums (ints compare fast)."""
    place = {total: index for index, total in enumerate(sorted({sums[model] for model in models}))}
    heap = [(place[sums[model]], -rank[model], model) for model in models]
    heapq.heapify(heap)
    return heap
