"""sysrs_ref._fixed_order: accurate, and the same bits on every machine (fixed expected bits, not only tolerances)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

import sysrs_ref._fixed_order as fixed_order
from tests.backends import same_bits
from tests.strategies import (
    FloatArray,
    exp_any_arguments,
    exp_arguments,
    log1p_arguments,
    log_arguments,
    small_matrices,
    tall_matrices,
    well_conditioned_systems,
)


def _ulps(got: float, want: float) -> float:
    return abs(got - want) / math.ulp(want) if want else abs(got)


@given(exp_arguments)
def test_exp_is_within_two_ulps(x: float) -> None:
    assert _ulps(float(fixed_order.exp(x)), math.exp(x)) <= 2


def _exp_by_hand(x: float) -> float:
    """fixed_order.exp's algorithm restated one double at a time, with the C library's ``ldexp`` for the last step."""
    if math.isnan(x):
        return math.nan
    if x > fixed_order._EXP_MAX or x < fixed_order._EXP_MIN:
        return math.inf if x > 0 else 0.0
    n = round(x * fixed_order._EXP_SCALE)  # ties to even, as rint
    exp_table, step_hi, step_lo = fixed_order._exp_constants()
    r = (x - n * step_hi) - n * step_lo
    p = fixed_order._EXPM1_COEFFS[0]
    for coeff in fixed_order._EXPM1_COEFFS[1:]:
        p = p * r + coeff  # Python rounds the product and the sum apart: no fused multiply-add
    p = p * r * r + r
    table = float(exp_table[n & 63])
    p = p * table + table
    try:
        return math.ldexp(p, n >> 6)
    except OverflowError:
        return math.inf


@given(exp_any_arguments)
def test_exp_is_its_algorithm_with_ldexp_bit_for_bit(xs: list[float]) -> None:
    """Where 2^k is a normal double, exp scales by a product instead of ldexp: the same doubles, subnormal ones too."""
    got = fixed_order.exp(xs).tolist()
    want = [_exp_by_hand(x) for x in xs]
    assert [v.hex() for v in got] == [v.hex() for v in want]


@given(log_arguments)
def test_log_is_within_two_ulps(x: float) -> None:
    want = math.log(x)
    assert _ulps(float(fixed_order.log(x)), want) <= 2 or abs(float(fixed_order.log(x)) - want) <= 2 * 2.0**-53


@given(log1p_arguments)
def test_log1p_is_accurate_near_zero_and_far_from_it(x: float) -> None:
    want = math.log1p(x)
    assert abs(float(fixed_order.log1p(x)) - want) <= 4 * math.ulp(want) + 2.0**-1074


def test_special_values() -> None:
    assert fixed_order.exp([math.nan, 710.0, -746.0, math.inf, -math.inf]).tolist()[1:] == [
        math.inf,
        0.0,
        math.inf,
        0.0,
    ]
    assert math.isnan(fixed_order.exp(math.nan))
    assert fixed_order.log([0.0, math.inf, 1.0]).tolist() == [-math.inf, math.inf, 0.0]
    assert all(math.isnan(v) for v in fixed_order.log([-1.0, math.nan]).tolist())
    assert fixed_order.sigmoid([-1000.0, 0.0, 1000.0]).tolist() == [0.0, 0.5, 1.0]
    assert fixed_order.softplus([-1000.0, 1000.0]).tolist() == [0.0, 1000.0]
    assert fixed_order.exp(np.zeros((0, 3))).shape == (0, 3)


def test_the_bits_are_fixed() -> None:
    """Exact doubles, as hex: a machine (or a change) that computes them otherwise fails here, whatever its libm."""
    xs = [-700.5, -1.0, -1e-9, 0.1, 0.5, 1.0, 2.5, 30.0, 708.25]
    assert [float(v).hex() for v in fixed_order.exp(xs)] == [
        float(v).hex() for v in fixed_order.exp(np.array(xs)[::-1])[::-1]
    ]  # elementwise: no dependence on the neighbours or the block
    assert [float(v).hex() for v in fixed_order.exp(xs)] == [
        "0x1.4ff475c68ca02p-1011",
        "0x1.78b56362cef38p-2",
        "0x1.fffffff768fa1p-1",
        "0x1.1aec7b35a00d3p+0",
        "0x1.a61298e1e069cp+0",
        "0x1.5bf0a8b145769p+1",
        "0x1.85d6fd931e0bcp+3",
        "0x1.370470aec28edp+43",
        "0x1.ba437b884044bp+1021",
    ]
    assert [float(v).hex() for v in fixed_order.log([1e-300, 0.3, 1.0, 2.0, 10.0, 12345.678, 1e300])] == [
        "-0x1.5963447f87fb5p+9",
        "-0x1.34378fcbda721p+0",
        "0x0.0p+0",
        "0x1.62e42fefa39efp-1",
        "0x1.26bb1bbb55516p+1",
        "0x1.2d79559791e31p+3",
        "0x1.5963447f87fb5p+9",
    ]
    big = np.linspace(-5.0, 5.0, 3 * 8192 + 17)
    assert np.array_equal(
        fixed_order.exp(big), np.concatenate([fixed_order.exp(part) for part in np.split(big, [5, 9000])])
    )
    positive = np.exp2(np.linspace(-60.0, 60.0, 3 * 8192 + 18))
    for function in (fixed_order.log, fixed_order.log1p):
        whole = function(positive.reshape(3, -1)).reshape(-1)
        assert same_bits((whole,), (np.concatenate([function(part) for part in np.split(positive, [5, 9000])]),))
        assert same_bits((whole[::997],), (np.array([float(function(v)) for v in positive[::997].tolist()]),))


@given(small_matrices(), small_matrices())
def test_matmul_is_numpy_einsum(a: FloatArray, b: FloatArray) -> None:
    b = b[: a.shape[1]] if b.shape[0] >= a.shape[1] else np.resize(b, (a.shape[1], b.shape[1]))
    assert np.array_equal(fixed_order.matmul(a, b), np.einsum("ij,jk->ik", a, b))
    assert np.allclose(fixed_order.matmul(a, b), a @ b, rtol=1e-12, atol=1e-9)
    assert np.array_equal(fixed_order.matmul(a[0], b), np.einsum("j,jk->k", a[0], b))
    assert fixed_order.dot(a, a) == float(np.einsum("i,i->", a.ravel(), a.ravel()))


@pytest.mark.slow
@given(well_conditioned_systems())
def test_solve_solves(system: tuple[FloatArray, FloatArray]) -> None:
    matrix, rhs = system
    x = fixed_order.solve(matrix, rhs)
    assert np.allclose(matrix @ x, rhs, rtol=1e-9, atol=1e-9 * (1 + np.abs(rhs).max()))
    batch = fixed_order.solve(np.stack([matrix, 2 * matrix]), np.stack([rhs, rhs]))
    assert np.array_equal(batch[0], x)  # each system of a batch as if alone
    assert np.allclose(batch[1], x / 2, rtol=1e-9, atol=1e-12)


def test_solve_refuses_a_singular_matrix() -> None:
    try:
        fixed_order.solve([[1.0, 2.0], [2.0, 4.0]], [1.0, 1.0])
    except np.linalg.LinAlgError as err:
        assert "Singular" in str(err)
    else:
        raise AssertionError("a singular matrix was solved")


def _signed_permutations(size: int) -> list[FloatArray]:
    """Every size x size signed permutation matrix (entries 0 and +-1, one non-zero per row and column)."""
    out = []
    for perm in itertools.permutations(range(size)):
        for signs in itertools.product((1.0, -1.0), repeat=size):
            matrix = np.zeros((size, size))
            for row, (col, sign) in enumerate(zip(perm, signs, strict=True)):
                matrix[row, col] = sign
            out.append(matrix)
    return out


@pytest.mark.parametrize(
    "matrix",
    _signed_permutations(2) + _signed_permutations(3),
    ids=lambda m: "/".join("".join("-" if v < 0 else "+" if v else "0" for v in row) for row in m),
)
def test_solve_pivots_on_the_largest_magnitude_not_the_largest_value(matrix: FloatArray) -> None:
    """Every signed permutation system is solved exactly: a pivot of -1 below a 0 is taken, never the 0.

    A pivot chosen by signed value takes the 0 above a -1 and reports a singular matrix.
    """
    size = matrix.shape[0]
    rhs = np.arange(1.0, size + 1.0)
    assert fixed_order.solve(matrix, rhs).tolist() == (matrix.T @ rhs).tolist()  # A^-1 = A' for these matrices


def test_solve_the_rotation_by_a_quarter_turn() -> None:
    assert fixed_order.solve([[0.0, 1.0], [-1.0, 0.0]], [1.0, 1.0]).tolist() == [-1.0, 1.0]


@pytest.mark.parametrize(
    ("leading", "diagonal"),
    [(0.0, -5.0), (-0.0, -5.0), (3.0, -5.0), (-3.0, 5.0)],
)
def test_householder_qr_sign_rule_at_a_zero_leading_entry(leading: float, diagonal: float) -> None:
    """R_jj = -sign(a_jj) ||column||, with sign(+-0) = +1: a zero leading entry gives a negative diagonal."""
    column = np.array([[leading], [4.0 if leading else 5.0]])  # norm 5 either way
    r, qtb = fixed_order.householder_qr(column, column[:, 0])
    assert r.tolist() == [[diagonal]]
    assert qtb.tolist() == [diagonal, 0.0]


def test_householder_qr_sign_rule_in_a_later_column() -> None:
    """The rule holds for each reflection: column 2's leading entry is exactly 0 after the first reflection."""
    r, _ = fixed_order.householder_qr([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]], [0.0, 0.0, 0.0])
    assert r.tolist() == [[-1.0, 0.0], [0.0, -2.0]]


