"""A pytest plugin of the mutation check: which test executes which line of the package, written as JSON.

:mod:`benchmarks.mutants` copies this file into its copy of the tree and runs an area's tests once with
``-p _mutant_trace`` (``SYSRS_MUTANTS_TRACE`` names the JSON file to write). It traces ``sysrs_ref`` and
``proofs_check`` with coverage.py, the dynamic context switched to ``<test id>|<phase>`` around each test's
setup, call and teardown (coverage.py's ``Coverage.switch_context``), so that a mutant need only meet the tests
that execute its line. What would make that selection miss a test is handled here:

- every ``functools`` cache of the package is cleared before each test, so a test that would be served a
  cached value computes it, and its line is counted as executed by that test;
- the slow tests are traced too (``tests/untraced.py`` stops every running Coverage for them: here it finds none);
- a line run outside any test (at import or collection) is written with the empty context: the runner then
  runs the whole area;
- the tests that start a process (``fork``, ``posix_spawn``, ``subprocess``) are listed: what their children
  execute is not traced, so the runner always includes them;
- each test's fixtures wider than a function are listed: a line run in a test's setup also counts for the
  tests that share such a fixture.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import coverage
import pytest

_OUTPUT = os.environ.get("SYSRS_MUTANTS_TRACE", "")
_COVERAGE = coverage.Coverage(data_file=None, source=["sysrs_ref", "proofs_check"], config_file=False)
_current = [""]
_spawners: set[str] = set()
_fixtures: dict[str, list[str]] = {}


def _none(cls: type) -> None:
    return None


def _spawning(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def spawn(*args: Any, **kwargs: Any) -> Any:
        if _current[0]:
            _spawners.add(_current[0])
        return original(*args, **kwargs)

    return spawn


def _install() -> None:
    import _posixsubprocess

    for owner, name in ((os, "fork"), (os, "posix_spawn"), (os, "posix_spawnp"), (_posixsubprocess, "fork_exec")):
        if hasattr(owner, name):
            setattr(owner, name, _spawning(getattr(owner, name)))
    setattr(coverage.Coverage, "current", classmethod(_none))  # noqa: B010 - tests/untraced.py must not stop us
    _COVERAGE.start()


if _OUTPUT:
    _install()


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if not name.startswith(("sysrs_ref", "proofs_check")) or module is None:
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def _wide_fixtures(item: pytest.Item) -> list[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    wide = []
    for name, definitions in info.name2fixturedefs.items():
        if definitions and definitions[-1].scope != "function":
            wide.append(f"{definitions[-1].baseid}::{name}")
    return sorted(wide)


def _phase(item: pytest.Item, phase: str) -> None:
    _current[0] = item.nodeid
    _COVERAGE.switch_context(f"{item.nodeid}|{phase}")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Clear the package's caches, note the test's wide fixtures, and leave no context after it."""
    if _OUTPUT:
        _clear_caches()
        _fixtures[item.nodeid] = _wide_fixtures(item)
    yield
    if _OUTPUT:
        _current[0] = ""
        _COVERAGE.switch_context("")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """Trace the setup under ``<id>|setup``."""
    if _OUTPUT:
        _phase(item, "setup")
    yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Trace the call under ``<id>|call``."""
    if _OUTPUT:
        _phase(item, "call")
    yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Trace the teardown under ``<id>|teardown``."""
    if _OUTPUT:
        _phase(item, "teardown")
    yield


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write ``{"files": {path: {line: [context, ...]}}, "spawners": [...], "fixtures": {...}, "status": N}``."""
    if not _OUTPUT:
        return
    _COVERAGE.stop()
    data = _COVERAGE.get_data()
    root = Path.cwd().resolve()
    files: dict[str, dict[str, list[str]]] = {}
    for measured in data.measured_files():
        path = Path(measured).resolve()
        if not path.is_relative_to(root):
            continue
        by_line = data.contexts_by_lineno(measured)
        files[path.relative_to(root).as_posix()] = {str(line): sorted(set(c)) for line, c in by_line.items()}
    trace = {"files": files, "spawners": sorted(_spawners), "fixtures": _fixtures, "status": int(exitstatus)}
    Path(_OUTPUT).write_text(json.dumps(trace), encoding="utf-8")
