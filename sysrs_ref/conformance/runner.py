"""Run an external implementation through the conformance protocol and compare it with the vectors.

The protocol (line-delimited JSON over the implementation's stdin and stdout):

- for each case the runner writes one line ``{"family": F, "id": ID, "input": {...}}``;
- the implementation answers with one line, ``{"id": ID, "output": {...}}``,
  or ``{"id": ID, "refused": KIND}`` when it refuses the input as the
  contracts say it must (KIND one of
  :data:`~sysrs_ref.conformance.schema.REFUSAL_KINDS`), or
  ``{"id": ID, "unsupported": "why"}`` for a family or algorithm it does not
  implement, or ``{"id": ID, "error": "why"}`` when it cannot answer;
- it reads the next case after answering, and exits when its stdin closes.

Each answer must come within the timeout. A case ends as ``pass``, ``fail``,
``invalid`` (the reply breaks :func:`~sysrs_ref.conformance.schema.reply_schema`;
the message gives the JSON path), ``unsupported``, ``error``, ``timeout``,
``crash`` (the process ended) or ``malformed`` (not one JSON object with the
case's id). ``_judge`` says in which order a reply is checked. After a
timeout, a crash or a malformed answer the implementation is started again
for the next case, so one bad case does not hide the others.
"""

from __future__ import annotations

import functools
import json
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from sysrs_ref._files import JsonFormatError, parse_json
from sysrs_ref.conformance._reply_check import schema_error
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.schema import reply_schema
from sysrs_ref.conformance.values import JsonValue
from sysrs_ref.errors import InstanceError, SysrsError

__all__ = ["STATUSES", "CaseResult", "Implementation", "run_cases"]

#: How a case can end, in the order of the reports.
STATUSES = ("pass", "fail", "invalid", "unsupported", "error", "timeout", "crash", "malformed")

#: The statuses after which the implementation is started again for the next case.
_RESTART = ("timeout", "crash", "malformed")

_REPLY_KEYS = ("output", "unsupported", "error", "refused")

_reply_schema = functools.cache(reply_schema)  # one schema per family, built once (never mutated)


@dataclass(frozen=True)
class CaseResult:
    """How one case went; ``note`` and ``tags`` are the case's, copied from the vectors."""

    family: str
    id: str
    status: str
    message: str = ""
    note: str = ""
    tags: tuple[str, ...] = ()


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


def _case_fields(family: str, case: Mapping[str, JsonValue]) -> tuple[str, tuple[str, ...]]:
    """The note and tags of a case, checked (InstanceError for a case the runner cannot judge)."""
    case_id = case.get("id")
    if not isinstance(case_id, str) or not isinstance(case.get("input"), Mapping):
        raise InstanceError(f'a case of the family {family!r} needs an "id" string and an "input" object: {case_id!r}')
    if ("expected" in case) == ("refused" in case):
        raise InstanceError(f'the case {family}/{case_id} needs exactly one of "expected" and "refused"')
    if "expected" in case and not isinstance(case["expected"], Mapping):
        raise InstanceError(f'the case {family}/{case_id}: "expected" must be an object')
    note, tags = case.get("note", ""), case.get("tags", [])
    if not isinstance(note, str) or not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise InstanceError(f'the case {family}/{case_id}: "note" must be a string and "tags" a list of strings')
    return note, tuple(str(tag) for tag in tags)


def _budget_violation(case_input: Mapping[str, JsonValue], output: Mapping[str, JsonValue]) -> str | None:
    """``budget violation: ...`` when an algorithm's output spends or requests more than the input's budget."""
    budget, spent, batches = case_input.get("budget"), output.get("spent"), output.get("batches")
    if not isinstance(budget, int) or not isinstance(spent, int) or not isinstance(batches, list):
        return None
    requests = sum(len(batch) for batch in batches if isinstance(batch, list))
    if spent <= budget and requests <= budget:
        return None
    return f"budget violation: {requests} requests and spent {spent} with a budget of {budget}"


