"""The inspect-ai loader on real-world logs: zstd archives, eval sets, epochs, unfinished logs, tasks and scorers.

The fixtures are ``data/fixtures/inspect/{zstd,epochs,eval-set,unfinished}/``
(written by ``data/fixtures/make_inspect_fixtures.py``); damaged and
hostile archives are built here byte by byte (:func:`raw_zip`), so that
every field a reader trusts can be made to lie.
"""

from __future__ import annotations

import json
import re
import runpy
import shutil
import struct
import sys
import tracemalloc
import zipfile
import zlib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from sysrs_ref.errors import LoaderError, ParameterError
from sysrs_ref.loaders import convert, inspect_ai as inspect_module, load_inspect
from sysrs_ref.loaders._epochs import is_reducer, reduce_epochs
from sysrs_ref.loaders._zip import member_infos, open_archive, read_member
from sysrs_ref.loaders.table import ResultsTable

if sys.version_info >= (3, 14):  # pragma: no cover - the suite runs on the oldest supported Python
    from compression import zstd
else:
    from backports import zstd

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"
INSPECT = FIXTURES / "inspect"
EPOCHS = INSPECT / "epochs"
EVAL_SET = INSPECT / "eval-set"
UNFINISHED = INSPECT / "unfinished"
LOG_A = EPOCHS / "2026-05-04T10-00-00+00-00_quiz_model-a.eval"
LOG_B = EPOCHS / "2026-05-04T10-00-00+00-00_quiz_model-b.json"
LOG_C = EPOCHS / "2026-05-04T10-00-00+00-00_quiz_model-c.eval"
GOOD_A = INSPECT / "good" / "2024-05-01T10-00-00+00-00_arith_model-a.eval"
ZSTD_A = INSPECT / "zstd" / "2026-04-20T10-00-00+00-00_arith_model-a.eval"
QUIZ = tuple(f"quiz/{i}" for i in range(1, 11))
ZSTD = 93


# -- building archives byte by byte ----------------------------------------------------------------------


@dataclass
class Raw:
    """One member of :func:`raw_zip`: its content, and every header field that may be made to lie."""

    name: str
    data: bytes
    method: int = ZSTD
    payload: bytes | None = None
    """The compressed bytes (default: *data* compressed with *method*)."""
    size: int | None = None
    """The declared uncompressed size (default: the real one)."""
    crc: int | None = None
    flags: int = 0
    local_name: str | None = None


def _compressed(data: bytes, method: int) -> bytes:
    if method == ZSTD:
        return zstd.compress(data)
    if method == zipfile.ZIP_DEFLATED:
        packer = zlib.compressobj(6, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush()
    return data


def raw_zip(members: list[Raw]) -> bytes:
    """A zip archive written field by field (local headers, central directory, end record)."""
    body = bytearray()
    directory = bytearray()
    for member in members:
        payload = _compressed(member.data, member.method) if member.payload is None else member.payload
        size = len(member.data) if member.size is None else member.size
        crc = zlib.crc32(member.data) if member.crc is None else member.crc
        name = member.name.encode()
        local = (member.local_name or member.name).encode()
        offset = len(body)
        fields = (member.flags, member.method, 0, 0x5821, crc, len(payload), size)
        body += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, *fields, len(local), 0) + local + payload
        directory += struct.pack(
            "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, *fields, len(name), 0, 0, 0, 0, 0o644 << 16, offset
        )
        directory += name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(body), 0)
    return bytes(body + directory + end)


HEADER = json.dumps({"status": "success", "eval": {"model": "m", "task": "t"}}).encode()


def sample_bytes(value: object, sample_id: object = "s1", epoch: int = 1) -> bytes:
    return json.dumps({"id": sample_id, "epoch": epoch, "scores": {"match": {"value": value}}}).encode()


def write_raw(path: Path, members: list[Raw]) -> Path:
    path.write_bytes(raw_zip(members))
    return path


def check_refused(path: Path, message: str) -> str:
    with pytest.raises(LoaderError, match=message) as caught:
        load_inspect(path, metric="match")
    assert str(caught.value).startswith(str(path))
    return str(caught.value)


def json_log(path: Path, samples: list[dict[str, object]], **fields: object) -> Path:
    """A ``.json`` log of model m, task t, with *samples* and the header *fields* given (status success)."""
    document: dict[str, object] = {"version": 2, "status": "success", "eval": {"model": "m", "task": "t"}}
    document.update(fields)
    document["samples"] = samples
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def epochs_of(sample_id: object, values: list[object]) -> list[dict[str, object]]:
    """Samples of one id, epochs 1.. with *values* (None: an errored epoch, without scores)."""
    return [
        {"id": sample_id, "epoch": epoch} | ({} if value is None else {"scores": {"match": {"value": value}}})
        for epoch, value in enumerate(values, start=1)
    ]


