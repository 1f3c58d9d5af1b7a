/* parse.c - integers, bools and binary from text fields (parse.h), and the
 * error messages every parser gives; floats are parse_float.c's. */
#include "parse.h"
#include "parse_shared.h"
#include "endian.h"
#include "error.h"

#include <errno.h>
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

int ig_parse_fail(struct ig_error *err, int code, const char *what, const char *p, size_t n)
{
    if (!err) return code;
    char q[QBUF];
    quote_text(q, sizeof q, p, n);
    if (n == 0) return ig_err(err, code, "%s: empty value", what);
    return ig_err(err, code, "%s %s", what, q);
}

/* ---- integers ------------------------------------------------------------ */


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
    if (rc == -ERANGE) return ig_parse_fail(err, rc, "integer out of range for int64:", p, n);
    return ig_parse_fail(err, rc, "invalid integer", p, n);
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
    if (rc == -ERANGE) return ig_parse_fail(err, rc, "integer out of range for uint64:", p, n);
    return ig_parse_fail(err, rc, "invalid integer", p, n);
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
    if (rc == -EINVAL) return ig_parse_fail(err, rc, "invalid integer", p, n);
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
    if (rc == -EINVAL) return ig_parse_fail(err, rc, "invalid integer", p, n);
    if (err) {
        char q[QBUF];
        quote_text(q, sizeof q, p, n);
        ig_err(err, -ERANGE, "integer %s out of range [%llu, %llu]", q, (unsigned long long)min,
               (unsigned long long)max);
    }
    return -ERANGE;
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
    return ig_parse_fail(err, -EINVAL, "invalid boolean (expected true/false/t/f/1/0)", p, n);
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
        return ig_parse_fail(err, -EINVAL, "invalid hex binary (expected \\x prefix)", p, n);
    if ((n - 2) % 2)
        return ig_parse_fail(err, -EINVAL, "invalid hex binary (odd number of digits)", p, n);
    if (n == 2) return 0; /* "\x": empty value (and no zero-length extend of a NULL buffer) */
    size_t old = out->len;
    uint8_t *dst = ig_buf_extend(out, (n - 2) / 2);
    if (!dst) return ig_err(err, -ENOMEM, "out of memory decoding hex binary");
    for (size_t i = 2; i < n; i += 2) {
        unsigned hi = hexval((unsigned char)p[i]), lo = hexval((unsigned char)p[i + 1]);
        if ((hi | lo) > 15) {
            out->len = old;
            return ig_parse_fail(err, -EINVAL, "invalid hex binary (non-hex digit)", p, n);
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
    if (n % 4) return ig_parse_fail(err, -EINVAL, "invalid base64 (length not a multiple of 4)", p, n);
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
    return ig_parse_fail(err, -EINVAL, "invalid base64", p, n);
}
