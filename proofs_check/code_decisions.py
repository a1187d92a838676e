"""The algorithms' decisions, checked at every step against their declarative rules (symbolic and exhaustive).

The contract claims check bookkeeping (spend, fresh pairs, orders followed);
these claims check *decisions*: at every step of a run of the real step
generator (``sysrs_ref/algorithms``), the batch it asks for and the model it
eliminates, accepts, rejects or evaluates next must be the one the rule of
:mod:`proofs_check.decision_rules` names, given the exact means, counts,
active models and arm priority at that step; and the final ranking must be
the rule's. Every decision of every step is compared, not only the result.

:func:`decision_problem` runs one variant on one score matrix, draw and
budget, recording each batch the generator yields, and replays the rules
beside it:

- US, SyUS: one batch, every model on the first q positions of its order
  (q = :func:`~proofs_check.decision_rules.uniform_allocation`), model-major;
  ranking :func:`~proofs_check.decision_rules.ranked_by_mean`;
- SR, SySRs, SAR, SySAR: K - 1 phases of the schedule (``sysrs_ref.schedule``,
  proved by the ``code-schedule-*`` claims); phase k asks every active model,
  in increasing index, on positions n_{k-1} .. n_k - 1 of its order (no batch
  when there are none), then the model leaving is
  :func:`~proofs_check.decision_rules.eliminated` (SR, SySRs) or
  :func:`~proofs_check.decision_rules.sar_leaver` (SAR, SySAR, accepted or
  rejected as the rule says); the ranking is the reverse elimination order
  (SR) or the accepted, the model left, then the rejected, last first (SAR);
- UCB-E, SyUCB-E: a warm-up batch (every model on position 0), then n - K
  batches of one request, each the model
  :func:`~proofs_check.decision_rules.ucb_choice_problem` accepts, on its
  next position; indices compared by
  :func:`~proofs_check.decision_rules.exact_index_sign` (its own exact
  argument, not the reference's ``compare_indices``); ranking by exact mean.

Each family is one claim with two methods:

- ``symbolic``: the scores are z3 reals in [0, 1] (the exploration of
  :mod:`proofs_check.code_symbolic`, two draws per (K, L) and the
  relabelling argument for the others), so the decisions are the rules' for
  **every** real score matrix of the symbolic domain. For UCB-E each
  sqrt(a / N) is the abstraction of :mod:`proofs_check.code_ucb_symbolic`: a
  real b_N in a rational interval around it, shared by the code's
  comparisons and the rule's, so on every path both compare the same
  numbers; a real run is one of the paths (``code-ucb-contracts-symbolic``
  proves ``compare_indices`` exact, ``code-ucb-tolerance`` the float
  filter), and a counterexample is re-run concretely with the exact rule.
- ``bounded-exhaustive``: every score matrix with entries in {0, 1} (and in
  {0, 1/2, 1}) of the stated shapes, every budget n in [K, K L], both draws:
  larger K and L than the symbolic domain reaches. There SAR and SySAR also
  run with m = 3 (K >= 4), and UCB-E and SyUCB-E also with a in
  :data:`MORE_A` (1/2, 2, 25) on the smaller domain :data:`MORE_CELLS`
  (K L <= 6 in {0, 1}, K L <= 4 in {0, 1/2, 1}).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.code_symbolic import ContractsBound, Variant, draws, explore_contracts
from proofs_check.code_ucb_symbolic import abstracted_roots, root_interval
from proofs_check.decision_rules import (
    IndexSign,
    Number,
    eliminated,
    exact_index_sign,
    mean,
    ranked_by_mean,
    sar_leaver,
    ucb_choice_problem,
    uniform_allocation,
)
from proofs_check.symbolic import Symbolic
from sysrs_ref.algorithms.base import Batch, Outcome as RunOutcome
from sysrs_ref.algorithms.params import Exploration, TopMSize
from sysrs_ref.draws import Draw
from sysrs_ref.schedule import schedule

__all__ = [
    "DEFAULT_SYMBOLIC",
    "DEFAULT_UCB_SYMBOLIC",
    "WIDER_MAX_K",
    "FAMILIES",
    "MORE_A",
    "MORE_CELLS",
    "Cells",
    "Family",
    "check_decisions",
    "claims",
    "decision_problem",
    "exhaustive_problem",
    "matrices",
]

Scores = Sequence[Sequence[Number]]
RootOf = Callable[[int], Number]
"""sqrt(a / N) as the symbolic runs see it (a b_N symbol, or its exact value when rational)."""


@dataclass(frozen=True)
class Cells:
    """The exhaustive domain: every K x L shape with K >= 2 and K L <= *binary* (scores in {0, 1}) or <= *ternary*
    (scores in {0, 1/2, 1}); at most *max_k* models."""

    binary: int
    ternary: int
    max_k: int = 6

    def shapes(self, cells: int) -> list[tuple[int, int]]:
        """Every (K, L) with 2 <= K <= max_k and K L <= *cells*."""
        return [(k, n) for k in range(2, self.max_k + 1) for n in range(1, cells // k + 1)]

    def describe(self) -> str:
        """The domain in words."""
        return (
            f"exhaustive: every K x L score matrix with entries in {{0, 1}} for K L <= {self.binary}, and in "
            f"{{0, 1/2, 1}} for K L <= {self.ternary} (2 <= K <= {self.max_k}), every budget n in [K, K L], two "
            "draws per (K, L) (identity; priority and orders reversed or rotated)"
        )


WIDER_MAX_K = 6
"""The largest K of ``--decision-cells B,T``."""

DEFAULT_SYMBOLIC = ContractsBound(max_k=3, max_l=2, max_l_two=4)
"""The default run's symbolic domain (``--decisions K,L`` for more)."""

