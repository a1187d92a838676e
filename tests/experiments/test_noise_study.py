"""The noise study (``python -m sysrs_ref noise``): its instances, its theory, its numbers are the simulations', its files."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from sysrs_ref import Instance
from sysrs_ref.cli import main
from sysrs_ref.datasets import load_dataset
from sysrs_ref.errors import InstanceError, ParameterError
from sysrs_ref.experiments._noise_report import NOISE_FILES, advantage, write_noise_outputs
from sysrs_ref.experiments._noise_study import (
    NOISE_ALGORITHMS,
    IrtSpec,
    NoiseSettings,
    NoiseStudy,
    _irt_cells,
    case_theory,
    flip_instance,
    noise_case_count,
    noise_cases,
    run_noise_study,
)
from sysrs_ref.simulation import simulate_many
from sysrs_ref.synthetic import irt_benchmark
from sysrs_ref.theory.hardness import arm_hardness, hardness
from tests.strategies import flip_rates, matrices

#: The quick study with few runs: what the tests run (a few seconds).
QUICK = NoiseSettings.quick(runs=12, seed=5)


@pytest.fixture(scope="module")
def study() -> NoiseStudy:
    return run_noise_study(QUICK)


@pytest.mark.parametrize(("n_models", "n_queries", "seed"), [(5, 40, 0), (12, 300, 7)])
def test_the_irt_cells_are_irt_benchmarks_model(n_models: int, n_queries: int, seed: int) -> None:
    """At spread 1/2 the realised matrix is irt_benchmark's, and its rows are the same models as p's."""
    probability, frozen = _irt_cells(IrtSpec(n_models, n_queries, Fraction(1, 2), seed))
    assert np.array_equal(frozen, irt_benchmark(n_models, n_queries, seed).array)
    assert probability.shape == frozen.shape and np.all((probability > 0) & (probability < 1))


@settings(max_examples=60, deadline=None)
@given(rows=matrices(kind="binary", max_models=4, max_queries=5), eps=flip_rates)
def test_a_flip_shrinks_every_gap_by_one_minus_two_eps(rows: list[list[int]], eps: Fraction) -> None:
    base = Instance(rows)
    flipped = flip_instance(base, eps)
    assert flipped.means == tuple(eps + (1 - 2 * eps) * mu for mu in base.means)
    assert flipped.best == base.best
    assert flipped.degenerate == (eps == 0)
    for i, row in enumerate(base.rows):
        for j, score in enumerate(row):
            wrong = 1 - score
            assert dict(flipped.law(i, j)).get(wrong, Fraction(0)) == eps


@settings(max_examples=40, deadline=None)
@given(rows=matrices(kind="binary", min_queries=2, max_models=4, max_queries=5), eps=flip_rates)
def test_the_theory_is_that_of_the_stochastic_instance(rows: list[list[int]], eps: Fraction) -> None:
    """case_theory reads p_ij (bernoulli=True): the same H2, H3, H3' and theta as the stochastic instance's own."""
    flipped = flip_instance(rows, eps)
    theory = case_theory(flipped, hardest=2)
    own = hardness(flipped)
    assert (theory.h2, theory.h3, theory.h3_prime) == (own.h2, own.h3, own.h3_prime)
    if len(flipped.best) == 1:
        arms = arm_hardness(flipped)
        above = [a.theta is not None and a.theta_star is not None and a.theta > a.theta_star for a in arms]
        assert (theory.above_all, theory.above_hardest) == (sum(above), sum(above[:2]))


def test_noise_raises_h3_over_h2_on_a_correlated_benchmark() -> None:
    """On mmlu, every flip level moves H3/H2 up toward 1 (and keeps it below)."""
    scores = load_dataset("mmlu")
    found = [case_theory(flip_instance(scores, eps)).ratio for eps in (Fraction(0), Fraction(1, 8), Fraction(1, 4))]
    ratios = [ratio for ratio in found if ratio is not None]
    assert len(ratios) == 3 and ratios == sorted(ratios) and ratios[-1] < 1


def test_bad_flips_are_refused() -> None:
    with pytest.raises(ParameterError, match=r"\[0, 1/2\)"):
        flip_instance([[1, 0], [0, 1]], Fraction(1, 2))
    with pytest.raises(InstanceError, match="0/1 score matrix"):
        flip_instance([[1, Fraction(1, 2)], [0, 1]], Fraction(1, 8))


def test_the_cases_and_their_seeds() -> None:
    cases = noise_cases(QUICK)
    assert len(cases) == noise_case_count(QUICK) == 6
    assert [c.seed for c in cases] == [5, 5, 6, 6, 7, 7]  # one seed per base instance, shared by its noises
    assert [c.stochastic.degenerate for c in cases] == [True, False, True, False, True, False]


def test_eps_zero_and_frozen_rows_are_the_deterministic_simulations(study: NoiseStudy) -> None:
    """eps = 0 (and the frozen IRT matrix) give exactly today's deterministic runs, seed for seed."""
    deterministic = [found for found in study.cases if found.case.stochastic.degenerate]
    assert [f.case.noise for f in deterministic] == ["eps=0", "eps=0", "frozen"]
    for found in deterministic:
        matrix = found.case.stochastic.mean_instance
        if found.case.family == "benchmark":
            assert matrix == load_dataset(found.case.instance)
        direct = simulate_many(matrix, NOISE_ALGORITHMS, list(QUICK.budgets), QUICK.runs, found.case.seed)
        assert [r.rows for r in found.results] == [r.rows for r in direct]
        assert all(np.array_equal(a.chosen, b.chosen) for a, b in zip(found.results, direct, strict=True))


