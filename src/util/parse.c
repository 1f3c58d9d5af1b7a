#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtod_l, newlocale (meson passes it too) */
#endif
#include "parse.h"
#include "error.h"

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

/* Parse an unsigned decimal magnitude with an optional sign. Syntax errors
 * take precedence over overflow, so "99999999999999999999x" is -EINVAL. */
static inline int parse_mag(const char *p, size_t n, uint64_t *mag, bool *neg)
{
    size_t i = 0;
    *neg = false;
    if (n == 0) return -EINVAL;
    if (p[0] == '-' || p[0] == '+') {
        *neg = p[0] == '-';
        i = 1;
        if (n == 1) return -EINVAL;
    }
    uint64_t v = 0;
    /* Up to 19 digits cannot overflow a uint64 (10^19 - 1 < 2^64), so the
     * common case runs without overflow checks. Leading zeros count here,
     * which only sends "000...0001"-style input to the checked loop. */
    size_t fast_end = n - i > 19 ? i + 19 : n;
    for (; i < fast_end; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9) return -EINVAL;
        v = v * 10 + d;
    }
    bool ovf = false;
    for (; i < n; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9) return -EINVAL;
        ovf |= __builtin_mul_overflow(v, 10u, &v);
        ovf |= __builtin_add_overflow(v, d, &v);
    }
    if (ovf) return -ERANGE;
    *mag = v;
    return 0;
}

int ig_parse_i64(const char *p, size_t n, int64_t *out, struct ig_error *err)
{
    uint64_t m;
    bool neg;
    int rc = parse_mag(p, n, &m, &neg);
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

int ig_parse_u64(const char *p, size_t n, uint64_t *out, struct ig_error *err)
{
    uint64_t m;
    bool neg;
    int rc = parse_mag(p, n, &m, &neg);
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

/* What one grammar pass over a decimal float learns. */
struct dec {
    bool neg;
    bool exact;  /* mantissa fits in m (<= 19 significant digits) */
    uint64_t m;  /* significant digits as an integer */
    int64_t e10; /* value = m * 10^e10 when exact */
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

/* Validate the decimal grammar and collect the fast-path inputs. */
static int scan_dec(const char *p, size_t n, struct dec *d)
{
    size_t i = 0;
    d->neg = false;
    if (i < n && (p[i] == '-' || p[i] == '+')) {
        d->neg = p[i] == '-';
        i++;
    }
    uint64_t m = 0;
    int nsig = 0;     /* digits accumulated since the first non-zero one */
    int64_t frac = 0; /* fraction digits accumulated into m */
    bool any = false;
    for (; i < n; i++) {
        unsigned c = (unsigned)(unsigned char)p[i] - '0';
        if (c > 9) break;
        any = true;
        if (nsig < 20) {
            if (m || c) nsig++;
            m = m * 10 + c;
        } else {
            nsig++; /* too many digits for the fast path: keep counting only */
        }
    }
    if (i < n && p[i] == '.') {
        i++;
        for (; i < n; i++) {
            unsigned c = (unsigned)(unsigned char)p[i] - '0';
            if (c > 9) break;
            any = true;
            if (nsig < 20) {
                if (m || c) nsig++;
                m = m * 10 + c;
                frac++;
            } else {
                nsig++;
            }
        }
    }
    if (!any) return -EINVAL;
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
    /* nsig == 20 means the 20th digit may have overflowed m: not exact. */
    d->exact = nsig <= 19;
    d->m = m;
    d->e10 = e - frac;
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

#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

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

static inline int clz128(u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);
    return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)v);
}

/* Exact-integer path for what Clinger's cannot take: up to 19 significant
 * digits (m < 2^64) and |e10| <= 19, e.g. the 17-digit shortest forms that
 * Python and pandas write for half of all doubles. The value is formed
 * exactly as a 128-bit integer (m * 10^e10), or as a >= 64-bit quotient
 * plus a sticky bit for the remainder (m / 10^-e10), then rounded once to
 * `prec` bits, ties to even. In this range results are always normal
 * numbers for both double and float, so no subnormal or overflow cases.
 * Returns false when the input is out of this path's range. */
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
#endif

int ig_parse_f64(const char *p, size_t n, double *out, struct ig_error *err)
{
    struct dec d;
    int rc = scan_dec(p, n, &d);
    if (rc) {
        bool neg;
        int sp = special(p, n, &neg);
        if (sp == 1) {
            *out = neg ? -INFINITY : INFINITY;
            return 0;
        }
        if (sp == 2) {
            *out = NAN;
            return 0;
        }
        return fail(err, -EINVAL, "invalid number", p, n);
    }
#if FLT_EVAL_METHOD == 0
    /* Clinger's fast path: when m and 10^|e10| are both exact doubles, one
     * IEEE multiply or divide gives the correctly rounded result. 10^22 is the
     * largest exact power of ten; 2^53 the largest exact integer range. */
    if (d.exact) {
        if (d.m == 0) {
            *out = d.neg ? -0.0 : 0.0;
            return 0;
        }
        if (d.e10 == 0 || (d.m <= (1ULL << 53) && d.e10 >= -22 && d.e10 <= 22)) {
            double v = (double)d.m; /* exact, or correctly rounded when e10 == 0 */
            if (d.e10 > 0) v *= pow10_d[d.e10];
            if (d.e10 < 0) v /= pow10_d[-d.e10];
            *out = d.neg ? -v : v;
            return 0;
        }
    }
#endif
    double v;
#ifdef __SIZEOF_INT128__
    if (d.exact && exact_path(d.m, d.e10, 53, &v)) {
        *out = d.neg ? -v : v;
        return 0;
    }
#endif
    rc = slow_float(p, n, false, &v, NULL);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory parsing a number");
    if (rc) return fail(err, rc, "invalid number", p, n);
    *out = v;
    return 0;
}

int ig_parse_f32(const char *p, size_t n, float *out, struct ig_error *err)
{
    struct dec d;
    int rc = scan_dec(p, n, &d);
    if (rc) {
        bool neg;
        int sp = special(p, n, &neg);
        if (sp == 1) {
            *out = neg ? -INFINITY : INFINITY;
            return 0;
        }
        if (sp == 2) {
            *out = NAN;
            return 0;
        }
        return fail(err, -EINVAL, "invalid number", p, n);
    }
#if FLT_EVAL_METHOD == 0
    /* Same argument as for doubles with float's limits: 2^24 and 10^10. */
    if (d.exact) {
        if (d.m == 0) {
            *out = d.neg ? -0.0f : 0.0f;
            return 0;
        }
        if (d.e10 == 0 || (d.m <= (1ULL << 24) && d.e10 >= -10 && d.e10 <= 10)) {
            float v = (float)d.m;
            if (d.e10 > 0) v *= pow10_f[d.e10];
            if (d.e10 < 0) v /= pow10_f[-d.e10];
            *out = d.neg ? -v : v;
            return 0;
        }
    }
#endif
    float v;
#ifdef __SIZEOF_INT128__
    double dv;
    if (d.exact && exact_path(d.m, d.e10, 24, &dv)) {
        v = (float)dv; /* exact: dv has at most 24 significant bits */
        *out = d.neg ? -v : v;
        return 0;
    }
#endif
    rc = slow_float(p, n, true, NULL, &v);
    if (rc == -ENOMEM) return ig_err(err, rc, "out of memory parsing a number");
    if (rc) return fail(err, rc, "invalid number", p, n);
    *out = v;
    return 0;
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
