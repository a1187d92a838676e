"""The conformance runner against adapters that break the protocol: it judges or stops, and leaves no process.

Non-UTF-8 bytes are one case's ``malformed`` reply; an adapter that never answers, ends, or closes its
output before its first answer stops the run at once with one error, as does one that cannot be started
(missing, not executable, a folder); the adapter's whole process group
(what it forks too) is ended when the run ends, however it ends. Every wait is a hang-guard.
"""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.conformance.runner import run_cases
from sysrs_ref.errors import SysrsError
from tests.census import HANG_GUARD, HAS_PROC

#: Three budgets cases (8% of 80 x 1000): the adapters below never compute them, they only answer or not.
CASES: list[tuple[str, Any]] = [
    ("budgets", {"id": f"b{i}", "input": {"percentage": "8%", "K": 80, "L": 1000}, "expected": {"budget": 6400}})
    for i in range(3)
]

#: An adapter that first forks two children (which sleep; it appends their pids to argv[1]), then answers every
#: case "unsupported", except b1, answered with bytes that are not UTF-8 (and a JSON line after them).
FORKING = """
import json, os, sys, time
children = []
for _ in range(2):
    child = os.fork()
    if child == 0:
        time.sleep(3600)
        os._exit(0)
    children.append(child)
with open(sys.argv[1], "a") as pids:  # before the first answer: the children are known to the test
    pids.write("".join(f"{child}\\n" for child in children))
for line in sys.stdin.buffer:
    case_id = json.loads(line)["id"]
    if case_id == "b1":
        sys.stdout.buffer.write(b'\\xff\\xfe{"id": "b1"}\\n')
    elif case_id == "b2" and len(sys.argv) > 2:
        time.sleep(3600)
    else:
        sys.stdout.buffer.write(json.dumps({"id": case_id, "unsupported": "no"}).encode() + b"\\n")
    sys.stdout.buffer.flush()
"""


def _adapter(tmp_path: Path, *extra: str) -> tuple[list[str], Path]:
    script, pids = tmp_path / "adapter.py", tmp_path / "pids"
    script.write_text(textwrap.dedent(FORKING))
    return [sys.executable, str(script), str(pids), *extra], pids


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"


def _forked(pids: Path, count: int) -> list[int]:
    """The pids the adapter's children wrote (each start of the adapter forks two)."""
    deadline = time.monotonic() + HANG_GUARD
    while len(found := [int(line) for line in pids.read_text().split()] if pids.exists() else []) < count:
        assert time.monotonic() < deadline, "the adapter's children did not start"
        time.sleep(0.05)
    return found


def _all_gone(pids: list[int]) -> bool:
    deadline = time.monotonic() + HANG_GUARD
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_running(pid) for pid in pids)


@pytest.mark.skipif(not HAS_PROC, reason="reads processes in /proc, which only Linux has")
def test_bytes_that_are_not_utf8_are_one_malformed_case_and_the_forks_are_ended(tmp_path: Path) -> None:
    command, pids = _adapter(tmp_path)
    results = run_cases(command, CASES, timeout=HANG_GUARD)
    assert [(r.id, r.status) for r in results] == [("b0", "unsupported"), ("b1", "malformed"), ("b2", "unsupported")]
    assert results[1].message == 'not UTF-8 (byte 0xff at offset 0): b\'\\xff\\xfe{"id": "b1"}\''
    assert _all_gone(_forked(pids, 4)), "the children of the adapter (two starts) outlived the run"


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PROC, reason="reads processes in /proc, which only Linux has")
def test_a_timeout_ends_the_adapters_group_and_the_run_goes_on(tmp_path: Path) -> None:
    """b2 never answers; 10 s is far more than a start and an answer take, even on a loaded machine."""
    command, pids = _adapter(tmp_path, "hang-on-b2")
    results = run_cases(command, [CASES[0], CASES[2], CASES[0]], timeout=10)
    assert [r.status for r in results] == ["unsupported", "timeout", "unsupported"]
    assert _all_gone(_forked(pids, 4))


@pytest.mark.skipif(not HAS_PROC, reason="reads processes in /proc, which only Linux has")
def test_an_interruption_ends_the_adapters_group_at_once(tmp_path: Path) -> None:
    command, pids = _adapter(tmp_path)

    def interrupt(done: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_cases(command, CASES, timeout=HANG_GUARD, progress=interrupt)
    assert _all_gone(_forked(pids, 2))


@pytest.mark.parametrize(
    ("program", "timeout", "said"),
    [
        ("import time; time.sleep(3600)", 0.5, "no answer within 0.5 s"),
        (
            "import os, time; os.close(1); time.sleep(3600)",
            HANG_GUARD,
            "its output ended (it closed its output but did not exit)",
        ),
        (
            "import sys; sys.stderr.write('no such model\\n'); sys.exit(3)",
            HANG_GUARD,
            "its output ended (exit status 3; its stderr ends: no such model)",
        ),
    ],
    ids=["silent", "closes-stdout", "exits"],
)
def test_an_adapter_that_never_answers_stops_the_run_at_the_first_case(program: str, timeout: float, said: str) -> None:
    """Not the timeout of every case: the first case's shows the adapter is not running the protocol."""
    command = [sys.executable, "-c", program]
    with pytest.raises(SysrsError) as caught:
        run_cases(command, CASES * 50, timeout=timeout)
    message = str(caught.value)
    assert message.startswith(f"the implementation {' '.join(command)!r} gave no answer to the first case (budgets/b0)")
    assert said in message and "\n" not in message


@pytest.mark.parametrize("kind", ["not-executable", "folder"])
def test_an_adapter_that_cannot_be_started_is_one_error_naming_why(kind: str, tmp_path: Path) -> None:
    """Not only a missing program: one that exists but cannot be run is refused with the system's reason."""
    target = tmp_path / "adapter.py"
    if kind == "folder":
        target.mkdir()
    else:
        target.write_text("print('hi')\n")
        target.chmod(0o644)
    with pytest.raises(SysrsError, match=r"cannot start the implementation .*: Permission denied$"):
        run_cases([str(target)], CASES)
