"""The harness loaders of ``sysrs_ref.loaders`` on the fixtures of ``data/fixtures`` (see its README) and on bad input."""

from __future__ import annotations

import csv
import json
import os
import re
import runpy
import tempfile
import zipfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sysrs_ref.errors import InstanceError, LoaderError, ParameterError
from sysrs_ref.loaders import (
    SOURCES,
    ResultsTable,
    convert,
    inspect_ai,
    load_helm,
    load_inspect,
    load_lm_eval,
    load_long_csv,
    load_scores,
    save_table,
)
from sysrs_ref.loaders._zip import open_archive, read_member
from sysrs_ref.loaders.lm_eval import SAMPLES_NAME
from sysrs_ref.loaders.table import MISSING_POLICIES, assemble
from tests.harness_files import jsonl, write
from tests.strategies import LongCsvTable, long_csv_tables

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"
LM_EVAL = FIXTURES / "lm-eval"
HELM = FIXTURES / "helm"
INSPECT = FIXTURES / "inspect"
LONG_CSV = FIXTURES / "long-csv"

ANATOMY = "mmlu:subject=anatomy,method=multiple_choice_joint/"
PHILOSOPHY = "mmlu:subject=philosophy,method=multiple_choice_joint/"


def check(
    table: ResultsTable,
    models: tuple[str, ...],
    queries: tuple[str, ...],
    scores: list[list[float]],
    *,
    missing: dict[str, int],
    dropped_models: tuple[str, ...] = (),
    dropped_queries: tuple[str, ...] = (),
    duplicates: int = 0,
) -> None:
    """Every field of *table* is as expected (the matrix exactly, as float64)."""
    assert table.models == models
    assert table.queries == queries
    assert table.scores.dtype == np.float64
    assert table.scores.tolist() == scores
    assert dict(table.missing) == missing
    assert table.dropped_models == dropped_models
    assert table.dropped_queries == dropped_queries
    assert table.duplicates == duplicates


# -- lm-evaluation-harness ------------------------------------------------------------------------------

LM_QUERIES = ("gsm8k/0", "gsm8k/1", "gsm8k/2", "gsm8k/3", "gsm8k_cot/0", "gsm8k_cot/1")


def test_lm_eval_strict_match_drop_models() -> None:
    table = load_lm_eval([LM_EVAL / "good"], metric="exact_match", filter="strict-match", missing="drop-models")
    check(
        table,
        ("org/model-a", "org/model-b"),
        LM_QUERIES,
        [[1, 1, 0, 1, 1, 0], [0, 0, 1, 1, 0, 1]],
        missing={"model-c": 2},
        dropped_models=("model-c",),
        duplicates=1,
    )
    assert (table.source, table.metric) == ("lm-eval", "exact_match")


def test_lm_eval_the_filter_changes_the_matrix() -> None:
    table = load_lm_eval(LM_EVAL / "good", metric="exact_match", filter="flexible-extract", missing="drop-models")
    check(
        table,
        ("org/model-a", "org/model-b"),
        LM_QUERIES,
        [[1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]],
        missing={"model-c": 2},
        dropped_models=("model-c",),
        duplicates=1,
    )


def test_lm_eval_drop_queries_keeps_the_incomplete_model_first_in_directory_order() -> None:
    table = load_lm_eval([LM_EVAL / "good"], metric="exact_match", filter="strict-match", missing="drop-queries")
    check(
        table,
        ("model-c", "org/model-a", "org/model-b"),
        LM_QUERIES[:4],
        [[0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 1, 1]],
        missing={"model-c": 2},
        dropped_queries=("gsm8k_cot/0", "gsm8k_cot/1"),
        duplicates=1,
    )


def test_lm_eval_paths_are_read_in_the_order_given() -> None:
    good = LM_EVAL / "good"
    table = load_lm_eval([good / "org__model-b", good / "org__model-a"], metric="exact_match", filter="strict-match")
    check(
        table,
        ("org/model-b", "org/model-a"),
        LM_QUERIES,
        [[0, 0, 1, 1, 0, 1], [1, 1, 0, 1, 1, 0]],
        missing={},
        duplicates=1,
    )


def test_lm_eval_missing_fail_lists_the_model_and_its_count() -> None:
    with pytest.raises(LoaderError) as caught:
        load_lm_eval([LM_EVAL / "good"], metric="exact_match", filter="strict-match")
    message = str(caught.value)
    assert "1 of 3 models" in message
    assert "'model-c' lacks 2 (first: 'gsm8k_cot/0')" in message
    assert "--missing drop-models" in message and "--missing drop-queries" in message
    assert str(LM_EVAL / "good") in message


def test_lm_eval_several_filters_need_a_choice() -> None:
    with pytest.raises(
        LoaderError,
        match=r"samples_gsm8k_2024-05-03T08-00-00\.5\.jsonl: the samples come with 2 "
        r"filters \(strict-match, flexible-extract\); choose one with --filter",
    ):
        load_lm_eval([LM_EVAL / "good"], metric="exact_match")


def test_lm_eval_a_filter_that_is_absent_is_refused() -> None:
    with pytest.raises(LoaderError, match="no sample has filter 'none'; the file has strict-match, flexible-extract"):
        load_lm_eval([LM_EVAL / "good"], metric="exact_match", filter="none")


def test_lm_eval_conflicting_duplicate_names_both_lines() -> None:
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(LM_EVAL / "bad", metric="acc")
    message = str(caught.value)
    assert "model 'model-x', query 'arc_easy/0' has two different scores" in message
    assert "jsonl line 1" in message and "jsonl line 3" in message


