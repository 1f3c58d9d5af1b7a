#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtod_l, newlocale (meson passes it too) */
#endif
#include "parse.h"
#include "endian.h"
#include "error.h"
#include "shortest_table.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- error messages ------------------------------------------------------ */

enum { QUOTE_MAX = 48 }; /* source bytes shown before "..." */

/* Render p[0..n) as a double-quoted, escaped, possibly shortened string so a
 * message never carries raw control bytes or a megabyte-long field. */
static void quote_text(char *dst, size_t cap, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, show = n > QUOTE_MAX ? QUOTE_MAX : n;
    /* cap is always >= 4 * QUOTE_MAX + 8 at the call sites. */
    dst[o++] = '"';
    for (size_t i = 0; i < show && o + 6 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7F) {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        } else {
            dst[o++] = (char)c; /* UTF-8 passes through; messages are for people */
        }
    }
    dst[o++] = '"';
    if (show < n && o + 4 < cap) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
}

#define QBUF (4 * QUOTE_MAX + 16)

static int fail(struct ig_error *err, int code, const char *what, const char *p, size_t n)
{
    if (!err) return code;
    char q[QBUF];
    quote_text(q, sizeof q, p, n);
    if (n == 0) return ig_err(err, code, "%s: empty value", what);
    return ig_err(err, code, "%s %s", what, q);
}

/* ---- integers ------------------------------------------------------------ */

/* Eight digit bytes go through these as x = w ^ ZEROS8, which maps '0'..'9'
 * to the values 0..9 and every other byte to >= 10. Zero bytes of x are then
 * leading zeros, which lets the integer parser fill the unused part of a word
 * with a shift. */
#define ZEROS8 0x3030303030303030u

/* Bit 7 set in every byte of x that is >= 10, and maybe in the bytes above
 * such a byte: zero exactly when all eight are digit values. (A byte >= 0x8a
 * carries into the next one, which is then flagged or not, but the byte itself
 * is.) A mask rather than a bool so that several words can be ORed together
 * and tested once. */
static inline uint64_t nondigit_vals8(uint64_t x)
{
    return ((x + 0x7676767676767676u) | x) & 0x8080808080808080u;
}

/* The eight digit values in x as a number, the lowest byte the most
 * significant: pairs, then quads, then the octet, three multiplications in
 * place of eight multiply-adds. */
static inline uint64_t value_vals8(uint64_t x)
{
    x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffu;
    x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffu;
    return (uint32_t)(x * 10000 + (x >> 32));
}

/* The eight bytes of w (p[i] in the low byte) are all ASCII digits. */
static inline bool all_digits8(uint64_t w) { return nondigit_vals8(w ^ ZEROS8) == 0; }

/* The eight ASCII digits in w as a number, the first (lowest) byte the most
 * significant. */
static inline uint64_t value_digits8(uint64_t w) { return value_vals8(w ^ ZEROS8); }

/* Append the digits from p[i] on to *m (m * 10 + digit, wrapping past 2^64:
 * the caller counts digits and redoes runs too long for m); returns the index
 * of the first byte that is not a digit, or n. Eight bytes at a time while
 * eight remain, without reading past n. */
static inline size_t digit_run(const char *p, size_t i, size_t n, uint64_t *m)
{
    uint64_t v = *m;
    while (n - i >= 8) {
        uint64_t w = ig_ld64(p + i);
        if (!all_digits8(w)) break;
        v = v * 100000000u + value_digits8(w);
        i += 8;
    }
    for (; i < n; i++) {
        unsigned c = (unsigned)(unsigned char)p[i] - '0';
        if (c > 9) break;
        v = v * 10 + c;
    }
    *m = v;
    return i;
}

/* The integer parser below takes a field's digits whole, as one to three
 * words, where digit_run would take the 1-7 digits left after its eight-byte
 * steps one at a time -- and most integer fields are no longer than that.
 * The vals_ functions return the digit values of one word, ready for
 * value_vals8: the digits in the high bytes, zero values (leading zeros)
 * below them. */