def header_of(path: Path) -> dict[str, object]:
    """A log's header: ``header.json`` of an ``.eval`` (read with the loader's own member reader), or the ``.json``."""
    if path.suffix == ".json":
        document = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(document, dict)
        return document
    with open_archive(path, "an inspect-ai .eval log") as archive:
        header = json.loads(read_member(archive, archive.getinfo("header.json"), path, 2**20))
    assert isinstance(header, dict)
    return header


def notes(table: ResultsTable) -> dict[str, tuple[bool, int, str]]:
    return {Path(use.path).name: (use.used, use.scores, use.note) for use in table.files}


# -- zstd-compressed .eval logs (item 1) -----------------------------------------------------------------


def test_a_zstd_log_reads_like_its_deflate_twin() -> None:
    with zipfile.ZipFile(ZSTD_A) as archive:
        assert {info.compress_type for info in archive.infolist()} == {ZSTD}
        with pytest.raises(NotImplementedError):  # what the loader used to run into
            archive.read("header.json")
    with zipfile.ZipFile(GOOD_A) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}
    for metric in ("match", "judge"):
        for epochs in ("auto", "first", "all"):
            new, old = (load_inspect(path, metric=metric, epochs=epochs) for path in (ZSTD_A, GOOD_A))
            assert (new.models, new.queries) == (old.models, old.queries) == (("openai/model-a",), ARITH)
            assert new.scores.tolist() == old.scores.tolist()
            assert (new.samples is None) == (old.samples is None) == (epochs != "all")
    assert load_inspect(ZSTD_A, metric="match", epochs="first").scores.tolist() == [[1, 1, 0, 0.5, 1, 0]]


ARITH = tuple(f"arith/{i}" for i in range(1, 7))


