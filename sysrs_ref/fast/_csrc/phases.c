/* The phase-by-phase kernels' prefix sums (sysrs_ref.fast._kernel.prefix_at) and SR / SySRs eliminations
 * (sysrs_ref.fast._elimination.successive_rejects_kernel). */
#include "common.h"

#define AT int64_t /* integer numerators, summed exactly */
#define VT int8_t
#define OT int32_t
#define SUFFIX i8_i32
#include "phases.inc"
#define VT int16_t
#define OT int32_t
#define SUFFIX i16_i32
#include "phases.inc"
#define VT int32_t
#define OT int32_t
#define SUFFIX i32_i32
#include "phases.inc"
#define VT int64_t
#define OT int32_t
#define SUFFIX i64_i32
#include "phases.inc"
#define VT int8_t
#define OT int64_t
#define SUFFIX i8_i64
#include "phases.inc"
#define VT int16_t
#define OT int64_t
#define SUFFIX i16_i64
#include "phases.inc"
#define VT int32_t
#define OT int64_t
#define SUFFIX i32_i64
#include "phases.inc"
#define VT int64_t
#define OT int64_t
#define SUFFIX i64_i64
#include "phases.inc"
#undef AT

#define AT double /* float scores, added left to right */
#define VT double
#define OT double
#define SUFFIX f64_f64
#include "phases.inc"
#undef AT

/* ------------------------------------------------------------------------------------------------------------ */
/* SR / SySRs eliminations (sysrs_ref.fast._elimination.successive_rejects_kernel)                                  */
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
 * An eliminated model's mask is the keys' largest value, an active one's the smallest, so each phase is a pass
 * over the slab's contiguous row for the smallest masked key (the keys of a slab are distinct, and every real key
 * is below the largest value). SR's keys P K + (K - 1 - rank) name their model: the smallest one's remainder gives
 * its rank, the run's priority the model, and a check that the model holds that key and is active takes it; keys
 * that name no model so are matched by a second pass.
 */
#define DEFINE_ELIMINATE(SUFFIX, KT, SMALLEST, LARGEST)                                                            \
    EXPORT VECTORIZED int eliminate_##SUFFIX(const KT *keys, int64_t n_runs, int64_t n_models, const int64_t *slots,          \
                                  int64_t n_budgets, int64_t n_phases, const int64_t *rank, int32_t *out) {        \
        KT *mask = malloc(n_models * sizeof(KT));                                                                  \
        int64_t *priority = malloc(n_models * sizeof(int64_t));                                                    \
        if (!mask || !priority) {                                                                                  \
            free(mask);                                                                                            \
            free(priority);                                                                                        \
            return -1;                                                                                             \
        }                                                                                                          \
        for (int64_t run = 0; run < n_runs; run++) {                                                               \
            const int64_t *run_rank = rank + run * n_models;                                                       \
            for (int64_t model = 0; model < n_models; model++) priority[model] = -1;                               \
            for (int64_t model = 0; model < n_models; model++)                                                     \
                if (run_rank[model] >= 0 && run_rank[model] < n_models) priority[run_rank[model]] = model;         \
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
                        int64_t named = smallest >= 0 ? priority[n_models - 1 - (int64_t)(smallest % n_models)] : -1; \
                        if (named >= 0 && row[named] == smallest && mask[named] == SMALLEST)                        \
                            worst = named;                                                                         \
                        else                                                                                       \
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
        free(priority);                                                                                            \
        return 0;                                                                                                  \
    }

DEFINE_ELIMINATE(i32, int32_t, INT32_MIN, INT32_MAX)
DEFINE_ELIMINATE(i64, int64_t, INT64_MIN, INT64_MAX)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

/* The certified range (sysrs_ref.fast.certify.MAX_TERMS): the threshold below is proved sufficient for sums of
 * fewer terms than this (python -m proofs_check --claim code-certify-tolerance), and a phase with more is never
 * certified. */
#define CERTIFIED_TERMS (((int64_t)1) << 40)

/*
 * eliminate() on certified float sums (P, R, K), as sysrs_ref.fast._elimination._float_worst decides: in each phase
 * the active model of smallest sum goes when it is the only one within (n_k + 1) 2^-50 largest of the smallest
 * (counts[p] = n_k of slab p), or when every sum that near is exactly 0.0 (the latest in the priority then goes).
 * Otherwise, with exact_sums (numerators K x stride in int64, orders R x n_rows x length), the near model of
 * smallest exact numerator sum goes, ties to the latest in the priority, and decided counts the phase; without, or
 * when n_k is outside the certified range [0, CERTIFIED_TERMS), unsettled[r, b] is set and its phases stop: the
 * caller replays that run and budget exactly.
 */
EXPORT void eliminate_floats(const double *sums, int64_t n_runs, int64_t n_models, const int64_t *slots,
                             int64_t n_budgets, int64_t n_phases, const int64_t *counts, const int64_t *rank,
                             int exact_sums, const int64_t *numerators, int64_t stride, const int32_t *orders,
                             int64_t n_rows, int64_t length, int32_t *out, uint8_t *unsettled, int64_t *decided) {
    for (int64_t run = 0; run < n_runs; run++) {
        const int64_t *run_rank = rank + run * n_models;
        const int32_t *run_orders = orders + run * n_rows * length;
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
                    if (counts[slot] < 0 || counts[slot] >= CERTIFIED_TERMS) { /* outside the proved range */
                        unsettled[run * n_budgets + budget] = 1;
                        break;
                    }
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
                    if (near > 1 && positive && !exact_sums) {
                        unsettled[run * n_budgets + budget] = 1;
                        break;
                    }
                    if (near > 1 && positive) { /* the near model of smallest exact sum, ties to the latest */
                        __int128 best = 0;
                        position = -1;
                        for (int64_t spot = 0; spot < size; spot++) {
                            int64_t model = cells[spot];
                            if (!(row[model] <= threshold)) continue;
                            __int128 total = exact_sum(numerators + model * stride,
                                                       run_orders + (n_rows == 1 ? 0 : model) * length, counts[slot]);
                            if (position < 0 || total < best || (total == best && run_rank[model] > latest)) {
                                best = total;
                                latest = run_rank[model];
                                position = spot;
                            }
                        }
                        (*decided)++;
                    }
                }
                int32_t worst = cells[position]; /* swap it to the end of the active part */
                cells[position] = cells[size - 1];
                cells[size - 1] = worst;
            }
        }
    }
}
