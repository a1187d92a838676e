"""``live run``: a live session driven through a harness's own Python API (inspect-ai, lm-eval), to the end or resumed.

``live run --inspect FILE.py@TASK --model M1 --model M2 --scorer match --budget 10% --dir RUN`` starts a session
on the task's samples (or resumes the one in ``RUN``), runs each batch's (model, sample) pairs with
``inspect_ai.eval`` (:mod:`sysrs_ref.live.inspect_harness`), writing inspect's logs to ``RUN/logs`` (``--log-dir``),
and records every score as its call returns; ``--lm-eval TASK`` does the same through lm-eval's ``simple_evaluate``
(:mod:`sysrs_ref.live.lm_eval_harness`), its results and samples files written under ``RUN/logs``. ``--import``
names modules (or ``.py`` files) imported first: the ones that register a model class with the harness.

While it runs it prints where it stands after each call (:class:`_Reporter`): one plain line a call (on a terminal
too, where the harness draws its own progress bars), nothing with ``--quiet``. Ctrl-C lets the calls in flight finish and records them; a
second Ctrl-C stops at once and says which evaluations are lost.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TextIO

from sysrs_ref._checks import check_int
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.algorithms.registry import get_algorithm
from sysrs_ref.cli._common import JsonValue, algorithm_params, emit
from sysrs_ref.errors import LiveError
from sysrs_ref.live.config import CONFIG_NAME
from sysrs_ref.live.driver import Failure, RunInterrupted, RunProgress
from sysrs_ref.live.session import Session
from sysrs_ref.schedule import parse_budget

__all__ = ["add_run_arguments", "import_modules", "run_harness"]

#: The exit status after a second Ctrl-C, which ends the process at once (128 + SIGINT).
STOPPED_AT_ONCE = 130


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``live run``."""
    harness = parser.add_mutually_exclusive_group(required=True)
    harness.add_argument("--inspect", metavar="FILE.py@TASK", help="the inspect-ai task to run")
    harness.add_argument("--lm-eval", dest="lm_eval", metavar="TASK", help="the lm-evaluation-harness task to run")
    parser.add_argument("--include-path", metavar="DIR", help="lm-eval: a folder of task YAML files")
    parser.add_argument("--filter", metavar="NAME", help="lm-eval: the filter whose score is read (when several)")
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module name or a .py file imported before the run, e.g. the one registering your model class "
        "(repeat it)",
    )
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
    parser.add_argument("--algorithm", metavar="NAME", help="to start a session (default sysrs)")
    parser.add_argument("--seed", type=int, metavar="S", help="to start a session (default 0)")
    parser.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    parser.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
    parser.add_argument("--warmup", metavar="P", help="warm-up of the lrf algorithms")
    parser.add_argument("--chunk", type=int, metavar="N", help="at most N samples per eval call")
    parser.add_argument("--quiet", action="store_true", help="print no progress while it runs")


def import_modules(names: list[str]) -> None:
    """Import each of *names*: a ``.py`` file by its path, else a module (the current folder first on the path).

    This is how a model class registered with the harness (lm-eval's
    ``register_model``, inspect's ``modelapi``) is found from the command
    line. LiveError, in one line, when an import fails.
    """
    for name in names:
        path = Path(name)
        try:
            if name.endswith(".py"):
                if not path.is_file():
                    raise LiveError(f"--import {name}: no such file")
                spec = importlib.util.spec_from_file_location(
                    f"_sysrs_import_{path.stem}_{abs(hash(path.resolve()))}", path
                )
                if spec is None or spec.loader is None:
                    raise LiveError(f"--import {name}: not a Python file")
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            else:
                if "" not in sys.path and os.getcwd() not in sys.path:
                    sys.path.insert(0, os.getcwd())
                importlib.import_module(name)
        except LiveError:
            raise
        except Exception as err:  # the user's module: whatever it raises is one line
            raise LiveError(f"--import {name}: importing it failed: {err!r}") from None


