"""Hostile or merely unusual input refused cheaply and in the package's own words.

1. A decimal number whose exact value would be huge (``1e-99999999``: 10**99999999 to compute) is refused
   by the one bounded parser, :func:`sysrs_ref.scores.parse_decimal`, before anything converts it, wherever
   it enters: a score file, a budget, an algorithm parameter, a grid file, a live record, the Python API.
   Every test here is bounded by construction: the parser refuses before computing, so none needs a timer.
2. A ``.npy`` header declaring a shape larger than the file (or an ``.npz`` member larger than its zip
   entry) is refused before anything is allocated, naming the file, the shape and the size.
3. The Python API takes numpy integers wherever it takes ints (with the same result), refuses a bad seed
   with ParameterError naming it, takes a numpy array or nested lists where it takes an instance, and
   raises only the package's errors for a user's bad argument.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sysrs_ref import (
    Instance,
    budget_from_percentage,
    capped_schedule,
    check_budget,
    drive,
    get_algorithm,
    logbar,
    paper_schedule,
    parse_budget,
    parse_percentage,
    random_draw,
    schedule,
    select,
    simulate,
    simulation_draws,
    sysrs,
)
from sysrs_ref.cli import main
from sysrs_ref.errors import (
    BudgetError,
    DrawError,
    InstanceError,
    LoaderError,
    ParameterError,
    ScoreError,
    SysrsError,
)
from sysrs_ref.experiments._metrics import level
from sysrs_ref.experiments._plan import parse_grid
from sysrs_ref.fast import random_draws
from sysrs_ref.live.config import exact_score
from sysrs_ref.loaders import load_long_csv, load_scores, read_npy, read_npz
from sysrs_ref.schedule import Budget
from sysrs_ref.scores import MAX_DIGITS, MAX_EXPONENT, as_score, parse_decimal, shortened
from sysrs_ref.simulation import simulate_many
from tests.strategies import (
    bad_seeds,
    forged_npy_files,
    huge_exponent_texts,
    long_digit_texts,
    numpy_integers,
    ordinary_decimals,
)

HUGE = "1e-99999999"
SMALL = Instance([[1, 1, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0]])


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run the command line in this process: its exit status and its stderr."""
    status = main(list(argv))
    return status, capsys.readouterr().err


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one error line of a command that must be refused (exit status 2, no traceback)."""
    status, err = _cli(capsys, *argv)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def scores_csv(tmp_path: Path) -> Path:
    """A 2 x 2 .csv matrix of ordinary scores."""
    path = tmp_path / "y.csv"
    path.write_text("0.5,0.2\n0.2,0.3\n")
    return path


# -- 1. huge exponents: the command line ------------------------------------------------------------


def test_a_huge_exponent_in_a_csv_matrix_is_refused_by_a_real_process(tmp_path: Path) -> None:
    """The issue's reproduction, in a real process: exit status 2 and one line naming the score."""
    path = tmp_path / "x.csv"
    path.write_text(f"0.5,{HUGE}\n0.2,0.3\n")
    done = subprocess.run(
        [sys.executable, "-m", "sysrs_ref", "select", "--scores", str(path), "--budget", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert f"score is {HUGE}, below 1e-{MAX_EXPONENT} in magnitude" in line and "line 1, column 2" in line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"0.5,{HUGE}\n0.2,0.3\n", f"score is {HUGE}, below 1e-1000"),
        ("0.5,1e+99999999\n0.2,0.3\n", "score is 1e+99999999, above 1e+1000"),
        ("0.5," + "0." + "1" * 2000 + "\n0.2,0.3\n", "score has 2000 digits"),
        ("model,query,score\na,q,1e-99999999\nb,q,0\n", "score is 1e-99999999, below 1e-1000"),
    ],
    ids=["tiny", "huge", "long", "long-csv"],
)
def test_score_files_refuse_unbounded_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(text)
    line = _refused(capsys, "select", "--scores", str(path), "--budget", "2")
    assert expected in line and str(path) in line


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        ("1e99999999%", "budget percentage '1e99999999%' has an exponent; write it in plain decimals"),
        ("0." + "0" * 5000 + "1%", f"budget percentage is {shortened('0.' + '0' * 5000 + '1')}, below 1e-1000"),
        ("1" + "0" * 5000 + "%", f"budget percentage is {shortened('1' + '0' * 5000)}, above 1e+1000"),
        ("9" * 5000, "budget must be at most K*L = 4 (every model on every query), got 9999999999"),
        ("1e99999999", "budget '1e99999999' is neither an integer"),
    ],
    ids=["exponent", "tiny", "huge", "digits", "integer-exponent"],
)
def test_budgets_refuse_unbounded_numbers(
    capsys: pytest.CaptureFixture[str], scores_csv: Path, budget: str, expected: str
) -> None:
    line = _refused(capsys, "select", "--scores", str(scores_csv), "--budget", budget)
    assert expected in line
    assert len(line) < 400  # the value is shortened, not echoed in full


