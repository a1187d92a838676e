"""Shared fixtures and Hypothesis settings for the test suite."""

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

from sysrs_ref.fast import compiled
from tests.real_data import exported
from tests.untraced import pytest_runtest_protocol

# The suite starts hundreds of Python processes (the command line, the docs' console blocks, worker pools). Where
# the environment turns bytecode caches off (PYTHONDONTWRITEBYTECODE, common in containers) and the venv was
# installed with --no-compile (the README's test command), each of them would compile numpy and the package from
# source again, about half a second a process: the suite lets Python cache bytecode, for itself and for the
# processes it starts (its pytest-xdist workers too: they start after this file is read).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# No per-example deadline: timing on a loaded 2-core CI machine must not fail a property.
# Examples stay random across runs (a new failing example is a real bug, printed with its seed).
settings.register_profile("sysrs", deadline=None, print_blob=True)
settings.load_profile("sysrs")

__all__ = ["backend", "exported", "pytest_runtest_protocol"]


@pytest.fixture(scope="module", params=["compiled", "numpy"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test twice: with the compiled passes (C) and with numpy alone (the fallback).

    Module-scoped, so Hypothesis tests may use it. Where the passes were not built the
    compiled case is the numpy one again (not compiled.active()), so both still run
    (and tests/fast/test_native_build.py fails).
    """
    yield "compiled" if request.param == "compiled" and compiled.active() else "numpy"


@pytest.fixture(autouse=True)
def _numpy_only_where_asked(request: pytest.FixtureRequest) -> Iterator[None]:
    """numpy alone in exactly the tests that take the numpy ``backend``, for the test only.

    The backend is module-scoped, and pytest runs a module's other tests
    while it is still set up: had the numpy case switched the compiled
    passes off for as long as it was set up, a test that does not ask for a
    backend (and means the compiled passes) would silently test numpy.
    """
    if "backend" in request.fixturenames and request.getfixturevalue("backend") == "numpy":
        with compiled.numpy_only():
            yield
    else:
        yield
