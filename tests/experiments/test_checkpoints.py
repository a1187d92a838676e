"""reproduce's checkpoints: an interrupted cell keeps its finished runs, and the resumed cell is the uninterrupted one."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sysrs_ref.cli import main
from sysrs_ref.datasets import find_datasets
from sysrs_ref.errors import ParameterError
from sysrs_ref.experiments import Cache, Config, _plan, parse_grid, plan, reproduce, run_cells
from sysrs_ref.experiments._checkpoint import Checkpoints, Made, Unsaved
from sysrs_ref.experiments._entry import entry_checksum
from sysrs_ref.simulation import CellResult, Job, _engine as engine, run_jobs
from tests.small_data import make_data_folder

#: 150 runs of SySRs and SR: pieces of 75 runs (the engine's share of 4 jobs), so two pieces per cell.
CHEAP: dict[str, Any] = {"grid": "table", "algorithms": "sysrs,sr", "runs": 150, "plots": False}

#: A small UCB-E-LRF ensemble, so that a run takes milliseconds; each piece is one run.
LRF = "ucbe-lrf:members=4:sweeps=2,ucbe-lrf:members=4:sweeps=2:warmup=0"


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    return make_data_folder(tmp_path / "data")


def _results(out: Path) -> tuple[object, object]:
    found = json.loads((out / "results.json").read_text())
    return found["cells"], found["tables"]


def _checkpoint_files(out: Path) -> list[Path]:
    return sorted(path for path in (out / "cache").rglob("partial-*/*.json"))


@pytest.fixture()
def interrupt_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], None]]:
    """Each piece checkpointed as it finishes, and Ctrl-C right after the k-th checkpoint is written."""
    real = Checkpoints.put

    def arm(k: int) -> None:
        monkeypatch.setattr(_plan, "CHECKPOINT_SECONDS", 0.0)
        written: list[int] = []

        def put(self: Checkpoints, *args: Any, **kwargs: Any) -> None:
            real(self, *args, **kwargs)
            written.append(1)
            if len(written) == k:
                raise KeyboardInterrupt

        monkeypatch.setattr(Checkpoints, "put", put)

    yield arm
    monkeypatch.undo()


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_set_resumes_to_the_uninterrupted_tables(
    tmp_path: Path, data: Path, interrupt_after: Callable[[int], None], monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    whole = reproduce(data, tmp_path / "whole", **CHEAP)
    assert whole.reused == 0 and _checkpoint_files(tmp_path / "whole") == []  # a finished cell keeps no checkpoint
    out = tmp_path / "cut"
    interrupt_after(2)  # alpha's SySRs (its first piece checkpointed, its last cached), then SR's first piece
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, out, **CHEAP)
    monkeypatch.undo()
    assert [path.name for path in _checkpoint_files(out)] == ["0-75.json"]  # alpha's SR: its first piece
    seen: list[tuple[int, int, int]] = []
    made: list[int] = []

    def progress(total: int, cached: int, reused: int) -> Callable[[int], None]:
        seen.append((total, cached, reused))
        return made.append

    again = reproduce(data, out, workers=workers, progress=progress, **CHEAP)
    assert seen == [(3 * 150, 1, 75)]  # alpha's SySRs came from the cache, 75 runs of SR from its checkpoint
    assert sum(made) == 3 * 150 - 75 and (again.computed, again.cached, again.reused) == (3, 1, 75)
    assert _results(out) == _results(tmp_path / "whole")
    assert _checkpoint_files(out) == []


def test_a_resumed_lrf_set_makes_only_its_missing_runs(
    tmp_path: Path, data: Path, interrupt_after: Callable[[int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = tmp_path / "grid.txt"
    grid.write_text("10%\n30%\n")
    settings: dict[str, Any] = {"grid": str(grid), "algorithms": LRF, "runs": 3, "plots": False, "data": data}
    reproduce(out=tmp_path / "whole", **settings)
    interrupt_after(4)  # one run per piece, both variants per piece: alpha's runs 0 and 1 of both variants
    with pytest.raises(KeyboardInterrupt):
        reproduce(out=tmp_path / "cut", **settings)
    monkeypatch.undo()
    assert len(_checkpoint_files(tmp_path / "cut")) == 4
    real = engine._piece
    runs: list[int] = []

    def counted(job: Job, start: int, stop: int, *rest: Any) -> Any:
        runs.extend(run for run in range(start, stop) for _ in job.configs)
        return real(job, start, stop, *rest)

    monkeypatch.setattr(engine, "_piece", counted)
    again = reproduce(out=tmp_path / "cut", **settings)
    assert again.reused == 2 * 2 and sorted(runs) == [0, 0, 1, 1, 2, 2, 2, 2]  # alpha's run 2, bravo's 0..2
    assert _results(tmp_path / "cut") == _results(tmp_path / "whole")


@pytest.mark.slow
def test_a_set_interrupted_locally_resumes_on_a_dask_cluster(
    tmp_path: Path, data: Path, interrupt_after: Callable[[int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    import distributed  # the dev extra installs it

    reproduce(data, tmp_path / "whole", **CHEAP)
    interrupt_after(2)
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, tmp_path / "cut", workers=2, **CHEAP)
    monkeypatch.undo()
    assert _checkpoint_files(tmp_path / "cut") != []
    with distributed.LocalCluster(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        again = reproduce(data, tmp_path / "cut", scheduler=cluster.scheduler_address, **CHEAP)
    assert again.reused > 0 and _results(tmp_path / "cut") == _results(tmp_path / "whole")


def _damage_edit(path: Path) -> None:
    entry = json.loads(path.read_text())
    entry["correct"][0] += 1  # one more correct run: the checksum no longer matches
    path.write_text(json.dumps(entry))


def _damage_impossible(path: Path) -> None:
    entry = json.loads(path.read_text())
    entry["correct"][0] = 76  # more correct runs than the piece's 75, with a checksum that matches
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry))


def _damage_range(path: Path) -> None:
    entry = json.loads(path.read_text())
    entry["stop"] = 151  # runs past R
    entry["checksum"] = entry_checksum(entry)
    path.write_text(json.dumps(entry))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda path: path.write_text(path.read_text()[:40]), "is not valid JSON"),
        (lambda path: path.write_bytes(b"\xff\xfe\x00"), "cannot read the checkpoint"),
        (_damage_edit, "does not match its checksum"),
        (_damage_impossible, 'says "correct" = 76 at a budget, outside [0, 75]'),
        (_damage_range, 'says "stop" = 151, outside [1, 150]'),
    ],
)
def test_a_damaged_checkpoint_is_ignored_with_a_warning_and_its_runs_made_again(
    tmp_path: Path,
    data: Path,
    interrupt_after: Callable[[int], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[Path], None],
    reason: str,
) -> None:
    reproduce(data, tmp_path / "whole", **CHEAP)
    interrupt_after(2)
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, tmp_path / "cut", **CHEAP)
    monkeypatch.undo()
    (checkpoint,) = _checkpoint_files(tmp_path / "cut")
    damage(checkpoint)
    (checkpoint.parent / ".0-75.json.x1y2.tmp").write_text("{")  # a write cut short by SIGKILL: never read
    capsys.readouterr()
    again = reproduce(data, tmp_path / "cut", **CHEAP)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"'{checkpoint}'" in err[0] and reason in err[0] and "made again" in err[0]
    assert again.reused == 0 and _results(tmp_path / "cut") == _results(tmp_path / "whole")
    assert _checkpoint_files(tmp_path / "cut") == [] and not checkpoint.parent.exists()


def test_an_out_of_date_checkpoint_is_ignored_silently(
    tmp_path: Path, data: Path, interrupt_after: Callable[[int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupt_after(2)
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, tmp_path / "cut", **CHEAP)
    monkeypatch.undo()
    (checkpoint,) = _checkpoint_files(tmp_path / "cut")
    entry = json.loads(checkpoint.read_text())
    entry["key"]["version"] = "0.0.1"  # written by another version of the package
    entry["checksum"] = entry_checksum(entry)
    checkpoint.write_text(json.dumps(entry))
    warnings: list[str] = []
    datasets = find_datasets(data)
    cache = Cache(tmp_path / "cut", warn=warnings.append)
    jobs, _ = plan(datasets, (Config.of("sysrs"), Config.of("sr")), parse_grid("table"), 150, 0, cache)
    assert warnings == [] and len(jobs) == 3 and all(job.todo is None for job in jobs)


def test_overlapping_checkpoints_are_counted_once(tmp_path: Path, data: Path) -> None:
    """Two intact checkpoints sharing runs (one was once unreadable, so its runs were made again): one is kept."""
    (dataset, *_) = find_datasets(data)
    grid, config = parse_grid("table"), Config.of("sysrs")
    budgets = (58, 86, 115, 144, 180, 216, 252)
    checkpoints = Checkpoints(tmp_path / "cache")

    def piece(correct: int) -> CellResult:
        return CellResult(np.full(len(budgets), correct, dtype=np.int64), np.asarray(budgets, dtype=np.int64) - 1)

    checkpoints.put(dataset, config, grid, 20, 0, (0, 5), piece(5))
    checkpoints.put(dataset, config, grid, 20, 0, (0, 10), piece(9))
    checkpoints.put(dataset, config, grid, 20, 0, (5, 12), piece(7))
    checkpoints.put(dataset, config, grid, 20, 0, (12, 15), piece(3))
    made = checkpoints.read(dataset, config, grid, budgets, 20, 0)
    assert made.ranges == ((0, 10), (12, 15)) and made.correct == (12,) * 7 and made.todo(20) == ((10, 12), (15, 20))


def test_made_adds_to_a_cell_and_leaves_the_gaps() -> None:
    made = Made(((0, 4), (6, 10)), (5, 7), (9, 12), ())
    assert made.todo(10) == ((4, 6),) and made.todo(12) == ((4, 6), (10, 12))
    whole = made.added_to(CellResult(np.array([1, 2]), np.array([10, 3])))
    assert whole.correct.tolist() == [6, 9] and whole.spent_max.tolist() == [10, 12]
    assert Made.nothing(2).todo(3) == ((0, 3),)


def test_jobs_not_planned_on_the_checkpoints_are_refused(tmp_path: Path, data: Path) -> None:
    datasets = find_datasets(data)
    cache = Cache(tmp_path / "out")
    (job, *_) = plan(datasets, (Config.of("sysrs"),), parse_grid("table"), 10, 0, cache)[0]
    with pytest.raises(ParameterError, match=r"makes runs \(\(3, 10\),\), but its checkpoints leave \(\(0, 10\),\)"):
        run_cells([replace(job, todo=((3, 10),))], cache, parse_grid("table"))


def test_the_engine_makes_only_the_runs_to_make(data: Path) -> None:
    (dataset, *_) = find_datasets(data)
    sysrs = (Config.of("sysrs"),)
    job = Job("alpha", (6, 120), sysrs, (58, 86), 30, 4, source=dataset)
    (whole,) = run_jobs([job], {})
    pieces: list[tuple[int, int]] = []
    parts = run_jobs(
        [replace(job, todo=((0, 7),)), replace(job, todo=((7, 19), (19, 30)))],
        {},
        chunk=5,
        piece_done=lambda job, start, stop, cells: pieces.append((start, stop)),
    )
    assert pieces == [(0, 5), (7, 12), (12, 17), (17, 19), (19, 24), (24, 29)]  # each job's last goes to done
    assert (parts[0][sysrs[0]].correct + parts[1][sysrs[0]].correct).tolist() == whole[sysrs[0]].correct.tolist()
    nothing = replace(job, todo=())
    done: list[Job] = []
    assert run_jobs([nothing], {}, done=lambda job, cells: done.append(job))[0][sysrs[0]].correct.tolist() == [0, 0]
    assert done == [nothing]  # a job with no run to make is done at once


@pytest.mark.parametrize("todo", [((5, 3),), ((0, 4), (3, 6)), ((0, 31),), ((-1, 2),)])
def test_a_job_refuses_runs_outside_its_range(todo: tuple[tuple[int, int], ...]) -> None:
    with pytest.raises(ParameterError, match=r"increasing, disjoint ranges within 0 \.\. 30"):
        Job("x", (6, 120), (Config.of("sysrs"),), (58,), 30, 0, todo=todo)


def test_the_cli_progress_bar_starts_at_the_runs_from_checkpoints(
    tmp_path: Path,
    data: Path,
    interrupt_after: Callable[[int], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    argv = ["reproduce", "--data", str(data), "--out", str(tmp_path / "out"), "--grid", "table"]
    argv += ["--algorithms", "sysrs,sr", "--runs", "150", "--no-plots"]
    interrupt_after(2)
    assert main(argv) == 130
    monkeypatch.undo()
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(argv) == 0
    monkeypatch.undo()
    drawn = terminal.getvalue()
    assert drawn.startswith("\rruns of cells (1 cell cached, 75 runs from checkpoints) [") and "75/450" in drawn
    assert "450/450" in drawn
    out = capsys.readouterr().out
    assert "3 cells computed (75 of their runs from checkpoints), 1 from the cache" in out


def test_an_interrupted_top_m_study_resumes_to_the_uninterrupted_counts(
    tmp_path: Path, data: Path, interrupt_after: Callable[[int], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The top-m counts of a piece (identification, ranking, wrong positions per m) are checkpointed too."""
    settings: dict[str, Any] = {"grid": "table", "algorithms": "sysrs", "runs": 150, "plots": False}
    settings |= {"top_m": "2,3", "top_m_grid": "table", "top_m_algorithms": "sysrs"}
    reproduce(data, tmp_path / "whole", **settings)
    interrupt_after(5)  # the main study's 2 cells (pieces of 64 runs: 2 checkpoints each), the top-m study's first
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, tmp_path / "cut", **settings)
    monkeypatch.undo()
    (first, *_) = [path for path in _checkpoint_files(tmp_path / "cut") if "-top2_3" in str(path)]
    assert [item[0] for item in json.loads(first.read_text())["top_m"]] == [2, 3]
    again = reproduce(data, tmp_path / "cut", **settings)
    assert (again.reused, again.cached) == (64, 2)
    topm = "topm_results.json"
    assert json.loads((tmp_path / "cut" / topm).read_text()) == json.loads((tmp_path / "whole" / topm).read_text())