@pytest.mark.parametrize(
    ("algorithm", "option", "expected"),
    [
        ("ucbe", "--a", "ucbe parameter a is 1e99999999, above 1e+1000 in magnitude"),
        ("syucbe", "--a", "syucbe parameter a is 1e99999999, above 1e+1000 in magnitude"),
        ("sar", "--m", "sar parameter m is 1e99999999, above 1e+1000 in magnitude"),
        ("ucbe-lrf", "--warmup", "ucbe-lrf parameter warmup is 1e99999999, above 1e+1000 in magnitude"),
    ],
)
def test_select_refuses_unbounded_parameters(
    capsys: pytest.CaptureFixture[str], scores_csv: Path, algorithm: str, option: str, expected: str
) -> None:
    line = _refused(
        capsys, "select", "--scores", str(scores_csv), "--budget", "2", "--algorithm", algorithm, option, "1e99999999"
    )
    assert expected in line and "write a number below 1e+1000" in line


@pytest.mark.parametrize(
    "arguments",
    [
        ["--algorithm", "ucbe", "--a", HUGE],
        ["--algorithm", f"ucbe:a={HUGE}"],
        ["--algorithm", "sysrs,ucbe-lrf:eta=1e99999999"],
        ["--algorithm", "sysrs", "--budgets", "2,1e-99999999%"],
    ],
    ids=["--a", "item", "lrf-item", "budgets"],
)
def test_simulate_refuses_unbounded_numbers(
    capsys: pytest.CaptureFixture[str], scores_csv: Path, arguments: list[str]
) -> None:
    budgets = [] if "--budgets" in arguments else ["--budgets", "2"]
    line = _refused(capsys, "simulate", "--scores", str(scores_csv), "--runs", "1", *budgets, *arguments)
    assert "1e-99999999" in line or "1e99999999" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("12%\n0." + "0" * 3000 + "1%\n", f"line 2: budget percentage is {shortened('0.' + '0' * 3000 + '1')}, below"),
        ("12%\n" + "1" * 3000 + "\n", f"line 2: budget percentage is {shortened('1' * 3000)}, above 1e+1000"),
        ("1e99999999%\n", "line 1: budget percentage '1e99999999%' has an exponent"),
    ],
    ids=["tiny", "huge", "exponent"],
)
def test_reproduce_refuses_unbounded_grid_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, expected: str
) -> None:
    grid = tmp_path / "grid.txt"
    grid.write_text(content)
    line = _refused(capsys, "reproduce", "--grid", str(grid), "--out", str(tmp_path / "out"))
    assert f"grid file '{grid}', {expected}" in line
    with pytest.raises(ParameterError, match="budget percentage"):
        parse_grid(str(grid))


