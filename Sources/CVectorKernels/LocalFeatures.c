// The ORB-style local features of LocalFeatures.h. Why each choice:
// - FAST-9 finds corners cheaply; the Harris response ranks them (FAST's own score favours edges).
// - A pyramid of 1.25 steps gives scale tolerance for crops and zooms of up to ~2.4×.
// - The intensity centroid gives each keypoint an angle, so rotated pictures keep their bits.
// - Tests compare 5 × 5 box sums (from an integral image), not single pixels: JPEG and blur noise.
#include "LocalFeatures.h"
#include "Kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    LF_LEVELS = 5,
    LF_FAST_THRESHOLD = 12,
    LF_BORDER = 16,
    LF_PATTERN_RADIUS = 12,
    LF_ORIENTATION_RADIUS = 12,
    LF_BOX = 2,
    LF_TESTS = 256,
};
static const float LF_LEVEL_SCALE = 1.25f;

// ---- the test pattern: 256 point pairs, fixed (a seeded generator, so every build agrees) ----

static int8_t lf_pattern[LF_TESTS * 4];
/// The same points as floats, by coordinate (a.x, a.y, b.x, b.y of every test), for the
/// descriptor's vectorized loop.
static float lf_pattern_xy[4][LF_TESTS];
static int lf_pattern_ready = 0;

