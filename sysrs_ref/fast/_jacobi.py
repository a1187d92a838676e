"""The fixed-order SVD's rotations in C (re-exported as :func:`sysrs_ref.fast.jacobi_sweeps_compiled`)."""

from __future__ import annotations

from sysrs_ref._fixed_order import FloatArray, jacobi_sweeps
from sysrs_ref.fast import _compiled

__all__ = ["jacobi_sweeps_compiled"]


def jacobi_sweeps_compiled(joint: FloatArray, n: int, tol: float, max_sweeps: int) -> None:
    """:func:`~sysrs_ref._fixed_order.jacobi_sweeps` in C where built and switched on, else numpy's loop.

    A :data:`~sysrs_ref._fixed_order.JacobiSweeps`: pass it as ``jacobi=`` to
    :func:`~sysrs_ref.subset.gam.fit_gam`,
    :func:`~sysrs_ref.subset.metabench.metabench_model`,
    :func:`~sysrs_ref.subset.metabench.metabench` or
    :func:`~sysrs_ref.subset.methods.select_subset`. The rotations are most
    of a GAM fit's time (thousands of small numpy calls per fit). The doubles
    are those of :func:`~sysrs_ref._fixed_order.jacobi_sweeps` (the
    definition) bit for bit, so a fit, its anchors and its chosen model are
    the same either way. numpy's loop runs where this numpy does not sum as
    the C code does (another numpy's einsum, or a processor where it fuses
    products with sums: checked once per process,
    :func:`sysrs_ref.fast._compiled.jacobi_sweeps`).

    >>> import numpy as np
    >>> from sysrs_ref.subset.gam import fit_gam
    >>> x = np.linspace(0.0, 1.0, 30)
    >>> covariates, response = np.column_stack([x, np.sin(3.0 * x)]), np.cos(2.0 * x)
    >>> fast, plain = fit_gam(covariates, response, jacobi=jacobi_sweeps_compiled), fit_gam(covariates, response)
    >>> fast.fitted.tobytes() == plain.fitted.tobytes()
    True
    """
    module = _compiled.library()
    if module is None or not _compiled.jacobi_sweeps(module, joint, n, tol, max_sweeps):
        jacobi_sweeps(joint, n, tol, max_sweeps)
