/* logical_parse.c - logical values read from text (logical.h): ISO 8601
 * dates, times and timestamps with their zones, decimals exact at their
 * scale or refused, uuids, fixed_binary's hex; and the guess an importer
 * makes of whether a column of text holds dates or timestamps. Values as
 * text are logical_render.c's. */
#include "format/model/logical.h"
#include "format/model/logical_int.h"
#include "format/model/values.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/parse.h"

#include <errno.h>
#include <string.h>

/* Leap years and a month's days (proleptic Gregorian): a parsed day that
 * does not exist is refused. */
static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* n digits at p as a number: false when one is not a digit. */
static bool fixed_digits(const char *p, size_t n, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!digit(p[i])) return false;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    *out = v;
    return true;
}

/* [-+]YYYY...-MM-DD at p: its days and the bytes it took, or 0. */
static size_t scan_date(const char *p, size_t n, int64_t *days, const char **why)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) neg = p[i++] == '-';
    size_t y0 = i;
    int64_t y = 0;
    while (i < n && digit(p[i]) && i - y0 < 12)
        y = y * 10 + (p[i++] - '0');
    if (i - y0 < 4 || i + 6 > n || p[i] != '-' || p[i + 3] != '-') {
        *why = "not a date (YYYY-MM-DD)";
        return 0;
    }
    unsigned m, d;
    if (!fixed_digits(p + i + 1, 2, &m) || !fixed_digits(p + i + 4, 2, &d)) {
        *why = "not a date (YYYY-MM-DD)";
        return 0;
    }
    if (neg) y = -y;
    if (m < 1 || m > 12 || d < 1 || d > month_days(y, m)) {
        *why = "no such day";
        return 0;
    }
    *days = ig_days_from_civil(y, m, d);
    return i + 6;
}

/* HH:MM[:SS[.fraction]] at p: seconds since midnight, the fraction's digits
 * (nine at most kept in *nanos; any beyond must be zeros), bytes taken or 0. */
static size_t scan_clock(const char *p, size_t n, int64_t *secs, int64_t *nanos,
                         unsigned *frac_digits, const char **why)
{
    unsigned h, m, s = 0;
    size_t i = 5;
    *nanos = 0;
    *frac_digits = 0;
    if (n < 5 || !fixed_digits(p, 2, &h) || p[2] != ':' || !fixed_digits(p + 3, 2, &m)) {
        *why = "not a time (HH:MM:SS)";
        return 0;
    }
    if (i < n && p[i] == ':') {
        if (i + 3 > n || !fixed_digits(p + i + 1, 2, &s)) {
            *why = "not a time (HH:MM:SS)";
            return 0;
        }
        i += 3;
        if (i < n && (p[i] == '.' || p[i] == ',')) {
            i++;
            size_t f0 = i;
            while (i < n && digit(p[i])) {
                if (i - f0 < 9)
                    *nanos = *nanos * 10 + (p[i] - '0');
                else if (p[i] != '0')
                    *frac_digits = 10; /* a digit past nanoseconds */
                i++;
            }
            if (i == f0) {
                *why = "no digits after the decimal point";
                return 0;
            }
            size_t got = i - f0 < 9 ? i - f0 : 9;
            if (*frac_digits < 10) *frac_digits = (unsigned)got;
            for (size_t k = got; k < 9; k++)
                *nanos *= 10;
        }
    }
    if (h > 23 || m > 59 || s > 60) {
        *why = "no such time of day";
        return 0;
    }
    if (s == 60) s = 59; /* a leap second reads as the second before it */
    *secs = (int64_t)h * 3600 + m * 60 + s;
    return i;
}

/* nanos (0..999,999,999) in `unit`: an error when digits the unit cannot hold are not zero. */
static int frac_to_unit(int64_t nanos, unsigned frac_digits, unsigned unit, int64_t *out,
                        const char *type, struct ig_error *err)
{
    int64_t div = 1000000000 / ig_unit_per_second(unit);
    if (frac_digits > 9 || nanos % div)
        return ig_err(err, -EINVAL, "more fraction digits than %s holds", type);
    *out = nanos / div;
    return 0;
}

