"""numpy fast paths, vectorized over runs and exact: the reference's outcome for the same draw.

Entry point: :func:`run_fast` (:func:`run_exact` with the parameters parsed
already). The draws are a :class:`DrawBatch` (:func:`random_draws`, or
:func:`simulation_draws`, run r's draw from its own seed); the matrix is
prepared once as a :class:`ScoreTable`. A stochastic instance
(:class:`~sysrs_ref.stochastic.StochasticInstance`, prepared as a
:class:`StochasticTable`) runs with a :class:`NoisyDrawBatch` (the draws and
the noise of every cell), each run on its realised matrix. Runs go in chunks
that fit in memory (:func:`chunk_runs`, :func:`bytes_per_cell`,
:data:`CHUNK_BYTES`); :data:`KERNELS` names the algorithms that have a fast
kernel. :data:`COMPILED_KERNELS` is the fixed-order arithmetic of the subset
baselines' fits (the SVD's rotations, exp, log, log1p, sigmoid) in C, numpy's
doubles (``kernels=``).

Three modules are public as well: :mod:`sysrs_ref.fast.compiled` says
whether the optional compiled passes run and switches them off,
:mod:`sysrs_ref.fast.certify` is the float tolerance the fast paths'
decisions rest on (proved by ``python -m proofs_check``), and
:mod:`sysrs_ref.fast.lrf` is UCB-E-LRF's fast path (the ensemble fits that
:func:`~sysrs_ref.select` takes as ``fit=``).
"""

from sysrs_ref.fast._batch import (
    DrawBatch,
    NoisyDrawBatch,
    random_draws,
    random_noisy_draws,
    simulation_draws,
    simulation_noisy_draws,
)
from sysrs_ref.fast._fixed_order_kernels import COMPILED_KERNELS
from sysrs_ref.fast._kernels import KERNELS
from sysrs_ref.fast._outcomes import FastOutcomes
from sysrs_ref.fast._run import CHUNK_BYTES, bytes_per_cell, chunk_runs, run_exact, run_fast
from sysrs_ref.fast._stochastic import StochasticTable, stochastic_table
from sysrs_ref.fast._table import ScoreTable, score_table

__all__ = [
    "CHUNK_BYTES",
    "COMPILED_KERNELS",
    "KERNELS",
    "DrawBatch",
    "FastOutcomes",
    "NoisyDrawBatch",
    "ScoreTable",
    "StochasticTable",
    "bytes_per_cell",
    "chunk_runs",
    "random_draws",
    "random_noisy_draws",
    "run_exact",
    "run_fast",
    "score_table",
    "simulation_draws",
    "simulation_noisy_draws",
    "stochastic_table",
]
