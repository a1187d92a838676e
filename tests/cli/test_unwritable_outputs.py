"""Outputs that cannot be written, and cache entries that cannot be trusted.

A full disk, a read-only folder or an output folder under a regular file is
one line on stderr naming the path and the operating system's reason, exit
status 2, no traceback, no temporary file left, and every file written
before complete (the new one, or the old one untouched). A cache entry of
``reproduce`` whose checksum, key or counts are wrong is recomputed with one
warning line, and the results are those of a clean run.

The full disk is simulated in-process (the ``os`` module that the atomic
writer and the live log see fails a write with ENOSPC), and once for real on
a tiny tmpfs mounted in a private mount namespace, when this machine allows it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

import pytest

from sysrs_ref import _atomic
from sysrs_ref.cli import main
from sysrs_ref.conformance import vectors as vectors_module
from sysrs_ref.errors import OutputError, SysrsError
from sysrs_ref.live import log as log_module
from sysrs_ref.simulation import _engine as engine
from tests.small_data import make_data_folder

REPO = Path(__file__).resolve().parents[2]
NO_SPACE = os.strerror(errno.ENOSPC)
RUNS = 5
#: Two datasets x one configuration x the seven budgets of the table grid: 14 cache entries, then 7 report files.
SMALL_RUN = ["--grid", "table", "--runs", str(RUNS), "--algorithms", "sysrs", "--no-plots"]
REPORT_FILES = 7


# -- helpers ----------------------------------------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in this process: its status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_error_line(status: int, err: str) -> str:
    """The single error line of a refused command (exit status 2, no traceback)."""
    assert status == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


def _written_path(line: str, reason: str) -> Path:
    """The path named by ``error: cannot write 'PATH': REASON``."""
    found = re.fullmatch(rf"error: cannot write '(.+)': {re.escape(reason)}", line)
    assert found is not None, line
    return Path(found.group(1))


def _temporaries(folder: Path) -> list[Path]:
    """Temporary files of the atomic writer (``.NAME.*.tmp``) left under *folder*."""
    return [path for path in folder.rglob("*") if path.name.startswith(".") and path.name.endswith(".tmp")]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under *folder*, by relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class _FillingFile:
    """A file opened on a disk with no space left: a write stores half of its bytes, then fails with ENOSPC."""

    def __init__(self, handle: IO[Any]) -> None:
        self._handle = handle

    def write(self, data: bytes) -> int:
        self._handle.write(data[: len(data) // 2])
        self._handle.flush()
        raise OSError(errno.ENOSPC, NO_SPACE)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _FillingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


class _FullDisk:
    """``os`` as a module sees it when the disk fills up at its *full_at*-th file (fdopen) or write (os.write)."""

    def __init__(self, full_at: int) -> None:
        self.full_at = full_at
        self.count = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def _full(self) -> bool:
        self.count += 1
        return self.count >= self.full_at

    def fdopen(self, fd: int, mode: str) -> Any:
        handle = os.fdopen(fd, mode)
        return _FillingFile(handle) if self._full() else handle

    def write(self, fd: int, data: bytes | memoryview) -> int:
        if self._full():
            os.write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, NO_SPACE)
        return os.write(fd, data)


def _fill_disk_for_atomic_writes(monkeypatch: pytest.MonkeyPatch, full_at: int) -> _FullDisk:
    disk = _FullDisk(full_at)
    monkeypatch.setattr(_atomic, "os", disk)
    return disk


def _reproduce(capsys: pytest.CaptureFixture[str], data: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return _cli(capsys, "reproduce", "--data", str(data), "--out", str(out), *SMALL_RUN, *extra)


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the Monte-Carlo engine's pieces of work (one per job here)."""
    real = engine._piece
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(engine, "_piece", counted)
    return calls


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_data_folder(tmp_path_factory.mktemp("hardening") / "data")


