/*
 * What every source of the compiled passes shares (sysrs_ref.fast.compiled; loaded with ctypes by
 * sysrs_ref/fast/_native.py, which checks every array before it calls in).
 *
 * Each pass computes exactly what the numpy pass it replaces computes, with the same float operations in the
 * same order: pyproject.toml builds with -ffp-contract=off (no fused multiply-adds) and without -ffast-math.
 * Positions are unsigned or provably non-negative in the hot loops; integer scores are summed in int64 (exact:
 * the callers check that every sum fits), float scores in double, left to right.
 */
#ifndef SYSRS_NATIVE_COMMON_H
#define SYSRS_NATIVE_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

/* Integer passes that vectorize (the eliminations) are also built for x86-64 processors with AVX2, and the
 * processor picks at load time (GCC on Linux; the integer results are the same either way). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTORIZED __attribute__((target_clones("avx2", "default")))
#else
#define VECTORIZED
#endif

/* Band arms (arms with keys at theta) a cut's summary lists (ucb_select); a cut with more is rescanned. */
#define BAND 16

/* Template names: NAME(ucb_keys_) is ucb_keys_<SUFFIX> in the .inc files, included once per dtype. */
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define NAME(base) CONCAT(base, SUFFIX)

/* The mean of an index (sysrs_ref.fast._ucb_exact.float_means): divided where sqrt(a/N) is rational (divisor
 * nonzero), else times the float reciprocal. */
static inline double index_mean(double total, uint64_t position, const double *inverse, const double *divisors) {
    double divisor = divisors[position];
    return divisor != 0.0 ? total / divisor : total * inverse[position];
}

/*
 * The exact sum of a model's first count numerators along its order (row: the model's row of the K x stride
 * numerators; order: its query order), for the exact decisions on float scores (the UCB cut, the SR eliminations).
 * Only when every numerator fits in int64 (a denominator below 2^63, sysrs_ref.fast.ScoreTable.numerators64): then
 * a sum of fewer than 2^64 terms, each below 2^63, stays below 2^127.
 */
static inline __int128 exact_sum(const int64_t *row, const int32_t *order, int64_t count) {
    __int128 total = 0;
    for (int64_t position = 0; position < count; position++) total += row[order[position]];
    return total;
}

#endif
