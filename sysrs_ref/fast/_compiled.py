"""The compiled passes' wrappers: plain numpy arrays in, plain numpy arrays out, the C library (``_native``) inside.

The fast paths call these with the module :func:`library` returns (None:
run the numpy pass instead). Each computes exactly the array its numpy pass
computes (the same float operations in the same order), so outcomes cannot
depend on the backend; the tests run both and compare. The passes: the
draws (:func:`permutations`), the UCB-E / SyUCB-E keys, order statistics,
cuts and rankings (:func:`ucb_keys`, :func:`ucb_keys_upto`,
:func:`ucb_select`, :func:`ucb_cut`, :func:`ucb_ranking`; callers
:mod:`sysrs_ref.fast._ucb` and :mod:`sysrs_ref.fast._ucb_runs`), the
counts the exact cut resolution makes (:func:`count_above`), the prefix
sums of the phase-by-phase kernels (:func:`prefix_at`), SR's eliminations
(:func:`eliminate`, :func:`eliminate_floats`), and UCB-E-LRF's fit
(:func:`lrf_fit`: the reference's doubles, where numpy's fit agrees with
them to 1e-10), the fixed-order SVD's rotations (:func:`jacobi_sweeps`) and the fixed-order
elementwise functions (:func:`elementwise`: exp, log, log1p, sigmoid).
The switch and the availability query users see are
:mod:`sysrs_ref.fast.compiled`'s (:func:`active`, :func:`available`,
:func:`numpy_only`, :data:`ENVIRONMENT`), defined here with the state they
share.

>>> with numpy_only():
...     library() is None
True
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import sysrs_ref._fixed_order as fixed_order
from sysrs_ref.algorithms.lrf import LRFParams
from sysrs_ref.algorithms.lrf_model import dropout_table

__all__ = [
    "BINNED_FROM",
    "ENVIRONMENT",
    "CutFacts",
    "CutTables",
    "active",
    "available",
    "count_above",
    "eliminate",
    "eliminate_floats",
    "elementwise",
    "jacobi_sweeps",
    "library",
    "lrf_fit",
    "numpy_only",
    "permutations",
    "prefix_at",
    "ucb_cut",
    "ucb_keys",
    "ucb_keys_upto",
    "ucb_ranking",
    "ucb_top",
    "ucb_select",
]

#: The environment variable that switches the compiled passes off when it is "0" (or "false", "no", "off").
ENVIRONMENT = "SYSRS_REF_COMPILED"

_state: dict[str, ModuleType | bool | None] = {}


def available() -> bool:
    """Whether the compiled passes were built and load here (they then run, unless switched off).

    >>> isinstance(available(), bool)
    True
    """
    return _load() is not None


def active() -> bool:
    """Whether the fast paths run their compiled passes now: built, loading, and not switched off.

    Off in a :func:`numpy_only` block and when the environment variable
    :data:`ENVIRONMENT` is ``0`` (or ``false``, ``no``, ``off``).

    >>> with numpy_only():
    ...     active()
    False
    """
    return library() is not None


def library() -> ModuleType | None:
    """The compiled passes' module when they are on and load here, else None (run the numpy pass)."""
    if _state.get("off"):
        return None
    if os.environ.get(ENVIRONMENT, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    return _load()


def _load() -> ModuleType | None:
    if "module" not in _state:
        try:
            from sysrs_ref.fast import _native

            _self_test(_native)
        except ModuleNotFoundError:  # not built here (no C compiler at install time): numpy does it all
            _state["module"] = None
        except (ImportError, ValueError, TypeError, MemoryError) as error:  # damaged, or of another build
            _state["module"] = None
            _give_up(str(error))
        else:
            _state["module"] = _native
    module = _state["module"]
    assert module is None or isinstance(module, ModuleType)
    return module


def lrf_fit(
    module: ModuleType, scores: npt.NDArray[np.float64], seed: int, fit: int, params: LRFParams, ddof: int = 1
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """UCB-E-LRF's fit *fit* (S-hat, R) in C, the reference's doubles bit for bit; None (numpy must fit) unless rank 1.

    The order of every sum is the reference's
    (:func:`~sysrs_ref.algorithms.lrf_model.fit_ensemble`, docs/contracts.md
    11.5), with no BLAS, so the result is the same on every processor.
    """
    if params.rank != 1 or params.sweeps < 1 or params.members <= 0:
        return None
    mean = np.empty(scores.shape, dtype=np.float64)
    spread = np.empty(scores.shape, dtype=np.float64)
    table = _dropout_thresholds(params.dropout)
    module.lrf_fit(scores, seed, fit, params.members, table, params.ridge, params.sweeps, ddof, mean, spread)
    return mean, spread


def jacobi_sweeps(module: ModuleType, joint: npt.NDArray[np.float64], n: int, tol: float, max_sweeps: int) -> bool:
    """:func:`~sysrs_ref._fixed_order.jacobi_sweeps` in C, the same doubles; False (numpy must rotate) where not sure.

    The C code sums each pair's products in the order of this numpy's
    ``einsum`` (``_csrc/jacobi.c`` states it); False unless *joint* is
    C-ordered and a check, once per process, found numpy summing in that
    order (:func:`_sums_match_numpy`: another numpy, or a processor where
    numpy fuses a product with its sum, fails it).
    """
    if not joint.flags.c_contiguous or not _sums_match_numpy(module):
        return False
    first, second = _round_tables(joint.shape[1])
    module.jacobi_sweeps(joint, n, first, second, tol, max_sweeps)
    return True


def elementwise(module: ModuleType, name: str, values: npt.ArrayLike) -> npt.NDArray[np.float64] | None:
    """The fixed-order function *name* (exp, log, log1p or sigmoid) of *values* in C; None (numpy must) where unsure.

    Each element goes through the operations of :mod:`sysrs_ref._fixed_order`'s
    numpy loop, in its order (``_csrc/elementwise.c``): the same doubles, NaN
    where it gives NaN. None unless a check, once per process, found the C
    loops giving numpy's doubles on the special and random inputs of
    :func:`_elementwise_probe` (a compiler that contracts or reorders the
    operations, or a C library whose frexp or ldexp rounds otherwise, fails it).
    """
    if not _elementwise_matches_numpy(module):
        return None
    given = np.asarray(values, dtype=np.float64)
    flat = np.ascontiguousarray(given).reshape(-1)
    out = np.empty(flat.size, dtype=np.float64)
    module.fixed_elementwise(name, flat, out, fixed_order.elementwise_constants())
    return out.reshape(given.shape)


def _elementwise_probe() -> npt.NDArray[np.float64]:
    """Inputs for the check of the compiled elementwise functions: every special case, then random doubles.

    NaN, the infinities, both zeros, the smallest subnormal and normal, the ends
    of exp's range and one double past them, and numbers whose exponents span
    the whole range of doubles (so log and ldexp meet subnormals and overflow).
    """
    tiny, huge = 5e-324, float(np.finfo(np.float64).max)
    ends = [709.782712893384, -745.1332191019412, 709.7827128933841, -745.1332191019413, 709.0, -709.0, -708.5]
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, 2.2250738585072014e-308, huge, -huge, 1.0, -1.0]
    generator = np.random.default_rng(20_260_601)
    spread = generator.standard_normal(4096) * 2.0 ** generator.integers(-1074, 1024, 4096)
    near = generator.uniform(-750.0, 750.0, 4096)
    small = generator.standard_normal(4096) * 1e-3
    return np.concatenate([special, ends, spread, near, small, -1.0 + small])


def _elementwise_matches_numpy(module: ModuleType) -> bool:
    """Whether the compiled exp, log, log1p and sigmoid give numpy's doubles on :func:`_elementwise_probe`.

    Checked once per process.
    """
    if "elementwise" not in _state:
        probe = _elementwise_probe()
        same = True
        for name, function in _ELEMENTWISE.items():
            out = np.empty(probe.size, dtype=np.float64)
            module.fixed_elementwise(name, probe, out, fixed_order.elementwise_constants())
            same &= _same_doubles(out, function(probe))
        _state["elementwise"] = same
    return bool(_state["elementwise"])


def _same_doubles(got: npt.NDArray[np.float64], want: npt.NDArray[np.float64]) -> bool:
    """The same doubles bit for bit, NaN where the other is NaN (NaNs' payloads and signs are not compared)."""
    nan = np.isnan(want)
    return bool(np.array_equal(np.isnan(got), nan) and got[~nan].tobytes() == want[~nan].tobytes())


#: The numpy loops the compiled elementwise functions are checked against, by name.
_ELEMENTWISE = {name: getattr(fixed_order.NUMPY_KERNELS, name) for name in ("exp", "log", "log1p", "sigmoid")}


def _sums_match_numpy(module: ModuleType) -> bool:
    """Whether the compiled rotations equal numpy's on a few matrices (checked once per process).

    Their lengths cover einsum's blocks of 8 rows, the pairs of rows after
    them and a lone last row; their widths, rounds of one pair and of several.
    """
    if "jacobi" not in _state:
        same = True
        generator = np.random.default_rng(20_240_601)
        for n, size in ((1, 2), (7, 4), (19, 6), (40, 10)):
            joint = np.vstack([generator.standard_normal((n, size)), np.eye(size)])
            joint[:, -1] *= 1e-3  # pairs far apart in size, and pairs nearly orthogonal
            expected = joint.copy()
            fixed_order.jacobi_sweeps(expected, n, size * 2.0**-53, 60)
            first, second = _round_tables(size)
            module.jacobi_sweeps(joint, n, first, second, size * 2.0**-53, 60)
            same &= joint.tobytes() == expected.tobytes()
        _state["jacobi"] = same
    return bool(_state["jacobi"])


@functools.cache
def _round_tables(size: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`~sysrs_ref._fixed_order.circle_rounds` as two (size - 1) x size/2 arrays, read-only."""
    rounds = fixed_order.circle_rounds(size)
    first = np.array([pair[0] for pair in rounds], dtype=np.int64)
    second = np.array([pair[1] for pair in rounds], dtype=np.int64)
    first.setflags(write=False)
    second.setflags(write=False)
    return first, second


@functools.cache
def _dropout_thresholds(dropout: float) -> npt.NDArray[np.float64]:
    """The dropout gap's threshold table as an array (:func:`~sysrs_ref.algorithms.lrf_model.dropout_table`)."""
    table = np.array(dropout_table(dropout), dtype=np.float64)
    table.setflags(write=False)
    return table


def _self_test(module: ModuleType) -> None:
    """Raise ValueError unless the library's prefix sums equal numpy's on a small table."""
    values = (np.arange(21, dtype=np.int8).reshape(3, 7) * 5) % 3
    orders = np.argsort(np.arange(42).reshape(2, 3, 7) * 11 % 7, axis=2, kind="stable").astype(np.int32)
    wanted = np.array([1, 4, 7], dtype=np.int64)
    out = np.empty((3, 2, 3), dtype=np.int64)
    module.prefix_at(values, orders, wanted, out)
    expected = np.take_along_axis(np.broadcast_to(values, (2, 3, 7)), orders, axis=2).cumsum(axis=2)
    if not np.array_equal(out, expected[:, :, wanted - 1].transpose(2, 0, 1)):
        raise ValueError("the compiled library fails its self-test (its prefix sums differ from numpy's)")


def _give_up(reason: str) -> None:
    """One warning line on stderr, once per process: the library is there but unusable, so numpy runs everything.

    The switch :data:`ENVIRONMENT` is set to "0" for this process, so that
    its worker processes do not load the library, or warn, again.
    """
    os.environ[ENVIRONMENT] = "0"
    print(f"warning: the compiled passes are not used, numpy runs everything ({reason})", file=sys.stderr)


@contextmanager
def numpy_only() -> Iterator[None]:
    """Within the block, every fast path runs its numpy passes only (for tests and comparisons).

    The outcomes are the same either way; only the time differs.

    >>> with numpy_only():
    ...     active()
    False
    """
    before = _state.get("off", False)
    _state["off"] = True
    try:
        yield
    finally:
        _state["off"] = before


def ucb_keys(
    module: ModuleType,
    values: npt.NDArray[Any],
    orders: npt.NDArray[np.int32],
    means: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]],
    prefix: npt.NDArray[Any],
    keys: npt.NDArray[np.float64],
) -> None:
    """Fill *prefix* (R, K, L) and *keys* (R, K, L - 1) as :class:`~sysrs_ref.fast._ucb_runs.Runs` does with numpy.

    *means* is (inverse, divisors, roots) of the :class:`~sysrs_ref.fast._ucb_runs.Setup`:
    index = :func:`~sysrs_ref.fast._ucb_exact.float_means` of P, plus the root.
    """
    module.ucb_keys(values, orders, *means, prefix, keys)


