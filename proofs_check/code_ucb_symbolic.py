"""UCB-E's and SyUCB-E's contracts by symbolic execution over real scores, the square roots abstracted.

The exploration index U_i = mu_i + sqrt(a / N_i) is compared exactly by
:func:`sysrs_ref.algorithms.ucb_index.compare_indices` (squaring: degree 4 in
the scores), which makes the paths' conditions nonlinear and the exploration
of :mod:`proofs_check.code_symbolic` too slow. The claim splits the argument
in two parts, each machine-checked on the real code:

1. **The exact comparison (lemma, symbolic, nonlinear real arithmetic).** The
   real ``compare_indices`` is run on symbolic means m1, m2 (any reals), a
   symbolic a > 0 and every pair of counts N1, N2 <= the domain's largest L;
   on every feasible path z3 answers unsat to "the result is not the sign of
   m1 + s1 - m2 - s2", where s_i >= 0 and s_i^2 N_i = a: it returns the sign
   of U_1 - U_2.
2. **The contracts (symbolic, linear real arithmetic).** UCB-E and SyUCB-E
   are run through :func:`~sysrs_ref.algorithms.drive` as in
   ``code-contracts-symbolic`` (scores z3 reals in [0, 1], two draws, every
   budget), except that ``compare_indices``, for two symbolic means with
   different counts, returns the sign of m1 + b_(N1) - m2 - b_(N2), explored
   as a branch like any other comparison, where each b_N is a fresh real
   symbol standing for sqrt(a / N) and known only to lie in a rational
   interval [lo_N, hi_N] that contains sqrt(a / N) (checked exactly:
   lo_N^2 <= a / N <= hi_N^2, width 2^-32; b_N is the exact value when
   a / N is a rational square). The rest of the code (the heap of
   ``IndexKey``, the warm-up, the query orders, the final ranking by exact
   mean) runs unchanged; ``IndexKey``'s float filter never certifies a
   symbolic value (its soundness on concrete scores is ``code-ucb-tolerance``).

**Why the abstraction is sound.** Take any real score matrix in [0, 1] and
a run of the real code on it. By ``code-ucb-tolerance`` every ``IndexKey``
comparison it makes is the exact one, and by part 1 ``compare_indices``
returns sign(U_1 - U_2); setting each b_N to sqrt(a / N) (inside its
interval) makes the abstract comparison return the same sign. So the real
run's sequence of outcomes is one feasible path of the abstract exploration,
and every path explored keeps its contract; the abstraction only adds paths
(comparisons within the intervals' width of a tie may go either way), never
removes one. The contracts do not depend on which model the index selects,
only on the code's bookkeeping, which is why an over-approximation suffices.
A counterexample is re-run concretely on the witness scores: a path only the
abstraction admits is reported as such.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

import sysrs_ref.algorithms.ucb_index as ucb_index
from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.code_symbolic import ContractsBound, Extras, Variant, explore_contracts
from proofs_check.symbolic import Symbolic, explore

__all__ = [
    "DEFAULT_UCB_BOUND",
    "EXPLORATIONS",
    "ROOT_BITS",
    "abstracted_roots",
    "bound_for",
    "check_ucb_contracts",
    "claims",
    "root_interval",
]

EXPLORATIONS: tuple[Fraction, ...] = (Fraction(1),)
"""The exploration parameters a of the contracts' runs (the default a = 1)."""

ROOT_BITS = 32
"""Each b_N's interval has width 2^-ROOT_BITS (or 0 when sqrt(a / N) is rational)."""

DEFAULT_UCB_BOUND = ContractsBound(max_k=3, max_l=2, max_l_two=3)
"""The default run's domain (``--ucb-contracts K,L`` for more)."""


def bound_for(contracts: tuple[int, int] | None) -> ContractsBound:
    """The domain of ``--ucb-contracts K,L`` (every K' <= K, L' <= L; K = 2 keeps at least L <= 3), or the default."""
    return DEFAULT_UCB_BOUND.widened(contracts)


