/* plain.c - the plain scheme, for int and bytes streams.
 *
 * Int layout:   [1] [w: u8 in {1,2,4,8}] [n lanes, w bytes each, little-endian]
 *   w is the column's width (desc->width) when every value fits it, else 8, so
 *   plain can always hold any lane. Signed lanes are sign-extended on decode.
 *   Decode of w = 8 is a memcpy on little-endian hosts; get(i) is O(1).
 *   Erase: the slot becomes 0 (the stream is re-encoded, so w may shrink back to
 *   the column width if the only wide value was erased). Check: erased slots are 0.
 *
 * Bytes layout: [1] [w: u8 0..64] [n+1 offsets, bit-packed at w bits] [data]
 *   offsets[0] = 0, non-decreasing, offsets[n] = data length, w = bit width of
 *   offsets[n]. This is the per-item offset index (FlatStor): get(i) reads two
 *   offsets and returns a pointer into the stream, O(1).
 *   Erase: the item's bytes are removed (its length becomes 0, later items shift
 *   left, offsets shrink, w is recomputed). Check: erased items have length 0
 *   and w is minimal (a stale width would reveal how long the erased data was).
 *
 * Lengths form (format 16): [1] [0x80 | w] [n lengths, bit-packed at w bits]
 *   [data], w = bit width of the longest item. For blocks zstd compresses: such
 *   a block is decompressed whole before any item is read, so the O(1) index
 *   buys nothing there, and running offsets (a new high value every item) are
 *   what zstd compresses worst; lengths repeat (pci's device names: the block
 *   0.88x, Debian's package sections 0.40x). get(i) sums i lengths. Erase and
 *   check as above, the form kept and w minimal for the lengths left.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

/* ---- int plain ---------------------------------------------------------- */

static unsigned plain_width(const uint64_t *v, size_t n, const struct ig_int_desc *d)
{
    for (size_t i = 0; i < n; i++)
        if (!enc_fits(v[i], d->width, d->is_signed)) return 8;
    return d->width;
}

static size_t plain_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                             const struct enc_ectx *c)
{
    (void)c;
    return 2 + st->n * (st->fits_width ? d->width : 8);
}

static int plain_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                        const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    unsigned w = st ? (st->fits_width ? d->width : 8) : plain_width(v, n, d);
    uint8_t *o = ig_buf_extend(out, 2 + n * w);
    if (!o) return enc_nomem(c->err);
    o[0] = IG_ENC_PLAIN;
    o[1] = (uint8_t)w;
    ig_bitpack_pack(o + 2, v, n, 8 * w); /* byte-aligned widths: plain LE stores */
    return 0;
}

static int plain_header(const uint8_t *p, size_t len, size_t n, unsigned *w, struct ig_error *err)
{
    return enc_width_header(p, len, n, w, "plain", err);
}

static int plain_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                        const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = plain_header(p, len, n, &w, c->err);
    if (rc) return rc;
    ig_bitpack_unpack(out, p + 2, n, 8 * w);
    if (d->is_signed && w < 8)
        for (size_t i = 0; i < n; i++)
            out[i] = enc_sext(out[i], w);
    *used = 2 + n * w;
    return 0;
}

static int plain_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = plain_header(p, len, n, &w, c->err);
    if (rc) return rc;
    uint64_t x = ig_bitpack_get(p + 2, n * w, i, 8 * w);
    *out = d->is_signed ? enc_sext(x, w) : x;
    return 0;
}

static int plain_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, const uint8_t *kill, bool may_drop,
                       struct enc_dctx *c, struct ig_buf *out)
{
    (void)may_drop;
    unsigned w = 0;
    int rc = plain_header(p, len, n, &w, c->err);
    if (rc) return rc;
    if (w >= d->width) return enc_erase_zeroing(&enc_plain_int, p, len, n, d, absent, kill, c, out);
    /* lanes narrower than the column's (a sliding-window page's bulk, in the
     * fewest bytes its values need): re-encoded in the fewest that hold the
     * values left, never more than before, so that nothing grows and the
     * width tells nothing of an erased value */
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return enc_nomem(c->err);
    size_t used;
    rc = plain_decode(p, len, n, d, absent, v, &used, c);
    unsigned nw = 1;
    for (size_t i = 0; !rc && i < n; i++) {
        if (bm_get(kill, i)) v[i] = 0;
        while (nw < w && !enc_fits(v[i], nw, d->is_signed)) nw *= 2;
    }
    if (!rc) {
        struct ig_int_desc narrow = {.width = (uint8_t)nw, .is_signed = d->is_signed};
        struct enc_ectx ec = {.err = c->err};
        rc = plain_encode(v, n, &narrow, NULL, &ec, out);
    }
    free(v);
    return rc;
}

