"""How the fast kernels use their tolerances, read from their source: every float comparison goes through a margin.

``code-certify-tolerance`` proves (z3) that ``certify.tolerance(N, M)`` is at
least twice the rounding error of the float sums the SR/SySRs, US/SyUS and
SAR/SySAR kernels compare, in the three forms those kernels use, and
``code-ucb-tolerance`` that the UCB-E fast path's ``gap`` and ``mean_tol``
(``_ucb_exact.bounds_for``) are. Those proofs hold for the code only if the
kernels compare floats *through* those margins, unnarrowed. This claim reads
the kernels' source and checks exactly that, by structural rules (no line
numbers), so a rewrite keeps being checked.

**Python** (:data:`PYTHON_KERNELS`, their syntax trees). In every function,
a name is *float* when it is a parameter or variable annotated float64, or
is assigned from an expression that reads a float (a float name, a
:data:`FLOAT_ATTRIBUTES` field, a call of a :data:`FLOAT_CALLS` function,
or a function of the fast package whose return annotation is float64);
arg-max/arg-min/arg-sort/count/length results and comparisons are not
floats. A *margin* is a call of ``tolerance(...)``, a ``.gap`` or
``.mean_tol`` field, a name bound to one, a subscript of one, a margin times
a literal >= 1, or ``max`` of a margin and anything (wider margins are
sound: a near set grows, a far test gets stricter). The rules:

1. every comparison (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``, and
   numpy's ``np.less`` ... ``np.isclose`` calls) with a float operand is a *margin comparison* (one side is a margin or
   ``x ± margin``, through subscripts), or a *zero test* ``x > 0`` of a
   non-negative float sum (a name whose definition subtracts nothing: a
   float sum of non-negative terms is 0.0 exactly when every term is 0), or
   a *sign test* ``x > 0`` of a difference x that the same function also
   tests as ``abs(x) > margin`` (the raw sign is then only trusted where
   the margin certifies it; the SAR kernel's gap difference);
2. a margin is never narrowed: it is never divided, subtracted from,
   multiplied by anything but a literal >= 1, or raised to a power, and
   ``tolerance`` is called on plain arguments (no arithmetic on the count
   or the largest sum);
3. the compiled cut's margin is the proved one: the first of the settings
   ``cut_tables`` passes to the compiled cut is ``bounds.gap``.

**C** (:data:`C_FUNCTIONS`: the float SR pass ``eliminate_floats`` and the
UCB-E cut ``ucb_cut_``, comments stripped). Every ``double`` and the float
arrays each function reads are floats; the margins are ``threshold``,
defined once as ``smallest + (double)(counts[slot] + 1) * 2^-50 * largest``
(the formula ``code-certify-tolerance`` proves, read from this same text),
and ``gap``, defined once as ``settings[0]``. Every comparison with a float
operand is a margin comparison, a zero test (``> 0.0``), or a minimum or
maximum (``a < b ? a : b``: a selection, exact on floats); a margin is never
multiplied or divided.

**Domain.** The comparisons written as comparisons in those functions.
Sorts, arg-min/arg-max, partitions and binary searches of floats are exact
operations on the floats and are not read here; a decision taken from one
without a certification is what ``code-fast-certified`` (every small float
instance against the reference) catches, as it catches a margin applied on
the wrong side. The exact resolutions of ``_ucb_exact`` (windows of float
keys chained by gaps) and the compiled order statistics (``select.c``) are
covered by that exhaustive claim only.
"""

from __future__ import annotations

import ast
import itertools
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from proofs_check.claim import Claim, Method, Outcome, Status

__all__ = [
    "CLAIMS",
    "C_FUNCTIONS",
    "FLOAT_ATTRIBUTES",
    "FLOAT_CALLS",
    "PYTHON_KERNELS",
    "check_tolerance_use",
    "read_source",
]

