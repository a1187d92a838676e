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
(the pure-Python step generators on exact Fractions), and so must the chosen
model of each pass run without the ranking, as ``reproduce`` and
``simulate`` run them (their own near-tie resolutions). A kernel that ignores
the tolerance, applies it on the wrong side, or rounds a key to a double
decides such a tie by the float order and fails here, with the matrix, the
draw and the budget. A tolerance narrowed by a small factor still separates
these ties (the rounding is far below it): ``code-fast-tolerance-use`` reads
the kernels' source for that.

The domain is a set of tiers (C, V): every K x L matrix with K, L >= 2 and
K L <= C over a grid of levels; by default :data:`DEFAULT_TIERS` (the
near-tie grids of :data:`GRIDS` and the exactly-float :data:`FLOAT_GRID`),
and ``python -m proofs_check --fast-cells C,V`` adds one tier, over the
V-level grid of :data:`GRIDS`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from fractions import Fraction
from functools import partial

from proofs_check.claim import Claim, Method, Outcome, Status
from sysrs_ref import Draw, Instance
from sysrs_ref.algorithms import get_algorithm
from sysrs_ref.fast import DrawBatch, compiled, run_fast, score_table
from sysrs_ref.fast._reference_kernel import reference_kernel

__all__ = [
    "ALGORITHMS",
    "DEFAULT_TIERS",
    "FLOAT_GRID",
    "GRIDS",
    "Tier",
    "CLAIMS",
    "check_fast_certified",
    "claims",
    "shapes",
]

#: The score grids, by their number of levels V, each with exact ties that float sums order strictly:
#: 0.1 + 0.2 = 0.3 + 0 exactly, while fl(0.1) + fl(0.2) > fl(0.3); 1/10 + 7/10 = 2/5 + 2/5 exactly, and their float
#: sums differ; (1/20 + 1/20) + 3/10 and (1/20 + 3/10) + 1/20 differ as floats (the order of the additions).
GRIDS: dict[int, tuple[Fraction, ...]] = {
    2: (Fraction(1, 20), Fraction(3, 10)),
    3: (Fraction(1, 10), Fraction(2, 5), Fraction(7, 10)),
    4: (Fraction(0), Fraction(1, 10), Fraction(1, 5), Fraction(3, 10)),
}
#: Scores that are each exactly their float64 (``ScoreTable.floats_exact``): the path on which the UCB cut takes
#: arms with equal first scores as exactly tied from their floats alone (here exact ties are float ties too).
FLOAT_GRID = (Fraction(0), Fraction(1, 2), Fraction(1))
#: One tier (C, levels): every K x L score matrix with K, L >= 2 and K L <= C over the levels.
Tier = tuple[int, tuple[Fraction, ...]]
#: The default domain: K L <= 4 over the 4-level grid, K L <= 6 over the 3-level grid, K L <= 4 over FLOAT_GRID.
DEFAULT_TIERS: tuple[Tier, ...] = ((4, GRIDS[4]), (6, GRIDS[3]), (4, FLOAT_GRID))
#: One algorithm per kernel family (the unsynchronized one shares its kernel, with per-model orders).
ALGORITHMS = ("sysrs", "sr", "syus", "sysar", "syucbe")


