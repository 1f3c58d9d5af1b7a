/* logical.c - logical types (logical.h): names and arguments, storage and
 * checks, the calendar, values rendered as text, JSON and NumPy elements, and
 * parsed back from text. */
#include "format/model/logical.h"
#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the type ------------------------------------------------------------ */

static const char *const kind_names[IG_LT_COUNT] = {
    [IG_LT_DATE] = "date",       [IG_LT_TIME] = "time", [IG_LT_TIMESTAMP] = "timestamp",
    [IG_LT_DECIMAL] = "decimal", [IG_LT_UUID] = "uuid", [IG_LT_FIXED] = "fixed_binary",
    [IG_LT_FLOAT16] = "float16",
};

static const char *const unit_names[] = {"", "s", "ms", "us", "ns"};

unsigned ig_logical_kind_from_name(const char *name, size_t n)
{
    for (unsigned k = 1; k < IG_LT_COUNT; k++)
        if (strlen(kind_names[k]) == n && !memcmp(kind_names[k], name, n)) return k;
    return 0;
}

const char *ig_unit_name(unsigned unit)
{
    return unit <= IG_UNIT_NS ? unit_names[unit] : "?";
}

int64_t ig_unit_per_second(unsigned unit)
{
    switch (unit) {
    case IG_UNIT_MS:
        return 1000;
    case IG_UNIT_US:
        return 1000000;
    case IG_UNIT_NS:
        return 1000000000;
    default:
        return 1;
    }
}

/* Digits of a unit's fraction of a second. */
static unsigned unit_digits(unsigned unit)
{
    return unit == IG_UNIT_MS ? 3 : unit == IG_UNIT_US ? 6 : unit == IG_UNIT_NS ? 9 : 0;
}

static void trim(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t'))
        (*p)++, (*n)--;
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
        (*n)--;
}

/* The next comma-separated argument of args (trimmed): false when none is left. */
static bool next_arg(const char **args, size_t *n, const char **a, size_t *an)
{
    if (!*args) return false;
    const char *comma = *n ? memchr(*args, ',', *n) : NULL;
    *a = *args;
    *an = comma ? (size_t)(comma - *args) : *n;
    if (comma) {
        *n -= *an + 1;
        *args = comma + 1;
    } else {
        *args = NULL;
        *n = 0;
    }
    trim(a, an);
    return true;
}

static bool small_uint(const char *p, size_t n, unsigned max, unsigned *out)
{
    unsigned v = 0;
    if (n == 0 || n > 6) return false;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    if (v > max) return false;
    *out = v;
    return true;
}

static bool word_is(const char *p, size_t n, const char *w)
{
    size_t wn = strlen(w);
    if (n != wn) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] - 'A' + 'a') : p[i];
        if (c != w[i]) return false;
    }
    return true;
}

static int unit_arg(const char *a, size_t an, const char *type, bool time, struct ig_logical *out,
                    char *msg, size_t cap)
{
    for (unsigned u = time ? IG_UNIT_MS : IG_UNIT_S; u <= IG_UNIT_NS; u++)
        if (an == strlen(unit_names[u]) && !memcmp(a, unit_names[u], an)) {
            out->unit = (uint8_t)u;
            return 0;
        }
    snprintf(msg, cap, "unknown %s unit '%.*s' (%s)", type, (int)(an > 20 ? 20 : an), a,
             time ? "ms, us, ns" : "s, ms, us, ns");
    return -EINVAL;
}

