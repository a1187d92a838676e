/*
 * The fixed-order elementwise functions (sysrs_ref._fixed_order: exp, log, log1p, sigmoid), the same doubles: each
 * element goes through the operations numpy's block applies to it, in the same order, each rounded once (no fused
 * multiply-adds: pyproject.toml builds with -ffp-contract=off, and without -ffast-math). The constants (the table
 * of 2^(j/64), ln(2)/64 split in two) are numpy's, passed in by sysrs_ref/fast/_compiled.py, which checks once per
 * process that these loops give numpy's very bits (it falls back to numpy otherwise).
 */
#include "common.h"

#define EXP_MAX 709.782712893384   /* above: inf */
#define EXP_MIN -745.1332191019412 /* below: 0 */
#define EXP_SCALE 92.33248261689366 /* 64 / ln 2 */
#define SQRT_HALF 0.7071067811865476
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10

/* The constants numpy's loop uses: table[64] = 2^(j/64), then step_hi, step_lo, then the expm1 polynomial's four
 * coefficients (1/120, 1/24, 1/6, 1/2) and the log series' twelve (1/23, 1/21, ..., 1). */
#define N_CONSTANTS (64 + 2 + 4 + 12)

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
 * value ldexp gives there), else ldexp; inf above EXP_MAX, 0 below EXP_MIN, NaN for NaN. */
PASSES static void exp_chunk(const double *restrict values, double *restrict out, int64_t n, const double *restrict c) {
    const double *table = c, step_hi = c[64], step_lo = c[65], *poly = c + 66;
    double r[CHUNK];
    int64_t whole[CHUNK];
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        x = (x >= EXP_MIN && x <= EXP_MAX) ? x : 0.0; /* outside (or NaN): set below */
        double m = round_half_even(x * EXP_SCALE);
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
        if (!(x >= EXP_MIN && x <= EXP_MAX)) out[i] = isnan(x) ? NAN : (x > EXP_MAX ? INFINITY : 0.0);
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
    const double *coeffs = c + 70;
    double s[CHUNK], ef[CHUNK];
    for (int64_t i = 0; i < n; i++) {
        double x = values[i];
        double safe = (isfinite(x) && x > 0.0) ? x : 1.0;
        int64_t e;
        double m = fraction_exponent(safe, &e);
        if (m < SQRT_HALF) {
            m = 2.0 * m;
            e = e - 1;
        }
        ef[i] = (double)e;
        s[i] = (m - 1.0) / (m + 1.0);
    }
    for (int64_t i = 0; i < n; i++) {
        double si = s[i], s2 = si * si, series = coeffs[0];
        for (int j = 1; j < 12; j++) series = series * s2 + coeffs[j];
        out[i] = ef[i] * LN2_HI + (ef[i] * LN2_LO + 2.0 * si * series);
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
