"""``ucbe-lrf`` as a registered algorithm: select, simulate, reproduce, the command line, bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sysrs_ref import ALGORITHMS, Draw, Instance, drive, select, simulate
from sysrs_ref.algorithms.lrf import (
    LRF_DEFAULTS,
    EnsembleFit,
    FloatArray,
    LRFDraw,
    LRFParams,
    lrf_params,
    random_lrf_draw,
    ucbe_lrf,
)
from sysrs_ref.cli import main
from sysrs_ref.errors import DrawError, ParameterError
from sysrs_ref.experiments import Config, parse_configs
from sysrs_ref.experiments._reproduce import reproduce
from sysrs_ref.fast import random_draws, run_fast
from sysrs_ref.fast.lrf import fit_ensemble_compiled, fit_ensemble_fast
from sysrs_ref.loaders import load_scores
from sysrs_ref.theory.exact import outcome_distribution
from sysrs_ref.topm import topm_errors
from tests.param_types import LRFSettings
from tests.small_data import make_data_folder
from tests.strategies import instances

#: Small settings: the reference fits in pure Python.
SMALL: LRFSettings = {"batch": "2", "members": "3", "sweeps": "2"}


def run_generator(seed: int, run: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


def test_registry_entry() -> None:
    spec = ALGORITHMS["ucbe-lrf"]
    assert (spec.title, spec.cells, spec.synchronized) == ("UCB-E-LRF", True, False)
    assert lrf_params(spec.defaults) == LRFParams()  # the registry's defaults are the paper's settings
    assert lrf_params({"warmup": 0}) == LRFParams(warmup=Fraction(0))


def _counted(calls: list[int]) -> EnsembleFit:
    """The numpy fit, recording each call's fit number in *calls*."""

    def fit(scores: FloatArray, seed: int, number: int, settings: LRFParams) -> tuple[FloatArray, FloatArray]:
        calls.append(number)
        return fit_ensemble_fast(scores, seed, number, settings)

    return fit


def test_select_is_the_step_generator_with_the_reference_fit_unless_given_another() -> None:
    """select runs ucbe_lrf with the seeded draw and the reference's pure-Python fit, or with the fit it is given."""
    instance = Instance([[1, 1, 0, 1, 0, 1], [0, 1, 1, 0, 1, 0], [1, 0, 0, 0, 1, 1], [0, 0, 1, 0, 0, 0]])
    for seed, warmup in ((1, "5"), (2, "0"), (3, "50")):
        out = select(instance, 13, "ucbe-lrf", seed=seed, warmup=warmup, **SMALL)
        draw, params = random_lrf_draw(seed, 4, 6), lrf_params({**SMALL, "warmup": warmup})  # type: ignore[dict-item]  # mypy reads a TypedDict as object values
        assert out == drive(ucbe_lrf(13, draw, params), instance)  # the reference's pure-Python fit
        assert select(instance, 13, "ucbe-lrf", draw=draw, warmup=warmup, **SMALL) == out
        calls: list[int] = []
        fast = select(instance, 13, "ucbe-lrf", seed=seed, warmup=warmup, fit=_counted(calls), **SMALL)
        assert fast == drive(ucbe_lrf(13, draw, params, fit=fit_ensemble_fast), instance) == out  # no near ties here
        assert calls == list(range(len(calls))) and calls  # every fit of the run went to the fit given


def test_a_fit_is_for_ucbe_lrf_only_and_must_be_a_fit() -> None:
    instance = Instance([[1, 0, 1], [0, 1, 0]])
    with pytest.raises(ParameterError, match="sysrs fits no ensemble: fit= is for ucbe-lrf"):
        select(instance, 3, "sysrs", fit=fit_ensemble_fast)
    with pytest.raises(ParameterError, match=r"fit must be an ensemble fit such as .*, got 3"):
        select(instance, 3, "ucbe-lrf", fit=3)  # type: ignore[arg-type]  # not a fit, on purpose
    with pytest.raises(ParameterError, match="ucbe fits no ensemble"):
        spec = ALGORITHMS["ucbe"]
        spec.run(3, Draw(((0, 1, 2), (2, 1, 0)), (0, 1)), spec.parse_params({}), fit=fit_ensemble_fast)


