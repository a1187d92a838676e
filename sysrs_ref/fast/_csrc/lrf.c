/*
 * UCB-E-LRF's ensemble fit for rank 1 (sysrs_ref.fast.lrf.fit_ensemble_compiled): the reference's doubles bit for
 * bit (sysrs_ref.algorithms.lrf_model.fit_ensemble, docs/contracts.md 11.3 to 11.5).
 *
 * Every sum is the reference's: the right-hand side starts at 0.0 and the Gram entry at the ridge, and the terms
 * are added in increasing model (for a query's factor) or query (for a model's factor); the ensemble mean and the
 * spread are summed over the members in order from 0.0. No BLAS and no fused multiply-adds, so the result does not
 * depend on the processor. The members are independent, so they are computed side by side, four to a vector: lane
 * c of a vector is member c's sum, in member c's order. A member that leaves a cell out sees the factor +0.0 there,
 * so its terms are +0.0 or -0.0, which change nothing: a sum that starts at +0.0 or at the ridge is never -0.0, so
 * adding a zero leaves it as it is. The initial query factors V are never read (each sweep solves V from U first), so only U's
 * are drawn.
 */
#include "common.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3", "no-math-errno") /* sqrt without the errno check: the same IEEE root, one instruction */
#endif

#define GAMMA 0x9E3779B97F4A7C15ULL
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
/* Members computed together (a multiple of 4 dividing 64: a tile's drop bits are in one word). */
#define TILE 16

typedef double v4 __attribute__((vector_size(32)));
typedef int64_t v4i __attribute__((vector_size(32)));

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FLOAT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FLOAT_CLONES
#endif

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline double uniform(uint64_t seed, uint64_t index) {
    return (double)(mix64(seed + (index + 1) * GAMMA) >> 11) * 0x1p-53;
}

