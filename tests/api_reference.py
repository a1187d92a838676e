"""The API reference: pdoc's pages for sysrs_ref and the modules of each theme, from their docstrings.

The themes and their modules are written once, in sysrs_ref's docstring ("The API by theme"); the pages are
built from it. Build the reference into docs/api/ (git-ignored) and open docs/api/index.html::

    .venv/bin/python -m tests.api_reference docs/api
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import pdoc
import pdoc.render

import sysrs_ref

#: The heading of the section of sysrs_ref's docstring that lists the themes.
HEADING = "The API by theme"


def themes() -> dict[str, tuple[str, ...]]:
    """Theme -> its modules, in the order of sysrs_ref's docstring ("- Theme: `module`, `module`" items).

    >>> themes()["Monte Carlo"]
    ('sysrs_ref.simulation',)
    """
    section = (sysrs_ref.__doc__ or "").partition(HEADING)[2]
    found: dict[str, tuple[str, ...]] = {}
    for item in re.split(r"\n- ", section)[1:]:
        title, _, modules = item.partition(": `")
        found[title.strip()] = tuple(re.findall(r"sysrs_ref[\w.]*", modules))
    return found


def modules() -> list[str]:
    """The modules the reference documents: sysrs_ref, then every theme's."""
    return ["sysrs_ref", *(module for names in themes().values() for module in names)]


def build(output: Path) -> None:
    """Write the reference's HTML pages into *output* (index.html, sysrs_ref.html, one page per module)."""
    pdoc.render.configure(show_source=False, footer_text=f"sysrs-ref {sysrs_ref.__version__}")
    with warnings.catch_warnings():
        # sysrs_ref.schedule is named in sysrs_ref.__all__ and in a theme: one page, as it should be
        warnings.filterwarnings("ignore", "The module specification .* has already been added", UserWarning)
        # a NamedTuple's fields with postponed annotations: pdoc shows them as written
        warnings.filterwarnings("ignore", "Error parsing type annotation", UserWarning)
        pdoc.pdoc(*modules(), output_directory=output)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.api_reference OUTPUT_FOLDER", file=sys.stderr)
        return 2
    build(Path(argv[0]))
    print(f"{len(modules())} modules documented in {argv[0]}/ (open {argv[0]}/index.html)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
