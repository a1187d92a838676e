"""Datasets: named score matrices with a checksum, from a folder of files or shipped with the package.

A data folder holds ``.npy`` or ``.csv`` score matrices (or ``.npz`` random
scores, read by ``reproduce``: docs/stochastic.md) and, optionally, a
``MANIFEST.json`` mapping each dataset's name to ``{"file", "source",
"metric", "sha256", ...}``; without one, every ``.npy``, ``.csv`` and
``.npz`` file in the folder is a dataset named after its file. A manifest's sha256 (of the
file's bytes) is checked against the file, so results are never computed (or
cached) for a file that changed. :func:`sysrs_ref.datasets.export_datasets`
writes the shipped benchmarks in this layout.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from sysrs_ref._files import open_regular, read_json
from sysrs_ref.datasets._packing import Encoding, matrix_sha256, read_packed
from sysrs_ref.errors import DatasetError, InstanceError
from sysrs_ref.instance import Instance
from sysrs_ref.loaders.files import load_scores

__all__ = ["Dataset", "Packed", "file_sha256", "find_datasets"]


@dataclass(frozen=True)
class Packed:
    """How a shipped benchmark's file is packed: its encoding and the matrix's shape (models, queries)."""

    encoding: Encoding
    shape: tuple[int, int]


@dataclass(frozen=True)
class Dataset:
    """One score matrix: its name, file, checksum and description.

    ``sha256`` identifies the content: for a file of a data folder, the
    SHA-256 of the file's bytes; for a shipped benchmark (``packed`` set), the
    SHA-256 of its float64 matrix (:func:`~sysrs_ref.datasets.matrix_sha256`),
    checked on every :meth:`load`.
    """

    name: str
    path: Path
    sha256: str
    source: str = ""
    metric: str = ""
    packed: Packed | None = None
    """Set for a benchmark shipped with the package (its ``path`` is a packed ``.npz``)."""

    def load(self) -> Instance:
        """The dataset's matrix as an :class:`~sysrs_ref.instance.Instance` (a shipped one verified bit for bit).

        >>> from sysrs_ref.datasets import shipped_datasets
        >>> shipped_datasets()[3].load().shape
        (80, 1000)
        """
        if self.packed is None:
            return load_scores(self.path)
        matrix = read_packed(self.path, self.packed.encoding, self.packed.shape)
        found = matrix_sha256(matrix)
        if found != self.sha256:
            raise DatasetError(
                f"the shipped benchmark {self.name!r} ('{self.path}') does not match its manifest's sha256 "
                f"({self.sha256[:12]}... expected, {found[:12]}... found): the file changed; reinstall sysrs-ref"
            )
        return Instance(matrix)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    try:
        with open_regular(path) as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as err:
        raise InstanceError(f"cannot read '{path}': {err.strerror or err}") from None
    return digest.hexdigest()


def find_datasets(folder: str | Path) -> list[Dataset]:
    """The datasets of *folder*: its MANIFEST.json's, in its order, else every .npy/.csv/.npz file by name.

    >>> [(d.name, d.path.name) for d in find_datasets(Path(__file__).parents[2] / "data" / "fixtures")]
    [('tiny_long', 'tiny_long.csv'), ('tiny_matrix', 'tiny_matrix.csv')]
    """
    directory = Path(folder)
    if not directory.is_dir():
        raise InstanceError(f"cannot read the data folder '{directory}': not a directory")
    manifest = directory / "MANIFEST.json"
    if not manifest.is_file():
        files = sorted(p for p in directory.iterdir() if p.suffix.lower() in (".npy", ".csv", ".npz") and p.is_file())
        if not files:
            raise InstanceError(f"no score matrices (.npy, .csv, .npz) and no MANIFEST.json in '{directory}'")
        return [Dataset(p.stem, p, file_sha256(p)) for p in files]
    try:
        entries = read_json(manifest)
    except (OSError, ValueError) as err:
        raise InstanceError(f"cannot read {manifest}: {getattr(err, 'strerror', None) or err}") from None
    if not isinstance(entries, dict) or not entries:
        raise InstanceError(f'{manifest} must map dataset names to their files, e.g. {{"gsm": {{"file": "gsm.npy"}}}}')
    out = []
    for name, entry in entries.items():
        if not isinstance(entry, dict):
            raise InstanceError(f'{manifest}: the entry of {name!r} must be an object with a "file"')
        path = directory / str(entry.get("file", f"{name}.npy"))
        if not path.is_file():
            raise InstanceError(f"{manifest} lists {name!r} as '{path.name}', which is not in '{directory}'")
        digest = file_sha256(path)
        expected = entry.get("sha256")
        if expected is not None and str(expected).lower() != digest:
            raise InstanceError(
                f"'{path}' does not match the sha256 in {manifest.name} ({str(expected)[:12]}... expected, "
                f"{digest[:12]}... found): the file changed; restore it or update the manifest"
            )
        out.append(Dataset(name, path, digest, str(entry.get("source", "")), str(entry.get("metric", ""))))
    return out