/* 1 to 3 digits: a byte at a time costs less than assembling a word. */
static inline int mag_bytes(const char *d, size_t len, uint64_t *mag)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned)(unsigned char)d[i] - '0';
        if (c > 9) return -EINVAL;
        v = v * 10 + c;
    }
    *mag = v;
    return 0;
}

/* d[0..len), 4 <= len <= 7, without reading outside it: two four-byte loads
 * that overlap, the overlapping bytes ORed onto copies of themselves. */
static inline uint64_t vals_short(const char *d, size_t len)
{
    uint64_t w = ig_ld32(d) | (uint64_t)ig_ld32(d + len - 4) << 8 * (len - 4);
    return (w ^ ZEROS8) << 8 * (8 - len);
}

/* d[0..r), 0 <= r <= 7, where eight bytes may be read (r == 0 gives 0). Two
 * shifts because a shift by 64 is undefined. */
static inline uint64_t vals_head(const char *d, size_t r)
{
    return ((ig_ld64(d) ^ ZEROS8) << 8 * (7 - r)) << 8;
}

/* 8 to 19 digits, which cannot overflow (10^19 - 1 < 2^64): the first len % 8
 * as one word, then one or two whole words. The first two are tested
 * together; testing the third apart keeps the first two's mask out of a
 * register while it is worked on. */
static inline __attribute__((always_inline)) int mag_words(const char *d, size_t len,
                                                           uint64_t *mag)
{
    size_t r = len % 8;
    uint64_t x = vals_head(d, r), y = ig_ld64(d + r) ^ ZEROS8;
    if (nondigit_vals8(x) | nondigit_vals8(y)) return -EINVAL;
    uint64_t v = value_vals8(x) * 100000000u + value_vals8(y);
    if (len >= 16) {
        y = ig_ld64(d + r + 8) ^ ZEROS8;
        if (nondigit_vals8(y)) return -EINVAL;
        v = v * 100000000u + value_vals8(y);
    }
    *mag = v;
    return 0;
}

/* Over 19 digits (only leading zeros keep such a value in range): the first
 * 19 unchecked, the rest with overflow checks. A non-digit anywhere is still
 * -EINVAL, even after an overflow. Rare, so kept out of the callers. */
static __attribute__((noinline, cold)) int mag_long(const char *d, size_t len, uint64_t *mag)
{
    uint64_t v = 0;
    size_t i = digit_run(d, 0, 19, &v);
    if (i < 19) return -EINVAL;
    bool ovf = false;
    for (; i < len; i++) {
        unsigned c = (unsigned)(unsigned char)d[i] - '0';
        if (c > 9) return -EINVAL;
        ovf |= __builtin_mul_overflow(v, 10u, &v);
        ovf |= __builtin_add_overflow(v, c, &v);
    }
    if (ovf) return -ERANGE;
    *mag = v;
    return 0;
}

/* Parse an unsigned decimal magnitude with an optional sign. Syntax errors
 * take precedence over overflow, so "99999999999999999999x" is -EINVAL.
 * Leading zeros count as digits in the length tiers, which only sends
 * "000...0001"-style input to the slower ones. With wide false the caller
 * promises n < 8, and only the byte and one-word tiers are compiled. Always
 * inlined: as a call it would cost a frame and put mag and neg in memory. */
static inline __attribute__((always_inline)) int parse_mag(const char *p, size_t n, bool wide,
                                                           uint64_t *mag, bool *neg)
{
    if (n == 0) return -EINVAL;
    size_t i = p[0] == '-' || p[0] == '+';
    *neg = p[0] == '-';
    const char *d = p + i;
    size_t len = n - i;
    if (len == 0) return -EINVAL;
    if (len < 4) return mag_bytes(d, len, mag);
    if (!wide || len < 8) {
        uint64_t x = vals_short(d, len);
        if (nondigit_vals8(x)) return -EINVAL;
        *mag = value_vals8(x);
        return 0;
    }
    if (len <= 19) return mag_words(d, len, mag);
    return mag_long(d, len, mag);
}

