// The AVX2 + FMA + F16C kernel, compiled for those instructions function by function (the rest of
// the build stays baseline x86_64) and only called when cvk_kernel_available says the CPU has them.
//
// With float16 copies of the rows it scans in two steps per block of four rows: approximate dot
// products over the float16 copy (half the memory traffic of float32, which is what bounds a scan
// of 100k × 128), then the exact float32 distance only for rows whose lower bound can still enter
// the kept set. Without copies it reads every row in float32.
#include "Kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <math.h>
#include <stdlib.h>

#define AVX2 __attribute__((target("avx2,fma,f16c")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2,fma,f16c")))

INLINE_AVX2 float horizontal_sum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

/// The exact dot products of `query` with `R` consecutive float32 rows (R ≤ 4). Two accumulators
/// per row (even and odd chunks of eight) keep eight FMA chains in flight for R = 4; the last
/// partial chunk is a masked load. Every row is summed in the same order whatever R is, so the
/// filtered scan, the full scan and cvk_dot agree to the bit.
INLINE_AVX2 void dot_rows(const float *query, const float *rows, size_t n, int R, float *out) {
    __m256 even[4], odd[4];
    for (int r = 0; r < R; r++) even[r] = odd[r] = _mm256_setzero_ps();
    size_t chunks = n / 8, c = 0;
    for (; c + 2 <= chunks; c += 2) {
        __m256 q0 = _mm256_loadu_ps(query + 8 * c), q1 = _mm256_loadu_ps(query + 8 * c + 8);
        for (int r = 0; r < R; r++) {
            const float *row = rows + (size_t)r * n + 8 * c;
            even[r] = _mm256_fmadd_ps(q0, _mm256_loadu_ps(row), even[r]);
            odd[r] = _mm256_fmadd_ps(q1, _mm256_loadu_ps(row + 8), odd[r]);
        }
    }
    if (c < chunks) {  // c is even here
        __m256 q0 = _mm256_loadu_ps(query + 8 * c);
        for (int r = 0; r < R; r++) even[r] = _mm256_fmadd_ps(q0, _mm256_loadu_ps(rows + (size_t)r * n + 8 * c), even[r]);
        c++;
    }
    size_t rest = n - 8 * c;
    if (rest) {
        // Lanes below `rest` load; the others read as zero and never touch memory.
        __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rest), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 q = _mm256_maskload_ps(query + 8 * c, mask);
        for (int r = 0; r < R; r++) {
            __m256 x = _mm256_maskload_ps(rows + (size_t)r * n + 8 * c, mask);
            if (c % 2 == 0) even[r] = _mm256_fmadd_ps(q, x, even[r]);
            else odd[r] = _mm256_fmadd_ps(q, x, odd[r]);
        }
    }
    for (int r = 0; r < R; r++) out[r] = horizontal_sum(_mm256_add_ps(even[r], odd[r]));
}

/// Approximate dot products of the zero-padded query with four float16 rows of `stride` values
/// (a multiple of 16).
INLINE_AVX2 __m128 half_dot4(const float *query, const uint16_t *rows, size_t stride) {
    __m256 even[4], odd[4];
    for (int r = 0; r < 4; r++) even[r] = odd[r] = _mm256_setzero_ps();
    for (size_t i = 0; i < stride; i += 16) {
        __m256 q0 = _mm256_loadu_ps(query + i), q1 = _mm256_loadu_ps(query + i + 8);
        for (int r = 0; r < 4; r++) {
            const uint16_t *row = rows + (size_t)r * stride + i;
            even[r] = _mm256_fmadd_ps(q0, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)row)), even[r]);
            odd[r] = _mm256_fmadd_ps(q1, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + 8))), odd[r]);
        }
    }
    __m256 a = _mm256_hadd_ps(_mm256_add_ps(even[0], odd[0]), _mm256_add_ps(even[1], odd[1]));
    __m256 b = _mm256_hadd_ps(_mm256_add_ps(even[2], odd[2]), _mm256_add_ps(even[3], odd[3]));
    __m256 s = _mm256_hadd_ps(a, b);  // row r's halves in lanes r and r + 4
    return _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
}

AVX2 float cvk_dot_avx2(const float *a, const float *b, size_t n) {
    float out;
    dot_rows(a, b, n, 1, &out);
    return out;
}

