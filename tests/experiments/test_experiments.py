"""Cells, grids, the cache and its resumption, and the executors of sysrs_ref.experiments."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref import load_scores, simulate
from sysrs_ref.datasets import Dataset, find_datasets
from sysrs_ref.errors import BudgetError, InstanceError, ParameterError, UnknownAlgorithmError
from sysrs_ref.experiments import (
    Cache,
    Config,
    Point,
    cells,
    paper_configs,
    parse_configs,
    parse_grid,
    plan,
    run_cells,
)
from sysrs_ref.experiments._paper import PAPER_GRID
from sysrs_ref.simulation import run_jobs
from tests.small_data import SMALL, make_data_folder

GRID = parse_grid("table")


@pytest.fixture()
def data(tmp_path: Path) -> list[Dataset]:
    return find_datasets(make_data_folder(tmp_path / "data"))


def test_configs_and_their_labels() -> None:
    assert [c.label for c in paper_configs()] == [
        "us",
        "syus",
        "sr",
        "sysrs",
        "ucbe(a=0.1)",
        "ucbe(a=1)",
        "ucbe(a=10)",
        "syucbe(a=0.1)",
        "syucbe(a=1)",
        "syucbe(a=10)",
    ]
    assert parse_configs("ucbe:a=0.10") == (Config("ucbe", (("a", Fraction(1, 10)),)),)  # exact: 0.10 is 0.1
    assert [c.label for c in parse_configs("paper,ucbe:a=100")][-1] == "ucbe(a=100)"
    assert Config.of("syucbe", a=Fraction(1, 3)).label == "syucbe(a=1/3)"


@pytest.mark.parametrize(
    ("text", "error", "pattern"),
    [
        ("sysrs,nope", UnknownAlgorithmError, "nope"),
        ("sysrs:a=1", ParameterError, "sysrs has no parameter 'a'"),
        ("ucbe:a", ParameterError, "key=value"),
        ("ucbe:a=-1", ParameterError, "positive"),
        ("sysrs,,sr", ParameterError, "empty item"),
        ("paper,sysrs", ParameterError, "sysrs more than once"),
    ],
)
def test_bad_algorithm_lists_are_refused(text: str, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        parse_configs(text)


def test_grids(tmp_path: Path) -> None:
    assert len(parse_grid("paper")) == len(PAPER_GRID) == 107
    assert parse_grid("paper")[:4] == (Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(7, 4))
    grid_file = tmp_path / "grid.txt"
    grid_file.write_text("# my grid\n20%\n\n1.25  # small\n100\n")
    assert parse_grid(str(grid_file)) == (Fraction(5, 4), Fraction(20), Fraction(100))


@pytest.mark.parametrize(
    ("content", "pattern"),
    [("", "holds no budget"), ("12%\n12\n", "twice"), ("12%\nabc\n", "line 2"), ("150%\n", "line 1")],
)
def test_bad_grid_files_are_refused(tmp_path: Path, content: str, pattern: str) -> None:
    grid_file = tmp_path / "grid.txt"
    grid_file.write_text(content)
    with pytest.raises(ParameterError, match=pattern):
        parse_grid(str(grid_file))


def test_an_unknown_grid_name_or_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match=r"neither a grid name \(paper, table, topm, lrf\)"):
        parse_grid(str(tmp_path / "missing.txt"))


def test_a_grid_point_too_small_for_a_dataset_is_named(tmp_path: Path) -> None:
    folder = make_data_folder(tmp_path / "data")
    datasets = find_datasets(folder)
    with pytest.raises(BudgetError, match="dataset 'bravo'"):  # 1% of 9 x 80 = 7 evaluations < K = 9
        plan(datasets, paper_configs(), (Fraction(1),), 5, 0, Cache(tmp_path / "out"))


def test_a_changed_file_is_refused_by_its_checksum(tmp_path: Path) -> None:
    folder = make_data_folder(tmp_path / "data")
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    manifest["alpha"]["sha256"] = "0" * 64
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(InstanceError, match="does not match the sha256"):
        find_datasets(folder)


def test_a_task_computes_what_simulate_computes(data: list[Dataset]) -> None:
    dataset = data[0]
    instance = load_scores(dataset.path)
    for synchronized in (True, False):
        configs = tuple(c for c in paper_configs() if c.synchronized == synchronized)
        jobs, _ = plan([dataset], configs, GRID, 40, 7, Cache(dataset.path.parent / "unused"))
        (job,) = [j for j in jobs if j.synchronized == synchronized]
        (result,) = run_jobs([job], {})
        for config in configs:
            expected = simulate(instance, config.algorithm, [f"{p}%" for p in GRID], 40, 7, **dict(config.params))  # type: ignore[arg-type]  # only parameters
            assert result[config].correct.tolist() == [row.correct for row in expected.rows]
            assert result[config].spent_max.tolist() == [row.spent_max for row in expected.rows]


def test_cache_round_trip_and_key(tmp_path: Path, data: list[Dataset]) -> None:
    cache, config = Cache(tmp_path), Config.of("sysrs")
    point = Point(Fraction(12), 86, 17, 20, 86)
    assert cache.get(data[0], config, Fraction(12), 20, 3) is None
    cache.put(data[0], config, point, 3)
    assert cache.get(data[0], config, Fraction(12), 20, 3) == point
    assert list(cache.root.rglob("*.tmp")) == []  # the temporary file was renamed into place
    other = Dataset(data[0].name, data[0].path, "f" * 64)  # same name, another file
    assert cache.get(other, config, Fraction(12), 20, 3) is None
    assert cache.get(data[0], config, Fraction(12), 20, 4) is None  # another seed
    cache.path(data[0], config, Fraction(12), 20, 3).write_text("{ truncated")
    assert cache.get(data[0], config, Fraction(12), 20, 3) is None  # unreadable: recomputed, not trusted


def test_resume_computes_only_what_is_missing(tmp_path: Path, data: list[Dataset]) -> None:
    cache, configs = Cache(tmp_path / "out"), paper_configs()
    tasks, done = plan(data, configs, GRID, 10, 0, cache)
    assert (len(tasks), done) == (4, 0)  # two datasets x two kinds of draw
    run_cells(tasks, cache, GRID)
    assert plan(data, configs, GRID, 10, 0, cache) == ([], 20)
    cache.path(data[1], Config.of("sr"), GRID[3], 10, 0).unlink()
    tasks, done = plan(data, configs, GRID, 10, 0, cache)
    assert done == 19 and [(t.source and t.source.name, [c.label for c in t.configs]) for t in tasks] == [
        ("bravo", ["sr"])
    ]
    assert plan(data, configs, GRID, 11, 0, cache)[1] == 0  # other R: nothing cached


def test_an_interruption_keeps_every_finished_cell(tmp_path: Path, data: list[Dataset]) -> None:
    cache, configs = Cache(tmp_path / "out"), paper_configs()
    tasks, _ = plan(data, configs, GRID, 10, 0, cache)
    finished: list[int] = []

    def progress(count: int) -> None:
        finished.append(count)
        if len(finished) == 2:
            raise KeyboardInterrupt  # Ctrl-C after the second job (one piece each) was recorded

    with pytest.raises(KeyboardInterrupt):
        run_cells(tasks, cache, GRID, progress=progress)
    remaining, done = plan(data, configs, GRID, 10, 0, cache)
    assert done == sum(finished) // 10 == 10 and len(remaining) == 2  # progress counts runs of cells
    run_cells(remaining, cache, GRID)
    whole = Cache(tmp_path / "again")
    run_cells(plan(data, configs, GRID, 10, 0, whole)[0], whole, GRID)
    assert list(cells(data, configs, GRID, 10, 0, cache)) == list(cells(data, configs, GRID, 10, 0, whole))


@pytest.mark.slow
def test_worker_processes_give_the_same_cells(tmp_path: Path, data: list[Dataset]) -> None:
    inline, pooled, configs = Cache(tmp_path / "a"), Cache(tmp_path / "b"), paper_configs()
    run_cells(plan(data, configs, GRID, 12, 5, inline)[0], inline, GRID)
    run_cells(plan(data, configs, GRID, 12, 5, pooled)[0], pooled, GRID, workers=2)
    assert list(cells(data, configs, GRID, 12, 5, inline)) == list(cells(data, configs, GRID, 12, 5, pooled))


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_cells(tmp_path: Path, data: list[Dataset]) -> None:
    import distributed  # the dev extra installs it: a missing Dask fails this test, it is not skipped

    inline, remote, configs = Cache(tmp_path / "a"), Cache(tmp_path / "b"), paper_configs()
    run_cells(plan(data, configs, GRID, 12, 5, inline)[0], inline, GRID)
    with distributed.LocalCluster(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        run_cells(plan(data, configs, GRID, 12, 5, remote)[0], remote, GRID, scheduler=cluster.scheduler_address)
    assert list(cells(data, configs, GRID, 12, 5, inline)) == list(cells(data, configs, GRID, 12, 5, remote))


def test_cells_refuses_an_incomplete_cache(tmp_path: Path, data: list[Dataset]) -> None:
    with pytest.raises(ParameterError, match="no result for alpha us"):
        list(cells(data, paper_configs(), GRID, 10, 0, Cache(tmp_path)))


def test_small_data_matches_its_description(data: list[Dataset]) -> None:
    assert {d.name: load_scores(d.path).shape for d in data} == {n: (k, l) for n, (k, l, _) in SMALL.items()}
