"""The 11 real benchmarks shipped with sysrs-ref, by name: listed, loaded (hash-verified), exported.

They are the score matrices of the paper's experiments (HELM Lite and the
Open LLM Leaderboard, as released with "Cutting LLM Evaluation Costs with
SySRs"): models x queries, best model in row 0. Each is stored packed
(:mod:`sysrs_ref.datasets._packing`) in the package's ``benchmarks`` folder,
described by its ``manifest.json`` (source, metric, K, L, the SHA-256 of the
float64 matrix, the SHA-256 of the released ``.npy`` file and the paper's
dataset-table row), with the provenance and terms in its ``README.md``.

Commands that read a folder of matrices (``reproduce``, ``hardness --table``)
use these benchmarks unless ``--data DIR`` or the environment variable
``SYSRS_DATA`` names another folder (:func:`default_datasets`).
"""

from __future__ import annotations

import difflib
import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike, fspath
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sysrs_ref._atomic import atomic_write
from sysrs_ref._files import read_json
from sysrs_ref.datasets._dataset import Dataset, Packed, file_sha256, find_datasets
from sysrs_ref.datasets._packing import npy_bytes
from sysrs_ref.errors import DatasetError
from sysrs_ref.instance import Instance
from sysrs_ref.loaders.files import load_scores

__all__ = [
    "DATA_ENV",
    "PAPER_KEYS",
    "Benchmark",
    "benchmark",
    "benchmarks",
    "dataset_names",
    "default_datasets",
    "export_datasets",
    "load_dataset",
    "resolve_scores",
    "shipped_datasets",
]

#: The environment variable naming a data folder to use instead of the shipped benchmarks.
DATA_ENV = "SYSRS_DATA"

_FOLDER = Path(__file__).resolve().parent / "benchmarks"
_MANIFEST = _FOLDER / "manifest.json"

#: The keys of a benchmark's paper row (Table "dataset-details"), in the table's order.
PAPER_KEYS = ("tasks", "models", "best_acc", "mean_acc", "delta2", "H1", "H2", "H3_prime", "H3")


