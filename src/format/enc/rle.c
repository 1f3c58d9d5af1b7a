/* rle.c - the run-length int scheme: run values and run lengths as two nested
 * int streams.
 *
 * Layout: [4] [r: varint] [varint len][values: r lanes] [varint len][lengths: r lanes]
 *   Run j repeats values[j] lengths[j] + 1 times (stored minus one, so a run of
 *   one costs 0 bits when every run has length 1). The nested streams pick their
 *   own scheme (never rle again; lengths only plain, bitpack or varint, see
 *   RLE_LENGTHS_EXCLUDE). The runs cover the stored elements only: with
 *   an `absent` bitmap the stream holds n - |absent| elements, placed in order at
 *   the positions not in absent. The total must match exactly.
 *   get(i) decodes the run lengths (O(r)) and fetches one run value.
 *
 * Erase drops the element (Bullion's RLE + deletion vector): its run shrinks, an
 *   empty run disappears and equal neighbours merge, and the runs are re-encoded
 *   (nested schemes chosen afresh), so the result depends on the live values
 *   only. The caller adds the killed positions to the page's absent set
 *   (ig_ints_erase_drops() says so). A merged run can need a wider length than
 *   the stream had; if the result does not fit, erase returns -ENOSPC and the
 *   caller re-encodes the page with the erased slots zero. It does not keep
 *   equal neighbours apart, nor the old nested schemes, to fit: both depend on
 *   the erased values (a run boundary where one stood says it differed from
 *   its neighbours).
 * Check: every erased position is absent (dropped) and the run total equals
 *   n - |absent|; nested streams pass their own (empty) check.
 */
#include <stdlib.h>
#include <string.h>

#include "enc_internal.h"

static const struct ig_int_desc rle_len_desc = {8, false};

/* Run lengths only ever shrink on erase (when runs are not merged), and only
 * plain, bitpack and varint never grow when values shrink; for (the minimum can
 * drop), delta and dict can. So lengths use those three. */
#define RLE_LENGTHS_EXCLUDE                                                                        \
    (ENC_INT_ALL & ~(ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_BITPACK) | ENC_BIT(IG_ENC_VARINT)))

static size_t rle_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                           const struct enc_ectx *c)
{
    (void)c;
    size_t r = st->runs;
    if (st->n == 0) return 4;
    /* Values: the best of plain / bitpack / for over the column's statistics (the
     * run values are a subset, so this is an upper bound for those schemes). */
    size_t vals = 2 + r * (st->fits_width ? d->width : 8);
    size_t bp = 2 + ig_bitpack_size(r, ig_bit_width(st->zor));
    if (bp < vals) vals = bp;
    if (st->hi - st->lo != UINT64_MAX) {
        size_t fo = 10 + ig_bitpack_size(r, ig_bit_width(st->hi - st->lo + 1));
        if (fo < vals) vals = fo;
    }
    size_t lens = 2 + ig_bitpack_size(r, ig_bit_width(st->max_run - 1));
    return 1 + ig_varint_size(r) + ig_varint_size(vals) + vals + ig_varint_size(lens) + lens;
}

/* Append the stream for runs (values, lengths - 1), the nested schemes chosen. */
static int rle_emit(const uint64_t *vals, const uint64_t *lens, size_t r,
                    const struct ig_int_desc *d, const struct enc_ectx *c, struct ig_buf *out)
{
    if (ig_buf_append_byte(out, IG_ENC_RLE) || ig_varint_append(out, r)) return enc_nomem(c->err);
    uint64_t maxl = 0;
    for (size_t j = 0; j < r; j++)
        if (lens[j] > maxl) maxl = lens[j];
    struct ig_int_desc ld = {enc_byte_width(maxl), false};
    int rc = enc_int_encode_child(vals, r, d, c, 0, ENC_CHILD_NO_DROP, out);
    if (!rc) rc = enc_int_encode_child(lens, r, &ld, c, RLE_LENGTHS_EXCLUDE, ENC_CHILD_NO_DROP, out);
    return rc;
}

static int rle_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                      const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    size_t cap = st ? st->runs : n;
    uint64_t *vals = malloc((cap ? cap : 1) * sizeof *vals);
    uint64_t *lens = malloc((cap ? cap : 1) * sizeof *lens);
    int rc;
    if (!vals || !lens) {
        rc = enc_nomem(c->err);
        goto done;
    }
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (r && vals[r - 1] == v[i]) {
            lens[r - 1]++;
        } else {
            vals[r] = v[i];
            lens[r++] = 0;
        }
    }
    rc = rle_emit(vals, lens, r, d, c, out);
done:
    free(vals);
    free(lens);
    return rc;
}

struct rle_view {
    size_t r;
    const uint8_t *vs, *ls;
    size_t vlen, llen, used;
};

static int rle_parse(const uint8_t *p, size_t len, size_t m, struct rle_view *v,
                     struct ig_error *err)
{
    size_t pos = 1;
    uint64_t r;
    int rc = enc_field(p, len, &pos, &r, "rle", "run count", err);
    if (rc) return rc;
    if (r > m)
        return ig_err(err, -EIO, "rle stream: %llu runs for %zu stored values",
                      (unsigned long long)r, m);
    v->r = (size_t)r;
    rc = enc_sub(p, len, &pos, &v->vs, &v->vlen, "rle", "run values", err);
    if (!rc) rc = enc_sub(p, len, &pos, &v->ls, &v->llen, "rle", "run lengths", err);
    v->used = pos;
    return rc;
}

