"""The same seed gives the same bits whatever BLAS kernel the machine picks.

numpy's OpenBLAS chooses a kernel per processor (``OPENBLAS_CORETYPE`` forces
one); kernels sum in different orders, so anything computed by BLAS or LAPACK
differs in its last bits from one machine to the next. The fits of the subset
baselines and of UCB-E-LRF compute in a fixed order instead
(:mod:`sysrs_ref._fixed_order`). These tests run them, and the documented
console examples that involve a fit, under two forced kernels and require
identical output. (With a numpy not built on OpenBLAS the variable changes
nothing and the comparison is trivially equal.)
"""

from __future__ import annotations

import doctest
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pages import FLAGS, ROOT, commands, fences


def _kernels() -> tuple[str, str]:
    """Two OpenBLAS kernels this processor can run (a kernel needing a missing instruction set would crash)."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        try:
            flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            flags = ""
        return ("Prescott", "Haswell" if " avx2" in flags else "Core2")
    return ("ARMV8", "ARMV8") if machine in ("aarch64", "arm64") else ("", "")


def _env(kernel: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("SYSRS_DATA", "OPENBLAS_CORETYPE")}
    if kernel:
        env["OPENBLAS_CORETYPE"] = kernel
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


@pytest.mark.slow
def test_every_fit_gives_the_same_bits_under_two_kernels() -> None:
    """tests/kernel_probe.py's digests (IRT, GAM, correlations, every subset method, UCB-E-LRF) agree."""
    runs = {
        kernel: subprocess.Popen(
            [sys.executable, "-m", "tests.kernel_probe"],
            cwd=ROOT,
            env=_env(kernel),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for kernel in dict.fromkeys(_kernels())
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


_PAGES = [ROOT / "docs" / "subset-selection.md", ROOT / "docs" / "ucbe-lrf.md"]


@pytest.mark.slow
@pytest.mark.parametrize("page", _PAGES, ids=lambda page: page.name)
def test_documented_fits_print_the_page_under_another_kernel(page: Path, tmp_path: Path) -> None:
    """Every console command of the pages about fits prints the page under a forced kernel, in order.

    tests/project/test_docs.py runs them under the machine's own kernel; this runs them under the first of
    :func:`_kernels` (Prescott on x86-64): the subset baselines, the small subset-selection study and UCB-E-LRF.
    """
    for name in ("data", "examples"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    checker = doctest.OutputChecker()
    kernel = _kernels()[0]
    ran = 0
    for fence in fences(page):
        if fence.language != "console":
            continue
        for command, expected in commands(fence):
            argv = shlex.split(command)
            result = subprocess.run(
                [sys.executable, *argv[1:]], cwd=tmp_path, env=_env(kernel), capture_output=True, text=True, timeout=900
            )
            got = result.stdout + result.stderr
            assert result.returncode == 0, f"{fence.where}: `{command}` exited {result.returncode}:\n{got}"
            assert checker.check_output(expected, got, FLAGS), (
                f"{fence.where}: under OPENBLAS_CORETYPE={kernel}, `{command}` printed\n{got}\nbut the page shows\n{expected}"
            )
            ran += 1
    assert ran >= 2, f"{page.name} has no console commands"