def ucb_keys_upto(
    module: ModuleType,
    values: npt.NDArray[Any],
    orders: npt.NDArray[np.int32],
    means: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]],
    prefix: npt.NDArray[Any],
    keys: npt.NDArray[np.float64],
    needed: int,
    memory: npt.NDArray[np.float64],
    stops: npt.NDArray[np.int64],
) -> None:
    """:func:`ucb_keys`, each row only as far as a cut of at most *needed* pulls can reach; row lengths in *stops* (R, K).

    ``keys[r, i, :stops[r, i]]`` and ``prefix[r, i, :stops[r, i]]`` are
    :func:`ucb_keys`'s, and every order statistic of at most *needed* pulls,
    its counts (:func:`ucb_select` with *stops*) and its certification
    (:func:`ucb_cut`) are the whole rows'. *memory* (theta and its typical
    change, as :func:`ucb_select` keeps them, for the budget of *needed*
    pulls) sets where the rows stop first: only speed depends on it.
    0 < needed < K (L - 1).
    """
    guess, step = float(memory[0]), float(memory[1])
    guess = -np.inf if np.isnan(guess) else guess
    module.ucb_keys_upto(values, orders, *means, prefix, keys, needed, guess, step, stops)


class CutFacts(NamedTuple):
    """What :func:`ucb_select` gathers for :func:`ucb_cut`, per run and budget, while the rows are at hand."""

    #: (R, B, 2): the smallest key above theta and the largest below it (infinite when there is none).
    nearest: npt.NDArray[np.float64]
    #: (R, B, 2): the keys above theta in all, and the band arms (arms with keys at theta).
    sizes: npt.NDArray[np.int64]
    #: (R, B, 16): the first band arms, by model (a cut with more is rescanned).
    bands: npt.NDArray[np.int64]


