"""Fuzzing: random and well-formed-but-wrong input to every reader and to every subcommand.

Whatever the input, the answer is a normal result or a :class:`~sysrs_ref.errors.SysrsError` (on the
command line: exit status 2 and one line on stderr), never another exception, never a traceback. Every
input is small (bounded by the strategies of tests/strategies.py) and the command line asks for little work
(tiny matrices, a few runs, small enumeration limits), so each example is quick by construction.
The examples are derandomized: the same examples on every run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sysrs_ref.cli import main
from sysrs_ref.cli._live import read_ids, read_scores_csv
from sysrs_ref.cli._main import COMMANDS
from sysrs_ref.conformance import FAMILIES
from sysrs_ref.conformance.runner import STATUSES, _judge
from sysrs_ref.datasets._packing import read_packed, write_packed
from sysrs_ref.errors import SysrsError
from sysrs_ref.experiments._plan import parse_grid
from sysrs_ref.live import Session
from sysrs_ref.live.config import CONFIG_NAME
from sysrs_ref.live.log import LOG_NAME
from sysrs_ref.loaders import MISSING_POLICIES, convert, load_scores
from sysrs_ref.loaders._zip import open_archive, read_member
from sysrs_ref.loaders.arrays import read_npz
from tests.strategies import (
    argument_lists,
    csv_texts,
    damaged,
    grid_texts,
    json_texts,
    jsonl_texts,
    npy_files,
    npz_files,
    reply_lines,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "data" / "fixtures"
VECTORS = ROOT / "data" / "vectors"


def fuzz(examples: int) -> settings:
    """Derandomized settings: the same *examples* examples on every run, no example database."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def answered_or_refused(call: Callable[[], object]) -> object:
    """*call*'s result, or None when it raised a SysrsError; any other exception fails the example."""
    try:
        return call()
    except SysrsError as err:
        assert str(err).strip(), "an empty error message"
        return None


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


# -- score matrices: .npy, .npz, .csv ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")  # numpy parses random headers
@fuzz(200)
@given(npy_files())
def test_npy_files(data: bytes) -> None:
    with folder() as tmp:
        (tmp / "m.npy").write_bytes(data)
        answered_or_refused(lambda: load_scores(tmp / "m.npy"))


def _packed(matrix: list[list[float]]) -> bytes:
    with folder() as tmp:
        write_packed(tmp / "m.npz", matrix)
        return (tmp / "m.npz").read_bytes()