/// A small deterministic generator (xorshift32).
static uint32_t lf_next(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/// An isotropic Gaussian offset (σ = 5, as BRIEF's σ² = S²/25 for a 25-pixel patch), clipped.
static int8_t lf_gaussian(uint32_t *state) {
    for (;;) {
        float u1 = ((float)(lf_next(state) >> 8) + 1.0f) / 16777217.0f;
        float u2 = (float)(lf_next(state) >> 8) / 16777216.0f;
        float value = 5.0f * sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
        if (fabsf(value) <= LF_PATTERN_RADIUS) return (int8_t)lrintf(value);
    }
}

static void lf_make_pattern(void) {
    // Written once with the same values by whichever thread gets here first: racing writers
    // store identical bytes, so no lock is needed for correctness.
    if (lf_pattern_ready) return;
    uint32_t state = 0x9E3779B9u;
    for (int i = 0; i < LF_TESTS * 4; i++) lf_pattern[i] = lf_gaussian(&state);
    for (int i = 0; i < LF_TESTS; i++) {
        for (int k = 0; k < 4; k++) lf_pattern_xy[k][i] = lf_pattern[4 * i + k];
    }
    __atomic_store_n(&lf_pattern_ready, 1, __ATOMIC_RELEASE);
}

// ---- one pyramid level ----

typedef struct {
    int width, height;
    uint8_t *pixels;
    uint32_t *integral;  // (width + 1) × (height + 1)
    float scale;         // level pixels → level-0 pixels
} lf_level;

typedef struct {
    float x, y;  // level pixels
    float response;
    int level;
} lf_corner;

/// lrintf(v) for 0 ≤ v < 2²²: adding and taking away 1.5 · 2²³ leaves v rounded to the nearest
/// integer, ties to even, as the default rounding mode does; inline, where lrintf is a libm call.
static inline int lf_round_even(float v) {
    // Without fast-math the compiler keeps both steps: (v + M) − M is not v in IEEE arithmetic.
    const float magic = 12582912.0f;
    return (int)((v + magic) - magic);
}

static void lf_resize(const uint8_t *src, int sw, int sh, uint8_t *dst, int dw, int dh) {
    float fx = (float)sw / dw, fy = (float)sh / dh;
    for (int y = 0; y < dh; y++) {
        float sy = (y + 0.5f) * fy - 0.5f;
        if (sy < 0) sy = 0;
        int y0 = (int)sy;
        if (y0 > sh - 2) y0 = sh - 2;
        float wy = sy - y0;
        if (wy > 1) wy = 1;
        for (int x = 0; x < dw; x++) {
            float sx = (x + 0.5f) * fx - 0.5f;
            if (sx < 0) sx = 0;
            int x0 = (int)sx;
            if (x0 > sw - 2) x0 = sw - 2;
            float wx = sx - x0;
            if (wx > 1) wx = 1;
            const uint8_t *p = src + (size_t)y0 * sw + x0;
            float top = p[0] + wx * (p[1] - p[0]);
            float bottom = p[sw] + wx * (p[sw + 1] - p[sw]);
            dst[(size_t)y * dw + x] = (uint8_t)lf_round_even(top + wy * (bottom - top));
        }
    }
}

static void lf_build_integral(lf_level *level) {
    int w = level->width, h = level->height;
    uint32_t *s = level->integral;
    memset(s, 0, sizeof(uint32_t) * (size_t)(w + 1));
    for (int y = 0; y < h; y++) {
        uint32_t row = 0;
        s[(size_t)(y + 1) * (w + 1)] = 0;
        for (int x = 0; x < w; x++) {
            row += level->pixels[(size_t)y * w + x];
            s[(size_t)(y + 1) * (w + 1) + x + 1] = s[(size_t)y * (w + 1) + x + 1] + row;
        }
    }
}

/// The sum of the (2·LF_BOX + 1)² box around (x, y), the box clamped inside the level.
static uint32_t lf_box(const lf_level *level, int x, int y) {
    int w = level->width, h = level->height;
    int x0 = x - LF_BOX, x1 = x + LF_BOX + 1, y0 = y - LF_BOX, y1 = y + LF_BOX + 1;
    const uint32_t *s = level->integral;
    size_t stride = (size_t)w + 1;
    if (x0 >= 0 && y0 >= 0 && x1 <= w && y1 <= h) {
        return s[y1 * stride + x1] - s[y0 * stride + x1] - s[y1 * stride + x0] + s[y0 * stride + x0];
    }
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    uint32_t sum = s[y1 * stride + x1] - s[y0 * stride + x1] - s[y1 * stride + x0] + s[y0 * stride + x0];
    // Normalise clamped boxes to the full box's area so tests near the border stay comparable.
    return sum * (uint32_t)((2 * LF_BOX + 1) * (2 * LF_BOX + 1)) / (uint32_t)((x1 - x0) * (y1 - y0));
}

// The Bresenham circle of radius 3 that FAST tests, in order around it.
static const int lf_circle_x[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
static const int lf_circle_y[16] = {-3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3};

/// Whether 9 contiguous circle pixels are all brighter (or all darker) than the centre by t.
/// `circle` holds the 16 circle pixels' offsets from the centre in this level's rows.
static inline int lf_is_fast_corner(const uint8_t *p, const int *circle, int threshold) {
    int centre = p[0];
    int high = centre + threshold, low = centre - threshold;
    // Any 9 contiguous pixels of the 16 hold pixel k or pixel k + 8 for every k (an arc of 9
    // cannot fit between two opposite pixels): so a bright arc needs top or bottom and left or
    // right brighter, and a dark one the same darker. Most pixels fail this at once.
    int top = p[circle[0]], right = p[circle[4]], bottom = p[circle[8]], left = p[circle[12]];
    int may_be_brighter = (top > high || bottom > high) && (left > high || right > high);
    int may_be_darker = (top < low || bottom < low) && (left < low || right < low);
    if (!may_be_brighter && !may_be_darker) return 0;
    // Without branches: a circle pixel's comparison is as likely either way.
    uint32_t brighter = 0, darker = 0;
    for (int k = 0; k < 16; k++) {
        int v = p[circle[k]];
        brighter |= (uint32_t)(v > high) << k;
        darker |= (uint32_t)(v < low) << k;
    }
    for (int pass = 0; pass < 2; pass++) {
        uint32_t m = pass == 0 ? brighter : darker;
        m |= m << 16;  // wrap around the circle
        uint32_t run = m;
        for (int k = 1; k < 9; k++) run &= m >> k;
        if (run) return 1;
    }
    return 0;
}

/// The Harris response (k = 0.04) over the 7 × 7 window around (x, y), from central differences
/// summed through the level's integral images of Ix², Iy² and IxIy (one pass per level instead
/// of 49 products per corner: a textured picture has thousands of FAST corners).
///
/// The integral images are 32-bit and may wrap around: a window's sum (at most 49 · 255² in
/// magnitude) is still exact as the wrapped difference of four corners, read as signed.
static float lf_harris(const lf_level *level, const uint32_t *moments, int x, int y) {
    size_t stride = (size_t)level->width + 1;
    size_t plane = stride * ((size_t)level->height + 1);
    size_t y0 = (size_t)(y - 3) * stride, y1 = (size_t)(y + 4) * stride;
    int x0 = x - 3, x1 = x + 4;
    float sums[3];
    for (int k = 0; k < 3; k++) {
        const uint32_t *s = moments + (size_t)k * plane;
        sums[k] = (float)(int32_t)(s[y1 + x1] - s[y0 + x1] - s[y1 + x0] + s[y0 + x0]);
    }
    float a = sums[0], b = sums[1], c = sums[2];
    return a * b - c * c - 0.04f * (a + b) * (a + b);
}

/// Integral images of Ix², Iy² and IxIy (central differences, zero at the image's edge), one after
/// another in `moments`, each (width + 1) × (height + 1), in wrapping 32-bit arithmetic.
static void lf_build_moments(const lf_level *level, uint32_t *moments) {
    int w = level->width, h = level->height;
    size_t stride = (size_t)w + 1, plane = stride * ((size_t)h + 1);
    uint32_t *sxx = moments, *syy = moments + plane, *sxy = moments + 2 * plane;
    memset(sxx, 0, sizeof(uint32_t) * stride);
    memset(syy, 0, sizeof(uint32_t) * stride);
    memset(sxy, 0, sizeof(uint32_t) * stride);
    for (int y = 0; y < h; y++) {
        uint32_t rxx = 0, ryy = 0, rxy = 0;
        size_t above = (size_t)y * stride, here = (size_t)(y + 1) * stride;
        sxx[here] = syy[here] = sxy[here] = 0;
        const uint8_t *row = level->pixels + (size_t)y * w;
        int inner_row = y > 0 && y < h - 1;
        for (int x = 0; x < w; x++) {
            int32_t ix = 0, iy = 0;
            if (inner_row && x > 0 && x < w - 1) {
                ix = (int32_t)row[x + 1] - row[x - 1];
                iy = (int32_t)row[x + w] - row[x - w];
            }
            rxx += (uint32_t)(ix * ix);
            ryy += (uint32_t)(iy * iy);
            rxy += (uint32_t)(ix * iy);
            sxx[here + x + 1] = sxx[above + x + 1] + rxx;
            syy[here + x + 1] = syy[above + x + 1] + ryy;
            sxy[here + x + 1] = sxy[above + x + 1] + rxy;
        }
    }
}

/// The corners of one level: FAST-9, Harris-scored, non-maximum suppressed over 3 × 3.
static int lf_level_corners(
    const lf_level *level, int level_index, uint32_t *moments, float *scores, lf_corner *out, int capacity) {
    int w = level->width, h = level->height;
    lf_build_moments(level, moments);
    memset(scores, 0, sizeof(float) * (size_t)w * h);
    int circle[16];
    for (int k = 0; k < 16; k++) circle[k] = lf_circle_y[k] * w + lf_circle_x[k];
    for (int y = LF_BORDER; y < h - LF_BORDER; y++) {
        for (int x = LF_BORDER; x < w - LF_BORDER; x++) {
            const uint8_t *p = level->pixels + (size_t)y * w + x;
            if (!lf_is_fast_corner(p, circle, LF_FAST_THRESHOLD)) continue;
            float response = lf_harris(level, moments, x, y);
            scores[(size_t)y * w + x] = response > 0 ? response : 1e-6f;
        }
    }
    int count = 0;
    for (int y = LF_BORDER; y < h - LF_BORDER; y++) {
        for (int x = LF_BORDER; x < w - LF_BORDER; x++) {
            float s = scores[(size_t)y * w + x];
            if (s <= 0) continue;
            int is_max = 1;
            for (int dy = -1; dy <= 1 && is_max; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    if (!dx && !dy) continue;
                    float t = scores[(size_t)(y + dy) * w + (x + dx)];
                    // Ties go to the first in scan order.
                    if (t > s || (t == s && (dy < 0 || (dy == 0 && dx < 0)))) {
                        is_max = 0;
                        break;
                    }
                }
            }
            if (!is_max) continue;
            if (count < capacity) {
                out[count++] = (lf_corner){(float)x, (float)y, s, level_index};
            }
        }
    }
    return count;
}

static int lf_by_response(const void *a, const void *b) {
    const lf_corner *ca = a, *cb = b;
    if (ca->response != cb->response) return ca->response < cb->response ? 1 : -1;
    if (ca->level != cb->level) return ca->level - cb->level;
    if (ca->y != cb->y) return ca->y < cb->y ? -1 : 1;
    return ca->x < cb->x ? -1 : (ca->x > cb->x);
}

/// The intensity-centroid angle of the disc of radius LF_ORIENTATION_RADIUS around (x, y).
///
/// The moments are summed as integers (at most 441 · 12 · 255 in magnitude, so exactly what float
/// sums of these products give) over each row's extent of the disc, clipped to the level.
static float lf_orientation(const lf_level *level, int x, int y) {
    int w = level->width, h = level->height;
    const int r = LF_ORIENTATION_RADIUS;
    int32_t m10 = 0, m01 = 0;
    for (int dy = -r; dy <= r; dy++) {
        int yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        int half = 0;
        while ((half + 1) * (half + 1) + dy * dy <= r * r) half++;
        int from = x - half < 0 ? -x : -half, to = x + half >= w ? w - 1 - x : half;
        const uint8_t *row = level->pixels + (size_t)yy * w + x;
        int32_t sum = 0, weighted = 0;
        for (int dx = from; dx <= to; dx++) {
            sum += row[dx];
            weighted += dx * row[dx];
        }
        m10 += weighted;
        m01 += dy * sum;
    }
    return atan2f((float)m01, (float)m10);
}

/// Rounds to the nearest integer, halves away from zero, inline (lrintf is a libm call here).
/// (Adding copysignf(0.5, v) rounds as `v >= 0 ? v + 0.5 : v − 0.5` would, −0 included, with no
/// branch, so loops that round vectorize.)
static inline int lf_round(float v) { return (int)(v + copysignf(0.5f, v)); }

/// How far outside its level a test's box centre can fall: keypoints keep LF_BORDER pixels from
/// the edge, and a pattern point turned by any angle lies within LF_PATTERN_RADIUS · √2 (rounded).
enum { LF_BOX_MARGIN = 2 };
_Static_assert(LF_PATTERN_RADIUS == 12 && LF_BORDER + LF_BOX_MARGIN >= 17, "a turned test point (≤ 12·√2 → 17 px) stays inside the box table");

/// Every box sum a level's tests can read (lf_box at each centre from −LF_BOX_MARGIN to the
/// size + LF_BOX_MARGIN), one pass over the level: a descriptor's 512 box reads become plain loads.
typedef struct {
    int stride;
    uint32_t *sums;
} lf_boxes;

static void lf_build_boxes(const lf_level *level, lf_boxes *boxes) {
    int stride = level->width + 2 * LF_BOX_MARGIN;
    boxes->stride = stride;
    for (int y = -LF_BOX_MARGIN; y < level->height + LF_BOX_MARGIN; y++) {
        uint32_t *row = boxes->sums + (size_t)(y + LF_BOX_MARGIN) * stride + LF_BOX_MARGIN;
        for (int x = -LF_BOX_MARGIN; x < level->width + LF_BOX_MARGIN; x++) row[x] = lf_box(level, x, y);
    }
}

static void lf_describe(const lf_boxes *boxes, int x, int y, float angle, uint8_t *out) {
    float c = cosf(angle), s = sinf(angle);
    const uint32_t *centre = boxes->sums + (size_t)(y + LF_BOX_MARGIN) * boxes->stride + LF_BOX_MARGIN + x;
    int stride = boxes->stride;
    // First every test's two box offsets, in a loop without branches the compiler vectorizes;
    // then the comparisons, 32 bits at a time.
    int from[LF_TESTS], to[LF_TESTS];
    for (int i = 0; i < LF_TESTS; i++) {
        float ax = c * lf_pattern_xy[0][i] - s * lf_pattern_xy[1][i];
        float ay = s * lf_pattern_xy[0][i] + c * lf_pattern_xy[1][i];
        float bx = c * lf_pattern_xy[2][i] - s * lf_pattern_xy[3][i];
        float by = s * lf_pattern_xy[2][i] + c * lf_pattern_xy[3][i];
        from[i] = lf_round(ay) * stride + lf_round(ax);
        to[i] = lf_round(by) * stride + lf_round(bx);
    }
    for (int word = 0; word < LF_TESTS / 32; word++) {
        uint32_t bits = 0;
        for (int j = 0; j < 32; j++) {
            int i = 32 * word + j;
            bits |= (uint32_t)(centre[from[i]] < centre[to[i]]) << j;
        }
        // Test i is bit i % 8 of byte i / 8.
        for (int b = 0; b < 4; b++) out[4 * word + b] = (uint8_t)(bits >> (8 * b));
    }
}

int lf_extract(
    const uint8_t *gray, int width, int height, int max_keypoints, float *positions, uint8_t *descriptors) {
    if (width < 2 * LF_BORDER + 1 || height < 2 * LF_BORDER + 1 || max_keypoints <= 0) return 0;
    lf_make_pattern();
    lf_level levels[LF_LEVELS];
    int level_count = 0;
    size_t pixels = 0;
    float scale = 1;
    for (int l = 0; l < LF_LEVELS; l++) {
        int w = (int)lrintf(width / scale), h = (int)lrintf(height / scale);
        if (w < 2 * LF_BORDER + 8 || h < 2 * LF_BORDER + 8) break;
        levels[l] = (lf_level){w, h, NULL, NULL, scale};
        pixels += (size_t)w * h;
        level_count++;
        scale *= LF_LEVEL_SCALE;
    }
    if (level_count == 0) return 0;
    size_t integral_cells = 0;
    for (int l = 0; l < level_count; l++) integral_cells += (size_t)(levels[l].width + 1) * (levels[l].height + 1);
    size_t corner_capacity = pixels / 4 + 16;
    uint8_t *pixel_memory = malloc(pixels);
    uint32_t *integral_memory = malloc(sizeof(uint32_t) * integral_cells);
    float *scores = malloc(sizeof(float) * (size_t)width * height);
    uint32_t *moments = malloc(sizeof(uint32_t) * 3 * (size_t)(width + 1) * (height + 1));
    lf_corner *corners = malloc(sizeof(lf_corner) * corner_capacity);
    lf_boxes boxes = {0, malloc(sizeof(uint32_t) * (size_t)(width + 2 * LF_BOX_MARGIN) * (height + 2 * LF_BOX_MARGIN))};
    int written = 0;
    if (!pixel_memory || !integral_memory || !scores || !moments || !corners || !boxes.sums) goto done;
    {
        uint8_t *next_pixels = pixel_memory;
        uint32_t *next_integral = integral_memory;
        for (int l = 0; l < level_count; l++) {
            lf_level *level = &levels[l];
            level->pixels = next_pixels;
            level->integral = next_integral;
            next_pixels += (size_t)level->width * level->height;
            next_integral += (size_t)(level->width + 1) * (level->height + 1);
            if (l == 0) {
                memcpy(level->pixels, gray, (size_t)width * height);
            } else {
                lf_resize(
                    levels[l - 1].pixels, levels[l - 1].width, levels[l - 1].height, level->pixels, level->width,
                    level->height);
            }
            lf_build_integral(level);
        }
        // Each level gets a share of the keypoints in proportion to its area (ORB's rule), so the
        // coarse levels, which survive down-scaled queries, are not crowded out by the fine one.
        float area_total = 0;
        for (int l = 0; l < level_count; l++) area_total += (float)levels[l].width * levels[l].height;
        for (int l = 0; l < level_count && written < max_keypoints; l++) {
            const lf_level *level = &levels[l];
            int quota = (int)ceilf(max_keypoints * (float)level->width * level->height / area_total);
            if (quota > max_keypoints - written) quota = max_keypoints - written;
            int found = lf_level_corners(level, l, moments, scores, corners, (int)corner_capacity);
            qsort(corners, (size_t)found, sizeof(lf_corner), lf_by_response);
            if (found > quota) found = quota;
            if (found == 0) continue;
            lf_build_boxes(level, &boxes);
            for (int i = 0; i < found; i++) {
                int x = (int)corners[i].x, y = (int)corners[i].y;
                float angle = lf_orientation(level, x, y);
                lf_describe(&boxes, x, y, angle, descriptors + (size_t)LF_DESCRIPTOR_BYTES * written);
                // Pixel centres map between levels as (x + 0.5) · scale − 0.5.
                positions[2 * written] = (x + 0.5f) * level->scale - 0.5f;
                positions[2 * written + 1] = (y + 0.5f) * level->scale - 0.5f;
                written++;
            }
        }
    }
done:
    free(pixel_memory);
    free(integral_memory);
    free(scores);
    free(moments);
    free(corners);
    free(boxes.sums);
    return written;
}

// ---- matching ----

/// Bits set in v, without the POPCNT instruction the portable build cannot assume (libgcc's
/// fallback is a table walk, several times slower than this).
static inline int lf_popcount(uint64_t v) {
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((v * 0x0101010101010101ull) >> 56);
}

/// The Hamming distance of two descriptors; `hardware` (a constant where this is inlined) counts
/// bits with the POPCNT instruction, which only a function compiled for it may use.
static inline __attribute__((always_inline)) int lf_hamming(const uint8_t *a, const uint8_t *b, int hardware) {
    uint64_t x[4], y[4];
    memcpy(x, a, 32);
    memcpy(y, b, 32);
    int sum = 0;
    for (int k = 0; k < 4; k++) sum += hardware ? __builtin_popcountll(x[k] ^ y[k]) : lf_popcount(x[k] ^ y[k]);
    return sum;
}

/// The nearest and second-nearest of `count` candidate descriptors to `query`: the loop that
/// matching spends its time in (300 × 300 distances per verified candidate).
static inline __attribute__((always_inline)) void lf_nearest_two_with(
    const uint8_t *query, const uint8_t *candidates, int count, int *first, int *second, int *first_index,
    int hardware) {
    int best = 1 << 30, next = 1 << 30, best_index = -1;
    for (int j = 0; j < count; j++) {
        int d = lf_hamming(query, candidates + (size_t)LF_DESCRIPTOR_BYTES * j, hardware);
        if (d < best) {
            next = best;
            best = d;
            best_index = j;
        } else if (d < next) {
            next = d;
        }
    }
    *first = best;
    *second = next;
    *first_index = best_index;
}

static void lf_nearest_two_portable(
    const uint8_t *query, const uint8_t *candidates, int count, int *first, int *second, int *first_index) {
    lf_nearest_two_with(query, candidates, count, first, second, first_index, 0);
}

#if defined(__x86_64__)
__attribute__((target("popcnt"))) static void lf_nearest_two_popcnt(
    const uint8_t *query, const uint8_t *candidates, int count, int *first, int *second, int *first_index) {
    lf_nearest_two_with(query, candidates, count, first, second, first_index, 1);
}
#endif

typedef void (*lf_nearest_two_function)(const uint8_t *, const uint8_t *, int, int *, int *, int *);

/// The POPCNT loop where the CPU has the instruction, the portable one elsewhere: the same
/// distances either way.
static lf_nearest_two_function lf_nearest_two(void) {
#if defined(__x86_64__)
    if (cvk_has_popcnt()) return lf_nearest_two_popcnt;
#endif
    return lf_nearest_two_portable;
}

int lf_match(
    const uint8_t *query, int query_count, const uint8_t *candidate, int candidate_count, int max_distance,
    float ratio, int32_t *pairs) {
    if (query_count <= 0 || candidate_count <= 0) return 0;
    // The best query (and its distance) per candidate: a candidate keypoint explains one query
    // keypoint at most, so a repeated texture cannot pile up inliers on one point.
    int32_t *best_query = malloc(sizeof(int32_t) * (size_t)candidate_count);
    int *best_distance = malloc(sizeof(int) * (size_t)candidate_count);
    if (!best_query || !best_distance) {
        free(best_query);
        free(best_distance);
        return 0;
    }
    for (int j = 0; j < candidate_count; j++) {
        best_query[j] = -1;
        best_distance[j] = 1 << 30;
    }
    lf_nearest_two_function nearest_two = lf_nearest_two();
    for (int i = 0; i < query_count; i++) {
        int first, second, first_index;
        nearest_two(query + (size_t)LF_DESCRIPTOR_BYTES * i, candidate, candidate_count, &first, &second, &first_index);
        if (first_index < 0 || first > max_distance) continue;
        if (second < (1 << 30) && (float)first >= ratio * (float)second) continue;
        if (first < best_distance[first_index]) {
            best_distance[first_index] = first;
            best_query[first_index] = i;
        }
    }
    int count = 0;
    for (int j = 0; j < candidate_count; j++) {
        if (best_query[j] < 0) continue;
        pairs[2 * count] = best_query[j];
        pairs[2 * count + 1] = j;
        count++;
    }
    free(best_query);
    free(best_distance);
    return count;
}

// ---- verification ----

/// Solves the n × n system `a` x = b in place (Gaussian elimination, partial pivoting). Returns 0
/// when it is singular.
static int lf_solve(double *a, double *b, int n) {
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int row = col + 1; row < n; row++) {
            if (fabs(a[row * n + col]) > fabs(a[pivot * n + col])) pivot = row;
        }
        if (fabs(a[pivot * n + col]) < 1e-12) return 0;
        if (pivot != col) {
            for (int k = 0; k < n; k++) {
                double t = a[col * n + k];
                a[col * n + k] = a[pivot * n + k];
                a[pivot * n + k] = t;
            }
            double t = b[col];
            b[col] = b[pivot];
            b[pivot] = t;
        }
        for (int row = col + 1; row < n; row++) {
            double f = a[row * n + col] / a[col * n + col];
            for (int k = col; k < n; k++) a[row * n + k] -= f * a[col * n + k];
            b[row] -= f * b[col];
        }
    }
    for (int row = n - 1; row >= 0; row--) {
        double s = b[row];
        for (int k = row + 1; k < n; k++) s -= a[row * n + k] * b[k];
        b[row] = s / a[row * n + row];
    }
    return 1;
}

