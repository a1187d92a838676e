"""The ``datasets`` subcommand of the command line (:mod:`sysrs_ref.cli`): the shipped benchmarks, listed or exported."""

from __future__ import annotations

import argparse

from sysrs_ref._version import __version__
from sysrs_ref.cli._common import JsonValue, emit
from sysrs_ref.datasets import benchmark, benchmarks, export_datasets
from sysrs_ref.scores import fraction_text
from sysrs_ref.theory.hardness import hardness

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--json\n  python -m sysrs_ref datasets gsm math --export my-data"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``datasets``."""
    sub.add_argument("names", nargs="*", metavar="NAME", help="only these benchmarks (default: all)")
    sub.add_argument(
        "--export",
        metavar="DIR",
        help="write them into DIR as NAME.npy (byte for byte the released files) plus a MANIFEST.json: a data folder "
        "for --data, $SYSRS_DATA or other tools",
    )
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """List the benchmarks with their size and hardness, or export them."""
    chosen = [benchmark(name) for name in args.names] if args.names else list(benchmarks())
    if args.export is not None:
        paths = export_datasets(args.export, tuple(item.name for item in chosen))
        payload: dict[str, JsonValue] = {"folder": args.export, "files": [str(path) for path in paths]}
        count = len(paths) - 1
        emit(args, payload, f"wrote {count} benchmark{'' if count == 1 else 's'} and MANIFEST.json into {args.export}")
        return
    rows: list[JsonValue] = []
    lines = [
        f"{len(chosen)} real benchmarks shipped with sysrs-ref {__version__} (the paper's data; "
        "best model in row 0; provenance: docs/datasets.md)",
        f"{'name':<14} {'source':<21} {'metric':<18} {'K':>4} {'L':>5} {'best mean':>9} {'Delta_2':>8} {'H2':>10}",
    ]
    for item in chosen:
        h = hardness(item.load())
        h2 = None if h.h2 is None else float(h.h2)
        rows.append(
            {
                "name": item.name,
                "source": item.source,
                "metric": item.metric,
                "K": item.n_models,
                "L": item.n_queries,
                "binary": item.binary,
                "sha256": item.sha256,
                "best_mean": float(h.best_mean),
                "delta2": float(h.delta2),
                "H2": h2,
                "exact": {
                    "best_mean": fraction_text(h.best_mean),
                    "delta2": fraction_text(h.delta2),
                    "H2": None if h.h2 is None else fraction_text(h.h2),
                },
                "paper": dict(item.paper),
            }
        )
        shown_h2 = "inf" if h2 is None else f"{h2:.1f}"
        lines.append(
            f"{item.name:<14} {item.source:<21} {item.metric:<18} {item.n_models:>4} {item.n_queries:>5} "
            f"{float(h.best_mean):>9.4f} {float(h.delta2):>8.4f} {shown_h2:>10}"
        )
    lines.append("use one by name: python -m sysrs_ref select --scores gsm --budget 12%")
    emit(args, {"datasets": rows}, "\n".join(lines))
