/* logical.h - logical types (types.h, struct ig_logical): their names in a
 * schema, how each is stored, and their values as text, JSON and NumPy
 * elements, and back from text.
 *
 *   type                  stored as                      text                          JSON
 *   date                  int32 days since 1970-01-01    2024-01-01                    "2024-01-01"
 *   time(ms|us|ns)        int32 ms, int64 us or ns       20:34:56.123 "20:34:56.123" timestamp(U[,
 * UTC])   int64 U since 1970             2024-01-01T20:34:56.123456Z   the text, quoted decimal(p,
 * s)         int32/int64/16 bytes, scaled   1234.50                       1234.50 uuid 16 bytes
 * 6ba7b810-9dad-11d1-80b4-...   the text, quoted fixed_binary(N)       N bytes \x0a1b... (as
 * binary)         "\\x0a1b..." float16               float32 quantize=fp16          as the float32
 * it reads as    likewise
 *
 * Timestamps and times show every digit of their unit (s: none; ms: 3; us: 6;
 * ns: 9); a UTC-adjusted timestamp ends in Z, a local one has no zone. Years
 * are proleptic Gregorian, astronomical (year 0 is 1 BC): four digits at
 * least, a minus sign before 0 (-0044-03-15), five or more digits after 9999.
 * Decimals show exactly `scale` places.
 *
 * Parsing takes the text form back, and more: dates YYYY-MM-DD; timestamps a
 * date, then 'T' or a space and HH:MM[:SS[.fraction]], then an optional zone
 * (Z, +HH, +HH:MM, +HHMM; the value is converted to UTC), or a date alone
 * (midnight); times HH:MM[:SS[.fraction]]; decimals [-+]digits[.digits] with
 * an optional exponent; uuids with or without their hyphens, any case. A
 * fraction or decimal digit the type cannot hold that is not zero is an error
 * (never rounded), as is a value out of the type's range. */
#ifndef IG_FORMAT_MODEL_LOGICAL_H
#define IG_FORMAT_MODEL_LOGICAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/types.h"
#include "format/model/values.h"

struct ig_buf;
struct ig_error;

/* ---- the type ------------------------------------------------------------ */

/* Is `name` (n bytes) a logical type's name ("date", "timestamp", ...)? Its
 * kind, else 0. */
unsigned ig_logical_kind_from_name(const char *name, size_t n);
/* The logical type `kind` with its arguments (the text between the
 * parentheses, NULL when there were none): 0, or -EINVAL with msg (cap bytes)
 * saying what is wrong ("unknown time unit 'sec' (s, ms, us, ns)"). */
int ig_logical_from_args(unsigned kind, const char *args, size_t n, struct ig_logical *out,
                         char *msg, size_t cap);
/* How values of lt are stored: type and quantisation. */
void ig_logical_storage(const struct ig_logical *lt, uint8_t *type, uint8_t *quantize);
/* NULL when lt is a valid logical type stored as `type` (quantised by
 * `quantize`), else what is wrong (a reader's check of a column record). */
const char *ig_logical_check(const struct ig_logical *lt, uint8_t type, uint8_t quantize);
/* The type's schema text ("timestamp(us, UTC)", "decimal(12, 2)"). */
int ig_logical_text(const struct ig_logical *lt, struct ig_buf *out);
/* The same into a fixed buffer (at least 32 bytes); its length. */
size_t ig_logical_name(const struct ig_logical *lt, char *out, size_t cap);
bool ig_logical_equal(const struct ig_logical *a, const struct ig_logical *b);

/* Units of a time unit in a second (1, 1000, 10^6, 10^9). */
int64_t ig_unit_per_second(unsigned unit);
const char *ig_unit_name(unsigned unit); /* "s", "ms", "us", "ns" */

/* ---- calendar ------------------------------------------------------------ */

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12, day
 * 1..31, not checked), and back. Exact over the whole int64 range of days
 * that int64 years reach. */