#: From this many budgets on, :func:`ucb_select` finds theta in a histogram of each run's keys (made once a run,
#: block by block: cheaper than a few budgets' searches).
BINNED_FROM = 4


def ucb_select(
    module: ModuleType,
    keys: npt.NDArray[np.float64],
    pulls: npt.NDArray[np.int64],
    memory: npt.NDArray[np.float64],
    binned: bool | None = None,
    stops: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp], npt.NDArray[np.intp], CutFacts]:
    """(theta, above, upto, facts): each run's ``pulls[b]``-th largest key, per model how many keys are > and >= it,
    and what :func:`ucb_cut` certifies each cut with (:class:`CutFacts`), gathered while the rows are at hand.

    *keys* (R, K, W) are nonincreasing along W, and 0 < pulls[b] <= K W.
    *memory* (2, B), NaN at first, carries the last theta of each budget and
    its typical change from call to call: good first guesses for the next
    runs (they change the speed, never the result). *binned* (default: from
    :data:`BINNED_FROM` budgets on) bins the run's keys block by block (runs
    of equal keys) instead, finds each theta among its bin's blocks, and
    searches each model's blocks once against every theta: a pass over the
    keys a run, and no search over every model for each budget (also only
    speed).
    With *stops* (R, K), row i of run r is its first ``stops[r, i]`` keys
    (rows made by :func:`ucb_keys_upto`); by default every row is whole.
    """
    n_runs, n_models, width = keys.shape
    if stops is None:
        stops = np.full((n_runs, n_models), width, dtype=np.int64)
    theta = np.empty((n_runs, len(pulls)), dtype=np.float64)
    above = np.empty((n_runs, len(pulls), n_models), dtype=np.intp)
    upto = np.empty_like(above)
    facts = CutFacts(
        np.empty((n_runs, len(pulls), 2), dtype=np.float64),
        np.empty((n_runs, len(pulls), 2), dtype=np.int64),
        np.empty((n_runs, len(pulls), module.BAND), dtype=np.int64),
    )
    if binned is None:
        binned = len(pulls) >= BINNED_FROM
    module.ucb_select(keys, stops, pulls, memory, binned, theta, above, upto, *facts)
    return theta, above, upto, facts