def run_harness(args: argparse.Namespace) -> None:
    """Start or resume the session in ``--dir`` and drive it to the end through inspect-ai or lm-eval."""
    from sysrs_ref.live.driver import (
        Evaluator,
        run as drive,  # here: building the parser stays light
    )

    folder = Path(args.dir)
    log_dir = Path(args.log_dir) if args.log_dir else folder / "logs"
    harness = "inspect-ai" if args.inspect else "lm-eval"
    import_modules(list(args.imports))
    resumed = _resumed(args, folder)  # before the harness loads: a mistake is reported at once
    try:
        if args.inspect:
            from sysrs_ref.live.inspect_harness import inspect_evaluator, inspect_queries, load_task

            task = load_task(args.inspect)
            queries = inspect_queries(task)
            evaluator: Evaluator = inspect_evaluator(task, scorer=args.scorer, log_dir=log_dir)
        else:
            from sysrs_ref.live.lm_eval_harness import lm_eval_harness

            queries, evaluator = lm_eval_harness(
                args.lm_eval,
                metric=args.scorer,
                filter=args.filter,
                output_path=log_dir,
                include_path=args.include_path,
            )
        if resumed is not None and list(resumed.queries) != queries:
            raise LiveError(
                f"{folder} holds a session on other queries than the task's samples "
                f"({counted(len(resumed.queries), 'query', 'queries')}, the task has "
                f"{counted(len(queries), 'sample')}); give another --dir to start a new session"
            )
    except BaseException:
        if resumed is not None:
            resumed.close()
        raise
    session, started = (resumed, "resumed") if resumed is not None else (_started(args, folder, queries), "started")
    err = sys.stderr  # as it is now: a harness may put a proxy of its own in its place while it runs (rich's)
    out = err if args.json else sys.stdout
    with session:
        shape = matrix_shape(len(session.models), len(session.queries), "sample", "samples")
        status = session.status()
        if not args.quiet:
            print(f"{started} {session.algorithm} on {shape} in {folder}; spent {status.spent} of {status.budget}",
                  file=out, flush=True)  # fmt: skip
        reporter = _Reporter(out, enabled=not args.quiet)
        try:
            report = drive(session, evaluator, chunk=args.chunk, on_progress=reporter, on_failure=reporter.failure)
        except RunInterrupted as stop:
            if stop.lost:  # a second Ctrl-C: end now, without waiting for the harness's threads
                print(f"interrupted: {stop}", file=err, flush=True)
                with contextlib.suppress(OSError, ValueError):
                    out.flush()
                session.close()
                os._exit(STOPPED_AT_ONCE)
            raise
        status = session.status()
    patterns = ("*.eval", "*.json") if args.inspect else ("samples_*.jsonl",)
    logs = sorted(str(path) for pattern in patterns for path in log_dir.rglob(pattern))
    succeeded = report.calls - len(report.failures)
    per_call = report.call_seconds / succeeded if succeeded else None
    payload: dict[str, JsonValue] = {
        "chosen": report.chosen,
        "spent": status.spent,
        "budget": status.budget,
        "recorded": report.recorded,
        "calls": report.calls,
        "seconds": round(report.seconds, 3),
        "seconds_per_call": None if per_call is None else round(per_call, 3),
        "logs": list(logs),
    }
    timing = f" in {_duration(report.seconds)} ({_duration(per_call)} a call)" if per_call is not None else ""
    emit(
        args,
        payload,
        f"{harness} ran {counted(report.calls, 'call')} for {counted(report.recorded, '(model, sample) pair')}{timing}; "
        f"spent {status.spent} of {status.budget}\nthe chosen model is {report.chosen}\n"
        f"{harness} logs: {len(logs)} in {log_dir}",
    )


def _started(args: argparse.Namespace, folder: Path, queries: list[str]) -> Session:
    """A new session in *folder* on *queries*, with the settings given."""
    if len(args.models) < 2 or args.budget is None:
        given = f"got {counted(len(args.models), '--model')}" + (f" ({', '.join(args.models)})" if args.models else "")
        raise LiveError(
            "starting a session needs two or more --model to choose between and a --budget "
            f"({given}{'' if args.budget is not None else ', no --budget'})"
        )
    seed = 0 if args.seed is None else args.seed
    check_int(seed, "--seed", least=0, error=LiveError)
    return Session.create(
        folder,
        list(args.models),
        queries,
        budget=args.budget,
        algorithm=args.algorithm or "sysrs",
        seed=seed,
        params=algorithm_params(args),
    )


