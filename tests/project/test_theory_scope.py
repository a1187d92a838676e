"""docs/theory.md's scope table: a row for every public function and class of the modules it covers, real claim ids."""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import re
from pathlib import Path

from proofs_check import all_claims
from tests.public_surface import surface

ROOT = Path(__file__).resolve().parents[2]

SCOPE = (
    "sysrs_ref.algorithms",
    "sysrs_ref.algorithms.ucb_index",
    "sysrs_ref.schedule",
    "sysrs_ref.theory",
    "sysrs_ref.theory.exact_sync",
    "sysrs_ref.theory.exact_unsync",
    "sysrs_ref.theory.exact_sar",
    "sysrs_ref.theory.exact_stochastic",
    "sysrs_ref.theory.exact_stochastic_ucb",
    "sysrs_ref.theory.sar_comparison",
    "sysrs_ref.fast",
    "sysrs_ref.fast.certify",
    "sysrs_ref.fast.compiled",
    "sysrs_ref.conformance",
)
"""The modules the table covers: the algorithms, schedule and budgets, theory, fast paths and conformance."""

STATUSES = ("proven, every input", "proven on a domain", "exhausted on a domain", "tested", "lead: fill")


def _rows() -> list[list[str]]:
    text = (ROOT / "docs" / "theory.md").read_text(encoding="utf-8")
    section = text.split("## Scope: what is proven, exhausted, or tested", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip().strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]  # without the header


def _named(rows: list[list[str]]) -> set[str]:
    """Every function named in a row's first cell, qualified: `module.name` sets the module for the bare names after it."""
    named = set()
    for row in rows:
        module = ""
        for code in re.findall(r"`([^`]+)`", row[0]):
            if "." in code:
                module, _, name = code.rpartition(".")
            else:
                name = code
            named.add(f"{module}.{name}")
    return named


def _public() -> list[tuple[str, str]]:
    """(module, name) of every function and class the SCOPE modules export, each object once (its first module)."""
    exported = surface()
    seen: set[int] = set()
    out = []
    for module in SCOPE:
        imported = importlib.import_module(module)
        for name in exported[module]:
            obj = getattr(imported, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                out.append((module, name))
    return out


def test_every_public_function_has_a_row() -> None:
    named = _named(_rows())
    missing = [f"{module}.{name}" for module, name in _public() if f"{module}.{name}" not in named]
    assert missing == [], f"docs/theory.md's scope table has no row for {missing}"


def test_every_row_has_a_status_and_names_real_claims() -> None:
    ids = {claim.id for claim in all_claims()}
    rows = _rows()
    assert len(rows) >= 30
    for row in rows:
        assert len(row) == 3, row
        assert row[1] in STATUSES, row
        cited = [code for code in re.findall(r"`([^`]+)`", row[2]) if code.startswith(("code-", "lb-", "csr-"))]
        for claim_id in cited:
            if claim_id.endswith("*"):
                continue  # a family of ids, some still being written
            assert claim_id in ids or fnmatch.filter(ids, claim_id), (claim_id, row[0])
        if row[1].startswith(("proven", "exhausted")):
            assert cited or "sympy" in row[2], row