FAST = Path(__file__).resolve().parent.parent / "sysrs_ref" / "fast"
#: The Python kernels whose float comparisons are read (paths under sysrs_ref/fast).
PYTHON_KERNELS = ("_elimination.py", "_uniform.py", "_accept_reject.py", "_ucb.py")
#: The compiled passes that certify float comparisons: (file under sysrs_ref/fast/_csrc, function, float arrays read).
C_FUNCTIONS = (
    ("phases.c", "eliminate_floats", ("sums",)),
    ("cut.inc", "NAME(ucb_cut_)", ("nearest", "theta", "inverse", "divisors", "roots")),
)
#: Fields that hold float sums or keys: PhaseSums.floats (certified float sums), Runs.keys (the UCB-E float keys)
#: when read from a group of runs or a run's view.
FLOAT_ATTRIBUTES = ("floats", "runs.keys", "view.keys", "approx")
#: Calls whose result is float: the float prefix sums and the float means of the indices.
FLOAT_CALLS = ("prefix_at", "float_means", "np.divide")
_INTEGER_CALLS = frozenset(
    {
        "argmax",
        "argmin",
        "argsort",
        "lexsort",
        "flatnonzero",
        "nonzero",
        "argwhere",
        "searchsorted",
        "count_above",
        "len",
        "int",
        "bool",
        "range",
        "unique",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "equal",
        "not_equal",
        "isclose",
    }
)
_INTEGER_ATTRIBUTES = frozenset({"shape", "size", "ndim", "dtype", "rank", "n_runs", "n_models", "n_queries"})
#: Modules read for the return annotations of the functions the kernels call (with the kernels themselves).
_ANNOTATED = ("_ucb_runs.py", "_ucb_exact.py", "_compiled.py", "_kernel.py", "certify.py")
_MARGIN_ATTRIBUTES = frozenset({"gap", "mean_tol"})
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
#: numpy's comparisons written as calls, read as the operators they are.
_COMPARISON_CALLS: dict[str, ast.cmpop] = {
    "np.less": ast.Lt(),
    "np.less_equal": ast.LtE(),
    "np.greater": ast.Gt(),
    "np.greater_equal": ast.GtE(),
    "np.equal": ast.Eq(),
    "np.not_equal": ast.NotEq(),
    "np.isclose": ast.Eq(),
}
_FLOAT_ANNOTATION = re.compile(r"float64|FloatArray")


def read_source(relative: str) -> str:
    """The text of *relative* (a path under ``sysrs_ref/fast``)."""
    return (FAST / relative).read_text(encoding="utf-8")


# --- Python ------------------------------------------------------------------------------------------------------


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of attributes on a name, else ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _called(node: ast.Call) -> str:
    """The called name: ``f`` for ``f(...)``, ``np.f`` for ``np.f(...)``, ``m`` for ``x.m(...)`` and ``m.f(...)``."""
    text = _dotted(node.func) or (node.func.attr if isinstance(node.func, ast.Attribute) else "")
    return text if text.startswith("np.") or "." not in text else text.rsplit(".", 1)[1]


