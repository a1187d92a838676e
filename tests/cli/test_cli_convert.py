"""``convert`` on the command line (:mod:`sysrs_ref.cli._convert`): files written, the JSON object, the text report."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref.cli._convert import EXAMPLE, add_arguments, run
from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders import load_scores

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"


def parser() -> argparse.ArgumentParser:
    built = argparse.ArgumentParser(prog="convert")
    add_arguments(built)
    return built


def convert(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run ``convert`` with *argv* and return what it printed."""
    run(parser().parse_args(list(argv)))
    return capsys.readouterr().out


CASES = [
    # source, folder, metric, extra options, first row of the drop-models matrix, the incomplete model
    ("lm-eval", "lm-eval/good", "exact_match", ["--filter", "strict-match"], [1, 1, 0, 1, 1, 0], "model-c"),
    ("helm", "helm/good", "exact_match", [], [1, 0.5, 1, 1, 1, 0], "local/model-c"),
    ("inspect", "inspect/good", "match", [], [0.5, 0.5, 0.5, 0.75, 0.5, 0.5], "local/model-c"),
    ("long-csv", "long-csv/good", "score", [], [1, 0.5, 0, 0.25, 1, 0.1], "model-c"),
]
# what each source reports it read: the settings in force, and (files used, scores read from them)
READ = {
    "lm-eval": ({"reruns": "latest", "filter": "strict-match"}, 7, 17),
    "helm": ({"epochs": "mean over train trials (auto: what HELM reports)"}, 5, 16),
    "inspect": ({"epochs": "auto: mean (each log's recorded reducer)", "unfinished": "fail"}, 4, 17),
    "long-csv": ({}, 2, 17),
}


@pytest.mark.parametrize(("source", "folder", "metric", "extra", "first_row", "incomplete"), CASES)
def test_json_object_and_files_for_every_source(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    source: str,
    folder: str,
    metric: str,
    extra: list[str],
    first_row: list[float],
    incomplete: str,
) -> None:
    out = tmp_path / "m.npy"
    printed = convert(
        capsys,
        "--from",
        source,
        str(FIXTURES / folder),
        "--metric",
        metric,
        *extra,
        "--missing",
        "drop-models",
        "--out",
        str(out),
        "--json",
    )
    payload = json.loads(printed)
    assert printed.count("\n") == 1  # one JSON object on one line
    settings, used, scores = READ[source]
    files = payload.pop("files")
    assert (payload.pop("epochs"), payload.pop("settings"), payload.pop("warnings")) == (None, settings, [])
    assert [set(entry) for entry in files] == [{"path", "used", "scores", "note"}] * len(files)
    assert all(entry["used"] and entry["path"].startswith(str(FIXTURES / folder)) for entry in files)
    assert (len(files), sum(entry["scores"] for entry in files)) == (used, scores)
    assert payload == {
        "source": source,
        "metric": metric,
        "out": str(out),
        "ids": str(tmp_path / "m.ids.json"),
        "models": 2,
        "queries": 6,
        "missing": {incomplete: 2},
        "dropped_models": [incomplete],
        "dropped_queries": [],
        "duplicates": 1,
    }
    matrix = np.load(out, allow_pickle=False)
    assert matrix.shape == (2, 6) and matrix[0].tolist() == first_row
    ids = json.loads((tmp_path / "m.ids.json").read_text())
    assert len(ids["models"]) == 2 and incomplete not in ids["models"] and len(ids["queries"]) == 6
    assert ids["dropped_models"] == [incomplete] and ids["source"] == source
    assert load_scores(out).shape == (2, 6)


def test_text_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "gsm.npy"
    text = convert(
        capsys,
        "--from",
        "lm-eval",
        str(FIXTURES / "lm-eval" / "good"),
        "--metric",
        "exact_match",
        "--filter",
        "flexible-extract",
        "--missing",
        "drop-queries",
        "--out",
        str(out),
    )
    assert text.splitlines() == [
        "lm-eval, metric exact_match: 3 models x 4 queries",
        f"wrote {out} (float64 scores in [0, 1]) and {tmp_path / 'gsm.ids.json'} (model and query ids)",
        "settings: reruns latest; filter flexible-extract",
        "files: 7 of 7 used",
        "missing: 1 model lacked some queries:",
        "  'model-c' lacked 2",
        "dropped models: none",
        "dropped queries: 'gsm8k_cot/0', 'gsm8k_cot/1'",
        "duplicates merged: 1",
    ]
    assert np.load(out).tolist() == [[1, 1, 0, 1], [1, 1, 1, 1], [0, 1, 1, 1]]


def test_text_report_when_nothing_is_missing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = FIXTURES / "inspect" / "good"
    text = convert(
        capsys,
        "--from",
        "inspect",
        str(good / "2024-05-01T10-00-00+00-00_arith_model-a.eval"),
        str(good / "2024-05-01T11-00-00+00-00_arith_model-b.eval"),
        "--metric",
        "judge",
        "--out",
        str(tmp_path / "j.npy"),
    )
    assert "inspect, metric judge: 2 models x 6 queries" in text
    assert "missing: none (every model has every query)" in text
    assert "dropped models: none" in text and "dropped queries: none" in text and "duplicates merged: 0" in text


