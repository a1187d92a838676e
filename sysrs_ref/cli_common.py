"""What the subcommands of the command line share: one JSON object with --json, readable text otherwise."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

from sysrs_ref.json_types import JsonValue

__all__ = ["JsonValue", "emit"]


def emit(args: argparse.Namespace, payload: Mapping[str, JsonValue], text: str) -> None:
    """Print *payload* as one JSON line if ``--json`` was given, else *text*."""
    print(json.dumps(payload) if args.json else text)
