// Counts heap allocations by interposing the allocator: the executable's definitions win over
// glibc's for every shared library (the Swift runtime included), and forward to glibc's
// internal entry points.
#define _GNU_SOURCE
#include <stddef.h>
#include <errno.h>
#include "CAllocCounter.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long counter;

unsigned long alloc_counter_count(void) { return __atomic_load_n(&counter, __ATOMIC_RELAXED); }

static inline void count(void) { __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *p = __libc_memalign(alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
