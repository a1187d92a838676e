"""The fast paths' certified float comparisons (sysrs_ref/fast/certify.py): the tolerance covers the rounding.

The numpy and compiled passes of SR/SySRs, US/SyUS and SAR/SySAR compare
float64 sums of N scores and send only the comparisons closer than
``tolerance(N, largest)`` to exact resolution. The claim: over the stated
range, the tolerance the code computes is at least the rounding error of
every compared quantity, so a comparison the floats decide has the sign of
the exact one.

**The IEEE double model.** u = 2^-53; each operation on normal floats is
exact times (1 + d), |d| <= u; an integer below 2^53 converts exactly.

**The error of a key.** A score x_t in [0, 1] (zero or at least 2^-1022)
is stored as x_t (1 + d_t); a sum of N of them, added in any order (each
term in at most N - 1 additions), is within gamma_(N-1) of the sum of the
stored terms (Higham, *Accuracy and Stability of Numerical Algorithms*,
eq. 4.4), gamma_m = m u / (1 - m u). So the float sum S' of exact sum S has
|S' - S| <= E(N) S, E(N) = u + (1 + u) gamma_(N-1). Every compared sum is at
most the largest float sum M over (1 - E), so each is off by at most
E M / (1 - E). The uses:

- SR/SySRs (numpy and the compiled pass): a sum is a candidate for the
  minimum when S'_j <= fl(S'_min + tol): two sums' errors, 2 E M / (1 - E)
  (rounding is monotone, so the float threshold loses nothing);
- US/SyUS: neighbours closer than tol are re-sorted: two sums and one
  subtraction (at most u M): 2 E M / (1 - E) + u M;
- SAR/SySAR: the gap difference (S'_1 - S'_(m'+1)) - (S'_(m') - S'_last):
  four sums and three subtractions: 4 E M / (1 - E) + (4 u + 2 u^2) M.

The tolerance is not copied: :func:`sysrs_ref.fast.certify.tolerance` is
run on symbolic N and M (every float operation counted as one rounding,
conversions of N + 1 too), and the compiled pass's threshold is read from
``sysrs_ref/fast/_csrc/phases.c``. z3 (nonlinear real arithmetic, decidable)
answers unsat to "some N in [1, MAX_TERMS) and M > 0 have error > the
tolerance's lower bound", for each use. The claim also checks that
``tolerance`` refuses N outside [0, MAX_TERMS), and that phases.c guards its
threshold with ``CERTIFIED_TERMS`` <= MAX_TERMS (a phase outside is left
unsettled, for exact resolution; tests/fast/test_compiled.py runs it).
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import numpy as np
import z3  # type: ignore[import-untyped]  # reason: z3-solver ships no type information

from proofs_check.claim import Claim, Method, Outcome, Status
from proofs_check.smt import Term, rational
from sysrs_ref._files import SMALL_FILE_BYTES, read_regular

__all__ = ["CLAIMS", "Traced", "check_tolerance"]

UNIT = Fraction(1, 2**53)
PHASES_C = Path(__file__).resolve().parent.parent / "sysrs_ref" / "fast" / "_csrc" / "phases.c"


def _phases_source() -> str:
    """The text of :data:`PHASES_C`, read by the package's one reading rule (a regular file, bounded)."""
    return read_regular(PHASES_C, SMALL_FILE_BYTES).decode("utf-8")


_C_THRESHOLD = re.compile(r"smallest \+ \(double\)\(counts\[slot\] \+ 1\) \* (0x[0-9a-fA-F.]+p[+-]?\d+) \* largest")


class _Path:
    """The branch decisions of one symbolic run: each comparison takes the next decision (True when new)."""

    def __init__(self, decisions: list[bool] | None = None) -> None:
        self.decisions = [] if decisions is None else decisions
        self.taken = 0
        self.conditions: list[Term] = []

    def branch(self, condition: Term) -> bool:
        if self.taken == len(self.decisions):
            self.decisions.append(True)
        decision = self.decisions[self.taken]
        self.taken += 1
        self.conditions.append(condition if decision else z3.Not(condition))
        return decision

    def next(self) -> _Path | None:
        """The next path to try (depth first), or None when every branch was explored."""
        decisions = self.decisions[: self.taken]
        while decisions and not decisions[-1]:
            decisions.pop()
        if not decisions:
            return None
        decisions[-1] = False
        return _Path(decisions)