@given(tall_matrices(), small_matrices(min_rows=10, max_rows=10, max_cols=1))
def test_householder_qr_is_a_qr(matrix: FloatArray, column: FloatArray) -> None:
    rows, cols = matrix.shape
    b = np.resize(column[:, 0], rows)
    r, qtb = fixed_order.householder_qr(matrix, b)
    assert np.array_equal(r, np.triu(r)) and r.shape == (cols, cols)
    scale = 1.0 + float(np.abs(matrix).max()) ** 2
    assert np.allclose(r.T @ r, matrix.T @ matrix, rtol=1e-9, atol=1e-9 * scale)  # R'R = A'A
    assert math.isclose(float(qtb @ qtb), float(b @ b), rel_tol=1e-9, abs_tol=1e-9)  # Q is orthogonal
    assert np.allclose(r.T @ qtb[:cols], matrix.T @ b, rtol=1e-8, atol=1e-7 * scale)  # R' (Q'b) = A'b


@given(tall_matrices(), st.integers(-700, 700))
@example(np.array([[8.7937581e-103, 1.0], [0.0, 0.0]]), 682)  # v'A overflowed: a column 10^103 times its neighbour
def test_householder_qr_is_the_same_at_any_scale(matrix: FloatArray, exponent: int) -> None:
    """R(2^e A) = 2^e R(A), finite, for e from -700 to 700, where the squares of A 2^e underflow or overflow too."""
    assume(np.array_equal(np.ldexp(np.ldexp(matrix, exponent), -exponent), matrix))  # no entry lost to underflow
    r, _ = fixed_order.householder_qr(matrix, np.zeros(matrix.shape[0]))
    scaled, _ = fixed_order.householder_qr(np.ldexp(matrix, exponent), np.zeros(matrix.shape[0]))
    assert np.isfinite(scaled).all()
    tolerance = 1e-9 * (1.0 + float(np.abs(matrix).max()))
    assert np.allclose(np.ldexp(scaled, -exponent), r, rtol=1e-9, atol=tolerance)