@pytest.fixture(scope="module")
def clean(data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files of a clean reproduction (nothing cached, nothing failing)."""
    out = tmp_path_factory.mktemp("clean") / "out"
    assert main(["reproduce", "--data", str(data), "--out", str(out), *SMALL_RUN]) == 0
    return _files(out)


def _results(out: Path) -> Any:
    return json.loads((out / "results.json").read_text())


# -- the error itself -------------------------------------------------------------------------------


def test_output_error_is_a_sysrs_error_and_an_os_error() -> None:
    cause = OSError(errno.ENOSPC, NO_SPACE, "out/results.json")
    error = _atomic.output_error(Path("out/results.json"), cause)
    assert isinstance(error, OutputError) and isinstance(error, SysrsError) and isinstance(error, OSError)
    assert str(error) == f"cannot write 'out/results.json': {NO_SPACE}"
    assert (error.errno, error.strerror) == (errno.ENOSPC, NO_SPACE)


def test_atomic_write_on_a_full_disk_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out" / "results.json"
    _atomic.atomic_write(target, "old\n")
    _fill_disk_for_atomic_writes(monkeypatch, 1)
    with pytest.raises(OutputError, match=rf"^cannot write '{re.escape(str(target))}': {NO_SPACE}$"):
        _atomic.atomic_write(target, "new\n" * 1000)
    assert target.read_text() == "old\n" and _temporaries(tmp_path) == []


@pytest.mark.parametrize("full_at", [1, 2, 3])
def test_atomic_write_all_on_a_full_disk_keeps_what_came_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_at: int
) -> None:
    """The files before the one that met the full disk are written whole; it and the rest keep their old content."""
    targets = [tmp_path / "out" / f"{index}.json" for index in range(3)]
    _atomic.atomic_write_all([(target, "old\n") for target in targets])
    _fill_disk_for_atomic_writes(monkeypatch, full_at)
    failed = re.escape(str(targets[full_at - 1]))
    with pytest.raises(OutputError, match=rf"^cannot write '{failed}': {NO_SPACE}$"):
        _atomic.atomic_write_all([(target, f"new {index}\n" * 1000) for index, target in enumerate(targets)])
    expected = [f"new {index}\n" * 1000 for index in range(full_at - 1)] + ["old\n"] * (4 - full_at)
    assert [target.read_text() for target in targets] == expected and _temporaries(tmp_path) == []


# -- an output folder under a regular file ------------------------------------------------------------


def test_reproduce_out_under_a_regular_file(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("not a folder\n")
    line = _one_error_line(*_reproduce(capsys, data, tmp_path / "afile" / "out")[::2])
    assert str(tmp_path / "afile" / "out") in line and os.strerror(errno.ENOTDIR) in line
    assert (tmp_path / "afile").read_text() == "not a folder\n"


def test_vectors_out_under_a_regular_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("not a folder\n")
    status, _, err = _cli(capsys, "vectors", "--out", str(tmp_path / "afile" / "vectors"))
    line = _one_error_line(status, err)
    assert line == (
        f"error: cannot create the folder '{tmp_path / 'afile' / 'vectors'}': {os.strerror(errno.ENOTDIR)} "
        f"('{tmp_path / 'afile'}' is a file, not a folder)"
    )


def test_live_init_under_a_regular_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "afile").write_text("not a folder\n")
    status, _, err = _live_init(capsys, tmp_path, tmp_path / "afile" / "run")
    line = _one_error_line(status, err)
    assert str(tmp_path / "afile" / "run") in line and os.strerror(errno.ENOTDIR) in line


# -- a read-only folder ----------------------------------------------------------------------------


@pytest.fixture
def read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder nothing can be written into: chmod 0o555, or (as root, whom permission bits do not stop) an
    atomic writer whose every temporary file in it is refused with EACCES."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return

    def refused(*, dir: Path, prefix: str, suffix: str) -> tuple[int, str]:
        if Path(dir).resolve().is_relative_to(folder.resolve()):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(dir))
        return tempfile.mkstemp(dir=dir, prefix=prefix, suffix=suffix)

    monkeypatch.setattr(_atomic, "tempfile", SimpleNamespace(mkstemp=refused))
    yield folder


def _refused_in(folder: Path, status: int, err: str) -> None:
    line = _one_error_line(status, err)
    assert re.fullmatch(r"error: cannot (write|create the folder) '(.+)': Permission denied", line), line
    assert str(folder) in line
    assert [p for p in folder.rglob("*") if not p.is_dir()] == []  # no file, complete or temporary


def test_reproduce_into_a_read_only_folder(data: Path, read_only: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _refused_in(read_only, *_reproduce(capsys, data, read_only)[::2])


def test_vectors_into_a_read_only_folder(
    read_only: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_vectors(monkeypatch, 1)
    status, _, err = _cli(capsys, "vectors", "--out", str(read_only))
    _refused_in(read_only, status, err)


# -- a full disk: reproduce ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "full_at",
    [1, 9, 15, 16, 14 + REPORT_FILES],
    ids=["first-cache-entry", "a-later-cache-entry", "results.json", "cells.csv", "report.md"],
)
def test_reproduce_on_a_full_disk(
    data: Path,
    clean: dict[str, bytes],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    full_at: int,
) -> None:
    out = tmp_path / "out"
    _fill_disk_for_atomic_writes(monkeypatch, full_at)
    failed = _written_path(_one_error_line(*_reproduce(capsys, data, out)[::2]), NO_SPACE)
    assert failed.is_relative_to(out) and not failed.exists()
    assert _temporaries(out) == []
    written = _files(out)
    assert len(written) == full_at - 1
    assert all(content == clean[name] for name, content in written.items())  # each one complete
    monkeypatch.undo()  # space again: the same command finishes the job
    assert _reproduce(capsys, data, out)[0] == 0
    assert _files(out) == clean


def test_reproduce_on_a_full_disk_keeps_the_previous_outputs(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    assert _reproduce(capsys, data, out)[0] == 0
    before = _files(out)
    _fill_disk_for_atomic_writes(monkeypatch, 3)  # two cache entries of R + 1 runs, then the disk is full
    status, _, err = _cli(
        capsys, "reproduce", "--data", str(data), "--out", str(out), *SMALL_RUN, "--runs", str(RUNS + 1)
    )
    failed = _written_path(_one_error_line(status, err), NO_SPACE)
    assert failed.is_relative_to(out / "cache")  # the first cache entry of R + 1 runs...
    after = _files(out)
    assert _temporaries(out) == []
    assert {name: after[name] for name in before} == before  # ... and everything of before is as it was
    assert len(after) == len(before) + 2  # two complete new cache entries
    for name in set(after) - set(before):
        assert json.loads(after[name])["key"]["runs"] == RUNS + 1


def test_reproduce_on_a_full_disk_while_drawing_a_figure(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    _fill_disk_for_atomic_writes(monkeypatch, 15)  # the fourteen cache entries, then figure1.png
    status, _, err = _cli(
        capsys,
        "reproduce",
        "--data",
        str(data),
        "--out",
        str(out),
        "--grid",
        "table",
        "--runs",
        str(RUNS),
        "--algorithms",
        "sysrs",
    )
    assert _written_path(_one_error_line(status, err), NO_SPACE) == out / "figure1.png"
    assert not (out / "figure1.png").exists() and _temporaries(out) == []


# -- a full disk: vectors ---------------------------------------------------------------------------


def _small_vectors(monkeypatch: pytest.MonkeyPatch, edition: int) -> None:
    """Stand-in family documents, fast to make: the writing is what is tested here."""
    monkeypatch.setattr(
        vectors_module, "family_document", lambda family: {"family": family, "edition": edition, "cases": []}
    )


def test_vectors_on_a_full_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "vectors"
    _small_vectors(monkeypatch, 1)
    assert _cli(capsys, "vectors", "--out", str(out))[0] == 0
    before = _files(out)
    _small_vectors(monkeypatch, 2)
    _fill_disk_for_atomic_writes(monkeypatch, 3)
    failed = _written_path(_one_error_line(*_cli(capsys, "vectors", "--out", str(out))[::2]), NO_SPACE)
    assert failed == out / "budgets.json"  # the third family
    after = _files(out)
    assert _temporaries(out) == [] and set(after) == set(before)
    assert [json.loads(after[f"{family}.json"])["edition"] for family in ("algorithms", "schedules")] == [2, 2]
    assert {name: after[name] for name in before if name not in ("algorithms.json", "schedules.json")} == {
        name: before[name] for name in before if name not in ("algorithms.json", "schedules.json")
    }


# -- a full disk: live ------------------------------------------------------------------------------

MODELS = ["alpha", "bravo", "charlie", "delta"]
QUERIES = [f"q{j}" for j in range(6)]


def _score(model: str, query: str) -> int:
    return (MODELS.index(model) + int(query[1:])) % 2


def _live_init(capsys: pytest.CaptureFixture[str], tmp_path: Path, run: Path) -> tuple[int, str, str]:
    (tmp_path / "models.txt").write_text("\n".join(MODELS) + "\n")
    (tmp_path / "queries.txt").write_text("\n".join(QUERIES) + "\n")
    return _cli(
        capsys,
        "live",
        "init",
        "--models",
        str(tmp_path / "models.txt"),
        "--queries",
        str(tmp_path / "queries.txt"),
        "--budget",
        "12",
        "--dir",
        str(run),
    )


def _pending(capsys: pytest.CaptureFixture[str], run: Path) -> list[tuple[str, str]]:
    status, out, _ = _cli(capsys, "live", "next", "--dir", str(run), "--json")
    assert status == 0
    return [(pair["model"], pair["query"]) for pair in json.loads(out)["pending"]]


@pytest.mark.parametrize(
    ("where", "full_at", "named"),
    [("atomic", 1, "session.json"), ("log", 1, "log.jsonl")],
    ids=["writing-session.json", "logging-the-first-batch"],
)
def test_live_init_on_a_full_disk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    full_at: int,
    named: str,
) -> None:
    run = tmp_path / "run"
    monkeypatch.setattr(_atomic if where == "atomic" else log_module, "os", _FullDisk(full_at))
    failed = _written_path(_one_error_line(*_live_init(capsys, tmp_path, run)[::2]), NO_SPACE)
    assert failed == run / named
    assert _temporaries(run) == [] and not (run / "session.json").exists()  # no session half started
    assert (run / "log.jsonl").read_bytes() == b""
    monkeypatch.undo()  # space again: the same command starts the session
    status, out, err = _live_init(capsys, tmp_path, run)
    assert status == 0, err
    assert "phase 1" in out and len(_pending(capsys, run)) == 8


@pytest.mark.parametrize("full_at", [1, 2], ids=["logging-the-scores", "logging-the-next-batch"])
def test_live_record_on_a_full_disk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, full_at: int
) -> None:
    run = tmp_path / "run"
    assert _live_init(capsys, tmp_path, run)[0] == 0
    pending = _pending(capsys, run)
    scores = tmp_path / "scores.csv"
    scores.write_text("model,query,score\n" + "".join(f"{m},{q},{_score(m, q)}\n" for m, q in pending))
    log_before = (run / "log.jsonl").read_bytes()
    monkeypatch.setattr(log_module, "os", _FullDisk(full_at))
    status, _, err = _cli(capsys, "live", "record", "--dir", str(run), "--scores", str(scores))
    assert _written_path(_one_error_line(status, err), NO_SPACE) == run / "log.jsonl"
    log_after = (run / "log.jsonl").read_bytes()
    assert log_after.endswith(b"\n") and _temporaries(run) == []
    if full_at == 1:  # the scores were not acknowledged: the log is cut back to what it was
        assert log_after == log_before
    else:  # the scores were (fsynced before the batch they complete was asked for): kept, nothing torn
        assert log_after.startswith(log_before) and log_after.count(b'"t":"score"') == len(pending)
    monkeypatch.undo()
    status, out, err = _cli(capsys, "live", "record", "--dir", str(run), "--scores", str(scores))
    assert status == 0, err
    new = 0 if full_at == 2 else len(pending)
    assert f"recorded {new} new scores ({len(pending) - new} already known)" in out
    assert "phase 2" in out and _pending(capsys, run) not in ([], pending)


# -- a full disk for real: a tiny tmpfs --------------------------------------------------------------


def _namespace_mount(tmp_path: Path) -> list[str]:
    """The command prefix that runs a shell in a private mount namespace where mounting a tmpfs is allowed.

    Skips the test, with the reason, when this machine does not allow it.
    """
    if shutil.which("unshare") is None:
        pytest.skip("a real full disk needs unshare(1) to mount a tmpfs privately; it is not installed")
    probe = tmp_path / "probe"
    probe.mkdir()
    reasons = []
    prefixes = [["unshare", "--user", "--map-root-user", "--mount"]]
    if os.geteuid() == 0:
        prefixes.append(["unshare", "--mount"])
    for prefix in prefixes:
        tried = subprocess.run(
            [*prefix, "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1"', "sh", str(probe)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if tried.returncode == 0:
            return prefix
        reasons.append(f"{' '.join(prefix)}: {tried.stderr.strip() or tried.returncode}")
    pytest.skip("mounting a tmpfs is not permitted here (" + "; ".join(reasons) + ")")


def test_reproduce_on_a_really_full_tmpfs(data: Path, tmp_path: Path) -> None:
    prefix = _namespace_mount(tmp_path)
    disk, keep = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    keep.mkdir()
    command = f'"{sys.executable}" -m sysrs_ref reproduce --data "{data}" --out "$DISK/out" {" ".join(SMALL_RUN)}'
    script = f"""
        set -u
        mount -t tmpfs -o size=512k tmpfs "$DISK"
        {command} > /dev/null 2> "$KEEP/first.err"; echo $? > "$KEEP/first.rc"
        cp -r "$DISK/out" "$KEEP/before"
        dd if=/dev/zero of="$DISK/filler" bs=4096 2> /dev/null
        {command} > /dev/null 2> "$KEEP/second.err"; echo $? > "$KEEP/second.rc"
        rm "$DISK/filler"
        cp -r "$DISK/out" "$KEEP/after"
    """
    env = {**os.environ, "DISK": str(disk), "KEEP": str(keep), "PYTHONPATH": str(REPO)}
    done = subprocess.run([*prefix, "sh", "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (keep / "first.rc").read_text().strip() == "0", (keep / "first.err").read_text()
    status, err = int((keep / "second.rc").read_text()), (keep / "second.err").read_text()
    failed = _written_path(_one_error_line(status, err), NO_SPACE)  # a second run rewrites results.json first
    assert failed == disk / "out" / "results.json"
    assert _files(keep / "after") == _files(keep / "before")  # every file as the first run left it
    assert _temporaries(keep / "after") == []


# -- the cache ---------------------------------------------------------------------------------------


def _sign(entry: dict[str, Any]) -> dict[str, Any]:
    """*entry* with the checksum docs/reproduce.md describes: SHA-256 of the rest, as canonical JSON."""
    body = {name: value for name, value in entry.items() if name != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return body | {"checksum": "sha256:" + hashlib.sha256(text.encode()).hexdigest()}


def _edit_correct(entry: dict[str, Any]) -> dict[str, Any]:
    return entry | {"correct": 3000}


def _edit_spent(entry: dict[str, Any]) -> dict[str, Any]:
    return entry | {"spent_max": entry["budget"] + 1}


def _edit_key(entry: dict[str, Any]) -> dict[str, Any]:
    return entry | {"key": entry["key"] | {"algorithm": "sr"}}


def _old_format(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as sysrs-ref wrote it before entries had a checksum."""
    return {name: value for name, value in entry.items() if name != "checksum"} | {"key": entry["key"] | {"format": 1}}


EDITS: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], str]] = {
    "correct-3000": (_edit_correct, "does not match its checksum"),
    "correct-3000-resigned": (lambda e: _sign(_edit_correct(e)), f'says "correct" = 3000, outside [0, {RUNS}]'),
    "spent-above-budget": (_edit_spent, "does not match its checksum"),
    "spent-above-budget-resigned": (lambda e: _sign(_edit_spent(e)), 'says "spent_max" = '),
    "checksum-dropped": (lambda e: {k: v for k, v in e.items() if k != "checksum"}, "has no checksum"),
    "checksum-garbled": (lambda e: e | {"checksum": "sha256:" + "0" * 64}, "does not match its checksum"),
    "key-changed": (_edit_key, "does not match its checksum"),
    "key-changed-resigned": (lambda e: _sign(_edit_key(e)), "is for another grid point (its key differs in algorithm)"),
    "runs-changed-resigned": (
        lambda e: _sign(e | {"key": e["key"] | {"runs": RUNS + 1}}),
        "is for another grid point (its key differs in runs)",
    ),
    "old-format-without-checksum": (_old_format, "has no checksum"),
}

