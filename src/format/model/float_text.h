/* float_text.h - a float as text: the shortest decimal that reads back as the
 * same value, laid out like Python's repr (1.0, 0.1, 1e+16, 1.5e-07), with NaN,
 * Infinity, -Infinity; float32 values by the shortest that round-trips through
 * float32. The text rendering (render.h) writes floats so; this module knows
 * nothing of columns or NULLs.
 *
 * A few powers of two keep the longer form the printf/strtod search gives
 * them: footers written since format version 2 store their text lengths so. */
#ifndef IG_FORMAT_MODEL_FLOAT_TEXT_H
#define IG_FORMAT_MODEL_FLOAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/shortest.h"

#define IG_FLOAT_TEXT_MAX 32

/* Shortest round-trip text of a double / float; returns length (< IG_FLOAT_TEXT_MAX). */
size_t ig_format_f64(char *out, double d);
size_t ig_format_f32(char *out, float f);
/* Their lengths, without the text (the writer's text lengths). */
size_t ig_format_f64_len(double d);
size_t ig_format_f32_len(float f);
/* The same by printf/strtod search (the references the fast ones are tested against). */
size_t ig_format_f64_exact(char *out, double d);
size_t ig_format_f32_exact(char *out, float f);

/* For measuring runs of values (render_len.c): */

/* ig_format_f64_len with a guess of the decimal places, carried from value to
 * value through a run (ig_shortest_f64_shape_guided); *places -1 at first. */
size_t ig_format_f64_len_guided(double d, int *places);
/* The length of repr's layout of nd digits whose first stands at 10^exp10
 * (what float_text.c writes), without writing it. Inline, as the next: asked
 * of every float a text length is measured for. */
static inline size_t ig_float_layout_len(bool neg, int nd, int exp10)
{
    size_t n = neg;
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) return n + 2 + (size_t)(-exp10 - 1) + (size_t)nd;
        int intdigits = exp10 + 1;
        return n + (size_t)intdigits + 1 + (size_t)(nd > intdigits ? nd - intdigits : 1);
    }
    int ae = exp10 < 0 ? -exp10 : exp10;
    return n + 1 + (nd > 1 ? (size_t)nd : 0) + 2 + (ae >= 100 ? 3 : 2);
}
/* ig_format_f32_len of a finite, non-zero float that is not one of the powers
 * of two kept in the search's form, from its bits. */
static inline size_t ig_format_f32_plain_len(uint32_t bits)
{
    float f;
    uint32_t mag = bits & 0x7fffffffu;
    memcpy(&f, &mag, 4);
    int nd, first;
    ig_shortest_f32_shape(f, &nd, &first);
    return ig_float_layout_len(bits >> 31, nd, first);
}
/* Is f one of the three float32 powers of two (by biased exponent) whose
 * search form is longer than the shortest, and kept? Inline: asked of every
 * float32 a text length is measured for. */
static inline bool ig_format_f32_keeps_search_form(float f)
{
    static const uint8_t pow2_search_f32[] = {31, 214, 217};
    uint32_t bits;
    memcpy(&bits, &f, 4);
    if (bits & ((1u << 23) - 1)) return false;
    unsigned bq = (bits >> 23) & 0xff;
    return bq == pow2_search_f32[0] || bq == pow2_search_f32[1] || bq == pow2_search_f32[2];
}

#endif
