"""The optional compiled passes (C) of the fast paths: whether they run here, and the switch that turns them off.

numpy is the definition of every fast path and stays its fallback. Where the
C passes were built (``pip install`` compiles ``sysrs_ref/fast/_csrc``; the
build is optional, so an install without a C compiler still works) and they
are not switched off, the passes that numpy makes in several sweeps over
every (run, model, query) cell are made in one compiled loop instead: the
draws of a simulation, the UCB-E / SyUCB-E keys, order statistics, cuts and
rankings, the prefix sums of the phase-by-phase kernels, SR's eliminations,
and UCB-E-LRF's rank-1 ensemble fit (:func:`sysrs_ref.fast.lrf.fit_ensemble_compiled`).
Each computes exactly the array its numpy pass computes, so the outcomes are
the same either way (docs/fast-paths.md, "Compiled passes"); only the time
differs. The library loads in a few milliseconds: nothing is compiled at run
time.

:func:`available` says whether the library was built and loads here,
:func:`active` whether the fast paths use it now. Switch the compiled passes
off with the environment variable :data:`ENVIRONMENT` (``SYSRS_REF_COMPILED=0``,
read when the first pass runs; worker processes inherit it), or for a block
of code with :func:`numpy_only`.

>>> with numpy_only():
...     active()
False
"""

from __future__ import annotations

from sysrs_ref.fast._compiled import ENVIRONMENT, active, available, numpy_only

__all__ = ["ENVIRONMENT", "active", "available", "numpy_only"]