@dataclass
class _Function:
    """One function's float names and margins, found by a fixpoint over its assignments."""

    node: ast.FunctionDef
    returns: Mapping[str, tuple[bool, ...]]
    floats: set[str]
    margins: set[str]

    def is_margin(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.margins
        if isinstance(node, ast.Attribute):
            return node.attr in _MARGIN_ATTRIBUTES
        if isinstance(node, ast.Subscript):
            return self.is_margin(node.value)
        if isinstance(node, ast.Call):
            name = _called(node)
            if name == "tolerance":
                return True
            return name == "max" and any(self.is_margin(arg) for arg in node.args)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if self.is_margin(one) and _literal_at_least_one(other):
                    return True
        return False

    def is_float(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.floats
        if isinstance(node, ast.Attribute):
            if node.attr in _INTEGER_ATTRIBUTES:
                return False
            dotted = _dotted(node)
            if node.attr in FLOAT_ATTRIBUTES or any(
                dotted.endswith(field) for field in FLOAT_ATTRIBUTES if "." in field
            ):
                return True
            return self.is_float(node.value)
        if isinstance(node, ast.Subscript):
            return self.is_float(node.value)
        if isinstance(node, ast.BinOp):
            return self.is_float(node.left) or self.is_float(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.is_float(node.operand)
        if isinstance(node, ast.IfExp):
            return self.is_float(node.body) or self.is_float(node.orelse)
        if isinstance(node, ast.Call):
            name = _called(node)
            if name.rsplit(".", 1)[-1] in _INTEGER_CALLS:
                return False
            if name in FLOAT_CALLS:
                return True
            if name in self.returns:
                return any(self.returns[name])
            receiver = isinstance(node.func, ast.Attribute) and self.is_float(node.func.value)
            return receiver or any(self.is_float(arg) for arg in node.args)
        return False

    def targets(self, target: ast.AST, value: ast.AST | None) -> Iterator[tuple[str, ast.AST | None, int]]:
        """(name, the expression assigned to it, its place in a tuple result or -1)."""
        if isinstance(target, ast.Name):
            yield target.id, value, -1
        elif isinstance(target, ast.Tuple):
            if isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts):
                for one, part in zip(target.elts, value.elts, strict=True):
                    yield from self.targets(one, part)
            else:
                for place, one in enumerate(target.elts):
                    if isinstance(one, ast.Name):
                        yield one.id, value, place


def _literal_at_least_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int | float) and node.value >= 1


def _annotated_float(annotation: ast.AST | None) -> bool:
    return annotation is not None and bool(_FLOAT_ANNOTATION.search(ast.unparse(annotation)))


def _return_kinds(trees: Mapping[str, ast.Module]) -> dict[str, tuple[bool, ...]]:
    """Each function of the kernels' package by name: which parts of its result are float (by its annotation)."""
    kinds: dict[str, tuple[bool, ...]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.returns is not None:
                returns = node.returns
                if isinstance(returns, ast.Subscript) and _dotted(returns.value) == "tuple":
                    parts = returns.slice.elts if isinstance(returns.slice, ast.Tuple) else [returns.slice]
                    kinds[node.name] = tuple(_annotated_float(part) for part in parts)
                else:
                    kinds[node.name] = (_annotated_float(returns),)
    return kinds


def _analyse(node: ast.FunctionDef, returns: Mapping[str, tuple[bool, ...]]) -> _Function:
    function = _Function(node, returns, set(), set())
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    function.floats |= {arg.arg for arg in arguments if _annotated_float(arg.annotation)}
    assignments: list[tuple[ast.AST, ast.AST | None]] = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assign):
            assignments += [(target, inner.value) for target in inner.targets]
        elif isinstance(inner, ast.AnnAssign):
            assignments.append((inner.target, inner.value))
            if isinstance(inner.target, ast.Name) and _annotated_float(inner.annotation):
                function.floats.add(inner.target.id)
        elif isinstance(inner, ast.AugAssign):
            assignments.append((inner.target, inner.value))
    changed = True
    while changed:
        changed = False
        for target, value in assignments:
            for name, part, place in function.targets(target, value):
                if part is None:
                    continue
                if place < 0:
                    margin, floating = function.is_margin(part), function.is_float(part)
                elif isinstance(part, ast.Call) and _called(part) in returns:
                    kinds = returns[_called(part)]
                    margin, floating = False, place < len(kinds) and kinds[place]
                else:
                    margin, floating = False, function.is_float(part)
                if margin and name not in function.margins:
                    function.margins.add(name)
                    changed = True
                elif floating and not margin and name not in function.floats:
                    function.floats.add(name)
                    changed = True
    return function


def _has_margin_term(function: _Function, node: ast.AST) -> bool:
    """Is *node* a margin, or x ± margin (through subscripts and sums)?"""
    if function.is_margin(node):
        return True
    if isinstance(node, ast.Subscript):
        return _has_margin_term(function, node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        return _has_margin_term(function, node.left) or _has_margin_term(function, node.right)
    return False


def _subtracts(node: ast.AST) -> bool:
    return any(isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) for inner in ast.walk(node))


def _root(node: ast.AST) -> str:
    inner: ast.AST = node
    while isinstance(inner, ast.Subscript | ast.Attribute):
        inner = inner.value
    return inner.id if isinstance(inner, ast.Name) else ""


def _python_problems(relative: str, tree: ast.Module, returns: Mapping[str, tuple[bool, ...]]) -> Iterator[str]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        function = _analyse(node, returns)
        where = f"sysrs_ref/fast/{relative}, {node.name}()"
        definitions: dict[str, list[ast.AST]] = {}
        certified_signs: set[str] = set()
        comparisons: list[tuple[ast.AST, ast.cmpop, ast.AST, ast.AST]] = []
        for inner in ast.walk(node):
            if isinstance(inner, ast.Assign):
                for target in inner.targets:
                    for name, part, _ in function.targets(target, inner.value):
                        if part is not None:
                            definitions.setdefault(name, []).append(part)
            if isinstance(inner, ast.Compare):
                operands = [inner.left, *inner.comparators]
                for (first, second), op in zip(itertools.pairwise(operands), inner.ops, strict=True):
                    comparisons.append((first, op, second, inner))
                    absolute = isinstance(first, ast.Call) and _called(first) in ("np.abs", "abs") and first.args
                    if isinstance(op, ast.Gt) and function.is_margin(second) and absolute:  # abs(x) > margin: x's sign
                        assert isinstance(first, ast.Call)
                        certified_signs.add(ast.unparse(first.args[0]))
            if isinstance(inner, ast.Call) and _called(inner) in _COMPARISON_CALLS and len(inner.args) >= 2:
                comparisons.append((inner.args[0], _COMPARISON_CALLS[_called(inner)], inner.args[1], inner))
            yield from _narrowed(function, inner, where)
        for left, op, right, whole in comparisons:
            if not isinstance(op, _COMPARISONS) or not (function.is_float(left) or function.is_float(right)):
                continue
            if _has_margin_term(function, left) or _has_margin_term(function, right):
                continue
            if isinstance(op, ast.Gt) and isinstance(right, ast.Constant) and right.value == 0:
                subject = ast.unparse(left)
                if subject in certified_signs:
                    continue  # a sign trusted only where abs(x) > margin certifies it
                root = _root(left)
                if root in function.floats and not any(_subtracts(part) for part in definitions.get(root, [])):
                    continue  # a zero test of a float sum of non-negative terms: exact
            yield f"{where}: `{ast.unparse(whole)}` compares floats without a certified margin"


def _narrowed(function: _Function, node: ast.AST, where: str) -> Iterator[str]:
    """Rule 2: a margin divided, subtracted from, scaled by anything but a literal >= 1; tolerance of arithmetic."""
    if isinstance(node, ast.BinOp) and (
        function.is_margin(node.left) or (function.is_margin(node.right) and not isinstance(node.op, ast.Add | ast.Sub))
    ):
        if isinstance(node.op, ast.Add):
            return
        if isinstance(node.op, ast.Mult) and function.is_margin(node):
            return
        yield f"{where}: `{ast.unparse(node)}` narrows a certified margin (only a literal factor >= 1 may widen it)"
    if isinstance(node, ast.Call) and _called(node) == "tolerance":
        for arg in node.args:
            if any(isinstance(inner, ast.BinOp) for inner in ast.walk(arg)):
                yield f"{where}: `{ast.unparse(node)}` computes the tolerance of a changed count or largest sum"


def _cut_settings_problem(tree: ast.Module) -> Iterator[str]:
    """Rule 3: the compiled cut's first setting is the proved gap."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "cut_tables":
            for inner in ast.walk(node):
                if isinstance(inner, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "settings" for t in inner.targets
                ):
                    call = inner.value
                    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.List):
                        first = call.args[0].elts[0] if call.args[0].elts else None
                        if (
                            isinstance(first, ast.Attribute)
                            and first.attr == "gap"
                            and _dotted(first).endswith("bounds.gap")
                        ):
                            return
            yield "sysrs_ref/fast/_ucb_runs.py, cut_tables(): the compiled cut's first setting is not bounds.gap"
            return
    yield "sysrs_ref/fast/_ucb_runs.py: no cut_tables() found (the settings of the compiled cut)"


# --- C ------------------------------------------------------------------------------------------------------------

_C_TOKEN = re.compile(
    r"0[xX][0-9a-fA-F.]+[pP][+-]?\d+|\d+\.\d*(?:[eE][+-]?\d+)?|\d+|[A-Za-z_]\w*"
    r"|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||->|\+\+|--|[-+*/%&|^]=|[-+*/%<>=!?:;,.(){}\[\]&|^~]"
)
_C_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
_C_STOPS = frozenset({";", ",", "?", ":", "=", "&&", "||", "!", "{", "}", "return", "+=", "-=", "*=", "/="})
_C_STOPS |= _C_COMPARISONS
#: The margins of the compiled passes and their one definition each (token text after ``double NAME =``).
C_MARGINS = {
    "threshold": "smallest + ( double ) ( counts [ slot ] + 1 ) * 0x1p-50 * largest",
    "gap": "settings [ 0 ]",
}


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def _c_body(text: str, function: str) -> str | None:
    """The body of *function* (its text between the braces after its name and parameters)."""
    at = text.find(f"{function}(")
    if at < 0:
        return None
    start = text.find("{", text.find(")", at))
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1 : index]
    return None


def _operand(tokens: list[str], at: int, step: int) -> list[str]:
    """The operand of the comparison at *at*, walking left (step -1) or right (+1) to the first delimiter."""
    opening, closing = ("(", ")") if step > 0 else (")", "(")
    brackets = ("[", "]") if step > 0 else ("]", "[")
    depth, index, found = 0, at + step, []
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token in (opening, brackets[0]):
            depth += 1
        elif token in (closing, brackets[1]):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and token in _C_STOPS:
            break
        found.append(token)
        index += step
    return found[::-1] if step < 0 else found


def _c_problems(relative: str, function: str, arrays: tuple[str, ...], text: str) -> Iterator[str]:
    where = f"sysrs_ref/fast/_csrc/{relative}, {function}"
    body = _c_body(_strip_comments(text), function)
    if body is None:
        yield f"{where}: function not found"
        return
    tokens = _C_TOKEN.findall(body)
    floats = set(arrays)
    for index, token in enumerate(tokens[:-1]):
        if token == "double":  # double a = ..., b = ...;
            spot = index + 1
            while spot < len(tokens) and tokens[spot] != ";":
                if tokens[spot - 1] in ("double", ",") and re.fullmatch(r"[A-Za-z_]\w*", tokens[spot]):
                    floats.add(tokens[spot])
                spot += 1
    margins = {name for name in C_MARGINS if name in tokens}
    for name in margins:
        definitions = [i for i, t in enumerate(tokens[:-1]) if t == name and tokens[i + 1] == "="]
        if len(definitions) != 1:
            yield f"{where}: the margin `{name}` is assigned {len(definitions)} times (once, where it is declared)"
            continue
        start = definitions[0] + 2
        stop = tokens.index(";", start)
        if " ".join(tokens[start:stop]) != C_MARGINS[name]:
            shown = " ".join(tokens[start:stop])
            yield f"{where}: the margin `{name}` is `{shown}`, not the proved `{C_MARGINS[name]}`"
        for i, t in enumerate(tokens):
            if t == name and (
                (i > 0 and tokens[i - 1] in ("*", "/")) or (i + 1 < len(tokens) and tokens[i + 1] in ("*", "/"))
            ):
                yield f"{where}: the margin `{name}` is scaled (`{' '.join(tokens[max(0, i - 2) : i + 3])}`)"
    for index, token in enumerate(tokens):
        if token not in _C_COMPARISONS:
            continue
        left, right = _operand(tokens, index, -1), _operand(tokens, index, 1)
        if not (floats & set(left) or floats & set(right)):
            continue
        shown = f"{' '.join(left)} {token} {' '.join(right)}"
        if margins & (set(left) | set(right)):
            continue
        if token in (">", "!=") and right in (["0.0"], ["0"]):
            continue
        after = index + len(right) + 1
        if after < len(tokens) and tokens[after] == "?":
            branches = _operand(tokens, after, 1)
            rest = _operand(tokens, after + len(branches) + 1, 1)
            if {" ".join(branches), " ".join(rest)} == {" ".join(left), " ".join(right)}:
                continue  # a minimum or maximum: a selection, exact on floats
        yield f"{where}: `{shown}` compares floats without a certified margin"


# --- the claim ----------------------------------------------------------------------------------------------------


def check_tolerance_use(read: Callable[[str], str] = read_source) -> Outcome:
    """Every float comparison of the kernels (Python and C) goes through an unnarrowed, proved margin."""
    started = time.perf_counter()
    methods = (Method.STATIC,)
    domain = (
        "static: every comparison written in every function of sysrs_ref/fast/"
        + ", ".join(PYTHON_KERNELS)
        + " and in the compiled "
        + ", ".join(f"{function} ({relative})" for relative, function, _ in C_FUNCTIONS)
        + "; the settings of the compiled cut (_ucb_runs.cut_tables); sorts, arg-min/max, partitions and searches "
        "of floats and the exact resolutions (_ucb_exact, select.c) are not read (code-fast-certified runs them)"
    )
    trees = {relative: ast.parse(read(relative)) for relative in (*PYTHON_KERNELS, *_ANNOTATED)}
    returns = _return_kinds(trees)
    problems: list[str] = []
    comparisons = 0
    for relative in PYTHON_KERNELS:
        problems += _python_problems(relative, trees[relative], returns)
        comparisons += sum(isinstance(node, ast.Compare) for node in ast.walk(trees[relative]))
    problems += _cut_settings_problem(trees["_ucb_runs.py"])
    for relative, function, arrays in C_FUNCTIONS:
        problems += _c_problems(relative, function, arrays, read(f"_csrc/{relative}"))
    seconds = time.perf_counter() - started
    if problems:
        return Outcome(
            Status.FAILS,
            methods[0],
            f"A kernel compares floats outside a certified margin, or narrows one: {problems[0]}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
            counterexample="; ".join(problems),
            methods=methods,
            domain=domain,
        )
    return Outcome(
        Status.HOLDS,
        methods[0],
        f"{comparisons} comparisons in {len(PYTHON_KERNELS)} Python kernels and the {len(C_FUNCTIONS)} compiled "
        f"certifying passes read ({seconds:.2f} s): every float comparison is a margin comparison, a zero test of a "
        "non-negative sum, a sign certified by abs(x) > margin, or (C) a minimum or maximum; no margin is narrowed; "
        "the compiled margins are the proved formulas.",
        methods=methods,
        domain=domain,
    )


CLAIMS = (
    Claim(
        "code-fast-tolerance-use",
        "sysrs_ref/fast: _elimination, _uniform, _accept_reject, _ucb (numpy); phases.c, cut.inc (compiled)",
        "every float comparison of the fast kernels goes through the proved margin (certify.tolerance, the UCB gap "
        "and mean_tol), never narrowed, so a comparison settled by floats has the exact sign "
        "(with code-certify-tolerance and code-ucb-tolerance)",
        Status.HOLDS,
        partial(check_tolerance_use, read_source),
        weight=1,
    ),
)
