"""The product speaks of itself: no issue numbers, work sessions or commit hashes in code, tests and docs.

History lives in git and in CHANGELOG.md (the one file this test leaves alone). A docs page may date a
measurement ("measured on 2026-11-26"); it may not tell the story of the work.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHERE = ["sysrs_ref", "proofs_check", "tests", "docs", "benchmarks", "examples", "README.md", "CONTRIBUTING.md"]
FORBIDDEN = {
    "an issue number": re.compile(r"\bissues? #?\d+", re.IGNORECASE),
    "a work session": re.compile(r"\b(first|second|third|fourth|fifth|sixth) session\b", re.I),
    "a commit hash": re.compile(r"\bcommits? [0-9a-f]{7,40}\b|\b(at|before|since) [0-9a-f]{7,40}\b"),
}
ENDINGS = (".py", ".md", ".c", ".h", ".inc", ".js", ".toml", ".txt")


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *WHERE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:  # not a git checkout (an sdist): read the folders themselves
        found: list[Path] = []
        for where in WHERE:
            path = ROOT / where
            found += [path] if path.is_file() else sorted(path.rglob("*"))
        return [path for path in found if path.is_file() and path.name.endswith(ENDINGS)]
    return [ROOT / name for name in listed.stdout.splitlines() if name.endswith(ENDINGS) and (ROOT / name).is_file()]


def offences(text: str) -> list[str]:
    """What in *text* tells the project's history, as 'line N: what: the match'."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in FORBIDDEN.items():
            if match := pattern.search(line):
                found.append(f"line {number}: {what}: {match.group(0)!r}")
    return found


def test_no_history_in_the_product() -> None:
    files = _tracked_files()
    assert len(files) > 100
    found = {
        str(path.relative_to(ROOT)): hits
        for path in files
        if path.name != Path(__file__).name and (hits := offences(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert found == {}, "history belongs in git and CHANGELOG.md: " + "; ".join(f"{k}: {v}" for k, v in found.items())


def test_the_check_can_fail() -> None:
    issue, session, commit = "issue", "session", "commit"  # spelled apart, so that this file itself passes the check
    assert offences(f"the fix of {issue} 24") and offences(f"as the fourth {session} found")
    assert offences(f"{commit} 83ed726")
    assert not offences("a live session records every score") and not offences("measured on 2026-11-26")