class CutTables(NamedTuple):
    """The plain arrays of a group of UCB runs that the compiled cut reads (see ``fast._ucb_runs.cut_tables``).

    ``settings`` is (gap, integer, rational_int64, certify, a's denominator, the table's denominator, first_exact,
    exact_sums) as doubles; with exact_sums, ``numerators`` (K x stride int64) and ``orders`` (R x (1 or K) x L)
    give each band arm's exact sum (float scores whose numerators fit in int64), else ``numerators`` is empty.
    """

    prefix: npt.NDArray[Any]
    rank: npt.NDArray[Any]
    classes: npt.NDArray[Any]
    squares: npt.NDArray[Any]
    inverse: npt.NDArray[np.float64]
    divisors: npt.NDArray[Any]
    roots: npt.NDArray[Any]
    settings: npt.NDArray[np.float64]
    numerators: npt.NDArray[np.int64]
    orders: npt.NDArray[np.int32]


def ucb_cut(
    module: ModuleType,
    tables: CutTables,
    theta: npt.NDArray[np.float64],
    above: npt.NDArray[np.intp],
    upto: npt.NDArray[np.intp],
    facts: CutFacts,
    pulls: npt.NDArray[np.intp],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """(cells, certified): each arm's cells among the first ``pulls[b]`` of the order, where the cut is certified.

    The certification of :func:`sysrs_ref.fast._ucb._cut`, decided the same way;
    where ``certified[r, b]`` is False the cells are unspecified: the caller's exact resolution fills them.
    """
    cells = np.empty_like(above)
    certified: npt.NDArray[np.bool_] = module.ucb_cut(
        *facts,
        tables.prefix,
        theta,
        above,
        upto,
        pulls.astype(np.int64),
        tables.rank,
        tables.classes,
        tables.squares,
        tables.inverse,
        tables.divisors,
        tables.roots,
        tables.settings,
        tables.numerators,
        tables.orders,
        cells,
    )
    return cells, certified


def count_above(
    module: ModuleType,
    rows: npt.NDArray[np.float64],
    row_ids: npt.NDArray[np.intp],
    theta: npt.NDArray[np.float64],
    strict: bool,
) -> npt.NDArray[np.intp]:
    """:func:`~sysrs_ref.fast._ucb_exact.count_above` in C: its binary search, step for step (the same counts)."""
    out = np.empty(len(row_ids), dtype=np.int64)
    module.count_above(rows, row_ids, theta, strict, out)
    return out.astype(np.intp, copy=False)


def ucb_ranking(
    module: ModuleType,
    prefix: npt.NDArray[Any],
    counts: npt.NDArray[np.intp],
    scale: npt.NDArray[np.float64],
    priority: npt.NDArray[np.int32],
    full: bool = True,
) -> npt.NDArray[np.intp]:
    """The models by decreasing float mean ``prefix[count - 1] / scale[count - 1]``, ties by priority (R, B, K).

    Exact only where the float means order as the exact ones do (``Bounds.means_exact``).
    Without *full*, only each ranking's first model (R, B, 1): one pass instead of a sort.
    """
    ranks = np.empty(counts.shape if full else (*counts.shape[:2], 1), dtype=counts.dtype)
    module.ucb_ranking(prefix, counts, scale, priority, ranks, np.empty((*counts.shape[:2], 2), dtype=np.float64))
    return ranks


def ucb_top(
    module: ModuleType,
    prefix: npt.NDArray[Any],
    counts: npt.NDArray[np.intp],
    scale: npt.NDArray[np.float64],
    priority: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """(top, leaders): :func:`ucb_ranking`'s first model (R, B, 1), and (its float mean, the largest float mean of the
    others) (R, B, 2), -inf for a single model.

    The callers decide from *leaders* where the float top can be trusted
    (means further apart than the proved tolerance).
    """
    top = np.empty((*counts.shape[:2], 1), dtype=counts.dtype)
    leaders = np.empty((*counts.shape[:2], 2), dtype=np.float64)
    module.ucb_ranking(prefix, counts, scale, priority, top, leaders)
    return top, leaders


def prefix_at(
    module: ModuleType,
    values: npt.NDArray[Any],
    orders: npt.NDArray[np.int32],
    wanted: npt.NDArray[np.intp],
    out: npt.NDArray[Any],
    scale: int = 1,
    offsets: npt.NDArray[np.int64] | None = None,
) -> None:
    """``out[p, r, i]`` = model i's sum of its first ``wanted[p]`` scores along run r's order (left to right).

    Synchronized draws (one order per run) take the table query-major, so that
    each step adds one contiguous column. Integer sums are exact, so equal to
    numpy's; float sums are added left to right, which numpy does too except
    where it sums segments first: :mod:`sysrs_ref.fast.certify` bounds their
    error whatever the order, so every decision taken on them is the same.
    Each sum is multiplied by *scale*, and ``offsets[r, i]`` added when
    *offsets* (R x K) is given, in the same pass (the caller knows the
    results fit *out*).
    """
    if orders.shape[1] == 1 and values.shape[0] > 1:
        module.shared_prefix_at(np.ascontiguousarray(values.T), orders, wanted, out, scale, offsets)
    else:
        module.prefix_at(values, orders, wanted, out, scale, offsets)


def eliminate(
    module: ModuleType,
    keys: npt.NDArray[np.signedinteger[Any]],
    slots: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
) -> npt.NDArray[np.int32]:
    """SR / SySRs on integer keys (P, R, K): per run and budget, the winner then the eliminated, last first (R, B, K).

    ``slots[b, phase]`` is the slab of *keys* read in that phase of budget b, -1 when nothing is seen yet.
    """
    n_runs, n_models = rank.shape
    out = np.empty((n_runs, slots.shape[0], n_models), dtype=np.int32)
    limits = np.iinfo(keys.dtype)
    module.eliminate(keys, slots, rank, np.array([limits.min, limits.max], dtype=keys.dtype), out)
    return out


def eliminate_floats(
    module: ModuleType,
    sums: npt.NDArray[np.float64],
    slots: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
    numerators: npt.NDArray[np.int64] | None,
    orders: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_], int]:
    """SR / SySRs on float sums (P, R, K), n_k of slab p ``counts[p]``: (as :func:`eliminate`, unsettled (R, B),
    the phases decided on exact sums).

    A phase the float filter cannot certify is decided, as the numpy kernel
    decides it, on the exact numerator sums of its near models along
    *orders* (the draws' query orders) when *numerators*
    (:meth:`~sysrs_ref.fast.ScoreTable.numerators64`) is given; without, its
    run and budget is marked in *unsettled* (its row of the first array is
    then meaningless) and the caller decides it with exact sums.
    """
    n_runs, n_models = rank.shape
    out = np.empty((n_runs, slots.shape[0], n_models), dtype=np.int32)
    unsettled = np.zeros((n_runs, slots.shape[0]), dtype=np.bool_)
    decided: int = module.eliminate_floats(sums, slots, counts, rank, numerators, orders, out, unsettled)
    return out, unsettled, decided


def permutations(
    module: ModuleType, generators: list[np.random.Generator], n_models: int, count: int, n_queries: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]] | None:
    """Run r's ``permutation(K)``, then *count* ``permutation(L)``, from fresh PCG64 generator r: (priority, orders).

    numpy's PCG64 and its shuffle, bit for bit (the generators are not advanced:
    call this only with generators used for nothing else). None, and numpy must
    do it, unless every generator is a PCG64 and this numpy's streams were
    checked, once per process, to match (:func:`_matches_numpy`).
    """
    if n_queries >= 2**32 or n_models >= 2**32 or not _matches_numpy(module):
        return None
    states = np.empty((len(generators), 6), dtype=np.uint64)
    for run, generator in enumerate(generators):
        state = _pcg64_state(generator)
        if state is None:
            return None
        states[run] = state
    priority = np.empty((len(generators), n_models), dtype=np.int32)
    orders = np.empty((len(generators), count, n_queries), dtype=np.int32)
    module.permutations(states, priority, orders)
    return priority, orders