/// A map from candidate to query positions: a homography h (h[8] = 1); affine maps have h[6] = h[7] = 0.
typedef struct {
    double h[9];
} lf_map;

static int lf_apply(const lf_map *map, double x, double y, double *u, double *v) {
    const double *h = map->h;
    double w = h[6] * x + h[7] * y + h[8];
    if (fabs(w) < 1e-9) return 0;
    *u = (h[0] * x + h[1] * y + h[2]) / w;
    *v = (h[3] * x + h[4] * y + h[5]) / w;
    return 1;
}

static int lf_count_inliers(
    const lf_map *map, const float *qp, const float *cp, const int32_t *pairs, int n, double tolerance2,
    uint8_t *mask) {
    int count = 0;
    for (int k = 0; k < n; k++) {
        int qi = pairs[2 * k], ci = pairs[2 * k + 1];
        double u, v;
        int inside = 0;
        if (lf_apply(map, cp[2 * ci], cp[2 * ci + 1], &u, &v)) {
            double du = u - qp[2 * qi], dv = v - qp[2 * qi + 1];
            inside = du * du + dv * dv <= tolerance2;
        }
        if (mask) mask[k] = (uint8_t)inside;
        count += inside;
    }
    return count;
}

/// The affine map through three pairs, if it is plausible for a photo of a picture: orientation
/// kept (a mirror's keypoints would not match anyway), scale within 1/6…6, and neither axis
/// squeezed more than 3× against the other.
static int lf_affine(const float *qp, const float *cp, const int32_t *pairs, const int *picks, lf_map *map) {
    double a[9], bu[3], bv[3], a2[9];
    for (int r = 0; r < 3; r++) {
        int qi = pairs[2 * picks[r]], ci = pairs[2 * picks[r] + 1];
        a[r * 3] = cp[2 * ci];
        a[r * 3 + 1] = cp[2 * ci + 1];
        a[r * 3 + 2] = 1;
        bu[r] = qp[2 * qi];
        bv[r] = qp[2 * qi + 1];
    }
    memcpy(a2, a, sizeof a);
    if (!lf_solve(a, bu, 3) || !lf_solve(a2, bv, 3)) return 0;
    double det = bu[0] * bv[1] - bu[1] * bv[0];
    if (det <= 1.0 / 36 || det >= 36) return 0;
    // Singular values of the linear part, from its Frobenius norm and determinant.
    double frobenius = bu[0] * bu[0] + bu[1] * bu[1] + bv[0] * bv[0] + bv[1] * bv[1];
    double root = sqrt(fmax(frobenius * frobenius - 4 * det * det, 0));
    double large = sqrt((frobenius + root) / 2), small = sqrt(fmax((frobenius - root) / 2, 1e-12));
    if (large / small > 3) return 0;
    *map = (lf_map){{bu[0], bu[1], bu[2], bv[0], bv[1], bv[2], 0, 0, 1}};
    return 1;
}

