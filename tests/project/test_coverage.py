"""The test command's coverage: pytest --cov with the floor of pyproject.toml, the slow tests untraced."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _coverage_settings() -> dict[str, dict[str, object]]:
    settings: dict[str, dict[str, object]] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["coverage"]
    return settings


def test_the_test_command_holds_the_coverage_of_the_package_to_the_floor_the_pages_state() -> None:
    (command,) = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if "-m pytest" in line]
    assert command.endswith("pytest -q -n 2 --cov")
    settings = _coverage_settings()
    assert settings["run"]["source"] == ["sysrs_ref"]
    floor = settings["report"]["fail_under"]
    assert isinstance(floor, int) and floor >= 90
    for page in (ROOT / "README.md", ROOT / "CONTRIBUTING.md"):
        stated = set(re.findall(r"below (\d+)%", page.read_text()))
        assert stated == {str(floor)}, f"{page.name} states the floor as {sorted(stated)}, pyproject.toml holds {floor}"


_CASES = """
import sys

import coverage
import pytest

import traced


def test_a_fast_test_is_traced():
    assert sys.gettrace() is not None and coverage.Coverage.current() is not None


@pytest.mark.slow
def test_a_slow_test_is_not():
    assert sys.gettrace() is None and coverage.Coverage.current() is None


def test_the_fast_tests_after_it_are_traced_again():
    assert sys.gettrace() is not None
    assert traced.reached_only_after_the_slow_test() == 1
"""


@pytest.mark.slow
@pytest.mark.parametrize("processes", [[], ["-n", "1"]], ids=["one process", "xdist"])
def test_slow_tests_run_untraced_and_coverage_resumes_after_them(tmp_path: Path, processes: list[str]) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: a slow test\n")
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["tests.untraced"]\n')
    (tmp_path / "traced.py").write_text("def reached_only_after_the_slow_test():\n    return 1\n")
    (tmp_path / "test_cases.py").write_text(_CASES)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    # --cov-fail-under=100: the one line of traced.py that only the last test reaches is measured.
    arguments = ["-m", "pytest", "-q", "-p", "no:cacheprovider", *processes, "--cov=traced", "--cov-fail-under=100"]
    run = subprocess.run(
        [sys.executable, *arguments], cwd=tmp_path, env=environment, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout
