"""The fixed-order kernels in C: :data:`COMPILED_KERNELS` (re-exported by :mod:`sysrs_ref.fast`), numpy's doubles."""

from __future__ import annotations

import numpy.typing as npt

from sysrs_ref._fixed_order import Elementwise, FixedOrderKernels, FloatArray, exp, jacobi_sweeps, log, log1p, sigmoid
from sysrs_ref.fast import _compiled

__all__ = ["COMPILED_KERNELS", "jacobi_sweeps_compiled"]


def jacobi_sweeps_compiled(joint: FloatArray, n: int, tol: float, max_sweeps: int) -> None:
    """:func:`~sysrs_ref._fixed_order.jacobi_sweeps` in C where built and switched on, else numpy's loop.

    :data:`COMPILED_KERNELS`' ``jacobi``. The rotations are most of a GAM
    fit's time (thousands of small numpy calls per fit). The doubles are those
    of :func:`~sysrs_ref._fixed_order.jacobi_sweeps` (the definition) bit for
    bit. numpy's loop runs where this numpy does not sum as the C code does
    (another numpy's einsum, or a processor where it fuses products with sums:
    checked once per process, :func:`sysrs_ref.fast._compiled.jacobi_sweeps`).

    >>> import numpy as np
    >>> from sysrs_ref._fixed_order import svd
    >>> matrix = np.random.default_rng(0).standard_normal((6, 4))
    >>> svd(matrix, jacobi=jacobi_sweeps_compiled)[1].tobytes() == svd(matrix)[1].tobytes()
    True
    """
    module = _compiled.library()
    if module is None or not _compiled.jacobi_sweeps(module, joint, n, tol, max_sweeps):
        jacobi_sweeps(joint, n, tol, max_sweeps)


def _in_c(name: str, numpy_loop: Elementwise) -> Elementwise:
    """The fixed-order function *name* in C where built, switched on and checked, else its *numpy_loop*."""

    def function(x: npt.ArrayLike) -> FloatArray:
        module = _compiled.library()
        out = None if module is None else _compiled.elementwise(module, name, x)
        return numpy_loop(x) if out is None else out

    function.__name__ = function.__qualname__ = f"{name}_compiled"
    function.__doc__ = (
        f":func:`~sysrs_ref._fixed_order.{name}` in C where built, switched on and checked, else numpy's loop."
    )
    return function


COMPILED_KERNELS = FixedOrderKernels(
    jacobi=jacobi_sweeps_compiled,
    exp=_in_c("exp", exp),
    log=_in_c("log", log),
    log1p=_in_c("log1p", log1p),
    sigmoid=_in_c("sigmoid", sigmoid),
)
"""The fixed-order kernels in C where the compiled passes are built and on, numpy's loops elsewhere: the same doubles.

Pass it as ``kernels=`` to the subset baselines' fits
(:func:`~sysrs_ref.subset.irt.fit_irt`, :func:`~sysrs_ref.subset.gam.fit_gam`,
:func:`~sysrs_ref.subset.metabench.metabench_model`,
:func:`~sysrs_ref.subset.metabench.metabench`,
:func:`~sysrs_ref.subset.methods.select_subset`): the command line and the
experiments do. Each function gives the doubles of
:data:`~sysrs_ref._fixed_order.NUMPY_KERNELS`' (the definition) bit for bit,
NaN where it gives NaN, so a fit, its anchors and its chosen model are the
same either way; each C loop runs only after a check, once per process, that
it does so here (:mod:`sysrs_ref.fast._compiled`).

>>> import numpy as np
>>> from sysrs_ref._fixed_order import NUMPY_KERNELS
>>> z = np.linspace(-40.0, 40.0, 9)
>>> COMPILED_KERNELS.sigmoid(z).tobytes() == NUMPY_KERNELS.sigmoid(z).tobytes()
True
"""
