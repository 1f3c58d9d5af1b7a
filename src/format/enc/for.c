/* for.c - the frame-of-reference int scheme: a base plus bit-packed offsets.
 *
 * Layout: [6] [base: u64 LE] [w: u8 0..64] [n offsets bit-packed at w bits]
 *   Offset 0 is reserved as the erased marker and decodes to 0; offset o >= 1
 *   decodes to base + (o - 1) (mod 2^64). base is the minimum of the live values
 *   in the column's order (signed or unsigned), so w = bit width of (max - min + 1).
 *   get(i) is O(1). Data whose range is the full 2^64 cannot be represented.
 *
 *   The marker is what makes erasure safe without knowing which rows were
 *   erased earlier: live slots are exactly the non-zero offsets, so the base can
 *   always be recomputed from live values only.
 *
 * Erase: the slot becomes offset 0. If the base (the minimum) was held only by
 *   erased slots it is recomputed from the remaining live values and every offset
 *   rewritten (they only shrink, so does w). With no live value left base = 0.
 * Check: erased slots hold offset 0, some live slot holds offset 1 (the base is a
 *   live value) or base = 0 when none is live, and w is minimal.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

#define FOR_HDR 10

static size_t for_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                           const struct enc_ectx *c)
{
    (void)d;
    uint64_t range = st->n ? st->hi - st->lo : 0;
    if (range == UINT64_MAX) return SIZE_MAX;
    bool none = st->n == 0 || (c->zero_marks && st->umax == 0); /* every lane a marker */
    return FOR_HDR + ig_bitpack_size(st->n, none ? 0 : ig_bit_width(range + 1));
}

/* Encode v[0..n) where positions in `marks` (may be NULL) are erased. */
static int for_build(const uint64_t *v, const uint8_t *marks, size_t n, const struct ig_int_desc *d,
                     struct ig_buf *out, struct ig_error *err)
{
    bool any = false;
    uint64_t lo = 0, hi = 0; /* order keys */
    for (size_t i = 0; i < n; i++) {
        if (bm_get(marks, i)) continue;
        uint64_t k = enc_order_key(v[i], d->is_signed);
        if (!any || k < lo) lo = k;
        if (!any || k > hi) hi = k;
        any = true;
    }
    if (any && hi - lo == UINT64_MAX)
        return ig_err(err, -EINVAL, "for: values span the full 64-bit range");
    uint64_t base = any ? enc_order_key(lo, d->is_signed) : 0;
    unsigned w = any ? ig_bit_width(hi - lo + 1) : 0;
    uint64_t *o = malloc((n ? n : 1) * sizeof *o);
    if (!o) return enc_nomem(err);
    for (size_t i = 0; i < n; i++)
        o[i] = bm_get(marks, i) ? 0 : v[i] - base + 1;
    uint8_t *q = ig_buf_extend(out, FOR_HDR + ig_bitpack_size(n, w));
    if (q) {
        q[0] = IG_ENC_FOR;
        ig_st64(q + 1, base);
        q[9] = (uint8_t)w;
        ig_bitpack_pack(q + FOR_HDR, o, n, w);
    }
    free(o);
    return q ? 0 : enc_nomem(err);
}

static int for_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                      const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    if (!c->zero_marks) return for_build(v, NULL, n, d, out, c->err);
    uint8_t *marks = calloc(bm_bytes(n) + 1, 1);
    if (!marks) return enc_nomem(c->err);
    for (size_t i = 0; i < n; i++)
        if (!v[i]) bm_set(marks, i);
    int rc = for_build(v, marks, n, d, out, c->err);
    free(marks);
    return rc;
}

static int for_header(const uint8_t *p, size_t len, size_t n, uint64_t *base, unsigned *w,
                      struct ig_error *err)
{
    if (len < FOR_HDR) return ig_err(err, -EIO, "for stream: truncated header");
    *base = ig_ld64(p + 1);
    *w = p[9];
    if (*w > 64) return ig_err(err, -EIO, "for stream: invalid bit width %u", *w);
    if (ig_bitpack_size(n, *w) > len - FOR_HDR)
        return ig_err(err, -EIO, "for stream: %zu offsets of %u bits need more than %zu bytes", n,
                      *w, len - FOR_HDR);
    return 0;
}

