#include "FacetCount.h"

#include <endian.h>
#include <string.h>

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

void cvk_count_packed_slots(const int32_t *docs, size_t count, int32_t base, const uint32_t *pair_start,
                            const uint8_t *bits, uint32_t width, uint32_t strings, const uint32_t *number_slots,
                            int32_t *string_counts, int32_t *number_counts) {
    const uint64_t mask = ((uint64_t)1 << width) - 1; // width is at most 32
    for (size_t i = 0; i < count; i++) {
        if (i + PREFETCH_DISTANCE < count) {
            uint32_t ahead = (uint32_t)(docs[i + PREFETCH_DISTANCE] - base);
            __builtin_prefetch(bits + (((uint64_t)pair_start[ahead] * width) >> 3), 0, 3);
        }
        uint32_t doc = (uint32_t)(docs[i] - base);
        for (uint64_t pair = pair_start[doc], end = pair_start[doc + 1]; pair < end; pair++) {
            uint64_t bit = pair * width;
            uint64_t word;
            memcpy(&word, bits + (bit >> 3), sizeof word);
            uint32_t id = (uint32_t)((le64toh(word) >> (bit & 7)) & mask);
            if (id < strings) {
                string_counts[id]++;
            } else {
                number_counts[number_slots[id - strings]]++;
            }
        }
    }
}
