/* The draws of a simulation: numpy's Generator.permutation on PCG64, bit for bit (sysrs_ref.fast._batch). */
#include "common.h"

/*
 * PCG64 (XSL-RR 128/64, as numpy's): state = state * MULTIPLIER + increment (mod 2^128), then the output is the
 * rotated xor of the new state's halves. numpy hands out 32-bit draws as the low, then the high half of one
 * output, and shuffles by masked rejection from the last position down: position i swaps with the first draw d
 * for which d & mask <= i, mask the smallest 2^k - 1 >= i. Draws are made a block ahead by two interleaved chains
 * (each two steps at a time: state * MULTIPLIER^2 + increment * (MULTIPLIER + 1)); each row's swap partners are
 * found first by a loop with no branch a draw, and the swaps made after.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3")
#endif

typedef unsigned __int128 u128;
#define MULTIPLIER (((u128)0x2360ED051FC65DA4ULL << 64) | 0x4385DF649FCCF645ULL)
/* Draws made at a time (a multiple of 4), plus the slot of a buffered half. */
#define BLOCK 8192

static inline uint64_t pcg_output(u128 state) {
    uint64_t high = (uint64_t)(state >> 64), mixed = high ^ (uint64_t)state;
    unsigned rotation = (unsigned)(high >> 58);
    return (mixed >> rotation) | (mixed << ((64 - rotation) & 63));
}

typedef struct {
    u128 odd, even, increment2, square;
} chains_t;

static inline __attribute__((always_inline)) void fill(uint32_t *draws, chains_t *chains) {
    u128 odd = chains->odd, even = chains->even;
    for (uint64_t slot = 1; slot < BLOCK + 1; slot += 4) {
        uint64_t first = pcg_output(odd), second = pcg_output(even);
        draws[slot] = (uint32_t)first;
        draws[slot + 1] = (uint32_t)(first >> 32);
        draws[slot + 2] = (uint32_t)second;
        draws[slot + 3] = (uint32_t)(second >> 32);
        odd = odd * chains->square + chains->increment2;
        even = even * chains->square + chains->increment2;
    }
    chains->odd = odd;
    chains->even = even;
}

/* rows[r] = generator.permutation(n) in turn, from draws[place:] on; the next place. */
static inline __attribute__((always_inline)) uint64_t shuffle(int32_t *rows, int64_t n_rows, int64_t n, uint32_t *draws, chains_t *chains, uint64_t place,
                        int64_t *partners) {
    for (int64_t r = 0; r < n_rows; r++) {
        int32_t *row = rows + r * n;
        for (int64_t index = 0; index < n; index++) row[index] = (int32_t)index;
        if (n < 2) continue;
        uint64_t mask = (uint64_t)(n - 1);
        for (int shift = 1; shift <= 32; shift <<= 1) mask |= mask >> shift;
        int64_t index = n - 1;
        while (index > 0) {
            if (place == BLOCK + 1) {
                fill(draws, chains);
                place = 1;
            }
            int64_t half = (int64_t)(mask >> 1);
            uint32_t low = (uint32_t)mask;
            while (index > half && place < BLOCK + 1) {
                int64_t value = (int64_t)(draws[place++] & low);
                partners[index] = value; /* a rejected draw is overwritten by the next */
                index -= value <= index;
            }
            if (index <= half) mask = (uint64_t)half;
        }
        for (int64_t at = n - 1; at > 0; at--) {
            int64_t other = partners[at];
            int32_t kept = row[at];
            row[at] = row[other];
            row[other] = kept;
        }
    }
    return place;
}

/*
 * Run r: priority[r] = permutation(K), then each of orders[r]'s count rows a permutation(L), from states[r]:
 * PCG64's (state high, low, increment high, low, has_uint32, uinteger). Returns -1 when memory runs out.
 */
EXPORT int permutations(const uint64_t *states, int64_t n_runs, int32_t *priority, int64_t n_models, int32_t *orders,
                        int64_t count, int64_t n_queries) {
    uint32_t *draws = malloc((BLOCK + 1) * sizeof(uint32_t));
    int64_t *partners = malloc((n_models > n_queries ? n_models : n_queries) * sizeof(int64_t));
    if (!draws || !partners) {
        free(draws);
        free(partners);
        return -1;
    }
    for (int64_t run = 0; run < n_runs; run++) {
        const uint64_t *s = states + run * 6;
        u128 state = ((u128)s[0] << 64) | s[1], increment = ((u128)s[2] << 64) | s[3];
        chains_t chains;
        chains.square = MULTIPLIER * MULTIPLIER;
        chains.increment2 = increment * (MULTIPLIER + 1);
        chains.odd = state * MULTIPLIER + increment;
        chains.even = chains.odd * MULTIPLIER + increment;
        fill(draws, &chains);
        uint64_t place = 1;
        if (s[4] != 0) { /* numpy's buffered high half comes first */
            draws[0] = (uint32_t)s[5];
            place = 0;
        }
        place = shuffle(priority + run * n_models, 1, n_models, draws, &chains, place, partners);
        shuffle(orders + run * count * n_queries, count, n_queries, draws, &chains, place, partners);
    }
    free(draws);
    free(partners);
    return 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* ------------------------------------------------------------------------------------------------------------ */