@pytest.mark.parametrize(
    ("name", "task"),
    [
        ("samples_gsm8k_2024-05-01T10-00-00.123456.jsonl", "gsm8k"),
        ("samples_gsm8k_cot_2024-05-01T10-00-00.jsonl", "gsm8k_cot"),
        ("samples_mmlu_abstract_algebra_2025-12-31T23-59-59.5.jsonl", "mmlu_abstract_algebra"),
        ("samples_a_2024-01-01T00-00-00_2024-05-01T10-00-00.jsonl", "a_2024-01-01T00-00-00"),
    ],
)
def test_lm_eval_task_is_the_name_between_samples_and_the_timestamp(name: str, task: str) -> None:
    match = SAMPLES_NAME.match(name)
    assert match is not None and match.group("task") == task


@pytest.mark.parametrize(
    "name",
    [
        "samples_gsm8k.jsonl",
        "samples_gsm8k_2024-05-01.jsonl",
        "samples_gsm8k_2024-05-01T10:00:00.jsonl",
        "results_2024-05-01T10-00-00.jsonl",
    ],
)
def test_lm_eval_names_without_the_timestamp_do_not_match(name: str) -> None:
    assert SAMPLES_NAME.match(name) is None


def test_lm_eval_file_named_without_timestamp_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "m" / "samples_gsm8k.jsonl", jsonl({"doc_id": 0, "filter": "none", "acc": 1}))
    with pytest.raises(LoaderError, match=r"samples_gsm8k\.jsonl: not an lm-eval samples file name"):
        load_lm_eval(path, metric="acc")


def test_lm_eval_single_filter_needs_no_choice_and_numbers_of_every_kind(tmp_path: Path) -> None:
    rows = [
        {"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": value}
        for i, value in enumerate([True, 0, 0.25, 1.0])
    ]
    write(tmp_path / "m1" / "samples_arc_easy_2024-05-01T10-00-00.jsonl", jsonl(*rows))
    write(tmp_path / "m2" / "samples_arc_easy_2024-05-01T10-00-00.jsonl", jsonl(*reversed(rows)))
    table = load_lm_eval([tmp_path], metric="acc")
    check(table, ("m1", "m2"), tuple(f"arc_easy/{i}" for i in range(4)), [[1, 0, 0.25, 1], [1, 0, 0.25, 1]], missing={})
    assert load_lm_eval([tmp_path], metric="acc", filter="none").scores.tolist() == table.scores.tolist()


def test_lm_eval_missing_metric_names_the_line_and_what_it_has(tmp_path: Path) -> None:
    path = write(
        tmp_path / "m" / "samples_gsm8k_2024-05-01T10-00-00.jsonl",
        jsonl(
            {"doc_id": 0, "filter": "none", "metrics": ["exact_match"], "exact_match": 1.0},
            {"doc_id": 1, "filter": "none", "metrics": ["exact_match"], "exact_match": 0.0},
        ),
    )
    with pytest.raises(LoaderError) as caught:
        load_lm_eval(path, metric="acc")
    assert str(caught.value) == f"{path} line 1: metric 'acc' not found; the line has exact_match"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"doc_id": 0, "filter": "none", "acc": NaN}', "line 2: score is nan"),
        ('{"doc_id": 0, "filter": "none", "acc": Infinity}', "line 2: score is inf"),
        ('{"doc_id": 0, "filter": "none", "acc": 1.5}', r"line 2: score is 1\.5, outside \[0, 1\]"),
        ('{"doc_id": 0, "filter": "none", "acc": -0.5}', r"line 2: score is -0\.5, outside \[0, 1\]"),
        ('{"doc_id": 0, "filter": "none", "acc": "1"}', "line 2: metric 'acc' is '1', not a number"),
        ('{"doc_id": 0, "filter": "none", "acc": null}', "line 2: metric 'acc' is None, not a number"),
        ('{"doc_id": 0, "filter": "none", "acc": ["ref", "pred"]}', "line 2: metric 'acc' is a list, not one score"),
        ('{"doc_id": 0, "filter": "none", "acc": 1', "line 2: not valid JSON"),
        ("[1, 2]", "line 2: expected a JSON object"),
        ('{"filter": "none", "acc": 1}', "line 2: no doc_id"),
    ],
)
def test_lm_eval_bad_lines_are_named(tmp_path: Path, line: str, message: str) -> None:
    first = '{"doc_id": 9, "filter": "none", "acc": 1}'
    path = write(tmp_path / "m" / "samples_t_2024-05-01T10-00-00.jsonl", f"{first}\n{line}\n")
    with pytest.raises(LoaderError, match=message) as caught:
        load_lm_eval(path, metric="acc")
    assert str(caught.value).startswith(str(path))


def test_lm_eval_model_id_rules(tmp_path: Path) -> None:
    sample = jsonl({"doc_id": 0, "filter": "none", "acc": 1})
    for folder, results in [
        ("named", {"model_name": "org/named", "config": {"model_args": "pretrained=org/other"}}),
        ("args", {"config": {"model_args": "dtype=float16,pretrained=org/from-args"}}),
        ("dict-args", {"config": {"model_args": {"pretrained": "org/from-dict"}}}),
        ("api", {"config": {"model_args": "model=gpt-x,base_url=http://localhost"}}),
        ("bare", None),
    ]:
        write(tmp_path / folder / "samples_t_2024-05-01T10-00-00.jsonl", sample)
        if results is not None:
            write(tmp_path / folder / "results_2024-05-01T10-00-00.json", json.dumps(results))
    table = load_lm_eval(tmp_path, metric="acc")
    assert table.models == ("gpt-x", "org/from-args", "bare", "org/from-dict", "org/named")


