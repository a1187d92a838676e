"""The shipped benchmarks: exact, hash-verified, the paper's values; by name on the command line; exported back."""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import io
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from sysrs_ref import DatasetError, InstanceError, hardness
from sysrs_ref.cli import main
from sysrs_ref.datasets import (
    Dataset,
    Packed,
    benchmark,
    benchmarks,
    dataset_names,
    default_datasets,
    find_datasets,
    load_dataset,
    matrix_sha256,
    read_packed,
    resolve_scores,
    write_packed,
)
from sysrs_ref.experiments._paper import DATASET_TABLE
from sysrs_ref.experiments._reproduce import reproduce
from tests.real_data import real
from tests.small_data import make_data_folder
from tests.strategies import FloatArray, packable_matrices

ROOT = Path(__file__).resolve().parents[2]
NAMES = dataset_names()


def run_main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def test_the_eleven_benchmarks_of_the_paper() -> None:
    assert NAMES == (
        "arc_challenge",
        "bbh",
        "commonsense",
        "gsm",
        "ifeval",
        "legalbench",
        "math",
        "med_qa",
        "mmlu",
        "narrative_qa",
        "wmt_14",
    )
    assert {b.name for b in benchmarks() if not b.binary} == {"narrative_qa", "wmt_14"}
    assert {b.source for b in benchmarks()} == {"HELM Lite", "Open LLM Leaderboard"}


@pytest.mark.parametrize("name", NAMES)
def test_each_loads_exactly_with_its_hash_shape_and_the_papers_values(name: str) -> None:
    item = benchmark(name)
    instance = real(name)
    assert matrix_sha256(instance.array) == item.sha256  # bit for bit the released float64 matrix
    assert instance.shape == (item.n_models, item.n_queries) == (item.paper["models"], item.paper["tasks"])
    assert instance.is_best(0)  # the best model in row 0, as released
    assert item.binary == bool(np.all((instance.array == 0) | (instance.array == 1)))
    h = hardness(instance)
    # The paper's table prints best mean to 2 digits, Delta_2 to 3 and H2 to 1 (truncated or rounded):
    # within one unit of the last printed digit.
    assert abs(float(h.best_mean) - item.paper["best_acc"]) <= 0.01
    assert abs(float(h.delta2) - item.paper["delta2"]) <= 0.001
    assert h.h2 is not None and abs(float(h.h2) - item.paper["H2"]) <= 0.1


def test_the_manifest_repeats_the_papers_table() -> None:
    for item in benchmarks():
        row = DATASET_TABLE[item.name]
        assert item.paper == {
            "tasks": row.tasks,
            "models": row.models,
            "best_acc": row.best_acc,
            "mean_acc": row.mean_acc,
            "delta2": row.delta2,
            "H1": row.h1,
            "H2": row.h2,
            "H3_prime": row.h3_prime,
            "H3": row.h3,
        }
        assert item.metric == row.metric


def test_exported_files_are_the_released_npy_files(exported: Path) -> None:
    manifest = json.loads((exported / "MANIFEST.json").read_text())
    assert list(manifest) == list(NAMES)
    for item in benchmarks():
        path = exported / f"{item.name}.npy"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == item.npy_sha256 == manifest[item.name]["sha256"]
        assert np.load(path, allow_pickle=False).tobytes() == real(item.name).array.tobytes()
    folder = find_datasets(exported)  # a data folder this package (and others) read back
    assert [d.name for d in folder] == list(NAMES)
    assert [d.source for d in folder] == [b.source for b in benchmarks()]


@settings(max_examples=150)
@given(packable_matrices())
def test_packing_gives_back_every_bit(tmp_path_factory: pytest.TempPathFactory, matrix: FloatArray) -> None:
    folder = tmp_path_factory.mktemp("packed")
    encoding = write_packed(folder / "m.npz", matrix)
    binary = bool(np.all((matrix == 0.0) | (matrix == 1.0))) and not np.any(np.signbit(matrix))
    assert encoding == ("bits" if binary else "float64")
    back = read_packed(folder / "m.npz", encoding, (matrix.shape[0], matrix.shape[1]))
    assert back.dtype == np.float64 and back.shape == matrix.shape and back.tobytes() == matrix.tobytes()
    assert matrix_sha256(back) == matrix_sha256(matrix)
    first = (folder / "m.npz").read_bytes()
    write_packed(folder / "m.npz", matrix)
    assert (folder / "m.npz").read_bytes() == first  # the same matrix packs to the same file


def test_a_changed_or_damaged_file_is_refused(tmp_path: Path) -> None:
    item = benchmark("gsm")
    changed = real("gsm").array.copy()
    changed[5, 7] = 1.0 - changed[5, 7]
    write_packed(tmp_path / "gsm.npz", changed)
    shipped = Dataset("gsm", tmp_path / "gsm.npz", item.sha256, packed=Packed("bits", (80, 1000)))
    with pytest.raises(DatasetError, match=r"does not match its manifest's sha256.*reinstall"):
        shipped.load()
    (tmp_path / "gsm.npz").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InstanceError, match="cannot read the packed benchmark"):
        shipped.load()
    with pytest.raises(InstanceError, match=r"holds bits for shape \(80, 1000\).*not for \(80, 999\)"):
        read_packed(item.dataset.path, "bits", (80, 999))
    with pytest.raises(InstanceError, match=r"holds members \['bits', 'shape'\], not \['scores'\]"):
        read_packed(item.dataset.path, "float64", (80, 1000))


