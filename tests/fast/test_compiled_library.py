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
from typing import Literal

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


def _foreign(library: Path, tmp_path: Path) -> Path:
    """A copy of *library* whose ELF header names another machine (AArch64, or x86-64 on AArch64)."""
    data = bytearray(library.read_bytes())
    order: Literal["little", "big"] = "little" if data[5] == 1 else "big"
    machine = int.from_bytes(data[18:20], order)
    data[18:20] = (62 if machine == 183 else 183).to_bytes(2, order)
    copy = tmp_path / library.name
    copy.write_bytes(bytes(data))
    return copy


@needs_compiled
def test_a_library_for_another_machine_says_so(tmp_path: Path) -> None:
    """The loader would say "No such file or directory" of a file that is there: the warning names the machines."""
    done = _probe(_foreign(_library(), tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False True", _numpy_answer()]
    (line,) = done.stderr.splitlines()
    assert "is built for another machine (" in line and ("AArch64;" in line or "x86-64;" in line)
    assert "No such file" not in line


_SIMULATE_WITH_WORKERS = _PROBE.split("from sysrs_ref import Instance")[0] + (
    "from sysrs_ref.cli import main\n"
    "sys.exit(main(['simulate', '--scores', 'gsm', '--algorithm', 'sysrs', '--budgets', '10%', '--runs', '40',"
    " '--workers', '2']))\n"
)


@pytest.mark.slow
@needs_compiled
def test_a_broken_library_is_reported_once_per_run_not_per_worker(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SIMULATE_WITH_WORKERS, str(_foreign(_library(), tmp_path))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("warning: the compiled passes are not used")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_in_the_library_s_place_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """The library is opened by the package's one reading rule: a FIFO is not waited on, /dev/zero not read."""
    import os

    place = tmp_path / "_native_lib.so"
    if kind == "fifo":
        os.mkfifo(place)
    else:
        place.symlink_to("/dev/zero")
    done = _probe(place)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["False True", _numpy_answer()]
    (line,) = done.stderr.splitlines()
    assert "cannot be read" in line and ("a FIFO" if kind == "fifo" else "a device") in line
