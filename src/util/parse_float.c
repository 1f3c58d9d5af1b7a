#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtod_l, newlocale (meson passes it too) */
#endif
/* parse_float.c - decimal text to float64 and float32, correctly rounded
 * (parse.h): one grammar pass, then the cheapest tier that decides the
 * rounding (Clinger's, a 126-bit power of ten, exact integer arithmetic),
 * strtod_l in the C locale for the rest. Integers, bools and binary are
 * parse.c's. */
#include "parse.h"
#include "parse_shared.h"
#include "endian.h"
#include "error.h"
#include "shortest_table.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- floats -------------------------------------------------------------- */

/* A decimal m * 10^e10 becomes a float in tiers, cheapest first:
 *   1. Clinger: m and 10^|e10| both exact doubles (floats), one IEEE operation
 *      rounds once, correctly;
 *   2. round_scaled: m times a 126-bit power of ten (the shortest printer's
 *      table), which decides the rounding of all but the decimals that lie
 *      (nearly) on a rounding boundary -- ties, and numbers the format holds
 *      exactly;
 *   3. those, and results that are subnormal, infinite or beyond the table:
 *      exact_path (exact integer arithmetic, |e10| <= 19), else strtod_l. */

__extension__ typedef unsigned __int128 u128;

/* What one grammar pass over a decimal float learns: its value is
 * (m + f) * 10^e10, where f = 0 unless digits were truncated, else 0 < f < 1. */
struct dec {
    bool neg;
    bool truncated; /* a non-zero digit after the 19th significant one was dropped */
    uint64_t m;     /* the significant digits, at most 19 of them */
    int64_t e10;
};

/* 1: +-inf, 2: nan, 0: neither. */
static int special(const char *p, size_t n, bool *neg)
{
    *neg = false;
    if (n && (p[0] == '-' || p[0] == '+')) {
        *neg = p[0] == '-';
        p++;
        n--;
    }
    if (ieq(p, n, "inf") || ieq(p, n, "infinity")) return 1;
    if (ieq(p, n, "nan")) return 2;
    return 0;
}

static const uint64_t pow10_u64[20] = {1ULL,
                                       10ULL,
                                       100ULL,
                                       1000ULL,
                                       10000ULL,
                                       100000ULL,
                                       1000000ULL,
                                       10000000ULL,
                                       100000000ULL,
                                       1000000000ULL,
                                       10000000000ULL,
                                       100000000000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       100000000000000ULL,
                                       1000000000000000ULL,
                                       10000000000000000ULL,
                                       100000000000000000ULL,
                                       1000000000000000000ULL,
                                       10000000000000000000ULL};

/* More than 19 digits, so digit_run's m may have wrapped: the first 19
 * significant ones again (leading zeros leave m at zero and do not count),
 * how many came after them, and whether any of those was not a zero. The
 * integer digits are ip[0..ni), the fraction digits fp[0..nf). */
static void long_mantissa(const char *ip, size_t ni, const char *fp, size_t nf, struct dec *d,
                          int64_t *dropped)
{
    uint64_t m = 0;
    int64_t drop = 0;
    bool truncated = false;
    for (size_t j = 0; j < ni + nf; j++) {
        unsigned c = (unsigned)(unsigned char)(j < ni ? ip[j] : fp[j - ni]) - '0';
        if (m < pow10_u64[18]) { /* room for one more digit */
            m = m * 10 + c;
        } else {
            drop++;
            truncated |= c != 0;
        }
    }
    d->m = m;
    d->truncated = truncated;
    *dropped = drop;
}