def test_live_record_refuses_a_huge_exponent_and_keeps_the_session_usable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    models, queries, run = tmp_path / "models.txt", tmp_path / "queries.txt", str(tmp_path / "run")
    models.write_text("a\nb\n")
    queries.write_text("q1\nq2\nq3\n")
    assert (
        main(["live", "init", "--models", str(models), "--queries", str(queries), "--budget", "6", "--dir", run]) == 0
    )
    capsys.readouterr()
    assert main(["live", "next", "--dir", run, "--json"]) == 0
    pending = json.loads(capsys.readouterr().out)["pending"]
    model, query = pending[0]["model"], pending[0]["query"]
    scores = tmp_path / "scores.csv"
    scores.write_text(f"model,query,score\n{model},{query},{HUGE}\n")
    line = _refused(capsys, "live", "record", "--dir", run, "--scores", str(scores))
    assert f"score is {HUGE}, below 1e-1000 in magnitude" in line and "line 2" in line
    scores.write_text(f"model,query,score\n{model},{query},0.5\n")
    assert main(["live", "record", "--dir", run, "--scores", str(scores)]) == 0  # the lock was released


# -- 1. huge exponents: the Python API and the parser --------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "expected"),
    [
        (lambda: as_score(Decimal(HUGE)), ScoreError, "score is 1E-99999999, below 1e-1000"),
        (
            lambda: Instance([[Decimal(HUGE), Decimal(1)], [Decimal(0), Decimal(1)]]),
            InstanceError,
            "model 0, query 0 is 1E-99999999",
        ),
        (lambda: parse_percentage(Decimal("1e-99999999")), BudgetError, "budget percentage is 1E-99999999"),
        (lambda: select(SMALL, 6, "ucbe", a=Decimal("1e99999999")), ParameterError, "ucbe parameter a is 1E+99999999"),
        (lambda: select(SMALL, 6, "ucbe", a=HUGE), ParameterError, f"ucbe parameter a is {HUGE}"),
        (lambda: select(SMALL, 6, "sysar", m="1e99999999"), ParameterError, "sysar parameter m is 1e99999999"),
        (lambda: select(SMALL, 6, "ucbe-lrf", ridge=HUGE), ParameterError, f"ucbe-lrf parameter ridge is {HUGE}"),
        (lambda: simulate(SMALL, "ucbe", [6], 1, a=HUGE), ParameterError, f"ucbe parameter a is {HUGE}"),
        (lambda: Budget.parse("9" * 5000, 3, 4), BudgetError, "at most K*L = 12"),
        (lambda: check_budget(10**5000, 3, 4), BudgetError, "got an integer of 5001 digits"),
        (lambda: level("1e99999999"), ParameterError, "an accuracy level must be a percentage"),
    ],
    ids=[
        "as_score",
        "Instance",
        "percentage",
        "select-Decimal",
        "select-text",
        "m",
        "lrf",
        "simulate",
        "Budget",
        "check_budget",
        "level",
    ],
)
def test_the_api_refuses_unbounded_numbers(call: Callable[[], object], error: type[Exception], expected: str) -> None:
    with pytest.raises(error) as raised:
        call()
    assert expected in str(raised.value)


def test_a_live_log_with_a_forged_fraction_is_read_without_converting_it() -> None:
    for text in ("1e99999999/2", "1/1e99999999", "0x1/2"):
        with pytest.raises(ValueError, match="is not a score"):
            exact_score(text)
    assert exact_score("1/3") == Fraction(1, 3) and exact_score(" 2/4 ") == Fraction(1, 2)