def test_noisy_rows_are_the_stochastic_simulations(study: NoiseStudy) -> None:
    """A noisy row's accuracies are what simulate_many gives on that stochastic instance with that seed."""
    found = next(f for f in study.cases if f.case.noise == "eps=1/8" and f.case.instance == "mmlu")
    direct = simulate_many(found.case.stochastic, NOISE_ALGORITHMS, list(QUICK.budgets), QUICK.runs, found.case.seed)
    assert [r.rows for r in found.results] == [r.rows for r in direct]
    assert found.results[0].best == tuple(sorted(found.case.stochastic.best))


def test_the_advantage_is_the_paired_difference(study: NoiseStudy) -> None:
    for found in study.cases:
        for index in range(len(QUICK.budgets)):
            only_sysrs, only_sr = found.advantage(index)
            difference, se = advantage(found, index)
            sysrs, sr = found.result("sysrs").rows[index], found.result("sr").rows[index]
            assert difference == Fraction(sysrs.correct - sr.correct, QUICK.runs)
            assert difference == Fraction(only_sysrs - only_sr, QUICK.runs) and se >= 0


@pytest.mark.slow
def test_the_files_hold_the_simulations_numbers(study: NoiseStudy, tmp_path: Path) -> None:
    files, note = write_noise_outputs(tmp_path, study)
    assert [path.name for path in files] == list(NOISE_FILES) and note == "figure: noise_study.png"
    document = json.loads((tmp_path / "noise_study.json").read_text())
    assert set(document) == {"study", "version", "settings", "seconds", "algorithms", "cases", "mean_over_benchmarks"}
    assert document["settings"]["runs"] == QUICK.runs and document["settings"]["flips"] == ["0", "1/8"]
    assert document["algorithms"] == ["sysrs", "sr", "syucbe(a=1)", "ucbe(a=1)"]
    for found, stored in zip(study.cases, document["cases"], strict=True):
        assert set(stored) == {
            "instance", "family", "noise", "eps", "K", "L", "seed", "best", "seconds", "theory", "accuracy", "advantage"
        }  # fmt: skip
        assert (stored["instance"], stored["noise"], stored["seed"]) == (
            found.case.instance,
            found.case.noise,
            found.case.seed,
        )
        assert stored["theory"]["h2"] == str(found.theory.h2) and stored["theory"]["h3"] == str(found.theory.h3)
        sr_rows = [cell for cell in stored["accuracy"] if cell["algorithm"] == "sr"]
        assert [cell["correct"] for cell in sr_rows] == [row.correct for row in found.result("sr").rows]
    csv = (tmp_path / "noise_study.csv").read_text().splitlines()
    assert len(csv) == 1 + len(study.cases) * 4 * len(QUICK.budgets)
    table = (tmp_path / "noise_study.md").read_text()
    assert "| 0 | **SySRs - SR** |" in table and "| mmlu | eps=1/8 |" in table


def test_without_matplotlib_the_rest_is_written(
    study: NoiseStudy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import matplotlib.figure raises ImportError
    files, note = write_noise_outputs(tmp_path, study)
    assert [path.name for path in files] == list(NOISE_FILES[:3]) and "matplotlib is not installed" in note
    assert not (tmp_path / "noise_study.png").exists()


def test_the_command_writes_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "noise"
    status = main(["noise", "--out", str(out), "--quick", "--runs", "3", "--seed", "2", "--no-plot", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert status == 0 and printed["cases"] == 6 and printed["runs"] == 3
    assert sorted(path.name for path in out.iterdir()) == sorted(NOISE_FILES[:3])
    assert json.loads((out / "noise_study.json").read_text())["settings"]["seed"] == 2


def test_a_bad_run_count_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["noise", "--out", str(tmp_path), "--quick", "--runs", "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--runs" in err
