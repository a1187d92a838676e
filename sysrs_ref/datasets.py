"""A folder of score matrices: the layout of ``../shared/data`` (a MANIFEST.json beside the files).

The manifest maps each dataset's name to ``{"file", "source", "metric",
"sha256", ...}``; without one, every ``.npy`` and ``.csv`` file in the folder
is a dataset named after its file. A manifest's sha256 is checked against the
file, so results are never computed (or cached) for a file that changed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from sysrs_ref.errors import InstanceError

__all__ = ["Dataset", "file_sha256", "find_datasets"]


@dataclass(frozen=True)
class Dataset:
    """One score matrix of a data folder: its name, file, checksum, and the manifest's description."""

    name: str
    path: Path
    sha256: str
    source: str = ""
    metric: str = ""


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as err:
        raise InstanceError(f"cannot read '{path}': {err.strerror or err}") from None
    return digest.hexdigest()


def find_datasets(folder: str | Path) -> list[Dataset]:
    """The datasets of *folder*: its MANIFEST.json's, in its order, else every .npy/.csv file by name.

    >>> [(d.name, d.path.name) for d in find_datasets(Path(__file__).parents[1] / "data" / "fixtures")]
    [('tiny_long', 'tiny_long.csv'), ('tiny_matrix', 'tiny_matrix.csv')]
    """
    directory = Path(folder)
    if not directory.is_dir():
        raise InstanceError(f"cannot read the data folder '{directory}': not a directory")
    manifest = directory / "MANIFEST.json"
    if not manifest.is_file():
        files = sorted(p for p in directory.iterdir() if p.suffix.lower() in (".npy", ".csv") and p.is_file())
        if not files:
            raise InstanceError(f"no score matrices (.npy, .csv) and no MANIFEST.json in '{directory}'")
        return [Dataset(p.stem, p, file_sha256(p)) for p in files]
    try:
        entries = json.loads(manifest.read_text())
    except (OSError, ValueError) as err:
        raise InstanceError(f"cannot read {manifest}: {err}") from None
    if not isinstance(entries, dict) or not entries:
        raise InstanceError(f"{manifest} must map dataset names to their files, e.g. {{\"gsm\": {{\"file\": \"gsm.npy\"}}}}")
    out = []
    for name, entry in entries.items():
        if not isinstance(entry, dict):
            raise InstanceError(f"{manifest}: the entry of {name!r} must be an object with a \"file\"")
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