def _resumed(args: argparse.Namespace, folder: Path) -> Session | None:
    """The session in *folder*, open for writing, if there is one; LiveError if a setting given differs from it."""
    if not (folder / CONFIG_NAME).exists():
        return None
    session = Session.open(folder)
    try:
        differ: list[str] = []
        if args.models and list(args.models) != list(session.models):
            differ.append(f"--model {', '.join(args.models)} (the session's: {', '.join(session.models)})")
        if args.budget is not None:
            budget = parse_budget(args.budget, len(session.models), len(session.queries))
            if budget != session.budget:
                differ.append(f"--budget {args.budget} (the session's: {session.budget})")
        if args.algorithm is not None and get_algorithm(args.algorithm).name != session.algorithm:
            differ.append(f"--algorithm {args.algorithm} (the session's: {session.algorithm})")
        if args.seed is not None and args.seed != session.seed:
            differ.append(f"--seed {args.seed} (the session's: {session.seed})")
        if differ:
            raise LiveError(
                f"{folder} holds a session with other settings: {'; '.join(differ)}; leave "
                f"{'this option' if len(differ) == 1 else 'these options'} out to resume it, or give another --dir "
                "to start a new session"
            )
    except BaseException:
        session.close()
        raise
    return session


def _duration(seconds: float | None) -> str:
    """Seconds as ``0.42 s``, ``12.3 s`` or ``1:02:03``."""
    if seconds is None:
        return "?"
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def progress_line(progress: RunProgress) -> str:
    """One line saying where a run stands: the phase, the batch, the spend, the active models, failures, time left.

    >>> from sysrs_ref.live.status import SessionStatus
    >>> status = SessionStatus("sysrs", 3, 12, 20, 14, 2, 2, ("a", "b"), False, None, None)
    >>> progress_line(RunProgress("call", status, 6, 4, 5, 1, (), 14, 3.0, 0.6, 1.3))
    'phase 2: 4 of 6 pairs | spent 14 of 20 | 2 models active | 5 calls, 1 failed | 0.60 s a call | about 1.30 s left'
    """
    status = progress.status
    parts = [
        "done" if status.done else f"phase {status.phase}: {progress.batch_done} of {counted(progress.batch, 'pair')}",
        f"spent {status.spent} of {status.budget}",
        *([] if status.done else [f"{counted(len(status.active), 'model')} active"]),
        f"{counted(progress.calls, 'call')}" + (f", {progress.failed} failed" if progress.failed else ""),
    ]
    if progress.call_seconds is not None:
        parts.append(f"{_duration(progress.call_seconds)} a call")
    if progress.left is not None and not status.done:
        parts.append(f"about {_duration(progress.left)} left")
    return " | ".join(parts)


class _Reporter:
    """Progress while ``live run`` runs: a line after each call (on a terminal too: the harness writes its own)."""

    def __init__(self, stream: TextIO, *, enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled
        self._last = ""

    def __call__(self, progress: RunProgress) -> None:
        if not self.enabled or progress.event == "failure":  # a failure has its own line (:meth:`failure`)
            return
        if progress.event == "stopping":
            calls = "; ".join(f"{model}: {counted(n, 'sample')}" for model, n in progress.running)
            self._line(
                f"Ctrl-C: waiting for the {'call' if len(progress.running) == 1 else 'calls'} in flight ({calls}) "
                "to finish, so that no evaluation is lost; Ctrl-C again to stop at once and lose "
                f"{'it' if len(progress.running) == 1 else 'them'}"
            )
            return
        line = progress_line(progress)
        if line != self._last:  # a batch that starts as the previous call left it: said already
            self._line(line)

    def failure(self, failure: Failure) -> None:
        """A failed call, as one line."""
        if self.enabled and failure.retry_in is not None:  # the last one is the error the run stops with
            self._line(
                f"call {failure.model} ({counted(failure.queries, 'sample')}) failed, try {failure.attempt}: "
                f"{failure.error}; retrying in {_duration(failure.retry_in)}"
            )

    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)
        self._last = text
