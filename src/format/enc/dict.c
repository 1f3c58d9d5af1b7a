/* dict.c - the dictionary scheme, for int and bytes streams.
 *
 * Layout: [5] [k: varint] [varint len][dictionary: k entries] [varint len][codes]
 *   Entry 0 is the reserved mask entry (int value 0, empty string). It is not
 *   stored: the dictionary stream holds entries 1..k. codes is a nested int
 *   stream of n codes in 0..k (n - |absent| when the codes drop, i.e. are rle).
 *   k <= n.
 *   Int dictionaries are an int stream of the column's desc, sorted in the
 *   column's order; they never use rle (an entry must be erasable in place) nor
 *   delta (see DICT_VALUES_EXCLUDE). Bytes dictionaries are a nested
 *   plain bytes stream (its offset index gives O(1) access), in first-appearance
 *   order. Codes use the desc {byte width of k, unsigned}.
 *   get(i): one code, then one dictionary entry; for bytes a pointer into p.
 *
 * Erase: killed positions get the mask code 0 (rle codes drop the element
 *   instead), and the dictionary is rebuilt from the entries live codes still
 *   reference: unreferenced entries disappear, the rest are renumbered in the
 *   order a fresh encode would use (int: sorted, bytes: first live appearance),
 *   and both nested streams are re-encoded (codes keep their
 *   drop-or-not nature so the caller's absent set stays valid). The result then
 *   depends on the live values only - neither an erased value nor its rank in the
 *   dictionary survives. If that rebuild would not fit in the old bytes (rare:
 *   nested choices changed), erase falls back to Bullion's in-place rule: each
 *   codes slot is erased by its own scheme's rule (plain/bitpack/varint store 0,
 *   for/delta their marker, both decode to the mask code) and every unreferenced
 *   entry is erased in the dictionary stream (int: its scheme's rule, bytes: its
 *   bytes removed). -ENOSPC only if even that cannot fit (rle codes).
 * Check: erased positions hold code 0 (or were dropped), the codes stream passes
 *   its own check, and every entry no live code references passes the
 *   dictionary stream's check as erased.
 */
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "enc_internal.h"

/* The dictionary of an int dict is never rle (entries must stay erasable in
 * place) nor delta: dropping entries from a sorted dictionary widens the gaps
 * delta stores, so the canonical rebuild on erase could stop fitting. Under
 * plain/bitpack/for/varint a subset of the values never takes more room. */
#define DICT_VALUES_EXCLUDE (ENC_BIT(IG_ENC_RLE) | ENC_BIT(IG_ENC_DELTA))

static struct ig_int_desc codes_desc(uint64_t k)
{
    return (struct ig_int_desc){enc_byte_width(k), false};
}

struct dict_view {
    uint64_t k;
    const uint8_t *ds, *cs; /* dictionary stream, codes stream */
    size_t dlen, clen, used;
};

static int dict_parse(const uint8_t *p, size_t len, size_t n, struct dict_view *v,
                      struct ig_error *err)
{
    size_t pos = 1;
    int rc = enc_field(p, len, &pos, &v->k, "dict", "entry count", err);
    if (rc) return rc;
    if (v->k > n)
        return ig_err(err, -EIO, "dict stream: %llu entries for %zu values",
                      (unsigned long long)v->k, n);
    rc = enc_sub(p, len, &pos, &v->ds, &v->dlen, "dict", "dictionary", err);
    if (!rc) rc = enc_sub(p, len, &pos, &v->cs, &v->clen, "dict", "codes", err);
    v->used = pos;
    return rc;
}

/* All n codes (0 at absent positions), each checked <= k. */
static int dict_codes(const struct dict_view *v, size_t n, const uint8_t *absent, uint64_t *codes,
                      struct enc_dctx *c)
{
    struct ig_int_desc cd = codes_desc(v->k);
    size_t used;
    int rc = enc_int_decode(v->cs, v->clen, n, &cd, absent, codes, &used, c);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (codes[i] > v->k)
            return ig_err(c->err, -EIO, "dict stream: code %llu at %zu exceeds %llu entries",
                          (unsigned long long)codes[i], i, (unsigned long long)v->k);
    return 0;
}

