/*
 * The fixed-order elementwise functions (sysrs_ref._fixed_order: exp, log, log1p, sigmoid), the same doubles: each
 * element goes through the operations numpy's block applies to it, in the same order, each rounded once (no fused
 * multiply-adds: pyproject.toml builds with -ffp-contract=off, and without -ffast-math). Every constant is numpy's,
 * passed in (sysrs_ref._fixed_order.elementwise_constants), and sysrs_ref/fast/_compiled.py checks once per process
 * that these loops give numpy's very bits (it falls back to numpy otherwise).
 */
#include "common.h"

/* Where each constant is in `c` (N_CONSTANTS doubles, in elementwise_constants' order): the table of 2^(j/64), ln(2)/64
 * split in two, the expm1 polynomial's four coefficients and the log series' twelve (highest degree first), exp's
 * range (above EXP_MAX: inf, below EXP_MIN: 0), 64 / ln 2, sqrt(1/2) and ln 2 split in two. */
enum { TABLE = 0, STEP_HI = 64, STEP_LO, POLY, LOG_COEFFS = POLY + 4, EXP_MAX = LOG_COEFFS + 12, EXP_MIN, EXP_SCALE,
       SQRT_HALF, LN2_HI, LN2_LO, N_CONSTANTS };

/* Elements a chunk: each pass below is a short, simple loop over a chunk, with independent iterations and no calls,
 * which the compiler vectorizes (PASSES); one loop doing every step of each element in turn would not be. */
#define CHUNK 256

/* The chunk passes are vectorized where the compiler can (GCC: each lane does the scalar operations, so the doubles
 * are the same), and built for AVX2 as well, which the processor picks at load time (VECTORIZED, common.h). */
#if defined(__GNUC__) && !defined(__clang__)
#define PASSES __attribute__((optimize("tree-vectorize"))) VECTORIZED
#else
#define PASSES
#endif

/* rint(y) for |y| < 2^51 in the default rounding mode (to nearest, ties to even), without a call: adding 1.5 2^52
 * rounds y to an integer, and subtracting it again is exact (IEEE semantics: without -ffast-math the compiler keeps
 * both). Only the sign of a zero can differ from rint's (+0 for -0), and exp gives the same double for either: r is x
 * itself (a zero of either sign at x = -0, where the result is the table's 1), as n = +-0 subtracts a zero. */
static inline double round_half_even(double y) {
    const double shift = 6755399441055744.0; /* 1.5 2^52 */
    return (y + shift) - shift;
}

/* e^x for a chunk of n <= CHUNK values: p 2^k, with 2^k built from its bits where it is a normal double (the very
 * value ldexp gives there), else ldexp; inf above exp's range, 0 below it, NaN for NaN. */
PASSES static void exp_chunk(const double *restrict values, double *restrict out, int64_t n, const double *restrict c) {
    const double *table = c + TABLE, step_hi = c[STEP_HI], step_lo = c[STEP_LO], *poly = c + POLY;
    const double high = c[EXP_MAX], low = c[EXP_MIN], scale = c[EXP_SCALE];
    double r[CHUNK];
    int64_t whole[CHUNK];
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        x = (x >= low && x <= high) ? x : 0.0; /* outside (or NaN): set below */
        double m = round_half_even(x * scale);
        whole[i] = (int64_t)m;
        double t = x - m * step_hi;
        r[i] = t - m * step_lo;
    }
    for (int64_t i = 0; i < n; i++) {
        double ri = r[i], p = poly[0];
        p = p * ri + poly[1];
        p = p * ri + poly[2];
        p = p * ri + poly[3];
        p = p * ri;
        p = p * ri;
        out[i] = p + ri; /* e^r - 1 */
    }
    for (int64_t i = 0; i < n; i++) {
        double t = table[whole[i] & 63];
        double p = out[i] * t + t;
        int64_t k = whole[i] >> 6; /* arithmetic: floor(whole / 64), as numpy's right_shift */
        if (k >= -1022 && k <= 1023) {
            uint64_t bits = (uint64_t)(k + 1023) << 52;
            double scale;
            memcpy(&scale, &bits, sizeof scale);
            out[i] = p * scale;
        } else {
            out[i] = ldexp(p, (int)k);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        if (!(x >= low && x <= high)) out[i] = isnan(x) ? NAN : (x > high ? INFINITY : 0.0);
    }
}

