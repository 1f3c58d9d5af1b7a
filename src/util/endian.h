/* endian.h - little-endian loads and stores for on-disk fields.
 *
 * On-disk bytes are never cast to structs; every field goes through these,
 * which compile to single moves on little-endian machines. */
#ifndef IG_UTIL_ENDIAN_H
#define IG_UTIL_ENDIAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* On little-endian hosts a memcpy of the value: scalar code gets one move
 * either way, but a loop the compiler vectorises keeps byte-wise forms as
 * bytes (shuffles and packs a lane: a float32 column's narrowing ran at a
 * third of the speed). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define IG_LE_HOST 1
#else
#define IG_LE_HOST 0
#endif

static inline uint16_t ig_ld16(const void *p)
{
    uint16_t v;
    if (IG_LE_HOST) return memcpy(&v, p, 2), v;
    const uint8_t *b = p;
    return (uint16_t)(b[0] | (uint16_t)b[1] << 8);
}
static inline uint32_t ig_ld32(const void *p)
{
    uint32_t v;
    if (IG_LE_HOST) return memcpy(&v, p, 4), v;
    const uint8_t *b = p;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t ig_ld64(const void *p)
{
    uint64_t v;
    if (IG_LE_HOST) return memcpy(&v, p, 8), v;
    return (uint64_t)ig_ld32(p) | (uint64_t)ig_ld32((const uint8_t *)p + 4) << 32;
}
/* The n <= 8 bytes at p as the low bytes of a little-endian word, the rest
 * zero: a key or a tail read where fewer than a whole word's bytes are there
 * (callers load whole words where they can). */
static inline uint64_t ig_ld_le(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t v = 0;
    for (size_t k = 0; k < n; k++)
        v |= (uint64_t)b[k] << (8 * k);
    return v;
}
static inline void ig_st16(void *p, uint16_t v)
{
    if (IG_LE_HOST) {
        memcpy(p, &v, 2);
        return;
    }
    uint8_t *b = p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
static inline void ig_st32(void *p, uint32_t v)
{
    if (IG_LE_HOST) {
        memcpy(p, &v, 4);
        return;
    }
    uint8_t *b = p;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}
static inline void ig_st64(void *p, uint64_t v)
{
    if (IG_LE_HOST) {
        memcpy(p, &v, 8);
        return;
    }
    ig_st32(p, (uint32_t)v);
    ig_st32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif
