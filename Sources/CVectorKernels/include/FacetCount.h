// Counting loops of SearchSession's facet tallies that need what Swift cannot say: prefetching.
#ifndef CVECTORKERNELS_FACETCOUNT_H
#define CVECTORKERNELS_FACETCOUNT_H

#include <stddef.h>
#include <stdint.h>

/// Adds one to `counts[slots[pair]]` for every attribute pair of every document of `docs`
/// (snapshot numbers, ascending; `base` is the segment's first): a document's pairs are
/// `pair_start[doc - base] ..< pair_start[doc - base + 1]`. The slots of documents a little
/// ahead are prefetched: a common label's hits are spread over the segment, each document's
/// pairs on a line of their own, and waiting for them was most of the loop's time.
void cvk_count_slots16(const int32_t *docs, size_t count, int32_t base, const uint32_t *pair_start,
                       const uint16_t *slots, int32_t *counts);

/// ``cvk_count_slots16`` for slots that need more than 16 bits, read in place from the
/// segment's value ids (`width` bits each, packed end to end from `bits`, little-endian, with
/// 8 bytes of padding after the last): a string value's id counts in `string_counts[id]`, and a
/// number's id (`id >= strings`) in `number_counts[number_slots[id - strings]]`. The two may
/// be parts of one array, or a tally's own values and a small array of the numbers' slots.
void cvk_count_packed_slots(const int32_t *docs, size_t count, int32_t base, const uint32_t *pair_start,
                            const uint8_t *bits, uint32_t width, uint32_t strings, const uint32_t *number_slots,
                            int32_t *string_counts, int32_t *number_counts);

#endif
