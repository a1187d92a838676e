"""The fast paths' certified comparisons, as the kernels use them: every small float instance, against the reference.

``code-certify-tolerance`` and ``code-ucb-tolerance`` prove the tolerance
formulas cover the rounding; this claim checks how the kernels *use* them.
The numpy and compiled passes of SySRs/SR, SyUS/US, SySAR/SAR and
SyUCB-E/UCB-E are run on every score matrix of a stated small domain whose
scores make float sums disagree with the exact ones (0.1 + 0.2 and 0.3 are
equal exactly, not as float64 sums: the float path sees a strict order where
the exact comparison sees a tie the arm priority must break), forced through
the float path (``score_table(..., prefer_float=True)``), for every draw
(every query order and every arm priority) and every budget in [K, K L],
and each outcome (chosen model, ranking, spend) must be the reference's
(the pure-Python step generators on exact Fractions). A kernel that ignores
the tolerance, narrows it, or rounds a key to a double decides such a tie by
the float order and fails here, with the matrix, the draw and the budget.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from fractions import Fraction

from proofs_check.claim import Claim, Method, Outcome, Status
from sysrs_ref import Draw, Instance
from sysrs_ref.algorithms import get_algorithm
from sysrs_ref.fast import DrawBatch, compiled, run_fast, score_table
from sysrs_ref.fast._reference_kernel import reference_kernel

__all__ = ["ALGORITHMS", "LEVELS", "SHAPES", "CLAIMS", "check_fast_certified"]

#: The scores: 0.1 + 0.2 = 0.3 exactly, while fl(0.1) + fl(0.2) > fl(0.3) > fl(0.1) + fl(0.2) - 2^-54.
LEVELS = (Fraction(0), Fraction(1, 10), Fraction(2, 10), Fraction(3, 10))
#: The (K, L) of the default domain.
SHAPES = ((2, 2),)
#: One algorithm per kernel family (the unsynchronized one shares its kernel, with per-model orders).
ALGORITHMS = ("sysrs", "sr", "syus", "sysar", "syucbe")


def _draws(n_models: int, n_queries: int, synchronized: bool) -> DrawBatch:
    """Every draw of this shape: every arm priority with every shared order (or every per-model order)."""
    orders = list(itertools.permutations(range(n_queries)))
    draws = []
    for priority in itertools.permutations(range(n_models)):
        if synchronized:
            draws += [Draw((order,), priority) for order in orders]
        else:
            draws += [Draw(chosen, priority) for chosen in itertools.product(orders, repeat=n_models)]
    return DrawBatch.from_draws(draws)


def _backends() -> Iterator[tuple[str, AbstractContextManager[object]]]:
    """The compiled passes (where they are built) and numpy alone."""
    if compiled.active():
        yield "compiled", nullcontext()
    yield "numpy", compiled.numpy_only()


def check_fast_certified(shapes: Sequence[tuple[int, int]] = SHAPES, algorithms: Sequence[str] = ALGORITHMS) -> Outcome:
    """Every fast pass gives the reference's outcome on every matrix, draw and budget of the domain."""
    started = time.perf_counter()
    backends = [name for name, _ in _backends()]
    levels = ", ".join(str(level) for level in LEVELS)
    domain = (
        f"bounded-exhaustive: every K x L score matrix with scores in {{{levels}}} for (K, L) in {tuple(shapes)}, "
        f"forced through the float path; every arm priority and query order; every budget n in [K, K L]; "
        f"algorithms {', '.join(algorithms)}; passes: {', '.join(backends)}"
    )
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    runs = 0
    for name in algorithms:
        spec = get_algorithm(name)
        params = spec.parse_params({})
        for n_models, n_queries in shapes:
            draws = _draws(n_models, n_queries, spec.synchronized)
            budgets = tuple(range(n_models, n_models * n_queries + 1))
            for cells in itertools.product(LEVELS, repeat=n_models * n_queries):
                rows = [list(cells[row * n_queries : (row + 1) * n_queries]) for row in range(n_models)]
                table = score_table(Instance(rows), prefer_float=True)
                want = reference_kernel(name)(table, budgets, draws, True, params)
                for backend, switch in _backends():
                    with switch:
                        got = run_fast(table, name, budgets, draws)
                    for run in range(draws.n_runs):
                        for column, budget in enumerate(budgets):
                            runs += 1
                            fast = got.outcome(run, column)
                            ref = (
                                int(want.chosen[run, column]),
                                tuple(int(m) for m in want.ranking[run, column]) if want.ranking is not None else None,
                                int(want.spent[column]),
                            )
                            if fast != ref:
                                shown = [[str(score) for score in row] for row in rows]
                                draw = draws.draw(run)
                                counterexample = (
                                    f"{name} ({backend} pass), scores {shown}, orders {draw.query_orders}, "
                                    f"priority {draw.arm_priority}, n={budget}: fast (chosen, ranking, spent) {fast}, "
                                    f"reference {ref}"
                                )
                                return Outcome(
                                    Status.FAILS,
                                    methods[0],
                                    f"A fast pass decides a comparison otherwise than the exact reference. "
                                    f"Counterexample: {counterexample}.",
                                    counterexample=counterexample,
                                    methods=methods,
                                    domain=domain,
                                )
    seconds = time.perf_counter() - started
    return Outcome(
        Status.HOLDS,
        methods[0],
        f"{runs} (pass, algorithm, matrix, draw, budget) runs, each the reference's chosen model, ranking and spend "
        f"({seconds:.1f} s). Exact ties that float sums order strictly are where a tolerance ignored, narrowed or "
        "applied to the wrong side, or a key rounded to a double, would decide by the float order.",
        methods=methods,
        domain=domain,
    )


CLAIMS = (
    Claim(
        "code-fast-certified",
        "sysrs_ref/fast: _elimination, _uniform, _accept_reject, _ucb (numpy) and _csrc (compiled); certify.py",
        "on every small float instance where float sums order an exact tie, every fast pass makes the reference's "
        "decisions: a comparison is settled by floats only where its sign is the exact one",
        Status.HOLDS,
        check_fast_certified,
        weight=40,
    ),
)
