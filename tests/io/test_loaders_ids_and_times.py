"""The edges where a loader's small slips hide: ids repeated or missing, times with offsets, splits, epoch 1.

Each test pins one rule at the value where a plausible slip would change the
outcome: every harness format with a repeated id (the same score merged and
counted, another score refused naming both places) and a missing id
(refused, named, or read by position where the format says so); inspect's
"latest" log across UTC offsets and fractions of a second; HELM's
``--split NAME`` with stats that name no split beside stats that do;
lighteval's ``doc.id`` repeated within a file; ``--epochs first`` on logs
whose later epochs would say something else.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders import convert, load_helm, load_inspect, load_lighteval
from sysrs_ref.loaders._inspect_epochs import reduced_cells
from sysrs_ref.loaders._inspect_files import created
from sysrs_ref.loaders._inspect_values import Sample, _Epoch, scored_epoch

# --- repeated and missing ids, one writer per format -------------------------------------------------------------


def _lm_eval(root: Path, ids: list[object], values: list[int]) -> Path:
    folder = root / "org__m"
    folder.mkdir(parents=True)
    rows = []
    for doc_id, value in zip(ids, values, strict=True):
        row: dict[str, object] = {"filter": "none", "metrics": ["acc"], "acc": value}
        if doc_id is not None:
            row["doc_id"] = doc_id
        rows.append(json.dumps(row) + "\n")
    (folder / "samples_arc_easy_2024-05-01T10-00-00.jsonl").write_text("".join(rows))
    return root


def _helm(root: Path, ids: list[object], values: list[int]) -> Path:
    folder = root / "runs" / "v1" / "mmlu:subject=anatomy,model=org_m"
    folder.mkdir(parents=True)
    spec = {"name": "mmlu:subject=anatomy,model=org_m", "adapter_spec": {"model": "org/m"}}
    (folder / "run_spec.json").write_text(json.dumps(spec))
    entries = []
    for instance, value in zip(ids, values, strict=True):
        stat = {"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": value, "mean": value}
        entry: dict[str, object] = {"train_trial_index": 0, "stats": [stat]}
        if instance is not None:
            entry["instance_id"] = instance
        entries.append(entry)
    (folder / "per_instance_stats.json").write_text(json.dumps(entries))
    return root


def _inspect_samples(ids: list[object], values: list[int]) -> list[dict[str, object]]:
    samples = []
    for sample_id, value in zip(ids, values, strict=True):
        sample: dict[str, object] = {"epoch": 1, "scores": {"match": {"value": "C" if value else "I"}}}
        if sample_id is not None:
            sample["id"] = sample_id
        samples.append(sample)
    return samples


def _inspect_json(root: Path, ids: list[object], values: list[int]) -> Path:
    root.mkdir(parents=True)
    log = {"status": "success", "eval": {"model": "org/m", "task": "arith"}, "samples": _inspect_samples(ids, values)}
    (root / "log.json").write_text(json.dumps(log))
    return root


def _inspect_eval(root: Path, ids: list[object], values: list[int]) -> Path:
    root.mkdir(parents=True)
    header = {"status": "success", "eval": {"model": "org/m", "task": "arith"}}
    with zipfile.ZipFile(root / "log.eval", "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name": a member written twice, on purpose
        for number, sample in enumerate(_inspect_samples(ids, values)):
            archive.writestr(f"samples/{sample.get('id', 'x')}_epoch_1.json", json.dumps(sample))
            if number == 0:
                archive.writestr("header.json", json.dumps(header))
    return root


def _lighteval(root: Path, ids: list[object], values: list[int]) -> Path:
    folder = root / "details" / "org" / "m" / "2025-07-01T09-00-00.000001"
    folder.mkdir(parents=True)
    rows = []
    for number, (sample_id, value) in enumerate(zip(ids, values, strict=True)):
        doc: dict[str, object] = {"query": f"question {number}?", "choices": ["7"], "gold_index": 0}
        if sample_id is not None:
            doc["id"] = sample_id
        rows.append({"doc": doc, "metric": {"em": float(value)}, "model_response": {"text": ["7"]}})
    pq.write_table(pa.Table.from_pylist(rows), folder / "details_lighteval|gsm8k|0_2025-07-01T09-00-00.000001.parquet")
    return root


def _long_csv(root: Path, ids: list[object], values: list[int]) -> Path:
    root.mkdir(parents=True)
    lines = ["model,query,score"] + [
        f"m,{'' if query is None else query},{value}" for query, value in zip(ids, values, strict=True)
    ]
    (root / "scores.csv").write_text("\n".join(lines) + "\n")
    return root


WRITERS = {
    "lm-eval": (_lm_eval, "acc", "arc_easy/"),
    "helm": (_helm, "exact_match", "mmlu:subject=anatomy/"),
    "inspect .json": (_inspect_json, "match", "arith/"),
    "inspect .eval": (_inspect_eval, "match", "arith/"),
    "lighteval": (_lighteval, "em", "lighteval|gsm8k|0/"),
    "long-csv": (_long_csv, "score", ""),
}


def _source(name: str) -> str:
    return name.split(" ")[0]


@pytest.mark.parametrize("name", list(WRITERS))
def test_an_id_repeated_with_the_same_score_is_one_cell(tmp_path: Path, name: str) -> None:
    writer, metric, prefix = WRITERS[name]
    root = writer(tmp_path / "in", ["7", "9", "7"], [1, 0, 1])
    table = convert(_source(name), [root], metric=metric)
    if name == "lighteval":  # a repeated doc.id cannot be a query id: the rows are read by position
        assert table.queries == (f"{prefix}0", f"{prefix}1", f"{prefix}2") and table.duplicates == 0
        assert table.files[0].note == "query ids are the row positions"
        return
    if name.startswith("inspect"):  # one sample written twice: inspect reads the last copy, so one cell
        assert table.queries == (f"{prefix}7", f"{prefix}9") and table.duplicates == 0
        return
    assert table.queries == (f"{prefix}7", f"{prefix}9") and table.duplicates == 1
    assert table.scores.tolist() == [[1.0, 0.0]]


@pytest.mark.parametrize("name", list(WRITERS))
def test_an_id_repeated_with_another_score_is_refused_naming_both(tmp_path: Path, name: str) -> None:
    writer, metric, prefix = WRITERS[name]
    root = writer(tmp_path / "in", ["7", "9", "7"], [1, 0, 0])
    if name == "lighteval":  # read by position, the three rows are three queries
        table = load_lighteval(root, metric=metric)
        assert table.scores.tolist() == [[1.0, 0.0, 0.0]] and table.shape == (1, 3)
        return
    if name == "inspect .eval":  # two members of one name: inspect reads the last copy (I), as the loader does
        assert load_inspect(root, metric=metric).scores.tolist() == [[0.0, 0.0]]
        return
    with pytest.raises(LoaderError) as caught:
        convert(_source(name), [root], metric=metric)
    message = str(caught.value)
    if name == "inspect .json":
        assert message.endswith(
            "sample 7: epoch 1 of this sample is in the log twice, with the scores 1 at "
            + (f"{root / 'log.json'} sample 7 and 0; remove one copy")
        )
        return
    model = {"lm-eval": "org__m", "long-csv": "m"}.get(name, "org/m")  # lm-eval without a results file: the folder
    assert message.startswith(f"model '{model}', query '{prefix}7' has two different scores")
    places = {"lm-eval": ("line 1", "line 3"), "helm": ("entry 1", "entry 3"), "long-csv": ("line 2", "line 4")}
    first, second = places[name]
    assert f" {first}" in message and f" {second}" in message


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_missing_id_is_refused_or_read_by_position_as_the_format_says(tmp_path: Path, name: str) -> None:
    writer, metric, prefix = WRITERS[name]
    root = writer(tmp_path / "in", ["7", None], [1, 0])
    if name == "lighteval":  # lighteval before 0.10 has no doc.id: a file lacking one is read by position
        table = load_lighteval(root, metric=metric)
        assert table.queries == (f"{prefix}0", f"{prefix}1")
        return
    expected = {
        "lm-eval": r"line 2: no doc_id \(an integer or a string\)",
        "helm": r"entry 2: no instance_id",
        "inspect .json": r"a sample without an id \(a string or an integer\)",
        "inspect .eval": r"a sample without an id \(a string or an integer\)",
        "long-csv": r"line 3: empty model or query id",
    }
    with pytest.raises(LoaderError, match=expected[name]):
        convert(_source(name), [root], metric=metric)


def test_lighteval_reads_unique_doc_ids_as_query_ids_and_a_repeated_one_by_position(tmp_path: Path) -> None:
    unique = _lighteval(tmp_path / "a", ["q7", "q9", "q8"], [1, 0, 1])
    assert load_lighteval(unique, metric="em").queries == tuple(f"lighteval|gsm8k|0/{i}" for i in ("q7", "q9", "q8"))
    repeated = _lighteval(tmp_path / "b", ["q7", "q9", "q7"], [1, 0, 1])
    table = load_lighteval(repeated, metric="em")
    assert table.queries == tuple(f"lighteval|gsm8k|0/{i}" for i in range(3)) and table.duplicates == 0
    assert table.scores.tolist() == [[1.0, 0.0, 1.0]]  # doc.id as the query id would merge rows 0 and 2


# --- inspect's latest log: offsets and fractions of a second -----------------------------------------------------


def _timed_log(folder: Path, name: str, created_at: str | None, letter: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec: dict[str, object] = {"model": "org/m", "task": "arith"}
    if created_at is not None:
        spec["created"] = created_at
    samples = [{"id": 1, "epoch": 1, "scores": {"match": {"value": letter}}}]
    (folder / name).write_text(json.dumps({"status": "success", "eval": spec, "samples": samples}))
    return folder / name


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("2025-01-02T10:30:00+02:00", "2025-01-02T09:00:00+00:00"),  # 08:30 UTC before 09:00 UTC
        ("2025-01-02T09:00:00+00:00", "2025-01-02T04:30:00-05:00"),  # 09:00 UTC before 09:30 UTC
        ("2025-01-02T10:00:00.100000+01:00", "2025-01-02T09:00:00.900000+00:00"),  # 09:00:00.1 before .9, UTC
        ("2025-01-02T09:00:00.250000+00:00", "2025-01-02T09:00:00.500000+00:00"),  # a quarter before a half second
        ("2025-01-02T09:00:00+00:00", "2025-01-02T09:00:00.000001+00:00"),  # one microsecond
        ("2025-01-02T23:30:00-01:00", "2025-01-03T00:45:00+00:00"),  # 00:30 before 00:45 on the 3rd
    ],
)
def test_latest_orders_creation_times_in_utc_to_the_microsecond(tmp_path: Path, earlier: str, later: str) -> None:
    old = _timed_log(tmp_path, "a.json", earlier, "I")
    new = _timed_log(tmp_path, "b.json", later, "C")
    for order in ([old, new], [new, old]):
        table = load_inspect(order, metric="match", reruns="latest")
        assert table.scores.tolist() == [[1.0]]
        assert {Path(use.path).name: use.used for use in table.files} == {"a.json": False, "b.json": True}


def test_latest_orders_file_name_stamps_with_offsets_in_utc(tmp_path: Path) -> None:
    _timed_log(tmp_path, "2025-01-02T10-30-00+02-00_arith_x.json", None, "I")  # 08:30 UTC
    _timed_log(tmp_path, "2025-01-02T09-00-00+00-00_arith_y.json", None, "C")  # 09:00 UTC
    assert load_inspect(tmp_path, metric="match", reruns="latest").scores.tolist() == [[1.0]]
    assert created({}, Path("2025-01-02T10-30-00+02-00_arith_x.json")) == "2025-01-02T08:30:00.000000"
    assert created({"eval": {"created": "2025-01-02T09:00:00.5-01:00"}}, Path("x.json")) == "2025-01-02T10:00:00.500000"


# --- HELM: --split NAME with stats that name no split ------------------------------------------------------------


def _stat(value: int, split: str | None) -> dict[str, object]:
    name: dict[str, object] = {"name": "exact_match"}
    if split is not None:
        name["split"] = split
    return {"name": name, "count": 1, "sum": value, "mean": value}


def test_split_name_keeps_the_stats_that_name_no_split(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "v1" / "mmlu:subject=anatomy,model=org_m"
    folder.mkdir(parents=True)
    (folder / "run_spec.json").write_text(json.dumps({"name": folder.name, "adapter_spec": {"model": "org/m"}}))
    entries = [
        {"instance_id": "id1", "train_trial_index": 0, "stats": [_stat(1, "valid")]},
        {"instance_id": "id2", "train_trial_index": 0, "stats": [_stat(0, None)]},
        {"instance_id": "id3", "train_trial_index": 0, "stats": [_stat(1, "test")]},
    ]
    (folder / "per_instance_stats.json").write_text(json.dumps(entries))
    key = "mmlu:subject=anatomy"
    valid = load_helm(tmp_path, metric="exact_match", split="valid")
    assert valid.queries == (f"{key}/valid/id1", f"{key}/id2") and valid.scores.tolist() == [[1.0, 0.0]]
    default = load_helm(tmp_path, metric="exact_match")
    assert default.queries == (f"{key}/id2", f"{key}/id3") and default.scores.tolist() == [[0.0, 1.0]]
    every = load_helm(tmp_path, metric="exact_match", split="all")
    assert set(every.queries) == {f"{key}/valid/id1", f"{key}/id2", f"{key}/id3"}


# --- inspect --epochs first: epoch 1 alone, whatever the later epochs hold ---------------------------------------


def test_first_reduces_to_epoch_1_and_notes_a_sample_without_it() -> None:
    def epoch(letter: str, number: int) -> _Epoch:
        recorded = scored_epoch({"value": letter}, f"sample epoch {number}", "scorer")
        assert recorded is not None
        return recorded

    samples = {
        "1": Sample(1, {1: epoch("C", 1), 2: epoch("I", 2)}),
        "2": Sample(2, {2: epoch("C", 2), 3: epoch("C", 3)}),  # no epoch 1
    }
    cells, notes = reduced_cells(Path("log.json"), "org/m", "arith", samples, "first", 3)
    assert [(cell.cell.query, cell.exact) for cell in cells] == [("arith/1", Fraction(1))]
    assert notes == ["1 sample without a score in epoch 1 left without a score"]


def test_first_never_reads_the_later_epochs_of_a_log(tmp_path: Path) -> None:
    samples = [
        {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
        {"id": 1, "epoch": 2, "scores": {"match": {"value": "I"}}},
        {"id": 1, "epoch": 2, "scores": {"match": {"value": "C"}}},  # epoch 2 twice, with two scores
        {"id": 2, "epoch": 1, "error": {"message": "timed out"}},
        {"id": 2, "epoch": 2, "scores": {"match": {"value": "C"}}},
        {"id": 3, "epoch": 1, "scores": {"match": {"value": "I"}}},
        {"id": 3, "epoch": 2, "scores": {"match": {"value": {"a": 1}}}},  # a value no epoch may have
    ]
    log = {
        "status": "success",
        "eval": {"model": "org/m", "task": "arith", "config": {"epochs": 2}},
        "samples": samples,
    }
    (tmp_path / "log.json").write_text(json.dumps(log))
    table = load_inspect(tmp_path, metric="match", epochs="first")
    assert table.queries == ("arith/1", "arith/3") and table.scores.tolist() == [[1.0, 0.0]]
    assert table.files[0].note == "epoch 1 of 2 (--epochs first)"
    with pytest.raises(LoaderError, match="epoch 2 of this sample is in the log twice"):
        load_inspect(tmp_path, metric="match", epochs="mean")
    archive = tmp_path / "eval" / "log.eval"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("header.json", json.dumps({key: log[key] for key in ("status", "eval")}))
        written.writestr("samples/1_epoch_1.json", json.dumps(samples[0]))
        written.writestr("samples/1_epoch_2.json", b"{not json")  # damaged: read only when epoch 2 is
    assert load_inspect(archive, metric="match", epochs="first").scores.tolist() == [[1.0]]
    with pytest.raises(LoaderError, match=r"samples/1_epoch_2\.json"):
        load_inspect(archive, metric="match", epochs="max")
