/* float_text.c - floats as text (float_text.h): the shortest digits that
 * round-trip (util/shortest.c) laid out as Python's repr lays them out, the
 * printf/strtod search the fast path is held to, and the text's length from
 * the decimal's shape alone (no digits written). Values of other types, and
 * the rendering of whole columns, are render.c's. */
#include "format/model/float_text.h"
#include "util/shortest.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lay out a digit string d[0..nd) with decimal exponent e (value = 0.d * 10^e ...
 * here: value = d[0].d[1..] x 10^exp10) the way Python's repr does: positional
 * when -4 <= exp10 < 16, else scientific with a sign and at least two exponent
 * digits; positional integers get ".0". */
static size_t layout_repr(char *out, bool neg, const char *d, int nd, int exp10)
{
    char *o = out;
    if (neg) *o++ = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -exp10 - 1; i++)
                *o++ = '0';
            memcpy(o, d, (size_t)nd);
            o += nd;
        } else {
            int intdigits = exp10 + 1;
            for (int i = 0; i < intdigits; i++)
                *o++ = i < nd ? d[i] : '0';
            *o++ = '.';
            if (nd > intdigits) {
                memcpy(o, d + intdigits, (size_t)(nd - intdigits));
                o += nd - intdigits;
            } else {
                *o++ = '0';
            }
        }
    } else {
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)(nd - 1));
            o += nd - 1;
        }
        o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* From "%.*e" output ("-d.ddde+XX") extract digits without trailing zeros and the
 * exponent. */
static int split_sci(const char *s, char *digits, int *nd, int *exp10)
{
    const char *p = s;
    if (*p == '-') p++;
    int n = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[n++] = *p;
    if (*p != 'e') return -1;
    *exp10 = atoi(p + 1);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    *nd = n;
    return 0;
}

/* NaN, the infinities and zeros (a float's too: it widens exactly); 0 for
 * every other value. */
/* The text of NaN, the infinities and the zeros (without its NUL), else ""
 * (a column of zeros, padding or ReLU features, meets them at most values:
 * copied, not printed). */
static const char *special_text(double d)
{
    if (isnan(d)) return "NaN";
    if (isinf(d)) return d < 0 ? "-Infinity" : "Infinity";
    if (d == 0) return signbit(d) ? "-0.0" : "0.0";
    return "";
}

static size_t special_len(double d) { return strlen(special_text(d)); }

static size_t special(char *out, double d)
{
    const char *t = special_text(d);
    size_t n = strlen(t);
    memcpy(out, t, n + 1);
    return n;
}

/* The powers of two (by biased exponent) whose printf-search form is longer
 * than the shortest: 46 doubles (and 3 floats: float_text.h). Footers written
 * since format version 2 store text lengths of the search's form, so these
 * keep it (tests/unit/test_shortest.c checks every power of two against the
 * search). */
static const uint16_t pow2_search_f64[] = {
    6,    16,   66,   102,  215,  232,  235,  245,  318,  328,  361,  371,  474,  514,  527,  534,
    640,  657,  727,  883,  926,  946,  979,  999,  1112, 1145, 1155, 1195, 1205, 1298, 1328, 1368,
    1401, 1421, 1428, 1504, 1557, 1567, 1577, 1597, 1617, 1733, 1826, 1886, 1919, 1999};

static bool keeps_search_form_f64(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    if (bits & ((1ull << 52) - 1)) return false;
    unsigned bq = (unsigned)((bits >> 52) & 0x7ff);
    for (size_t i = 0; i < sizeof pow2_search_f64 / sizeof pow2_search_f64[0]; i++)
        if (pow2_search_f64[i] == bq) return true;
    return false;
}

/* The shortest digits (util/shortest.c) in repr's layout. */
static size_t layout_shortest(char *out, bool neg, uint64_t digits, int exp10)
{
    char d[24];
    int nd = (int)ig_u64_digits(d, digits);
    return layout_repr(out, neg, d, nd, exp10 + nd - 1);
}

size_t ig_format_f64(char *out, double d)
{
    size_t sp = special(out, d);
    if (sp) return sp;
    if (keeps_search_form_f64(d)) return ig_format_f64_exact(out, d);
    uint64_t digits;
    int e;
    ig_shortest_f64(fabs(d), &digits, &e);
    return layout_shortest(out, d < 0, digits, e);
}

size_t ig_format_f64_exact(char *out, double d)
{
    size_t sp = special(out, d);
    if (sp) return sp;
    /* The correctly rounded p-digit form round-trips for some p in 15..17, and when
     * it does for p it is the shortest one: any shorter round-tripping string would
     * itself be what rounding to p digits yields (DBL_DIG = 15). */
    char tmp[40], digits[24];
    /* subnormals carry fewer significant digits: search from one */
    for (int prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (prec == 17 || strtod(tmp, NULL) == d) break;
    }
    int nd = 0, e = 0;
    split_sci(tmp, digits, &nd, &e);
    return layout_repr(out, d < 0, digits, nd, e);
}

size_t ig_format_f32(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    if (ig_format_f32_keeps_search_form(f)) return ig_format_f32_exact(out, f);
    uint64_t digits;
    int e;
    ig_shortest_f32(fabsf(f), &digits, &e);
    return layout_shortest(out, f < 0, digits, e);
}

size_t ig_format_f32_exact(char *out, float f)
{
    size_t sp = special(out, f);
    if (sp) return sp;
    char tmp[40], digits[24];
    for (int prec = fabsf(f) < FLT_MIN ? 1 : 6; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)f);
        if (prec == 9 || strtof(tmp, NULL) == f) break;
    }
    int nd = 0, e = 0;
    split_sci(tmp, digits, &nd, &e);
    return layout_repr(out, f < 0, digits, nd, e);
}

size_t ig_format_f64_len_guided(double d, int *places)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    /* one test for the rare ones: NaN and the infinities have every exponent
     * bit set, zeros and powers of two no fraction bits */
    if (((bits >> 52) & 0x7ff) == 0x7ff || !(bits << 12)) {
        char tmp[IG_FLOAT_TEXT_MAX];
        size_t sp = special_len(d);
        if (sp) return sp;
        if (keeps_search_form_f64(d)) return ig_format_f64_exact(tmp, d);
    }
    int nd, first;
    ig_shortest_f64_shape_guided(fabs(d), places, &nd, &first);
    return ig_float_layout_len(d < 0, nd, first);
}

size_t ig_format_f64_len(double d)
{
    int places = -1;
    return ig_format_f64_len_guided(d, &places);
}

size_t ig_format_f32_len(float f)
{
    size_t sp = special_len(f);
    if (sp) return sp;
    char tmp[IG_FLOAT_TEXT_MAX];
    if (ig_format_f32_keeps_search_form(f)) return ig_format_f32_exact(tmp, f);
    int nd, first;
    ig_shortest_f32_shape(fabsf(f), &nd, &first);
    return ig_float_layout_len(f < 0, nd, first);
}