/* Decode the run lengths (stored minus one) and check they cover exactly m. */
static int rle_lengths(const struct rle_view *v, size_t m, uint64_t *lens, struct enc_dctx *c)
{
    size_t used;
    int rc = enc_int_decode(v->ls, v->llen, v->r, &rle_len_desc, NULL, lens, &used, c);
    if (rc) return rc;
    size_t total = 0;
    for (size_t j = 0; j < v->r; j++) {
        if (lens[j] >= m - total)
            return ig_err(c->err, -EIO, "rle stream: runs cover more than %zu values", m);
        total += (size_t)lens[j] + 1;
    }
    if (total != m)
        return ig_err(c->err, -EIO, "rle stream: runs cover %zu values, expected %zu", total, m);
    return 0;
}

/* Decode the whole stream into runs; *vals and *lens are malloc'd (r entries). */
static int rle_runs(const uint8_t *p, size_t len, size_t m, const struct ig_int_desc *d,
                    struct rle_view *v, uint64_t **vals, uint64_t **lens, struct enc_dctx *c)
{
    *vals = *lens = NULL;
    int rc = rle_parse(p, len, m, v, c->err);
    if (rc) return rc;
    *vals = malloc((v->r ? v->r : 1) * sizeof **vals);
    *lens = malloc((v->r ? v->r : 1) * sizeof **lens);
    if (!*vals || !*lens) return enc_nomem(c->err);
    size_t used;
    rc = enc_int_decode(v->vs, v->vlen, v->r, d, NULL, *vals, &used, c);
    if (!rc) rc = rle_lengths(v, m, *lens, c);
    return rc;
}

static int rle_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    size_t m = n - bm_count(absent, n);
    struct rle_view v;
    uint64_t *vals, *lens;
    int rc = rle_runs(p, len, m, d, &v, &vals, &lens, c);
    if (!rc) {
        size_t i = 0;
        for (size_t j = 0; j < v.r; j++) {
            for (uint64_t k = 0; k <= lens[j]; k++) {
                while (bm_get(absent, i))
                    out[i++] = 0;
                out[i++] = vals[j];
            }
        }
        while (i < n)
            out[i++] = 0; /* trailing absent positions */
        *used = v.used;
    }
    free(vals);
    free(lens);
    return rc;
}

static int rle_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    if (bm_get(absent, i)) {
        *out = 0;
        return 0;
    }
    size_t m = n - bm_count(absent, n);
    size_t rank = i - bm_count(absent, i);
    struct rle_view v;
    int rc = rle_parse(p, len, m, &v, c->err);
    if (rc) return rc;
    uint64_t *lens = malloc((v.r ? v.r : 1) * sizeof *lens);
    if (!lens) return enc_nomem(c->err);
    rc = rle_lengths(&v, m, lens, c);
    size_t j = 0, pos = 0;
    if (!rc) {
        while (pos + lens[j] < rank) /* runs cover m > rank elements: j stays < r */
            pos += (size_t)lens[j++] + 1;
        rc = enc_int_get(v.vs, v.vlen, v.r, d, NULL, j, out, c);
    }
    free(lens);
    return rc;
}

/* Runs after dropping the killed elements: survivors per run, empty runs
 * removed, equal neighbours joined. vals/lens are rewritten. */
static size_t rle_drop(uint64_t *vals, uint64_t *lens, size_t r0, const uint8_t *absent,
                       const uint8_t *kill)
{
    size_t i = 0, r = 0;
    for (size_t j = 0; j < r0; j++) {
        uint64_t left = 0;
        for (uint64_t k = 0; k <= lens[j]; k++) {
            while (bm_get(absent, i))
                i++;
            left += !bm_get(kill, i);
            i++;
        }
        if (!left) continue;
        if (r && vals[r - 1] == vals[j]) {
            lens[r - 1] += left;
        } else {
            vals[r] = vals[j];
            lens[r++] = left - 1;
        }
    }
    return r;
}

static int rle_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                     struct ig_buf *out)
{
    if (!may_drop)
        return ig_err(c->err, -ENOSPC, "rle stream: cannot drop elements inside this stream");
    size_t m = n - bm_count(absent, n);
    struct rle_view v;
    uint64_t *vals, *lens;
    int rc = rle_runs(p, len, m, d, &v, &vals, &lens, c);
    if (rc) goto done;
    struct enc_ectx ec;
    enc_ectx_from_dctx(c, &ec);
    size_t at = out->len;
    /* merged runs, nested schemes chosen afresh: the live values' stream alone */
    size_t r = rle_drop(vals, lens, v.r, absent, kill);
    rc = rle_emit(vals, lens, r, d, &ec, out);
    if (!rc && out->len - at > len) {
        out->len = at;
        rc = ig_err(c->err, -ENOSPC, "rle stream: erasing would grow the stream");
    }
done:
    free(vals);
    free(lens);
    return rc;
}

static int rle_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                     const uint8_t *absent, const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    for (size_t i = 0; erased && i < n; i++)
        if (bm_get(erased, i) && !bm_get(absent, i))
            return ig_err(c->err, -EIO, "rle stream: erased position %zu is still stored", i);
    size_t m = n - bm_count(absent, n);
    struct rle_view v;
    uint64_t *vals, *lens;
    int rc = rle_runs(p, len, m, d, &v, &vals, &lens, c);
    if (!rc) rc = enc_int_check(v.vs, v.vlen, v.r, d, NULL, NULL, c);
    if (!rc) rc = enc_int_check(v.ls, v.llen, v.r, &rle_len_desc, NULL, NULL, c);
    if (!rc) *used = v.used;
    free(vals);
    free(lens);
    return rc;
}

const struct int_scheme enc_rle_int = {
    .id = IG_ENC_RLE,
    .name = "rle",
    .composite = true,
    .estimate = rle_estimate,
    .encode = rle_encode,
    .decode = rle_decode,
    .get = rle_get,
    .erase = rle_erase,
    .check = rle_check,
};
