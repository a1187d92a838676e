"""The mutation check's catalogue stays runnable: every mutant applies to this tree, and every area has its tests.

A mutant whose old text no longer occurs exactly once would be reported ``n/a`` and silently stop guarding
anything; this test makes such a change fail at once, so that whoever changes the code updates the mutant.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.mutant_catalog import AREAS, MUTANTS, Mutant, area_of

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