def test_the_long_csv_loader_refuses_too_many_digits(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_text("model,query,score\na,q,0." + "5" * 1500 + "\nb,q,0\n")
    with pytest.raises(LoaderError, match="line 2: score has 1500 digits"):
        load_long_csv(path)


@given(huge_exponent_texts())
def test_parse_decimal_refuses_huge_exponents(text: str) -> None:
    """Refused from the text alone: Decimal reads the exponent as a number, nothing computes 10**exponent."""
    with pytest.raises(ValueError, match=r"in magnitude: too (small|large) to hold exactly|not a number") as raised:
        parse_decimal(text)
    assert not isinstance(raised.value, SysrsError)  # a reason for the caller to put in its own error
    assert len(str(raised.value)) < 250


@given(long_digit_texts())
def test_parse_decimal_refuses_too_many_digits(text: str) -> None:
    with pytest.raises(ValueError, match=rf"digits \(.*\), more than the {MAX_DIGITS} an exact number may have"):
        parse_decimal(text)


@given(ordinary_decimals())
def test_parse_decimal_reads_ordinary_decimals_exactly(case: tuple[str, Fraction]) -> None:
    text, exact = case
    assert parse_decimal(text) == exact


@given(st.text(max_size=30))
def test_parse_decimal_answers_any_text_with_a_small_fraction_or_a_reason(text: str) -> None:
    """Whatever it accepts, the exact value is small: its numerator and denominator have at most ~2000 digits."""
    try:
        value = parse_decimal(text)
    except ValueError as err:
        assert str(err)
        return
    bound = (MAX_DIGITS + 2 * MAX_EXPONENT + 2) * 4  # bits: 10**k < 2**(4k)
    assert value.numerator.bit_length() < bound and value.denominator.bit_length() < bound


def test_parse_decimal_keeps_zero_of_any_exponent_and_the_bounds() -> None:
    assert parse_decimal("0e-99999999") == 0 and parse_decimal("-0.000") == 0
    assert parse_decimal("1e-1000") == Fraction(1, 10**1000) and parse_decimal("9.99e1000") == Fraction(999 * 10**998)
    for text in ("1e-1001", "1e1001", "9.9e-1001"):
        with pytest.raises(ValueError, match="in magnitude"):
            parse_decimal(text)
    for text in ("0.000001", "1000000", "1.25", "99.5", "12", "0.1"):  # exploration a, percentages, levels
        assert parse_decimal(text) == Fraction(text)


# -- 2. forged .npy headers and .npz members -----------------------------------------------------------


def _npy_header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


def test_a_forged_npy_header_is_refused_by_a_real_process(tmp_path: Path) -> None:
    """The issue's reproduction: a tiny file declaring 80 TB was a MemoryError traceback and exit status 1."""
    path = tmp_path / "forged.npy"
    path.write_bytes(_npy_header((100000, 100000000)) + bytes(16))
    done = subprocess.run(
        [sys.executable, "-m", "sysrs_ref", "select", "--scores", str(path), "--budget", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    size = path.stat().st_size
    assert "forged.npy" in line and "shape (100000, 100000000)" in line and f"the file is {size} bytes long" in line


@given(forged_npy_files())
def test_npy_headers_declaring_more_than_the_file_are_refused(case: tuple[bytes, tuple[int, ...]]) -> None:
    content, shape = case
    shown = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    with tempfile.TemporaryDirectory() as folder:  # not tmp_path: Hypothesis runs many examples in one test
        path = Path(folder) / "forged.npy"
        path.write_bytes(content)
        for reader in (read_npy, load_scores):
            with pytest.raises(InstanceError) as raised:
                reader(path)
            message = str(raised.value)
            assert "forged.npy" in message and f"shape {shown}" in message
            assert f"the file is {len(content):,} bytes long" in message


def test_good_npy_files_still_load(tmp_path: Path) -> None:
    matrix = np.array([[1.0, 0.25, 0.0], [0.5, 0.5, 1.0]])
    for version in ((1, 0), (2, 0)):
        path = tmp_path / f"v{version[0]}.npy"
        with path.open("wb") as handle:
            np.lib.format.write_array(handle, matrix, version=version)
        assert load_scores(path).array.tolist() == matrix.tolist()
    fortran = tmp_path / "fortran.npy"
    np.save(fortran, np.asfortranarray(matrix))
    assert load_scores(fortran).array.tolist() == matrix.tolist()
    empty = tmp_path / "empty.npy"
    np.save(empty, np.zeros((0, 3)))
    with pytest.raises(InstanceError, match="at least 2 models"):
        load_scores(empty)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (_npy_header((2, 2), "|O"), "holds Python objects"),
        (_npy_header((-1, 2)), "negative shape (-1, 2)"),
        (_npy_header((10**30, 10**30)), "shape (1000000000000000000000000000000, 1000000000000000000000000000000)"),
    ],
    ids=["object", "negative", "enormous"],
)
def test_npy_headers_are_checked_before_reading(tmp_path: Path, header: bytes, expected: str) -> None:
    path = tmp_path / "m.npy"
    path.write_bytes(header + bytes(64))
    with pytest.raises(InstanceError) as raised:
        load_scores(path)
    assert expected in str(raised.value)


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> None:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_npz_members_are_checked_against_their_zip_entries(tmp_path: Path) -> None:
    good = io.BytesIO()
    np.lib.format.write_array(good, np.eye(3), version=(1, 0))
    path = tmp_path / "m.npz"
    _zip(path, {"scores.npy": good.getvalue()})
    assert read_npz(path)["scores"].tolist() == np.eye(3).tolist()

    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        _zip(path, {"shape.npy": good.getvalue(), "bits.npy": _npy_header((100000, 100000000)) + bytes(8)}, method)
        with pytest.raises(InstanceError) as raised:
            read_npz(path)
        message = str(raised.value)
        assert "member 'bits.npy'" in message and "shape (100000, 100000000)" in message
        assert "the member holds at most" in message

    _zip(path, {"notes.txt": b"hello"})
    with pytest.raises(InstanceError, match=r"'notes\.txt' is not an \.npy array"):
        read_npz(path)
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InstanceError, match=r"not a valid \.npz file"):
        read_npz(path)


