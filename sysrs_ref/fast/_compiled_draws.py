"""The compiled (numba) draws: numpy's ``Generator.permutation`` on PCG64, bit for bit, in about 4 ns an element.

Imported only through :mod:`sysrs_ref.fast._compiled_passes` (and so through
:mod:`sysrs_ref.fast.compiled`), never directly: numba is optional.

PCG64 (O'Neill's XSL-RR 128/64, as numpy's ``_pcg64``): state = state *
MULTIPLIER + increment (mod 2^128), then the output is the rotated xor of the
new state's halves. numpy hands out 32-bit draws as the low, then the high half
of one output, and shuffles by masked rejection (``random_interval``) from the
last position down: position i swaps with the first draw d for which
``d & mask <= i``, mask the smallest 2^k - 1 >= i.

Three things make this faster than numpy, and none changes a number:

- the draws are made ahead, a block at a time, by two interleaved chains
  (steps 1, 3, 5, ... and 2, 4, 6, ...; each advances two steps at once,
  state * MULTIPLIER^2 + increment * (MULTIPLIER + 1)), so two multiplies are in
  flight instead of one; each step is one 128-bit multiply-add, which the
  compiler makes three machine multiplies;
- the positions are found first, without a branch: a step takes one draw,
  records it as position i's partner, and moves i down only when it is
  accepted (a rejected one is overwritten by the next), so the processor never
  guesses (and mispredicts) whether a draw is accepted;
- the swaps come after, in a loop of their own that no acceptance test holds up.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic

__all__ = ["permutations"]

_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
_MULTIPLIER_HIGH, _MULTIPLIER_LOW = np.uint64(_MULTIPLIER >> 64), np.uint64(_MULTIPLIER & (2**64 - 1))
_SQUARE = _MULTIPLIER * _MULTIPLIER % 2**128
_SQUARE_HIGH, _SQUARE_LOW = np.uint64(_SQUARE >> 64), np.uint64(_SQUARE & (2**64 - 1))
_LOW32 = np.uint64(0xFFFFFFFF)
_ZERO, _ONE, _SIXTY_THREE = np.uint64(0), np.uint64(1), np.uint64(63)
_THIRTY_TWO, _FIFTY_EIGHT, _SIXTY_FOUR = np.uint64(32), np.uint64(58), np.uint64(64)
#: Draws made at a time (even, so that the two chains keep alternating), plus the slot of a buffered half.
_BLOCK = 8192


@intrinsic
def _step(typingctx, high, low, times_high, times_low, plus_high, plus_low):
    """(high, low) * (times_high, times_low) + (plus_high, plus_low) modulo 2^128, in 128-bit integers."""
    signature = types.UniTuple(types.uint64, 2)(*(types.uint64,) * 6)

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)

        def join(high, low):
            return builder.or_(builder.shl(builder.zext(high, wide), ir.Constant(wide, 64)), builder.zext(low, wide))

        state = builder.add(builder.mul(join(args[0], args[1]), join(args[2], args[3])), join(args[4], args[5]))
        new_high = builder.trunc(builder.lshr(state, ir.Constant(wide, 64)), ir.IntType(64))
        return context.make_tuple(builder, sig.return_type, [new_high, builder.trunc(state, ir.IntType(64))])

    return signature, codegen


@njit(inline="always")
def _output(high, low):
    """PCG64's output of the state (high, low): XSL-RR."""
    mixed = high ^ low
    rotation = high >> _FIFTY_EIGHT
    return (mixed >> rotation) | (mixed << ((_SIXTY_FOUR - rotation) & _SIXTY_THREE))


