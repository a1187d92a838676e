"""Counts in the words of a report: ``1 dataset``, ``11 datasets``, ``2 models x 1 query``."""

from __future__ import annotations

__all__ = ["counted", "matrix_shape"]


def counted(number: int, noun: str, plural: str | None = None, *, grouped: bool = False) -> str:
    """*number* and *noun*, the noun in the plural (``noun + "s"`` unless *plural* is given) unless *number* is 1.

    With *grouped*, the number's thousands are separated by commas.

    >>> counted(1, "dataset"), counted(11, "dataset"), counted(0, "cell"), counted(1, "budget level")
    ('1 dataset', '11 datasets', '0 cells', '1 budget level')
    >>> counted(2, "query", "queries"), counted(1000, "run"), counted(1000, "run", grouped=True)
    ('2 queries', '1000 runs', '1,000 runs')
    """
    word = noun if number == 1 else plural if plural is not None else noun + "s"
    return f"{number:,} {word}" if grouped else f"{number} {word}"


def matrix_shape(n_models: int, n_queries: int, column: str = "query", columns: str = "queries") -> str:
    """The shape of a score matrix in words: its models by its queries (or *column*, plural *columns*).

    >>> matrix_shape(14, 1319), matrix_shape(2, 1), matrix_shape(3, 40, "sample", "samples")
    ('14 models x 1319 queries', '2 models x 1 query', '3 models x 40 samples')
    """
    return f"{counted(n_models, 'model')} x {counted(n_queries, column, columns)}"
