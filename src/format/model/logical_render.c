/* logical_render.c - logical values as text and JSON (logical.h): dates,
 * times and timestamps in ISO 8601, decimals with their scale's digits,
 * uuids in 8-4-4-4-12 hex, other bytes as \x and hex; their lengths without
 * rendering them; values as NumPy elements (datetime64, timedelta64, decimals
 * as float64); and decimals' unscaled integers and doubles. Reading text
 * back is logical_parse.c's. */
#include "format/model/logical.h"
#include "format/model/values.h"
#include "util/buf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits of a unit's fraction of a second. */
static unsigned unit_digits(unsigned unit)
{
    return unit == IG_UNIT_MS ? 3 : unit == IG_UNIT_US ? 6 : unit == IG_UNIT_NS ? 9 : 0;
}

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