@dataclass(frozen=True)
class Benchmark:
    """One shipped benchmark as its manifest describes it."""

    name: str
    source: str
    """``HELM Lite`` or ``Open LLM Leaderboard``."""
    metric: str
    """The per-instance metric the scores are (e.g. ``exact_match``, ``f1``, ``bleu_4``)."""
    n_models: int
    """K."""
    n_queries: int
    """L."""
    binary: bool
    """Whether every score is 0 or 1 (then packed as bits)."""
    sha256: str
    """SHA-256 of the float64 matrix (:func:`~sysrs_ref.datasets.matrix_sha256`), checked on every load."""
    npy_sha256: str
    """SHA-256 of the matrix's ``.npy`` file as released (what :func:`export_datasets` writes)."""
    paper: Mapping[str, float] = field(compare=False, hash=False)
    """The paper's Table "dataset-details" row, as printed (keys :data:`PAPER_KEYS`)."""
    dataset: Dataset = field(compare=False, hash=False)
    """The benchmark as a :class:`~sysrs_ref.datasets.Dataset` (what ``reproduce`` runs on)."""

    def load(self) -> Instance:
        """The benchmark's matrix as an :class:`~sysrs_ref.instance.Instance`, verified against its SHA-256."""
        return self.dataset.load()


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every shipped benchmark, in the manifest's order (alphabetical).

    >>> [(b.name, b.n_models, b.n_queries, b.source) for b in benchmarks()][:2]
    [('arc_challenge', 218, 1172, 'Open LLM Leaderboard'), ('bbh', 39, 5761, 'Open LLM Leaderboard')]
    """
    try:
        manifest: Any = read_json(_MANIFEST)  # checked by use: a wrong shape is a KeyError, TypeError or AttributeError
        return tuple(_benchmark(name, entry) for name, entry in manifest["datasets"].items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise DatasetError(
            f"the shipped benchmarks' manifest '{_MANIFEST}' cannot be read ({type(err).__name__}: {err}); "
            "reinstall sysrs-ref"
        ) from None


def _benchmark(name: str, entry: dict[str, object]) -> Benchmark:
    shape = (int(str(entry["K"])), int(str(entry["L"])))
    encoding = entry["encoding"]
    if encoding not in ("bits", "float64"):
        raise ValueError(f"unknown encoding {encoding!r} of {name!r}")
    paper = entry["paper"]
    if not isinstance(paper, dict):
        raise TypeError(f"the paper row of {name!r} is not an object")
    source, metric, sha256 = str(entry["source"]), str(entry["metric"]), str(entry["sha256"])
    packed = Packed("bits" if encoding == "bits" else "float64", shape)
    return Benchmark(
        name,
        source,
        metric,
        shape[0],
        shape[1],
        bool(entry["binary"]),
        sha256,
        str(entry["npy_sha256"]),
        MappingProxyType({key: float(paper[key]) for key in PAPER_KEYS}),
        Dataset(name, _FOLDER / str(entry["file"]), sha256, source, metric, packed),
    )


def dataset_names() -> tuple[str, ...]:
    """The names of the shipped benchmarks, alphabetical.

    >>> dataset_names()
    ('arc_challenge', 'bbh', 'commonsense', 'gsm', 'ifeval', 'legalbench', 'math', 'med_qa', 'mmlu', 'narrative_qa', 'wmt_14')
    """
    return tuple(item.name for item in benchmarks())


def benchmark(name: str) -> Benchmark:
    """The shipped benchmark called *name*; :class:`~sysrs_ref.errors.DatasetError` names the choices otherwise.

    >>> b = benchmark("wmt_14")
    >>> b.source, b.metric, b.n_models, b.n_queries, b.binary, b.paper["H2"]
    ('HELM Lite', 'bleu_4', 80, 5000, False, 291296.8)
    """
    if not isinstance(name, str):
        raise DatasetError(f"a shipped benchmark is named by a string, such as 'gsm'; got {name!r}")
    for item in benchmarks():
        if item.name == name:
            return item
    raise DatasetError(
        f"no shipped benchmark is called {name!r}{_did_you_mean(name)}; the benchmarks: {', '.join(dataset_names())}"
    )


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, dataset_names(), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_dataset(name: str) -> Instance:
    """The shipped benchmark *name* as an :class:`~sysrs_ref.instance.Instance`, verified bit for bit against its SHA-256.

    >>> gsm = load_dataset("gsm")
    >>> gsm.shape, float(gsm.best_mean), sorted(gsm.best)
    ((80, 1000), 0.956, [0])
    """
    return benchmark(name).load()


def shipped_datasets() -> list[Dataset]:
    """The shipped benchmarks as :class:`~sysrs_ref.datasets.Dataset` values (what ``reproduce`` runs on by default).

    >>> [d.name for d in shipped_datasets()][-2:]
    ['narrative_qa', 'wmt_14']
    """
    return [item.dataset for item in benchmarks()]


def default_datasets() -> list[Dataset]:
    """The datasets a command uses when no folder is given: those of ``$SYSRS_DATA`` if set, else the shipped ones.

    >>> import os
    >>> saved = os.environ.pop("SYSRS_DATA", None)
    >>> [d.name for d in default_datasets()][:3]
    ['arc_challenge', 'bbh', 'commonsense']
    >>> os.environ["SYSRS_DATA"] = str(Path(__file__).parents[2] / "data" / "fixtures")
    >>> [d.name for d in default_datasets()]
    ['tiny_long', 'tiny_matrix']
    >>> _ = os.environ.pop("SYSRS_DATA") if saved is None else os.environ.update(SYSRS_DATA=saved)
    """
    folder = os.environ.get(DATA_ENV)
    return find_datasets(folder) if folder else shipped_datasets()


def resolve_scores(spec: str | PathLike[str]) -> Instance:
    """The score matrix that ``--scores SPEC`` names: a file if one exists at *spec*, else a shipped benchmark.

    A path wins: ``--scores gsm`` reads a file called ``gsm`` in the current
    folder if there is one, else the shipped benchmark gsm. Anything else
    raises an :class:`~sysrs_ref.errors.InstanceError` saying what was looked for.

    >>> resolve_scores("gsm") == load_dataset("gsm")
    True
    >>> resolve_scores("data/fixtures/tiny_matrix.csv").shape
    (4, 6)
    """
    text = fspath(spec)
    path = Path(text)
    names = dataset_names()
    if text in names and not path.is_file():
        return load_dataset(text)
    if not path.exists():
        if path.suffix and path.stem in names:
            raise DatasetError(f"no file '{text}'; the shipped benchmark is named without a suffix: {path.stem}")
        if not path.suffix and "/" not in text and os.sep not in text:
            raise DatasetError(
                f"'{text}' is neither a score file nor a shipped benchmark{_did_you_mean(text)}; "
                f"give a .npy or .csv file, or one of: {', '.join(names)}"
            )
    return load_scores(path)


def export_datasets(folder: str | PathLike[str], names: tuple[str, ...] | None = None) -> list[Path]:
    """Write shipped benchmarks into *folder* as ``NAME.npy`` files plus a ``MANIFEST.json``, a data folder other tools read.

    Each ``.npy`` is byte for byte the file released with the paper (its
    SHA-256 is :attr:`Benchmark.npy_sha256`), and the folder works as
    ``--data``/``SYSRS_DATA`` for this package: its ``MANIFEST.json`` gives
    each file's ``sha256`` (of the file, checked by :func:`find_datasets`)
    and ``matrix_sha256``. Files are written atomically.
    Returns the paths written, the manifest last.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     [p.name for p in export_datasets(folder, ("gsm", "math"))]
    ['gsm.npy', 'math.npy', 'MANIFEST.json']
    """
    target = Path(fspath(folder))
    if target.exists() and not target.is_dir():
        raise DatasetError(f"cannot export into '{target}': it exists and is not a folder")
    chosen = [benchmark(name) for name in (names if names is not None else dataset_names())]
    written: list[Path] = []
    entries: dict[str, dict[str, object]] = {}
    for item in chosen:
        path = target / f"{item.name}.npy"
        _write(path, npy_bytes(item.load().array))
        written.append(path)
        entries[item.name] = {
            "source": item.source,
            "metric": item.metric,
            "models": item.n_models,
            "tasks": item.n_queries,
            "binary": item.binary,
            "file": path.name,
            "sha256": file_sha256(path),
            "matrix_sha256": item.sha256,
        }
    manifest = target / "MANIFEST.json"
    _write(manifest, (json.dumps(entries, indent=1) + "\n").encode("utf-8"))
    return [*written, manifest]


def _write(path: Path, content: bytes) -> None:
    try:
        atomic_write(path, content)
    except OSError as err:
        raise DatasetError(f"cannot write '{path}': {err.strerror or err}") from None