static int dict_code(const struct dict_view *v, size_t n, const uint8_t *absent, size_t i,
                     uint64_t *code, struct enc_dctx *c)
{
    struct ig_int_desc cd = codes_desc(v->k);
    int rc = enc_int_get(v->cs, v->clen, n, &cd, absent, i, code, c);
    if (!rc && *code > v->k)
        rc = ig_err(c->err, -EIO, "dict stream: code %llu at %zu exceeds %llu entries",
                    (unsigned long long)*code, i, (unsigned long long)v->k);
    return rc;
}

/* Entries (1..k, as bit e-1 of a k-bit map) that no code references. Codes are
 * as decoded: 0 at dropped (absent) positions and at erased ones, so this is
 * "no live position uses the entry" without consulting absent, which a
 * non-dropping codes stream ignores. */
static uint8_t *dict_unreferenced(const uint64_t *codes, size_t n, uint64_t k)
{
    uint8_t *ref = calloc(bm_bytes((size_t)k) + 1, 1);
    if (!ref) return NULL;
    for (size_t i = 0; i < n; i++)
        if (codes[i]) bm_set(ref, (size_t)codes[i] - 1);
    for (size_t b = 0; b < bm_bytes((size_t)k); b++)
        ref[b] = (uint8_t)~ref[b];
    if (k % 8) ref[k / 8] &= (uint8_t)((1u << (k % 8)) - 1);
    return ref;
}

/* Erase `kill` from the codes: new codes stream into codes_out, and the map of
 * entries that are now unreferenced (caller frees). */
static int dict_erase_codes(const struct dict_view *v, size_t n, const uint8_t *absent,
                            const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                            struct ig_buf *codes_out, uint8_t **unref)
{
    *unref = NULL;
    struct ig_int_desc cd = codes_desc(v->k);
    int rc = enc_int_erase(v->cs, v->clen, n, &cd, absent, kill, may_drop, c, codes_out);
    if (rc) return rc;
    /* Dropped codes leave their positions absent from now on. */
    bool drops = enc_int_drops(codes_out->data, codes_out->len);
    uint8_t *now_absent = calloc(bm_bytes(n) + 1, 1);
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    if (!now_absent || !codes) {
        rc = enc_nomem(c->err);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (bm_get(absent, i) || (drops && bm_get(kill, i))) bm_set(now_absent, i);
    struct dict_view nv = *v;
    nv.cs = codes_out->data;
    nv.clen = codes_out->len;
    rc = dict_codes(&nv, n, now_absent, codes, c);
    if (!rc) {
        *unref = dict_unreferenced(codes, n, v->k);
        if (!*unref) rc = enc_nomem(c->err);
    }
done:
    free(now_absent);
    free(codes);
    return rc;
}

static int dict_emit(uint64_t k, const struct ig_buf *dict, const struct ig_buf *codes,
                     struct ig_buf *out, struct ig_error *err)
{
    if (ig_buf_append_byte(out, IG_ENC_DICT) || ig_varint_append(out, k) ||
        enc_put_sub(out, dict->data, dict->len) || enc_put_sub(out, codes->data, codes->len))
        return enc_nomem(err);
    return 0;
}

/* Check shared by both kinds: codes of erased positions, and the map of entries
 * no live code references (caller frees), for the dictionary check. */
static int dict_check_codes(const struct dict_view *v, size_t n, const uint8_t *absent,
                            const uint8_t *erased, struct enc_dctx *c, uint8_t **unref)
{
    *unref = NULL;
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    if (!codes) return enc_nomem(c->err);
    int rc = dict_codes(v, n, absent, codes, c);
    for (size_t i = 0; !rc && erased && i < n; i++)
        if (codes[i] && bm_get(erased, i) && !bm_get(absent, i))
            rc = ig_err(c->err, -EIO, "dict stream: erased position %zu still has code %llu", i,
                        (unsigned long long)codes[i]);
    struct ig_int_desc cd = codes_desc(v->k);
    if (!rc) rc = enc_int_check(v->cs, v->clen, n, &cd, absent, erased, c);
    if (!rc) {
        *unref = dict_unreferenced(codes, n, v->k);
        if (!*unref) rc = enc_nomem(c->err);
    }
    free(codes);
    return rc;
}

enum codes_mode {
    CODES_AUTO, /* fresh encode: any scheme the context allows */
    CODES_DROP, /* the codes dropped before: rle over the stored positions only */
    CODES_KEEP, /* the codes did not drop: any scheme but rle */
};

/* Append varint(len) + the codes stream. codes[] is scratch (DROP compacts it). */
static int dict_put_codes(uint64_t *codes, size_t n, uint64_t k, const uint8_t *absent,
                          enum codes_mode mode, const struct enc_ectx *c, struct ig_buf *out)
{
    struct ig_int_desc cd = codes_desc(k);
    unsigned f = ENC_CHILD_ZERO_MARKS;
    if (mode == CODES_AUTO)
        return enc_int_encode_child(codes, n, &cd, c, 0, f | (c->no_drop ? ENC_CHILD_NO_DROP : 0),
                                    out);
    if (mode == CODES_KEEP)
        return enc_int_encode_child(codes, n, &cd, c, ENC_BIT(IG_ENC_RLE), f | ENC_CHILD_NO_DROP,
                                    out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!bm_get(absent, i)) codes[m++] = codes[i];
    return enc_int_encode_child_forced(codes, m, &cd, c, IG_ENC_RLE, out);
}

/* Decode all codes and apply kill: killed codes become 0, and when the codes
 * drop, killed positions join *absent2 (= absent | kill). Caller frees both. */
static int dict_kill_codes(const struct dict_view *v, size_t n, const uint8_t *absent,
                           const uint8_t *kill, bool may_drop, struct enc_dctx *c, uint64_t **codes,
                           uint8_t **absent2, bool *drop)
{
    *codes = malloc((n ? n : 1) * sizeof **codes);
    *absent2 = calloc(bm_bytes(n) + 1, 1);
    if (!*codes || !*absent2) return enc_nomem(c->err);
    *drop = enc_int_drops(v->cs, v->clen);
    if (*drop && !may_drop)
        return ig_err(c->err, -ENOSPC, "dict stream: its codes cannot drop elements here");
    int rc = dict_codes(v, n, absent, *codes, c);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
        if (bm_get(absent, i)) bm_set(*absent2, i);
        if (bm_get(kill, i)) {
            (*codes)[i] = 0;
            if (*drop) bm_set(*absent2, i);
        }
    }
    return 0;
}

