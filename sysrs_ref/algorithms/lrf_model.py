"""The low-rank model of UCB-E-LRF (Zhou et al. 2025): an ensemble of ALS factorizations, and its random stream.

**The stream.** Every random number of a UCB-E-LRF run after its warm-up comes
from one 64-bit seed through SplitMix64 used as a counter-based generator:
``word(seed, i) = mix64(seed + (i + 1) * 0x9E3779B97F4A7C15 mod 2^64)`` with
SplitMix64's output function ``mix64`` (Steele, Lea and Flood 2014), and the
uniform ``u(seed, i) = (word >> 11) * 2^-53`` in [0, 1). The index of a
number says what it is for: fit t (0 = the fit after the warm-up), ensemble
member c, and a position p inside the member's block of
``P = K L + 1 + 2 (K + L) r`` numbers,
``i = p + P (c + C t)``:

- p = 0, 1, ... (at most K L + 1 of them): the uniforms of member c's
  dropout gaps. The observed cells, in increasing cell index (cell = model *
  L + query), are numbered 0, 1, ..., N - 1; member c leaves out the cells
  numbered ``d_0 = G(u_0)`` and ``d_(k+1) = d_k + 1 + G(u_(k+1))`` while
  below N, where G is the geometric number of kept cells before a dropped
  one, by inversion on a threshold table (:func:`dropout_table`). Each
  observed cell is thus left out independently with the dropout probability
  q, and drawing only the gaps costs about q N numbers instead of N;
- p = K L + 1 + 2 k, K L + 2 + 2 k: the pair of uniforms (u1, u2) of the
  k-th initial factor, by Box-Muller ``sqrt(-2 ln(1 - u1)) cos(2 pi u2)``,
  the factors being U (K x r, row-major) then V (L x r).

Indexing by (t, c, p) rather than by how many numbers came before makes a
fit's randomness a function of (t, c) and of the observed cells only, so a
run stopped at a smaller budget uses the same numbers as the longer run up to
there.

**The fit.** Each member starts from its own U and V, drops its own cells,
and runs ``sweeps`` ALS sweeps on its own data: V first, row j solving
``(sum_i m_ij U_i U_i^T + lambda I) V_j = sum_i m_ij S_ij U_i``, then U
likewise (Zhou et al.'s update, ridge lambda added once, not scaled by the
count). Member c is always fitted to member c's data (the public
implementations pair each member's data with another member's factors; see
:func:`fit_ensemble`). S-hat is the ensemble mean of U_c V_c^T and R its
standard deviation (``ddof`` 1 by default, as ``torch.std``).

Everything here is plain Python floats: ALS is floating point, and the fast
path is compared with it to a stated tolerance.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sysrs_ref.errors import ParameterError

__all__ = [
    "GAMMA",
    "Ensemble",
    "Matrix",
    "check_dropout",
    "dropout_gap",
    "dropout_table",
    "dropped_ranks",
    "fit_ensemble",
    "fit_member",
    "fit_members",
    "mix64",
    "uniform",
]

MASK64 = (1 << 64) - 1

#: SplitMix64's increment, the golden ratio in 64 bits.
GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's output function: a bijection of 64-bit words.

    >>> hex(mix64(GAMMA))   # the first output of SplitMix64 seeded with 0
    '0xe220a8397b1dcdaf'
    """
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def uniform(seed: int, index: int) -> float:
    """The uniform number number *index* of the stream of *seed*, in [0, 1), a multiple of 2^-53.

    >>> uniform(0, 0) == (0xe220a8397b1dcdaf >> 11) / 2**53
    True
    """
    return (mix64(seed + (index + 1) * GAMMA) >> 11) * 2.0**-53


def _square(x: float) -> float:
    """x times x, one IEEE product (``x ** 2`` goes through libm's pow, which may round it otherwise)."""
    return x * x


def _normal(seed: int, index: int) -> float:
    """Box-Muller from the uniforms at *index* and *index* + 1."""
    u1, u2 = uniform(seed, index), uniform(seed, index + 1)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


