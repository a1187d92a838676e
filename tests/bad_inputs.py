"""The bad-input table: one command-line mistake per row, its exit status 2 and its one-line message.

Each :class:`Case` is a kind of mistake, the words after ``python -m sysrs_ref``, the files it needs (created
in an empty folder beside the :data:`BASE_FILES`, which every case has), the commands run first (a live
session to act on), and a fragment of the message it must print. tests/cli/test_bad_inputs.py runs every case;
:func:`render` runs them too and writes docs/appendix/bad-inputs.md from the messages they really print:

    python -m tests.bad_inputs > docs/appendix/bad-inputs.md
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sysrs_ref.cli import main

__all__ = ["BASE_FILES", "CASES", "Case", "prepare", "render", "run"]

ROOT = Path(__file__).resolve().parents[1]
TINY = (ROOT / "data" / "fixtures" / "tiny_matrix.csv").read_text()
TINY_LONG = (ROOT / "data" / "fixtures" / "tiny_long.csv").read_text()

#: The files of every case's folder: a 4 x 6 matrix in both .csv forms, and ids for a live session.
BASE_FILES: dict[str, str] = {
    "tiny.csv": TINY,
    "long.csv": TINY_LONG,
    "models.txt": "a\nb\nc\n",
    "queries.txt": "q1\nq2\nq3\nq4\n",
}

#: The live session that the live cases act on: 3 models x 4 queries, 6 evaluations.
LIVE_INIT = ("live", "init", "--models", "models.txt", "--queries", "queries.txt", "--budget", "6", "--dir", "run")


def _npy(array: object, *, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=allow_pickle)
    return buffer.getvalue()


def _zip(members: Mapping[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _samples_bomb() -> bytes:
    """An .npz of a few kilobytes whose member inflates to 4 MB of samples: more values than are read at once."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples.npy", _npy(np.zeros((2, 2, 1_000_001), dtype=np.uint8)))
    return buffer.getvalue()


def _forged_npy() -> bytes:
    """An .npy header declaring a 10^8 x 10^8 float64 matrix (80 petabytes), then 16 bytes of data."""
    buffer = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (10**8, 10**8)}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + bytes(16)


FORGED_NPY = _forged_npy()


@dataclass(frozen=True)
class Case:
    """One kind of mistake on the command line, and a fragment of the one line it must print."""

    kind: str
    argv: tuple[str, ...]
    fragment: str
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    """Files written into the folder beside the base files."""
    setup: tuple[tuple[str, ...], ...] = ()
    """Commands run next (each must exit 0): a live session to act on."""
    edited: Mapping[str, str | bytes] = field(default_factory=dict)
    """Files written last, over what the setup made (a session's files, damaged)."""


def _case(kind: str, argv: str | tuple[str, ...], fragment: str, **extra: object) -> Case:
    words = tuple(argv.split()) if isinstance(argv, str) else argv
    return Case(kind, words, fragment, **extra)  # type: ignore[arg-type]