/* newid[e] for entries 0..k: 0 unless some code references e. Caller frees. */
static uint64_t *dict_referenced(const uint64_t *codes, size_t n, uint64_t k)
{
    uint64_t *newid = calloc((size_t)k + 1, sizeof *newid);
    if (newid)
        for (size_t i = 0; i < n; i++)
            newid[codes[i]] = 1;
    if (newid) newid[0] = 0;
    return newid;
}

/* ---- int dict ------------------------------------------------------------ */

static size_t dict_estimate(const struct int_stats *st, const struct ig_int_desc *d,
                            const struct enc_ectx *c)
{
    size_t n = st->n, k = st->distinct;
    /* Too many distinct values for auto to consider: possible, never chosen. */
    if (k > ENC_DISTINCT_CAP) return SIZE_MAX - 1;
    unsigned cb = ig_bit_width(k);
    size_t codes = 2 + ig_bitpack_size(n, cb);
    bool rle_ok = c->depth_left >= 3 && !(c->used & ENC_BIT(IG_ENC_RLE)) && !c->no_drop;
    if (rle_ok && n) {
        size_t rc = 8 + ig_bitpack_size(st->runs, cb) +
                    ig_bitpack_size(st->runs, ig_bit_width(st->max_run - 1));
        if (rc < codes) codes = rc;
    }
    size_t vals = 2 + k * (st->fits_width ? d->width : 8);
    size_t bp = 2 + ig_bitpack_size(k, ig_bit_width(st->zor));
    if (bp < vals) vals = bp;
    if (n && st->hi - st->lo != UINT64_MAX) {
        size_t fo = 10 + ig_bitpack_size(k, ig_bit_width(st->hi - st->lo + 1));
        if (fo < vals) vals = fo;
    }
    return 1 + ig_varint_size(k) + ig_varint_size(vals) + vals + ig_varint_size(codes) + codes;
}