@pytest.mark.slow
@given(tall_matrices())
def test_svd_is_an_svd(matrix: FloatArray) -> None:
    u, s, v = fixed_order.svd(matrix)
    rows, cols = matrix.shape
    assert u.shape == (rows, cols) and s.shape == (cols,) and v.shape == (cols, cols)
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    scale = 1.0 + float(np.abs(matrix).max())
    assert np.allclose((u * s) @ v.T, matrix, atol=1e-10 * scale * rows)
    assert np.allclose(v.T @ v, np.eye(cols), atol=1e-12 * cols)
    assert np.allclose(s, np.linalg.svd(matrix, compute_uv=False), atol=1e-10 * scale * rows)
    _, again_s, _ = fixed_order.svd(matrix, start=v)  # a warm start: the same decomposition
    assert np.allclose(again_s, s, atol=1e-10 * scale * rows)


@given(tall_matrices(), st.integers(-700, 700))
def test_svd_is_the_same_at_any_scale(matrix: FloatArray, exponent: int) -> None:
    """s(2^e A) = 2^e s(A), finite, where products of A 2^e's squared norms underflow or overflow too."""
    assume(np.array_equal(np.ldexp(np.ldexp(matrix, exponent), -exponent), matrix))  # no entry lost to underflow
    _, s, _ = fixed_order.svd(matrix)
    u, scaled, v = fixed_order.svd(np.ldexp(matrix, exponent))
    assert np.isfinite(u).all() and np.isfinite(scaled).all() and np.isfinite(v).all()
    assert np.allclose(np.ldexp(scaled, -exponent), s, rtol=1e-9, atol=1e-10 * (1.0 + float(np.abs(matrix).max())))


