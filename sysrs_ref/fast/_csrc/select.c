/* UCB-E / SyUCB-E order statistics (sysrs_ref.fast._ucb._order_statistics, sysrs_ref.fast._compiled.ucb_select). */
#include "common.h"

/* The binned path's bins (many budgets): the fewest power of 2 from MIN_BINS on with at most BIN_LOAD of the rows' K W
 * keys times the B budgets a bin, and at most MAX_BINS (a bin's number fits in 16 bits). The more budgets, the more
 * bins hold a theta, whose blocks go to a quickselect: more bins then hold fewer keys each, for a histogram that is
 * longer to clear and to sum. */
#define MIN_BINS 4096
#define MAX_BINS 65536
#define BIN_LOAD 4096

/* The bin of a key: floor((value - lowest) * scale), at most n_bins - 1; nondecreasing in the value. */
static inline int64_t bin_of(double value, double lowest, double scale, int64_t n_bins) {
    double at = (value - lowest) * scale;
    if (!(at > 0.0)) return 0; /* also NaN, from infinite keys: all in bin 0 (scale is then 0) */
    return at >= (double)(n_bins - 1) ? n_bins - 1 : (int64_t)at;
}

/* Positions a block search skips at once: a row is nonincreasing, so when the keys CHUNK apart are equal, so are
 * all the keys between them. */
#define CHUNK 16

/* at_least[j] = keys of the run's rows (row i's first lengths[i]) in bins >= j; row i's blocks (runs of equal keys)
 * start at starts[i * width + b] for b < blocks[i], bins[i * width + b] is block b's bin, nonincreasing along the
 * row, and in_bin[j] counts the blocks in bin j. The bins span the previous thetas (guess) and a quarter of their
 * range either side, or the keys' whole range without guesses. */
