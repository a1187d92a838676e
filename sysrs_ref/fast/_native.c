/*
 * The compiled passes of the fast paths (sysrs_ref.fast.compiled), in C.
 *
 * Loaded with ctypes by sysrs_ref/fast/_native.py, which checks every array
 * (dtype, shape, C order) before it calls in; nothing here is called directly.
 * Each function computes exactly what the numpy passes it replaces compute, with
 * the same float operations in the same order: build with -ffp-contract=off (no
 * fused multiply-adds) and without -ffast-math, as pyproject.toml does. The tests
 * compare every pass with numpy, array for array (tests/test_compiled*.py).
 *
 * Positions are unsigned or provably non-negative in the hot loops; integer
 * scores are summed in int64 (exact: the callers check that every sum fits) and
 * float scores in double, left to right.
 *
 * Built as a Python extension module only so that setuptools compiles it; the
 * module itself is empty.
 */
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

/* The eliminations' masked passes are also built for x86-64 processors with AVX2, and the processor picks at load
 * time (GCC on Linux; integer results, the same either way). Everything else is built once, for the baseline. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTORIZED __attribute__((target_clones("avx2", "default")))
#else
#define VECTORIZED
#endif


/* ------------------------------------------------------------------------------------------------------------ */
/* UCB-E / SyUCB-E keys (sysrs_ref.fast.ucb_runs.Runs, ucb_exact.float_means)                                     */
/* ------------------------------------------------------------------------------------------------------------ */

/* The mean of an index: divided where sqrt(a/N) is rational (divisor nonzero), else times the reciprocal. */
static inline double index_mean(double total, uint64_t position, const double *inverse, const double *divisors) {
    double divisor = divisors[position];
    return divisor != 0.0 ? total / divisor : total * inverse[position];
}

/* Positions made between two looks at the floor (a loop without an exit in every step runs faster). */
#define STRIDE 64
/* Lowerings of the floor before ucb_keys_upto makes the remaining rows whole. */
#define LOWERINGS 40

/*
 * One row (of width W = L - 1 keys, L sums) from position start on, until a key falls below floor (looked at
 * every STRIDE positions) or the row ends; returns the row's length. out[N-1] = P(N) left to right; key[N-1] =
 * the running minimum of the indices; a row made to its end also gets out[L-1].
 */
#define DEFINE_KEYS(SUFFIX, VT, ST, AT)                                                                            \
    static int64_t extend_##SUFFIX(const VT *row, const int32_t *order, const double *inverse,                    \
                                   const double *divisors, const double *roots, ST *out, double *key, int64_t width, \
                                   int64_t start, double floor) {                                                  \
        AT total;                                                                                                  \
        double lowest;                                                                                             \
        uint64_t position;                                                                                         \
        if (start > 0 && key[start - 1] < floor) return start;                                                     \
        if (start == 0) {                                                                                          \
            out[0] = (ST)row[order[0]];                                                                            \
            total = (AT)out[0];                                                                                    \
            lowest = index_mean((double)total, 0, inverse, divisors) + roots[0];                                   \
            key[0] = lowest;                                                                                       \
            position = 1;                                                                                          \
        } else {                                                                                                   \
            total = (AT)out[start - 1];                                                                            \
            lowest = key[start - 1];                                                                               \
            position = (uint64_t)start;                                                                            \
        }                                                                                                          \
        while (position < (uint64_t)width && !(lowest < floor)) {                                                 \
            uint64_t stop = position + STRIDE < (uint64_t)width ? position + STRIDE : (uint64_t)width;             \
            for (uint64_t at = position; at < stop; at++) {                                                        \
                total += (AT)row[(uint32_t)order[at]];                                                             \
                out[at] = (ST)total;                                                                               \
                double index = index_mean((double)total, at, inverse, divisors) + roots[at];                       \
                if (index < lowest) lowest = index;                                                                \
                key[at] = lowest;                                                                                  \
            }                                                                                                      \
            position = stop;                                                                                       \
        }                                                                                                          \
        if (position == (uint64_t)width && start < width) out[width] = (ST)(total + (AT)row[order[width]]);        \
        return (int64_t)position;                                                                                  \
    }                                                                                                              \
                                                                                                                   \
    EXPORT void ucb_keys_##SUFFIX(const VT *values, int64_t n_models, int64_t stride, const int32_t *orders,        \
                                  int64_t n_runs, int64_t n_rows, int64_t length, const double *inverse,           \
                                  const double *divisors, const double *roots, ST *prefix, double *keys) {         \
        int64_t width = length - 1;                                                                                \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            for (int64_t model = 0; model < n_models; model++) {                                                   \
                const int32_t *order = orders + (run * n_rows + (n_rows == 1 ? 0 : model)) * length;               \
                const VT *row = values + model * stride;                                                           \
                ST *out = prefix + (run * n_models + model) * length;                                              \
                if (width == 0) { /* one query: no key, the sum alone */                                           \
                    out[0] = (ST)row[order[0]];                                                                    \
                    continue;                                                                                      \
                }                                                                                                  \
                extend_##SUFFIX(row, order, inverse, divisors, roots, out, keys + (run * n_models + model) * width, \
                                width, 0, -INFINITY);                                                              \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
                                                                                                                   \
    EXPORT void ucb_keys_upto_##SUFFIX(const VT *values, int64_t n_models, int64_t stride, const int32_t *orders,   \
                                       int64_t n_runs, int64_t n_rows, int64_t length, const double *inverse,      \
                                       const double *divisors, const double *roots, ST *prefix, double *keys,      \
                                       int64_t needed, double guess, double step, int64_t *stops) {                \
        int64_t width = length - 1;                                                                                \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            double floor = guess;                                                                                  \
            double delta = step > 0 ? 0.25 * step : (fabs(guess) > 1.0 ? fabs(guess) : 1.0) * 0x1p-20;            \
            int64_t *lengths = stops + run * n_models;                                                             \
            for (int64_t model = 0; model < n_models; model++) lengths[model] = 0;                                 \
            for (int lowering = 0; lowering <= LOWERINGS; lowering++) {                                            \
                if (lowering == LOWERINGS) floor = -INFINITY;                                                      \
                int64_t count = 0; /* keys >= floor */                                                             \
                for (int64_t model = 0; model < n_models; model++) {                                               \
                    const int32_t *order = orders + (run * n_rows + (n_rows == 1 ? 0 : model)) * length;           \
                    double *key = keys + (run * n_models + model) * width;                                         \
                    int64_t stop = extend_##SUFFIX(values + model * stride, order, inverse, divisors, roots,       \
                                                   prefix + (run * n_models + model) * length, key, width,         \
                                                   lengths[model], floor);                                         \
                    lengths[model] = stop;                                                                         \
                    while (stop > 0 && key[stop - 1] < floor) stop--; /* fewer than STRIDE keys */                 \
                    count += stop;                                                                                 \
                }                                                                                                  \
                if (count >= needed) break;                                                                        \
                floor -= delta;                                                                                    \
                delta *= 2.0;                                                                                      \
            }                                                                                                      \
        }                                                                                                          \
    }

