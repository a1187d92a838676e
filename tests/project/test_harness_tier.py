"""The harness tier (.ci/harnesses): it installs the harness extras and cannot pass by skipping."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from tests.harness_extras import REQUIRE, harness

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "harnesses"
MISSING = "a_module_that_is_not_installed_anywhere"


def _modules_calling_harness() -> list[Path]:
    return sorted(
        path
        for path in (ROOT / "tests").rglob("test_*.py")
        if path != Path(__file__).resolve()
        and any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "harness"
            for node in ast.walk(ast.parse(path.read_text()))
        )
    )


def test_a_missing_harness_skips_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception):
        harness(MISSING)


def test_a_missing_harness_fails_in_the_tier(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match=MISSING):
        harness(MISSING)


def test_an_installed_module_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE, "1")
    assert harness("json").__name__ == "json"


def test_the_script_installs_both_extras_and_requires_them() -> None:
    text = SCRIPT.read_text()
    assert os.access(SCRIPT, os.X_OK)
    command = text.strip().splitlines()[-1]
    assert re.search(r"pip install -q -e '\.\[dev,inspect,lm-eval\]'", command)
    assert f"{REQUIRE}=1" in command and "-m harness" in command


def test_every_test_that_drives_a_harness_is_in_the_tier() -> None:
    modules = _modules_calling_harness()
    assert {path.name for path in modules} >= {"test_live_inspect.py", "test_live_lm_eval.py"}
    for path in modules:
        assert "pytestmark = pytest.mark.harness" in path.read_text(), path
        assert path.parent == ROOT / "tests" / "live", f"{path}: .ci/harnesses runs tests/live only"
