"""The command line: ``python -m sysrs_ref COMMAND`` (docs/cli.md is the reference).

With ``--json`` each subcommand prints exactly one JSON object on stdout;
otherwise readable text. A user's mistake (missing file, bad budget, unknown
algorithm, invalid scores) prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, cast

from sysrs_ref import cli_conform, cli_convert, cli_datasets, cli_exact, cli_hardness, cli_live, cli_reproduce, cli_subset
from sysrs_ref.algorithms.base import Outcome
from sysrs_ref.algorithms.lrf import LRFDraw, lrf_params
from sysrs_ref.algorithms.registry import ALGORITHMS, get_algorithm
from sysrs_ref.cli_common import SCORES_HELP, JsonValue, algorithm_params, emit, run_from
from sysrs_ref.datasets import resolve_scores
from sysrs_ref.draws import random_draw
from sysrs_ref.driver import drive
from sysrs_ref.errors import SysrsError
from sysrs_ref.fast.lrf import run_lrf
from sysrs_ref.instance import Instance
from sysrs_ref.progress import Progress
from sysrs_ref.schedule import parse_budget, schedule
from sysrs_ref.simulation import SimulationResult, simulate
from sysrs_ref.synthetic import irt_benchmark
from sysrs_ref.theory.exact import DEFAULT_LIMIT
from sysrs_ref.topm import parse_top_m

__all__ = ["main"]


DEMO_SHAPE = (30, 2000)
DEMO_DATA_SEED = 5
DEMO_RUN_SEED = 0
DEMO_PERCENT = "10%"
WARMUP_HELP = "warm-up of ucbe-lrf in %% of K*L (default 5; 0 = the No Warm-up variant)"


class _UsageError(Exception):
    """A mistake in the command line itself (argparse)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _build_parser() -> _Parser:
    parser = _Parser(
        prog="python -m sysrs_ref",
        description="Reference implementation of SySRs and its baselines.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  python -m sysrs_ref demo\n"
        "  python -m sysrs_ref datasets\n"
        "  python -m sysrs_ref select --scores gsm --budget 12%\n"
        "  python -m sysrs_ref simulate --scores gsm --algorithm sysrs --budgets 8%,20% --runs 1000\n"
        "  python -m sysrs_ref hardness --scores gsm --json",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def command(name: str, summary: str, example: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,  # help strings are %-formatted by argparse, descriptions are not
            description=summary.replace("%%", "%"),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=f"example:\n  python -m sysrs_ref {name} {example}".rstrip(),
        )

    json_help = "print one JSON object"

    def run_arguments(sub: argparse.ArgumentParser) -> None:
        """--scores, --budget, --algorithm and --a: what one run of an algorithm needs."""
        sub.add_argument("--scores", required=True, metavar="F", help=SCORES_HELP)
        sub.add_argument("--budget", required=True, metavar="B", help="evaluations (5000) or a percentage of K*L (12%%, 1.25%%)")
        sub.add_argument("--algorithm", default="sysrs", metavar="NAME", help=f"one of {', '.join(ALGORITHMS)} (default sysrs)")
        sub.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
        sub.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
        sub.add_argument("--warmup", metavar="P", help=WARMUP_HELP)

    select = command(
        "select",
        "run one algorithm once on a score matrix and report the model it picks",
        "--scores gsm --budget 12% --algorithm sysrs --seed 1 --json",
    )
    run_arguments(select)
    select.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the draw (default 0)")
    select.add_argument("--json", action="store_true", help=json_help)

    sim = command(
        "simulate",
        "run one algorithm many times at several budgets and report how often it picks a best model",
        "--scores gsm --algorithm sysrs --budgets 8%,20%,35% --runs 1000 --seed 0 --workers 2",
    )
    sim.add_argument("--scores", required=True, metavar="F", help=SCORES_HELP)
    sim.add_argument("--algorithm", required=True, metavar="NAME", help=f"one of {', '.join(ALGORITHMS)}")
    sim.add_argument(
        "--budgets", required=True, metavar="B1,B2,...",
        help="comma-separated budgets: evaluations (5000) or percentages of K*L (8%%,1.25%%); all use the same draws",
    )
    sim.add_argument("--runs", required=True, type=int, metavar="R", help="number of runs, each with its own draw")
    sim.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    sim.add_argument(
        "--m", metavar="M",
        help="size of the top-m set sar and sysar identify (default: each --top-m target, else 1)",
    )
    sim.add_argument("--warmup", metavar="P", help=WARMUP_HELP)
    sim.add_argument(
        "--top-m", metavar="M1,M2,...",
        help="also report top-m identification, ranking and per-rank errors for these m (Appendix Top-m)",
    )
    sim.add_argument(
        "--seed", type=int, default=0, metavar="S",
        help="seed (default 0): run r draws from numpy SeedSequence(S, spawn_key=(r,))",
    )
    sim.add_argument(
        "--workers", type=int, default=1, metavar="N", help="worker processes (default 1); results do not depend on it"
    )
    sim.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only when stderr is a terminal)")
    sim.add_argument("--json", action="store_true", help=json_help)

    hard = command(
        "hardness",
        "the hardness measures H1, H2, H3, H3' of a score matrix, or the paper's dataset table",
        "--scores gsm --json\n  python -m sysrs_ref hardness --table",
    )
    source = hard.add_mutually_exclusive_group(required=True)
    source.add_argument("--scores", metavar="F", help=SCORES_HELP)
    source.add_argument(
        "--table", nargs="?", const="", metavar="DIR",
        help="the paper's dataset table: the shipped benchmarks (or $SYSRS_DATA), or every matrix in DIR "
        "(MANIFEST.json order), beside the paper's printed values",
    )
    hard.add_argument(
        "--bernoulli", action="store_true", help="read the scores as probabilities p_ij of Bernoulli scores"
    )
    hard.add_argument("--json", action="store_true", help=json_help)

    exact = command(
        "exact",
        "the exact probability that an algorithm misses every best model, over all draws (small instances)",
        "--scores data/fixtures/tiny_matrix.csv --budget 12 --algorithm sysrs --json",
    )
    run_arguments(exact)
    exact.add_argument(
        "--top-m", metavar="M",
        help="the exact top-M identification error instead (ties by the paper's rule; sar and sysar run with m = M)",
    )
    exact.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"refuse enumerations larger than N (default {DEFAULT_LIMIT:.0e})")
    exact.add_argument("--json", action="store_true", help=json_help)

    rep = command(
        "reproduce",
        "run the paper's experiments on a folder of score matrices: tables, confidence budgets, a report, plots",
        cli_reproduce.EXAMPLE,
    )
    cli_reproduce.add_arguments(rep)

    vec = command("vectors", "write the language-neutral test vectors (data/vectors) and their JSON schema",
                  cli_conform.VECTORS_EXAMPLE)
    cli_conform.add_vectors_arguments(vec)
    con = command("conform", "test another implementation against the vectors, through a line-delimited JSON protocol",
                  cli_conform.CONFORM_EXAMPLE)
    cli_conform.add_conform_arguments(con)

    sub = command("subset", "a subset-selection baseline (anchor points, k-means, MetaBench): its anchors and pick",
                  cli_subset.EXAMPLE)
    cli_subset.add_arguments(sub)

    live = command("live", "a live session: evaluate what the algorithm asks for, in any harness, resumable",
                   cli_live.EXAMPLE)
    cli_live.add_arguments(live, WARMUP_HELP)

    conv = command("convert", "per-instance results of lm-eval, HELM, inspect or a long CSV into a score matrix and its ids",
                   cli_convert.EXAMPLE)
    cli_convert.add_arguments(conv)

    data = command("datasets", "list the real benchmarks shipped with the package (K, L, best mean, Delta_2, H2), or export them",
                   cli_datasets.EXAMPLE)
    cli_datasets.add_arguments(data)

    demo = command("demo", "SySRs on a synthetic benchmark at 10%% of the full cost (no files needed)", "")
    demo.add_argument("--json", action="store_true", help=json_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 a user's mistake)."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        handlers: dict[str, Callable[[argparse.Namespace], int | None]] = {
            "select": _select, "simulate": _simulate, "hardness": cli_hardness.run, "exact": cli_exact.run,
            "reproduce": cli_reproduce.run, "vectors": cli_conform.vectors, "conform": cli_conform.conform,
            "subset": cli_subset.run, "live": cli_live.run, "convert": cli_convert.run, "datasets": cli_datasets.run,
            "demo": _demo,
        }
        status = handlers[args.command](args)
        if status is not None:
            return status
    except (_UsageError, SysrsError) as err:
        prefix = "" if isinstance(err, _UsageError) else "error: "
        print(f"{prefix}{err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C: reproduce and live keep what they wrote (atomically, or fsynced)
        print(f"interrupted{': ' + str(interrupt) if str(interrupt) else ''}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # piped into e.g. head: stop quietly, without a second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


def _name(instance: Instance, model: int) -> str:
    names = instance.model_names
    return f"model {model}" if names is None else f"model {model} ({names[model]})"


def _select(args: argparse.Namespace) -> None:
    if args.seed < 0:
        raise SysrsError(f"--seed must be a non-negative integer, got {args.seed}")
    spec, instance, budget, params, checked = run_from(args)
    draw = spec.random_draw(args.seed, instance.n_models, instance.n_queries)
    if isinstance(draw, LRFDraw):  # the numpy path: the reference fits in pure Python (seconds per fit)
        ranking = run_lrf(instance.array, [budget], draw, lrf_params(checked))[0]
        outcome = Outcome(spec.name, ranking[0], ranking, budget, ())
    else:
        outcome = drive(spec.start(budget, draw, **params), instance)
    full = instance.n_models * instance.n_queries
    payload: dict[str, JsonValue] = {
        "algorithm": spec.name,
        "params": {key: str(value) for key, value in checked.items()},
        "K": instance.n_models,
        "L": instance.n_queries,
        "budget": budget,
        "spent": outcome.spent,
        "chosen": outcome.chosen,
        "ranking": list(outcome.ranking),
        "seed": args.seed,
        "true_best": sorted(instance.best),
        "correct": instance.is_best(outcome.chosen),
    }
    shown = ", ".join(str(model) for model in outcome.ranking[:10])
    more = ", ..." if instance.n_models > 10 else ""
    text = "\n".join(
        [
            f"{spec.title} on {args.scores}: {instance.n_models} models x {instance.n_queries} queries, "
            f"seed {args.seed}" + "".join(f", {key} = {checked[key]}" for key in ("a", "m", "warmup") if key in checked),
            f"budget:  {budget:,} evaluations ({100 * budget / full:.4g}% of {full:,})",
            f"chose:   {_name(instance, outcome.chosen)}, mean {float(instance.means[outcome.chosen]):.4f}"
            f" ({'a true best model' if payload['correct'] else 'NOT a best model'})",
            f"best:    {', '.join(_name(instance, m) for m in sorted(instance.best))}, "
            f"mean {float(instance.best_mean):.4f}",
            f"spent:   {outcome.spent:,} evaluations ({100 * outcome.spent / full:.3g}% of full evaluation)",
            f"ranking: {shown}{more}",
        ]
    )
    emit(args, payload, text)


def _simulate(args: argparse.Namespace) -> None:
    for flag, value, least in (("--runs", args.runs, 1), ("--workers", args.workers, 1), ("--seed", args.seed, 0)):
        if value < least:
            kind = "positive" if least else "non-negative"
            raise SysrsError(f"{flag} must be a {kind} integer, got {value}")
    items = [item.strip() for item in args.budgets.split(",")]
    if not all(items):
        raise SysrsError(f"--budgets {args.budgets!r} has an empty item; write them like 8%,20%,5000")
    spec = get_algorithm(args.algorithm)
    instance = resolve_scores(args.scores)
    started = time.perf_counter()
    with Progress(args.runs, spec.name, enabled=False if args.quiet else None) as bar:
        top_m = None if args.top_m is None else parse_top_m(args.top_m, instance.n_models)
        result = simulate(
            instance, spec.name, items, args.runs, args.seed,
            workers=args.workers, progress=bar.update, top_m=top_m,
            **cast("dict[str, Any]", algorithm_params(args)),  # only "a" and "m", never simulate's own keywords
        )
    seconds = time.perf_counter() - started
    extra = "".join(f", {key} = {value}" for key, value in result.params.items())
    best = ", ".join(str(model) for model in result.best)
    width = max(len("correct"), 2 * len(str(result.runs)) + 1)
    header = f"{'budget':>8}  {'n':>10}  {'accuracy':>8}  {'correct':>{width}}  {'spent_max':>10}"
    lines = [
        f"{spec.title} on {args.scores}: {result.K} models x {result.L} queries, {result.runs:,} runs, "
        f"seed {result.seed}{extra}, {args.workers} worker{'s' if args.workers > 1 else ''}, {seconds:.2f} s",
        header,
        "-" * len(header),
    ]
    for row in result.rows:
        correct = f"{row.correct}/{result.runs}"
        lines.append(
            f"{f'{row.budget_pct:g}%':>8}  {row.budget:>10,}  {row.accuracy:>8.4f}  "
            f"{correct:>{width}}  {row.spent_max:>10,}"
        )
    lines.extend(_top_m_lines(result))
    if result.top_m and "m" in spec.defaults and args.m is None:
        lines.append(f"(top-m errors of {spec.title} come from runs with its m set to each target m, same draws)")
    lines.append(
        f"accuracy: fraction of runs whose chosen model is a true best model "
        f"({'models' if len(result.best) > 1 else 'model'} {best}); "
        "every budget uses the same draws"
    )
    emit(args, result.to_json(), "\n".join(lines))


def _top_m_lines(result: SimulationResult) -> list[str]:
    """The simulate table's top-m part: one line per budget and m (empty without --top-m)."""
    if not result.top_m:
        return []
    header = f"{'budget':>8}  {'m':>4}  {'identification':>14}  {'ranking':>8}  {'per-rank':>8}"
    lines = ["", "top-m errors (ties by the paper's rule: any ranking consistent with the true ties counts)",
             header, "-" * len(header)]
    for index, row in enumerate(result.rows):
        for m, counts in result.top_m.items():
            ident, rank, per_rank = (float(x) for x in counts.rates(index))
            lines.append(f"{f'{row.budget_pct:g}%':>8}  {m:>4}  {ident:>14.4f}  {rank:>8.4f}  {per_rank:>8.4f}")
    return lines


def _demo(args: argparse.Namespace) -> None:
    instance = irt_benchmark(*DEMO_SHAPE, seed=DEMO_DATA_SEED)
    n_models, n_queries = instance.shape
    full = n_models * n_queries
    budget = parse_budget(DEMO_PERCENT, n_models, n_queries)
    draw = random_draw(DEMO_RUN_SEED, n_models, n_queries, synchronized=True)
    outcome: Outcome = drive(get_algorithm("sysrs").start(budget, draw), instance)
    lengths = schedule(n_models, n_queries, budget)
    correct = instance.is_best(outcome.chosen)
    best = sorted(instance.best)
    payload: dict[str, JsonValue] = {
        "K": n_models,
        "L": n_queries,
        "budget": budget,
        "spent": outcome.spent,
        "chosen": outcome.chosen,
        "true_best": best,
        "correct": correct,
        "eliminated": list(outcome.eliminated),
        "schedule": list(lengths),
    }
    second = instance.order[1]
    text = "\n".join(
        [
            f"Synthetic benchmark: {n_models} models x {n_queries:,} queries (seeded item-response model;",
            "models are correlated because they share the queries' difficulty).",
            f"Full evaluation costs {full:,} (model, query) evaluations.",
            "",
            f"SySRs with {DEMO_PERCENT} of that, a budget of {budget:,}:",
            f"  picked         model {outcome.chosen} (mean {float(instance.means[outcome.chosen]):.4f})",
            f"  true best      model {', '.join(map(str, best))} (mean {float(instance.best_mean):.4f};"
            f" runner-up model {second}, mean {float(instance.means[second]):.4f})",
            f"  result         {'correct' if correct else 'WRONG'}",
            f"  spent          {outcome.spent:,} evaluations, {100 * outcome.spent / full:.1f}% of full "
            f"evaluation ({full - outcome.spent:,} saved)",
            f"  phases         {len(lengths)}; each surviving model seen on n_k = "
            f"{lengths[0]}, {lengths[1]}, ..., {lengths[-1]} shared queries",
            "  eliminated     " + ", ".join(map(str, outcome.eliminated)),
            "                 (first eliminated first; the last two are the final duel)",
        ]
    )
    emit(args, payload, text)