def test_cheap_cells_write_checkpoints_only_when_interrupted(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell done within CHECKPOINT_SECONDS writes none; Ctrl-C writes the finished pieces, adjacent ones as one."""
    puts: list[tuple[int, int]] = []
    real = Checkpoints.put

    def counted(self: Checkpoints, *args: Any) -> None:
        puts.append(args[5])
        real(self, *args)

    monkeypatch.setattr(Checkpoints, "put", counted)
    reproduce(data, tmp_path / "whole", **CHEAP)
    assert puts == []
    real_piece = engine._piece
    pieces: list[int] = []

    def interrupted(*args: Any) -> Any:
        pieces.append(1)
        if len(pieces) == 4:  # Ctrl-C while the fourth piece (alpha's SR, runs 75 .. 149) runs
            raise KeyboardInterrupt
        return real_piece(*args)

    monkeypatch.setattr(engine, "_piece", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reproduce(data, tmp_path / "cut", **CHEAP)
    assert puts == [(0, 75)] and [path.name for path in _checkpoint_files(tmp_path / "cut")] == ["0-75.json"]
    monkeypatch.setattr(engine, "_piece", real_piece)
    again = reproduce(data, tmp_path / "cut", **CHEAP)
    assert (again.reused, again.cached) == (75, 1) and _results(tmp_path / "cut") == _results(tmp_path / "whole")


def test_due_pieces_are_written_together(tmp_path: Path, data: Path) -> None:
    (dataset, *_) = find_datasets(data)
    grid, config = parse_grid("table"), Config.of("sysrs")
    job = Job("alpha", (6, 120), (config,), (58, 86, 115, 144, 180, 216, 252), 20, 0, source=dataset)
    now = [0.0]
    unsaved = Unsaved(Checkpoints(tmp_path / "cache"), grid, seconds=10.0, clock=lambda: now[0])

    def piece(start: int, correct: int) -> None:
        cell = CellResult(np.full(7, correct, dtype=np.int64), np.arange(7, dtype=np.int64))
        unsaved.add(dataset, job, start, start + 4, {config: cell})

    piece(4, 1)
    now[0] = 9.0
    piece(0, 2)
    assert _checkpoint_files(tmp_path) == []  # not due yet
    now[0] = 10.0
    piece(12, 3)  # due: runs 0 .. 7 as one checkpoint, 12 .. 15 as another
    assert [path.name for path in _checkpoint_files(tmp_path)] == ["0-8.json", "12-16.json"]
    made = Checkpoints(tmp_path / "cache").read(dataset, config, grid, job.budgets, 20, 0)
    assert made.ranges == ((0, 8), (12, 16)) and made.correct == (6,) * 7
    now[0] = 15.0
    piece(8, 4)
    unsaved.drop(job)  # the job is done: nothing more is written
    unsaved.flush()
    assert len(_checkpoint_files(tmp_path)) == 2
