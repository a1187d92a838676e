"""Score files: bad ones are refused with InstanceError naming the file, line and column; good ones load exactly."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref import (
    Instance,
    InstanceError,
    load_scores,
)

# -- files ------------------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.npy"
    with pytest.raises(InstanceError, match=rf"{re.escape(str(path))}.*no such file"):
        load_scores(path)


def test_missing_csv_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.csv"
    with pytest.raises(InstanceError, match=rf"{re.escape(str(path))}.*no such file"):
        load_scores(path)


@pytest.mark.parametrize("name", ["folder.csv", "folder.npy"])
def test_directory_instead_of_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.mkdir()
    with pytest.raises(InstanceError, match=rf"{re.escape(str(path))}.*is a directory"):
        load_scores(path)


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = _write(tmp_path / "scores.txt", "1,0\n0,1\n")
    with pytest.raises(InstanceError, match=r"scores\.txt.*unsupported file type '\.txt'.*\.npy.*\.csv"):
        load_scores(path)


def test_npz_suffix_is_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "scores.npz"
    np.savez(path, scores=np.zeros((2, 2)))
    with pytest.raises(InstanceError, match=r"unsupported file type '\.npz'"):
        load_scores(path)


def test_npz_archive_renamed_to_npy(tmp_path: Path) -> None:
    archive = tmp_path / "archive.npz"
    np.savez(archive, scores=np.zeros((2, 2)))
    path = archive.rename(tmp_path / "archive.npy")
    with pytest.raises(InstanceError, match=r"archive\.npy.*not a single array.*npz"):
        load_scores(path)


class _RunsCodeWhenUnpickled:
    """Unpickling this calls open(marker, "w"): proof that a pickle was executed."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def test_object_npy_is_refused_without_unpickling(tmp_path: Path) -> None:
    marker = tmp_path / "EXECUTED"
    array = np.empty((2, 2), dtype=object)
    array[:] = 0.5
    array[0, 0] = _RunsCodeWhenUnpickled(marker)
    path = tmp_path / "objects.npy"
    np.save(path, array, allow_pickle=True)
    with pytest.raises(InstanceError, match=r"objects\.npy.*pickle"):
        load_scores(path)
    assert not marker.exists(), "loading the .npy executed pickled code (allow_pickle must be False)"


def test_plain_object_npy_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plain_objects.npy"
    np.save(path, np.array([[0, 1], [1, 0]], dtype=object), allow_pickle=True)
    with pytest.raises(InstanceError, match=r"plain_objects\.npy.*pickle"):
        load_scores(path)


def test_corrupt_npy_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.npy"
    path.write_bytes(np.random.default_rng(12345).bytes(300))
    with pytest.raises(InstanceError, match=r"corrupt\.npy' is not a valid \.npy file \(it lacks the NUMPY header\)"):
        load_scores(path)


def test_raw_pickle_named_npy_is_refused_without_unpickling(tmp_path: Path) -> None:
    import pickle

    path = tmp_path / "raw.npy"
    path.write_bytes(pickle.dumps([[0.5, 1.0], [0.0, 1.0]]))
    with pytest.raises(InstanceError, match=r"raw\.npy' is a Python pickle, not a valid \.npy file"):
        load_scores(path)


def test_corrupt_npy_with_magic_but_garbage_header(tmp_path: Path) -> None:
    path = tmp_path / "garbled.npy"
    path.write_bytes(b"\x93NUMPY" + np.random.default_rng(7).bytes(300))
    with pytest.raises(InstanceError, match=r"garbled\.npy.*not a valid \.npy file"):
        load_scores(path)


def test_truncated_npy(tmp_path: Path) -> None:
    full = tmp_path / "full.npy"
    np.save(full, np.full((10, 10), 0.5))
    path = tmp_path / "truncated.npy"
    path.write_bytes(full.read_bytes()[:200])
    with pytest.raises(InstanceError, match=r"truncated\.npy.*not a valid \.npy file"):
        load_scores(path)


def test_empty_npy(tmp_path: Path) -> None:
    path = tmp_path / "empty.npy"
    path.write_bytes(b"")
    with pytest.raises(InstanceError, match=r"empty\.npy.*not a valid \.npy file"):
        load_scores(path)


