"""The lm-eval loader on real-world layouts: reruns, mixed prompts, mid-2024 ``.json`` samples, mixed folders, tasks.

The fixtures are under ``data/fixtures/lm-eval/{reruns,json-2024,mixed}`` (see data/fixtures/README.md).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders import ResultsTable, convert, load_lm_eval
from sysrs_ref.loaders.lm_eval import RERUNS_MODES, SAMPLES_NAME, model_id_for
from tests.harness_files import jsonl, write

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "lm-eval"
RERUNS = FIXTURES / "reruns"
JSON_2024 = FIXTURES / "json-2024"
MIXED = FIXTURES / "mixed"

A_OLD = RERUNS / "org__model-a" / "samples_gsm8k_2024-06-01T09-15-42.518023.jsonl"
A_NEW = RERUNS / "org__model-a" / "samples_gsm8k_2024-07-02T14-03-11.004512.jsonl"
B_OLD = RERUNS / "org__model-b" / "samples_gsm8k_2024-06-03T11-20-05.250000.jsonl"
B_NEW = RERUNS / "org__model-b" / "samples_gsm8k_2024-07-02T16-45-30.771100.jsonl"
BBH = "bbh_cot_fewshot_boolean_expressions"
LFS = "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize 48213\n".format("ab" * 32)


def rows_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def uses(table: ResultsTable) -> list[tuple[str, bool, int]]:
    """Every file of the report as (path relative to the fixtures, used, scores)."""
    return [(Path(use.path).relative_to(FIXTURES).as_posix(), use.used, use.scores) for use in table.files]


def note(table: ResultsTable, path: Path) -> str:
    return next(use.note for use in table.files if use.path == str(path))


# -- reruns ---------------------------------------------------------------------------------------------


def test_the_fixture_reproduces_the_silent_merge() -> None:
    """Model-a's two runs agree on every strict-match score but were run with different prompts (0 and 2 shots)."""
    old, new = rows_of(A_OLD), rows_of(A_NEW)
    strict = [(o["doc_id"], o["exact_match"]) for o in old if o["filter"] == "strict-match"]
    assert strict == [(n["doc_id"], n["exact_match"]) for n in new if n["filter"] == "strict-match"]
    assert all(o["prompt_hash"] != n["prompt_hash"] for o, n in zip(old, new, strict=True))
    assert all(o["doc_hash"] == n["doc_hash"] for o, n in zip(old, new, strict=True))


def test_latest_reads_the_newest_run_of_each_model_and_task() -> None:
    table = load_lm_eval(RERUNS, metric="exact_match", filter="flexible-extract")
    assert table.models == ("org/model-a", "org/model-b")
    assert table.queries == ("gsm8k/0", "gsm8k/1", "gsm8k/2", "gsm8k/3")
    assert table.scores.tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert table.duplicates == 0
    assert dict(table.settings) == {"reruns": "latest", "filter": "flexible-extract"}
    assert uses(table) == [
        ("reruns/org__model-a/results_2024-06-01T09-15-42.518023.json", True, 0),
        ("reruns/org__model-a/results_2024-07-02T14-03-11.004512.json", True, 0),
        ("reruns/org__model-a/samples_gsm8k_2024-06-01T09-15-42.518023.jsonl", False, 0),
        ("reruns/org__model-a/samples_gsm8k_2024-07-02T14-03-11.004512.jsonl", True, 4),
        ("reruns/org__model-b/results_2024-06-03T11-20-05.250000.json", True, 0),
        ("reruns/org__model-b/results_2024-07-02T16-45-30.771100.json", True, 0),
        ("reruns/org__model-b/samples_gsm8k_2024-06-03T11-20-05.250000.jsonl", False, 0),
        ("reruns/org__model-b/samples_gsm8k_2024-07-02T16-45-30.771100.jsonl", True, 4),
    ]
    assert note(table, A_OLD) == (
        "an older run of task 'gsm8k' for model 'org/model-a' (timestamp 2024-06-01T09-15-42.518023); "
        f"--reruns latest keeps {A_NEW} (--reruns merge reads every run)"
    )
    assert note(table, A_NEW) == (
        "the latest of 2 runs of task 'gsm8k' for model 'org/model-a'; limited: 4 of 1319 documents of task 'gsm8k' "
        "(lm-eval --limit, results_2024-07-02T14-03-11.004512.json)"
    )
    assert note(table, A_NEW.with_name("results_2024-07-02T14-03-11.004512.json")) == (
        "the model id 'org/model-a' (its model_name); its aggregate scores are not read"
    )


