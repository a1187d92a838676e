"""What the subcommands of the command line share: one JSON object with --json, readable text otherwise."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence

__all__ = ["JsonValue", "emit"]

JsonValue = None | bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"]


def emit(args: argparse.Namespace, payload: Mapping[str, JsonValue], text: str) -> None:
    """Print *payload* as one JSON line if ``--json`` was given, else *text*."""
    print(json.dumps(payload) if args.json else text)
