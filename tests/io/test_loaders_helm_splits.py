"""HELM runs that score instances of several splits: the test split by default, --split to choose, ids that say it.

HELM classic's ``mmlu`` and ``narrative_qa`` runs score their few ``valid``
instances beside the ``test`` ones, each stat naming its split
(``{"name": {"name": "exact_match", "split": "valid"}, ...}``); HELM's tables
report ``test``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.cli import main
from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders import convert, load_helm

RUN = "mmlu:subject=anatomy,method=multiple_choice_joint"


def _entry(instance: str, split: str, value: float) -> dict[str, object]:
    """One per_instance_stats.json entry, as HELM classic writes it (stats of one split)."""
    stats = [
        {
            "name": {"name": name, "split": split},
            "count": 1,
            "sum": value,
            "sum_squared": value,
            "min": value,
            "max": value,
            "mean": value,
        }
        for name in ("exact_match", "quasi_exact_match")
    ]
    return {"instance_id": instance, "train_trial_index": 0, "stats": stats}


def _run(root: Path, model: str, test: list[float], valid: list[float], split: str = "valid") -> Path:
    """A run of *model* scoring test instances id10, id11, ... and *split* instances id0, id1, ..."""
    folder = root / "benchmark_output" / "runs" / "v0.2.2" / f"{RUN},model={model}"
    folder.mkdir(parents=True)
    spec = {"name": f"{RUN},model={model}", "adapter_spec": {"model": model.replace("_", "/", 1)}}
    (folder / "run_spec.json").write_text(json.dumps(spec))
    entries = [_entry(f"id{index}", split, value) for index, value in enumerate(valid)]
    entries += [_entry(f"id{10 + index}", "test", value) for index, value in enumerate(test)]
    (folder / "per_instance_stats.json").write_text(json.dumps(entries))
    return folder


@pytest.fixture
def both_splits(tmp_path: Path) -> Path:
    """Two models' runs, each with 9 test instances and 1 valid one (HELM reports 1/9 and 5/9 on test)."""
    _run(tmp_path, "openai_davinci", [1, 0, 0, 0, 0, 0, 0, 0, 0], [0])
    _run(tmp_path, "openai_curie", [1, 1, 1, 1, 1, 0, 0, 0, 0], [1])
    return tmp_path


def test_the_test_split_is_read_by_default_as_helms_tables(both_splits: Path) -> None:
    table = load_helm(both_splits, metric="exact_match")
    assert table.models == ("openai/curie", "openai/davinci")
    assert table.queries == tuple(f"{RUN}/id{10 + index}" for index in range(9))
    assert [Fraction(sum(row.tolist())) / 9 for row in table.scores] == [Fraction(5, 9), Fraction(1, 9)]
    assert (
        table.files[0].note
        == "split test (9 instances); left out: valid (1 instance) (--split NAME or --split all reads them)"
    )
    assert "split" in table.settings


def test_split_valid_reads_only_valid_with_the_split_in_the_ids(both_splits: Path) -> None:
    table = convert("helm", [both_splits], metric="exact_match", split="valid")
    assert table.queries == (f"{RUN}/valid/id0",)
    assert table.scores.tolist() == [[1.0], [0.0]]
    assert dict(table.settings)["split"] == "valid"


def test_split_all_keeps_both_as_distinct_queries(both_splits: Path) -> None:
    table = load_helm(both_splits, metric="exact_match", split="all")
    assert table.shape == (2, 10)
    assert table.queries[0] == f"{RUN}/valid/id0" and f"{RUN}/id10" in table.queries


def test_a_run_of_splits_without_test_needs_a_choice(tmp_path: Path) -> None:
    folder = _run(tmp_path, "openai_davinci", [], [1, 0], split="valid")
    stats = json.loads((folder / "per_instance_stats.json").read_text())
    stats.append(_entry("id5", "train", 1))
    (folder / "per_instance_stats.json").write_text(json.dumps(stats))
    with pytest.raises(LoaderError, match=r"2 splits \(train, valid\) and none is 'test'.*--split NAME"):
        load_helm(tmp_path, metric="exact_match")
    assert load_helm(tmp_path, metric="exact_match", split="train").queries == (f"{RUN}/train/id5",)


def test_a_run_with_one_split_other_than_test_is_read_on_it_and_says_so(tmp_path: Path) -> None:
    _run(tmp_path, "openai_davinci", [], [1, 0])
    table = load_helm(tmp_path, metric="exact_match")
    assert table.queries == (f"{RUN}/valid/id0", f"{RUN}/valid/id1")
    assert table.files[0].note == "split valid (2 instances) (the run has no test split)"


def test_a_split_no_run_has_is_refused_and_a_run_without_it_left_out(tmp_path: Path) -> None:
    _run(tmp_path, "openai_davinci", [1], [0])
    with pytest.raises(
        LoaderError, match="--split 'train': no run read has instances of that split; their splits are test, valid"
    ):
        load_helm(tmp_path, metric="exact_match", split="train")
    _run(tmp_path / "b", "openai_curie", [1], [], split="valid")
    table = load_helm(tmp_path, metric="exact_match", split="valid", missing="drop-models")
    assert [use.used for use in table.files] == [False, True]
    assert "no instance of split 'valid' (--split); its splits are test" in table.files[0].note


def test_the_command_line_takes_split(both_splits: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.npy"
    code = main(
        [
            "convert",
            "--from",
            "helm",
            str(both_splits),
            "--metric",
            "exact_match",
            "--split",
            "valid",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code in (0, None)
    report = json.loads(capsys.readouterr().out)
    assert report["queries"] == 1 and report["settings"]["split"] == "valid"
