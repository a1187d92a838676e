"""``reproduce`` end to end on two small matrices: files, the JSON's schema, report == JSON, resumption, CLI."""

from __future__ import annotations

import builtins
import csv
import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.cli import main
from sysrs_ref.experiments._report import fmt_accuracy, fmt_cb
from sysrs_ref.experiments._reproduce import ReproduceOutcome, reproduce
from sysrs_ref.simulation import _engine as engine
from tests.small_data import make_data_folder

RUNS = 50
TABLES = (
    "table_identification_accuracy.csv",
    "table_perfect_identification.csv",
    "table_datasets.csv",
    "table_diversity.csv",
)


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReproduceOutcome]:
    root = tmp_path_factory.mktemp("reproduce")
    data = make_data_folder(root / "data")
    return data, reproduce(data, root / "out", grid="table", runs=RUNS, seed=3)


def load(outcome: ReproduceOutcome) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((outcome.out / "results.json").read_text())
    return payload


@pytest.mark.slow
def test_files(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    names = {path.name for path in outcome.files}
    assert {
        "results.json",
        "report.md",
        "cells.csv",
        *TABLES,
        "figure1.png",
        "dataset_alpha.png",
        "dataset_bravo.png",
    } == names
    for path in outcome.files:
        assert path.is_file() and path.stat().st_size > 0
    assert (outcome.computed, outcome.cached) == (20, 0)
    assert list(outcome.out.rglob("*.tmp")) == []


@pytest.mark.slow
def test_results_json_schema(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    payload = load(outcome)
    assert set(payload) == {"format", "package", "version", "configuration", "datasets", "cells", "tables", "claims"}
    conf = payload["configuration"]
    assert conf["grid"] == "table" and conf["runs"] == RUNS and conf["seed"] == 3
    assert conf["budget_pcts"] == ["8", "12", "16", "20", "25", "30", "35"] and len(conf["algorithms"]) == 10
    assert "SeedSequence(seed, spawn_key=(r,))" in conf["draws"]
    assert [d["name"] for d in payload["datasets"]] == ["alpha", "bravo"]
    for dataset in payload["datasets"]:
        assert set(dataset) == {"name", "file", "sha256", "source", "metric", "K", "L", "best"}
        assert len(dataset["sha256"]) == 64 and dataset["best"] == [0]
    assert len(payload["cells"]) == 20
    for cell in payload["cells"]:
        assert set(cell) == {"dataset", "algorithm", "params", "label", "points", "confidence_budgets"}
        assert set(cell["confidence_budgets"]) == {"90", "95", "100"}
        for point in cell["points"]:
            assert set(point) == {
                "budget_pct",
                "budget_pct_exact",
                "budget",
                "runs",
                "correct",
                "accuracy",
                "wilson_95",
                "spent_max",
            }
            assert point["runs"] == RUNS and 0 <= point["correct"] <= RUNS
            assert point["accuracy"] == point["correct"] / RUNS
            low, high = point["wilson_95"]
            assert 0 <= low <= point["accuracy"] <= high <= 1
            assert point["spent_max"] <= point["budget"]
    tables = payload["tables"]
    assert set(tables) == {"identification_accuracy", "perfect_identification", "datasets", "diversity"}
    assert tables["identification_accuracy"]["budget_pcts"] == [8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 35.0]
    sysrs = next(r for r in tables["identification_accuracy"]["rows"] if r["label"] == "sysrs")
    assert sysrs["paper"] == [83.5, 95.1, 98.5, 99.6, 99.9, 99.9, 100.0]
    assert [c["status"] for c in payload["claims"]] and all(
        c["status"] in ("holds", "does not hold", "cannot be checked") for c in payload["claims"]
    )


def test_the_tables_are_the_cells(done: tuple[Path, ReproduceOutcome]) -> None:
    """The mean accuracy of a row is the mean over datasets of the cells' accuracies, rounded down to 0.1%."""
    _, outcome = done
    payload = load(outcome)
    for row in payload["tables"]["identification_accuracy"]["rows"]:
        cells = [c for c in payload["cells"] if c["label"] == row["label"]]
        for index, shown in enumerate(row["ours"]):
            exact = sum(c["points"][index]["correct"] for c in cells) / (RUNS * len(cells))
            assert shown == int(exact * 1000 + 1e-9) / 10
    for row in payload["tables"]["perfect_identification"]["rows"]:
        cells = [c for c in payload["cells"] if c["label"] == row["label"]]
        for level, summary in row["ours"].items():
            budgets = [c["confidence_budgets"][level] for c in cells]
            if None in budgets:
                assert summary["mean"] is None and summary["max"] is None
            else:
                assert summary["max"] == max(budgets) and summary["mean"] == pytest.approx(sum(budgets) / len(budgets))


def markdown_table(report: str, heading: str) -> dict[str, list[str]]:
    section = report.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]  # without the header
    return {cells[0].strip("` "): [c.strip() for c in cells[1:]] for cells in (r.strip("|").split("|") for r in rows)}


def test_the_report_says_what_the_json_says(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    payload, report = load(outcome), (outcome.out / "report.md").read_text()
    accuracy = markdown_table(report, "## Identification accuracy")
    rows = payload["tables"]["identification_accuracy"]["rows"]
    assert set(accuracy) == {row["label"] for row in rows}
    for row in rows:
        paper = row["paper"] or [None] * len(row["ours"])
        assert accuracy[row["label"]] == [
            f"{fmt_accuracy(o)} ({fmt_accuracy(p)})" for o, p in zip(row["ours"], paper, strict=True)
        ]
    cb = markdown_table(report, "## Confidence budgets")
    for row in payload["tables"]["perfect_identification"]["rows"]:
        expected = []
        for level in ("90", "95", "100"):
            paper = (row["paper"] or {}).get(level)
            for what in ("mean", "max"):
                expected.append(f"{fmt_cb(row['ours'][level][what])} ({'-' if paper is None else paper[what]})")
        assert cb[row["label"]] == expected
    for claim in payload["claims"]:
        assert f"**{claim['id']}**" in report and f"**{claim['status']}**: {claim['detail']}" in report
    assert "15 benchmarks" in report and "2 datasets" in report


def test_the_csvs_say_what_the_json_says(done: tuple[Path, ReproduceOutcome]) -> None:
    _, outcome = done
    payload = load(outcome)
    with open(outcome.out / "table_identification_accuracy.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row, expected in zip(rows, payload["tables"]["identification_accuracy"]["rows"], strict=True):
        assert row["label"] == expected["label"]
        assert [float(row[f"ours_{p}"]) for p in ("8", "12", "16", "20", "25", "30", "35")] == expected["ours"]
    with open(outcome.out / "cells.csv", newline="") as handle:
        cells = list(csv.DictReader(handle))
    assert len(cells) == 20 * 7
    first = payload["cells"][0]["points"][0]
    assert (int(cells[0]["correct"]), int(cells[0]["budget"])) == (first["correct"], first["budget"])


def test_a_second_run_computes_nothing_and_writes_the_same(done: tuple[Path, ReproduceOutcome]) -> None:
    data, outcome = done
    again = reproduce(data, outcome.out, grid="table", runs=RUNS, seed=3, plots=False)
    assert (again.computed, again.cached) == (0, 20)
    assert load(again) == load(outcome)


def test_without_matplotlib_everything_else_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    data = make_data_folder(tmp_path / "data")
    outcome = reproduce(data, tmp_path / "out", grid="table", runs=5, algorithms="sysrs,sr")
    assert not any(path.suffix == ".png" for path in outcome.files)
    assert "No plots: matplotlib is not installed" in (outcome.out / "report.md").read_text()
    assert (outcome.out / "results.json").is_file()


def test_cli_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = make_data_folder(tmp_path / "data")
    out = tmp_path / "out"
    argv = [
        "reproduce",
        "--data",
        str(data),
        "--out",
        str(out),
        "--grid",
        "table",
        "--runs",
        "8",
        "--algorithms",
        "sysrs,ucbe:a=0.5",
        "--no-plots",
    ]
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == {
        "out",
        "files",
        "computed",
        "cached",
        "reused_runs",
        "seconds",
        "report",
        "results",
        "claims",
    }
    assert payload["reused_runs"] == 0
    assert (payload["computed"], payload["cached"]) == (4, 0)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "0 cells computed, 4 from the cache" in text and "sysrs-best-accuracy" in text
    labels = json.loads((out / "results.json").read_text())["configuration"]["algorithms"]
    assert labels == ["sysrs", "ucbe(a=0.5)"]


def test_the_report_counts_one_run_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = make_data_folder(tmp_path / "data")
    argv = ["reproduce", "--data", str(data), "--out", str(tmp_path / "out"), "--grid", "table", "--runs", "1"]
    assert main([*argv, "--algorithms", "sysrs", "--no-plots"]) == 0
    capsys.readouterr()
    assert "; R = 1 run per cell; seed " in (tmp_path / "out" / "report.md").read_text()


def test_cli_on_a_dask_scheduler_gives_the_local_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import distributed  # the dev extra installs it

    data = make_data_folder(tmp_path / "data")
    common = ["--data", str(data), "--grid", "table", "--runs", "12", "--no-plots", "--json"]
    assert main(["reproduce", *common, "--out", str(tmp_path / "local")]) == 0
    with distributed.LocalCluster(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        assert (
            main(["reproduce", *common, "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address]) == 0
        )
    capsys.readouterr()
    local = json.loads((tmp_path / "local" / "results.json").read_text())
    remote = json.loads((tmp_path / "dask" / "results.json").read_text())
    assert local["cells"] == remote["cells"] and local["tables"] == remote["tables"]


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--grid", "weekly"], "neither a grid name"),
        (["--runs", "0"], "--runs must be a positive integer"),
        (["--workers", "0"], "--workers must be a positive integer"),
        (["--algorithms", "sysrs,magic"], "magic"),
        (["--scheduler", "not-an-address"], "cannot reach the Dask scheduler"),
    ],
)
def test_cli_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], pattern: str) -> None:
    data = make_data_folder(tmp_path / "data")
    status = main(["reproduce", "--data", str(data), "--out", str(tmp_path / "out"), "--grid", "table", *extra])
    err = capsys.readouterr().err
    assert status == 2 and pattern in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_mistakes_with_folders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert "not a directory" in capsys.readouterr().err
    data = make_data_folder(tmp_path / "data")
    (tmp_path / "file").write_text("")
    assert main(["reproduce", "--data", str(data), "--out", str(tmp_path / "file"), "--grid", "table"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_ctrl_c_keeps_the_cache_and_says_how_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = make_data_folder(tmp_path / "data")
    out = tmp_path / "out"
    real = engine._piece
    calls: list[int] = []

    def interrupted(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(engine, "_piece", interrupted)
    argv = ["reproduce", "--data", str(data), "--out", str(out), "--grid", "table", "--runs", "6", "--no-plots"]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert re.search(r"interrupted: the finished cells are cached in .*cache: run the same command again", err)
    monkeypatch.setattr(engine, "_piece", real)
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["computed"], payload["cached"]) == (10, 10)  # two of four jobs (one piece each) had finished


def test_progress_counts_the_cells_to_compute(tmp_path: Path) -> None:
    data = make_data_folder(tmp_path / "data")
    seen: list[tuple[int, int, int]] = []
    steps: list[int] = []

    def progress(total: int, cached: int, reused: int) -> Callable[[int], None]:
        seen.append((total, cached, reused))
        return steps.append

    reproduce(data, tmp_path / "out", grid="table", runs=4, algorithms="sysrs,sr,syus", plots=False, progress=progress)
    assert seen == [(6 * 4, 0, 0)] and sum(steps) == 6 * 4 and len(steps) == 4  # runs of cells; a piece per job
    reproduce(
        data, tmp_path / "out", grid="table", runs=4, algorithms="sysrs,sr,syus,us", plots=False, progress=progress
    )
    assert seen[-1] == (2 * 4, 6, 0) and sum(steps) == 8 * 4  # only us is new


def test_cli_progress_bar_on_a_terminal_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    data = make_data_folder(tmp_path / "data")
    for number, quiet in enumerate((False, True)):
        terminal = Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        argv = [
            "reproduce",
            "--data",
            str(data),
            "--out",
            str(tmp_path / f"out{number}"),
            "--grid",
            "table",
            "--runs",
            "3",
            "--algorithms",
            "sysrs,syus",
            "--no-plots",
            "--json",
        ]
        status = main(argv + (["--quiet"] if quiet else []))
        monkeypatch.undo()
        assert status == 0 and json.loads(capsys.readouterr().out)["computed"] == 4
        drawn = terminal.getvalue()
        if quiet:
            assert drawn == ""
        else:
            assert drawn.startswith("\rruns of cells (0 cells cached) [") and "12/12" in drawn and drawn.endswith("\n")
