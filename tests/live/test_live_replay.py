"""A live log replayed by Session.open: every record that cannot have been written by a session is refused.

Each test fails when its replay check is removed (benchmarks/mutants.py's live mutants die in this folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sysrs_ref.errors import LiveError
from sysrs_ref.live import Session
from sysrs_ref.live.log import LOG_NAME


def _session(folder: Path) -> tuple[list[str], list[str]]:
    models, queries = ["m0", "m1", "m2"], ["q0", "q1", "q2", "q3"]
    with Session.create(folder, models, queries, budget=9, seed=4):
        pass
    return models, queries


def _append(folder: Path, *records: dict[str, object]) -> None:
    with (folder / LOG_NAME).open("a", encoding="utf-8") as log:
        for record in records:
            log.write(json.dumps(record) + "\n")


def test_a_logged_score_for_a_pair_never_requested_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _session(run)
    with Session.open(run, readonly=True) as session:
        asked = set(session.pending())
    never = next((m, q) for m in ("m0", "m1", "m2") for q in ("q0", "q1", "q2", "q3") if (m, q) not in asked)
    _append(run, {"t": "score", "model": never[0], "query": never[1], "score": "1"})
    with pytest.raises(LiveError, match="never requested"):
        Session.open(run, readonly=True)


@pytest.mark.parametrize("score", ["2", "-1", "1.5"])
def test_a_logged_score_outside_zero_one_is_refused(tmp_path: Path, score: str) -> None:
    run = tmp_path / "run"
    _session(run)
    with Session.open(run, readonly=True) as session:
        model, query = session.pending()[0]
    _append(run, {"t": "score", "model": model, "query": query, "score": score})
    with pytest.raises(LiveError, match="unreadable score"):
        Session.open(run, readonly=True)


def test_a_second_different_score_for_a_pair_is_refused(tmp_path: Path) -> None:
    """A log holding two different scores for one pair is corrupt: neither is silently kept."""
    run = tmp_path / "run"
    _session(run)
    with Session.open(run) as session:
        model, query = session.pending()[0]
        session.record(model, query, 1)
    _append(run, {"t": "score", "model": model, "query": query, "score": "0"})
    with pytest.raises(LiveError, match="a second, different score"):
        Session.open(run, readonly=True)


def test_open_logs_the_batch_a_crash_left_unlogged(tmp_path: Path) -> None:
    """A crash after a phase's last score, before its successor batch was logged: open() logs it at once."""
    run = tmp_path / "run"
    _session(run)
    with Session.open(run) as session:
        for model, query in session.pending():
            session.record(model, query, 1)
        following = session.pending()
    lines = (run / LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["t"] == "batch"
    (run / LOG_NAME).write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # the crash: no second batch
    with Session.open(run):
        last = json.loads((run / LOG_NAME).read_text(encoding="utf-8").splitlines()[-1])
    assert last["t"] == "batch" and [tuple(pair) for pair in last["pairs"]] == list(following)


def test_a_lost_log_is_said_not_started_over(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _session(run)
    (run / LOG_NAME).unlink()
    for readonly in (True, False):
        with pytest.raises(LiveError, match=r"has lost its log \(log.jsonl is missing\).*start over at spent 0"):
            Session.open(run, readonly=readonly)