def test_long_lists_of_dropped_ids_are_cut(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = ["model,query,score", "b,q0,1"] + [f"a,q{j},0" for j in range(12)]
    source = tmp_path / "s.csv"
    source.write_text("\n".join(rows) + "\n")
    text = convert(
        capsys,
        "--from",
        "long-csv",
        str(source),
        "--metric",
        "score",
        "--missing",
        "drop-queries",
        "--out",
        str(tmp_path / "s.npy"),
    )
    shown = ", ".join(f"'q{j}'" for j in range(1, 11))
    assert f"dropped queries: {shown}, ... (11 in all)\n" in text
    assert "long-csv, metric score: 2 models x 1 query" in text and "  'b' lacked 11" in text


def test_missing_cells_fail_by_default_and_write_nothing(tmp_path: Path) -> None:
    args = parser().parse_args(
        ["--from", "helm", str(FIXTURES / "helm" / "good"), "--metric", "exact_match", "--out", str(tmp_path / "h.npy")]
    )
    with pytest.raises(LoaderError, match=r"'local/model-c' lacks 2 .*--missing drop-models"):
        run(args)
    assert list(tmp_path.iterdir()) == []


def test_refusals(tmp_path: Path) -> None:
    good = str(FIXTURES / "long-csv" / "good")
    with pytest.raises(LoaderError, match=r"must end in \.npy"):
        run(
            parser().parse_args(
                [
                    "--from",
                    "long-csv",
                    good,
                    "--metric",
                    "score",
                    "--missing",
                    "drop-models",
                    "--out",
                    str(tmp_path / "x.csv"),
                ]
            )
        )
    with pytest.raises(ParameterError, match="--filter applies to lm-eval results, not to long-csv; leave it out"):
        run(
            parser().parse_args(
                ["--from", "long-csv", good, "--metric", "score", "--filter", "none", "--out", str(tmp_path / "x.npy")]
            )
        )
    with pytest.raises(LoaderError, match=r"several filters|2 filters"):
        run(
            parser().parse_args(
                [
                    "--from",
                    "lm-eval",
                    str(FIXTURES / "lm-eval" / "good"),
                    "--metric",
                    "exact_match",
                    "--out",
                    str(tmp_path / "x.npy"),
                ]
            )
        )


@pytest.mark.parametrize(
    "argv",
    [
        ["--from", "mlflow", "p", "--metric", "m", "--out", "x.npy"],
        ["--from", "helm", "p", "--metric", "m", "--out", "x.npy", "--missing", "ignore"],
        ["--from", "helm", "--metric", "m", "--out", "x.npy"],
        ["--from", "helm", "p", "--out", "x.npy"],
        ["--from", "helm", "p", "--metric", "m"],
    ],
)
def test_usage_mistakes_are_argparse_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parser().parse_args(argv)
    assert caught.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_the_example_parses() -> None:
    args = parser().parse_args(shlex.split(EXAMPLE))
    assert (args.source, args.paths, args.metric, args.filter, args.missing, args.out, args.json) == (
        "lm-eval",
        ["results/"],
        "exact_match",
        "strict-match",
        "fail",
        "gsm8k.npy",
        False,
    )


def test_files_left_out_are_listed_with_the_reason(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = FIXTURES / "inspect" / "unfinished"
    argv = [
        "--from",
        "inspect",
        str(folder),
        "--metric",
        "match",
        "--unfinished",
        "drop",
        "--out",
        str(tmp_path / "u.npy"),
    ]
    lines = convert(capsys, *argv).splitlines()
    assert lines[2:4] == [
        "settings: epochs auto: mean (each log's recorded reducer); unfinished drop",
        "files: 1 of 6 used",
    ]
    left_out = [line for line in lines if line.startswith("  left out ")]
    assert len(left_out) == 5 and all(line.endswith("; left out by --unfinished drop") for line in left_out)
    assert f"  left out {folder / '2026-05-06T08-00-00+00-00_arith_model-b.eval'}: status 'cancelled'" in lines[4]
    payload = json.loads(convert(capsys, *argv, "--json"))
    assert [(entry["path"].rsplit("_", 1)[1], entry["used"]) for entry in payload["files"]] == [
        ("model-a.eval", True),
        ("model-b.eval", False),
        ("model-c.json", False),
        ("model-d.eval", False),
        ("model-e.json", False),
        ("model-f.eval", False),
    ]
    assert json.loads((tmp_path / "u.ids.json").read_text())["files"] == payload["files"]


def test_a_long_list_of_files_left_out_is_cut_in_the_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = FIXTURES / "lm-eval" / "good" / "org__model-a"
    for index in range(25):  # older runs of the same model and task: --reruns latest leaves them out
        (tmp_path / f"samples_gsm8k_2023-01-01T00-00-{index:02d}.jsonl").write_bytes(
            (source / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl").read_bytes()
        )
    (tmp_path / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl").write_bytes(
        (source / "samples_gsm8k_2024-05-01T10-00-00.123456.jsonl").read_bytes()
    )
    argv = ["--from", "lm-eval", str(tmp_path), "--metric", "exact_match", "--filter", "strict-match"]
    lines = convert(capsys, *argv, "--out", str(tmp_path / "out" / "m.npy")).splitlines()
    assert "files: 1 of 26 used" in lines
    assert len([line for line in lines if line.startswith("  left out ")]) == 20
    assert f"  ... and 5 more left out (--json and {tmp_path / 'out' / 'm.ids.json'} list every file)" in lines
    ids = json.loads((tmp_path / "out" / "m.ids.json").read_text())
    assert [entry["used"] for entry in ids["files"]].count(False) == 25