def test_lm_eval_results_files_naming_two_models_are_refused(tmp_path: Path) -> None:
    write(tmp_path / "samples_t_2024-05-01T10-00-00.jsonl", jsonl({"doc_id": 0, "filter": "none", "acc": 1}))
    write(tmp_path / "results_2024-05-01T10-00-00.json", json.dumps({"model_name": "a"}))
    write(tmp_path / "results_2024-05-02T10-00-00.json", json.dumps({"model_name": "b"}))
    with pytest.raises(LoaderError, match=r"results files name different models: 'a'.*'b'"):
        load_lm_eval(tmp_path, metric="acc")


# -- HELM -----------------------------------------------------------------------------------------------

HELM_QUERIES = tuple(ANATOMY + i for i in ("id10", "id11", "id12", "id13")) + tuple(
    PHILOSOPHY + i for i in ("id20", "id21")
)


def test_helm_drop_models() -> None:
    table = load_helm([HELM / "good"], metric="exact_match", missing="drop-models")
    check(
        table,
        ("org/model-a", "org/model-b"),
        HELM_QUERIES,
        [[1, 0.5, 1, 1, 1, 0], [0, 0, 1, 0, 1, 1]],  # id11's two trials averaged (HELM's own reduction)
        missing={"local/model-c": 2},
        dropped_models=("local/model-c",),
        duplicates=1,
    )
    assert table.source == "helm"


def test_helm_drop_queries_and_model_deployment_as_model_id() -> None:
    table = load_helm(HELM / "good", metric="exact_match", missing="drop-queries")
    check(
        table,
        ("org/model-a", "org/model-b", "local/model-c"),
        HELM_QUERIES[:4],
        [[1, 0.5, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0]],
        missing={"local/model-c": 2},
        dropped_queries=HELM_QUERIES[4:],
        duplicates=1,
    )


def test_helm_fixture_holds_the_traps_that_must_be_ignored() -> None:
    """The perturbed and later-trial entries disagree with the kept ones, so reading them would change the result."""
    entries = json.loads((HELM / "good/runs/v1/mmlu_anatomy_model-a/per_instance_stats.json").read_text())

    def exact(entry: dict[str, object], perturbed: bool) -> list[float]:
        return [
            stat["mean"]
            for stat in entry["stats"]  # type: ignore[attr-defined]
            if stat["name"]["name"] == "exact_match" and ("perturbation" in stat["name"]) == perturbed
        ]

    perturbed = [e for e in entries if "perturbation" in e]
    later = [e for e in entries if e["train_trial_index"] != 0]
    assert [(e["instance_id"], exact(e, True)) for e in perturbed] == [("id10", [0])]
    assert [(e["instance_id"], exact(e, False)) for e in later] == [("id11", [1])]
    id12 = next(e for e in entries if e["instance_id"] == "id12" and "perturbation" not in e)
    assert exact(id12, False) == [1] and exact(id12, True) == [0]
    # and the kept values differ from those: id10 is 1, id11 is 0 in trial 0, id12 is 1
    table = load_helm(HELM / "good/runs/v1/mmlu_anatomy_model-a", metric="exact_match", epochs="first")
    assert table.scores.tolist() == [[1, 0, 1, 1]]
    # by default the trials are averaged, as HELM's stats.json does: id11 is (0 + 1) / 2
    assert load_helm(HELM / "good/runs/v1/mmlu_anatomy_model-a", metric="exact_match").scores.tolist() == [
        [1, 0.5, 1, 1]
    ]


def test_helm_missing_fail_lists_the_model() -> None:
    with pytest.raises(LoaderError, match=r"'local/model-c' lacks 2 \(first: 'mmlu:subject=philosophy"):
        load_helm([HELM / "good"], metric="exact_match")


def test_helm_metric_choice_and_unknown_metric() -> None:
    table = load_helm(HELM / "good", metric="quasi_exact_match", missing="drop-models")
    assert table.scores.tolist() == [[1, 0.5, 1, 1, 1, 0], [0, 0, 1, 0, 1, 1]]
    with pytest.raises(LoaderError, match=r"entry 1 \(instance id10\): score is 61\.0, outside \[0, 1\]"):
        load_helm(HELM / "good", metric="num_prompt_tokens")
    with pytest.raises(
        LoaderError,
        match="no unperturbed stat named 'em' in any train trial; the file has "
        "exact_match, num_prompt_tokens, quasi_exact_match",
    ):
        load_helm(HELM / "good", metric="em")


def test_helm_conflicting_duplicate() -> None:
    with pytest.raises(
        LoaderError,
        match=r"query 'mmlu:subject=anatomy/id10' has two different scores: 1 at "
        r".*entry 1 \(instance id10\) and 0 at .*entry 3 \(instance id10\)",
    ):
        load_helm(HELM / "bad", metric="exact_match")


