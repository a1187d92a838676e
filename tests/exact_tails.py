"""Exact tail probabilities by enumeration, for the Bernstein lemmas' tests (sampling without replacement)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from tests.strategies import Distribution


def mean_of_sum_at_least(population: list[Distribution], n: int, threshold: Fraction) -> Fraction:
    """P(sum of n draws >= threshold), sampling n distinct members (uniform subset), each drawn once."""
    subsets = list(itertools.combinations(range(len(population)), n))
    total = Fraction(0)
    for subset in subsets:
        for outcome in itertools.product(*(population[i] for i in subset)):
            weight = math.prod((p for _, p in outcome), start=Fraction(1))
            if sum((v for v, _ in outcome), Fraction(0)) >= threshold:
                total += weight
    return total / len(subsets)
