"""lm-eval samples of before 0.4.7 (rows naming no filter), limited runs, and newer runs without samples.

lm-eval wrote a document's rows once per filter, in the order of the task's
``filter_list``, and from 0.4.7 on names the filter in each row. Its
``results_<timestamp>.json`` beside the samples names the filters
(``configs.<task>.filter_list``, and the ``METRIC,FILTER`` keys of
``results.<task>``) and counts the documents (``n-samples``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders import load_lm_eval
from tests.harness_files import jsonl, write

STAMP = "2024-09-05T10-00-00.123456"
FILTERS = ("strict-match", "flexible-extract")
STRICT = [1.0, 0.0, 0.0, 1.0]
FLEXIBLE = [1.0, 1.0, 0.0, 1.0]


def _results(filters: tuple[str, ...], *, listed: bool = True, documents: tuple[int, int] = (4, 4)) -> str:
    """A results file as lm-eval 0.4.x writes it, for task gsm8k with *filters*."""
    aggregates: dict[str, object] = {"alias": "gsm8k"}
    for name in filters:
        aggregates[f"exact_match,{name}"] = 0.5
        aggregates[f"exact_match_stderr,{name}"] = 0.25
    config: dict[str, object] = {"task": "gsm8k", "num_fewshot": 5, "output_type": "generate_until"}
    if listed:
        config["filter_list"] = [{"name": name, "filter": [{"function": "take_first"}]} for name in filters]
    return json.dumps(
        {
            "results": {"gsm8k": aggregates},
            "configs": {"gsm8k": config},
            "versions": {"gsm8k": 3.0},
            "n-shot": {"gsm8k": 5},
            "n-samples": {"gsm8k": {"original": documents[1], "effective": documents[0]}},
            "config": {"model": "hf", "model_args": "pretrained=org/model-a", "limit": None},
            "model_name": "org/model-a",
        }
    )


def _rows(*blocks: list[float]) -> str:
    """Rows as lm-eval before 0.4.7 wrote them: for each filter, every document, with no filter field."""
    return jsonl(
        *(
            {"doc_id": doc, "target": "7", "filtered_resps": ["7"], "exact_match": value, "doc_hash": f"d{doc}"}
            for block in blocks
            for doc, value in enumerate(block)
        )
    )


@pytest.fixture
def two_filters(tmp_path: Path) -> Path:
    folder = tmp_path / "org__model-a"
    write(folder / f"samples_gsm8k_{STAMP}.jsonl", _rows(STRICT, FLEXIBLE))
    write(folder / f"results_{STAMP}.json", _results(FILTERS))
    return folder


@pytest.mark.parametrize("listed", [True, False], ids=["filter_list", "result-keys"])
def test_the_filters_are_named_by_the_results_file_in_row_order(two_filters: Path, listed: bool) -> None:
    write(two_filters / f"results_{STAMP}.json", _results(FILTERS, listed=listed))
    strict = load_lm_eval(two_filters, metric="exact_match", filter="strict-match")
    flexible = load_lm_eval(two_filters, metric="exact_match,flexible-extract")
    assert strict.scores.tolist() == [STRICT] and flexible.scores.tolist() == [FLEXIBLE]
    assert strict.duplicates == 0 and strict.queries == tuple(f"gsm8k/{doc}" for doc in range(4))
    used = next(use for use in strict.files if "samples_" in use.path)
    assert used.scores == 4
    assert used.note == (
        f"filters strict-match, flexible-extract named by results_{STAMP}.json, a document's rows in that order "
        "(the rows name none: lm-eval before 0.4.7)"
    )


def test_several_named_filters_need_a_choice_and_are_never_merged(two_filters: Path) -> None:
    with pytest.raises(LoaderError, match=r"come with 2 filters \(strict-match, flexible-extract\); choose one"):
        load_lm_eval(two_filters, metric="exact_match")
    write(two_filters / f"samples_gsm8k_{STAMP}.jsonl", _rows(STRICT, STRICT))  # equal scores: still two filters
    table = load_lm_eval(two_filters, metric="exact_match", filter="flexible-extract")
    assert table.duplicates == 0 and table.scores.tolist() == [STRICT]


def test_the_results_key_of_a_single_filter_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "org__model-a"
    write(folder / f"samples_gsm8k_{STAMP}.jsonl", _rows(STRICT))
    write(folder / f"results_{STAMP}.json", _results(("get-answer",)))
    table = load_lm_eval(tmp_path, metric="exact_match,get-answer")
    assert table.scores.tolist() == [STRICT]
    assert table.settings["filter"] == "get-answer (from --metric 'exact_match,get-answer')"
    (folder / f"results_{STAMP}.json").unlink()
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(tmp_path, metric="exact_match,get-answer")
    message = str(caught.value)
    assert "leave task" not in message
    assert message.endswith(
        f"no sample has filter 'get-answer'; the file has none; the samples name no filter (lm-eval before 0.4.7) "
        f"and no results_{STAMP}.json beside the file names it: put the run's results file beside it, or leave out "
        "--filter (and ',FILTER' of --metric)"
    )


def test_rows_that_do_not_match_the_named_filters_are_refused(two_filters: Path) -> None:
    write(two_filters / f"results_{STAMP}.json", _results((*FILTERS, "maj@8")))
    with pytest.raises(LoaderError, match=r"names 3 \(strict-match, flexible-extract, maj@8\), but a document has 2"):
        load_lm_eval(two_filters, metric="exact_match", filter="strict-match")


def test_a_limited_run_and_a_newer_run_without_samples_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "org__model-a"
    older, newer = "2024-09-05T10-00-00", "2024-09-06T08-00-00"
    write(folder / f"samples_gsm8k_{older}.jsonl", _rows(STRICT))
    write(folder / f"results_{older}.json", _results(("get-answer",), documents=(4, 1319)))
    write(folder / f"results_{newer}.json", _results(("get-answer",), documents=(1319, 1319)))
    table = load_lm_eval(tmp_path, metric="exact_match")
    uses = {Path(use.path).name: use for use in table.files}
    samples = uses[f"samples_gsm8k_{older}.jsonl"]
    assert samples.used
    assert f"limited: 4 of 1319 documents of task 'gsm8k' (lm-eval --limit, results_{older}.json)" in samples.note
    assert f"not the latest run of task 'gsm8k' for model 'org/model-a': {folder / f'results_{newer}.json'}" in (
        samples.note
    )
    later = uses[f"results_{newer}.json"]
    assert not later.used
    assert later.note.startswith(
        "the latest run of model 'org/model-a' for task(s) 'gsm8k' has no samples (run without --log_samples)"
    )
    assert uses[f"results_{older}.json"].used
