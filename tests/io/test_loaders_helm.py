"""The HELM loader on whole suites: train trials, runs left out and why, --run patterns, runs in two suites.

The fixtures are ``data/fixtures/helm/trials`` (3 train trials per instance,
with HELM's own ``stats.json``) and ``data/fixtures/helm/suites`` (a
``benchmark_output`` with suites v1 and v2, an unfinished run, a second
scenario without the metric, and what ``helm-summarize`` leaves beside the
runs); see data/fixtures/README.md.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sysrs_ref.errors import LoaderError, ParameterError, SysrsError
from sysrs_ref.loaders import convert, helm, load_helm
from sysrs_ref.loaders.table import ResultsTable
from tests.strategies import damaged, json_texts

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "helm"
TRIALS = FIXTURES / "trials"
SUITES = FIXTURES / "suites"
RUNS = SUITES / "benchmark_output" / "runs"

POLICY = "mmlu:subject=us_foreign_policy,method=multiple_choice_joint/"
ANATOMY = "mmlu:subject=anatomy,method=multiple_choice_joint/"
PHILOSOPHY = "mmlu:subject=philosophy,method=multiple_choice_joint/"
UNFINISHED = (
    "no per_instance_stats.json (the run did not finish, or was written by an old HELM); rerun it or leave it out"
)

# exact_match of each instance (id101-id104) in train trials 0, 1, 2
A_TRIALS = [[1, 0, 0], [1, 0, 0], [1, 1, 1], [0, 0, 0]]
B_TRIALS = [[0, 1, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]]
F = Fraction
EXPECTED: dict[
    str, tuple[list[Fraction | int], list[Fraction | int]]
] = {  # --epochs mode: the rows of model-a and model-b
    "auto": ([F(1, 3), F(1, 3), 1, 0], [F(2, 3), F(2, 3), 1, F(1, 3)]),
    "mean": ([F(1, 3), F(1, 3), 1, 0], [F(2, 3), F(2, 3), 1, F(1, 3)]),
    "first": ([1, 1, 1, 0], [0, 0, 1, 0]),
    "median": ([0, 0, 1, 0], [1, 1, 1, 0]),
    "mode": ([0, 0, 1, 0], [1, 1, 1, 0]),
    "max": ([1, 1, 1, 0], [1, 1, 1, 1]),
    "min": ([0, 0, 1, 0], [0, 0, 1, 0]),
}


def write(path: Path, content: object) -> Path:
    """Write *content* (text as it is, anything else as JSON) to *path*, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def stat(name: str, mean: object, **extra: object) -> dict[str, object]:
    """One per-instance stat as HELM writes it."""
    return {"name": {"name": name, "split": "test", **extra}, "count": 1, "mean": mean}


def entry(instance: str, trial: int, *stats: dict[str, object]) -> dict[str, object]:
    """One entry of per_instance_stats.json."""
    return {"instance_id": instance, "train_trial_index": trial, "stats": list(stats)}


def make_run(folder: Path, name: str, model: str, entries: list[dict[str, object]] | None) -> Path:
    """A run directory: run_spec.json, and per_instance_stats.json unless *entries* is None."""
    write(folder / "run_spec.json", {"name": name, "adapter_spec": {"model": model}})
    if entries is not None:
        write(folder / "per_instance_stats.json", entries)
    return folder


def files(table: ResultsTable) -> list[tuple[str, bool, str]]:
    """The report's files as (path relative to the fixtures, used, note)."""
    return [(Path(use.path).relative_to(FIXTURES).as_posix(), use.used, use.note) for use in table.files]


# -- train trials ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_each_epochs_mode_gives_its_matrix(mode: str) -> None:
    table = load_helm(TRIALS, metric="exact_match", epochs=mode)
    assert table.models == ("org/model-a", "org/model-b")
    assert table.queries == tuple(POLICY + f"id10{i}" for i in range(1, 5))
    assert table.scores.tolist() == [[float(value) for value in row] for row in EXPECTED[mode]]
    assert table.samples is None and table.duplicates == 0
    assert [use.note for use in table.files] == [f"3 trials, {'mean' if mode == 'auto' else mode}"] * 2


