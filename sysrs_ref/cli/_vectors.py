"""The ``vectors`` subcommand: write the language-neutral test vectors (data/vectors) and their JSON schema."""

from __future__ import annotations

import argparse
import json

from sysrs_ref.conformance.vectors import write_vectors

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--out data/vectors"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``vectors``."""
    sub.add_argument("--out", required=True, metavar="DIR", help="folder for <family>.json and schema.json")
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """Write the vectors into --out."""
    paths = write_vectors(args.out)
    if args.json:
        print(json.dumps({"out": args.out, "files": [str(path) for path in paths]}))
    else:
        print(f"wrote {len(paths)} files into {args.out}: " + ", ".join(path.name for path in paths))
