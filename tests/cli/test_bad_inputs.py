"""Every kind of bad input in tests/bad_inputs.py: exit status 2, one line on stderr, no traceback; and the
documentation page made from them (docs/appendix/bad-inputs.md) is up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysrs_ref.cli import main
from sysrs_ref.cli._main import COMMANDS
from tests.bad_inputs import CASES, Case, prepare, render

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "appendix" / "bad-inputs.md"


@pytest.mark.parametrize("case", CASES, ids=[case.kind for case in CASES])
def test_a_bad_input_is_one_line_and_status_2(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    prepare(case)
    capsys.readouterr()
    status = main(list(case.argv))
    out, err = capsys.readouterr()
    assert status == 2, f"exit status {status}, stderr {err!r}"
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.endswith("\n") and err.strip(), err
    assert case.fragment in err, f"{case.fragment!r} is not in {err!r}"
    assert out == ""


def test_the_table_covers_every_subcommand_with_at_least_sixty_kinds() -> None:
    kinds = [case.kind for case in CASES]
    assert len(kinds) == len(set(kinds)) >= 60
    assert {case.argv[0] for case in CASES if case.argv} >= set(COMMANDS)


@pytest.mark.slow
def test_the_page_is_a_fresh_rendering() -> None:
    """docs/appendix/bad-inputs.md is what `python -m tests.bad_inputs > docs/appendix/bad-inputs.md` writes now."""
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/appendix/bad-inputs.md is out of date: run `python -m tests.bad_inputs > docs/appendix/bad-inputs.md`"
    )