/* ig_parse_i64 and ig_parse_u64 are each compiled twice from the bodies
 * below: for fields under eight bytes, the common case, and (not inlined, wide)
 * for the rest. The wide tier needs more registers than the caller-saved
 * ones; kept apart, its stack frame is not paid for a short field, where it
 * would be a fifth of the instructions. */

static inline __attribute__((always_inline)) int parse_i64(const char *p, size_t n, bool wide,
                                                           int64_t *out, struct ig_error *err)
{
    uint64_t m;
    bool neg;
    int rc = parse_mag(p, n, wide, &m, &neg);
    if (rc == 0) {
        if (neg) {
            if (m > (uint64_t)INT64_MAX + 1) {
                rc = -ERANGE;
            } else {
                /* Negate in unsigned arithmetic: -(int64_t)m would overflow for
                 * m == 2^63 (INT64_MIN). */
                *out = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
                return 0;
            }
        } else if (m > (uint64_t)INT64_MAX) {
            rc = -ERANGE;
        } else {
            *out = (int64_t)m;
            return 0;
        }
    }
    if (rc == -ERANGE) return fail(err, rc, "integer out of range for int64:", p, n);
    return fail(err, rc, "invalid integer", p, n);
}

static __attribute__((noinline)) int parse_i64_wide(const char *p, size_t n, int64_t *out,
                                                    struct ig_error *err)
{
    return parse_i64(p, n, true, out, err);
}

int ig_parse_i64(const char *p, size_t n, int64_t *out, struct ig_error *err)
{
    if (n >= 8) return parse_i64_wide(p, n, out, err);
    return parse_i64(p, n, false, out, err);
}

static inline __attribute__((always_inline)) int parse_u64(const char *p, size_t n, bool wide,
                                                           uint64_t *out, struct ig_error *err)
{
    uint64_t m;
    bool neg;
    int rc = parse_mag(p, n, wide, &m, &neg);
    if (rc == 0) {
        if (neg && m != 0) {
            rc = -ERANGE;
        } else {
            *out = m;
            return 0;
        }
    }
    if (rc == -ERANGE) return fail(err, rc, "integer out of range for uint64:", p, n);
    return fail(err, rc, "invalid integer", p, n);
}

static __attribute__((noinline)) int parse_u64_wide(const char *p, size_t n, uint64_t *out,
                                                    struct ig_error *err)
{
    return parse_u64(p, n, true, out, err);
}

int ig_parse_u64(const char *p, size_t n, uint64_t *out, struct ig_error *err)
{
    if (n >= 8) return parse_u64_wide(p, n, out, err);
    return parse_u64(p, n, false, out, err);
}

int ig_parse_int_range(const char *p, size_t n, int64_t min, int64_t max, int64_t *out,
                       struct ig_error *err)
{
    int64_t v;
    int rc = ig_parse_i64(p, n, &v, NULL);
    if (rc == 0 && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    if (rc == -EINVAL) return fail(err, rc, "invalid integer", p, n);
    if (err) {
        char q[QBUF];
        quote_text(q, sizeof q, p, n);
        ig_err(err, -ERANGE, "integer %s out of range [%lld, %lld]", q, (long long)min,
               (long long)max);
    }
    return -ERANGE;
}

int ig_parse_uint_range(const char *p, size_t n, uint64_t min, uint64_t max, uint64_t *out,
                        struct ig_error *err)
{
    uint64_t v;
    int rc = ig_parse_u64(p, n, &v, NULL);
    if (rc == 0 && v >= min && v <= max) {
        *out = v;
        return 0;
    }
    if (rc == -EINVAL) return fail(err, rc, "invalid integer", p, n);
    if (err) {
        char q[QBUF];
        quote_text(q, sizeof q, p, n);
        ig_err(err, -ERANGE, "integer %s out of range [%llu, %llu]", q, (unsigned long long)min,
               (unsigned long long)max);
    }
    return -ERANGE;
}

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

static inline bool ieq(const char *p, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    if (n != l) return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != lit[i]) return false; /* lit is lower-case letters */
    return true;
}

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
    return fail(err, -EINVAL, "invalid number", p, n);
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
    if (rc) return fail(err, rc, "invalid number", p, n);
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