def test_helm_without_run_spec_uses_the_directory_name(tmp_path: Path) -> None:
    stats = [
        {
            "instance_id": "id1",
            "train_trial_index": 0,
            "stats": [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": 0.5}],
        }
    ]
    for model in ("org_m1", "org_m2"):
        write(tmp_path / f"boolq:subject=x,model={model}" / "per_instance_stats.json", json.dumps(stats))
    table = load_helm(tmp_path, metric="exact_match")
    check(table, ("org_m1", "org_m2"), ("boolq:subject=x/id1",), [[0.5], [0.5]], missing={})


def test_helm_perturbation_on_the_entry_alone_is_enough_to_skip_it(tmp_path: Path) -> None:
    """Each filter on its own: a perturbed entry whose stat names carry no perturbation, and the reverse."""

    def stat(mean: float, perturbed: bool = False) -> dict[str, object]:
        name: dict[str, object] = {"name": "em", "split": "test"}
        if perturbed:
            name["perturbation"] = {"name": "typos"}
        return {"name": name, "count": 1, "mean": mean}

    entries = [
        {"instance_id": "a", "train_trial_index": 0, "stats": [stat(1)]},
        {"instance_id": "a", "train_trial_index": 0, "perturbation": {"name": "typos"}, "stats": [stat(0)]},
        {"instance_id": "a", "train_trial_index": 0, "stats": [stat(0, perturbed=True)]},
        {"instance_id": "a", "train_trial_index": 2, "stats": [stat(0)]},
    ]
    path = write(tmp_path / "run" / "per_instance_stats.json", json.dumps(entries))
    check(load_helm(path, metric="em", epochs="first"), ("run",), ("run/a",), [[1]], missing={})
    check(load_helm(path, metric="em"), ("run",), ("run/a",), [[0.5]], missing={})  # trials 0 and 2 averaged


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[{", "not valid JSON"),
        ('{"instance_id": "x"}', "expected a JSON list of per-instance stats"),
        ('[{"train_trial_index": 0, "stats": []}]', "entry 1: no instance_id"),
        ('[{"instance_id": "a", "train_trial_index": "0", "stats": []}]', "train_trial_index is '0'"),
        ('[{"instance_id": "a", "stats": [{"mean": 1}]}]', "a stat without a name object"),
        ('[{"instance_id": "a", "stats": [{"name": {"name": "em"}, "count": 0}]}]', "stat 'em' has no mean"),
        ('[{"instance_id": "a", "stats": [{"name": {"name": "em"}, "mean": NaN}]}]', "score is nan"),
    ],
)
def test_helm_bad_files_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path / "run" / "per_instance_stats.json", text)
    with pytest.raises(LoaderError, match=message) as caught:
        load_helm(path, metric="em")
    assert str(caught.value).startswith(str(path))


# -- inspect-ai -----------------------------------------------------------------------------------------

ARITH = tuple(f"arith/{i}" for i in range(1, 7))


def test_inspect_letters_drop_models() -> None:
    table = load_inspect([INSPECT / "good"], metric="match", missing="drop-models", epochs="first")
    check(
        table,
        ("openai/model-a", "openai/model-b"),
        ARITH,
        [[1, 1, 0, 0.5, 1, 0], [0, 1, 1, 1, 0.5, 0]],
        missing={"local/model-c": 2},
        dropped_models=("local/model-c",),
        duplicates=1,
    )
    assert table.source == "inspect"


def test_inspect_numbers_drop_queries() -> None:
    table = load_inspect(INSPECT / "good", metric="judge", missing="drop-queries", epochs="first")
    check(
        table,
        ("openai/model-a", "openai/model-b", "local/model-c"),
        ARITH[:4],
        [[0.75, 1, 0, 0.5], [0.5, 1, 0.75, 1], [1, 0, 0.25, 1]],
        missing={"local/model-c": 2},
        dropped_queries=ARITH[4:],
        duplicates=1,
    )


def test_inspect_missing_fail_counts_the_errored_and_the_absent_sample() -> None:
    with pytest.raises(LoaderError, match=r"'local/model-c' lacks 2 \(first: 'arith/5'\)"):
        load_inspect(INSPECT / "good", metric="match")


@pytest.mark.parametrize(
    ("value", "score"),
    [("C", 1), ("P", Fraction(1, 2)), ("I", 0), ("N", 0), (True, 1), (False, 0), (1, 1), (0.25, 0.25)],
)
def test_inspect_value_mapping(value: object, score: float) -> None:
    assert inspect_ai.score_value(value, "here") == score  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("X", "value 'X' is not one of C, P, I, N"),
        ({"a": 1}, "the value is a JSON object"),
        ([1, 0], "the value is a list"),
        (None, "the value is None"),
    ],
)
def test_inspect_values_that_are_not_one_score(value: object, message: str) -> None:
    with pytest.raises(LoaderError, match=f"^here: {message}"):
        inspect_ai.score_value(value, "here")  # type: ignore[arg-type]


def test_inspect_eval_and_json_logs_agree() -> None:
    eval_file = INSPECT / "good" / "2024-05-01T10-00-00+00-00_arith_model-a.eval"
    for metric in ("match", "judge"):
        from_eval = load_inspect(eval_file, metric=metric)
        from_json = load_inspect(INSPECT / "twin" / "model-a.json", metric=metric)
        assert (from_eval.models, from_eval.queries) == (from_json.models, from_json.queries)
        assert from_eval.scores.tolist() == from_json.scores.tolist()
        assert from_eval.shape == (1, 6)
    # and both together are identical duplicates, merged
    both = load_inspect([eval_file, INSPECT / "twin"], metric="match")
    assert both.duplicates == 6 and both.scores.tolist() == [[0.5, 0.5, 0.5, 0.75, 0.5, 0.5]]  # epochs 1, 2 averaged


