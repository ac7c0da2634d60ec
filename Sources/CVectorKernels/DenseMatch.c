#include "DenseMatch.h"
#include "Kernels.h"

// A product added to a sum stays two operations, as in Swift, so both sides score alike.
#pragma STDC FP_CONTRACT OFF

/// The most terms of the loops specialised for a term count (two or three labels of a word each,
/// the heaviest captures): their lists' pointers held in locals, their loops unrolled.
#define MOST_UNROLLED 3

/// The matches of words in `low ..< high`. `unrolled` is 0 for any match, or its term count
/// when every group has one term: then each group's term is read in summing order, and a
/// match's score is `0 + c₀·w₀ + c₁·w₁ …` as the general sum makes it for such groups.
static inline __attribute__((always_inline)) size_t match_dense_with(
    const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted, size_t deleted_first,
    int32_t *locals, float *scores, const size_t unrolled) {
    if (low >= high) return 0;
    const size_t terms = unrolled ? unrolled : match->term_count;
    const uint64_t *words[MOST_UNROLLED];
    const uint32_t *ranks[MOST_UNROLLED];
    const uint8_t *codes[MOST_UNROLLED];
    const float *values[MOST_UNROLLED];
    size_t masks[MOST_UNROLLED];
    float idfs[MOST_UNROLLED], weights[MOST_UNROLLED];
    for (size_t group = 0; group < unrolled; group++) {
        const size_t term = match->sum_terms[group];
        words[group] = match->words[term];
        ranks[group] = match->ranks[term];
        codes[group] = match->codes[term];
        values[group] = match->values[term];
        masks[group] = match->value_masks[term];
        idfs[group] = match->idfs[term];
        weights[group] = match->weights[group];
    }
    float *const contributions = match->contributions;
    size_t written = 0;
    const size_t first_word = low >> 6, last_word = (high - 1) >> 6;
    for (size_t index = first_word; index <= last_word; index++) {
        uint64_t word = ~(uint64_t)0;
        for (size_t term = 0; term < terms; term++) word &= (unrolled ? words[term] : match->words[term])[index];
        if (index == first_word) word &= ~(uint64_t)0 << (low & 63);
        if (index == last_word && (high & 63) != 0) word &= ((uint64_t)1 << (high & 63)) - 1;
        if (deleted && word) word &= ~deleted[index - (deleted_first >> 6)];
        while (word) {
            const unsigned bit = (unsigned)__builtin_ctzll(word);
            word &= word - 1;
            const uint64_t below = ((uint64_t)1 << bit) - 1;
            float score = 0;
            if (unrolled) {
                for (size_t group = 0; group < unrolled; group++) {
                    const size_t position =
                        ranks[group][index] + (size_t)__builtin_popcountll(words[group][index] & below);
                    const float contribution = values[group][codes[group][position] & masks[group]] * idfs[group];
                    score += contribution * weights[group];
                }
            } else {
                for (size_t term = 0; term < terms; term++) {
                    const size_t position = match->ranks[term][index]
                                            + (size_t)__builtin_popcountll(match->words[term][index] & below);
                    const float frequency =
                        match->values[term][match->codes[term][position] & match->value_masks[term]];
                    contributions[term] = frequency * match->idfs[term];
                }
                size_t start = 0;
                for (size_t group = 0; group < match->group_count; group++) {
                    const size_t end = match->sum_ends[group];
                    float group_score = contributions[match->sum_terms[start]];
                    for (size_t next = start + 1; next < end; next++)
                        group_score += contributions[match->sum_terms[next]];
                    score += group_score * match->weights[group];
                    start = end;
                }
            }
            locals[written] = (int32_t)(index << 6 | bit);
            scores[written] = score;
            written++;
        }
    }
    return written;
}

typedef size_t (*match_dense_function)(
    const cvk_dense_match *, size_t, size_t, const uint64_t *, size_t, int32_t *, float *);

#define MATCH_DENSE(name, attributes, unrolled)                                                               \
    attributes static size_t name(const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted, \
                                  size_t deleted_first, int32_t *locals, float *scores) {                       \
        return match_dense_with(match, low, high, deleted, deleted_first, locals, scores, unrolled);            \
    }

MATCH_DENSE(match_dense_portable, , 0)
MATCH_DENSE(match_dense_portable2, , 2)
MATCH_DENSE(match_dense_portable3, , 3)
#if defined(__x86_64__)
MATCH_DENSE(match_dense_popcnt, __attribute__((target("popcnt"))), 0)
MATCH_DENSE(match_dense_popcnt2, __attribute__((target("popcnt"))), 2)
MATCH_DENSE(match_dense_popcnt3, __attribute__((target("popcnt"))), 3)
#endif

/// The loop for `match`'s shape: unrolled for two or three one-term groups, general otherwise.
static size_t unrolled_terms(const cvk_dense_match *match) {
    const size_t terms = match->term_count;
    return match->group_count == terms && terms >= 2 && terms <= MOST_UNROLLED ? terms : 0;
}

static const match_dense_function portable_loops[] = {match_dense_portable, NULL, match_dense_portable2,
                                                      match_dense_portable3};

size_t cvk_match_dense(const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted,
                       size_t deleted_first, int32_t *locals, float *scores) {
    if (match->term_count == 0) return 0;
#if defined(__x86_64__)
    static const match_dense_function popcnt_loops[] = {match_dense_popcnt, NULL, match_dense_popcnt2,
                                                         match_dense_popcnt3};
    if (cvk_has_popcnt())
        return popcnt_loops[unrolled_terms(match)](match, low, high, deleted, deleted_first, locals, scores);
#endif
    return portable_loops[unrolled_terms(match)](match, low, high, deleted, deleted_first, locals, scores);
}

size_t cvk_match_dense_portable(const cvk_dense_match *match, size_t low, size_t high, const uint64_t *deleted,
                                size_t deleted_first, int32_t *locals, float *scores) {
    if (match->term_count == 0) return 0;
    return portable_loops[unrolled_terms(match)](match, low, high, deleted, deleted_first, locals, scores);
}
