// The kept set of a scan: the best rows so far, nearest first, ties by row index (rows arrive in
// index order, so a later row never displaces an equal earlier one).
#ifndef CVK_TOPK_H
#define CVK_TOPK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t *rows;
    float *distances;
    size_t count;
    size_t capacity;
    float max_distance;
} cvk_top;

/// The distance a row must not exceed to be worth computing exactly: the cut-off until the set is
/// full, then the current worst kept distance (a row equal to it is still refused by
/// `cvk_top_consider`, which keeps the earlier row).
static inline float cvk_top_threshold(const cvk_top *top) {
    return top->count == top->capacity ? top->distances[top->count - 1] : top->max_distance;
}

/// Keeps `row` at `distance` if it belongs in the set. O(log k) search plus a short move, and
/// only for rows that beat the threshold, which after the first few thousand rows is rare.
static inline void cvk_top_consider(cvk_top *top, uint32_t row, float distance) {
    size_t n = top->count;
    if (n == top->capacity) {
        if (!(distance < top->distances[n - 1])) return;
    } else if (!(distance <= top->max_distance)) {
        return;
    }
    // The first kept entry farther than `distance`: equal ones stay ahead (earlier rows).
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (top->distances[mid] > distance) hi = mid; else lo = mid + 1;
    }
    size_t kept = n < top->capacity ? n : n - 1;  // entries that survive behind the new one
    memmove(top->distances + lo + 1, top->distances + lo, (kept - lo) * sizeof(float));
    memmove(top->rows + lo + 1, top->rows + lo, (kept - lo) * sizeof(uint32_t));
    top->distances[lo] = distance;
    top->rows[lo] = row;
    if (n < top->capacity) top->count = n + 1;
}

#endif