def _judge(family: str, case: Mapping[str, JsonValue], line: str) -> CaseResult:
    """How the reply *line* to *case* goes; the checks in order, the first that applies deciding.

    1. not JSON, or not an object with the case's id: ``malformed``;
    2. not exactly one of ``output``, ``unsupported``, ``error``, ``refused``, or
       against :func:`~sysrs_ref.conformance.schema.reply_schema`: ``invalid``,
       with the JSON path of the violation;
    3. ``unsupported`` and ``error`` replies: those statuses;
    4. a refusal case passes when refused with its kind, and fails when refused
       with another kind or answered with an output;
    5. a case with an answer fails when refused;
    6. an algorithm output that spends or requests more than the budget fails
       with ``budget violation: ...``;
    7. otherwise the output passes when it matches the expected one, and fails
       with :func:`~sysrs_ref.conformance.compare.first_difference`.

    >>> case = {"id": "b1", "tags": ["budget"], "input": {"percentage": "101%", "K": 2, "L": 3}, "refused": "budget"}
    >>> _judge("budgets", case, '{"id": "b1", "refused": "budget"}').status
    'pass'
    >>> _judge("budgets", case, '{"id": "b1", "output": {"budget": 6}}').message
    'expected a refusal (budget), got an output'
    """
    note, tags = _case_fields(family, case)
    case_id = str(case["id"])

    def result(status: str, message: str = "") -> CaseResult:
        return CaseResult(family, case_id, status, message, note, tags)

    try:
        answer = parse_json(line)
    except JsonFormatError:  # not JSON, nested deeper than MAX_JSON_DEPTH, a number too long
        return result("malformed", f"not JSON: {line.strip()[:80]!r}")
    if not isinstance(answer, dict) or answer.get("id") != case_id:
        shown = answer.get("id") if isinstance(answer, dict) else answer
        return result("malformed", f'the answer is not an object with "id": {case_id!r} (got {shown!r})')
    present = [key for key in _REPLY_KEYS if key in answer]
    if not present:
        return result("invalid", 'the answer has no "output", "unsupported", "error" or "refused"')
    if len(present) > 1:
        both = " and ".join(f'"{key}"' for key in present)
        return result("invalid", f"the answer has {both}: exactly one of them, please")
    violation = schema_error(answer, _reply_schema(family))
    if violation is not None:
        return result("invalid", violation)
    if "unsupported" in answer:
        return result("unsupported", str(answer["unsupported"]))
    if "error" in answer:
        return result("error", f"the implementation gave an error: {answer['error']}")
    refused, output = answer.get("refused"), answer.get("output")
    if "refused" in case:
        if refused == case["refused"]:
            return result("pass")
        if refused is not None:
            return result("fail", f"expected a refusal of kind {case['refused']!r}, got {refused!r}")
        return result("fail", f"expected a refusal ({case['refused']}), got an output")
    if refused is not None:
        return result("fail", f"refused the case ({refused!r}) but it has an answer")
    expected, case_input = case["expected"], case["input"]
    assert isinstance(expected, Mapping) and isinstance(output, Mapping) and isinstance(case_input, Mapping)
    if family == "algorithms":
        violation = _budget_violation(case_input, output)
        if violation is not None:
            return result("fail", violation)
    difference = first_difference(family, expected, output)
    return result("fail", difference) if difference else result("pass")


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
    fields = [_case_fields(family, case) for family, case in cases]  # every case checked before anything starts
    results: list[CaseResult] = []
    implementation: Implementation | None = None
    try:
        for (family, case), (note, tags) in zip(cases, fields, strict=True):
            if implementation is None:
                implementation = Implementation(command)
            request = json.dumps({"family": family, "id": case["id"], "input": case["input"]})
            began = time.monotonic()
            kind, text = implementation.ask(request, timeout)
            if kind == "line":
                result = _judge(family, case, text)
            elif kind == "timeout":
                result = CaseResult(family, str(case["id"]), "timeout", f"no answer within {timeout:g} s", note, tags)
            else:
                result = CaseResult(family, str(case["id"]), "crash", f"the implementation ended: {text}", note, tags)
            if result.status in _RESTART:
                implementation.process.kill()
                implementation.close()
                implementation = None  # a fresh start for the next case
            elif time.monotonic() - began > timeout:  # pragma: no cover - an answer that came just at the limit
                result = CaseResult(family, result.id, "timeout", f"answered after more than {timeout:g} s", note, tags)
            results.append(result)
            if progress is not None:
                progress(1)
    finally:
        if implementation is not None:
            implementation.close()
    return results
