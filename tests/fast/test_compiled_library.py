"""A damaged compiled library, or one of another build, is refused before it is used: numpy runs, one warning line.

A truncated library mapped by the loader would kill the process with
SIGBUS, so its file is checked before ctypes loads it; each case runs in a
subprocess that points the package at a copy of the library.
"""

from __future__ import annotations

import _ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sysrs_ref.fast import compiled
from tests.backends import needs_compiled

_PROBE = """
import importlib.machinery, importlib.util, sys
found = importlib.util.find_spec
def find(name, *rest):
    if name.endswith("_native_lib"):
        return importlib.machinery.ModuleSpec(name, None, origin=sys.argv[1])
    return found(name, *rest)
importlib.util.find_spec = find
from sysrs_ref import Instance
from sysrs_ref.fast import compiled, random_draws, run_fast
print(compiled.available(), not compiled.active())
draws = random_draws(3, 20, 3, 4, synchronized=False)
print(run_fast(Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1]]), "ucbe", [5, 8, 12], draws, a=1).chosen.tolist())
"""


def _library() -> Path:
    from sysrs_ref.fast import _native

    return Path(_native.library_path())


def _probe(library: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _PROBE, str(library)], capture_output=True, text=True, timeout=120)


def _numpy_answer() -> str:
    from sysrs_ref import Instance
    from sysrs_ref.fast import random_draws, run_fast

    draws = random_draws(3, 20, 3, 4, synchronized=False)
    with compiled.numpy_only():
        chosen = run_fast(Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1]]), "ucbe", [5, 8, 12], draws, a=1).chosen
    return str(chosen.tolist())


@needs_compiled
@pytest.mark.parametrize("fraction", [0.3, 0.7, 0.98])
def test_a_truncated_library_is_refused_before_it_is_loaded(tmp_path: Path, fraction: float) -> None:
    """An interrupted install: no SIGBUS, available() is False, one warning line, numpy's outcome."""
    whole = _library().read_bytes()
    cut = tmp_path / _library().name
    cut.write_bytes(whole[: int(len(whole) * fraction)])
    done = _probe(cut)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False True", _numpy_answer()]
    (line,) = done.stderr.splitlines()
    assert line.startswith("warning: the compiled passes are not used, numpy runs everything")
    assert "truncated" in line


@needs_compiled
def test_a_library_of_another_build_is_refused() -> None:
    """Another shared library under the name: no undefined-symbol traceback, available() is False."""
    other = Path(_ctypes.__file__)
    done = _probe(other)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False True", _numpy_answer()]
    (line,) = done.stderr.splitlines()
    assert "of another build" in line


@needs_compiled
def test_the_whole_library_loads_without_a_word(tmp_path: Path) -> None:
    """A copy of the real library passes every check: compiled, and nothing on stderr."""
    copy = tmp_path / _library().name
    shutil.copyfile(_library(), copy)
    done = _probe(copy)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines() == ["True False", _numpy_answer()]


def test_a_file_that_is_not_a_library_is_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "_native_lib.so"
    garbage.write_bytes(b"not a library at all" * 100)
    done = _probe(garbage)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "False True"
    assert len(done.stderr.splitlines()) == 1
