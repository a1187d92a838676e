"""The mutation check's catalogue stays runnable: every mutant applies to this tree, and every area has its tests.

A mutant whose old text no longer occurs exactly once would be reported ``n/a`` and silently stop guarding
anything; this test makes such a change fail at once, so that whoever changes the code updates the mutant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.mutant_catalog import AREAS, MUTANTS, Mutant, area_of
from benchmarks.mutants import Trace, _mutated_lines, _statement_lines, _tree_stamp, select

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_applies_once_and_changes_the_code(mutant: Mutant) -> None:
    text = (ROOT / mutant.file).read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, f"{mutant.name}: its old text occurs {text.count(mutant.old)} times"
    assert mutant.new != mutant.old


def test_names_are_unique() -> None:
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))


def test_every_area_has_its_tests_and_every_package_file_an_area() -> None:
    for area in AREAS:
        assert all((ROOT / test).exists() for test in area.tests), area
    for path in sorted((ROOT / "sysrs_ref").rglob("*.py")) + sorted((ROOT / "proofs_check").rglob("*.py")):
        assert area_of(path.relative_to(ROOT).as_posix()).name
    with pytest.raises(ValueError, match="in no area"):
        area_of("benchmarks/mutants.py")


def test_the_runner_picks_the_tests_that_execute_a_mutated_line() -> None:
    trace = Trace(
        files={"m.py": {"3": ["t.py::a[1]|call", "t.py::a[2]|call"], "4": ["t.py::b|setup"], "9": [""]}},
        spawners=[],
        fixtures={"t.py::a[1]": [], "t.py::a[2]": [], "t.py::b": ["t.py::wide"], "u.py::c": ["t.py::wide"]},
    )
    assert select(trace, "m.py", {3}) == ["t.py::a"]
    assert select(trace, "m.py", {4}) == ["t.py::b", "u.py::c"]  # a line run in a setup: the fixture's other users
    assert select(trace, "m.py", {5}) == [] and select(trace, "n.py", {3}) == []  # not executed
    assert select(trace, "m.py", {3, 9}) is None  # run at import: the whole area
    spawning = trace._replace(spawners=["s.py::d"])
    assert select(spawning, "m.py", {5}) == ["s.py::d"] and select(spawning, "m.py", {3}) == ["s.py::d", "t.py::a"]


def test_a_continuation_line_counts_under_its_statement_s_first_line() -> None:
    text = "def f(x):\n    if (x > 1\n            and x < 3):\n        return 1\n    return 0\n"
    assert _statement_lines(text, 3, 3) == {2, 3}
    assert _statement_lines(text, 4, 4) == {4}
    assert _mutated_lines(text, "and x < 3):\n        return 1") == (3, 4)


def test_a_kept_trace_is_used_only_for_the_tree_and_marks_it_was_made_from(tmp_path: Path) -> None:
    """The digest covers the package, the audit and the tests, and the mark expression; other files do not count."""
    for top in ("sysrs_ref", "proofs_check", "tests"):
        (tmp_path / top).mkdir()
        (tmp_path / top / "a.py").write_text("x = 1\n", encoding="utf-8")
    first = _tree_stamp(tmp_path, "not harness")
    assert _tree_stamp(tmp_path, "not harness") == first
    assert _tree_stamp(tmp_path, "not slow and not harness") != first
    (tmp_path / "README.md").write_text("not traced\n", encoding="utf-8")
    assert _tree_stamp(tmp_path, "not harness") == first
    for top in ("sysrs_ref", "proofs_check", "tests"):
        (tmp_path / top / "a.py").write_text("x = 2\n", encoding="utf-8")
        changed = _tree_stamp(tmp_path, "not harness")
        assert changed != first
        first = changed
