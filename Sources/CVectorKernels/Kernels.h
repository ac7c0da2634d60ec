// The kernels behind cvk_search, one file each; not part of the module's interface.
#ifndef CVK_KERNELS_H
#define CVK_KERNELS_H

#include "CVectorKernels.h"
#include "TopK.h"

float cvk_dot_portable(const float *a, const float *b, size_t n);
void cvk_scan_portable(const cvk_matrix *matrix, const float *query, cvk_top *top);

#if defined(__x86_64__)
float cvk_dot_avx2(const float *a, const float *b, size_t n);
void cvk_scan_avx2(const cvk_matrix *matrix, const float *query, cvk_top *top);
#endif

/// Whether the CPU has POPCNT (asked once): the loops that count bits pick their variant by it.
int cvk_has_popcnt(void);

#endif