DEFINE_KEYS(i8_i32, int8_t, int32_t, int64_t)
DEFINE_KEYS(i16_i32, int16_t, int32_t, int64_t)
DEFINE_KEYS(i32_i32, int32_t, int32_t, int64_t)
DEFINE_KEYS(i64_i32, int64_t, int32_t, int64_t)
DEFINE_KEYS(i8_i64, int8_t, int64_t, int64_t)
DEFINE_KEYS(i16_i64, int16_t, int64_t, int64_t)
DEFINE_KEYS(i32_i64, int32_t, int64_t, int64_t)
DEFINE_KEYS(i64_i64, int64_t, int64_t, int64_t)
DEFINE_KEYS(f64_f64, double, double, double)

/* ------------------------------------------------------------------------------------------------------------ */
/* UCB-E / SyUCB-E order statistics (sysrs_ref.fast.ucb._order_statistics)                                       */
/* ------------------------------------------------------------------------------------------------------------ */

/* Bins of the binned first bracket (many budgets): about K W / 4096 keys in each. */
#define BINS 4096

/* The bin of a key: floor((value - lowest) * scale), at most BINS - 1; nondecreasing in the value. */
static inline int64_t bin_of(double value, double lowest, double scale) {
    double at = (value - lowest) * scale;
    if (!(at > 0.0)) return 0; /* also NaN, from infinite keys: all in bin 0 (scale is then 0) */
    return at >= BINS - 1 ? BINS - 1 : (int64_t)at;
}

/* at_least[j] = keys of the run's rows (row i's first lengths[i]) in bins >= j; the bins span the previous
 * thetas (guess) and a quarter of their range either side, or the keys' whole range without guesses. */
static void histogram(const double *rows, int64_t n_models, int64_t width, const int64_t *lengths,
                      const double *guess, int64_t n_budgets, int64_t *at_least, double *lowest_out,
                      double *scale_out) {
    double lowest = rows[lengths[0] - 1], highest = rows[0];
    for (int64_t model = 1; model < n_models; model++) {
        double last = rows[model * width + lengths[model] - 1], first = rows[model * width];
        lowest = last < lowest ? last : lowest;
        highest = first > highest ? first : highest;
    }
    double low_guess = INFINITY, high_guess = -INFINITY;
    for (int64_t budget = 0; budget < n_budgets; budget++) {
        /* as min() and max() of two floats in numba: a NaN guess is passed over */
        low_guess = guess[budget] < low_guess ? guess[budget] : low_guess;
        high_guess = guess[budget] > high_guess ? guess[budget] : high_guess;
    }
    if (low_guess < high_guess) {
        double margin = 0.25 * (high_guess - low_guess);
        double low = low_guess - margin, high = high_guess + margin;
        lowest = low > lowest ? low : lowest;
        highest = high < highest ? high : highest;
    }
    double scale = highest > lowest ? BINS / (highest - lowest) : 0.0;
    memset(at_least, 0, (BINS + 1) * sizeof(int64_t));
    for (int64_t model = 0; model < n_models; model++)
        for (int64_t position = 0; position < lengths[model]; position++)
            at_least[bin_of(rows[model * width + position], lowest, scale)]++;
    for (int64_t at = BINS - 1; at >= 0; at--) at_least[at] += at_least[at + 1];
    *lowest_out = lowest;
    *scale_out = scale;
}