@pytest.mark.parametrize("method", [ZSTD, zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_every_method_inspect_writes_is_read(tmp_path: Path, method: int) -> None:
    path = write_raw(
        tmp_path / "a.eval",
        [Raw("header.json", HEADER, method), Raw("samples/s1_epoch_1.json", sample_bytes("P"), method)],
    )
    table = load_inspect(path, metric="match")
    assert (table.models, table.queries, table.scores.tolist()) == (("m",), ("t/s1",), [[0.5]])


def test_a_member_in_several_zstd_frames_is_read_whole(tmp_path: Path) -> None:
    data = sample_bytes("C")
    frames = zstd.compress(data[:10]) + zstd.compress(data[10:20]) + zstd.compress(data[20:])
    path = write_raw(
        tmp_path / "a.eval", [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", data, payload=frames)]
    )
    assert load_inspect(path, metric="match").scores.tolist() == [[1]]


def test_a_zstd_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    """64 MiB of zeros in a few kilobytes, declared as 100 bytes: refused, with no more than 101 bytes produced."""
    packer = zstd.ZstdCompressor()
    bomb = b"".join(packer.compress(bytes(2**20)) for _ in range(64)) + packer.flush()
    assert len(bomb) < 2**16
    path = write_raw(
        tmp_path / "a.eval", [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", b"x" * 100, payload=bomb)]
    )
    tracemalloc.start()
    try:
        check_refused(
            path, r"samples/s1_epoch_1\.json: its zstd data expands beyond the 100 bytes the archive declares"
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**22, f"{peak} bytes allocated while refusing the bomb"


def test_a_member_declared_over_the_limit_is_not_even_decompressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inspect_module, "MAX_MEMBER_BYTES", 1000)
    path = write_raw(
        tmp_path / "a.eval",
        [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", b"", payload=b"not zstd at all", size=5000)],
    )
    check_refused(path, r"samples/s1_epoch_1\.json: over the limit of 1000 bytes uncompressed; refusing")


def test_damaged_zstd_members_are_named(tmp_path: Path) -> None:
    data = sample_bytes("C")
    good = zstd.compress(data)
    cases = [
        (Raw("samples/s1_epoch_1.json", data, payload=good[:-4]), r"zstd data cannot be decompressed \(.*ended"),
        (Raw("samples/s1_epoch_1.json", data, payload=b"\x00" * 20), "zstd data cannot be decompressed"),
        (Raw("samples/s1_epoch_1.json", data, payload=good + b"junk"), "zstd data cannot be decompressed"),
        (Raw("samples/s1_epoch_1.json", data, crc=zlib.crc32(data) ^ 1), "the CRC-32 of its data does not match"),
        (Raw("samples/s1_epoch_1.json", data, size=len(data) + 5), rf"holds {len(data)} bytes, not the"),
        (Raw("samples/s1_epoch_1.json", data, local_name="samples/s9_epoch_1.json"), "local file header names"),
    ]
    for index, (member, message) in enumerate(cases):
        path = write_raw(tmp_path / f"{index}.eval", [Raw("header.json", HEADER), member])
        text = check_refused(path, rf"samples/s1_epoch_1\.json: .*{message}")
        assert "the archive is damaged" in text


def test_a_corrupted_zstd_block_never_passes(tmp_path: Path) -> None:
    """Flipping any byte of a compressed member gives an error (bad data or bad CRC), never a wrong score."""
    data = sample_bytes("C") + b" " * 200
    good = zstd.compress(data)
    for position in range(4, len(good)):
        flipped = bytearray(good)
        flipped[position] ^= 0x55
        path = write_raw(
            tmp_path / "a.eval",
            [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", data, payload=bytes(flipped))],
        )
        with pytest.raises(LoaderError, match=r"the archive is damaged|not valid JSON"):
            load_inspect(path, metric="match")


@pytest.mark.parametrize(("method", "name"), [(12, "bzip2"), (14, "lzma"), (99, "unknown")])
def test_other_compression_methods_are_refused_by_number(tmp_path: Path, method: int, name: str) -> None:
    path = write_raw(
        tmp_path / "a.eval", [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", sample_bytes("C"), method)]
    )
    text = check_refused(path, rf"samples/s1_epoch_1\.json: compressed with zip method {method} \({name}\)")
    assert "stored (0), deflate (8) and zstd (93)" in text


def test_an_encrypted_member_and_a_wrong_offset_are_refused(tmp_path: Path) -> None:
    encrypted = write_raw(
        tmp_path / "e.eval", [Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", sample_bytes("C"), flags=1)]
    )
    check_refused(encrypted, "the member is encrypted")
    archive = bytearray(raw_zip([Raw("header.json", HEADER), Raw("samples/s1_epoch_1.json", sample_bytes("C"))]))
    directory = archive.rfind(b"PK\x01\x02")  # the second member's entry: point its local header at byte 7
    archive[directory + 42 : directory + 46] = struct.pack("<I", 7)
    moved = tmp_path / "m.eval"
    moved.write_bytes(bytes(archive))
    check_refused(moved, "no local file header at offset 7")


def test_a_member_written_twice_counts_once_the_last(tmp_path: Path) -> None:
    path = write_raw(
        tmp_path / "a.eval",
        [
            Raw("header.json", HEADER),
            Raw("samples/s1_epoch_1.json", sample_bytes("I")),
            Raw("samples/s1_epoch_1.json", sample_bytes("C")),
        ],
    )
    with zipfile.ZipFile(path) as archive:
        assert len(archive.infolist()) == 3 and len(member_infos(archive)) == 2
    assert load_inspect(path, metric="match").scores.tolist() == [[1]]


def test_a_chunked_sample_is_read_from_its_shell(tmp_path: Path) -> None:
    path = write_raw(
        tmp_path / "a.eval",
        [
            Raw("header.json", HEADER),
            Raw("samples/s1_epoch_1/sample.json", sample_bytes("P")),
            Raw("samples/s1_epoch_1/messages/0.json", b"[not even json"),
            Raw("samples/s1_epoch_1/events/0.json", b"[not even json"),
        ],
    )
    assert load_inspect(path, metric="match").scores.tolist() == [[0.5]]


def test_a_git_lfs_pointer_is_named_as_one(tmp_path: Path) -> None:
    path = tmp_path / "a.eval"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 48213\n", encoding="utf-8")
    text = check_refused(path, "a git-lfs pointer file, not the file itself")
    assert "48213 bytes" in text and "git lfs pull" in text and "zip" not in text


# -- eval-set folders, tasks and scorers (items 2 and 10) -----------------------------------------------


def test_an_eval_set_folder_reads_and_reports_every_file() -> None:
    table = load_inspect(EVAL_SET, metric="match")
    assert table.models == ("openai/model-a", "openai/model-b")
    assert table.queries == ("arith/1", "arith/2", "arith/3")
    assert table.scores.tolist() == [[1, 0, 1], [1, 1, 0]]
    assert notes(table) == {
        ".eval-set-id": (False, 0, "inspect's eval-set bookkeeping (.eval-set-id), not a log"),
        "2026-05-05T09-00-00+00-00_arith_Ab3dE5fGh7iJ9kL1mN3pQ5.eval": (
            True,
            3,
            "1 epoch; checked against the log's own reduction (3 samples)",
        ),
        "2026-05-05T09-01-00+00-00_arith_Bc4eF6gHi8jK0lM2nO4qR6.eval": (
            True,
            3,
            "1 epoch; checked against the log's own reduction (3 samples)",
        ),
        "2026-05-05T09-02-00+00-00_spell_Cd5fG7hIj9kL1mN3oP5rS7.eval": (
            False,
            0,
            "no sample has a score from scorer 'match'; the log has includes",
        ),
        "2026-05-05T09-03-00+00-00_spell_De6gH8iJk0lM2nO4pQ6sT8.eval": (
            False,
            0,
            "no sample has a score from scorer 'match'; the log has includes",
        ),
        "eval-set.json": (False, 0, "inspect's eval-set bookkeeping (eval-set.json), not a log"),
        "logs.json": (False, 0, "inspect's log-directory listing (logs.json), not a log"),
    }
    assert dict(table.settings) == {"epochs": "auto: mean (each log's recorded reducer)", "unfinished": "fail"}
    assert table.files[0].to_json() == {
        "path": str(EVAL_SET / ".eval-set-id"),
        "used": False,
        "scores": 0,
        "note": "inspect's eval-set bookkeeping (.eval-set-id), not a log",
    }


@pytest.mark.parametrize("patterns", [("spell",), ("sp*",), ("spell", "nothing-*"), "spell"])
def test_tasks_select_logs_by_eval_task(patterns: tuple[str, ...] | str) -> None:
    table = load_inspect(EVAL_SET, metric="includes", tasks=patterns)
    assert table.queries == ("spell/1", "spell/2", "spell/3")
    assert table.scores.tolist() == [[0, 1, 1], [1, 1, 1]]
    arith = notes(table)["2026-05-05T09-00-00+00-00_arith_Ab3dE5fGh7iJ9kL1mN3pQ5.eval"]
    shown = patterns if isinstance(patterns, str) else " ".join(patterns)
    assert arith == (False, 0, f"task 'arith' is not selected by --task {shown}")
    assert table.settings["tasks"] == shown


def test_tasks_and_scorers_that_select_nothing_are_errors() -> None:
    with pytest.raises(
        LoaderError, match="no log's task matches --task nope; the logs' tasks are arith, spell: choose"
    ):
        load_inspect(EVAL_SET, metric="match", tasks=["nope"])
    with pytest.raises(
        LoaderError, match="no sample has a score from scorer 'accuracy'; the logs have includes, match"
    ):
        load_inspect(EVAL_SET, metric="accuracy")
    with pytest.raises(LoaderError, match="no sample has a score from scorer 'match'; the logs have includes"):
        load_inspect(EVAL_SET, metric="match", tasks=["spell"])


def test_no_task_pattern_message_lists_the_patterns() -> None:
    with pytest.raises(LoaderError, match=r"eval-set: no log's task matches --task ar\*x nope; the logs' tasks are"):
        load_inspect(EVAL_SET, metric="match", tasks=["ar*x", "nope"])


def test_the_sample_buffer_and_bookkeeping_alone(tmp_path: Path) -> None:
    shutil.copytree(EVAL_SET, tmp_path / "logs")
    buffer = tmp_path / "logs" / ".buffer" / "2026-05-05T09-00-00+00-00_arith_x"
    buffer.mkdir(parents=True)
    (buffer / "manifest.json").write_text('{"metrics": [], "samples": [], "segments": []}', encoding="utf-8")
    (buffer / "segment.1.zip").write_bytes(b"")
    table = load_inspect(tmp_path / "logs", metric="match")
    assert notes(table)["manifest.json"] == (
        False,
        0,
        "inspect's sample buffer of a running eval (.buffer/), not a log",
    )
    assert "segment.1.zip" not in notes(table)
    bookkeeping = tmp_path / "only"
    bookkeeping.mkdir()
    shutil.copy(EVAL_SET / "eval-set.json", bookkeeping)
    shutil.copy(EVAL_SET / ".eval-set-id", bookkeeping)
    with pytest.raises(LoaderError, match="no inspect-ai log here, only inspect's bookkeeping files"):
        load_inspect(bookkeeping, metric="match")


# -- epochs (item 3) --------------------------------------------------------------------------------------


def reported_accuracy(path: Path) -> float:
    """The ``accuracy`` metric that inspect reported in the log's ``results``."""
    results = header_of(path)["results"]
    assert isinstance(results, dict)
    (score,) = results["scores"]
    value = score["metrics"]["accuracy"]["value"]
    assert isinstance(value, float)
    return value


def test_auto_reduces_as_the_log_says_and_matches_inspects_metric() -> None:
    table = load_inspect(EPOCHS, metric="match")
    assert table.models == ("openai/model-a", "openai/model-b", "openai/model-c") and table.queries == QUIZ
    means = table.to_instance().means  # the means of the float64 matrix
    assert means == pytest.approx([0.66, 0.72, 0.55], abs=1e-12)
    for mean, path in zip(means, (LOG_A, LOG_B, LOG_C), strict=True):
        assert float(mean) == pytest.approx(reported_accuracy(path), abs=1e-12)
    assert [reported_accuracy(path) for path in (LOG_A, LOG_B)] == pytest.approx([0.66, 0.72])
    assert dict(table.settings) == {"epochs": "auto: mean, mode (each log's recorded reducer)", "unfinished": "fail"}
    assert notes(table) == {
        LOG_A.name: (
            True,
            10,
            "5 epochs reduced by mean (the log's reducer); checked against the log's own reduction (10 samples)",
        ),
        LOG_B.name: (
            True,
            10,
            "5 epochs reduced by mean (the log's reducer); checked against the log's own reduction (10 samples)",
        ),
        LOG_C.name: (
            True,
            10,
            "5 epochs reduced by mode (the log's reducer); 1 sample with fewer than 5 scored epochs, reduced over "
            "those they have; checked against the log's own reduction (10 samples)",
        ),
    }


def test_the_first_epoch_alone_ranks_the_models_the_other_way() -> None:
    both = [LOG_A, LOG_B]
    first = load_inspect(both, metric="match", epochs="first").to_instance()
    mean = load_inspect(both, metric="match").to_instance()
    assert first.means == pytest.approx([0.7, 0.6])  # what the loader used to give: model-a ahead
    assert mean.means == pytest.approx([0.66, 0.72])  # inspect's own numbers: model-b ahead
    assert first.means[0] > first.means[1] and mean.means[0] < mean.means[1]
    assert load_inspect(both, metric="match", epochs="mean").to_instance().means == mean.means


def test_inspects_mode_counts_the_values_as_written() -> None:
    """Model-c's sample 3 is I N C C P: inspect's mode is C (1); the mode of the numbers 0 0 1 1 0.5 would be 0."""
    table = load_inspect(LOG_C, metric="match")
    assert table.scores.tolist() == [[1, 1, 1, 1, 0, 0, 0.5, 1, 0, 0]]
    assert reduce_epochs([Fraction(0), Fraction(0), Fraction(1), Fraction(1), Fraction(1, 2)], "mode") == 0
    assert load_inspect(LOG_C, metric="match", epochs="mode").scores.tolist() == table.scores.tolist()
    # sample 4 (C I C, then two errored epochs) is reduced over the three it has
    assert load_inspect(LOG_C, metric="match", epochs="mean").scores[0, 3] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("epochs", "row"),
    [
        ("first", [1, 1, 1, 1, 1, 1, 1, 0, 0, 0]),
        ("mean", [1, 1, 0.8, 0.6, 0.4, 0.4, 0.4, 0.8, 0.6, 0.6]),
        ("median", [1, 1, 1, 1, 0, 0, 0, 1, 1, 1]),
        ("mode", [1, 1, 1, 1, 0, 0, 0, 1, 1, 1]),
        ("max", [1] * 10),
        ("min", [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
    ],
)
def test_each_explicit_reduction(epochs: str, row: list[float]) -> None:
    table = load_inspect(LOG_A, metric="match", epochs=epochs)
    assert table.scores.tolist() == [row]
    assert table.settings["epochs"] == epochs
    assert notes(table)[LOG_A.name][2] == (
        "epoch 1 of 5 (--epochs first)" if epochs == "first" else f"5 epochs reduced by {epochs} (--epochs {epochs})"
    )


def test_all_keeps_every_epoch_and_refuses_an_incomplete_sample() -> None:
    table = load_inspect([LOG_A, LOG_B], metric="match", epochs="all")
    assert table.samples is not None and table.samples.shape == (2, 10, 5)
    assert table.samples[0, 2].tolist() == [1, 1, 1, 1, 0]  # model-a's sample 3: C C C C I
    assert table.to_instance().means == pytest.approx([0.66, 0.72])
    assert table.ids_json()["epochs"] == 5 and table.settings["epochs"] == "all"
    assert notes(table)[LOG_A.name] == (True, 10, "every epoch kept (5)")
    with pytest.raises(LoaderError, match=r"model-c\.eval sample 4: epochs 4, 5 of 5 have no score, and --epochs all"):
        load_inspect(EPOCHS, metric="match", epochs="all")


def test_the_good_fixture_under_each_epoch_mode() -> None:
    """The values tests/io/test_loaders_harness.py expects: epoch 1 with ``first``, the mean of epochs 1 and 2 by default."""
    first = load_inspect(INSPECT / "good", metric="match", missing="drop-models", epochs="first")
    assert first.scores.tolist() == [[1, 1, 0, 0.5, 1, 0], [0, 1, 1, 1, 0.5, 0]] and first.duplicates == 1
    auto = load_inspect(INSPECT / "good", metric="match", missing="drop-models")
    assert auto.scores.tolist() == [[0.5, 0.5, 0.5, 0.75, 0.5, 0.5], [0.5, 1, 0.5, 1, 0.75, 0.5]]
    assert auto.duplicates == 1 and auto.dropped_models == ("local/model-c",)
    judge = load_inspect(INSPECT / "good", metric="judge", missing="drop-queries")
    assert judge.scores.tolist() == [[0.375, 0.5, 0.5, 0.75], [0.75, 1, 0.375, 1], [1, 0, 0.25, 1]]
    twin = load_inspect([GOOD_A, INSPECT / "twin"], metric="match")
    assert twin.duplicates == 6 and twin.scores.tolist() == [[0.5, 0.5, 0.5, 0.75, 0.5, 0.5]]


def test_first_does_not_even_read_later_epochs(tmp_path: Path) -> None:
    path = write_raw(
        tmp_path / "a.eval",
        [
            Raw("header.json", HEADER),
            Raw("samples/s1_epoch_1.json", sample_bytes("P")),
            Raw("samples/s1_epoch_2.json", b"{damaged"),
        ],
    )
    assert load_inspect(path, metric="match", epochs="first").scores.tolist() == [[0.5]]
    with pytest.raises(LoaderError, match=r"samples/s1_epoch_2\.json: not valid JSON"):
        load_inspect(path, metric="match")


@pytest.mark.parametrize(
    ("reducer", "values", "expected"),
    [
        (["at_least_2"], ["C", "I", "C"], 1),
        (["at_least_3"], ["C", "I", "C"], 0),
        (["pass_at_2"], ["C", "I", "I", "I"], 0.5),
        (["pass_k_2"], ["C", "C", "I", "C"], 0.5),
        (["max"], ["I", "P", "I"], 0.5),
        (["median"], ["I", "P", "C", "C"], 0.75),
        (None, [1, 0.5, 0], 0.5),
    ],
)
def test_the_log_s_reducer_is_computed_exactly(
    tmp_path: Path, reducer: list[str] | None, values: list[object], expected: float
) -> None:
    config: dict[str, object] = {"epochs": len(values)} | ({} if reducer is None else {"epochs_reducer": reducer})
    path = json_log(tmp_path / "a.json", epochs_of(1, values), eval={"model": "m", "task": "t", "config": config})
    table = load_inspect(path, metric="match")
    assert table.scores.tolist() == [[expected]]
    assert table.settings["epochs"] == f"auto: {reducer[0] if reducer else 'mean'} (each log's recorded reducer)"


def test_counted_reducers_match_inspects_formulas() -> None:
    """pass_at_k as inspect computes it (a product over the failures), against the exact binomial form."""
    for total in range(1, 8):
        for correct in range(total + 1):
            values = [Fraction(1)] * correct + [Fraction(0)] * (total - correct)
            for k in range(1, total + 1):
                product = 1.0
                for n in range(total - correct + 1, total + 1):
                    product *= 1.0 - k / n
                inspects = 1.0 if total - correct < k else 1.0 - product
                assert float(reduce_epochs(values, f"pass_at_{k}")) == pytest.approx(inspects, abs=1e-12)
    assert is_reducer("pass_k_3") and not is_reducer("pass_at_") and not is_reducer("collect")


def test_results_name_the_reducer_when_the_config_does_not(tmp_path: Path) -> None:
    results = {"scores": [{"name": "match", "scorer": "match", "reducer": "max", "metrics": {}}]}
    path = json_log(tmp_path / "a.json", epochs_of(1, ["I", "C"]), results=results)
    assert load_inspect(path, metric="match").scores.tolist() == [[1]]


@pytest.mark.parametrize(
    ("reducer", "message"),
    [
        (["collect"], r"the log reduces epochs with 'collect', which cannot be computed here"),
        (["mean", "max"], r"the log reduces epochs in 2 ways \(mean, max\); choose one with --epochs first"),
        ("mean", r"eval.config.epochs_reducer is 'mean', not a list of reducer names"),
    ],
)
def test_reducers_that_cannot_be_followed_ask_for_epochs(tmp_path: Path, reducer: object, message: str) -> None:
    config = {"epochs": 2, "epochs_reducer": reducer}
    path = json_log(tmp_path / "a.json", epochs_of(1, ["I", "C"]), eval={"model": "m", "task": "t", "config": config})
    with pytest.raises(LoaderError, match=message):
        load_inspect(path, metric="match")
    assert load_inspect(path, metric="match", epochs="mean").scores.tolist() == [[0.5]]


def test_no_reducer_keeps_every_epoch(tmp_path: Path) -> None:
    config = {"epochs": 2, "epochs_reducer": []}
    path = json_log(tmp_path / "a.json", epochs_of(1, ["I", "C"]), eval={"model": "m", "task": "t", "config": config})
    table = load_inspect(path, metric="match")
    assert table.samples is not None and table.samples.tolist() == [[[0, 1]]]
    assert table.settings["epochs"] == "auto: all (each log's recorded reducer)"


def test_pass_at_k_without_k_scored_epochs_leaves_the_cell_missing(tmp_path: Path) -> None:
    config = {"epochs": 3, "epochs_reducer": ["pass_at_3"]}
    samples = epochs_of(1, ["C", "I", "I"]) + epochs_of(2, ["C", None, "I"])
    path = json_log(tmp_path / "a.json", samples, eval={"model": "m", "task": "t", "config": config})
    table = load_inspect(path, metric="match", missing="drop-queries")
    assert table.queries == ("t/1",) and table.scores.tolist() == [[1]]
    assert "1 sample left without a score: pass_at_3 needs more scored epochs than they have" in table.files[0].note


def test_the_log_s_own_reductions_must_agree(tmp_path: Path) -> None:
    document = json.loads(LOG_B.read_text(encoding="utf-8"))
    document["reductions"][0]["samples"][2]["value"] = 0.5  # sample 3 is C C C C I: its mean is 0.8
    changed = tmp_path / LOG_B.name
    changed.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(
        LoaderError, match=r"the log's own mean of sample 3 over its epochs \(its reductions\) is 0\.5, but the mean"
    ):
        load_inspect(changed, metric="match")
    assert load_inspect(changed, metric="match", epochs="mean").scores[0, 2] == 0.8  # an explicit choice is not checked


def test_a_tie_of_mode_is_settled_the_log_s_way(tmp_path: Path) -> None:
    config = {"epochs": 4, "epochs_reducer": ["mode"]}
    run = {"model": "m", "task": "t", "config": config}
    samples = epochs_of(1, ["C", "I", "I", "C"])  # a tie: epoch order gives C, inspect's completion order may give I
    reductions = [{"scorer": "match", "reducer": "mode", "samples": [{"value": "I", "sample_id": 1}]}]
    assert load_inspect(json_log(tmp_path / "a.json", samples, eval=run), metric="match").scores.tolist() == [[1]]
    told = json_log(tmp_path / "b.json", samples, eval=run, reductions=reductions)
    assert load_inspect(told, metric="match").scores.tolist() == [[0]]


def test_nan_is_unscored_and_values_outside_0_1_are_refused(tmp_path: Path) -> None:
    path = json_log(tmp_path / "a.json", epochs_of(1, [float("nan"), "C", "I"]))
    table = load_inspect(path, metric="match")
    assert table.scores.tolist() == [[0.5]] and "1 sample with fewer than 3 scored epochs" in table.files[0].note
    bad = json_log(tmp_path / "b.json", epochs_of(1, ["C", 3]))
    with pytest.raises(LoaderError, match=r"b\.json sample 1 scorer 'match': score is 3, outside \[0, 1\]"):
        load_inspect(bad, metric="match")


def test_one_epoch_twice_with_two_scores_is_refused(tmp_path: Path) -> None:
    path = json_log(tmp_path / "a.json", epochs_of(1, ["C"]) + epochs_of(1, ["I"]))
    with pytest.raises(LoaderError, match="epoch 1 of this sample is in the log twice"):
        load_inspect(path, metric="match")
    bad_epoch = json_log(tmp_path / "b.json", [{"id": 1, "epoch": 0, "scores": {"match": {"value": "C"}}}])
    with pytest.raises(LoaderError, match="epoch 0 is not a positive integer"):
        load_inspect(bad_epoch, metric="match")


# -- unfinished logs (item 4) -----------------------------------------------------------------------------


def test_an_unfinished_log_is_refused_by_default() -> None:
    with pytest.raises(LoaderError) as caught:
        load_inspect(UNFINISHED, metric="match")
    assert str(caught.value) == (
        f"{UNFINISHED / '2026-05-06T08-00-00+00-00_arith_model-b.eval'}: status 'cancelled': the eval was cancelled "
        "before it finished, so its scores are incomplete; leave such logs out with --unfinished drop "
        "(unfinished='drop'), or finish the eval (inspect eval-retry) and convert again"
    )


@pytest.mark.parametrize(
    ("model", "phrase"),
    [
        ("b.eval", "status 'cancelled': the eval was cancelled before it finished"),
        ("e.json", "status 'cancelled': the eval was cancelled before it finished"),
        ("c.json", r"status 'error': the eval stopped on an error \(RateLimitError: the model API refused"),
        ("f.eval", r"status 'error': the eval stopped on an error \(RateLimitError: the model API refused"),
        (
            "d.eval",
            r"status 'started': the eval is still running, or was interrupted before it finished \(it has no "
            r"header\.json yet\)",
        ),
    ],
)
def test_each_kind_of_unfinished_log_is_named(model: str, phrase: str) -> None:
    path = UNFINISHED / f"2026-05-06T08-00-00+00-00_arith_model-{model}"
    check_refused(path, rf"^{re.escape(str(path))}: {phrase}.*--unfinished drop")


def test_drop_leaves_unfinished_logs_out_with_a_note() -> None:
    table = load_inspect(UNFINISHED, metric="match", unfinished="drop")
    assert table.models == ("openai/model-a",) and table.scores.tolist() == [[1, 0, 1]]
    assert dict(table.settings) == {"epochs": "auto: mean (each log's recorded reducer)", "unfinished": "drop"}
    left_out = {name[-6:]: note for name, (used, _, note) in notes(table).items() if not used}
    assert left_out == {
        "b.eval": "status 'cancelled': the eval was cancelled before it finished; left out by --unfinished drop",
        "c.json": "status 'error': the eval stopped on an error (RateLimitError: the model API refused further "
        "requests); left out by --unfinished drop",
        "d.eval": "status 'started': the eval is still running, or was interrupted before it finished (it has no "
        "header.json yet); left out by --unfinished drop",
        "e.json": "status 'cancelled': the eval was cancelled before it finished; left out by --unfinished drop",
        "f.eval": "status 'error': the eval stopped on an error (RateLimitError: the model API refused further "
        "requests); left out by --unfinished drop",
    }
    only_unfinished = sorted(UNFINISHED.glob("*model-[bcdef]*"))
    with pytest.raises(LoaderError, match=r"every log \(5\) is unfinished and --unfinished drop left them all out"):
        load_inspect(only_unfinished, metric="match", unfinished="drop")


def test_a_log_without_a_status_is_read_as_finished(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"eval": {"model": "m", "task": "t"}, "samples": epochs_of(1, ["C"])}), encoding="utf-8")
    assert load_inspect(path, metric="match").scores.tolist() == [[1]]


# -- options and the generator ---------------------------------------------------------------------------


def test_unknown_option_values_are_parameter_errors() -> None:
    with pytest.raises(ParameterError, match="unknown --epochs mode 'avg'"):
        load_inspect(EPOCHS, metric="match", epochs="avg")
    with pytest.raises(ParameterError, match="unknown --unfinished mode 'keep'; use one of fail, drop"):
        load_inspect(EPOCHS, metric="match", unfinished="keep")


def test_convert_passes_the_options_on() -> None:
    table = convert(
        "inspect", [EVAL_SET, UNFINISHED], metric="match", epochs="first", tasks=["arith"], unfinished="drop"
    )
    assert table.models == ("openai/model-a", "openai/model-b") and table.shape == (2, 3)
    assert dict(table.settings) == {"epochs": "first", "unfinished": "drop", "tasks": "arith"}
    assert sum(use.used for use in table.files) == 3 and len(table.files) == 13


NEW_FIXTURES = ("zstd", "epochs", "eval-set", "unfinished", "settings", "agents")


def test_the_generator_reproduces_the_new_fixtures(tmp_path: Path) -> None:
    generator = runpy.run_path(str(FIXTURES / "make_inspect_fixtures.py"))
    generator["main"](tmp_path / "one")
    generator["main"](tmp_path / "two")
    for folder in NEW_FIXTURES:
        made = sorted(path.relative_to(tmp_path / "one") for path in (tmp_path / "one" / folder).rglob("*"))
        committed = sorted(path.relative_to(INSPECT) for path in (INSPECT / folder).rglob("*"))
        assert made == committed
        for relative in made:
            new, again, old = tmp_path / "one" / relative, tmp_path / "two" / relative, INSPECT / relative
            assert new.read_bytes() == again.read_bytes()  # deterministic
            if relative.suffix != ".eval":
                assert new.read_bytes() == old.read_bytes()
                continue
            # the compressed bytes may differ with the zstd library's version; names, dates and contents may not
            with open_archive(new, "a log") as fresh, open_archive(old, "a log") as kept:
                assert [(i.filename, i.date_time, i.compress_type) for i in fresh.infolist()] == [
                    (i.filename, i.date_time, i.compress_type) for i in kept.infolist()
                ]
                for a, b in zip(fresh.infolist(), kept.infolist(), strict=True):
                    assert read_member(fresh, a, new, 2**20) == read_member(kept, b, old, 2**20)