@njit(cache=True, nogil=True)
def _fill(draws, chains):
    """``draws[1:]``: the next draws of the stream, from *chains* (A high, A low, B high, B low, C high, C low).

    Chain A holds the next odd step's state, B the next even step's; both
    advance two steps at once by ``state * MULTIPLIER^2 + C``.
    """
    a_high, a_low, b_high, b_low = chains[0], chains[1], chains[2], chains[3]
    c_high, c_low = chains[4], chains[5]
    for block in range(np.uint64((draws.shape[0] - 1) // 4)):
        slot = _ONE + np.uint64(4) * np.uint64(block)  # unsigned: no negative-index fix-up in the loop
        first = _output(a_high, a_low)
        second = _output(b_high, b_low)
        draws[slot] = np.uint32(first & _LOW32)
        draws[slot + _ONE] = np.uint32(first >> _THIRTY_TWO)
        draws[slot + np.uint64(2)] = np.uint32(second & _LOW32)
        draws[slot + np.uint64(3)] = np.uint32(second >> _THIRTY_TWO)
        a_high, a_low = _step(a_high, a_low, _SQUARE_HIGH, _SQUARE_LOW, c_high, c_low)
        b_high, b_low = _step(b_high, b_low, _SQUARE_HIGH, _SQUARE_LOW, c_high, c_low)
    chains[0], chains[1], chains[2], chains[3] = a_high, a_low, b_high, b_low


@njit(cache=True, nogil=True)
def _shuffle(rows, draws, chains, place, partners):
    """Each row of *rows* = ``generator.permutation(n)`` in turn, from ``draws[place:]`` on; the next place.

    *partners* (at least n long) receives position i's swap partner, the first
    accepted draw for i, for i = n - 1 down to 1; the swaps are then made in
    that order, as numpy's Fisher-Yates shuffle makes them.
    """
    end = draws.shape[0]
    for row in rows:
        n = row.shape[0]
        for index in range(n):
            row[index] = index
        if n < 2:
            continue
        mask = np.uint64(n - 1)
        for shift in (1, 2, 4, 8, 16, 32):
            mask |= mask >> np.uint64(shift)
        index = np.int64(n - 1)
        while index > 0:
            if place == end:
                _fill(draws, chains)
                place = 1
            half = np.int64(mask >> _ONE)
            low = np.uint32(mask)
            while index > half and place < end:
                value = np.int64(draws[place] & low)
                place += 1
                partners[index] = value  # a rejected draw is overwritten by the next
                index -= np.int64(value <= index)
            if index <= half:
                mask = np.uint64(half)
        for index in range(n - 1, 0, -1):
            other = partners[index]
            kept = row[index]
            row[index] = row[other]
            row[other] = kept
    return place


@njit(cache=True, nogil=True)
def permutations(states, priority, orders):
    """Run r: ``priority[r] = permutation(K)``, then each row of ``orders[r]`` a ``permutation(L)``, from ``states[r]``.

    ``states[r]`` is PCG64's (state high, state low, increment high, increment
    low, has_uint32, uinteger); it is not changed.
    """
    draws = np.empty(_BLOCK + 1, dtype=np.uint32)
    partners = np.empty(max(priority.shape[1], orders.shape[2]), dtype=np.int64)
    chains = np.empty(6, dtype=np.uint64)
    for run in range(states.shape[0]):
        high, low, increment_high, increment_low = states[run, 0], states[run, 1], states[run, 2], states[run, 3]
        step_low = _MULTIPLIER_LOW + _ONE  # C = increment * (MULTIPLIER + 1), no carry out of the low half
        chains[4], chains[5] = _step(increment_high, increment_low, _MULTIPLIER_HIGH, step_low, _ZERO, _ZERO)
        chains[0], chains[1] = _step(high, low, _MULTIPLIER_HIGH, _MULTIPLIER_LOW, increment_high, increment_low)
        chains[2], chains[3] = _step(
            chains[0], chains[1], _MULTIPLIER_HIGH, _MULTIPLIER_LOW, increment_high, increment_low
        )
        _fill(draws, chains)
        place = 1
        if states[run, 4] != 0:  # numpy's buffered high half comes first
            draws[0] = np.uint32(states[run, 5] & _LOW32)
            place = 0
        place = _shuffle(priority[run : run + 1], draws, chains, place, partners)
        _shuffle(orders[run], draws, chains, place, partners)