SELECT = "select --scores tiny.csv"
CASES: tuple[Case, ...] = (
    # -- the command line itself
    _case("no subcommand", "", "the following arguments are required: COMMAND"),
    _case("unknown subcommand", "selekt", "invalid choice: 'selekt'"),
    _case("a required option missing", "select --scores tiny.csv", "the following arguments are required: --budget"),
    _case("an option without its value", "select --scores tiny.csv --budget", "expected one argument"),
    _case("an unknown option", "demo --fast", "unrecognized arguments: --fast"),
    # -- budgets
    _case("budget below the number of models", f"{SELECT} --budget 3", "at least the number of models (K=4), got 3"),
    _case("budget above K x L", f"{SELECT} --budget 25", "at most K*L = 24"),
    _case("budget not a number", f"{SELECT} --budget twelve", "neither an integer"),
    _case("percentage above 100%", f"{SELECT} --budget 101%", "percentage must be in (0%, 100%]"),
    _case("percentage not a number", f"{SELECT} --budget abc%", "percentage 'abc%' is not a number"),
    _case("percentage too small for K", f"{SELECT} --budget 10%", "below the number of models (K=4)"),
    _case("percentage with a huge exponent", f"{SELECT} --budget 1e-99999999%", "'1e-99999999%' has an exponent"),
    # -- algorithms and their parameters
    _case("unknown algorithm", f"{SELECT} --budget 12 --algorithm sysrss", "sysrss"),
    _case("a parameter the algorithm lacks", f"{SELECT} --budget 12 --algorithm sr --a 2", "sr has no parameter 'a'"),
    _case("exploration parameter 0", f"{SELECT} --budget 12 --algorithm ucbe --a 0", "0"),
    _case("exploration parameter NaN", f"{SELECT} --budget 12 --algorithm ucbe --a nan", "nan"),
    _case(
        "exploration parameter with a huge exponent",
        f"{SELECT} --budget 12 --algorithm ucbe --a 1e99999999",
        "1e99999999",
    ),
    _case("top-m size out of range", f"{SELECT} --budget 12 --algorithm sar --m 4", "got 4"),
    _case("warm-up above 100%", f"{SELECT} --budget 12 --algorithm ucbe-lrf --warmup 101", "warmup is a percentage"),
    _case("negative seed", f"{SELECT} --budget 12 --seed -1", "-1"),
    _case("seed not an integer", f"{SELECT} --budget 12 --seed x", "invalid int value: 'x'"),
    # -- score files
    _case("missing scores file", "select --scores missing.csv --budget 12", "missing.csv"),
    _case("misspelt benchmark name", "select --scores gms --budget 12%", "did you mean 'gsm'?"),
    _case(
        "unsupported file type",
        "select --scores tiny.txt --budget 12",
        "unsupported file type '.txt'",
        files={"tiny.txt": TINY},
    ),
    _case(
        "a folder instead of a file", "select --scores folder.csv --budget 12", "folder.csv", files={"folder.csv/x": ""}
    ),
    _case(
        "a word in a .csv matrix",
        "select --scores bad.csv --budget 4",
        "line 1, column 2",
        files={"bad.csv": "0.5,x\n1,0\n"},
    ),
    _case("NaN in a .csv matrix", "select --scores nan.csv --budget 4", "nan", files={"nan.csv": "0.5,nan\n1,0\n"}),
    _case(
        "score above 1 in a .csv matrix",
        "select --scores big.csv --budget 4",
        "outside [0, 1]",
        files={"big.csv": "0.5,1.5\n1,0\n"},
    ),
    _case(
        "score with a huge exponent",
        "select --scores tiny-exp.csv --budget 4",
        "1e-99999999",
        files={"tiny-exp.csv": "0.5,1e-99999999\n1,0\n"},
    ),
    _case(
        "rows of different lengths",
        "select --scores ragged.csv --budget 4",
        "line 2 has 1 column",
        files={"ragged.csv": "0.5,1\n1\n"},
    ),
    _case("empty .csv", "select --scores empty.csv --budget 4", "holds no scores", files={"empty.csv": "\n"}),
    _case(
        "a .csv cell longer than the csv module's limit",
        "select --scores wide.csv --budget 4",
        "field larger than field limit",
        files={"wide.csv": "0." + "1" * 140_000 + "\n"},
    ),
    _case("not UTF-8", "select --scores latin1.csv --budget 4", "not UTF-8", files={"latin1.csv": b"0.5,1\n\xe9\n"}),
    _case(
        "long .csv: a pair twice",
        "select --scores twice.csv --budget 2",
        "appears twice",
        files={"twice.csv": "model,query,score\na,q,1\nb,q,0\na,q,1\n"},
    ),
    _case(
        "long .csv: a missing pair",
        "select --scores holes.csv --budget 2",
        "has no score for query",
        files={"holes.csv": "model,query,score\na,q1,1\nb,q2,0\n"},
    ),
    _case(
        "long .csv: a column missing from the header",
        "select --scores header.csv --budget 2",
        "needs exactly the columns model, query, score",
        files={"header.csv": "model,query\na,q1\n"},
    ),
    _case("one model only", "select --scores one.csv --budget 2", "model", files={"one.csv": "0.5,1\n"}),
    _case(
        "NaN in a .npy matrix",
        "select --scores nan.npy --budget 4",
        "nan",
        files={"nan.npy": _npy([[0.5, np.nan], [1.0, 0.0]])},
    ),
    _case(
        "a .npy vector, not a matrix",
        "select --scores vector.npy --budget 4",
        "dimension",
        files={"vector.npy": _npy([0.5, 1.0])},
    ),
    _case(
        "a .npy of Python objects (a pickle)",
        "select --scores objects.npy --budget 4",
        "holds Python objects",
        files={"objects.npy": _npy(np.array([[0.5, None]], dtype=object), allow_pickle=True)},
    ),
    _case(
        "a truncated .npy",
        "select --scores cut.npy --budget 4",
        "cut.npy",
        files={"cut.npy": _npy([[0.5, 1.0], [0.0, 1.0]])[:-5]},
    ),
    _case(
        "a .npy whose header declares more data than the file holds",
        "select --scores forged.npy --budget 4",
        "forged.npy",
        files={"forged.npy": FORGED_NPY},
    ),
    _case(
        "a .npy of repeated scores per cell (convert --epochs all) where a matrix is needed",
        "subset --scores epochs.npy --method random --budget 50%",
        "read it as samples of random scores, but this needs one score per model and query",
        files={"epochs.npy": _npy(np.zeros((2, 2, 3)))},
    ),
    _case(
        "a .npy whose ids file names too few models",
        "select --scores named.npy --budget 4",
        "named.ids.json names 1 model but",
        files={
            "named.npy": _npy([[0.5, 1.0], [0.0, 1.0]]),
            "named.ids.json": '{"models": ["a"], "queries": ["q1", "q2"]}',
        },
    ),
    _case(
        "not a .npy at all",
        "select --scores noise.npy --budget 4",
        "lacks the NUMPY header",
        files={"noise.npy": b"hello, world\n"},
    ),
    _case(
        "an .npz renamed .npy",
        "select --scores archive.npy --budget 4",
        "zip archive",
        files={"archive.npy": _zip({"scores.npy": _npy([[1.0]])})},
    ),
    # -- random scores (docs/cli.md, Random scores)
    _case(
        "--stochastic bernoulli with a 3-D .npy of samples",
        "select --scores epochs.npy --stochastic bernoulli --budget 4",
        "read a 2-D matrix of probabilities p_ij",
        files={"epochs.npy": _npy(np.zeros((2, 2, 3)))},
    ),
    _case("an unknown --stochastic kind", f"{SELECT} --budget 12 --stochastic beta", "invalid choice: 'beta'"),
    _case(
        "an .npz without samples or a law",
        "select --scores other.npz --budget 4",
        "a stochastic .npz holds either 'samples'",
        files={"other.npz": _zip({"scores.npy": _npy([[1.0, 0.0], [0.0, 1.0]])})},
    ),
    _case(
        "an .npz whose probabilities do not sum to 1",
        "select --scores law.npz --budget 2",
        "the probabilities at model 0, query 0 sum to 0.75, not 1",
        files={
            "law.npz": _zip({"support.npy": _npy([0.0, 1.0]), "probabilities.npy": _npy([[[0.5, 0.25]], [[0.5, 0.5]]])})
        },
    ),
    _case(
        "an .npz whose probabilities do not fit its support",
        "select --scores law.npz --budget 2",
        "'probabilities' must be a K x L x V array with V = 2",
        files={"law.npz": _zip({"support.npy": _npy([0.0, 1.0]), "probabilities.npy": _npy(np.full((2, 1, 3), 0.5))})},
    ),
    _case(
        "a sample outside [0, 1]",
        "select --scores big.npy --budget 2",
        "sample at model 0, query 0, repeat 0 is 1.5, outside [0, 1]",
        files={"big.npy": _npy(np.full((2, 1, 2), 1.5))},
    ),
    _case(
        "hardness --bernoulli of random scores",
        "hardness --scores epochs.npy --bernoulli",
        "leave out --bernoulli",
        files={"epochs.npy": _npy(np.zeros((2, 2, 3)))},
    ),
    _case(
        "exact --top-m of random scores",
        "exact --scores epochs.npy --budget 4 --top-m 1",
        "exact --top-m is for a score matrix",
        files={"epochs.npy": _npy(np.zeros((2, 2, 3)))},
    ),
    _case(
        "reproduce: random scores with --subset-selection",
        "reproduce --data data --out out --grid table --stochastic bernoulli --subset-selection",
        "the subset selection needs score matrices",
        files={"data/tiny.csv": TINY},
    ),
    # -- simulate
    _case(
        "zero runs",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12 --runs 0",
        "--runs must be a positive integer",
    ),
    _case(
        "runs not a number",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12 --runs many",
        "invalid int value: 'many'",
    ),
    _case(
        "zero workers",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12 --runs 2 --workers 0",
        "--workers must be a positive integer",
    ),
    _case(
        "an empty item in a budget list",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12, --runs 2",
        "budget",
    ),
    _case(
        "an unknown algorithm in a list",
        "simulate --scores tiny.csv --algorithm sysrs,magic --budgets 12 --runs 2",
        "magic",
    ),
    _case(
        "top-m size out of range (simulate)",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12 --runs 2 --top-m 9",
        "top-m needs m <= K - 1 = 3",
    ),
    _case(
        "--algorithm all with a parameter",
        "simulate --scores tiny.csv --algorithm all --a 2 --budgets 12 --runs 2",
        "all",
    ),
    _case(
        "an unreachable Dask scheduler",
        "simulate --scores tiny.csv --algorithm sysrs --budgets 12 --runs 2 --scheduler not-an-address",
        "cannot reach the Dask scheduler",
    ),
    # -- hardness and exact
    _case("hardness: --scores and --table together", "hardness --scores tiny.csv --table", "not allowed with argument"),
    _case(
        "hardness: --bernoulli with --table",
        "hardness --table empty --bernoulli",
        "--bernoulli applies to --scores",
        files={"empty/.keep": ""},
    ),
    _case("hardness: --table of a missing folder", "hardness --table missing", "missing"),
    _case("exact: an enumeration above --limit", "exact --scores tiny.csv --budget 12 --limit 10", "10"),
    _case(
        "exact: top-m size out of range", "exact --scores tiny.csv --budget 12 --top-m 4", "top-m needs m <= K - 1 = 3"
    ),
    # -- scale and paths
    _case(
        "samples beyond what is read at once (an .npz member, refused from its header)",
        "select --scores bomb.npz --budget 4",
        "hold 4,000,004 values; reading them exactly would take about",
        files={"bomb.npz": _samples_bomb()},
    ),
    _case(
        "a file name too long for the file system",
        f"select --scores {'s' * 256}.csv --budget 4",
        "the file name is too long for this system (260 characters",
    ),
    _case(
        "a device (or a FIFO) given as a file",
        "select --scores /dev/zero --budget 4",
        "/dev/zero: not a regular file or a directory",
    ),
    _case(
        "reproduce: --out is the data folder",
        "reproduce --data data --out data --grid table",
        "is the data folder",
        files={"data/tiny.csv": TINY},
    ),
    # -- reproduce
    _case(
        "reproduce: unknown grid name",
        "reproduce --data data --out out --grid weekly",
        "neither a grid name",
        files={"data/tiny.csv": TINY},
    ),
    _case(
        "reproduce: a grid file with a mistake",
        "reproduce --data data --out out --grid grid.txt",
        "grid file 'grid.txt', line 2",
        files={"data/tiny.csv": TINY, "grid.txt": "50%\nfifty\n"},
    ),
    _case(
        "reproduce: a grid file listing a point twice",
        "reproduce --data data --out out --grid grid.txt",
        "twice",
        files={"data/tiny.csv": TINY, "grid.txt": "50%\n50\n"},
    ),
    _case(
        "reproduce: an empty grid file",
        "reproduce --data data --out out --grid grid.txt",
        "holds no budget percentage",
        files={"data/tiny.csv": TINY, "grid.txt": "# nothing\n"},
    ),
    _case(
        "reproduce: a grid point with a huge exponent",
        "reproduce --data data --out out --grid grid.txt",
        "1e-99999999",
        files={"data/tiny.csv": TINY, "grid.txt": "1e-99999999\n"},
    ),
    _case("reproduce: a missing data folder", "reproduce --data nowhere --out out", "nowhere"),
    _case(
        "reproduce: a data folder without matrices",
        "reproduce --data data --out out",
        "data",
        files={"data/notes.txt": "x\n"},
    ),
    _case(
        "reproduce: an unknown algorithm",
        "reproduce --data data --out out --algorithms sysrs,magic",
        "magic",
        files={"data/tiny.csv": TINY},
    ),
    _case(
        "reproduce: zero runs",
        "reproduce --data data --out out --runs 0",
        "--runs must be a positive integer",
        files={"data/tiny.csv": TINY},
    ),
    _case(
        "reproduce: bad IRT dimensions",
        "reproduce --data data --out out --grid table --subset-selection --subset-dims 1",
        "--subset-dims must be",
        files={"data/tiny.csv": TINY},
    ),
    # -- vectors and conform
    _case("vectors: an output folder that cannot be made", "vectors --out tiny.csv/vectors", "tiny.csv"),
    _case("conform: neither --reference nor a command", "conform", "either --reference or the command"),
    _case(
        "conform: both --reference and a command",
        ("conform", "--reference", "--", "node", "x.js"),
        "either --reference or the command",
    ),
    _case("conform: timeout 0", "conform --timeout 0 --reference", "--timeout must be a positive number"),
    _case("conform: a timeout beyond the clock", "conform --timeout 1e10 --reference", "at most"),
    _case("conform: no case matches", "conform --case nothing-* --reference", "no case matches"),
    _case("conform: an unknown tag", "conform --family budgets --tag speed --reference", "no tag 'speed'"),
    _case("conform: an unknown family", "conform --family colours --reference", "invalid choice: 'colours'"),
    _case("conform: a missing vectors folder", "conform --vectors nowhere --reference", "cannot read the vectors file"),
    _case(
        "conform: negative --max-failures", "conform --max-failures -1 --reference", "--max-failures must be 0 or more"
    ),
    _case(
        "conform: an implementation that cannot start",
        ("conform", "--family", "budgets", "--", "./no-such-program"),
        "cannot start the implementation",
    ),
    # -- noise
    _case("noise: zero runs", "noise --out out --runs 0 --quick", "--runs must be a positive integer"),
    # -- subset
    _case(
        "subset: unknown method",
        "subset --scores tiny.csv --method magic --budget 50%",
        "unknown subset method 'magic'",
    ),
    _case(
        "subset: --dim for a method without it",
        "subset --scores tiny.csv --method anchor --budget 50% --dim 3",
        "--dim is the IRT dimension of kmeans-irt",
    ),
    _case(
        "subset: IRT dimension 1",
        "subset --scores tiny.csv --method kmeans-irt --budget 50% --dim 1",
        "dim must be an integer of at least 2",
    ),
    # -- convert
    _case(
        "convert: unknown source", "convert --from mlflow results --metric acc --out m.npy", "invalid choice: 'mlflow'"
    ),
    _case(
        "convert: a path that does not exist", "convert --from long-csv nowhere --metric score --out m.npy", "nowhere"
    ),
    _case(
        "convert: a filter for a source without filters",
        "convert --from long-csv long.csv --metric score --filter x --out m.npy",
        "--filter applies to lm-eval results, not to long-csv; leave it out",
    ),
    _case(
        "convert: an epochs policy for a source without epochs",
        "convert --from long-csv long.csv --metric score --epochs mean --out m.npy",
        "--epochs applies to helm, inspect results, not to long-csv",
    ),
    _case(
        "convert: a task pattern for a source without tasks",
        "convert --from long-csv long.csv --metric score --task gsm* --out m.npy",
        "--task (--run) applies to",
    ),
    _case(
        "convert: the score column missing",
        "convert --from long-csv long.csv --metric accuracy --out m.npy",
        "the header lacks 'accuracy'",
    ),
    _case(
        "convert: a model lacking a query",
        "convert --from long-csv holes.csv --metric score --out m.npy",
        "holes",
        files={"holes.csv": "model,query,score\na,q1,1\nb,q2,0\n"},
    ),
    _case(
        "convert: one pair with two different scores",
        "convert --from long-csv twice.csv --metric score --out m.npy",
        "twice.csv",
        files={"twice.csv": "model,query,score\na,q1,1\na,q1,0\n"},
    ),
    # -- datasets
    _case("datasets: unknown benchmark", "datasets gsm9k", "gsm9k"),
    _case("datasets: an export folder that cannot be made", "datasets math --export tiny.csv/export", "tiny.csv"),
    # -- live
    _case("live: no action", "live", "the following arguments are required: ACTION"),
    _case(
        "live init: a missing models file",
        "live init --models nobody.txt --queries queries.txt --budget 6 --dir run",
        "nobody.txt",
    ),
    _case(
        "live init: a JSON ids file of another shape",
        "live init --models ids.json --queries queries.txt --budget 6 --dir run",
        "must hold a JSON list",
        files={"ids.json": '{"models": [1, 2]}'},
    ),
    _case(
        "live init: the same model twice",
        "live init --models twice.txt --queries queries.txt --budget 6 --dir run",
        "twice",
        files={"twice.txt": "a\nb\na\n"},
    ),
    _case(
        "live init: budget below the number of models",
        "live init --models models.txt --queries queries.txt --budget 2 --dir run",
        "at least the number of models (K=3)",
    ),
    _case("live init: a session already there", LIVE_INIT, "run", setup=(LIVE_INIT,)),
    _case(
        "live init: negative seed",
        "live init --models models.txt --queries queries.txt --budget 6 --seed -1 --dir run",
        "-1",
    ),
    _case("live next: no session in the folder", "live next --dir nowhere", "no session in nowhere"),
    _case(
        "live record: a scores file without a score column",
        "live record --dir run --scores s.csv",
        "the header lacks 'score'",
        files={"s.csv": "model,query\na,q1\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live record: an unknown model",
        "live record --dir run --scores s.csv",
        "unknown model 'zz'",
        files={"s.csv": "model,query,score\nzz,q1,1\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live record: a pair the session did not ask for",
        "live record --dir run --scores s.csv",
        "was not requested",
        files={"s.csv": "model,query,score\na,q1,1\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live record: a second, different score for a pair",
        "live record --dir run --scores s.csv",
        "refusing the different score 0",
        files={"first.csv": "model,query,score\na,q4,1\n", "s.csv": "model,query,score\na,q4,0\n"},
        setup=(LIVE_INIT, ("live", "record", "--dir", "run", "--scores", "first.csv")),
    ),
    _case(
        "live record: a score above 1",
        "live record --dir run --scores s.csv",
        "outside [0, 1]",
        files={"s.csv": "model,query,score\na,q4,1.5\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live record: an id with a comma, not quoted",
        "live record --dir run --scores s.csv",
        "line 2",
        files={"s.csv": "model,query,score\na,q,4,1\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live record: a score with a huge exponent",
        "live record --dir run --scores s.csv",
        "1e-99999999",
        files={"s.csv": "model,query,score\na,q4,1e-99999999\n"},
        setup=(LIVE_INIT,),
    ),
    _case(
        "live status: a corrupt log line",
        "live status --dir run",
        "is not a log record",
        setup=(LIVE_INIT,),
        edited={"run/log.jsonl": '{"t": "batch"\n{}\n'},
    ),
    _case(
        "reproduce: more worker processes than are started",
        "reproduce --data data --out out --grid table --workers 100000",
        "at most 256 are started",
        files={"data/tiny.csv": TINY},
    ),
    _case(
        "live status: a session file nested too deep",
        "live status --dir run",
        "run/session.json",
        setup=(LIVE_INIT,),
        edited={"run/session.json": "[" * 5000},
    ),
)


def _write(files: Mapping[str, str | bytes]) -> None:
    for name, content in files.items():
        path = Path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def prepare(case: Case) -> None:
    """In the current folder: the base files and the case's, its setup commands (which must exit 0), its edits."""
    _write({**BASE_FILES, **case.files})
    for argv in case.setup:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = main(list(argv))
        assert status == 0, f"the setup `{' '.join(argv)}` of {case.kind!r} exited {status}"
    _write(case.edited)


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    here = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def run(case: Case, folder: Path) -> tuple[int, str]:
    """Run *case* in the empty *folder*: its exit status and what it printed on stderr."""
    err = io.StringIO()
    with _inside(folder):
        prepare(case)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(list(case.argv))
    return status, err.getvalue()


def _code(text: str) -> str:
    """*text* as a code span in a table cell (its pipes escaped, as GitHub's tables need)."""
    assert "`" not in text and "\n" not in text, text
    return "`" + text.replace("|", "\\|") + "`"


def _file(name: str, content: str | bytes) -> str:
    """A file of a case, as the table shows it: its text, or its size when it is long or binary."""
    if content == "":
        return f"{_code(name)} (empty)"
    if isinstance(content, str) and len(content) <= 60 and "`" not in content:
        return f"{_code(name)} = {_code(content.replace(chr(10), chr(92) + 'n'))}"
    return f"{_code(name)} = {len(content):,} bytes made by [bad_inputs.py](../../tests/bad_inputs.py)"


def _command(case: Case) -> str:
    """The command cell: the command, then the files it needs and the commands run before it."""
    shown = [_code(" ".join(["python -m sysrs_ref", *(word if word else "''" for word in case.argv)]))]
    shown += [_file(name, content) for name, content in case.files.items()]
    shown += ["after " + _code(" ".join(["python -m sysrs_ref", *argv])) for argv in case.setup]
    shown += ["then " + _file(name, content) for name, content in case.edited.items()]
    return "<br>".join(shown)


HEADER = """# Appendix: bad inputs, what each mistake prints

Every mistake a user can make on the command line ends the same way: exit
status 2 and **one line** on stderr saying what is wrong (`error: ...`, or
for a mistake in the command line itself the usage line ending in `(see
--help)`), never a traceback ([exit statuses](../cli.md#exit-statuses)). The
table shows one command per kind of mistake and the line it prints.

This page is generated from the cases of
[tests/bad_inputs.py](../../tests/bad_inputs.py), with the messages the
commands really print, by the command `python -m tests.bad_inputs >
docs/appendix/bad-inputs.md`; tests/cli/test_bad_inputs.py runs every case and fails
when this page differs from a fresh rendering. Each command runs in a folder holding `tiny.csv` (the
4 x 6 matrix of [data/fixtures/tiny_matrix.csv](../../data/fixtures/tiny_matrix.csv)),
`long.csv` (the same scores as a long .csv,
[data/fixtures/tiny_long.csv](../../data/fixtures/tiny_long.csv)), `models.txt`
(a, b, c) and `queries.txt` (q1 to q4); the files a case adds, and the
commands run before it, are listed under its command.

Beyond the arguments and files, three things end the same way:

- **Output that cannot be written.** Started with stdout closed
  (`python -m sysrs_ref datasets >&-`), every command prints `error: stdout
  is closed, so no output could be written: nothing was run` and runs
  nothing; writing to a full disk (`python -m sysrs_ref datasets --json >
  /dev/full`) prints `error: the output could not be written to stdout
  ([Errno 28] No space left on device)`; both exit with status 2. A reader
  that stops reading (`| head -1`) ends the command quietly, status 0
  (tests/cli/test_command_output.py; tests/cli/test_fuzz.py writes every
  subcommand's output to a full and to a closed stdout).
- **A damaged compiled library.** A truncated `sysrs_ref/fast/_native_lib*`
  (an interrupted install), a library of another build, or one that fails
  its self-test is not loaded: the file is checked against its own ELF
  headers before the loader maps it (no SIGBUS), then its interface number
  and every symbol. The command goes on with numpy (the same outcomes,
  slower) after one line on stderr: `warning: the compiled passes are not
  used, numpy runs everything (the compiled library ... is truncated (150000
  bytes))`; `compiled.available()` answers False
  (tests/fast/test_compiled_library.py).
- **Work too large to start.** `exact` refuses an enumeration over its
  `--limit` with the number of cases, `simulate --runs` one over its memory
  bound; samples of more than 4,000,000 values (each made an exact
  fraction, about 13 s and 325 MB per million) are refused from the file's
  header, before anything is read, with what they would cost (a case
  below). SR and SySRs take O(K log K + n) steps: `select` on 10^6
  models of one query at the full budget takes about a minute of CPU, most
  of it reading the .csv.

"""


def render() -> str:
    """docs/appendix/bad-inputs.md: the table of every case, with the message it really prints."""
    rows = ["| kind | command | message |", "|---|---|---|"]
    for case in CASES:
        with tempfile.TemporaryDirectory() as name:
            status, err = run(case, Path(name))
        assert status == 2 and len(err.splitlines()) == 1 and case.fragment in err, (case.kind, status, err)
        rows.append(f"| {case.kind} | {_command(case)} | {_code(err.strip())} |")
    return HEADER + f"{len(CASES)} kinds of mistakes:\n\n" + "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(render(), end="")
