"""OpenBLAS kernels to force in a subprocess, for the tests that require the same output under another kernel.

numpy's OpenBLAS chooses a kernel per processor (``OPENBLAS_CORETYPE`` forces one); kernels sum in different
orders, so anything computed by BLAS or LAPACK differs in its last bits from one machine to the next. The fits
compute in a fixed order instead (:mod:`sysrs_ref._fixed_order`); tests/subset/test_kernel_independence.py and
the console blocks of :data:`FIT_PAGES` (tests/project/test_docs.py) check it. With a numpy not built on
OpenBLAS the variable changes nothing.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

from tests.pages import ROOT

#: The pages whose console examples involve a fit (the subset baselines, the small subset-selection study,
#: UCB-E-LRF): tests/project/test_docs.py runs them under :func:`kernels`' first kernel, not the machine's own.
FIT_PAGES = (ROOT / "docs" / "subset-selection.md", ROOT / "docs" / "ucbe-lrf.md")


def kernels() -> tuple[str, str]:
    """Two OpenBLAS kernels this processor can run (a kernel needing a missing instruction set would crash)."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        try:
            flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            flags = ""
        return ("Prescott", "Haswell" if " avx2" in flags else "Core2")
    return ("ARMV8", "ARMV8") if machine in ("aarch64", "arm64") else ("", "")


def kernel_env(kernel: str | None) -> dict[str, str]:
    """This process's environment without SYSRS_DATA, the repository importable, and *kernel* forced.

    An empty *kernel* forces none (OpenBLAS picks its own); None leaves ``OPENBLAS_CORETYPE`` as it is.
    """
    env = {key: value for key, value in os.environ.items() if key != "SYSRS_DATA"}
    if kernel is not None:
        env.pop("OPENBLAS_CORETYPE", None)
    if kernel:
        env["OPENBLAS_CORETYPE"] = kernel
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env
