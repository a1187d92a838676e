"""UCB-E-LRF's control loop is written once: Python's select, the command line's select and lrf_rankings agree.

All three run the step generator of sysrs_ref.algorithms.lrf; only the fit is a parameter (the reference's
pure-Python fit is the default of ucbe_lrf, the registry and select; live sessions pass the numpy fit,
the command line and lrf_rankings the compiled one). sysrs_ref.algorithms never imports sysrs_ref.fast:
the applications pass the fit.
"""

from __future__ import annotations

import ast
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from sysrs_ref import Instance, drive, select
from sysrs_ref.algorithms.lrf import (
    EnsembleFit,
    LRFParams,
    fit_ensemble_reference,
    random_lrf_draw,
    ucbe_lrf,
    ucbe_lrf_rankings,
)
from sysrs_ref.cli import main
from sysrs_ref.errors import BudgetError, ScoreError
from sysrs_ref.fast.lrf import fit_ensemble_fast, lrf_rankings, run_lrf

ALGORITHMS_DIR = Path(__file__).resolve().parents[2] / "sysrs_ref" / "algorithms"

Array = npt.NDArray[np.float64]


def _matrices() -> dict[str, Array]:
    """Small fixed matrices: binary (Bernoulli rows of decreasing means), continuous, and rounded (with ties)."""
    binary = np.random.default_rng(11)
    continuous = np.random.default_rng(12)
    rounded = np.random.default_rng(13)
    wide = np.random.default_rng(14)
    return {
        "binary-6x20": (binary.random((6, 20)) < np.linspace(0.8, 0.3, 6)[:, None]).astype(np.float64),
        "continuous-9x30": continuous.random((9, 30)),
        "rounded-4x10": np.round(rounded.random((4, 10)), 1),
        "binary-12x40": (wide.random((12, 40)) < np.linspace(0.7, 0.4, 12)[:, None]).astype(np.float64),
    }


