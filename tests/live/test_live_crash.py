"""Crash injection: a live session killed anywhere, between or during writes, loses no acknowledged score.

Two models of a crash. (1) In process: the log cut at every record boundary and at
300 random byte offsets (seed 0), the durable prefix a crash can leave; the session
must reopen with exactly the records wholly inside the prefix and end as ``select``.
(2) Real processes: a child records scores and prints each acknowledged batch; it is
killed with SIGKILL in the middle of a write (a random prefix of the bytes written,
then the kill) or from outside, during or after the batch following a random number
of acknowledged ones (the child waits for the parent's word after each, so that it
cannot run ahead of the kill however loaded the machine), again and again, and resumed
each time; no printed score may be missing, and the run must end as ``select``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref import select
from sysrs_ref.live import Session
from sysrs_ref.live.log import LOG_NAME
from sysrs_ref.synthetic import irt_benchmark

INSTANCE = irt_benchmark(6, 30, seed=1)
MODELS = [f"m{i}" for i in range(6)]
QUERIES = [f"q{j}" for j in range(30)]


def _score(model: str, query: str) -> object:
    return INSTANCE.score(int(model[1:]), int(query[1:]))


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["sysrs", "ucbe"])
def test_any_durable_prefix_of_the_log_resumes_with_every_acknowledged_score(tmp_path: Path, algorithm: str) -> None:
    """The log cut at every record boundary, one byte before each, and 60 random places (torn records)."""
    budget = 60
    expected = select(INSTANCE, budget, algorithm, seed=2)
    folder = tmp_path / "run"
    acknowledged: list[tuple[int, dict[tuple[str, str], object]]] = []  # (log size when a call returned, scores so far)
    rng = np.random.default_rng(0)
    with Session.create(folder, MODELS, QUERIES, budget=budget, algorithm=algorithm, seed=2) as session:
        while not session.done:
            pending = list(session.pending())
            take = pending[: int(rng.integers(1, len(pending) + 1))]
            session.record_many([(m, q, _score(m, q)) for m, q in take])
            acknowledged.append(((folder / LOG_NAME).stat().st_size, dict(session.recorded())))
    log = (folder / LOG_NAME).read_bytes()
    boundaries = {i + 1 for i, byte in enumerate(log) if byte == ord("\n")}
    cuts = sorted(
        {0, len(log)} | boundaries | {b - 1 for b in boundaries} | set(rng.integers(0, len(log) + 1, 60).tolist())
    )
    for cut in cuts:
        crashed = tmp_path / f"cut{cut}"
        crashed.mkdir()
        shutil.copy(folder / "session.json", crashed / "session.json")
        (crashed / LOG_NAME).write_bytes(log[:cut])
        must_have = max((scores for size, scores in acknowledged if size <= cut), key=len, default={})
        with Session.open(crashed) as session:
            assert (crashed / LOG_NAME).read_bytes()[-1:] in (b"", b"\n")  # the torn record is cut off
            recorded = dict(session.recorded())
            assert recorded.items() >= must_have.items(), cut
            while not session.done:
                session.record_many([(m, q, _score(m, q)) for m, q in session.pending()])
            assert session.outcome is not None
            assert (session.outcome.chosen, session.outcome.ranking, session.outcome.spent) == (
                expected.chosen,
                expected.ranking,
                expected.spent,
            )
        shutil.rmtree(crashed)


CHILD = r"""
import json, os, signal, sys
from pathlib import Path
import numpy as np
import sysrs_ref.live.log as log
from sysrs_ref.live import Session
from sysrs_ref.synthetic import irt_benchmark

folder, seed, kill_at, cut, paced = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "paced"
instance = irt_benchmark(6, 30, seed=1)
appends = 0
original = log.LogWriter.append

def append(self, records):
    global appends
    records = list(records)
    appends += 1
    if appends == kill_at:  # die in the middle of this write: a prefix of its bytes reaches the disk
        data = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)
        os.write(self._log, data[: int(len(data) * cut)])
        os.kill(os.getpid(), signal.SIGKILL)
    original(self, records)

log.LogWriter.append = append
if (folder / "session.json").exists():
    session = Session.open(folder)
else:
    session = Session.create(folder, [f"m{i}" for i in range(6)], [f"q{j}" for j in range(30)], budget=120, seed=4)
rng = np.random.default_rng(seed)
while not session.done:
    pending = list(session.pending())
    take = pending[: int(rng.integers(1, min(len(pending), 4) + 1))]
    session.record_many([(m, q, instance.score(int(m[1:]), int(q[1:]))) for m, q in take])
    print(json.dumps([[m, q, str(instance.score(int(m[1:]), int(q[1:])))] for m, q in take]), flush=True)
    if paced:  # the parent, killing from outside, says when to go on: the child cannot run ahead of it
        sys.stdin.readline()
print("DONE", flush=True)
"""


@pytest.mark.slow
def test_processes_killed_during_and_between_writes_lose_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    rng = np.random.default_rng(1)
    acknowledged: dict[tuple[str, str], str] = {}
    kills = 0
    for attempt in range(60):
        external = attempt % 4 == 3
        kill_at = 0 if external else int(rng.integers(1, 12))
        cut = float(rng.choice([0.0, rng.random(), 1.0]))
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                str(folder),
                str(attempt),
                str(kill_at),
                str(cut),
                "paced" if external else "free",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        )
        early = ""
        if external:  # killed from outside during or after its next batch, once it has acknowledged 1 to 5
            assert child.stdin is not None and child.stdout is not None
            for _ in range(int(rng.integers(1, 6))):
                line = child.stdout.readline()
                early += line
                if not line.startswith("["):  # "DONE", or the end of its output
                    break
                child.stdin.write("go\n")
                child.stdin.flush()
            child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=120)  # a hang-guard only: a run takes a few seconds
        out = early + out
        for line in out.splitlines():
            if line != "DONE":
                acknowledged.update({(m, q): s for m, q, s in json.loads(line)})
        with Session.open(folder, readonly=True) as session:
            recorded = {pair: str(score) for pair, score in session.recorded().items()}
            assert recorded.items() >= acknowledged.items()  # no acknowledged score lost
            done = session.done
        if child.returncode == -signal.SIGKILL:
            kills += 1
        if "DONE" in out.splitlines():
            assert done
            break
    else:
        pytest.fail("the session did not finish in 60 attempts")
    assert kills >= 5  # the run really was interrupted, repeatedly
    with Session.open(folder, readonly=True) as session:
        expected = select(INSTANCE, 120, "sysrs", seed=4)
        assert session.outcome is not None
        assert (session.outcome.chosen, session.outcome.ranking) == (expected.chosen, expected.ranking)