PACKED = {"bits": _packed([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), "float64": _packed([[0.5, 1.0, 0.0], [0.25, 0.0, 1.0]])}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")
@fuzz(200)
@given(
    st.one_of(npz_files(), st.sampled_from(sorted(PACKED.values())).flatmap(damaged)),
    st.sampled_from(["bits", "float64"]),
)
def test_npz_files(data: bytes, encoding: str) -> None:
    """The .npz reader, and the shipped benchmarks' (a packed .npz checked against its manifest's encoding and shape)."""
    with folder() as tmp:
        (tmp / "m.npz").write_bytes(data)
        answered_or_refused(lambda: read_npz(tmp / "m.npz"))
        answered_or_refused(lambda: read_packed(tmp / "m.npz", encoding, (2, 3)))  # type: ignore[arg-type]


@pytest.mark.slow
@fuzz(200)
@given(csv_texts())
def test_csv_files(text: str) -> None:
    """A .csv matrix or long .csv, through load_scores and through convert --from long-csv."""
    with folder() as tmp:
        (tmp / "s.csv").write_text(text, encoding="utf-8", newline="")
        answered_or_refused(lambda: load_scores(tmp / "s.csv"))
        for missing in MISSING_POLICIES:
            answered_or_refused(partial(convert, "long-csv", [tmp / "s.csv"], metric="score", missing=missing))


@fuzz(150)
@given(grid_texts())
def test_grid_files(text: str) -> None:
    with folder() as tmp:
        (tmp / "grid.txt").write_text(text, encoding="utf-8")
        grid = answered_or_refused(lambda: parse_grid(str(tmp / "grid.txt")))
        assert grid is None or (isinstance(grid, tuple) and all(0 < point <= 100 for point in grid))


# -- live sessions: the log, the configuration, score files, id files --------------------------------------

MODELS, QUERIES = ["a", "b", "c"], ["q1", "q2", "q3"]


def _session_files() -> tuple[str, list[object]]:
    """The session.json and the log records of a small session half done."""
    with folder() as tmp, Session.create(tmp / "run", MODELS, QUERIES, budget=6, seed=0) as session:
        session.record_many((m, q, Fraction(1, 2)) for m, q in session.pending())
        config = (tmp / "run" / CONFIG_NAME).read_text()
        records: list[object] = [json.loads(line) for line in (tmp / "run" / LOG_NAME).read_text().splitlines()]
    return config, records


CONFIG, RECORDS = _session_files()


def _use(directory: Path, readonly: bool) -> None:
    """Open the session in *directory* and use it as the live subcommands do."""
    with Session.open(directory, readonly=readonly) as session:
        session.status()
        pending = session.pending()
        if not readonly and pending:
            session.record(*pending[0], 1)


@pytest.mark.slow
@fuzz(150)
@given(jsonl_texts(RECORDS), st.booleans())
def test_live_logs(log: str, readonly: bool) -> None:
    with folder() as tmp:
        (tmp / "run").mkdir()
        (tmp / "run" / CONFIG_NAME).write_text(CONFIG)
        (tmp / "run" / LOG_NAME).write_text(log, encoding="utf-8", errors="surrogatepass")
        answered_or_refused(lambda: _use(tmp / "run", readonly))


@pytest.mark.slow
@fuzz(150)
@given(json_texts(json.loads(CONFIG)), st.booleans())
def test_live_configurations(config: str, readonly: bool) -> None:
    with folder() as tmp:
        (tmp / "run").mkdir()
        (tmp / "run" / CONFIG_NAME).write_text(config, encoding="utf-8", errors="surrogatepass")
        (tmp / "run" / LOG_NAME).write_text("".join(json.dumps(record) + "\n" for record in RECORDS))
        answered_or_refused(lambda: _use(tmp / "run", readonly))


def _record(tmp: Path, as_float: bool) -> None:
    rows = read_scores_csv(tmp / "scores.csv", as_float=as_float)
    with Session.create(tmp / "run", MODELS, QUERIES, budget=6, seed=0) as session:
        session.record_many(rows)


@fuzz(150)
@given(csv_texts(), st.booleans())
def test_live_score_files(text: str, as_float: bool) -> None:
    """The scores file of ``live record``, read and recorded into a new session."""
    with folder() as tmp:
        (tmp / "scores.csv").write_text(text, encoding="utf-8", newline="")
        answered_or_refused(lambda: _record(tmp, as_float))


def _start(tmp: Path, name: str) -> None:
    models = read_ids(tmp / name, "models")
    Session.create(tmp / "run", models, QUERIES, budget="50%", seed=0).close()


@pytest.mark.slow
@fuzz(150)
@given(json_texts({"models": MODELS, "queries": QUERIES}), st.sampled_from(["ids.json", "ids.txt"]))
def test_live_id_files(text: str, name: str) -> None:
    """The --models / --queries files of ``live init`` (a JSON list or object, or one id per line)."""
    with folder() as tmp:
        (tmp / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        answered_or_refused(lambda: _start(tmp, name))


# -- harness results: lm-eval, HELM, inspect-ai --------------------------------------------------------------

HARNESSES: dict[str, tuple[Path, Callable[[Path, str], object]]] = {  # a fixture folder; convert on (folder, missing)
    "lm-eval": (
        FIXTURES / "lm-eval" / "good",
        lambda path, missing: convert("lm-eval", [path], metric="exact_match", filter="strict-match", missing=missing),
    ),
    "lm-eval-reruns": (
        FIXTURES / "lm-eval" / "reruns",
        lambda path, missing: convert("lm-eval", [path], metric="exact_match", filter="strict-match", missing=missing),
    ),
    "helm": (
        FIXTURES / "helm" / "good",
        lambda path, missing: convert("helm", [path], metric="exact_match", missing=missing),
    ),
    "helm-suites": (
        FIXTURES / "helm" / "suites",
        lambda path, missing: convert("helm", [path], metric="exact_match", suites=("v2",), missing=missing),
    ),
    "inspect": (
        FIXTURES / "inspect" / "good",
        lambda path, missing: convert("inspect", [path], metric="match", missing=missing),
    ),
    "inspect-epochs": (
        FIXTURES / "inspect" / "epochs",
        lambda path, missing: convert("inspect", [path], metric="match", epochs="all", missing=missing),
    ),
}


def _mutated_file(data: st.DataObject, path: Path) -> bytes:
    """New contents for the harness file *path*: its JSON (or a line, or a zip member) changed, or bytes damaged."""
    content = path.read_bytes()
    if data.draw(st.integers(0, 4)) == 0:
        return data.draw(damaged(content))
    if path.suffix == ".json":
        return data.draw(json_texts(json.loads(content))).encode("utf-8", "surrogatepass")
    if path.suffix == ".jsonl":
        records = [json.loads(line) for line in content.decode().splitlines() if line.strip()]
        return data.draw(jsonl_texts(records)).encode("utf-8", "surrogatepass")
    with open_archive(path, "an inspect log") as archive:  # an inspect .eval log, zstd members read too
        members = {info.filename: read_member(archive, info, path, 2**20) for info in archive.infolist()}
    changed = data.draw(st.sampled_from(sorted(members)))
    members[changed] = data.draw(json_texts(json.loads(members[changed]))).encode("utf-8", "surrogatepass")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, member in members.items():
            archive.writestr(name, member)
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HARNESSES))
@fuzz(80)
@given(data=st.data())
def test_harness_results(name: str, data: st.DataObject) -> None:
    """``convert --from SOURCE`` on a fixture folder with one of its files changed."""
    good, convert_folder = HARNESSES[name]
    files = sorted(path.relative_to(good) for path in good.rglob("*") if path.is_file())
    with folder() as tmp:
        shutil.copytree(good, tmp / "results")
        chosen = data.draw(st.sampled_from(files))
        (tmp / "results" / chosen).write_bytes(_mutated_file(data, good / chosen))
        missing = data.draw(st.sampled_from(MISSING_POLICIES))
        answered_or_refused(lambda: convert_folder(tmp / "results", missing))


