"""Theorem csr_bound and its proof (Appendix "Proof of Theorem csr_bound"), eq. (budget-schedule)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import sympy as sp

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.common import fails, holds, is_identity, parse, sym
from sysrs_ref.schedule import logbar, paper_schedule, schedule_spend

__all__ = ["CLAIMS", "check_budget", "check_phase_exponent", "check_union_count"]

SEED = 11


def check_union_count(count: str = "K*(K-1)/2") -> Outcome:
    """eq. (en-union) to the final bound: sum_{k=1}^{K-1} sum_{i=K+1-k}^{K} 1 = K(K-1)/2.

    sympy evaluates the double sum for symbolic K; cross-checked by listing the
    (phase, arm) pairs for K = 2..30, where also every arm index is >= 2.
    """
    kk, k, i = sym("K"), sym("k"), sym("i")
    total = sp.summation(sp.summation(1, (i, kk + 1 - k, kk)), (k, 1, kk - 1))
    claimed = parse(count)
    for value in range(2, 31):
        pairs = [(p, a) for p in range(1, value) for a in range(value + 1 - p, value + 1)]
        assert all(a >= 2 for _, a in pairs)
        if len(pairs) != claimed.subs(kk, value):
            return fails(
                Method.PROVED,
                f"The union bound has sum_k k = {sp.factor(total)} terms.",
                f"K={value}: {len(pairs)} terms, {count} = {claimed.subs(kk, value)}",
            )
    if not is_identity(total, claimed):
        return fails(Method.PROVED, "Count differs.", f"symbolic count {total}")
    return holds(
        Method.PROVED,
        f"sympy: the double sum is {sp.factor(total)}; every arm index i >= K+1-k >= 2 (listed for K = 2..30).",
    )


def _grid(seed: int) -> list[tuple[int, int, list[Fraction]]]:
    """(K, n, [H_{3,2}, ..., H_{3,K}]) with exact random positive H_{3,i}."""
    rng = random.Random(seed)
    out = []
    for kk in range(2, 11):
        for n in [kk, kk + 1, kk + 7, 50, 123, 1000, 4321, rng.randint(kk, 10**5)]:
            if n < kk:
                continue
            for _ in range(3):
                h = [Fraction(rng.randint(1, 10**4), rng.randint(1, 100)) for _ in range(kk - 1)]
                out.append((kk, n, h))
    return out


def check_phase_exponent(first_arm_offset: int = 1, numerator: str = "n - K") -> Outcome:
    """Proof of Theorem csr_bound: n_k / H_{3,i} >= (n-K)/(logbar(K) H3) for every i >= K + offset - k.

    Paper: offset 1, numerator n - K. Symbolically: n_k >= (n-K)/(logbar (K+1-k))
    and H_{3,i} <= H3/i give n_k/H_{3,i} >= (n-K) i/(logbar (K+1-k) H3); with
    n = K + m, i = K + offset - k + t (m, t >= 0) the difference to the claim
    factors into non-negative factors. Cross-checked exactly with
    ``paper_schedule`` and random H_{3,i} (H3 = max_i i H_{3,i}).
    """
    kk, k, n, lb, h3, m, t = (sym(name) for name in ("K", "k", "n", "lb", "H3", "m", "t"))
    lower = (n - kk) / (lb * (kk + 1 - k)) * (kk + first_arm_offset - k + t) / h3
    claimed = parse(numerator) / (lb * h3)
    difference = sp.factor(sp.together((lower - claimed).subs(n, kk + m)))
    # 1 <= k <= K-1: write K = k + 1 + q with q >= 0 so K + 1 - k = q + 2 > 0.
    q = sp.Symbol("q", nonnegative=True)
    difference = sp.factor(difference.subs(kk, k + 1 + q))
    proved = bool(difference.is_nonnegative)
    bound = parse(numerator)
    for value, budget, h in _grid(SEED):
        lengths = paper_schedule(value, budget)
        h3_value = max(i * h[i - 2] for i in range(2, value + 1))
        right = Fraction(str(bound.subs({kk: value, n: budget}))) / (logbar(value) * h3_value)
        for phase in range(1, value):
            for arm in range(max(2, value + first_arm_offset - phase), value + 1):
                left = lengths[phase - 1] / h[arm - 2]
                if left < right:
                    return fails(
                        Method.CHECKED,
                        f"n_k / H_{{3,i}} >= ({numerator})/(logbar(K) H3) is false.",
                        f"K={value}, n={budget}, k={phase}, i={arm}, H_3i={[str(x) for x in h]}: {left} < {right}",
                    )
    if proved:
        return holds(
            Method.PROVED,
            f"Difference of the two lower bounds = {difference} >= 0 "
            "(m = n-K >= 0, t = i-(K+1-k) >= 0, q = K-1-k >= 0); exact cross-check "
            f"with paper_schedule on {len(_grid(SEED))} (K, n, H_3i) cases.",
        )
    return holds(Method.CHECKED, f"Not proved symbolically; exact check on {len(_grid(SEED))} cases.")


def _schedule(n_models: int, budget: int, offset: Fraction) -> tuple[int, ...]:
    """The schedule with logbar replaced by offset + sum_{i=2}^K 1/i (paper: offset 1/2)."""
    if offset == Fraction(1, 2):
        return paper_schedule(n_models, budget)
    lb = logbar(n_models) - Fraction(1, 2) + offset
    return tuple(math.ceil(Fraction(budget - n_models) / (lb * (n_models + 1 - k))) for k in range(1, n_models))


def check_budget(logbar_offset: Fraction = Fraction(1, 2)) -> Outcome:
    """Section SySRs ("the total budget spent does not exceed n"), eq. (budget-schedule).

    Spend = sum_{k<K-1} n_k + 2 n_{K-1} (``schedule_spend``). Proof: ceil(x) < x + 1,
    so spend < K + (n-K)/logbar(K) * (sum_{k=1}^{K-1} 1/(K+1-k) + 1/2), and the
    identity sum_{k=1}^{K-1} 1/(K+1-k) + 1/2 = logbar(K) (sympy, symbolic K,
    via the index change i = K+1-k) makes this K + (n-K) = n. Checked exactly
    for K = 2..25 and n = K..K+300 plus seeded larger budgets.
    """
    kk, k, i = sym("K"), sym("k"), sym("i")
    reindexed = sp.Sum(1 / (kk + 1 - k), (k, 1, kk - 1)).change_index(k, kk + 1 - k, i).doit()
    claimed_lb = sp.Rational(logbar_offset.numerator, logbar_offset.denominator) + sp.summation(1 / i, (i, 2, kk))
    identity = is_identity(reindexed + sp.Rational(1, 2), claimed_lb)
    rng = random.Random(SEED)
    for n_models in range(2, 26):
        budgets = list(range(n_models, n_models + 301)) + [rng.randint(n_models, 10**6) for _ in range(20)]
        for budget in budgets:
            lengths = _schedule(n_models, budget, logbar_offset)
            spend = schedule_spend(lengths)
            if spend > budget:
                return fails(
                    Method.CHECKED,
                    "The schedule overspends.",
                    f"K={n_models}, n={budget}: n_k={lengths}, spend={spend} > n",
                )
    if identity:
        return holds(
            Method.PROVED,
            "sum_{k=1}^{K-1} 1/(K+1-k) + 1/2 = logbar(K) (sympy) and "
            "ceil(x) < x + 1 give spend <= n; exact check with paper_schedule and "
            "schedule_spend for K = 2..25, n = K..K+300 and 20 random n per K.",
        )
    return holds(Method.CHECKED, "The identity fails, but no overspend on the grid.")


def _claims() -> tuple[Claim, ...]:
    proof = "Theorem csr_bound, proof"
    return (
        Claim(
            "csr-union-count",
            f"{proof}, eq. (en-union) and last display",
            "sum_{k=1}^{K-1} |{K+1-k, ..., K}| = K(K-1)/2",
            Status.HOLDS,
            lambda: check_union_count(),
        ),
        Claim(
            "csr-phase-exponent",
            f"{proof}, n_k/H_3i >= (n-K)/(logbar(K) H3)",
            "n_k / H_{3,i} >= (n-K)/(logbar(K) H3) for i >= K+1-k",
            Status.HOLDS,
            lambda: check_phase_exponent(),
        ),
        Claim(
            "csr-budget",
            "Section SySRs / eq. (budget-schedule): total spend",
            "sum_{k<K-1} n_k + 2 n_{K-1} <= n",
            Status.HOLDS,
            lambda: check_budget(),
        ),
    )


CLAIMS = _claims()
