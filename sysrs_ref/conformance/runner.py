"""Run an external implementation through the conformance protocol and compare it with the vectors.

The protocol (line-delimited JSON over the implementation's stdin and stdout):

- for each case the runner writes one line ``{"family": F, "id": ID, "input": {...}}``;
- the implementation answers with one line, ``{"id": ID, "output": {...}}``,
  or ``{"id": ID, "unsupported": "why"}`` for a family or algorithm it does not
  implement, or ``{"id": ID, "error": "why"}`` when it refuses the input;
- it reads the next case after answering, and exits when its stdin closes.

Each answer must come within the timeout. A case ends as ``pass``, ``fail``
(with the first difference, :func:`~sysrs_ref.conformance.compare.first_difference`),
``unsupported``, ``error``, ``timeout``, ``crash`` (the process ended) or
``malformed`` (not one JSON object with the case's id). After a timeout, a
crash or a malformed answer the implementation is started again for the
next case, so one bad case does not hide the others.
"""

from __future__ import annotations

import json
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.errors import SysrsError

__all__ = ["CaseResult", "Implementation", "run_cases"]

STATUSES = ("pass", "fail", "unsupported", "error", "timeout", "crash", "malformed")


@dataclass(frozen=True)
class CaseResult:
    """How one case went."""

    family: str
    id: str
    status: str
    message: str = ""


class Implementation:
    """One running implementation: its process, a thread reading its stdout, and its stderr in a file."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close(), with the process)
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as err:
            self.stderr.close()
            raise SysrsError(
                f"cannot start the implementation {' '.join(self.command)!r}: {err.strerror or err}"
            ) from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, request: str, timeout: float) -> tuple[str, str]:
        """Send one line; return ("line", answer), ("timeout", ""), or ("crash", what happened)."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(request + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return "crash", self._ended()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return "timeout", ""
        return ("crash", self._ended()) if line is None else ("line", line)

    def _ended(self) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it closed its output but did not exit"
        self.stderr.seek(0)
        tail = self.stderr.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        return f"exit status {code}" + (f"; its stderr ends: {' | '.join(tail)}" if tail else "")

    def close(self) -> None:
        """Close stdin (the end of the cases), then make sure the process is gone."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            self.stderr.close()


def _judge(family: str, case: Mapping[str, JsonValue], line: str) -> CaseResult:
    case_id = str(case["id"])
    try:
        answer = json.loads(line)
    except ValueError:
        return CaseResult(family, case_id, "malformed", f"not JSON: {line.strip()[:80]!r}")
    if not isinstance(answer, dict) or answer.get("id") != case_id:
        shown = answer.get("id") if isinstance(answer, dict) else answer
        return CaseResult(
            family, case_id, "malformed", f'the answer is not an object with "id": {case_id!r} (got {shown!r})'
        )
    if "unsupported" in answer:
        return CaseResult(family, case_id, "unsupported", str(answer["unsupported"]))
    if "error" in answer:
        return CaseResult(family, case_id, "error", f"the implementation refused the case: {answer['error']}")
    if "output" not in answer:
        return CaseResult(family, case_id, "malformed", 'the answer has no "output", "unsupported" or "error"')
    expected = case["expected"]
    assert isinstance(expected, Mapping)
    difference = first_difference(family, expected, answer["output"])
    return CaseResult(family, case_id, "fail", difference) if difference else CaseResult(family, case_id, "pass")


def run_cases(
    command: Sequence[str],
    cases: Sequence[tuple[str, Mapping[str, JsonValue]]],
    *,
    timeout: float = 10.0,
    progress: Callable[[int], None] | None = None,
) -> list[CaseResult]:
    """Run every (family, case) through the implementation *command*; one result per case, in order."""
    if not command:
        raise SysrsError("give the command that runs your implementation after --, e.g. conform -- node adapter.js")
    results: list[CaseResult] = []
    implementation: Implementation | None = None
    try:
        for family, case in cases:
            if implementation is None:
                implementation = Implementation(command)
            request = json.dumps({"family": family, "id": case["id"], "input": case["input"]})
            began = time.monotonic()
            kind, text = implementation.ask(request, timeout)
            if kind == "line":
                result = _judge(family, case, text)
            elif kind == "timeout":
                result = CaseResult(family, str(case["id"]), "timeout", f"no answer within {timeout:g} s")
            else:
                result = CaseResult(family, str(case["id"]), "crash", f"the implementation ended: {text}")
            if result.status in ("timeout", "crash", "malformed"):
                implementation.process.kill()
                implementation.close()
                implementation = None  # a fresh start for the next case
            elif time.monotonic() - began > timeout:  # pragma: no cover - an answer that came just at the limit
                result = CaseResult(family, result.id, "timeout", f"answered after more than {timeout:g} s")
            results.append(result)
            if progress is not None:
                progress(1)
    finally:
        if implementation is not None:
            implementation.close()
    return results