def test_the_choice_changes_which_model_is_best() -> None:
    """The first trial favours model-a; the mean over trials (what HELM reports) favours model-b."""
    first = load_helm(TRIALS, metric="exact_match", epochs="first").scores.mean(axis=1)
    mean = load_helm(TRIALS, metric="exact_match").scores.mean(axis=1)
    assert first.tolist() == [0.75, 0.25] and mean.tolist() == pytest.approx([5 / 12, 2 / 3], rel=1e-15)


def test_all_keeps_every_trial() -> None:
    table = load_helm(TRIALS, metric="exact_match", epochs="all")
    assert table.samples is not None and table.samples.shape == (2, 4, 3)
    assert table.samples.tolist() == [A_TRIALS, B_TRIALS]
    assert table.scores.tolist() == [[float(value) for value in row] for row in EXPECTED["auto"]]
    assert dict(table.settings) == {"epochs": "all train trials kept"}
    assert [use.note for use in table.files] == ["3 trials, all kept"] * 2


def test_settings_name_the_reduction() -> None:
    assert dict(load_helm(TRIALS, metric="exact_match").settings) == {
        "epochs": "mean over train trials (auto: what HELM reports)"
    }
    assert load_helm(TRIALS, metric="exact_match", epochs="first").settings["epochs"] == (
        "first train trial (train_trial_index 0)"
    )
    assert load_helm(TRIALS, metric="exact_match", epochs="median").settings["epochs"] == "median over train trials"


@pytest.mark.parametrize("metric", ["exact_match", "quasi_exact_match", "num_train_trials"])
@pytest.mark.parametrize("model", ["model-a", "model-b"])
def test_row_means_equal_what_helm_reports_in_stats_json(model: str, metric: str) -> None:
    """HELM's stats.json averages each trial over the instances, then the trials: the row mean under --epochs auto."""
    run = TRIALS / "runs" / "v1" / f"mmlu_us_foreign_policy_{model}"
    aggregated = json.loads((run / "stats.json").read_text(encoding="utf-8"))
    (reported,) = [
        item
        for item in aggregated
        if item["name"] == {"name": metric, "split": "test"}  # no perturbation, no sub-split
    ]
    spec = json.loads((run / "run_spec.json").read_text(encoding="utf-8"))
    assert reported["count"] == spec["adapter_spec"]["num_train_trials"] == 3  # one mean per trial
    if metric == "num_train_trials":  # a count, not a score: it is refused as one
        with pytest.raises(LoaderError, match=r"score is 3\.0, outside \[0, 1\]"):
            load_helm(run, metric=metric)
        return
    table = load_helm(run, metric=metric)
    assert table.scores.shape == (1, 4)
    assert float(table.scores.mean()) == pytest.approx(reported["mean"], rel=1e-12, abs=0)


def test_first_means_trial_0_wherever_it_is_listed(tmp_path: Path) -> None:
    entries = [entry("a", 2, stat("em", 0)), entry("a", 0, stat("em", 1)), entry("a", 1, stat("em", 0.5))]
    run = make_run(tmp_path / "s" / "r", "boolq:model=m", "org/m", entries)
    assert load_helm(run, metric="em", epochs="first").scores.tolist() == [[1.0]]
    assert load_helm(run, metric="em", epochs="median").scores.tolist() == [[0.5]]
    assert load_helm(run, metric="em", epochs="all").samples.tolist() == [[[1.0, 0.5, 0.0]]]  # type: ignore[union-attr]
    where = load_helm(run, metric="em").files[0]
    assert where.note == "3 trials, mean" and where.scores == 1


