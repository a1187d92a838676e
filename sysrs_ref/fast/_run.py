"""run_fast: an algorithm over R runs and a grid of budgets, in chunks of runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.fast._batch import DrawBatch, NoisyDrawBatch
from sysrs_ref.fast._kernel import Chunk, Kernel
from sysrs_ref.fast._kernels import CELL_BYTES, KERNELS
from sysrs_ref.fast._outcomes import FastOutcomes
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast._stochastic import StochasticTable, realise_runs, stochastic_table
from sysrs_ref.fast._table import ScoreTable, score_table
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget
from sysrs_ref.stochastic import StochasticInstance

__all__ = [
    "CHUNK_BYTES",
    "KERNELS",
    "bytes_per_cell",
    "chunk_runs",
    "fast_kernel",
    "run_exact",
    "run_fast",
]


#: Memory a chunk of runs may use (bytes); two workers stay well under 4 GiB.
CHUNK_BYTES = 768 * 2**20

#: Extra bytes per (run, model, query) cell when each run realises its own matrix (a stochastic
#: instance): the noise (8), the realised codes and table (2), int64 values for UCB-E (8), slack.
NOISY_CELL_BYTES = 24

#: What the fast paths run on: a matrix, its table, a stochastic instance or its table.
Scores = Instance | ScoreTable | StochasticInstance | StochasticTable


def chunk_runs(n_models: int, n_queries: int, n_budgets: int, limit: int = CHUNK_BYTES, cell_bytes: int = 64) -> int:
    """How many runs to process at once so a chunk stays within *limit* bytes.

    A run needs *cell_bytes* per (model, query) cell (orders, gathered scores,
    prefix sums and temporaries; see :func:`bytes_per_cell`) plus its outcomes at
    every budget.

    >>> chunk_runs(80, 1000, 7)
    157
    """
    per_run = cell_bytes * n_models * n_queries + 8 * n_budgets * (n_models + 2)
    return max(1, limit // per_run)


def bytes_per_cell(algorithm: str, *, noisy: bool = False) -> int:
    """Bytes a run of *algorithm*'s fast path needs per (model, query) cell: the *cell_bytes* of :func:`chunk_runs`.

    *noisy*: each run realises its own matrix (a stochastic instance), which
    holds the noise and the realised matrix too. An algorithm without a fast
    kernel (it runs through the reference) counts 64.

    >>> bytes_per_cell("sysrs"), bytes_per_cell("ucbe"), bytes_per_cell("sysrs", noisy=True)
    (16, 8, 40)
    """
    return CELL_BYTES.get(algorithm, 64) + (NOISY_CELL_BYTES if noisy else 0)


def fast_kernel(name: str) -> Kernel:
    """The fast kernel of algorithm *name*, or the reference kernel if it has none."""
    spec = get_algorithm(name)
    return KERNELS.get(spec.name) or reference_kernel(spec.name)


def run_fast(
    scores: Scores,
    algorithm: str,
    budgets: Sequence[int],
    draws: DrawBatch | NoisyDrawBatch,
    *,
    ranking: bool = True,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
    **params: ParamValue,
) -> FastOutcomes:
    """Run *algorithm* for every draw of *draws* at every budget, with its numpy fast path.

    The same draws serve every budget (common random numbers), and the result
    at every budget is exactly the reference's for that draw. Runs are
    processed *chunk* at a time (default :func:`chunk_runs`); *progress* is
    called with the number of runs finished after each chunk.

    *scores* may be a :class:`~sysrs_ref.stochastic.StochasticInstance` (or
    its :func:`~sysrs_ref.fast._stochastic.stochastic_table`): *draws* is then
    a :class:`~sysrs_ref.fast._batch.NoisyDrawBatch` and run r is exactly the
    reference's ``select(instance, budget, algorithm, draw=draws.draw(r))``
    (each run on its realised matrix, :mod:`sysrs_ref.fast._stochastic`); a
    plain DrawBatch does when no noise can change the matrix (point masses).
    UCB-E-LRF is refused there (ParameterError).

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import random_draws
    >>> inst = Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]])
    >>> out = run_fast(inst, "sysrs", [3, 12], random_draws(0, 4, 3, 4, synchronized=True))
    >>> out.chosen[:, 1].tolist(), out.spent[:, 1].tolist()
    ([0, 0, 0, 0], [12, 12, 12, 12])
    """
    typed = get_algorithm(algorithm).parse_params(params)
    return run_exact(scores, algorithm, budgets, draws, typed, ranking=ranking, chunk=chunk, progress=progress)


def run_exact(
    scores: Scores,
    algorithm: str,
    budgets: Sequence[int],
    draws: DrawBatch | NoisyDrawBatch,
    params: AlgorithmParams,
    *,
    ranking: bool = True,
    chunk: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> FastOutcomes:
    """:func:`run_fast` with the parameters parsed already (:meth:`~sysrs_ref.algorithms.registry.AlgorithmSpec.parse_params`).

    >>> from sysrs_ref import Instance
    >>> from sysrs_ref.fast import random_draws
    >>> inst = Instance([[1, 0, 1], [0, 1, 0]])
    >>> from fractions import Fraction
    >>> from sysrs_ref.algorithms.params import Exploration
    >>> run_exact(inst, "ucbe", [6], random_draws(0, 3, 2, 3, synchronized=False), Exploration(Fraction(1, 10))).chosen[:, 0].tolist()
    [0, 0, 0]
    """
    spec = get_algorithm(algorithm)
    table, plain, noisy = _prepared(scores, draws, spec.name)
    if spec.cells:
        raise DrawError(f"{spec.name} draws cells, not query orders: use sysrs_ref.fast.lrf.run_lrf or lrf_rankings")
    n_models, n_queries = table.n_models, table.n_queries
    grid = tuple(check_budget(budget, n_models, n_queries) for budget in budgets)
    if not grid:
        raise ValueError("give at least one budget")
    plain.require(n_models, n_queries, synchronized=spec.synchronized, who=spec.name)
    kernel = fast_kernel(spec.name)
    cell_bytes = bytes_per_cell(spec.name, noisy=noisy is not None)
    size = chunk if chunk is not None else chunk_runs(n_models, n_queries, len(grid), cell_bytes=cell_bytes)
    if size < 1:
        raise ValueError(f"chunk must be a positive number of runs, got {size}")
    n_runs = plain.n_runs
    chosen = np.empty((n_runs, len(grid)), dtype=np.int32)
    ranks = np.empty((n_runs, len(grid), n_models), dtype=np.int32) if ranking else None
    spent = np.empty((n_runs, len(grid)), dtype=np.int64)
    decisions = 0
    for start in range(0, n_runs, size):
        stop = min(n_runs, start + size)
        if isinstance(table, ScoreTable):
            part: Chunk = kernel(table, grid, plain.chunk(start, stop), ranking, params)
        else:  # each run on its realised matrix: the chunk's matrices side by side
            assert noisy is not None
            realised, reading = realise_runs(table, noisy.chunk(start, stop))
            part = kernel(realised, grid, reading, ranking, params)
        chosen[start:stop] = part.chosen
        if ranks is not None and part.ranking is not None:
            ranks[start:stop] = part.ranking
        spent[start:stop] = part.spent[None, :]
        decisions += part.exact_decisions
        if progress is not None:
            progress(stop - start)
    return FastOutcomes(spec.name, grid, chosen, ranks, spent, decisions)


def _prepared(
    scores: Scores, draws: DrawBatch | NoisyDrawBatch, name: str
) -> tuple[ScoreTable | StochasticTable, DrawBatch, NoisyDrawBatch | None]:
    """(the table, or the stochastic table whose runs realise their own matrices; the plain draws; the noisy ones).

    DrawError when the draws do not fit the scores: noise for a deterministic
    matrix, or none for a stochastic instance whose cells the noise changes.
    """
    plain = draws.draws if isinstance(draws, NoisyDrawBatch) else draws
    if isinstance(scores, StochasticInstance):
        scores = stochastic_table(scores)
    if not isinstance(scores, StochasticTable):
        if isinstance(draws, NoisyDrawBatch):
            raise DrawError("these draws carry noise, for a stochastic instance; give a DrawBatch for a score matrix")
        return (scores if isinstance(scores, ScoreTable) else score_table(scores)), plain, None
    if name not in KERNELS:
        raise ParameterError(f"{name} does not run on stochastic instances (it draws cells, not query orders)")
    if scores.fixed is not None:  # no noise can change a cell: the matrix's own runs
        return scores.fixed, plain, None
    if not isinstance(draws, NoisyDrawBatch):
        raise DrawError(
            "a stochastic instance needs the noise of every cell: give a NoisyDrawBatch "
            "(sysrs_ref.fast._batch.random_noisy_draws or simulation_noisy_draws)"
        )
    return scores, plain, draws
