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
 * (exponent or positional: format/model/render.c), parsing. */
#ifndef IG_UTIL_SHORTEST_H
#define IG_UTIL_SHORTEST_H

#include <stddef.h>
#include <stdint.h>

/* v > 0 and finite. *digits has no trailing zeros (1..17 digits for a double,
 * 1..9 for a float); v reads back from digits * 10^(*exp10). */
void ig_shortest_f64(double v, uint64_t *digits, int *exp10);
void ig_shortest_f32(float v, uint64_t *digits, int *exp10);

/* Write the decimal digits of d ("0" for 0) to out, no terminator; returns how many. */
size_t ig_u64_digits(char *out, uint64_t d);

#endif