def test_a_repeated_trial_is_a_duplicate_or_a_conflict(tmp_path: Path) -> None:
    entries = [entry("a", 0, stat("em", 1)), entry("a", 1, stat("em", 0)), entry("a", 1, stat("em", 0.0))]
    run = make_run(tmp_path / "s" / "r", "boolq:model=m", "org/m", entries)
    table = load_helm(run, metric="em")
    assert table.scores.tolist() == [[0.5]] and table.duplicates == 1
    write(run / "per_instance_stats.json", [*entries, entry("a", 1, stat("em", 1))])
    with pytest.raises(
        LoaderError,
        match=r"model 'org/m', query 'boolq/a' has two different scores: 0 at .*entry 2 \(instance a\) and 1 at "
        r".*entry 4 \(instance a\); keep one of them",
    ):
        load_helm(run, metric="em")


def test_a_bad_score_in_any_trial_is_named(tmp_path: Path) -> None:
    entries = [entry("a", 0, stat("em", 1)), entry("a", 1, stat("em", 2))]
    run = make_run(tmp_path / "s" / "r", "boolq:model=m", "org/m", entries)
    with pytest.raises(LoaderError, match=r"per_instance_stats\.json entry 2 \(instance a\): score is 2, outside"):
        load_helm(run, metric="em")
    assert load_helm(run, metric="em", epochs="first").scores.tolist() == [[1.0]]  # trial 1 is not read


def test_uneven_trials_cannot_all_be_kept() -> None:
    """The good/ fixture has a second trial for one instance only: --epochs all refuses, the others reduce."""
    run = FIXTURES / "good" / "runs" / "v1" / "mmlu_anatomy_model-a"
    with pytest.raises(LoaderError, match=r"every cell needs the same number of epochs"):
        load_helm(run, metric="exact_match", epochs="all")
    table = load_helm(run, metric="exact_match")
    assert table.scores.tolist() == [[1, 0.5, 1, 1]]
    assert table.files[0].note == "1 to 2 trials, mean; 1 perturbed entry left out"
    assert load_helm(run, metric="exact_match", epochs="first").scores.tolist() == [[1, 0, 1, 1]]


def test_good_fixture_under_first_gives_the_matrix_of_trial_0() -> None:
    table = load_helm(FIXTURES / "good", metric="exact_match", missing="drop-models", epochs="first")
    assert table.scores.tolist() == [[1, 0, 1, 1, 1, 0], [0, 0, 1, 0, 1, 1]] and table.duplicates == 1


def test_unknown_epochs_mode() -> None:
    with pytest.raises(ParameterError, match="unknown --epochs mode 'avg'"):
        load_helm(TRIALS, metric="exact_match", epochs="avg")


# -- suites -----------------------------------------------------------------------------------------------

V1 = "suites/benchmark_output/runs/v1/"
V2 = "suites/benchmark_output/runs/v2/"
STATS = "/per_instance_stats.json"
NARRATIVE_NOTE = (
    "no unperturbed stat named 'exact_match' (another scenario or metric); its stats are f1_score, "
    "num_prompt_tokens, num_references, num_train_trials, rouge_l"
)


def test_a_run_in_two_suites_with_different_scores_needs_a_choice() -> None:
    with pytest.raises(LoaderError) as caught:
        load_helm(SUITES, metric="exact_match")
    message = str(caught.value)
    assert message.startswith(
        "model 'org/model-a', run 'mmlu:subject=anatomy,method=multiple_choice_joint' is in suite 'v1' ("
    )
    assert f"v1/mmlu_anatomy_model-a{STATS}) and in suite 'v2' (" in message
    assert f"(query '{ANATOMY}id2': 0.0 at " in message and "choose one with --suite NAME" in message