/* The dictionary (the census's values, sorted) and the codes (each value's
 * rank in it), from a census of the stream: no hashing here. */
static int dict_encode_census(const struct ig_census *cen, const struct ig_int_desc *d,
                              struct enc_ectx *c, struct ig_buf *out)
{
    size_t n = cen->n, k = cen->k;
    uint64_t *vals = malloc((k ? k : 1) * sizeof *vals);
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    uint32_t *rank = malloc((k ? k : 1) * sizeof *rank);
    int rc = 0;
    if (!vals || !codes || !rank) {
        rc = enc_nomem(c->err);
        goto done;
    }
    if (k) memcpy(vals, cen->vals, k * sizeof *vals);
    if (enc_sort_lanes(vals, k, d->is_signed)) {
        rc = enc_nomem(c->err);
        goto done;
    }
    for (size_t s = 0; s < k; s++)
        rank[enc_census_index(cen, vals[s])] = (uint32_t)s + 1;
    for (size_t i = 0; i < n; i++)
        codes[i] = rank[cen->codes[i] - 1];
    if (ig_buf_append_byte(out, IG_ENC_DICT) || ig_varint_append(out, k)) {
        rc = enc_nomem(c->err);
        goto done;
    }
    rc = enc_int_encode_child(vals, k, d, c, DICT_VALUES_EXCLUDE, ENC_CHILD_NO_DROP, out);
    if (!rc) rc = dict_put_codes(codes, n, k, NULL, CODES_AUTO, c, out);
done:
    free(vals);
    free(codes);
    free(rank);
    return rc;
}

/* From the stream's census when the encoder took one (it weighed dict),
 * else from one taken here (a forced dict: every distinct value). */
static int dict_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                       const struct int_stats *st, struct enc_ectx *c, struct ig_buf *out)
{
    (void)st;
    const struct ig_census *cen = enc_census_of(c, v, n);
    if (cen) return dict_encode_census(cen, d, c, out);
    struct ig_census own = {0};
    int rc = ig_census_take(&own, v, n, n) ? enc_nomem(c->err) : dict_encode_census(&own, d, c, out);
    ig_census_free(&own);
    return rc;
}

static int dict_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                       const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    struct dict_view v;
    int rc = dict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint64_t *vals = malloc(((size_t)v.k + 1) * sizeof *vals);
    if (!vals) return enc_nomem(c->err);
    vals[0] = 0; /* the mask entry */
    size_t u;
    rc = enc_int_decode(v.ds, v.dlen, (size_t)v.k, d, NULL, vals + 1, &u, c);
    if (!rc) rc = dict_codes(&v, n, absent, out, c);
    if (!rc) {
        for (size_t i = 0; i < n; i++)
            out[i] = vals[out[i]];
        *used = v.used;
    }
    free(vals);
    return rc;
}

static int dict_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                    const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    struct dict_view v;
    uint64_t code;
    int rc = dict_parse(p, len, n, &v, c->err);
    if (!rc) rc = dict_code(&v, n, absent, i, &code, c);
    if (rc) return rc;
    if (code == 0) {
        *out = 0;
        return 0;
    }
    return enc_int_get(v.ds, v.dlen, (size_t)v.k, d, NULL, (size_t)code - 1, out, c);
}