static int for_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    uint64_t base = 0;
    unsigned w = 0;
    int rc = for_header(p, len, n, &base, &w, c->err);
    if (rc) return rc;
    ig_bitpack_unpack(out, p + FOR_HDR, n, w);
    uint64_t b1 = base - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = out[i] ? out[i] + b1 : 0;
    *used = FOR_HDR + ig_bitpack_size(n, w);
    return 0;
}

static int for_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    uint64_t base = 0;
    unsigned w = 0;
    int rc = for_header(p, len, n, &base, &w, c->err);
    if (rc) return rc;
    uint64_t o = ig_bitpack_get(p + FOR_HDR, ig_bitpack_size(n, w), i, w);
    *out = o ? base + o - 1 : 0;
    return 0;
}

/* The erased slots zeroed in v[0..n) (offsets as stored); true when the
 * stream keeps its base and width: some live slot still holds offset 1 and
 * the live offsets still need w bits. Then the offsets are packed again as
 * they are, without rebuilding the frame from values (most erases: 2 % of
 * rows scattered rarely take a block's minimum or every wide value). */
static bool for_keeps_frame(uint64_t *v, const uint8_t *kill, size_t n, unsigned w)
{
    uint64_t or_live = 0;
    bool base_live = false;
    for (size_t i = 0; i < n; i++) {
        if (bm_get(kill, i)) v[i] = 0;
        or_live |= v[i];
        base_live |= v[i] == 1;
    }
    return base_live && ig_bit_width(or_live) == w;
}

static int for_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                     struct ig_buf *out)
{
    (void)absent;
    (void)may_drop;
    uint64_t base = 0;
    unsigned w = 0;
    int rc = for_header(p, len, n, &base, &w, c->err);
    if (rc) return rc;
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return enc_nomem(c->err);
    ig_bitpack_unpack(v, p + FOR_HDR, n, w);
    if (for_keeps_frame(v, kill, n, w)) {
        uint8_t *q = ig_buf_extend(out, FOR_HDR + ig_bitpack_size(n, w));
        if (q) {
            memcpy(q, p, FOR_HDR);
            ig_bitpack_pack(q + FOR_HDR, v, n, w);
        }
        free(v);
        return q ? 0 : enc_nomem(c->err);
    }
    uint8_t *marks = calloc(bm_bytes(n) + 1, 1);
    if (!marks) {
        rc = enc_nomem(c->err);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (v[i] == 0)
                bm_set(marks, i);
            else
                v[i] += base - 1;
        }
        /* Live values came from a valid stream, so their range fits. */
        rc = for_build(v, marks, n, d, out, c->err);
    }
    free(v);
    free(marks);
    return rc;
}

static int for_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    uint64_t base = 0;
    unsigned w = 0;
    int rc = for_header(p, len, n, &base, &w, c->err);
    if (rc) return rc;
    size_t nb = ig_bitpack_size(n, w);
    uint64_t or_all = 0, min_live = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = ig_bitpack_get(p + FOR_HDR, nb, i, w);
        if (o && bm_get(erased, i))
            return ig_err(c->err, -EIO, "for stream: erased position %zu still holds data", i);
        or_all |= o;
        if (o && (!any || o < min_live)) min_live = o;
        any |= o != 0;
    }
    if (any ? min_live != 1 : base != 0)
        return ig_err(c->err, -EIO, "for stream: base is not the minimum live value");
    if (ig_bit_width(or_all) != w)
        return ig_err(c->err, -EIO, "for stream: bit width %u is not minimal", w);
    *used = FOR_HDR + nb;
    return 0;
}

const struct int_scheme enc_for_int = {
    .id = IG_ENC_FOR,
    .name = "for",
    .composite = false,
    .estimate = for_estimate,
    .encode = for_encode,
    .decode = for_decode,
    .get = for_get,
    .erase = for_erase,
    .check = for_check,
};
