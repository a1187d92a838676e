"""An independent, deliberately naive restatement of the eight algorithms, for cross-checking.

Written from the paper and docs/contracts.md, not from the package: no generators,
scores read straight from the matrix, UCB indices compared with sympy, the
schedule's capping found by scanning levels one by one. It shares nothing with
the package but the Draw data class.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from sysrs_ref import Draw


def naive_logbar(k: int) -> Fraction:
    return Fraction(1, 2) + sum(Fraction(1, i) for i in range(2, k + 1))


def naive_schedule(k: int, l: int, n: int) -> list[int]:
    paper = [math.ceil((n - k) / (naive_logbar(k) * (k + 1 - p))) for p in range(1, k)]
    if paper[-1] <= l and n < k * l:
        return paper

    def at(level: int) -> list[int]:
        return [min(l, math.ceil(Fraction(level, k + 1 - p))) for p in range(1, k)]

    def spend(sched: list[int]) -> int:
        return sum(sched[:-1]) + 2 * sched[-1]

    level = math.ceil((n - k) / naive_logbar(k))
    while level < k * l and spend(at(level + 1)) <= n:
        level += 1
    return at(level)


def _order(draw: Draw, model: int) -> tuple[int, ...]:
    return draw.query_orders[0] if len(draw.query_orders) == 1 else draw.query_orders[model]


def _prio(draw: Draw, model: int) -> int:
    return list(draw.arm_priority).index(model)


def naive_run(
    rows: tuple[tuple[Fraction, ...], ...],
    name: str,
    n: int,
    draw: Draw,
    a: Fraction = Fraction(1),
    m: int = 1,
) -> tuple[int, tuple[int, ...], int, list[tuple[int, int]]]:
    """(chosen, ranking, spent, requests) of algorithm *name*."""
    k, l = len(rows), len(rows[0])
    requests: list[tuple[int, int]] = []
    seen = [0] * k
    total = [Fraction(0)] * k

    def evaluate(model: int) -> None:
        query = _order(draw, model)[seen[model]]
        requests.append((model, query))
        total[model] += rows[model][query]
        seen[model] += 1

    def by_mean(models: list[int]) -> tuple[int, ...]:
        return tuple(sorted(models, key=lambda i: (-total[i] / seen[i], _prio(draw, i))))

    if name in ("us", "syus"):
        for model in range(k):
            for _ in range(n // k):
                evaluate(model)
        ranking = by_mean(list(range(k)))
    elif name in ("sr", "sysrs"):
        active = list(range(k))
        out: list[int] = []
        for n_k in naive_schedule(k, l, n):
            for model in active:
                while seen[model] < n_k:
                    evaluate(model)
            # lowest sum; among equal sums, the one latest in the priority
            worst = max(active, key=lambda i: (-total[i], _prio(draw, i)))
            active.remove(worst)
            out.append(worst)
        ranking = (active[0], *reversed(out))
    elif name in ("sar", "sysar"):
        # Bubeck et al. 2013, SAR, read literally: every active arm gets an empirical gap, the arm
        # with the largest gap is deactivated. Ties: a reject beats an accept; among rejects the
        # later in the empirical order, among accepts the earlier.
        active = list(range(k))
        accepted: list[int] = []
        rejected: list[int] = []
        for n_k in naive_schedule(k, l, n):
            for model in active:
                while seen[model] < n_k:
                    evaluate(model)
            sigma = sorted(active, key=lambda i: (-total[i], _prio(draw, i)))
            left = m - len(accepted)
            candidates = []
            for r, arm in enumerate(sigma, start=1):
                if r <= left:
                    # with no arm left to compare against, every active arm must be accepted
                    gap = total[arm] - total[sigma[left]] if left < len(sigma) else Fraction(10**9)
                    candidates.append((gap, 0, -r, arm, True))
                else:
                    gap = total[sigma[left - 1]] - total[arm] if left > 0 else Fraction(10**9)
                    candidates.append((gap, 1, r, arm, False))
            _, _, _, arm, accept = max(candidates)
            (accepted if accept else rejected).append(arm)
            active.remove(arm)
        ranking = (*accepted, active[0], *reversed(rejected))
    else:
        for model in range(k):
            evaluate(model)
        for _ in range(n - k):
            open_models = [i for i in range(k) if seen[i] < l]
            if not open_models:
                break

            def index(i: int) -> sympy.Expr:
                return sympy.Rational(total[i] / seen[i]) + sympy.sqrt(sympy.Rational(a) / seen[i])

            best = open_models[0]
            for i in open_models[1:]:
                difference = index(i) - index(best)
                if difference.is_zero:
                    if _prio(draw, i) < _prio(draw, best):
                        best = i
                elif difference.is_positive:
                    best = i
            evaluate(best)
        ranking = by_mean(list(range(k)))
    return ranking[0], ranking, len(requests), requests