MATRICES = _matrices()
#: (seed, budget, warmup in %) of the select comparisons: five seeds, both variants, two budgets.
RUNS = [(0, "30%", "5"), (1, "55%", "0"), (2, "30%", "20"), (3, "55%", "5"), (4, "30%", "0")]


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_python_and_command_line_select_choose_the_same(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """select(..., "ucbe-lrf", draw=random_lrf_draw(seed, K, L), fit=fit_ensemble_fast) and ``select --seed seed
    --json``: the same chosen, ranking (the reference's fit makes the same runs: test_lrf_registered, test_fast_lrf)."""
    matrix = MATRICES[name]
    path = tmp_path / f"{name}.npy"
    np.save(path, matrix)
    instance = Instance(matrix)
    n_models, n_queries = matrix.shape
    for seed, budget, warmup in RUNS:
        draw = random_lrf_draw(seed, n_models, n_queries)
        python = select(instance, budget, "ucbe-lrf", draw=draw, warmup=warmup, fit=fit_ensemble_fast)
        assert (
            main(
                [
                    "select",
                    "--scores",
                    str(path),
                    "--budget",
                    budget,
                    "--algorithm",
                    "ucbe-lrf",
                    "--seed",
                    str(seed),
                    "--warmup",
                    warmup,
                    "--json",
                ]
            )
            == 0
        )
        cli = json.loads(capsys.readouterr().out)
        assert (cli["chosen"], cli["ranking"]) == (python.chosen, list(python.ranking)), (name, seed, budget, warmup)
        assert cli["spent"] == python.spent


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_lrf_rankings_is_the_step_generator_run_by_run(name: str) -> None:
    """Each run of lrf_rankings (one run serving every budget) equals separate step-generator runs, exactly."""
    matrix = MATRICES[name]
    instance = Instance(matrix)
    n_models, n_queries = matrix.shape
    full = n_models * n_queries
    budgets = [full // 2, n_models, full, full // 4 + 1]  # unsorted on purpose: entries follow the given order
    params = LRFParams(bonus_on_observed=False, unseen_first=True) if n_models % 2 else LRFParams()
    got = lrf_rankings(matrix, budgets, 5, 1, 4, params)
    for run in range(1, 4):
        child = np.random.default_rng(np.random.SeedSequence(5, spawn_key=(run,)))
        draw = random_lrf_draw(child, n_models, n_queries)
        for column, budget in enumerate(budgets):
            outcome = drive(ucbe_lrf(budget, draw, params, fit=fit_ensemble_fast), instance)
            assert tuple(got[run - 1, column].tolist()) == outcome.ranking, (name, run, budget)


def test_the_fit_is_the_only_difference_between_the_reference_and_the_numpy_run() -> None:
    """The same loop with either fit: a spy fit sees the same calls (fit numbers, observed cells) from both entry points,
    and with the reference fit the run makes the numpy run's choices here (continuous scores, no near ties)."""
    matrix = MATRICES["continuous-9x30"][:5, :12]
    instance = Instance(matrix)
    draw, params = random_lrf_draw(8, 5, 12), LRFParams(batch=5, members=4, sweeps=3)

    def spy(calls: list[tuple[int, int]]) -> EnsembleFit:
        """The numpy fit, recording each call's (fit number, observed cells)."""

        def fit(scores: Array, seed: int, number: int, settings: LRFParams) -> tuple[Array, Array]:
            calls.append((number, int((~np.isnan(scores)).sum())))
            return fit_ensemble_fast(scores, seed, number, settings)

        return fit

    alone: list[tuple[int, int]] = []
    outcome = drive(ucbe_lrf(40, draw, params, fit=spy(alone)), instance)
    together: list[tuple[int, int]] = []
    run = ucbe_lrf_rankings([40], draw, params, fit=spy(together))
    batch = next(run)
    with pytest.raises(StopIteration) as stop:
        while True:
            batch = run.send([instance(r.model, r.query) for r in batch])
    assert stop.value.value == [outcome.ranking] and alone == together
    assert [number for number, _ in alone] == list(range(len(alone))) and alone[-1][1] == 40  # t = 0, 1, ...; final fit
    reference = drive(ucbe_lrf(40, draw, params, fit=fit_ensemble_reference), instance)
    assert reference == drive(ucbe_lrf(40, draw, params), instance) == outcome


def test_run_lrf_refusals() -> None:
    draw = random_lrf_draw(0, 2, 3)
    with pytest.raises(ValueError, match="the draw is for 2 x 3"):
        run_lrf([[1.0, 0.0], [0.0, 1.0]], [2], draw)
    with pytest.raises(BudgetError, match="at least one budget"):
        run_lrf([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], [], draw)
    with pytest.raises(BudgetError, match="at most K\\*L = 6"):
        run_lrf([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], [7], draw)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ([1.5, 0.0], "score is 1.5, outside \\[0, 1\\]"),
        ([float("nan"), 0.0], "score is nan"),
        ([0.5], "got 1 score for a batch of 2 requests"),
        (["0.5", 0.0], "not a number"),
        (None, "resumed without scores"),
    ],
)
def test_scores_are_checked_as_for_every_algorithm(answer: list[object] | None, message: str) -> None:
    """Plain floats in [0, 1] take a shortcut past the Fractions; anything else meets accept_scores' errors."""
    run = ucbe_lrf(2, random_lrf_draw(0, 2, 1), LRFParams(warmup=Fraction(100)))  # warm-up: both cells at once
    assert len(next(run)) == 2
    with pytest.raises(ScoreError, match=message):
        run.send(answer)  # type: ignore[arg-type]


def test_the_algorithms_layer_never_imports_the_fast_layer() -> None:
    """Layers go core -> algorithms -> fast: no module of sysrs_ref.algorithms imports sysrs_ref.fast."""
    offenders = []
    for path in sorted(ALGORITHMS_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {name}"
                for name in names
                if name == "sysrs_ref.fast" or name.startswith("sysrs_ref.fast.")
            ]
    assert offenders == []