def shapes(cells: int) -> tuple[tuple[int, int], ...]:
    """Every (K, L) with K, L >= 2 and K L <= *cells*.

    >>> shapes(6)
    ((2, 2), (2, 3), (3, 2))
    """
    return tuple((k, l) for k in range(2, cells // 2 + 1) for l in range(2, cells // k + 1))


def _orbit_representatives(
    levels: tuple[Fraction, ...], n_models: int, n_queries: int
) -> Iterator[list[list[Fraction]]]:
    """One K x L matrix over *levels* per orbit under row and column permutations (the smallest of each orbit).

    Every arm priority and every query order is run, so a matrix whose rows or columns are permuted is a
    relabelling of a run already made: the same decisions, the models and queries renamed.
    """
    row_perms = list(itertools.permutations(range(n_models)))
    column_perms = list(itertools.permutations(range(n_queries)))
    for cells in itertools.product(range(len(levels)), repeat=n_models * n_queries):
        rows = [cells[row * n_queries : (row + 1) * n_queries] for row in range(n_models)]
        smallest = min(
            tuple(rows[row][column] for row in rp for column in cp) for rp in row_perms for cp in column_perms
        )
        if smallest == cells:
            yield [[levels[index] for index in row] for row in rows]


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


def _domain_text(tiers: Sequence[Tier], algorithms: Sequence[str], backends: Sequence[str]) -> str:
    parts = []
    for cells, grid in tiers:
        levels = ", ".join(str(level) for level in grid)
        parts.append(f"every K x L matrix with K, L >= 2, K L <= {cells} (K x L in {shapes(cells)}) over {{{levels}}}")
    return (
        f"bounded-exhaustive: {'; '.join(parts)}; forced through the float path; once per orbit under row and column "
        f"permutations, every arm priority and query order; every budget n in [K, K L]; algorithms "
        f"{', '.join(algorithms)}; passes: {', '.join(backends)}, each with the ranking and with the chosen model alone"
    )


def check_fast_certified(tiers: Sequence[Tier] = DEFAULT_TIERS, algorithms: Sequence[str] = ALGORITHMS) -> Outcome:
    """Every fast pass gives the reference's outcome on every matrix, draw and budget of the *tiers* (C, V)."""
    started = time.perf_counter()
    backends = [name for name, _ in _backends()]
    domain = _domain_text(tiers, algorithms, backends)
    methods = (Method.BOUNDED_EXHAUSTIVE,)
    runs = matrices = 0
    done: set[tuple[int, int, tuple[Fraction, ...]]] = set()  # (K, L, grid) already run (a shape in two tiers)
    for cells_bound, grid in tiers:
        for n_models, n_queries in shapes(cells_bound):
            if (n_models, n_queries, grid) in done:
                continue
            done.add((n_models, n_queries, grid))
            budgets = tuple(range(n_models, n_models * n_queries + 1))
            specs = [(name, get_algorithm(name)) for name in algorithms]
            every = {
                name: (spec.parse_params({}), _draws(n_models, n_queries, spec.synchronized)) for name, spec in specs
            }
            for rows in _orbit_representatives(grid, n_models, n_queries):
                matrices += 1
                table = score_table(Instance(rows), prefer_float=True)
                for name in algorithms:
                    params, draws = every[name]
                    want = reference_kernel(name)(table, budgets, draws, True, params)
                    for backend, switch in _backends():
                        with switch:
                            got = run_fast(table, name, budgets, draws)
                            top = run_fast(table, name, budgets, draws, ranking=False)  # as reproduce runs it
                        for run in range(draws.n_runs):
                            for column, budget in enumerate(budgets):
                                runs += 1
                                fast = got.outcome(run, column)
                                if int(top.chosen[run, column]) != fast[0]:  # the chosen model alone: the same
                                    fast = (int(top.chosen[run, column]), None, fast[2])
                                ref = (
                                    int(want.chosen[run, column]),
                                    tuple(int(m) for m in want.ranking[run, column])
                                    if want.ranking is not None
                                    else None,
                                    int(want.spent[column]),
                                )
                                if fast != ref:
                                    shown = [[str(score) for score in row] for row in rows]
                                    draw = draws.draw(run)
                                    counterexample = (
                                        f"{name} ({backend} pass), scores {shown}, orders {draw.query_orders}, "
                                        f"priority {draw.arm_priority}, n={budget}: fast (chosen, ranking, spent) "
                                        f"{fast}, reference {ref}"
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
        f"{matrices} matrices, {runs} (pass, algorithm, matrix, draw, budget) runs, each the reference's chosen "
        f"model, ranking and spend ({seconds:.1f} s). Exact ties that float sums order strictly are where a tolerance "
        "ignored, narrowed or applied to the wrong side, or a key rounded to a double, would decide by the float order.",
        methods=methods,
        domain=domain,
    )


def _tiers(fast_cells: tuple[int, int] | None) -> tuple[Tier, ...]:
    """The default tiers, and ``--fast-cells C,V`` added when given."""
    return DEFAULT_TIERS if fast_cells is None else (*DEFAULT_TIERS, (fast_cells[0], GRIDS[fast_cells[1]]))


def claims(fast_cells: tuple[int, int] | None = None) -> tuple[Claim, ...]:
    """The claim, on the default tiers and ``--fast-cells C,V`` (every K L <= C over the V-level grid) when given."""
    return (
        Claim(
            "code-fast-certified",
            "sysrs_ref/fast: _elimination, _uniform, _accept_reject, _ucb (numpy) and _csrc (compiled); certify.py",
            "on every small float instance where float sums order an exact tie, every fast pass makes the reference's "
            "decisions: a comparison is settled by floats only where its sign is the exact one",
            Status.HOLDS,
            partial(check_fast_certified, _tiers(fast_cells)),
            weight=20,
        ),
    )


CLAIMS = claims()