def root_interval(value: Fraction, bits: int = ROOT_BITS) -> tuple[Fraction, Fraction]:
    """[lo, hi] with lo^2 <= value <= hi^2, hi - lo = 2^-bits, or lo = hi = sqrt(value) when that is rational.

    >>> root_interval(Fraction(1, 4)), root_interval(Fraction(2), 2)
    ((Fraction(1, 2), Fraction(1, 2)), (Fraction(5, 4), Fraction(3, 2)))
    """
    if value < 0:
        raise ValueError(f"no square root of {value}")
    top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
    if top * top == value.numerator and bottom * bottom == value.denominator:
        return Fraction(top, bottom), Fraction(top, bottom)
    scale = 2**bits
    low = Fraction(math.isqrt(math.floor(value * scale * scale)), scale)  # floor(sqrt(value) * scale) / scale
    high = low + Fraction(1, scale)
    if not (low * low <= value <= high * high):  # pragma: no cover  # reason: isqrt is exact
        raise AssertionError(f"[{low}, {high}] does not enclose sqrt({value})")
    return low, high


# --- part 1: compare_indices is the sign of U_1 - U_2 ---------------------------------------------------------------


def _comparison_problem(max_count: int) -> tuple[str | None, int]:
    """None when the real compare_indices returns sign(U_1 - U_2) on every path, for counts <= *max_count*."""
    paths = 0
    for count1 in range(1, max_count + 1):
        for count2 in range(1, max_count + 1):
            mean1, mean2 = Symbolic.symbol("m1", None, None), Symbolic.symbol("m2", None, None)
            a = Symbolic.symbol("a", None, None)
            root1, root2 = z3.Reals("s1 s2")
            positive = [a.term > 0]

            def run(
                m1: Symbolic = mean1, m2: Symbolic = mean2, c1: int = count1, c2: int = count2, a: Symbolic = a
            ) -> int:
                return ucb_index.compare_indices(m1, c1, m2, c2, a)

            difference = mean1.term + root1 - mean2.term - root2
            roots = [root1 >= 0, root2 >= 0, root1 * root1 * count1 == a.term, root2 * root2 * count2 == a.term]
            witness = {index: value for index, value in zip(_indices(mean1, mean2, a), (0, 0, 1), strict=True)}
            for explorer, sign in explore(
                [mean1, mean2, a], run, logic="QF_NRA", constraints=positive, witness=witness
            ):
                paths += 1
                wrong = {-1: difference >= 0, 0: difference != 0, 1: difference <= 0}.get(sign, z3.BoolVal(True))
                found = explorer.satisfiable(z3.And(*roots, wrong))
                if found is not None:
                    values = [found.get(index) for index in _indices(mean1, mean2, a)]
                    shown = ", ".join(f"{name}={value}" for name, value in zip(("m1", "m2", "a"), values, strict=True))
                    return (
                        f"compare_indices(m1, {count1}, m2, {count2}, a) returns {sign} where "
                        f"sign(m1 + sqrt(a/{count1}) - m2 - sqrt(a/{count2})) differs: {shown}"
                    ), paths
    return None, paths


def _indices(*symbols: Symbolic) -> list[int]:
    return [symbol.polynomial[0][0][0] for symbol in symbols]


# --- part 2: the contracts, the roots abstracted -------------------------------------------------------------------


@contextmanager
def abstracted_roots(exploration: Fraction, n_queries: int) -> Iterator[list[Symbolic]]:
    """compare_indices with each sqrt(*exploration* / N), N <= *n_queries*, a symbol b_N in its interval; yields them.

    Only comparisons of two symbolic means with different counts are abstracted; every other call runs the
    real function.
    """
    real = ucb_index.compare_indices
    roots: dict[int, Fraction | Symbolic] = {}
    symbols: list[Symbolic] = []
    for count in range(1, n_queries + 1):
        low, high = root_interval(exploration / count)
        if low == high:
            roots[count] = low
        else:
            symbol = Symbolic.symbol(f"b_{count}", low, high)
            roots[count] = symbol
            symbols.append(symbol)

    def compare(mean1: Fraction, count1: int, mean2: Fraction, count2: int, a: Fraction) -> int:
        symbolic = isinstance(mean1, Symbolic) or isinstance(mean2, Symbolic)
        if count1 == count2 or not symbolic:
            return real(mean1, count1, mean2, count2, a)
        if a != exploration or count1 not in roots or count2 not in roots:
            raise RuntimeError(f"compare_indices called outside the abstraction (a={a}, N={count1}, {count2})")
        difference = mean1 - mean2 + roots[count1] - roots[count2]
        return (difference > 0) - (difference < 0)

    ucb_index.compare_indices = compare
    try:
        yield symbols
    finally:
        ucb_index.compare_indices = real


