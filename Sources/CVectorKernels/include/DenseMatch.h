// The intersection of common terms' bit lists with each match scored: SearchSession's heaviest
// captures pair two or three labels that each name tens of thousands of documents, and a match's
// frequencies are found by population counts, which Swift compiles for the baseline x86-64 as a
// dozen instructions each; here the POPCNT instruction is used where the CPU has it (checked once).
#ifndef CVECTORKERNELS_DENSEMATCH_H
#define CVECTORKERNELS_DENSEMATCH_H

#include <stddef.h>
#include <stdint.h>

/// The lists of a match, each a bit per document of the segment with the number of postings
/// before each 64-bit word, and how a match is scored from them.
typedef struct {
    size_t term_count;
    /// Per term: its bits, its ranks (postings before each word), its frequency codes (one per
    /// posting), its table of values (`value_masks[term] + 1` of them, a power of two) and idf.
    const uint64_t *const *words;
    const uint32_t *const *ranks;
    const uint8_t *const *codes;
    const float *const *values;
    const size_t *value_masks;
    const float *idfs;
    /// Groups: `sum_terms[sum_ends[g - 1] ..< sum_ends[g]]` are group g's terms, in the order
    /// they are summed; the group's sum is multiplied by `weights[g]`, groups added in order.
    size_t group_count;
    const size_t *sum_terms;
    const size_t *sum_ends;
    const float *weights;
    /// Room for a contribution per term, written while a match is scored.
    float *contributions;
} cvk_dense_match;

/// Writes the documents in `low ..< high` (segment numbers) that every list has, ascending, less
/// those `deleted` marks, and each one's score, summed exactly as SearchSession's general
/// matching loop sums it (the same float operations in the same order). `deleted` is a bit per
/// document from document `deleted_first` (a multiple of 64) on, or NULL. `locals` and `scores`
/// have room for `high - low`; returns how many were written.
size_t cvk_match_dense(const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted,
                       size_t deleted_first, int32_t *locals, float *scores);

/// ``cvk_match_dense`` without POPCNT, as it runs on a CPU that lacks it: the same matches and
/// scores (for tests, which run on CPUs that have it).
size_t cvk_match_dense_portable(const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted,
                                size_t deleted_first, int32_t *locals, float *scores);

#endif
