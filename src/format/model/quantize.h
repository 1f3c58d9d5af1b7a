/* quantize.h - floats stored at reduced precision (Bullion 2.4).
 *
 * A float32/float64 column (or list, or vector) with quantize=FORMAT stores each
 * value in 16 or 8 bits and reads back as float32:
 *
 *   format     bits  exponent  mantissa  largest finite   max relative error (normal range)
 *   fp16       16    5         10        65504            2^-11 (4.9e-4)
 *   bf16       16    8         7         3.39e38          2^-8  (3.9e-3)
 *   fp8_e4m3   8     4         3         240              2^-4  (6.3e-2)
 *   fp8_e5m2   8     5         2         57344            2^-3  (1.3e-1)
 *
 * All four follow IEEE 754's layout (the all-ones exponent holds infinities and
 * NaN), so NaN and ±infinity survive; fp8_e4m3 is therefore the IEEE-style
 * variant (largest finite 240), not OCP's E4M3FN (448, no infinities). Rounding
 * is to nearest, ties to even; values beyond the largest finite become infinity;
 * below the smallest normal, subnormals keep an absolute error of at most half
 * the smallest subnormal. Signed zeros are kept. */
#ifndef IG_FORMAT_QUANTIZE_H
#define IG_FORMAT_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes per quantised value (2 or 1), 0 for IG_Q_NONE. */
unsigned ig_quantize_width(unsigned q);

/* One value: from a double to the format's bit pattern, and back to float. */
uint32_t ig_quantize_one(unsigned q, double x);
float ig_dequantize_one(unsigned q, uint32_t bits);

/* Lanes of float32 (src_type IG_T_FLOAT32) or float64 bit patterns to quantised
 * patterns, and quantised patterns to float32 bit patterns. In place is fine. */
void ig_quantize_lanes(unsigned q, unsigned src_type, const uint64_t *in, size_t n, uint64_t *out);
void ig_dequantize_lanes(unsigned q, const uint64_t *in, size_t n, uint64_t *out);

#endif