/* low + how many of row[low:high] (nonincreasing) are >= pivot: a binary search with no branch a step. */
static inline int64_t count_from(const double *row, int64_t low, int64_t high, double pivot) {
    uint64_t base = (uint64_t)low, length = (uint64_t)(high - low);
    if (high > low) {
        while (length > 1) {
            uint64_t half = length >> 1;
            base = row[base + half] >= pivot ? base + half : base;
            length -= half;
        }
        base += row[base] >= pivot ? 1 : 0;
    }
    return (int64_t)base;
}

/* The k-th smallest of values[0:n] (values reordered): quickselect. */
static double kth_smallest(double *values, int64_t n, int64_t k) {
    int64_t low = 0, high = n - 1;
    while (low < high) {
        double pivot = values[low + (high - low) / 2];
        int64_t i = low, j = high;
        while (i <= j) {
            while (values[i] < pivot) i++;
            while (values[j] > pivot) j--;
            if (i <= j) {
                double kept = values[i];
                values[i] = values[j];
                values[j] = kept;
                i++;
                j--;
            }
        }
        if (k <= j)
            high = j;
        else if (k >= i)
            low = i;
        else
            break;
    }
    return values[k];
}

static int compare_pulls(const void *x, const void *y, const int64_t *pulls) {
    int64_t a = pulls[*(const int64_t *)x], b = pulls[*(const int64_t *)y];
    if (a != b) return a < b ? -1 : 1;
    return *(const int64_t *)x < *(const int64_t *)y ? -1 : 1;
}

/* Budgets by increasing pulls (ties by position): insertion sort, the grids are small. */
static void order_by_pulls(const int64_t *pulls, int64_t n_budgets, int64_t *order) {
    for (int64_t i = 0; i < n_budgets; i++) {
        int64_t at = i;
        order[i] = i;
        while (at > 0 && compare_pulls(&order[at], &order[at - 1], pulls) < 0) {
            int64_t kept = order[at];
            order[at] = order[at - 1];
            order[at - 1] = kept;
            at--;
        }
    }
}

/*
 * For each run and budget: theta the pulls[b]-th largest key, and per model how many keys are > and >= it
 * (sysrs_ref.fast.compiled.ucb_select); nearest[r, b] = (the smallest key above theta, the largest below it), read
 * while the rows are at hand (the certification of the cut needs them). memory (2, B): each budget's last theta
 * and its typical change, updated. Returns 0, or -1 when memory runs out.
 */
