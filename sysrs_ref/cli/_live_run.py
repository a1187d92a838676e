"""``live run``: a live session driven through a harness's own Python API (inspect-ai), to the end or resumed.

``live run --inspect FILE.py@TASK --model M1 --model M2 --scorer match --budget 10% --dir RUN`` starts a session
on the task's samples (or resumes the one in ``RUN``), runs each batch's (model, sample) pairs with
``inspect_ai.eval`` (:mod:`sysrs_ref.live.inspect_harness`), writing inspect's logs to ``RUN/logs`` (``--log-dir``),
and records every score as its call returns.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sysrs_ref._checks import check_int
from sysrs_ref.cli._common import JsonValue, algorithm_params, emit
from sysrs_ref.errors import LiveError
from sysrs_ref.live.config import CONFIG_NAME
from sysrs_ref.live.session import Session

__all__ = ["add_run_arguments", "run_harness"]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``live run``."""
    parser.add_argument("--inspect", required=True, metavar="FILE.py@TASK", help="the inspect-ai task to run")
    parser.add_argument(
        "--model", dest="models", action="append", default=[], metavar="MODEL", help="an inspect model (repeat it)"
    )
    parser.add_argument("--scorer", required=True, metavar="NAME", help="the scorer whose value is the score")
    parser.add_argument("--log-dir", metavar="DIR", help="where inspect writes its logs (default RUN/logs)")
    parser.add_argument("--budget", metavar="B", help="evaluations or a percentage of K*L, to start a session")
    parser.add_argument("--algorithm", default="sysrs", metavar="NAME", help="to start a session (default sysrs)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="to start a session (default 0)")
    parser.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    parser.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
    parser.add_argument("--warmup", metavar="P", help="warm-up of the lrf algorithms")
    parser.add_argument("--chunk", type=int, metavar="N", help="at most N samples per eval call")


def run_harness(args: argparse.Namespace) -> None:
    """Start or resume the session in ``--dir`` and drive it to the end through inspect-ai."""
    from sysrs_ref.live.driver import run as drive  # here: building the parser stays light
    from sysrs_ref.live.inspect_harness import inspect_evaluator, inspect_queries, load_task

    task = load_task(args.inspect)
    folder = Path(args.dir)
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
            inspect_queries(task),
            budget=args.budget,
            algorithm=args.algorithm,
            seed=args.seed,
            params=algorithm_params(args),
        )
        started = "started"
    log_dir = Path(args.log_dir) if args.log_dir else folder / "logs"
    with session:
        report = drive(session, inspect_evaluator(task, scorer=args.scorer, log_dir=log_dir), chunk=args.chunk)
        status = session.status()
    logs = sorted(str(path) for path in log_dir.glob("*.eval")) + sorted(str(path) for path in log_dir.glob("*.json"))
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
        f"{started} {session.algorithm} on {len(session.models)} models x {len(session.queries)} samples in {folder}\n"
        f"inspect ran {report.calls} evals of {report.recorded} (model, sample) pairs; spent {status.spent} of "
        f"{status.budget} evaluations\nthe chosen model is {report.chosen}\ninspect logs: {len(logs)} in {log_dir}",
    )
