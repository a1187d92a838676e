"""The compact, exact file format of the shipped benchmarks, and the SHA-256 that identifies a matrix.

A packed benchmark is a ``.npz`` archive (a zip of ``.npy`` members, readable
with ``numpy.load(path, allow_pickle=False)``) holding one of two encodings:

- ``bits``, for a matrix of 0s and 1s: a member ``shape`` (int64, ``[K, L]``)
  and a member ``bits``, the matrix read row by row (C order) and packed
  eight cells to a byte, first cell in the highest bit (``numpy.packbits``
  with its default ``bitorder="big"``), the last byte padded with 0 bits;
- ``float64``, for any other matrix: a member ``scores``, the K x L float64
  matrix itself.

Members are deflate-compressed. Both encodings give back the float64 matrix
bit for bit; :func:`matrix_sha256` is what the manifest records and what a
load checks.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from sysrs_ref._atomic import atomic_write
from sysrs_ref.errors import InstanceError
from sysrs_ref.loaders.arrays import read_npz

__all__ = ["Encoding", "matrix_sha256", "npy_bytes", "pack_matrix", "read_packed", "write_packed"]

Encoding = Literal["bits", "float64"]
Matrix = npt.NDArray[np.float64]

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same matrix always packs to the same archive


def matrix_sha256(matrix: npt.ArrayLike) -> str:
    """The SHA-256 (hex) of a score matrix: its float64 values, row by row, little-endian.

    This is the hash the shipped benchmarks' manifest records. It depends only
    on the values and their order, not on how a file stores them (``.npy``
    header, packing, compression), so a matrix is verified bit for bit
    whatever its file.

    >>> matrix_sha256([[1.0, 0.0], [0.0, 1.0]])[:16]
    '7b38b86d9a7e6237'
    >>> matrix_sha256([[1, 0], [0, 1]]) == matrix_sha256([[1.0, 0.0], [0.0, 1.0]])
    True
    """
    values = np.ascontiguousarray(np.asarray(matrix, dtype=np.float64), dtype="<f8")
    return hashlib.sha256(values.tobytes()).hexdigest()


def npy_bytes(array: npt.NDArray[np.generic]) -> bytes:
    """The ``.npy`` file (format version 1.0, as ``numpy.save`` writes it) of *array*.

    >>> npy_bytes(np.zeros((1, 1)))[:10]
    b'\\x93NUMPY\\x01\\x00v\\x00'
    """
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=(1, 0), allow_pickle=False)
    return buffer.getvalue()


def pack_matrix(matrix: npt.ArrayLike) -> tuple[Encoding, dict[str, npt.NDArray[np.generic]]]:
    """The encoding and the ``.npz`` members of a K x L score matrix: ``bits`` if every score is 0 or 1, else ``float64``.

    >>> encoding, members = pack_matrix([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    >>> encoding, members["shape"].tolist(), members["bits"].tolist()
    ('bits', [2, 3], [164])
    >>> pack_matrix([[0.5, 1.0]])[0]
    'float64'
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2:
        raise InstanceError(f"a score matrix has two dimensions (models x queries), got shape {values.shape}")
    if np.all((values == 0.0) | (values == 1.0)) and not np.any(np.signbit(values)):
        shape = np.array(values.shape, dtype=np.int64)
        return "bits", {"shape": shape, "bits": np.packbits(values.astype(np.uint8), axis=None)}
    return "float64", {"scores": np.ascontiguousarray(values)}


def write_packed(path: Path, matrix: npt.ArrayLike) -> Encoding:
    """Write *matrix* to *path* as a packed ``.npz`` (atomically, the same bytes for the same matrix); return its encoding."""
    encoding, members = pack_matrix(matrix)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for key, value in members.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, npy_bytes(value), compresslevel=9)
    atomic_write(path, buffer.getvalue())
    return encoding


def read_packed(path: Path, encoding: Encoding, shape: tuple[int, int]) -> Matrix:
    """The float64 matrix of a packed ``.npz``, checked against the *encoding* and *shape* its manifest states.

    Raises :class:`~sysrs_ref.errors.InstanceError` when the file cannot be
    read or does not hold what the manifest says.
    """
    try:
        members = read_npz(path)  # every member's declared size checked before it is read
    except (OSError, InstanceError) as err:
        raise InstanceError(f"cannot read the packed benchmark '{path}': {err}; reinstall sysrs-ref") from None
    expected = {"bits": {"shape", "bits"}, "float64": {"scores"}}[encoding]
    if set(members) != expected:
        raise InstanceError(f"'{path}' holds members {sorted(members)}, not {sorted(expected)} ({encoding} encoding)")
    if encoding == "float64":
        scores = members["scores"]
        if scores.dtype != np.float64 or scores.shape != shape:
            raise InstanceError(f"'{path}' holds a {scores.dtype} matrix of shape {scores.shape}, not float64 {shape}")
        return np.ascontiguousarray(scores)
    stored = tuple(int(x) for x in members["shape"].tolist())
    cells = shape[0] * shape[1]
    bits = members["bits"]
    if stored != shape or bits.dtype != np.uint8 or bits.shape != ((cells + 7) // 8,):
        raise InstanceError(f"'{path}' holds bits for shape {stored} ({bits.size} bytes), not for {shape}")
    return np.unpackbits(bits.astype(np.uint8), count=cells).reshape(shape).astype(np.float64)