/* Canonical rebuild from the live codes (codes: all n, 0 = mask/absent). */
static int dict_rebuild_int(const uint64_t *vals, uint64_t k, uint64_t *codes, size_t n,
                            const uint8_t *absent2, bool drop, const struct ig_int_desc *d,
                            const struct enc_ectx *ec, struct ig_buf *out)
{
    uint64_t *newid = dict_referenced(codes, n, k);
    uint64_t *nv = malloc(((size_t)k + 1) * sizeof *nv);
    int rc = 0;
    if (!newid || !nv) {
        rc = -ENOMEM;
        goto done;
    }
    size_t k2 = 0;
    for (size_t e = 1; e <= k; e++) {
        if (!newid[e]) continue;
        nv[k2] = vals[e];
        newid[e] = ++k2;
    }
    for (size_t i = 0; i < n; i++)
        codes[i] = newid[codes[i]];
    if (ig_buf_append_byte(out, IG_ENC_DICT) || ig_varint_append(out, k2)) rc = -ENOMEM;
    if (!rc) rc = enc_int_encode_child(nv, k2, d, ec, DICT_VALUES_EXCLUDE, ENC_CHILD_NO_DROP, out);
    if (!rc) rc = dict_put_codes(codes, n, k2, absent2, drop ? CODES_DROP : CODES_KEEP, ec, out);
done:
    free(newid);
    free(nv);
    return rc;
}

/* Fallback: Bullion's in-place rule (see the header comment). */
static int dict_scrub_int(const struct dict_view *v, size_t n, const struct ig_int_desc *d,
                          const uint8_t *absent, const uint8_t *kill, bool may_drop,
                          struct enc_dctx *c, struct ig_buf *out)
{
    struct ig_buf codes = IG_BUF_INIT, dict = IG_BUF_INIT;
    uint8_t *unref = NULL;
    int rc = dict_erase_codes(v, n, absent, kill, may_drop, c, &codes, &unref);
    if (!rc) rc = enc_int_erase(v->ds, v->dlen, (size_t)v->k, d, NULL, unref, false, c, &dict);
    if (!rc) rc = dict_emit(v->k, &dict, &codes, out, c->err);
    free(unref);
    ig_buf_free(&codes);
    ig_buf_free(&dict);
    return rc;
}

static int dict_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                      struct ig_buf *out)
{
    struct dict_view v;
    int rc = dict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint64_t *vals = malloc(((size_t)v.k + 1) * sizeof *vals), *codes = NULL;
    uint8_t *absent2 = NULL;
    bool drop = false;
    size_t u, at = out->len;
    if (!vals) return enc_nomem(c->err);
    vals[0] = 0;
    rc = enc_int_decode(v.ds, v.dlen, (size_t)v.k, d, NULL, vals + 1, &u, c);
    if (!rc) rc = dict_kill_codes(&v, n, absent, kill, may_drop, c, &codes, &absent2, &drop);
    if (!rc) {
        struct enc_ectx ec;
        enc_ectx_from_dctx(c, &ec);
        ec.err = NULL; /* a failed rebuild is not an error: the fallback follows */
        rc = dict_rebuild_int(vals, v.k, codes, n, absent2, drop, d, &ec, out);
        if (rc == -ENOMEM) {
            rc = enc_nomem(c->err);
        } else if (rc || out->len - at > len) {
            out->len = at;
            rc = dict_scrub_int(&v, n, d, absent, kill, may_drop, c, out);
        }
    }
    free(vals);
    free(codes);
    free(absent2);
    return rc;
}

static int dict_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                      const uint8_t *absent, const uint8_t *erased, size_t *used,
                      struct enc_dctx *c)
{
    struct dict_view v;
    int rc = dict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint8_t *unref;
    rc = dict_check_codes(&v, n, absent, erased, c, &unref);
    if (!rc) rc = enc_int_check(v.ds, v.dlen, (size_t)v.k, d, NULL, unref, c);
    if (!rc) *used = v.used;
    free(unref);
    return rc;
}

const struct int_scheme enc_dict_int = {
    .id = IG_ENC_DICT,
    .name = "dict",
    .composite = true,
    .estimate = dict_estimate,
    .encode = dict_encode,
    .decode = dict_decode,
    .get = dict_get,
    .erase = dict_erase,
    .check = dict_check,
};

/* ---- bytes dict ---------------------------------------------------------- */

/* dict_parse for a bytes dict: its entries are a plain or fsst bytes stream,
 * as every writer writes them (bdict_entries), read one by one in place or
 * against the chunk's table; any other scheme there is corrupt (a huffman
 * dictionary decoded, but its entries were not in the stream, as get
 * promises its callers). */
