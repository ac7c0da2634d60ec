#ifndef C_ALLOC_COUNTER_H
#define C_ALLOC_COUNTER_H

/// Heap allocations made by this process so far (malloc, calloc, realloc, aligned forms).
unsigned long alloc_counter_count(void);

#endif
