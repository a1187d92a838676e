"""Exact error probabilities of SySRs (and SR) on tiny instances, by enumerating every draw.

Each pinned value is computed by hand in the test's docstring; the test
enumerates all (query order, arm priority) pairs with itertools, runs the
reference on each (tests/exact_cases.py's exact_error), and compares the exact Fraction.
"""

from __future__ import annotations

from fractions import Fraction

from sysrs_ref import Instance
from tests.exact_cases import THREE, TWO, exact_error


def test_sysrs_two_models_one_query() -> None:
    """K = 2, logbar = 1, n = 4: n_1 = ceil(2/2) = 1, one shared query.

    d = -1 on query 3 (error), d = 0 on query 1 (error iff model 1 has priority,
    probability 1/2): P = 1/4 + 1/4 * 1/2 = 3/8.
    """
    assert exact_error(TWO, "sysrs", 4) == Fraction(3, 8)


def test_sysrs_two_models_two_queries() -> None:
    """n = 6: n_1 = 2. Pairs of queries (6 equally likely): sums of d are
    {0,1}: 1, {0,2}: 2, {0,3}: 0, {1,2}: 1, {1,3}: -1, {2,3}: 0.
    P = 1/6 + 1/2 * 2/6 = 1/3.
    """
    assert exact_error(TWO, "sysrs", 6) == Fraction(1, 3)
    assert exact_error(TWO, "sysrs", 5) == Fraction(1, 3)  # n_1 = ceil(3/2) = 2 as well


def test_sysrs_two_models_three_queries() -> None:
    """n = 7: n_1 = 3, one query left out: left out 0 -> sum 0 (tie), 1 -> 1, 2 -> 0 (tie), 3 -> 2.
    P = 1/2 * 2/4 = 1/4.
    """
    assert exact_error(TWO, "sysrs", 7) == Fraction(1, 4)


def test_full_budget_never_errs() -> None:
    assert exact_error(TWO, "sysrs", 8) == 0
    assert exact_error(TWO, "sr", 8) == 0


def test_sr_two_models_one_query_each() -> None:
    """SR, n = 4: each model on one query of its own. S_0 ~ Bernoulli(3/4), S_1 ~ Bernoulli(1/2),
    independent: P(S_0 < S_1) = 1/4 * 1/2 = 1/8; P(tie) = 3/8 + 1/8 = 1/2, lost half the time.
    P = 1/8 + 1/4 = 3/8.
    """
    assert exact_error(TWO, "sr", 4) == Fraction(3, 8)


def test_sysrs_three_models() -> None:
    """K = 3, L = 3, n = 6: logbar(3) = 4/3, U = ceil(3 * 3/4) = 3, n_1 = 1, n_2 = 2 (spend 5).

    Phase 1 on sigma_0, phase 2 adds sigma_1 (each ordered pair of queries 1/6).
    - sigma_0 = 0: scores (A, B, C) = (1, 0, 1), B out. A vs C on {0, sigma_1}: sigma_1 = 1
      gives 2 vs 1 (A wins), sigma_1 = 2 gives 1 vs 1 (tie, A loses w.p. 1/2). Error 1/4.
    - sigma_0 = 1: (1, 1, 0), C out; A vs B symmetric to the above. Error 1/4.
    - sigma_0 = 2: (0, 0, 0), the priority's last model goes: A w.p. 1/3 (error). Otherwise A
      meets the survivor X on {2, sigma_1} and ties with it for one of the two sigma_1, then
      loses w.p. 1/2: 2/3 * 1/2 * 1/2 = 1/6. Error 1/2.
    Total: 1/3 (1/4 + 1/4 + 1/2) = 1/3.
    """
    assert exact_error(THREE, "sysrs", 6) == Fraction(1, 3)
    assert exact_error(THREE, "sysrs", 9) == 0


def test_synchronization_helps_on_a_dominated_instance() -> None:
    """Model 1 is dominated point-wise by model 0 (theta = 1 in the paper's Section 4.2):
    SySRs can then only err through ties, SR also through unlucky independent queries.
    """
    dominated = Instance([[1, 1, 0, 1], [1, 0, 0, 1]])  # d = (0, 1, 0, 0)
    # SySRs n = 4: one shared query; d = 0 on 3 of 4 queries -> tie lost w.p. 1/2: 3/8.
    assert exact_error(dominated, "sysrs", 4) == Fraction(3, 8)
    # SR n = 4: S_0 ~ B(3/4), S_1 ~ B(1/2): 1/8 + 1/2 * 1/2 = 3/8 as well at n_1 = 1 ...
    assert exact_error(dominated, "sr", 4) == Fraction(3, 8)
    # ... but with 3 queries SySRs errs only when query 1 is left out and the tie is lost (1/8),
    # while SR also loses when model 0 draws its 0 and model 1 does not.
    assert exact_error(dominated, "sysrs", 7) == Fraction(1, 8)
    assert exact_error(dominated, "sr", 7) > Fraction(1, 8)
