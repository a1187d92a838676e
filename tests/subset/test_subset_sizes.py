"""Every public subset function checks its sizes itself, with the message the command line prints."""

from __future__ import annotations

import numpy as np
import pytest

from sysrs_ref._limits import TIME_LIMIT_VARIABLE
from sysrs_ref.errors import TooLargeError
from sysrs_ref.subset.anchor import anchor_points, question_correlations
from sysrs_ref.subset.clustering import kmeans, kmedoids
from sysrs_ref.subset.irt import fit_irt
from sysrs_ref.subset.kmeans_select import kmeans_correctness
from sysrs_ref.subset.methods import select_subset


def _message(call: object) -> str:
    assert callable(call)
    with pytest.raises(TooLargeError) as caught:
        call()
    return str(caught.value)


def test_anchor_refuses_a_million_questions_before_it_allocates() -> None:
    """Called directly, anchor_points and question_correlations say what select_subset (and the CLI) says."""
    scores = np.zeros((2, 1_000_000))
    said = _message(lambda: select_subset(scores, "anchor", 10))
    assert said.startswith("anchor on 2 models x 1000000 queries would need 21.8 TiB of memory")
    assert _message(lambda: anchor_points(scores, 10, seed=0)) == said
    assert _message(lambda: question_correlations(scores)).startswith(said.split(" (")[0])


def test_kmeans_correctness_refuses_beyond_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """100 x 1000 with k = 500: 2e-8 * 2 * 500 * 100 * 1000 s = 2 s estimated, above a limit of 1.5 s."""
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "1.5")
    scores = np.zeros((100, 1000))
    said = _message(lambda: select_subset(scores, "kmeans-correctness", 500))
    assert said.startswith("kmeans-correctness with k = 500 on 100 models x 1000 queries would take about 2 seconds")
    assert _message(lambda: kmeans_correctness(scores, 500, seed=0)) == said


def test_fit_irt_refuses_a_huge_dimension_or_epoch_count() -> None:
    scores = np.tile([[1.0, 0.0], [0.0, 1.0]], (2, 10))
    assert _message(lambda: fit_irt(scores, 10**9)).startswith(
        "an IRT fit (D = 1,000,000,000, 2,000 epochs) on 4 models x 20 queries would need"
    )
    assert "would take about" in _message(lambda: fit_irt(scores, epochs=10**15))


def test_kmeans_and_kmedoids_refuse_from_the_sizes_of_the_arrays_they_are_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Called directly, on arrays the caller made: refused before the copy, the checks and the first pass.

    k-means: 2e-9 * 20,000 x 60 x 1,000 s = 2.4 s of k-means++ and one assignment; k-medoids: 1e-8 * 11,000^2 s = 1.2 s for FasterPAM's first pass (zeros: no page is touched).
    Both above a limit of 1 second.
    """
    monkeypatch.setenv(TIME_LIMIT_VARIABLE, "1")
    points = np.random.default_rng(0).random((20_000, 60))
    assert _message(lambda: kmeans(points, 1_000, seed=0, max_iter=1)).startswith(
        "k-means of 20,000 points in 60 dimensions into k = 1,000 clusters would take about 2 seconds"
    )
    distances = np.zeros((11_000, 11_000))
    assert _message(lambda: kmedoids(distances, 10, seed=0)).startswith(
        "k-medoids (fasterpam) of 11,000 points into k = 10 medoids would take about 1 second"
    )
    assert len(kmedoids(distances[:3, :3], 2, seed=0).medoids) == 2  # within the limit: it runs
