#include "utf8.h"

#include "cpu.h"

#include <string.h>

#if IG_HAVE_X8
#include <immintrin.h>

/* How many of p[0, n) lead with ASCII, 64 bytes a step; the last step's
 * load is masked to n, so nothing past the buffer is read. */
static IG_X8 size_t ascii_prefix_x8(const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t high = _mm512_movepi8_mask(_mm512_loadu_si512(p + i));
        if (high) return i + (size_t)__builtin_ctzll(high);
    }
    if (i == n) return n;
    __mmask64 in = (1ull << (n - i)) - 1;
    uint64_t high = _mm512_movepi8_mask(_mm512_maskz_loadu_epi8(in, p + i)) & in;
    return high ? i + (size_t)__builtin_ctzll(high) : n;
}
#endif

/* Bytes 0x80..0xBF continue a sequence. */
static inline bool cont(uint8_t c) { return (c & 0xC0) == 0x80; }

size_t ig_utf8_seq_len(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    /* The second byte's allowed range depends on the lead byte; narrowing it
     * here is what rejects overlongs (E0 80.., F0 80..), surrogates (ED A0..)
     * and code points past U+10FFFF (F4 90..) without decoding. */
    uint8_t lo = 0x80, hi = 0xBF;
    size_t len;
    if (c < 0xC2) {
        return 0; /* ASCII is not handled here; 80..BF stray, C0/C1 overlong */
    } else if (c < 0xE0) {
        len = 2;
    } else if (c < 0xF0) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c < 0xF5) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (!cont(p[i])) return 0;
    return len;
}

static inline uint64_t ld64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Whether p[0, n), n <= 16, is all ASCII: two loads that overlap as much as
 * n asks (nothing outside p[0, n) is read) and one test, not a test a byte. */
static inline bool ascii_upto16(const uint8_t *p, size_t n)
{
    uint64_t w;
    if (n >= 8) {
        w = ld64(p) | ld64(p + n - 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        w = a | b;
    } else {
        w = n ? (uint64_t)(p[0] | p[n / 2] | p[n - 1]) : 0;
    }
    return !(w & 0x8080808080808080ULL);
}

/* Whether p[i, n), under 8 bytes, is all ASCII: in the last 8 bytes of p
 * when it has 8. */
static inline bool ascii_tail(const uint8_t *p, size_t i, size_t n)
{
    return n >= 8 ? !(ld64(p + n - 8) & 0x8080808080808080ULL) : ascii_upto16(p + i, n - i);
}

/* ig_utf8_valid_prefix past its short ASCII case, out of line so that the
 * short case neither calls nor saves registers. */
static __attribute__((noinline)) size_t valid_prefix_long(const uint8_t *p, size_t n)
{
    size_t i = 0;
#if IG_HAVE_X8
    /* a field of text is mostly ASCII, and a longer one takes a single step */
    if (ig_cpu_avx512()) i = ascii_prefix_x8(p, n);
#endif
    while (i < n) {
        /* ASCII fast path: eight bytes with no high bit set. */
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        /* under 8 bytes left: ASCII to the end (how a field of text
         * usually ends) takes one test */
        if (n - i < 8 && ascii_tail(p, i, n)) return n;
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = ig_utf8_seq_len(p + i, n - i);
        if (l == 0) return i;
        i += l;
    }
    return n;
}

size_t ig_utf8_valid_prefix(const uint8_t *p, size_t n)
{
    /* most fields of text are short and ASCII: two loads, no call */
    if (n <= 16 && ascii_upto16(p, n)) return n;
    return valid_prefix_long(p, n);
}

bool ig_utf8_valid(const uint8_t *p, size_t n) { return ig_utf8_valid_prefix(p, n) == n; }

size_t ig_utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp > 0x10FFFF) return 0;
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}
