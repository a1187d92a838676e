"""The compiled passes in C (``_csrc/*.c``, built by ``pip install``), called through ctypes with checked arrays.

Imported only through :mod:`sysrs_ref.fast._compiled`, never directly. Importing
this module raises ImportError when the library was not built here (no C
compiler at install time: the extension is optional) or is not whole and of
this build, and the fast paths then run on numpy alone. Before the library is
loaded its file is checked (:func:`_check_file`: every byte its ELF headers
say the loader maps is in the file, so a truncated library cannot kill the
process with SIGBUS); once loaded, it must answer this module's
:data:`INTERFACE` and have every symbol used here; the caller
(:func:`sysrs_ref.fast._compiled.available`) then runs a self-test. Each function takes numpy arrays as
:mod:`sysrs_ref.fast._compiled` prepares them, checks their dtype, shape and C
order (an unexpected array raises TypeError or ValueError, never reaches C),
and calls the C function for that dtype. The C code computes what the numpy
passes compute, with the same float operations in the same order; the tests
compare them array for array.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import struct
import sys
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from sysrs_ref._files import open_regular

__all__ = [
    "INTERFACE",
    "count_above",
    "eliminate",
    "eliminate_floats",
    "fixed_elementwise",
    "jacobi_sweeps",
    "library_path",
    "lrf_fit",
    "permutations",
    "prefix_at",
    "shared_prefix_at",
    "ucb_cut",
    "ucb_keys",
    "ucb_keys_upto",
    "ucb_ranking",
    "ucb_select",
]

Array = npt.NDArray[Any]


def library_path() -> str:
    """Where the built library is (ModuleNotFoundError when it was not built)."""
    spec = importlib.util.find_spec("sysrs_ref.fast._native_lib")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("the compiled passes were not built here (sysrs_ref.fast._native_lib is missing)")
    return spec.origin


#: The interface of the C functions this module calls (``sysrs_native_interface()`` in ``_csrc/module.c``). Change
#: both together whenever a C signature changes: a library of another build then answers another number.
INTERFACE = 7

_ELF_MAGIC = b"\x7fELF"
_SHT_NOBITS = 8  # a section with no bytes in the file (.bss)

#: ELF's names for its header's class (byte 4), byte order (byte 5) and machine (e_machine, bytes 18-19).
_ELF_CLASSES = {1: "32-bit", 2: "64-bit"}
_ELF_ORDERS = {1: "little-endian", 2: "big-endian"}
_ELF_MACHINES = {
    3: "x86",
    8: "MIPS",
    20: "PowerPC",
    21: "PowerPC64",
    22: "S/390",
    40: "ARM",
    62: "x86-64",
    183: "AArch64",
    243: "RISC-V",
    258: "LoongArch",
}


def _platform(header: bytes) -> tuple[str, str, str]:
    """The class, byte order and machine an ELF header (its first 20 bytes) says its file is built for."""
    order = "<" if header[5] == 1 else ">"
    machine = struct.unpack_from(order + "H", header, 18)[0]
    return (
        _ELF_CLASSES.get(header[4], f"class {header[4]}"),
        _ELF_ORDERS.get(header[5], f"byte order {header[5]}"),
        _ELF_MACHINES.get(machine, f"machine {machine}"),
    )


def _own_platform() -> tuple[str, str, str] | None:
    """The class, byte order and machine of the running interpreter's ELF file (None where it has none)."""
    for candidate in ("/proc/self/exe", sys.executable):
        try:
            with open_regular(candidate) as file:  # the package's one reading rule, as for the library below
                header = file.read(20)
        except OSError:
            continue
        if len(header) == 20 and header[:4] == _ELF_MAGIC:
            return _platform(header)
    return None


