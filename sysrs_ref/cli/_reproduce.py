"""The ``reproduce`` subcommand of the command line (:mod:`sysrs_ref.cli`); the work is :func:`~sysrs_ref.experiments._reproduce.reproduce`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from contextlib import ExitStack

from sysrs_ref._checks import check_int
from sysrs_ref._words import counted
from sysrs_ref.cli._progress import Progress
from sysrs_ref.errors import ParameterError
from sysrs_ref.experiments import SubsetSettings, reproduce

__all__ = ["add_arguments", "run"]

EXAMPLE = "--out reproduction --grid table --runs 1000 --workers 2"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The options of ``reproduce``."""
    sub.add_argument(
        "--data",
        metavar="DIR",
        help="folder of score matrices (.npy/.csv, optionally a MANIFEST.json; a K x L x E .npy is read as samples "
        "of random scores); default: the shipped benchmarks, or $SYSRS_DATA if set",
    )
    sub.add_argument(
        "--stochastic",
        choices=("bernoulli",),
        metavar="KIND",
        help="bernoulli: read every matrix (the shipped benchmarks too) as probabilities p_ij of random scores "
        "S_ij ~ Bernoulli(p_ij); its own cache entries",
    )
    sub.add_argument(
        "--out", required=True, metavar="DIR", help="output folder; its cache/ lets an interrupted run resume"
    )
    sub.add_argument("--runs", type=int, default=1000, metavar="R", help="runs per cell (default 1000, as the paper)")
    sub.add_argument(
        "--seed", type=int, default=0, metavar="S", help="run r draws from SeedSequence(S, spawn_key=(r,)) (default 0)"
    )
    sub.add_argument(
        "--grid",
        default="paper",
        metavar="GRID",
        help="paper (the 107 budget levels, default), table (8,12,16,20,25,30,35%%), topm (5%%, 10%%, ..., 100%%), "
        "lrf (UCB-E-LRF's 38 levels) "
        "or a file with one percentage per line",
    )
    sub.add_argument(
        "--algorithms",
        default="paper",
        metavar="LIST",
        help="paper (US, SyUS, SR, SySRs, UCB-E, SyUCB-E with a in 0.1,1,10; default), lrf (UCB-E-LRF with 5%% and 0%% "
        "warm-up: hours on the paper's grid, see docs/ucbe-lrf.md), lrf-banditeval (the same with the public code's rules) "
        "or a list such as paper,ucbe:a=100,ucbe-lrf:warmup=0",
    )
    sub.add_argument(
        "--top-m",
        metavar="M1,M2,...",
        help="also run the Appendix Top-m study for these m (e.g. 3,5,10): topm_report.md, CSVs, three figures",
    )
    sub.add_argument(
        "--top-m-grid",
        default="topm",
        metavar="GRID",
        help="budget grid of the top-m study: topm (5%%, 10%%, ..., 100%%, the Appendix's; default), paper, table, lrf or a file",
    )
    sub.add_argument(
        "--top-m-algorithms",
        metavar="LIST",
        help="configurations of the top-m study (default: those of --algorithms plus sar and sysar)",
    )
    sub.add_argument(
        "--subset-selection",
        action="store_true",
        help="also compare SySRs with the subset-selection baselines at 5..35%%, fitted on the full matrix (the "
        "paper's protocol) and on held-out models: subset_selection.{json,csv,md,png}",
    )
    sub.add_argument(
        "--subset-seeds", type=int, default=100, metavar="N", help="clustering seeds per budget (default 100)"
    )
    sub.add_argument(
        "--subset-splits", type=int, default=20, metavar="N", help="random model halves, held-out protocol (default 20)"
    )
    sub.add_argument(
        "--subset-dims",
        default="2,5,10,15",
        metavar="D1,D2,...",
        help="IRT dimensions of kmeans-irt (default 2,5,10,15)",
    )
    sub.add_argument(
        "--subset-kmedoids",
        choices=("alternate", "fasterpam"),
        default="alternate",
        help="k-medoids search of the anchor-point method: alternate (default) or fasterpam, the paper's code's "
        "(minutes per call on 5000 questions)",
    )
    sub.add_argument("--workers", type=int, default=1, metavar="N", help="local worker processes (default 1)")
    sub.add_argument(
        "--scheduler", metavar="ADDRESS", help="run the cells on this Dask scheduler (needs the distributed extra)"
    )
    sub.add_argument("--no-plots", action="store_true", help="write no figures")
    sub.add_argument(
        "--quiet", action="store_true", help="no progress bar (it is drawn only when stderr is a terminal)"
    )
    sub.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> None:
    """Run ``reproduce`` from parsed arguments and print what it did."""
    with ExitStack() as stack:  # the progress bar, once reproduce knows how many cells are left, ends with it

        def progress(total: int, cached: int, reused: int) -> Callable[[int], None]:
            label = f"runs of cells ({counted(cached, 'cell')} cached" + (
                f", {counted(reused, 'run')} from checkpoints)" if reused else ")"
            )
            bar = stack.enter_context(Progress(total, label, enabled=False if args.quiet else None, start=reused))
            bar.update(0)
            return bar.update

        try:
            outcome = reproduce(
                args.data,
                args.out,
                grid=args.grid,
                algorithms=args.algorithms,
                runs=args.runs,
                seed=args.seed,
                workers=args.workers,
                scheduler=args.scheduler,
                plots=not args.no_plots,
                progress=progress,
                top_m=args.top_m,
                top_m_grid=args.top_m_grid,
                top_m_algorithms=args.top_m_algorithms,
                subset_selection=_subset_settings(args),
                stochastic=args.stochastic,
            )
        except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM (cli._main.Terminated): the same kind, a hint
            raise type(interrupt)(
                f"the finished cells are cached in {args.out}/cache: run the same command again to resume"
            ) from None
    claims = outcome.summary.claims
    if args.json:
        print(
            json.dumps(
                {
                    "out": str(outcome.out),
                    "files": [str(path) for path in outcome.files],
                    "computed": outcome.computed,
                    "cached": outcome.cached,
                    "reused_runs": outcome.reused,
                    "seconds": round(outcome.seconds, 3),
                    "report": str(outcome.out / "report.md"),
                    "results": str(outcome.out / "results.json"),
                    "claims": [{"id": claim.id, "status": verdict.status} for claim, verdict in claims],
                    **(
                        {
                            "top_m_report": str(outcome.out / "topm_report.md"),
                            "top_m_results": str(outcome.out / "topm_results.json"),
                        }
                        if outcome.top_m is not None
                        else {}
                    ),
                }
            )
        )
        return
    results = outcome.summary.results
    lines = [
        f"{counted(len(results.datasets), 'dataset')} x {counted(len(results.configs), 'configuration')}, "
        f"{counted(len(results.grid), 'budget level')}, "
        f"R = {results.runs}, seed {results.seed}: {counted(outcome.computed, 'cell')} computed"
        + (f" ({outcome.reused} of their runs from checkpoints)" if outcome.reused else "")
        + f", {outcome.cached} from the cache, "
        f"{outcome.seconds:.1f} s",
        f"wrote {len(outcome.files)} files into {outcome.out}: report.md, results.json, tables as CSV"
        + (", plots" if any(path.suffix == ".png" for path in outcome.files) else ""),
        "the paper's claims on this data:",
    ]
    width = max(len(claim.id) for claim, _ in claims)
    lines += [f"  {claim.id:<{width}}  {verdict.status}" for claim, verdict in claims]
    if outcome.top_m is not None:
        study = outcome.top_m
        lines.append(
            f"top-m study: m in {{{', '.join(map(str, study.targets))}}}, {counted(len(study.configs), 'configuration')}, "
            f"{counted(len(study.grid), 'budget')}: {outcome.out / 'topm_report.md'}"
        )
    print("\n".join(lines))


def _subset_settings(args: argparse.Namespace) -> SubsetSettings | None:
    """The --subset-* options, checked (None without --subset-selection)."""
    if not args.subset_selection:
        return None
    for flag, value in (("--subset-seeds", args.subset_seeds), ("--subset-splits", args.subset_splits)):
        check_int(value, flag)
    try:
        dims = tuple(int(part) for part in args.subset_dims.split(","))
    except ValueError:
        raise ParameterError(f"--subset-dims must be integers such as 2,5,10,15, got {args.subset_dims!r}") from None
    if not dims or min(dims) < 2 or len(set(dims)) != len(dims):
        raise ParameterError(f"--subset-dims must be distinct integers of at least 2, got {args.subset_dims!r}")
    return SubsetSettings(
        seeds=args.subset_seeds,
        splits=args.subset_splits,
        dims=dims,
        sysrs_runs=args.runs,
        seed=args.seed,
        kmedoids=args.subset_kmedoids,
    )
