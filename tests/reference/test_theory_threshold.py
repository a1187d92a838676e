"""Per-arm hardness, theta_i, theta* (Proposition thm:theta-star) and the Corollary's conditions."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings

from sysrs_ref import Instance, ParameterError
from sysrs_ref.theory import arm_hardness, hardness, theta_star, theta_star_numerator
from tests.strategies import matrices


def unique_best(rows: list[list[object]]) -> Instance:
    inst = Instance(rows)  # type: ignore[arg-type]
    assume(len(inst.best) == 1)
    return inst


@given(matrices(max_models=5, max_queries=7, kind="binary"))
def test_proposition_theta_above_threshold_implies_h3i_below_h2i(rows: list[list[object]]) -> None:
    """Proposition thm:theta-star, binary deterministic scores."""
    for arm in arm_hardness(unique_best(rows)):
        if arm.theta is not None and arm.theta_star is not None and arm.theta > arm.theta_star:
            assert arm.h3 is not None and arm.h2 is not None and arm.h3 < arm.h2


@given(matrices(max_models=5, max_queries=7, kind="binary"))
def test_for_binary_scores_the_threshold_is_exact(rows: list[list[object]]) -> None:
    """Converse probe, binary scores: Var(S) = mu (1 - mu) exactly, so the proof's two variance
    bounds are equalities and the chain is an equivalence: H_{3,i} < H_{2,i} iff theta_i > theta*,
    and H_{3,i} = H_{2,i} iff theta_i = theta*."""
    for arm in arm_hardness(unique_best(rows)):
        if arm.theta is None or arm.theta_star is None:
            continue
        assert arm.h3 is not None and arm.h2 is not None
        assert (arm.h3 < arm.h2) == (arm.theta > arm.theta_star)
        assert (arm.h3 == arm.h2) == (arm.theta == arm.theta_star)


def test_for_continuous_scores_the_converse_fails() -> None:
    """Converse probe, non-binary scores: constant rows 0.6 and 0.5 are uncorrelated (theta = 0),
    theta*(0.6, 0.1) = (2/150) / (1/5) = 1/15 > 0, yet H_{3,i} = (2/3 * 1.1 * 0.1) / 0.01 = 22/3 < 100 = H_{2,i}.
    The threshold is sufficient, not necessary, once variances are below mu (1 - mu)."""
    inst = Instance([[Fraction(3, 5)] * 3, [Fraction(1, 2)] * 3])
    (arm,) = arm_hardness(inst)
    assert arm.theta == 0 and arm.theta_star == Fraction(1, 15)
    assert arm.h3 == Fraction(22, 3) and arm.h2 == 100
    assert arm.h3 < arm.h2 and not arm.theta > arm.theta_star


# Every arm's correlation must be non-negative (the Corollary's scope), which random binary matrices of
# five models often miss: most draws are filtered out, by design, so the filter health check is off.
@settings(suppress_health_check=[HealthCheck.filter_too_much])
@given(matrices(max_models=4, max_queries=7, kind="binary"))
def test_corollary_conditions_imply_h3_below_h2_when_correlation_is_not_negative(rows: list[list[object]]) -> None:
    """Corollary cor:sufficient_conditions, in its stated scope theta_i in [0, 1]."""
    inst = unique_best(rows)
    arms = arm_hardness(inst)
    assume(all(arm.theta is None or arm.theta >= 0 for arm in arms))
    if all(arm.condition_correlation or arm.condition_gap for arm in arms):
        h = hardness(inst)
        assert h.h3 is not None and h.h2 is not None and h.h3 < h.h2


def test_corollary_needs_non_negative_correlation() -> None:
    """The Corollary as stated has no theta_i >= 0 hypothesis (only the text before it does), and
    fails without it: best (1,1,0,1,1,1), mu* = 5/6; other (1,1,1,0,1,0), Delta = 1/6.
    Condition 2 holds (1/6 < 3/2 * 5/6 - 1 = 1/4), but Cov = 1/2 - 5/9 = -1/18, theta = -1/2 below
    theta*(5/6, 1/6) = -1/3, and H3 = 2 * (2 V + 2/3 * 7/6 * 1/6) * 36 = 232/3 > H2 = 2 * 36 = 72.
    """
    inst = Instance([[1, 1, 0, 1, 1, 1], [1, 1, 1, 0, 1, 0]])
    (arm,) = arm_hardness(inst)
    assert (arm.delta, arm.theta, arm.theta_star) == (Fraction(1, 6), Fraction(-1, 2), Fraction(-1, 3))
    assert arm.condition_gap and not arm.condition_correlation
    h = hardness(inst)
    assert (h.h3, h.h2) == (Fraction(232, 3), Fraction(72))


def test_corollary_is_only_sufficient() -> None:
    """H3 < H2 although neither condition of the Corollary holds, so it is not necessary.

    L = 40: the best model solves queries 0..19 (mu* = 1/2), the other 16 queries, 9 of them
    shared (mu_i = 2/5, Delta = 1/10). Cov = 9/40 - 1/5 = 1/40, Cov_max = 2/5 * 1/2 = 1/5, so
    theta = 1/8; theta*(1/2, 1/10) = (1/75) / (1/5) = 1/15. Then theta* < theta <= 2 Delta = 1/5 and
    Delta >= 3/2 mu* - 1 = -1/4: neither condition, yet theta > theta* gives H_{3,i} < H_{2,i}.
    (Among 2 x L binary matrices with L <= 6 no such instance exists: theta is too coarse there.)
    """
    best = [1] * 20 + [0] * 20
    other = [1] * 9 + [0] * 11 + [1] * 7 + [0] * 13
    inst = Instance([best, other])
    (arm,) = arm_hardness(inst)
    assert (arm.delta, arm.cov, arm.theta, arm.theta_star) == (
        Fraction(1, 10),
        Fraction(1, 40),
        Fraction(1, 8),
        Fraction(1, 15),
    )
    assert not arm.condition_correlation and not arm.condition_gap
    h = hardness(inst)
    assert h.h3 is not None and h.h2 is not None and h.h3 < h.h2


def test_theta_star_closed_form() -> None:
    """N(mu*, Delta) by hand at mu* = 3/4, Delta = 1/4: -1/48 + 3/16 - 1/12 - 9/16 + 3/4 - 1/4 = 1/48."""
    assert theta_star_numerator(Fraction(3, 4), Fraction(1, 4)) == Fraction(1, 48)
    assert theta_star(Fraction(3, 4), Fraction(1, 4)) == Fraction(1, 48) / Fraction(1, 8)
    with pytest.raises(ParameterError, match="0 <= Delta <= mu\\* <= 1"):
        theta_star(Fraction(1, 4), Fraction(1, 2))


def test_degenerate_normalisation_gives_undefined_theta() -> None:
    """mu* = 1 (best row all ones) or mu_i = 0 (all zeros): Cov_max = 0 and theta is 0/0 (None);
    H_{3,i} is still defined."""
    arms = arm_hardness(Instance([[1, 1, 1, 1], [1, 0, 1, 0], [0, 0, 0, 0]]))
    assert [arm.theta for arm in arms] == [None, None]
    assert [arm.theta_star for arm in arms] == [None, None]
    assert all(arm.h3 is not None for arm in arms)
    assert not any(arm.condition_correlation for arm in arms)
    with pytest.raises(ParameterError, match="tied"):
        arm_hardness(Instance([[1, 0], [0, 1]]))


@given(matrices(max_models=4, max_queries=6, kind="coarse"))
def test_v_star_is_the_variance_of_the_difference(rows: list[list[object]]) -> None:
    """V_{*,i} = Var(S_* - S_i) computed directly, and = Var* + V_i - 2 Cov (eq. variance)."""
    inst = unique_best(rows)
    (best,) = inst.best
    for arm in arm_hardness(inst):
        diffs = [x - y for x, y in zip(inst.row(best), inst.row(arm.model), strict=True)]
        mean = sum(diffs, Fraction(0)) / len(diffs)
        assert arm.v_star == sum(((d - mean) ** 2 for d in diffs), Fraction(0)) / len(diffs)
        assert arm.v_star == arm.var_best + arm.var - 2 * arm.cov
        assert arm.theta is None or arm.theta <= 1  # Cov <= mu_i (1 - mu*) for [0, 1] scores


@given(matrices(max_models=3, max_queries=4, kind="coarse"))
def test_bernoulli_variance_is_joint_over_queries_and_scores(rows: list[list[object]]) -> None:
    """Bernoulli p_ij: enumerate J and every outcome of the two cells; compare Var(S_* - S_i)."""
    inst = unique_best(rows)
    (best,) = inst.best
    n_queries = inst.n_queries
    for arm in arm_hardness(inst, bernoulli=True):
        outcomes = []
        for j in range(n_queries):
            p, q = inst(best, j), inst(arm.model, j)
            for x, y in itertools.product([0, 1], repeat=2):
                weight = (p if x else 1 - p) * (q if y else 1 - q) / n_queries
                outcomes.append((x - y, weight))
        mean = sum((d * w for d, w in outcomes), Fraction(0))
        assert arm.v_star == sum(((d - mean) ** 2 * w for d, w in outcomes), Fraction(0))
        assert arm.var == inst.means[arm.model] * (1 - inst.means[arm.model])


@given(matrices(max_models=4, max_queries=5, kind="binary"))
def test_bernoulli_with_zero_one_probabilities_is_deterministic(rows: list[list[object]]) -> None:
    inst = Instance(rows)  # type: ignore[arg-type]
    assert hardness(inst, bernoulli=True) == hardness(inst)
