"""Shared fixtures and Hypothesis settings for the test suite."""

from collections.abc import Iterator

import pytest
from hypothesis import settings

from sysrs_ref.fast import compiled
from tests.real_data import exported

# No per-example deadline: timing on a loaded 2-core CI machine must not fail a property.
# Examples stay random across runs (a new failing example is a real bug, printed with its seed).
settings.register_profile("sysrs", deadline=None, print_blob=True)
settings.load_profile("sysrs")

__all__ = ["backend", "exported"]


@pytest.fixture(scope="module", params=["compiled", "numpy"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test twice: with the compiled passes (C) and with numpy alone (the fallback).

    Module-scoped, so Hypothesis tests may use it. Where the passes were not built the
    compiled case is the numpy one again (compiled.active() is None), so both still run
    (and tests/fast/test_native_build.py fails).
    """
    if request.param == "numpy":
        with compiled.numpy_only():
            yield "numpy"
    else:
        yield "compiled" if compiled.active() is not None else "numpy"
