"""Reading the members of an untrusted zip archive into memory, bounded: stored, deflate and zstd members.

Python's :mod:`zipfile` reads the central directory and the stored (method 0)
and deflate (method 8) members. It cannot decompress zstd (method 93) before
Python 3.14, and inspect-ai writes its ``.eval`` logs with zstd by default
since 0.3.206, so a zstd member is read here: its local file header
(``PK\\x03\\x04``, 30 bytes, the name's and the extra field's lengths at
offsets 26 and 28) is checked against the central directory's entry, its
compressed bytes are read, and they are decompressed with the standard
library's ``compression.zstd`` (Python 3.14 on) or its backport
``backports.zstd`` (the same module, before 3.14), across every frame
(inspect splits a large member into several), never producing more than the
size the directory declares plus one byte, so a frame that lies about its
content size, or a decompression bomb, is refused before it allocates. The
result must have exactly the declared size and CRC-32. Any other method
(bzip2, lzma, ...), and an encrypted member, is refused with its number
named: inspect-ai writes none of them.

Nothing is extracted to disk and nothing is unpickled: members are returned
as bytes, for the caller to parse.
"""

from __future__ import annotations

import io
import struct
import sys
import zipfile
import zlib
from pathlib import Path

from sysrs_ref._files import open_regular
from sysrs_ref.errors import LoaderError
from sysrs_ref.loaders._reading import check_not_lfs_pointer, read_failure

if sys.version_info >= (3, 14):  # pragma: no cover - the tests run on the oldest supported Python
    from compression import zstd
else:
    from backports import zstd

__all__ = ["METHOD_NAMES", "ZSTD", "member_infos", "open_archive", "read_member"]

#: The zip compression method number of zstd (APPNOTE 4.4.5).
ZSTD = 93
#: Names of the compression methods an archive may declare, for messages (APPNOTE 4.4.5).
METHOD_NAMES = {0: "stored", 8: "deflate", 9: "deflate64", 12: "bzip2", 14: "lzma", 93: "zstd", 95: "xz", 98: "ppmd"}

_LOCAL_HEADER = struct.Struct("<4s22xHH")
"""A local file header's fixed 30 bytes: the signature, then (skipped) versions, flags, method, times, CRC and
sizes, then the lengths of the name and of the extra field."""
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED = 0x1
_UTF8_NAME = 0x800


def open_archive(path: Path, what: str) -> zipfile.ZipFile:
    """*path* opened as a zip archive (its central directory read), or a :class:`LoaderError` saying why not.

    *what* names the kind of file expected, for the message ("an inspect-ai
    .eval log"). A git-lfs pointer file is named as such.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d, "x.eval")
    ...     _ = path.write_text("plain text")
    ...     open_archive(path, "an inspect-ai .eval log")
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.LoaderError: .../x.eval: not a zip archive, so not an inspect-ai .eval log (is it truncated?)
    """
    check_not_lfs_pointer(path)
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise LoaderError(f"{path}: not a zip archive, so not {what} (is it truncated?)") from None
    except OSError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    except (ValueError, EOFError, struct.error) as err:  # a central directory with impossible offsets or sizes
        raise LoaderError(f"{path}: a damaged zip archive ({err}); is the file complete?") from None