int ig_logical_from_args(unsigned kind, const char *args, size_t n, struct ig_logical *out,
                         char *msg, size_t cap)
{
    *out = (struct ig_logical){.kind = (uint8_t)kind};
    const char *name = kind < IG_LT_COUNT ? kind_names[kind] : "?";
    const char *a[3];
    size_t an[3], na = 0;
    while (na < 3 && next_arg(&args, &n, &a[na], &an[na]))
        na++;
    if (args) na = 4; /* more than three */
    switch (kind) {
    case IG_LT_DATE:
    case IG_LT_UUID:
    case IG_LT_FLOAT16:
        if (na) {
            snprintf(msg, cap, "%s takes no arguments", name);
            return -EINVAL;
        }
        if (kind == IG_LT_UUID) out->width = 16;
        return 0;
    case IG_LT_TIME:
        if (na != 1) {
            snprintf(msg, cap, "expected time(UNIT): ms, us or ns");
            return -EINVAL;
        }
        return unit_arg(a[0], an[0], "time", true, out, msg, cap);
    case IG_LT_TIMESTAMP:
        if (na < 1 || na > 2) {
            snprintf(msg, cap, "expected timestamp(UNIT) or timestamp(UNIT, UTC)");
            return -EINVAL;
        }
        if (unit_arg(a[0], an[0], "timestamp", false, out, msg, cap)) return -EINVAL;
        if (na == 2) {
            if (!word_is(a[1], an[1], "utc")) {
                snprintf(msg, cap,
                         "time zone '%.*s': a timestamp is UTC (timestamp(%s, UTC)) or local "
                         "(timestamp(%s))",
                         (int)(an[1] > 40 ? 40 : an[1]), a[1], unit_names[out->unit],
                         unit_names[out->unit]);
                return -EINVAL;
            }
            out->utc = true;
        }
        return 0;
    case IG_LT_DECIMAL: {
        unsigned p = 0, s = 0;
        if (na < 1 || na > 2 || !small_uint(a[0], an[0], 1000, &p) ||
            (na == 2 && !small_uint(a[1], an[1], 1000, &s))) {
            snprintf(msg, cap, "expected decimal(PRECISION, SCALE)");
            return -EINVAL;
        }
        if (p < 1 || p > IG_DECIMAL_MAX_PRECISION) {
            snprintf(msg, cap, "decimal precision %u: must be 1..%d", p, IG_DECIMAL_MAX_PRECISION);
            return -EINVAL;
        }
        if (s > p) {
            snprintf(msg, cap, "decimal(%u, %u): the scale is above the precision", p, s);
            return -EINVAL;
        }
        out->precision = (uint8_t)p;
        out->scale = (uint8_t)s;
        out->width = p > IG_DECIMAL_INT64_DIGITS ? 16 : 0;
        return 0;
    }
    case IG_LT_FIXED: {
        unsigned w = 0;
        if (na != 1 || !small_uint(a[0], an[0], 999999, &w) || w < 1 || w > IG_FIXED_MAX_WIDTH) {
            snprintf(msg, cap, "expected fixed_binary(BYTES), 1..%d bytes", IG_FIXED_MAX_WIDTH);
            return -EINVAL;
        }
        out->width = w;
        return 0;
    }
    default:
        snprintf(msg, cap, "unknown logical type %u", kind);
        return -EINVAL;
    }
}

void ig_logical_storage(const struct ig_logical *lt, uint8_t *type, uint8_t *quantize)
{
    *quantize = IG_Q_NONE;
    switch (lt->kind) {
    case IG_LT_DATE:
        *type = IG_T_INT32;
        break;
    case IG_LT_TIME:
        *type = lt->unit == IG_UNIT_MS || lt->unit == IG_UNIT_S ? IG_T_INT32 : IG_T_INT64;
        break;
    case IG_LT_TIMESTAMP:
        *type = IG_T_INT64;
        break;
    case IG_LT_DECIMAL:
        *type = lt->precision <= IG_DECIMAL_INT32_DIGITS   ? IG_T_INT32
                : lt->precision <= IG_DECIMAL_INT64_DIGITS ? IG_T_INT64
                                                           : IG_T_BINARY;
        break;
    case IG_LT_UUID:
    case IG_LT_FIXED:
        *type = IG_T_BINARY;
        break;
    case IG_LT_FLOAT16:
        *type = IG_T_FLOAT32, *quantize = IG_Q_FP16;
        break;
    default:
        break;
    }
}