static int plain_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, const uint8_t *erased, size_t *used,
                       struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    unsigned w = 0;
    int rc = plain_header(p, len, n, &w, c->err);
    if (rc) return rc;
    for (size_t i = 0; erased && i < n; i++) {
        if (!bm_get(erased, i)) continue;
        for (unsigned k = 0; k < w; k++)
            if (p[2 + i * w + k])
                return ig_err(c->err, -EIO, "plain stream: erased position %zu still holds data",
                              i);
    }
    *used = 2 + n * w;
    return 0;
}

const struct int_scheme enc_plain_int = {
    .id = IG_ENC_PLAIN,
    .name = "plain",
    .composite = false,
    .holds_any = true,
    .estimate = plain_estimate,
    .encode = plain_encode,
    .decode = plain_decode,
    .get = plain_get,
    .erase = plain_erase,
    .check = plain_check,
};

/* ---- bytes plain -------------------------------------------------------- */

#define PBYTES_LENGTHS 0x80u /* header bit: lengths instead of offsets */

size_t enc_plain_bytes_size(size_t n, uint64_t total)
{
    return 2 + ig_bitpack_size(n + 1, ig_bit_width(total)) + (size_t)total;
}

size_t enc_plain_lengths_size(size_t n, uint64_t total, uint64_t longest)
{
    return 2 + ig_bitpack_size(n, ig_bit_width(longest)) + (size_t)total;
}

int enc_plain_bytes_encode_as(const uint64_t *offs, const uint8_t *data, size_t n, bool lengths,
                              struct enc_ectx *c, struct ig_buf *out)
{
    uint64_t base = offs[0], total = offs[n] - base;
    unsigned w = ig_bit_width(lengths ? enc_longest_item(offs, n) : total);
    size_t ib = lengths ? ig_bitpack_size(n, w) : ig_bitpack_size(n + 1, w);
    if (ig_buf_reserve(out, 2 + ib + (size_t)total)) return enc_nomem(c->err);
    uint8_t *o = ig_buf_extend(out, 2 + ib);
    o[0] = IG_ENC_PLAIN;
    o[1] = (uint8_t)(lengths ? PBYTES_LENGTHS | w : w);
    if (!lengths && base == 0) {
        ig_bitpack_pack(o + 2, offs, n + 1, w);
    } else {
        memset(o + 2, 0, ib);
        for (size_t i = 0; i < n + !lengths; i++)
            ig_bitpack_set(o + 2, i, w, lengths ? offs[i + 1] - offs[i] : offs[i] - base);
    }
    if (total && ig_buf_append(out, data + base, (size_t)total)) return enc_nomem(c->err);
    return 0;
}

static int pbytes_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                         struct ig_buf *out)
{
    return enc_plain_bytes_encode_as(offs, data, n, false, c, out);
}

struct pbytes_hdr {
    unsigned w;
    bool lengths;
    size_t index_at, data_at, data_avail;
};

static int pbytes_header(const uint8_t *p, size_t len, size_t n, struct pbytes_hdr *h,
                         struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "plain bytes stream: truncated header");
    h->lengths = p[1] & PBYTES_LENGTHS;
    h->w = p[1] & ~PBYTES_LENGTHS;
    if (h->w > 64) return ig_err(err, -EIO, "plain bytes stream: invalid offset width %u", h->w);
    size_t ib = ig_bitpack_size(n + !h->lengths, h->w);
    if (ib > len - 2)
        return ig_err(err, -EIO, "plain bytes stream: %s of %zu bytes past the end",
                      h->lengths ? "lengths" : "offset index", ib);
    h->index_at = 2;
    h->data_at = 2 + ib;
    h->data_avail = len - h->data_at;
    return 0;
}

/* Decode and validate all n+1 offsets into offs (the lengths form summed). */
static int pbytes_offsets(const uint8_t *p, size_t n, const struct pbytes_hdr *h, uint64_t *offs,
                          struct ig_error *err)
{
    if (h->lengths) {
        offs[0] = 0;
        ig_bitpack_unpack(offs + 1, p + h->index_at, n, h->w);
        for (size_t i = 0; i < n; i++) {
            if (offs[i + 1] > h->data_avail - offs[i])
                return ig_err(err, -EIO, "plain bytes stream: item %zu ends past the %zu data bytes",
                              i, h->data_avail);
            offs[i + 1] += offs[i];
        }
        return 0;
    }
    ig_bitpack_unpack(offs, p + h->index_at, n + 1, h->w);
    if (offs[0] != 0) return ig_err(err, -EIO, "plain bytes stream: first offset is not 0");
    for (size_t i = 0; i < n; i++)
        if (offs[i + 1] < offs[i])
            return ig_err(err, -EIO, "plain bytes stream: offset %zu decreases", i + 1);
    if (offs[n] > h->data_avail)
        return ig_err(err, -EIO, "plain bytes stream: %llu data bytes, only %zu present",
                      (unsigned long long)offs[n], h->data_avail);
    return 0;
}

