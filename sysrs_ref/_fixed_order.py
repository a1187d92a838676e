"""Floating-point arithmetic in a fixed order: the same bits on every x86-64 processor, BLAS kernel and thread count.

A seeded result must not depend on the machine. numpy's matrix products
(``@``, ``dot``, ``vdot``) and all of ``numpy.linalg`` go through BLAS and
LAPACK, whose kernels (OpenBLAS picks one per processor: Prescott, Haswell,
Zen, SkylakeX, ...) sum in different orders and with or without fused
multiply-adds, so their last bits differ from one machine to the next; and
``numpy.exp`` and ``numpy.log`` call a vectorised or a C-library routine
chosen by the processor's features. An iterative fit (the 2PL's 2,000 Adam
steps, a GCV grid search, a k-means on the fitted embeddings) amplifies those
bits into other anchors and another chosen model.

Everything here is built from the operations IEEE 754 rounds correctly, so
that their results are fixed by the inputs alone: elementwise ``+ - * /``,
``sqrt``, ``rint``, ``frexp`` and ``ldexp``; and reductions in an order fixed
by numpy itself (``numpy.einsum`` without ``optimize``, which never calls
BLAS, and ``numpy.sum``'s pairwise summation). The results are reproducible
for a given numpy version on every x86-64 processor (numpy builds those
loops for the x86-64 baseline, whatever the processor's features); they are
not promised to be the same on other architectures (ARM's baseline has
fused multiply-adds, which numpy's einsum loops may use) or across numpy
versions (numpy may change its summation loops).

- :func:`matmul` and :func:`dot`: products by ``numpy.einsum``;
- :func:`exp`, :func:`log`, :func:`log1p`, :func:`sigmoid`, :func:`softplus`:
  within a few units in the last place of the correctly rounded result;
- :class:`FixedOrderKernels`: where a fit's fixed-order work runs: numpy's loops
  here (:data:`NUMPY_KERNELS`, the definition) or copies that give the same
  doubles (``sysrs_ref.fast.COMPILED_KERNELS``, in C);
- :func:`solve`: Gaussian elimination with partial pivoting (one system or a batch);
- :func:`householder_qr`, :func:`svd`: Householder QR and one-sided Jacobi SVD
  (Hestenes), for the small matrices of the subset baselines' fits; the
  SVD's rotations are :func:`jacobi_sweeps`, which a compiled copy can
  replace (``svd(..., jacobi=...)``).
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = [
    "NUMPY_KERNELS",
    "Elementwise",
    "FixedOrderKernels",
    "JacobiSweeps",
    "circle_rounds",
    "dot",
    "elementwise_constants",
    "exp",
    "householder_qr",
    "jacobi_sweeps",
    "log",
    "log1p",
    "matmul",
    "sigmoid",
    "softplus",
    "solve",
    "svd",
]

FloatArray: TypeAlias = npt.NDArray[np.float64]
#: The rotations of :func:`svd`: ``(joint, n, tol, max_sweeps)``, in place, as :func:`jacobi_sweeps` makes them.
JacobiSweeps: TypeAlias = Callable[[FloatArray, int, float, int], None]
#: An elementwise function as :func:`exp`, :func:`log`, :func:`log1p` and :func:`sigmoid` are: an array in, its shape out.
Elementwise: TypeAlias = Callable[[npt.ArrayLike], FloatArray]

_EXP_MAX = 709.782712893384  # above: exp overflows to inf
_EXP_MIN = -745.1332191019412  # below: exp underflows to 0
_EXP_SCALE = 92.33248261689366  # 64 / ln 2
# 1 / n! for n = 5 .. 2: exp(r) - 1 - r on |r| <= ln(2) / 128 (truncation error below 4e-17 relative)
_EXPM1_COEFFS = (1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5)
# 1 / (2 n + 1) for n = 11 .. 0: log(m) = 2 atanh(s) = 2 (s + s^3 / 3 + ...), |s| <= 0.1716 (error < 1e-18)
_LOG_COEFFS = tuple(1.0 / (2 * n + 1) for n in range(11, -1, -1))
_SQRT_HALF = 0.7071067811865476
_BLOCK = 8192  # elements a block: 64 KiB of float64, below glibc's mmap threshold
_LN2_HI = 6.93147180369123816490e-01  # ln 2 = _LN2_HI + _LN2_LO, k * _LN2_HI exact for |k| < 2^21 (fdlibm's split)
_LN2_LO = 1.90821492927058770002e-10
_SVD_LOW, _SVD_HIGH = 2.0**-200, 2.0**200  # a matrix's largest entry in here: so are the rotations' norm products
_EXPONENT_BIAS = 1023  # a normal double 2^k has the biased exponent k + 1023 in bits 52 to 62 and no fraction bits
_MIN_NORMAL_EXPONENT, _MAX_EXPONENT = -1022, 1023


@functools.cache
def _exp_constants() -> tuple[FloatArray, float, float]:
    """2^(j/64) for j = 0 .. 63, and ln(2)/64 split in two (n * hi exact for |n| < 2^17), correctly rounded.

    Computed once, at the first use (not at import: most processes never call exp), with :mod:`decimal`
    (software arithmetic, correctly rounded powers and logarithms): the same doubles on every machine, unlike
    ``2.0 ** (j / 64)``, which calls the C library. The table is read-only.
    """
    with decimal.localcontext() as context:
        context.prec = 60
        table = np.array([float(decimal.Decimal(2) ** (decimal.Decimal(j) / 64)) for j in range(64)])
        step = decimal.Decimal(2).ln() / 64
        mantissa, exponent = math.frexp(float(step))
        hi = math.ldexp(math.floor(math.ldexp(mantissa, 36)), exponent - 36)  # 36 significant bits
        lo = float(step - decimal.Decimal(hi))
    table.setflags(write=False)
    return table, hi, lo


def _array(x: npt.ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def matmul(a: npt.ArrayLike, b: npt.ArrayLike) -> FloatArray:
    """The matrix product ``a @ b`` (1-D or 2-D operands, as ``numpy.matmul``), summed in numpy's einsum order.

    >>> matmul([[1.0, 2.0], [3.0, 4.0]], [[1.0], [1.0]]).tolist(), matmul([1.0, 2.0], [[1.0], [2.0]]).tolist()
    ([[3.0], [7.0]], [5.0])
    """
    left, right = _array(a), _array(b)
    sub_left = "ij" if left.ndim == 2 else "j"
    sub_right = "jk" if right.ndim == 2 else "j"
    out = ("i" if left.ndim == 2 else "") + ("k" if right.ndim == 2 else "")
    return np.asarray(np.einsum(f"{sub_left},{sub_right}->{out}", left, right), dtype=np.float64)


def dot(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """The inner product of two arrays of one shape, flattened (as ``numpy.vdot`` for real arrays).

    >>> dot([[1.0, 2.0]], [[3.0, 4.0]])
    11.0
    """
    left, right = _array(a).ravel(), _array(b).ravel()
    return float(np.einsum("i,i->", left, right))


def exp(x: npt.ArrayLike) -> FloatArray:
    """``e^x`` elementwise: ``2^k 2^(j/64) e^r`` with ``x = (64 k + j) ln(2) / 64 + r`` and ``|r| <= ln(2) / 128``.

    ``2^(j/64)`` comes from a table of correctly rounded doubles, ``e^r - 1`` from
    its Taylor polynomial of degree 5. Within about 1 unit in the last place
    (more in the subnormal range); ``inf`` above 709.78, ``0`` below -745.13,
    NaN for NaN.

    >>> exp([0.0, 1.0, -800.0, 800.0]).tolist()
    [1.0, 2.718281828459045, 0.0, inf]
    """
    return _blockwise(_exp_block, x)


def _blockwise(block: Callable[[FloatArray, FloatArray], None], x: npt.ArrayLike) -> FloatArray:
    """An elementwise function of *x*, its *block* (a 1-D block in, the same-sized *out* written) run on blocks.

    Each element's value depends on that element alone, so the blocks change no bit; blocks of ``_BLOCK``
    elements keep every temporary in the cache and below glibc's mmap threshold, where a large array's
    temporaries are not.
    """
    given = _array(x)
    values = given.reshape(-1)
    out = np.empty(values.size)
    for begin in range(0, values.size, _BLOCK):
        block(values[begin : begin + _BLOCK], out[begin : begin + _BLOCK])
    return out.reshape(given.shape)


def _exp_block(values: FloatArray, out: FloatArray) -> None:
    """:func:`exp` of a 1-D block, written into *out*."""
    lowest, highest = float(values.min()), float(values.max())
    inside = lowest >= _EXP_MIN and highest <= _EXP_MAX  # False with a NaN
    reduced = values if inside else np.nan_to_num(np.clip(values, _EXP_MIN - 1.0, _EXP_MAX + 1.0), nan=0.0)
    n = np.multiply(reduced, _EXP_SCALE)
    np.rint(n, out=n)
    whole = n.astype(np.int64)
    exp_table, step_hi, step_lo = _exp_constants()
    r = np.multiply(n, step_hi)
    np.subtract(reduced, r, out=r)
    r -= np.multiply(n, step_lo, out=n)
    p = n  # the buffer is free again
    p.fill(_EXPM1_COEFFS[0])
    for coeff in _EXPM1_COEFFS[1:]:
        p *= r
        p += coeff
    p *= r
    p *= r
    p += r  # e^r - 1
    table = exp_table.take(np.bitwise_and(whole, 63, out=np.empty_like(whole)))
    p *= table
    p += table
    np.right_shift(whole, 6, out=whole)  # e^x = p 2^whole
    if int(whole.min()) >= _MIN_NORMAL_EXPONENT and int(whole.max()) <= _MAX_EXPONENT:
        # 2^whole is a normal double, built from its bits: p 2^whole is then the correctly rounded product of two
        # doubles, the very value ldexp gives (exact, or rounded once in the subnormal range), at a tenth of its cost
        whole += _EXPONENT_BIAS
        np.left_shift(whole, 52, out=whole)
        np.multiply(p, whole.view(np.float64), out=out)
    else:  # 2^whole is not a normal double (x near the ends of the range, or outside it)
        with np.errstate(over="ignore", under="ignore"):
            np.ldexp(p, whole, out=out)
    if not inside:
        out[:] = np.where(values > _EXP_MAX, np.inf, out)
        out[:] = np.where(values < _EXP_MIN, 0.0, out)
        out[:] = np.where(np.isnan(values), np.nan, out)


def log(x: npt.ArrayLike) -> FloatArray:
    """The natural logarithm elementwise: ``e ln 2 + 2 atanh((m - 1) / (m + 1))`` with ``x = m 2^e``, ``m`` near 1.

    Within about 2 units in the last place; ``-inf`` at 0, NaN below 0 and for NaN, ``inf`` at ``inf``.

    >>> log([1.0, 2.718281828459045, 0.0, 8.0]).tolist()
    [0.0, 1.0, -inf, 2.0794415416798357]
    """
    return _blockwise(_log_block, x)


def _log_block(values: FloatArray, out: FloatArray) -> None:
    """:func:`log` of a 1-D block, written into *out*."""
    positive = np.isfinite(values) & (values > 0.0)
    safe = np.where(positive, values, 1.0)
    m, e = np.frexp(safe)  # m in [1/2, 1)
    low = m < _SQRT_HALF
    m = np.where(low, 2.0 * m, m)  # now in [sqrt(1/2), sqrt(2))
    e = np.where(low, e - 1, e).astype(np.float64)
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    series = np.full_like(s, _LOG_COEFFS[0])
    for coeff in _LOG_COEFFS[1:]:
        series *= s2
        series += coeff
    logs = e * _LN2_HI + (e * _LN2_LO + 2.0 * s * series)
    logs = np.where(values == 0.0, -np.inf, logs)
    logs = np.where(values == np.inf, np.inf, logs)
    out[...] = np.where(np.isnan(values) | (values < 0.0), np.nan, logs)


def log1p(x: npt.ArrayLike) -> FloatArray:
    """``log(1 + x)`` elementwise, accurate for small ``x`` (``log(u) x / (u - 1)`` with ``u = 1 + x``).

    >>> log1p([0.0, 1e-20, 1.0]).tolist()
    [0.0, 1e-20, 0.6931471805599453]
    """
    return _blockwise(_log1p_block, x)


def _log1p_block(values: FloatArray, out: FloatArray) -> None:
    """:func:`log1p` of a 1-D block, written into *out*."""
    u = 1.0 + values
    shifted = u - 1.0
    exact = shifted == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(exact, 1.0, values / np.where(exact, 1.0, shifted))
    logs = np.empty_like(u)
    _log_block(u, logs)
    out[...] = np.where(exact, values, logs * ratio)


def sigmoid(z: npt.ArrayLike) -> FloatArray:
    """The logistic function ``1 / (1 + exp(-z))`` elementwise.

    >>> sigmoid([-800.0, 0.0, 800.0]).tolist()
    [0.0, 0.5, 1.0]
    """
    return _blockwise(_sigmoid_block, z)


def _sigmoid_block(values: FloatArray, out: FloatArray) -> None:
    """:func:`sigmoid` of a 1-D block, written into *out*."""
    _exp_block(np.negative(values), out)
    out += 1.0
    np.reciprocal(out, out=out)


def softplus(z: npt.ArrayLike) -> FloatArray:
    """``log(1 + e^z)`` elementwise, as ``max(z, 0) + log1p(exp(-|z|))`` (no overflow).

    >>> softplus([-800.0, 0.0, 800.0]).tolist()
    [0.0, 0.6931471805599453, 800.0]
    """
    values = _array(z)
    return np.asarray(np.maximum(values, 0.0) + log1p(exp(-np.abs(values))), dtype=np.float64)


@functools.cache
def elementwise_constants() -> FloatArray:
    """The doubles :func:`exp` and :func:`log` are built from, for a compiled copy: 88 of them, read-only.

    In order: the 64 entries ``2^(j/64)`` of exp's table, ``ln(2)/64`` split in
    two (high and low parts), the 4 coefficients of exp's polynomial and the
    12 of log's series (each highest degree first), the ends of exp's range
    (above the first: inf; below the second: 0), ``64 / ln 2``,
    ``sqrt(1/2)`` and ``ln 2`` split in two.

    >>> constants = elementwise_constants()
    >>> constants.size, float(constants[0]), bool(constants[64] + constants[65] == math.log(2) / 64)
    (88, 1.0, True)
    """
    ends = [_EXP_MAX, _EXP_MIN, _EXP_SCALE, _SQRT_HALF, _LN2_HI, _LN2_LO]
    exp_table, step_hi, step_lo = _exp_constants()
    constants = np.concatenate([exp_table, [step_hi, step_lo], _EXPM1_COEFFS, _LOG_COEFFS, ends])
    constants.setflags(write=False)
    return constants


class FixedOrderKernels(NamedTuple):
    """Where a fit's fixed-order work runs: the SVD's rotations and the elementwise functions.

    :data:`NUMPY_KERNELS` holds this module's numpy loops, the definition. A
    copy must give the very doubles of the function it stands for, for every
    input (NaN where it gives a NaN), so that a fit, its anchors and its
    chosen model are the same whichever kernels ran it:
    ``sysrs_ref.fast.COMPILED_KERNELS`` is the copy in C. The subset
    baselines' fits take them as ``kernels=``.

    >>> NUMPY_KERNELS.sigmoid([0.0]).tolist(), NUMPY_KERNELS.jacobi is jacobi_sweeps
    ([0.5], True)
    """

    jacobi: JacobiSweeps
    """The rotations of :func:`svd` (:func:`jacobi_sweeps`)."""
    exp: Elementwise
    """:func:`exp`."""
    log: Elementwise
    """:func:`log`."""
    log1p: Elementwise
    """:func:`log1p`."""
    sigmoid: Elementwise
    """:func:`sigmoid`."""


def solve(a: npt.ArrayLike, b: npt.ArrayLike) -> FloatArray:
    """The solution of ``a x = b`` by Gaussian elimination with partial pivoting, for one system or a batch.

    ``a`` is n x n (or ... x n x n), ``b`` n or n x r (or ... x n x r with the
    batch's leading axes); the pivot is the first largest entry in magnitude of
    its column. Raises ``numpy.linalg.LinAlgError`` if a pivot is 0 (a singular
    matrix).

    >>> solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]).tolist()
    [0.8, 1.4]
    >>> solve([[[4.0]], [[2.0]]], [[[2.0]], [[1.0]]]).tolist()
    [[[0.5]], [[0.5]]]
    """
    matrix = np.array(a, dtype=np.float64)
    rhs = np.array(b, dtype=np.float64)
    vector = rhs.ndim == matrix.ndim - 1
    if vector:
        rhs = rhs[..., None]
    n = matrix.shape[-1]
    if matrix.shape[-2] != n or rhs.shape[-2] != n:
        raise ValueError(
            f"solve needs a square matrix and a matching right-hand side, got {matrix.shape} and {rhs.shape}"
        )
    for col in range(n):
        pivot = col + np.argmax(np.abs(matrix[..., col:, col]), axis=-1)
        take = np.expand_dims(pivot, (-1, -2))
        pivot_row = np.take_along_axis(matrix, take, axis=-2)
        pivot_rhs = np.take_along_axis(rhs, take, axis=-2)
        np.put_along_axis(matrix, take, matrix[..., col : col + 1, :], axis=-2)
        np.put_along_axis(rhs, take, rhs[..., col : col + 1, :], axis=-2)
        matrix[..., col : col + 1, :] = pivot_row
        rhs[..., col : col + 1, :] = pivot_rhs
        diagonal = matrix[..., col, col]
        if np.any(diagonal == 0.0):
            raise np.linalg.LinAlgError("Singular matrix")
        factors = matrix[..., col + 1 :, col] / diagonal[..., None]
        matrix[..., col + 1 :, :] -= factors[..., :, None] * matrix[..., col : col + 1, :]
        rhs[..., col + 1 :, :] -= factors[..., :, None] * rhs[..., col : col + 1, :]
    out = np.empty_like(rhs)
    for row in range(n - 1, -1, -1):
        acc = rhs[..., row, :].copy()
        for later in range(row + 1, n):
            acc -= matrix[..., row, later, None] * out[..., later, :]
        out[..., row, :] = acc / matrix[..., row, row, None]
    return out[..., 0] if vector else out


def householder_qr(a: npt.ArrayLike, b: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Reduce the n x q matrix ``a`` (n >= q) to R and apply the same reflections to ``b``: ``(R, Q' b)``.

    R is q x q upper triangular and ``Q' b`` has all n entries (its last n - q
    are the residual of the least-squares fit of b on a's columns). Reflection j
    maps column j's entries j.. onto ``-sign(a_jj) ||.|| e_1`` (no reflection
    for a zero column). Each reflection comes from its column times the power
    of two that brings the column's largest entry into [1/2, 1) (exact), so
    neither its squares nor its products with other columns, however much
    larger, under- or overflow.

    >>> r, qtb = householder_qr([[3.0], [4.0]], [3.0, 4.0])
    >>> r.tolist(), qtb.tolist()
    ([[-5.0]], [-5.0, 0.0])
    """
    work = np.array(a, dtype=np.float64)
    rhs = np.array(b, dtype=np.float64)
    n, q = work.shape
    if n < q or rhs.shape != (n,):
        raise ValueError(f"householder_qr needs an n x q matrix with n >= q and n right-hand values, got {work.shape}")
    for j in range(q):
        column = work[j:, j]
        largest = float(np.abs(column).max())
        if largest == 0.0:
            continue
        # A reflection is the same for every multiple of v, so v comes from the column times the power of two that
        # brings its largest entry into [1/2, 1): exact, and the same doubles as from the column itself wherever no
        # step under- or overflows; with it, neither v'v (the squares) nor v'A (a column far larger than this one)
        # can overflow, and 2 / v'v is finite.
        column = np.ldexp(column, -math.frexp(largest)[1])
        norm = math.sqrt(dot(column, column))
        alpha = -norm if column[0] >= 0.0 else norm
        v = column.copy()
        v[0] -= alpha
        scale = 2.0 / dot(v, v)
        work[j:, j:] -= (scale * v)[:, None] * matmul(v, work[j:, j:])[None, :]
        rhs[j:] -= (scale * dot(v, rhs[j:])) * v
        work[j + 1 :, j] = 0.0
    return np.triu(work[:q]), rhs


