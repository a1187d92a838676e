"""What every file of reproduce's cache shares: a safe path component, a checksum, and the checks that reject an entry.

A cache entry (:mod:`sysrs_ref.experiments._cache`) and a checkpoint of
finished runs (:mod:`sysrs_ref.experiments._checkpoint`) are both small JSON
objects that carry ``"checksum": "sha256:<hex>"`` of the rest of the object
(:func:`entry_checksum`); a file that fails a check raises :class:`Rejected`,
whose reason is the warning line's end (None: out of date, dropped silently).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys

__all__ = ["Rejected", "count_in", "entry_checksum", "safe_component", "warn_on_stderr"]


def safe_component(text: str) -> str:
    """A path component for *text* (the cache stores the full key inside, so a clash is only recomputed).

    >>> safe_component("ucbe-lrf(warmup=5%)"), safe_component("a/b c")
    ('ucbe-lrf(warmup=5%)', 'a_b_c')
    """
    return re.sub(r"[^A-Za-z0-9._()=,%+-]", "_", text)


def entry_checksum(entry: dict[str, object]) -> str:
    """``sha256:<hex>`` of *entry* without its ``checksum`` field, as canonical JSON (sorted keys, no spaces, ASCII).

    >>> entry_checksum({"key": {"runs": 20}, "correct": 17, "checksum": "ignored"}) == entry_checksum(
    ...     {"correct": 17, "key": {"runs": 20}}
    ... )
    True
    """
    body = {name: value for name, value in entry.items() if name != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


class Rejected(Exception):
    """A cache file that must not be used; the message says why (None: out of date, recomputed silently)."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


def count_in(entry: dict[str, object], name: str, least: int, most: int | None) -> int:
    """*entry*'s integer *name*, checked to lie in [least, most] (most None: no upper bound); else :class:`Rejected`.

    >>> count_in({"correct": 3}, "correct", 0, 5)
    3
    >>> count_in({"correct": 7}, "correct", 0, 5)
    Traceback (most recent call last):
    ...
    sysrs_ref.experiments._entry.Rejected: says "correct" = 7, outside [0, 5]
    """
    value = entry.get(name)
    if type(value) is not int:
        raise Rejected(f'has no integer "{name}"')
    if value < least or (most is not None and value > most):
        high = "" if most is None else f", {most}"
        raise Rejected(f'says "{name}" = {value}, outside [{least}{high}]')
    return value


def warn_on_stderr(message: str) -> None:
    """Print one warning line on stderr (the cache's default *warn*)."""
    print(message, file=sys.stderr)
