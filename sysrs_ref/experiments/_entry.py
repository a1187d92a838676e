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

from sysrs_ref._files import JsonFormatError, parse_json

__all__ = [
    "Rejected",
    "checked_entry",
    "count_in",
    "entry_checksum",
    "is_top_m_item",
    "safe_component",
    "warn_on_stderr",
]

#: The key fields that make a file out of date rather than damaged: ignored (and recomputed) without a warning.
STALE_FIELDS = frozenset({"format", "version", "sha256"})


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


def checked_entry(text: str, key: dict[str, object], what: str) -> dict[str, object]:
    """The JSON object *text* holds, if it is intact (checksum) and of *key*; else :class:`Rejected` saying why.

    *what* names the kind of file in the message for another key ("grid point", "cell"). A key that
    differs only in :data:`STALE_FIELDS` is out of date: Rejected with no reason.

    >>> entry = {"key": {"runs": 20}, "correct": 17}
    >>> entry["checksum"] = entry_checksum(entry)
    >>> checked_entry(json.dumps(entry), {"runs": 20}, "cell")["correct"]
    17
    >>> checked_entry(json.dumps(entry), {"runs": 30}, "cell")
    Traceback (most recent call last):
    ...
    sysrs_ref.experiments._entry.Rejected: is for another cell (its key differs in runs)
    """
    try:
        entry = parse_json(text)
    except JsonFormatError as err:  # a syntax error, nesting deeper than MAX_JSON_DEPTH, a number too long
        if str(err).startswith("not valid JSON"):
            raise Rejected("is not valid JSON (a damaged or partly written file)") from None
        raise Rejected(f"is not usable: {err}") from None
    if not isinstance(entry, dict):
        raise Rejected("is not a JSON object")
    if "checksum" not in entry:
        raise Rejected("has no checksum (written by an older sysrs-ref, or edited)")
    if entry["checksum"] != entry_checksum(entry):
        raise Rejected("does not match its checksum (edited or damaged)")
    found = entry.get("key")
    if not isinstance(found, dict):
        raise Rejected('has no "key"')
    differ = sorted(name for name in key.keys() | found.keys() if key.get(name) != found.get(name))
    if differ:
        raise Rejected(
            None if set(differ) <= STALE_FIELDS else f"is for another {what} (its key differs in {', '.join(differ)})"
        )
    return entry


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


def is_top_m_item(item: object) -> bool:
    """Whether *item* has the shape of a top-m record: a list [m, ...] of 4 with m an integer (a JSON true is not 1).

    >>> is_top_m_item([2, 0, 1, 3]), is_top_m_item([True, 0, 1, 3]), is_top_m_item([2, 0, 1])
    (True, False, False)
    """
    return isinstance(item, list) and len(item) == 4 and type(item[0]) is int


def warn_on_stderr(message: str) -> None:
    """Print one warning line on stderr (the cache's default *warn*)."""
    print(message, file=sys.stderr)
