"""The layout of the test suite: test modules share helpers through helper modules, strategies live in one place.

Each module of tests/ is parsed with :mod:`ast` (not imported): a ``test_*.py`` module never imports another
``test_*`` module (helpers shared by several test modules live in helper modules such as tests/exact_cases.py or
tests/real_data.py), and every Hypothesis strategy is defined in tests/strategies.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
MODULES = sorted(TESTS.rglob("*.py"))
#: The test modules of tests/, and those of benchmarks/ (which reuse the suite's helpers the same way).
TEST_MODULES = [path for path in MODULES if path.name.startswith("test_")] + sorted(
    (TESTS.parent / "benchmarks").glob("test_*.py")
)


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported_modules(tree: ast.Module) -> list[str]:
    """Every module an import statement of *tree* may name, as written, relative dots included.

    ``from x import y`` gives ``x`` and ``x.y`` (y may be a module: ``from tests import test_a``, ``from . import
    test_a``); a name imported from a module that starts with ``test_`` is flagged as well, which is as it should
    be (pytest would collect an imported test function twice).
    """
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.append(base)
            names.extend(f"{base}.{alias.name}" if node.module else base + alias.name for alias in node.names)
    return names


def imported_test_modules(tree: ast.Module) -> list[str]:
    """The imports of *tree* that reach a ``test_*`` module (absolute, ``tests.``-qualified or relative)."""
    return [name for name in imported_modules(tree) if any(part.startswith("test_") for part in name.split("."))]


def strategy_definitions(tree: ast.Module) -> list[str]:
    """What *tree* defines that builds a Hypothesis strategy, each as ``line: what``.

    Counted: a function decorated with ``composite`` (under any name or alias of hypothesis.strategies),
    a function annotated to return a ``SearchStrategy``, and a module-level assignment whose value calls
    hypothesis.strategies (``x = st.integers(0, 9)``, ``x = st.lists(...).map(f)``).
    """
    modules: set[str] = set()  # local names of hypothesis.strategies
    composites: set[str] = set()  # local names of hypothesis.strategies.composite
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "hypothesis":
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "strategies")
        elif isinstance(node, ast.ImportFrom) and node.module == "hypothesis.strategies":
            composites.update(alias.asname or alias.name for alias in node.names if alias.name == "composite")
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "hypothesis.strategies")

    def calls_strategies(node: ast.AST) -> bool:
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and ast.unparse(sub.func.value) in modules
            ):
                return True
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in composites:
                return True
        return False

    def is_composite(decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            return target.id in composites or target.id == "composite"
        return isinstance(target, ast.Attribute) and target.attr == "composite"

    found: list[str] = []
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(is_composite(decorator) for decorator in function.decorator_list):
                found.append(f"{function.lineno}: @composite {function.name}")
            elif function.returns is not None and "SearchStrategy" in ast.unparse(function.returns):
                found.append(f"{function.lineno}: {function.name} returns a SearchStrategy")
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and calls_strategies(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.append(f"{node.lineno}: {', '.join(ast.unparse(target) for target in targets)} = a strategy")
    return found


def test_the_suite_is_found() -> None:
    names = {path.name for path in MODULES}
    assert {"__init__.py", "strategies.py", "test_layout.py"} <= names
    assert len(TEST_MODULES) > 10 and any(path.parent.name == "benchmarks" for path in TEST_MODULES)


def test_no_test_module_imports_another() -> None:
    """A test module imports helpers, never another test module (move the shared helper to a helper module)."""
    offenders = {
        f"{path.parent.name}/{path.name}": found
        for path in TEST_MODULES
        if (found := imported_test_modules(parse(path)))
    }
    assert offenders == {}


def test_every_strategy_in_strategies_py() -> None:
    """Hypothesis strategies are defined in tests/strategies.py only (test modules use them in @given)."""
    others = [path for path in MODULES if path.name != "strategies.py"]
    offenders = {path.name: found for path in others if (found := strategy_definitions(parse(path)))}
    assert offenders == {}


def test_the_checks_can_fail() -> None:
    """The two checks above find what they look for (so that an empty list means something)."""
    imports = ast.parse(
        "import test_a\nfrom test_b import x\nfrom tests.test_c import y\nfrom .test_d import z\n"
        "from . import test_e\nfrom tests import test_f\nimport tests.strategies\nfrom tests.naive import w\n"
    )
    assert imported_test_modules(imports) == [
        "test_a",
        "test_b",
        "test_b.x",
        "tests.test_c",
        "tests.test_c.y",
        ".test_d",
        ".test_d.z",
        ".test_e",
        "tests.test_f",
    ]
    strategies = ast.parse(
        "from hypothesis import strategies as st\nfrom hypothesis.strategies import composite\n"
        "seeds = st.integers(0, 9)\nrows: object = st.lists(st.booleans()).map(tuple)\nN = 3\n"
        "@st.composite\ndef a(draw): ...\n@composite\ndef b(draw): ...\n"
        "def c() -> st.SearchStrategy[int]: ...\ndef test_d(): assert st.integers(0, 1)\n"
    )
    assert [entry.split(": ", 1)[1] for entry in strategy_definitions(strategies)] == [
        "@composite a",
        "@composite b",
        "c returns a SearchStrategy",
        "seeds = a strategy",
        "rows = a strategy",
    ]
