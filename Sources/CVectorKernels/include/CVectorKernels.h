// Exact nearest-neighbour scan kernels for SearchSession's VectorIndex: plain C, no outside
// dependencies. An AVX2+FMA+F16C variant is chosen at run time where the CPU has it; a portable
// variant runs everywhere else (and in tests, on demand).
#ifndef CVECTORKERNELS_H
#define CVECTORKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which implementation a scan uses.
typedef enum {
    /// Plain C over float32 rows; any CPU.
    CVK_KERNEL_PORTABLE = 0,
    /// AVX2 + FMA + F16C (x86_64 only; check `cvk_kernel_available`).
    CVK_KERNEL_AVX2 = 1,
} cvk_kernel;

/// The fastest kernel this CPU (and its OS) can run.
cvk_kernel cvk_best_kernel(void);

/// Whether this CPU can run `kernel`.
int cvk_kernel_available(cvk_kernel kernel);

/// The number of float16 values a row's compressed copy takes: `dimension` rounded up to 16, the
/// padding zero, so the filter pass never needs a partial load.
size_t cvk_half_stride(size_t dimension);

/// Writes the float16 copy of `row` (round to nearest even, saturating at ±65504) into
/// `cvk_half_stride(dimension)` values at `out`, and returns the row's error allowance: an upper
/// bound on |q·x − q·x̃| + the float32 rounding of both dot products, per unit of |q|. The filter
/// pass uses the largest allowance of all rows.
double cvk_encode_half_row(const float *row, size_t dimension, uint16_t *out);

/// The float value of a float16 bit pattern (exact).
float cvk_half_to_float(uint16_t half);

/// The rows a search reads: `count` rows of `dimension` floats, contiguous, and optionally their
/// float16 copies (`half_rows`, `cvk_half_stride(dimension)` values each) with the largest row
/// allowance `half_allowance` from `cvk_encode_half_row`.
typedef struct {
    const float *rows;
    size_t count;
    size_t dimension;
    /// NULL: no filter pass; every row is read in float32.
    const uint16_t *half_rows;
    double half_allowance;
} cvk_matrix;

/// The dot product of `a` and `b` (`n` values each) exactly as a scan with `kernel` computes it
/// for one row.
float cvk_dot(cvk_kernel kernel, const float *a, const float *b, size_t n);

/// The `limit` rows nearest to `query` by `1 − query·row` within `max_distance`, nearest first,
/// ties by row index. Writes at most `min(limit, count)` row indices and distances and returns
/// how many. The answer does not depend on whether `half_rows` is given: the filter pass only
/// skips rows whose distance provably cannot enter the answer, and every kept distance is the
/// float32 one.
size_t cvk_search(
    cvk_kernel kernel, const cvk_matrix *matrix, const float *query, float max_distance, size_t limit,
    uint32_t *out_rows, float *out_distances);

// Local features for geometric verification (the image path's second stage).
#include "LocalFeatures.h"
#include "FacetCount.h"
#include "DenseMatch.h"

#endif
