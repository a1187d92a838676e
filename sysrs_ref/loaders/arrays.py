"""Reading ``.npy`` and ``.npz`` files without trusting their headers: no allocation the file cannot fill.

``numpy.load`` allocates the array its header declares before reading the
data, so a header of a few bytes declaring shape (100000, 100000000) asks for
80 TB. :func:`read_npy` and :func:`read_npz` first read the header alone
(``numpy.lib.format.read_magic`` and ``read_array_header_1_0`` / ``_2_0``),
compare the declared size (the product of the shape times the item size)
with the bytes actually there (the file's size; for an ``.npz`` member, the
uncompressed size its zip entry states, itself at most what its compressed
bytes can inflate to), and only then read. Object arrays (pickles) are
refused, as ``allow_pickle=False`` does. Every refusal is an
:class:`~sysrs_ref.errors.InstanceError` naming the file (and member), the
declared shape and the size available.
"""

from __future__ import annotations

import math
import os
import tokenize
import warnings
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

import numpy as np
import numpy.typing as npt

from sysrs_ref._checks import shown_value
from sysrs_ref._files import open_regular
from sysrs_ref.errors import InstanceError
from sysrs_ref.loaders._python_parser import PARSER
from sysrs_ref.scores import shortened

__all__ = ["npy_shape", "read_npy", "read_npz"]

#: The first bytes of every .npy file, and of a zip archive (an .npz).
NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"

#: Deflate inflates at most 1032 bytes from one compressed byte; a member claiming more is lying.
_DEFLATE_RATIO = 1032
_DEFLATE_SLACK = 1024

Array = npt.NDArray[np.generic]

#: A caller's own check of a declared shape (by member name; "" for an .npy), run before any data is read.
ShapeCheck = Callable[[str, tuple[int, ...]], None]


def npy_shape(path: Path) -> tuple[int, ...]:
    """The shape the header of the ``.npy`` file *path* declares, read without its data (the checks of :func:`read_npy`).

    A command states what a job on the matrix would need before it reads the matrix.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     np.save(os.path.join(d, "m.npy"), np.zeros((3, 5)))
    ...     npy_shape(Path(d) / "m.npy")
    (3, 5)
    """
    where = f"'{path}'"
    with open_regular(path) as handle:
        _check_magic(handle.read(len(NPY_MAGIC)), where)
        handle.seek(0)
        size = os.fstat(handle.fileno()).st_size
        return _check_header(handle, size, where, f"the file is {size:,} bytes long")


