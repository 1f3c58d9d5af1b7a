/* delta.c - the delta int scheme: blocks of 128 values, each an absolute base
 * plus zigzag deltas bit-packed at a per-block width.
 *
 * Layout: [7] [w_0 .. w_{nb-1}: u8 each] [base_0 .. base_{nb-1}: u64 LE each]
 *         [block 0 codes] [block 1 codes] ...
 *   nb = ceil(n / 128); block b holds values [128b, min(128b + 128, n)), its codes
 *   bit-packed at w_b bits (so a full block is 16 * w_b bytes and block j starts
 *   at 16 * (w_0 + ... + w_{j-1})). get(i) decodes at most one block.
 *
 * Codes. A code c >= 2 is a live slot with delta d = unzigzag(c - 2); codes 0
 * and 1 are erased slots ("markers", decode to 0). Walking a block with r = base:
 * after a gap of e markers whose values sum to m, a live code moves r by
 * (e + 1) * d + m and the slot's value is r. Fresh data has no markers: the
 * first code is 2 (d = 0, value = base) and each next code is zigzag of the step
 * plus 2. Steps of exactly +-2^63 (zigzag >= 2^64 - 2) cannot be represented.
 *
 * Erase: the killed slot becomes a marker and the gap it joins is re-split.
 *   For a gap of e erased slots between live values a and b, S = b - a is stored
 *   as d = floor(S / (e + 1)) in b's code and the remainder S - (e + 1) d (0..e)
 *   as that many leading 1-markers. d always lies between the smallest and the
 *   largest delta it replaces, so the block never needs a wider width: erase
 *   never returns -ENOSPC for a valid stream, and nothing about the killed value
 *   survives (every stored quantity is a function of the live values alone).
 *   The base becomes the first live value of the block (0 if none is left).
 *   This deviates from "copy a neighbour's value" on purpose: a copied value
 *   cannot be told apart from a live one on a later erase, so erasing that
 *   neighbour would leave its value behind in the copy.
 * Check: erased slots are markers, each gap's markers are 1s then 0s, leading and
 *   trailing markers are 0, the first live code is 2 (base = first live value),
 *   a block with no live slot has base 0, and every w_b is minimal.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

#define DB ENC_DELTA_BLOCK

__extension__ typedef __int128 i128;

static size_t dl_blocks(size_t n)
{
    return n / DB + (n % DB != 0);
}
static size_t dl_count(size_t n, size_t b)
{
    return b + 1 < dl_blocks(n) ? DB : n - b * DB;
}

static size_t dl_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                          const struct enc_ectx *c)
{
    (void)d;
    (void)c;
    if (st->delta_bytes == SIZE_MAX) return SIZE_MAX;
    return 1 + 9 * dl_blocks(st->n) + st->delta_bytes;
}

static int dl_emit(const uint8_t *widths, const uint64_t *bases, const uint64_t *codes, size_t n,
                   struct ig_buf *out, struct ig_error *err)
{
    size_t nb = dl_blocks(n), total = 1 + 9 * nb;
    for (size_t b = 0; b < nb; b++)
        total += ig_bitpack_size(dl_count(n, b), widths[b]);
    uint8_t *o = ig_buf_extend(out, total);
    if (!o) return enc_nomem(err);
    o[0] = IG_ENC_DELTA;
    memcpy(o + 1, widths, nb);
    for (size_t b = 0; b < nb; b++)
        ig_st64(o + 1 + nb + 8 * b, bases[b]);
    uint8_t *q = o + 1 + 9 * nb;
    for (size_t b = 0; b < nb; b++) {
        size_t cnt = dl_count(n, b);
        ig_bitpack_pack(q, codes + b * DB, cnt, widths[b]);
        q += ig_bitpack_size(cnt, widths[b]);
    }
    return 0;
}

static i128 floor_div(i128 a, i128 m, i128 *rem)
{
    i128 q = a / m;
    if (a % m != 0 && a < 0) q -= 1;
    *rem = a - q * m;
    return q;
}

/* The canonical codes of one block from its live values (vals[i] where live[i]):
 * base = first live value, its code 2; each later live value's step from the
 * previous live one, spread over the gap as described in the header comment.
 * The step is taken as (int64)(b - a), the representative mod 2^64 in
 * [-2^63, 2^63), so the codes depend on the live values alone. -1 if a step
 * cannot be represented. */
static int dl_block_build(const uint64_t *vals, const bool *live, size_t cnt, uint64_t *base,
                          uint64_t *codes)
{
    memset(codes, 0, cnt * sizeof *codes);
    *base = 0;
    size_t prev = SIZE_MAX;
    for (size_t i = 0; i < cnt; i++) {
        if (!live[i]) continue;
        if (prev == SIZE_MAX) {
            *base = vals[i];
            codes[i] = 2;
        } else if (i == prev + 1) { /* no gap: the step itself, no 128-bit division */
            int64_t step = (int64_t)(vals[i] - vals[prev]);
            if (step == INT64_MIN || step == INT64_MAX) return -1;
            codes[i] = ig_zigzag64((uint64_t)step) + 2;
        } else {
            size_t gap = i - prev - 1;
            i128 rem, q = floor_div((i128)(int64_t)(vals[i] - vals[prev]), (i128)gap + 1, &rem);
            if (q < INT64_MIN + (i128)1 || q > INT64_MAX - (i128)1) return -1;
            for (size_t k = 0; k < (size_t)rem; k++)
                codes[prev + 1 + k] = 1;
            codes[i] = ig_zigzag64((uint64_t)(int64_t)q) + 2;
        }
        prev = i;
    }
    return 0;
}

