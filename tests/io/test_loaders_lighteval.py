"""lighteval details and the Open LLM Leaderboard's details (parquet) read into a leaderboard matrix.

The files are written here as lighteval writes them (``EvaluationTracker``:
``details/<model>/<date>/details_<task>_<date>.parquet``, the columns of its
``Detail`` sorted by name) and as the leaderboard published them, one dataset
per model, ``details_<org>__<model>/<date>/details_harness|arc:challenge|25_<date>.parquet``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sysrs_ref.cli import main
from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders import convert, load_lighteval, load_lm_eval

DATE = "2023-09-03T10-57-04.203304"
TASK = "harness|arc:challenge|25"
LEADERBOARD = {  # model: acc_norm of each of 6 questions
    "org/model-a": [1, 1, 0, 1, 1, 0],
    "org/model-b": [1, 0, 0, 1, 0, 0],
    "other/model-c": [1, 1, 1, 1, 0, 1],
    "other/model-d": [0, 0, 0, 1, 0, 0],
}


def _old_row(number: int, acc_norm: int, *, as_text: bool = False) -> dict[str, object]:
    """A row of lighteval before 0.10 (the leaderboard's details): Detail's fields, ``metrics`` the scores."""
    metrics = {"acc": float(acc_norm), "acc_norm": float(acc_norm)}
    return {
        "choices": [" A", " B", " C", " D"],
        "cont_tokens": [[317], [347], [327], [360]],
        "example": f"Question: question {number}?\nAnswer:",
        "full_prompt": f"(25 shots)\nQuestion: question {number}?\nAnswer:",
        "gold": [],
        "gold_index": [number % 4],
        "input_tokens": [[1, 2, 3]],
        "instruction": "",
        "metrics": str(metrics) if as_text else metrics,
        "num_asked_few_shots": 25,
        "num_effective_few_shots": 25,
        "padded": [0, 0, 0, 0],
        "pred_logits": [],
        "predictions": [[-1.5, False], [-2.0, False], [-3.0, False], [-2.5, False]],
        "specifics": None,
        "truncated": [0, 0, 0, 0],
    }


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _leaderboard(root: Path, models: dict[str, list[int]] = LEADERBOARD, date: str = DATE) -> Path:
    """One leaderboard details dataset per model, as downloaded: details_<org>__<model>/<date>/..."""
    for model, values in models.items():
        dataset = root / f"details_{model.replace('/', '__')}"
        rows = [_old_row(number, value) for number, value in enumerate(values)]
        _write(dataset / date / f"details_{TASK}_{date}.parquet", rows)
        (dataset / f"results_{date}.json").write_text(json.dumps({"config_general": {"model_name": model}}))
    return root


def _new_row(sample_id: str, em: float) -> dict[str, object]:
    """A row of lighteval 0.10 and later: ``doc``, ``metric``, ``model_response``."""
    doc = {"query": f"What is {sample_id}?", "choices": ["7"], "gold_index": 0, "id": sample_id, "task_name": "gsm8k"}
    response = {"text": ["7"], "input_tokens": [1, 2], "output_tokens": [[3]], "logprobs": []}
    return {"doc": doc, "metric": {"extractive_match": em}, "model_response": response}


def test_a_leaderboard_folder_of_four_models_converts_and_select_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _leaderboard(tmp_path / "details")
    out = tmp_path / "arc.npy"
    main(["convert", "--from", "lighteval", str(root), "--metric", "acc_norm", "--out", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert (report["models"], report["queries"]) == (4, 6)
    table = load_lighteval(root, metric="acc_norm")
    assert table.models == tuple(LEADERBOARD)
    assert table.queries == tuple(f"{TASK}/{number}" for number in range(6))
    assert table.scores.tolist() == [[float(v) for v in values] for values in LEADERBOARD.values()]
    assert {use.note for use in table.files} == {"query ids are the row positions"}
    main(["select", "--scores", str(out), "--budget", "100%", "--json"])
    chosen = json.loads(capsys.readouterr().out)
    assert chosen["chosen"] == 2  # other/model-c: 5 of 6


def test_lighteval_details_with_doc_ids_and_a_rerun(tmp_path: Path) -> None:
    for model, values in (("org/a", [1.0, 0.0, 1.0]), ("org/b", [0.0, 0.0, 1.0]), ("org/c", [1.0, 1.0, 1.0])):
        folder = tmp_path / "details" / model / "2025-07-01T09-00-00.000001"
        rows = [_new_row(f"gsm8k_{i}", value) for i, value in reversed(list(enumerate(values)))]
        _write(folder / "details_lighteval|gsm8k|0_2025-07-01T09-00-00.000001.parquet", rows)
    old = (
        tmp_path
        / "details"
        / "org"
        / "a"
        / "2025-06-01T09-00-00.5"
        / "details_lighteval|gsm8k|0_2025-06-01T09-00-00.5.parquet"
    )
    _write(old, [_new_row(f"gsm8k_{i}", 0.0) for i in range(3)])
    table = convert("lighteval", [tmp_path], metric="extractive_match", tasks=["gsm8k"])
    assert table.models == ("org/a", "org/b", "org/c")
    assert table.queries == ("lighteval|gsm8k|0/gsm8k_2", "lighteval|gsm8k|0/gsm8k_1", "lighteval|gsm8k|0/gsm8k_0")
    assert table.scores.tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    left = [use for use in table.files if not use.used]
    assert [Path(use.path) for use in left] == [old]
    assert left[0].note.startswith(
        "an older run of task 'lighteval|gsm8k|0' for model 'org/a' (date 2025-06-01T09-00-00.5)"
    )
    with pytest.raises(LoaderError, match="two different scores"):
        load_lighteval(tmp_path, metric="extractive_match", reruns="merge")


@pytest.mark.parametrize("empty", ["", None])
def test_an_empty_or_missing_doc_id_makes_every_query_id_a_row_position(tmp_path: Path, empty: str | None) -> None:
    """One sample without a usable ``doc.id`` and the file's ids are the rows' positions, none of its ids."""
    for model in ("org/a", "org/b"):
        folder = tmp_path / "details" / model / "2025-07-01T09-00-00.5"
        rows = [_new_row("s0", 1.0), _new_row("s1", 0.0)]
        rows[0]["doc"]["id"] = empty  # type: ignore[index]
        _write(folder / "details_lighteval|gsm8k|0_2025-07-01T09-00-00.5.parquet", rows)
    table = load_lighteval(tmp_path, metric="extractive_match")
    assert table.queries == ("lighteval|gsm8k|0/0", "lighteval|gsm8k|0/1")
    assert {use.note for use in table.files} == {"query ids are the row positions"}


def test_metrics_stored_as_text_are_read(tmp_path: Path) -> None:
    for model in ("org__a", "org__b"):
        path = tmp_path / f"details_{model}" / DATE / f"details_{TASK}_{DATE}.parquet"
        _write(path, [_old_row(0, 1, as_text=True), _old_row(1, 0, as_text=True)])
    assert load_lighteval(tmp_path, metric="acc").scores.tolist() == [[1.0, 0.0], [1.0, 0.0]]


def test_rows_of_other_samples_at_one_position_are_refused(tmp_path: Path) -> None:
    _leaderboard(tmp_path, {"org/a": [1, 0]})
    rows = [_old_row(1, 1), _old_row(0, 0)]  # the same samples, in another order
    _write(tmp_path / "details_org__b" / DATE / f"details_{TASK}_{DATE}.parquet", rows)
    with pytest.raises(LoaderError, match="do not hold the same samples in the same order"):
        load_lighteval(tmp_path, metric="acc")


def test_a_metric_no_file_has_lists_the_metrics(tmp_path: Path) -> None:
    _leaderboard(tmp_path, {"org/a": [1, 0]})
    with pytest.raises(LoaderError, match="no row has metric 'em'; the details have acc, acc_norm"):
        load_lighteval(tmp_path, metric="em")


def test_lighteval_output_given_to_the_lm_eval_reader_is_named(tmp_path: Path) -> None:
    _leaderboard(tmp_path, {"org/a": [1, 0]})
    with pytest.raises(LoaderError, match=r"holds lighteval output .*convert it with --from lighteval"):
        load_lm_eval(tmp_path, metric="acc")


def test_without_pyarrow_the_error_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _leaderboard(tmp_path, {"org/a": [1, 0]})
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import pyarrow.parquet now raises ImportError
    with pytest.raises(
        LoaderError, match=r"needs pyarrow, the optional 'parquet' extra: pip install 'sysrs-ref\[parquet\]'"
    ):
        load_lighteval(tmp_path, metric="acc")


def _outcome(path: Path, metric: str) -> object:
    """The table's matrix (its bytes: -0.0 is written as 0.0), ids and file notes, or the refusal's message."""
    try:
        table = load_lighteval(path, metric=metric, reruns="merge")
    except LoaderError as err:
        return str(err)
    return table.scores.tobytes(), table.models, table.queries, [use.note for use in table.files]


_FIELD_CASES: dict[str, list[list[dict[str, object]]]] = {  # per case, the rows of model a's file, then model b's
    "ids": [[_new_row(f"s{i}", float(i % 2)) for i in range(4)], [_new_row(f"s{i}", 0.5) for i in range(4)]],
    "ids repeated": [[_new_row("s", 1.0), _new_row("s", 0.0)], [_new_row("s", 1.0), _new_row("s", 0.0)]],
    "an empty id": [[_new_row("", 1.0), _new_row("t", 0.0)], [_new_row("", 1.0), _new_row("t", 0.0)]],
    "integer ids": [
        [{"doc": {"id": i, "query": f"q{i}"}, "metric": {"em": True, "f1": 0.25}} for i in range(3)],
        [{"doc": {"id": i, "query": f"q{i}"}, "metric": {"em": 0, "f1": 0.75}} for i in range(3)],
    ],
    "other texts": [[_new_row("x", 1.0), _new_row("y", 0.0)], [_new_row("y", 1.0), _new_row("x", 0.0)]],
    "no doc": [[{"metric": {"em": 0.0}}, {"metric": {"em": 1.0}}], [{"metric": {"em": 1.0}}, {"metric": {"em": 1.0}}]],
    "a score as text": [[{"doc": {"id": "a"}, "metric": {"em": "1"}}], [{"doc": {"id": "a"}, "metric": {"em": "0"}}]],
    "a null score": [
        [{"doc": {"id": "a"}, "metric": {"em": None}}, {"doc": {"id": "b"}, "metric": {"em": 1.0}}],
        [{"doc": {"id": "a"}, "metric": {"em": 1.0}}, {"doc": {"id": "b"}, "metric": {"em": 1.0}}],
    ],
    "a score above 1": [[{"doc": {"id": "a"}, "metric": {"em": 2.0}}], [{"doc": {"id": "a"}, "metric": {"em": 0.0}}]],
    "negative zero": [[{"doc": {"id": "a"}, "metric": {"em": -0.0}}], [{"doc": {"id": "a"}, "metric": {"em": 1.0}}]],
    "another metric": [[{"doc": {"id": "a"}, "metric": {"acc": 1.0}}], [{"doc": {"id": "a"}, "metric": {"f1": 1.0}}]],
}


@pytest.mark.parametrize("case", sorted(_FIELD_CASES))
def test_reading_field_by_field_gives_what_reading_row_by_row_gives(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A column of plain structs is read field by field, fast; the result (or refusal) is that of the row reader."""
    from sysrs_ref.loaders import _parquet, lighteval

    for model, rows in zip(("org/a", "org/b"), _FIELD_CASES[case], strict=True):
        folder = tmp_path / "details" / model / "2025-07-01T09-00-00.5"
        _write(folder / "details_lighteval|gsm8k|0_2025-07-01T09-00-00.5.parquet", rows)
    calls: list[str] = []

    def counted_fields(path: Path, column: str, fields: list[str]) -> _parquet.StructFields | None:
        calls.append(column)
        return _parquet.parquet_fields(path, column, fields)

    monkeypatch.setattr(lighteval, "parquet_fields", counted_fields)
    metrics = ("em", "f1", "extractive_match")
    fast = {metric: _outcome(tmp_path, metric) for metric in metrics}
    monkeypatch.setattr(lighteval, "parquet_fields", lambda path, column, fields: None)
    slow = {metric: _outcome(tmp_path, metric) for metric in metrics}
    assert fast == slow
    assert "metric" in calls