#: The entry edited: a budget in the middle of a cell, so the cell's other entries stay intact.
EDITED = Path("cache") / "bravo" / "sysrs" / f"runs{RUNS}-seed0" / "20.json"


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_a_tampered_cache_entry_is_recomputed_with_a_warning(
    data: Path,
    clean: dict[str, bytes],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    engine_calls: list[int],
    edit: str,
) -> None:
    out = tmp_path / "out"
    assert _reproduce(capsys, data, out)[0] == 0
    change, reason = EDITS[edit]
    path = out / EDITED
    path.write_text(json.dumps(change(json.loads(path.read_text())), indent=1) + "\n")
    engine_calls.clear()
    status, _, err = _reproduce(capsys, data, out)
    assert status == 0 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"warning: the cache entry '{path}' ") and reason in lines[0]
    assert lines[0].endswith("; recomputing it")
    assert engine_calls  # recomputed...
    assert _results(out) == json.loads(clean["results.json"])  # ... to the numbers of a clean run
    assert path.read_bytes() == clean[str(EDITED)]  # and cached again, intact
    engine_calls.clear()
    status, _, err = _reproduce(capsys, data, out)
    assert (status, err, engine_calls) == (0, "", [])


def test_an_untouched_cache_is_reused(
    data: Path, clean: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str], engine_calls: list[int]
) -> None:
    out = tmp_path / "out"
    assert _reproduce(capsys, data, out)[0] == 0
    assert engine_calls  # a fresh folder: computed
    engine_calls.clear()
    status, stdout, err = _reproduce(capsys, data, out)
    assert (status, err, engine_calls) == (0, "", [])
    assert "0 cells computed, 2 from the cache" in stdout
    assert _files(out) == clean


def test_every_cache_entry_carries_the_documented_checksum(clean: dict[str, bytes]) -> None:
    entries = [json.loads(content) for name, content in clean.items() if name.startswith("cache")]
    assert len(entries) == 14
    assert all(entry == _sign(entry) for entry in entries)


def test_an_out_of_date_entry_is_recomputed_without_a_warning(
    data: Path,
    clean: dict[str, bytes],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    engine_calls: list[int],
) -> None:
    out = tmp_path / "out"
    assert _reproduce(capsys, data, out)[0] == 0
    path = out / EDITED
    entry = json.loads(path.read_text())
    path.write_text(json.dumps(_sign(entry | {"key": entry["key"] | {"version": "0.0.1"}})))
    engine_calls.clear()
    status, _, err = _reproduce(capsys, data, out)
    assert (status, err) == (0, "") and engine_calls
    assert path.read_bytes() == clean[str(EDITED)]
