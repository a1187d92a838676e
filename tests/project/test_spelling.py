"""The code and the pages are spelled right (codespell, configured in pyproject.toml's [tool.codespell])."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", "docs", "sysrs_ref", "proofs_check", "tests", "benchmarks"]


def test_no_misspelling() -> None:
    codespell = shutil.which("codespell", path=str(Path(sys.executable).parent)) or shutil.which("codespell")
    assert codespell, "codespell is part of the dev extra: pip install -e '.[dev]'"
    targets = [target for target in TARGETS if (ROOT / target).exists()]
    result = subprocess.run([codespell, *targets], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (
        f"codespell found misspellings (fix them, or add a real word to pyproject.toml):\n{result.stdout}{result.stderr}"
    )
