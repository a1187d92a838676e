"""Score matrices by name: the 11 real benchmarks shipped with the package, and folders of matrices.

:func:`load_dataset` loads a shipped benchmark (verified bit for bit against
its SHA-256), :func:`benchmarks` describes them, :func:`resolve_scores` is what
``--scores`` accepts (a file, else a benchmark name), :func:`find_datasets`
reads a folder of matrices and :func:`export_datasets` writes the shipped ones
as one. See ``docs/datasets.md``.
"""

from sysrs_ref.datasets._dataset import Dataset, Packed, file_sha256, find_datasets
from sysrs_ref.datasets._packing import Encoding, matrix_sha256, pack_matrix, read_packed, write_packed
from sysrs_ref.datasets._shipped import (
    DATA_ENV,
    PAPER_KEYS,
    Benchmark,
    benchmark,
    benchmarks,
    dataset_names,
    default_datasets,
    export_datasets,
    load_dataset,
    resolve_scores,
    shipped_datasets,
)

__all__ = [
    "DATA_ENV",
    "PAPER_KEYS",
    "Benchmark",
    "Dataset",
    "Encoding",
    "Packed",
    "benchmark",
    "benchmarks",
    "dataset_names",
    "default_datasets",
    "export_datasets",
    "file_sha256",
    "find_datasets",
    "load_dataset",
    "matrix_sha256",
    "pack_matrix",
    "read_packed",
    "resolve_scores",
    "shipped_datasets",
    "write_packed",
]
