"""The prose and the vectors together: whatever a vectors file asks of an implementation is stated in the docs.

An implementer works from docs/contracts.md and docs/conformance.md; a rule
that lives only in a vectors file's expected values (or in schema.json) has
to be guessed. So every kind of refusal, every output key and every input
field of data/vectors must be named in those pages, each input field in
its family's row of the conformance guide's table (a bound's fields in the
row of its bound in contracts §18.1), and every case id the pages cite
must exist.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from sysrs_ref.conformance.cases import FAMILIES

ROOT = Path(__file__).resolve().parents[2]
VECTORS = {
    family: json.loads((ROOT / "data" / "vectors" / f"{family}.json").read_text(encoding="utf-8"))
    for family in FAMILIES
}

#: Objects keyed by data (model indices), not by names: their keys are values, not fields.
DATA_KEYED = {"law", "top_m_law"}


def pages(root: Path = ROOT) -> dict[str, str]:
    """The pages an implementer reads, by name."""
    names = ("contracts.md", "conformance.md")
    return {name: (root / "docs" / name).read_text(encoding="utf-8") for name in names}


def named(text: str, name: str) -> bool:
    """Whether *text* names *name* as code (`name`) or as a JSON string ("name")."""
    return f"`{name}`" in text or f'"{name}"' in text


def keys(value: Any) -> Iterator[str]:
    """Every object key inside *value*, except the keys of data-keyed objects (their values are searched)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield key
            if key in DATA_KEYED and isinstance(item, Mapping):
                for inner in item.values():
                    yield from keys(inner)
            else:
                yield from keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys(item)


def row(text: str, first_cell: str) -> str:
    """The last table row of *text* whose first cell is `first_cell` ("" if there is none).

    The last: the conformance guide counts the cases of each family in one table, then describes their
    inputs and outputs in the next.
    """
    rows = [line for line in text.splitlines() if line.startswith(f"| `{first_cell}` |")]
    return rows[-1] if rows else ""


def undocumented_kinds(docs: Mapping[str, str]) -> set[str]:
    text = docs["contracts.md"] + docs["conformance.md"]
    kinds = {str(case["refused"]) for data in VECTORS.values() for case in data["cases"] if "refused" in case}
    kinds |= {str(kind) for data in VECTORS.values() for kind in data["refusals"]}
    return {kind for kind in kinds if not named(text, kind)}


def undocumented_outputs(docs: Mapping[str, str]) -> set[str]:
    text = docs["contracts.md"] + docs["conformance.md"]
    found = {
        f"{family}:{key}"
        for family, data in VECTORS.items()
        for case in data["cases"]
        for key in keys(case.get("expected", {}))
    }
    return {entry for entry in found if not named(text, entry.split(":", 1)[1])}


def undocumented_inputs(docs: Mapping[str, str]) -> set[str]:
    """Input fields missing from their family's row (conformance guide) or their bound's row (contracts §18.1)."""
    missing = set()
    for family, data in VECTORS.items():
        family_row = row(docs["conformance.md"], family)
        for case in data["cases"]:
            given = case["input"]
            nested = [key for field in ("draw",) if isinstance(given.get(field), Mapping) for key in given[field]]
            missing |= {f"{family}:{key}" for key in [*given, *nested] if f"`{key}`" not in family_row}
            if family == "bounds":
                bound = str(given["bound"])
                bound_row = row(docs["contracts.md"], bound)
                missing |= {f"bounds/{bound}:{key}" for key in given if key != "bound" and f"`{key}`" not in bound_row}
    text = docs["contracts.md"] + docs["conformance.md"]
    params = {key for case in VECTORS["algorithms"]["cases"] for key in case["input"].get("params", {})}
    return missing | {f"params:{key}" for key in params if not named(text, key)}


#: A cited case id: a backticked token shaped like the vectors' ids.
CITED = re.compile(
    r"`((?:refuse-|bound-|exact-|budget-|schedule-|hardness-|(?:us|syus|sr|sysrs|ucbe|syucbe|sar|sysar|ucbe-lrf)-)"
    r"[A-Za-z0-9_./-]*\d[A-Za-z0-9_./-]*|(?:[a-z-]+)-exact-[a-z-]+)`"
)


def missing_citations(docs: Mapping[str, str]) -> set[str]:
    ids = {str(case["id"]) for data in VECTORS.values() for case in data["cases"]}
    cited = {match for text in docs.values() for match in CITED.findall(text)}
    return {case_id for case_id in cited if case_id not in ids}


def test_every_refusal_kind_is_named_in_the_contracts_or_the_guide() -> None:
    assert undocumented_kinds(pages()) == set()


def test_every_output_key_is_named_in_the_contracts_or_the_guide() -> None:
    assert undocumented_outputs(pages()) == set()


def test_every_input_field_is_documented_with_its_family() -> None:
    assert undocumented_inputs(pages()) == set()


def test_every_case_the_pages_cite_exists() -> None:
    assert missing_citations(pages()) == set()


@pytest.mark.parametrize("family", FAMILIES)
def test_the_checks_see_every_family(family: str) -> None:
    """Not vacuous: each family has cases with inputs, and the guide's table has its row."""
    cases = VECTORS[family]["cases"]
    assert cases and all(case["input"] for case in cases)
    assert row(pages()["conformance.md"], family)


def test_the_checks_catch_a_page_that_lost_a_rule() -> None:
    """Removing one key, one kind, one field or one case id from the pages is noticed."""
    docs = pages()
    cut = {name: text.replace("`top_m_law`", "top-m law") for name, text in docs.items()}
    assert "exact:top_m_law" in undocumented_outputs(cut)
    cut = {name: text.replace("`too_large`", "too large") for name, text in docs.items()}
    assert "too_large" in undocumented_kinds(cut)
    cut = {**docs, "contracts.md": docs["contracts.md"].replace("`sigma2`, `M` |", "`sigma2` |")}
    assert "bounds/bernstein_wor:M" in undocumented_inputs(cut)
    cut = {**docs, "contracts.md": docs["contracts.md"] + "\n`exact-sysrs-2x11-largest`\n"}
    assert missing_citations(cut) == {"exact-sysrs-2x11-largest"}


#: Cases whose note states the rule they pin, and so must say where the contracts state it.
RULE_CASES = re.compile(
    r"^(refuse-bound-|refuse-exact-|exact-.*-largest$|ucbe-lrf-refuse-|ucbe-lrf-rank|(?:sr|sysrs|sar|sysar)-schedule-|.*-exact-gap-)"
)

SECTION = re.compile(r"contracts §(\d+(?:\.\d+)?)")


def test_the_notes_of_rule_cases_point_at_a_section_that_exists() -> None:
    """conform prints a failing case's note: for these cases it names the section of contracts.md with the rule."""
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", pages()["contracts.md"], flags=re.MULTILINE))
    pinned = [case for data in VECTORS.values() for case in data["cases"] if RULE_CASES.match(case["id"])]
    assert len(pinned) >= 40
    for case in pinned:
        sections = SECTION.findall(case.get("note", ""))
        assert sections, case["id"]
        assert set(sections) <= headings, (case["id"], sections)
