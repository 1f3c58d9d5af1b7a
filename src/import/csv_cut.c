#include "csv_cut.h"
#include "util/cpu.h"

#include <string.h>

#if IG_HAVE_X8
#include <immintrin.h>
#endif

/* Bit i set where p[i] is '"' (*quotes) or '\n' (*lfs), for 64 bytes. */
static void masks_scalar(const char *p, uint64_t *quotes, uint64_t *lfs)
{
    uint64_t q = 0, l = 0;
    for (unsigned i = 0; i < 64; i++) {
        q |= (uint64_t)(p[i] == '"') << i;
        l |= (uint64_t)(p[i] == '\n') << i;
    }
    *quotes = q;
    *lfs = l;
}

#if IG_HAVE_X8
IG_X8 static void masks_x8(const char *p, uint64_t *quotes, uint64_t *lfs)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    *quotes = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    *lfs = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n'));
}
#endif

/* Bit i: the parity of the set bits 0..i of x (quotes up to and including
 * byte i). */
static uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The scan, for a way of taking the masks: inlined into each caller, so the
 * AVX-512 one also counts with the CPU's popcnt. */
static inline __attribute__((always_inline)) size_t cut_with(const char *p, size_t len, uint64_t *lines,
                                                             void (*masks)(const char *, uint64_t *, uint64_t *))
{
    uint64_t inside = 0; /* all ones while the bytes before are inside quotes */
    uint64_t seen = 0;   /* line feeds before the block */
    size_t cut = 0;
    *lines = 0;
    char tail[64];
    for (size_t off = 0; off < len; off += 64) {
        const char *b = p + off;
        uint64_t live = ~0ull;
        if (len - off < 64) { /* the last bytes, padded with bytes that are neither */
            memset(tail, 0, sizeof tail);
            memcpy(tail, b, len - off);
            b = tail;
            live = (1ull << (len - off)) - 1;
        }
        uint64_t q, lf;
        masks(b, &q, &lf);
        lf &= live;
        uint64_t in = prefix_xor(q) ^ inside;
        inside = (uint64_t)((int64_t)in >> 63);
        uint64_t ends = lf & ~in;
        if (ends) {
            unsigned last = 63 - (unsigned)__builtin_clzll(ends);
            uint64_t upto = last == 63 ? ~0ull : (1ull << (last + 1)) - 1;
            cut = off + last + 1;
            *lines = seen + (uint64_t)__builtin_popcountll(lf & upto);
        }
        seen += (uint64_t)__builtin_popcountll(lf);
    }
    return cut;
}

#if IG_HAVE_X8
IG_X8 __attribute__((target("popcnt,lzcnt"))) static size_t cut_x8(const char *p, size_t len, uint64_t *lines)
{
    return cut_with(p, len, lines, masks_x8);
}
#endif

size_t ig_csv_cut(const char *p, size_t len, uint64_t *lines)
{
#if IG_HAVE_X8
    if (ig_cpu_avx512()) return cut_x8(p, len, lines);
#endif
    return cut_with(p, len, lines, masks_scalar);
}
