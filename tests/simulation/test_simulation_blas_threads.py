"""Worker processes run BLAS on one thread: the workers, not BLAS's threads, share the cores."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import ctypes, numpy
from sysrs_ref.simulation._blas import single_blas_thread
from sysrs_ref.simulation import _engine
paths = {l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.lower() and "/" in l}
def threads():
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads"):
            getter = getattr(library, name, None)
            if getter is not None:
                return getter()
    return None
before = threads()
_engine._init_worker({})
print(before, threads(), _engine._PINNED)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the libraries are found in /proc/self/maps")
def test_a_worker_sets_numpys_openblas_to_one_thread() -> None:
    """A worker's initializer sets the OpenBLAS numpy loaded to one thread (it started with OPENBLAS_NUM_THREADS=2)."""
    environment = {"OPENBLAS_NUM_THREADS": "2", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment, check=True, timeout=120
    ).stdout.split(maxsplit=2)
    if out[0] == "None":
        pytest.skip("this numpy does not use OpenBLAS")
    assert out[:2] == ["2", "1"]
    assert out[2].strip() == "[1]"
