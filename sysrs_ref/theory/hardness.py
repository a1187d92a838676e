"""Hardness measures H1, H2 (Audibert et al. 2010), H3 (eq. H3, H3k) and H3' of a score matrix.

Definitions (section "Guarantees for Classical Best-Arm Identification" and
section "Guarantees for SySRs"), with models sorted so that
mu_(1) >= mu_(2) >= ... >= mu_(K), mu* = mu_(1), J uniform on the L queries:

- Delta_i = mu* - mu_(i) for i >= 2, and Delta_1 = Delta_2;
- H1 = sum_{i=1}^{K} 1 / Delta_i^2,   H2 = max_{i>=2} i / Delta_i^2;
- V_{*,i} = Var(S_{i* J} - S_{(i) J})  (population variance over J);
- H_{3,i} = (2 V_{*,i} + 2/3 (1 + Delta_i) Delta_i) / Delta_i^2,  H3 = max_{i>=2} i H_{3,i};
- H'_{3,i} = (2 Var(S_{i* J}) + 2 Var(S_{(i) J}) + 2/3 (1 + Delta_i) Delta_i) / Delta_i^2,
  H3' = max_{i>=2} i H'_{3,i}.

Conventions, where the paper is silent:

- Everything is exact (Fractions); floats only for display.
- If the best mean is tied (Delta_2 = 0), every measure is infinite and is
  reported as ``None``: no finite budget bound holds for telling tied models apart.
- Models with equal means can be listed in any order in "(i)", and H3 and
  H3' depend on it (H_{3,i} differs between tied models). The proof of
  Theorem csr_bound holds for every such order, so we take the order that
  gives the smallest (tightest) value: within a group of tied models, larger
  H_{3,i} first (an exchange argument shows this minimises max_i i H_{3,i}).
  H3' is ordered the same way by its own H'_{3,i}. The paper's dataset table
  instead lists tied models in the row order of its data files; where ties
  matter this gives a larger value (arc_challenge: H3 = 3457.4 in the paper and
  with row order, 3445.7 here).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sysrs_ref.instance import Instance

__all__ = ["Hardness", "hardness"]


@dataclass(frozen=True)
class Hardness:
    """The hardness of one instance; ``None`` stands for an infinite measure (tied best models)."""

    n_models: int
    n_queries: int
    best_mean: Fraction
    """mu*, the best model's mean score (the dataset table's "Best Acc")."""
    mean: Fraction
    """The mean of all K*L scores (the dataset table's "Mean Acc")."""
    deltas: tuple[Fraction, ...]
    """(Delta_1, ..., Delta_K) in sorted order, Delta_1 = Delta_2."""
    h1: Fraction | None
    h2: Fraction | None
    h3: Fraction | None
    h3_prime: Fraction | None

    @property
    def delta2(self) -> Fraction:
        """Delta_2, the gap between the best and the second-best mean."""
        return self.deltas[1]


def _variance(numerators: tuple[int, ...], denominator: int) -> Fraction:
    """Population variance of the values numerators[j] / denominator."""
    count = len(numerators)
    total = sum(numerators)
    squares = sum(x * x for x in numerators)
    return Fraction(count * squares - total * total, count * count * denominator * denominator)


def _ordered_max(groups: list[list[Fraction]]) -> Fraction:
    """max over positions i = 2, 3, ... of i * h, each group listed by decreasing h."""
    best = Fraction(0)
    position = 2
    for group in groups:
        for h in sorted(group, reverse=True):
            best = max(best, position * h)
            position += 1
    return best


def hardness(instance: Instance) -> Hardness:
    """Compute Delta_i, H1, H2, H3 and H3' of *instance* exactly.

    >>> h = hardness(Instance([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]))
    >>> h.delta2, h.h1, h.h2
    (Fraction(1, 4), Fraction(36, 1), Fraction(32, 1))
    >>> h.h3, h.h3_prime
    (Fraction(56, 3), Fraction(104, 3))
    """
    n_models, n_queries = instance.shape
    tiers = instance.tiers
    best_mean = instance.best_mean
    mean = sum(instance.means, Fraction(0)) / n_models
    suboptimal_tiers = tiers[1:] if len(tiers[0]) == 1 else tiers
    # Delta in sorted order: the first tier's other members have Delta = 0.
    gaps = [best_mean - instance.means[model] for tier in tiers for model in tier]
    deltas = (gaps[1], *gaps[1:])
    if deltas[1] == 0:
        return Hardness(n_models, n_queries, best_mean, mean, deltas, None, None, None, None)

    h1 = sum((1 / delta**2 for delta in deltas), Fraction(0))
    h2 = max(i / deltas[i - 1] ** 2 for i in range(2, n_models + 1))

    (best,) = tiers[0]
    top = instance.numerators[best]
    denominator = instance.denominator
    var_best = _variance(top, denominator)
    h3_groups: list[list[Fraction]] = []
    h3p_groups: list[list[Fraction]] = []
    for tier in suboptimal_tiers:
        delta = best_mean - instance.means[tier[0]]
        bonus = Fraction(2, 3) * (1 + delta) * delta
        h3_group, h3p_group = [], []
        for model in tier:
            row = instance.numerators[model]
            v_diff = _variance(tuple(x - y for x, y in zip(top, row)), denominator)
            v_model = _variance(row, denominator)
            h3_group.append((2 * v_diff + bonus) / delta**2)
            h3p_group.append((2 * var_best + 2 * v_model + bonus) / delta**2)
        h3_groups.append(h3_group)
        h3p_groups.append(h3p_group)
    return Hardness(
        n_models,
        n_queries,
        best_mean,
        mean,
        deltas,
        h1,
        h2,
        _ordered_max(h3_groups),
        _ordered_max(h3p_groups),
    )