static uint8_t dl_width(const uint64_t *codes, size_t cnt)
{
    uint64_t or_all = 0;
    for (size_t i = 0; i < cnt; i++)
        or_all |= codes[i];
    return (uint8_t)ig_bit_width(or_all);
}

size_t enc_delta_marked_bytes(const uint64_t *v, size_t n)
{
    uint64_t codes[DB], base;
    bool live[DB];
    size_t total = 0;
    for (size_t b = 0; b < dl_blocks(n); b++) {
        size_t cnt = dl_count(n, b);
        for (size_t i = 0; i < cnt; i++)
            live[i] = v[b * DB + i] != 0;
        if (dl_block_build(v + b * DB, live, cnt, &base, codes)) return SIZE_MAX;
        total += ig_bitpack_size(cnt, dl_width(codes, cnt));
    }
    return total;
}

static int dl_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                     const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)d;
    (void)st;
    size_t nb = dl_blocks(n);
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    uint64_t *bases = malloc((nb ? nb : 1) * sizeof *bases);
    uint8_t *widths = malloc(nb ? nb : 1);
    int rc = 0;
    if (!codes || !bases || !widths) {
        rc = enc_nomem(c->err);
        goto done;
    }
    bool live[DB];
    for (size_t b = 0; b < nb; b++) {
        size_t s = b * DB, cnt = dl_count(n, b);
        for (size_t i = 0; i < cnt; i++)
            live[i] = !c->zero_marks || v[s + i] != 0; /* 0 codes of a dict: markers */
        if (dl_block_build(v + s, live, cnt, &bases[b], codes + s)) {
            rc = ig_err(c->err, -EINVAL, "delta: a step of 2^63 in block %zu", b);
            goto done;
        }
        widths[b] = dl_width(codes + s, cnt);
    }
    rc = dl_emit(widths, bases, codes, n, out, c->err);
done:
    free(codes);
    free(bases);
    free(widths);
    return rc;
}

struct dl_hdr {
    size_t nb;
    const uint8_t *widths, *bases, *data;
    size_t dlen, total; /* data bytes present / needed */
};

static int dl_header(const uint8_t *p, size_t len, size_t n, struct dl_hdr *h, struct ig_error *err)
{
    h->nb = dl_blocks(n);
    if (len < 1 || (len - 1) / 9 < h->nb)
        return ig_err(err, -EIO, "delta stream: truncated block headers");
    h->widths = p + 1;
    h->bases = p + 1 + h->nb;
    h->data = p + 1 + 9 * h->nb;
    h->dlen = len - 1 - 9 * h->nb;
    h->total = 0;
    for (size_t b = 0; b < h->nb; b++) {
        if (h->widths[b] > 64)
            return ig_err(err, -EIO, "delta stream: block %zu has invalid width %u", b,
                          h->widths[b]);
        h->total += ig_bitpack_size(dl_count(n, b), h->widths[b]);
    }
    if (h->total > h->dlen)
        return ig_err(err, -EIO, "delta stream: blocks need %zu bytes, %zu present", h->total,
                      h->dlen);
    return 0;
}

/* Block b's codes, unpacked into codes[0..cnt). */
static size_t dl_block_codes(const struct dl_hdr *h, size_t n, size_t b, uint64_t *codes)
{
    size_t off = 0;
    for (size_t j = 0; j < b; j++)
        off += (size_t)16 * h->widths[j]; /* every block before b is full */
    size_t cnt = dl_count(n, b);
    ig_bitpack_unpack(codes, h->data + off, cnt, h->widths[b]);
    return cnt;
}

/* Codes -> values for one block, per the walk in the header comment. */
static void dl_block_values(uint64_t base, const uint64_t *codes, size_t cnt, uint64_t *out)
{
    uint64_t r = base, e = 0, m = 0;
    for (size_t i = 0; i < cnt; i++) {
        uint64_t c = codes[i];
        if (c < 2) {
            out[i] = 0;
            e++;
            m += c;
        } else {
            r += (e + 1) * ig_unzigzag64(c - 2) + m;
            out[i] = r;
            e = m = 0;
        }
    }
}

static int dl_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct dl_hdr h;
    int rc = dl_header(p, len, n, &h, c->err);
    if (rc) return rc;
    const uint8_t *q = h.data;
    uint64_t codes[DB];
    for (size_t b = 0; b < h.nb; b++) {
        size_t cnt = dl_count(n, b);
        ig_bitpack_unpack(codes, q, cnt, h.widths[b]);
        q += ig_bitpack_size(cnt, h.widths[b]);
        dl_block_values(ig_ld64(h.bases + 8 * b), codes, cnt, out + b * DB);
    }
    *used = 1 + 9 * h.nb + h.total;
    return 0;
}