/* frexp for a positive normal x (from its bits), frexp itself for anything else. */
static inline double fraction_exponent(double x, int64_t *e) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t biased = (bits >> 52) & 0x7ff;
    if (biased == 0 || biased == 0x7ff) {
        int exponent;
        double m = frexp(x, &exponent);
        *e = exponent;
        return m;
    }
    *e = (int64_t)biased - 1022;
    bits = (bits & UINT64_C(0x800fffffffffffff)) | (UINT64_C(1022) << 52); /* the fraction, in [1/2, 1) */
    double m;
    memcpy(&m, &bits, sizeof m);
    return m;
}

/* log(x) for a chunk of n <= CHUNK values: -inf at 0, inf at inf, NaN below 0 and for NaN. */
PASSES static void log_chunk(const double *restrict values, double *restrict out, int64_t n, const double *restrict c) {
    const double *coeffs = c + LOG_COEFFS, sqrt_half = c[SQRT_HALF], ln2_hi = c[LN2_HI], ln2_lo = c[LN2_LO];
    double s[CHUNK], ef[CHUNK];
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        double safe = (isfinite(x) && x > 0.0) ? x : 1.0;
        int64_t e;
        double m = fraction_exponent(safe, &e);
        if (m < sqrt_half) {
            m = 2.0 * m;
            e = e - 1;
        }
        ef[i] = (double)e;
        s[i] = (m - 1.0) / (m + 1.0);
    }
    for (int64_t i = 0; i < n; i++) {
        double si = s[i], s2 = si * si, series = coeffs[0];
        for (int j = 1; j < 12; j++) series = series * s2 + coeffs[j];
        out[i] = ef[i] * ln2_hi + (ef[i] * ln2_lo + 2.0 * si * series);
    }
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        if (!(isfinite(x) && x > 0.0)) out[i] = x == 0.0 ? -INFINITY : (x == INFINITY ? INFINITY : NAN);
    }
}

/* Each writes f(values[i]) into out[i] for i < n, chunk by chunk; `constants` holds N_CONSTANTS doubles (above). */
EXPORT void fixed_exp(const double *values, double *out, int64_t n, const double *constants) {
    for (int64_t begin = 0; begin < n; begin += CHUNK)
        exp_chunk(values + begin, out + begin, n - begin < CHUNK ? n - begin : CHUNK, constants);
}

EXPORT void fixed_log(const double *values, double *out, int64_t n, const double *constants) {
    for (int64_t begin = 0; begin < n; begin += CHUNK)
        log_chunk(values + begin, out + begin, n - begin < CHUNK ? n - begin : CHUNK, constants);
}

/* log(u) x / (u - 1) with u = 1 + x, and x itself where u - 1 is 0 (numpy's _log1p_block). */
EXPORT PASSES void fixed_log1p(const double *values, double *out, int64_t n, const double *constants) {
    double u[CHUNK];
    for (int64_t begin = 0; begin < n; begin += CHUNK) {
        int64_t size = n - begin < CHUNK ? n - begin : CHUNK;
        const double *x = values + begin;
        double *o = out + begin;
        for (int64_t i = 0; i < size; i++) u[i] = 1.0 + x[i];
        log_chunk(u, o, size, constants);
        for (int64_t i = 0; i < size; i++) {
            double shifted = u[i] - 1.0;
            o[i] = shifted == 0.0 ? x[i] : o[i] * (x[i] / shifted);
        }
    }
}

/* 1 / (1 + e^-z) (numpy's _sigmoid_block: exp of -z, plus 1, reciprocal). */
EXPORT PASSES void fixed_sigmoid(const double *values, double *out, int64_t n, const double *constants) {
    double negated[CHUNK];
    for (int64_t begin = 0; begin < n; begin += CHUNK) {
        int64_t size = n - begin < CHUNK ? n - begin : CHUNK;
        for (int64_t i = 0; i < size; i++) negated[i] = -values[begin + i];
        exp_chunk(negated, out + begin, size, constants);
        for (int64_t i = 0; i < size; i++) out[begin + i] = 1.0 / (out[begin + i] + 1.0);
    }
}