def check_dropout(dropout: float) -> float:
    """*dropout* if it is 0 or in [0.001, 1), else ParameterError (a smaller one would need a huge gap table).

    >>> check_dropout(0.05)
    0.05
    """
    if not (dropout == 0 or 0.001 <= dropout < 1):
        raise ParameterError(
            f"dropout must be 0 or in [0.001, 1) (its gap table has ~37/dropout entries), got {dropout}"
        )
    return dropout


def dropout_table(dropout: float) -> tuple[float, ...]:
    """The geometric gap's thresholds ``T_g = 1 - (1 - q)^(g + 1)`` for dropout probability q, up to 1.0.

    Computed in IEEE double by repeated multiplication, ``p_0 = 1``, ``p_(g+1)
    = p_g * (1 - q)``, ``T_g = 1 - p_(g+1)``, stopping at the first T equal to
    1.0, so any implementation can rebuild it bit for bit. Empty when q = 0
    (nothing is dropped). The gap of a uniform u is the number of thresholds
    at most u (:func:`dropout_gap`).

    >>> dropout_table(0.5)[:3], len(dropout_table(0.05))
    ((0.5, 0.75, 0.875), 730)
    """
    if check_dropout(dropout) == 0:
        return ()
    keep, power = 1.0 - dropout, 1.0
    table: list[float] = []
    while not table or table[-1] < 1.0:
        power *= keep
        table.append(1.0 - power)
    return tuple(table)


def dropout_gap(table: Sequence[float], u: float) -> int:
    """G(u): how many observed cells are kept before the next dropped one (the thresholds at most *u*).

    >>> dropout_gap(dropout_table(0.5), 0.6), dropout_gap(dropout_table(0.5), 0.1)
    (1, 0)
    """
    return bisect.bisect_right(table, u)


def dropped_ranks(seed: int, base: int, observed: int, table: Sequence[float]) -> list[int]:
    """The numbers (0 .. *observed* - 1) of the observed cells a member leaves out; its gaps start at *base*.

    >>> dropped_ranks(3, 0, 10, ()), len(dropped_ranks(3, 0, 1000, dropout_table(0.5))) in range(400, 600)
    ([], True)
    """
    if not table:
        return []
    out, k = [], 0
    rank = dropout_gap(table, uniform(seed, base))
    while rank < observed:
        out.append(rank)
        k += 1
        rank += 1 + dropout_gap(table, uniform(seed, base + k))
    return out


