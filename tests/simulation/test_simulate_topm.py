"""simulate --top-m: the counts are the reference's, run by run; the JSON rows; SAR's per-target m."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Instance, random_draw, select, simulate
from sysrs_ref.cli import main
from sysrs_ref.topm import topm_errors
from tests.strategies import ALGORITHM_NAMES, instances


def run_generator(seed: int, run: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


@settings(max_examples=60, deadline=None)
@given(instances(min_models=3, max_models=5, max_queries=5), st.sampled_from(ALGORITHM_NAMES), st.data())
def test_top_m_counts_are_the_reference_errors_summed(instance: Instance, algorithm: str, data: st.DataObject) -> None:
    """Each run replayed alone by the reference (select with the documented draw), scored by topm_errors."""
    n_models, n_queries = instance.shape
    budgets = data.draw(st.lists(st.integers(n_models, n_models * n_queries), min_size=1, max_size=3))
    targets = sorted(data.draw(st.sets(st.integers(1, n_models - 1), min_size=1)))
    runs, seed = data.draw(st.integers(1, 5)), data.draw(st.integers(0, 2**32))
    result = simulate(instance, algorithm, budgets, runs, seed, top_m=targets)
    spec = ALGORITHMS[algorithm]
    assert list(result.top_m) == targets
    for column, budget in enumerate(budgets):
        for m in targets:
            params = {"m": m} if "m" in spec.defaults else {}  # SAR, SySAR: run with m = the target
            errors = [
                topm_errors(
                    select(
                        instance,
                        budget,
                        algorithm,
                        draw=random_draw(run_generator(seed, run), n_models, n_queries, synchronized=spec.synchronized),
                        fit=None,  # none of these fits an ensemble (and **params may not fill it)
                        **params,
                    ).ranking,
                    instance,
                    m,
                )
                for run in range(runs)
            ]
            counts = result.top_m[m]
            assert counts.runs == runs
            assert counts.identification[column] == sum(e.identification for e in errors)
            assert counts.ranking[column] == sum(e.ranking for e in errors)
            assert Fraction(counts.wrong_positions[column], m) == sum((e.per_rank for e in errors), Fraction(0))


def test_json_rows_and_workers() -> None:
    """The rows' "top_m" objects: keys are the m as strings, rates bounded as the paper notes; workers change nothing."""
    instance = Instance((np.random.default_rng(3).random((12, 40)) < np.linspace(0.9, 0.3, 12)[:, None]).astype(int))
    one = simulate(instance, "sysrs", ["10%", "40%"], runs=64, seed=2, top_m="3,5", chunk=16)
    two = simulate(instance, "sysrs", ["10%", "40%"], runs=64, seed=2, top_m=[5, 3], workers=2, chunk=16)
    assert one.to_json() == two.to_json()
    payload = json.loads(json.dumps(one.to_json()))
    for row in payload["results"]:
        assert set(row["top_m"]) == {"3", "5"}
        for entry in row["top_m"].values():
            assert set(entry) == {"identification_error", "ranking_error", "per_rank_error"}
            assert 0 <= entry["identification_error"] <= entry["ranking_error"] <= 1
            assert entry["per_rank_error"] <= entry["ranking_error"]
    unasked: Any = simulate(instance, "sysrs", ["10%"], runs=4).to_json()
    assert "top_m" not in unasked["results"][0]  # only when asked


def test_sar_fixed_m_applies_to_every_target() -> None:
    """With m given, SAR runs once (m fixed) and every target scores those rankings."""
    instance = Instance((np.random.default_rng(4).random((8, 30)) < np.linspace(0.9, 0.3, 8)[:, None]).astype(int))
    fixed = simulate(instance, "sysar", ["30%"], runs=40, seed=1, top_m=[2, 4], m=2)
    per_target = simulate(instance, "sysar", ["30%"], runs=40, seed=1, top_m=[2, 4])
    alone = simulate(instance, "sysar", ["30%"], runs=40, seed=1, top_m=[4], m=4)
    assert fixed.top_m[2] == per_target.top_m[2]
    assert per_target.top_m[4] == alone.top_m[4]
    assert fixed.params == {"m": 2} and per_target.params == {"m": 1}


def test_cli_top_m(capsys: pytest.CaptureFixture[str]) -> None:
    gsm = "gsm"  # the shipped benchmark, by name
    status = main(
        [
            "simulate",
            "--scores",
            gsm,
            "--algorithm",
            "sysar",
            "--budgets",
            "10%",
            "--runs",
            "20",
            "--top-m",
            "3,5",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    row = json.loads(out)["results"][0]
    assert set(row["top_m"]) == {"3", "5"}
    status = main(
        [
            "simulate",
            "--scores",
            gsm,
            "--algorithm",
            "sysar",
            "--budgets",
            "10%",
            "--runs",
            "20",
            "--top-m",
            "3",
            "--quiet",
        ]
    )
    text = capsys.readouterr().out
    assert status == 0 and "identification" in text and "m set to each target m" in text
    for bad, message in (("3,x", "positive integers"), ("80", "m <= K - 1 = 79")):
        status = main(
            ["simulate", "--scores", gsm, "--algorithm", "sysrs", "--budgets", "10%", "--runs", "2", "--top-m", bad]
        )
        err = capsys.readouterr().err
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1
    status = main(["select", "--scores", gsm, "--algorithm", "sysrs", "--budget", "10%", "--m", "3"])
    assert status == 2 and "sysrs has no parameter 'm'" in capsys.readouterr().err
