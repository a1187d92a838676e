"""The fenced blocks of the README and docs/ pages, for the tests that run them (tests/project/test_docs.py and others)."""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: doctest's options for a page's examples and its console output.
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Fence:
    """One fenced code block of a page."""

    page: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    body: str
    preceding: str
    """The last non-blank line before the fence."""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def fences(page: Path) -> list[Fence]:
    """The fenced blocks of *page*, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Fence] = []
    index = 0
    while index < len(lines):
        opening = re.match(r"^(```+)(\S*)\s*$", lines[index])
        if not opening:
            index += 1
            continue
        marker, language = opening.groups()
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != marker:
            end += 1
        before = next((lines[k].strip() for k in range(index - 1, -1, -1) if lines[k].strip()), "")
        found.append(Fence(page, index + 1, language, "\n".join(lines[index + 1 : end]) + "\n", before))
        index = end + 1
    return found


def commands(fence: Fence) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in fence.body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        else:
            pairs[-1][1].append(line)
    return [(command, "\n".join(out).strip("\n") + "\n" if any(out) else "") for command, out in pairs]
