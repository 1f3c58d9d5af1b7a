/* int_len.h - the text length of a run of integers, without the text.
 *
 * ig_int_len_run adds up the lengths of the decimal forms render.c writes for
 * n integer lanes of one type: the digits of the magnitude ("0" for zero),
 * and a '-' before a negative value. The writer stores every page's text
 * length, so an import of integer columns measures each value once; one at a
 * time through the renderer's per-value switch that was over a third of the text
 * lengths of a CSV import.
 *
 * A lane holds its value in the low `width` bytes (1, 2, 4 or 8), read as a
 * signed or an unsigned integer of that width; the bits above are ignored, as
 * render.c's casts ignore them. Eight lanes at a time with AVX-512 where the
 * CPU has it (util/cpu.h), else one at a time: the same sum (tests compare both
 * with the rendered text, INGOT_NO_AVX512=1 choosing the scalar path).
 *
 * Not here: NULLs, newlines, bool and floats (render_len.c). */
#ifndef IG_FORMAT_INT_LEN_H
#define IG_FORMAT_INT_LEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sum of the decimal text lengths of lanes[0, n). */
uint64_t ig_int_len_run(const uint64_t *lanes, size_t n, unsigned width, bool is_signed);

/* The decimal text length of one such lane. */
unsigned ig_int_len(uint64_t lane, unsigned width, bool is_signed);

#endif