def test_npy_with_nan_names_file_model_and_query(tmp_path: Path) -> None:
    scores = np.full((3, 4), 0.5)
    scores[2, 1] = np.nan
    path = tmp_path / "nan.npy"
    np.save(path, scores)
    with pytest.raises(InstanceError, match=r"nan\.npy: score at model 2, query 1 is nan"):
        load_scores(path)


def test_csv_matrix_nan_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path / "nan.csv", "1,0,1\n0,1,nan\n")
    with pytest.raises(InstanceError, match=r"nan\.csv: line 2, column 3 \(model 1, query 2\): score is nan"):
        load_scores(path)


def test_csv_matrix_non_number_names_line_column_and_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "word.csv", "1,0,1\n0,1,1\n0,abc,1\n")
    with pytest.raises(
        InstanceError, match=r"word\.csv: line 3, column 2 \(model 2, query 1\): score is 'abc', not a score"
    ):
        load_scores(path)


def test_csv_matrix_empty_cell(tmp_path: Path) -> None:
    path = _write(tmp_path / "hole.csv", "1,0\n0,\n")
    with pytest.raises(InstanceError, match=r"hole\.csv: line 2, column 2 .*score is empty"):
        load_scores(path)


def test_csv_matrix_out_of_range(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.csv", "1,0\n0,1.25\n")
    with pytest.raises(InstanceError, match=r"big\.csv: line 2, column 2 .*score is 1\.25, outside \[0, 1\]"):
        load_scores(path)


def test_ragged_csv_names_both_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "ragged.csv", "1,0,1\n0,1\n")
    with pytest.raises(InstanceError, match=r"ragged\.csv: line 2 has 2 columns but line 1 has 3"):
        load_scores(path)


@pytest.mark.parametrize("text", ["", "\n\n  \n"], ids=["empty", "blank-lines"])
def test_empty_csv(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path / "empty.csv", text)
    with pytest.raises(InstanceError, match=r"empty\.csv: the file holds no scores"):
        load_scores(path)


def test_long_csv_duplicate_pair_names_both_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "dup.csv",
        "score,query,model\n1,q1,a\n0,q1,b\n1,q2,a\n0.5,q1,a\n0,q2,b\n",
    )
    with pytest.raises(InstanceError, match=r"dup\.csv: model 'a', query 'q1' appears twice \(lines 2 and 5\)"):
        load_scores(path)


def test_long_csv_missing_cell_names_model_and_query(tmp_path: Path) -> None:
    path = _write(tmp_path / "missing.csv", "model,query,score\na,q1,1\nb,q1,0\na,q2,1\n")
    with pytest.raises(InstanceError, match=r"missing\.csv: model 'b' has no score for query 'q2'"):
        load_scores(path)


def test_long_csv_score_out_of_range_names_line_model_and_query(tmp_path: Path) -> None:
    path = _write(tmp_path / "range.csv", "model,query,score\na,q1,1\nb,q1,1.2\n")
    with pytest.raises(
        InstanceError, match=r"range\.csv: line 3 \(model 'b', query 'q1'\): score is 1\.2, outside \[0, 1\]"
    ):
        load_scores(path)


def test_long_csv_nan_score(tmp_path: Path) -> None:
    path = _write(tmp_path / "lnan.csv", "model,query,score\na,q1,1\nb,q1,NaN\n")
    with pytest.raises(InstanceError, match=r"lnan\.csv: line 3 \(model 'b', query 'q1'\): score is nan"):
        load_scores(path)


@pytest.mark.parametrize("header", ["model,score", "query,score,extra", "model,query"])
def test_long_csv_header_with_only_some_columns(tmp_path: Path, header: str) -> None:
    path = _write(tmp_path / "partial.csv", f"{header}\na,1\n")
    with pytest.raises(
        InstanceError,
        match=rf"partial\.csv: line 1: a long \.csv needs exactly the columns model, query, score; got {header.replace(',', ', ')}",
    ):
        load_scores(path)


def test_long_csv_header_without_rows(tmp_path: Path) -> None:
    path = _write(tmp_path / "header_only.csv", "model,query,score\n")
    with pytest.raises(InstanceError, match=r"header_only\.csv: the long \.csv has a header but no scores"):
        load_scores(path)