def _plain_jacobi_svd(a: FloatArray, start: FloatArray | None) -> tuple[FloatArray, FloatArray, FloatArray]:
    """svd's rotations written plainly: A and V apart, every choice through np.where (the independent reference)."""
    n, q = a.shape
    size = q + q % 2
    work, v = np.zeros((n, size)), np.eye(size)
    if start is None:
        work[:, :q] = a
    else:
        v[:q, :q] = start
        work[:, :q] = fixed_order.matmul(a, start)
    largest = float(np.abs(work).max()) if work.size else 0.0
    shift = 0 if largest == 0.0 or 2.0**-200 <= largest <= 2.0**200 else math.frexp(largest)[1]
    work = np.ldexp(work, -shift)  # a matrix far from 1 is rotated times a power of two, its s scaled back
    tol = max(q, 1) * 2.0**-53
    circle = list(range(size))
    rounds = []
    for _ in range(size - 1):
        half = range(size // 2)
        rounds.append(
            (
                np.array([min(circle[i], circle[size - 1 - i]) for i in half], dtype=np.intp),
                np.array([max(circle[i], circle[size - 1 - i]) for i in half], dtype=np.intp),
            )
        )
        circle = [circle[0], circle[-1], *circle[1:-1]]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for _ in range(60):
            rotated = False
            for first, second in rounds:
                ai, aj = work[:, first], work[:, second]
                alpha, beta = np.einsum("ij,ij->j", ai, ai), np.einsum("ij,ij->j", aj, aj)
                gamma = np.einsum("ij,ij->j", ai, aj)
                turn = (gamma != 0.0) & (np.abs(gamma) > tol * np.sqrt(alpha * beta))
                if not turn.any():
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * np.where(turn, gamma, 1.0))
                big = np.abs(zeta) > 1e150
                root = np.sqrt(1.0 + np.where(big, 0.0, zeta * zeta))
                t = np.where(big, 0.5 / np.where(big, zeta, 1.0), np.copysign(1.0, zeta) / (np.abs(zeta) + root))
                c = np.where(turn, 1.0 / np.sqrt(1.0 + t * t), 1.0)
                s = np.where(turn, c * t, 0.0)
                work[:, first], work[:, second] = c * ai - s * aj, s * ai + c * aj
                vi, vj = v[:, first], v[:, second]
                v[:, first], v[:, second] = c * vi - s * vj, s * vi + c * vj
            if not rotated:
                break
    norms = np.sqrt(np.einsum("ij,ij->j", work[:, :q], work[:, :q]))
    order = np.argsort(-norms, kind="stable")
    u = np.zeros((n, q))
    nonzero = norms[order] > 0.0
    u[:, nonzero] = work[:, order][:, nonzero] / norms[order][nonzero]
    return u, np.ldexp(norms[order], shift), v[:q][:, order]


@given(tall_matrices())
def test_svd_makes_the_plain_rotations_doubles(matrix: FloatArray) -> None:
    """svd (A and V rotated as one array, np.where skipped where it would pick one side) = the plain sweep, bit for bit."""
    u, s, v = fixed_order.svd(matrix)
    assert same_bits((u, s, v), _plain_jacobi_svd(matrix, None))
    flipped = v[:, ::-1].copy()  # a warm start: any orthogonal matrix
    assert same_bits(fixed_order.svd(matrix, start=flipped), _plain_jacobi_svd(matrix, flipped))


def test_svd_of_columns_of_far_apart_sizes_takes_the_huge_zeta_branch_alike() -> None:
    """Column norms 1e160 apart make zeta exceed 1e150 (t = 1 / (2 zeta)): the same doubles as the plain sweep."""
    matrix = np.array([[1e150, 1e-10, 3.0], [2e149, -2e-10, 0.5], [-3e149, 1e-13, 2.0], [0.0, 4e-10, -1.0]])
    a, b = matrix[:, 0], matrix[:, 1]
    assert abs((b @ b - a @ a) / (2.0 * (a @ b))) > 1e150  # the first round's zeta
    assert same_bits(fixed_order.svd(matrix), _plain_jacobi_svd(matrix, None))
