"""The UCB-E paths' float keys: the tolerances the code uses cover each key's rounding (method ``smt``).

Two places compare float approximations of UCB-E's exact quantities and
decide exactly only when the floats are close:

- the reference's heap (:class:`sysrs_ref.algorithms.ucb_index.IndexKey`):
  ``approx = float(mean) + sqrt(float(a) / N)``, and two keys whose computed
  difference exceeds ``IndexKey.tolerance_for(a)`` are ordered by the floats;
- the fast path (:mod:`sysrs_ref.fast._ucb`, bounds from
  :func:`sysrs_ref.fast._ucb_exact.bounds_for`): float indices
  ``mean + sqrt(fl(a) / N)`` (the mean is P times the float reciprocal of
  N D, or P / (N D), from an exact integer prefix sum P; or, on float
  scores, the float prefix sum times 1 / N), their running minima (the keys),
  and the final means P / (N D). ``Bounds.gap`` is 4 times a bound on each
  float index's error, ``Bounds.mean_tol`` 4 times one on each final mean's,
  and ``means_exact`` says the final floats order the exact means exactly.

**The IEEE double model.** u = 2^-53; each operation on doubles is exact
times (1 + d), |d| <= u, plus an absolute error of at most 2^-1075 when the
result is subnormal; conversions of integers likewise (exact below 2^53).
So, per key as computed (each line one rounding chain of the code):

- ``fl(mean)`` (a Fraction in [0, 1], correctly rounded): m (1 + d) + e,
  |e| <= 2^-1075; from an integer prefix sum: m f, f in [(1 - u)^4, (1 + u)^4]
  (P, N D, the reciprocal, the product; N D < 2^900 keeps every value
  normal), the final mean m f with f in [(1 - u)^3, (1 + u)^3]; from a float
  prefix sum of N scores: that sum is S (1 + t gamma_(N-1)), |t| <= 1, with S
  the sum of the stored scores, P (1 + d) + e, |e| <= N 2^-1075 (Higham,
  eq. 4.4), then times fl(1 / N) (two roundings, plus 2^-1075);
- ``sqrt(fl(a) / N)``: x w (1 + d) + e, x = sqrt(a / N) exactly,
  w in [(1 - u)/(1 + u), (1 + u)/(1 - u)] (fl(a), fl(N) and the quotient,
  under the square root), |e| <= 2^-537 (a subnormal quotient's 2^-1074 under
  the root);
- the index: (fl(mean) + root) (1 + d); a running minimum is exact.

**The tolerances are not copied:** ``IndexKey.tolerance_for`` and
``bounds_for`` are run on symbolic a, L, D and largest sum (z3 reals; the
integers relaxed to reals, so unsat covers them), with ``float`` and
``math.sqrt`` in their modules traced (each float operation one rounding, a
square root a fresh z3 real r >= 0 with r^2 = its argument), each comparison
of their guards a branch (:class:`proofs_check.code_certify.Traced`). On
every path that returns a finite tolerance z3 (nonlinear real arithmetic)
answers unsat to "the key's error exceeds what the use needs", and to "the
path's conditions allow inputs outside the range the error model assumes"
(so a widened guard fails the claim). The uses: a computed difference
fl(A1 - A2) > tol orders the exact values when each error is below
tol / (2 (1 + u)) (IndexKey); the fast path's documented invariant, each
error at most gap / 4 and mean_tol / 4; and on the ``means_exact`` path
(integer scores, largest sum, L D < 2^53, L^2 D < 2^52), distinct exact means
P1/(N1 D) != P2/(N2 D) differ by at least 1 / (N1 N2 D) (|P1 N2 - P2 N1| >= 1)
and their correctly rounded quotients keep that order strictly.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, cast
from unittest import mock

import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.code_certify import Traced, _Path
from proofs_check.smt import Term, rational, refute_terms
from proofs_check.symint import Run, explore
from sysrs_ref.fast._ucb_exact import Bounds

__all__ = ["CLAIMS", "check_ucb_tolerance"]

UNIT = Fraction(1, 2**53)
TINY = Fraction(1, 2**1075)  # the largest absolute error of a subnormal result
ROOT_TINY = Fraction(1, 2**537)  # >= sqrt(2 * 2^-1075): a subnormal quotient's error under the square root
A_LOW, A_HIGH = Fraction(1, 2**1000), Fraction(2**1000)
MAX_L = 2**40
DOMAIN = (
    "IndexKey: every a in (2^-1000, 2^1000), count N >= 1, mean in [0, 1]; IndexKey.__lt__: every pair of real "
    "indices and float approximations within tolerance / (2 (1 + u)) of them; fast path (bounds_for): every "
    "L in [1, 2^40), N in [1, L], a as above; integer scores with denominator D, L D < 2^900, prefix sums P in "
    "[0, N D] (any largest sum); float scores in [0, 1] (subnormal ones too); integers relaxed to reals"
)


def _sqrt(value: object) -> Traced:
    """math.sqrt traced: a fresh real r >= 0 with r^2 = the argument; one rounding more than half the argument's."""
    traced = Traced._of(value)
    if not traced.floating:  # math.sqrt converts an int first
        traced = traced * 1.0
    exact = traced.exact
    if z3.is_mul(exact) and exact.num_args() == 2 and exact.arg(0).eq(exact.arg(1)):
        root = exact.arg(0)  # sqrt(x * x) = x for the inputs' sqrt(a) (positive by the domain): a simpler problem
        traced.path.conditions.append(root >= 0)
    else:
        root = z3.Real(f"sqrt_{id(traced)}_{len(traced.path.conditions)}")
        traced.path.conditions += [root >= 0, root * root == exact]
    return Traced(root, (traced.rounds + 1) // 2 + 1, floating=True, path=traced.path)


def _float(value: object) -> object:
    """float() traced: an exact value becomes a float (one rounding); plain numbers as usual."""
    if isinstance(value, Traced):
        if value.floating:
            return value
        converted = Traced(value.exact, value.rounds + 1, floating=True, path=value.path)
        return converted
    return float(cast(Any, value))


@contextmanager
def _traced(function: Callable[..., object]) -> Iterator[Callable[..., object]]:
    """*function* with ``float`` and ``math`` of its globals resolved to the tracing versions while it runs."""
    namespace = cast(dict[str, object], function.__globals__)
    shim = SimpleNamespace(sqrt=_sqrt, inf=math.inf, isqrt=math.isqrt)
    saved = {name: namespace.get(name) for name in ("float", "math")}
    namespace["float"] = _float
    namespace["math"] = shim
    try:
        yield function
    finally:
        for name, value in saved.items():
            if value is None:
                namespace.pop(name, None)
            else:
                namespace[name] = value


def _paths(call: Callable[[_Path], object]) -> list[tuple[object, _Path]]:
    """(result, path) of every path of *call* (a path that raises ValueError refuses: no result)."""
    found = []
    path: _Path | None = _Path()
    while path is not None:
        with contextlib.suppress(ValueError):
            found.append((call(path), path))
        path = path.next()
    return found


@dataclass(frozen=True)
class _Inputs:
    a: Term
    root_a: Term  # sqrt(a), a = root_a^2
    n_queries: Term
    denominator: Term
    largest: Term

    @staticmethod
    def fresh() -> _Inputs:
        root_a, n_queries, denominator, largest = z3.Reals("sqrt_a L D largest_sum")
        return _Inputs(root_a * root_a, root_a, n_queries, denominator, largest)

    def basics(self) -> list[Term]:
        return [self.root_a > 0, self.n_queries >= 1, self.denominator >= 1, self.largest >= 0]


def _within(value: Term, low: Fraction, high: Fraction) -> list[Term]:
    return [value >= rational(low), value <= rational(high)]


def _index_error(
    solver: z3.Solver,
    inputs: _Inputs,
    count: Term,
    mean_factor: tuple[Fraction, Fraction],
    name: str,
    mean_tiny: Fraction,
) -> Term:
    """computed index - exact index as a z3 term (with its variables constrained in *solver*)."""
    mean, root, f, e_mean, w, e_root, d_root, d_sum = z3.Reals(
        f"{name}_mean {name}_root {name}_f {name}_e_mean {name}_w {name}_e_root {name}_d_root {name}_d_sum"
    )
    u = UNIT
    solver.add(*_within(mean, Fraction(0), Fraction(1)), root > 0, root * root * count == inputs.a)
    solver.add(*_within(f, *mean_factor), *_within(e_mean, -mean_tiny, mean_tiny))
    solver.add(*_within(w, (1 - u) / (1 + u), (1 + u) / (1 - u)), *_within(e_root, -ROOT_TINY, ROOT_TINY))
    solver.add(*_within(d_root, -u, u), *_within(d_sum, -u, u))
    return (mean * f + e_mean + (root * w + e_root) * (1 + d_root)) * (1 + d_sum) - mean - root


def _float_mean_error(solver: z3.Solver, count: Term, name: str, factor: tuple[Fraction, Fraction]) -> Term:
    """computed - exact for a mean from a float prefix sum of *count* < 2^40 scores in [0, 1].

    The stored scores sum to m N (1 + d) + e with |e| <= N 2^-1075; the float
    sum is that times (1 + t gamma_(N-1)), |t| <= 1, and gamma_(N-1) =
    (N-1) u / (1 - (N-1) u) <= (N - 1) u / (1 - 2^-13) for N < 2^40; divided
    by N (the code multiplies by fl(1 / N): *factor*) plus 2^-1075.
    """
    u = UNIT
    mean, d_store, e_store, gamma, t, f, e_last = z3.Reals(
        f"{name}_m {name}_d_store {name}_e_store {name}_gamma {name}_t {name}_f {name}_e_last"
    )
    solver.add(
        *_within(mean, Fraction(0), Fraction(1)), *_within(d_store, -u, u), *_within(t, Fraction(-1), Fraction(1))
    )
    solver.add(*_within(e_store, -TINY, TINY))  # the stored scores' absolute errors, divided by N
    solver.add(gamma >= 0, gamma <= (count - 1) * rational(u / (1 - Fraction(1, 2**13))))
    solver.add(*_within(f, *factor), *_within(e_last, -TINY, TINY))
    return (mean * (1 + d_store) + e_store) * (1 + t * gamma) * f + e_last - mean


def _float_mean_bound(count: Term) -> Term:
    """(N + 3) u (1 + 2^-12) + 4 2^-1075: a bound on a float-score mean's error (checked as a lemma, then used)."""
    return (count + 3) * rational(UNIT * (1 + Fraction(1, 2**12))) + 4 * rational(TINY)


def _exceeds(base: list[Term], build: Callable[[z3.Solver], Term], limit: Term, shown: dict[str, Term]) -> str | None:
    """None when z3 proves |build(solver)| <= limit on *base*: one query per sign (linear in the error).

    *build* is called at once (a closure over the caller's loop variables is safe)."""
    for sign in (1, -1):
        solver = z3.SolverFor("QF_NRA")
        solver.add(*base)
        difference = build(solver)
        solver.add(sign * difference > limit)
        found = refute_terms(solver, {**shown, "computed - exact": difference})
        if found:
            return found
    return None


def _range_problem(path: _Path, inputs: _Inputs, assumed: list[Term], what: str) -> str | None:
    """None when *path*'s conditions imply the error model's range *assumed*."""
    solver = z3.SolverFor("QF_NRA")
    solver.add(*inputs.basics(), *path.conditions, z3.Not(z3.And(*assumed)))
    found = refute_terms(solver, {"a": inputs.a, "L": inputs.n_queries, "D": inputs.denominator})
    return None if found is None else f"{what} certifies outside the proved range: {found}"


def _index_key_problem() -> str | None:
    """IndexKey's tolerance exceeds 2 (1 + u) times each approximation's error, where it is finite."""
    module = importlib.import_module("sysrs_ref.algorithms.ucb_index")
    inputs = _Inputs.fresh()

    def call(path: _Path) -> object:
        with _traced(module.IndexKey.tolerance_for) as tolerance_for:
            return tolerance_for(Traced(inputs.a, floating=False, path=path))

    for tolerance, path in _paths(call):
        if not isinstance(tolerance, Traced):
            if tolerance != math.inf:
                return f"IndexKey.tolerance_for returned {tolerance!r} on a path"
            continue  # infinite: never certifies
        assumed = [inputs.a > rational(A_LOW), inputs.a < rational(A_HIGH)]
        problem = _range_problem(path, inputs, assumed, "IndexKey.tolerance_for")
        if problem:
            return problem
        count = z3.Real("N")
        base = [*inputs.basics(), *path.conditions, *assumed, count >= 1]
        found = _exceeds(
            base,
            lambda solver: _index_error(solver, inputs, count, (1 - UNIT, 1 + UNIT), "key", TINY),  # noqa: B023
            tolerance.lower() / (2 * (1 + rational(UNIT))),
            {"a": inputs.a, "N": count, "tolerance": tolerance.lower()},
        )
        if found:
            return f"IndexKey: the tolerance is below twice an approximation's error: {found}"
    return None


class _Table:
    """What bounds_for reads of a ScoreTable, symbolic."""

    def __init__(self, inputs: _Inputs, exact: bool, path: _Path) -> None:
        self.n_queries = Traced(inputs.n_queries, floating=False, path=path)
        self.denominator = Traced(inputs.denominator, floating=False, path=path)
        self.exact = exact
        self._largest = Traced(inputs.largest, floating=False, path=path)

    def largest_row_sum(self) -> Traced:
        return self._largest


def _lower(value: object) -> Term:
    if isinstance(value, Traced):
        return value.lower()
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return rational(Fraction(value))
    raise TypeError(f"bounds_for returned {value!r}")


def _bounds_problem() -> str | None:
    """Every path of bounds_for that returns gives gap and mean_tol covering the errors (or exact means)."""
    module = importlib.import_module("sysrs_ref.fast._ucb_exact")
    u = UNIT
    for exact in (True, False):
        inputs = _Inputs.fresh()

        def call(path: _Path, exact: bool = exact, inputs: _Inputs = inputs) -> object:
            with _traced(module.bounds_for) as bounds_for:
                return bounds_for(_Table(inputs, exact, path), Traced(inputs.a, floating=False, path=path))

        for result, path in _paths(call):
            bounds = cast(Bounds, result)  # its float fields hold Traced values
            integer = bool(bounds.integer)
            assumed = [inputs.a > rational(A_LOW), inputs.a < rational(A_HIGH), inputs.n_queries < MAX_L]
            if integer:
                assumed += [exact, inputs.n_queries * inputs.denominator < 2**900] if exact else [z3.BoolVal(False)]
            what = f"bounds_for ({'integer' if integer else 'float'} scores)"
            problem = _range_problem(path, inputs, assumed, what)
            if problem:
                return problem
            gap, mean_tol = _lower(bounds.gap), _lower(bounds.mean_tol)
            count = z3.Real("N")
            base = [*inputs.basics(), *path.conditions, *assumed, count >= 1, count <= inputs.n_queries]

            # the float indices (and their running minima, the keys): error <= gap / 4
            def index(solver: z3.Solver, inputs: _Inputs = inputs, count: Term = count) -> Term:
                return _index_error(solver, inputs, count, ((1 - u) ** 4, (1 + u) ** 4), "index", Fraction(0))

            if not integer:
                lemma = _exceeds(
                    base,
                    lambda solver: _float_mean_error(solver, count, "lemma", ((1 - u) ** 2, (1 + u) ** 2)),  # noqa: B023
                    _float_mean_bound(count),
                    {"N": count},
                )
                if lemma:
                    return f"{what}: the float mean's error exceeds (N + 3) u (1 + 2^-12) + 4 2^-1075: {lemma}"

            shown = {"L": inputs.n_queries, "N": count, "a": inputs.a, "gap": gap}
            if integer:
                found = _exceeds(base, index, gap / 4, shown)
            else:  # in two steps (one query is too hard for z3): the root part's error, then the sum of the bounds
                root_bound = 5 * rational(u) * (1 + inputs.root_a) + 2 * rational(ROOT_TINY)
                found = _exceeds(
                    base,
                    functools.partial(
                        _index_error,
                        inputs=inputs,
                        count=count,
                        mean_factor=(Fraction(1), Fraction(1)),
                        name="index",
                        mean_tiny=Fraction(0),
                    ),
                    root_bound,
                    {"N": count, "a": inputs.a},
                )
                if found is None:
                    solver = z3.SolverFor("QF_NRA")
                    solver.add(*base, _float_mean_bound(count) * (1 + rational(u)) + root_bound > gap / 4)
                    found = refute_terms(solver, shown)
            if found:
                return f"{what}: a float index's error exceeds gap / 4: {found}"
            if getattr(bounds, "means_exact") is True:  # noqa: B009  # reason: bounds is a traced Bounds (object)
                found = _means_exact_counterexample(base, inputs)
                if found:
                    return f"{what}: means_exact, yet two distinct means may round out of order: {found}"
                continue

            def final(solver: z3.Solver, integer: bool = integer, count: Term = count) -> Term:
                if not integer:
                    return _float_mean_error(solver, count, "final", (1 - u, 1 + u))
                mean, f = z3.Reals("final_mean final_f")
                solver.add(*_within(mean, Fraction(0), Fraction(1)), *_within(f, (1 - u) ** 3, (1 + u) ** 3))
                return mean * f - mean

            found = _exceeds(
                base,
                final,
                mean_tol / 4,
                {"L": inputs.n_queries, "N": count, "mean_tol": mean_tol},
            )
            if found:
                return f"{what}: a final mean's error exceeds mean_tol / 4: {found}"
    return None


def _means_exact_counterexample(base: list[Term], inputs: _Inputs) -> str | None:
    """None when, on the path, distinct means P1/(N1 D) < P2/(N2 D) round to floats in the same strict order."""
    u = UNIT
    solver = z3.SolverFor("QF_NRA")
    m1, m2, n1, n2, d1, d2 = z3.Reals("m1 m2 N1 N2 d1 d2")
    solver.add(*base, *_within(m1, Fraction(0), Fraction(1)), *_within(m2, Fraction(0), Fraction(1)))
    solver.add(n1 >= 1, n1 <= inputs.n_queries, n2 >= 1, n2 <= inputs.n_queries)
    solver.add((m2 - m1) * n1 * n2 * inputs.denominator >= 1)  # |P2 N1 - P1 N2| >= 1: distinct, m1 < m2
    solver.add(*_within(d1, -u, u), *_within(d2, -u, u))  # P, N D exact (< 2^53): one rounding, the quotient
    solver.add(m1 * (1 + d1) >= m2 * (1 + d2))
    return refute_terms(solver, {"L": inputs.n_queries, "D": inputs.denominator, "m1": m1, "m2": m2})


def _guard_problem() -> str | None:
    """None when bounds_for refuses L = 2^40 and accepts L = 2^40 - 1 (a tiny table of that shape)."""
    module = importlib.import_module("sysrs_ref.fast._ucb_exact")
    for n_queries, refused in ((MAX_L - 1, False), (MAX_L, True), (2**62, True)):
        table = SimpleNamespace(n_queries=n_queries, denominator=1, exact=True, largest_row_sum=lambda: 1)
        try:
            module.bounds_for(table, Fraction(1))
        except ValueError:
            if not refused:
                return f"bounds_for refuses L={n_queries}, inside the range"
            continue
        if refused:
            return f"bounds_for certifies L={n_queries}, outside the proved range [1, 2^40)"
    return None


class _Real:
    """A float64 of IndexKey.__lt__, symbolic: a z3 real; a difference is rounded once (times 1 + d, |d| <= u)."""

    def __init__(self, value: Term, run: Run) -> None:
        self.term = value
        self.run = run

    def _other(self, other: object) -> Term:
        return other.term if isinstance(other, _Real) else rational(Fraction(cast(Any, other)))

    def __sub__(self, other: object) -> _Real:
        rounded, error = z3.FreshReal("gap"), z3.FreshReal("d")
        self.run.assume(error >= -rational(UNIT), error <= rational(UNIT))
        self.run.assume(rounded == (self.term - self._other(other)) * (1 + error))
        return _Real(rounded, self.run)

    def __neg__(self) -> _Real:
        return _Real(-self.term, self.run)  # exact in floats

    def __gt__(self, other: object) -> bool:
        return self.run.branch(self.term > self._other(other))

    def __lt__(self, other: object) -> bool:
        return self.run.branch(self.term < self._other(other))


def _index_key_use_problem() -> str | None:
    """IndexKey.__lt__ decides by floats only where the exact indices compare the same way.

    The real ``__lt__`` runs on two keys whose approximations x1, x2 are within e1, e2 of the exact indices U1,
    U2, each e at most tolerance / (2 (1 + u)) (what ``_index_key_problem`` proves of ``tolerance_for``), its
    float difference rounded once; ``compare_indices`` answers by its proved contract (sign(U1 - U2),
    claim code-ucb-contracts-symbolic). On every path: True only if U1 > U2, or U1 = U2 and rank1 < rank2.
    """
    module = importlib.import_module("sysrs_ref.algorithms.ucb_index")
    names = ("U1", "U2", "x1", "x2", "tolerance")

    def call(run: Run) -> object:
        exact1, exact2, approx1, approx2, tolerance = (z3.Real(name) for name in names)
        bound = tolerance / (2 * (1 + rational(UNIT)))
        run.assume(tolerance > 0, z3.Abs(approx1 - exact1) <= bound, z3.Abs(approx2 - exact2) <= bound)
        keys = []
        for approx, rank in ((approx1, 0), (approx2, 1)):
            key = object.__new__(module.IndexKey)
            key.approx, key.tolerance, key.rank = _Real(approx, run), _Real(tolerance, run), rank
            key.mean = key.count = key.a = None
            keys.append(key)

        def exact_sign(*_: object) -> int:
            if run.branch(exact1 > exact2):
                return 1
            return -1 if run.branch(exact1 < exact2) else 0

        with mock.patch.object(module, "compare_indices", exact_sign):
            return bool(keys[0] < keys[1]), exact1, exact2

    try:
        for path in explore(call):
            answer, exact1, exact2 = cast(tuple[bool, Term, Term], path.value)
            assert path.run is not None
            solver = path.run.solver
            solver.add(z3.Not(exact1 >= exact2) if answer else exact1 > exact2)
            if solver.check() == z3.sat:
                model = solver.model()
                shown = ", ".join(f"{name}={model.eval(z3.Real(name), model_completion=True)}" for name in names)
                return f"IndexKey.__lt__ answers {answer} where the exact indices say otherwise: {shown}"
    except (TypeError, ArithmeticError, AttributeError) as err:
        return f"IndexKey.__lt__ could not run on symbolic keys: {err}"
    return None


def check_ucb_tolerance() -> Outcome:
    """The UCB-E paths' tolerances cover every key's rounding on the range, and nothing outside is certified."""
    methods = (Method.SMT,)
    started = time.perf_counter()
    for use, check in (
        ("IndexKey.tolerance_for", _index_key_problem),
        ("IndexKey.__lt__ (the tolerance's use)", _index_key_use_problem),
        ("bounds_for", _bounds_problem),
        ("bounds_for's guard", _guard_problem),
    ):
        try:
            problem = check()
        except (TypeError, AttributeError) as err:
            problem = f"{use}: the tolerance could not be traced through the code: {err}"
        if problem is not None:
            return Outcome(
                Status.FAILS,
                Method.SMT,
                f"{use}: the tolerance does not cover the rounding. Counterexample: {problem}.",
                counterexample=problem,
                methods=methods,
                domain=DOMAIN,
            )
    return Outcome(
        Status.HOLDS,
        Method.SMT,
        f"Proved ({time.perf_counter() - started:.1f} s): the real IndexKey.__lt__, run on symbolic keys within that "
        "error of their exact indices, answers by floats only where the exact indices agree, on each of its paths; "
        "on every path of IndexKey.tolerance_for and bounds_for "
        "that certifies, 'a key's error exceeds what its use needs' is unsat in nonlinear real arithmetic "
        "(decidable), with the errors derived in proofs_check/code_ucb.py from the IEEE model and the tolerances "
        "traced through the code on symbolic a, L, D; the paths' guards imply the model's range; bounds_for "
        "raises ValueError for L >= 2^40 (the kernels then run the reference).",
        methods=methods,
        domain=DOMAIN,
    )


CLAIMS = (
    Claim(
        "code-ucb-tolerance",
        "sysrs_ref/algorithms/ucb_index.py: IndexKey; sysrs_ref/fast/_ucb_exact.py: bounds_for; the UCB-E fast path",
        "a float comparison the UCB-E paths certify has the sign of the exact one: IndexKey's tolerance and "
        "bounds_for's gap and mean_tol cover the IEEE rounding of every key as computed, and L >= 2^40 is refused",
        Status.HOLDS,
        check_ucb_tolerance,
        weight=2.5,
    ),
)
