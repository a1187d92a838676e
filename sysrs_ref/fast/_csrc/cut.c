/* UCB-E / SyUCB-E certified cuts and rankings (sysrs_ref.fast._ucb._cut, _ranking): cut.inc, once per sum dtype. */
#include "common.h"

/* int64 products wrap as numpy's do (the callers only ask when they cannot overflow). */
static inline int64_t wrapping_product(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

/* The index at count position + 1 as P q + r D over that count (common factor D q dropped); -1 if irrational. */
static inline int64_t rational_numerator(int64_t total, int64_t position, const int64_t *squares,
                                         int64_t a_denominator, int64_t denominator) {
    int64_t root = squares[position];
    if (root < 0) return -1;
    return (int64_t)((uint64_t)wrapping_product(total, a_denominator) + (uint64_t)wrapping_product(root, denominator));
}

/* models[0:n] by increasing rank (insertion sort: a cut's band holds few arms). */
static void sort_by_rank(int64_t *models, int64_t n, const int32_t *rank) {
    for (int64_t i = 1; i < n; i++) {
        int64_t model = models[i], at = i;
        while (at > 0 && rank[models[at - 1]] > rank[model]) {
            models[at] = models[at - 1];
            at--;
        }
        models[at] = model;
    }
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

#define ST int32_t
#define SUFFIX i32
#include "cut.inc"
#define ST int64_t
#define SUFFIX i64
#include "cut.inc"
#define ST double
#define SUFFIX f64
#include "cut.inc"