/* A zone after a time: Z, UTC, +HH, +HH:MM, +HHMM (spaces before it allowed);
 * its offset east of UTC in seconds. Bytes taken, 0 for none, -1 when malformed. */
static long scan_zone(const char *p, size_t n, int64_t *offset)
{
    size_t i = 0;
    *offset = 0;
    while (i < n && p[i] == ' ')
        i++;
    if (i == n) return 0;
    if (p[i] == 'Z' || p[i] == 'z') return (long)i + 1;
    if (n - i >= 3 && ig_logical_word_is(p + i, 3, "utc")) return (long)i + 3;
    if (p[i] != '+' && p[i] != '-') return -1;
    bool neg = p[i++] == '-';
    unsigned h, m = 0;
    if (n - i < 2 || !fixed_digits(p + i, 2, &h)) return -1;
    i += 2;
    if (i < n && p[i] == ':') i++;
    if (i < n) {
        if (n - i < 2 || !fixed_digits(p + i, 2, &m)) return -1;
        i += 2;
    }
    if (h > 23 || m > 59) return -1;
    *offset = (neg ? -1 : 1) * ((int64_t)h * 3600 + m * 60);
    return (long)i;
}

static int bad_value(struct ig_error *err, const char *p, size_t n, const char *type,
                     const char *why)
{
    return ig_err(err, -EINVAL, "'%.*s' is not a %s: %s", (int)(n > 40 ? 40 : n), p, type, why);
}

static int parse_date(const char *p, size_t n, uint64_t *lane, struct ig_error *err)
{
    int64_t days;
    const char *why = NULL;
    size_t used = scan_date(p, n, &days, &why);
    if (!used || used != n) return bad_value(err, p, n, "date", why ? why : "expected YYYY-MM-DD");
    if (days < INT32_MIN || days > INT32_MAX) return bad_value(err, p, n, "date", "out of range");
    *lane = (uint64_t)(int64_t)days;
    return 0;
}

static int parse_time(const struct ig_logical *lt, const char *p, size_t n, uint64_t *lane,
                      struct ig_error *err)
{
    int64_t secs = 0, nanos = 0, f = 0;
    unsigned fd = 0;
    const char *why = NULL;
    char name[32];
    ig_logical_name(lt, name, sizeof name);
    size_t used = scan_clock(p, n, &secs, &nanos, &fd, &why);
    if (!used || used != n) return bad_value(err, p, n, "time", why ? why : "expected HH:MM:SS");
    int rc = frac_to_unit(nanos, fd, lt->unit, &f, name, err);
    if (rc) return rc;
    int64_t v = secs * ig_unit_per_second(lt->unit) + f;
    *lane = lt->unit == IG_UNIT_MS ? (uint64_t)(int64_t)(int32_t)v : (uint64_t)v;
    return 0;
}

static int parse_timestamp(const struct ig_logical *lt, const char *p, size_t n, uint64_t *lane,
                           struct ig_error *err)
{
    int64_t days, secs = 0, nanos = 0, offset = 0, f = 0;
    unsigned fd = 0;
    const char *why = NULL;
    char name[32];
    ig_logical_name(lt, name, sizeof name);
    size_t i = scan_date(p, n, &days, &why);
    if (!i) return bad_value(err, p, n, "timestamp", why);
    if (i < n && (p[i] == 'T' || p[i] == 't' || p[i] == ' ') && i + 1 < n && digit(p[i + 1])) {
        size_t used = scan_clock(p + i + 1, n - i - 1, &secs, &nanos, &fd, &why);
        if (!used) return bad_value(err, p, n, "timestamp", why);
        i += 1 + used;
    }
    long z = scan_zone(p + i, n - i, &offset);
    if (z < 0 || i + (size_t)z != n)
        return bad_value(err, p, n, "timestamp",
                         "expected YYYY-MM-DD[THH:MM:SS[.fraction]][Z|+HH:MM]");
    int rc = frac_to_unit(nanos, fd, lt->unit, &f, name, err);
    if (rc) return rc;
    __int128 v = ((__int128)days * 86400 + secs - offset) * ig_unit_per_second(lt->unit) + f;
    if (v < INT64_MIN || v > INT64_MAX) return bad_value(err, p, n, name, "out of range");
    *lane = (uint64_t)(int64_t)v;
    return 0;
}