/* Validate the decimal grammar and collect the digits. */
static inline int scan_dec(const char *p, size_t n, struct dec *d)
{
    size_t i = 0;
    d->neg = false;
    if (n && (p[0] == '-' || p[0] == '+')) {
        d->neg = p[0] == '-';
        i = 1;
    }
    uint64_t m = 0;
    size_t istart = i, fstart = i;
    i = digit_run(p, i, n, &m);
    size_t ni = i - istart, nf = 0;
    if (i < n && p[i] == '.') {
        fstart = ++i;
        i = digit_run(p, i, n, &m);
        nf = i - fstart;
    }
    if (ni + nf == 0) return -EINVAL;
    int64_t e = 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (p[i] == '-' || p[i] == '+')) {
            eneg = p[i] == '-';
            i++;
        }
        bool edig = false;
        for (; i < n; i++) {
            unsigned c = (unsigned)(unsigned char)p[i] - '0';
            if (c > 9) break;
            edig = true;
            if (e < 1000000) e = e * 10 + c; /* beyond this it is inf/0 anyway */
        }
        if (!edig) return -EINVAL;
        if (eneg) e = -e;
    }
    if (i != n) return -EINVAL;
    /* Up to 19 digits, leading zeros included, fit m (10^19 - 1 < 2^64). */
    int64_t dropped = 0;
    if (ni + nf <= 19) {
        d->m = m;
        d->truncated = false;
    } else {
        long_mantissa(p + istart, ni, p + fstart, nf, d, &dropped);
    }
    d->e10 = e - (int64_t)nf + dropped;
    return 0;
}

/* Slow path: strtod_l/strtof_l in the "C" locale. The text was validated by
 * scan_dec, so the libc parser only ever sees a plain decimal float. glibc's
 * newlocale("C") returns a static object without allocating, so asking for it
 * per call keeps this module free of global state at no real cost. */
static int slow_float(const char *p, size_t n, bool want_f32, double *d, float *f)
{
    char stack[128];
    char *s = stack;
    if (n >= sizeof stack) {
        s = malloc(n + 1);
        if (!s) return -ENOMEM;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    int rc = 0;
    if (c == (locale_t)0) {
        rc = -ENOMEM;
    } else {
        char *end;
        if (want_f32)
            *f = strtof_l(s, &end, c);
        else
            *d = strtod_l(s, &end, c);
        if (end != s + n) rc = -EINVAL; /* cannot happen after scan_dec */
        freelocale(c);
    }
    if (s != stack) free(s);
    return rc;
}

static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                  1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* floor(e * log2(10)) for |e| <= 1,233 (the table's r, as in shortest.c) */
static inline int flog2_pow10(int e)
{
    return (int)(((int64_t)e * 913124641741LL) >> 38);
}

/* m * 10^q (m > 0) rounded to prec bits, to nearest, ties to even, as
 * *mant * 2^*e2 with 2^(prec-1) <= *mant < 2^prec: when one product decides
 * it, otherwise false (and for q outside the table).
 *
 * The table has 10^q = T * 2^r with 2^125 <= T < 2^126 as G = floor(T) + 1,
 * so T < G <= T + 1. With M = m shifted up to bit 63, the exact X = M * T
 * lies in [M * G - M, M * G), so for phi = floor(M * G / 2^63):
 *     (phi - 2) * 2^63 < X < (phi + 1) * 2^63.
 * Rounding to prec bits keeps H, phi's top prec + 1 bits (the last is the
 * half unit), and drops s bits. When the dropped bits of phi are >= 2, X lies
 * strictly inside the cell H * 2^s .. (H + 1) * 2^s (in units of 2^63), and
 * no cell holds a rounding boundary inside: one starting at an even H runs
 * from a representable value to a midpoint (rounds down to H / 2), one at an
 * odd H from a midpoint to a representable value (rounds up to (H + 1) / 2);
 * so X rounds to (H + 1) / 2 either way, with no tie. Otherwise X is within
 * 2^64 of a boundary (about 2^-124 relative): the decimal is one (a tie like
 * "1e23", a number the format holds like "0.5"), or very rarely just off
 * one, and the caller falls back to exact arithmetic. */
static inline bool round_scaled(uint64_t m, int64_t q, int prec, uint64_t *mant, int *e2)
{
    if (q < -IG_SHORTEST_K_MAX || q > -IG_SHORTEST_K_MIN) return false;
    const uint64_t *g = ig_shortest_g[-q - IG_SHORTEST_K_MIN]; /* G = g[0] * 2^63 + g[1] */
    int lz = __builtin_clzll(m);
    uint64_t big = m << lz;
    /* 2^125 <= phi < 2^127, from 2^63 <= M < 2^64 and 2^125 < G <= 2^126 */
    u128 phi = (u128)big * g[0] + (uint64_t)(((u128)big * g[1]) >> 63);
    uint64_t hi = (uint64_t)(phi >> 64), lo = (uint64_t)phi;
    /* s = (125 or 126) - prec >= 72 bits dropped: all of lo, the low sh of hi */
    int sh = 61 + (int)(hi >> 62) - prec;
    if ((hi & ((1ULL << sh) - 1)) == 0 && lo < 2) return false;
    uint64_t r = ((hi >> sh) + 1) >> 1;
    /* value = X * 2^(r - lz), and X rounds to r * 2^(s + 1 + 63) */
    int e = sh + 128 + flog2_pow10((int)q) - 125 - lz;
    if (r >> prec) { /* rounded up to 2^prec */
        r >>= 1;
        e++;
    }
    *mant = r;
    *e2 = e;
    return true;
}

/* round_scaled for a scanned decimal. A truncated one lies strictly between
 * m * 10^e10 and (m + 1) * 10^e10, and rounding is monotonic: when both ends
 * round alike, so does it. */
static inline bool round_dec(const struct dec *d, int prec, uint64_t *mant, int *e2)
{
    if (!round_scaled(d->m, d->e10, prec, mant, e2)) return false;
    if (!d->truncated) return true;
    uint64_t mant_up;
    int e2_up;
    return round_scaled(d->m + 1, d->e10, prec, &mant_up, &e2_up) && mant_up == *mant &&
           e2_up == *e2;
}

/* The bits of +-mant * 2^e2 (2^52 <= mant < 2^53) when that is a normal
 * double; overflow is left to strtod (and subnormals, which the table's
 * 10^-292 cannot reach for doubles but can for floats). */
static bool pack_f64(uint64_t mant, int e2, bool neg, double *out)
{
    int be = e2 + 52 + 1023; /* biased exponent */
    if (be < 1 || be > 2046) return false;
    uint64_t bits = (uint64_t)neg << 63 | (uint64_t)be << 52 | (mant & ((1ULL << 52) - 1));
    memcpy(out, &bits, sizeof bits);
    return true;
}

/* The same for float: 2^23 <= mant < 2^24. */
static bool pack_f32(uint64_t mant, int e2, bool neg, float *out)
{
    int be = e2 + 23 + 127;
    if (be < 1 || be > 254) return false;
    uint32_t bits = (uint32_t)neg << 31 | (uint32_t)be << 23 | (uint32_t)(mant & ((1u << 23) - 1));
    memcpy(out, &bits, sizeof bits);
    return true;
}

static inline int clz128(u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);
    return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)v);
}