def test_latest_is_the_default_and_convert_passes_reruns_on() -> None:
    default = load_lm_eval(RERUNS, metric="exact_match", filter="strict-match")
    assert default.settings["reruns"] == "latest"
    through = convert("lm-eval", [RERUNS], metric="exact_match", filter="strict-match", reruns="latest")
    assert through.scores.tolist() == default.scores.tolist() == [[1, 0, 0, 1], [0, 1, 1, 0]]
    with pytest.raises(LoaderError, match="mixed prompts"):
        convert("lm-eval", [RERUNS], metric="exact_match", filter="strict-match", reruns="merge")


def test_latest_compares_timestamps_not_names(tmp_path: Path) -> None:
    """10-00-00.5 is later than 10-00-00.123456 and than 10-00-00; the folder of a run does not matter."""
    row = {"doc_id": 0, "filter": "none", "acc": 1}
    write(tmp_path / "run2" / "m" / "samples_t_2024-05-01T10-00-00.5.jsonl", jsonl(row))
    write(tmp_path / "run1" / "m" / "samples_t_2024-05-01T10-00-00.123456.jsonl", jsonl({**row, "acc": 0}))
    write(tmp_path / "run3" / "m" / "samples_t_2024-05-01T10-00-00.jsonl", jsonl({**row, "acc": 0}))
    table = load_lm_eval(tmp_path, metric="acc")
    assert table.scores.tolist() == [[1]]
    assert [(Path(use.path).parts[-3], use.used) for use in table.files] == [
        ("run1", False),
        ("run2", True),
        ("run3", False),
    ]


def test_latest_reads_every_copy_of_the_latest_run(tmp_path: Path) -> None:
    """One run copied to two places (the same model and timestamp) is read twice and merged, as --reruns merge."""
    name = "samples_t_2024-05-01T10-00-00.jsonl"
    write(tmp_path / "a" / "m" / name, jsonl({"doc_id": 0, "filter": "none", "acc": 1, "prompt_hash": "p1"}))
    write(tmp_path / "b" / "m" / name, jsonl({"doc_id": 0, "filter": "none", "acc": 1, "prompt_hash": "p1"}))
    table = load_lm_eval(tmp_path, metric="acc")
    assert (table.scores.tolist(), table.duplicates) == ([[1]], 1)
    write(tmp_path / "b" / "m" / name, jsonl({"doc_id": 0, "filter": "none", "acc": 1, "prompt_hash": "p2"}))
    with pytest.raises(LoaderError, match="mixed prompts"):
        load_lm_eval(tmp_path, metric="acc")


def test_merge_refuses_mixed_prompts_even_when_the_scores_agree() -> None:
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(RERUNS, metric="exact_match", filter="strict-match", reruns="merge")
    message = str(caught.value)
    assert message.startswith("mixed prompts: model 'org/model-a', query 'gsm8k/0' has prompt_hash ")
    assert f"at {A_OLD} line 1 and " in message and f"at {A_NEW} line 1: " in message
    assert message.endswith("whose scores do not compare; use --reruns latest or remove one run")


def test_merge_reads_every_run_with_the_same_prompts() -> None:
    """Model-b's first run has docs 0-1 (--limit 2), its second all four, with the same prompts and scores."""
    table = load_lm_eval(RERUNS / "org__model-b", metric="exact_match", filter="strict-match", reruns="merge")
    assert table.scores.tolist() == [[0, 1, 1, 0]] and table.duplicates == 2
    assert dict(table.settings) == {"reruns": "merge", "filter": "strict-match"}
    assert uses(table)[2:] == [
        ("reruns/org__model-b/samples_gsm8k_2024-06-03T11-20-05.250000.jsonl", True, 2),
        ("reruns/org__model-b/samples_gsm8k_2024-07-02T16-45-30.771100.jsonl", True, 4),
    ]