static int bdict_parse(const uint8_t *p, size_t len, size_t n, struct dict_view *v,
                       struct ig_error *err)
{
    int rc = dict_parse(p, len, n, v, err);
    if (!rc && (!v->dlen || (v->ds[0] != IG_ENC_PLAIN && v->ds[0] != IG_ENC_FSST)))
        rc = ig_err(err, -EIO, "dict stream: its dictionary is of scheme %d, not plain or fsst",
                    v->dlen ? v->ds[0] : -1);
    return rc;
}

/* The k entries (doffs over data) as a plain bytes stream, or coded against
 * the chunk's symbol table (fsst) where that is smaller: a dictionary's
 * entries are read one by one as plain ones are. */
static int bdict_entries(const uint64_t *doffs, const uint8_t *data, size_t k, struct enc_ectx *c,
                         struct ig_buf *dstream)
{
    int rc = enc_plain_bytes.encode(doffs, data, k, c, dstream);
    if (rc || !c->fsst || !k) return rc;
    struct ig_buf f = IG_BUF_INIT;
    rc = enc_fsst_bytes.encode(doffs, data, k, c, &f);
    if (!rc && f.len < dstream->len) {
        ig_buf_free(dstream);
        *dstream = f;
        return 0;
    }
    ig_buf_free(&f);
    return rc == -EINVAL ? 0 : rc; /* a table that cannot code (none built): plain */
}

/* [5] [k] [sub: the k entries (doffs over ddata) as a plain or fsst bytes stream] [codes] */
static int bdict_emit(const uint64_t *doffs, const struct ig_buf *ddata, size_t k, uint64_t *codes,
                      size_t n, struct enc_ectx *c, struct ig_buf *out)
{
    struct ig_buf dstream = IG_BUF_INIT;
    int rc = bdict_entries(doffs, ddata->data, k, c, &dstream);
    if (!rc && (ig_buf_append_byte(out, IG_ENC_DICT) || ig_varint_append(out, k) ||
                enc_put_sub(out, dstream.data, dstream.len)))
        rc = enc_nomem(c->err);
    if (!rc) rc = dict_put_codes(codes, n, k, NULL, CODES_AUTO, c, out);
    ig_buf_free(&dstream);
    return rc;
}

/* The bytes dict stream from the selector's census of the items' identities
 * (enc_ectx.item_census, ig_enc_opts.item_ids): entry e is item first[e]'s
 * bytes, item i's code cen->codes[i]; the same bytes as bdict_encode's,
 * without hashing the items. */
static int bdict_encode_census(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                               struct ig_buf *out)
{
    const struct ig_census *cen = c->item_census;
    const size_t *first = c->item_first;
    size_t k = cen->k;
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    uint64_t *doffs = malloc((k + 1) * sizeof *doffs);
    struct ig_buf ddata = IG_BUF_INIT;
    int rc = 0;
    if (!codes || !doffs) {
        rc = enc_nomem(c->err);
        goto done;
    }
    /* the entries in order of first appearance, as bdict_encode numbers them */
    doffs[0] = 0;
    for (size_t e = 0; e < k; e++) {
        size_t f = first[e];
        if (ig_buf_append(&ddata, data + offs[f], (size_t)(offs[f + 1] - offs[f]))) {
            rc = enc_nomem(c->err);
            goto done;
        }
        doffs[e + 1] = ddata.len;
    }
    for (size_t i = 0; i < n; i++)
        codes[i] = cen->codes[i];
    rc = bdict_emit(doffs, &ddata, k, codes, n, c, out);
done:
    free(codes);
    free(doffs);
    ig_buf_free(&ddata);
    return rc;
}

