"""``select_subset`` and ``python -m sysrs_ref subset``: one name per method, the budget-to-anchors rule, the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sysrs_ref.cli import main
from sysrs_ref.errors import BudgetError, ParameterError
from sysrs_ref.subset.anchor import anchor_points
from sysrs_ref.subset.irt import fit_irt
from sysrs_ref.subset.kmeans_select import kmeans_correctness, kmeans_subset
from sysrs_ref.subset.methods import IRT_SEED, SUBSET_METHODS, anchors_for_budget, select_subset
from sysrs_ref.synthetic import irt_benchmark

SCORES = np.asarray(irt_benchmark(8, 60, seed=2).array)


@given(st.integers(2, 50), st.integers(1, 300), st.data())
def test_anchors_for_budget_is_floor_b_l(n_models: int, n_queries: int, data: st.DataObject) -> None:
    """n evaluations buy floor(n / K) anchors and p% buys floor(p L / 100): both floor(b L), exactly."""
    n = data.draw(st.integers(n_models, n_models * n_queries))
    assert anchors_for_budget(n, n_models, n_queries) == n // n_models
    hundredths = data.draw(st.integers(-(-10_000 // n_queries), 10_000))  # p = hundredths / 100 >= 100 / L
    text = f"{hundredths // 100}.{hundredths % 100:02d}%"
    assert anchors_for_budget(text, n_models, n_queries) == hundredths * n_queries // 10_000


@pytest.mark.parametrize(
    ("budget", "message"),
    [("0.1%", "buys k = 0"), (7, "buys k = 0"), ("x", "a percentage"), ("12.5", "or a percentage")],
)
def test_budgets_that_buy_no_anchor_are_refused(budget: int | str, message: str) -> None:
    with pytest.raises(BudgetError, match=message):
        anchors_for_budget(budget, 8, 60)


def test_a_refusal_counts_in_agreeing_words() -> None:
    with pytest.raises(BudgetError, match=r"^50% of L = 1 query buys k = 0 anchor questions"):
        anchors_for_budget("50%", 2, 1)
    with pytest.raises(BudgetError, match=r"^1 evaluation for K = 2 models buys k = 0 "):
        anchors_for_budget(1, 2, 1)


def test_select_subset_is_the_methods() -> None:
    """Each name runs its module with the same inputs (kmeans-irt on the fixed-seed IRT fit of dimension D)."""
    assert select_subset(SCORES, "anchor", 6, seed=3) == anchor_points(SCORES, 6, seed=3)
    assert select_subset(SCORES, "kmeans-correctness", 6, seed=3) == kmeans_correctness(SCORES, 6, seed=3)
    fit = fit_irt(SCORES, 3, epochs=200, seed=IRT_SEED)
    want = kmeans_subset(SCORES, fit.embeddings(), 6, seed=3, method="kmeans-irt")
    assert select_subset(SCORES, "kmeans-irt", 6, seed=3, dim=3, epochs=200) == want
    assert select_subset(SCORES, "kmeans-irt", 6, seed=3, dim=3, irt=fit) == want
    first = select_subset(SCORES, "metabench", 6, epochs=200)
    assert first == select_subset(SCORES, "metabench", 6, epochs=200, seed=99)  # deterministic: no clustering seed
    assert len(first.anchors) == 6 and len(first.estimates) == 8


def test_select_subset_refusals() -> None:
    with pytest.raises(ParameterError, match="unknown subset method 'knn'"):
        select_subset(SCORES, "knn", 3)
    with pytest.raises(ParameterError, match="anchor takes none"):
        select_subset(SCORES, "anchor", 3, dim=5)
    with pytest.raises(ParameterError, match="dim must be an integer of at least 2"):
        select_subset(SCORES, "kmeans-irt", 3, dim=1)
    with pytest.raises(ParameterError, match="not L x D = 60 x 5"):
        select_subset(SCORES, "kmeans-irt", 3, dim=5, irt=fit_irt(SCORES, 2, epochs=20))


@pytest.mark.slow
@pytest.mark.parametrize("method", SUBSET_METHODS)
def test_cli_json(method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.npy"
    np.save(path, SCORES)
    assert main(["subset", "--scores", str(path), "--method", method, "--budget", "10%", "--seed", "4", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert list(payload) == ["method", "k", "anchors", "weights", "estimates", "chosen"]
    assert payload["method"] == method and payload["k"] == 6 and len(payload["estimates"]) == 8
    assert abs(sum(payload["weights"]) - 1) < 1e-12
    assert payload["chosen"] == int(np.argmax(payload["estimates"]))
    if method != "metabench":  # the anchor and k-means estimates are the weighted anchor scores
        want = SCORES[:, payload["anchors"]] @ np.array(payload["weights"])
        assert np.allclose(payload["estimates"], want, atol=1e-12)
    assert main(["subset", "--scores", str(path), "--method", method, "--budget", "48", "--seed", "4"]) == 0
    assert "anchors: k = 6 of 60 queries (48 evaluations)" in capsys.readouterr().out


def test_cli_mistakes_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.npy"
    np.save(path, SCORES)
    for argv, message in (
        (["--method", "nope", "--budget", "10%"], "unknown subset method"),
        (["--method", "anchor", "--budget", "1%"], "buys k = 0"),
        (["--method", "anchor", "--dim", "5", "--budget", "10%"], "anchor takes none"),
    ):
        assert main(["subset", "--scores", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert main(["subset", "--scores", str(tmp_path / "missing.npy"), "--method", "anchor", "--budget", "10%"]) == 2