DEFAULT_UCB_SYMBOLIC = ContractsBound(max_k=3, max_l=2, max_l_two=3)
"""UCB-E's and SyUCB-E's (their paths branch on every index comparison: more of them)."""


# --- one run and its decisions ---------------------------------------------------------------------------------------


def _run(variant: Variant, scores: Scores, draw: Draw, budget: int) -> tuple[list[Batch], RunOutcome]:
    """The real step generator driven to the end: every batch it yielded, and its outcome."""
    run = variant.spec.factory(budget, draw, variant.params)
    yielded: list[Batch] = []
    try:
        batch = next(run)
        while True:
            yielded.append(batch)
            batch = run.send([scores[request.model][request.query] for request in batch])
    except StopIteration as stop:
        outcome = stop.value
    if not isinstance(outcome, RunOutcome):
        raise TypeError(f"the run returned {type(outcome).__name__}, not an Outcome")
    return yielded, outcome


def _pairs(batch: Batch) -> list[tuple[int, int]]:
    return [(request.model, request.query) for request in batch]


def _shown(values: Sequence[Number]) -> str:
    return "[" + ", ".join(str(value) for value in values) + "]"


class _State:
    """The exact sums and counts of a run so far, from the score matrix (never from the run's own bookkeeping)."""

    def __init__(self, scores: Scores, n_models: int) -> None:
        self.scores = scores
        self.sums: list[Number] = [0] * n_models
        self.counts = [0] * n_models

    def add(self, batch: Batch) -> None:
        for request in batch:
            self.sums[request.model] = self.sums[request.model] + self.scores[request.model][request.query]
            self.counts[request.model] += 1

    def means(self) -> list[Number]:
        return [mean(total, count) for total, count in zip(self.sums, self.counts, strict=True)]


def _ranking_problem(outcome: RunOutcome, expected: Sequence[int], rule: str) -> str | None:
    if tuple(outcome.ranking) != tuple(expected) or outcome.chosen != expected[0]:
        return f"ranking {outcome.ranking} (chosen {outcome.chosen}); the rule ({rule}) ranks {tuple(expected)}"
    return None


