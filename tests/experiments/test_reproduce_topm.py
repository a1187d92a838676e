"""``reproduce --top-m``: the study's files, its numbers against simulate, resumption, the CLI."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref import simulate
from sysrs_ref.cli import main
from sysrs_ref.experiments import Config
from sysrs_ref.experiments._metrics import confidence_budget
from sysrs_ref.experiments._reproduce import ReproduceOutcome, reproduce
from sysrs_ref.experiments._topm_report import TOPM_LEVELS
from sysrs_ref.loaders import load_scores
from tests.small_data import make_data_folder

RUNS = 40
TOPM_FILES = {
    "topm_results.json",
    "topm_errors.csv",
    "topm_cb.csv",
    "topm_report.md",
    "topm_identification.png",
    "topm_ranking.png",
    "topm_per_rank.png",
}


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReproduceOutcome]:
    root = tmp_path_factory.mktemp("reproduce_topm")
    data = make_data_folder(root / "data")
    outcome = reproduce(
        data,
        root / "out",
        grid="table",
        algorithms="sysrs,syucbe:a=1",
        runs=RUNS,
        seed=5,
        top_m="2,3",
        top_m_grid="table",
    )
    return data, outcome


@pytest.mark.slow
def test_files_and_configurations(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    names = {path.name for path in outcome.files}
    assert names >= TOPM_FILES
    for path in outcome.files:
        assert path.is_file() and path.stat().st_size > 0
    study = outcome.top_m
    assert study is not None
    assert [c.label for c in study.configs] == ["sysrs", "syucbe(a=1)", "sar", "sysar"]
    assert study.targets == (2, 3)
    assert (outcome.computed, outcome.cached) == (2 * 2 + 2 * 4, 0)  # 2 datasets x (2 main + 4 top-m cells)


@pytest.mark.slow
def test_numbers_equal_simulate(done: tuple[Path, ReproduceOutcome]) -> None:
    """Every dataset, configuration and m: the study's errors are simulate's, same seed and budgets."""
    _, outcome = done
    study = outcome.top_m
    assert study is not None
    for dataset in study.datasets:
        instance = load_scores(dataset.path)
        for config in study.configs:
            params = {key: str(value) for key, value in config.params}
            result = simulate(
                instance,
                config.algorithm,
                [f"{p}%" for p in study.grid],
                RUNS,
                5,
                top_m=[2, 3],
                **params,  # type: ignore[arg-type]  # only the configuration's parameters
            )
            for m in (2, 3):
                counts = result.top_m[m]
                got = study.errors(dataset.name, config.label, m, "identification")
                assert got == [Fraction(x, RUNS) for x in counts.identification]
                assert study.errors(dataset.name, config.label, m, "ranking") == [
                    Fraction(x, RUNS) for x in counts.ranking
                ]
                assert study.errors(dataset.name, config.label, m, "per_rank") == [
                    Fraction(x, m * RUNS) for x in counts.wrong_positions
                ]


@pytest.mark.slow
def test_json_csv_and_cb(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    study = outcome.top_m
    assert study is not None
    payload: dict[str, Any] = json.loads((outcome.out / "topm_results.json").read_text())
    assert payload["configuration"]["top_m"] == [2, 3]
    assert set(payload["mean_error"]) == {"sysrs", "syucbe(a=1)", "sar", "sysar"}
    for label, per_m in payload["mean_error"].items():
        for m, metrics in per_m.items():
            for ident, rank, per_rank in zip(
                metrics["identification"], metrics["ranking"], metrics["per_rank"], strict=True
            ):
                assert 0 <= ident <= rank <= 1 and per_rank <= rank  # the paper's r >= epsilon
            assert metrics["identification"] == [float(x) for x in study.mean_errors(label, int(m), "identification")]
    rows = list(csv.DictReader(io.StringIO((outcome.out / "topm_cb.csv").read_text())))
    assert len(rows) == 4 * 2 * 3 * len(TOPM_LEVELS)
    # one CB recomputed by hand from the per-dataset errors: the largest over datasets
    level = Fraction(90)
    by_hand = []
    for dataset in study.datasets:
        errors = study.errors(dataset.name, "sysar", 2, "identification")
        by_hand.append(confidence_budget(list(study.grid), [RUNS - int(e * RUNS) for e in errors], RUNS, level))
    expected = None if None in by_hand else max(b for b in by_hand if b is not None)
    assert study.worst_cb("sysar", 2, "identification", level) == expected
    report = (outcome.out / "topm_report.md").read_text()
    assert "Top-m identification error" in report and "sysar" in report


def test_rerun_computes_nothing(done: tuple[Path, ReproduceOutcome], tmp_path: Path) -> None:
    data, outcome = done
    again = reproduce(
        data,
        outcome.out,
        grid="table",
        algorithms="sysrs,syucbe:a=1",
        runs=RUNS,
        seed=5,
        top_m="2,3",
        top_m_grid="table",
        plots=False,
    )
    assert again.computed == 0 and again.cached == 12
    assert again.top_m is not None and outcome.top_m is not None
    assert again.top_m.to_json() == outcome.top_m.to_json()


def test_cli(done: tuple[Path, ReproduceOutcome], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = done
    status = main(
        [
            "reproduce",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "o"),
            "--grid",
            "table",
            "--algorithms",
            "sysrs",
            "--runs",
            "10",
            "--top-m",
            "2",
            "--top-m-algorithms",
            "sysar,sysrs",
            "--top-m-grid",
            "table",
            "--no-plots",
            "--json",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0
    payload = json.loads(out)
    assert payload["top_m_report"].endswith("topm_report.md")
    status = main(
        [
            "reproduce",
            "--data",
            str(data),
            "--out",
            str(tmp_path / "p"),
            "--grid",
            "table",
            "--algorithms",
            "sysrs",
            "--runs",
            "10",
            "--top-m",
            "99",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "m <= K - 1" in err and len(err.strip().splitlines()) == 1
    assert Config.of("sar").m_is_target and not Config.of("sar", m=2).m_is_target