def test_merge_refuses_mixed_documents_and_compares_only_hashes_present(tmp_path: Path) -> None:
    row = {"doc_id": 0, "filter": "none", "acc": 1, "prompt_hash": "p", "doc_hash": "d1"}
    write(tmp_path / "m" / "samples_t_2024-05-01T10-00-00.jsonl", jsonl(row))
    second = write(tmp_path / "m" / "samples_t_2024-05-02T10-00-00.jsonl", jsonl({**row, "doc_hash": "d2"}))
    with pytest.raises(LoaderError, match=r"^mixed documents: .* has doc_hash d1\.\.\. at .* and d2\.\.\. at "):
        load_lm_eval(tmp_path, metric="acc", reruns="merge")
    write(second, jsonl({"doc_id": 0, "filter": "none", "acc": 1}))  # an older lm-eval: no hashes to compare
    assert load_lm_eval(tmp_path, metric="acc", reruns="merge").duplicates == 1


def test_merge_still_refuses_different_scores_of_the_same_prompt(tmp_path: Path) -> None:
    row = {"doc_id": 0, "filter": "none", "acc": 1, "prompt_hash": "p", "doc_hash": "d"}
    write(tmp_path / "m" / "samples_t_2024-05-01T10-00-00.jsonl", jsonl(row))
    write(tmp_path / "m" / "samples_t_2024-05-02T10-00-00.jsonl", jsonl({**row, "acc": 0}))
    with pytest.raises(LoaderError, match="model 'm', query 't/0' has two different scores"):
        load_lm_eval(tmp_path, metric="acc", reruns="merge")
    assert load_lm_eval(tmp_path, metric="acc").scores.tolist() == [[0]]


def test_hashes_are_compared_across_runs_not_within_a_file(tmp_path: Path) -> None:
    """Within one file a document repeats once per filter (and may repeat): that is not a rerun."""
    rows = [
        {"doc_id": 0, "filter": "strict-match", "exact_match": 1, "prompt_hash": "p"},
        {"doc_id": 0, "filter": "flexible-extract", "exact_match": 1, "prompt_hash": "p"},
        {"doc_id": 0, "filter": "strict-match", "exact_match": 1, "prompt_hash": "q"},
    ]
    write(tmp_path / "m" / "samples_t_2024-05-01T10-00-00.jsonl", jsonl(*rows))
    table = load_lm_eval(tmp_path, metric="exact_match", filter="strict-match", reruns="merge")
    assert (table.scores.tolist(), table.duplicates) == ([[1]], 1)


def test_an_unknown_reruns_mode_is_refused() -> None:
    assert RERUNS_MODES == ("latest", "merge")
    with pytest.raises(ParameterError, match="unknown --reruns mode 'newest'; use one of latest, merge"):
        load_lm_eval(RERUNS, metric="exact_match", reruns="newest")


# -- the loader agrees with lm-eval's own aggregates ----------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "metric", "filter_name"),
    [
        (RERUNS, "exact_match", "strict-match"),
        (RERUNS, "exact_match", "flexible-extract"),
        (JSON_2024, "acc", "none"),
        (JSON_2024, "acc_norm", "none"),
        (MIXED, "acc", "none"),
        (MIXED, "acc_norm", "none"),
        (MIXED, "exact_match", "get-answer"),
    ],
)
def test_row_means_equal_the_aggregates_of_results_json(folder: Path, metric: str, filter_name: str) -> None:
    """Each model's mean over a task is the value its (latest) results_*.json reports as 'METRIC,FILTER'."""
    table = load_lm_eval(folder, metric=f"{metric},{filter_name}")
    used = [Path(use.path) for use in table.files if use.used and use.scores]
    assert used
    for path in used:
        match = SAMPLES_NAME.match(path.name)
        assert match is not None
        task = match.group("task")
        results = json.loads((path.parent / f"results_{match.group('timestamp')}.json").read_text(encoding="utf-8"))
        model = model_id_for(path.parent)
        assert model == results.get("model_name", model)
        row = table.scores[table.models.index(model)]
        values = [Fraction(row[j]) for j, query in enumerate(table.queries) if query.startswith(f"{task}/")]
        reported = results["results"][task][f"{metric},{filter_name}"]
        assert math.isclose(float(sum(values, Fraction(0)) / len(values)), reported, rel_tol=1e-12)
        assert len(values) == results["n-samples"][task]["effective"]


