"""Subset selection against SySRs: the paper's full-matrix protocol and the held-out one, recomputed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from sysrs_ref import Instance, simulate
from sysrs_ref.errors import ParameterError
from sysrs_ref.experiments._subset_comparison import full_matrix_comparison, held_out_comparison, labels
from sysrs_ref.subset.anchor import anchor_points
from sysrs_ref.subset.clustering import KMedoidsMethod
from sysrs_ref.subset.kmeans_select import kmeans_correctness
from sysrs_ref.subset.methods import anchors_for_budget
from sysrs_ref.synthetic import irt_benchmark

INSTANCE = irt_benchmark(8, 60, seed=4)
BUDGETS = ["10%", "30%"]


@pytest.mark.slow
@pytest.mark.parametrize("kmedoids", ["fasterpam", "alternate"])
def test_full_matrix_cells_are_the_methods_runs(kmedoids: KMedoidsMethod) -> None:
    cells = full_matrix_comparison(
        INSTANCE, budgets=BUDGETS, seeds=3, dims=(2, 3), sysrs_runs=50, epochs=100, kmedoids=kmedoids
    )
    assert [c.label for c in cells] == list(labels((2, 3))) * 2
    assert [c.budget_pct for c in cells] == ["10%"] * 6 + ["30%"] * 6
    by = {(c.label, c.budget_pct): c for c in cells}
    scores = np.asarray(INSTANCE.array)
    sysrs = simulate(INSTANCE, "sysrs", BUDGETS, 50, 0)
    for column, pct in enumerate(BUDGETS):
        k = anchors_for_budget(pct, *scores.shape)
        assert by["anchor", pct].correct == sum(
            INSTANCE.is_best(anchor_points(scores, k, seed=s, kmedoids_method=kmedoids).chosen) for s in range(3)
        )
        assert by["kmeans-correctness", pct].correct == sum(
            INSTANCE.is_best(kmeans_correctness(scores, k, seed=s).chosen) for s in range(3)
        )
        assert by["metabench", pct].runs == 1 and by["anchor", pct].runs == 3
        assert (by["sysrs", pct].correct, by["sysrs", pct].runs) == (sysrs.rows[column].correct, 50)
    again = full_matrix_comparison(
        INSTANCE, budgets=BUDGETS, seeds=3, dims=(2, 3), sysrs_runs=50, epochs=100, kmedoids=kmedoids
    )
    assert again == cells


def test_held_out_picks_the_best_of_the_other_half() -> None:
    """The anchor method's held-out picks recomputed by hand; a planted model right everywhere is found by the
    weighted-anchor methods whenever it is held out (its anchor scores are all 1, the others' far less)."""
    rng = np.random.default_rng(5)
    matrix = (rng.random((10, 80)) < 0.35).astype(float)
    matrix[3] = 1.0
    matrix[8] = (rng.random(80) < 0.7).astype(float)
    instance = Instance(matrix)
    cells = held_out_comparison(instance, budgets=["25%"], splits=4, dims=(2,), sysrs_runs=20, epochs=100)
    by = {c.label: c for c in cells}
    assert {c.runs for c in cells if c.label != "sysrs"} == {4} and by["sysrs"].runs == 80
    hand, planted = 0, 0
    for split in range(4):
        order = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(split,))).permutation(10)
        fitted, held = np.sort(order[:5]), np.sort(order[5:])
        result = anchor_points(matrix[fitted], 20, seed=split)
        estimates = matrix[held][:, list(result.anchors)] @ np.asarray(result.weights)
        chosen = int(np.argmax(estimates))
        hand += Instance(matrix[held]).is_best(chosen)
        if 3 in held:  # the planted model is held out: its anchor scores are all 1, so it is chosen
            planted += 1
            assert held[chosen] == 3
    assert by["anchor"].correct == hand >= planted >= 1
    assert by["kmeans-correctness"].correct >= planted
    assert 0 <= by["metabench"].correct <= 4


def test_refusals() -> None:
    with pytest.raises(ParameterError, match="at least 4 models"):
        held_out_comparison(irt_benchmark(3, 40, seed=1), budgets=["50%"], splits=1, dims=(2,), epochs=10)
    with pytest.raises(ParameterError, match="seeds must be a positive integer"):
        full_matrix_comparison(INSTANCE, seeds=0)