def test_the_preferred_suite_wins_and_every_run_is_reported() -> None:
    table = load_helm(SUITES, metric="exact_match", suites=["v2"])
    assert table.models == ("org/model-a", "org/model-b")
    assert table.queries == (PHILOSOPHY + "id4", PHILOSOPHY + "id5", ANATOMY + "id1", ANATOMY + "id2", ANATOMY + "id3")
    assert table.scores.tolist() == [[1, 1, 1, 1, 1], [0, 1, 0, 1, 1]]
    wins = "the same run in suite 'v2' wins (--suite 'v2'): "
    assert files(table) == [
        (V1 + "mmlu_anatomy_model-a" + STATS, False, wins + str(RUNS / "v2" / "mmlu_anatomy_model-a") + STATS),
        (V1 + "mmlu_anatomy_model-b" + STATS, False, wins + str(RUNS / "v2" / "mmlu_anatomy_model-b") + STATS),
        (V1 + "mmlu_philosophy_model-a" + STATS, True, ""),
        (V1 + "mmlu_philosophy_model-b" + STATS, True, ""),
        (V1 + "narrative_qa_model-a" + STATS, False, NARRATIVE_NOTE),
        (V2 + "mmlu_anatomy_model-a" + STATS, True, ""),
        (V2 + "mmlu_anatomy_model-b" + STATS, True, ""),
        (V2 + "mmlu_philosophy_model-b", False, UNFINISHED),  # an unfinished run never wins
    ]
    assert [use.scores for use in table.files] == [0, 0, 2, 2, 0, 3, 3, 0]
    assert dict(table.settings) == {
        "epochs": "mean over train trials (auto: what HELM reports)",
        "suites": "v2 (a run in several suites: the first listed wins)",
    }


def test_the_first_suite_listed_wins() -> None:
    v1 = load_helm(SUITES, metric="exact_match", suites=["v1", "v2"])
    assert v1.scores.tolist() == [[1, 0, 1, 1, 1], [0, 1, 1, 0, 1]]
    assert [use.used for use in v1.files] == [True, True, True, True, False, False, False, False]
    assert v1.files[5].note.startswith("the same run in suite 'v1' wins (--suite 'v1' --suite 'v2'): ")
    v2 = load_helm(RUNS, metric="exact_match", suites=["v2", "v1"])
    assert v2.scores.tolist() == [[1, 1, 1, 1, 1], [0, 1, 0, 1, 1]]


def test_identical_copies_in_two_suites_merge() -> None:
    table = load_helm(SUITES, metric="exact_match", tasks=["*model=org_model-b*"])
    assert table.models == ("org/model-b",)
    assert table.scores.tolist() == [[0, 1, 1, 0, 1]] and table.duplicates == 3
    assert [(path, used) for path, used, _ in files(table) if used] == [
        (V1 + "mmlu_anatomy_model-b" + STATS, True),
        (V1 + "mmlu_philosophy_model-b" + STATS, True),
        (V2 + "mmlu_anatomy_model-b" + STATS, True),
    ]
    assert table.settings["suites"] == "no preference (a run in several suites must have the same scores in each)"


def test_a_suite_nobody_has_is_refused() -> None:
    with pytest.raises(LoaderError, match=r"--suite 'v3': no run is in a suite of that name .*the suites are: v1, v2$"):
        load_helm(SUITES, metric="exact_match", suites=["v2", "v3"])


def test_an_unlisted_suite_loses_to_a_listed_one(tmp_path: Path) -> None:
    for suite, value in (("old", 0), ("new", 1), ("other", 0.5)):
        make_run(tmp_path / suite / "r", "boolq:model=m", "org/m", [entry("a", 0, stat("em", value))])
    assert load_helm(tmp_path, metric="em", suites=["new"]).scores.tolist() == [[1.0]]
    assert load_helm(tmp_path, metric="em", suites=["other", "new"]).scores.tolist() == [[0.5]]
    with pytest.raises(LoaderError, match=r"is in suite 'new' .* and in suite 'old' .*choose one with --suite NAME"):
        load_helm(tmp_path, metric="em")


