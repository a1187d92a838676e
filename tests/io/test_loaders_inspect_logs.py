"""inspect-ai folders as they are: logs without samples, two runs of one model, unfinished logs holding the scorer.

The logs are written here as inspect-ai writes them: an ``.eval`` zip with
``header.json`` (``status``, ``eval`` with ``model``, ``task``, ``created``,
``scorers``, ``config``) and one ``samples/<id>_epoch_<n>.json`` per sample,
named ``<created>_<task>_<id>.eval``; a ``.json`` log is the same header with
a ``samples`` list (absent under ``--no-log-samples``).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders import convert, load_inspect


def _header(model: str, created: str, status: str = "success") -> dict[str, object]:
    return {
        "version": 2,
        "status": status,
        "eval": {
            "eval_id": f"id-{model}-{created}",
            "run_id": "run",
            "created": created,
            "task": "arith",
            "task_id": "t1",
            "model": model,
            "scorers": [{"name": "match", "options": {}, "metrics": [], "metadata": {}}],
            "config": {"epochs": 1},
        },
        "plan": {"name": "plan", "steps": []},
        "stats": {"started_at": created, "completed_at": created},
    }


def _sample(sample_id: int, value: str) -> dict[str, object]:
    return {
        "id": sample_id,
        "epoch": 1,
        "input": f"{sample_id} + 1?",
        "target": str(sample_id + 1),
        "messages": [],
        "output": {"model": "m", "choices": []},
        "scores": {"match": {"value": value, "answer": "x", "explanation": "x"}},
    }


def _eval(folder: Path, model: str, created: str, values: list[str] | None, status: str = "success") -> Path:
    """An ``.eval`` log of task arith; *values* None: no sample at all (--no-log-samples)."""
    stamp = created.replace(":", "-")
    path = folder / f"{stamp}_arith_{model.replace('/', '-')}.eval"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps(_header(model, created, "started")))
        for number, value in enumerate(values or [], start=1):
            archive.writestr(f"samples/{number}_epoch_1.json", json.dumps(_sample(number, value)))
        archive.writestr("header.json", json.dumps(_header(model, created, status)))
    return path


def test_a_log_without_samples_is_left_out_and_listed(tmp_path: Path) -> None:
    _eval(tmp_path, "openai/a", "2025-01-02T10:00:00+00:00", ["C", "I"])
    _eval(tmp_path, "openai/b", "2025-01-02T10:00:00+00:00", ["C", "C"])
    empty = _eval(tmp_path, "openai/c", "2025-01-02T10:00:00+00:00", None)
    no_samples = tmp_path / "nolog.json"
    no_samples.write_text(json.dumps(_header("openai/d", "2025-01-02T10:00:00+00:00")))
    table = load_inspect(tmp_path, metric="match")
    assert table.models == ("openai/a", "openai/b") and table.scores.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    left = {Path(use.path).name: use.note for use in table.files if not use.used}
    reason = "the log holds no samples (written with --no-log-samples, or an eval of 0 samples); left out"
    assert left == {empty.name: reason, no_samples.name: reason}
    with pytest.raises(LoaderError, match=r"no log read holds samples \(2 without any"):
        load_inspect([empty, no_samples], metric="match")


def test_reruns_latest_reads_the_newest_log_of_each_model(tmp_path: Path) -> None:
    old = _eval(tmp_path, "openai/a", "2025-01-02T10:00:00+00:00", ["I", "I"])
    new = _eval(tmp_path, "openai/a", "2025-01-03T09:00:00+01:00", ["C", "I"])
    _eval(tmp_path, "openai/b", "2025-01-02T10:00:00+00:00", ["C", "C"])
    with pytest.raises(LoaderError, match="two different scores"):
        load_inspect(tmp_path, metric="match")  # merge, the default: different scores are refused
    table = convert("inspect", [tmp_path], metric="match", reruns="latest")
    assert table.models == ("openai/b", "openai/a") and table.scores.tolist() == [[1.0, 1.0], [1.0, 0.0]]
    notes = {Path(use.path).name: (use.used, use.note) for use in table.files}
    assert notes[old.name] == (
        False,
        f"an older log of task 'arith' for model 'openai/a' (created 2025-01-02T10:00:00.000000); --reruns latest "
        f"keeps {new} (--reruns merge reads every log)",
    )
    assert notes[new.name][0] and table.settings["reruns"].startswith("latest")


def test_reruns_latest_orders_by_the_file_name_without_a_created_field(tmp_path: Path) -> None:
    for created, values in (("2025-01-02T10:00:00+00:00", ["I"]), ("2025-01-02T11:00:00+00:00", ["C"])):
        header = _header("m", created)
        del header["eval"]["created"]  # type: ignore[attr-defined]  # a JSON header read as an object: the fixture knows its shape
        header["samples"] = [_sample(1, values[0])]
        (tmp_path / f"{created.replace(':', '-')}_arith_x.json").write_text(json.dumps(header))
    assert load_inspect(tmp_path, metric="match", reruns="latest").scores.tolist() == [[1.0]]
    with pytest.raises(ParameterError, match="unknown --reruns mode 'newest'; use one of merge, latest"):
        load_inspect(tmp_path, metric="match", reruns="newest")


def test_the_error_names_the_only_log_with_the_scorer_when_it_was_dropped(tmp_path: Path) -> None:
    dropped = _eval(tmp_path, "openai/a", "2025-01-02T10:00:00+00:00", ["C"], status="error")
    other = tmp_path / "other.json"
    header = _header("openai/b", "2025-01-02T10:00:00+00:00")
    header["samples"] = [{"id": 1, "epoch": 1, "scores": {"includes": {"value": "C"}}}]
    other.write_text(json.dumps(header))
    with pytest.raises(LoaderError) as caught:
        load_inspect(tmp_path, metric="match", unfinished="drop")
    assert str(caught.value).endswith(
        f"no sample has a score from scorer 'match'; the logs have includes; the only log with that scorer, "
        f"{dropped}, is unfinished (status 'error': the eval stopped on an error) and was left out by --unfinished "
        "drop: finish the eval (inspect eval-retry), or convert without --unfinished drop to read what it holds"
    )