/* Exact-integer path for the decimals round_scaled leaves undecided (ties
 * and exactly representable values, e.g. "9007199254740993" or
 * "90071992547409930e-1"): up to 19 significant digits (m < 2^64) and
 * |e10| <= 19. The value is formed exactly as a 128-bit integer
 * (m * 10^e10), or as a >= 64-bit quotient plus a sticky bit for the
 * remainder (m / 10^-e10), then rounded once to `prec` bits, ties to even.
 * In this range results are always normal numbers for both double and
 * float, so no subnormal or overflow cases. Rare, so the 128-bit division
 * may take its libgcc call. Returns false when the input is out of this
 * path's range. */
static bool exact_path(uint64_t m, int64_t e10, int prec, double *out)
{
    if (m == 0 || e10 < -19 || e10 > 19) return false;
    u128 v;
    int e2;
    bool sticky = false;
    if (e10 >= 0) {
        v = (u128)m * pow10_u64[e10];
        e2 = 0;
    } else {
        /* Normalise m to bit 63 and divide m * 2^64 by 10^k: the quotient
         * is >= 2^127 / 10^19 > 2^63, i.e. at least 64 significant bits. */
        int lz = __builtin_clzll(m);
        u128 num = (u128)(m << lz) << 64;
        uint64_t den = pow10_u64[-e10];
        v = num / den;
        sticky = num % den != 0;
        e2 = -(64 + lz);
    }
    int drop = 128 - clz128(v) - prec;
    if (drop > 0) {
        u128 rest = v & (((u128)1 << drop) - 1), half = (u128)1 << (drop - 1);
        v >>= drop;
        e2 += drop;
        if (rest > half || (rest == half && (sticky || (v & 1)))) v++;
    }
    /* v <= 2^prec is exact as a double; scaling by a power of two is exact. */
    *out = ldexp((double)(uint64_t)v, e2);
    return true;
}

