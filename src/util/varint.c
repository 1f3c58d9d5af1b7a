/* varint.c - LEB128 encode/decode (contract in varint.h). */
#include "varint.h"

#include <errno.h>

size_t ig_varint_put(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (uint8_t)v;
    return n;
}

int ig_varint_append(struct ig_buf *b, uint64_t v)
{
    uint8_t t[IG_VARINT_MAX];
    return ig_buf_append(b, t, ig_varint_put(t, v));
}

size_t ig_varint_get(const uint8_t *p, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    size_t lim = len < IG_VARINT_MAX ? len : IG_VARINT_MAX;
    for (size_t i = 0; i < lim; i++) {
        uint8_t b = p[i];
        if (i == IG_VARINT_MAX - 1 && b > 1) return 0; /* the 10th byte holds bit 63 only */
        x |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}