int64_t ig_days_from_civil(int64_t y, unsigned m, unsigned d);
void ig_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* ---- values as text ------------------------------------------------------ */

/* The most bytes one value's text (or JSON) takes, but for fixed_binary's. */
#define IG_LOGICAL_TEXT_MAX 64

/* A lane-stored value (date, time, timestamp, an int32 or int64 decimal) as
 * text, or JSON (quoted, but decimals): its length in out. */
size_t ig_logical_format_lane(const struct ig_logical *lt, uint64_t lane, bool json, char *out);
/* Its length alone. */
size_t ig_logical_lane_len(const struct ig_logical *lt, uint64_t lane, bool json);
/* A bytes-stored value (uuid, a 16-byte decimal) appended to out; a value of
 * the wrong length is shown as binary (\x...), as nothing should hold one. */
int ig_logical_format_bytes(const struct ig_logical *lt, const uint8_t *p, size_t n, bool json,
                            struct ig_buf *out);
/* Value i of v (not NULL), when ig_logical_renders(&v->lt), appended. */
int ig_logical_render(struct ig_buf *out, const struct ig_values *v, size_t i, bool json);

/* ---- values from text ---------------------------------------------------- */

/* One value of type lt (stored as `type`) from its text, appended to v (the
 * bytes of a uuid or 16-byte decimal go through scratch). Errors say only what
 * is wrong with the value; callers name the file, line and column. */
int ig_logical_parse(const struct ig_logical *lt, uint8_t type, const char *p, size_t n,
                     struct ig_values *v, struct ig_buf *scratch, struct ig_error *err);
/* The lane of a lane-stored value from its text (no push). */
int ig_logical_parse_lane(const struct ig_logical *lt, const char *p, size_t n, uint64_t *lane,
                          struct ig_error *err);
/* The same from the integer a JSON number holds (dates, times and
 * timestamps: the stored count itself), checked against the storage's range. */
int ig_logical_lane_from_int(const struct ig_logical *lt, int64_t x, uint64_t *lane,
                             struct ig_error *err);

/* What a text value looks like, for inference: a date (YYYY-MM-DD), a
 * timestamp (date and time), with a zone or not and how many fraction
 * digits. */
struct ig_time_guess {
    bool date, timestamp, zoned;
    uint8_t frac_digits;
};
bool ig_logical_guess(const char *p, size_t n, struct ig_time_guess *g);

/* Timestamps of unit u: seconds, days and the rest of a value (floored). */
int64_t ig_timestamp_days(int64_t v, unsigned unit, int64_t *rest);

/* ---- decimals ------------------------------------------------------------- */

/* A decimal's unscaled value: from its lane (int32 or int64 storage) or its
 * 16 bytes (little-endian two's complement). */
__int128 ig_decimal_unscaled(const struct ig_logical *lt, uint64_t lane, const uint8_t *bytes,
                             size_t n);
/* The double nearest unscaled x 10^-scale. */
double ig_decimal_to_double(__int128 unscaled, unsigned scale);
/* Decimal text of unscaled x 10^-scale into out (>= 44 bytes); its length. */
size_t ig_decimal_text(__int128 unscaled, unsigned scale, char *out);

/* ---- NumPy ---------------------------------------------------------------- */

/* The .npy element of a leaf of logical type lt: its dtype descr and width,
 * or false when lt has none of its own (NULL lt or IG_LT_NONE, float16,
 * uuid, fixed_binary: the storage type's, if any). date <M8[D], timestamp
 * <M8[unit], time <m8[unit] (8 bytes; NULL is NaT), decimal <f8 (NULL NaN). */
bool ig_logical_npy(const struct ig_logical *lt, const char **descr, uint32_t *width);
/* Value i of v as that element at o (NULL: NaT or NaN). */
void ig_logical_npy_at(uint8_t *o, const struct ig_values *v, size_t i);

#endif