/* Not a decimal: an infinity, a NaN (as a double; converting either to float
 * keeps it), or an error. Kept out of the callers' hot path. */
static __attribute__((noinline, cold)) int not_decimal(const char *p, size_t n, double *v,
                                                       struct ig_error *err)
{
    bool neg;
    int sp = special(p, n, &neg);
    if (sp == 1) {
        *v = neg ? -INFINITY : INFINITY;
        return 0;
    }
    if (sp == 2) {
        *v = NAN;
        return 0;
    }
    return ig_parse_fail(err, -EINVAL, "invalid number", p, n);
}

/* The decimals the fast tiers leave: exact_path, else the libc parser. The
 * result goes to *dv (prec 53) or *fv (prec 24), only on success. */
static __attribute__((noinline, cold)) int slow_dec(const char *p, size_t n, const struct dec *d,
                                                    int prec, double *dv, float *fv,
                                                    struct ig_error *err)
{
    double v;
    float f;
    if (!d->truncated && exact_path(d->m, d->e10, prec, &v)) {
        if (d->neg) v = -v;
        if (prec == 24)
            *fv = (float)v; /* exact: v has at most 24 significant bits */
        else
            *dv = v;
        return 0;
    }
    int rc = slow_float(p, n, prec == 24, &v, &f);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory parsing a number");
    if (rc) return ig_parse_fail(err, rc, "invalid number", p, n);
    if (prec == 24)
        *fv = f;
    else
        *dv = v;
    return 0;
}

int ig_parse_f64(const char *p, size_t n, double *out, struct ig_error *err)
{
    struct dec d;
    if (scan_dec(p, n, &d)) {
        double v;
        int rc = not_decimal(p, n, &v, err);
        if (rc == 0) *out = v;
        return rc;
    }
    if (d.m == 0) { /* all digits zero (never truncated) */
        *out = d.neg ? -0.0 : 0.0;
        return 0;
    }
#if FLT_EVAL_METHOD == 0
    /* Clinger's fast path: when m and 10^|e10| are both exact doubles, one
     * IEEE multiply or divide gives the correctly rounded result. 10^22 is the
     * largest exact power of ten; 2^53 the largest exact integer range. */
    if (!d.truncated && (d.e10 == 0 || (d.m <= (1ULL << 53) && d.e10 >= -22 && d.e10 <= 22))) {
        double v = (double)d.m; /* exact, or correctly rounded when e10 == 0 */
        if (d.e10 > 0) v *= pow10_d[d.e10];
        if (d.e10 < 0) v /= pow10_d[-d.e10];
        *out = d.neg ? -v : v;
        return 0;
    }
#endif
    uint64_t mant;
    int e2;
    if (round_dec(&d, 53, &mant, &e2) && pack_f64(mant, e2, d.neg, out)) return 0;
    return slow_dec(p, n, &d, 53, out, NULL, err);
}

int ig_parse_f32(const char *p, size_t n, float *out, struct ig_error *err)
{
    struct dec d;
    if (scan_dec(p, n, &d)) {
        double v;
        int rc = not_decimal(p, n, &v, err);
        if (rc == 0) *out = (float)v;
        return rc;
    }
    if (d.m == 0) {
        *out = d.neg ? -0.0f : 0.0f;
        return 0;
    }
#if FLT_EVAL_METHOD == 0
    /* Same argument as for doubles with float's limits: 2^24 and 10^10. */
    if (!d.truncated && (d.e10 == 0 || (d.m <= (1ULL << 24) && d.e10 >= -10 && d.e10 <= 10))) {
        float v = (float)d.m;
        if (d.e10 > 0) v *= pow10_f[d.e10];
        if (d.e10 < 0) v /= pow10_f[-d.e10];
        *out = d.neg ? -v : v;
        return 0;
    }
#endif
    /* Straight to 24 bits: rounding to double first could round twice. */
    uint64_t mant;
    int e2;
    if (round_dec(&d, 24, &mant, &e2) && pack_f32(mant, e2, d.neg, out)) return 0;
    return slow_dec(p, n, &d, 24, NULL, out, err);
}