# -- mid-2024 .json samples files -----------------------------------------------------------------------


def test_json_samples_files_of_mid_2024_load_in_both_layouts() -> None:
    table = load_lm_eval(JSON_2024, metric="acc")
    assert table.models == ("org/model-a", "org/model-b")
    assert table.queries == ("arc_easy/0", "arc_easy/1", "arc_easy/2", "arc_easy/3")
    assert table.scores.tolist() == [[1, 0, 1, 1], [0, 0, 1, 1]]
    lines = JSON_2024 / "org__model-a" / "samples_arc_easy_2024-06-05T10-11-12.345678.json"
    array = JSON_2024 / "org__model-b" / "samples_arc_easy_2024-05-20T08-30-00.123456.json"
    assert lines.read_text(encoding="utf-8").startswith('{"doc_id": 0')
    assert array.read_text(encoding="utf-8").startswith("[\n")
    assert note(table, lines) == (
        "limited: 4 of 2376 documents of task 'arc_easy' (lm-eval --limit, results_2024-06-05T10-11-12.345678.json); "
        "a .json samples file (lm-eval's main branch of May-June 2024)"
    )
    assert note(table, array).endswith("; one JSON array of samples (lm-eval of May 2024)")
    assert table.settings["filter"] == "none (each file's only filter)"


def test_an_array_entry_is_named_by_its_number(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m" / "samples_t_2024-05-20T08-30-00.json",
        json.dumps([{"doc_id": 0, "acc": 1}, {"doc_id": 1, "acc": 2}], indent=2),
    )
    with pytest.raises(LoaderError, match=rf"^{path} entry 2: score is 2, outside \[0, 1\]"):
        load_lm_eval(path, metric="acc")
    write(path, json.dumps([{"doc_id": 0, "acc": 1}, 7]))
    with pytest.raises(LoaderError, match=rf"^{path} entry 2: expected a JSON object"):
        load_lm_eval(path, metric="acc")


def test_samples_without_filter_keys_of_several_filters_are_never_merged(tmp_path: Path) -> None:
    """lm-eval 0.4.3 to 0.4.6 wrote one row per document and filter without naming the filter."""
    path = write(
        tmp_path / "m" / "samples_gsm8k_2024-09-05T10-00-00.jsonl",
        jsonl({"doc_id": 0, "exact_match": 1.0}, {"doc_id": 1, "exact_match": 0.0}, {"doc_id": 0, "exact_match": 0.0}),
    )
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(path, metric="exact_match")
    assert str(caught.value).startswith(
        f"{path}: the samples name no filter (lm-eval before 0.4.7 wrote none) and a document has 1, 2 rows"
    )
    assert "results_2024-09-05T10-00-00.json beside the file" in str(caught.value)
    write(path, jsonl({"doc_id": 0, "exact_match": 1.0}, {"doc_id": 0, "exact_match": 1.0}))
    with pytest.raises(LoaderError, match="never merged"):
        load_lm_eval(path, metric="exact_match")


# -- mixed folders: metrics, filters, tasks -------------------------------------------------------------


def test_a_file_without_the_metric_is_left_out_when_others_have_it() -> None:
    table = load_lm_eval(MIXED, metric="acc")
    assert table.queries == ("arc_easy/0", "arc_easy/1", "arc_easy/2")
    assert table.scores.tolist() == [[1, 1, 0], [0, 1, 0]]
    bbh = MIXED / "org__model-a" / f"samples_{BBH}_2024-12-20T08-00-00.100000.jsonl"
    assert note(table, bbh) == f"no sample has metric 'acc' (task '{BBH}' has exact_match); other files have it"
    assert uses(table) == [
        ("mixed/org__model-a/results_2024-12-20T08-00-00.100000.json", True, 0),
        ("mixed/org__model-a/samples_arc_easy_2024-12-20T08-00-00.100000.jsonl", True, 3),
        (f"mixed/org__model-a/samples_{BBH}_2024-12-20T08-00-00.100000.jsonl", False, 0),
        ("mixed/org__model-b/results_2024-12-21T09-30-00.200000.json", True, 0),
        ("mixed/org__model-b/samples_arc_easy_2024-12-21T09-30-00.200000.jsonl", True, 3),
        (f"mixed/org__model-b/samples_{BBH}_2024-12-21T09-30-00.200000.jsonl", False, 0),
        ("mixed/org__model-c/results_2024-12-22T10-00-00.300000.json", False, 0),
    ]
    assert note(table, MIXED / "org__model-b" / "results_2024-12-21T09-30-00.200000.json").startswith(
        "the model id 'org/model-b' (its config.model_args pretrained=)"
    )
    assert note(table, MIXED / "org__model-c" / "results_2024-12-22T10-00-00.300000.json") == (
        "lm-eval aggregates with no samples_*.jsonl beside them, so this model is not in the table; run lm-eval "
        "with --log_samples for it"
    )