def _uniform_problem(outcome: RunOutcome, scores: Scores, draw: Draw, budget: int) -> str | None:
    n_models = draw.n_models
    per_model = uniform_allocation(budget, n_models)
    expected = [(model, draw.order_of(model)[p]) for model in range(n_models) for p in range(per_model)]
    asked = [pair for step in outcome.trace for pair in _pairs(step.requests)]
    if len(outcome.trace) != 1 or asked != expected:
        counts = [sum(model == m for m, _ in asked) for model in range(n_models)]
        return (
            f"asked {counts} queries per model in {len(outcome.trace)} batch(es); the rule asks each model its "
            f"first q = {per_model} (the largest q with K q <= n), model-major, in one batch"
        )
    state = _State(scores, n_models)
    state.add(outcome.trace[0].requests)
    means = state.means()
    return _ranking_problem(
        outcome, ranked_by_mean(range(n_models), means, draw.arm_priority), f"exact means {_shown(means)}, priority"
    )


def _phases_problem(variant: Variant, outcome: RunOutcome, scores: Scores, draw: Draw, budget: int) -> str | None:
    n_models = draw.n_models
    lengths = schedule(n_models, draw.n_queries, budget)
    if len(outcome.trace) != len(lengths):
        return f"{len(outcome.trace)} phases; the rule runs K - 1 = {len(lengths)}"
    places = variant.params.m if isinstance(variant.params, TopMSize) else None
    state = _State(scores, n_models)
    active = list(range(n_models))
    accepted: list[int] = []
    rejected: list[int] = []
    seen = 0
    for phase, (step, n_k) in enumerate(zip(outcome.trace, lengths, strict=True), start=1):
        expected = [(model, draw.order_of(model)[p]) for model in active for p in range(seen, n_k)]
        if _pairs(step.requests) != expected:
            return (
                f"phase {phase} asked {_pairs(step.requests)}; the rule asks every active model {active} on "
                f"positions {seen} .. {n_k - 1} of its order: {expected}"
            )
        state.add(step.requests)
        seen = n_k
        means = state.means()
        where = f"after phase {phase}, active {active}, exact means {_shown(means)}, priority {draw.arm_priority}"
        if places is None:
            leaving, accept = eliminated(active, means, draw.arm_priority), False
            if step.eliminated != leaving or step.accepted:
                return f"{where}: eliminated model {step.eliminated}; the rule eliminates model {leaving}"
        else:
            leaving, accept = sar_leaver(active, means, draw.arm_priority, places - len(accepted))
            if (step.eliminated, step.accepted) != (leaving, accept):
                did = "accepted" if step.accepted else "rejected"
                says = "accepts" if accept else "rejects"
                return (
                    f"{where}, m' = {places - len(accepted)}: {did} model {step.eliminated}; "
                    f"the rule {says} model {leaving}"
                )
        (accepted if accept else rejected).append(leaving)
        active.remove(leaving)
    order = (*accepted, *active, *reversed(rejected))
    rule = "accepted, the model left, rejected last first" if places is not None else "reverse elimination order"
    return _ranking_problem(outcome, order, rule)


def _ucb_problem(
    variant: Variant, outcome: RunOutcome, scores: Scores, draw: Draw, budget: int, root: RootOf | None
) -> str | None:
    n_models, n_queries = draw.n_models, draw.n_queries
    a = variant.params.a if isinstance(variant.params, Exploration) else Fraction(1)
    warm_up = [(model, draw.order_of(model)[0]) for model in range(n_models)]
    if not outcome.trace or _pairs(outcome.trace[0].requests) != warm_up:
        return f"the warm-up asked {[_pairs(s.requests) for s in outcome.trace[:1]]}; the rule asks {warm_up}"
    if len(outcome.trace) != 1 + budget - n_models:
        return f"{len(outcome.trace) - 1} steps after the warm-up; the rule takes n - K = {budget - n_models}"
    state = _State(scores, n_models)
    state.add(outcome.trace[0].requests)
    for number, step in enumerate(outcome.trace[1:], start=1):
        means, counts = state.means(), state.counts
        sign = _index_sign(means, counts, a, root)
        selectable = [model for model in range(n_models) if counts[model] < n_queries]
        where = f"step {number}: exact means {_shown(means)}, counts {counts}, a = {a}, priority {draw.arm_priority}"
        if len(step.requests) != 1:
            return f"{where}: a batch of {len(step.requests)} requests; the rule asks one"
        ((model, query),) = _pairs(step.requests)
        problem = ucb_choice_problem(model, selectable, sign, draw.arm_priority)
        if problem is not None:
            return f"{where}: evaluated model {model}, but {problem}"
        if query != draw.order_of(model)[counts[model]]:
            return f"{where}: model {model} on query {query}; the rule asks position {counts[model]} of its order"
        state.add(step.requests)
    means = state.means()
    return _ranking_problem(
        outcome, ranked_by_mean(range(n_models), means, draw.arm_priority), f"exact means {_shown(means)}, priority"
    )


