/* bitpack.c - the bitpack int scheme: every lane at one minimal bit width.
 *
 * Layout: [2] [w: u8 0..64] [n lanes bit-packed at w bits, see util/bitpack.h]
 *   Lanes of a signed column are zigzagged first, so small negative numbers stay
 *   narrow; w = bit width of the largest (zigzagged) lane. get(i) is O(1).
 *
 * Erase: the slot becomes 0. The stream is re-encoded, so w shrinks when the
 *   erased values were the widest: a stale width would tell how large they were.
 * Check: erased slots are 0 and w is minimal for the lanes present.
 */
#include <stdlib.h>

#include "enc_internal.h"

static size_t bp_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                          const struct enc_ectx *c)
{
    (void)d;
    (void)c;
    return 2 + ig_bitpack_size(st->n, ig_bit_width(st->zor));
}

static int bp_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                     const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    const uint64_t *lanes = v;
    uint64_t *z = NULL;
    uint64_t or_all = 0;
    if (d->is_signed) {
        z = malloc((n ? n : 1) * sizeof *z);
        if (!z) return enc_nomem(c->err);
        for (size_t i = 0; i < n; i++)
            or_all |= z[i] = ig_zigzag64(v[i]);
        lanes = z;
    } else {
        for (size_t i = 0; i < n; i++)
            or_all |= v[i];
    }
    unsigned w = ig_bit_width(or_all);
    uint8_t *o = ig_buf_extend(out, 2 + ig_bitpack_size(n, w));
    if (o) {
        o[0] = IG_ENC_BITPACK;
        o[1] = (uint8_t)w;
        ig_bitpack_pack(o + 2, lanes, n, w);
    }
    free(z);
    return o ? 0 : enc_nomem(c->err);
}

int ig_ints_encode_bitpack_u8(const uint8_t *v, size_t n, struct ig_buf *out, struct ig_error *err)
{
    uint8_t or_all = 0;
    for (size_t i = 0; i < n; i++)
        or_all |= v[i];
    unsigned w = ig_bit_width(or_all);
    uint8_t *o = ig_buf_extend(out, 2 + ig_bitpack_size(n, w));
    if (!o) return enc_nomem(err);
    o[0] = IG_ENC_BITPACK;
    o[1] = (uint8_t)w;
    ig_bitpack_pack_u8(o + 2, v, n, w);
    return 0;
}

static int bp_header(const uint8_t *p, size_t len, size_t n, unsigned *w, struct ig_error *err)
{
    if (len < 2) return ig_err(err, -EIO, "bitpack stream: truncated header");
    *w = p[1];
    if (*w > 64) return ig_err(err, -EIO, "bitpack stream: invalid bit width %u", *w);
    if (ig_bitpack_size(n, *w) > len - 2)
        return ig_err(err, -EIO, "bitpack stream: %zu values of %u bits need more than %zu bytes",
                      n, *w, len - 2);
    return 0;
}

static int bp_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = bp_header(p, len, n, &w, c->err);
    if (rc) return rc;
    ig_bitpack_unpack(out, p + 2, n, w);
    if (d->is_signed)
        for (size_t i = 0; i < n; i++)
            out[i] = ig_unzigzag64(out[i]);
    *used = 2 + ig_bitpack_size(n, w);
    return 0;
}

static int bp_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)absent;
    unsigned w = 0;
    int rc = bp_header(p, len, n, &w, c->err);
    if (rc) return rc;
    uint64_t x = ig_bitpack_get(p + 2, ig_bitpack_size(n, w), i, w);
    *out = d->is_signed ? ig_unzigzag64(x) : x;
    return 0;
}

static int bp_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                    struct ig_buf *out)
{
    (void)may_drop;
    return enc_erase_zeroing(&enc_bitpack_int, p, len, n, d, absent, kill, c, out);
}

static int bp_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    unsigned w = 0;
    int rc = bp_header(p, len, n, &w, c->err);
    if (rc) return rc;
    size_t nb = ig_bitpack_size(n, w);
    uint64_t or_all = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = ig_bitpack_get(p + 2, nb, i, w);
        if (x && bm_get(erased, i))
            return ig_err(c->err, -EIO, "bitpack stream: erased position %zu still holds data", i);
        or_all |= x;
    }
    if (ig_bit_width(or_all) != w)
        return ig_err(c->err, -EIO, "bitpack stream: bit width %u is not minimal", w);
    *used = 2 + nb;
    return 0;
}

const struct int_scheme enc_bitpack_int = {
    .id = IG_ENC_BITPACK,
    .name = "bitpack",
    .composite = false,
    .holds_any = true,
    .estimate = bp_estimate,
    .encode = bp_encode,
    .decode = bp_decode,
    .get = bp_get,
    .erase = bp_erase,
    .check = bp_check,
};