def test_the_suite_is_the_folder_holding_the_run(tmp_path: Path) -> None:
    """Two copies of one run in folders a/ and b/ are two suites; the suite's name does not enter the ids."""
    for suite in ("a", "b"):
        make_run(tmp_path / suite / "r", "boolq:model=m", "org/m", [entry("q", 0, stat("em", 1))])
    table = load_helm([tmp_path / "b" / "r", tmp_path / "a" / "r" / "per_instance_stats.json"], metric="em")
    assert table.queries == ("boolq/q",) and table.duplicates == 1
    assert table.settings["suites"].startswith("no preference")
    assert [use.used for use in load_helm(tmp_path, metric="em", suites=["b"]).files] == [False, True]


# -- choosing runs: --run PATTERN ---------------------------------------------------------------------------


def test_run_patterns_match_the_key_and_the_full_name() -> None:
    by_key = load_helm(SUITES, metric="exact_match", tasks=["mmlu:subject=philosophy*"])
    assert by_key.queries == (PHILOSOPHY + "id4", PHILOSOPHY + "id5")
    assert by_key.scores.tolist() == [[1, 1], [0, 1]]
    left_out = {path: note for path, used, note in files(by_key) if not used}
    assert left_out[V1 + "mmlu_anatomy_model-a" + STATS] == (
        "run 'mmlu:subject=anatomy,method=multiple_choice_joint,model=org_model-a' is not selected by "
        "--run 'mmlu:subject=philosophy*'"
    )
    assert left_out[V2 + "mmlu_philosophy_model-b"] == UNFINISHED  # selected, but it has no stats
    assert by_key.settings["runs"] == "mmlu:subject=philosophy* (matched against run names with and without model=)"
    several = load_helm(SUITES, metric="exact_match", tasks=["narrative_qa", "mmlu:*philosophy*"])
    assert several.scores.tolist() == [[1, 1], [0, 1]]
    assert load_helm(SUITES, metric="exact_match", tasks="*philosophy*").shape == (2, 2)  # a lone string


def test_a_pattern_that_selects_nothing_lists_the_runs() -> None:
    with pytest.raises(
        LoaderError,
        match=r"--run 'mmlu:subject=astronomy\*' selects no run .*the runs are: "
        r"mmlu:subject=anatomy,method=multiple_choice_joint, mmlu:subject=philosophy,method=multiple_choice_joint, "
        r"narrative_qa$",
    ):
        load_helm(SUITES, metric="exact_match", tasks=["mmlu:*", "mmlu:subject=astronomy*"], suites=["v1"])


def test_convert_passes_the_helm_options() -> None:
    table = convert(
        "helm", [SUITES], metric="exact_match", tasks=["mmlu:*"], suites=["v1"], epochs="first", missing="drop-models"
    )
    assert table.shape == (2, 5) and table.settings["epochs"] == "first train trial (train_trial_index 0)"


# -- mixed folders: a run without the metric --------------------------------------------------------------


def test_a_run_without_the_metric_is_left_out_when_others_have_it() -> None:
    narrative = load_helm(SUITES, metric="f1_score")  # the MMLU copies in v1 and v2 differ, but are not read
    assert narrative.models == ("org/model-a",) and narrative.queries == ("narrative_qa/id7", "narrative_qa/id8")
    assert narrative.scores.tolist() == [[0.5, 0.25]]
    notes = {path: note for path, used, note in files(narrative) if not used}
    assert notes[V1 + "mmlu_anatomy_model-a" + STATS] == (
        "no unperturbed stat named 'f1_score' (another scenario or metric); its stats are exact_match, "
        "num_prompt_tokens, num_references, num_train_trials, quasi_exact_match"
    )
    assert len(notes) == 7