def test_the_package_data_globs_ship_every_file() -> None:
    """pip install . (and a wheel) carries the benchmarks: pyproject's package-data matches every file."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["sysrs_ref"]
    folder = ROOT / "sysrs_ref" / "datasets" / "benchmarks"
    files = sorted(p.relative_to(ROOT / "sysrs_ref").as_posix() for p in folder.iterdir())
    assert len(files) == len(NAMES) + 2  # the .npz files, manifest.json and README.md
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in globs), name


def test_scores_by_name_or_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exported: Path) -> None:
    assert resolve_scores("gsm") == load_dataset("gsm") == resolve_scores(exported / "gsm.npy")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "math").mkdir()  # a folder is not a file: the name still means the benchmark
    assert resolve_scores("math").shape == (80, 437)
    (tmp_path / "gsm").write_text("1,0\n0,1\n")  # a file of that name wins (and has no readable suffix)
    with pytest.raises(InstanceError, match="unsupported file type"):
        resolve_scores("gsm")
    with pytest.raises(
        DatasetError, match=r"'gsmm' is neither a score file nor a shipped benchmark \(did you mean 'gsm'\?\)"
    ):
        resolve_scores("gsmm")
    with pytest.raises(DatasetError, match="named without a suffix: math"):
        resolve_scores("math.npy")
    with pytest.raises(InstanceError, match=r"cannot read scores file 'nowhere/x\.npy'"):
        resolve_scores("nowhere/x.npy")
    with pytest.raises(DatasetError, match=r"no shipped benchmark is called 'mmlu_pro' \(did you mean 'mmlu'\?\)"):
        load_dataset("mmlu_pro")


@pytest.mark.parametrize("algorithm", ["sysrs", "ucbe", "us"])
def test_select_by_name_and_by_path_print_the_same_json(exported: Path, algorithm: str) -> None:
    by_name = run_main(
        "select", "--scores", "gsm", "--budget", "12%", "--algorithm", algorithm, "--seed", "4", "--json"
    )
    by_path = run_main(
        "select",
        "--scores",
        str(exported / "gsm.npy"),
        "--budget",
        "12%",
        "--algorithm",
        algorithm,
        "--seed",
        "4",
        "--json",
    )
    assert by_name[0] == 0 and by_name == by_path
    assert json.loads(by_name[1])["K"] == 80


def test_default_datasets_follow_sysrs_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SYSRS_DATA", raising=False)
    assert [d.name for d in default_datasets()] == list(NAMES)
    assert all(d.packed is not None for d in default_datasets())
    monkeypatch.setenv("SYSRS_DATA", str(make_data_folder(tmp_path / "mine")))
    assert [d.name for d in default_datasets()] == ["alpha", "bravo"]


@pytest.mark.slow
def test_datasets_command(tmp_path: Path) -> None:
    status, out, err = run_main("datasets", "--json")
    assert status == 0 and err == ""
    rows = json.loads(out)["datasets"]
    assert [row["name"] for row in rows] == list(NAMES)
    gsm = rows[NAMES.index("gsm")]
    h = hardness(real("gsm"))
    assert h.h2 is not None
    assert (gsm["K"], gsm["L"], gsm["source"], gsm["metric"]) == (80, 1000, "HELM Lite", "final_num_exact")
    assert gsm["best_mean"] == float(h.best_mean) == 0.956 and gsm["exact"]["best_mean"] == "239/250"
    assert gsm["exact"]["H2"] == f"{h.h2.numerator}/{h.h2.denominator}" and gsm["paper"]["H2"] == 61224.5
    status, text, _ = run_main("datasets")
    assert status == 0 and all(name in text for name in NAMES) and "61224.5" in text
    status, out, _ = run_main("datasets", "gsm", "math", "--export", str(tmp_path / "out"), "--json")
    assert status == 0 and [Path(p).name for p in json.loads(out)["files"]] == ["gsm.npy", "math.npy", "MANIFEST.json"]
    assert [d.name for d in find_datasets(tmp_path / "out")] == ["gsm", "math"]
    status, _, err = run_main("datasets", "gsn")
    assert status == 2 and "did you mean 'gsm'" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "file").write_text("")
    status, _, err = run_main("datasets", "--export", str(tmp_path / "file"))
    assert status == 2 and "exists and is not a folder" in err


@pytest.mark.slow
def test_reproduce_and_the_table_use_the_shipped_benchmarks_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SYSRS_DATA", raising=False)
    grid = tmp_path / "grid.txt"
    grid.write_text("35%\n")
    outcome = reproduce(None, tmp_path / "out", grid=str(grid), algorithms="sysrs", runs=3, plots=False)
    payload = json.loads((outcome.out / "results.json").read_text())
    assert [d["name"] for d in payload["datasets"]] == list(NAMES)
    assert [d["sha256"] for d in payload["datasets"]] == [b.sha256 for b in benchmarks()]
    assert "the benchmarks shipped with sysrs-ref" in (outcome.out / "report.md").read_text()
    monkeypatch.setenv("SYSRS_DATA", str(make_data_folder(tmp_path / "mine")))
    status, out, err = run_main(
        "reproduce",
        "--out",
        str(tmp_path / "mine-out"),
        "--grid",
        str(grid),
        "--algorithms",
        "sysrs",
        "--runs",
        "3",
        "--no-plots",
        "--quiet",
        "--json",
    )
    assert status == 0, err
    assert [Path(p).name for p in json.loads(out)["files"]][:1] == ["results.json"]
    mine = json.loads((tmp_path / "mine-out" / "results.json").read_text())
    assert [d["name"] for d in mine["datasets"]] == ["alpha", "bravo"]
