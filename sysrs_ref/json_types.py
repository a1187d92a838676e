"""The type of the JSON values this package prints and writes (one definition for every module)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["JsonValue"]

JsonValue = None | bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
