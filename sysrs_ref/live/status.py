"""Where a live session stands: the numbers ``live status`` prints."""

from __future__ import annotations

from dataclasses import dataclass

from sysrs_ref.json_types import JsonValue

__all__ = ["SessionStatus"]


@dataclass(frozen=True)
class SessionStatus:
    """Where a session stands: what ``live status`` prints.

    ``phase`` counts the batches the algorithm has asked for (a SySRs phase, a
    UCB-E step); ``active`` are the models of the current batch (for SR and
    SySRs, the models still in the race); ``chosen`` and ``ranking`` (best
    first) are set once ``done``.
    """

    algorithm: str
    models: int
    queries: int
    budget: int
    spent: int
    pending: int
    phase: int
    active: tuple[str, ...]
    done: bool
    chosen: str | None
    ranking: tuple[str, ...] | None

    def to_json(self) -> dict[str, JsonValue]:
        """The status as the JSON object of ``live status --json``."""
        return {
            "algorithm": self.algorithm,
            "K": self.models,
            "L": self.queries,
            "budget": self.budget,
            "spent": self.spent,
            "pending": self.pending,
            "phase": self.phase,
            "active": list(self.active),
            "done": self.done,
            "chosen": self.chosen,
            "ranking": None if self.ranking is None else list(self.ranking),
        }