/// Every row in float32.
AVX2 static void scan_full(const cvk_matrix *matrix, const float *query, cvk_top *top) {
    size_t n = matrix->dimension, count = matrix->count, r = 0;
    float dots[4];
    for (; r + 4 <= count; r += 4) {
        dot_rows(query, matrix->rows + r * n, n, 4, dots);
        __m128 distances = _mm_sub_ps(_mm_set1_ps(1.0f), _mm_loadu_ps(dots));
        if (_mm_movemask_ps(_mm_cmple_ps(distances, _mm_set1_ps(cvk_top_threshold(top)))))
            for (int k = 0; k < 4; k++) cvk_top_consider(top, (uint32_t)(r + k), 1.0f - dots[k]);
    }
    for (; r < count; r++) {
        dot_rows(query, matrix->rows + r * n, n, 1, dots);
        cvk_top_consider(top, (uint32_t)r, 1.0f - dots[0]);
    }
}

/// Float16 first, float32 only where it can matter.
///
/// Why it is exact: let D be the float32 dot product dot_rows computes for a row and A the one
/// half_dot4 computes over its float16 copy. cvk_encode_half_row's allowance bounds |D − A| per
/// unit of |q| (copy error plus both roundings); `slack` is that times |q|, enlarged to also cover
/// the float rounding of A + slack. So D ≤ fl(A + slack), and as rounding is monotonic the exact
/// distance fl(1 − D) ≥ fl(1 − fl(A + slack)) = the lower bound tested here. A row whose lower
/// bound exceeds the threshold would have been refused by cvk_top_consider anyway.
AVX2 static void scan_filtered(const cvk_matrix *matrix, const float *query, float slack, cvk_top *top) {
    size_t n = matrix->dimension, count = matrix->count, stride = cvk_half_stride(n), r = 0;
    float *padded = calloc(stride, sizeof(float));
    if (!padded) {
        scan_full(matrix, query, top);
        return;
    }
    for (size_t i = 0; i < n; i++) padded[i] = query[i];
    const __m128 one = _mm_set1_ps(1.0f), twos = _mm_set1_ps(2.0f), slacks = _mm_set1_ps(slack);
    for (; r + 4 <= count; r += 4) {
        __m128 approximate = half_dot4(padded, matrix->half_rows + r * stride, stride);
        __m128 lower = _mm_sub_ps(one, _mm_add_ps(approximate, slacks));
        // A row whose |A| reaches 2 (never, for unit rows and query) is computed exactly too, so
        // |A + slack| < 2.5 wherever the bound is used and its rounding stays under 2^-23.
        __m128 large = _mm_cmpge_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), approximate), twos);
        int candidates = _mm_movemask_ps(
            _mm_or_ps(_mm_cmple_ps(lower, _mm_set1_ps(cvk_top_threshold(top))), large));
        while (candidates) {
            int k = __builtin_ctz((unsigned)candidates);
            candidates &= candidates - 1;
            float dot;
            dot_rows(query, matrix->rows + (r + k) * n, n, 1, &dot);
            cvk_top_consider(top, (uint32_t)(r + k), 1.0f - dot);
        }
    }
    for (; r < count; r++) {  // the last < 4 rows, exactly
        float dot;
        dot_rows(query, matrix->rows + r * n, n, 1, &dot);
        cvk_top_consider(top, (uint32_t)r, 1.0f - dot);
    }
    free(padded);
}

void cvk_scan_avx2(const cvk_matrix *matrix, const float *query, cvk_top *top) {
    // The filter pays only when the allowance is small next to the spread of distances; a copy
    // that lost too much (values beyond the float16 range) is not used at all.
    if (matrix->half_rows && isfinite(matrix->half_allowance) && matrix->half_allowance < 0.25) {
        double norm2 = 0;
        for (size_t i = 0; i < matrix->dimension; i++) norm2 += (double)query[i] * query[i];
        // ×(1 + 2^-10) and + 2^-21 (more than half an ulp of any |A + slack| < 2.5) absorb the
        // rounding of this arithmetic and of the float addition A + slack.
        double slack = sqrt(norm2) * matrix->half_allowance * (1 + 0x1p-10) + 0x1p-21;
        float rounded = (float)slack;
        if ((double)rounded < slack) rounded = nextafterf(rounded, INFINITY);
        if (isfinite(rounded) && rounded < 0.5f) {
            scan_filtered(matrix, query, rounded, top);
            return;
        }
    }
    scan_full(matrix, query, top);
}
#endif