/* A decimal's text as its unscaled value at lt's scale: exact or an error. */
static int parse_decimal(const struct ig_logical *lt, const char *p, size_t n, __int128 *out,
                         struct ig_error *err)
{
    char name[32];
    ig_logical_name(lt, name, sizeof name);
    size_t i = 0;
    bool neg = false, any = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) neg = p[i++] == '-';
    unsigned __int128 m = 0;
    int sig = 0;       /* significant digits in m */
    int64_t exp = 0;   /* value = m x 10^exp */
    bool lost = false; /* a nonzero digit past what m keeps */
    bool point = false;
    for (; i < n; i++) {
        if (p[i] == '.' && !point) {
            point = true;
            continue;
        }
        if (!digit(p[i])) break;
        any = true;
        int dgt = p[i] - '0';
        if (sig == 0 && dgt == 0) {
            if (point) exp--;
            continue;
        }
        if (sig < IG_DECIMAL_MAX_PRECISION) { /* 38 digits: below 2^127 */
            m = m * 10 + (unsigned)dgt;
            sig++;
            if (point) exp--;
        } else {
            lost |= dgt != 0;
            if (!point) exp++;
        }
    }
    if (any && i < n && (p[i] == 'e' || p[i] == 'E')) {
        int64_t e;
        if (ig_parse_i64(p + i + 1, n - i - 1, &e, NULL) || e > 1000 || e < -1000)
            return ig_err(err, -EINVAL, "'%.*s' is not a number", (int)(n > 40 ? 40 : n), p);
        exp += e;
        i = n;
    }
    if (!any || i != n)
        return ig_err(err, -EINVAL, "'%.*s' is not a number", (int)(n > 40 ? 40 : n), p);
    /* to lt's scale: value = m x 10^(exp + scale) units */
    int64_t shift = exp + lt->scale;
    while (shift < 0 && m) {
        if (m % 10) lost = true;
        m /= 10;
        shift++;
    }
    if (lost)
        return ig_err(err, -EINVAL, "'%.*s' has more decimal places than %s holds",
                      (int)(n > 40 ? 40 : n), p, name);
    unsigned __int128 limit = 1;
    for (unsigned k = 0; k < lt->precision; k++)
        limit *= 10;
    for (; shift > 0 && m; shift--) {
        if (m > (limit - 1) / 10) { /* m x 10 >= limit: no room (and no overflow) */
            m = limit;
            break;
        }
        m *= 10;
    }
    if (m >= limit)
        return ig_err(err, -EINVAL, "'%.*s' does not fit %s", (int)(n > 40 ? 40 : n), p, name);
    *out = neg ? -(__int128)m : (__int128)m;
    return 0;
}

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int parse_uuid(const char *p, size_t n, uint8_t out[16], struct ig_error *err)
{
    if (n == 38 && p[0] == '{' && p[37] == '}') p++, n -= 2;
    bool hyphens = n == 36;
    if (n != 36 && n != 32)
        return bad_value(err, p, n, "uuid", "expected 32 hex digits (8-4-4-4-12)");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (hyphens && (i == 8 || i == 13 || i == 18 || i == 23)) {
            if (p[i] != '-') return bad_value(err, p, n, "uuid", "expected 8-4-4-4-12 hex digits");
            continue;
        }
        int h = hex_nibble(p[i]);
        if (h < 0) return bad_value(err, p, n, "uuid", "not a hex digit");
        if (k % 2 == 0)
            out[k / 2] = (uint8_t)(h << 4);
        else
            out[k / 2] |= (uint8_t)h;
        k++;
    }
    return 0;
}

