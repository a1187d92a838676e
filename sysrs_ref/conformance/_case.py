"""One test vector before its expected output is computed: the shared record of the case makers."""

from __future__ import annotations

from dataclasses import dataclass

from sysrs_ref.conformance.values import JsonValue

__all__ = ["Case"]


@dataclass(frozen=True)
class Case:
    """One test vector before its expected output is computed.

    ``tags`` are the rules the maker means it to exercise (more are computed
    when the vectors are written); ``refused`` is the kind of refusal the
    reference must give its input, or None for a case with an answer.
    """

    family: str
    id: str
    input: dict[str, JsonValue]
    note: str = ""
    tags: tuple[str, ...] = ()
    refused: str | None = None
