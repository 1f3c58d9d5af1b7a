/* varint.h - LEB128 unsigned varints and zigzag mapping.
 *
 * A varint stores 7 payload bits per byte, least significant group first; the
 * high bit of a byte is set when another byte follows. At most 10 bytes encode a
 * uint64. Decoding accepts non-minimal forms (e.g. 0x80 0x00 for 0) because an
 * erased varint may keep its length, but rejects anything that overflows 64 bits
 * or runs past the end of the buffer. */
#ifndef IG_UTIL_VARINT_H
#define IG_UTIL_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define IG_VARINT_MAX 10

/* Bytes the minimal encoding of v takes (1..10). */
static inline size_t ig_varint_size(uint64_t v)
{
    unsigned bits = v ? 64u - (unsigned)__builtin_clzll(v) : 1u;
    return (bits + 6) / 7;
}

/* Write the minimal encoding of v to dst (room for IG_VARINT_MAX bytes); returns
 * the number of bytes written. */
size_t ig_varint_put(uint8_t *dst, uint64_t v);

/* Append the minimal encoding of v. 0 or -ENOMEM. */
int ig_varint_append(struct ig_buf *b, uint64_t v);

/* Decode one varint from p[0..len). Returns the bytes consumed (1..10), or 0 when
 * the value is truncated or does not fit 64 bits. */
size_t ig_varint_get(const uint8_t *p, size_t len, uint64_t *v);

/* Zigzag: 0,-1,1,-2,... -> 0,1,2,3,...; v is the two's complement bit pattern. */
static inline uint64_t ig_zigzag64(uint64_t v)
{
    return (v << 1) ^ (0 - (v >> 63));
}
static inline uint64_t ig_unzigzag64(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

#endif