def test_an_npz_member_claiming_more_than_its_compressed_bytes_give_is_refused(tmp_path: Path) -> None:
    """A zip entry may state any uncompressed size; deflate gives at most 1032 bytes per compressed byte."""
    path = tmp_path / "m.npz"
    _zip(path, {"bits.npy": _npy_header((4000, 1000), "|u1") + bytes(4_000_000)})  # 4 MB of zeros: a few kB
    assert read_npz(path)["bits"].shape == (4000, 1000)
    # a header declaring 1 GB, 4 MB of data, and a zip entry claiming 4 GB: the compressed bytes give 4 MB at most
    _zip(path, {"bits.npy": _npy_header((1_000_000, 1000), "|u1") + bytes(4_000_000)})
    path.write_bytes(_forge_sizes(path.read_bytes(), file_size=2**32 - 2))
    with pytest.raises(InstanceError, match=r"member 'bits\.npy'.*shape \(1000000, 1000\)"):
        read_npz(path)


def _forge_sizes(archive: bytes, file_size: int) -> bytes:
    """The zip *archive* with its one member's stated uncompressed size set to *file_size* (< 4 GB: no ZIP64)."""
    data = bytearray(archive)
    local = data.find(b"PK\x03\x04")
    central = data.find(b"PK\x01\x02")
    data[local + 22 : local + 26] = file_size.to_bytes(4, "little")
    data[central + 24 : central + 28] = file_size.to_bytes(4, "little")
    return bytes(data)


# -- 3. the Python API: numpy integers, seeds, instances ----------------------------------------------


def _same(left: object, right: object) -> bool:
    """Equal results: outcomes and simulations compared field by field (arrays by value)."""
    if isinstance(left, tuple) and isinstance(right, tuple) and left and hasattr(left[0], "chosen"):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    if hasattr(left, "rows") and hasattr(left, "chosen") and hasattr(right, "chosen"):
        return bool(left.rows == right.rows and np.array_equal(left.chosen, right.chosen))  # type: ignore[attr-defined]
    if hasattr(left, "query_orders") and isinstance(left.query_orders, np.ndarray):
        return bool(
            np.array_equal(left.query_orders, right.query_orders)  # type: ignore[attr-defined]
            and np.array_equal(left.arm_priority, right.arm_priority)  # type: ignore[attr-defined]
        )
    return left == right and type(left) is type(right)


