"""Model names: the .ids.json beside a .npy is read back, and every command that reports models names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sysrs_ref.cli import main
from sysrs_ref.errors import InstanceError, LoaderError
from sysrs_ref.loaders import ResultsTable, files as files_module, load_scores, save_table

#: 4 models x 6 queries: model 2 is the unique best.
SCORES = np.array(
    [
        [1, 0, 1, 0, 1, 0],
        [0, 0, 1, 0, 0, 0],
        [1, 1, 1, 1, 1, 0],
        [0, 1, 0, 0, 1, 0],
    ],
    dtype=np.float64,
)
MODELS = ("org/model-a", "org/model-b", "local/model-c", "model-d")
QUERIES = tuple(f"mmlu:subject=anatomy,method=joint/id{j}" for j in range(6))


def _converted(folder: Path) -> Path:
    """The matrix and sidecar that convert writes, as FOLDER/m.npy and FOLDER/m.ids.json."""
    table = ResultsTable(SCORES, MODELS, QUERIES, "helm", "exact_match", {})
    matrix, _ = save_table(table, folder / "m.npy")
    return matrix


def _bare(folder: Path) -> Path:
    """The same matrix without a sidecar."""
    path = folder / "bare.npy"
    np.save(path, SCORES)
    return path


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    """The command's JSON output (parsed JSON: Any, as json.loads gives it)."""
    found = json.loads(_run(capsys, [*argv, "--json"]))
    assert isinstance(found, dict)
    return found


# -- load_scores reads the sidecar -------------------------------------------------------------------------------


def test_the_sidecar_names_models_and_queries(tmp_path: Path) -> None:
    instance = load_scores(_converted(tmp_path))
    assert instance.model_names == MODELS and instance.query_names == QUERIES
    assert instance.array.tolist() == SCORES.tolist()


def test_without_a_sidecar_there_are_no_names(tmp_path: Path) -> None:
    instance = load_scores(_bare(tmp_path))
    assert instance.model_names is None and instance.query_names is None


def _sidecar(tmp_path: Path, content: object) -> Path:
    matrix = _bare(tmp_path)
    text = content if isinstance(content, str) else json.dumps(content)
    matrix.with_suffix(".ids.json").write_text(text)
    return matrix


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            {"models": list(MODELS[:3]), "queries": list(QUERIES)},
            "bare.ids.json names 3 models but {matrix} has 4 rows; convert again or remove the sidecar",
        ),
        (
            {"models": list(MODELS), "queries": list(QUERIES[:5])},
            "bare.ids.json names 5 queries but {matrix} has 6 columns; convert again or remove the sidecar",
        ),
        (list(MODELS), "bare.ids.json must be a JSON object with the lists 'models' and 'queries'"),
        ({"models": list(MODELS)}, "bare.ids.json lacks its 'queries' list"),
        ({"models": "a,b,c,d", "queries": list(QUERIES)}, "bare.ids.json has a string as its 'models' list"),
        ({"models": ["a", "b", "", "d"], "queries": list(QUERIES)}, "'models' item 2 is an empty string, not an id"),
        ({"models": ["a", "b", 3, "d"], "queries": list(QUERIES)}, "'models' item 2 is a JSON number, not an id"),
        ({"models": ["a", "b", "a", "d"], "queries": list(QUERIES)}, "'models' names 'a' twice (items 0 and 2)"),
        ('{"models": ["a", ', "bare.ids.json (the ids of bare.npy): not valid JSON"),
    ],
)
def test_a_sidecar_that_does_not_fit_is_refused(tmp_path: Path, content: object, message: str) -> None:
    matrix = _sidecar(tmp_path, content)
    with pytest.raises(InstanceError) as caught:
        load_scores(matrix)
    assert message.format(matrix=matrix) in str(caught.value)
    assert str(caught.value).startswith(str(matrix.with_suffix(".ids.json")))  # the sidecar named first


def test_an_oversized_sidecar_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = _converted(tmp_path)
    size = matrix.with_suffix(".ids.json").stat().st_size
    monkeypatch.setattr(files_module, "MAX_SIDECAR_BYTES", size - 1)
    monkeypatch.setattr(files_module, "read_text", lambda path: pytest.fail(f"read {path}"))
    with pytest.raises(InstanceError, match=f"is {size:,} bytes, more than the {size - 1:,} an ids file"):
        load_scores(matrix)


def test_an_unreadable_sidecar_is_a_loader_error(tmp_path: Path) -> None:
    matrix = _sidecar(tmp_path, "")
    matrix.with_suffix(".ids.json").write_bytes(b'{"models": ["\xe9"]}')
    with pytest.raises(LoaderError, match="not UTF-8"):
        load_scores(matrix)


