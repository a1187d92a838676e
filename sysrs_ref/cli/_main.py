"""The command line: ``python -m sysrs_ref COMMAND`` (docs/cli.md is the reference).

Each subcommand is one module of this package that owns its options
(``add_arguments``) and its work (``run``); it is imported only when it is
the command being run, so ``--help`` and ``live next`` start fast. With
``--json`` each subcommand prints exactly one JSON object on stdout;
otherwise readable text. A user's mistake (missing file, bad budget, unknown
algorithm, invalid scores) prints one line on stderr and exits with status 2.

Ctrl-C and SIGTERM stop any subcommand the same way: the work stops at once
(the engine kills its worker processes; what reproduce and live wrote is
kept, written atomically or fsynced), one line on stderr says so, and the
status is 128 + the signal's number: 130 for Ctrl-C (SIGINT), 143 for
SIGTERM. SIGTERM is turned into :class:`Terminated`, a KeyboardInterrupt
raised in the main thread, so every path that stops on Ctrl-C stops on it.

Every command writes its output through :func:`_run`
(:func:`sysrs_ref._streams.guarded_streams`): output that cannot be written
(a closed stdout, a full disk) is one line on stderr and status 2, never a
silent success; a closed stdout is refused before the command starts. A
reader that stops reading (``| head -1``) ends the command quietly with
status 0. A stderr that cannot be written (``2> /dev/full``, ``2>&-``)
loses the message but not the status: every error still exits with its own.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

from sysrs_ref._children import sigterm_interrupts
from sysrs_ref._streams import StdoutError, discard, guarded_streams
from sysrs_ref.errors import SysrsError

__all__ = ["COMMANDS", "INTERRUPTED", "TERMINATED", "Terminated", "main"]

#: Every subcommand: its module (in this package) and its one-line summary, in the order ``--help`` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "select": ("_select", "run one algorithm once on a score matrix and report the model it picks"),
    "simulate": (
        "_simulate",
        "run one or several algorithms many times at several budgets, on the same draws, "
        "and report how often each picks a best model",
    ),
    "hardness": ("_hardness", "the hardness measures H1, H2, H3, H3' of a score matrix, or the paper's dataset table"),
    "exact": (
        "_exact",
        "the exact probability that an algorithm misses every best model, over all draws (small instances)",
    ),
    "reproduce": (
        "_reproduce",
        "run the paper's experiments on a folder of score matrices: tables, confidence budgets, a report, plots",
    ),
    "vectors": ("_vectors", "write the language-neutral test vectors (data/vectors) and their JSON schema"),
    "conform": ("_conform", "test another implementation against the vectors, through a line-delimited JSON protocol"),
    "subset": ("_subset", "a subset-selection baseline (anchor points, k-means, MetaBench): its anchors and pick"),
    "live": ("_live", "a live session: evaluate what the algorithm asks for, in any harness, resumable"),
    "convert": (
        "_convert",
        "per-instance results of lm-eval, HELM, inspect or a long CSV into a score matrix and its ids",
    ),
    "datasets": (
        "_datasets",
        "list the real benchmarks shipped with the package (K, L, best mean, Delta_2, H2), or export them",
    ),
    "demo": ("_demo", "SySRs on a synthetic benchmark at 10%% of the full cost (no files needed)"),
    "noise": (
        "_noise",
        "the noise study: how much of SySRs' advantage over SR survives sampling noise (table, JSON, CSV, figure)",
    ),
}


#: The exit status after Ctrl-C (128 + SIGINT) and after SIGTERM (128 + SIGTERM), the shells' convention.
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, as the command line raises it: a KeyboardInterrupt, so that it stops everything Ctrl-C stops.

    A subcommand that adds to an interruption's message re-raises
    ``type(interrupt)(message)``, which keeps the kind.
    """


class _UsageError(Exception):
    """A mistake in the command line itself (argparse)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"sysrs_ref.cli.{COMMANDS[name][0]}")


def _build_parser(wanted: str | None = None) -> _Parser:
    """The parser; only subcommand *wanted* gets its options (and imports its module); None: all of them."""
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
    for name, (_, summary) in COMMANDS.items():
        if wanted is not None and name != wanted:
            commands.add_parser(name, help=summary)  # listed by --help; its options are not needed now
            continue
        module = _module(name)
        sub = commands.add_parser(
            name,
            help=summary,  # help strings are %-formatted by argparse, descriptions are not
            description=summary.replace("%%", "%"),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=f"example:\n  python -m sysrs_ref {name} {module.EXAMPLE}".rstrip(),
        )
        module.add_arguments(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand *argv* names (its first word that is not an option), if it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 a user's mistake, 130 Ctrl-C, 143 SIGTERM)."""
    words = list(sys.argv[1:] if argv is None else argv)
    # until the status is known: a second SIGTERM cannot cut the clean-up short, nor an unwritable stderr change it
    with guarded_streams(), sigterm_interrupts(Terminated):
        try:
            return _run(words)
        except Terminated:  # the first SIGTERM came while _run was reporting how something else ended
            print("interrupted by SIGTERM", file=sys.stderr)
            return TERMINATED


def _run(words: list[str]) -> int:
    """Parse *words*, run the subcommand, and turn what stopped it into one line on stderr and a status."""
    if sys.stdout is None:  # started with stdout closed (`>&-`): Python has no stream to write to
        print("error: stdout is closed, so no output could be written: nothing was run", file=sys.stderr)
        return 2
    try:
        try:
            args = _build_parser(_command(words) or "").parse_args(words)
            run: Callable[[argparse.Namespace], int | None] = _module(args.command).run
            status = run(args)
            sys.stdout.flush()
        except SystemExit:  # --help, after printing it: the help must have been written
            sys.stdout.flush()
            raise
        if status is not None:
            return status
    except StdoutError as err:  # a full disk, an I/O error: what was printed may be cut short
        print(f"error: the output could not be written to stdout ({err})", file=sys.stderr)
        discard(sys.stdout)
        return 2
    except (_UsageError, SysrsError) as err:
        prefix = "" if isinstance(err, _UsageError) else "error: "
        print(f"{prefix}{err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C or SIGTERM: reproduce and live keep what they wrote
        how = " by SIGTERM" if isinstance(interrupt, Terminated) else ""
        print(f"interrupted{how}{': ' + str(interrupt) if str(interrupt) else ''}", file=sys.stderr)
        return TERMINATED if isinstance(interrupt, Terminated) else INTERRUPTED
    except BrokenPipeError:  # piped into e.g. head: stop quietly, without a second error at exit
        discard(sys.stdout)
        return 0
    return 0