def test_inspect_only_epoch_1_is_read_under_epochs_first() -> None:
    """Epoch 2 of the fixture differs from epoch 1, so reading it would change the matrix or raise a conflict."""
    with zipfile.ZipFile(INSPECT / "good" / "2024-05-01T10-00-00+00-00_arith_model-a.eval") as archive:
        epoch_2 = [
            json.loads(archive.read(f"samples/{i}_epoch_2.json"))["scores"]["match"]["value"] for i in range(1, 7)
        ]
    assert epoch_2 == ["I", "I", "C", "C", "I", "C"]
    eval_file = INSPECT / "good" / "2024-05-01T10-00-00+00-00_arith_model-a.eval"
    assert load_inspect(eval_file, metric="match", epochs="first").scores.tolist() == [[1, 1, 0, 0.5, 1, 0]]
    # by default the log's own reducer (mean) combines the two epochs
    assert load_inspect(eval_file, metric="match").scores.tolist() == [[0.5, 0.5, 0.5, 0.75, 0.5, 0.5]]


def test_inspect_a_dict_value_names_scorer_and_sample() -> None:
    with pytest.raises(
        LoaderError,
        match=r"_arith_model-a\.eval samples/1_epoch_1\.json sample 1 scorer 'multi': "
        r"the value is a JSON object",
    ):
        load_inspect(INSPECT / "good", metric="multi")


def test_inspect_unknown_scorer_lists_the_scorers() -> None:
    with pytest.raises(
        LoaderError, match="no sample has a score from scorer 'accuracy'; the logs have judge, match, multi"
    ):
        load_inspect(INSPECT / "good", metric="accuracy")


def test_inspect_conflicting_duplicate_across_logs() -> None:
    with pytest.raises(
        LoaderError,
        match=r"model 'openai/model-a', query 'arith/1' has two different scores: 1 at "
        r".*model-a-1\.json sample 1 and 0 at .*model-a-2\.json sample 1",
    ):
        load_inspect(INSPECT / "bad", metric="match")


def test_inspect_generator_reproduces_the_committed_fixtures(tmp_path: Path) -> None:
    generator = runpy.run_path(str(FIXTURES / "make_inspect_fixtures.py"))
    generator["main"](tmp_path)
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(INSPECT) for p in INSPECT.rglob("*") if p.is_file())
    assert made == committed and len(made) == 31
    for relative in made:
        if relative.suffix == ".eval":
            with open_archive(tmp_path / relative, "log") as new, open_archive(INSPECT / relative, "log") as old:
                assert [(i.filename, i.date_time, i.compress_type) for i in new.infolist()] == [
                    (i.filename, i.date_time, i.compress_type) for i in old.infolist()
                ]
                for info in new.infolist():
                    old_info = old.getinfo(info.filename)
                    path = tmp_path / relative
                    assert read_member(new, info, path, 2**20) == read_member(old, old_info, path, 2**20)
        else:
            assert (tmp_path / relative).read_bytes() == (INSPECT / relative).read_bytes()


def make_eval(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


SAMPLE = json.dumps({"id": "s1", "epoch": 1, "scores": {"match": {"value": "P"}}}).encode()
HEADER = json.dumps({"eval": {"model": "m", "task": "t"}}).encode()


def test_inspect_a_log_with_only_a_journal_start_is_unfinished(tmp_path: Path) -> None:
    path = make_eval(tmp_path / "a.eval", {"_journal/start.json": HEADER, "samples/s1_epoch_1.json": SAMPLE})
    with pytest.raises(LoaderError, match=r"every log \(1\) is unfinished and --unfinished drop left them all out"):
        load_inspect(path, metric="match", unfinished="drop")
    with pytest.raises(LoaderError, match=r"a\.eval: status 'started': .*\(it has no header\.json yet\)"):
        load_inspect(path, metric="match")


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"samples/s1_epoch_1.json": SAMPLE}, "the archive has no header.json"),
        ({"header.json": b"{}", "samples/s1_epoch_1.json": SAMPLE}, "header.json: no eval.model and eval.task"),
        ({"header.json": HEADER, "samples/s1_epoch_1.json": b"{not json"}, "samples/s1_epoch_1.json: not valid JSON"),
        ({"header.json": HEADER, "samples/s1_epoch_1.json": b'{"epoch": 1}'}, "a sample without an id"),
    ],
)
def test_inspect_bad_archives_are_named(tmp_path: Path, members: dict[str, bytes], message: str) -> None:
    path = make_eval(tmp_path / "a.eval", members)
    with pytest.raises(LoaderError, match=message) as caught:
        load_inspect(path, metric="match")
    assert str(caught.value).startswith(str(path))


def test_inspect_not_a_zip_and_too_large_members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LoaderError, match="not a zip archive"):
        load_inspect(write(tmp_path / "x.eval", "plain text"), metric="match")
    path = make_eval(tmp_path / "a.eval", {"header.json": HEADER, "samples/s1_epoch_1.json": SAMPLE})
    monkeypatch.setattr(inspect_ai, "MAX_MEMBER_BYTES", len(SAMPLE) - 1)
    with pytest.raises(
        LoaderError, match=r"samples/s1_epoch_1\.json: over the limit of \d+ bytes uncompressed; refusing"
    ):
        load_inspect(path, metric="match")


def test_inspect_later_epochs_are_not_even_read(tmp_path: Path) -> None:
    path = make_eval(
        tmp_path / "a.eval",
        {"header.json": HEADER, "samples/s1_epoch_1.json": SAMPLE, "samples/s1_epoch_2.json": b"{damaged"},
    )
    check(load_inspect(path, metric="match", epochs="first"), ("m",), ("t/s1",), [[0.5]], missing={})


