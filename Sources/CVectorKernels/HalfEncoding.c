// The float16 copy of each row that the filter pass reads (half the bytes of float32), and the
// rigorous error allowance that keeps the filter exact.
#include "CVectorKernels.h"

#include <math.h>
#include <string.h>

size_t cvk_half_stride(size_t dimension) { return (dimension + 15) / 16 * 16; }

float cvk_half_to_float(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000) << 16;
    uint32_t exponent = (half >> 10) & 0x1f;
    uint32_t mantissa = half & 0x3ff;
    if (exponent == 0) {
        // Zero or subnormal: mantissa × 2^-24, exact in float.
        float magnitude = (float)mantissa * 5.9604644775390625e-8f;
        return sign ? -magnitude : magnitude;
    }
    uint32_t bits = exponent == 31 ? sign | 0x7f800000u | (mantissa << 13)
                                   : sign | ((exponent + 112) << 23) | (mantissa << 13);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/// Round to nearest even; anything at or beyond the float16 range (and NaN, which rows never
/// hold) becomes ±65504, so the copy stays finite and the allowance simply grows.
static uint16_t float_to_half(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t magnitude = bits & 0x7fffffff;
    if (magnitude >= 0x477ff000u) return sign | 0x7bff;  // ≥ 65520 (would round to infinity), inf, NaN
    if (magnitude < 0x38800000u) {
        // Below 2^-14: a float16 subnormal, or 2^-14 itself after rounding up (1024 = 0x400 is its
        // encoding). Scaling by 2^24 is exact, and lrintf rounds to nearest even.
        return sign | (uint16_t)lrintf(fabsf(value) * 16777216.0f);
    }
    uint32_t mantissa = magnitude & 0x7fffff;
    uint32_t half = (((magnitude >> 23) - 112) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half += 1;  // a carry into the exponent is right
    return sign | (uint16_t)half;
}

double cvk_encode_half_row(const float *row, size_t dimension, uint16_t *out) {
    size_t stride = cvk_half_stride(dimension);
    double error2 = 0, norm2 = 0, copyNorm2 = 0;
    for (size_t i = 0; i < dimension; i++) {
        out[i] = float_to_half(row[i]);
        double copy = cvk_half_to_float(out[i]);
        double difference = (double)row[i] - copy;
        error2 += difference * difference;
        norm2 += (double)row[i] * row[i];
        copyNorm2 += copy * copy;
    }
    for (size_t i = dimension; i < stride; i++) out[i] = 0;
    // |q·x − q·x̃| ≤ |q|·|x − x̃| (Cauchy–Schwarz). Each float32 dot product (the exact one over x,
    // the filter's over x̃) is off its true value by at most γ_m·Σ|q_i·y_i| ≤ γ_m·|q|·|y| for any
    // summation order with m ≥ its longest chain of roundings; m = stride + 16 bounds every kernel
    // here. The factor 1 + 1e-9 covers the rounding of this double arithmetic.
    double m = (double)(stride + 16), u = 0x1p-24;
    double gamma = m * u / (1 - m * u);
    return (sqrt(error2) + gamma * (sqrt(norm2) + sqrt(copyNorm2))) * (1 + 1e-9);
}
