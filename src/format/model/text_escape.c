/* text_escape.c - strings in the text rendering (text_escape.h): a backslash
 * before \, newline, CR and tab, counted or copied eight bytes at a time, and
 * counted 64 bytes a step with AVX-512 or 16 with SSE2 over many strings'
 * bytes at once. JSON's escaping is render.c's. */
#include "format/model/text_escape.h"
#include "util/cpu.h"
#include "util/endian.h"

#include <string.h>

#if IG_HAVE_X8
#include <immintrin.h>
#endif
#if defined(__SSE2__) && defined(__x86_64__)
#define IG_HAVE_SSE2 1
#include <emmintrin.h>
#else
#define IG_HAVE_SSE2 0
#endif

/* ---- strings in text: a backslash before \, newline, CR and tab -----------
 * Eight bytes at a time: a text column is mostly bytes that need nothing. */

#define BYTES8(b) (0x0101010101010101ull * (uint8_t)(b))

/* 0x80 in each byte of w that is zero, exactly (no borrow crosses bytes). */
static inline uint64_t zero_bytes(uint64_t w)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((w & lo7) + lo7) | w | lo7);
}

/* 0x80 in each byte of w that text escapes. */
static inline uint64_t escaped_bytes(uint64_t w)
{
    return zero_bytes(w ^ BYTES8('\\')) | zero_bytes(w ^ BYTES8('\n')) | zero_bytes(w ^ BYTES8('\r')) |
           zero_bytes(w ^ BYTES8('\t'));
}

static inline unsigned count_marks(uint64_t marks) { return (unsigned)(((marks >> 7) * BYTES8(1)) >> 56); }

static const char escape_letter[256] = {['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

/* Bytes a string's text form adds: one per escaped byte (short strings, and
 * the last few bytes, a byte at a time). */
size_t ig_text_escapes(const uint8_t *p, size_t n)
{
    size_t esc = 0, k = 0;
    for (; k + 8 <= n; k += 8) esc += count_marks(escaped_bytes(ig_ld64(p + k)));
    for (; k < n; k++) esc += escape_letter[p[k]] != 0;
    return esc;
}

#if IG_HAVE_X8
/* The escaped bytes of p[0, *n) 64 at a time; *n becomes what is left. */
static IG_X8 size_t escapes_x8(const uint8_t *p, size_t *n)
{
    const __m512i bs = _mm512_set1_epi8('\\'), nl = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r'),
                  tab = _mm512_set1_epi8('\t');
    size_t esc = 0, k = 0;
    for (; k + 64 <= *n; k += 64) {
        __m512i w = _mm512_loadu_si512(p + k);
        __mmask64 m = _mm512_cmpeq_epi8_mask(w, bs) | _mm512_cmpeq_epi8_mask(w, nl) |
                      _mm512_cmpeq_epi8_mask(w, cr) | _mm512_cmpeq_epi8_mask(w, tab);
        esc += (size_t)__builtin_popcountll(m);
    }
    *n -= k;
    return esc;
}
#endif

#if IG_HAVE_SSE2
/* The escaped bytes of p[0, *n) 16 at a time with SSE2, which every x86-64
 * has: where AVX-512 is not, under half of ig_text_escapes' instructions. Each
 * byte lane counts its matches (a match compares to -1) up to 255, then the
 * lanes are added up. *n becomes what is left. */
static size_t escapes_x2(const uint8_t *p, size_t *n)
{
    const __m128i bs = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  tab = _mm_set1_epi8('\t');
    size_t esc = 0, k = 0, steps = *n / 16;
    while (steps) {
        size_t now = steps < 255 ? steps : 255;
        steps -= now;
        __m128i counts = _mm_setzero_si128();
        for (; now; now--, k += 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)(p + k));
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, bs), _mm_cmpeq_epi8(w, nl)),
                                     _mm_or_si128(_mm_cmpeq_epi8(w, cr), _mm_cmpeq_epi8(w, tab)));
            counts = _mm_sub_epi8(counts, m);
        }
        __m128i sums = _mm_sad_epu8(counts, _mm_setzero_si128()); /* two 64-bit halves, each < 2,048 */
        esc += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_extract_epi16(sums, 4);
    }
    *n -= k;
    return esc;
}
#endif

/* ig_text_escapes over many strings' bytes at once: 64 bytes a step where
 * the CPU has AVX-512, else 16 with SSE2 on x86-64 (the same count;
 * test_format and test_shortest run each path). */
size_t ig_text_escapes_bulk(const uint8_t *p, size_t n)
{
    size_t esc = 0;
#if IG_HAVE_X8
    if (n >= 64 && ig_cpu_avx512()) {
        size_t left = n;
        esc = escapes_x8(p, &left);
        p += n - left;
        n = left;
    }
#endif
#if IG_HAVE_SSE2
    size_t left = n;
    esc += escapes_x2(p, &left);
    p += n - left;
    n = left;
#endif
    return esc + ig_text_escapes(p, n);
}

static inline uint8_t *put_escaped(uint8_t *o, uint8_t c)
{
    char e = escape_letter[c];
    if (!e) {
        *o++ = c;
        return o;
    }
    *o++ = '\\';
    *o++ = (uint8_t)e;
    return o;
}

/* A string's text form at o, which has room for 2n bytes. */
uint8_t *ig_text_copy_escaped(uint8_t *o, const uint8_t *p, size_t n)
{
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        if (!escaped_bytes(ig_ld64(p + k))) {
            memcpy(o, p + k, 8);
            o += 8;
            continue;
        }
        for (size_t j = k; j < k + 8; j++) o = put_escaped(o, p[j]);
    }
    for (; k < n; k++) o = put_escaped(o, p[k]);
    return o;
}