def test_inspect_directory_skips_the_log_listing(tmp_path: Path) -> None:
    write(tmp_path / "logs.json", json.dumps({"a.json": {"eval": {}}}))
    write(
        tmp_path / "a.json",
        json.dumps(
            {
                "eval": {"model": "m", "task": "t"},
                "samples": [
                    {"id": 1, "epoch": 1, "scores": {"s": {"value": 1}}},
                    {"id": 1, "epoch": 2, "scores": {"s": {"value": 0}}},
                ],
            }
        ),
    )
    check(load_inspect(tmp_path, metric="s", epochs="first"), ("m",), ("t/1",), [[1]], missing={})


def test_inspect_json_log_without_samples(tmp_path: Path) -> None:
    path = write(tmp_path / "a.json", json.dumps({"eval": {"model": "m", "task": "t"}}))
    with pytest.raises(LoaderError, match=r"no log read holds samples \(1 without any: written with --no-log-samples"):
        load_inspect(path, metric="s")


# -- long .csv ------------------------------------------------------------------------------------------

CSV_QUERIES = ("q1", "q2", "q3", "q4", "q5", "q,6")


def test_long_csv_drop_models() -> None:
    table = load_long_csv([LONG_CSV / "good"], missing="drop-models")
    check(
        table,
        ("model-a", "model-b"),
        CSV_QUERIES,
        [[1, 0.5, 0, 0.25, 1, 0.1], [0, 1, 1, 0.75, 0, 1]],
        missing={"model-c": 2},
        dropped_models=("model-c",),
        duplicates=1,
    )
    assert (table.source, table.metric) == ("long-csv", "score")


def test_long_csv_drop_queries() -> None:
    table = load_long_csv(LONG_CSV / "good", missing="drop-queries")
    check(
        table,
        ("model-a", "model-b", "model-c"),
        CSV_QUERIES[:4],
        [[1, 0.5, 0, 0.25], [0, 1, 1, 0.75], [0.5, 0.5, 0.1, 0.5]],
        missing={"model-c": 2},
        dropped_queries=("q5", "q,6"),
        duplicates=1,
    )


def test_long_csv_missing_fail_and_conflict() -> None:
    with pytest.raises(LoaderError, match=r"'model-c' lacks 2 \(first: 'q5'\)"):
        load_long_csv(LONG_CSV / "good")
    with pytest.raises(
        LoaderError,
        match=r"model 'model-a', query 'q1' has two different scores: 1 at "
        r".*conflict\.csv line 2 and 0 at .*conflict\.csv line 6",
    ):
        load_long_csv(LONG_CSV / "bad")


def test_long_csv_reports_every_file_and_its_lines(tmp_path: Path) -> None:
    write(tmp_path / "b.csv", "model,query,score\nm1,q1,1\nm2,q1,0\nm1,q1,1\n")
    write(tmp_path / "a.csv", "model,query,score\n")
    table = load_long_csv(tmp_path)
    assert [tuple(use) for use in table.files] == [
        (str(tmp_path / "a.csv"), True, 0, "a header and no scores"),
        (str(tmp_path / "b.csv"), True, 3, ""),
    ]
    assert table.duplicates == 1 and table.settings == {}


