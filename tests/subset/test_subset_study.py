"""``reproduce --subset-selection``: the files, numbers equal to the comparison functions, the cache, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.cli import _reproduce as reproduce_cli, main
from sysrs_ref.experiments import _subset_study as study_module
from sysrs_ref.experiments._reproduce import reproduce
from sysrs_ref.experiments._subset_comparison import full_matrix_comparison, held_out_comparison
from sysrs_ref.experiments._subset_study import SubsetSettings
from sysrs_ref.loaders import load_scores
from tests.small_data import make_data_folder

SETTINGS = SubsetSettings(seeds=2, splits=2, dims=(2,), sysrs_runs=20, seed=3, epochs=60, budgets=("10%", "30%"))


@pytest.mark.slow
def test_files_numbers_and_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = make_data_folder(tmp_path / "data")
    out = tmp_path / "out"
    outcome = reproduce(
        data, out, grid="table", algorithms="sysrs", runs=20, seed=3, plots=True, subset_selection=SETTINGS
    )
    names = {path.name for path in outcome.files}
    assert {"subset_selection.json", "subset_selection.csv", "subset_selection.md", "subset_selection.png"} <= names
    document = json.loads((out / "subset_selection.json").read_text())
    for name in ("alpha", "bravo"):
        instance = load_scores(data / f"{name}.npy")
        full = full_matrix_comparison(
            instance,
            budgets=SETTINGS.budgets,
            seeds=2,
            dims=(2,),
            sysrs_runs=20,
            seed=3,
            epochs=60,
            kmedoids="alternate",
        )  # the study's default
        held = held_out_comparison(
            instance,
            budgets=SETTINGS.budgets,
            splits=2,
            dims=(2,),
            sysrs_runs=10,
            seed=3,
            epochs=60,
            kmedoids="alternate",
        )
        for protocol, cells in (("full", full), ("held-out", held)):
            stored = [
                (c["label"], c["budget_pct"], c["correct"], c["runs"])
                for c in document["cells"]
                if (c["dataset"], c["protocol"]) == (name, protocol)
            ]
            assert stored == [(c.label, c.budget_pct, c.correct, c.runs) for c in cells]
    mean = next(
        m for m in document["mean_error"] if (m["protocol"], m["label"], m["budget_pct"]) == ("full", "sysrs", "10%")
    )
    by_dataset = [
        c["error"]
        for c in document["cells"]
        if (c["protocol"], c["label"], c["budget_pct"]) == ("full", "sysrs", "10%")
    ]
    assert mean["error"] == pytest.approx(sum(by_dataset) / 2, abs=1e-15)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("recomputed a cached comparison")

    monkeypatch.setattr(study_module, "_compute", refuse)
    reproduce(data, out, grid="table", algorithms="sysrs", runs=20, seed=3, plots=False, subset_selection=SETTINGS)
    assert json.loads((out / "subset_selection.json").read_text())["cells"] == document["cells"]


@pytest.mark.slow
def test_cli_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The --subset-* options reach the study's settings (with the test's few epochs and budgets; the
    comparisons themselves are :func:`test_files_numbers_and_cache`'s)."""

    def cheap(**options: Any) -> SubsetSettings:
        return SubsetSettings(**options, epochs=SETTINGS.epochs, budgets=SETTINGS.budgets)

    monkeypatch.setattr(reproduce_cli, "SubsetSettings", cheap)
    data = make_data_folder(tmp_path / "data")
    base = [
        "reproduce",
        "--data",
        str(data),
        "--out",
        str(tmp_path / "out"),
        "--grid",
        "table",
        "--algorithms",
        "sysrs",
        "--runs",
        "10",
        "--quiet",
        "--no-plots",
        "--subset-selection",
    ]
    for extra, message in (
        (["--subset-dims", "1,2"], "distinct integers of at least 2"),
        (["--subset-dims", "a"], "must be integers"),
        (["--subset-seeds", "0"], "--subset-seeds must be a positive integer"),
    ):
        assert main(base + extra) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert main(base + ["--subset-seeds", "1", "--subset-splits", "1", "--subset-dims", "2", "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert any(path.endswith("subset_selection.md") for path in files)
    settings = json.loads((tmp_path / "out" / "subset_selection.json").read_text())["settings"]
    assert (settings["seeds"], settings["splits"], settings["dims"], settings["kmedoids"]) == (1, 1, [2], "alternate")
    assert (settings["sysrs_runs"], settings["epochs"], settings["budgets"]) == (10, 60, ["10%", "30%"])
    assert (
        main(
            base
            + [
                "--subset-seeds",
                "1",
                "--subset-splits",
                "1",
                "--subset-dims",
                "2",
                "--subset-kmedoids",
                "fasterpam",
                "--quiet",
            ]
        )
        == 0
    )
    stored = json.loads((tmp_path / "out" / "subset_selection.json").read_text())
    assert stored["settings"]["kmedoids"] == "fasterpam"  # another setting: recomputed, not read from the cache
    assert "k-medoids by fasterpam" in (tmp_path / "out" / "subset_selection.md").read_text()


@pytest.mark.slow
def test_workers_change_nothing(tmp_path: Path) -> None:
    """Two processes compute the same cells, written in the same order, as one."""
    data = make_data_folder(tmp_path / "data")
    one = reproduce(
        data, tmp_path / "one", grid="table", algorithms="sysrs", runs=10, plots=False, subset_selection=SETTINGS
    )
    two = reproduce(
        data,
        tmp_path / "two",
        grid="table",
        algorithms="sysrs",
        runs=10,
        plots=False,
        workers=2,
        subset_selection=SETTINGS,
    )
    assert one.computed == two.computed
    first, second = (
        json.loads((path / "subset_selection.json").read_text()) for path in (tmp_path / "one", tmp_path / "two")
    )
    assert first["cells"] == second["cells"] and first["mean_error"] == second["mean_error"]
