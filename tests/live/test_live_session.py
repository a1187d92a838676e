"""Live sessions: the same outcome as ``select`` for every algorithm, resumption, and the refusals."""

from __future__ import annotations

import json
import shutil
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Instance, schedule, select
from sysrs_ref.algorithms.lrf import FloatArray, LRFParams
from sysrs_ref.errors import BudgetError, LiveError, ParameterError, ScoreError, UnknownAlgorithmError
from sysrs_ref.fast.lrf import fit_ensemble_fast
from sysrs_ref.live import Session
from sysrs_ref.live.log import LOG_NAME
from tests.strategies import LiveCase, live_cases


def _create(case: LiveCase, folder: Path) -> Session:
    return Session.create(
        folder,
        case.models,
        case.queries,
        budget=case.budget,
        algorithm=case.algorithm,
        seed=case.seed,
        params=case.params,
    )


def _feed(session: Session, case: LiveCase, order: st.DataObject | None = None, limit: int | None = None) -> None:
    """Record pending scores from the matrix (in an order Hypothesis picks) until done or *limit* records."""
    made = 0
    while not session.done and (limit is None or made < limit):
        pending = list(session.pending())
        if order is not None:
            pending = order.draw(st.permutations(pending), label="order")
        model, query = pending[0]
        assert session.record(model, query, case.score(model, query)) is True
        made += 1


def _expected(case: LiveCase) -> tuple[int, tuple[int, ...], int]:
    """select's outcome; for ucbe-lrf with the numpy fit, the one a live session fits with."""
    fit = fit_ensemble_fast if ALGORITHMS[case.algorithm].cells else None
    outcome = select(case.instance, case.budget, case.algorithm, draw=None, seed=case.seed, fit=fit, **case.params)
    return outcome.chosen, outcome.ranking, outcome.spent


