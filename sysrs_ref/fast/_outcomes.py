"""FastOutcomes: what a fast path returns for R runs at B budgets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["FastOutcomes"]


@dataclass(frozen=True, eq=False)
class FastOutcomes:
    """The outcomes of R runs of one algorithm at B budgets, on common draws.

    - ``chosen[r, b]``: the model run r returns at ``budgets[b]``;
    - ``ranking[r, b]``: all K models, best first (``None`` when not asked for);
    - ``spent[r, b]``: evaluations made (never above ``budgets[b]``);
    - ``exact_decisions``: how many decisions the float filter could not
      certify and were taken with exact arithmetic (0 on integer scores, for
      the elimination and uniform algorithms).

    Row r at column b equals the reference's :class:`~sysrs_ref.algorithms.base.Outcome`
    for ``draws.draw(r)`` and budget ``budgets[b]``: same chosen model, ranking
    and spend.
    """

    algorithm: str
    budgets: tuple[int, ...]
    chosen: npt.NDArray[np.int32]
    ranking: npt.NDArray[np.int32] | None
    spent: npt.NDArray[np.int64]
    exact_decisions: int = 0

    @property
    def n_runs(self) -> int:
        """R."""
        return int(self.chosen.shape[0])

    def outcome(self, run: int, budget_index: int) -> tuple[int, tuple[int, ...] | None, int]:
        """(chosen, ranking or None, spent) of one run at one budget, as plain ints."""
        ranking = None
        if self.ranking is not None:
            ranking = tuple(int(m) for m in self.ranking[run, budget_index])
        return (
            int(self.chosen[run, budget_index]),
            ranking,
            int(self.spent[run, budget_index]),
        )
