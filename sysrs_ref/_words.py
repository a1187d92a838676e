"""Counts in the words of a report: ``1 dataset``, ``11 datasets``."""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """*number* and *noun*, the noun in the plural (``noun + "s"`` unless *plural* is given) unless *number* is 1.

    >>> counted(1, "dataset"), counted(11, "dataset"), counted(0, "cell"), counted(1, "budget level")
    ('1 dataset', '11 datasets', '0 cells', '1 budget level')
    >>> counted(2, "query", "queries"), counted(1000, "run")
    ('2 queries', '1000 runs')
    """
    return f"{number} {noun if number == 1 else plural if plural is not None else noun + 's'}"
