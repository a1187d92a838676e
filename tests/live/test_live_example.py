"""``examples/live_demo.py`` as a user runs it: a crash half way, a resume, and the outcome of ``select``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_live_demo_crashes_resumes_and_ends_as_select(tmp_path: Path) -> None:
    # Deterministic but for thread timing: the demo's evaluator fails one call in five, and a call that fails
    # RETRIES + 1 = 9 times in a row ends a run; false-failure probability about 3e-5 (see the demo's RETRIES).
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "live_demo.py"), "--dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "killed by SIGKILL" in lines[1], done.stderr
    recorded_before = int(lines[1].split("; ")[1].split(" of ")[0].replace(",", ""))
    assert 0 < recorded_before < 6000
    assert lines[-1] == "same outcome as select() on the matrix, without a crash: yes"
    assert "instead of 60,000 for full evaluation (90% saved)" in lines[-2]
