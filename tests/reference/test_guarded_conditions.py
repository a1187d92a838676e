"""Conditions a user relies on, each stated as what the user sees when it is broken.

Each test fails when its guard is removed: a lemma's hypotheses, a live
log's replay checks, SySAR's tie rule in the exact law, inspect's epoch 1,
the cache's trust in its counts, and the largest budget.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.algorithms.params import TopMSize
from sysrs_ref.datasets import Dataset
from sysrs_ref.errors import BoundConditionError, BudgetError, LiveError
from sysrs_ref.experiments import Cache, Config
from sysrs_ref.experiments._cache import Point, TopMPoint, entry_checksum
from sysrs_ref.live import Session
from sysrs_ref.live.log import LOG_NAME
from sysrs_ref.loaders import load_inspect
from sysrs_ref.schedule import check_budget
from sysrs_ref.stochastic import StochasticInstance
from sysrs_ref.theory.bounds import bernstein_paired_bound, bernstein_wor_bound
from sysrs_ref.theory.exact import exact_law
from sysrs_ref.theory.exact_stochastic import mixture_law, phase_law

HALF = Fraction(1, 2)


# -- the Bernstein lemmas' hypotheses ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 6, -1])
def test_the_paired_bound_needs_one_to_n_samples(n: int) -> None:
    """Lemma (paired Bernstein, without replacement): 1 <= n <= N, else no bound is stated."""
    with pytest.raises(BoundConditionError, match=r"1 <= n <= N"):
        bernstein_paired_bound(n, 5, Fraction(1, 5), Fraction(4, 25))


@pytest.mark.parametrize("n", [0, 11])
def test_the_wor_bound_needs_one_to_n_samples(n: int) -> None:
    with pytest.raises(BoundConditionError, match=r"1 <= n <= N"):
        bernstein_wor_bound(n, 10, HALF, Fraction(1, 4), Fraction(1))


def test_the_wor_bound_needs_a_variance_within_the_range() -> None:
    """sigma^2 <= M^2: a variance larger than the squared range is impossible, and the bound would be wrong."""
    with pytest.raises(BoundConditionError):
        bernstein_wor_bound(4, 10, HALF, Fraction(5, 4), Fraction(1))
    assert bernstein_wor_bound(4, 10, HALF, Fraction(1), Fraction(1)).exponent > 0  # sigma^2 = M^2 is allowed


# -- a live log replayed --------------------------------------------------------------------------------------------


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


# -- SySAR's ties in the exact stochastic law ---------------------------------------------------------------------


def test_sysar_rejects_the_tied_model_latest_in_the_priority() -> None:
    """The phase DP equals the mixture of exact deterministic laws on a 4-model instance where the tie rule matters
    (rejecting the tied model *first* in the priority gives {1: 11/72, ...} instead of {1: 89/576, ...})."""
    instance = StochasticInstance.bernoulli([[0, 0, HALF], [0, HALF, HALF], [1, 0, 1], [HALF, HALF, 1]])
    law = phase_law(instance, "sysar", 9, m=2)
    assert law == mixture_law(instance, "sysar", lambda r: exact_law(r, "sysar", 9, TopMSize(2)))
    assert law == {0: Fraction(1, 48), 1: Fraction(89, 576), 2: Fraction(959, 2304), 3: Fraction(941, 2304)}


# -- inspect: --epochs first is epoch 1 -----------------------------------------------------------------------------


def test_first_is_epoch_one_not_the_first_scored_epoch(tmp_path: Path) -> None:
    """A sample whose epoch 1 has no score has no cell under ``--epochs first`` (its epoch 2 is not taken)."""
    log = {
        "version": 2,
        "status": "success",
        "eval": {"model": "m", "task": "t"},
        "samples": [
            {"id": "s1", "epoch": 2, "scores": {"match": {"value": "C"}}},
            {"id": "s2", "epoch": 1, "scores": {"match": {"value": "I"}}},
        ],
    }
    path = tmp_path / "a.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    table = load_inspect(path, metric="match", epochs="first")
    assert table.queries == ("t/s2",) and table.scores.tolist() == [[0.0]]


# -- the cache trusts no top-m count it cannot check ----------------------------------------------------------------


def _cached(tmp_path: Path) -> tuple[Cache, Dataset, Config, Path]:
    cache, config = Cache(tmp_path, top_m=(1, 2)), Config.of("sysrs")
    dataset = Dataset("d", tmp_path / "d.npy", "a" * 64)
    point = Point(Fraction(12), 86, 17, 20, 86, (TopMPoint(1, 3, 3, 3), TopMPoint(2, 5, 7, 9)))
    cache.put(dataset, config, point, 3)
    assert cache.get(dataset, config, Fraction(12), 20, 3) == point
    return cache, dataset, config, cache.path(dataset, config, Fraction(12), 20, 3)


def test_an_edited_top_m_count_is_not_trusted(tmp_path: Path) -> None:
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["top_m"][1][1] = 4  # the identification errors of m = 2, edited; the checksum left as it was
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


def test_top_m_counts_for_other_targets_are_not_trusted(tmp_path: Path) -> None:
    """Counts for m = 1, 3 under a key for m = 1, 2, even with a checksum that fits them: recomputed."""
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["top_m"][1][0] = 3
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


def test_a_count_above_the_runs_is_not_trusted(tmp_path: Path) -> None:
    """An entry saying more runs were right than were run (with a checksum that fits): recomputed."""
    cache, dataset, config, path = _cached(tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["correct"] = 21  # of 20 runs
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(dataset, config, Fraction(12), 20, 3) is None


# -- budgets --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_models", "n_queries"), [(2, 1), (4, 6), (80, 1000)])
def test_a_budget_one_above_every_pair_is_refused(n_models: int, n_queries: int) -> None:
    full = n_models * n_queries
    assert check_budget(full, n_models, n_queries) == full
    with pytest.raises(BudgetError, match=rf"at most K\*L = {full} .*got {full + 1}"):
        check_budget(full + 1, n_models, n_queries)