def _index_sign(means: Sequence[Number], counts: Sequence[int], a: Fraction, root: RootOf | None) -> IndexSign:
    def sign(i: int, j: int) -> int:
        if root is not None and (isinstance(means[i], Symbolic) or isinstance(means[j], Symbolic)):
            difference = means[i] + root(counts[i]) - means[j] - root(counts[j])
            return (difference > 0) - (difference < 0)
        return exact_index_sign(Fraction(means[i]), counts[i], Fraction(means[j]), counts[j], a)

    return sign


def decision_problem(
    variant: Variant, scores: Scores, draw: Draw, budget: int, root: RootOf | None = None
) -> str | None:
    """The first decision of the run that is not its rule's, in words (or a broken batch, or a raise), else None.

    *root* gives sqrt(a / N) for symbolic scores (UCB-E's abstraction); exact scores use
    :func:`~proofs_check.decision_rules.exact_index_sign`.
    """
    try:
        yielded, outcome = _run(variant, scores, draw, budget)
    except Exception as err:  # the code under test failed: a broken decision
        return f"the run raised {type(err).__name__}: {err}"
    if [_pairs(batch) for batch in yielded] != [_pairs(step.requests) for step in outcome.trace if step.requests]:
        return "the trace's batches are not the batches the generator yielded"
    if variant.name in ("us", "syus"):
        return _uniform_problem(outcome, scores, draw, budget)
    if variant.name in ("ucbe", "syucbe"):
        return _ucb_problem(variant, outcome, scores, draw, budget, root)
    return _phases_problem(variant, outcome, scores, draw, budget)


# --- the domains -----------------------------------------------------------------------------------------------------


def matrices(n_models: int, n_queries: int, values: Sequence[Number]) -> Iterator[tuple[tuple[Number, ...], ...]]:
    """Every K x L matrix with entries in *values*."""
    for cells in itertools.product(values, repeat=n_models * n_queries):
        yield tuple(cells[i * n_queries : (i + 1) * n_queries] for i in range(n_models))


BINARY: tuple[Number, ...] = (0, 1)
TERNARY: tuple[Number, ...] = (0, Fraction(1, 2), 1)


def exhaustive_problem(variants: Sequence[Variant], cells: Cells) -> tuple[str | None, int]:
    """(the first run of the exhaustive domain whose decisions are not the rules', or None; the runs made)."""
    runs = 0
    for values, limit in ((BINARY, cells.binary), (TERNARY, cells.ternary)):
        for n_models, n_queries in cells.shapes(limit):
            for variant in variants:
                if variant.min_models > n_models:
                    continue
                run_draws = draws(n_models, n_queries, variant.spec.synchronized)
                for matrix in matrices(n_models, n_queries, values):
                    for draw in run_draws:
                        for budget in range(n_models, n_models * n_queries + 1):
                            runs += 1
                            problem = decision_problem(variant, matrix, draw, budget)
                            if problem is not None:
                                shown = [[str(value) for value in row] for row in matrix]
                                return f"{variant.label}, scores {shown}, draw {draw}, n={budget}: {problem}", runs
    return None, runs


@contextmanager
def _roots(a: Fraction, n_queries: int, into: dict[int, Number]) -> Iterator[list[Symbolic]]:
    """UCB-E's abstraction (:func:`~proofs_check.code_ucb_symbolic.abstracted_roots`), its roots kept in *into*."""
    with abstracted_roots(a, n_queries) as symbols:
        remaining = iter(symbols)
        into.clear()
        for count in range(1, n_queries + 1):
            low, high = root_interval(a / count)  # abstracted_roots makes one symbol per irrational root, in order
            into[count] = low if low == high else next(remaining)
        yield symbols