#: Every public function that takes integers, called with them converted by ``i`` (int, or a numpy integer).
INTEGER_CALLS: dict[str, Callable[[Callable[[int], Any]], object]] = {
    "select budget and seed": lambda i: select(SMALL, i(6), "sysrs", seed=i(3)),
    "select sar m": lambda i: select(SMALL, i(9), "sar", seed=i(1), m=i(2)),
    "select ucbe a": lambda i: select(SMALL, i(7), "ucbe", seed=i(2), a=i(2)),
    "select ucbe-lrf": lambda i: select(SMALL, i(8), "ucbe-lrf", seed=i(0), warmup=i(0), batch=i(2), members=i(2)),
    "simulate": lambda i: simulate(SMALL, "syus", [i(6), "50%"], i(3), i(5), workers=i(1), top_m=[i(1)]),
    "simulate_many": lambda i: simulate_many(SMALL, "sysrs,sr", [i(12)], i(2), i(4), chunk=i(1)),
    "random_draw": lambda i: random_draw(i(7), i(3), i(4), synchronized=False),
    "spec.random_draw": lambda i: get_algorithm("ucbe-lrf").random_draw(i(7), i(3), i(4)),
    "random_draws": lambda i: random_draws(i(7), i(2), i(3), i(4), synchronized=True),
    "simulation_draws": lambda i: simulation_draws(i(7), i(1), i(3), i(3), i(4), synchronized=True),
    "parse_budget": lambda i: parse_budget(i(7), i(3), i(4)),
    "Budget.parse": lambda i: Budget.parse(i(7), i(3), i(4)),
    "check_budget": lambda i: check_budget(i(7), i(3), i(4)),
    "budget_from_percentage": lambda i: budget_from_percentage(i(50), i(3), i(4)),
    "parse_percentage": lambda i: parse_percentage(i(50)),
    "schedule": lambda i: schedule(i(3), i(4), i(8)),
    "capped_schedule": lambda i: capped_schedule(i(3), i(4), i(11)),
    "paper_schedule": lambda i: paper_schedule(i(3), i(8)),
    "logbar": lambda i: logbar(i(5)),
    "level": lambda i: level(i(95)),
    "drive": lambda i: drive(sysrs(i(8), random_draw(i(1), i(3), i(4), synchronized=True)), SMALL),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(INTEGER_CALLS))
@given(data=st.data())
def test_numpy_integers_are_accepted_wherever_ints_are(name: str, data: st.DataObject) -> None:
    call = INTEGER_CALLS[name]
    expected = call(int)
    got = call(lambda value: data.draw(numpy_integers(value)))
    assert _same(got, expected), (got, expected)


def test_select_takes_a_numpy_budget_as_the_issue_asks() -> None:
    assert select(SMALL, np.int64(6), "sysrs", seed=2) == select(SMALL, 6, "sysrs", seed=2)