# -- conformance replies -------------------------------------------------------------------------------------

CASES = {family: json.loads((VECTORS / f"{family}.json").read_text())["cases"] for family in FAMILIES}


@pytest.mark.parametrize("family", FAMILIES)
@fuzz(60)
@given(data=st.data())
def test_conformance_replies(family: str, data: st.DataObject) -> None:
    """Whatever an implementation replies, the runner judges it: a status, never an exception."""
    case = data.draw(st.sampled_from(CASES[family]))
    line = data.draw(reply_lines(case["id"], case.get("expected", {"refused": case.get("refused")})))
    result = _judge(family, case, line)
    assert result.status in STATUSES and result.id == case["id"]


# -- the command line ----------------------------------------------------------------------------------------

ALGORITHMS = ("sysrs", "sr", "us", "syus", "ucbe", "syucbe", "sar", "sysar", "ucbe-lrf", "nope", "SySRs", "")
SCORES = ("tiny.csv", "long.csv", "good.npy", "bad.csv", "nan.npy", "missing.csv", "data", "gms", "tiny.txt", "")
BUDGETS: tuple[str, ...] = ()  # any number token (huge exponents too)
SMALL_INTS = ("0", "1", "2", "-1", "x", "", "1.5", "1e2")
RUN = {
    "--scores": SCORES,
    "--budget": BUDGETS,
    "--algorithm": ALGORITHMS,
    "--a": BUDGETS,
    "--m": BUDGETS,
    "--warmup": BUDGETS,
    "--json": None,
}
#: For each subcommand: the words it starts with (bounding its work), and its options with their values.
FUZZED: dict[str, tuple[list[str], dict[str, tuple[str, ...] | None]]] = {
    "select": (["select"], {**RUN, "--seed": ("0", "1", "-1", "x", "9" * 40, "2**64")}),
    "simulate": (
        ["simulate", "--runs", "2"],
        {
            **RUN,
            "--algorithm": (*ALGORITHMS, "all", "sysrs,ucbe:a=0.1", "ucbe:a=x", "sysrs,sysrs", "sar:m=9", ","),
            "--budgets": ("10,20", "50%,12", "1,2", "", ",", "10;20", "1e-99999999%", "50%"),
            "--runs": SMALL_INTS,
            "--top-m": ("1", "2", "1,2", "0", "9", "x", ""),
            "--seed": ("0", "-1", "x"),
            "--workers": ("1", "0", "-1", "x"),
            "--scheduler": ("not-an-address", ""),
            "--quiet": None,
        },
    ),
    "hardness": (
        ["hardness"],
        {"--scores": SCORES, "--table": ("data", "missing", "tiny.csv"), "--bernoulli": None, "--json": None},
    ),
    "exact": (
        ["exact", "--limit", "20000"],
        {**RUN, "--top-m": ("1", "2", "0", "9", "x"), "--limit": ("1", "100", "0", "-1", "x", "")},
    ),
    "reproduce": (
        [
            "reproduce",
            "--data",
            "data",
            "--out",
            "out",
            "--runs",
            "2",
            "--grid",
            "table",
            "--no-plots",
            "--algorithms",
            "sysrs",
        ],
        {
            "--data": ("data", "missing", "tiny.csv", "empty"),
            "--out": ("out", "tiny.csv", "tiny.csv/out", ""),
            "--runs": SMALL_INTS,
            "--seed": ("0", "-1", "x"),
            "--grid": ("table", "grid.txt", "badgrid.txt", "missing.txt", "weekly", "data", ""),
            "--algorithms": ("sysrs", "us,sr", "sysrs,magic", "ucbe:a=x", "", ",", "ucbe:a=0.1"),
            "--top-m": ("1", "2", "0", "x", "2,2", "99", ""),
            "--top-m-grid": ("table", "grid.txt", "badgrid.txt", "weekly"),
            "--top-m-algorithms": ("sar", "sysar,nope", ""),
            "--workers": ("1", "0", "-1", "x"),
            "--json": None,
            "--quiet": None,
        },
    ),
    "vectors": (["vectors"], {"--out": ("tiny.csv", "tiny.csv/sub"), "--json": None}),
    "noise": (
        ["noise", "--out", "out", "--quick", "--runs", "1", "--no-plot", "--quiet"],
        {
            "--out": ("out", "tiny.csv", "tiny.csv/out", ""),
            "--runs": ("1", "0", "-1", "x", "9" * 40),
            "--seed": ("0", "-1", "x"),
            "--workers": ("1", "0", "-1", "x"),
            "--json": None,
        },
    ),
    "conform": (
        ["conform", "--family", "budgets", "--case", "budget-8pct-K80-L1000"],
        {
            "--vectors": ("badvectors", "missing", "tiny.csv", str(VECTORS)),
            "--case": ("budget-8pct-K80-L1000", "nothing-*", "[", ""),
            "--exclude": ("budget-*", "x"),
            "--tag": ("refusal", "budget", "speed", ""),
            "--max-failures": ("0", "1", "-1", "x"),
            "--timeout": ("30", "0", "-1", "nan", "inf", "x", "1e-99999999", "1e308", "1e10"),
            "--reference": None,
            "--quiet": None,
            "--json": None,
        },
    ),
    "subset": (
        ["subset"],
        {
            "--scores": SCORES,
            "--method": ("anchor", "kmeans", "kmeans-irt", "metabench", "random", "nope", ""),
            "--budget": BUDGETS,
            "--dim": ("1", "2", "0", "-1", "x"),
            "--seed": ("0", "-1", "x"),
            "--json": None,
        },
    ),
    "convert": (
        ["convert"],
        {
            "--from": ("lm-eval", "helm", "inspect", "long-csv", "mlflow"),
            "--metric": ("exact_match", "match", "score", "acc", ""),
            "--filter": ("strict-match", "none", ""),
            "--task": ("gsm8k", "bbh*", "mmlu*", "[", ""),
            "--epochs": ("auto", "first", "mean", "all", "best"),
            "--reruns": ("latest", "merge", "oldest"),
            "--unfinished": ("fail", "drop", "keep"),
            "--suite": ("v1", "v2", ""),
            "--missing": ("fail", "drop-models", "drop-queries", "skip"),
            "--out": ("conv.npy", "conv.csv", "tiny.csv/x.npy", "data", ""),
            "--json": None,
            str(FIXTURES / "lm-eval" / "good"): None,  # paths (positional)
            str(FIXTURES / "helm" / "bad"): None,
            str(FIXTURES / "inspect" / "good"): None,
            str(FIXTURES / "inspect" / "unfinished"): None,
            str(FIXTURES / "helm" / "suites"): None,
            str(FIXTURES / "lm-eval" / "mixed"): None,
            "long.csv": None,
            "missing": None,
        },
    ),
    "datasets": (
        ["datasets", "math"],
        {"nope": None, "gms": None, "--export": ("export", "tiny.csv", ""), "--json": None},
    ),
    "demo": (["demo"], {"--json": None}),
}
LIVE: dict[str, tuple[str, ...] | None] = {
    "--dir": ("run", "fresh", "missing/deeper", "tiny.csv", ""),
    "--models": ("models.txt", "ids.json", "bad.json", "missing.txt", "tiny.csv"),
    "--queries": ("queries.txt", "ids.json", "bad.json", "missing.txt"),
    "--budget": BUDGETS,
    "--algorithm": ALGORITHMS,
    "--seed": ("0", "-1", "x", "9" * 40),
    "--a": BUDGETS,
    "--m": BUDGETS,
    "--warmup": BUDGETS,
    "--scores": ("scores.csv", "bad.csv", "long.csv", "missing.csv", "badscores.csv"),
    "--float": None,
    "--json": None,
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of small inputs, copied afresh for every example."""
    root = tmp_path_factory.mktemp("workspace")
    shutil.copy(FIXTURES / "tiny_matrix.csv", root / "tiny.csv")
    shutil.copy(FIXTURES / "tiny_long.csv", root / "long.csv")
    shutil.copy(FIXTURES / "tiny_matrix.csv", root / "tiny.txt")
    np.save(root / "good.npy", np.array([[1.0, 0.5, 0.0, 1.0], [0.0, 0.5, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]))
    np.save(root / "nan.npy", np.array([[1.0, np.nan], [0.0, 1.0]]))
    (root / "bad.csv").write_text("0.5,x\n1,0\n")
    (root / "data").mkdir()
    shutil.copy(FIXTURES / "tiny_matrix.csv", root / "data" / "tiny.csv")
    (root / "data" / "other.csv").write_text("1,0,1,1\n0,1,0,0\n1,1,0,1\n")
    (root / "empty").mkdir()
    (root / "grid.txt").write_text("50%\n100%\n")
    (root / "badgrid.txt").write_text("50%\nfifty\n")
    (root / "badvectors").mkdir()
    (root / "badvectors" / "budgets.json").write_text('{"cases": [{"id": 1}]}')
    (root / "models.txt").write_text("a\nb\nc\n")
    (root / "queries.txt").write_text("q1\nq2\nq3\nq4\n")
    (root / "ids.json").write_text(json.dumps({"models": MODELS, "queries": QUERIES}))
    (root / "bad.json").write_text('{"models": [1, 2]}')
    with Session.create(root / "run", MODELS, ["q1", "q2", "q3", "q4"], budget="50%", seed=0) as session:
        rows = [f"{m},{q},0.5" for m, q in session.pending()]
    (root / "scores.csv").write_text("model,query,score\n" + "\n".join(rows) + "\nzz,q1,1\n")
    (root / "badscores.csv").write_text("model,query,score\n" + rows[0][:-3] + "1.5\n")
    return root


class FullStdout(io.StringIO):
    """A stdout on a full disk: every write fails with ENOSPC (and is remembered)."""

    written = False

    def write(self, text: str, /) -> int:
        self.written = True
        raise OSError(28, "No space left on device")


def run_cli(workspace: Path, argv: list[str], stdout: str = "") -> tuple[int, str, str]:
    """``python -m sysrs_ref ARGV`` in-process, in a fresh copy of *workspace*: (status, stdout, stderr).

    *stdout* "full" writes to a full disk, "closed" runs with no stdout at all (``>&-``).
    """
    out: io.StringIO = FullStdout() if stdout == "full" else io.StringIO()
    err = io.StringIO()
    here, data = Path.cwd(), os.environ.get("SYSRS_DATA")
    with folder() as tmp:
        shutil.copytree(workspace, tmp / "w")
        os.chdir(tmp / "w")
        os.environ["SYSRS_DATA"] = "data"  # hardness --table alone: the tiny folder, not the shipped benchmarks
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                if stdout == "closed":
                    sys.stdout = None  # what Python sets when fd 1 is closed
                try:
                    status = main(argv)
                except SystemExit as exit_:  # --help prints the help and exits 0
                    assert exit_.code == 0 and "usage:" in out.getvalue(), exit_
                    status = 0
        finally:
            os.chdir(here)
            if data is None:
                del os.environ["SYSRS_DATA"]
            else:
                os.environ["SYSRS_DATA"] = data
    return status, out.getvalue(), err.getvalue()


def check_answer(command: str, status: int, err: str) -> None:
    """Exit 0 (or 1 for conform, a case failing), or 2 with exactly one line on stderr; never a traceback."""
    assert "Traceback" not in err, err
    if status == 2:
        assert len(err.splitlines()) == 1 and err.strip(), err
    else:
        assert status in ((0, 1) if command == "conform" else (0,)), (status, err)


def test_every_subcommand_is_fuzzed() -> None:
    assert {*FUZZED, "live"} == set(COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(FUZZED))
@fuzz(40)
@given(data=st.data())
def test_subcommand_arguments(workspace: Path, command: str, data: st.DataObject) -> None:
    start, options = FUZZED[command]
    argv = start + data.draw(argument_lists(options))
    if command == "conform":
        argv += data.draw(st.sampled_from([[], ["--", "./no-such-program"], ["--", sys.executable, "-c", "input()"]]))
    status, _, err = run_cli(workspace, argv)
    check_answer(command, status, err)


@pytest.mark.parametrize("command", sorted(FUZZED))
@fuzz(8)
@given(data=st.data(), stdout=st.sampled_from(["full", "closed"]))
def test_subcommands_writing_to_a_full_or_closed_stdout(
    workspace: Path, command: str, data: st.DataObject, stdout: str
) -> None:
    """Output that cannot be written is one line and status 2: a closed stdout before anything runs, a full disk
    as soon as the command writes; status 0 only for a command that wrote nothing."""
    start, options = FUZZED[command]
    argv = start + data.draw(argument_lists(options))
    status, _, err = run_cli(workspace, argv, stdout)
    check_answer(command, status, err)
    if stdout == "closed":
        assert (status, err) == (2, "error: stdout is closed, so no output could be written: nothing was run\n")
    elif status != 2:
        assert status in (0, 1) and "could not be written" not in err


@pytest.mark.slow
@fuzz(120)
@given(st.sampled_from(["init", "next", "record", "status", "stop", ""]), argument_lists(LIVE, max_size=8))
def test_live_arguments(workspace: Path, action: str, words: list[str]) -> None:
    status, _, err = run_cli(workspace, ["live", action, *words] if action else ["live", *words])
    check_answer("live", status, err)


@pytest.mark.slow
@fuzz(60)
@given(
    st.lists(
        st.sampled_from([*(c for c in FUZZED if c != "datasets"), "live", "--help", "-h", "--json", "help", "x", ""]),
        max_size=3,
    )
)
def test_top_level_arguments(workspace: Path, words: list[str]) -> None:
    """Words before (or instead of) a subcommand's options: usage mistakes, the help."""
    status, _, err = run_cli(workspace, words)
    check_answer("", status, err)
