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


def test_fast_paths_example(shared_data: Path) -> None:
    """The README's "Fast paths" example, with the values its comments claim."""
    import numpy as np

    from sysrs_ref import select
    from sysrs_ref.fast import random_draws, run_fast, score_table

    section = (ROOT / "README.md").read_text().split("## Fast paths", 1)[1].split("\n## ", 1)[0]
    assert "(1000, 2) (1000, 2, 80) (1000, 2)" in section and "[0.881 1.   ]" in section
    inst = Instance.from_file(shared_data / "gsm.npy")
    table = score_table(inst)
    budgets = [parse_budget(p, *inst.shape) for p in ("8%", "20%")]
    draws = random_draws(0, 1000, *inst.shape, synchronized=True)
    out = run_fast(table, "sysrs", budgets, draws)
    assert out.ranking is not None and table.exact
    assert (out.chosen.shape, out.ranking.shape, out.spent.shape) == ((1000, 2), (1000, 2, 80), (1000, 2))
    assert str((out.chosen == 0).mean(axis=0)) == "[0.881 1.   ]"
    same = select(inst, budgets[0], "sysrs", draw=draws.draw(7))
    assert out.outcome(7, 0) == (same.chosen, same.ranking, same.spent)
    assert np.all(out.spent <= np.array(budgets))


def test_the_version_is_the_projects() -> None:
    import tomllib

    from sysrs_ref import __version__

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__
    assert set(project["optional-dependencies"]["dev"]) >= {
        *project["optional-dependencies"]["plot"], *project["optional-dependencies"]["distributed"]
    }  # the suite tests the figures and the Dask path, so dev installs both extras
