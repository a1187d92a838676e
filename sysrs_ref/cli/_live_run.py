"""``live run``: a live session driven through a harness's own Python API (inspect-ai, lm-eval), to the end or resumed.

``live run --inspect FILE.py@TASK --model M1 --model M2 --scorer match --budget 10% --dir RUN`` starts a session
on the task's samples (or resumes the one in ``RUN``), runs each batch's (model, sample) pairs with
``inspect_ai.eval`` (:mod:`sysrs_ref.live.inspect_harness`), writing inspect's logs to ``RUN/logs`` (``--log-dir``),
and records every score as its call returns; ``--lm-eval TASK`` does the same through lm-eval's ``simple_evaluate``
(:mod:`sysrs_ref.live.lm_eval_harness`), its results and samples files written under ``RUN/logs``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sysrs_ref._checks import check_int
from sysrs_ref._words import matrix_shape
from sysrs_ref.cli._common import JsonValue, algorithm_params, emit
from sysrs_ref.errors import LiveError
from sysrs_ref.live.config import CONFIG_NAME
from sysrs_ref.live.session import Session

__all__ = ["add_run_arguments", "run_harness"]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``live run``."""
    harness = parser.add_mutually_exclusive_group(required=True)
    harness.add_argument("--inspect", metavar="FILE.py@TASK", help="the inspect-ai task to run")
    harness.add_argument("--lm-eval", dest="lm_eval", metavar="TASK", help="the lm-evaluation-harness task to run")
    parser.add_argument("--include-path", metavar="DIR", help="lm-eval: a folder of task YAML files")
    parser.add_argument("--filter", metavar="NAME", help="lm-eval: the filter whose score is read (when several)")
    parser.add_argument(
        "--model",
        dest="models",
        action="append",
        default=[],
        metavar="MODEL",
        help="an inspect model, or lm-eval's NAME[:MODEL_ARGS] (repeat it)",
    )
    parser.add_argument(
        "--scorer", "--metric", dest="scorer", required=True, metavar="NAME", help="inspect's scorer, lm-eval's metric"
    )
    parser.add_argument("--log-dir", metavar="DIR", help="where the harness writes its logs (default RUN/logs)")
    parser.add_argument("--budget", metavar="B", help="evaluations or a percentage of K*L, to start a session")
    parser.add_argument("--algorithm", default="sysrs", metavar="NAME", help="to start a session (default sysrs)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="to start a session (default 0)")
    parser.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    parser.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
    parser.add_argument("--warmup", metavar="P", help="warm-up of the lrf algorithms")
    parser.add_argument("--chunk", type=int, metavar="N", help="at most N samples per eval call")


def run_harness(args: argparse.Namespace) -> None:
    """Start or resume the session in ``--dir`` and drive it to the end through inspect-ai."""
    from sysrs_ref.live.driver import (
        Evaluator,
        run as drive,  # here: building the parser stays light
    )

    folder = Path(args.dir)
    log_dir = Path(args.log_dir) if args.log_dir else folder / "logs"
    harness = "inspect-ai" if args.inspect else "lm-eval"
    if args.inspect:
        from sysrs_ref.live.inspect_harness import inspect_evaluator, inspect_queries, load_task

        task = load_task(args.inspect)
        queries = inspect_queries(task)
        evaluator: Evaluator = inspect_evaluator(task, scorer=args.scorer, log_dir=log_dir)
    else:
        from sysrs_ref.live.lm_eval_harness import lm_eval_evaluator, lm_eval_queries

        queries = lm_eval_queries(args.lm_eval, include_path=args.include_path)
        evaluator = lm_eval_evaluator(
            args.lm_eval, metric=args.scorer, filter=args.filter, output_path=log_dir, include_path=args.include_path
        )
    if (folder / CONFIG_NAME).exists():
        session = Session.open(folder)
        if args.models and list(args.models) != list(session.models):
            raise LiveError(
                f"{folder} holds a session of the models {', '.join(session.models)}; leave --model out to resume it"
            )
        started = "resumed"
    else:
        if not args.models or args.budget is None:
            raise LiveError("starting a session needs --model (two or more) and --budget")
        check_int(args.seed, "--seed", least=0, error=LiveError)
        session = Session.create(
            folder,
            list(args.models),
            queries,
            budget=args.budget,
            algorithm=args.algorithm,
            seed=args.seed,
            params=algorithm_params(args),
        )
        started = "started"
    with session:
        report = drive(session, evaluator, chunk=args.chunk)
        status = session.status()
    patterns = ("*.eval", "*.json") if args.inspect else ("samples_*.jsonl",)
    logs = sorted(str(path) for pattern in patterns for path in log_dir.rglob(pattern))
    payload: dict[str, JsonValue] = {
        "chosen": report.chosen,
        "spent": status.spent,
        "budget": status.budget,
        "recorded": report.recorded,
        "calls": report.calls,
        "logs": list(logs),
    }
    emit(
        args,
        payload,
        f"{started} {session.algorithm} on "
        f"{matrix_shape(len(session.models), len(session.queries), 'sample', 'samples')} in {folder}\n"
        f"{harness} ran {report.calls} calls for {report.recorded} (model, sample) pairs; spent {status.spent} "
        f"of {status.budget}\nthe chosen model is {report.chosen}\n{harness} logs: {len(logs)} in {log_dir}",
    )
