"""The README's two commands are the ones CI and a new user run (its examples run in tests/project/test_docs.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from sysrs_ref.loaders import load_scores

ROOT = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    return [block.strip() for block in blocks[:2]]


def test_readme_starts_with_the_two_commands() -> None:
    demo, tests = readme_commands()
    assert "\n" not in demo and demo.endswith("python -m sysrs_ref demo")
    assert "\n" not in tests and tests.endswith("pytest -q -n 2 --cov")
    assert "ruff check . && .venv/bin/ruff format --check . &&" in tests
    assert "mypy --strict sysrs_ref proofs_check tests benchmarks" in tests
    assert demo.startswith("python3 -m venv --clear .venv") and tests.startswith("python3 -m venv --clear .venv")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    _, tests = readme_commands()
    assert ci[-1] == tests


def test_fixtures_are_the_same_matrix_in_both_formats() -> None:
    long = load_scores(ROOT / "data" / "fixtures" / "tiny_long.csv")
    matrix = load_scores(ROOT / "data" / "fixtures" / "tiny_matrix.csv")
    assert long == matrix
    assert long.model_names == ("alpha", "bravo", "charlie", "delta")
    assert [m * 6 for m in long.means] == [4, 3, 2, 2]
    assert long.ties == ((2, 3),)


def test_every_public_function_has_a_summary_and_a_runnable_example() -> None:
    import inspect

    import sysrs_ref

    for name in sysrs_ref.__all__:
        obj = getattr(sysrs_ref, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert doc.splitlines() and doc.splitlines()[0].strip(), f"{name} has no one-line summary"
            assert ">>>" in doc, f"{name} has no example"


def test_the_version_is_the_projects() -> None:
    import tomllib

    from sysrs_ref import __version__

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__
    assert set(project["optional-dependencies"]["dev"]) >= {
        *project["optional-dependencies"]["plot"],
        *project["optional-dependencies"]["distributed"],
    }  # the suite tests the figures and the Dask path, so dev installs both extras


def test_the_suite_and_the_processes_it_starts_cache_bytecode() -> None:
    """tests/conftest.py turns bytecode caching back on: with the README's --no-compile install and
    PYTHONDONTWRITEBYTECODE set (as in many containers), every process the suite starts would compile numpy again."""
    assert not sys.dont_write_bytecode and "PYTHONDONTWRITEBYTECODE" not in os.environ
    child = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert child.stdout.strip() == "False"
