"""The README's two commands are the ones CI and a new user run; its Python example works."""

from __future__ import annotations

import re
from pathlib import Path

from sysrs_ref import Instance, drive, hardness, parse_budget, random_draw, sysrs

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    return [block.strip() for block in blocks[:2]]


def test_readme_starts_with_the_two_commands() -> None:
    demo, tests = readme_commands()
    assert "\n" not in demo and demo.endswith("python -m sysrs_ref demo")
    assert "\n" not in tests and "mypy --strict sysrs_ref proofs_check" in tests and tests.endswith("pytest -q")
    assert demo.startswith("python3 -m venv --clear .venv") and tests.startswith("python3 -m venv --clear .venv")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    _, tests = readme_commands()
    assert ci[-1] == tests


def test_python_example(shared_data: Path) -> None:
    """The README's 'In Python' example, with the values its comments claim."""
    inst = Instance.from_file(shared_data / "gsm.npy")
    n = parse_budget("12%", *inst.shape)
    draw = random_draw(0, *inst.shape, synchronized=True)
    outcome = drive(sysrs(n, draw), inst)
    assert (n, outcome.chosen, inst.is_best(outcome.chosen), outcome.spent) == (9600, 0, True, 9600)
    assert abs(float(hardness(inst).h2) - 61224.48) < 0.01


def test_fixtures_are_the_same_matrix_in_both_formats() -> None:
    long = Instance.from_file(ROOT / "data" / "fixtures" / "tiny_long.csv")
    matrix = Instance.from_file(ROOT / "data" / "fixtures" / "tiny_matrix.csv")
    assert long == matrix
    assert long.model_names == ("alpha", "bravo", "charlie", "delta")
    assert [m * 6 for m in long.means] == [4, 3, 2, 2]
    assert long.ties == ((2, 3),)


def test_every_public_function_has_a_summary_and_a_runnable_example() -> None:
    import inspect

    import sysrs_ref

    for name in sysrs_ref.__all__:
        obj = getattr(sysrs_ref, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert doc.splitlines() and doc.splitlines()[0].strip(), f"{name} has no one-line summary"
            assert ">>>" in doc, f"{name} has no example"