def _check_platform(path: str, header: bytes) -> None:
    """Raise ImportError when the ELF *header* of *path* is for another machine than this interpreter's.

    The loader would refuse it with "No such file or directory" for a file
    that is there; this names what differs.
    """
    own = _own_platform()
    theirs = _platform(header)
    if own is not None and theirs != own:
        raise ImportError(
            f"the compiled library {path} is built for another machine ({', '.join(theirs)}; this Python is "
            f"{', '.join(own)}): reinstall the package (pip install) to rebuild it"
        )


def _check_file(path: str) -> None:
    """Raise ImportError unless every byte the ELF headers of *path* describe is in the file.

    The dynamic loader maps a library's segments from its file; a segment
    cut short by a truncated file (an interrupted install, a full disk
    during the build) is mapped past the end of the file, and reading it
    kills the process with SIGBUS, before any Python code could react.
    The headers are the library's own record, written at build time, of
    where its program segments and sections are and how long they are: the
    file must hold all of them. Not an ELF file (another platform's
    format) is checked by the loader alone. The file is opened by the
    package's one reading rule (:func:`sysrs_ref._files.open_regular`): a
    FIFO or a device in its place is refused at once, never waited on.
    """
    try:
        with open_regular(path) as file:
            size = os.fstat(file.fileno()).st_size
            header = file.read(64)
            if header[:4] != _ELF_MAGIC:
                if sys.platform.startswith("linux"):
                    raise ImportError(f"the compiled library {path} is not a shared library (no ELF header)")
                return
            if len(header) < 20:
                raise ImportError(f"the compiled library {path} is truncated ({size} bytes)")
            _check_platform(path, header)
            wide, order = header[4] == 2, "<" if header[5] == 1 else ">"
            if wide:
                layout, segment, section = "QQ6xHHHH", ("IIQ16xQ", 2, 3), ("IIQQQQ", 4, 5)
                where = 32
            else:
                layout, segment, section = "II6xHHHH", ("II8xI", 1, 2), ("IIIIII", 4, 5)
                where = 28
            if len(header) < where + struct.calcsize(order + layout):
                raise ImportError(f"the compiled library {path} is truncated ({size} bytes)")
            phoff, shoff, phentsize, phnum, shentsize, shnum = struct.unpack_from(order + layout, header, where)
            tables = ((phoff, phentsize, phnum, segment, None), (shoff, shentsize, shnum, section, 1))
            for offset, entry, count, (fmt, at, length), kind in tables:
                if offset + entry * count > size:
                    raise ImportError(f"the compiled library {path} is truncated ({size} bytes)")
                file.seek(offset)
                table = file.read(entry * count)
                for index in range(count):
                    fields = struct.unpack_from(order + fmt, table, index * entry)
                    if kind is not None and fields[kind] == _SHT_NOBITS:
                        continue
                    if fields[at] + fields[length] > size:
                        raise ImportError(f"the compiled library {path} is truncated ({size} bytes)")
    except (OSError, struct.error) as error:
        raise ImportError(f"the compiled library {path} cannot be read: {error}") from error


def _open(path: str) -> ctypes.CDLL:
    """The library at *path*, whole and of this build (ImportError otherwise)."""
    _check_file(path)
    try:
        library = ctypes.CDLL(path)
    except OSError as error:  # built for another platform, or damaged
        raise ImportError(f"the compiled passes cannot be loaded: {error}") from error
    try:
        answer = ctypes.CFUNCTYPE(ctypes.c_int64)(("sysrs_native_interface", library))()
    except AttributeError:
        answer = None
    if answer != INTERFACE:
        raise ImportError(
            f"the compiled library {path} is of another build (interface {answer}, this code calls {INTERFACE}): "
            "reinstall the package (pip install) to rebuild it"
        )
    return library


_LIBRARY = _open(library_path())

