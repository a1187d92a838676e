"""The score matrix prepared for the fast paths: exact integers when they fit, floats otherwise.

The reference sums scores exactly. The fast paths do the same whenever they
can: every score is N_ij / D for one common denominator D
(:attr:`~sysrs_ref.instance.Instance.denominator`), and when every sum a fast
path forms fits in int64, they work on the integer numerators N_ij, so every
comparison is exact and ties are true ties (binary scores, and decimal scores
with a few digits, are always in this case).

Otherwise (for example float scores such as F1 or BLEU, whose common
denominator has up to 1075 bits) the fast paths sum float64 values and
*certify* each decision with a proved bound on the rounding error: a decision
whose float margin is below the bound is re-decided exactly from the integer
numerators (:meth:`ScoreTable.exact_sum`). The outcome is therefore always the
reference's; only the speed depends on how often that happens.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sysrs_ref.instance import Instance

__all__ = ["ScoreTable", "score_table"]

#: Integer sums are exact when every key the fast paths build stays below this.
INT_LIMIT = 2**62


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """An :class:`~sysrs_ref.instance.Instance` as arrays for the fast paths.

    - ``exact``: True when ``values`` holds the int64 numerators N_ij (scores are
      N_ij / ``denominator``) and every sum of a row times K fits in int64;
      False when ``values`` holds the float64 scores.
    - ``values``: the K x L matrix (read-only), int64 or float64 as above.
    """

    instance: Instance
    exact: bool
    values: npt.NDArray[np.int64] | npt.NDArray[np.float64]
    denominator: int
    compact: npt.NDArray[np.generic]
    """``values`` in the smallest dtype that holds them (int8 for binary scores): cheaper to gather."""
    _numerators: tuple[tuple[int, ...], ...] = field(repr=False)

    @property
    def n_models(self) -> int:
        """K."""
        return self.instance.n_models

    @property
    def n_queries(self) -> int:
        """L."""
        return self.instance.n_queries

    def exact_sum(self, model: int, queries: Iterable[int]) -> int:
        """The exact sum of *model*'s numerators over *queries* (divide by D for the scores).

        >>> table = score_table(Instance([[0.5, 0.25], [1, 0]]))
        >>> table.exact_sum(0, [0, 1]), table.denominator
        (3, 4)
        """
        row = self._numerators[model]
        return sum(row[int(query)] for query in queries)

    def exact_mean(self, model: int, queries: Iterable[int]) -> Fraction:
        """The exact mean score of *model* over *queries* (at least one)."""
        chosen = [int(query) for query in queries]
        return Fraction(self.exact_sum(model, chosen), self.denominator * len(chosen))


def score_table(instance: Instance, *, prefer_float: bool = False) -> ScoreTable:
    """Prepare *instance* for the fast paths: int64 numerators if every sum fits, else floats.

    *prefer_float* forces the certified float path even when integers would
    fit (the outcome is the same; tests use it to exercise the exact
    resolution of close calls on tie-heavy data).

    >>> score_table(Instance([[1, 0], [0, 1]])).exact
    True
    >>> score_table(Instance([[0.1, 0.2], [0.3, 0.4]])).exact  # D = 2^55 still fits
    True
    >>> score_table(Instance([[1e-300, 0.2], [0.3, 0.4]])).exact  # D = 2^1049 does not
    False
    """
    numerators = instance.numerators
    largest = max(max(row) for row in numerators)
    fits = (largest + 1) * instance.n_queries * instance.n_models < INT_LIMIT and not prefer_float
    values: npt.NDArray[np.int64] | npt.NDArray[np.float64]
    values = np.array(numerators, dtype=np.int64) if fits else np.array(instance.array, dtype=np.float64)
    compact: npt.NDArray[np.generic] = values
    if fits:
        for small in (np.int8, np.int16, np.int32):
            if int(values.max(initial=0)) <= np.iinfo(small).max:
                compact = values.astype(small)
                break
    values.setflags(write=False)
    compact.setflags(write=False)
    return ScoreTable(instance, fits, values, instance.denominator, compact, numerators)
