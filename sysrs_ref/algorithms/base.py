"""What every algorithm shares: requests, outcomes, and the step-generator protocol.

An algorithm run is a generator (docs/contracts.md). It yields a *batch* of
evaluation requests (a tuple of :class:`Request`), receives the batch's
scores (a sequence of the same length, in the same order) through
``generator.send``, and finally returns an :class:`Outcome`. It never sees the
scores it did not ask for, and never touches any randomness but its
:class:`~sysrs_ref.draws.Draw`. Within a batch, requests are ordered by model
index, then by position in the model's query order.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from sysrs_ref._words import counted
from sysrs_ref.errors import ScoreError
from sysrs_ref.scores import as_score

__all__ = [
    "AlgorithmRun",
    "Batch",
    "Outcome",
    "Request",
    "Step",
    "accept_scores",
    "rank_by_mean",
]


class Request(NamedTuple):
    """One evaluation: score *model* on *query*."""

    model: int
    query: int


Batch = tuple[Request, ...]


@dataclass(frozen=True)
class Step:
    """One batch the algorithm asked for, and the model it deactivated after it (SR, SySRs, SAR, SySAR).

    ``accepted`` is True when SAR or SySAR accepted that model into the top-m
    set rather than rejected it.
    """

    requests: Batch
    eliminated: int | None = None
    accepted: bool = False


@dataclass(frozen=True)
class Outcome:
    """The result of one run.

    - ``chosen``: the model returned as best.
    - ``ranking``: all K models, best first; ``ranking[0] == chosen``. The
      reverse elimination order for SR and SySRs; decreasing empirical mean for
      the others, ties broken by the draw's arm priority.
    - ``spent``: the number of evaluations made (never more than the budget).
    - ``trace``: every batch in order, with eliminations.
    """

    algorithm: str
    chosen: int
    ranking: tuple[int, ...]
    spent: int
    trace: tuple[Step, ...]

    @property
    def requests(self) -> tuple[Request, ...]:
        """Every evaluation request, in the order they were made."""
        return tuple(request for step in self.trace for request in step.requests)

    @property
    def eliminated(self) -> tuple[int, ...]:
        """The models in the order they were deactivated (empty for non-elimination algorithms).

        For SAR and SySAR this lists accepted and rejected models alike; see :attr:`accepted`.
        """
        return tuple(step.eliminated for step in self.trace if step.eliminated is not None)

    @property
    def accepted(self) -> tuple[int, ...]:
        """The models SAR or SySAR accepted into the top-m set during its phases, in order (else empty)."""
        return tuple(step.eliminated for step in self.trace if step.eliminated is not None and step.accepted)


#: A running algorithm: yields batches, is sent their scores, returns the outcome.
AlgorithmRun = Generator[Batch, Sequence[object], Outcome]


def accept_scores(batch: Batch, scores: Sequence[object] | None) -> list[Fraction]:
    """Check that *scores* answers *batch* one to one, and return them as exact Fractions."""
    if scores is None:
        raise ScoreError(
            "the algorithm was resumed without scores: answer each batch with "
            "generator.send(scores), one score per request"
        )
    if isinstance(scores, (str, bytes)) or not isinstance(scores, Sequence):
        raise ScoreError(
            f"expected a sequence of {counted(len(batch), 'score')} (one per request), got {type(scores).__name__}"
        )
    if len(scores) != len(batch):
        raise ScoreError(
            f"got {counted(len(scores), 'score')} for a batch of {counted(len(batch), 'request')}; "
            "send exactly one score per request, in the batch's order"
        )
    exact = []
    for request, score in zip(batch, scores, strict=True):
        try:
            exact.append(as_score(score))
        except ScoreError as err:
            raise ScoreError(f"model {request.model}, query {request.query}: {err}") from None
    return exact


def rank_by_mean(
    models: Iterable[int],
    sums: Sequence[Fraction],
    counts: Sequence[int],
    rank: Sequence[int],
) -> tuple[int, ...]:
    """Models by decreasing exact mean sums[i]/counts[i]; ties by arm priority (lower rank first).

    >>> rank_by_mean([0, 1, 2], [Fraction(1), Fraction(2), Fraction(1)], [2, 4, 2], [2, 1, 0])
    (2, 1, 0)
    """
    return tuple(sorted(models, key=lambda i: (-sums[i] / counts[i], rank[i])))
