/* logical.c - logical types (logical.h): their names and the arguments the
 * schema language writes after them, the storage each takes and the checks
 * against it, and the calendar arithmetic dates and timestamps share. Values as
 * text, JSON and NumPy elements are logical_render.c's; values read from text
 * are logical_parse.c's. */
#include "format/model/logical.h"
#include "format/model/logical_int.h"
#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
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

bool ig_logical_word_is(const char *p, size_t n, const char *w)
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
            if (!ig_logical_word_is(a[1], an[1], "utc")) {
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

int64_t ig_timestamp_days(int64_t v, unsigned unit, int64_t *rest)
{
    int64_t per_day = 86400 * ig_unit_per_second(unit);
    int64_t days = v / per_day, r = v % per_day;
    if (r < 0) r += per_day, days--;
    *rest = r;
    return days;
}
