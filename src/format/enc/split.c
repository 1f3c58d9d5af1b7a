/* split.c - byte-stream split, for int streams of fixed-width values (floats).
 *
 * Layout: [9] [w: u8 in {1,2,4,8}] [w planes of n bytes: plane k holds byte k
 *         (little-endian order) of every lane]
 *   w as in plain: the column's width when every value fits it, else 8.
 *
 * Why: the bytes of a float are not alike. The top byte of a float32 holds the
 * sign and most of the exponent, which vary little within a column; the low
 * bytes are mantissa noise. Interleaved, zstd sees noise everywhere and gains
 * ~7% on embeddings; split into planes, the exponent plane compresses several
 * times and the page ~15% (Parquet's BYTE_STREAM_SPLIT, Bullion's cascading
 * of a layout transform under a compressor). The stream itself is exactly as
 * large as plain, so the selector never picks it on its own: a column asks for
 * it with encoding=split and the page's zstd pass (kept when it saves an
 * eighth) does the rest.
 *
 * get(i) gathers w bytes, O(1). Erase: the slot's bytes become 0 in every
 * plane (re-encoded at the same size). Check: they are 0.
 */
#include <string.h>

#include "enc_internal.h"

static size_t split_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                             const struct enc_ectx *c)
{
    /* as large as plain: only a forced choice (see above) */
    if (!c->strict) return SIZE_MAX;
    return 2 + st->n * (st->fits_width ? d->width : 8);
}

static unsigned split_width(const uint64_t *v, size_t n, const struct ig_int_desc *d)
{
    for (size_t i = 0; i < n; i++)
        if (!enc_fits(v[i], d->width, d->is_signed)) return 8;
    return d->width;
}

static int split_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                        const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    unsigned w = st ? (st->fits_width ? d->width : 8) : split_width(v, n, d);
    uint8_t *o = ig_buf_extend(out, 2 + n * w);
    if (!o) return enc_nomem(c->err);
    o[0] = IG_ENC_SPLIT;
    o[1] = (uint8_t)w;
    for (unsigned k = 0; k < w; k++) {
        uint8_t *plane = o + 2 + (size_t)k * n;
        for (size_t i = 0; i < n; i++)
            plane[i] = (uint8_t)(v[i] >> (8 * k));
    }
    return 0;
}

static int split_header(const uint8_t *p, size_t len, size_t n, unsigned *w, struct ig_error *err)
{
    return enc_width_header(p, len, n, w, "split", err);
}

static int split_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                        const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = split_header(p, len, n, &w, c->err);
    if (rc) return rc;
    const uint8_t *b = p + 2;
    if (w == 4) { /* float32: the common case, one pass */
        for (size_t i = 0; i < n; i++)
            out[i] = (uint64_t)b[i] | (uint64_t)b[n + i] << 8 | (uint64_t)b[2 * n + i] << 16 |
                     (uint64_t)b[3 * n + i] << 24;
    } else {
        memset(out, 0, n * sizeof *out);
        for (unsigned k = 0; k < w; k++)
            for (size_t i = 0; i < n; i++)
                out[i] |= (uint64_t)b[(size_t)k * n + i] << (8 * k);
    }
    if (d->is_signed && w < 8)
        for (size_t i = 0; i < n; i++)
            out[i] = enc_sext(out[i], w);
    *used = 2 + n * w;
    return 0;
}

static int split_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = split_header(p, len, n, &w, c->err);
    if (rc) return rc;
    uint64_t x = 0;
    for (unsigned k = 0; k < w; k++)
        x |= (uint64_t)p[2 + (size_t)k * n + i] << (8 * k);
    *out = d->is_signed ? enc_sext(x, w) : x;
    return 0;
}

static int split_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, const uint8_t *kill, bool may_drop,
                       struct enc_dctx *c, struct ig_buf *out)
{
    (void)may_drop;
    return enc_erase_zeroing(&enc_split_int, p, len, n, d, absent, kill, c, out);
}

static int split_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, const uint8_t *erased, size_t *used,
                       struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    unsigned w = 0;
    int rc = split_header(p, len, n, &w, c->err);
    if (rc) return rc;
    for (size_t i = 0; erased && i < n; i++) {
        if (!bm_get(erased, i)) continue;
        for (unsigned k = 0; k < w; k++)
            if (p[2 + (size_t)k * n + i])
                return ig_err(c->err, -EIO, "split stream: erased position %zu still holds data",
                              i);
    }
    *used = 2 + n * w;
    return 0;
}

const struct int_scheme enc_split_int = {
    .id = IG_ENC_SPLIT,
    .name = "split",
    .composite = false,
    .estimate = split_estimate,
    .encode = split_encode,
    .decode = split_decode,
    .get = split_get,
    .erase = split_erase,
    .check = split_check,
};
