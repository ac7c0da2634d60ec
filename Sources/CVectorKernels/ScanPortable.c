// The portable kernel: plain C over float32 rows, for any CPU (the compiler vectorises the eight
// lanes with whatever the baseline offers, SSE2 or NEON).
#include "Kernels.h"

/// The dot products of `query` with `R` consecutive rows (R ≤ 4). Every row is summed in the same
/// order whatever R is (eight lanes over i mod 8, a fixed reduction tree, then the tail), so a
/// row's distance does not depend on where in a block it falls.
static inline __attribute__((always_inline)) void dot_rows(
    const float *query, const float *rows, size_t n, int R, float *out) {
    float lanes[4][8] = {{0}};
    size_t full = n / 8 * 8;
    for (size_t i = 0; i < full; i += 8)
        for (int r = 0; r < R; r++)
            for (int j = 0; j < 8; j++) lanes[r][j] += query[i + j] * rows[(size_t)r * n + i + j];
    for (int r = 0; r < R; r++) {
        const float *l = lanes[r];
        float sum = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
        for (size_t i = full; i < n; i++) sum += query[i] * rows[(size_t)r * n + i];
        out[r] = sum;
    }
}

float cvk_dot_portable(const float *a, const float *b, size_t n) {
    float out;
    dot_rows(a, b, n, 1, &out);
    return out;
}

void cvk_scan_portable(const cvk_matrix *matrix, const float *query, cvk_top *top) {
    size_t n = matrix->dimension, count = matrix->count, r = 0;
    float dots[4];
    for (; r + 4 <= count; r += 4) {
        dot_rows(query, matrix->rows + r * n, n, 4, dots);
        float threshold = cvk_top_threshold(top);
        // One test for the four, as most blocks hold no candidate at all.
        if (1.0f - dots[0] <= threshold || 1.0f - dots[1] <= threshold || 1.0f - dots[2] <= threshold
            || 1.0f - dots[3] <= threshold)
            for (int k = 0; k < 4; k++) cvk_top_consider(top, (uint32_t)(r + k), 1.0f - dots[k]);
    }
    for (; r < count; r++) {
        dot_rows(query, matrix->rows + r * n, n, 1, dots);
        cvk_top_consider(top, (uint32_t)r, 1.0f - dots[0]);
    }
}