/// The least-squares homography (h33 = 1) through the pairs `mask` marks; 0 with fewer than 5.
static int lf_homography(const float *qp, const float *cp, const int32_t *pairs, int n, const uint8_t *mask, lf_map *map) {
    // Centre and scale both point sets for a well-conditioned normal system.
    double cx = 0, cy = 0, qx = 0, qy = 0;
    int used = 0;
    for (int k = 0; k < n; k++) {
        if (!mask[k]) continue;
        int qi = pairs[2 * k], ci = pairs[2 * k + 1];
        cx += cp[2 * ci];
        cy += cp[2 * ci + 1];
        qx += qp[2 * qi];
        qy += qp[2 * qi + 1];
        used++;
    }
    if (used < 5) return 0;
    cx /= used;
    cy /= used;
    qx /= used;
    qy /= used;
    double cs = 0, qs = 0;
    for (int k = 0; k < n; k++) {
        if (!mask[k]) continue;
        int qi = pairs[2 * k], ci = pairs[2 * k + 1];
        cs += hypot(cp[2 * ci] - cx, cp[2 * ci + 1] - cy);
        qs += hypot(qp[2 * qi] - qx, qp[2 * qi + 1] - qy);
    }
    cs = cs > 0 ? used / cs : 1;
    qs = qs > 0 ? used / qs : 1;
    double ata[64] = {0}, atb[8] = {0};
    for (int k = 0; k < n; k++) {
        if (!mask[k]) continue;
        int qi = pairs[2 * k], ci = pairs[2 * k + 1];
        double x = (cp[2 * ci] - cx) * cs, y = (cp[2 * ci + 1] - cy) * cs;
        double u = (qp[2 * qi] - qx) * qs, v = (qp[2 * qi + 1] - qy) * qs;
        double rows[2][8] = {{x, y, 1, 0, 0, 0, -u * x, -u * y}, {0, 0, 0, x, y, 1, -v * x, -v * y}};
        double rhs[2] = {u, v};
        for (int r = 0; r < 2; r++) {
            for (int i = 0; i < 8; i++) {
                atb[i] += rows[r][i] * rhs[r];
                for (int j = 0; j < 8; j++) ata[i * 8 + j] += rows[r][i] * rows[r][j];
            }
        }
    }
    if (!lf_solve(ata, atb, 8)) return 0;
    // Undo the normalisations: H = Tq⁻¹ · Hn · Tc.
    double hn[9] = {atb[0], atb[1], atb[2], atb[3], atb[4], atb[5], atb[6], atb[7], 1};
    double tc[9] = {cs, 0, -cs * cx, 0, cs, -cs * cy, 0, 0, 1};
    double tq_inverse[9] = {1 / qs, 0, qx, 0, 1 / qs, qy, 0, 0, 1};
    double m[9], h[9];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            m[i * 3 + j] = hn[i * 3] * tc[j] + hn[i * 3 + 1] * tc[3 + j] + hn[i * 3 + 2] * tc[6 + j];
        }
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            h[i * 3 + j] = tq_inverse[i * 3] * m[j] + tq_inverse[i * 3 + 1] * m[3 + j] + tq_inverse[i * 3 + 2] * m[6 + j];
        }
    }
    if (fabs(h[8]) < 1e-12) return 0;
    for (int i = 0; i < 9; i++) map->h[i] = h[i] / h[8];
    return 1;
}