@settings(max_examples=60)
@given(case=live_cases(), data=st.data())
def test_a_session_fed_from_a_matrix_ends_as_select_for_every_algorithm(case: LiveCase, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp, _create(case, Path(tmp) / "run") as session:
        _feed(session, case, data)
        outcome = session.outcome
        assert outcome is not None
        assert (outcome.chosen, outcome.ranking, outcome.spent) == _expected(case)
        assert session.chosen == case.models[outcome.chosen]
        assert session.ranking == tuple(case.models[i] for i in outcome.ranking)
        assert session.status().spent == outcome.spent <= case.budget
        assert session.pending() == ()


@settings(max_examples=60)
@given(case=live_cases(), data=st.data())
def test_closing_and_reopening_anywhere_changes_nothing(case: LiveCase, data: st.DataObject) -> None:
    """A session closed after a random number of records (as a crashed process would leave it) resumes exactly."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        with _create(case, folder) as session:
            _feed(session, case, data, limit=data.draw(st.integers(0, case.budget), label="stop after"))
            recorded = session.status().spent
        with Session.open(folder, readonly=True) as reader:
            assert reader.status().spent == recorded
        with Session.open(folder) as session:
            assert session.status().spent == recorded
            _feed(session, case, data)
            outcome = session.outcome
            assert outcome is not None
            assert (outcome.chosen, outcome.ranking, outcome.spent) == _expected(case)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_registered_algorithm_runs_live(tmp_path: Path, algorithm: str) -> None:
    """Not left to chance: each algorithm once, with a resume half way."""
    instance = Instance([[1, 0, 1, 1, 0], [0, 1, 1, 0, 0], [1, 1, 0, 0, 1]])
    params: dict[str, Fraction | int] = {"members": 2, "sweeps": 1, "warmup": 25} if ALGORITHMS[algorithm].cells else {}
    case = LiveCase(instance, algorithm, 11, 7, params)
    with _create(case, tmp_path / "run") as session:
        _feed(session, case, limit=5)
    with Session.open(tmp_path / "run") as session:
        _feed(session, case)
        assert session.outcome is not None
        assert (session.outcome.chosen, session.outcome.ranking, session.outcome.spent) == _expected(case)


def test_a_ucbe_lrf_session_fits_with_numpy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fit of a live UCB-E-LRF run, and of its replay on reopening, is the numpy fit's (not the pure-Python one)."""
    fits: list[int] = []

    def counted(scores: FloatArray, seed: int, fit: int, settings: LRFParams) -> tuple[FloatArray, FloatArray]:
        fits.append(fit)
        return fit_ensemble_fast(scores, seed, fit, settings)

    monkeypatch.setattr("sysrs_ref.fast.lrf.fit_ensemble_fast", counted)
    params: dict[str, Fraction | int] = {"members": 2, "sweeps": 1, "warmup": 0, "batch": 2}
    case = LiveCase(Instance([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]), "ucbe-lrf", 6, 3, params)
    with _create(case, tmp_path / "run") as session:
        _feed(session, case, limit=3)
    live = len(fits)
    with Session.open(tmp_path / "run") as session:
        _feed(session, case)
        assert session.outcome is not None
    assert live >= 1 and len(fits) > live and fits[live] == 0  # the replay refits from fit 0


def test_a_sysrs_phase_is_one_batch_and_the_log_holds_it(tmp_path: Path) -> None:
    case = LiveCase(Instance([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]), "sysrs", 7, 0, {})
    n_1 = schedule(3, 4, 7)[0]
    with _create(case, tmp_path / "run") as session:
        first = session.pending()
        assert n_1 < 4 and len(first) == 3 * n_1 and {m for m, _ in first} == {"m0", "m1", "m2"}
        assert len({q for _, q in first}) == n_1  # synchronized: the same queries for every model
        status = session.status()
        assert (status.phase, status.active, status.spent, status.pending) == (1, ("m0", "m1", "m2"), 0, 3)
    lines = [json.loads(line) for line in (tmp_path / "run" / LOG_NAME).read_text().splitlines()]
    assert lines == [{"t": "batch", "index": 1, "pairs": [list(pair) for pair in first]}]


def test_scores_are_exact_and_a_repeat_is_harmless(tmp_path: Path) -> None:
    case = LiveCase(Instance([[1, 0], [0, 1]]), "sysrs", 4, 0, {})
    with _create(case, tmp_path / "run") as session:
        model, query = session.pending()[0]
        assert session.record(model, query, 0.1) is True
        size = (tmp_path / "run" / LOG_NAME).stat().st_size
        assert session.record(model, query, 0.1) is False  # the same float: nothing written
        assert (tmp_path / "run" / LOG_NAME).stat().st_size == size
        with pytest.raises(
            LiveError, match=r"already has the score 0\.1000000000000000055511151231257827021181583404541015625"
        ):
            session.record(model, query, Decimal("0.1"))  # the decimal 1/10 is another number than the float 0.1
    record = json.loads((tmp_path / "run" / LOG_NAME).read_text().splitlines()[1])
    assert Fraction(record["score"]) == Fraction(0.1)


@pytest.mark.parametrize(
    ("pair", "score", "error", "message"),
    [
        (("mX", None), 1, LiveError, "unknown model 'mX'"),
        ((None, "qX"), 1, LiveError, "unknown query 'qX'"),
        ((None, None), 1.5, ScoreError, "score is 1.5, outside"),
        ((None, None), float("nan"), ScoreError, "is nan"),
        ((None, None), "x", ScoreError, "not a number"),
    ],
)
def test_bad_records_are_refused_and_nothing_is_written(
    tmp_path: Path, pair: tuple[str | None, str | None], score: object, error: type[Exception], message: str
) -> None:
    case = LiveCase(Instance([[1, 0, 1], [0, 1, 0]]), "sysrs", 6, 0, {})
    with _create(case, tmp_path / "run") as session:
        model, query = session.pending()[0]
        before = (tmp_path / "run" / LOG_NAME).read_bytes()
        with pytest.raises(error, match=message):
            session.record_many(
                [(model, query, 1), (pair[0] or model, pair[1] or query, score)]
                if pair != (None, None)
                else [(session.pending()[1][0], session.pending()[1][1], 1), (model, query, score)]
            )
        assert (tmp_path / "run" / LOG_NAME).read_bytes() == before  # all or nothing
        assert session.status().spent == 0


def test_a_pair_not_requested_and_a_conflicting_score_are_refused(tmp_path: Path) -> None:
    case = LiveCase(Instance([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]), "sysrs", 9, 3, {})
    with _create(case, tmp_path / "run") as session:
        (model, query), pending = session.pending()[0], set(session.pending())
        later = next((m, q) for m in case.models for q in case.queries if (m, q) not in pending)
        with pytest.raises(
            LiveError, match=r"was not requested.*later pairs are requested once this batch is complete"
        ):
            session.record(*later, 1)
        session.record(model, query, 1)
        with pytest.raises(LiveError, match="already has the score 1; refusing the different score 0"):
            session.record(model, query, 0)
        _feed(session, case)
        assert session.outcome is not None
        asked = set(session.outcome.requests)
        never = next((f"m{i}", f"q{j}") for i in range(3) for j in range(4) if (i, j) not in asked)
        with pytest.raises(LiveError, match=r"was not requested.*it has finished"):
            session.record(*never, 1)


def test_settings_are_checked_before_any_file_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    for kwargs, error, message in (
        ({"budget": 1}, BudgetError, "at least the number of models"),
        ({"budget": 4, "algorithm": "nope"}, UnknownAlgorithmError, "unknown algorithm 'nope'"),
        ({"budget": 4, "algorithm": "ucbe", "params": {"a": "-1"}}, ParameterError, "must be positive"),
        ({"budget": 4, "params": {"a": 1}}, ParameterError, "sysrs has no parameter 'a'"),
        ({"budget": 4, "seed": -1}, LiveError, "non-negative"),
    ):
        with pytest.raises(error, match=message):
            Session.create(folder, ["a", "b"], ["x", "y"], **kwargs)
        assert not folder.exists()
    for models, message in (
        (["a", "a"], "appears twice"),
        ([], "at least one model"),
        (["a"], "^a session needs two or more models to choose between, got one: 'a'$"),
        (["a", " b"], "surrounding spaces"),
        ("ab", "not one string"),
    ):
        with pytest.raises(LiveError, match=message):
            Session.create(folder, models, ["x"], budget=2)
    (folder / "x").mkdir(parents=True)
    with pytest.raises(LiveError, match="not an empty folder"):
        Session.create(folder, ["a", "b"], ["x", "y"], budget=4)


def test_the_run_directory_is_locked_and_read_only_sessions_refuse_records(tmp_path: Path) -> None:
    with Session.create(tmp_path / "run", ["a", "b"], ["x", "y"], budget=4) as session:
        with pytest.raises(LiveError, match="open in another process"):
            Session.open(tmp_path / "run")
        with Session.open(tmp_path / "run", readonly=True) as reader:  # status and next still work
            assert reader.pending() == session.pending()
            with pytest.raises(LiveError, match="read-only"):
                reader.record(*reader.pending()[0], 1)
    with Session.open(tmp_path / "run") as again:  # released on close
        assert again.pending() == session.pending()


def test_a_damaged_run_directory_is_reported_not_repaired(tmp_path: Path) -> None:
    case = LiveCase(Instance([[1, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 1]]), "sysrs", 12, 0, {})
    folder = tmp_path / "run"
    with _create(case, folder) as session:
        _feed(session, case, limit=4)
    with pytest.raises(LiveError, match="no session in"):
        Session.open(tmp_path / "elsewhere")
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    lines = (copy / LOG_NAME).read_text().splitlines(keepends=True)
    (copy / LOG_NAME).write_text(lines[0] + "{broken\n" + "".join(lines[1:]))
    with pytest.raises(LiveError, match=r"line 2 is not a log record.*corrupt"):
        Session.open(copy)
    config = json.loads((folder / "session.json").read_text())
    config["seed"] = 1  # another draw: the logged batches no longer match
    (folder / "session.json").write_text(json.dumps(config))
    with pytest.raises(LiveError, match="batch 1 of the log is not what the algorithm asks for"):
        Session.open(folder)


@given(
    scores=st.lists(
        st.one_of(
            st.floats(0, 1), st.fractions(0, 1, max_denominator=10**6), st.decimals(0, 1, places=30, allow_nan=False)
        ),
        min_size=4,
        max_size=4,
    )
)
def test_any_exact_score_survives_the_log(scores: list[float | Fraction | Decimal]) -> None:
    """Floats (written as JSON numbers), decimals and fractions (exact text) read back as the same Fraction."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        with Session.create(folder, ["a", "b", "c", "d"], ["x"], budget=4) as session:
            session.record_many(
                (model, query, score) for (model, query), score in zip(session.pending(), scores, strict=True)
            )
            recorded = dict(session.recorded())
        with Session.open(folder, readonly=True) as again:
            assert dict(again.recorded()) == recorded
            assert sorted(recorded.values()) == sorted(Fraction(s) for s in scores)