int ig_logical_parse_lane(const struct ig_logical *lt, const char *p, size_t n, uint64_t *lane,
                          struct ig_error *err)
{
    switch (lt->kind) {
    case IG_LT_DATE:
        return parse_date(p, n, lane, err);
    case IG_LT_TIME:
        return parse_time(lt, p, n, lane, err);
    case IG_LT_TIMESTAMP:
        return parse_timestamp(lt, p, n, lane, err);
    case IG_LT_DECIMAL: {
        if (lt->width) return ig_err(err, -EINVAL, "a 16-byte decimal has no lane");
        __int128 x;
        int rc = parse_decimal(lt, p, n, &x, err);
        if (!rc)
            *lane = lt->precision <= IG_DECIMAL_INT32_DIGITS ? (uint64_t)(int64_t)(int32_t)x
                                                             : (uint64_t)(int64_t)x;
        return rc;
    }
    default:
        return ig_err(err, -EINVAL, "not a lane-stored logical type");
    }
}

int ig_logical_lane_from_int(const struct ig_logical *lt, int64_t x, uint64_t *lane,
                             struct ig_error *err)
{
    uint8_t type, q;
    ig_logical_storage(lt, &type, &q);
    char name[32];
    ig_logical_name(lt, name, sizeof name);
    if (lt->kind == IG_LT_DECIMAL || type == IG_T_BINARY)
        return ig_err(err, -EINVAL, "an integer is not a %s", name);
    if (type == IG_T_INT32 && (x < INT32_MIN || x > INT32_MAX))
        return ig_err(err, -EINVAL, "%lld is out of range for %s", (long long)x, name);
    *lane = (uint64_t)x;
    return 0;
}

int ig_logical_parse(const struct ig_logical *lt, uint8_t type, const char *p, size_t n,
                     struct ig_values *v, struct ig_buf *scratch, struct ig_error *err)
{
    uint8_t bytes[16];
    switch (lt->kind) {
    case IG_LT_UUID: {
        int rc = parse_uuid(p, n, bytes, err);
        if (rc) return rc;
        return ig_values_push_bytes(v, bytes, 16) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    case IG_LT_FIXED: {
        if (!scratch) return ig_err(err, -EINVAL, "no scratch buffer");
        ig_buf_reset(scratch);
        int rc = ig_parse_hex_binary(p, n, scratch, err);
        if (rc) return rc;
        if (scratch->len != lt->width)
            return ig_err(err, -EINVAL, "%zu bytes, fixed_binary(%u) holds %u", scratch->len,
                          lt->width, lt->width);
        return ig_values_push_bytes(v, scratch->data, scratch->len)
                   ? ig_err(err, -ENOMEM, "out of memory")
                   : 0;
    }
    case IG_LT_DECIMAL:
        if (type == IG_T_BINARY) {
            __int128 x;
            int rc = parse_decimal(lt, p, n, &x, err);
            if (rc) return rc;
            unsigned __int128 u = (unsigned __int128)x;
            for (int k = 0; k < 16; k++)
                bytes[k] = (uint8_t)(u >> (8 * k));
            return ig_values_push_bytes(v, bytes, 16) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        }
        break;
    case IG_LT_FLOAT16: {
        float f;
        uint32_t b;
        int rc = ig_parse_f32(p, n, &f, err);
        if (rc) return rc;
        memcpy(&b, &f, 4);
        return ig_values_push_lane(v, b) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    default:
        break;
    }
    uint64_t lane;
    int rc = ig_logical_parse_lane(lt, p, n, &lane, err);
    if (rc) return rc;
    return ig_values_push_lane(v, lane) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

bool ig_logical_guess(const char *p, size_t n, struct ig_time_guess *g)
{
    int64_t days, secs, nanos, offset;
    unsigned fd = 0;
    const char *why;
    *g = (struct ig_time_guess){0};
    size_t i = scan_date(p, n, &days, &why);
    if (!i || p[0] == '+' || (p[0] != '-' && i != 10)) return false; /* plain dates only */
    if (i == n) {
        g->date = true;
        return true;
    }
    if (!(p[i] == 'T' || p[i] == ' ') || i + 1 >= n) return false;
    size_t used = scan_clock(p + i + 1, n - i - 1, &secs, &nanos, &fd, &why);
    if (!used) return false;
    i += 1 + used;
    long z = scan_zone(p + i, n - i, &offset);
    if (z < 0 || i + (size_t)z != n) return false;
    g->timestamp = true;
    g->zoned = z > 0;
    g->frac_digits = (uint8_t)(fd > 9 ? 9 : fd);
    return true;
}