def test_a_metric_no_run_has_lists_the_stats() -> None:
    with pytest.raises(LoaderError) as caught:
        load_helm(SUITES, metric="em", suites=["v1"])
    assert str(caught.value) == (
        f"{RUNS / 'v1' / 'mmlu_anatomy_model-a'}{STATS}: no unperturbed stat named 'em' in any train trial; the file "
        "has exact_match, num_prompt_tokens, num_references, num_train_trials, quasi_exact_match, and none of the "
        "other 4 runs read has it either (they also have f1_score, rouge_l); choose one with --metric NAME"
    )


# -- finding runs: what is a run, what is left out -------------------------------------------------------


def test_what_helm_keeps_beside_the_runs_is_not_a_run() -> None:
    """summary.json, costs.json, run_specs.json, runs_to_run_suites.json and groups/ are neither read nor reported."""
    table = load_helm(SUITES, metric="exact_match", suites=["v1"])
    beside = sorted(path.name for path in (RUNS / "v1").iterdir() if not (path / "run_spec.json").is_file())
    assert beside == ["costs.json", "groups", "run_specs.json", "runs_to_run_suites.json", "summary.json"]
    assert all("/runs/v1/" not in use.path or "_model-" in use.path for use in table.files)
    assert len(table.files) == 8


def test_empty_run_folders_are_reported_but_not_helms_own(tmp_path: Path) -> None:
    suite = tmp_path / "runs" / "v1"
    make_run(suite / "r1", "boolq:model=m", "org/m", [entry("a", 0, stat("em", 1))])
    for name in ("crashed", "eval_cache", "groups", ".hidden"):
        (suite / name).mkdir()
    write(suite / "notes" / "todo.txt", "not a run")
    table = load_helm(tmp_path, metric="em")
    assert [(Path(use.path).name, use.used) for use in table.files] == [
        ("crashed", False),
        ("per_instance_stats.json", True),
    ]
    assert table.files[0].note.startswith("no run_spec.json or per_instance_stats.json in this folder")
    named = load_helm(suite / "r1", metric="em")  # a run named directly: its suite's other folders are not searched
    assert len(named.files) == 1


def test_unfinished_runs_are_reported_even_with_a_broken_spec(tmp_path: Path) -> None:
    make_run(tmp_path / "v1" / "done", "boolq:model=m", "org/m", [entry("a", 0, stat("em", 1))])
    write(tmp_path / "v1" / "stopped" / "run_spec.json", '{"name": "boolq:model=n", "adapt')  # cut off mid-write
    make_run(tmp_path / "v1" / "old", "boolq:model=o", "org/o", None)
    write(tmp_path / "v1" / "old" / "stats.json", [stat("em", 1)])
    table = load_helm(tmp_path, metric="em")
    assert table.models == ("org/m",)
    assert [(Path(use.path).parent.name if use.used else Path(use.path).name, use.note) for use in table.files] == [
        ("done", ""),
        ("old", UNFINISHED),
        ("stopped", UNFINISHED),
    ]


def test_a_folder_of_unfinished_runs_only_is_refused(tmp_path: Path) -> None:
    make_run(tmp_path / "v1" / "a", "boolq:model=m", "org/m", None)
    make_run(tmp_path / "v1" / "b", "boolq:model=n", "org/n", None)
    with pytest.raises(LoaderError, match=r"none of the 2 HELM runs found can be read: no per_instance_stats\.json"):
        load_helm(tmp_path, metric="em")
    (tmp_path / "nothing").mkdir()
    write(tmp_path / "nothing" / "stats.json", [stat("em", 1)])
    with pytest.raises(LoaderError, match=r"nothing: found no HELM run in this directory or below it"):
        load_helm(tmp_path / "nothing", metric="em")