const char *ig_logical_check(const struct ig_logical *lt, uint8_t type, uint8_t quantize)
{
    if (lt->kind == IG_LT_NONE)
        return lt->unit || lt->utc || lt->precision || lt->scale || lt->width
                   ? "arguments without a logical type"
                   : NULL;
    if (lt->kind >= IG_LT_COUNT) return "unknown logical type";
    bool timed = lt->kind == IG_LT_TIME || lt->kind == IG_LT_TIMESTAMP;
    if (timed
            ? lt->unit < (lt->kind == IG_LT_TIME ? IG_UNIT_MS : IG_UNIT_S) || lt->unit > IG_UNIT_NS
            : lt->unit)
        return "bad time unit";
    if (lt->utc && lt->kind != IG_LT_TIMESTAMP) return "UTC flag on a type without a zone";
    if (lt->kind == IG_LT_DECIMAL ? lt->precision < 1 || lt->precision > IG_DECIMAL_MAX_PRECISION ||
                                        lt->scale > lt->precision
                                  : lt->precision || lt->scale)
        return "bad decimal precision or scale";
    uint32_t width = lt->kind == IG_LT_UUID ||
                             (lt->kind == IG_LT_DECIMAL && lt->precision > IG_DECIMAL_INT64_DIGITS)
                         ? 16
                     : lt->kind == IG_LT_FIXED ? lt->width
                                               : 0;
    if (lt->width != width ||
        (lt->kind == IG_LT_FIXED && (width < 1 || width > IG_FIXED_MAX_WIDTH)))
        return "bad value width";
    uint8_t t, q;
    ig_logical_storage(lt, &t, &q);
    if (t != type || q != quantize) return "stored as another type";
    return NULL;
}

bool ig_logical_equal(const struct ig_logical *a, const struct ig_logical *b)
{
    return a->kind == b->kind && a->unit == b->unit && a->utc == b->utc &&
           a->precision == b->precision && a->scale == b->scale && a->width == b->width;
}

size_t ig_logical_name(const struct ig_logical *lt, char *out, size_t cap)
{
    const char *name = lt->kind < IG_LT_COUNT && kind_names[lt->kind] ? kind_names[lt->kind] : "?";
    int n;
    switch (lt->kind) {
    case IG_LT_TIME:
        n = snprintf(out, cap, "time(%s)", ig_unit_name(lt->unit));
        break;
    case IG_LT_TIMESTAMP:
        n = snprintf(out, cap, "timestamp(%s%s)", ig_unit_name(lt->unit), lt->utc ? ", UTC" : "");
        break;
    case IG_LT_DECIMAL:
        n = snprintf(out, cap, "decimal(%u, %u)", lt->precision, lt->scale);
        break;
    case IG_LT_FIXED:
        n = snprintf(out, cap, "fixed_binary(%u)", lt->width);
        break;
    default:
        n = snprintf(out, cap, "%s", name);
        break;
    }
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

int ig_logical_text(const struct ig_logical *lt, struct ig_buf *out)
{
    char tmp[64];
    size_t n = ig_logical_name(lt, tmp, sizeof tmp);
    return ig_buf_append(out, tmp, n);
}

/* ---- calendar ------------------------------------------------------------ */

/* Howard Hinnant's days_from_civil and civil_from_days (public domain):
 * eras of 400 years, exact for every int64 day count an int64 year reaches. */
int64_t ig_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void ig_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

int64_t ig_timestamp_days(int64_t v, unsigned unit, int64_t *rest)
{
    int64_t per_day = 86400 * ig_unit_per_second(unit);
    int64_t days = v / per_day, r = v % per_day;
    if (r < 0) r += per_day, days--;
    *rest = r;
    return days;
}

/* ---- values as text ------------------------------------------------------ */

static char *put_digits(char *o, uint64_t v, unsigned min_digits)
{
    char tmp[24];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < min_digits)
        tmp[n++] = '0';
    while (n)
        *o++ = tmp[--n];
    return o;
}

static char *put2(char *o, unsigned v)
{
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
    return o + 2;
}

/* YYYY-MM-DD: at least four year digits, a minus sign before year 0. */
static char *put_date(char *o, int64_t days)
{
    int64_t y;
    unsigned m, d;
    ig_civil_from_days(days, &y, &m, &d);
    if (y < 0) *o++ = '-';
    o = put_digits(o, y < 0 ? 0 - (uint64_t)y : (uint64_t)y, 4);
    *o++ = '-';
    o = put2(o, m);
    *o++ = '-';
    return put2(o, d);
}

/* HH:MM:SS and the unit's fraction digits, from units since midnight (a
 * value outside the day: its hours run on, negative ones after a minus). */
