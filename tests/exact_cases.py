"""Exact error probabilities by brute force, and the instances the exact tests and benchmarks share.

``exact_error`` enumerates every draw with itertools and runs the reference on each (used by
tests/reference/test_exact_small.py, tests/reference/test_exact_engine.py and tests/reference/test_theory_bounds.py). ``TWO`` and
``THREE`` are the tiny instances whose error probabilities are computed by hand in
tests/reference/test_exact_small.py. ``WORST`` and ``SLOWEST`` are the K = 4, L = 7 cases that maximise the exact
engines' work: tests/reference/test_exact_engine.py checks their size and law, benchmarks/test_exact_speed.py
times them.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from sysrs_ref import ALGORITHMS, Draw, Instance, drive


def exact_error(instance: Instance, algorithm: str, budget: int) -> Fraction:
    """P(chosen is not a best model) over uniform draws, by enumeration."""
    spec = ALGORITHMS[algorithm]
    n_models, n_queries = instance.shape
    one_order = list(itertools.permutations(range(n_queries)))
    all_orders = [(o,) for o in one_order] if spec.synchronized else list(itertools.product(one_order, repeat=n_models))
    priorities = list(itertools.permutations(range(n_models)))
    wrong = total = 0
    for orders in all_orders:
        for priority in priorities:
            out = drive(spec.start(budget, Draw(tuple(orders), priority)), instance)
            wrong += not instance.is_best(out.chosen)
            total += 1
    return Fraction(wrong, total)


TWO = Instance([[1, 1, 1, 0], [0, 1, 0, 1]])  # means 3/4 and 1/2; score differences d = (1, 0, 1, -1)

THREE = Instance([[1, 1, 0], [0, 1, 0], [1, 0, 0]])  # A = model 0 best (2/3), B, C at 1/3


COARSE = [Fraction(x) for x in ("0", "1/4", "1/3", "1/2", "2/3", "3/4", "1")]
_R = random.Random(3)
#: K = 4, L = 7 instances that maximise the engines' work (many distinct values / columns, or
#: many ties): distinct values, the same 7 values in each row, identical rows, binary rows.
WORST = {
    "distinct": Instance([[Fraction(_R.randrange(1000), 997) for _ in range(7)] for _ in range(4)]),
    "shuffled": Instance([_R.sample(COARSE, 7) for _ in range(4)]),
    "identical": Instance([COARSE] * 4),
    "binary": Instance([[_R.randrange(2) for _ in range(7)] for _ in range(4)]),
    "binary-identical": Instance([[1, 1, 1, 0, 0, 0, 1]] * 4),
}

#: The slowest (instance, budget) per algorithm, measured over every budget 4..28.
SLOWEST = [
    ("us", "distinct", 16),
    ("syus", "distinct", 16),
    ("sr", "shuffled", 19),
    ("sr", "identical", 19),
    ("sysrs", "identical", 18),
    ("syucbe", "binary", 26),
    ("syucbe", "identical", 28),
    ("ucbe", "binary-identical", 27),
]