def member_infos(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The archive's members by name; of several members with one name, the last (as zip readers resolve a name).

    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as archive:
    ...     archive.writestr("a.json", "1")
    ...     archive.writestr("b.json", "2")
    >>> sorted(member_infos(zipfile.ZipFile(buffer)))
    ['a.json', 'b.json']
    """
    return {info.filename: info for info in archive.infolist()}


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, limit: int) -> bytes:
    """The uncompressed bytes of member *info* of *archive* (opened from *path*), at most *limit* of them.

    Reads stored, deflate and zstd members (see the module docstring);
    raises :class:`LoaderError` naming the file and member for a member over
    *limit* bytes, another compression method, an encrypted member, and
    damaged data (a bad CRC-32, a size other than declared, corrupt
    compressed data).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = Path(d, "a.zip")
    ...     with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
    ...         archive.writestr("a.json", '{"x": 1}')
    ...     with open_archive(path, "a zip archive") as archive:
    ...         read_member(archive, archive.getinfo("a.json"), path, 2**20)
    b'{"x": 1}'
    """
    where = f"{path} {info.filename}"
    if info.file_size > limit:
        raise _too_big(where, limit)
    if info.flag_bits & _ENCRYPTED:
        raise LoaderError(f"{where}: the member is encrypted; decrypt the archive first")
    if info.compress_type == ZSTD:
        data = _read_zstd(info, path, where, limit)
    elif info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        try:
            with archive.open(info) as handle:
                data = handle.read(limit + 1)
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, OSError) as err:
            raise LoaderError(
                f"{where}: cannot read this member of the archive ({err}); is the file damaged?"
            ) from None
    else:
        method = info.compress_type
        name = METHOD_NAMES.get(method, "unknown")
        raise LoaderError(
            f"{where}: compressed with zip method {method} ({name}), which is not read here: only stored (0), "
            f"deflate (8) and zstd ({ZSTD}), the methods inspect-ai writes; rewrite the archive with one of them"
        )
    if len(data) > limit:
        raise _too_big(where, limit)
    return data


def _too_big(where: str, limit: int) -> LoaderError:
    return LoaderError(
        f"{where}: over the limit of {limit} bytes uncompressed; refusing to read it "
        "(split the log, or convert it with inspect log convert)"
    )


def _damaged(where: str, what: str) -> LoaderError:
    return LoaderError(f"{where}: {what}; the archive is damaged (is the file complete?)")


def _read_zstd(info: zipfile.ZipInfo, path: Path, where: str, limit: int) -> bytes:
    """A zstd member: its compressed bytes located through its local header, decompressed bounded and checked."""
    # zstd's worst case for incompressible input is a little over its size (ZSTD_compressBound: n + n/256 + ...)
    if info.compress_size > limit + limit // 128 + 2**16:
        raise _too_big(where, limit)
    if info.header_offset < 0 or info.compress_size < 0:
        raise _damaged(where, "its directory entry gives a negative offset or size")
    try:
        with open_regular(path) as handle:
            handle.seek(info.header_offset)
            fixed = handle.read(_LOCAL_HEADER.size)
            if len(fixed) < _LOCAL_HEADER.size or fixed[:4] != _LOCAL_SIGNATURE:
                raise _damaged(where, f"no local file header at offset {info.header_offset}")
            _, name_length, extra_length = _LOCAL_HEADER.unpack(fixed)
            name = handle.read(name_length)
            encoding = "utf-8" if info.flag_bits & _UTF8_NAME else "cp437"
            if name.decode(encoding, "replace") != info.orig_filename:
                raise _damaged(where, f"the local file header names {name.decode(encoding, 'replace')!r}")
            handle.seek(extra_length, io.SEEK_CUR)
            compressed = handle.read(info.compress_size)
    except OSError as err:
        raise LoaderError(f"{path}: {read_failure(err)}") from None
    if len(compressed) < info.compress_size:
        raise _damaged(where, f"it holds {len(compressed)} of its {info.compress_size} compressed bytes")
    expected = info.file_size
    if not compressed and not expected:
        return b""
    try:
        with zstd.ZstdFile(io.BytesIO(compressed)) as stream:
            data = stream.read(expected + 1)  # one byte more than declared tells a lie; never more is produced
    except (zstd.ZstdError, EOFError) as err:
        raise _damaged(where, f"its zstd data cannot be decompressed ({err})") from None
    if len(data) > expected:
        raise LoaderError(
            f"{where}: its zstd data expands beyond the {expected} bytes the archive declares for it; refusing it "
            "(a damaged or malicious archive)"
        )
    if len(data) < expected:
        raise _damaged(where, f"its zstd data holds {len(data)} bytes, not the {expected} declared")
    if zlib.crc32(data) != info.CRC:
        raise _damaged(where, "the CRC-32 of its data does not match the archive's")
    return data