def test_a_run_spec_named_directly_stands_for_its_run(tmp_path: Path) -> None:
    run = make_run(tmp_path / "v1" / "r", "boolq:model=m", "org/m", [entry("a", 0, stat("em", 1))])
    table = load_helm([run / "run_spec.json", run, tmp_path], metric="em")  # the same run three times: read once
    assert table.scores.tolist() == [[1.0]] and table.duplicates == 0 and len(table.files) == 1
    unfinished = make_run(tmp_path / "v1" / "u", "boolq:model=n", "org/n", None)
    assert load_helm([run, unfinished / "run_spec.json"], metric="em").files[1].note == UNFINISHED


def test_oversized_and_pointer_files_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = make_run(tmp_path / "v1" / "r", "boolq:model=m", "org/m", [entry("a", 0, stat("em", 1))])
    monkeypatch.setattr(helm, "MAX_STATS_BYTES", 20)
    with pytest.raises(
        LoaderError, match=r"per_instance_stats\.json: larger than 20 bytes, the most this loader reads"
    ):
        load_helm(run, metric="em")
    monkeypatch.undo()
    write(run / "per_instance_stats.json", "version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 1234\n")
    with pytest.raises(LoaderError, match=r"a git-lfs pointer file, not the file itself \(it names an object of 1234"):
        load_helm(run, metric="em")


def test_the_trials_fixture_is_consistent() -> None:
    """Every instance of the trials fixture has trials 0, 1 and 2, as HELM writes them (num_train_trials 3)."""
    for model, expected in (("model-a", A_TRIALS), ("model-b", B_TRIALS)):
        run = TRIALS / "runs" / "v1" / f"mmlu_us_foreign_policy_{model}"
        entries = json.loads((run / "per_instance_stats.json").read_text(encoding="utf-8"))
        values: dict[str, dict[int, float]] = {}
        for item in entries:
            (em,) = [s["mean"] for s in item["stats"] if s["name"]["name"] == "exact_match"]
            values.setdefault(item["instance_id"], {})[item["train_trial_index"]] = em
        assert [[row[t] for t in range(3)] for row in values.values()] == expected
        assert np.array(expected).shape == (4, 3)


def test_copied_suites_behave_the_same(tmp_path: Path) -> None:
    """The suites fixture copied elsewhere (its paths are not special)."""
    shutil.copytree(SUITES, tmp_path / "copy")
    table = load_helm(tmp_path / "copy", metric="exact_match", suites=["v2"])
    assert table.scores.tolist() == [[1, 1, 1, 1, 1], [0, 1, 0, 1, 1]]


# -- damaged suites -----------------------------------------------------------------------------------------


@settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_a_damaged_suite_is_read_or_refused_with_a_message(data: st.DataObject) -> None:
    """One file of a fixture changed (its JSON, or its bytes): a table or a SysrsError, never another exception."""
    source = data.draw(st.sampled_from([SUITES, TRIALS]))
    names = sorted(path.relative_to(source) for path in source.rglob("*.json"))
    with tempfile.TemporaryDirectory() as name:
        copy = Path(name) / "copy"
        shutil.copytree(source, copy)
        chosen = copy / data.draw(st.sampled_from(names))
        content = chosen.read_bytes()
        if data.draw(st.booleans()):
            changed = data.draw(json_texts(json.loads(content))).encode("utf-8", "surrogatepass")
        else:
            changed = data.draw(damaged(content))
        chosen.write_bytes(changed)
        options = {
            "epochs": data.draw(st.sampled_from(["auto", "first", "median", "all"])),
            "suites": data.draw(st.sampled_from([(), ("v1",), ("v2", "v1")])) if source == SUITES else (),
            "tasks": data.draw(st.sampled_from([(), ("mmlu:*",), ("*model=org_model-b*",)])),
            "missing": data.draw(st.sampled_from(["fail", "drop-models", "drop-queries"])),
        }
        try:
            table = load_helm(copy, metric="exact_match", **options)  # type: ignore[arg-type]
        except SysrsError as err:
            assert str(err).strip()
        else:
            assert len(table.files) >= 1 and np.all((table.scores >= 0) & (table.scores <= 1))