def _symbolic_problem(variants: Sequence[Variant], bound: ContractsBound) -> tuple[str | None, int, int]:
    """(the first symbolic path whose decisions are not the rules', or None; paths; runs)."""
    paths = runs = 0
    plain = [variant for variant in variants if not isinstance(variant.params, Exploration)]
    if plain:
        found = explore_contracts(bound.shapes(), plain, check=decision_problem)
        paths, runs = found.paths, found.runs
        if found.problem is not None:
            return found.where, paths, runs
    for variant in variants:
        if not isinstance(variant.params, Exploration):
            continue
        roots: dict[int, Number] = {}
        a = variant.params.a

        def extras(
            n_models: int, n_queries: int, a: Fraction = a, roots: dict[int, Number] = roots
        ) -> AbstractContextManager[list[Symbolic]]:
            return _roots(a, n_queries, roots)

        def check(v: Variant, scores: Scores, draw: Draw, budget: int, roots: dict[int, Number] = roots) -> str | None:
            return decision_problem(v, scores, draw, budget, roots.__getitem__)

        found = explore_contracts(bound.shapes(), [variant], extras, check)
        paths, runs = paths + found.paths, runs + found.runs
        if found.problem is not None:
            return found.where, paths, runs
    return None, paths, runs


# --- the claims --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One claim: the algorithms it covers, symbolically and exhaustively."""

    id: str
    names: str
    rule: str
    symbolic: tuple[Variant, ...]
    exhaustive: tuple[Variant, ...]
    cells: Cells
    """The default run's exhaustive domain (the runs of this family cost more or less)."""
    bound: ContractsBound
    """The default run's symbolic domain."""
    weight: float
    more: tuple[Variant, ...] = ()
    """Further parameters, run exhaustively on :data:`MORE_CELLS` only (``--decision-cells`` leaves them there)."""


def _family(
    claim_id: str,
    names: str,
    rule: str,
    symbolic: Sequence[Variant],
    exhaustive: Sequence[Variant],
    cells: Cells,
    weight: float,
    bound: ContractsBound = DEFAULT_SYMBOLIC,
    more: Sequence[Variant] = (),
) -> Family:
    return Family(claim_id, names, rule, tuple(symbolic), tuple(exhaustive), cells, bound, weight, tuple(more))


MORE_CELLS = Cells(binary=6, ternary=4, max_k=4)
"""The exhaustive domain of a family's further parameters (UCB-E's a other than 1)."""

#: UCB-E's further exploration parameters: below 1, above 1 with irrational roots, and a square (rational roots at
#: square counts).
MORE_A = (Fraction(1, 2), Fraction(2), Fraction(25))


def _families() -> tuple[Family, ...]:
    sar = [Variant.of(name, m=m) for m in (1, 2) for name in ("sar", "sysar")]
    sar_more = [Variant.of(name, m=3) for name in ("sar", "sysar")]  # K >= 4: the exhaustive domain only
    ucb = [Variant.of(name, a=Fraction(1)) for name in ("ucbe", "syucbe")]
    ucb_more = [Variant.of(name, a=a) for a in MORE_A for name in ("ucbe", "syucbe")]
    return (
        _family(
            "code-decisions-uniform",
            "us, syus",
            "every model is evaluated on its first q queries, q the largest with K q <= n (floor(n/K)), in one "
            "model-major batch, and ranked by exact mean, ties by priority",
            [Variant.of("us"), Variant.of("syus")],
            [Variant.of("us"), Variant.of("syus")],
            Cells(binary=9, ternary=5, max_k=4),
            6,
        ),
        _family(
            "code-decisions-sr",
            "sr, sysrs",
            "each phase asks every active model its next n_k - n_{k-1} queries and then eliminates the active "
            "model with the smallest exact mean, among equal means the latest in the priority; the ranking is the "
            "reverse elimination order",
            [Variant.of("sr"), Variant.of("sysrs")],
            [Variant.of("sr"), Variant.of("sysrs")],
            Cells(binary=9, ternary=5, max_k=4),
            8,
        ),
        _family(
            "code-decisions-sar",
            "sar, sysar",
            "each phase asks every active model its next n_k - n_{k-1} queries and then the arm with the largest "
            "gap (Bubeck et al.) leaves, accepted from the empirical top m' or else rejected, equal gaps rejecting, "
            "equal means ordered by priority; the ranking is accepted, the model left, rejected last first",
            sar,
            [*sar, *sar_more],
            Cells(binary=8, ternary=5, max_k=4),
            10,
        ),
        _family(
            "code-decisions-ucb",
            "ucbe, syucbe",
            "after the warm-up, each step evaluates the selectable model (N_i < L) with the largest exact index "
            "mean + sqrt(a/N_i), among equal indices the earliest in the priority, on its next query; the ranking "
            "is by exact mean, ties by priority",
            ucb,
            ucb,
            Cells(binary=8, ternary=5, max_k=4),
            14,
            DEFAULT_UCB_SYMBOLIC,
            ucb_more,
        ),
    )


