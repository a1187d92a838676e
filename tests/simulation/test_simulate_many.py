"""Several algorithms in one simulation, on common random numbers (``simulate --algorithm all``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import Instance, simulate
from sysrs_ref.cli import main
from sysrs_ref.errors import ParameterError
from sysrs_ref.simulation import PAPER_SIX, Config, parse_algorithm_list, simulate_many
from sysrs_ref.synthetic import irt_benchmark
from tests.real_data import real

SIX = ("us", "syus", "sr", "sysrs", "ucbe", "syucbe")


def test_all_is_the_six_algorithms_of_the_papers_table_with_a_1() -> None:
    assert [c.label for c in parse_algorithm_list("all")] == ["us", "syus", "sr", "sysrs", "ucbe(a=1)", "syucbe(a=1)"]
    assert len(PAPER_SIX) == 6


@pytest.mark.parametrize("workers", [1, 2])
def test_simulate_all_gives_exactly_six_separate_simulations(workers: int, capsys: pytest.CaptureFixture[str]) -> None:
    gsm = real("gsm")
    budgets = "2%,8%,20%"
    argv = ["simulate", "--scores", "gsm", "--budgets", budgets, "--runs", "60", "--seed", "11", "--json", "--quiet"]
    assert main([*argv, "--algorithm", "all", "--workers", str(workers)]) == 0
    together = json.loads(capsys.readouterr().out)
    assert (together["K"], together["L"], together["runs"], together["seed"]) == (80, 1000, 60, 11)
    assert [entry["algorithm"] for entry in together["algorithms"]] == list(SIX)
    for name, entry in zip(SIX, together["algorithms"], strict=True):
        assert main([*argv, "--algorithm", name]) == 0
        alone = json.loads(capsys.readouterr().out)
        assert entry == alone  # every accuracy, count and spend, and the parameters (a = 1)
    results = simulate_many(gsm, "all", budgets.split(","), 60, 11, workers=workers)
    for name, result in zip(SIX, results, strict=True):
        single = simulate(gsm, name, budgets.split(","), 60, 11)
        assert np.array_equal(result.chosen, single.chosen)  # the chosen model of every run at every budget
        assert result.to_json() == single.to_json()
    assert any(0 < row.correct < 60 for result in results for row in result.rows)  # runs disagree: a mix-up shows


@given(seed=st.integers(0, 10**6), chunk=st.integers(1, 30), picks=st.sets(st.sampled_from(SIX + ("sar",)), min_size=2))
@settings(max_examples=20, deadline=None)
def test_any_set_of_algorithms_is_paired_and_equal_to_each_alone(seed: int, chunk: int, picks: set[str]) -> None:
    instance = irt_benchmark(5, 24, seed=2)
    names = sorted(picks)
    results = simulate_many(instance, ",".join(names), ["10%", "40%", 120], 30, seed, chunk=chunk, top_m=[2])
    for name, result in zip(names, results, strict=True):
        alone = simulate(instance, name, ["10%", "40%", 120], 30, seed, top_m=[2])
        assert np.array_equal(result.chosen, alone.chosen)
        assert result.to_json() == alone.to_json()


def test_the_text_table_has_a_column_per_algorithm(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--scores", "gsm", "--algorithm", "sysrs,sr,ucbe:a=0.1", "--budgets", "8%,20%", "--runs", "20"]
    assert main([*argv, "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("3 algorithms on gsm: 80 models x 1000 queries, 20 runs each, seed 0")
    assert lines[1].split() == ["budget", "n", "sysrs", "sr", "ucbe(a=0.1)"]
    assert [line.split()[0] for line in lines[3:5]] == ["8%", "20%"]


@pytest.mark.parametrize(
    ("algorithms", "extra", "pattern"),
    [
        ("sysrs,sysrs", [], "sysrs more than once"),
        ("sysrs,sr", ["--a", "1"], "takes the parameter 'a'"),
        ("sysrs,,sr", [], "empty item"),
        ("sysrs,nope", [], "unknown algorithm 'nope'"),
        ("all", ["--a", "0.1"], "all fixes its algorithms' parameters"),
    ],
)
def test_bad_lists_are_one_line_and_status_2(
    algorithms: str, extra: list[str], pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "--scores", "gsm", "--algorithm", algorithms, "--budgets", "8%", "--runs", "2", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and pattern in err


def test_a_parameter_reaches_every_algorithm_that_takes_it() -> None:
    configs = parse_algorithm_list("ucbe,syucbe:a=10,sr", defaults={"a": "0.1"})
    assert configs == (Config.of("ucbe", a="0.1"), Config.of("syucbe", a=10), Config.of("sr"))
    with pytest.raises(ParameterError, match="sysrs has no parameter 'a'"):
        parse_algorithm_list("sysrs", defaults={"a": "1"})  # one algorithm: as simulate always said


def test_simulate_keeps_refusing_a_list() -> None:
    with pytest.raises(ParameterError, match="simulate_many"):
        simulate(Instance([[1, 0], [0, 1]]), "sysrs,sr", [2], 1)
