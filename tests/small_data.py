"""Two small synthetic score matrices in the layout of a data folder (MANIFEST.json with checksums)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sysrs_ref.datasets import file_sha256
from sysrs_ref.synthetic import irt_benchmark

#: name -> (K, L, seed of the item-response model)
SMALL = {"alpha": (6, 120, 3), "bravo": (9, 80, 4)}


def make_data_folder(folder: Path, *, manifest: bool = True) -> Path:
    """Write the SMALL matrices as .npy files into *folder* (and their MANIFEST.json); return *folder*."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = {}
    for name, (n_models, n_queries, seed) in SMALL.items():
        path = folder / f"{name}.npy"
        np.save(path, np.asarray(irt_benchmark(n_models, n_queries, seed=seed).array, dtype=np.float64))
        entries[name] = {
            "source": "synthetic",
            "metric": "binary",
            "models": n_models,
            "tasks": n_queries,
            "file": path.name,
            "sha256": file_sha256(path),
        }
    if manifest:
        (folder / "MANIFEST.json").write_text(json.dumps(entries, indent=1))
    return folder