def test_long_csv_row_with_wrong_column_count(tmp_path: Path) -> None:
    path = _write(tmp_path / "short_row.csv", "model,query,score\na,q1,1\nb,q1\n")
    with pytest.raises(InstanceError, match=r"short_row\.csv: line 3 has 2 cells but the header names 3 columns"):
        load_scores(path)


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("1,0\n0,1\n# r\xe9sum\xe9\n".encode("latin-1"))
    with pytest.raises(InstanceError, match=r"latin1\.csv.*not UTF-8"):
        load_scores(path)


# -- positive loader tests ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "array",
    [
        np.array([[0.0, 0.1, 1.0], [0.3, 0.7, 0.25]]),
        np.array([[True, False, True], [False, False, True]]),
        np.array([[1, 0, 1], [0, 0, 1]], dtype=np.int64),
        np.array([[1, 0, 1], [0, 0, 1]], dtype=np.uint8),
        np.array([[0.5, 0.25], [0.125, 1.0]], dtype=np.float32),
    ],
    ids=["float64", "bool", "int64", "uint8", "float32"],
)
def test_npy_round_trip(tmp_path: Path, array: np.ndarray) -> None:
    path = tmp_path / "scores.npy"
    np.save(path, array)
    loaded = load_scores(path)
    assert loaded == Instance(array)
    assert loaded.shape == array.shape
    assert np.array_equal(loaded.array, array.astype(np.float64))
    assert all(
        loaded(i, j) == Fraction(float(array[i, j])) for i in range(array.shape[0]) for j in range(array.shape[1])
    )
    assert load_scores(path) == loaded
    assert loaded.model_names is None and loaded.query_names is None


def test_csv_matrix_reads_exact_decimals(tmp_path: Path) -> None:
    path = _write(tmp_path / "exact.csv", "0.1,0.2,0.3\n 1 , 0 ,1e-1\n")
    loaded = load_scores(path)
    assert loaded(0, 0) == Fraction(1, 10)
    assert loaded(0, 0) != Fraction(0.1)
    assert loaded.rows == (
        (Fraction(1, 10), Fraction(2, 10), Fraction(3, 10)),
        (Fraction(1), Fraction(0), Fraction(1, 10)),
    )
    assert loaded.means == (Fraction(1, 5), Fraction(11, 30))


def test_long_csv_other_order_blank_lines_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    text = "\ufeffQuery, Score ,model\n\nq2,0.5,zeta\n\nq1,0.1,zeta\nq2,1,alpha\n   \nq1,0,alpha\n"
    path.write_bytes(text.encode("utf-8"))
    loaded = load_scores(path)
    # names kept in order of first appearance, not sorted
    assert loaded.model_names == ("zeta", "alpha")
    assert loaded.query_names == ("q2", "q1")
    assert loaded.rows == ((Fraction(1, 2), Fraction(1, 10)), (Fraction(1), Fraction(0)))


def test_long_csv_equals_matrix_csv(tmp_path: Path) -> None:
    matrix = _write(tmp_path / "matrix.csv", "1,0,0.5\n0.25,1,0\n0,0,0.75\n")
    rows = [["1", "0", "0.5"], ["0.25", "1", "0"], ["0", "0", "0.75"]]
    lines = ["query,model,score"]
    for j in reversed(range(3)):
        for i in range(3):
            lines.append(f"q{j},m{i},{rows[i][j]}")
    long = _write(tmp_path / "long.csv", "\n".join(lines) + "\n")
    from_long = load_scores(long)
    from_matrix = load_scores(matrix)
    # models appear in order m0, m1, m2 but queries in order q2, q1, q0
    assert from_long.query_names == ("q2", "q1", "q0")
    assert from_long.model_names == ("m0", "m1", "m2")
    reordered = _write(
        tmp_path / "long_ordered.csv",
        "model,query,score\n" + "".join(f"m{i},q{j},{rows[i][j]}\n" for i in range(3) for j in range(3)),
    )
    assert load_scores(reordered) == from_matrix
    assert from_long == Instance([[Fraction(row[j]) for j in (2, 1, 0)] for row in rows])
    assert from_long != from_matrix  # queries are numbered by first appearance


def test_csv_matrix_with_crlf_and_trailing_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "crlf.csv"
    path.write_bytes(b"1,0\r\n0,1\r\n\r\n\r\n")
    assert load_scores(path) == Instance([[1, 0], [0, 1]])
