"""The coverage tier (.ci/coverage): the fast target under coverage, held to the floor the docs state."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "coverage"


def _pytest_arguments() -> list[str]:
    (line,) = [line for line in SCRIPT.read_text().splitlines() if "-m pytest" in line]
    words = shlex.split(line.split("&&")[-1])
    return words[words.index("pytest") + 1 :]


def test_the_tier_runs_the_fast_target_under_coverage_with_a_floor() -> None:
    arguments = _pytest_arguments()
    assert arguments[arguments.index("-m") + 1] == "not slow"
    assert "--cov=sysrs_ref" in arguments
    (floor,) = [int(word.split("=")[1]) for word in arguments if word.startswith("--cov-fail-under=")]
    assert floor >= 90
    for page in (ROOT / "README.md", ROOT / "CONTRIBUTING.md"):
        stated = re.findall(r"below (\d+)%", page.read_text())
        assert stated == [str(floor)], f"{page.name} states the floor as {stated}, the script holds {floor}"


def test_the_tier_installs_the_dev_extra_in_a_fresh_venv() -> None:
    text = SCRIPT.read_text()
    assert "python3 -m venv --clear .venv && .venv/bin/pip install -q --no-compile -e '.[dev]'" in text
    assert SCRIPT.stat().st_mode & 0o111, "the script is executable"