def _pcg64_state(generator: np.random.Generator) -> list[int] | None:
    """PCG64's state as six uint64: state high, low, increment high, low, has_uint32, uinteger (None: not PCG64)."""
    if not isinstance(generator.bit_generator, np.random.PCG64):
        return None
    full = generator.bit_generator.state
    state, increment = int(full["state"]["state"]), int(full["state"]["inc"])
    low = 2**64 - 1
    return [state >> 64, state & low, increment >> 64, increment & low, int(full["has_uint32"]), int(full["uinteger"])]


def _matches_numpy(module: ModuleType) -> bool:
    """Whether the compiled permutations equal this numpy's on a few seeds and sizes (checked once per process)."""
    if "draws" not in _state:
        same = True
        for seed, n_models, n_queries in ((0, 3, 1), (1, 5, 37), (2, 70, 300), (3, 2, 70000)):
            generators = [np.random.default_rng(seed + run) for run in range(2)]
            states = np.array([_pcg64_state(g) for g in generators], dtype=np.uint64)
            priority = np.empty((2, n_models), dtype=np.int32)
            orders = np.empty((2, 2, n_queries), dtype=np.int32)
            module.permutations(states, priority, orders)
            for run, generator in enumerate(generators):
                same &= np.array_equal(priority[run], generator.permutation(n_models))
                same &= all(np.array_equal(orders[run, row], generator.permutation(n_queries)) for row in range(2))
        _state["draws"] = same
    return bool(_state["draws"])
