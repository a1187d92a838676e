"""The fixed-order kernels in C (COMPILED_KERNELS): numpy's doubles bit for bit, and the same fits and picks.

The SVD's rotations, and exp, log, log1p and sigmoid, each against :mod:`sysrs_ref._fixed_order`'s numpy loop (the
definition); then an IRT fit, a GAM fit and MetaBench with the compiled kernels against the same with numpy's.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref.datasets import load_dataset
from sysrs_ref.fast import COMPILED_KERNELS, _compiled, _native, compiled
from sysrs_ref.subset.gam import fit_gam
from sysrs_ref.subset.irt import fit_irt
from sysrs_ref.subset.metabench import metabench_model
from sysrs_ref.subset.methods import select_subset
from tests.backends import needs_compiled, same_bits
from tests.strategies import elementwise_arguments, jacobi_matrices

FloatArray = np.ndarray
jacobi_sweeps_compiled = COMPILED_KERNELS.jacobi
ELEMENTWISE = {
    "exp": (fixed_order.exp, COMPILED_KERNELS.exp),
    "log": (fixed_order.log, COMPILED_KERNELS.log),
    "log1p": (fixed_order.log1p, COMPILED_KERNELS.log1p),
    "sigmoid": (fixed_order.sigmoid, COMPILED_KERNELS.sigmoid),
}


def _joint(matrix: FloatArray) -> tuple[FloatArray, int]:
    """The array svd rotates: the matrix padded to an even width, over the identity."""
    n, q = matrix.shape
    size = q + q % 2
    joint = np.zeros((n + size, size))
    joint[:n, :q] = matrix
    joint[n:] = np.eye(size)
    return joint, n


@needs_compiled
def test_this_numpy_sums_as_the_c_code_does() -> None:
    """Otherwise every other test here would compare numpy with itself: the C path must be the one taken."""
    module = _compiled.library()
    assert module is not None
    joint, n = _joint(np.arange(30.0).reshape(10, 3) ** 0.5)
    assert _compiled.jacobi_sweeps(module, joint, n, 3 * 2.0**-53, 60)


@needs_compiled
@settings(max_examples=150, deadline=None)
@given(jacobi_matrices())
def test_compiled_rotations_make_numpys_doubles(matrix: FloatArray) -> None:
    assert same_bits(fixed_order.svd(matrix, jacobi=jacobi_sweeps_compiled), fixed_order.svd(matrix))
    _, _, v = fixed_order.svd(matrix)
    start = v[:, ::-1].copy()  # a warm start, as the GAM's GCV search gives
    assert same_bits(
        fixed_order.svd(matrix, start=start, jacobi=jacobi_sweeps_compiled), fixed_order.svd(matrix, start=start)
    )
    for sweeps in (0, 1, 2):  # stopped part-way, the same doubles sweep for sweep
        joint, n = _joint(matrix)
        expected = joint.copy()
        fixed_order.jacobi_sweeps(expected, n, 2.0**-50, sweeps)
        jacobi_sweeps_compiled(joint, n, 2.0**-50, sweeps)
        assert joint.tobytes() == expected.tobytes()


@needs_compiled
def test_columns_of_far_apart_sizes_take_the_huge_zeta_branch_alike() -> None:
    matrix = np.array([[1e150, 1e-10, 3.0], [2e149, -2e-10, 0.5], [-3e149, 1e-13, 2.0], [0.0, 4e-10, -1.0]])
    assert same_bits(fixed_order.svd(matrix, jacobi=jacobi_sweeps_compiled), fixed_order.svd(matrix))


@needs_compiled
def test_numpys_loop_rotates_where_the_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A numpy that sums in another order (here: each pair in plain row order) fails the check: numpy rotates."""
    module = _compiled.library()
    assert module is not None

    def row_order(joint: FloatArray, n: int, tol: float, max_sweeps: int) -> None:
        contiguous = np.ascontiguousarray  # C-ordered gathers: einsum then sums row after row
        for _ in range(max_sweeps):
            for first, second in fixed_order.circle_rounds(joint.shape[1]):
                x, y = contiguous(joint[:, first]), contiguous(joint[:, second])
                gamma = np.einsum("ij,ij->j", x[:n], y[:n])
                c, s = np.where(gamma != 0.0, 0.6, 1.0), np.where(gamma != 0.0, 0.8, 0.0)
                joint[:, first], joint[:, second] = c * x - s * y, s * x + c * y

    monkeypatch.delitem(_compiled._state, "jacobi", raising=False)
    monkeypatch.setattr(fixed_order, "jacobi_sweeps", row_order)
    joint, n = _joint(np.arange(12.0).reshape(4, 3))
    assert not _compiled.jacobi_sweeps(module, joint, n, 2.0**-50, 60)
    assert joint.tobytes() == _joint(np.arange(12.0).reshape(4, 3))[0].tobytes()  # nothing written


