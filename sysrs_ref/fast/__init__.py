"""numpy fast paths, vectorized over runs and exact: the reference's outcome for the same draw.

Entry point: :func:`run_fast`. The draws are a :class:`DrawBatch`; the matrix is
prepared once as a :class:`ScoreTable`.
"""

from sysrs_ref.fast.batch import DrawBatch, random_draws
from sysrs_ref.fast.outcomes import FastOutcomes
from sysrs_ref.fast.run import KERNELS, chunk_runs, run_fast
from sysrs_ref.fast.table import ScoreTable, score_table

__all__ = [
    "KERNELS",
    "DrawBatch",
    "FastOutcomes",
    "ScoreTable",
    "chunk_runs",
    "random_draws",
    "run_fast",
    "score_table",
]
from sysrs_ref.fast import ucb as _ucb  # noqa: F401  (registers KERNELS["ucbe"], KERNELS["syucbe"])
