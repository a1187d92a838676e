"""Running the command line in the tests: in-process (``run_main``) or as a new process (``run_cli``), and its checks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.cli import main

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m sysrs_ref ARGV`` in this process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m sysrs_ref ARGV`` as a new process, from the repository's root."""
    return subprocess.run(
        [sys.executable, "-m", "sysrs_ref", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT_ROOT,
        check=False,
    )


def one_json_object(out: str) -> dict[str, Any]:
    """The one JSON object *out* holds, on one line; the test fails otherwise."""
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line on stdout, got {len(lines)}:\n{out}"
    payload = json.loads(out)
    assert isinstance(payload, dict)
    return payload


def assert_user_mistake(status: int, out: str, err: str) -> str:
    """A mistake's ending: status 2, nothing on stdout, one non-empty line on stderr (returned), no traceback."""
    assert status == 2, f"exit status {status}, stderr: {err!r}"
    assert out == "", f"nothing belongs on stdout for a mistake, got {out!r}"
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].strip(), f"expected exactly one line on stderr, got {lines!r}"
    return lines[0]
