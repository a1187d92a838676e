"""Writing small harness result files in the loader tests (tests/test_loaders_*.py)."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["jsonl", "write"]


def write(path: Path, text: str) -> Path:
    """Write *text* (UTF-8) to *path*, making its folders; return *path*."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*rows: dict[str, object]) -> str:
    """*rows* as JSON lines, one per row, each ending in a newline."""
    return "".join(json.dumps(row) + "\n" for row in rows)