static void histogram(const double *rows, int64_t n_models, int64_t width, const int64_t *lengths,
                      const double *guess, int64_t n_budgets, int64_t n_bins, int64_t *at_least, uint16_t *bins,
                      int32_t *starts, int64_t *blocks, int64_t *in_bin) {
    double lowest = rows[lengths[0] - 1], highest = rows[0];
    for (int64_t model = 1; model < n_models; model++) {
        double last = rows[model * width + lengths[model] - 1], first = rows[model * width];
        lowest = last < lowest ? last : lowest;
        highest = first > highest ? first : highest;
    }
    double low_guess = INFINITY, high_guess = -INFINITY;
    for (int64_t budget = 0; budget < n_budgets; budget++) {
        /* a NaN guess compares false both ways, so it is passed over */
        low_guess = guess[budget] < low_guess ? guess[budget] : low_guess;
        high_guess = guess[budget] > high_guess ? guess[budget] : high_guess;
    }
    if (low_guess < high_guess) {
        double margin = 0.25 * (high_guess - low_guess);
        double low = low_guess - margin, high = high_guess + margin;
        lowest = low > lowest ? low : lowest;
        highest = high < highest ? high : highest;
    }
    double scale = highest > lowest ? (double)n_bins / (highest - lowest) : 0.0;
    memset(at_least, 0, (n_bins + 1) * sizeof(int64_t));
    memset(in_bin, 0, n_bins * sizeof(int64_t));
    for (int64_t model = 0; model < n_models; model++) {
        const double *row = rows + model * width;
        int32_t *first = starts + model * width;
        uint16_t *block_bins = bins + model * width;
        int64_t length = lengths[model], count = 1, position = 1;
        int sparse = 1; /* the last CHUNK positions looked at one by one started at most one block */
        first[0] = 0;
        while (position < length) { /* where a block starts: CHUNK positions at once, or one by one with no branch */
            if (sparse && position + CHUNK <= length && row[position + CHUNK - 1] == row[position - 1]) {
                position += CHUNK;
                continue;
            }
            int64_t stop = position + CHUNK < length ? position + CHUNK : length, before = count;
            for (; position < stop; position++) {
                first[count] = (int32_t)position;
                count += row[position] != row[position - 1];
            }
            sparse = count - before <= 1;
        }
        for (int64_t block = 0; block < count; block++) { /* each block binned once, with all its keys */
            int64_t end = block + 1 < count ? first[block + 1] : length;
            uint16_t bin = (uint16_t)bin_of(row[first[block]], lowest, scale, n_bins);
            block_bins[block] = bin;
            at_least[bin] += end - first[block];
            in_bin[bin]++;
        }
        blocks[model] = count;
    }
    for (int64_t at = n_bins - 1; at >= 0; at--) at_least[at] += at_least[at + 1];
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

/* A budget's memory (ucb_select): its last theta, and the typical change from run to run. */
static void remember(double *guess, double *step, int64_t budget, double value) {
    if (!isnan(guess[budget])) {
        double change = fabs(value - guess[budget]);
        step[budget] = isnan(step[budget]) ? change : 0.5 * step[budget] + 0.5 * change;
    }
    guess[budget] = value;
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

/* A block of keys in a bin theta falls in: its key, and how many keys hold it. */
typedef struct {
    double key;
    int64_t length;
} entry_t;

/* The key of the k-th largest of the keys the entries e[0:n] hold (1 <= k <= their lengths' sum), entries reordered:
 * a quickselect that splits at each step into the keys above, at and below a pivot, weighted by lengths. */
static double kth_largest_held(entry_t *e, int64_t n, int64_t k) {
    int64_t low = 0, high = n;
    for (;;) {
        double pivot = e[low + (high - low) / 2].key;
        int64_t above = low, at = low, below = high, held_above = 0, held_at = 0;
        while (at < below) { /* e[low:above] > pivot, e[above:at] == pivot, e[below:high] < pivot */
            entry_t entry = e[at];
            if (entry.key > pivot) {
                e[at++] = e[above];
                e[above++] = entry;
                held_above += entry.length;
            } else if (entry.key < pivot) {
                e[at] = e[--below];
                e[below] = entry;
            } else {
                held_at += entry.length;
                at++;
            }
        }
        if (k <= held_above) {
            high = above;
        } else if (k <= held_above + held_at) {
            return pivot;
        } else {
            k -= held_above + held_at;
            low = below;
        }
    }
}

/* What a binned run works in (ucb_select): the histogram's arrays (at_least, blocks, in_bin, bins, starts); slot[j]
 * (n_bins), the place of bin j among the bins some theta falls in, -1 for the others; offsets (B + 1) and filled (B),
 * where the blocks of each such bin go in entries (capacity of them); bin_at (B) and values (B): each budget's bin
 * and theta, by increasing pulls. */
typedef struct {
    int64_t *at_least, *blocks, *in_bin, *slot, *offsets, *filled, *bin_at;
    uint16_t *bins;
    int32_t *starts;
    double *values;
    entry_t *entries;
    int64_t capacity, n_bins;
} binned_t;

/* The first block from block on whose key (row[first[b]]) is <= value, or count: by doubling steps, then halving. */
static inline int64_t first_not_above(const double *row, const int32_t *first, int64_t block, int64_t count,
                                      double value) {
    if (block >= count || !(row[first[block]] > value)) return block;
    int64_t low = block, high = block + 1, step = 1; /* row[first[low]] > value */
    while (high < count && row[first[high]] > value) {
        low = high;
        step *= 2;
        high = low + step;
    }
    high = high < count ? high : count;
    while (high - low > 1) {
        int64_t middle = low + (high - low) / 2;
        if (row[first[middle]] > value)
            low = middle;
        else
            high = middle;
    }
    return high;
}

/*
 * One run of ucb_select from its histogram, for many budgets. Each budget's theta is in the bin where at_least
 * reaches its pulls: it is the (pulls - the keys of the bins above)-th largest key of that bin. Then each model's
 * blocks are searched against every theta in turn: both decrease, so the model's keys above theta end where its
 * first block not above theta starts (found by doubling steps from the last one), and its keys at theta are that
 * block if it holds theta (consecutive blocks hold different keys). Returns -1 when memory runs out.
 */
static int binned_run(const double *rows, int64_t n_models, int64_t width, const int64_t *lengths,
                      const int64_t *pulls, int64_t n_budgets, const int64_t *order, double *guess, double *step,
                      binned_t *work, int64_t run, double *theta, int64_t *above, int64_t *upto, double *nearest,
                      int64_t *sizes, int64_t *band) {
    const int64_t *at_least = work->at_least, *blocks = work->blocks;
    int64_t *slot = work->slot, *offsets = work->offsets;
    histogram(rows, n_models, width, lengths, guess, n_budgets, work->n_bins, work->at_least, work->bins,
              work->starts, work->blocks, work->in_bin);
    int64_t current = work->n_bins - 1, n_slots = 0;
    for (int64_t index = 0; index < n_budgets; index++) {
        while (at_least[current] < pulls[order[index]]) current--;
        work->bin_at[index] = current;
        if (slot[current] < 0) slot[current] = n_slots++;
    }
    offsets[0] = 0;
    for (int64_t index = 0, place = 0; index < n_budgets; index++) /* the slots in order of their bins' budgets */
        if (slot[work->bin_at[index]] == place) {
            offsets[place + 1] = offsets[place] + work->in_bin[work->bin_at[index]];
            place++;
        }
    if (offsets[n_slots] > work->capacity) {
        entry_t *grown = realloc(work->entries, 2 * offsets[n_slots] * sizeof(entry_t));
        if (!grown) return -1;
        work->entries = grown;
        work->capacity = 2 * offsets[n_slots];
    }
    entry_t *entries = work->entries;
    memcpy(work->filled, offsets, n_slots * sizeof(int64_t));
    for (int64_t model = 0; model < n_models; model++) {
        const double *row = rows + model * width;
        const uint16_t *block_bins = work->bins + model * width;
        const int32_t *first = work->starts + model * width;
        for (int64_t block = 0, count = blocks[model]; block < count; block++) {
            int64_t place = slot[block_bins[block]];
            if (place < 0) continue;
            int64_t end = block + 1 < count ? first[block + 1] : lengths[model];
            entries[work->filled[place]++] = (entry_t){row[first[block]], end - first[block]};
        }
    }
    for (int64_t index = 0; index < n_budgets; index++) {
        int64_t budget = order[index], bin = work->bin_at[index], place = slot[bin];
        int64_t wanted = pulls[budget] - at_least[bin + 1]; /* the keys of the bins above come first */
        double value = kth_largest_held(entries + offsets[place], offsets[place + 1] - offsets[place], wanted);
        int64_t cut = run * n_budgets + budget;
        work->values[index] = value;
        theta[cut] = value;
        remember(guess, step, budget, value);
        nearest[2 * cut] = INFINITY;
        nearest[2 * cut + 1] = -INFINITY;
        sizes[2 * cut] = sizes[2 * cut + 1] = 0;
    }
    for (int64_t index = 0; index < n_budgets; index++) slot[work->bin_at[index]] = -1;
    for (int64_t model = 0; model < n_models; model++) {
        const double *row = rows + model * width;
        const int32_t *first = work->starts + model * width;
        int64_t count = blocks[model], length = lengths[model], block = 0;
        for (int64_t index = 0; index < n_budgets; index++) {
            double value = work->values[index];
            int64_t cut = run * n_budgets + order[index];
            block = first_not_above(row, first, block, count, value);
            int64_t strict = block < count ? first[block] : length;
            int64_t next = block + (block < count && row[first[block]] == value);
            int64_t loose = next < count ? first[next] : length;
            above[cut * n_models + model] = strict;
            upto[cut * n_models + model] = loose;
            if (strict > 0 && row[strict - 1] < nearest[2 * cut]) nearest[2 * cut] = row[strict - 1];
            if (loose < length && row[loose] > nearest[2 * cut + 1]) nearest[2 * cut + 1] = row[loose];
            sizes[2 * cut] += strict;
            if (loose > strict) {
                if (sizes[2 * cut + 1] < BAND) band[cut * BAND + sizes[2 * cut + 1]] = model;
                sizes[2 * cut + 1]++;
            }
        }
    }
    return 0;
}

/*
 * For each run and budget: theta the pulls[b]-th largest key, and per model how many keys are > and >= it
 * (sysrs_ref.fast._compiled.ucb_select). While the rows are at hand, what the cut's certification (cut.inc) needs:
 * nearest[r, b] = (the smallest key above theta, the largest below it), sizes[r, b] = (the keys above theta in
 * all, the band arms: those with keys at theta) and band[r, b] the first BAND band arms, by model. memory (2, B):
 * each budget's last theta and its typical change, updated. Returns 0, or -1 when memory runs out. Binned: each run
 * by binned_run. Otherwise budgets go by increasing pulls, so theta never rises: each model's keys are split at
 * low_at <= high_at, those before above theta, those from high_at on below it, and the bracket between is searched.
 */
EXPORT int ucb_select(const double *keys, int64_t n_runs, int64_t n_models, int64_t width, const int64_t *stops,
                      const int64_t *pulls, int64_t n_budgets, double *memory, int binned, double *theta,
                      int64_t *above, int64_t *upto, double *nearest, int64_t *sizes, int64_t *band) {
    int64_t limit = n_models > 64 ? n_models : 64;
    int64_t capacity = 64;
    int64_t *order = malloc(n_budgets * sizeof(int64_t));
    int64_t *low_at = malloc(n_models * sizeof(int64_t));  /* keys before are >= the bracket's top */
    int64_t *high_at = malloc(n_models * sizeof(int64_t)); /* keys from here on are < its bottom */
    int64_t *probe = malloc(n_models * sizeof(int64_t));
    double *members = malloc(capacity * sizeof(double));
    double *guess = memory, *step = memory + n_budgets;
    int64_t cells = n_models * width > 0 ? n_models * width : 1;
    binned_t work = {0};
    if (binned) {
        work.n_bins = MIN_BINS;
        while (work.n_bins < MAX_BINS && work.n_bins * BIN_LOAD < cells * n_budgets) work.n_bins *= 2;
        work.at_least = malloc((work.n_bins + 1) * sizeof(int64_t));
        work.blocks = malloc(n_models * sizeof(int64_t));
        work.slot = malloc(work.n_bins * sizeof(int64_t));
        work.offsets = malloc((n_budgets + 1) * sizeof(int64_t));
        work.filled = malloc(n_budgets * sizeof(int64_t));
        work.bin_at = malloc(n_budgets * sizeof(int64_t));
        work.values = malloc(n_budgets * sizeof(double));
        work.bins = malloc(cells * sizeof(uint16_t));
        work.in_bin = malloc(work.n_bins * sizeof(int64_t));
        work.starts = malloc(cells * sizeof(int32_t));
    }
    int status = 0;
    if (!order || !low_at || !high_at || !probe || !members ||
        (binned && (!work.at_least || !work.blocks || !work.slot || !work.offsets || !work.filled || !work.bin_at ||
                    !work.values || !work.bins || !work.starts || !work.in_bin))) {
        status = -1;
        goto done;
    }
    order_by_pulls(pulls, n_budgets, order);
    for (int64_t at = 0; binned && at < work.n_bins; at++) work.slot[at] = -1;
    for (int64_t run = 0; run < n_runs; run++) {
        const double *rows = keys + run * n_models * width;
        const int64_t *lengths = stops + run * n_models;
        if (binned) {
            status = binned_run(rows, n_models, width, lengths, pulls, n_budgets, order, guess, step, &work, run, theta,
                                above, upto, nearest, sizes, band);
            if (status) goto done;
            continue;
        }
        for (int64_t model = 0; model < n_models; model++) low_at[model] = 0;
        int64_t last_cut = -1, last_upto = 0; /* the last budget's cut, and its keys >= its theta */
        for (int64_t budget_index = 0; budget_index < n_budgets; budget_index++) {
            int64_t budget = order[budget_index], wanted = pulls[budget];
            int64_t above_sum = 0, below_sum = 0;
            if (last_cut >= 0 && wanted <= last_upto) { /* fewer keys are > the last theta, and enough are >= it */
                int64_t cut = run * n_budgets + budget;
                double value = theta[last_cut];
                theta[cut] = value;
                remember(guess, step, budget, value);
                memcpy(above + cut * n_models, above + last_cut * n_models, n_models * sizeof(int64_t));
                memcpy(upto + cut * n_models, upto + last_cut * n_models, n_models * sizeof(int64_t));
                memcpy(nearest + 2 * cut, nearest + 2 * last_cut, 2 * sizeof(double));
                memcpy(sizes + 2 * cut, sizes + 2 * last_cut, 2 * sizeof(int64_t));
                memcpy(band + cut * BAND, band + last_cut * BAND, BAND * sizeof(int64_t));
                last_cut = cut;
                continue;
            }
            for (int64_t model = 0; model < n_models; model++) { /* the bracket: below the last theta */
                high_at[model] = lengths[model];
                above_sum += low_at[model];
                below_sum += lengths[model];
            }
            /* 0: the guess, 1: stepping away from it, 2: halving */
            int phase = !isnan(guess[budget]) ? 0 : 2;
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
            remember(guess, step, budget, value);
            int64_t *strict_out = above + (run * n_budgets + budget) * n_models;
            int64_t *loose_out = upto + (run * n_budgets + budget) * n_models;
            double nearest_up = INFINITY, nearest_down = -INFINITY;
            int64_t cut = run * n_budgets + budget, total_above = 0, total_upto = 0, n_band = 0;
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
                total_above += strict;
                total_upto += loose;
                if (loose > strict) {
                    if (n_band < BAND) band[cut * BAND + n_band] = model;
                    n_band++;
                }
            }
            nearest[2 * cut] = nearest_up;
            nearest[2 * cut + 1] = nearest_down;
            sizes[2 * cut] = total_above;
            sizes[2 * cut + 1] = n_band;
            memcpy(low_at, strict_out, n_models * sizeof(int64_t)); /* the next budget's theta is <= this one */
            last_cut = cut;
            last_upto = total_upto;
        }
    }
done:
    free(order);
    free(low_at);
    free(high_at);
    free(probe);
    free(members);
    free(work.at_least);
    free(work.blocks);
    free(work.slot);
    free(work.offsets);
    free(work.filled);
    free(work.bin_at);
    free(work.values);
    free(work.bins);
    free(work.starts);
    free(work.entries);
    free(work.in_bin);
    return status;
}

/*
 * count_above (sysrs_ref.fast._ucb_exact.count_above, sysrs_ref.fast._compiled.count_above): out[q] = how many of
 * row row_ids[q]'s width entries (nonincreasing) are > theta[q] (>= when not strict). The very steps of the numpy
 * loop (bit_length(width) halvings, the probe clipped to the last entry, a step only while low < high), so the
 * counts are its counts on any input.
 */
EXPORT void count_above(const double *rows, int64_t width, const int64_t *row_ids, const double *theta, int64_t n,
                        int strict, int64_t *out) {
    int steps = 0;
    for (uint64_t left = (uint64_t)width; left; left >>= 1) steps++;
    for (int64_t q = 0; q < n; q++) {
        const double *row = rows + row_ids[q] * width;
        double pivot = theta[q];
        int64_t low = 0, high = width;
        for (int step = 0; step < steps; step++) {
            int64_t mid = (low + high) >> 1;
            double value = row[mid < width - 1 ? mid : width - 1];
            int right = (strict ? value > pivot : value >= pivot) && low < high;
            if (right)
                low = mid + 1;
            else
                high = mid;
        }
        out[q] = low;
    }
}
