/* parse_shared.h - what the scalar parsers' files (parse.c: integers, bool,
 * binary; parse_float.c: floats) share: ASCII digits eight at a time, a
 * case-insensitive match of a literal, and the error message quoting the
 * offending text. Not part of parse.h's interface. */
#ifndef IG_UTIL_PARSE_SHARED_H
#define IG_UTIL_PARSE_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "endian.h"

struct ig_error;

/* code, and when err is non-NULL a message "WHAT "TEXT"" quoting p[0..n)
 * (escaped, shortened), or "WHAT: empty value" (parse.c). */
int ig_parse_fail(struct ig_error *err, int code, const char *what, const char *p, size_t n);

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

static inline bool ieq(const char *p, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    if (n != l) return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != lit[i]) return false; /* lit is lower-case letters */
    return true;
}

#endif
