"""The same seed gives the same bits whatever BLAS kernel the machine picks.

numpy's OpenBLAS chooses a kernel per processor (``OPENBLAS_CORETYPE`` forces
one); kernels sum in different orders, so anything computed by BLAS or LAPACK
differs in its last bits from one machine to the next. The fits of the subset
baselines and of UCB-E-LRF compute in a fixed order instead
(:mod:`sysrs_ref._fixed_order`). This test runs them under two forced
kernels and requires identical digests; tests/project/test_docs.py runs the
documented console examples that involve a fit under a forced kernel, not
the machine's own, and requires the page's output. (With a numpy not built
on OpenBLAS the variable changes nothing and the comparison is trivially
equal.)
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.blas_kernels import kernel_env, kernels
from tests.pages import ROOT


@pytest.mark.slow
def test_every_fit_gives_the_same_bits_under_twokernels() -> None:
    """tests/kernel_probe.py's digests (IRT, GAM, correlations, every subset method, UCB-E-LRF) agree."""
    runs = {
        kernel: subprocess.Popen(
            [sys.executable, "-m", "tests.kernel_probe"],
            cwd=ROOT,
            env=kernel_env(kernel),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kernel in dict.fromkeys(kernels())
    }
    outputs = {}
    for kernel, process in runs.items():
        stdout, stderr = process.communicate(timeout=900)
        assert process.returncode == 0, f"the probe failed under OPENBLAS_CORETYPE={kernel}:\n{stderr}"
        outputs[kernel] = json.loads(stdout)
    first = next(iter(outputs.values()))
    assert len(first) >= 12
    for kernel, digest in outputs.items():
        differ = sorted(key for key in first.keys() | digest.keys() if digest.get(key) != first.get(key))
        assert not differ, f"under OPENBLAS_CORETYPE={kernel} these results differ from the first kernel's: {differ}"