def read_npy(path: Path, check: ShapeCheck | None = None) -> Array:
    """The array of the ``.npy`` file *path*, read only once its header is known to fit the file.

    Raises :class:`~sysrs_ref.errors.InstanceError` for a file that is not a
    plain ``.npy`` array (a zip archive, a pickle, an object array, a bad
    header) or whose header declares more data than the file holds, or
    whatever *check* raises for the declared shape (called with "" and the
    shape before the data is read); OSError when the file cannot be read.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     np.save(os.path.join(d, "m.npy"), np.eye(2))
    ...     read_npy(Path(d) / "m.npy").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    where = f"'{path}'"
    with open_regular(path) as handle:
        _check_magic(handle.read(len(NPY_MAGIC)), where)
        handle.seek(0)
        size = path.stat().st_size
        shape = _check_header(handle, size, where, f"the file is {size:,} bytes long")
        if check is not None:
            try:
                check("", shape)
            except InstanceError as err:
                raise InstanceError(f"{where}: {err}") from None
        handle.seek(0)
        return _read_array(handle, where)


def read_npz(path: Path, check: ShapeCheck | None = None) -> dict[str, Array]:
    """The arrays of the ``.npz`` archive *path* by name (``"scores"`` for the member ``scores.npy``).

    Each member is read only once its header is known to fit the member's
    uncompressed size, and that size what its compressed bytes can give.
    Members must be plain ``.npy`` arrays, stored or deflated (what
    ``numpy.savez`` and ``numpy.savez_compressed`` write); *check* is
    called with each member's name and declared shape before it is
    inflated. Raises :class:`~sysrs_ref.errors.InstanceError` naming the
    file and the member; OSError when the file cannot be read.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     np.savez_compressed(os.path.join(d, "m.npz"), scores=np.eye(2))
    ...     {key: value.shape for key, value in read_npz(Path(d) / "m.npz").items()}
    {'scores': (2, 2)}
    """
    open_regular(path).close()  # a FIFO or a device is refused before zipfile opens it (and blocks or never ends)
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError) as err:
        raise InstanceError(f"'{path}' is not a valid .npz file (a zip archive of .npy arrays): {err}") from None
    arrays: dict[str, Array] = {}
    with archive:
        for info in archive.infolist():
            where = f"'{path}' member '{info.filename}'"
            if not info.filename.endswith(".npy"):
                raise InstanceError(f"{where} is not an .npy array; an .npz holds only arrays (numpy.savez)")
            available = _member_bound(info, path.stat().st_size, where)
            try:
                with archive.open(info) as stream:
                    _check_magic(stream.read(len(NPY_MAGIC)), where)
                with archive.open(info) as stream:
                    shape = _check_header(stream, available, where, f"the member holds at most {available:,} bytes")
                if check is not None:
                    try:
                        check(info.filename.removesuffix(".npy"), shape)
                    except InstanceError as err:
                        raise InstanceError(f"{where}: {err}") from None
                with archive.open(info) as stream:
                    arrays[info.filename.removesuffix(".npy")] = _read_array(stream, where)
            except InstanceError:
                raise
            # a damaged member: RuntimeError is an encrypted one, NotImplementedError an unknown method, OSError a
            # seek to an offset the archive does not have (the archive itself was read: it is open), ValueError a
            # name that is not UTF-8
            except (
                zipfile.BadZipFile,
                zlib.error,
                EOFError,
                RuntimeError,
                NotImplementedError,
                OSError,
                ValueError,
            ) as err:
                raise InstanceError(f"{where} cannot be read: {shortened(str(err), 200)}") from None
    return arrays


def _check_magic(magic: bytes, where: str) -> None:
    """InstanceError unless *magic* (the first bytes) opens an .npy file."""
    if magic.startswith(ZIP_MAGIC):
        raise InstanceError(
            f"{where} is not a single array but a zip archive (an .npz); save one matrix with numpy.save"
        )
    if magic != NPY_MAGIC:
        kind = "a Python pickle, not a valid .npy file" if magic[:1] == b"\x80" else "not a valid .npy file"
        raise InstanceError(
            f"{where} is {kind} (it lacks the NUMPY header); only plain numeric arrays written by numpy.save are read"
        )


def _check_header(stream: IO[bytes], available: int, where: str, size_phrase: str) -> tuple[int, ...]:
    """The shape the header read from *stream* declares; InstanceError unless a plain array of at most *available* bytes.

    *where* names the file (and member); *size_phrase* says how much it holds ("the file is 200 bytes long").
    """
    try:
        version = np.lib.format.read_magic(stream)
        # numpy parses the header with ast (one thread at a time: _python_parser); warnings' filters are global
        with PARSER, warnings.catch_warnings():  # a header numpy can read only "as written on Python 2": not warned
            warnings.simplefilter("ignore", UserWarning)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise InstanceError(
                    f"{where} is not a valid .npy file: format version {version[0]}.{version[1]} is not read "
                    "(numpy.save writes 1.0 or 2.0); save the matrix with numpy.save"
                )
    except InstanceError:
        raise
    except (ValueError, SyntaxError, tokenize.TokenError, RecursionError) as err:  # numpy parses the header as Python
        reason = str(err) if isinstance(err, ValueError) else f"its header does not parse ({type(err).__name__})"
        raise InstanceError(f"{where} is not a valid .npy file: {shortened(reason, 200)}") from None
    if dtype.hasobject:
        raise InstanceError(_pickle_message(where))
    shown = "(" + ", ".join(shown_value(length) for length in shape) + ("," if len(shape) == 1 else "") + ")"
    if any(length < 0 for length in shape):
        raise InstanceError(f"{where} is not a valid .npy file: its header declares the negative shape {shown}")
    declared = math.prod(shape) * dtype.itemsize
    if declared > available - stream.tell():
        amount = shown_value(declared) if declared.bit_length() > 200 else f"{declared:,}"
        raise InstanceError(
            f"{where} is not a valid .npy file: its header declares an array of shape {shown} ({dtype}, "
            f"{amount} bytes), but {size_phrase} (truncated or forged); save the matrix again with numpy.save"
        )
    return tuple(int(length) for length in shape)


def _read_array(stream: IO[bytes], where: str) -> Array:
    """The array of an .npy stream whose header was checked; InstanceError for anything numpy refuses."""
    try:
        with PARSER, warnings.catch_warnings():  # read_array parses the header again
            warnings.simplefilter("ignore", UserWarning)
            array: Array = np.lib.format.read_array(stream, allow_pickle=False)
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise InstanceError(_pickle_message(where)) from None
        raise InstanceError(f"{where} is not a valid .npy file: {shortened(str(err), 200)}") from None
    except EOFError as err:
        raise InstanceError(f"{where} is not a valid .npy file: {err or 'truncated'}") from None
    return array


def _pickle_message(where: str) -> str:
    return (
        f"{where} holds Python objects (an object array, stored as a pickle); only plain "
        "numeric .npy arrays are read, since loading pickles can run arbitrary code"
    )


def _member_bound(info: zipfile.ZipInfo, archive_size: int, where: str) -> int:
    """The most bytes an .npz member can really give: its stated size, within what its compressed bytes inflate to."""
    compressed = min(info.compress_size, archive_size)
    if info.compress_type == zipfile.ZIP_STORED:
        return min(info.file_size, compressed)
    if info.compress_type == zipfile.ZIP_DEFLATED:
        return min(info.file_size, _DEFLATE_RATIO * compressed + _DEFLATE_SLACK)
    raise InstanceError(
        f"{where} is compressed with zip method {info.compress_type}; only stored or deflated members "
        "(numpy.savez, numpy.savez_compressed) are read"
    )