def test_the_command_line_select_fits_with_the_compiled_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line passes the compiled fit (the reference's doubles) to select for ucbe-lrf, none else."""
    fits: list[object] = []

    def spy(*args: object, fit: object = None, **kwargs: object) -> object:
        fits.append(fit)
        return select(*args, fit=fit, **kwargs)  # type: ignore[arg-type]  # passed through as given

    monkeypatch.setattr("sysrs_ref.cli._select.select", spy)
    scores = tmp_path / "s.csv"
    scores.write_text("1,0,1\n0,1,0\n")
    for algorithm in ("ucbe-lrf", "sysrs"):
        assert main(["select", "--scores", str(scores), "--budget", "6", "--algorithm", algorithm, "--json"]) == 0
    capsys.readouterr()
    assert fits == [fit_ensemble_compiled, None]


def test_draw_kinds_are_checked() -> None:
    instance = Instance([[1, 0, 1], [0, 1, 0]])
    with pytest.raises(DrawError, match="needs an LRFDraw"):
        select(instance, 3, "ucbe-lrf", draw=Draw(((0, 1, 2), (2, 1, 0)), (0, 1)))
    with pytest.raises(DrawError, match="needs a Draw of query orders"):
        select(instance, 3, "sysrs", draw=random_lrf_draw(0, 2, 3))
    with pytest.raises(DrawError, match="the draw is for K = 2, L = 4"):
        select(instance, 3, "ucbe-lrf", draw=random_lrf_draw(0, 2, 4))
    with pytest.raises(DrawError, match=r"use sysrs_ref\.fast\.lrf\.run_lrf"):
        run_fast(instance, "ucbe-lrf", [3], random_draws(0, 2, 2, 3, synchronized=False))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rank2": 1}, "has no parameter 'rank2'"),
        ({"batch": "2.5"}, "batch must be an integer"),
        ({"unseen_first": 2}, "is a switch: 1 \\(on\\) or 0 \\(off\\)"),
        ({"eta": "lots"}, "eta must be a number"),
        ({"warmup": 101}, "warmup is a percentage"),
        ({"dropout": "0.0001"}, "dropout must be 0 or in \\[0.001, 1\\)"),
        ({"ridge": 0}, "ridge must be positive"),
        ({"members": 1}, "members must be at least 2"),
    ],
)
def test_bad_parameters_are_refused(params: dict[str, str | int], message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        select(Instance([[1, 0], [0, 1]]), 2, "ucbe-lrf", **params)  # type: ignore[arg-type]  # bad ones on purpose


def test_no_exact_law() -> None:
    with pytest.raises(ParameterError, match="ucbe-lrf has no exact law"):
        outcome_distribution(Instance([[1, 0], [0, 1]]), "ucbe-lrf", 2)


@settings(max_examples=15, deadline=None)
@given(instances(min_models=3, max_models=4, max_queries=5), st.data())
def test_simulate_replays_each_run(instance: Instance, data: st.DataObject) -> None:
    """simulate's choices and top-m counts are each run replayed alone by the reference (same child draw)."""
    n_models, n_queries = instance.shape
    budgets = sorted(set(data.draw(st.lists(st.integers(n_models, n_models * n_queries), min_size=1, max_size=3))))
    runs, seed = data.draw(st.integers(1, 3)), data.draw(st.integers(0, 2**32))
    warmup = data.draw(st.sampled_from(["0", "5", "30"]))
    result = simulate(instance, "ucbe-lrf", budgets, runs, seed, top_m=[2], warmup=warmup, **SMALL)
    for column, budget in enumerate(budgets):
        outs = [
            drive(
                ucbe_lrf(
                    budget,
                    random_lrf_draw(run_generator(seed, run), n_models, n_queries),
                    lrf_params({**SMALL, "warmup": warmup}),  # type: ignore[dict-item]  # as above
                ),
                instance,
            )
            for run in range(runs)
        ]
        assert result.chosen[:, column].tolist() == [out.chosen for out in outs]
        assert result.rows[column].spent_max == budget
        assert result.top_m[2].identification[column] == sum(
            topm_errors(o.ranking, instance, 2).identification for o in outs
        )


def test_simulate_workers_change_nothing() -> None:
    instance = Instance((np.random.default_rng(1).random((5, 12)) < np.linspace(0.8, 0.3, 5)[:, None]).astype(int))
    one = simulate(instance, "ucbe-lrf", ["20%", "50%"], runs=4, seed=3, **SMALL)
    two = simulate(instance, "ucbe-lrf", ["20%", "50%"], runs=4, seed=3, workers=2, chunk=1, **SMALL)
    assert one.to_json() == two.to_json()
    assert np.array_equal(one.chosen, two.chosen)
    assert one.to_json()["params"] == {
        **dict(LRF_DEFAULTS),
        "batch": 2,
        "members": 3,
        "sweeps": 2,
        "dropout": "0.05",
        "ridge": "0.1",
    }


def test_cli_select_simulate_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores = tmp_path / "s.csv"
    matrix = [[1, 1, 0, 1, 0, 1], [0, 1, 1, 0, 1, 0], [1, 0, 0, 0, 1, 1]]
    scores.write_text("\n".join(",".join(map(str, row)) for row in matrix) + "\n")
    assert (
        main(
            [
                "select",
                "--scores",
                str(scores),
                "--budget",
                "9",
                "--algorithm",
                "ucbe-lrf",
                "--warmup",
                "0",
                "--seed",
                "4",
                "--json",
            ]
        )
        == 0
    )
    payload = json.loads(capsys.readouterr().out)
    reference = select(Instance(matrix), 9, "ucbe-lrf", seed=4, warmup=0)  # the reference's fit; the CLI's is numpy's
    assert (payload["chosen"], payload["ranking"], payload["spent"]) == (reference.chosen, list(reference.ranking), 9)
    assert payload["params"]["warmup"] == "0"
    assert (
        main(
            [
                "simulate",
                "--scores",
                str(scores),
                "--algorithm",
                "ucbe-lrf",
                "--budgets",
                "9,18",
                "--runs",
                "2",
                "--quiet",
                "--json",
            ]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["results"]
    assert [row["spent_max"] for row in rows] == [9, 18] and rows[1]["accuracy"] == 1.0  # 18 = K L: all seen
    for argv, message in (
        (["select", "--scores", str(scores), "--budget", "9", "--warmup", "0"], "sysrs has no parameter 'warmup'"),
        (["exact", "--scores", str(scores), "--budget", "9", "--algorithm", "ucbe-lrf"], "no exact law"),
        (["select", "--scores", str(scores), "--budget", "9", "--algorithm", "ucbe-lrf", "--warmup", "x"], "number"),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


def test_reproduce_runs_the_lrf_rows(tmp_path: Path) -> None:
    """``--algorithms lrf``: the paper's two rows, labelled as its tables; numbers equal simulate's."""
    assert [c.label for c in parse_configs("sysrs,lrf,ucbe-lrf:warmup=2:eta=1,lrf-banditeval")] == [
        "sysrs",
        "ucbe-lrf(warmup=5%)",
        "ucbe-lrf(warmup=0%)",
        "ucbe-lrf(warmup=2%,eta=1)",
        "ucbe-lrf(warmup=5%,bonus_on_observed=0,unseen_first=1)",
        "ucbe-lrf(warmup=0%,bonus_on_observed=0,unseen_first=1)",
    ]
    data = make_data_folder(tmp_path / "data")
    settings_ = ":".join(f"{key}={value}" for key, value in SMALL.items())
    outcome = reproduce(
        data, tmp_path / "out", grid="table", algorithms=f"sysrs,ucbe-lrf:{settings_}", runs=3, seed=2, plots=False
    )
    assert (outcome.computed, outcome.cached) == (4, 0)
    cells = {
        (c["dataset"], c["label"]): c for c in json.loads((tmp_path / "out" / "results.json").read_text())["cells"]
    }
    config = Config.of("ucbe-lrf", **SMALL)
    for name in ("alpha", "bravo"):
        instance = load_scores(data / f"{name}.npy")
        want = simulate(instance, "ucbe-lrf", ["8%", "12%", "16%", "20%", "25%", "30%", "35%"], runs=3, seed=2, **SMALL)
        got = [point["correct"] for point in cells[name, config.label]["points"]]
        assert got == [row.correct for row in want.rows]
    again = reproduce(
        data, tmp_path / "out", grid="table", algorithms=f"sysrs,ucbe-lrf:{settings_}", runs=3, seed=2, plots=False
    )
    assert (again.computed, again.cached) == (0, 4)


def test_lrf_draw_require() -> None:
    draw = LRFDraw((0, 1, 2, 3), (1, 0), seed=3)
    draw.require(2, 2)
    with pytest.raises(DrawError, match="the scores are K = 2, L = 3"):
        draw.require(2, 3)