@functools.cache
def circle_rounds(size: int) -> tuple[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]], ...]:
    """The rounds of one Jacobi sweep over *size* (even) columns: the circle method's disjoint pairs.

    Column 0 stays, the others turn one place per round; round r pairs position i with position size-1-i,
    the smaller column first. After size - 1 rounds the circle is back where it started, so every sweep
    visits the same rounds. The arrays are read-only: the cache shares them.

    >>> [(first.tolist(), second.tolist()) for first, second in circle_rounds(4)]
    [([0, 1], [3, 2]), ([0, 1], [2, 3]), ([0, 2], [1, 3])]
    """
    circle = list(range(size))
    rounds = []
    for _ in range(size - 1):
        first = np.array([min(circle[i], circle[size - 1 - i]) for i in range(size // 2)], dtype=np.intp)
        second = np.array([max(circle[i], circle[size - 1 - i]) for i in range(size // 2)], dtype=np.intp)
        first.flags.writeable = second.flags.writeable = False
        rounds.append((first, second))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return tuple(rounds)


def svd(
    a: npt.ArrayLike, *, start: FloatArray | None = None, max_sweeps: int = 60, jacobi: JacobiSweeps | None = None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The thin SVD ``a = U diag(s) V'`` of an n x q matrix by one-sided Jacobi rotations (Hestenes).

    Columns are rotated pairwise until every pair is orthogonal to within
    ``q 2^-53`` times the product of their norms (or after ``max_sweeps``
    sweeps). A sweep visits every pair once, in the round-robin order of the
    circle method (column 0 fixed, the others turning), rotating the disjoint
    pairs of each round together. ``s`` is then the column norms in
    decreasing order (the first column on ties), U the normalised columns (a
    zero column of U where ``s`` is 0) and V the accumulated rotations.
    Returns ``(U, s, V)`` with V (not its transpose), shapes n x q, (q,), q x q.
    ``start``, a q x q orthogonal matrix (the V of a nearby matrix, say), starts
    the rotations from ``a start`` instead of ``a``: fewer sweeps, the same
    decomposition up to rounding, and still the same bits on every machine.
    ``jacobi`` runs the rotations (:func:`jacobi_sweeps`, the default, states
    them exactly); any routine given must make the same doubles. A matrix
    whose largest entry is outside ``[2^-200, 2^200]`` (where products of
    squared column norms would underflow or overflow) is rotated times a
    power of two (exact), and ``s`` scaled back.

    >>> u, s, v = svd([[3.0, 0.0], [4.0, 0.0]])
    >>> s.tolist(), bool(np.allclose(matmul(u * s, v.T), [[3.0, 0.0], [4.0, 0.0]]))
    ([5.0, 0.0], True)
    """
    given = np.array(a, dtype=np.float64)
    n, q = given.shape
    size = q + q % 2  # an even number of columns: a zero column pads an odd q (it never rotates)
    # A and V rotate together: rows 0 .. n-1 of *joint* are the columns being orthogonalised (A V so far),
    # the last size rows V, so each round gathers, rotates and scatters both at once
    joint = np.zeros((n + size, size))
    work, v = joint[:n], joint[n:]
    v[...] = np.eye(size)
    if start is None:
        work[:, :q] = given
    else:
        v[:q, :q] = start
        work[:, :q] = matmul(given, start)
    largest = float(np.abs(work).max()) if work.size else 0.0
    shift = 0
    if largest != 0.0 and not _SVD_LOW <= largest <= _SVD_HIGH:
        # products of squared norms would underflow or overflow: the rotations see the matrix times a power of two (exact),
        # and s is scaled back; U and V do not depend on the scale. A matrix in range keeps its doubles.
        shift = math.frexp(largest)[1]
        work[...] = np.ldexp(work, -shift)
    tol = max(q, 1) * 2.0**-53
    (jacobi_sweeps if jacobi is None else jacobi)(joint, n, tol, max_sweeps)
    norms = np.sqrt(np.einsum("ij,ij->j", work[:, :q], work[:, :q]))
    order = np.argsort(-norms, kind="stable")
    sigma = norms[order]
    columns = work[:, order]
    u = np.zeros((n, q))
    nonzero = sigma > 0.0
    u[:, nonzero] = columns[:, nonzero] / sigma[nonzero]
    if shift:
        sigma = np.ldexp(sigma, shift)
    return u, sigma, v[:q][:, order]


def jacobi_sweeps(joint: FloatArray, n: int, tol: float, max_sweeps: int) -> None:
    """The rotations of :func:`svd`, in place: *joint* is ``A V`` (its first *n* rows) over ``V`` (the rest).

    *joint* is C-ordered, (n + size) x size with an even size (the columns
    of A padded with a zero column to an even number). A sweep visits the
    rounds of the circle method (:func:`svd` states them); a round computes
    each pair's ``alpha``, ``beta`` and ``gamma``, sums over the n rows of A
    by ``numpy.einsum("ij,ij->j")`` on the gathered n x size/2 blocks of the
    pairs' first and second columns (a gather keeps each column's entries
    together, so einsum sums each column as a dot product, in its own order:
    ``sysrs_ref/fast/_csrc/jacobi.c`` states it), turns the pairs with
    ``gamma != 0`` and ``|gamma| > tol sqrt(alpha beta)`` (a round where
    none turns writes nothing) by ``zeta = (beta - alpha) / (2 gamma)``,
    ``t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2))`` (``0.5 / zeta`` where
    ``|zeta| > 1e150``), ``c = 1 / sqrt(1 + t^2)`` and ``s = c t``, the
    others by ``c = 1``, ``s = 0``, and replaces every row's pair (x, y) by
    ``(c x - s y, s x + c y)``. The sweeps stop after a sweep where no pair
    turned, or after *max_sweeps*. This is the definition; a compiled copy
    (:func:`sysrs_ref.fast.jacobi_sweeps_compiled`) makes the same
    doubles.

    >>> joint = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> jacobi_sweeps(joint, 2, 2.0**-52, 60)
    >>> joint[:2].tolist(), bool(np.allclose(joint[2:] @ joint[2:].T, np.eye(2)))
    ([[0.0, 5.0], [0.0, 0.0]], True)
    """
    rounds = circle_rounds(joint.shape[1])
    # one errstate for the sweeps: a huge zeta takes the t = 1 / (2 zeta) branch, and its overflow is no error
    with np.errstate(over="ignore", divide="ignore"):
        for _ in range(max_sweeps):
            rotated = False
            for first, second in rounds:
                both_i, both_j = joint[:, first], joint[:, second]
                ai, aj = both_i[:n], both_j[:n]  # each column's n entries together, as a gather of work alone
                alpha = np.einsum("ij,ij->j", ai, ai)
                beta = np.einsum("ij,ij->j", aj, aj)
                gamma = np.einsum("ij,ij->j", ai, aj)
                turn = (gamma != 0.0) & (np.abs(gamma) > tol * np.sqrt(alpha * beta))
                if not turn.any():
                    continue
                rotated = True
                # Where every pair turns and no zeta is huge (the usual round), the np.where below pick one
                # side everywhere: the same doubles computed without the other side
                every = bool(turn.all())
                zeta = (beta - alpha) / (2.0 * (gamma if every else np.where(turn, gamma, 1.0)))
                size_of_zeta = np.abs(zeta)
                big = size_of_zeta > 1e150
                if big.any():
                    root = np.sqrt(1.0 + np.where(big, 0.0, zeta * zeta))
                    t = np.where(big, 0.5 / np.where(big, zeta, 1.0), np.copysign(1.0, zeta) / (size_of_zeta + root))
                else:
                    t = np.copysign(1.0, zeta) / (size_of_zeta + np.sqrt(1.0 + zeta * zeta))
                if every:
                    c = 1.0 / np.sqrt(1.0 + t * t)
                    s = c * t
                else:
                    c = np.where(turn, 1.0 / np.sqrt(1.0 + t * t), 1.0)
                    s = np.where(turn, c * t, 0.0)
                joint[:, first], joint[:, second] = c * both_i - s * both_j, s * both_i + c * both_j
            if not rotated:
                break


#: This module's numpy loops: the definition every copy of :class:`FixedOrderKernels` gives the doubles of.
NUMPY_KERNELS = FixedOrderKernels(jacobi=jacobi_sweeps, exp=exp, log=log, log1p=log1p, sigmoid=sigmoid)