FAMILIES = _families()
"""The four claims: US/SyUS, SR/SySRs, SAR/SySAR, UCB-E/SyUCB-E."""


def _labels(variants: Sequence[Variant]) -> str:
    return ", ".join(variant.label for variant in variants)


def check_decisions(family: Family, bound: ContractsBound | None = None, cells: Cells | None = None) -> Outcome:
    """Every decision of every run of the symbolic and the exhaustive domain (default: the family's) is the rule's."""
    bound = bound or family.bound
    cells = cells or family.cells
    methods = (Method.SYMBOLIC, Method.BOUNDED_EXHAUSTIVE)
    roots = (
        "; UCB-E's sqrt(a/N) abstracted as in code-ucb-contracts-symbolic (an over-approximation)"
        if any(isinstance(v.params, Exploration) for v in family.symbolic)
        else ""
    )
    domain = (
        f"symbolic: every score matrix in [0, 1]^(K x L) (real scores, z3), {bound.describe()}, every budget n in "
        f"[K, K L], two draws per (K, L) and the relabelling argument, {_labels(family.symbolic)}{roots}; "
        f"{cells.describe()}, {_labels(family.exhaustive)}{' (m < K)' if 'sar' in family.names else ''}"
        + (f"; {MORE_CELLS.describe()}, {_labels(family.more)}" if family.more else "")
    )
    started = time.perf_counter()
    problem, paths, symbolic_runs = _symbolic_problem(family.symbolic, bound)
    if problem is None:
        symbolic_seconds = time.perf_counter() - started
        problem, runs = exhaustive_problem(family.exhaustive, cells)
        if problem is None and family.more:
            problem, more_runs = exhaustive_problem(family.more, MORE_CELLS)
            runs += more_runs
        method = Method.BOUNDED_EXHAUSTIVE
    else:
        method = Method.SYMBOLIC
    if problem is not None:
        return Outcome(
            Status.FAILS,
            method,
            f"A decision is not the rule's. Counterexample: {problem}.",
            counterexample=problem,
            methods=methods,
            domain=domain,
        )
    return Outcome(
        Status.HOLDS,
        Method.SYMBOLIC,
        f"Every decision is the rule's ({family.rule}): on all {paths} feasible paths of {symbolic_runs} symbolic "
        f"runs ({symbolic_seconds:.1f} s) and all {runs} exhaustive runs "
        f"({time.perf_counter() - started - symbolic_seconds:.1f} s), step by step.",
        methods=methods,
        domain=domain,
    )


def claims(decisions: tuple[int, int] | None = None, cells: tuple[int, int] | None = None) -> tuple[Claim, ...]:
    """The four decision claims: each family's default domains, widened by ``--decisions K,L`` (the symbolic
    domain: every K' <= K, L' <= L) and ``--decision-cells B,T`` (the exhaustive one: K L <= B binary, K L <= T
    three-valued, K <= WIDER_MAX_K)."""
    wider = None if cells is None else Cells(binary=cells[0], ternary=cells[1], max_k=WIDER_MAX_K)
    return tuple(
        Claim(
            family.id,
            f"sysrs_ref/algorithms: {family.names}; proofs_check/decision_rules.py; docs/contracts.md",
            f"for every score matrix of the domain, at every step of every {family.names} run: {family.rule}",
            Status.HOLDS,
            partial(check_decisions, family, family.bound.widened(decisions), wider or family.cells),
            weight=family.weight,
        )
        for family in FAMILIES
    )