#: A K x L matrix of floats, row by row.
Matrix = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Ensemble:
    """The fitted ensemble: S-hat (mean) and R (standard deviation), K x L each, as nested tuples."""

    mean: Matrix
    spread: Matrix
    members: tuple[Matrix, ...]
    """Each member's U_c V_c^T (C x K x L), for tests and diagnostics."""


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve a small symmetric positive definite system by Gaussian elimination with partial pivoting."""
    size = len(vector)
    a = [row[:] + [vector[k]] for k, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for row in range(col + 1, size):
            factor = a[row][col] / a[col][col]
            for k in range(col, size + 1):
                a[row][k] -= factor * a[col][k]
    out = [0.0] * size
    for row in reversed(range(size)):
        out[row] = (a[row][size] - sum(a[row][k] * out[k] for k in range(row + 1, size))) / a[row][row]
    return out


def _half_step(
    data: Sequence[Sequence[float | None]], fixed: list[list[float]], ridge: float, rank: int, by_row: bool
) -> list[list[float]]:
    """One ALS half-sweep: each row (by_row) or column of the data solved against the fixed factors."""
    count = len(data) if by_row else len(data[0])
    out = []
    for a in range(count):
        gram = [[ridge if p == q else 0.0 for q in range(rank)] for p in range(rank)]
        rhs = [0.0] * rank
        cells = data[a] if by_row else [row[a] for row in data]
        for b, value in enumerate(cells):
            if value is None:
                continue
            factor = fixed[b]
            for p in range(rank):
                rhs[p] += value * factor[p]
                for q in range(rank):
                    gram[p][q] += factor[p] * factor[q]
        out.append(_solve(gram, rhs))
    return out


def fit_member(
    data: Sequence[Sequence[float | None]], u: list[list[float]], v: list[list[float]], *, ridge: float, sweeps: int
) -> Matrix:
    """One member's ALS from initial factors *u* (K x r) and *v* (L x r) on *data* (None = left out): U V^T.

    Each sweep solves V given U, then U given V (ridge *ridge*).

    >>> fit_member([[1.0, None], [None, 1.0]], [[1.0], [1.0]], [[1.0], [1.0]], ridge=0.0, sweeps=1)
    ((1.0, 1.0), (1.0, 1.0))
    """
    rank = len(u[0])
    for _ in range(sweeps):
        v = _half_step(data, u, ridge, rank, by_row=False)
        u = _half_step(data, v, ridge, rank, by_row=True)
    return tuple(tuple(sum(ui[p] * vj[p] for p in range(rank)) for vj in v) for ui in u)


def fit_members(
    datas: Sequence[Sequence[Sequence[float | None]]],
    us: Sequence[list[list[float]]],
    vs: Sequence[list[list[float]]],
    *,
    ridge: float,
    sweeps: int,
) -> list[Matrix]:
    """Member c fitted to ``datas[c]`` from ``us[c]`` and ``vs[c]``, for every c (never mixing members).

    >>> fit_members([[[1.0]], [[0.5]]], [[[1.0]], [[1.0]]], [[[1.0]], [[1.0]]], ridge=0.0, sweeps=2)
    [((1.0,),), ((0.5,),)]
    """
    return [fit_member(d, u, v, ridge=ridge, sweeps=sweeps) for d, u, v in zip(datas, us, vs, strict=True)]


def fit_ensemble(
    scores: Sequence[Sequence[float | None]],
    seed: int,
    fit: int,
    *,
    rank: int = 1,
    members: int = 64,
    dropout: float = 0.05,
    ridge: float = 0.1,
    sweeps: int = 10,
    ddof: int = 1,
) -> Ensemble:
    """Fit the ensemble of rank-*rank* ALS factorizations to the observed *scores* (None = not observed).

    Fit number *fit* of the run seeded *seed* (its random numbers are those
    of the module's stream at (fit, member, position)). Member c's data is
    the observed cells less those its dropout gaps land on; member c
    is fitted to its own data from its own initial factors, never to another
    member's.

    A fully observed rank-1 matrix and no dropout: every member reproduces it.

    >>> ens = fit_ensemble([[0.5, 0.25], [1.0, 0.5]], seed=1, fit=0, members=3, dropout=0.0, ridge=1e-12, sweeps=30)
    >>> [[round(x, 6) for x in row] for row in ens.mean], max(max(row) for row in ens.spread) < 1e-6
    ([[0.5, 0.25], [1.0, 0.5]], True)
    """
    n_models, n_queries = len(scores), len(scores[0])
    cells = n_models * n_queries
    block = cells + 1 + 2 * (n_models + n_queries) * rank
    seen = [i * n_queries + j for i, row in enumerate(scores) for j, value in enumerate(row) if value is not None]
    table = dropout_table(dropout)
    datas: list[list[list[float | None]]] = []
    us: list[list[list[float]]] = []
    vs: list[list[list[float]]] = []
    for member in range(members):
        base = block * (member + members * fit)
        data = [list(row) for row in scores]
        for number in dropped_ranks(seed, base, len(seen), table):
            data[seen[number] // n_queries][seen[number] % n_queries] = None
        start = base + cells + 1
        u = [[_normal(seed, start + 2 * (i * rank + p)) for p in range(rank)] for i in range(n_models)]
        start += 2 * n_models * rank
        v = [[_normal(seed, start + 2 * (j * rank + p)) for p in range(rank)] for j in range(n_queries)]
        datas.append(data)
        us.append(u)
        vs.append(v)
    fitted = fit_members(datas, us, vs, ridge=ridge, sweeps=sweeps)
    mean = tuple(tuple(sum(m[i][j] for m in fitted) / members for j in range(n_queries)) for i in range(n_models))
    spread = tuple(
        tuple(
            math.sqrt(sum(_square(m[i][j] - mean[i][j]) for m in fitted) / (members - ddof)) if members > ddof else 0.0
            for j in range(n_queries)
        )
        for i in range(n_models)
    )
    return Ensemble(mean, spread, tuple(fitted))
