"""The reference as a kernel: every run, every budget, through the step generators.

Slow (pure Python, exact Fractions), but it is the definition: the fast
kernels are tested against it, and an algorithm without a fast kernel still
runs under :func:`~sysrs_ref.fast._run.run_fast` and ``simulate``. On a table
of B realised matrices side by side (stochastic runs, one block per run),
run r reads block r through its orders less r L.
"""

from __future__ import annotations

import numpy as np

from sysrs_ref.algorithms.driver import drive
from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.draws import Draw
from sysrs_ref.fast._batch import DrawBatch
from sysrs_ref.fast._kernel import Chunk, Kernel
from sysrs_ref.fast._table import ScoreTable

__all__ = ["reference_kernel"]


def reference_kernel(name: str) -> Kernel:
    """A kernel that runs the reference algorithm *name* once per run and budget."""
    spec = get_algorithm(name)

    def kernel(
        table: ScoreTable,
        budgets: tuple[int, ...],
        draws: DrawBatch,
        ranking: bool,
        params: AlgorithmParams,
    ) -> Chunk:
        n_runs, n_budgets, n_models = draws.n_runs, len(budgets), table.n_models
        chosen = np.empty((n_runs, n_budgets), dtype=np.int32)
        ranks = np.empty((n_runs, n_budgets, n_models), dtype=np.int32)
        spent = np.zeros(n_budgets, dtype=np.int64)
        for run in range(n_runs):
            draw, instance = draws.draw(run), table.instance if table.blocks == 1 else table.block(run)
            if table.blocks > 1:
                shift = run * table.n_queries
                draw = Draw(tuple(tuple(q - shift for q in order) for order in draw.query_orders), draw.arm_priority)
            for column, budget in enumerate(budgets):
                outcome = drive(spec.run(budget, draw, params), instance)
                chosen[run, column] = outcome.chosen
                ranks[run, column] = outcome.ranking
                spent[column] = outcome.spent
        return Chunk(chosen, ranks if ranking else None, spent)

    return kernel