/* ---- bool ---------------------------------------------------------------- */

int ig_parse_bool(const char *p, size_t n, bool *out, struct ig_error *err)
{
    if (n == 1) {
        switch (p[0]) { /* not p[0] | 0x20: that would map 0x10/0x11 to '0'/'1' */
        case 't':
        case 'T':
        case '1':
            *out = true;
            return 0;
        case 'f':
        case 'F':
        case '0':
            *out = false;
            return 0;
        }
    } else if (ieq(p, n, "true")) {
        *out = true;
        return 0;
    } else if (ieq(p, n, "false")) {
        *out = false;
        return 0;
    }
    return fail(err, -EINVAL, "invalid boolean (expected true/false/t/f/1/0)", p, n);
}

/* ---- binary -------------------------------------------------------------- */

/* 0..15 for hex digits, 16 otherwise. */
static inline unsigned hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return 16;
}

int ig_parse_hex_binary(const char *p, size_t n, struct ig_buf *out, struct ig_error *err)
{
    if (n < 2 || p[0] != '\\' || p[1] != 'x')
        return fail(err, -EINVAL, "invalid hex binary (expected \\x prefix)", p, n);
    if ((n - 2) % 2)
        return fail(err, -EINVAL, "invalid hex binary (odd number of digits)", p, n);
    if (n == 2) return 0; /* "\x": empty value (and no zero-length extend of a NULL buffer) */
    size_t old = out->len;
    uint8_t *dst = ig_buf_extend(out, (n - 2) / 2);
    if (!dst) return ig_err(err, -ENOMEM, "out of memory decoding hex binary");
    for (size_t i = 2; i < n; i += 2) {
        unsigned hi = hexval((unsigned char)p[i]), lo = hexval((unsigned char)p[i + 1]);
        if ((hi | lo) > 15) {
            out->len = old;
            return fail(err, -EINVAL, "invalid hex binary (non-hex digit)", p, n);
        }
        *dst++ = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* 0..63 for alphabet symbols, 64 for anything else. */
static inline unsigned b64val(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return 64;
}

int ig_base64_decode(const char *p, size_t n, struct ig_buf *out, struct ig_error *err)
{
    if (n % 4) return fail(err, -EINVAL, "invalid base64 (length not a multiple of 4)", p, n);
    if (n == 0) return 0;
    size_t pad = p[n - 1] == '=' ? (p[n - 2] == '=' ? 2 : 1) : 0;
    size_t old = out->len;
    uint8_t *dst = ig_buf_extend(out, n / 4 * 3 - pad);
    if (!dst) return ig_err(err, -ENOMEM, "out of memory decoding base64");
    const unsigned char *s = (const unsigned char *)p;
    size_t full = pad ? n - 4 : n; /* groups without padding */
    for (size_t i = 0; i < full; i += 4) {
        unsigned a = b64val(s[i]), b = b64val(s[i + 1]), c = b64val(s[i + 2]),
                 d = b64val(s[i + 3]);
        if ((a | b | c | d) > 63) goto bad;
        uint32_t v = a << 18 | b << 12 | c << 6 | d;
        *dst++ = (uint8_t)(v >> 16);
        *dst++ = (uint8_t)(v >> 8);
        *dst++ = (uint8_t)v;
    }
    if (pad) {
        const unsigned char *g = s + n - 4;
        unsigned a = b64val(g[0]), b = b64val(g[1]);
        if ((a | b) > 63) goto bad;
        if (pad == 2) {
            if (b & 0x0F) goto bad; /* non-canonical: unused bits set */
            *dst++ = (uint8_t)(a << 2 | b >> 4);
        } else {
            unsigned c = b64val(g[2]);
            if (c > 63 || (c & 0x03)) goto bad;
            *dst++ = (uint8_t)(a << 2 | b >> 4);
            *dst++ = (uint8_t)((b & 0x0F) << 4 | c >> 2);
        }
    }
    return 0;
bad:
    out->len = old;
    return fail(err, -EINVAL, "invalid base64", p, n);
}
