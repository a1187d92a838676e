"""UCB-E's and SyUCB-E's contracts, checked on every input of a bounded domain (bounded-exhaustive).

The phase algorithms' contracts are proved by symbolic execution for every
real score matrix (:mod:`proofs_check.code_symbolic`, which reuses
:func:`contract_violation` below); UCB-E's exact index comparisons are
polynomial in the scores, too slow for that, so UCB-E and SyUCB-E are checked
here, on every run of the domain below (binary scores), against the contract
(docs/contracts.md), recomputed independently from the trace and the score
matrix (the checker covers every algorithm; the claim runs ALGORITHMS):

- pre: the budget is an integer in [K, K L] (the runs are only started there);
- spent <= n, and spent is the number of requests;
- every request is a (model, query) pair of the instance, asked once;
- each model's queries, in the order asked, are a prefix of its query order
  (the shared order for the synchronized algorithms);
- synchronized phase algorithms (syus, sysrs, sysar) ask every active model
  the same queries in each batch;
- the ranking is a permutation of the models and the chosen model is its first;
- ties go by the draw's priority: us, syus, ucbe, syucbe rank by exact mean,
  ties by priority; sr and sysrs eliminate, after each phase, the active model
  with the smallest sum, among equal sums the latest in the priority, and rank
  in reverse elimination order; sar and sysar accept the largest sum (ties:
  earliest in the priority) or reject the smallest (ties: latest).

This is not symbolic execution: it is the code run on each input of a stated
finite domain (``bounded-exhaustive``), exhaustive where the domain says
"every", seeded where it says so.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

from proofs_check.claim import Claim, Method, Outcome, Status
from sysrs_ref.algorithms import drive, get_algorithm
from sysrs_ref.algorithms.base import Outcome as RunOutcome
from sysrs_ref.draws import Draw

__all__ = ["ALGORITHMS", "CLAIMS", "DOMAIN", "check_contracts", "contract_violation", "domain"]

ALGORITHMS: tuple[tuple[str, int | None], ...] = (("ucbe", None), ("syucbe", None))
"""(algorithm, m for SAR/SySAR) of every checked variant; UCB-E with its default a (the others: symbolic)."""

SAMPLED = 6
"""Seeded (matrix, draw) pairs per (K, L) in the larger part of the domain, each at every budget."""
SEED = 36

DOMAIN = (
    "exhaustive: every binary K x L score matrix, every budget n in [K, K L] and every arm priority, for "
    "K L <= 6 (K = 2, L <= 3; K = 3, L <= 2), with the identity and the reversed shared order (synchronized) or "
    "the identity and the rotated per-model orders (unsynchronized); sampled: every K <= 4, L <= 5 and every budget with "
    f"{SAMPLED} seeded random binary matrices and draws (seed {SEED}); algorithms ucbe and syucbe (a = default)"
)


def _orders(n_models: int, n_queries: int, synchronized: bool) -> list[tuple[tuple[int, ...], ...]]:
    identity = tuple(range(n_queries))
    if synchronized:
        return [(identity,), (identity[::-1],)] if n_queries > 1 else [(identity,)]
    rotated = tuple(tuple(identity[i % n_queries :] + identity[: i % n_queries]) for i in range(n_models))
    return [(identity,) * n_models, rotated] if n_queries > 1 else [(identity,) * n_models]


def domain(synchronized: bool) -> Iterator[tuple[tuple[tuple[int, ...], ...], Draw, int]]:
    """(matrix, draw, budget) of every run of the domain, for one kind of draw."""
    for n_models, n_queries in ((2, 1), (2, 2), (2, 3), (3, 1), (3, 2)):
        cells = n_models * n_queries
        draws = [
            Draw(orders, priority)
            for priority in itertools.permutations(range(n_models))
            for orders in _orders(n_models, n_queries, synchronized)
        ]
        for bits in range(2**cells):
            matrix = tuple(tuple((bits >> (i * n_queries + j)) & 1 for j in range(n_queries)) for i in range(n_models))
            for draw in draws:
                for budget in range(n_models, cells + 1):
                    yield matrix, draw, budget
    rng = random.Random(SEED)
    for n_models in range(2, 5):
        for n_queries in range(1, 6):
            for _ in range(SAMPLED):
                matrix = tuple(tuple(rng.randint(0, 1) for _ in range(n_queries)) for _ in range(n_models))
                priority = list(range(n_models))
                rng.shuffle(priority)
                orders = [list(range(n_queries)) for _ in range(1 if synchronized else n_models)]
                for order in orders:
                    rng.shuffle(order)
                draw = Draw(tuple(tuple(o) for o in orders), tuple(priority))
                for budget in range(n_models, n_models * n_queries + 1):
                    yield matrix, draw, budget


def _oracle(matrix: Sequence[Sequence[int]]) -> Callable[[int, int], int]:
    """The scores as an oracle (cheaper than an Instance per matrix; the algorithms see the same ints)."""

    def score(model: int, query: int) -> int:
        return matrix[model][query]

    return score


Score = int | Fraction
"""A score of the checked runs: an int (binary matrices), an exact Fraction, or a symbolic one (a Fraction subclass)."""


def _sums(requests: Sequence[tuple[int, int]], matrix: Sequence[Sequence[Score]], n_models: int) -> list[Score]:
    sums: list[Score] = [0] * n_models
    for model, query in requests:
        sums[model] += matrix[model][query]
    return sums


def contract_violation(
    name: str, outcome: RunOutcome, matrix: Sequence[Sequence[Score]], draw: Draw, budget: int
) -> str | None:
    """The first contract the run breaks, in words, or None."""
    n_models, n_queries = draw.n_models, draw.n_queries
    requests = [(r.model, r.query) for r in outcome.requests]
    if outcome.spent != len(requests) or outcome.spent > budget:
        return f"spent {outcome.spent} with {len(requests)} requests, budget {budget}"
    if len(set(requests)) != len(requests):
        return "a (model, query) pair was asked twice"
    if any(not (0 <= m < n_models and 0 <= q < n_queries) for m, q in requests):
        return "a request outside the instance"
    asked: list[list[int]] = [[] for _ in range(n_models)]
    for model, query in requests:
        asked[model].append(query)
    for model in range(n_models):
        if tuple(asked[model]) != draw.order_of(model)[: len(asked[model])]:
            return f"model {model}'s queries {asked[model]} are not a prefix of its order {draw.order_of(model)}"
    if sorted(outcome.ranking) != list(range(n_models)) or outcome.chosen != outcome.ranking[0]:
        return f"ranking {outcome.ranking}, chosen {outcome.chosen}"
    if name in ("syus", "sysrs", "sysar"):
        for step in outcome.trace:
            per_model: dict[int, list[int]] = {}
            for request in step.requests:
                per_model.setdefault(request.model, []).append(request.query)
            if len({tuple(queries) for queries in per_model.values()}) > 1:
                return f"a synchronized batch asks models different queries: {per_model}"
    rank = draw.rank
    if name in ("us", "syus", "ucbe", "syucbe"):
        sums = _sums(requests, matrix, n_models)
        counts = [len(queries) for queries in asked]
        if min(counts) < 1:
            return f"a model was never evaluated: counts {counts}"
        expected = tuple(sorted(range(n_models), key=lambda i: (-sums[i] * Fraction(1, counts[i]), rank[i])))
        if outcome.ranking != expected:
            return f"ranking {outcome.ranking}, by exact mean then priority {expected}"
        return None
    active = list(range(n_models))
    done: list[tuple[int, int]] = []
    for step in outcome.trace:
        done += [(r.model, r.query) for r in step.requests]
        if name in ("sysrs", "sysar") and step.requests and sorted({r.model for r in step.requests}) != sorted(active):
            return f"a synchronized batch does not ask every active model: {step.requests}, active {active}"
        if step.eliminated is None:
            continue
        sums = _sums(done, matrix, n_models)
        if step.accepted:
            expected_leaver = min(active, key=lambda i: (-sums[i], rank[i]))
        else:
            expected_leaver = min(active, key=lambda i: (sums[i], -rank[i]))
        if step.eliminated != expected_leaver:
            kind = "accepted" if step.accepted else "removed"
            shown = ", ".join(str(total) for total in sums)
            return f"{kind} model {step.eliminated} with sums [{shown}] of active {active}; expected {expected_leaver}"
        active.remove(step.eliminated)
    if name in ("sr", "sysrs"):
        reverse = (*active, *reversed(outcome.eliminated))
        if outcome.ranking != reverse:
            return f"ranking {outcome.ranking}, reverse elimination order {reverse}"
    return None


def check_contracts(algorithms: Sequence[tuple[str, int | None]] = ALGORITHMS) -> Outcome:
    """Every run of the domain keeps its algorithm's contract."""
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    started = time.perf_counter()
    runs = 0
    for name, m in algorithms:
        spec = get_algorithm(name)
        params = spec.parse(dict(spec.defaults) | ({"m": m} if m is not None else {}))
        for matrix, draw, budget in domain(spec.synchronized):
            if m is not None and m >= draw.n_models:
                continue
            outcome = drive(spec.factory(budget, draw, params), _oracle(matrix))
            runs += 1
            problem = contract_violation(name, outcome, matrix, draw, budget)
            if problem is not None:
                where = f"{name}{'' if m is None else f' m={m}'}, scores {[list(r) for r in matrix]}, draw {draw}, n={budget}"
                return Outcome(
                    Status.FAILS,
                    Method.BOUNDED_EXHAUSTIVE,
                    f"A run breaks its contract. Counterexample: {where}: {problem}.",
                    counterexample=f"{where}: {problem}",
                    methods=methods,
                    domain=DOMAIN,
                )
    return Outcome(
        Status.HOLDS,
        Method.BOUNDED_EXHAUSTIVE,
        f"All {runs} runs ({time.perf_counter() - started:.1f} s) keep their contracts: spent <= n, fresh pairs, "
        "query orders followed, synchronized batches alike, ranking a permutation led by the chosen model, "
        "ties by the draw's priority. Bounded: nothing is claimed outside the domain (UCB-E-LRF is not covered; "
        "the other algorithms: code-contracts-symbolic).",
        methods=methods,
        domain=DOMAIN,
    )


CLAIMS = (
    Claim(
        "code-algorithm-contracts",
        "sysrs_ref/algorithms: ucbe, syucbe; docs/contracts.md",
        "every UCB-E and SyUCB-E run spends at most n, asks each (model, query) pair at most once along its query "
        "order, ranks a permutation led by the chosen model (by exact mean), and breaks ties by priority",
        Status.HOLDS,
        check_contracts,
        weight=2,
    ),
)