static int dl_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct dl_hdr h;
    int rc = dl_header(p, len, n, &h, c->err);
    if (rc) return rc;
    uint64_t codes[DB], vals[DB];
    size_t b = i / DB, k = i % DB;
    dl_block_codes(&h, n, b, codes);
    dl_block_values(ig_ld64(h.bases + 8 * b), codes, k + 1, vals);
    *out = vals[k];
    return 0;
}

/* Erase kill (bits first + i) from one block: decode, drop the killed live
 * slots, rebuild canonically. */
static int dl_block_erase(uint64_t *base, uint64_t *codes, size_t cnt, const uint8_t *kill,
                          size_t first, struct ig_error *err)
{
    uint64_t vals[DB];
    bool live[DB];
    dl_block_values(*base, codes, cnt, vals);
    for (size_t i = 0; i < cnt; i++)
        live[i] = codes[i] >= 2 && !bm_get(kill, first + i);
    if (dl_block_build(vals, live, cnt, base, codes))
        return ig_err(err, -ENOSPC, "delta stream: a merged step does not fit");
    return 0;
}

static int dl_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                    struct ig_buf *out)
{
    (void)d;
    (void)absent;
    (void)may_drop;
    struct dl_hdr h;
    int rc = dl_header(p, len, n, &h, c->err);
    if (rc) return rc;
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    uint64_t *bases = malloc((h.nb ? h.nb : 1) * sizeof *bases);
    uint8_t *widths = malloc(h.nb ? h.nb : 1);
    if (!codes || !bases || !widths) {
        rc = enc_nomem(c->err);
        goto done;
    }
    const uint8_t *q = h.data;
    for (size_t b = 0; b < h.nb && !rc; b++) {
        size_t cnt = dl_count(n, b);
        uint64_t *bc = codes + b * DB;
        ig_bitpack_unpack(bc, q, cnt, h.widths[b]);
        q += ig_bitpack_size(cnt, h.widths[b]);
        bases[b] = ig_ld64(h.bases + 8 * b);
        rc = dl_block_erase(&bases[b], bc, cnt, kill, b * DB, c->err);
        widths[b] = dl_width(bc, cnt);
    }
    if (!rc) rc = dl_emit(widths, bases, codes, n, out, c->err);
done:
    free(codes);
    free(bases);
    free(widths);
    return rc;
}

static int dl_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    (void)d;
    (void)absent;
    struct dl_hdr h;
    int rc = dl_header(p, len, n, &h, c->err);
    if (rc) return rc;
    const uint8_t *q = h.data;
    uint64_t codes[DB];
    for (size_t b = 0; b < h.nb; b++) {
        size_t cnt = dl_count(n, b), s = b * DB;
        ig_bitpack_unpack(codes, q, cnt, h.widths[b]);
        q += ig_bitpack_size(cnt, h.widths[b]);
        uint64_t or_all = 0;
        bool seen_live = false, seen_zero = false; /* within the current gap */
        for (size_t i = 0; i < cnt; i++) {
            uint64_t cd = codes[i];
            or_all |= cd;
            if (cd >= 2) {
                if (bm_get(erased, s + i))
                    return ig_err(c->err, -EIO,
                                  "delta stream: erased position %zu still holds data", s + i);
                if (!seen_live && cd != 2)
                    return ig_err(c->err, -EIO,
                                  "delta stream: block %zu base is not its first live "
                                  "value",
                                  b);
                seen_live = true;
                seen_zero = false;
                continue;
            }
            /* A marker: 1s only at the start of a gap that has a live value before
             * it; a trailing gap holds only 0s (checked below). */
            if (cd == 1 && (!seen_live || seen_zero))
                return ig_err(c->err, -EIO, "delta stream: non-canonical marker at %zu", s + i);
            if (cd == 0) seen_zero = true;
        }
        /* Trailing gap: markers after the last live slot must all be 0. */
        for (size_t i = cnt; i-- > 0 && codes[i] < 2;)
            if (codes[i] != 0)
                return ig_err(c->err, -EIO, "delta stream: non-canonical marker at %zu", s + i);
        if (!seen_live && ig_ld64(h.bases + 8 * b) != 0)
            return ig_err(c->err, -EIO, "delta stream: block %zu has no live value but a base", b);
        if (ig_bit_width(or_all) != h.widths[b])
            return ig_err(c->err, -EIO, "delta stream: block %zu width is not minimal", b);
    }
    *used = 1 + 9 * h.nb + h.total;
    return 0;
}

const struct int_scheme enc_delta_int = {
    .id = IG_ENC_DELTA,
    .name = "delta",
    .composite = false,
    .estimate = dl_estimate,
    .encode = dl_encode,
    .decode = dl_decode,
    .get = dl_get,
    .erase = dl_erase,
    .check = dl_check,
};
