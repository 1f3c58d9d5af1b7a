/* bitpack.c - fixed-width bit packing (layout in bitpack.h).
 *
 * Speed matters here: every bitpack/for/delta/dict page decode ends in
 * ig_bitpack_unpack. The byte-aligned widths are plain widening loops the
 * compiler vectorises; every other width is unpacked eight values at a time
 * (eight values of w bits are exactly w bytes) by a loop specialised per width
 * at compile time, using one unaligned 64-bit load per value. The specialised
 * loop only runs while an 8-byte load cannot cross the end of the buffer; the
 * last few values go through the byte-exact path. */
#include "bitpack.h"

#include <string.h>

#include "endian.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BP_LE 1
#else
#define BP_LE 0
#endif

/* Unaligned little-endian 64-bit load; a single mov on little-endian hosts. */
static inline uint64_t bp_ld64(const uint8_t *p)
{
#if BP_LE
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
#else
    return ig_ld64(p);
#endif
}

static inline uint64_t bp_mask(unsigned w)
{
    return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

/* Value at bit offset `bit`, reading only the bytes that hold it. */
static inline uint64_t bp_get_exact(const uint8_t *src, size_t bit, unsigned w)
{
    if (w == 0) return 0;
    const uint8_t *p = src + (bit >> 3);
    unsigned sh = (unsigned)(bit & 7);
    unsigned nb = (sh + w + 7) / 8; /* 1..9 */
    unsigned m = nb < 8 ? nb : 8;
    uint64_t x = 0;
    for (unsigned k = 0; k < m; k++)
        x |= (uint64_t)p[k] << (8 * k);
    x >>= sh;
    if (nb == 9) x |= (uint64_t)p[8] << (64 - sh); /* nb == 9 implies sh >= 1 */
    return x & bp_mask(w);
}

uint64_t ig_bitpack_get(const uint8_t *src, size_t nbytes, size_t i, unsigned w)
{
    size_t bit = i * w;
    size_t byte = bit >> 3;
    unsigned sh = (unsigned)(bit & 7);
    if (w && sh + w <= 64 && nbytes >= 8 && byte <= nbytes - 8)
        return (bp_ld64(src + byte) >> sh) & bp_mask(w);
    return bp_get_exact(src, bit, w);
}

void ig_bitpack_set(uint8_t *dst, size_t i, unsigned w, uint64_t v)
{
    if (w == 0) return;
    v &= bp_mask(w);
    size_t bit = i * w;
    uint8_t *p = dst + (bit >> 3);
    unsigned sh = (unsigned)(bit & 7);
    unsigned left = w;
    unsigned take = 8 - sh < left ? 8 - sh : left;
    uint8_t m = (uint8_t)(((1u << take) - 1) << sh);
    *p = (uint8_t)((*p & ~m) | ((v << sh) & m));
    p++;
    v >>= take;
    left -= take;
    while (left >= 8) {
        *p++ = (uint8_t)v;
        v >>= 8;
        left -= 8;
    }
    if (left) {
        m = (uint8_t)((1u << left) - 1);
        *p = (uint8_t)((*p & ~m) | (v & m));
    }
}

/* Eight values per group; W is a compile-time constant at every call site so
 * shifts and offsets fold to immediates. Reads bytes [g*W, g*W + W + 8). */
static inline __attribute__((always_inline)) void
bp_unpack_groups(uint64_t *dst, const uint8_t *src, size_t groups, unsigned W)
{
    const uint64_t mask = bp_mask(W);
    for (size_t g = 0; g < groups; g++) {
        const uint8_t *s = src + g * W;
        uint64_t *d = dst + g * 8;
        for (unsigned j = 0; j < 8; j++) {
            unsigned bit = j * W;
            unsigned sh = bit & 7;
            uint64_t x = bp_ld64(s + bit / 8) >> sh;
            if (W > 56 && sh + W > 64) x |= (uint64_t)s[bit / 8 + 8] << (64 - sh);
            d[j] = x & mask;
        }
    }
}

#define BP_CASE(W)                                                                                 \
    case W:                                                                                        \
        bp_unpack_groups(dst, src, groups, W);                                                     \
        break;

static void bp_unpack_generic(uint64_t *dst, const uint8_t *src, size_t n, unsigned w)
{
    size_t nbytes = ig_bitpack_size(n, w);
    size_t groups = 0;
    /* A group g is safe while (g + 1) * w + 8 <= nbytes. */
    if (BP_LE && nbytes >= (size_t)w + 8) {
        groups = (nbytes - 8) / w;
        if (groups > n / 8) groups = n / 8;
    }
    /* clang-format off */
    switch (w) {
        BP_CASE(1) BP_CASE(2) BP_CASE(3) BP_CASE(4) BP_CASE(5) BP_CASE(6) BP_CASE(7)
        BP_CASE(9) BP_CASE(10) BP_CASE(11) BP_CASE(12) BP_CASE(13) BP_CASE(14) BP_CASE(15)
        BP_CASE(17) BP_CASE(18) BP_CASE(19) BP_CASE(20) BP_CASE(21) BP_CASE(22) BP_CASE(23)
        BP_CASE(24) BP_CASE(25) BP_CASE(26) BP_CASE(27) BP_CASE(28) BP_CASE(29) BP_CASE(30)
        BP_CASE(31) BP_CASE(33) BP_CASE(34) BP_CASE(35) BP_CASE(36) BP_CASE(37) BP_CASE(38)
        BP_CASE(39) BP_CASE(40) BP_CASE(41) BP_CASE(42) BP_CASE(43) BP_CASE(44) BP_CASE(45)
        BP_CASE(46) BP_CASE(47) BP_CASE(48) BP_CASE(49) BP_CASE(50) BP_CASE(51) BP_CASE(52)
        BP_CASE(53) BP_CASE(54) BP_CASE(55) BP_CASE(56) BP_CASE(57) BP_CASE(58) BP_CASE(59)
        BP_CASE(60) BP_CASE(61) BP_CASE(62) BP_CASE(63)
    default: /* byte-aligned widths never get here */
        groups = 0;
        break;
    }
    /* clang-format on */
    for (size_t i = groups * 8; i < n; i++)
        dst[i] = bp_get_exact(src, i * w, w);
}

void ig_bitpack_unpack(uint64_t *dst, const uint8_t *src, size_t n, unsigned w)
{
    switch (w) {
    case 0:
        if (n) memset(dst, 0, n * sizeof *dst);
        return;
    case 8:
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
        return;
    case 16:
        for (size_t i = 0; i < n; i++)
            dst[i] = ig_ld16(src + 2 * i);
        return;
    case 32:
        for (size_t i = 0; i < n; i++)
            dst[i] = ig_ld32(src + 4 * i);
        return;
    case 64:
#if BP_LE
        if (n) memcpy(dst, src, n * 8);
#else
        for (size_t i = 0; i < n; i++)
            dst[i] = ig_ld64(src + 8 * i);
#endif
        return;
    default:
        bp_unpack_generic(dst, src, n, w);
    }
}

void ig_bitpack_pack(uint8_t *dst, const uint64_t *v, size_t n, unsigned w)
{
    switch (w) {
    case 0:
        return;
    case 8:
        for (size_t i = 0; i < n; i++)
            dst[i] = (uint8_t)v[i];
        return;
    case 16:
        for (size_t i = 0; i < n; i++)
            ig_st16(dst + 2 * i, (uint16_t)v[i]);
        return;
    case 32:
        for (size_t i = 0; i < n; i++)
            ig_st32(dst + 4 * i, (uint32_t)v[i]);
        return;
    case 64:
        for (size_t i = 0; i < n; i++)
            ig_st64(dst + 8 * i, v[i]);
        return;
    default:
        break;
    }
    /* Fill a 64-bit accumulator LSB-first and store it whenever it is full; the
     * bits of a value that straddles the boundary start the next word. */
    const uint64_t mask = bp_mask(w);
    uint64_t acc = 0;
    unsigned fill = 0;
    uint8_t *o = dst;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i] & mask;
        acc |= x << fill;
        if (fill + w >= 64) {
            ig_st64(o, acc);
            o += 8;
            unsigned room = 64 - fill; /* 1..64; bits of x already stored */
            acc = room < w ? x >> room : 0;
            fill = fill + w - 64;
        } else {
            fill += w;
        }
    }
    for (unsigned k = 0; k < (fill + 7) / 8; k++)
        o[k] = (uint8_t)(acc >> (8 * k));
}

void ig_bitpack_pack_u8(uint8_t *dst, const uint8_t *v, size_t n, unsigned w)
{
    if (w == 0) return;
    if (w == 8) {
        memcpy(dst, v, n);
        return;
    }
    const uint64_t mask = bp_mask(w);
    size_t i = 0;
    uint8_t *o = dst;
    for (; i + 8 <= n; i += 8, o += w) { /* eight values fill exactly w bytes */
        uint64_t x = 0;
        for (unsigned j = 0; j < 8; j++)
            x |= (v[i + j] & mask) << (j * w);
        for (unsigned k = 0; k < w; k++)
            o[k] = (uint8_t)(x >> (8 * k));
    }
    uint64_t x = 0;
    for (unsigned j = 0; i + j < n; j++)
        x |= (v[i + j] & mask) << (j * w);
    for (unsigned k = 0; k < ((n - i) * w + 7) / 8; k++)
        o[k] = (uint8_t)(x >> (8 * k));
}