def _describe(bound: ContractsBound, explorations: Sequence[Fraction]) -> str:
    shown = ", ".join(str(a) for a in explorations)
    return (
        f"symbolic: every score matrix in [0, 1]^(K x L) (real scores, z3), {bound.describe()}, every budget n in "
        f"[K, K L], two draws per (K, L) (identity; priority and orders reversed or rotated) and the relabelling "
        f"argument for the others; ucbe and syucbe with a in {{{shown}}}; each sqrt(a/N) abstracted as a real "
        f"b_N in a rational interval of width 2^-{ROOT_BITS} around it (exact when rational), an over-"
        f"approximation; compare_indices proved to be sign(U_1 - U_2) for every real mean, a > 0 and counts "
        f"N1, N2 <= {max(bound.max_l, bound.max_l_two)} (nonlinear real arithmetic)"
    )


def check_ucb_contracts(
    bound: ContractsBound = DEFAULT_UCB_BOUND,
    algorithms: Sequence[str] = ("ucbe", "syucbe"),
    explorations: Sequence[Fraction] = EXPLORATIONS,
) -> Outcome:
    """The exact comparison is sign(U_1 - U_2), and every abstract path of the domain keeps its contract."""
    methods = (Method.SYMBOLIC,)
    domain = _describe(bound, explorations)
    started = time.perf_counter()
    largest = max(bound.max_l, bound.max_l_two)
    problem, lemma_paths = _comparison_problem(largest)
    if problem is not None:
        return Outcome(
            Status.FAILS,
            Method.SYMBOLIC,
            f"The exact index comparison is wrong. Counterexample: {problem}.",
            counterexample=problem,
            methods=methods,
            domain=domain,
        )
    lemma_seconds = time.perf_counter() - started
    paths = runs = 0
    for a in explorations:
        variants = [Variant.of(name, a=a) for name in algorithms]
        found = explore_contracts(bound.shapes(), variants, _roots_for(a))
        paths, runs = paths + found.paths, runs + found.runs
        if found.problem is not None:
            return found.failure(domain)
    return Outcome(
        Status.HOLDS,
        Method.SYMBOLIC,
        f"compare_indices returns sign(U_1 - U_2) on all {lemma_paths} feasible paths of its runs on symbolic means "
        f"and a ({lemma_seconds:.1f} s, z3 nonlinear real arithmetic); all {paths} feasible paths of {runs} "
        f"symbolic runs of UCB-E and SyUCB-E with each sqrt(a/N) abstracted ({time.perf_counter() - started:.1f} s "
        "in all) keep their contracts: spent <= n, fresh pairs along each query order, ranking a permutation led "
        "by the chosen model, by exact mean, ties by the draw's priority. The abstraction over-approximates the "
        "real comparisons, so this holds for every real score matrix of the domain.",
        methods=methods,
        domain=domain,
    )


def _roots_for(a: Fraction) -> Extras:
    return lambda n_models, n_queries: abstracted_roots(a, n_queries)


def claims(bound: ContractsBound = DEFAULT_UCB_BOUND) -> tuple[Claim, ...]:
    """The UCB-E / SyUCB-E symbolic contract claim over *bound*."""
    return (
        Claim(
            "code-ucb-contracts-symbolic",
            "sysrs_ref/algorithms/ucb.py: ucbe, syucbe; ucb_index.compare_indices; docs/contracts.md",
            "compare_indices is the sign of U_1 - U_2, and for every real score matrix of the domain every UCB-E and "
            "SyUCB-E run spends at most n, asks each (model, query) pair at most once along its query order, ranks "
            "a permutation led by the chosen model by exact mean, and breaks ties by priority",
            Status.HOLDS,
            lambda: check_ucb_contracts(bound),
            weight=11,
        ),
    )