def test_numpy_only_and_a_failed_check_give_the_same_doubles(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = np.sin(np.arange(60.0)).reshape(12, 5)
    want = fixed_order.svd(matrix)
    with compiled.numpy_only():
        assert same_bits(fixed_order.svd(matrix, jacobi=jacobi_sweeps_compiled), want)
    monkeypatch.setitem(_compiled._state, "jacobi", False)
    assert same_bits(fixed_order.svd(matrix, jacobi=jacobi_sweeps_compiled), want)
    joint, n = _joint(matrix)
    assert not _compiled.jacobi_sweeps(np, joint, n, 2.0**-50, 60)  # refused before the module is touched


@needs_compiled
def test_a_gam_fit_and_metabench_are_the_same_with_the_compiled_rotations() -> None:
    """A corner of gsm, as the subset study fits it: the same anchors, GAM doubles and pick."""
    scores = np.asarray(load_dataset("gsm").array, dtype=np.float64)[:30, :120]
    irt = fit_irt(scores, 2, epochs=200, seed=0)
    plain = metabench_model(scores, 12, irt)
    fast = metabench_model(scores, 12, irt, kernels=COMPILED_KERNELS)
    assert fast.anchors == plain.anchors
    assert fast.gam.fitted.tobytes() == plain.gam.fitted.tobytes()
    assert (fast.gam.smoothing, fast.gam.edf, fast.gam.gcv) == (plain.gam.smoothing, plain.gam.edf, plain.gam.gcv)
    x = np.linspace(0.0, 1.0, 40)
    covariates, response = np.column_stack([x, np.cos(5.0 * x)]), np.sin(4.0 * x) + x
    assert (
        fit_gam(covariates, response, kernels=COMPILED_KERNELS).fitted.tobytes()
        == fit_gam(covariates, response).fitted.tobytes()
    )


@needs_compiled
@pytest.mark.parametrize(
    ("shape", "first", "message"),
    [
        ((5, 3), [[0], [0]], "odd width"),
        ((5, 4), [[0, 1], [0, 2], [0, 1]], "wrong number of rows"),
        ((6, 4), [[0, 1], [0, 9], [0, 2]], "outside the matrix"),
    ],
)
def test_the_c_call_refuses_arrays_it_cannot_take(shape: tuple[int, int], first: list[list[int]], message: str) -> None:
    joint = np.zeros(shape)
    second = np.full((len(first), len(first[0])), 3)
    with pytest.raises(ValueError, match=message):
        _native.jacobi_sweeps(joint, 2, np.array(first), second, 1e-15, 5)


@needs_compiled
def test_a_read_only_array_is_refused_not_written() -> None:
    joint, n = _joint(np.arange(12.0).reshape(4, 3))
    joint.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        jacobi_sweeps_compiled(joint, n, 2.0**-50, 60)
    with pytest.raises(ValueError, match="read-only"):
        fixed_order.jacobi_sweeps(joint, n, 2.0**-50, 60)  # numpy's loop refuses it too


def _same_doubles(got: FloatArray, want: FloatArray) -> bool:
    """The same shape and doubles bit for bit, NaN where the other has NaN (a NaN's payload is not compared)."""
    nan = np.isnan(want)
    return (
        got.shape == want.shape and np.array_equal(np.isnan(got), nan) and got[~nan].tobytes() == want[~nan].tobytes()
    )


@needs_compiled
def test_this_processor_runs_the_compiled_elementwise_loops() -> None:
    """Otherwise the tests below would compare numpy with itself: the once-per-process check must pass here."""
    module = _compiled.library()
    assert module is not None
    assert _compiled.elementwise(module, "exp", [1.0]) is not None


@needs_compiled
@settings(max_examples=200, deadline=None)
@given(elementwise_arguments)
def test_compiled_elementwise_functions_make_numpys_doubles(values: list[float]) -> None:
    module = _compiled.library()
    assert module is not None
    x = np.array(values)
    for name, (numpy_loop, kernel) in ELEMENTWISE.items():
        want = numpy_loop(x)
        got = _compiled.elementwise(module, name, x)
        assert got is not None and _same_doubles(got, want), name
        assert _same_doubles(kernel(x), want), name
        assert _same_doubles(kernel(x.reshape(1, -1)[:, ::-1]), want[::-1].reshape(1, -1)), name  # any shape, strides


def test_numpy_only_and_a_failed_elementwise_check_give_numpys_doubles(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.linspace(-800.0, 800.0, 301)
    with compiled.numpy_only():
        for numpy_loop, kernel in ELEMENTWISE.values():
            assert kernel(x).tobytes() == numpy_loop(x).tobytes()
    monkeypatch.setitem(_compiled._state, "elementwise", False)
    for numpy_loop, kernel in ELEMENTWISE.values():
        assert kernel(x).tobytes() == numpy_loop(x).tobytes()
    assert _compiled.elementwise(np, "exp", x) is None  # refused before the module is touched


@needs_compiled
def test_the_elementwise_check_fails_on_a_definition_the_c_code_does_not_follow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A numpy loop that rounds one step otherwise (here: log's last step fused into one rounding) fails the check."""
    module = _compiled.library()
    assert module is not None

    def other_log(x: object) -> FloatArray:
        values = np.asarray(x, dtype=np.float64)
        return np.asarray(fixed_order.log(values) * (1.0 + 2.0**-52), dtype=np.float64)

    monkeypatch.delitem(_compiled._state, "elementwise", raising=False)
    monkeypatch.setitem(_compiled._ELEMENTWISE, "log", other_log)
    assert _compiled.elementwise(module, "log", [2.0]) is None


@needs_compiled
@pytest.mark.parametrize(
    ("name", "out", "message"),
    [
        ("exp2", np.empty(3), "no compiled elementwise function"),
        ("exp", np.empty(4), "of its shape"),
        ("exp", np.empty((3, 1)), "1-D input"),
    ],
)
def test_the_elementwise_c_call_refuses_what_it_cannot_take(name: str, out: FloatArray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _native.fixed_elementwise(name, np.zeros(3), out, fixed_order.elementwise_constants())
    read_only = np.empty(3)
    read_only.setflags(write=False)
    with pytest.raises(ValueError, match="writable"):
        _native.fixed_elementwise("exp", np.zeros(3), read_only, fixed_order.elementwise_constants())
    both = np.zeros(3)
    with pytest.raises(ValueError, match="apart from its input"):
        _native.fixed_elementwise("exp", both, both, fixed_order.elementwise_constants())


@needs_compiled
def test_an_irt_fit_and_the_subset_methods_are_the_same_with_the_compiled_kernels() -> None:
    """A corner of gsm: the IRT fit's doubles, its report, and each IRT method's anchors and pick."""
    scores = np.asarray(load_dataset("gsm").array, dtype=np.float64)[:30, :150]
    plain, fast = (
        fit_irt(scores, 3, epochs=150, seed=0),
        fit_irt(scores, 3, epochs=150, seed=0, kernels=COMPILED_KERNELS),
    )
    for name in ("theta", "alpha", "beta"):
        assert getattr(fast, name).tobytes() == getattr(plain, name).tobytes(), name
    assert (fast.hyper, fast.report) == (plain.hyper, plain.report)
    for method in ("kmeans-irt", "metabench"):
        want = select_subset(scores, method, 10, epochs=150)
        assert select_subset(scores, method, 10, epochs=150, kernels=COMPILED_KERNELS) == want, method
