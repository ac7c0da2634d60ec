#include "FacetCount.h"

/// How many documents ahead the slots are asked for: far enough to cover a miss to memory at
/// a few nanoseconds per document, near enough that the lines are still in cache when read.
#define PREFETCH_DISTANCE 16

#define COUNT_SLOTS(slot_type)                                                                 \
    for (size_t i = 0; i < count; i++) {                                                       \
        if (i + PREFETCH_DISTANCE < count) {                                                   \
            uint32_t ahead = (uint32_t)(docs[i + PREFETCH_DISTANCE] - base);                   \
            __builtin_prefetch(&slots[pair_start[ahead]], 0, 3);                               \
        }                                                                                      \
        uint32_t doc = (uint32_t)(docs[i] - base);                                             \
        const slot_type *pair = slots + pair_start[doc];                                       \
        const slot_type *end = slots + pair_start[doc + 1];                                    \
        for (; pair < end; pair++) counts[*pair]++;                                            \
    }

void cvk_count_slots16(const int32_t *docs, size_t count, int32_t base, const uint32_t *pair_start,
                       const uint16_t *slots, int32_t *counts) {
    COUNT_SLOTS(uint16_t)
}

void cvk_count_slots32(const int32_t *docs, size_t count, int32_t base, const uint32_t *pair_start,
                       const uint32_t *slots, int32_t *counts) {
    COUNT_SLOTS(uint32_t)
}
