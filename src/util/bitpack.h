/* bitpack.h - n unsigned values at a fixed bit width w (0..64).
 *
 * Layout: value i occupies bits [i*w, (i+1)*w) of the byte string, counting bits
 * LSB-first within little-endian bytes (bit b lives in byte b/8 at position b%8).
 * A run of n values takes exactly ig_bitpack_size(n, w) bytes; the unused high
 * bits of the last byte are written as zero.
 *
 * Every function reads or writes exactly the bytes [0, ig_bitpack_size(n, w)) of
 * the buffer it is given (get/set: only the bytes that hold value i), so callers
 * only have to check that many bytes are present. Values wider than w are masked. */
#ifndef IG_UTIL_BITPACK_H
#define IG_UTIL_BITPACK_H

#include <stddef.h>
#include <stdint.h>

/* Bits needed for v: 0 for 0, else 1 + floor(log2 v). */
static inline unsigned ig_bit_width(uint64_t v)
{
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

/* Bytes for n values of w bits, without overflowing for any n <= SIZE_MAX / 8. */
static inline size_t ig_bitpack_size(size_t n, unsigned w)
{
    return (n / 8) * w + ((n % 8) * w + 7) / 8;
}

/* dst: ig_bitpack_size(n, w) bytes, fully written. */
void ig_bitpack_pack(uint8_t *dst, const uint64_t *v, size_t n, unsigned w);
/* The same for byte values (w <= 8): eight values are w bytes. */
void ig_bitpack_pack_u8(uint8_t *dst, const uint8_t *v, size_t n, unsigned w);

/* src: ig_bitpack_size(n, w) bytes. Fast paths for every width; >= several GB/s. */
void ig_bitpack_unpack(uint64_t *dst, const uint8_t *src, size_t n, unsigned w);

/* Value i of a run whose packed form is nbytes long (nbytes only enables a
 * faster single 8-byte load when it is in bounds; values past it are not read). */
uint64_t ig_bitpack_get(const uint8_t *src, size_t nbytes, size_t i, unsigned w);

/* Overwrite value i in place, leaving every other bit untouched. */
void ig_bitpack_set(uint8_t *dst, size_t i, unsigned w, uint64_t v);

#endif
