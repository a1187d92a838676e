"""A pytest plugin: under coverage (the test command's ``--cov``), the slow tests run untraced.

The coverage floor (``[tool.coverage.report] fail_under`` in pyproject.toml) holds the fast
tests' coverage of sysrs_ref. A slow test mostly runs the command line or the docs in
subprocesses, which coverage does not follow, or repeats at length code that the fast tests
already reach: tracing the slow tests too would lift the number by about half a point for over
two minutes more on two cores. tests/conftest.py loads this hook; tests/project/test_coverage.py
checks it in pytest runs of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import coverage
import pytest

__all__ = ["pytest_runtest_protocol"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Stop every running Coverage for a test marked ``slow``, and start them again after it.

    pytest-cov's ``no_cover`` marker cannot do this: under pytest-xdist a worker holds two
    Coverage objects (seen with pytest-cov 7.1), the marker stops only the top one, and the
    one under it then traces the test (the xdist case of tests/project/test_coverage.py
    fails with one stop). Stopping them all, then starting them again in their order, leaves the
    worker's stack as it was.
    """
    running: list[coverage.Coverage] = []
    if item.get_closest_marker("slow") is not None:
        while (current := coverage.Coverage.current()) is not None:
            current.stop()
            running.append(current)
    try:
        yield
    finally:
        for paused in reversed(running):
            paused.start()