static char *put_clock(char *o, int64_t v, unsigned unit)
{
    int64_t per_s = ig_unit_per_second(unit);
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) *o++ = '-';
    uint64_t secs = a / (uint64_t)per_s, frac = a % (uint64_t)per_s;
    o = put_digits(o, secs / 3600, 2);
    *o++ = ':';
    o = put2(o, (unsigned)(secs / 60 % 60));
    *o++ = ':';
    o = put2(o, (unsigned)(secs % 60));
    if (unit_digits(unit)) {
        *o++ = '.';
        o = put_digits(o, frac, unit_digits(unit));
    }
    return o;
}

size_t ig_decimal_text(__int128 x, unsigned scale, char *out)
{
    char tmp[48];
    unsigned n = 0;
    unsigned __int128 u = x < 0 ? -(unsigned __int128)x : (unsigned __int128)x;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= scale)
        tmp[n++] = '0'; /* a digit before the point */
    char *o = out;
    if (x < 0) *o++ = '-';
    while (n > scale)
        *o++ = tmp[--n];
    if (scale) {
        *o++ = '.';
        while (n)
            *o++ = tmp[--n];
    }
    return (size_t)(o - out);
}

size_t ig_logical_format_lane(const struct ig_logical *lt, uint64_t lane, bool json, char *out)
{
    char *o = out;
    bool quote = json && lt->kind != IG_LT_DECIMAL;
    if (quote) *o++ = '"';
    switch (lt->kind) {
    case IG_LT_DATE:
        o = put_date(o, (int32_t)(uint32_t)lane);
        break;
    case IG_LT_TIME:
        o = put_clock(o, lt->unit == IG_UNIT_MS ? (int64_t)(int32_t)(uint32_t)lane : (int64_t)lane,
                      lt->unit);
        break;
    case IG_LT_TIMESTAMP: {
        int64_t rest, days = ig_timestamp_days((int64_t)lane, lt->unit, &rest);
        o = put_date(o, days);
        *o++ = 'T';
        o = put_clock(o, rest, lt->unit);
        if (lt->utc) *o++ = 'Z';
        break;
    }
    case IG_LT_DECIMAL:
        o += ig_decimal_text(ig_decimal_unscaled(lt, lane, NULL, 0), lt->scale, o);
        break;
    default:
        *o++ = '?';
        break;
    }
    if (quote) *o++ = '"';
    return (size_t)(o - out);
}

/* Days of 0000-01-01 and 10000-01-01: between them a date is 10 bytes. */
#define DAYS_YEAR0     (-719528)
#define DAYS_YEAR10000 2932897

size_t ig_logical_lane_len(const struct ig_logical *lt, uint64_t lane, bool json)
{
    /* dates and timestamps of years 0 to 9999 (nearly all) have one length */
    if (lt->kind == IG_LT_DATE) {
        int32_t d = (int32_t)(uint32_t)lane;
        if (d >= DAYS_YEAR0 && d < DAYS_YEAR10000) return 10 + (json ? 2 : 0);
    } else if (lt->kind == IG_LT_TIMESTAMP) {
        int64_t rest, d = ig_timestamp_days((int64_t)lane, lt->unit, &rest);
        unsigned frac = unit_digits(lt->unit);
        if (d >= DAYS_YEAR0 && d < DAYS_YEAR10000)
            return 19 + (frac ? frac + 1 : 0) + lt->utc + (json ? 2 : 0);
    }
    char tmp[IG_LOGICAL_TEXT_MAX];
    return ig_logical_format_lane(lt, lane, json, tmp);
}

static const char hexdig[] = "0123456789abcdef";

int ig_logical_format_bytes(const struct ig_logical *lt, const uint8_t *p, size_t n, bool json,
                            struct ig_buf *out)
{
    char tmp[IG_LOGICAL_TEXT_MAX], *o = tmp;
    if (lt->kind == IG_LT_UUID && n == 16) {
        if (json) *o++ = '"';
        for (size_t i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) *o++ = '-';
            *o++ = hexdig[p[i] >> 4];
            *o++ = hexdig[p[i] & 15];
        }
        if (json) *o++ = '"';
        return ig_buf_append(out, tmp, (size_t)(o - tmp));
    }
    if (lt->kind == IG_LT_DECIMAL && n == 16) {
        o += ig_decimal_text(ig_decimal_unscaled(lt, 0, p, n), lt->scale, o);
        return ig_buf_append(out, tmp, (size_t)(o - tmp));
    }
    /* binary's form: \x and hex (in JSON, a string with the backslash escaped) */
    int rc = ig_buf_append(out, json ? "\"\\\\x" : "\\x", json ? 4 : 2);
    uint8_t *h = rc ? NULL : ig_buf_extend(out, 2 * n + (json ? 1 : 0));
    if (!h) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        *h++ = (uint8_t)hexdig[p[i] >> 4];
        *h++ = (uint8_t)hexdig[p[i] & 15];
    }
    if (json) *h = '"';
    return 0;
}