#: Every public function that takes a seed, called with *seed*.
SEED_CALLS: dict[str, Callable[[object], object]] = {
    "select": lambda seed: select(SMALL, 6, seed=seed),  # type: ignore[arg-type]
    "select ucbe-lrf": lambda seed: select(SMALL, 6, "ucbe-lrf", seed=seed),  # type: ignore[arg-type]
    "simulate": lambda seed: simulate(SMALL, "sysrs", [6], 1, seed),  # type: ignore[arg-type]
    "simulate_many": lambda seed: simulate_many(SMALL, "sysrs", [6], 1, seed),  # type: ignore[arg-type]
    "random_draw": lambda seed: random_draw(seed, 3, 4, synchronized=True),  # type: ignore[arg-type]
    "spec.random_draw": lambda seed: get_algorithm("ucbe-lrf").random_draw(seed, 3, 4),  # type: ignore[arg-type]
    "random_draws": lambda seed: random_draws(seed, 1, 3, 4, synchronized=True),  # type: ignore[arg-type]
    "simulation_draws": lambda seed: simulation_draws(seed, 0, 1, 3, 4, synchronized=True),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", sorted(SEED_CALLS))
@given(seed=bad_seeds)
def test_bad_seeds_are_refused_with_a_parameter_error_naming_the_seed(name: str, seed: object) -> None:
    with pytest.raises(ParameterError, match=r"^seed must be a non-negative integer"):
        SEED_CALLS[name](seed)


def test_a_seed_of_minus_one_is_no_longer_numpys_bare_value_error() -> None:
    with pytest.raises(
        ParameterError, match=r"seed must be a non-negative integer or a numpy.random.Generator, got -1"
    ):
        select(SMALL, 6, seed=-1)
    assert select(SMALL, 6, seed=np.random.default_rng(5)) == select(SMALL, 6, seed=5)  # a Generator is a seed too


@pytest.mark.parametrize(
    "matrix",
    [SMALL.array, np.array(SMALL.array, dtype=np.float32), [list(row) for row in SMALL.rows], SMALL.array.tolist()],
    ids=["float64", "float32", "fractions", "lists"],
)
def test_what_takes_an_instance_takes_a_score_matrix(matrix: Any) -> None:
    assert select(matrix, 6, "sysrs", seed=1) == select(SMALL, 6, "sysrs", seed=1)
    got, expected = simulate(matrix, "sr", [6, 9], 3, 2), simulate(SMALL, "sr", [6, 9], 3, 2)
    assert got.rows == expected.rows and np.array_equal(got.chosen, expected.chosen)
    draw = random_draw(4, 3, 4, synchronized=True)
    assert drive(sysrs(8, draw), matrix) == drive(sysrs(8, draw), SMALL)


@pytest.mark.parametrize("bad", [None, "gsm", 5, 1.5, {"a": 1}, b"x", Path("scores.csv")])
def test_what_is_no_instance_is_refused_in_the_packages_words(bad: object) -> None:
    for call in (
        lambda: select(bad, 6),  # type: ignore[arg-type]
        lambda: simulate(bad, "sysrs", [6], 1),  # type: ignore[arg-type]
        lambda: drive(sysrs(8, random_draw(4, 3, 4, synchronized=True)), bad),  # type: ignore[arg-type]
    ):
        with pytest.raises(InstanceError, match="must be an Instance or a score matrix"):
            call()


@pytest.mark.parametrize(
    ("call", "error", "expected"),
    [
        (lambda: drive(5, SMALL), ParameterError, "drive needs a step generator"),  # type: ignore[arg-type]
        (lambda: select(SMALL, 6, draw=5), DrawError, "needs a Draw of query orders"),  # type: ignore[arg-type]
        (lambda: random_draw(0, None, 4, synchronized=True), DrawError, "n_models"),  # type: ignore[arg-type]
        (lambda: random_draw(0, 3, 2.5, synchronized=True), DrawError, "n_queries"),  # type: ignore[arg-type]
        (lambda: schedule(None, 4, 6), BudgetError, "K (the number of models)"),  # type: ignore[arg-type]
        (lambda: parse_budget(6, 3, "4"), BudgetError, "L (the number of queries)"),  # type: ignore[arg-type]
        (lambda: paper_schedule("3", 6), BudgetError, "K (the number of models)"),  # type: ignore[arg-type]
        (lambda: logbar(2.5), BudgetError, "logbar(K) needs K >= 2"),  # type: ignore[arg-type]
        (lambda: check_budget(6.0, 3, 4), BudgetError, "integer number of evaluations"),  # type: ignore[arg-type]
        (lambda: load_scores(None), InstanceError, "path of a scores file"),  # type: ignore[arg-type]
        (lambda: simulate(SMALL, "sysrs", [6], np.float64(2)), ParameterError, "runs must be"),  # type: ignore[arg-type]
    ],
    ids=[
        "drive",
        "select-draw",
        "draw-K",
        "draw-L",
        "schedule",
        "parse_budget",
        "paper_schedule",
        "logbar",
        "check_budget",
        "load_scores",
        "simulate-runs",
    ],
)
def test_bad_arguments_raise_the_packages_errors(
    call: Callable[[], object], error: type[Exception], expected: str
) -> None:
    with pytest.raises(error, match=expected.replace("(", r"\(").replace(")", r"\)")):
        call()
