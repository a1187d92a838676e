"""Inputs beyond what is read at once, paths that cannot be read, and settings that would mislead: one clear error."""

from __future__ import annotations

import importlib
import io
import math
import os
import random
import struct
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sysrs_ref import Instance, schedule, select, simulate
from sysrs_ref.errors import InstanceError, ParameterError
from sysrs_ref.experiments import reproduce
from sysrs_ref.loaders import load_scores, load_stochastic
from sysrs_ref.simulation import simulate_many
from sysrs_ref.stochastic import MAX_SAMPLE_VALUES, StochasticInstance

schedule_module = importlib.import_module("sysrs_ref.schedule")  # the package exports a function of that name


def test_samples_beyond_the_bound_are_refused_with_their_cost(tmp_path: Path) -> None:
    path = tmp_path / "e.npy"
    np.save(path, np.ones((2, 2, MAX_SAMPLE_VALUES // 4 + 1), dtype=np.uint8))
    with pytest.raises(InstanceError, match=r"'.*e\.npy': samples of shape 2 x 2 x \d+ hold 4,000,004 values; .*about"):
        load_stochastic(path)
    with pytest.raises(InstanceError, match="hold 4,000,004 values"):
        StochasticInstance.samples(np.ones((2, 2, MAX_SAMPLE_VALUES // 4 + 1), dtype=np.uint8))


def test_an_npz_member_is_bounded_before_it_is_inflated(tmp_path: Path) -> None:
    """A member of a few kilobytes that inflates to 25 MB of samples: refused from its header, never inflated."""
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, samples=np.zeros((2, 2, 6_250_000), dtype=np.uint8))
    assert path.stat().st_size < 100_000
    with pytest.raises(InstanceError, match=r"member 'samples\.npy': samples of shape 2 x 2 x 6250000 hold"):
        load_stochastic(path)


def test_samples_within_the_bound_are_read() -> None:
    assert StochasticInstance.samples(np.ones((2, 1, 3))).means == (Fraction(1), Fraction(1))


@pytest.mark.parametrize("suffix", [".csv", ".npy", ".npz"])
def test_a_file_name_too_long_is_one_line(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / ("a" * 300 + suffix)
    with pytest.raises(InstanceError, match=r"the file name is too long for this system \(\d+ characters"):
        load_stochastic(path)
    if suffix != ".npz":
        with pytest.raises(InstanceError, match="the file name is too long"):
            load_scores(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_not_read_forever(tmp_path: Path) -> None:
    fifo = tmp_path / "scores.csv"
    os.mkfifo(fifo)
    with pytest.raises(InstanceError, match="not a regular file or a directory"):
        load_scores(fifo)
    from sysrs_ref.cli import main

    assert main(["select", "--scores", str(fifo), "--budget", "4"]) == 2


def test_reproduce_refuses_to_write_into_its_data_folder(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.eye(3))
    with pytest.raises(ParameterError, match="is the data folder"):
        reproduce(tmp_path, tmp_path, grid="table", runs=2, plots=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npy"]


def test_simulate_with_a_list_of_algorithms_says_what_to_use() -> None:
    matrix = [[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 0, 0]]
    with pytest.raises(ParameterError, match=r"simulate runs one algorithm.*\['sysrs', 'sr'\]: use simulate_many"):
        simulate(matrix, ["sysrs", "sr"], ["50%"], runs=4)  # type: ignore[arg-type]  # the wrong type on purpose: the error a Python user gets
    both = simulate_many(matrix, ["sysrs", "sr"], ["50%"], runs=4)
    assert [result.algorithm for result in both] == ["sysrs", "sr"]
    assert both[1].rows == simulate(matrix, "sr", ["50%"], runs=4).rows


def test_the_schedule_of_many_models_is_the_exact_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """U0 from bounds on logbar(K) equals ceil((n - K) / logbar(K)), the exact rule, at every K and budget tried."""
    monkeypatch.setattr(schedule_module, "_EXACT_BELOW", 2)
    rng = random.Random(5)
    for n_models in [*range(2, 60), 300, 1000]:
        exact = schedule_module.logbar(n_models)
        for budget in [n_models, n_models + 1, *(rng.randint(n_models, 40 * n_models) for _ in range(6))]:
            level = math.ceil(Fraction(budget - n_models) / exact)
            assert schedule_module._level(n_models, budget) == level
            paper = tuple(
                math.ceil(Fraction(budget - n_models) / (exact * (n_models + 1 - k))) for k in range(1, n_models)
            )
            assert schedule_module.paper_schedule(n_models, budget) == paper


def test_many_models_on_one_query_are_selected() -> None:
    """K = 5,000 models, L = 1, the full budget: every phase after the first adds no query (K log K, not K^2)."""
    scores = np.zeros((5000, 1))
    scores[1234, 0] = 1.0
    outcome = select(Instance(scores), 5000, "sysrs", seed=1)
    assert outcome.chosen == 1234 and outcome.spent == 5000
    assert schedule(5000, 1, 5000) == (1,) * 4999


def _stored_member_claiming(size: int) -> bytes:
    """An .npz whose stored member holds only an .npy header (8 MB declared), its zip entry claiming *size* bytes."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (2, 1, 500_000)})
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zipped:
        zipped.writestr("samples.npy", header.getvalue())
    data = bytearray(archive.getvalue())
    local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")
    data[local + 22 : local + 26] = struct.pack("<I", size)  # the uncompressed sizes, forged
    data[central + 24 : central + 28] = struct.pack("<I", size)
    return bytes(data)


def test_a_stored_member_is_bounded_by_its_bytes_not_its_claim(tmp_path: Path) -> None:
    """A stored member can give no more than its stored bytes, whatever its zip entry claims."""
    path = tmp_path / "forged.npz"
    path.write_bytes(_stored_member_claiming(10**9))
    with pytest.raises(InstanceError, match=r"8,000,000 bytes\), but the member holds at most \d{2,3} bytes"):
        load_stochastic(path)


def test_an_npy_short_by_less_than_its_header_is_refused_as_truncated(tmp_path: Path) -> None:
    """The data must fit in the bytes after the header, not merely in the file: 8 bytes short of 160 is refused."""
    path = tmp_path / "short.npy"
    np.save(path, np.linspace(0.0, 1.0, 20))
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(InstanceError, match=r"declares an array of shape \(20,\) \(float64, 160 bytes\).*truncated"):
        load_scores(path)
