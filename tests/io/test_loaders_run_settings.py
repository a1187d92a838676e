"""Logs that are not reruns of one evaluation: other task arguments, other solvers, agent runs without a model.

``data/fixtures/inspect/settings/`` holds four models' inspect logs of task
``arith`` run with ``with_background: false``, and a later log of model-d
run with ``with_background: true``, which would move model-d from 4th to 2nd;
``data/fixtures/inspect/agents/`` two agent runs logged with inspect's model
``none/none``. Neither folder may turn into a matrix without a word.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders import convert, load_inspect, load_lm_eval

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"
SETTINGS = FIXTURES / "inspect" / "settings"
AGENTS = FIXTURES / "inspect" / "agents"
LATER = "2026-05-07T15-30-00+02-00_arith_model-d.eval"


@pytest.mark.parametrize("reruns", ["latest", "merge"])
def test_logs_run_with_other_task_arguments_are_refused_naming_the_argument(reruns: str) -> None:
    with pytest.raises(LoaderError) as caught:
        load_inspect(SETTINGS, metric="match", reruns=reruns)
    assert str(caught.value) == (
        f"{SETTINGS / LATER}: task 'arith' ran with task_args.with_background true in this log (model "
        f"'openai/model-d') but false in {SETTINGS / '2026-05-07T09-00-00+00-00_arith_model-a.eval'} (model "
        "'openai/model-a'); logs of one task with different settings are not one evaluation, nor reruns of one: "
        "convert the logs of each setting apart (in folders of their own)"
    )


def test_the_logs_of_one_setting_convert_and_rank_model_d_last(tmp_path: Path) -> None:
    kept = [path for path in sorted(SETTINGS.iterdir()) if path.name != LATER]
    table = load_inspect(kept, metric="match", reruns="latest")
    means = {
        model: Fraction(sum(map(Fraction, row.tolist()))) / 4
        for model, row in zip(table.models, table.scores, strict=True)
    }
    assert means == {
        "openai/model-a": Fraction(1, 2),
        "openai/model-b": Fraction(1),
        "openai/model-c": Fraction(1, 4),
        "openai/model-d": Fraction(0),
    }
    alone = load_inspect(SETTINGS / LATER, metric="match")
    assert alone.scores.tolist() == [[1.0, 1.0, 1.0, 0.0]]  # 3/4: second of the four, were the settings mixed


@pytest.mark.parametrize("reruns", ["latest", "merge"])
def test_agent_runs_without_a_model_are_not_one_models_reruns(reruns: str) -> None:
    with pytest.raises(LoaderError, match=r"_arith_basic_agent\.eval: task 'arith' ran with solver \"basic_agent\""):
        load_inspect(AGENTS, metric="match", reruns=reruns)


def _log(path: Path, model: str, letters: str, created: str) -> Path:
    samples = [
        {"id": number, "epoch": 1, "scores": {"match": {"value": letter}}}
        for number, letter in enumerate(letters, start=1)
    ]
    document = {"status": "success", "eval": {"model": model, "task": "arith", "created": created}, "samples": samples}
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("reruns", ["latest", "merge"])
def test_two_model_less_logs_of_one_setting_are_refused_too(tmp_path: Path, reruns: str) -> None:
    first = _log(tmp_path / "a.json", "none/none", "CI", "2026-05-08T10:00:00+00:00")
    second = _log(tmp_path / "b.json", "none/none", "CC", "2026-05-08T11:00:00+00:00")
    with pytest.raises(LoaderError) as caught:
        load_inspect(tmp_path, metric="match", reruns=reruns)
    assert str(caught.value) == (
        f"{second}: a second log of task 'arith' with model 'none/none' (inspect's name for no model: an agent or "
        f"solver calling its own models), beside {first}; such logs are not one model's reruns and cannot share a "
        "row: convert them apart, or run each with a --model naming what was evaluated"
    )
    _log(tmp_path / "c.json", "openai/m", "II", "2026-05-08T10:00:00+00:00")
    table = load_inspect([first, tmp_path / "c.json"], metric="match", reruns=reruns)
    assert table.models == ("none/none", "openai/m") and table.scores.tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_logs_of_the_same_settings_still_merge(tmp_path: Path) -> None:
    for name, model in (("a.json", "openai/a"), ("b.json", "openai/b")):
        _log(tmp_path / name, model, "CI", "2026-05-08T10:00:00+00:00")
        document = json.loads((tmp_path / name).read_text())
        document["eval"]["task_args"] = {"n": 2, "with_background": False}
        (tmp_path / name).write_text(json.dumps(document))
    assert load_inspect(tmp_path, metric="match").shape == (2, 2)


def test_a_conflict_between_merged_runs_names_the_reruns_option(tmp_path: Path) -> None:
    _log(tmp_path / "2026-05-08T10-00-00+00-00_arith_a.json", "openai/a", "CI", "2026-05-08T10:00:00+00:00")
    _log(tmp_path / "2026-05-08T11-00-00+00-00_arith_a.json", "openai/a", "CC", "2026-05-08T11:00:00+00:00")
    with pytest.raises(LoaderError) as caught:
        load_inspect(tmp_path, metric="match")
    assert str(caught.value).endswith(
        "keep one of them (remove the other file or entry; or, for two runs of one model and task, read the latest "
        "alone with --reruns latest) and convert again"
    )
    assert load_inspect(tmp_path, metric="match", reruns="latest").scores.tolist() == [[1.0, 1.0]]


def test_an_lm_eval_merge_conflict_names_the_reruns_option(tmp_path: Path) -> None:
    folder = tmp_path / "org__m"
    folder.mkdir()
    for stamp, acc in (("2024-05-01T10-00-00", 0), ("2024-05-02T10-00-00", 1)):
        row = {"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": acc}
        (folder / f"samples_arc_easy_{stamp}.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(LoaderError, match=r"or entry; or, for two runs of one model and task, read the latest alone "):
        load_lm_eval(tmp_path, metric="acc", reruns="merge")
    assert convert("lm-eval", [tmp_path], metric="acc").scores.tolist() == [[1.0]]
