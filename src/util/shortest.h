/* shortest.h - the shortest decimal that reads back as a given double or float.
 *
 * For a positive finite non-zero value v, ig_shortest_f64 / ig_shortest_f32
 * find the decimal digits*10^exp10 with the fewest significant digits that a
 * correctly rounding parser (strtod / strtof, round half to even) turns back
 * into v; among those of that length, the one nearest v, a tie going to the
 * even digit string. That is what Python's repr and a printf/strtod search
 * ("%.{p}e" for p = 1, 2, ... until it reads back) give, at a cost of a few
 * 64x64-bit multiplications instead of a multi-precision printf.
 *
 * Method: Schubfach (R. Giulietti, "The Schubfach way to render doubles",
 * 2020): v's rounding interval is scaled by a 126-bit approximation of a power
 * of ten (src/util/shortest_table.h, generated exactly by
 * scripts/gen/shortest_table.py) so that at most two candidates of the
 * shortest length remain, and the scaled bounds are exact enough to decide
 * which of them lie inside.
 *
 * Not here: signs, zero, NaN and infinities (the caller's), the text layout
 * (exponent or positional: format/model/float_text.c), parsing. */
#ifndef IG_UTIL_SHORTEST_H
#define IG_UTIL_SHORTEST_H

#include <stddef.h>
#include <stdint.h>

/* v > 0 and finite. *digits has no trailing zeros (1..17 digits for a double,
 * 1..9 for a float); v reads back from digits * 10^(*exp10). */
void ig_shortest_f64(double v, uint64_t *digits, int *exp10);
void ig_shortest_f32(float v, uint64_t *digits, int *exp10);

/* The same decimal's shape, which is all a text's length depends on:
 * *ndigits significant digits (no trailing zeros) and *first, the power of ten
 * of the first one (digits * 10^exp10 = d.ddd * 10^first). Cheaper than the
 * digits: most values need neither the nearest of two candidates nor zeros
 * stripped (shortest.c, pick_shape). */
void ig_shortest_f64_shape(double v, int *ndigits, int *first);
void ig_shortest_f32_shape(float v, int *ndigits, int *first);

/* ig_shortest_f64_shape guided by a guess of v's decimal places, for runs of
 * values that are decimals (prices, rounded measures). When v is m / 10^p for
 * p = *places and an integer m below 10^15, m's digits are the shortest (two
 * decimals of at most 15 significant digits are never the same double), found
 * with one multiplication and one division. Otherwise the search runs and
 * *places becomes the places its digits show, or -1 (no guess, nothing
 * tried) when they show more than 15. Start a run with -1. */
void ig_shortest_f64_shape_guided(double v, int *places, int *ndigits, int *first);

/* Decimal digits in d (1 for 0): log10 from the bit length, one comparison. */
static inline int ig_u64_digit_count(uint64_t d)
{
    static const uint64_t pow10[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                       100000000u, 1000000000u, 10000000000u, 100000000000u,
                                       1000000000000u, 10000000000000u, 100000000000000u,
                                       1000000000000000u, 10000000000000000u, 100000000000000000u,
                                       1000000000000000000u, 10000000000000000000u};
    d |= 1; /* 0 has one digit, as 1 */
    int bits = (63 ^ __builtin_clzll(d)) + 1; /* bsr + 1 */
    int g = (bits * 1233) >> 12; /* floor(bits * log10 2): d >= 10^(g-1) */
    return g + (d >= pow10[g]);
}

/* Write the decimal digits of d ("0" for 0) to out, no terminator; returns how many. */
size_t ig_u64_digits(char *out, uint64_t d);

#endif