_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
_CODES = {
    np.dtype(t): code
    for t, code in ((np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"), (np.float64, "f64"))
}


def _function(name: str, argtypes: list[Any], restype: Any = None) -> Callable[..., Any]:
    try:
        function = getattr(_LIBRARY, name)  # a ctypes function pointer (Any to the type checker)
    except AttributeError as error:  # a library of another build that answers this interface: still refused
        raise ImportError(
            f"the compiled library lacks {name}: reinstall the package (pip install) to rebuild it"
        ) from error
    function.argtypes, function.restype = argtypes, restype
    return cast(Callable[..., Any], function)


def _typed(prefix: str, argtypes: list[Any], restype: Any = None) -> dict[str, Callable[..., Any]]:
    """Every variant ``prefix_<dtype codes>`` the library has, by its codes."""
    found = {}
    for codes in ("i8_i32", "i16_i32", "i32_i32", "i64_i32", "i8_i64", "i16_i64", "i32_i64", "i64_i64", "f64_f64"):
        found[codes] = _function(f"{prefix}_{codes}", argtypes, restype)
    return found


_KEYS = _typed("ucb_keys", [_P, _I, _I, _P, _I, _I, _I, _P, _P, _P, _P, _P])
_KEYS_UPTO = _typed("ucb_keys_upto", [_P, _I, _I, _P, _I, _I, _I, _P, _P, _P, _P, _P, _I, _D, _D, _P])
_COUNT_ABOVE = _function("count_above", [_P, _I, _P, _P, _I, ctypes.c_int, _P])
_SELECT = _function("ucb_select", [_P, _I, _I, _I, _P, _P, _I, _P, ctypes.c_int] + [_P] * 6, ctypes.c_int)
#: Band arms a cut's summary lists (BAND in _csrc/common.h).
BAND = 16
_CUT = {
    code: _function(
        f"ucb_cut_{code}", [_P, _P, _P, _P, _I, _I, _I, _I] + [_P] * 11 + [_P, _I, _P, _I, _P, _P], ctypes.c_int
    )
    for code in ("i32", "i64", "f64")
}
_RANKING = {
    code: _function(f"ucb_ranking_{code}", [_P, _I, _I, _I, _I, _P, _P, _P, _P, _I, _P], ctypes.c_int)
    for code in ("i32", "i64", "f64")
}
_PREFIX = _typed("prefix_at", [_P, _I, _I, _P, _I, _I, _I, _P, _I, _I, _P, _P])
_SHARED = _typed("shared_prefix_at", [_P, _I, _P, _I, _I, _P, _I, _I, _P, _P], ctypes.c_int)
_ELIMINATE = {
    code: _function(f"eliminate_{code}", [_P, _I, _I, _P, _I, _I, _P, _P], ctypes.c_int) for code in ("i32", "i64")
}
_ELIMINATE_FLOATS = _function(
    "eliminate_floats", [_P, _I, _I, _P, _I, _I, _P, _P, ctypes.c_int, _P, _I, _P, _I, _I, _P, _P, _P]
)
_PERMUTATIONS = _function("permutations", [_P, _I, _P, _I, _P, _I, _I], ctypes.c_int)
_U = ctypes.c_uint64
_LRF_FIT = _function("lrf_fit", [_P, _I, _I, _U, _U, _I, _P, _I, _D, _I, _I, _P, _P], ctypes.c_int)
_JACOBI = _function("jacobi_sweeps", [_P, _I, _I, _P, _P, _D, _I, _P])
_ELEMENTWISE = {name: _function(f"fixed_{name}", [_P, _P, _I, _P]) for name in ("exp", "log", "log1p", "sigmoid")}
#: The constants the elementwise functions take (N_CONSTANTS in _csrc/elementwise.c).
ELEMENTWISE_CONSTANTS = 88


class _Arrays:
    """The arrays of one call into C, checked, and kept alive until the call returns.

    A copy made to give C a C-ordered array of the right dtype is referenced
    here, so its memory cannot be freed while C reads it.
    """

    def __init__(self) -> None:
        self._kept: list[Array] = []

    def input(self, array: Array, dtype: Any, shape: tuple[int, ...] | None = None) -> int:
        """The address of *array* as a C-ordered array of *dtype* (copied only if it is not one already)."""
        return self.output(np.ascontiguousarray(array, dtype=dtype), dtype, shape)

    def output(self, array: Array, dtype: Any, shape: tuple[int, ...] | None = None) -> int:
        """The address of *array*, which C writes: it must already have *dtype*, *shape* and C order."""
        if array.dtype != np.dtype(dtype):
            raise TypeError(f"a compiled pass got a {array.dtype} array where it takes {np.dtype(dtype)}")
        if shape is not None and array.shape != shape:
            raise ValueError(f"a compiled pass got an array of shape {array.shape} where it takes {shape}")
        if not array.flags.c_contiguous:
            raise ValueError("a compiled pass got an array that is not in C order")
        self._kept.append(array)
        if array.flags.writeable and array.nbytes:  # its buffer's address: a few times cheaper than array.ctypes
            return ctypes.addressof(ctypes.c_char.from_buffer(array.data))
        return int(array.ctypes.data)


def _codes(values: Array, sums: Array) -> str:
    code = f"{_CODES.get(values.dtype, '?')}_{_CODES.get(sums.dtype, '?')}"
    if code not in _KEYS:
        raise TypeError(f"no compiled pass for scores of dtype {values.dtype} summed in {sums.dtype}")
    return code


def _code(array: Array, table: dict[str, Any], what: str) -> str:
    code = _CODES.get(array.dtype, "?")
    if code not in table:
        raise TypeError(f"no compiled {what} for an array of dtype {array.dtype}")
    return code


def _checked(status: int) -> None:
    if status != 0:
        raise MemoryError("a compiled pass ran out of memory")


def _table_arguments(arrays: _Arrays, values: Array, orders: Array) -> list[int]:
    """The scores (K x stride) and the orders (R x (1 or K) x L) as the row-by-row passes take them."""
    n_runs, n_rows, length = orders.shape
    n_models, stride = values.shape
    if n_rows not in (1, n_models):
        raise ValueError(f"orders of shape {orders.shape} do not fit {n_models} models")
    return [
        arrays.input(values, values.dtype),
        n_models,
        stride,
        arrays.input(orders, np.int32),
        n_runs,
        n_rows,
        length,
    ]


def _keys_arguments(
    arrays: _Arrays, values: Array, orders: Array, means: tuple[Array, Array, Array], prefix: Array, keys: Array
) -> list[int]:
    n_runs, _, length = orders.shape
    n_models = values.shape[0]
    inverse, divisors, roots = means
    return [
        *_table_arguments(arrays, values, orders),
        arrays.input(inverse, np.float64, (length,)),
        arrays.input(divisors, np.float64, (length,)),
        arrays.input(roots, np.float64, (length - 1,)),
        arrays.output(prefix, prefix.dtype, (n_runs, n_models, length)),
        arrays.output(keys, np.float64, (n_runs, n_models, length - 1)),
    ]


def ucb_keys(
    values: Array, orders: Array, inverse: Array, divisors: Array, roots: Array, prefix: Array, keys: Array
) -> None:
    """Every row's prefix sums and keys (:func:`sysrs_ref.fast._compiled.ucb_keys`)."""
    arrays = _Arrays()
    _KEYS[_codes(values, prefix)](*_keys_arguments(arrays, values, orders, (inverse, divisors, roots), prefix, keys))


def ucb_keys_upto(
    values: Array,
    orders: Array,
    inverse: Array,
    divisors: Array,
    roots: Array,
    prefix: Array,
    keys: Array,
    needed: int,
    guess: float,
    step: float,
    stops: Array,
) -> None:
    """The rows as far as a cut of *needed* pulls reaches (:func:`sysrs_ref.fast._compiled.ucb_keys_upto`)."""
    arrays = _Arrays()
    arguments = _keys_arguments(arrays, values, orders, (inverse, divisors, roots), prefix, keys)
    lengths = arrays.output(stops, np.int64, (orders.shape[0], values.shape[0]))
    _KEYS_UPTO[_codes(values, prefix)](*arguments, int(needed), float(guess), float(step), lengths)


def ucb_select(
    keys: Array,
    stops: Array,
    pulls: Array,
    memory: Array,
    binned: bool,
    theta: Array,
    above: Array,
    upto: Array,
    nearest: Array,
    sizes: Array,
    bands: Array,
) -> None:
    """theta, above, upto and what the cut needs, of every run and budget (:func:`sysrs_ref.fast._compiled.ucb_select`)."""
    n_runs, n_models, width = keys.shape
    n_budgets = len(pulls)
    arrays = _Arrays()
    status = _SELECT(
        arrays.input(keys, np.float64),
        n_runs,
        n_models,
        width,
        arrays.input(stops, np.int64, (n_runs, n_models)),
        arrays.input(pulls, np.int64, (n_budgets,)),
        n_budgets,
        arrays.output(memory, np.float64, (2, n_budgets)),  # updated in place: the next call's guesses
        int(bool(binned)),
        arrays.output(theta, np.float64, (n_runs, n_budgets)),
        arrays.output(above, np.int64, (n_runs, n_budgets, n_models)),
        arrays.output(upto, np.int64, (n_runs, n_budgets, n_models)),
        arrays.output(nearest, np.float64, (n_runs, n_budgets, 2)),
        arrays.output(sizes, np.int64, (n_runs, n_budgets, 2)),
        arrays.output(bands, np.int64, (n_runs, n_budgets, BAND)),
    )
    _checked(status)


def ucb_cut(
    nearest: Array,
    sizes: Array,
    bands: Array,
    prefix: Array,
    theta: Array,
    above: Array,
    upto: Array,
    pulls: Array,
    rank: Array,
    classes: Array,
    squares: Array,
    inverse: Array,
    divisors: Array,
    roots: Array,
    settings: Array,
    numerators: Array,
    orders: Array,
    counts: Array,
) -> npt.NDArray[np.bool_]:
    """The certified cuts (:func:`sysrs_ref.fast._compiled.ucb_cut`); True where certified.

    *numerators* (K x stride int64) and *orders* (R x (1 or K) x L int32) are read only where ``settings[7]``
    (exact sums) is set; then every order entry must index a numerator's row.
    """
    n_runs, n_budgets, n_models = above.shape
    width = prefix.shape[2] - 1
    n_rows = orders.shape[1]
    if orders.shape != (n_runs, n_rows, width + 1) or n_rows not in (1, n_models):
        raise ValueError(f"orders of shape {orders.shape} do not fit {n_runs} runs of {n_models} models")
    if settings[7] != 0.0 and (numerators.ndim != 2 or numerators.shape[0] != n_models):
        raise ValueError(f"numerators of shape {numerators.shape} do not fit {n_models} models")
    certified = np.zeros((n_runs, n_budgets), dtype=np.uint8)
    cube = (n_runs, n_budgets, n_models)
    arrays = _Arrays()
    status = _CUT[_code(prefix, _CUT, "cut")](
        arrays.input(nearest, np.float64, (n_runs, n_budgets, 2)),
        arrays.input(sizes, np.int64, (n_runs, n_budgets, 2)),
        arrays.input(bands, np.int64, (n_runs, n_budgets, BAND)),
        arrays.input(prefix, prefix.dtype, (n_runs, n_models, width + 1)),
        n_runs,
        n_budgets,
        n_models,
        width,
        arrays.input(theta, np.float64, (n_runs, n_budgets)),
        arrays.input(above, np.int64, cube),
        arrays.input(upto, np.int64, cube),
        arrays.input(pulls, np.int64, (n_budgets,)),
        arrays.input(rank, np.int32, (n_runs, n_models)),
        arrays.input(classes, np.int64, (n_models,)),
        arrays.input(squares, np.int64, (width + 1,)),
        arrays.input(inverse, np.float64, (width + 1,)),
        arrays.input(divisors, np.float64, (width + 1,)),
        arrays.input(roots, np.float64, (width,)),
        arrays.input(settings, np.float64, (8,)),
        arrays.input(numerators, np.int64),
        numerators.shape[1] if numerators.ndim == 2 else 0,
        arrays.input(orders, np.int32),
        n_rows,
        arrays.output(counts, np.int64, cube),
        arrays.output(certified, np.uint8),
    )
    _checked(status)
    return certified.astype(np.bool_)


def count_above(rows: Array, row_ids: Array, theta: Array, strict: bool, out: Array) -> None:
    """How many entries of each asked row are above its theta (:func:`sysrs_ref.fast._compiled.count_above`)."""
    n_rows, width = rows.shape
    n = len(row_ids)
    if row_ids.ndim != 1 or theta.shape != (n,) or (n and not (row_ids.min() >= 0 and row_ids.max() < n_rows)):
        raise ValueError("count_above needs one theta per row id, and row ids within the rows")
    arrays = _Arrays()
    _COUNT_ABOVE(
        arrays.input(rows, np.float64, (n_rows, width)),
        width,
        arrays.input(row_ids, np.int64, (n,)),
        arrays.input(theta, np.float64, (n,)),
        n,
        int(strict),
        arrays.output(out, np.int64, (n,)),
    )


def ucb_ranking(prefix: Array, counts: Array, scale: Array, priority: Array, ranks: Array, leaders: Array) -> None:
    """The models by decreasing float mean at their counts (:func:`sysrs_ref.fast._compiled.ucb_ranking`); with one
    rank each, *leaders* (R, B, 2) gets the first's float mean and the largest of the others'."""
    n_runs, n_budgets, n_models = counts.shape
    if ranks.shape[:2] != (n_runs, n_budgets) or ranks.shape[2] not in (1, n_models):
        raise ValueError("ucb_ranking's ranks must be (runs, budgets, 1 or K)")
    length = prefix.shape[2]
    arrays = _Arrays()
    status = _RANKING[_code(prefix, _RANKING, "ranking")](
        arrays.input(prefix, prefix.dtype, (n_runs, n_models, length)),
        n_runs,
        n_budgets,
        n_models,
        length,
        arrays.input(counts, np.int64),
        arrays.input(scale, np.float64, (length,)),
        arrays.input(priority, np.int32, (n_runs, n_models)),
        arrays.output(ranks, np.int64),
        ranks.shape[2],
        arrays.output(leaders, np.float64, (n_runs, n_budgets, 2)),
    )
    _checked(status)


def prefix_at(
    values: Array, orders: Array, wanted: Array, out: Array, scale: int = 1, offsets: Array | None = None
) -> None:
    """Each model's sums at the wanted counts along its own order (:func:`sysrs_ref.fast._compiled.prefix_at`)."""
    n_runs, n_counts, n_models = orders.shape[0], len(wanted), values.shape[0]
    arrays = _Arrays()
    _PREFIX[_codes(values, out)](
        *_table_arguments(arrays, values, orders),
        arrays.input(wanted, np.int64, (n_counts,)),
        n_counts,
        *_keying(arrays, scale, offsets, (n_runs, n_models)),
        arrays.output(out, out.dtype, (n_counts, n_runs, n_models)),
    )


def _keying(arrays: _Arrays, scale: int, offsets: Array | None, shape: tuple[int, int]) -> tuple[int, int | None]:
    """The scale and the address of the offsets (R x K, int64; None: no offsets) of the prefix sums' pass."""
    return int(scale), None if offsets is None else arrays.input(offsets, np.int64, shape)


def shared_prefix_at(
    columns: Array, orders: Array, wanted: Array, out: Array, scale: int = 1, offsets: Array | None = None
) -> None:
    """:func:`prefix_at` for synchronized draws, on the table query-major (*columns*: L' x K)."""
    n_runs, _, length = orders.shape
    n_models = columns.shape[1]
    n_counts = len(wanted)
    arrays = _Arrays()
    status = _SHARED[_codes(columns, out)](
        arrays.input(columns, columns.dtype),
        n_models,
        arrays.input(orders, np.int32, (n_runs, 1, length)),
        n_runs,
        length,
        arrays.input(wanted, np.int64, (n_counts,)),
        n_counts,
        *_keying(arrays, scale, offsets, (n_runs, n_models)),
        arrays.output(out, out.dtype, (n_counts, n_runs, n_models)),
    )
    _checked(status)


def eliminate(keys: Array, slots: Array, rank: Array, limits: Array, out: Array) -> None:
    """SR / SySRs on exact integer keys (:func:`sysrs_ref.fast._compiled.eliminate`); *limits* is implied by the dtype."""
    n_runs, n_models = rank.shape
    n_budgets, n_phases = slots.shape
    arrays = _Arrays()
    status = _ELIMINATE[_code(keys, _ELIMINATE, "elimination")](
        arrays.input(keys, keys.dtype, (keys.shape[0], n_runs, n_models)),
        n_runs,
        n_models,
        arrays.input(slots, np.int64),
        n_budgets,
        n_phases,
        arrays.input(rank, np.int64),
        arrays.output(out, np.int32, (n_runs, n_budgets, n_models)),
    )
    _checked(status)


def eliminate_floats(
    sums: Array,
    slots: Array,
    counts: Array,
    rank: Array,
    numerators: Array | None,
    orders: Array,
    out: Array,
    unsettled: Array,
) -> int:
    """SR / SySRs on certified float sums (:func:`sysrs_ref.fast._compiled.eliminate_floats`); the exact decisions.

    With *numerators* (K x stride int64), the close calls are decided on exact sums along *orders*
    (R x (1 or K) x L int32, every entry indexing a numerator's row); without, they are left unsettled.
    """
    n_runs, n_models = rank.shape
    n_budgets, n_phases = slots.shape
    n_rows, length = orders.shape[1], orders.shape[2]
    if orders.shape[0] != n_runs or n_rows not in (1, n_models):
        raise ValueError(f"orders of shape {orders.shape} do not fit {n_runs} runs of {n_models} models")
    if numerators is not None and (numerators.ndim != 2 or numerators.shape[0] != n_models):
        raise ValueError(f"numerators of shape {numerators.shape} do not fit {n_models} models")
    table = numerators if numerators is not None else np.zeros((0, 0), dtype=np.int64)
    flags = np.zeros((n_runs, n_budgets), dtype=np.uint8)
    decided = np.zeros(1, dtype=np.int64)
    arrays = _Arrays()
    _ELIMINATE_FLOATS(
        arrays.input(sums, np.float64, (sums.shape[0], n_runs, n_models)),
        n_runs,
        n_models,
        arrays.input(slots, np.int64),
        n_budgets,
        n_phases,
        arrays.input(counts, np.int64, (sums.shape[0],)),
        arrays.input(rank, np.int64),
        int(numerators is not None),
        arrays.input(table, np.int64),
        table.shape[1],
        arrays.input(orders, np.int32),
        n_rows,
        length,
        arrays.output(out, np.int32, (n_runs, n_budgets, n_models)),
        arrays.output(flags, np.uint8),
        arrays.output(decided, np.int64),
    )
    unsettled |= flags.astype(np.bool_)
    return int(decided[0])


def permutations(states: Array, priority: Array, orders: Array) -> None:
    """numpy's PCG64 permutations, bit for bit (:func:`sysrs_ref.fast._compiled.permutations`)."""
    n_runs, n_models = priority.shape
    _, count, n_queries = orders.shape
    arrays = _Arrays()
    status = _PERMUTATIONS(
        arrays.input(states, np.uint64, (n_runs, 6)),
        n_runs,
        arrays.output(priority, np.int32),
        n_models,
        arrays.output(orders, np.int32, (n_runs, count, n_queries)),
        count,
        n_queries,
    )
    _checked(status)


def lrf_fit(
    scores: Array,
    seed: int,
    fit: int,
    members: int,
    table: Array,
    ridge: float,
    sweeps: int,
    ddof: int,
    mean: Array,
    spread: Array,
) -> None:
    """UCB-E-LRF's rank-1 ensemble fit into *mean* and *spread* (:func:`sysrs_ref.fast._compiled.lrf_fit`)."""
    n_models, n_queries = scores.shape
    if not (0 <= seed < 2**64 and 0 <= fit < 2**63 and members >= 1 and sweeps >= 1 and ddof >= 0):
        raise ValueError("a compiled LRF fit got a seed, fit number, ensemble size, sweeps or ddof out of range")
    arrays = _Arrays()
    status = _LRF_FIT(
        arrays.input(scores, np.float64, (n_models, n_queries)),
        n_models,
        n_queries,
        int(seed),
        int(fit),
        int(members),
        arrays.input(table, np.float64, (len(table),)),
        len(table),
        float(ridge),
        int(sweeps),
        int(ddof),
        arrays.output(mean, np.float64, (n_models, n_queries)),
        arrays.output(spread, np.float64, (n_models, n_queries)),
    )
    _checked(status)


def fixed_elementwise(name: str, values: Array, out: Array, constants: Array) -> None:
    """The fixed-order function *name* of *values* into *out* (:func:`sysrs_ref.fast._compiled.elementwise`)."""
    if name not in _ELEMENTWISE:
        raise ValueError(f"no compiled elementwise function {name!r}; there are {sorted(_ELEMENTWISE)}")
    if values.shape != out.shape or values.ndim != 1 or not out.flags.writeable:
        raise ValueError("a compiled elementwise function needs a 1-D input and a writable output of its shape")
    if np.shares_memory(values, out):  # C reads the input again after it has written the output
        raise ValueError("a compiled elementwise function needs an output apart from its input")
    arrays = _Arrays()
    _ELEMENTWISE[name](
        arrays.input(values, np.float64, values.shape),
        arrays.output(out, np.float64, values.shape),
        values.size,
        arrays.input(constants, np.float64, (ELEMENTWISE_CONSTANTS,)),
    )


def jacobi_sweeps(joint: Array, n: int, first: Array, second: Array, tol: float, max_sweeps: int) -> None:
    """The fixed-order SVD's rotations on *joint* in place (:func:`sysrs_ref.fast._compiled.jacobi_sweeps`)."""
    rows, size = joint.shape
    half = size // 2
    if size % 2 or size < 2 or rows != n + size or max_sweeps < 0:
        raise ValueError("a compiled Jacobi sweep got an odd width, a wrong number of rows or a negative sweep count")
    if not joint.flags.writeable:
        raise ValueError("a compiled Jacobi sweep got a read-only array to rotate")
    pairs = (size - 1, half)
    arrays = _Arrays()
    firsts, seconds = arrays.input(first, np.int64, pairs), arrays.input(second, np.int64, pairs)
    if not (np.all((first >= 0) & (first < size)) and np.all((second >= 0) & (second < size))):
        raise ValueError("a compiled Jacobi sweep got a column outside the matrix")
    scratch = np.empty(5 * half, dtype=np.float64)
    _JACOBI(
        arrays.output(joint, np.float64, (rows, size)),
        n,
        size,
        firsts,
        seconds,
        float(tol),
        int(max_sweeps),
        arrays.output(scratch, np.float64, (5 * half,)),
    )