/* G(u): the number of thresholds <= u (bisect right). */
static inline int64_t gap(const double *table, int64_t size, double u) {
    int64_t low = 0, high = size;
    while (low < high) {
        int64_t middle = (low + high) / 2;
        if (u < table[middle])
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

/*
 * The other factor is read all at once when it has at most WHOLE rows (up to 128 KiB per TILE members: each line
 * reads its rows in increasing order, which the processor fetches ahead from its second-level cache), else in spans
 * of about the same length, of at least SPAN rows (16 KiB: the core's nearest cache), longer where a line has few
 * cells in a span on average (DENSE: a span's start and end cost a line 32 loads and stores). Measured: wmt_14's
 * 5,000 rows read in spans of 128 rows took a quarter less time than in spans of 512, and ifeval's 541 rows a fifth
 * more in spans of 109 than at once.
 */
#define WHOLE 1024
#define SPAN 128
#define DENSE 32

/* The rows of a span of the other factor (n_fixed rows), for n_out lines with cells observed cells in all. */
static int64_t span_rows(int64_t n_fixed, int64_t n_out, int64_t cells) {
    if (n_fixed <= WHOLE) return n_fixed > 0 ? n_fixed : 1;
    int64_t rows = cells > 0 ? DENSE * n_fixed / (cells / n_out + 1) : n_fixed;
    if (rows < SPAN) rows = SPAN;
    if (rows >= n_fixed) return n_fixed;
    int64_t spans = (n_fixed + rows - 1) / rows;
    return (n_fixed + spans - 1) / spans;
}

/*
 * One half-sweep: for each of the n_out lines (queries for V, models for U), each member's factor rhs / gram over
 * the line's cells (from start[line] to start[line + 1] of offset, value, drops: where the other factor's row is
 * in a tile (its index times TILE), the score, and which members leave the cell out, words words of bits). The
 * factors are stored a tile of TILE members at a time: fixed is tiles x n_fixed x TILE, out tiles x n_out x TILE.
 * A tile's factors are read a span of rows at a time (span_rows), so that they stay in the nearest cache while the
 * lines are summed: every line is summed over its cells in that span (up to stops[span * n_out + line], the first
 * cell past it), and its sums are kept in partial (n_out x 2 TILE doubles) until the next span goes on with them, in
 * the same order. A line without cells is 0.0 / ridge for every member (its sums are 0.0 and the ridge). A cell's
 * word of drops is compared with each lane's bit: all ones where the member keeps the cell.
 */
FLOAT_CLONES static void half_sweep(const int64_t *start, const int64_t *stops, const int64_t *offset,
                                    const double *value, const uint64_t *drops, int64_t words, int64_t n_out,
                                    const double *fixed, int64_t n_fixed, int64_t tiles, double ridge, double *out,
                                    double *partial) {
    int64_t rows = span_rows(n_fixed, n_out, start[n_out]), spans = (n_fixed + rows - 1) / rows;
    double e = 0.0 / ridge;
    v4 empty = {e, e, e, e};
    for (int64_t tile = 0; tile < tiles; tile++) {
        const double *fixed_tile = fixed + tile * n_fixed * TILE;
        double *out_tile = out + tile * n_out * TILE;
        const uint64_t *tile_drops = drops + tile * TILE / 64;
        int shift = (int)(tile * TILE % 64);
        v4i bit[TILE / 4]; /* lane l of vector k: the bit of its member in the cell's word */
        for (int k = 0; k < TILE / 4; k++)
            for (int lane = 0; lane < 4; lane++) bit[k][lane] = (int64_t)(1ULL << (shift + 4 * k + lane));
        for (int64_t span = 0; span < spans; span++) {
            const int64_t *stop = stops + span * n_out;
            for (int64_t line = 0; line < n_out; line++) {
                int64_t at = span == 0 ? start[line] : stop[line - n_out];
                int64_t end = spans > 1 ? stop[line] : start[line + 1];
                if (start[line] == start[line + 1]) { /* no cells: the line is 0.0 / ridge */
                    if (span == spans - 1)
                        for (int k = 0; k < TILE / 4; k++) memcpy(out_tile + line * TILE + 4 * k, &empty, sizeof empty);
                    continue;
                }
                v4 rhs[TILE / 4], gram[TILE / 4];
                double *kept_sums = partial + line * 2 * TILE;
                if (span == 0)
                    for (int k = 0; k < TILE / 4; k++) {
                        rhs[k] = (v4){0.0, 0.0, 0.0, 0.0};
                        gram[k] = (v4){ridge, ridge, ridge, ridge};
                    }
                else
                    for (int k = 0; k < TILE / 4; k++) {
                        memcpy(&rhs[k], kept_sums + 4 * k, sizeof rhs[k]);
                        memcpy(&gram[k], kept_sums + TILE + 4 * k, sizeof gram[k]);
                    }
                for (; at < end; at++) {
                    const double *f = fixed_tile + offset[at];
                    uint64_t word = tile_drops[at * words];
                    v4i bits = {(int64_t)word, (int64_t)word, (int64_t)word, (int64_t)word};
                    double s = value[at];
                    v4 score = {s, s, s, s};
                    for (int k = 0; k < TILE / 4; k++) {
                        v4 factor;
                        memcpy(&factor, f + 4 * k, sizeof factor);
                        v4i keep = (bits & bit[k]) == 0;
                        v4 kept = (v4)((v4i)factor & keep); /* the factor, or +0.0 */
                        rhs[k] += score * kept;
                        gram[k] += kept * kept;
                    }
                }
                if (span == spans - 1)
                    for (int k = 0; k < TILE / 4; k++) {
                        v4 solved = rhs[k] / gram[k];
                        memcpy(out_tile + line * TILE + 4 * k, &solved, sizeof solved);
                    }
                else
                    for (int k = 0; k < TILE / 4; k++) {
                        memcpy(kept_sums + 4 * k, &rhs[k], sizeof rhs[k]);
                        memcpy(kept_sums + TILE + 4 * k, &gram[k], sizeof gram[k]);
                    }
            }
        }
    }
}

/*
 * stops (spans x n_out, spans of span_rows rows): for each span of the other factor and each line, the first of the
 * line's cells (start, other) past the span. Only read when there are two spans or more.
 */
static void span_stops(const int64_t *start, const int64_t *other, int64_t n_out, int64_t n_fixed, int64_t *stops) {
    int64_t rows = span_rows(n_fixed, n_out, start[n_out]), spans = (n_fixed + rows - 1) / rows;
    if (spans < 2) return;
    for (int64_t line = 0; line < n_out; line++) {
        int64_t at = start[line];
        for (int64_t span = 0; span < spans; span++) {
            int64_t last = (span + 1) * rows;
            while (at < start[line + 1] && other[at] < last) at++;
            stops[span * n_out + line] = at;
        }
    }
}

/* Vectors of four queries a block of the statistics holds. */
#define BLOCK 8

/*
 * mean and spread (K x L) of the products u[i][c] vb[j][c] over the members c = 0 .. members - 1, summed in
 * that order from 0.0. u is K x members; vb holds the query factors four queries at a time (groups x members x
 * 4, groups = ceil(L / 4), zero past L); row is 2 x BLOCK x 4 doubles of room. BLOCK groups of queries are done
 * for every model before the next: their factors (BLOCK x members x 4 doubles) stay in the nearest cache.
 */
FLOAT_CLONES static void statistics(const double *u, const double *vb, int64_t n_models, int64_t n_queries,
                                    int64_t members, int64_t ddof, double *row, double *mean, double *spread) {
    int64_t groups = (n_queries + 3) / 4;
    v4 divisor = {(double)members, (double)members, (double)members, (double)members};
    /* x / 2^k and x * 2^-k are the same real number, so the same double: a product where members is a power of two */
    int halving = (members & (members - 1)) == 0;
    double inverse = 1.0 / (double)members;
    v4 scale = {inverse, inverse, inverse, inverse};
    double d = (double)(members - ddof);
    v4 spread_divisor = {d, d, d, d};
    double *row_mean = row, *row_spread = row + 4 * BLOCK;
    for (int64_t group = 0; group < groups; group += BLOCK) {
        int64_t count = groups - group < BLOCK ? groups - group : BLOCK;
        int64_t first = group * 4, width = n_queries - first < 4 * BLOCK ? n_queries - first : 4 * BLOCK;
        const double *base = vb + group * members * 4;
        for (int64_t i = 0; i < n_models; i++) {
            const double *ui = u + i * members;
            v4 total[BLOCK], means[BLOCK], squares[BLOCK];
            for (int k = 0; k < BLOCK; k++) {
                total[k] = (v4){0.0, 0.0, 0.0, 0.0};
                squares[k] = (v4){0.0, 0.0, 0.0, 0.0};
            }
            if (count == BLOCK) {
                for (int64_t c = 0; c < members; c++) {
                    v4 factor = {ui[c], ui[c], ui[c], ui[c]};
                    for (int k = 0; k < BLOCK; k++) {
                        v4 other;
                        memcpy(&other, base + (k * members + c) * 4, sizeof other);
                        total[k] += factor * other;
                    }
                }
                for (int k = 0; k < BLOCK; k++) means[k] = halving ? total[k] * scale : total[k] / divisor;
                if (members > ddof)
                    for (int64_t c = 0; c < members; c++) {
                        v4 factor = {ui[c], ui[c], ui[c], ui[c]};
                        for (int k = 0; k < BLOCK; k++) {
                            v4 other;
                            memcpy(&other, base + (k * members + c) * 4, sizeof other);
                            v4 gap = factor * other - means[k];
                            squares[k] += gap * gap;
                        }
                    }
            } else {
                for (int k = 0; k < count; k++) {
                    for (int64_t c = 0; c < members; c++) {
                        v4 factor = {ui[c], ui[c], ui[c], ui[c]}, other;
                        memcpy(&other, base + (k * members + c) * 4, sizeof other);
                        total[k] += factor * other;
                    }
                    means[k] = halving ? total[k] * scale : total[k] / divisor;
                    if (members > ddof)
                        for (int64_t c = 0; c < members; c++) {
                            v4 factor = {ui[c], ui[c], ui[c], ui[c]}, other;
                            memcpy(&other, base + (k * members + c) * 4, sizeof other);
                            v4 gap = factor * other - means[k];
                            squares[k] += gap * gap;
                        }
                }
            }
            for (int k = 0; k < count; k++) {
                v4 deviation = squares[k] / spread_divisor;
                for (int lane = 0; lane < 4; lane++) deviation[lane] = sqrt(deviation[lane]);
                if (members <= ddof) deviation = (v4){0.0, 0.0, 0.0, 0.0};
                memcpy(row_mean + k * 4, &means[k], sizeof means[k]);
                memcpy(row_spread + k * 4, &deviation, sizeof deviation);
            }
            memcpy(mean + i * n_queries + first, row_mean, (size_t)width * sizeof(double));
            memcpy(spread + i * n_queries + first, row_spread, (size_t)width * sizeof(double));
        }
    }
}

/* The number of thresholds <= u for every u (gap), sped up by where each of BUCKETS equal slices of [0, 1) starts. */
#define BUCKETS 4096

/*
 * The arrays of a fit, kept by each thread from one fit to the next (grown when a fit needs more, never freed):
 * a run makes hundreds of fits of one shape, and fresh memory would cost a page fault per 4 KiB on every fit.
 */
enum {
    ROW_START, COLUMN_START, ROW_OTHER, COLUMN_OTHER, COLUMN_NUMBER, ROW_VALUE, COLUMN_VALUE, ROW_DROPS,
    COLUMN_DROPS, BUCKET, U, V, FLAT, VB, ROW, ROW_STOPS, COLUMN_STOPS, PARTIAL, ARRAYS
};
static _Thread_local void *kept[ARRAYS];
static _Thread_local size_t kept_bytes[ARRAYS];

/* The thread's array which, with room for count elements of size bytes (contents not kept); NULL when memory runs
 * out. */
static void *room(int which, size_t count, size_t size) {
    size_t bytes = (count + 1) * size;
    if (bytes > kept_bytes[which]) {
        free(kept[which]);
        kept_bytes[which] = 0;
        kept[which] = malloc(bytes + bytes / 4);
        if (!kept[which]) return NULL;
        kept_bytes[which] = bytes + bytes / 4;
    }
    return kept[which];
}

/*
 * Fit number fit of the run seeded seed, rank 1: mean and spread (K x L) of the ensemble of members ALS
 * factorizations of scores (K x L, NaN where not observed), with the dropout thresholds table (table_size
 * entries, none for no dropout), ridge and sweeps. Returns -1 when memory runs out.
 */
EXPORT int lrf_fit(const double *scores, int64_t n_models, int64_t n_queries, uint64_t seed, uint64_t fit,
                   int64_t members, const double *table, int64_t table_size, double ridge, int64_t sweeps,
                   int64_t ddof, double *mean, double *spread) {
    int64_t cells = n_models * n_queries;
    int64_t tiles = (members + TILE - 1) / TILE, width = tiles * TILE, words = (width + 63) / 64;
    int64_t groups = (n_queries + 3) / 4;
    int64_t observed = 0;
    for (int64_t cell = 0; cell < cells; cell++) observed += scores[cell] == scores[cell];
    size_t slots = (size_t)observed, models = (size_t)n_models, queries = (size_t)n_queries;
    int64_t *row_start = room(ROW_START, models + 1, sizeof(int64_t));
    int64_t *column_start = room(COLUMN_START, queries + 2, sizeof(int64_t));
    int64_t *row_other = room(ROW_OTHER, slots, sizeof(int64_t));
    int64_t *column_other = room(COLUMN_OTHER, slots, sizeof(int64_t));
    int64_t *column_number = room(COLUMN_NUMBER, slots, sizeof(int64_t));
    double *row_value = room(ROW_VALUE, slots, sizeof(double)), *column_value = room(COLUMN_VALUE, slots, sizeof(double));
    uint64_t *row_drops = room(ROW_DROPS, slots * (size_t)words, sizeof(uint64_t));
    uint64_t *column_drops = room(COLUMN_DROPS, slots * (size_t)words, sizeof(uint64_t));
    int64_t *bucket = room(BUCKET, BUCKETS + 1, sizeof(int64_t));
    double *u = room(U, models * (size_t)width, sizeof(double));
    double *v = room(V, queries * (size_t)width, sizeof(double));
    double *flat = room(FLAT, models * (size_t)members, sizeof(double));
    double *vb = room(VB, (size_t)groups * 4 * (size_t)members, sizeof(double));
    double *row = room(ROW, 8 * BLOCK, sizeof(double));
    size_t lines = models > queries ? models : queries;
    size_t row_spans = (size_t)((n_queries + span_rows(n_queries, n_models, observed) - 1) /
                                span_rows(n_queries, n_models, observed));
    size_t column_spans = (size_t)((n_models + span_rows(n_models, n_queries, observed) - 1) /
                                   span_rows(n_models, n_queries, observed));
    int64_t *row_stops = room(ROW_STOPS, row_spans * models, sizeof(int64_t));
    int64_t *column_stops = room(COLUMN_STOPS, column_spans * queries, sizeof(int64_t));
    double *partial = room(PARTIAL, lines * 2 * TILE, sizeof(double));
    if (!row_start || !column_start || !row_other || !column_other || !column_number || !row_value ||
        !column_value || !row_drops || !column_drops || !bucket || !u || !v || !flat || !vb || !row || !row_stops ||
        !column_stops || !partial)
        return -1;
    memset(column_start, 0, (queries + 2) * sizeof(int64_t));
    memset(row_drops, 0, slots * (size_t)words * sizeof(uint64_t));
    memset(u, 0, models * (size_t)width * sizeof(double)); /* the lanes past the last member stay 0 */
    if (n_queries % 4) /* and the queries past L in the last group */
        memset(vb + (groups - 1) * 4 * members, 0, 4 * (size_t)members * sizeof(double));
    /* The observed cells by row (numbered in cell order) and by column (models ascending). */
    int64_t number = 0;
    for (int64_t i = 0; i < n_models; i++) { /* without a branch a cell: whether one is observed is random */
        row_start[i] = number;
        const double *line = scores + i * n_queries;
        for (int64_t j = 0; j < n_queries; j++) {
            double s = line[j];
            int64_t seen = s == s;
            row_other[number] = j;
            row_value[number] = s;
            column_start[j + 2] += seen;
            number += seen;
        }
    }
    row_start[n_models] = number;
    for (int64_t j = 0; j < n_queries; j++) column_start[j + 2] += column_start[j + 1];
    for (int64_t i = 0; i < n_models; i++) /* column_start[j + 1] is where column j's next cell goes */
        for (int64_t at = row_start[i]; at < row_start[i + 1]; at++) {
            int64_t place = column_start[row_other[at] + 1]++;
            column_other[place] = i;
            column_number[place] = at;
            column_value[place] = row_value[at];
        }
    /* Each member's stream block: its dropout gaps, then its initial model factors (Box-Muller). */
    if (table_size > 0)
        for (int64_t b = 0, g = 0; b <= BUCKETS; b++) {
            while (g < table_size && table[g] <= (double)b / BUCKETS) g++;
            bucket[b] = g;
        }
    uint64_t block = (uint64_t)cells + 1 + 2 * (uint64_t)(n_models + n_queries);
    double two_pi = 2.0 * M_PI;
    for (int64_t c = 0; c < members; c++) {
        uint64_t base = block * ((uint64_t)c + (uint64_t)members * fit);
        if (table_size > 0) {
            uint64_t k = 0;
            for (int64_t d = -1;;) {
                double draw = uniform(seed, base + k);
                int64_t g = bucket[(int64_t)(draw * BUCKETS)]; /* thresholds <= floor(draw * BUCKETS) / BUCKETS */
                while (g < table_size && table[g] <= draw) g++;
                d += 1 + g;
                if (d >= observed) break;
                row_drops[d * words + c / 64] |= 1ULL << (c % 64);
                k++;
            }
        }
        uint64_t first = base + (uint64_t)cells + 1;
        double *tile = u + (c / TILE) * n_models * TILE;
        for (int64_t i = 0; i < n_models; i++) {
            double u1 = uniform(seed, first + 2 * (uint64_t)i), u2 = uniform(seed, first + 2 * (uint64_t)i + 1);
            tile[i * TILE + c % TILE] = sqrt(-2.0 * log(1.0 - u1)) * cos(two_pi * u2);
        }
    }
    for (int64_t at = 0; at < observed; at++)
        memcpy(column_drops + at * words, row_drops + column_number[at] * words, (size_t)words * sizeof(uint64_t));
    span_stops(column_start, column_other, n_queries, n_models, column_stops);
    span_stops(row_start, row_other, n_models, n_queries, row_stops);
    for (int64_t at = 0; at < observed; at++) { /* from here on, where the other factor's row is in a tile */
        column_other[at] *= TILE;
        row_other[at] *= TILE;
    }
    for (int64_t sweep = 0; sweep < sweeps; sweep++) {
        half_sweep(column_start, column_stops, column_other, column_value, column_drops, words, n_queries, u, n_models,
                   tiles, ridge, v, partial);
        half_sweep(row_start, row_stops, row_other, row_value, row_drops, words, n_models, v, n_queries, tiles, ridge,
                   u, partial);
    }
    for (int64_t c = 0; c < members; c++) {
        const double *u_tile = u + (c / TILE) * n_models * TILE, *v_tile = v + (c / TILE) * n_queries * TILE;
        for (int64_t i = 0; i < n_models; i++) flat[i * members + c] = u_tile[i * TILE + c % TILE];
        for (int64_t j = 0; j < n_queries; j++) vb[((j / 4) * members + c) * 4 + j % 4] = v_tile[j * TILE + c % TILE];
    }
    statistics(flat, vb, n_models, n_queries, members, ddof, row, mean, spread);
    return 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
