"""What convert says of lm-eval folders as users leave them: renamed results files, limited runs, doubtful scales.

``data/fixtures/lm-eval/renamed/``: ``neo125/`` holds a full run of
``truthfulqa_gen`` (10 documents) and a later ``--limit 4`` run, each with its
results file renamed by hand (``truthfulqa_gen_neo125_full.json``,
``..._limit4.json``), and a note of the user's own (``run_notes.json``);
``pythia160/`` a ``--limit 4`` run with lm-eval's own ``results_<timestamp>.json``.
``data/fixtures/lm-eval/eqbench/``: two models' ``eq_bench`` runs, whose
metrics (``eqbench``, ``percent_parseable``) lm-eval scores 0 to 100, every
answer unparsable, so every value is 0.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.cli import main
from sysrs_ref.loaders import convert, load_lm_eval
from sysrs_ref.loaders.table import scale_warnings

LM_EVAL = Path(__file__).resolve().parents[2] / "data" / "fixtures" / "lm-eval"
RENAMED = LM_EVAL / "renamed"
EQBENCH = LM_EVAL / "eqbench"
NEO = RENAMED / "neo125"
LIMITED = NEO / "samples_truthfulqa_gen_2024-08-02T08-45-03.104877.jsonl"
PYTHIA = RENAMED / "pythia160" / "samples_truthfulqa_gen_2024-08-03T09-00-00.000001.jsonl"


def test_renamed_results_files_name_the_model_and_every_file_is_listed() -> None:
    table = load_lm_eval(RENAMED, metric="bleu_acc")
    assert table.models == ("EleutherAI/gpt-neo-125m", "EleutherAI/pythia-160m")
    listed = {Path(use.path).name: (use.used, use.note) for use in table.files}
    assert set(listed) == {path.name for path in RENAMED.rglob("*") if path.is_file()}
    assert listed["truthfulqa_gen_neo125_full.json"] == (
        True,
        "the model id 'EleutherAI/gpt-neo-125m' (its model_name); a results file renamed by hand (lm-eval writes "
        "results_<timestamp>.json); its aggregate scores are not read",
    )
    assert listed["run_notes.json"] == (
        False,
        "neither an lm-eval samples file (samples_<task>_<timestamp>.jsonl) nor a results file of a run beside "
        "samples files: not read (a samples file renamed by hand needs lm-eval's name back)",
    )


def test_a_limited_run_replacing_a_full_one_is_reported_as_limited() -> None:
    table = load_lm_eval(RENAMED, metric="bleu_acc")
    assert table.queries == tuple(f"truthfulqa_gen/{doc}" for doc in range(4))
    notes = {Path(use.path).name: use.note for use in table.files}
    assert notes[LIMITED.name] == (
        "the latest of 2 runs of task 'truthfulqa_gen' for model 'EleutherAI/gpt-neo-125m'; limited: 4 of 10 "
        "documents of task 'truthfulqa_gen' (lm-eval --limit, truthfulqa_gen_neo125_limit4.json)"
    )
    assert table.warnings == (
        f"{LIMITED}: limited: 4 of 10 documents of task 'truthfulqa_gen' (lm-eval --limit, "
        "truthfulqa_gen_neo125_limit4.json): the table holds only those documents of the task for this model",
        f"{PYTHIA}: limited: 4 of 10 documents of task 'truthfulqa_gen' (lm-eval --limit, "
        "results_2024-08-03T09-00-00.000001.json): the table holds only those documents of the task for this model",
    )
    merged = load_lm_eval(RENAMED, metric="bleu_acc", reruns="merge", missing="drop-queries")
    assert merged.warnings == table.warnings and merged.shape == (2, 4)  # the full run's other 6 are pythia's gap


def test_the_text_report_prints_each_limited_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["convert", "--from", "lm-eval", str(RENAMED), "--metric", "bleu_acc", "--out", str(tmp_path / "t.npy")])
    printed = capsys.readouterr().out.splitlines()
    warned = [line for line in printed if line.startswith("warning: ")]
    assert warned == [f"warning: {warning}" for warning in load_lm_eval(RENAMED, metric="bleu_acc").warnings]
    assert len(warned) == 2 and all("limited: 4 of 10 documents" in line for line in warned)
    assert json.loads((tmp_path / "t.ids.json").read_text())["warnings"] == [line[9:] for line in warned]


def test_a_full_run_says_nothing_of_limits() -> None:
    older = NEO / "samples_truthfulqa_gen_2024-08-01T10-12-30.518220.jsonl"
    table = load_lm_eval(older, metric="bleu_acc")
    assert table.models == ("EleutherAI/gpt-neo-125m",) and table.shape == (1, 10)
    assert table.warnings == () and Fraction(sum(map(Fraction, table.scores[0].tolist()))) == 5


@pytest.mark.parametrize("metric", ["eqbench", "percent_parseable"])
def test_a_0_to_100_metric_that_is_all_zeros_passes_only_with_warnings(metric: str) -> None:
    table = convert("lm-eval", [EQBENCH], metric=metric)
    assert table.scores.tolist() == [[0.0] * 3] * 2
    scale = "EQ-Bench scores 0 to 100" if metric == "eqbench" else "a percentage, 0 to 100"
    assert table.warnings[-2:] == (
        f"metric '{metric}' is named like a metric of another scale ({scale}) than [0, 1]: check that the harness "
        "scored it in [0, 1]",
        f"every score of metric '{metric}' read is 0: the matrix cannot tell the models apart, and a metric of "
        "another scale (0 to 100) that scored nothing reads the same; check the metric",
    )


def test_what_lm_eval_says_of_a_metric_better_lower_is_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "org__m"
    folder.mkdir()
    stamp = "2024-05-01T10-00-00"
    rows = [{"doc_id": doc, "filter": "none", "metrics": ["error"], "error": value} for doc, value in ((0, 1), (1, 0))]
    (folder / f"samples_arc_easy_{stamp}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    results = {"results": {"arc_easy": {"error,none": 0.5}}, "higher_is_better": {"arc_easy": {"error": False}}}
    (folder / f"results_{stamp}.json").write_text(json.dumps(results | {"model_name": "org/m"}))
    assert load_lm_eval(tmp_path, metric="error").warnings == (
        f"lm-eval ranks metric 'error' of task 'arc_easy' better lower (results_{stamp}.json higher_is_better); "
        "SySRs chooses the model of the highest mean: convert a metric that is better higher",
    )
    results["higher_is_better"] = {"arc_easy": {"error": True}}
    (folder / f"results_{stamp}.json").write_text(json.dumps(results | {"model_name": "org/m"}))
    assert load_lm_eval(tmp_path, metric="error").warnings == ()


@pytest.mark.parametrize(
    ("metric", "warned"),
    [
        ("acc", False),
        ("bleu_acc", False),
        ("pct_correct", False),
        ("bleu_max", True),
        ("chrf", True),
        ("ter", True),
        ("word_perplexity", True),
        ("bits_per_byte", True),
        ("letter", False),
    ],
)
def test_names_of_other_scales_are_warned_of(metric: str, warned: bool) -> None:
    said = scale_warnings(metric, [((Fraction(1, 2),), 0.5, "x")])
    assert bool(said) is warned and all(warning.startswith(f"metric '{metric}' is named like") for warning in said)


def test_a_latest_run_of_fewer_documents_than_an_older_one_is_warned_of_without_results_files(tmp_path: Path) -> None:
    folder = tmp_path / "org__m"
    folder.mkdir()
    for stamp, documents in (("2024-05-01T10-00-00", 5), ("2024-05-02T10-00-00", 2)):
        rows = [{"doc_id": doc, "filter": "none", "metrics": ["acc"], "acc": doc % 2} for doc in range(documents)]
        (folder / f"samples_arc_easy_{stamp}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    table = load_lm_eval(tmp_path, metric="acc")
    assert table.shape == (1, 2)
    assert table.warnings == (
        f"{folder / 'samples_arc_easy_2024-05-02T10-00-00.jsonl'}: scores 2 documents of task 'arc_easy' where the "
        "older run samples_arc_easy_2024-05-01T10-00-00.jsonl scored 5: a limited run (lm-eval --limit)? --reruns "
        "merge reads both",
    )
    assert load_lm_eval(tmp_path, metric="acc", reruns="merge").shape == (1, 5)
    assert load_lm_eval(tmp_path, metric="acc", reruns="merge").warnings == ()


@pytest.mark.parametrize("latest", [5, 7])
def test_a_latest_run_of_as_many_documents_or_more_is_not_warned_of(tmp_path: Path, latest: int) -> None:
    """A rerun of the whole task (the same documents, or more) is no limited run: --reruns latest says nothing."""
    folder = tmp_path / "org__m"
    folder.mkdir()
    for stamp, documents in (("2024-05-01T10-00-00", 5), ("2024-05-02T10-00-00", latest)):
        rows = [{"doc_id": doc, "filter": "none", "metrics": ["acc"], "acc": doc % 2} for doc in range(documents)]
        (folder / f"samples_arc_easy_{stamp}.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    table = load_lm_eval(tmp_path, metric="acc")
    assert table.shape == (1, latest) and table.warnings == ()
    notes = {Path(use.path).name: use.note for use in table.files}
    assert notes["samples_arc_easy_2024-05-02T10-00-00.jsonl"] == (
        "the latest of 2 runs of task 'arc_easy' for model 'org__m'"
    )


def test_a_json_with_results_but_none_of_lm_evals_keys_is_no_results_file(tmp_path: Path) -> None:
    """A summary of one's own with a ``results`` object (no ``config``, ``configs``, ``n-samples`` or ``versions``)
    is left out: it names no model and says nothing of the run."""
    folder = tmp_path / "org__m"
    folder.mkdir()
    rows = [{"doc_id": doc, "filter": "none", "metrics": ["acc"], "acc": doc % 2} for doc in range(3)]
    (folder / "samples_arc_easy_2024-05-01T10-00-00.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    alone = load_lm_eval(tmp_path, metric="acc")
    summary = {"model_name": "my summary", "results": {"arc_easy": {"acc,none": 0.5}}}
    (folder / "summary.json").write_text(json.dumps(summary))
    table = load_lm_eval(tmp_path, metric="acc")
    assert table.models == alone.models == ("org__m",) and table.warnings == alone.warnings == ()
    listed = {Path(use.path).name: (use.used, use.note) for use in table.files}
    assert listed["summary.json"] == (
        False,
        "neither an lm-eval samples file (samples_<task>_<timestamp>.jsonl) nor a results file of a run beside "
        "samples files: not read (a samples file renamed by hand needs lm-eval's name back)",
    )
    summary["versions"] = {"arc_easy": 1.0}  # now lm-eval's: its model_name names the model
    (folder / "summary.json").write_text(json.dumps(summary))
    assert load_lm_eval(tmp_path, metric="acc").models == ("my summary",)