def test_long_csv_metric_names_the_score_column(tmp_path: Path) -> None:
    path = write(tmp_path / "s.csv", "Model,Query,acc,score\na,q,1,0\nb,q,0,1\n")
    assert load_long_csv(path, metric="acc").scores.tolist() == [[1], [0]]
    assert load_long_csv(path).scores.tolist() == [[0], [1]]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("a,q,nan\n", "line 2: score is nan"),
        ("a,q,inf\n", "line 2: score is inf"),
        ("a,q,1.5\n", r"line 2: score is 1\.5, outside \[0, 1\]"),
        ("a,q,-0.1\n", r"line 2: score is -0\.1, outside \[0, 1\]"),
        ("a,q,abc\n", "line 2: score is 'abc', not a score"),
        ("a,q,\n", "line 2: score is empty"),
        ("a,q,1e-999999999\n", "line 2: score is 1e-999999999, below 1e-1000"),
        ("a,q,1e999999999\n", r"line 2: score is 1e999999999, above 1e\+1000"),
        ("a,q\n", "line 2 has 2 cells but the header names 3 columns"),
        ("a, ,1\n", "line 2: empty model or query id"),
    ],
)
def test_long_csv_bad_lines_are_named(tmp_path: Path, body: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.loaders import table
    from sysrs_ref.scores import checked_score as exact  # what table.checked_score is

    def bounded(value: object) -> Fraction:  # huge exponents are refused before any exact arithmetic
        assert not (isinstance(value, Decimal) and abs(value.adjusted()) > 1000), f"exact arithmetic on {value}"
        return exact(value)

    monkeypatch.setattr(table, "checked_score", bounded)
    path = write(tmp_path / "s.csv", "model,query,score\n" + body)
    with pytest.raises(LoaderError, match=message) as caught:
        load_long_csv(path)
    assert str(caught.value).startswith(f"{path} line 2")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("model,score\na,1\n", "line 1: the header lacks 'query'"),
        ("model,model,query,score\n", "line 1: the header has 2 columns named 'model'"),
    ],
)
def test_long_csv_bad_headers(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(LoaderError, match=message):
        load_long_csv(write(tmp_path / "s.csv", text))


# -- errors common to every source ------------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_a_path_that_does_not_exist(tmp_path: Path, source: str) -> None:
    with pytest.raises(LoaderError, match=f"^{re.escape(str(tmp_path / 'nowhere'))}: no such file or directory$"):
        convert(source, [tmp_path / "nowhere"], metric="m")


@pytest.mark.parametrize("source", SOURCES)
def test_a_directory_without_result_files(tmp_path: Path, source: str) -> None:
    write(tmp_path / "notes.txt", "nothing here")
    with pytest.raises(LoaderError, match=r"found no .* in this directory or below it"):
        convert(source, [tmp_path], metric="m")


def test_no_paths_at_all() -> None:
    with pytest.raises(LoaderError, match="no input paths given"):
        load_long_csv([])


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_bytes(b"model,query,score\n\xff\xfe,q,1\n")
    with pytest.raises(LoaderError, match=f"^{re.escape(str(path))}: not UTF-8 text"):
        load_long_csv(path)


def test_an_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated: the tests may run as root, who reads every file whatever its mode."""
    path = write(tmp_path / "s.csv", "model,query,score\na,q,1\n")

    opened = os.open

    def refuse(name: str, flags: int, *args: int) -> int:
        if name == str(path):
            raise PermissionError(13, "Permission denied", name)
        return opened(name, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(LoaderError, match=f"^{re.escape(str(path))}: permission denied; make the file readable$"):
        load_long_csv(path)


def test_unknown_source_policy_and_misplaced_filter() -> None:
    with pytest.raises(
        ParameterError, match="unknown source 'openllm'; use one of lm-eval, helm, inspect, lighteval, long-csv"
    ):
        convert("openllm", [LONG_CSV / "good"], metric="score")
    with pytest.raises(ParameterError, match="use one of fail, drop-models, drop-queries"):
        convert("long-csv", [LONG_CSV / "good"], metric="score", missing="drop")
    with pytest.raises(ParameterError, match="use one of fail, drop-models, drop-queries"):
        load_helm(HELM / "good", metric="exact_match", missing="ignore")
    with pytest.raises(ParameterError, match="--filter applies to lm-eval results, not to helm; leave it out"):
        convert("helm", [HELM / "good"], metric="exact_match", filter="none")


def test_convert_dispatches_to_each_loader() -> None:
    cases = [
        ("lm-eval", LM_EVAL / "good", "exact_match", "strict-match", [1, 1, 0, 1, 1, 0]),
        ("helm", HELM / "good", "exact_match", None, [1, 0.5, 1, 1, 1, 0]),
        ("inspect", INSPECT / "good", "match", None, [0.5, 0.5, 0.5, 0.75, 0.5, 0.5]),
        ("long-csv", LONG_CSV / "good", "score", None, [1, 0.5, 0, 0.25, 1, 0.1]),
    ]
    for source, path, metric, filter_name, first_row in cases:
        table = convert(source, [path], metric=metric, filter=filter_name, missing="drop-models")
        assert table.source == source and table.shape == (2, 6) and table.scores[0].tolist() == first_row


def test_empty_results_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "s.csv", "model,query,score\na,q1,1\nb,q2,0\n")
    with pytest.raises(LoaderError, match="no query is left after --missing drop-queries"):
        load_long_csv(path, missing="drop-queries")
    with pytest.raises(LoaderError, match="no model is left after --missing drop-models"):
        load_long_csv(path, missing="drop-models")
    with pytest.raises(LoaderError, match="no scores found for metric 'm'"):
        assemble([], source="x", metric="m")


# -- the table and saving it ------------------------------------------------------------------------------


def test_table_is_read_only_and_converts_to_an_instance() -> None:
    table = load_long_csv(LONG_CSV / "good", missing="drop-queries")
    with pytest.raises(ValueError, match="read-only"):
        table.scores[0, 0] = 0.0
    with pytest.raises(TypeError):
        table.missing["x"] = 1  # type: ignore[index]
    instance = table.to_instance()
    assert instance.model_names == table.models and instance.query_names == table.queries
    # 0.1 is held as the float64 nearest to 1/10: the matrix is float64, and Instance reads floats exactly
    assert instance.means == (Fraction(7, 16), Fraction(11, 16), (Fraction(3, 2) + Fraction(0.1)) / 4)
    with pytest.raises(InstanceError, match="at least 2 models"):
        load_inspect(INSPECT / "twin", metric="match").to_instance()


def test_save_table_round_trip(tmp_path: Path) -> None:
    table = load_lm_eval(LM_EVAL / "good", metric="exact_match", filter="strict-match", missing="drop-queries")
    matrix, ids = save_table(table, tmp_path / "out" / "gsm.npy")
    assert (matrix, ids) == (tmp_path / "out" / "gsm.npy", tmp_path / "out" / "gsm.ids.json")
    loaded = np.load(matrix, allow_pickle=False)
    assert loaded.dtype == np.float64 and np.array_equal(loaded, table.scores)
    assert json.loads(ids.read_text(encoding="utf-8")) == {
        "source": "lm-eval",
        "metric": "exact_match",
        "models": ["model-c", "org/model-a", "org/model-b"],
        "queries": ["gsm8k/0", "gsm8k/1", "gsm8k/2", "gsm8k/3"],
        "missing": {"model-c": 2},
        "dropped_models": [],
        "dropped_queries": ["gsm8k_cot/0", "gsm8k_cot/1"],
        "duplicates": 1,
        "epochs": None,
        "settings": {"reruns": "latest", "filter": "strict-match"},
        "files": [
            {"path": str(LM_EVAL / "good" / name), "used": True, "scores": scores, "note": note}
            for name, scores, note in [
                ("model-c/samples_gsm8k_2024-05-03T08-00-00.5.jsonl", 4, ""),
                (
                    "org__model-a/results_2024-05-01T10-00-00.123456.json",
                    0,
                    "the model id 'org/model-a' (its model_name); its aggregate scores are not read",
                ),
                ("org__model-a/samples_gsm8k_2024-05-01T10-00-00.123456.jsonl", 5, ""),
                ("org__model-a/samples_gsm8k_cot_2024-05-01T10-00-00.123456.jsonl", 2, ""),
                (
                    "org__model-b/results_2024-05-02T09-30-00.json",
                    0,
                    "the model id 'org/model-b' (its config.model_args pretrained=); its aggregate scores are not read",
                ),
                ("org__model-b/samples_gsm8k_2024-05-02T09-30-00.jsonl", 4, ""),
                ("org__model-b/samples_gsm8k_cot_2024-05-02T09-30-00.jsonl", 2, ""),
            ]
        ],
        "warnings": [],
    }
    assert load_scores(matrix).array.tolist() == table.scores.tolist()
    assert sorted(p.name for p in matrix.parent.iterdir()) == ["gsm.ids.json", "gsm.npy"]  # no temporary left


def test_save_table_replaces_and_refuses_other_suffixes(tmp_path: Path) -> None:
    first = load_long_csv(LONG_CSV / "good", missing="drop-models")
    second = load_long_csv(LONG_CSV / "good", missing="drop-queries")
    save_table(first, tmp_path / "s.npy")
    save_table(second, tmp_path / "s.npy")
    assert np.load(tmp_path / "s.npy").shape == (3, 4)
    assert json.loads((tmp_path / "s.ids.json").read_text())["models"] == ["model-a", "model-b", "model-c"]
    with pytest.raises(LoaderError, match=r"s\.csv: the output file must end in \.npy"):
        save_table(first, tmp_path / "s.csv")


def test_save_table_never_leaves_a_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = load_long_csv(LONG_CSV / "good", missing="drop-models")
    save_table(table, tmp_path / "s.npy")
    before = (tmp_path / "s.npy").read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(LoaderError, match="cannot write it"):
        save_table(load_long_csv(LONG_CSV / "good", missing="drop-queries"), tmp_path / "s.npy")
    assert (tmp_path / "s.npy").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.ids.json", "s.npy"]


# -- properties: the assembled table equals a plain dict-based recomputation -----------------------------


def write_long_csv(directory: Path, table: LongCsvTable) -> Path:
    path = directory / "scores.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(table.header)
        for model, query, score in table.rows:
            cells = {"model": model, "query": query, "score": score, "note": "n"}
            writer.writerow([cells[column] for column in table.header])
    return path


def expected_table(
    rows: tuple[tuple[str, str, str], ...], policy: str
) -> tuple[list[str], list[str], list[list[float]], dict[str, int], list[str], list[str], int] | None:
    """What the loader must return, recomputed naively; None where it must refuse."""
    models: list[str] = []
    queries: list[str] = []
    cells: dict[tuple[str, str], Fraction] = {}
    duplicates = 0
    for model, query, score in rows:
        if model not in models:
            models.append(model)
        if query not in queries:
            queries.append(query)
        if (model, query) in cells:
            duplicates += 1
        cells[(model, query)] = Fraction(Decimal(score))
    missing = {m: sum((m, q) not in cells for q in queries) for m in models}
    missing = {m: count for m, count in missing.items() if count}
    if missing and policy == "fail":
        return None
    kept_models = [m for m in models if policy != "drop-models" or m not in missing]
    kept_queries = [q for q in queries if policy != "drop-queries" or all((m, q) in cells for m in models)]
    if not kept_models or not kept_queries:
        return None
    matrix = [[float(cells[(m, q)]) for q in kept_queries] for m in kept_models]
    return (
        kept_models,
        kept_queries,
        matrix,
        missing,
        [m for m in models if m not in kept_models],
        [q for q in queries if q not in kept_queries],
        duplicates,
    )


@given(long_csv_tables(), st.sampled_from(MISSING_POLICIES))
def test_long_csv_assembly_equals_a_dict_recomputation(table: LongCsvTable, policy: str) -> None:
    expected = expected_table(table.rows, policy)
    with tempfile.TemporaryDirectory() as directory:
        path = write_long_csv(Path(directory), table)
        if expected is None:
            with pytest.raises(LoaderError, match=r"lack scores for some|is left after"):
                load_long_csv(path, missing=policy)
            return
        loaded = load_long_csv(path, missing=policy)
    models, queries, matrix, missing, dropped_models, dropped_queries, duplicates = expected
    check(
        loaded,
        tuple(models),
        tuple(queries),
        matrix,
        missing=missing,
        dropped_models=tuple(dropped_models),
        dropped_queries=tuple(dropped_queries),
        duplicates=duplicates,
    )


@given(long_csv_tables(), st.data())
def test_long_csv_conflicting_duplicate_is_always_refused(table: LongCsvTable, data: st.DataObject) -> None:
    model, query, score = data.draw(st.sampled_from(table.rows))
    other = data.draw(st.sampled_from(["0", "1", "0.5", "0.2"]).filter(lambda s: Decimal(s) != Decimal(score)))
    rows = table.rows + ((model, query, other),)
    with tempfile.TemporaryDirectory() as directory:
        path = write_long_csv(Path(directory), LongCsvTable(table.header, rows))
        with pytest.raises(LoaderError, match=f"line {len(rows) + 1}; keep one of them"):
            load_long_csv(path, missing="drop-queries")
