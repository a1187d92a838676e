"""reproduce with UCB-E-LRF: on a Dask cluster as locally, and resumed from its cache without refitting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sysrs_ref.cli import main
from sysrs_ref.simulation import _engine as engine
from tests.small_data import make_data_folder

#: A small ensemble, so that a run takes milliseconds; the paper's settings only cost more.
LRF = "ucbe-lrf:members=4:sweeps=2,ucbe-lrf:members=4:sweeps=2:warmup=0:unseen_first=1"


def _reproduce(data: Path, out: Path, *extra: str) -> dict[str, object]:
    grid = out.parent / "grid.txt"
    grid.write_text("10%\n30%\n")
    common = ["--data", str(data), "--grid", str(grid), "--algorithms", LRF, "--runs", "3", "--no-plots", "--json"]
    assert main(["reproduce", *common, "--out", str(out), *extra]) == 0
    results: dict[str, object] = json.loads((out / "results.json").read_text())
    return results


def test_lrf_on_a_dask_scheduler_gives_the_local_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import distributed  # the dev extra installs it

    data = make_data_folder(tmp_path / "data")
    local = _reproduce(data, tmp_path / "local")
    with distributed.LocalCluster(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        remote = _reproduce(data, tmp_path / "dask", "--scheduler", cluster.scheduler_address)
    capsys.readouterr()
    assert local["cells"] == remote["cells"] and local["tables"] == remote["tables"]


def test_lrf_resumes_from_its_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second reproduce into the same folder reads every LRF cell from the cache: no run is made again."""
    data = make_data_folder(tmp_path / "data")
    first = _reproduce(data, tmp_path / "out")

    def refit(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cached UCB-E-LRF cell was run again")

    monkeypatch.setattr(engine, "lrf_rankings", refit)
    again = _reproduce(data, tmp_path / "out")
    capsys.readouterr()
    assert again["cells"] == first["cells"] and again["tables"] == first["tables"]