static int bdict_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                        struct ig_buf *out)
{
    if (c->item_first) return bdict_encode_census(offs, data, n, c, out);
    struct ig_u64map m; /* keyed by XXH3 of the item; collisions compared bytewise */
    if (ig_u64map_init(&m, n)) return enc_nomem(c->err);
    uint64_t *codes = malloc((n ? n : 1) * sizeof *codes);
    uint64_t *first = malloc((n ? n : 1) * sizeof *first); /* entry -> item index */
    uint64_t *doffs = malloc((n + 1) * sizeof *doffs);
    struct ig_buf ddata = IG_BUF_INIT;
    int rc = 0;
    if (!codes || !first || !doffs) {
        rc = enc_nomem(c->err);
        goto done;
    }
    size_t k = 0, mask = m.cap - 1;
    doffs[0] = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = data + offs[i];
        size_t l = (size_t)(offs[i + 1] - offs[i]);
        uint64_t h = ig_hash(s, l);
        size_t slot = (size_t)((h * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
        for (;; slot = (slot + 1) & mask) {
            if (!m.vals[slot]) {
                m.keys[slot] = h;
                m.vals[slot] = (uint32_t)++k;
                first[k - 1] = i;
                if (ig_buf_append(&ddata, s, l)) {
                    rc = enc_nomem(c->err);
                    goto done;
                }
                doffs[k] = ddata.len;
                break;
            }
            if (m.keys[slot] == h) {
                size_t f = (size_t)first[m.vals[slot] - 1];
                if (offs[f + 1] - offs[f] == l && memcmp(data + offs[f], s, l) == 0) break;
            }
        }
        codes[i] = m.vals[slot];
    }
    rc = bdict_emit(doffs, &ddata, k, codes, n, c, out);
done:
    ig_u64map_free(&m);
    free(codes);
    free(first);
    free(doffs);
    ig_buf_free(&ddata);
    return rc;
}

static int bdict_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                        uint64_t *offs_out, struct ig_buf *data_out, size_t *used,
                        struct enc_dctx *c)
{
    struct dict_view v;
    int rc = bdict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint64_t *doffs = malloc(((size_t)v.k + 1) * sizeof *doffs);
    struct ig_buf ddata = IG_BUF_INIT;
    if (!doffs) return enc_nomem(c->err);
    size_t u;
    rc = enc_bytes_decode(v.ds, v.dlen, (size_t)v.k, NULL, doffs, &ddata, &u, c);
    /* Codes go to offs_out[1..n] first, then become offsets in place. */
    if (!rc) rc = dict_codes(&v, n, absent, offs_out + 1, c);
    if (!rc) {
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t e = offs_out[i + 1];
            total += e ? doffs[e] - doffs[e - 1] : 0;
            if (total > ENC_MAX_DECODED) {
                rc = ig_err(c->err, -EIO, "dict stream: decodes to more than %llu bytes",
                            (unsigned long long)ENC_MAX_DECODED);
                break;
            }
        }
        ig_buf_reset(data_out);
        if (!rc && ig_buf_reserve(data_out, (size_t)total)) rc = enc_nomem(c->err);
        offs_out[0] = 0;
        for (size_t i = 0; !rc && i < n; i++) {
            uint64_t e = offs_out[i + 1];
            if (e && doffs[e] > doffs[e - 1])
                ig_buf_append(data_out, ddata.data + doffs[e - 1], doffs[e] - doffs[e - 1]);
            offs_out[i + 1] = data_out->len;
        }
        if (!rc) *used = v.used;
    }
    free(doffs);
    ig_buf_free(&ddata);
    return rc;
}

static int bdict_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                     const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    struct dict_view v;
    uint64_t code;
    int rc = bdict_parse(p, len, n, &v, c->err);
    if (!rc) rc = dict_code(&v, n, absent, i, &code, c);
    if (rc) return rc;
    if (code == 0) {
        *val = p;
        *vlen = 0;
        return 0;
    }
    return enc_bytes_get(v.ds, v.dlen, (size_t)v.k, NULL, (size_t)code - 1, val, vlen, c);
}

