"""simulate, simulation_draws and Progress: the seeded draws, the reference, workers and chunks."""

from __future__ import annotations

import importlib
import io
import json
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import (
    ALGORITHMS,
    BudgetError,
    DrawError,
    Instance,
    InstanceError,
    ParameterError,
    SimulationResult,
    TooLargeError,
    UnknownAlgorithmError,
    irt_benchmark,
    random_draw,
    schedule,
    schedule_spend,
    select,
    simulate,
    simulation_draws,
)
from sysrs_ref.cli._progress import Progress
from sysrs_ref.simulation import runs_need
from tests.strategies import ALGORITHM_NAMES, SYNCHRONIZED, UNSYNCHRONIZED, SimulationCase, simulations

engine_module = importlib.import_module("sysrs_ref.simulation._engine")

CONTRACT_KEYS = {"algorithm", "params", "K", "L", "runs", "seed", "results"}
ROW_KEYS = {"budget_pct", "budget", "accuracy", "spent_max"}


def run_generator(seed: int, run: int) -> np.random.Generator:
    """The documented per-run stream."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


# -- the draws --------------------------------------------------------------------------------------


@given(
    seed=st.integers(0, 2**70),
    runs=st.integers(1, 5),
    n_models=st.integers(2, 5),
    n_queries=st.integers(1, 7),
    synchronized=st.booleans(),
)
@settings(max_examples=40)
def test_run_r_draws_from_the_r_th_spawned_stream(
    seed: int, runs: int, n_models: int, n_queries: int, synchronized: bool
) -> None:
    batch = simulation_draws(seed, 0, runs, n_models, n_queries, synchronized=synchronized)
    children = np.random.default_rng(seed).spawn(runs)
    assert batch.n_runs == runs and batch.synchronized == synchronized
    assert (batch.n_models, batch.n_queries) == (n_models, n_queries)
    for run in range(runs):
        expected = random_draw(children[run], n_models, n_queries, synchronized=synchronized)
        assert batch.draw(run) == expected
        assert batch.draw(run) == random_draw(run_generator(seed, run), n_models, n_queries, synchronized=synchronized)
    assert batch.query_orders.dtype == np.int32 and batch.arm_priority.dtype == np.int32


@given(seed=st.integers(0, 1000), cut=st.integers(1, 9), synchronized=st.booleans())
@settings(max_examples=20)
def test_draws_do_not_depend_on_the_run_range(seed: int, cut: int, synchronized: bool) -> None:
    whole = simulation_draws(seed, 0, 10, 4, 6, synchronized=synchronized)
    left = simulation_draws(seed, 0, cut, 4, 6, synchronized=synchronized)
    right = simulation_draws(seed, cut, 10, 4, 6, synchronized=synchronized)
    assert np.array_equal(whole.query_orders, np.concatenate([left.query_orders, right.query_orders]))
    assert np.array_equal(whole.arm_priority, np.concatenate([left.arm_priority, right.arm_priority]))


def test_different_seeds_and_runs_give_different_draws() -> None:
    batch = simulation_draws(0, 0, 20, 5, 30, synchronized=False)
    other = simulation_draws(1, 0, 20, 5, 30, synchronized=False)
    assert len({batch.draw(run) for run in range(20)}) == 20
    assert not np.array_equal(batch.query_orders, other.query_orders)


@pytest.mark.parametrize("seed", [-1, True])
def test_simulation_draws_refuses_bad_seeds(seed: int) -> None:
    with pytest.raises(ParameterError, match="seed"):
        simulation_draws(seed, 0, 3, 2, 2, synchronized=True)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        ((0, -1, 3, 2, 2), "start"),
        ((0, 3, 3, 2, 2), "at least one run"),
        ((0, 0, 3, 1, 2), "n_models"),
        ((0, 0, 3, 2, 0), "n_queries"),
    ],
)
def test_simulation_draws_refuses_bad_ranges(args: tuple[int, int, int, int, int], pattern: str) -> None:
    with pytest.raises(DrawError, match=pattern):
        simulation_draws(*args, synchronized=True)


# -- simulate against the reference, run by run ---------------------------------------------------------


@given(simulations())
@settings(max_examples=60)
def test_simulate_equals_the_reference_loop(
    case: SimulationCase,
) -> None:
    """Run r replayed alone through select (the pure reference) with the documented draw: same choices."""
    instance, algorithm, budgets, runs, seed, params = case
    result = simulate(instance, algorithm, budgets, runs, seed, **params)
    spec = ALGORITHMS[algorithm]
    n_models, n_queries = instance.shape
    assert result.chosen.shape == (runs, len(budgets))
    for column, budget in enumerate(budgets):
        correct, spent = 0, []
        for run in range(runs):
            draw = random_draw(run_generator(seed, run), n_models, n_queries, synchronized=spec.synchronized)
            outcome = select(instance, budget, algorithm, draw=draw, **params)
            assert result.chosen[run, column] == outcome.chosen, (run, budget)
            correct += outcome.chosen in instance.best
            spent.append(outcome.spent)
        row = result.rows[column]
        assert row.budget == budget and row.correct == correct
        assert row.accuracy == correct / runs
        assert row.spent_max == max(spent) <= budget
        assert row.budget_pct == 100 * budget / (n_models * n_queries)


def test_ties_for_best_count_as_correct() -> None:
    instance = Instance([[1, 1, 0, 1], [1, 1, 0, 1], [0, 0, 1, 0]])  # models 0 and 1 tie for best
    result = simulate(instance, "syus", [3, "100%"], runs=60, seed=4)
    assert result.best == (0, 1)
    assert set(result.chosen[:, 1].tolist()) == {0, 1}  # the tie is broken by the priority, both ways
    assert result.rows[1].accuracy == 1.0 and result.rows[1].correct == 60
    at_k = result.chosen[:, 0]  # one query per model: model 2 wins whenever the query is 2
    assert result.rows[0].correct == int(np.isin(at_k, [0, 1]).sum()) < 60


def test_spent_max_is_the_schedule_spend() -> None:
    instance = irt_benchmark(6, 50, seed=2)
    result = simulate(instance, "sysrs", ["10%", "50%", 300], runs=12, seed=0)
    for row in result.rows:
        assert row.spent_max == schedule_spend(schedule(6, 50, row.budget)) <= row.budget


# -- workers and chunks do not change anything -------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["sysrs", "us", "ucbe"])
def test_two_workers_give_exactly_the_result_of_one(algorithm: str, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = irt_benchmark(5, 30, seed=3)
    budgets: list[int | str] = ["8%", "20%", 100]
    calls: list[int] = []
    pools: list[int] = []
    real_executor = engine_module._executor

    def spy(workers: int, scheduler: str | None, tables: Any) -> Any:
        pools.append(workers)
        return real_executor(workers, scheduler, tables)

    monkeypatch.setattr(engine_module, "_executor", spy)
    one = simulate(instance, algorithm, budgets, runs=45, seed=9)
    assert pools == [1]
    two = simulate(instance, algorithm, budgets, runs=45, seed=9, workers=2, chunk=4, progress=calls.append)
    assert pools == [1, 2]  # the chunks really went through a pool of two processes
    assert np.array_equal(one.chosen, two.chosen)
    assert one.to_json() == two.to_json()
    assert calls[0] == 0 and sum(calls) == 45 and len(calls) == 1 + 12  # 12 chunks of at most 4 runs
    assert 0 < one.rows[0].correct < 45  # a simulation where runs disagree, so a mix-up would show


@given(chunk=st.integers(1, 25), seed=st.integers(0, 50), algorithm=st.sampled_from(["sysrs", "sr", "syus"]))
@settings(max_examples=15)
def test_chunk_size_does_not_change_the_result(chunk: int, seed: int, algorithm: str) -> None:
    instance = irt_benchmark(4, 20, seed=1)
    whole = simulate(instance, algorithm, ["10%", "30%"], runs=25, seed=seed, chunk=25)
    parts = simulate(instance, algorithm, ["10%", "30%"], runs=25, seed=seed, chunk=chunk)
    assert np.array_equal(whole.chosen, parts.chosen)
    assert whole.rows == parts.rows


def test_the_seed_matters_and_repeats() -> None:
    instance = irt_benchmark(6, 40, seed=0)
    first = simulate(instance, "sr", ["5%"], runs=30, seed=1)
    again = simulate(instance, "sr", ["5%"], runs=30, seed=1)
    other = simulate(instance, "sr", ["5%"], runs=30, seed=2)
    assert np.array_equal(first.chosen, again.chosen)
    assert not np.array_equal(first.chosen, other.chosen)


# -- budgets, parameters, the JSON object ----------------------------------------------------------------


def test_budgets_are_parsed_exactly_and_keep_their_percentage() -> None:
    scores = np.zeros((4, 2500))
    scores[0] = 1.0
    result = simulate(Instance(scores), "syus", ["0.57%", "8%", 2000, "2000", " 12.5 % ", np.int64(30)], runs=2)  # type: ignore[list-item]  # numpy ints too
    rows = [(row.budget_pct, row.budget) for row in result.rows]
    # 0.57% of 4 x 2500 is 57 exactly; in floats 0.57 * 10000 / 100 = 56.99999999999999 would give 56
    assert rows == [(0.57, 57), (8.0, 800), (20.0, 2000), (20.0, 2000), (12.5, 1250), (0.3, 30)]
    assert all(isinstance(pct, float) and isinstance(n, int) for pct, n in rows)


def test_to_json_is_the_design_contract() -> None:
    instance = irt_benchmark(5, 40, seed=1)
    result = simulate(instance, "ucbe", ["8%", "2.5%", 30], runs=7, seed=3, a="0.1")
    payload = json.loads(json.dumps(result.to_json()))
    assert set(payload) == CONTRACT_KEYS
    assert payload["algorithm"] == "ucbe" and payload["params"] == {"a": "0.1"}
    assert (payload["K"], payload["L"], payload["runs"], payload["seed"]) == (5, 40, 7, 3)
    assert [row["budget_pct"] for row in payload["results"]] == [8, 2.5, 15]
    assert [row["budget"] for row in payload["results"]] == [16, 5, 30]
    for row in payload["results"]:
        assert set(row) >= ROW_KEYS
        assert isinstance(row["budget_pct"], (int, float)) and isinstance(row["budget"], int)
        assert isinstance(row["accuracy"], float) and 0 <= row["accuracy"] <= 1
        assert isinstance(row["spent_max"], int) and row["spent_max"] <= row["budget"]
        assert row["accuracy"] == row["correct"] / 7


@pytest.mark.parametrize(
    ("given_a", "shown"), [(None, 1), ("0.1", "0.1"), (Fraction(1, 3), "1/3"), (4, 4), (0.5, "0.5")]
)
def test_params_are_reported_exactly(given_a: object, shown: int | str) -> None:
    instance = Instance([[1, 1, 0], [0, 1, 0]])
    params = {} if given_a is None else {"a": given_a}
    result = simulate(instance, "syucbe", ["100%"], runs=1, **params)  # type: ignore[arg-type]
    assert result.params == {"a": shown}
    assert simulate(instance, "sysrs", [2], runs=1).params == {}


def test_result_is_frozen_and_its_choices_read_only() -> None:
    result = simulate(Instance([[1, 0], [0, 1]]), "sr", [2], runs=3)
    assert isinstance(result, SimulationResult)
    with pytest.raises(ValueError):
        result.chosen[0, 0] = 1
    with pytest.raises(AttributeError):
        result.runs = 4  # type: ignore[misc]


# -- validation at the boundary ------------------------------------------------------------------------------

SMALL = Instance([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"runs": 0}, ParameterError, "runs must be a positive integer"),
        ({"runs": -3}, ParameterError, "runs"),
        ({"runs": True}, ParameterError, "runs"),
        ({"runs": 2.0}, ParameterError, "runs"),
        ({"workers": 0}, ParameterError, "workers must be a positive integer"),
        ({"chunk": 0}, ParameterError, "chunk"),
        ({"seed": -1}, ParameterError, "seed must be a non-negative integer"),
        ({"budgets": []}, BudgetError, "at least one budget"),
        ({"budgets": "8%"}, BudgetError, "list of budgets"),
        ({"budgets": ["50%", "abc"]}, BudgetError, "'abc'"),
        ({"budgets": [2]}, BudgetError, "at least the number of models"),
        ({"budgets": ["101%"]}, BudgetError, "101%"),
        ({"budgets": [13]}, BudgetError, "at most K\\*L = 12"),
        ({"algorithm": "nope"}, UnknownAlgorithmError, "unknown algorithm 'nope'"),
        ({"a": 1}, ParameterError, "sysrs has no parameter 'a'"),
        ({"algorithm": "ucbe", "a": "0"}, ParameterError, "exploration parameter a"),
        ({"algorithm": "ucbe", "b": 1}, ParameterError, "no parameter 'b'"),
    ],
)
def test_mistakes_raise_the_projects_errors(kwargs: dict[str, object], error: type[Exception], pattern: str) -> None:
    arguments: dict[str, object] = {"algorithm": "sysrs", "budgets": ["50%"], "runs": 2, **kwargs}
    with pytest.raises(error, match=pattern):
        simulate(SMALL, **arguments)  # type: ignore[arg-type]


def test_a_matrix_is_wrapped_and_anything_else_refused() -> None:
    wrapped = simulate([[1, 0], [0, 1]], "sysrs", [2], runs=2)
    assert wrapped.to_json() == simulate(Instance([[1, 0], [0, 1]]), "sysrs", [2], runs=2).to_json()
    with pytest.raises(InstanceError, match="load_dataset"):
        simulate(None, "sysrs", [2], runs=1)  # type: ignore[arg-type]


def test_synchronized_and_unsynchronized_names_cover_every_algorithm() -> None:
    assert set(SYNCHRONIZED) | set(UNSYNCHRONIZED) == set(ALGORITHM_NAMES)  # the reference loop covers all kinds


# -- the progress bar ---------------------------------------------------------------------------------------


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_draws_on_a_terminal_at_most_ten_times_a_second() -> None:
    stream, clock = FakeTTY(), Clock()
    with Progress(100, "sysrs", stream=stream, clock=clock) as bar:
        assert stream.getvalue() == ""  # nothing before the first update
        bar.update(0)
        assert stream.getvalue().count("\r") == 1 and "0/100" in stream.getvalue()
        for _ in range(9):  # 9 updates within 0.09 s: no redraw
            clock.now += 0.01
            bar.update(5)
        assert stream.getvalue().count("\r") == 1
        clock.now += 0.02  # 0.11 s after the first draw: redraw
        bar.update(5)
        drawn = stream.getvalue().split("\r")[-1]
        assert "50/100" in drawn and "50.0%" in drawn
        assert "[##########----------]" in drawn
        assert "ETA 0:01" in drawn and "455 runs/s" in drawn  # 50 runs in 0.11 s
        clock.now += 0.01
        bar.update(50)  # done: always drawn
    out = stream.getvalue()
    assert out.endswith("\n") and out.count("\n") == 1
    final = out.rstrip("\n").split("\r")[-1]
    assert "100/100" in final and "100.0%" in final and "ETA" not in final


class Scripted(Progress):
    """A bar whose text is given, to see how a shorter line overwrites a longer one."""

    texts: ClassVar[list[str]] = ["a much longer first line", "short", "short"]

    def line(self, now: float | None = None) -> str:
        return self.texts[min(self.done, 2)]


def test_progress_wipes_a_longer_previous_line() -> None:
    stream, clock = FakeTTY(), Clock()
    bar = Scripted(2, stream=stream, clock=clock)
    bar.update(0)
    clock.now += 1
    bar.update(1)
    assert stream.getvalue() == "\ra much longer first line" + "\rshort" + " " * 19
    bar.close()
    bar.close()  # closing twice ends the line once
    assert stream.getvalue().count("\n") == 1 and stream.getvalue().endswith("\n")


def test_progress_is_silent_off_a_terminal_or_when_quiet() -> None:
    plain, quiet = io.StringIO(), FakeTTY()
    for stream, enabled in ((plain, None), (quiet, False)):
        with Progress(5, "runs", stream=stream, enabled=enabled) as bar:
            bar.update(0)
            bar(5)
        assert bar.done == 5 and not bar.enabled
    assert plain.getvalue() == "" and quiet.getvalue() == ""
    forced = io.StringIO()
    with Progress(2, stream=forced, enabled=True) as bar:
        bar.update(2)
    assert "2/2" in forced.getvalue() and forced.getvalue().endswith("\n")


def test_progress_ends_its_line_when_the_work_fails() -> None:
    stream = FakeTTY()
    with pytest.raises(RuntimeError), Progress(3, "runs", stream=stream) as bar:
        bar.update(1)
        raise RuntimeError("boom")
    assert stream.getvalue().endswith("\n") and "1/3" in stream.getvalue()
    untouched = FakeTTY()
    with pytest.raises(RuntimeError), Progress(3, stream=untouched):
        raise RuntimeError("before any work")
    assert untouched.getvalue() == ""  # never drawn: no stray newline


def test_progress_refuses_a_negative_total() -> None:
    with pytest.raises(ValueError, match="total"):
        Progress(-1)


def test_simulate_feeds_a_progress_bar() -> None:
    stream = FakeTTY()
    with Progress(30, "sysrs", stream=stream) as bar:
        simulate(irt_benchmark(4, 20, seed=0), "sysrs", ["20%"], runs=30, chunk=7, progress=bar.update)
    assert bar.done == 30 and "30/30" in stream.getvalue()


def test_nothing_to_run_starts_no_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_executor(*args: Any) -> Any:
        raise AssertionError("a pool was started for no work")

    monkeypatch.setattr(engine_module, "_executor", no_executor)
    assert engine_module.run_jobs([], {}, workers=2, scheduler="tcp://nowhere:1") == []


def test_simulate_refuses_elimination_runs_over_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """From Python too: the estimate (1.5e-8 s x K^2 per run and budget) is checked before any pass starts."""
    n_models = 3000
    assert runs_need(n_models, ["sysrs"], 1, 10).seconds == pytest.approx(1.35)
    monkeypatch.setenv("SYSRS_REF_TIME_LIMIT", "1")
    instance = Instance(np.zeros((n_models, 1)))
    with pytest.raises(
        TooLargeError, match=r"10 runs \(x budgets x algorithms\) of successive elimination on K = 3,000"
    ):
        simulate(instance, "sysrs", [n_models], runs=10)
    simulate(instance, "syus", [n_models], runs=10)  # uniform allocation does not grow with K^2: no refusal