def test_no_file_with_the_metric_is_an_error_naming_what_they_have() -> None:
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(MIXED, metric="f1")
    message = str(caught.value)
    assert message.startswith(f"{MIXED / 'org__model-a' / 'samples_arc_easy_2024-12-20T08-00-00.100000.jsonl'} line 1")
    assert message.endswith("none of the 4 files read has it (they have acc, acc_norm, exact_match)")


def test_the_results_json_key_metric_comma_filter_is_understood() -> None:
    table = load_lm_eval(MIXED, metric="exact_match,get-answer")
    assert table.metric == "exact_match"
    assert table.queries == tuple(f"{BBH}/{i}" for i in range(3))
    assert table.scores.tolist() == [[1, 0, 1], [1, 1, 1]]
    assert dict(table.settings) == {"reruns": "latest", "filter": "get-answer (from --metric 'exact_match,get-answer')"}
    same = load_lm_eval(MIXED, metric="exact_match", filter="get-answer")
    assert same.scores.tolist() == table.scores.tolist() and same.settings["filter"] == "get-answer"
    agreeing = load_lm_eval(MIXED, metric="exact_match,get-answer", filter="get-answer")
    assert agreeing.scores.tolist() == table.scores.tolist()


@pytest.mark.parametrize(
    ("metric", "filter_name", "message"),
    [
        (
            "exact_match,get-answer",
            "strict-match",
            "--metric 'exact_match,get-answer' names filter 'get-answer' (lm-eval's results.json key METRIC,FILTER), "
            "but --filter is 'strict-match'; write --metric exact_match --filter strict-match (or --filter get-answer)",
        ),
        (",get-answer", None, "--metric ',get-answer' is not a metric name; write the per-sample metric and the"),
        ("exact_match,", None, "--metric 'exact_match,' is not a metric name"),
        ("a,b,c", None, "--metric 'a,b,c' is not a metric name"),
    ],
)
def test_a_comma_metric_that_cannot_be_meant_is_refused(metric: str, filter_name: str | None, message: str) -> None:
    with pytest.raises(ParameterError) as caught:
        load_lm_eval(MIXED, metric=metric, filter=filter_name)
    assert str(caught.value).startswith(message)


def test_a_filter_missing_from_one_task_points_to_task_selection() -> None:
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(MIXED, metric="acc", filter="get-answer")
    assert str(caught.value).endswith(
        "no sample has filter 'get-answer'; the file has none; leave task 'arc_easy' out with --task PATTERN, or "
        "convert it on its own"
    )


def test_task_patterns_select_by_the_name_in_the_file_name() -> None:
    table = load_lm_eval(MIXED, metric="acc_norm", tasks=["arc_*", "hellaswag"])
    assert table.queries == ("arc_easy/0", "arc_easy/1", "arc_easy/2")
    assert table.settings["tasks"] == "arc_*, hellaswag"
    left_out = [use for use in table.files if not use.used and "samples_" in use.path]
    assert [use.note for use in left_out] == [f"task '{BBH}' is not selected by --task arc_*, hellaswag"] * 2
    assert len(table.files) == 7  # every file met is listed
    assert load_lm_eval(MIXED, metric="exact_match", tasks=["bbh_*"]).shape == (2, 3)  # one filter left: no --filter


