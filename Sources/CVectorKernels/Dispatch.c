// Run-time choice of kernel: one build runs on any x86_64 or aarch64 machine.
#include "CVectorKernels.h"
#include "Kernels.h"

int cvk_kernel_available(cvk_kernel kernel) {
    switch (kernel) {
    case CVK_KERNEL_PORTABLE: return 1;
    case CVK_KERNEL_AVX2:
#if defined(__x86_64__)
        __builtin_cpu_init();
        // __builtin_cpu_supports also checks that the OS saves the AVX registers (XCR0).
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#else
        return 0;
#endif
    }
    return 0;
}

int cvk_has_popcnt(void) {
#if defined(__x86_64__)
    static int known = -1;
    int has = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("popcnt") ? 1 : 0;
        __atomic_store_n(&known, has, __ATOMIC_RELEASE);
    }
    return has;
#else
    return 0;
#endif
}

cvk_kernel cvk_best_kernel(void) {
    return cvk_kernel_available(CVK_KERNEL_AVX2) ? CVK_KERNEL_AVX2 : CVK_KERNEL_PORTABLE;
}

float cvk_dot(cvk_kernel kernel, const float *a, const float *b, size_t n) {
#if defined(__x86_64__)
    if (kernel == CVK_KERNEL_AVX2 && cvk_kernel_available(kernel)) return cvk_dot_avx2(a, b, n);
#endif
    (void)kernel;
    return cvk_dot_portable(a, b, n);
}

size_t cvk_search(
    cvk_kernel kernel, const cvk_matrix *matrix, const float *query, float max_distance, size_t limit,
    uint32_t *out_rows, float *out_distances) {
    size_t capacity = limit < matrix->count ? limit : matrix->count;
    if (capacity == 0) return 0;
    cvk_top top = {out_rows, out_distances, 0, capacity, max_distance};
#if defined(__x86_64__)
    if (kernel == CVK_KERNEL_AVX2 && cvk_kernel_available(kernel)) {
        cvk_scan_avx2(matrix, query, &top);
        return top.count;
    }
#endif
    (void)kernel;
    cvk_scan_portable(matrix, query, &top);
    return top.count;
}