int lf_verify(
    const float *query_positions, const float *candidate_positions, const int32_t *pairs, int pair_count,
    float tolerance, int iterations, uint32_t seed) {
    if (pair_count < 4) return 0;
    uint8_t *mask = malloc((size_t)pair_count);
    if (!mask) return 0;
    double tolerance2 = (double)tolerance * tolerance;
    uint32_t state = seed ? seed : 1;
    lf_map best_map;
    int best = 0;
    int needed = iterations;
    for (int it = 0; it < needed && it < iterations; it++) {
        int picks[3];
        picks[0] = (int)(lf_next(&state) % (uint32_t)pair_count);
        do picks[1] = (int)(lf_next(&state) % (uint32_t)pair_count);
        while (picks[1] == picks[0]);
        do picks[2] = (int)(lf_next(&state) % (uint32_t)pair_count);
        while (picks[2] == picks[0] || picks[2] == picks[1]);
        lf_map map;
        if (!lf_affine(query_positions, candidate_positions, pairs, picks, &map)) continue;
        int inliers = lf_count_inliers(&map, query_positions, candidate_positions, pairs, pair_count, tolerance2, NULL);
        if (inliers > best) {
            best = inliers;
            best_map = map;
            // Stop once a better map is unlikely (99 %): the classic adaptive RANSAC bound.
            double w = (double)inliers / pair_count;
            double miss = 1 - w * w * w;
            if (miss <= 1e-9) break;
            int bound = (int)ceil(log(0.01) / log(miss));
            if (bound < needed) needed = bound;
        }
    }
    if (best >= 5) {
        // A photo of a poster is a homography, not an affine map: refit on the inliers (with a
        // looser band, so points bent away from the affine fit join) and keep it when it explains more.
        for (int round = 0; round < 2; round++) {
            lf_count_inliers(&best_map, query_positions, candidate_positions, pairs, pair_count, tolerance2 * 4, mask);
            lf_map refined;
            if (!lf_homography(query_positions, candidate_positions, pairs, pair_count, mask, &refined)) break;
            int inliers = lf_count_inliers(&refined, query_positions, candidate_positions, pairs, pair_count, tolerance2, NULL);
            if (inliers <= best) break;
            best = inliers;
            best_map = refined;
        }
    }
    free(mask);
    return best;
}