static int pbytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                         uint64_t *offs_out, struct ig_buf *data_out, size_t *used,
                         struct enc_dctx *c)
{
    (void)absent;
    struct pbytes_hdr h = {0};
    int rc = pbytes_header(p, len, n, &h, c->err);
    if (!rc) rc = pbytes_offsets(p, n, &h, offs_out, c->err);
    if (rc) return rc;
    ig_buf_reset(data_out);
    if (ig_buf_append(data_out, p + h.data_at, (size_t)offs_out[n])) return enc_nomem(c->err);
    *used = h.data_at + (size_t)offs_out[n];
    return 0;
}

static int pbytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                      const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    (void)absent;
    struct pbytes_hdr h = {0};
    int rc = pbytes_header(p, len, n, &h, c->err);
    if (rc) return rc;
    size_t ib = h.data_at - h.index_at;
    uint64_t a = 0, b = 0;
    if (h.lengths) { /* the lengths up to i, summed: a block of a few hundred items */
        for (size_t k = 0;; k++) {
            uint64_t l = ig_bitpack_get(p + h.index_at, ib, k, h.w);
            if (l > h.data_avail - a)
                return ig_err(c->err, -EIO, "plain bytes stream: item %zu ends past the %zu data bytes",
                              k, h.data_avail);
            if (k == i) {
                b = a + l;
                break;
            }
            a += l;
        }
    } else {
        a = ig_bitpack_get(p + h.index_at, ib, i, h.w);
        b = ig_bitpack_get(p + h.index_at, ib, i + 1, h.w);
        if (a > b || b > h.data_avail)
            return ig_err(c->err, -EIO, "plain bytes stream: item %zu has invalid offsets", i);
    }
    *val = p + h.data_at + a;
    *vlen = (size_t)(b - a);
    return 0;
}

static int pbytes_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                        const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    (void)absent;
    (void)may_drop;
    struct pbytes_hdr h = {0};
    int rc = pbytes_header(p, len, n, &h, c->err);
    if (rc) return rc;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    uint8_t *data = malloc(h.data_avail ? h.data_avail : 1);
    if (!offs || !data) {
        rc = enc_nomem(c->err);
        goto done;
    }
    rc = pbytes_offsets(p, n, &h, offs, c->err);
    if (rc) goto done;
    enc_compact_items(data, p + h.data_at, offs, n, kill);
    struct enc_ectx ec = {.err = c->err};
    rc = enc_plain_bytes_encode_as(offs, data, n, h.lengths, &ec, out); /* the form it had */
done:
    free(offs);
    free(data);
    return rc;
}

static int pbytes_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                        const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    struct pbytes_hdr h = {0};
    int rc = pbytes_header(p, len, n, &h, c->err);
    if (rc) return rc;
    uint64_t *offs = malloc((n + 1) * sizeof *offs);
    if (!offs) return enc_nomem(c->err);
    rc = pbytes_offsets(p, n, &h, offs, c->err);
    for (size_t i = 0; !rc && erased && i < n; i++)
        if (bm_get(erased, i) && offs[i + 1] != offs[i])
            rc = ig_err(c->err, -EIO, "plain bytes stream: erased item %zu still holds %llu bytes",
                        i, (unsigned long long)(offs[i + 1] - offs[i]));
    if (!rc && h.w != ig_bit_width(h.lengths ? enc_longest_item(offs, n) : offs[n]))
        rc = ig_err(c->err, -EIO, "plain bytes stream: %s width %u is not minimal",
                    h.lengths ? "length" : "offset", h.w);
    if (!rc) *used = h.data_at + (size_t)offs[n];
    free(offs);
    return rc;
}

const struct bytes_scheme enc_plain_bytes = {
    .id = IG_ENC_PLAIN,
    .name = "plain",
    .encode = pbytes_encode,
    .decode = pbytes_decode,
    .get = pbytes_get,
    .erase = pbytes_erase,
    .check = pbytes_check,
};
