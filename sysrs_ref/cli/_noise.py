"""The ``noise`` subcommand (:mod:`sysrs_ref.cli`): the noise study, its table, JSON, CSV and figure (docs/noise-study.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sysrs_ref._checks import check_int, check_seed
from sysrs_ref._words import counted

__all__ = ["EXAMPLE", "add_arguments", "run"]

EXAMPLE = "--out noise --quick"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``noise``."""
    sub.add_argument(
        "--out",
        required=True,
        type=Path,
        metavar="DIR",
        help="folder for noise_study.md, .json, .csv and .png (created if missing; the files are replaced)",
    )
    sub.add_argument("--runs", type=int, metavar="R", help="runs per case and algorithm (default 200; 20 with --quick)")
    sub.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first instance's runs (default 0)")
    sub.add_argument("--workers", type=int, default=1, metavar="N", help="worker processes (default 1)")
    sub.add_argument(
        "--quick", action="store_true", help="a small study: math and mmlu at eps 0 and 1/8, one 10 x 300 IRT"
    )
    sub.add_argument("--no-plot", action="store_true", help="write no figure")
    sub.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """Run the study from parsed arguments, write its files and say what was written."""
    from sysrs_ref.experiments import NoiseSettings, noise_case_count, run_noise_study, write_noise_outputs

    seed = check_seed(args.seed, "--seed")
    workers = check_int(args.workers, "--workers")
    if args.quick:
        settings = NoiseSettings.quick(seed=seed) if args.runs is None else NoiseSettings.quick(args.runs, seed)
    else:
        settings = NoiseSettings(seed=seed) if args.runs is None else NoiseSettings(runs=args.runs, seed=seed)
    check_int(settings.runs, "--runs")
    total = noise_case_count(settings)
    finished = 0

    def progress(case: str) -> None:
        nonlocal finished
        finished += 1
        if not args.quiet and not args.json:
            print(f"[{finished}/{total}] {case}", file=sys.stderr, flush=True)

    study = run_noise_study(settings, workers=workers, progress=progress)
    files, note = write_noise_outputs(args.out, study, plots=not args.no_plot)
    if args.json:
        payload = {
            "out": str(args.out),
            "files": [str(path) for path in files],
            "cases": len(study.cases),
            "runs": settings.runs,
            "seed": settings.seed,
            "seconds": round(study.seconds, 3),
            "figure": note,
        }
        print(json.dumps(payload))
        return
    print(
        f"{counted(len(study.cases), 'case')} x 4 algorithms, R = {settings.runs}, seed {settings.seed}: {study.seconds:.1f} s\n"
        f"wrote {', '.join(path.name for path in files)} into {args.out} ({note})"
    )
