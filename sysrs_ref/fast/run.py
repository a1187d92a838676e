"""run_fast: an algorithm over R runs and a grid of budgets, in chunks of runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import numpy as np

from sysrs_ref.algorithms.params import AlgorithmParams
from sysrs_ref.algorithms.registry import ParamValue, get_algorithm
from sysrs_ref.errors import DrawError
from sysrs_ref.fast._kernel import Chunk, Kernel
from sysrs_ref.fast._reference_kernel import reference_kernel
from sysrs_ref.fast.batch import DrawBatch
from sysrs_ref.fast.outcomes import FastOutcomes
from sysrs_ref.fast.table import ScoreTable, score_table
from sysrs_ref.instance import Instance
from sysrs_ref.schedule import check_budget

__all__ = ["KERNELS", "chunk_runs", "exact_params", "fast_kernel", "run_exact", "run_fast"]

#: Fast kernels by algorithm name; filled in by the kernel modules (see fast/__init__.py).
KERNELS: dict[str, Kernel] = {}

#: Bytes a kernel needs per (run, model, query) cell, to size its chunks (default 64).
CELL_BYTES: dict[str, int] = {}

#: Memory a chunk of runs may use (bytes); two workers stay well under 4 GiB.
CHUNK_BYTES = 768 * 2**20


def chunk_runs(n_models: int, n_queries: int, n_budgets: int, limit: int = CHUNK_BYTES, cell_bytes: int = 64) -> int:
    """How many runs to process at once so a chunk stays within *limit* bytes.

    A run needs *cell_bytes* per (model, query) cell (orders, gathered scores,
    prefix sums and temporaries; see :data:`CELL_BYTES`) plus its outcomes at
    every budget.

    >>> chunk_runs(80, 1000, 7)
    157
    """
    per_run = cell_bytes * n_models * n_queries + 8 * n_budgets * (n_models + 2)
    return max(1, limit // per_run)


def fast_kernel(name: str) -> Kernel:
    """The fast kernel of algorithm *name*, or the reference kernel if it has none."""
    spec = get_algorithm(name)
    return KERNELS.get(spec.name) or reference_kernel(spec.name)


def exact_params(name: str, params: Mapping[str, ParamValue]) -> dict[str, Fraction]:
    """The algorithm's parameters with defaults filled in, as exact Fractions.

    >>> exact_params("ucbe", {"a": "0.1"})
    {'a': Fraction(1, 10)}
    >>> exact_params("sysrs", {})
    {}
    """
    spec = get_algorithm(name)
    return spec.exact_params(spec.parse_params(params))


def run_fast(
    scores: Instance | ScoreTable,
    algorithm: str,
    budgets: Sequence[int],
    draws: DrawBatch,
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
    scores: Instance | ScoreTable,
    algorithm: str,
    budgets: Sequence[int],
    draws: DrawBatch,
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
    >>> from sysrs_ref.algorithms.params import Exploration
    >>> run_exact(inst, "ucbe", [6], random_draws(0, 3, 2, 3, synchronized=False), Exploration(Fraction(1, 10))).chosen[:, 0].tolist()
    [0, 0, 0]
    """
    spec = get_algorithm(algorithm)
    if spec.cells:
        raise DrawError(f"{spec.name} draws cells, not query orders: use sysrs_ref.fast.lrf.run_lrf or lrf_rankings")
    table = scores if isinstance(scores, ScoreTable) else score_table(scores)
    n_models, n_queries = table.n_models, table.n_queries
    grid = tuple(check_budget(budget, n_models, n_queries) for budget in budgets)
    if not grid:
        raise ValueError("give at least one budget")
    draws.require(n_models, n_queries, synchronized=spec.synchronized, who=spec.name)
    kernel = fast_kernel(spec.name)
    cell_bytes = CELL_BYTES.get(spec.name, 64) if spec.name in KERNELS else 64
    size = chunk if chunk is not None else chunk_runs(n_models, n_queries, len(grid), cell_bytes=cell_bytes)
    if size < 1:
        raise ValueError(f"chunk must be a positive number of runs, got {size}")
    n_runs = draws.n_runs
    chosen = np.empty((n_runs, len(grid)), dtype=np.int32)
    ranks = np.empty((n_runs, len(grid), n_models), dtype=np.int32) if ranking else None
    spent = np.empty((n_runs, len(grid)), dtype=np.int64)
    decisions = 0
    for start in range(0, n_runs, size):
        stop = min(n_runs, start + size)
        part: Chunk = kernel(table, grid, draws.chunk(start, stop), ranking, params)
        chosen[start:stop] = part.chosen
        if ranks is not None and part.ranking is not None:
            ranks[start:stop] = part.ranking
        spent[start:stop] = part.spent[None, :]
        decisions += part.exact_decisions
        if progress is not None:
            progress(stop - start)
    return FastOutcomes(spec.name, grid, chosen, ranks, spent, decisions)


def _register() -> None:
    from sysrs_ref.fast.accept_reject import accept_reject_kernel
    from sysrs_ref.fast.elimination import successive_rejects_kernel
    from sysrs_ref.fast.uniform import uniform_kernel

    KERNELS.update(
        us=uniform_kernel, syus=uniform_kernel, sr=successive_rejects_kernel, sysrs=successive_rejects_kernel
    )
    KERNELS.update(sar=accept_reject_kernel, sysar=accept_reject_kernel)
    # orders (4) + gathered scores then prefix sums in place (8) + slack
    CELL_BYTES.update(us=16, syus=16, sr=16, sysrs=16, sar=16, sysar=16)


_register()