/* Canonical rebuild: entries in order of first live appearance. */
static int dict_rebuild_bytes(const uint64_t *doffs, const uint8_t *ddata, uint64_t k,
                              uint64_t *codes, size_t n, const uint8_t *absent2, bool drop,
                              const struct enc_ectx *ec, struct ig_buf *out)
{
    uint64_t *newid = calloc((size_t)k + 1, sizeof *newid);
    uint64_t *noffs = malloc(((size_t)k + 1) * sizeof *noffs);
    struct ig_buf ndata = IG_BUF_INIT, dstream = IG_BUF_INIT;
    int rc = 0;
    if (!newid || !noffs) {
        rc = -ENOMEM;
        goto done;
    }
    size_t k2 = 0;
    noffs[0] = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t e = codes[i];
        if (e && !newid[e]) {
            newid[e] = ++k2;
            size_t l = (size_t)(doffs[e] - doffs[e - 1]);
            if (l && ig_buf_append(&ndata, ddata + doffs[e - 1], l)) rc = -ENOMEM;
            noffs[k2] = ndata.len;
        }
        codes[i] = newid[e];
    }
    struct enc_ectx pc = *ec;
    if (!rc)
        rc = bdict_entries(noffs, ndata.data ? ndata.data : (const uint8_t *)"", k2, &pc, &dstream);
    if (!rc && (ig_buf_append_byte(out, IG_ENC_DICT) || ig_varint_append(out, k2) ||
                enc_put_sub(out, dstream.data, dstream.len)))
        rc = -ENOMEM;
    if (!rc) rc = dict_put_codes(codes, n, k2, absent2, drop ? CODES_DROP : CODES_KEEP, ec, out);
done:
    free(newid);
    free(noffs);
    ig_buf_free(&ndata);
    ig_buf_free(&dstream);
    return rc;
}

static int dict_scrub_bytes(const struct dict_view *v, size_t n, const uint8_t *absent,
                            const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                            struct ig_buf *out)
{
    struct ig_buf codes = IG_BUF_INIT, dict = IG_BUF_INIT;
    uint8_t *unref = NULL;
    int rc = dict_erase_codes(v, n, absent, kill, may_drop, c, &codes, &unref);
    if (!rc) rc = enc_bytes_erase(v->ds, v->dlen, (size_t)v->k, NULL, unref, false, c, &dict);
    if (!rc) rc = dict_emit(v->k, &dict, &codes, out, c->err);
    free(unref);
    ig_buf_free(&codes);
    ig_buf_free(&dict);
    return rc;
}

static int bdict_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    struct dict_view v;
    int rc = bdict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint64_t *doffs = malloc(((size_t)v.k + 1) * sizeof *doffs), *codes = NULL;
    uint8_t *absent2 = NULL;
    struct ig_buf ddata = IG_BUF_INIT;
    bool drop = false;
    size_t u, at = out->len;
    if (!doffs) return enc_nomem(c->err);
    rc = enc_bytes_decode(v.ds, v.dlen, (size_t)v.k, NULL, doffs, &ddata, &u, c);
    if (!rc) rc = dict_kill_codes(&v, n, absent, kill, may_drop, c, &codes, &absent2, &drop);
    if (!rc) {
        struct enc_ectx ec;
        enc_ectx_from_dctx(c, &ec);
        ec.err = NULL; /* a failed rebuild is not an error: the fallback follows */
        rc = dict_rebuild_bytes(doffs, ddata.data, v.k, codes, n, absent2, drop, &ec, out);
        if (rc == -ENOMEM) {
            rc = enc_nomem(c->err);
        } else if (rc || out->len - at > len) {
            out->len = at;
            rc = dict_scrub_bytes(&v, n, absent, kill, may_drop, c, out);
        }
    }
    free(doffs);
    free(codes);
    free(absent2);
    ig_buf_free(&ddata);
    return rc;
}

static int bdict_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                       const uint8_t *erased, size_t *used, struct enc_dctx *c)
{
    struct dict_view v;
    int rc = bdict_parse(p, len, n, &v, c->err);
    if (rc) return rc;
    uint8_t *unref;
    rc = dict_check_codes(&v, n, absent, erased, c, &unref);
    if (!rc) rc = enc_bytes_check(v.ds, v.dlen, (size_t)v.k, NULL, unref, c);
    if (!rc) *used = v.used;
    free(unref);
    return rc;
}

const struct bytes_scheme enc_dict_bytes = {
    .id = IG_ENC_DICT,
    .name = "dict",
    .encode = bdict_encode,
    .decode = bdict_decode,
    .get = bdict_get,
    .erase = bdict_erase,
    .check = bdict_check,
};
