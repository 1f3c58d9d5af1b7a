/* parse.h - strict scalar parsing from text fields.
 *
 * Importers turn CSV fields and JSON numbers into column values with these.
 * Input is (p, n) and need not be NUL-terminated; the whole of p[0..n) must be
 * the value: no surrounding whitespace, no trailing bytes, never empty.
 *
 * Contract shared by every function here:
 *   - returns 0 and stores the value, or a negative errno and leaves *out
 *     untouched (buffers: restored to their previous length);
 *   - -EINVAL: the text is not the expected syntax;
 *   - -ERANGE: well-formed but does not fit (integers only: floats overflow to
 *     +-inf and underflow to 0 or a subnormal, as strtod does);
 *   - -ENOMEM: allocation failure (binary decoders; float slow path);
 *   - when err is non-NULL it gets a short message quoting the offending text,
 *     e.g. `invalid integer "12a"`; callers prefix the file/line/column with
 *     ig_err_prefix. Pass err = NULL on hot paths where failure is expected
 *     (type inference trying int before float): then nothing is formatted.
 *
 * Nothing here depends on the process locale (a German LC_NUMERIC must not
 * turn "1.5" into an error), and nothing allocates on the success path except
 * the binary decoders' output buffers.
 *
 * Integers: decimal digits only, with an optional '+' or '-' sign. Leading
 * zeros are accepted ("007" is 7); "-0" is 0. "1e3", "1.0", "0x10", " 5" are
 * -EINVAL. For unsigned parsers a negative value other than zero is -ERANGE.
 *
 * Floats: [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, or the
 * specials inf, infinity, nan (case-insensitive, optional sign). Hex floats
 * ("0x1p3"), "nan(...)" payloads, and a lone "." are rejected. Results are
 * correctly rounded (same bits as strtod/strtof in the C locale). Decimals of
 * up to 19 significant digits, and longer ones whose further digits cannot
 * change the rounding, are converted here with integer arithmetic; the rest
 * (more digits near a tie, exact ties with |exponent| > 19, subnormal and
 * overflowing results) go to strtod_l. */
#ifndef IG_UTIL_PARSE_H
#define IG_UTIL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct ig_error;

int ig_parse_i64(const char *p, size_t n, int64_t *out, struct ig_error *err);
int ig_parse_u64(const char *p, size_t n, uint64_t *out, struct ig_error *err);

/* Signed integer within [min, max] (int8..int32 columns, or any narrower
 * range). Out of range is -ERANGE with the bounds in the message. */
int ig_parse_int_range(const char *p, size_t n, int64_t min, int64_t max, int64_t *out,
                       struct ig_error *err);
/* Unsigned integer within [min, max] (uint8..uint32 columns). */
int ig_parse_uint_range(const char *p, size_t n, uint64_t min, uint64_t max, uint64_t *out,
                        struct ig_error *err);

int ig_parse_f64(const char *p, size_t n, double *out, struct ig_error *err);
/* Rounds the decimal directly to float (not via double, which could round twice). */
int ig_parse_f32(const char *p, size_t n, float *out, struct ig_error *err);

/* true/false/t/f/1/0 in any letter case. */
int ig_parse_bool(const char *p, size_t n, bool *out, struct ig_error *err);

/* PostgreSQL bytea hex form: "\x" followed by an even number of hex digits
 * (either case, no separators). The decoded bytes are APPENDED to out. */
int ig_parse_hex_binary(const char *p, size_t n, struct ig_buf *out, struct ig_error *err);

/* Standard base64 (RFC 4648 section 4, alphabet A-Z a-z 0-9 + /). Strict: the
 * length must be a multiple of 4, '=' padding is required and only at the end,
 * no whitespace, and the unused low bits of the last symbol must be zero (so
 * every byte string has exactly one accepted encoding). The decoded bytes are
 * APPENDED to out. */
int ig_base64_decode(const char *p, size_t n, struct ig_buf *out, struct ig_error *err);

#endif
