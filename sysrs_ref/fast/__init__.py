"""numpy fast paths, vectorized over runs and exact: the reference's outcome for the same draw.

Entry point: :func:`run_fast`. The draws are a :class:`DrawBatch`; the matrix is
prepared once as a :class:`ScoreTable`. A stochastic instance
(:class:`~sysrs_ref.stochastic.StochasticInstance`) runs with a
:class:`NoisyDrawBatch` (the draws and the noise of every cell), each run on
its realised matrix (:mod:`sysrs_ref.fast._stochastic`).
"""

from sysrs_ref.fast._batch import DrawBatch, NoisyDrawBatch, random_draws, random_noisy_draws
from sysrs_ref.fast._outcomes import FastOutcomes
from sysrs_ref.fast._run import KERNELS, chunk_runs, run_fast
from sysrs_ref.fast._stochastic import StochasticTable, stochastic_table
from sysrs_ref.fast._table import ScoreTable, score_table

__all__ = [
    "KERNELS",
    "DrawBatch",
    "FastOutcomes",
    "NoisyDrawBatch",
    "ScoreTable",
    "StochasticTable",
    "chunk_runs",
    "random_draws",
    "random_noisy_draws",
    "run_fast",
    "score_table",
    "stochastic_table",
]
