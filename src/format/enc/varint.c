/* varint.c - the varint int scheme: LEB128 lanes with a sparse position index.
 *
 * Layout: [3] [b: u8 0..64] [index] [data]
 *   data:  n LEB128 varints, one per lane (zigzagged first for signed columns).
 *   index: floor((n-1)/128) entries (none when n <= 128), bit-packed at b bits;
 *          entry j is the byte offset in data of value (j+1)*128. b is the bit
 *          width of the last entry.
 *   get(i) starts at the index entry for i's block of 128 and skips at most 127
 *   varints, so random access is bounded. Decode checks every index entry
 *   against the walk so get and decode cannot disagree.
 *
 * Erase: the value becomes the single byte 0x00. The stream is re-encoded (bytes
 *   after it shift left, index entries only shrink), so unlike keeping the
 *   continuation bits (the paper's rule) the erased value's byte length, i.e. its
 *   magnitude, is not kept either. Check: an erased value is exactly 0x00.
 */
#include <stdlib.h>

#include "enc_internal.h"

static size_t vi_nidx(size_t n)
{
    return n ? (n - 1) / ENC_VARINT_STRIDE : 0;
}

static size_t vi_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                          const struct enc_ectx *c)
{
    (void)d;
    (void)c;
    size_t nidx = vi_nidx(st->n);
    return 2 + ig_bitpack_size(nidx, nidx ? ig_bit_width(st->varint_last) : 0) + st->varint_bytes;
}

static int vi_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                     const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    size_t nidx = vi_nidx(n);
    uint64_t *idx = malloc((nidx ? nidx : 1) * sizeof *idx);
    if (!idx) return enc_nomem(c->err);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && i % ENC_VARINT_STRIDE == 0) idx[i / ENC_VARINT_STRIDE - 1] = total;
        total += ig_varint_size(d->is_signed ? ig_zigzag64(v[i]) : v[i]);
    }
    unsigned b = nidx ? ig_bit_width(idx[nidx - 1]) : 0;
    size_t ib = ig_bitpack_size(nidx, b);
    uint8_t *o = ig_buf_extend(out, 2 + ib + total);
    if (o) {
        o[0] = IG_ENC_VARINT;
        o[1] = (uint8_t)b;
        ig_bitpack_pack(o + 2, idx, nidx, b);
        uint8_t *q = o + 2 + ib;
        for (size_t i = 0; i < n; i++)
            q += ig_varint_put(q, d->is_signed ? ig_zigzag64(v[i]) : v[i]);
    }
    free(idx);
    return o ? 0 : enc_nomem(c->err);
}

struct vi_hdr {
    unsigned b;
    size_t nidx, ib;
    const uint8_t *idx, *data;
    size_t dlen;
};

static int vi_header(const uint8_t *p, size_t len, size_t n, struct vi_hdr *h, struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "varint stream: truncated header");
    h->b = p[1];
    if (h->b > 64) return ig_err(err, -EIO, "varint stream: invalid index width %u", h->b);
    h->nidx = vi_nidx(n);
    h->ib = ig_bitpack_size(h->nidx, h->b);
    if (h->ib > len - 2) return ig_err(err, -EIO, "varint stream: index past the end");
    h->idx = p + 2;
    h->data = p + 2 + h->ib;
    h->dlen = len - 2 - h->ib;
    return 0;
}

/* Walk all n values, checking every index entry against the walk; values go to
 * out (if given) and every position in `erased` must be the single byte 0x00. */
static int vi_walk(const uint8_t *p, size_t len, size_t n, struct vi_hdr *h, uint64_t *out,
                   const uint8_t *erased, size_t *used, struct ig_error *err, bool is_signed)
{
    int rc = vi_header(p, len, n, h, err);
    if (rc) return rc;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && i % ENC_VARINT_STRIDE == 0 &&
            ig_bitpack_get(h->idx, h->ib, i / ENC_VARINT_STRIDE - 1, h->b) != off)
            return ig_err(err, -EIO, "varint stream: index entry for value %zu is wrong", i);
        uint64_t x;
        size_t k = ig_varint_get(h->data + off, h->dlen - off, &x);
        if (!k) return ig_err(err, -EIO, "varint stream: value %zu truncated or too long", i);
        if (erased && bm_get(erased, i) && (k != 1 || x != 0))
            return ig_err(err, -EIO, "varint stream: erased position %zu still holds data", i);
        if (out) out[i] = is_signed ? ig_unzigzag64(x) : x;
        off += k;
    }
    *used = 2 + h->ib + off;
    return 0;
}

static int vi_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    struct vi_hdr h = {0};
    return vi_walk(p, len, n, &h, out, NULL, used, c->err, d->is_signed);
}

static int vi_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)absent;
    struct vi_hdr h = {0};
    int rc = vi_header(p, len, n, &h, c->err);
    if (rc) return rc;
    size_t j = i / ENC_VARINT_STRIDE;
    uint64_t off = j ? ig_bitpack_get(h.idx, h.ib, j - 1, h.b) : 0;
    uint64_t x = 0;
    for (size_t s = 0; s <= i % ENC_VARINT_STRIDE; s++) {
        size_t k = off <= h.dlen ? ig_varint_get(h.data + off, h.dlen - (size_t)off, &x) : 0;
        if (!k) return ig_err(c->err, -EIO, "varint stream: value %zu truncated or too long", i);
        off += k;
    }
    *out = d->is_signed ? ig_unzigzag64(x) : x;
    return 0;
}

static int vi_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                    struct ig_buf *out)
{
    (void)may_drop;
    return enc_erase_zeroing(&enc_varint_int, p, len, n, d, absent, kill, c, out);
}

static int vi_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    struct vi_hdr h = {0};
    return vi_walk(p, len, n, &h, NULL, erased, used, c->err, d->is_signed);
}

const struct int_scheme enc_varint_int = {
    .id = IG_ENC_VARINT,
    .name = "varint",
    .composite = false,
    .estimate = vi_estimate,
    .encode = vi_encode,
    .decode = vi_decode,
    .get = vi_get,
    .erase = vi_erase,
    .check = vi_check,
};