def test_task_patterns_are_whole_name_and_case_sensitive() -> None:
    for patterns in (["arc"], ["ARC_*"], ["hellaswag", "mmlu_*"]):
        with pytest.raises(LoaderError) as caught:
            load_lm_eval(MIXED, metric="acc", tasks=patterns)
        assert str(caught.value) == (
            f"{MIXED}: --task {', '.join(patterns)} selects none of the tasks found: arc_easy, {BBH}; patterns "
            "match the whole task name (use * for any characters: gsm8k*)"
        )


def test_selected_tasks_without_the_metric_are_an_error() -> None:
    with pytest.raises(LoaderError, match="metric 'acc' not found; the line has exact_match; none of the 2 files"):
        load_lm_eval(MIXED, metric="acc", tasks=["bbh*"])


def test_results_beside_unselected_samples_are_listed_as_not_read(tmp_path: Path) -> None:
    row = jsonl({"doc_id": 0, "filter": "none", "acc": 1})
    write(tmp_path / "m1" / "samples_x_2024-05-01T10-00-00.jsonl", row)
    results = write(tmp_path / "m1" / "results_2024-05-01T10-00-00.json", json.dumps({"model_name": "org/m1"}))
    write(tmp_path / "m2" / "samples_y_2024-05-01T10-00-00.jsonl", row)
    table = load_lm_eval(tmp_path, metric="acc", tasks=["y"])
    assert table.models == ("m2",)
    assert [(Path(use.path).name, use.used, use.note) for use in table.files] == [
        ("results_2024-05-01T10-00-00.json", False, "not read: every samples file beside it is left out"),
        ("samples_x_2024-05-01T10-00-00.jsonl", False, "task 'x' is not selected by --task y"),
        ("samples_y_2024-05-01T10-00-00.jsonl", True, ""),
    ]
    write(results, json.dumps({"config": {"model_args": "dtype=float16"}}))
    unnamed = load_lm_eval(tmp_path / "m1", metric="acc")
    assert unnamed.models == ("m1",)
    assert unnamed.files[0].note.startswith("names no model (no model_name, no pretrained= or model= in")


# -- aggregates only, and LFS pointers ------------------------------------------------------------------


def test_a_folder_of_results_only_needs_log_samples() -> None:
    folder = MIXED / "org__model-c"
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(folder, metric="acc")
    assert str(caught.value) == (
        f"{folder}: holds lm-eval results_*.json (aggregates) but no samples_*.jsonl: run lm-eval with "
        "--log_samples (per-sample scores are needed)"
    )
    with pytest.raises(LoaderError, match=r"results files \(aggregates\) and no samples_\*\.jsonl among the inputs"):
        load_lm_eval(list(folder.glob("results_*.json")), metric="acc")


def test_results_files_named_with_their_samples_are_taken_for_the_model_id() -> None:
    """A shell glob (out/*/*) names results files too: they give the model id, as in a searched folder."""
    named = sorted((MIXED / "org__model-a").iterdir())
    table = load_lm_eval(named, metric="acc")
    assert table.models == ("org/model-a",)
    assert [use.used for use in table.files] == [True, True, False]


def test_an_lfs_pointer_is_named_for_samples_and_results_files(tmp_path: Path) -> None:
    samples = write(tmp_path / "m" / "samples_t_2024-05-01T10-00-00.jsonl", LFS)
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(tmp_path, metric="acc")
    assert str(caught.value) == (
        f"{samples}: a git-lfs pointer file, not the file itself (it names an object of 48213 bytes); fetch the "
        "real file with git lfs pull (or download it) and convert again"
    )
    write(samples, jsonl({"doc_id": 0, "filter": "none", "acc": 1}))
    results = write(tmp_path / "m" / "results_2024-05-01T10-00-00.json", LFS)
    with pytest.raises(LoaderError, match=rf"^{results}: a git-lfs pointer file, not the file itself"):
        load_lm_eval(tmp_path, metric="acc")
    json_samples = tmp_path / "n" / "samples_t_2024-05-01T10-00-00.json"
    write(json_samples, LFS)
    with pytest.raises(LoaderError, match=rf"^{json_samples}: a git-lfs pointer file"):
        load_lm_eval(json_samples, metric="acc")