int ig_logical_render(struct ig_buf *out, const struct ig_values *v, size_t i, bool json)
{
    if (v->is_bytes) {
        size_t n;
        const uint8_t *p = ig_values_bytes(v, i, &n);
        return ig_logical_format_bytes(&v->lt, p, n, json, out);
    }
    char tmp[IG_LOGICAL_TEXT_MAX];
    size_t n = ig_logical_format_lane(&v->lt, v->lanes[i], json, tmp);
    return ig_buf_append(out, tmp, n);
}

/* ---- decimals ------------------------------------------------------------- */

__int128 ig_decimal_unscaled(const struct ig_logical *lt, uint64_t lane, const uint8_t *bytes,
                             size_t n)
{
    if (!bytes)
        return lt->precision <= IG_DECIMAL_INT32_DIGITS ? (__int128)(int32_t)(uint32_t)lane
                                                        : (__int128)(int64_t)lane;
    unsigned __int128 u = 0;
    for (size_t k = n; k-- > 0;)
        u = u << 8 | bytes[k];
    if (n && n < 16 && (bytes[n - 1] & 0x80)) u |= ~(unsigned __int128)0 << (8 * n);
    return (__int128)u;
}

double ig_decimal_to_double(__int128 x, unsigned scale)
{
    /* the digits and an exponent read back by strtod, which rounds exactly */
    char text[64];
    size_t n = ig_decimal_text(x, 0, text);
    snprintf(text + n, sizeof text - n, "e-%u", scale);
    return strtod(text, NULL);
}

/* ---- values from text ---------------------------------------------------- */

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
    if (n - i >= 3 && word_is(p + i, 3, "utc")) return (long)i + 3;
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

/* ---- NumPy ---------------------------------------------------------------- */

bool ig_logical_npy(const struct ig_logical *lt, const char **descr, uint32_t *width)
{
    static const char *const m8[] = {"", "<M8[s]", "<M8[ms]", "<M8[us]", "<M8[ns]"};
    static const char *const t8[] = {"", "<m8[s]", "<m8[ms]", "<m8[us]", "<m8[ns]"};
    if (!lt) return false;
    switch (lt->kind) {
    case IG_LT_DATE:
        *descr = "<M8[D]";
        break;
    case IG_LT_TIMESTAMP:
        *descr = m8[lt->unit <= IG_UNIT_NS ? lt->unit : 0];
        break;
    case IG_LT_TIME:
        *descr = t8[lt->unit <= IG_UNIT_NS ? lt->unit : 0];
        break;
    case IG_LT_DECIMAL:
        *descr = "<f8";
        break;
    default:
        return false;
    }
    *width = 8;
    return true;
}

/* NumPy's NaT: the smallest int64. */
#define NPY_NAT ((uint64_t)1 << 63)

void ig_logical_npy_at(uint8_t *o, const struct ig_values *v, size_t i)
{
    uint64_t out;
    bool null = ig_values_is_null(v, i);
    if (v->lt.kind == IG_LT_DECIMAL) {
        double d = NAN;
        if (!null) {
            size_t n = 0;
            const uint8_t *b = v->is_bytes ? ig_values_bytes(v, i, &n) : NULL;
            d = v->is_bytes && n != 16
                    ? NAN
                    : ig_decimal_to_double(
                          ig_decimal_unscaled(&v->lt, v->is_bytes ? 0 : v->lanes[i], b, n),
                          v->lt.scale);
        }
        memcpy(&out, &d, 8);
    } else if (null) {
        out = NPY_NAT;
    } else if (v->type == IG_T_INT32) {
        out = (uint64_t)(int64_t)(int32_t)(uint32_t)v->lanes[i];
    } else {
        out = v->lanes[i];
    }
    for (int k = 0; k < 8; k++)
        o[k] = (uint8_t)(out >> (8 * k));
}
