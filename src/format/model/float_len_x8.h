/* float_len_x8.h - text lengths of float32 values, eight at a time (AVX-512).
 *
 * ig_f32_len_x8 measures what ig_format_f32_len measures (the shortest
 * round-trip decimal in repr's layout, float_text.c) for eight float32 lanes at
 * once: the same Schubfach steps as util/shortest.c (the interval scaled by the
 * same table, the same one-digit-fewer test, pick_shape's argument that no
 * other choice changes the length), each 64x64-bit product made of four
 * 32x32-bit ones. An importer of float32 vectors spends most of its time here
 * otherwise (a float's shortest form costs ~16 ns one at a time).
 *
 * What it does not do: zero, NaN, infinities and the three powers of two whose
 * text keeps the printf search's form (float_text.h, pow2_search_f32) are left to
 * the caller (their bits in the returned mask); float64; digits. Only on a CPU
 * with AVX-512 (util/cpu.h, ig_f32_len_x8_usable); the tests compare it with
 * the scalar path over a stride of all 2^32 floats. */
#ifndef IG_FORMAT_FLOAT_LEN_X8_H
#define IG_FORMAT_FLOAT_LEN_X8_H

#include <stdbool.h>
#include <stdint.h>

/* Whether this CPU runs ig_f32_len_x8 (asked once). */
bool ig_f32_len_x8_usable(void);

/* lanes[i]'s low 32 bits are a float32; len[i] its text length. Returns a mask
 * of the lanes it did not measure (len 0 there). */
unsigned ig_f32_len_x8(const uint64_t lanes[8], uint8_t len[8]);

#endif
