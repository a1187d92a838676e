"""One parser of scores written as text: convert --from long-csv, live record and .csv matrices accept the same."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from sysrs_ref.cli import main
from sysrs_ref.cli._live import read_scores_csv
from sysrs_ref.errors import InstanceError, LiveError, LoaderError
from sysrs_ref.loaders import load_long_csv, load_scores
from sysrs_ref.scores import SCORE_LETTERS, parse_decimal, parse_score_text
from tests.strategies import non_score_spellings, score_spellings


def _long_csv(spellings: list[str]) -> str:
    """A long CSV of two models on len(spellings) // 2 queries, one spelling per line, query ids with commas."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "query", "score"])
    for index, text in enumerate(spellings):
        writer.writerow([f"m{index % 2}", f"q,{index // 2}", text])
    return out.getvalue()


@pytest.mark.slow
@given(st.lists(score_spellings(), min_size=2, max_size=12).filter(lambda found: len(found) % 2 == 0))
def test_convert_live_record_and_csv_files_accept_the_same_spellings(found: list[tuple[str, Fraction]]) -> None:
    """Each spelling means the same exact score to convert --from long-csv, live record and a .csv matrix."""
    texts = [text for text, _ in found]
    values = [value for _, value in found]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "s.csv")
        path.write_text(_long_csv(texts))
        recorded = read_scores_csv(path)
        assert [score for _, _, score in recorded] == values
        assert [(model, query) for model, query, _ in recorded] == [
            (f"m{i % 2}", f"q,{i // 2}") for i in range(len(texts))
        ]
        table = load_long_csv(path)  # convert --from long-csv
        assert table.scores.tolist() == [[float(values[j * 2 + i]) for j in range(len(texts) // 2)] for i in range(2)]
        exact = load_scores(path)  # the same file as --scores: a long .csv, exactly
        assert [exact.score(i, j) for i in range(2) for j in range(len(texts) // 2)] == [
            values[j * 2 + i] for i in range(2) for j in range(len(texts) // 2)
        ]
        matrix = Path(folder, "m.csv")
        matrix.write_text("\n".join(",".join(texts[i::2]) for i in range(2)) + "\n")
        assert [load_scores(matrix).score(i, j) for i in range(2) for j in range(len(texts) // 2)] == [
            values[j * 2 + i] for i in range(2) for j in range(len(texts) // 2)
        ]


@given(score_spellings())
def test_the_parser_gives_the_exact_value(spelled: tuple[str, Fraction]) -> None:
    text, value = spelled
    assert parse_score_text(text) == value


@given(non_score_spellings)
def test_other_spellings_are_refused_everywhere(text: str) -> None:
    """What parse_score_text refuses, long-csv and live record refuse too, naming the file and line."""
    with pytest.raises(ValueError):
        parse_score_text(text)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "s.csv")
        path.write_text(f"model,query,score\na,q,1\nb,q,{text}\n")
        with pytest.raises(LoaderError, match=rf"^{path} line 3: score is "):
            load_long_csv(path)
        with pytest.raises(LiveError, match=rf"^{path} line 3: score is "):
            read_scores_csv(path)


def test_the_accepted_spellings() -> None:
    assert [parse_score_text(text) for text in ("1", "0", "0.1", ".5", "1e-1", "+0", "-0", "1.000", " 0.25 ")] == [
        1,
        0,
        Fraction(1, 10),
        Fraction(1, 2),
        Fraction(1, 10),
        0,
        0,
        1,
        Fraction(1, 4),
    ]
    assert [parse_score_text(text) for text in ("true", "True", "TRUE", "false", "False", "fAlSe")] == [
        1,
        1,
        1,
        0,
        0,
        0,
    ]
    assert {letter: parse_score_text(letter) for letter in "CPIN"} == dict(SCORE_LETTERS)
    assert dict(SCORE_LETTERS) == {"C": 1, "P": Fraction(1, 2), "I": 0, "N": 0}  # inspect's letter values


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("nan", "is nan"),
        ("-inf", "is -inf"),
        ("1.5", "is 1.5, outside [0, 1]"),
        ("-0.1", "is -0.1, outside [0, 1]"),
        ("c", "is 'c', not a score: write a decimal in [0, 1]"),
        ("yes", "is 'yes', not a score"),
        ("1e-99999999", "is 1e-99999999, below 1e-1000 in magnitude"),
    ],
)
def test_refusals_say_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="^" + reason.replace("[", r"\[").replace("]", r"\]")):
        parse_score_text(text)


def test_decimals_read_as_before() -> None:
    """Every decimal in [0, 1] reads as parse_decimal reads it, so .csv matrices of numbers are unchanged."""
    for text in ("0", "1", "0.1", "0.30000000000000004", "1e-300", "0.5000", "1E-1", " .75"):
        assert parse_score_text(text) == parse_decimal(text)


def test_a_csv_matrix_of_words_and_letters(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("true,C,0.5\nFALSE,I,P\n")
    assert load_scores(path).means == (Fraction(5, 6), Fraction(1, 6))


def test_a_csv_matrix_header_is_still_named(tmp_path: Path) -> None:
    """A first line of names is not taken for scores; a number out of range on it is reported as a score."""
    path = tmp_path / "m.csv"
    path.write_text("q1,q2\n1,0\n0,1\n")
    with pytest.raises(InstanceError, match=r"line 1, column 1: 'q1' is not a score; a \.csv matrix has no header"):
        load_scores(path)
    path.write_text("1.5,0\n0,1\n")
    with pytest.raises(InstanceError, match=r"line 1, column 1 \(model 0, query 0\): score is 1\.5, outside"):
        load_scores(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "a,mmlu:subject=anatomy,method=joint/id1,1",
            r' line 3 has 4 cells but the header names 3 columns; an id containing a comma must be quoted \("a,b"\)$',
        ),
        ("a,q1", " line 3 has 2 cells but the header names 3 columns; every line needs one cell per column$"),
    ],
)
def test_a_line_with_more_or_fewer_cells_than_the_header(tmp_path: Path, line: str, message: str) -> None:
    """HELM query ids hold commas: unquoted, the line has more cells than the header; said the same everywhere."""
    path = tmp_path / "s.csv"
    path.write_text(f"model,query,score\nb,q1,0\n{line}\n")
    with pytest.raises(LoaderError, match=f"^{path}{message}"):
        load_long_csv(path)
    with pytest.raises(LiveError, match=f"^{path}{message}"):
        read_scores_csv(path)
    with pytest.raises(InstanceError, match=f"^{path}: line 3{message.removeprefix(' line 3')}"):
        load_scores(path)


def test_quoted_ids_with_commas_are_read(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text('model,query,score\na,"x,1",C\nb,"x,1",I\n')
    assert load_long_csv(path).queries == ("x,1",)
    assert read_scores_csv(path) == [("a", "x,1", Fraction(1)), ("b", "x,1", Fraction(0))]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_live_record_takes_words_and_letters_and_refuses_extra_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "models.txt").write_text("a\nb\n")
    (tmp_path / "queries.txt").write_text("q1\nq2\n")
    run = str(tmp_path / "run")
    init = ["live", "init", "--models", str(tmp_path / "models.txt"), "--queries", str(tmp_path / "queries.txt")]
    assert _cli([*init, "--budget", "4", "--dir", run], capsys)[0] == 0
    status, out, _ = _cli(["live", "next", "--dir", run, "--json"], capsys)
    pending = json.loads(out)["pending"]
    assert status == 0 and len(pending) == 4
    spelled = {"a": "C", "b": "false"}
    bad = tmp_path / "bad.csv"
    bad.write_text("model,query,score\n" + "".join(f"{p['model']},x,{p['query']},1\n" for p in pending[:1]))
    status, _, err = _cli(["live", "record", "--dir", run, "--scores", str(bad)], capsys)
    assert status == 2
    assert (
        err
        == f'error: {bad} line 2 has 4 cells but the header names 3 columns; an id containing a comma must be quoted ("a,b")\n'
    )
    good = tmp_path / "good.csv"
    good.write_text(
        "model,query,score\n" + "".join(f"{p['model']},{p['query']},{spelled[p['model']]}\n" for p in pending)
    )
    status, out, _ = _cli(["live", "record", "--dir", run, "--scores", str(good), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["chosen"] == "a"
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert sorted((r["model"], r["score"]) for r in log if r["t"] == "score") == [
        ("a", 1),
        ("a", 1),
        ("b", 0),
        ("b", 0),
    ]