EXPORT int ucb_select(const double *keys, int64_t n_runs, int64_t n_models, int64_t width, const int64_t *stops,
                      const int64_t *pulls, int64_t n_budgets, double *memory, int binned, double *theta,
                      int64_t *above, int64_t *upto, double *nearest) {
    int64_t limit = n_models > 64 ? n_models : 64;
    int64_t capacity = 64;
    int64_t *order = malloc(n_budgets * sizeof(int64_t));
    int64_t *low_at = malloc(n_models * sizeof(int64_t));  /* keys before are >= the bracket's top */
    int64_t *high_at = malloc(n_models * sizeof(int64_t)); /* keys from here on are < its bottom */
    int64_t *probe = malloc(n_models * sizeof(int64_t));
    int64_t *upper_at = calloc(n_models, sizeof(int64_t)); /* binned: each row's keys in bins > theta's */
    int64_t *lower_at = calloc(n_models, sizeof(int64_t)); /* binned: each row's keys in bins >= theta's */
    int64_t *at_least = calloc(BINS + 1, sizeof(int64_t));
    double *members = malloc(capacity * sizeof(double));
    double *guess = memory, *step = memory + n_budgets;
    int status = 0;
    if (!order || !low_at || !high_at || !probe || !upper_at || !lower_at || !at_least || !members) {
        status = -1;
        goto done;
    }
    order_by_pulls(pulls, n_budgets, order);
    for (int64_t run = 0; run < n_runs; run++) {
        const double *rows = keys + run * n_models * width;
        const int64_t *lengths = stops + run * n_models;
        double lowest = 0.0, scale = 0.0;
        int64_t current = BINS - 1;
        for (int64_t model = 0; model < n_models; model++) low_at[model] = upper_at[model] = lower_at[model] = 0;
        if (binned) histogram(rows, n_models, width, lengths, guess, n_budgets, at_least, &lowest, &scale);
        for (int64_t budget_index = 0; budget_index < n_budgets; budget_index++) {
            int64_t budget = order[budget_index], wanted = pulls[budget];
            int64_t above_sum = 0, below_sum = 0;
            if (binned) { /* the bracket: theta's bin, at_least[current + 1] < wanted <= at_least[current] */
                while (at_least[current] < wanted) current--;
                for (int64_t model = 0; model < n_models; model++) { /* both ends only move right */
                    const double *row = rows + model * width;
                    int64_t length = lengths[model], upper = upper_at[model], lower = lower_at[model];
                    while (upper < length && bin_of(row[upper], lowest, scale) > current) upper++;
                    lower = lower > upper ? lower : upper;
                    while (lower < length && bin_of(row[lower], lowest, scale) >= current) lower++;
                    upper_at[model] = upper;
                    lower_at[model] = lower;
                    low_at[model] = low_at[model] > upper ? low_at[model] : upper;
                    high_at[model] = lower;
                    above_sum += low_at[model];
                    below_sum += lower;
                }
            } else { /* the bracket: below the last theta */
                for (int64_t model = 0; model < n_models; model++) {
                    high_at[model] = lengths[model];
                    above_sum += low_at[model];
                    below_sum += lengths[model];
                }
            }
            /* 0: the guess, 1: stepping away from it, 2: halving */
            int phase = !(binned || isnan(guess[budget])) ? 0 : 2;
            double direction = 0.0, last_pivot = 0.0, delta = step[budget];
            double top, bottom, value;
            int64_t size;
            for (;;) {
                size = below_sum - above_sum;
                top = -INFINITY;
                bottom = INFINITY;
                for (int64_t model = 0; model < n_models; model++) {
                    if (low_at[model] < high_at[model]) {
                        double first = rows[model * width + low_at[model]];
                        double last = rows[model * width + high_at[model] - 1];
                        top = first > top ? first : top;
                        bottom = last < bottom ? last : bottom;
                    }
                }
                if (size <= limit || top == bottom) break;
                double pivot;
                if (phase == 0) {
                    pivot = guess[budget];
                } else if (phase == 1) {
                    pivot = last_pivot + direction * delta;
                    delta *= 2.0;
                } else {
                    pivot = bottom + (top - bottom) * 0.5;
                }
                if (!(bottom < pivot && pivot <= top)) { /* outside the bracket: halve it instead */
                    phase = 2;
                    pivot = bottom + (top - bottom) * 0.5;
                    if (pivot <= bottom) pivot = top;
                }
                int64_t total = 0;
                for (int64_t model = 0; model < n_models; model++) {
                    int64_t found = count_from(rows + model * width, low_at[model], high_at[model], pivot);
                    probe[model] = found;
                    total += found;
                }
                double side = total >= wanted ? 1.0 : -1.0; /* theta >= pivot, or theta < pivot */
                if (total >= wanted) {
                    memcpy(high_at, probe, n_models * sizeof(int64_t));
                    below_sum = total;
                } else {
                    memcpy(low_at, probe, n_models * sizeof(int64_t));
                    above_sum = total;
                }
                if (phase == 0) {
                    phase = delta > 0 ? 1 : 2;
                    direction = side;
                } else if (phase == 1 && side != direction) {
                    phase = 2; /* crossed: theta is bracketed */
                }
                last_pivot = pivot;
            }
            if (top == bottom && size > limit) {
                value = top;
            } else {
                if (size > capacity) {
                    double *grown = realloc(members, 2 * size * sizeof(double));
                    if (!grown) {
                        status = -1;
                        goto done;
                    }
                    members = grown;
                    capacity = 2 * size;
                }
                int64_t at = 0;
                for (int64_t model = 0; model < n_models; model++)
                    for (int64_t position = low_at[model]; position < high_at[model]; position++)
                        members[at++] = rows[model * width + position];
                value = kth_smallest(members, size, size - (wanted - above_sum));
            }
            theta[run * n_budgets + budget] = value;
            if (!isnan(guess[budget])) {
                double change = fabs(value - guess[budget]);
                step[budget] = isnan(step[budget]) ? change : 0.5 * step[budget] + 0.5 * change;
            }
            guess[budget] = value;
            int64_t *strict_out = above + (run * n_budgets + budget) * n_models;
            int64_t *loose_out = upto + (run * n_budgets + budget) * n_models;
            double nearest_up = INFINITY, nearest_down = -INFINITY;
            for (int64_t model = 0; model < n_models; model++) {
                const double *row = rows + model * width;
                int64_t strict = low_at[model], loose;
                while (strict < high_at[model] && row[strict] > value) strict++;
                loose = strict;
                while (loose < high_at[model] && row[loose] >= value) loose++;
                strict_out[model] = strict;
                loose_out[model] = loose;
                if (strict > 0 && row[strict - 1] < nearest_up) nearest_up = row[strict - 1];
                if (loose < lengths[model] && row[loose] > nearest_down) nearest_down = row[loose];
            }
            nearest[2 * (run * n_budgets + budget)] = nearest_up;
            nearest[2 * (run * n_budgets + budget) + 1] = nearest_down;
            memcpy(low_at, strict_out, n_models * sizeof(int64_t)); /* the next budget's theta is <= this one */
        }
    }
done:
    free(order);
    free(low_at);
    free(high_at);
    free(probe);
    free(upper_at);
    free(lower_at);
    free(at_least);
    free(members);
    return status;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* UCB-E / SyUCB-E certified cuts and rankings (sysrs_ref.fast.ucb._cut, _ranking)                                */
/* ------------------------------------------------------------------------------------------------------------ */

/* int64 products wrap as numpy's do (the callers only ask when they cannot overflow). */
static inline int64_t wrapping_product(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

/* The index at count position + 1 as P q + r D over that count (common factor D q dropped); -1 if irrational. */
static inline int64_t rational_numerator(int64_t total, int64_t position, const int64_t *squares,
                                         int64_t a_denominator, int64_t denominator) {
    int64_t root = squares[position];
    if (root < 0) return -1;
    return (int64_t)((uint64_t)wrapping_product(total, a_denominator) + (uint64_t)wrapping_product(root, denominator));
}

typedef struct {
    double value;
    int64_t index;
} ranked_t;

static int compare_ranked(const void *x, const void *y) {
    const ranked_t *a = x, *b = y;
    if (a->value != b->value) return a->value < b->value ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

/* order[0:n]: the positions of values by increasing value, equal values in position order (as a stable sort). */
static void stable_order(const double *values, int64_t n, ranked_t *work, int64_t *order) {
    for (int64_t i = 0; i < n; i++) {
        work[i].value = values[i];
        work[i].index = i;
    }
    qsort(work, (size_t)n, sizeof(ranked_t), compare_ranked);
    for (int64_t i = 0; i < n; i++) order[i] = work[i].index;
}

/*
 * The certified cuts of sysrs_ref.fast.ucb._cut, decided as its numpy code decides them
 * (sysrs_ref.fast.compiled.ucb_cut). settings = (gap, integer, rational, certify, a's denominator, D).
 */
#define DEFINE_CUT(SUFFIX, ST)                                                                                     \
    EXPORT void ucb_cut_##SUFFIX(const double *nearest, const ST *prefix, int64_t n_runs, int64_t n_budgets,       \
                                 int64_t n_models, int64_t width, const double *theta, const int64_t *above,      \
                                 const int64_t *upto, const int64_t *pulls, const int32_t *priority,              \
                                 const int64_t *classes, const int64_t *squares, const double *inverse,           \
                                 const double *divisors, const double *roots, const double *settings,             \
                                 int64_t *counts, uint8_t *certified) {                                           \
        double gap = settings[0];                                                                                  \
        int integer = settings[1] != 0.0, rational = settings[2] != 0.0, certify = settings[3] != 0.0;             \
        int64_t a_denominator = (int64_t)settings[4], denominator = (int64_t)settings[5];                          \
        int64_t length = width + 1;                                                                                \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            const ST *run_prefix = prefix + run * n_models * length;                                               \
            for (int64_t budget = 0; budget < n_budgets; budget++) {                                               \
                const int64_t *low_of = above + (run * n_budgets + budget) * n_models;                             \
                const int64_t *high_of = upto + (run * n_budgets + budget) * n_models;                             \
                double value = theta[run * n_budgets + budget];                                                    \
                double nearest_up = nearest[2 * (run * n_budgets + budget)];                                       \
                double nearest_down = nearest[2 * (run * n_budgets + budget) + 1];                                 \
                certified[run * n_budgets + budget] = 0;                                                           \
                /* theta's nearest other keys (from ucb_select) must be more than gap away */                       \
                if (!(certify && nearest_up > value + gap && nearest_down < value - gap)) continue;                \
                int64_t total_above = 0;                                                                           \
                for (int64_t model = 0; model < n_models; model++) total_above += low_of[model];                   \
                /* every band arm has exactly the band's key: its key is U at its first band cell */               \
                int64_t reference = -1, reference_first = 0;                                                       \
                int same = 1;                                                                                      \
                for (int64_t model = 0; model < n_models; model++) {                                               \
                    int64_t low = low_of[model], high = high_of[model];                                            \
                    if (high <= low) continue;                                                                     \
                    int64_t first = low < width - 1 ? low : width - 1;                                             \
                    if (reference < 0) {                                                                           \
                        reference = model;                                                                         \
                        reference_first = first;                                                                   \
                        continue;                                                                                  \
                    }                                                                                              \
                    int identical = integer ? run_prefix[model * length + first] ==                                \
                                                  run_prefix[reference * length + first]                           \
                                            : classes[model] == classes[reference];                                \
                    same = same && first == reference_first && identical;                                          \
                }                                                                                                  \
                if (!same && rational) {                                                                           \
                    int64_t key = rational_numerator((int64_t)run_prefix[reference * length + reference_first],    \
                                                     reference_first, squares, a_denominator, denominator);        \
                    same = key >= 0;                                                                               \
                    for (int64_t model = 0; model < n_models; model++) {                                           \
                        int64_t low = low_of[model], high = high_of[model];                                        \
                        if (high <= low || !same) continue;                                                        \
                        int64_t first = low < width - 1 ? low : width - 1;                                         \
                        int64_t numerator = rational_numerator((int64_t)run_prefix[model * length + first], first, \
                                                               squares, a_denominator, denominator);               \
                        same = numerator >= 0 && wrapping_product(numerator, reference_first + 1) ==               \
                                                     wrapping_product(key, first + 1);                             \
                    }                                                                                              \
                }                                                                                                  \
                if (!same) continue;                                                                               \
                /* no hidden new minimum: every later band cell's index is clear of theta, or exactly the key */   \
                int clear = 1;                                                                                     \
                for (int64_t model = 0; model < n_models && clear; model++) {                                      \
                    int64_t low = low_of[model], high = high_of[model];                                            \
                    if (high - low < 2) continue;                                                                  \
                    for (int64_t position = low + 1; position < high; position++) {                                \
                        const ST *row = run_prefix + model * length;                                               \
                        double index =                                                                             \
                            index_mean((double)row[position], (uint64_t)position, inverse, divisors) + roots[position]; \
                        if (index > value + gap) continue;                                                         \
                        if (rational) {                                                                            \
                            int64_t numerator = rational_numerator((int64_t)row[position], position, squares,      \
                                                                   a_denominator, denominator);                    \
                            int64_t key =                                                                          \
                                rational_numerator((int64_t)row[low], low, squares, a_denominator, denominator);   \
                            if (numerator >= 0 && key >= 0 &&                                                      \
                                wrapping_product(numerator, low + 1) == wrapping_product(key, position + 1))       \
                                continue;                                                                          \
                        }                                                                                          \
                        clear = 0;                                                                                 \
                        break;                                                                                     \
                    }                                                                                              \
                }                                                                                                  \
                if (!clear) continue;                                                                              \
                certified[run * n_budgets + budget] = 1;                                                           \
                int64_t need = pulls[budget] - total_above, before = 0;                                            \
                int64_t *cells = counts + (run * n_budgets + budget) * n_models;                                   \
                for (int64_t place = 0; place < n_models; place++) { /* the band's cells go by rank */             \
                    int64_t model = priority[run * n_models + place];                                              \
                    int64_t low = low_of[model], band = high_of[model] - low_of[model];                            \
                    int64_t share = need - before > 0 ? need - before : 0;                                         \
                    share = share < band ? share : band;                                                           \
                    before += band;                                                                                \
                    cells[model] = low + share;                                                                    \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
                                                                                                                   \
    /* ranks[r, b]: the models by decreasing float mean P(N) / scale at their counts, ties by priority; with     \
     * n_ranks 1 only the first (sysrs_ref.fast.compiled.ucb_ranking). Returns -1 when memory runs out. */        \
    EXPORT int ucb_ranking_##SUFFIX(const ST *prefix, int64_t n_runs, int64_t n_budgets, int64_t n_models,         \
                                    int64_t length, const int64_t *counts, const double *scale,                   \
                                    const int32_t *priority, int64_t *ranks, int64_t n_ranks) {                   \
        double *means = malloc(n_models * sizeof(double));                                                         \
        int64_t *order = malloc(n_models * sizeof(int64_t));                                                       \
        ranked_t *work = malloc(n_models * sizeof(ranked_t));                                                      \
        if (!means || !order || !work) {                                                                           \
            free(means);                                                                                           \
            free(order);                                                                                           \
            free(work);                                                                                            \
            return -1;                                                                                             \
        }                                                                                                          \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            const int32_t *first = priority + run * n_models;                                                      \
            for (int64_t budget = 0; budget < n_budgets; budget++) {                                               \
                const int64_t *count = counts + (run * n_budgets + budget) * n_models;                             \
                int64_t *out = ranks + (run * n_budgets + budget) * n_ranks;                                       \
                for (int64_t place = 0; place < n_models; place++) {                                               \
                    int64_t model = first[place], at = count[model] - 1;                                           \
                    means[place] = -((double)prefix[(run * n_models + model) * length + at] / scale[at]);          \
                }                                                                                                  \
                if (n_ranks == 1) { /* the first of the smallest */                                                \
                    int64_t best = 0;                                                                              \
                    for (int64_t place = 1; place < n_models; place++)                                             \
                        if (means[place] < means[best]) best = place;                                              \
                    out[0] = first[best];                                                                          \
                    continue;                                                                                      \
                }                                                                                                  \
                stable_order(means, n_models, work, order);                                                        \
                for (int64_t place = 0; place < n_models; place++) out[place] = first[order[place]];               \
            }                                                                                                      \
        }                                                                                                          \
        free(means);                                                                                               \
        free(order);                                                                                               \
        free(work);                                                                                                \
        return 0;                                                                                                  \
    }

DEFINE_CUT(i32, int32_t)
DEFINE_CUT(i64, int64_t)
DEFINE_CUT(f64, double)

/* ------------------------------------------------------------------------------------------------------------ */
/* Prefix sums at the phase ends (sysrs_ref.fast._kernel.prefix_at)                                               */
/* ------------------------------------------------------------------------------------------------------------ */

/*
 * out[p, r, i]: model i's sum of its first wanted[p] scores along run r's order, left to right; the synchronized
 * form reads the table query-major (columns: stride x K), one contiguous column a step.
 */
#define DEFINE_PREFIX(SUFFIX, VT, OT, AT)                                                                          \
    EXPORT void prefix_at_##SUFFIX(const VT *values, int64_t n_models, int64_t stride, const int32_t *orders,      \
                                   int64_t n_runs, int64_t n_rows, int64_t length, const int64_t *wanted,         \
                                   int64_t n_counts, OT *out) {                                                    \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            for (int64_t model = 0; model < n_models; model++) {                                                   \
                const int32_t *order = orders + (run * n_rows + (n_rows == 1 ? 0 : model)) * length;               \
                const VT *row = values + model * stride;                                                           \
                AT total = 0;                                                                                      \
                uint64_t position = 0;                                                                             \
                for (int64_t slot = 0; slot < n_counts; slot++) {                                                  \
                    uint64_t stop = (uint64_t)wanted[slot];                                                        \
                    for (; position < stop; position++) total += (AT)row[(uint32_t)order[position]];               \
                    out[(slot * n_runs + run) * n_models + model] = (OT)total;                                     \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
                                                                                                                   \
    EXPORT int shared_prefix_at_##SUFFIX(const VT *columns, int64_t n_models, const int32_t *orders,               \
                                         int64_t n_runs, int64_t length, const int64_t *wanted, int64_t n_counts,  \
                                         OT *out) {                                                                \
        OT *totals = malloc(n_models * sizeof(OT));                                                                \
        if (!totals) return -1;                                                                                    \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            const int32_t *order = orders + run * length;                                                          \
            uint64_t position = 0;                                                                                 \
            for (int64_t model = 0; model < n_models; model++) totals[model] = 0;                                  \
            for (int64_t slot = 0; slot < n_counts; slot++) {                                                      \
                uint64_t stop = (uint64_t)wanted[slot];                                                            \
                for (; position < stop; position++) {                                                              \
                    const VT *column = columns + (uint64_t)(uint32_t)order[position] * (uint64_t)n_models;         \
                    for (int64_t model = 0; model < n_models; model++)                                             \
                        totals[model] = (OT)((AT)totals[model] + (AT)column[model]);                               \
                }                                                                                                  \
                memcpy(out + (slot * n_runs + run) * n_models, totals, n_models * sizeof(OT));                     \
            }                                                                                                      \
        }                                                                                                          \
        free(totals);                                                                                              \
        return 0;                                                                                                  \
    }

DEFINE_PREFIX(i8_i32, int8_t, int32_t, int64_t)
DEFINE_PREFIX(i16_i32, int16_t, int32_t, int64_t)
DEFINE_PREFIX(i32_i32, int32_t, int32_t, int64_t)
DEFINE_PREFIX(i64_i32, int64_t, int32_t, int64_t)
DEFINE_PREFIX(i8_i64, int8_t, int64_t, int64_t)
DEFINE_PREFIX(i16_i64, int16_t, int64_t, int64_t)
DEFINE_PREFIX(i32_i64, int32_t, int64_t, int64_t)
DEFINE_PREFIX(i64_i64, int64_t, int64_t, int64_t)
DEFINE_PREFIX(f64_f64, double, double, double)

/* ------------------------------------------------------------------------------------------------------------ */
/* SR / SySRs eliminations (sysrs_ref.fast.elimination.successive_rejects_kernel)                                  */
/* ------------------------------------------------------------------------------------------------------------ */

/* The masked passes of the eliminations vectorize (O3 here, as for the draws below: integer code; the float
 * passes are built with -O2). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3")
#endif

/*
 * On exact integer keys (P, R, K): out[r, b] = the winner, then the eliminated models, last one first. slots[b,
 * phase] is the slab read in that phase (-1: nothing seen yet, the active model latest in the priority goes).
 * An eliminated model's mask is the keys' largest value, an active one's the smallest, so each phase is two passes
 * over the slab's contiguous row: the smallest masked key, then the one model holding it (the keys of a slab are
 * distinct, and every real key is below the largest value).
 */
#define DEFINE_ELIMINATE(SUFFIX, KT, SMALLEST, LARGEST)                                                            \
    EXPORT VECTORIZED int eliminate_##SUFFIX(const KT *keys, int64_t n_runs, int64_t n_models, const int64_t *slots,          \
                                  int64_t n_budgets, int64_t n_phases, const int64_t *rank, int32_t *out) {        \
        KT *mask = malloc(n_models * sizeof(KT));                                                                  \
        if (!mask) return -1;                                                                                      \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            const int64_t *run_rank = rank + run * n_models;                                                       \
            for (int64_t budget = 0; budget < n_budgets; budget++) {                                               \
                int32_t *cells = out + (run * n_budgets + budget) * n_models;                                      \
                for (int64_t model = 0; model < n_models; model++) mask[model] = SMALLEST;                         \
                for (int64_t phase = 0; phase < n_phases; phase++) {                                               \
                    int64_t slot = slots[budget * n_phases + phase], worst = 0;                                    \
                    if (slot < 0) {                                                                                \
                        int64_t latest = -1;                                                                       \
                        for (int64_t model = 0; model < n_models; model++)                                         \
                            if (mask[model] == SMALLEST && run_rank[model] > latest) {                             \
                                latest = run_rank[model];                                                          \
                                worst = model;                                                                     \
                            }                                                                                      \
                    } else {                                                                                       \
                        const KT *row = keys + (slot * n_runs + run) * n_models;                                   \
                        KT smallest = LARGEST;                                                                     \
                        for (int64_t model = 0; model < n_models; model++) {                                       \
                            KT masked = row[model] > mask[model] ? row[model] : mask[model];                       \
                            smallest = masked < smallest ? masked : smallest;                                      \
                        }                                                                                          \
                        for (int64_t model = 0; model < n_models; model++) worst += row[model] == smallest ? model : 0; \
                    }                                                                                              \
                    cells[n_models - 1 - phase] = (int32_t)worst;                                                  \
                    mask[worst] = LARGEST;                                                                         \
                }                                                                                                  \
                for (int64_t model = 0; model < n_models; model++)                                                 \
                    if (mask[model] == SMALLEST) cells[0] = (int32_t)model;                                        \
            }                                                                                                      \
        }                                                                                                          \
        free(mask);                                                                                                \
        return 0;                                                                                                  \
    }

DEFINE_ELIMINATE(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_ELIMINATE(i64, int64_t, INT64_MIN, INT64_MAX)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/*
 * eliminate() on certified float sums (P, R, K), as sysrs_ref.fast.elimination._float_worst decides: in each phase
 * the active model of smallest sum goes when it is the only one within (n_k + 1) 2^-50 largest of the smallest
 * (counts[p] = n_k of slab p), or when every sum that near is exactly 0.0 (the latest in the priority then goes).
 * Otherwise unsettled[r, b] is set and its phases stop; the caller replays that run and budget exactly.
 */
EXPORT void eliminate_floats(const double *sums, int64_t n_runs, int64_t n_models, const int64_t *slots,
                             int64_t n_budgets, int64_t n_phases, const int64_t *counts, const int64_t *rank,
                             int32_t *out, uint8_t *unsettled) {
    for (int64_t run = 0; run < n_runs; run++) {
        const int64_t *run_rank = rank + run * n_models;
        for (int64_t budget = 0; budget < n_budgets; budget++) {
            int32_t *cells = out + (run * n_budgets + budget) * n_models;
            for (int64_t model = 0; model < n_models; model++) cells[model] = (int32_t)model;
            for (int64_t phase = 0; phase < n_phases; phase++) {
                int64_t size = n_models - phase, slot = slots[budget * n_phases + phase], position = 0;
                if (slot < 0) { /* nothing seen yet: the active model latest in the priority */
                    int64_t latest = run_rank[cells[0]];
                    for (int64_t spot = 1; spot < size; spot++)
                        if (run_rank[cells[spot]] > latest) {
                            latest = run_rank[cells[spot]];
                            position = spot;
                        }
                } else {
                    const double *row = sums + (slot * n_runs + run) * n_models;
                    double smallest = row[cells[0]], largest = row[cells[0]];
                    for (int64_t spot = 1; spot < size; spot++) {
                        double value = row[cells[spot]];
                        smallest = value < smallest ? value : smallest;
                        largest = value > largest ? value : largest;
                    }
                    double threshold = smallest + (double)(counts[slot] + 1) * 0x1p-50 * largest;
                    int64_t near = 0, latest = -1;
                    int positive = 0;
                    for (int64_t spot = 0; spot < size; spot++) {
                        double value = row[cells[spot]];
                        if (value <= threshold) {
                            near++;
                            positive = positive || value > 0.0;
                            if (run_rank[cells[spot]] > latest) {
                                latest = run_rank[cells[spot]];
                                position = spot;
                            }
                        }
                    }
                    if (near > 1 && positive) {
                        unsettled[run * n_budgets + budget] = 1;
                        break;
                    }
                }
                int32_t worst = cells[position]; /* swap it to the end of the active part */
                cells[position] = cells[size - 1];
                cells[size - 1] = worst;
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The draws: numpy's Generator.permutation on PCG64, bit for bit (sysrs_ref.fast.batch)                           */
/* ------------------------------------------------------------------------------------------------------------ */

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

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_native_lib",
    .m_doc = "the compiled passes of sysrs_ref.fast (loaded with ctypes by sysrs_ref.fast._native)",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__native_lib(void) { return PyModule_Create(&module); }
