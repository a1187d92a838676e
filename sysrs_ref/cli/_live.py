"""The ``live`` subcommand (:mod:`sysrs_ref.cli`): a live session driven from any harness, one step at a time.

- ``live init``: start a session in a new run directory;
- ``live next``: the pairs to evaluate now (a CSV ``model,query`` on stdout, or JSON);
- ``live record``: record a CSV of scores (columns ``model,query,score``);
- ``live status``: spent / budget, the phase, the active models, the chosen model when done;
- ``live run``: a session driven to the end through inspect-ai or lm-eval (:mod:`sysrs_ref.cli._live_run`).

Each command reopens the session from its run directory
(:class:`~sysrs_ref.live.session.Session`), so they can come from different
processes, days or machines sharing the folder.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from fractions import Fraction
from pathlib import Path

from sysrs_ref._checks import check_int
from sysrs_ref._files import SMALL_FILE_BYTES, JsonFormatError, parse_json, read_regular
from sysrs_ref._words import counted, matrix_shape
from sysrs_ref.algorithms.registry import ALGORITHMS
from sysrs_ref.cli._common import WARMUP_HELP, algorithm_params, emit
from sysrs_ref.errors import LiveError, LoaderError
from sysrs_ref.json_types import JsonValue
from sysrs_ref.live.session import Session

__all__ = ["EXAMPLE", "add_arguments", "read_ids", "read_scores_csv", "run"]

EXAMPLE = "init --models models.txt --queries queries.txt --budget 10% --algorithm sysrs --seed 0 --dir run1"


def add_arguments(sub: argparse.ArgumentParser) -> None:
    """The ``live`` subcommands and their options."""
    actions = sub.add_subparsers(dest="live_command", required=True, metavar="ACTION")

    def action(name: str, summary: str, example: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(
            name,
            help=summary,
            description=summary,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=f"example:\n  python -m sysrs_ref live {name} {example}",
        )
        parser.add_argument("--dir", required=True, metavar="RUN", help="the session's run directory")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        return parser

    init = action("init", "start a session in a new run directory", EXAMPLE.removeprefix("init "))
    init.add_argument(
        "--models",
        required=True,
        metavar="FILE",
        help="model ids: one per line, a JSON list, or convert's .ids.json (row order)",
    )
    init.add_argument(
        "--queries",
        required=True,
        metavar="FILE",
        help="query ids: one per line, a JSON list, or convert's .ids.json (column order)",
    )
    init.add_argument("--budget", required=True, metavar="B", help="evaluations (5000) or a percentage of K*L (12%%)")
    init.add_argument(
        "--algorithm", default="sysrs", metavar="NAME", help=f"one of {', '.join(ALGORITHMS)} (default sysrs)"
    )
    init.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the draw, as select's (default 0)")
    init.add_argument("--a", metavar="A", help="exploration parameter of ucbe and syucbe (default 1)")
    init.add_argument("--m", metavar="M", help="size of the top-m set sar and sysar identify (default 1)")
    init.add_argument("--warmup", metavar="P", help=WARMUP_HELP)
    action("next", "print the (model, query) pairs to evaluate now: CSV model,query, or JSON", "--dir run1 --json")
    record = action(
        "record", "record scores from a CSV with columns model,query,score", "--dir run1 --scores scores.csv"
    )
    record.add_argument(
        "--scores", required=True, metavar="FILE.csv", help="CSV with a header naming model, query, score"
    )
    record.add_argument(
        "--float",
        action="store_true",
        help="read each score as the nearest float64, as a .npy matrix holds it (default: exactly, as a decimal: "
        "0.1 is 1/10, as in a .csv matrix)",
    )
    action("status", "spent / budget, phase, active models; the chosen model when done", "--dir run1 --json")
    harness = action(
        "run",
        "start (or resume) a session and drive it to the end through inspect-ai or lm-eval, which run the pairs "
        "asked for",
        "--inspect tasks.py@arith --model openai/gpt-4o-mini --model openai/gpt-4o --scorer match --budget 20% "
        "--dir run1",
    )
    from sysrs_ref.cli._live_run import add_run_arguments

    add_run_arguments(harness)


def run(args: argparse.Namespace) -> None:
    """Run one ``live`` action."""
    if args.live_command == "init":
        _init(args)
        return
    if args.live_command == "run":
        from sysrs_ref.cli._live_run import run_harness

        run_harness(args)
        return
    with Session.open(args.dir, readonly=args.live_command != "record") as session:
        if args.live_command == "record":
            rows = read_scores_csv(Path(args.scores), as_float=args.float)
            recorded = session.record_many(rows)
            _status(args, session, f"recorded {recorded} new scores ({len(rows) - recorded} already known)")
        elif args.live_command == "next":
            pending = session.pending()
            if args.json:
                print(json.dumps({"pending": [{"model": m, "query": q} for m, q in pending]}))
                return
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(("model", "query"))
            writer.writerows(pending)
            sys.stdout.write(out.getvalue())
            status = session.status()
            print(
                f"# {counted(len(pending), 'pair')} pending, phase {status.phase}; spent {status.spent} of {status.budget}"
                if pending
                else f"# done: the chosen model is {session.chosen}",
                file=sys.stderr,
            )
        else:
            _status(args, session, "")


def _init(args: argparse.Namespace) -> None:
    models = read_ids(Path(args.models), "models")
    queries = read_ids(Path(args.queries), "queries")
    check_int(args.seed, "--seed", least=0, error=LiveError)
    with Session.create(
        args.dir,
        models,
        queries,
        budget=args.budget,
        algorithm=args.algorithm,
        seed=args.seed,
        params=algorithm_params(args),
    ) as session:
        _status(
            args, session, f"started {session.algorithm} on {matrix_shape(len(models), len(queries))} in {args.dir}"
        )


def _status(args: argparse.Namespace, session: Session, headline: str) -> None:
    status = session.status()
    payload: dict[str, JsonValue] = status.to_json()
    lines = [headline] if headline else []
    lines.append(
        f"{status.algorithm}: spent {status.spent} of {status.budget} evaluations "
        f"({matrix_shape(status.models, status.queries)} = {status.models * status.queries})"
    )
    if status.done:
        ranking = status.ranking or ()
        lines.append(
            f"done: the chosen model is {status.chosen}; ranking {', '.join(ranking[:10])}"
            + (", ..." if len(ranking) > 10 else "")
        )
    else:
        lines.append(
            f"phase {status.phase}: {counted(status.pending, 'pair')} pending ('live next --dir {args.dir}'), "
            f"{counted(len(status.active), 'model')} in it"
        )
    emit(args, payload, "\n".join(lines))


def read_ids(path: Path, key: str) -> list[str]:
    """Ids from *path*: a JSON list, a JSON object's *key* list (convert's sidecar), or one id per line.

    Blank lines are skipped and surrounding spaces stripped; LiveError for an
    unreadable file or a JSON file of another shape.
    """
    try:
        text = read_regular(path, SMALL_FILE_BYTES).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise LiveError(f"cannot read the {key} file {path}: {getattr(err, 'strerror', None) or err}") from None
    if path.suffix == ".json":
        try:
            found = parse_json(text)
        except JsonFormatError as err:
            raise LiveError(f"{path}: {err}") from None
        if isinstance(found, dict):
            found = found.get(key)
        if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
            raise LiveError(f"{path} must hold a JSON list of {key} ids (or an object with a {key!r} list)")
        return list(found)
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_scores_csv(path: Path, *, as_float: bool = False) -> list[tuple[str, str, Fraction]]:
    """The (model, query, score) rows of a CSV with a header naming ``model``, ``query`` and ``score``.

    The file is read as ``convert --from long-csv`` reads one
    (:func:`~sysrs_ref.loaders.long_csv.long_csv_cells`): other columns are
    ignored, a line needs one cell per column, and scores are read by
    :func:`~sysrs_ref.scores.parse_score_text` (exact decimals, ``0.1`` is
    1/10 as in a ``.csv`` matrix; ``true``/``false``; ``C``, ``P``, ``I``,
    ``N``), or with *as_float* rounded to the nearest float64 (as a ``.npy``
    matrix holds them). LiveError names the file and line of anything
    unusable.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d, "s.csv")
    ...     _ = path.write_text("model,query,score\\na,q1,0.1\\nb,q1,true\\nc,q1,P\\n")
    ...     read_scores_csv(path)
    [('a', 'q1', Fraction(1, 10)), ('b', 'q1', Fraction(1, 1)), ('c', 'q1', Fraction(1, 2))]
    """
    from sysrs_ref.loaders.long_csv import long_csv_cells  # here: ``live next`` runs often and reads no scores file

    rows: list[tuple[str, str, Fraction]] = []
    try:
        for model, query, score, _ in long_csv_cells(path, "score"):
            rows.append((model, query, Fraction(float(score)) if as_float else score))
    except LoaderError as err:
        raise LiveError(str(err)) from None
    return rows
