/* parse_value.h - text back into one typed value: the inverse of render.c.
 *
 * Takes a primitive value in the text form `ingot cat` writes and CSV fields
 * hold: bool true/false/t/f/1/0 in any case; integers in decimal, inside the
 * type's range (an out-of-range value is an error, never a wrap-around); floats
 * as decimal text, NaN, Infinity, -Infinity; strings as their UTF-8 bytes, taken
 * as they are (no unescaping); binary as PostgreSQL's \x hex. NULL is the
 * caller's to decide (an unquoted empty CSV field, `\N` in `erase --where`), as
 * are blob references, which are paths to files, not values.
 *
 * Errors carry only the value-level reason ("'abc' is not an integer"); callers
 * add the file, line and column. */
#ifndef IG_FORMAT_MODEL_PARSE_VALUE_H
#define IG_FORMAT_MODEL_PARSE_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "format/model/values.h"

struct ig_buf;
struct ig_error;

/* A bool, integer or float as its lane (codec.h's lane convention); *lane is
 * left alone on an error. */
int ig_parse_lane(uint8_t type, const char *p, size_t n, uint64_t *lane, struct ig_error *err);

/* Append one value of any primitive type to v; scratch holds decoded binary. */
int ig_parse_value(uint8_t type, const char *p, size_t n, struct ig_values *v,
                   struct ig_buf *scratch, struct ig_error *err);

/* The range of a signed (int8..int64) or unsigned (uint8..uint64) type. */
void ig_type_int_range(uint8_t type, int64_t *min, int64_t *max);
uint64_t ig_type_uint_max(uint8_t type);

#endif