class Traced:
    """A value computed by the code under test, run on symbolic inputs.

    ``exact`` is the value without rounding (a z3 term), ``rounds`` the
    number of float roundings on the way (each a factor in [1 - u, 1 + u]),
    ``floating`` whether it is a float (an int stays exact). Only + and * of
    non-negative values are traced: for those, the computed value is at
    least ``exact (1 - u)^rounds``. A comparison is a branch: the code is run
    once per path (:class:`_Path`), and each path that returns carries its
    conditions.
    """

    def __init__(self, exact: Term, rounds: int = 0, *, floating: bool, path: _Path | None = None) -> None:
        self.exact = exact
        self.rounds = rounds
        self.floating = floating
        self.path = _Path() if path is None else path

    @staticmethod
    def _of(value: object) -> Traced:
        if isinstance(value, Traced):
            return value
        if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
            raise TypeError(f"cannot trace an operation with {type(value).__name__}")
        if isinstance(value, float) and not (value >= 0 and value == value):
            raise TypeError(f"only non-negative finite floats are traced, got {value}")
        return Traced(rational(Fraction(value)), floating=isinstance(value, float))

    def _combine(self, other: object, exact: Callable[[Term, Term], Term]) -> Traced:
        right = Traced._of(other)
        floating = self.floating or right.floating
        # a float operation rounds once; an int operand converted to float is counted as one more rounding
        conversions = int(floating and not self.floating) + int(floating and not right.floating)
        rounds = self.rounds + right.rounds + (1 + conversions if floating else 0)
        return Traced(exact(self.exact, right.exact), rounds, floating=floating, path=self.path)

    def _assume(self, condition: Term) -> bool:
        return self.path.branch(condition)

    def __lt__(self, other: object) -> bool:
        return self._assume(self.exact < Traced._of(other).exact)

    def __le__(self, other: object) -> bool:
        return self._assume(self.exact <= Traced._of(other).exact)

    def __gt__(self, other: object) -> bool:
        return self._assume(self.exact > Traced._of(other).exact)

    def __ge__(self, other: object) -> bool:
        return self._assume(self.exact >= Traced._of(other).exact)

    def __add__(self, other: object) -> Traced:
        return self._combine(other, lambda a, b: a + b)

    __radd__ = __add__

    def __mul__(self, other: object) -> Traced:
        return self._combine(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __pow__(self, exponent: int) -> Traced:
        if not isinstance(exponent, int) or exponent < 1:
            raise TypeError(f"only positive integer powers are traced, got {exponent!r}")
        result = self
        for _ in range(exponent - 1):
            result = result * self
        return result

    def lower(self) -> Term:
        """A lower bound of the computed value (for non-negative operands)."""
        return self.exact * rational((1 - UNIT) ** self.rounds)


def _certify_module() -> Any:
    """sysrs_ref.fast.certify, looked up when the claim runs (so a patched tolerance is the one checked)."""
    return importlib.import_module("sysrs_ref.fast.certify")


def _python_tolerance(n_terms: Term, largest: Term) -> list[Traced]:
    """The tolerance the code returns on each of its paths that return (a path that raises refuses)."""
    function = cast(Callable[[object, object], object], _certify_module().tolerance)
    returned: list[Traced] = []
    path: _Path | None = _Path()
    while path is not None:
        try:
            result = function(Traced(n_terms, floating=False, path=path), Traced(largest, floating=True, path=path))
        except ValueError:
            result = None
        if result is not None:
            if not isinstance(result, Traced):
                raise TypeError(f"tolerance returned {type(result).__name__} on traced inputs")
            returned.append(result)
        path = path.next()
    return returned


def _compiled_tolerance(n_terms: Term, largest: Term) -> list[Traced]:
    match = _C_THRESHOLD.search(_phases_source())
    if match is None:
        raise ValueError(f"no threshold smallest + (double)(counts[slot] + 1) * C * largest in {PHASES_C}")
    return [(Traced(n_terms, floating=False) + 1) * float.fromhex(match.group(1)) * Traced(largest, floating=True)]


def _refute_use(
    tolerance: Callable[[Term, Term], list[Traced]], sums: int, extra: Fraction, max_terms: int
) -> dict[str, str] | None:
    """None when z3 proves sums * E M / (1 - E) + extra M <= tolerance for all N in [1, max_terms), M > 0."""
    n, m = z3.Reals("N M")
    for traced in tolerance(n, m):
        found = _refute_path(traced, n, m, sums, extra, max_terms)
        if found is not None:
            return found
    return None


def _refute_path(traced: Traced, n: Term, m: Term, sums: int, extra: Fraction, max_terms: int) -> dict[str, str] | None:
    solver = z3.SolverFor("QF_NRA")
    g, ratio = z3.Reals("gamma ratio")
    u = rational(UNIT)
    solver.add(n >= 1, n <= max_terms - 1, m > 0)
    solver.add(g * (1 - (n - 1) * u) == (n - 1) * u, g >= 0)  # gamma_(N-1); 1 - (N-1) u > 0 on the range
    error = u + (1 + u) * g
    solver.add(error < 1, ratio * (1 - error) == error)
    solver.add(*traced.path.conditions)  # the path on which the code returns this tolerance
    need = sums * ratio * m + rational(extra) * m
    solver.add(need > traced.lower())
    result = solver.check()
    if result == z3.unsat:
        return None
    if result != z3.sat:
        return {"z3": f"{result} ({solver.reason_unknown()}): no proof"}
    model = solver.model()

    def shown(term: Term) -> str:
        value = model.eval(term, model_completion=True)
        if z3.is_rational_value(value):
            exact = Fraction(value.numerator_as_long(), value.denominator_as_long())
            return str(exact) if exact.denominator == 1 else f"{float(exact):.17g}"
        return str(value.as_decimal(30))

    return {"N": shown(n), "M": shown(m), "error bound": shown(need), "tolerance": shown(traced.lower())}


_C_RANGE = re.compile(r"#define CERTIFIED_TERMS \(\(\(int64_t\)1\) << (\d+)\)")
_C_GUARD = "if (counts[slot] < 0 || counts[slot] >= CERTIFIED_TERMS)"


def _compiled_guard_problem(max_terms: int) -> str | None:
    """None when phases.c leaves unsettled every phase of N outside [0, CERTIFIED_TERMS), CERTIFIED_TERMS <= MAX_TERMS."""
    source = _phases_source()
    match = _C_RANGE.search(source)
    if match is None or _C_GUARD not in source:
        return f"phases.c has no guard '{_C_GUARD}' with CERTIFIED_TERMS = 2^k: the compiled pass would certify any N"
    if 2 ** int(match.group(1)) > max_terms:
        return f"phases.c certifies N < 2^{match.group(1)}, beyond the proved range [0, {max_terms})"
    return None


def _guard_problem(max_terms: int) -> str | None:
    """None when tolerance refuses N = -1 and N = MAX_TERMS and accepts N = MAX_TERMS - 1 and 0."""
    function = _certify_module().tolerance
    one = np.array(1.0)
    for n_terms, refused in ((-1, True), (max_terms, True), (max_terms - 1, False), (0, False)):
        try:
            function(n_terms, one)
        except ValueError:
            if not refused:
                return f"tolerance refuses N={n_terms}, inside the range"
            continue
        if refused:
            return f"tolerance certifies N={n_terms}, outside the proved range [0, {max_terms})"
    return None


USES: tuple[tuple[str, str, int, Fraction], ...] = (
    ("SR/SySRs, numpy", "python", 2, Fraction(0)),
    ("SR/SySRs, compiled (phases.c)", "compiled", 2, Fraction(0)),
    ("US/SyUS", "python", 2, UNIT),
    ("SAR/SySAR", "python", 4, 4 * UNIT + 2 * UNIT**2),
)
"""(use, which tolerance, sums combined, extra rounding per unit of M) of every certified comparison."""


def check_tolerance() -> Outcome:
    """The certification tolerance is at least every certified comparison's rounding error, on the range."""
    methods = (Method.SMT,)
    started = time.perf_counter()
    max_terms = int(getattr(_certify_module(), "MAX_TERMS", 0))
    domain = (
        f"every N in [1, {max_terms}) terms (sysrs_ref.fast.certify.MAX_TERMS), every largest sum M > 0, "
        "scores in [0, 1] that are 0 or normal floats (>= 2^-1022); sums <= N"
    )
    if max_terms < 2:
        return _failed(methods, domain, "certify.MAX_TERMS is missing: no stated range.", "MAX_TERMS absent")
    tolerances: dict[str, Callable[[Term, Term], list[Traced]]] = {
        "python": _python_tolerance,
        "compiled": _compiled_tolerance,
    }
    for use, which, sums, extra in USES:
        try:
            found = _refute_use(tolerances[which], sums, extra, max_terms)
        except (TypeError, ValueError) as err:
            return _failed(methods, domain, f"{use}: the tolerance could not be read from the code.", str(err))
        if found is not None:
            shown = ", ".join(f"{k}={v}" for k, v in found.items())
            return _failed(
                methods,
                domain,
                f"{use}: the tolerance is below the proved rounding error of {sums} sums.",
                f"{use}: {shown}",
            )
    problem = _guard_problem(max_terms) or _compiled_guard_problem(max_terms)
    if problem is not None:
        return _failed(methods, domain, "The code certifies outside the proved range.", problem)
    return Outcome(
        Status.HOLDS,
        Method.SMT,
        f"Proved ({time.perf_counter() - started:.1f} s): for each use ({'; '.join(u for u, *_ in USES)}), "
        "'error > tolerance' is unsat in nonlinear real arithmetic (decidable), with the error bound derived "
        "in proofs_check/code_certify.py from the IEEE model and the tolerance traced through the code (the "
        "Python function on symbolic N and M; the compiled threshold read from phases.c). tolerance() raises "
        f"ValueError for N < 0 and N >= {max_terms}, and phases.c leaves such phases unsettled (exact).",
        methods=methods,
        domain=domain,
    )


def _failed(methods: tuple[Method, ...], domain: str, detail: str, counterexample: str) -> Outcome:
    return Outcome(
        Status.FAILS,
        methods[0],
        f"{detail} Counterexample: {counterexample}.",
        counterexample=counterexample,
        methods=methods,
        domain=domain,
    )


CLAIMS = (
    Claim(
        "code-certify-tolerance",
        "sysrs_ref/fast/certify.py: tolerance; _csrc/phases.c; the SR, US and SAR fast paths",
        "a float comparison the fast paths certify has the sign of the exact one: the tolerance is at least the "
        "IEEE rounding error of every compared quantity, and N outside the range is refused",
        Status.HOLDS,
        check_tolerance,
    ),
)
