"""The compiled passes are built by the README's install, load, and fall back to numpy when they cannot.

A missing build is a failure here, not a skip: ``pip install -e '.[dev]'``
compiles ``sysrs_ref/fast/_csrc`` (it needs a C compiler). Run the suite
with ``SYSRS_REF_COMPILED=0`` to test numpy alone on purpose.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sysrs_ref import Instance
from sysrs_ref.fast import _compiled, compiled, random_draws, run_fast

_OFF = ("0", "false", "no", "off")


def test_the_compiled_passes_are_built_here() -> None:
    """Built and loaded, unless switched off on purpose (then numpy runs everything)."""
    if os.environ.get(compiled.ENVIRONMENT, "1").strip().lower() in _OFF:
        assert not compiled.active()
        return
    assert compiled.available(), (
        "the compiled passes were not built: `pip install -e '.[dev]'` compiles sysrs_ref/fast/_csrc and "
        "needs a C compiler (gcc or clang); set SYSRS_REF_COMPILED=0 to test numpy alone on purpose"
    )
    assert compiled.active()


def test_a_missing_build_falls_back_to_numpy() -> None:
    """Without the library (an install with no C compiler), nothing fails: numpy computes the same outcome."""
    code = """
import importlib.util
found = importlib.util.find_spec
importlib.util.find_spec = lambda name, *rest: None if name.endswith("_native_lib") else found(name, *rest)
from sysrs_ref import Instance
from sysrs_ref.fast import compiled, random_draws, run_fast
print(compiled.available(), not compiled.active())
draws = random_draws(3, 20, 3, 4, synchronized=False)
print(run_fast(Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1]]), "ucbe", [5, 8, 12], draws, a=1).chosen.tolist())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "False True"
    draws = random_draws(3, 20, 3, 4, synchronized=False)
    expected = run_fast(Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1]]), "ucbe", [5, 8, 12], draws, a=1)
    assert lines[1] == str(expected.chosen.tolist())


def test_inputs_that_need_a_copy_are_kept_alive() -> None:
    """Orders in int64 and a table that is not C-ordered are copied for C; the copies live through the call (a
    freed copy read garbage, or crashed, in an early version), and the sums are numpy's."""
    module = _compiled.library()
    if module is None:
        return  # numpy alone on purpose: test_the_compiled_passes_are_built_here says whether that is right
    rng = np.random.default_rng(4)
    values = np.asfortranarray(rng.integers(0, 2, size=(6, 300)).astype(np.int64))
    orders = np.argsort(rng.random((40, 6, 300)), axis=2).astype(np.int64)
    wanted = np.array([1, 17, 150, 300], dtype=np.intp)
    out = np.empty((4, 40, 6), dtype=np.int64)
    for _ in range(20):  # allocations in between would reuse a freed copy's memory
        module.prefix_at(values, orders, wanted, out)  # the library's own entry: orders in int64 on purpose
        junk = [np.full(300 * 6 * 40, 7, dtype=np.int64) for _ in range(3)]
        del junk
    expected = np.take_along_axis(np.broadcast_to(values, (40, 6, 300)), orders, axis=2).cumsum(axis=2)
    assert np.array_equal(out, expected[:, :, wanted - 1].transpose(2, 0, 1))


def test_every_address_handed_to_c_belongs_to_an_array_the_call_holds() -> None:
    """The copy made for C (wrong dtype, or not C-ordered) is referenced until the call ends, at the very address C
    gets; an array C writes is never copied (a copy would lose the output), it must already fit."""
    if not compiled.active():
        return
    from sysrs_ref.fast._native import _Arrays  # only where the library was built

    arrays = _Arrays()
    source = np.arange(24, dtype=np.int64).reshape(4, 6)[:, ::2]  # neither int32 nor C-ordered
    address = arrays.input(source, np.int32, (4, 3))
    held = [array for array in arrays._kept if int(array.ctypes.data) == address]
    assert len(held) == 1 and held[0].dtype == np.int32 and np.array_equal(held[0], source)
    with pytest.raises(ValueError, match="C order"):
        arrays.output(source, np.int64)
    with pytest.raises(TypeError, match="int32"):
        arrays.output(np.zeros(3, dtype=np.int64), np.int32)
    with pytest.raises(ValueError, match="shape"):
        arrays.output(np.zeros(3, dtype=np.int64), np.int64, (4,))


def test_the_address_handed_to_c_is_the_arrays_first_element() -> None:
    """Whichever way the address is read (a writable array's buffer, or numpy's ctypes view of a read-only or
    empty one), it is the address of the array's first element: a view's offset included."""
    if not compiled.active():
        return
    from sysrs_ref.fast._native import _Arrays  # only where the library was built

    arrays = _Arrays()
    base = np.arange(40, dtype=np.float64)
    frozen = base[8:].copy()
    frozen.setflags(write=False)
    for array in (base, base[8:], base[3:11].reshape(2, 4), frozen, np.zeros(0), np.zeros((2, 0, 3))):
        assert arrays.output(array, np.float64) == array.__array_interface__["data"][0]
