/* slide_int.h - what the sliding-window encoder (slide_encode.c) and decoder,
 * eraser and checker (slide.c) share beyond the byte layout (format/layout.h). */
#ifndef IG_FORMAT_PAGE_SLIDE_INT_H
#define IG_FORMAT_PAGE_SLIDE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/enc/codec.h"
#include "util/buf.h"

struct ig_error;

/* Values in one row: bounds what hostile lengths can make a decoder allocate. */
#define IG_SLIDE_MAX_LIST (1u << 24)

/* Every metadata stream and the bulk are 8-byte unsigned int streams. */
extern const struct ig_int_desc ig_slide_meta_desc;

/* Signed values are zigzagged (one bit each) unless the page stores them raw. */
static inline uint64_t zz(uint64_t v, bool s)
{
    return s ? (v << 1) ^ (uint64_t)((int64_t)v >> 63) : v;
}
static inline uint64_t unzz(uint64_t v, bool s)
{
    return s ? (v >> 1) ^ (0 - (v & 1)) : v;
}

/* OR the low w bits of x into dst at bit *pos (LSB first; dst zeroed), a byte at a time. */
static inline void put_bits(uint8_t *dst, uint64_t *pos, uint64_t x, unsigned w)
{
    for (unsigned q = 0; q < w;) {
        unsigned bit = (unsigned)(*pos % 8), take = 8 - bit < w - q ? 8 - bit : w - q;
        dst[*pos / 8] |= (uint8_t)(((x >> q) & ((1u << take) - 1)) << bit);
        *pos += take;
        q += take;
    }
}

/* u32 length + an int stream; `forced` 0 lets the codecs choose. Streams that
 * erasure touches (the bulk) must not drop elements (`erasable`); the row
 * metadata is never erased (an erased row keeps its shape), so any scheme, RLE
 * included, will do there. */
int ig_slide_put_stream(struct ig_buf *b, const uint64_t *v, size_t n, enum ig_enc forced,
                        bool erasable, struct ig_error *err);

#endif
