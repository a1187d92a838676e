/*
 * The rotations of the fixed-order SVD (sysrs_ref._fixed_order.jacobi_sweeps), the same doubles: one-sided Jacobi
 * sweeps over the rounds of the circle method, on the C-ordered (n + size) x size array `joint` (A V over V).
 *
 * numpy computes a round's sums with einsum("ij,ij->j") on the gathered blocks of the pairs' columns, which hold
 * each column's n entries together; einsum then sums each column as a dot product in SIMD pairs (its
 * sum_of_products_contig_contig_outstride0_two loop at numpy's baseline): two running sums, lane 0 taking rows
 * 0, 2, 4, ... and lane 1 rows 1, 3, 5, ...; the rows go in blocks of 8, each block's four pairs of rows added last
 * pair first (rows 6-7, 4-5, 2-3, 0-1), then the rows after the last whole block pair by pair; the column's sum is
 * 0 + (lane 0 + lane 1). sum_pairs below adds in that order. sysrs_ref/fast/_compiled.py checks once per process
 * that this numpy sums so (it falls back to numpy's loop otherwise). The rest is elementwise: the same operations
 * as numpy's in the same order, each rounded (no fused multiply-adds: pyproject.toml builds with
 * -ffp-contract=off).
 */
#include "common.h"

/* A pair's three sums over rows 0 .. n-1 of columns x and y, in einsum's order (above). */
static void sum_pairs(const double *joint, int64_t n, int64_t size, int64_t x, int64_t y, double *alpha, double *beta,
                      double *gamma) {
    double a[2] = {0.0, 0.0}, b[2] = {0.0, 0.0}, g[2] = {0.0, 0.0};
    int64_t i = 0;
    for (; n - i >= 8; i += 8) {
        for (int64_t v = 3; v >= 0; v--) {
            for (int64_t lane = 0; lane < 2; lane++) {
                const double *row = joint + (i + 2 * v + lane) * size;
                double u = row[x], w = row[y];
                a[lane] = a[lane] + u * u;
                b[lane] = b[lane] + w * w;
                g[lane] = g[lane] + u * w;
            }
        }
    }
    for (; i < n; i++) {
        const double *row = joint + i * size;
        int64_t lane = i % 2;
        double u = row[x], w = row[y];
        a[lane] = a[lane] + u * u;
        b[lane] = b[lane] + w * w;
        g[lane] = g[lane] + u * w;
    }
    *alpha = 0.0 + (a[0] + a[1]);
    *beta = 0.0 + (b[0] + b[1]);
    *gamma = 0.0 + (g[0] + g[1]);
}

/* `first` and `second` are the rounds' pairs, (size - 1) x size/2 each, round after round; `scratch` holds 5 size/2
 * doubles. */
EXPORT void jacobi_sweeps(double *joint, int64_t n, int64_t size, const int64_t *first, const int64_t *second,
                           double tol, int64_t max_sweeps, double *scratch) {
    const int64_t half = size / 2, rows = n + size;
    double *alpha = scratch, *beta = scratch + half, *gamma = scratch + 2 * half;
    double *cs = scratch + 3 * half, *sn = scratch + 4 * half;
    for (int64_t sweep = 0; sweep < max_sweeps; sweep++) {
        int rotated = 0;
        for (int64_t round = 0; round < size - 1; round++) {
            const int64_t *fi = first + round * half, *se = second + round * half;
            for (int64_t p = 0; p < half; p++) sum_pairs(joint, n, size, fi[p], se[p], alpha + p, beta + p, gamma + p);
            int any = 0;
            for (int64_t p = 0; p < half; p++) {
                double g = gamma[p];
                int turn = g != 0.0 && fabs(g) > tol * sqrt(alpha[p] * beta[p]);
                if (turn) {
                    double zeta = (beta[p] - alpha[p]) / (2.0 * g), size_of_zeta = fabs(zeta), t;
                    if (size_of_zeta > 1e150) {
                        t = 0.5 / zeta;
                    } else {
                        t = copysign(1.0, zeta) / (size_of_zeta + sqrt(1.0 + zeta * zeta));
                    }
                    cs[p] = 1.0 / sqrt(1.0 + t * t);
                    sn[p] = cs[p] * t;
                    any = 1;
                } else {
                    cs[p] = 1.0;
                    sn[p] = 0.0;
                }
            }
            if (!any) continue;
            rotated = 1;
            for (int64_t r = 0; r < rows; r++) {
                double *row = joint + r * size;
                for (int64_t p = 0; p < half; p++) {
                    double x = row[fi[p]], y = row[se[p]], c = cs[p], s = sn[p];
                    row[fi[p]] = c * x - s * y;
                    row[se[p]] = s * x + c * y;
                }
            }
        }
        if (!rotated) break;
    }
}