# -- the commands name the models ---------------------------------------------------------------------------------


def test_select_names_the_models_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    named, bare = _converted(tmp_path), _bare(tmp_path)
    argv = ["select", "--budget", "100%"]
    plain = _json(capsys, [*argv, "--scores", str(bare)])
    with_names = _json(capsys, [*argv, "--scores", str(named)])
    assert {key: with_names[key] for key in plain} == plain  # every existing key as it was
    assert list(with_names) == [
        "algorithm",
        "params",
        "K",
        "L",
        "budget",
        "spent",
        "chosen",
        "chosen_name",
        "ranking",
        "ranking_names",
        "seed",
        "true_best",
        "true_best_names",
        "correct",
    ]
    assert with_names["chosen"] == 2 and with_names["chosen_name"] == "local/model-c"
    assert with_names["ranking_names"] == [MODELS[i] for i in with_names["ranking"]]
    assert with_names["true_best_names"] == ["local/model-c"]
    text = _run(capsys, [*argv, "--scores", str(named)]).splitlines()
    assert text[2].startswith("chose:   model 2 (local/model-c), mean 0.8333")
    assert text[3] == "best:    model 2 (local/model-c), mean 0.8333"
    assert text[5] == "ranking: " + ", ".join(f"{i} ({MODELS[i]})" for i in with_names["ranking"])
    plain_text = _run(capsys, [*argv, "--scores", str(bare)]).splitlines()
    assert plain_text[2].startswith("chose:   model 2, mean") and plain_text[3] == "best:    model 2, mean 0.8333"
    assert plain_text[5] == "ranking: " + ", ".join(str(i) for i in plain["ranking"])


def test_a_csv_matrix_has_no_names_and_prints_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.csv"
    path.write_text("".join(",".join(str(int(v)) for v in row) + "\n" for row in SCORES))
    found = _json(capsys, ["select", "--scores", str(path), "--budget", "12"])
    assert not [key for key in found if key.endswith(("_name", "_names"))]


def test_a_long_csv_names_its_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long.csv"
    path.write_text(
        "model,query,score\n"
        + "".join(f"{m},q{j},{int(SCORES[i, j])}\n" for i, m in enumerate(("w", "x", "y", "z")) for j in range(6))
    )
    found = _json(capsys, ["select", "--scores", str(path), "--budget", "100%"])
    assert found["chosen_name"] == "y" and found["true_best_names"] == ["y"]


def test_simulate_names_the_best_model_in_text_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    named, bare = _converted(tmp_path), _bare(tmp_path)
    for algorithms in ("sysrs", "sysrs,us"):
        argv = ["simulate", "--algorithm", algorithms, "--budgets", "12,50%", "--runs", "3", "--quiet"]
        assert _json(capsys, [*argv, "--scores", str(named)]) == _json(capsys, [*argv, "--scores", str(bare)])
        named_last = _run(capsys, [*argv, "--scores", str(named)]).splitlines()[-1]
        bare_last = _run(capsys, [*argv, "--scores", str(bare)]).splitlines()[-1]
        assert "a true best model (model 2 (local/model-c));" in named_last
        assert "a true best model (model 2);" in bare_last


def test_subset_names_the_chosen_model_and_the_anchors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    named, bare = _converted(tmp_path), _bare(tmp_path)
    argv = ["subset", "--method", "anchor", "--budget", "50%"]
    plain = _json(capsys, [*argv, "--scores", str(bare)])
    with_names = _json(capsys, [*argv, "--scores", str(named)])
    assert {key: with_names[key] for key in plain} == plain
    assert set(with_names) - set(plain) == {"chosen_name", "anchor_names"}
    assert with_names["chosen_name"] == MODELS[with_names["chosen"]]
    assert with_names["anchor_names"] == [QUERIES[j] for j in with_names["anchors"]]
    chose = _run(capsys, [*argv, "--scores", str(named)]).splitlines()[2]
    assert chose.startswith(f"chose:   model {plain['chosen']} ({MODELS[plain['chosen']]}), estimate")


@pytest.mark.parametrize(
    "argv",
    [["hardness"], ["exact", "--budget", "12"]],
)
def test_commands_that_report_no_model_are_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    named, bare = _converted(tmp_path), _bare(tmp_path)
    assert _json(capsys, [*argv, "--scores", str(named)]) == _json(capsys, [*argv, "--scores", str(bare)])


def test_a_bad_sidecar_stops_a_command_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    matrix = _sidecar(tmp_path, {"models": list(MODELS[:3]), "queries": list(QUERIES)})
    assert main(["select", "--scores", str(matrix), "--budget", "12"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {matrix.with_suffix('.ids.json')} names 3 models but {matrix} has 4 rows; "
        "convert again or remove the sidecar\n"
    )
