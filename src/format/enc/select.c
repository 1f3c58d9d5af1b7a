/* select.c - the cascade selector: which scheme encodes a stream.
 *
 * Encoding (IG_ENC_AUTO): one pass over the values collects statistics
 * (stats.c), and the distinct count is taken (census.c) only as far as dict
 * could still win. Every leaf scheme's size follows exactly from them; rle and
 * dict get an estimate from the same numbers, decimal from the values. The
 * smallest candidate is encoded; a composite that comes out larger than the
 * best leaf is discarded for that leaf. Plain is always a candidate, so auto
 * never does worse than plain. Nested streams run the same selection over
 * their own values with what is left of the depth budget and without the
 * schemes already on the chain (BtrBlocks' rule: never the same scheme twice
 * in one cascade). Bytes streams choose between a dictionary and plain bytes
 * (or are forced to huffman). */
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "enc_internal.h"

/* The most distinct values with which dict could still be chosen: its
 * estimate grows with their number, and it is chosen only below every other
 * candidate's (`rival`: the smallest of plain's, the other leaves' and rle's,
 * none of which depends on the count). Counting stops past it, so a page of
 * values that are nearly all different stops early (a bitmap proves it), and
 * the choice is the one an exact count would make. 0 when dict cannot win. */
static size_t dict_limit(const struct int_stats *st, const struct ig_int_desc *d,
                         const struct enc_ectx *c, size_t rival)
{
    const struct int_scheme *dict = enc_int_scheme(IG_ENC_DICT);
    struct int_stats t = *st;
    size_t lo = 0, hi = st->n < ENC_DISTINCT_CAP ? st->n : ENC_DISTINCT_CAP;
    while (lo < hi) { /* the largest k in [lo, hi] whose estimate is below the rival's */
        size_t mid = lo + (hi - lo + 1) / 2;
        t.distinct = mid;
        if (dict->estimate(&t, d, c) < rival)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* enc_count_distinct's answer, taken as a census into the workspace when
 * there is one (the same answer: the count up to `limit`, then over). */
static size_t distinct(const struct enc_ectx *c, const uint64_t *v, size_t n, size_t limit)
{
    if (!c->census || ig_census_take(c->census, v, n, limit)) return enc_count_distinct(v, n, limit);
    return c->census->over ? ENC_DISTINCT_CAP + 1 : c->census->k;
}

void enc_ectx_from_dctx(const struct enc_dctx *dc, struct enc_ectx *ec)
{
    /* Every level of a chain is a different scheme, so the chain's length is the
     * number of schemes on it; the default budget applies from the top. */
    int level = __builtin_popcount(dc->used);
    memset(ec, 0, sizeof *ec);
    ec->allowed = ENC_INT_ALL;
    ec->used = dc->used;
    ec->fsst = dc->fsst; /* a dictionary rebuilt may code its entries against the table again */
    ec->depth_left = ENC_DEFAULT_DEPTH - level + 1 > 1 ? ENC_DEFAULT_DEPTH - level + 1 : 1;
    ec->err = dc->err;
}

static int run_encode(const struct int_scheme *s, const uint64_t *v, size_t n,
                      const struct ig_int_desc *d, const struct int_stats *st,
                      const struct enc_ectx *c, struct ig_buf *out)
{
    struct enc_ectx sc = *c;
    sc.used |= ENC_BIT(s->id);
    size_t at = out->len;
    int rc = s->encode(v, n, d, st, &sc, out);
    if (rc) out->len = at;
    return rc;
}

static int int_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d, struct enc_ectx *c,
                      struct ig_buf *out);

int enc_int_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d, struct enc_ectx *c,
                   struct ig_buf *out)
{
    /* a stream that may be decimal keeps its scaled lanes from estimate to encode */
    bool decimal = (c->decimal_ok || (c->strict && (c->allowed & ENC_BIT(IG_ENC_DECIMAL)))) &&
                   !c->decimal_memo;
    struct enc_decimal_memo memo = {0};
    if (decimal) c->decimal_memo = &memo;
    int rc = int_encode(v, n, d, c, out);
    if (decimal) {
        c->decimal_memo = NULL;
        free(memo.m);
    }
    return rc;
}

static int int_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d, struct enc_ectx *c,
                      struct ig_buf *out)
{
    unsigned cand = c->allowed & ~c->used & ENC_INT_ALL;
    if (c->depth_left < 2) cand &= ~ENC_COMPOSITE;
    if (c->no_drop) cand &= ~ENC_BIT(IG_ENC_RLE);
    if (c->strict && !cand) {
        unsigned want = c->allowed & ENC_INT_ALL;
        const char *name = want ? ig_enc_name((enum ig_enc)__builtin_ctz(want)) : "?";
        return ig_err(c->err, -EINVAL, "encoding %s needs a cascade depth of at least 2", name);
    }
    if (c->strict) {
        const struct int_scheme *s = enc_int_scheme((unsigned)__builtin_ctz(cand));
        if (s->holds_any) return run_encode(s, v, n, d, NULL, c, out);
    }
    struct int_stats st;
    enc_int_stats(v, n, d, c->zero_marks, &st);

    if (c->strict) {
        if (cand & ENC_BIT(IG_ENC_DICT)) st.distinct = distinct(c, v, n, ENC_DISTINCT_CAP);
        const struct int_scheme *s = enc_int_scheme((unsigned)__builtin_ctz(cand));
        if (s->estimate(&st, d, c) == SIZE_MAX)
            return ig_err(c->err, -EINVAL, "encoding %s cannot represent these values%s", s->name,
                          s->id == IG_ENC_FOR     ? " (their range is the full 64 bits)"
                          : s->id == IG_ENC_DELTA ? " (a step of 2^63 between neighbours)"
                                                  : "");
        return run_encode(s, v, n, d, &st, c, out);
    }

    /* every estimate but dict's first: dict needs the distinct count, and is
     * counted only as far as it could still beat the smallest of them */
    size_t est[IG_ENC_COUNT];
    const struct int_scheme *plain = enc_int_scheme(IG_ENC_PLAIN);
    size_t plain_size = plain->estimate(&st, d, c), rival = plain_size;
    for (unsigned id = 1; id < IG_ENC_COUNT; id++) {
        if (!(cand & ENC_BIT(id)) || id == IG_ENC_DICT) continue;
        /* decimal, alp and expo are weighed from the lanes themselves, where the
         * writer offers them */
        const struct int_scheme *s = enc_int_scheme(id);
        bool offered = id == IG_ENC_ALP ? c->alp_ok : id == IG_ENC_EXPO ? c->expo_ok : c->decimal_ok;
        /* one value all along (zeros, padding): a run or a width of 0 bits
         * stores it in a few bytes, which no sampling of the values beats */
        if (st.runs <= 1) offered = false;
        est[id] = !s->estimate_values ? s->estimate(&st, d, c)
                  : offered           ? s->estimate_values(v, n, d, c)
                                      : SIZE_MAX;
        if (est[id] < rival) rival = est[id];
    }
    if (cand & ENC_BIT(IG_ENC_DICT)) {
        st.distinct = distinct(c, v, n, dict_limit(&st, d, c, rival));
        est[IG_ENC_DICT] = enc_int_scheme(IG_ENC_DICT)->estimate(&st, d, c);
    }

    const struct int_scheme *leaf = plain, *comp = NULL;
    size_t leaf_size = plain_size, comp_size = SIZE_MAX;
    for (unsigned id = 1; id < IG_ENC_COUNT; id++) {
        if (!(cand & ENC_BIT(id))) continue;
        const struct int_scheme *s = enc_int_scheme(id);
        size_t e = est[id];
        if (s->composite) {
            if (e < comp_size) comp_size = e, comp = s;
        } else if (e < leaf_size) {
            leaf_size = e, leaf = s;
        }
    }
    if (comp && comp_size < leaf_size) {
        size_t at = out->len;
        int rc = run_encode(comp, v, n, d, &st, c, out);
        if (rc == -ENOMEM) return rc;
        if (!rc && out->len - at <= leaf_size) return 0;
        out->len = at; /* the estimate was optimistic: the leaf wins */
    }
    return run_encode(leaf, v, n, d, &st, c, out);
}

size_t enc_int_leaf_estimate(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                             const struct enc_ectx *c)
{
    struct int_stats st;
    enc_int_stats(v, n, d, false, &st);
    size_t best = SIZE_MAX;
    for (unsigned id = 1; id < IG_ENC_COUNT; id++) {
        const struct int_scheme *s = enc_int_scheme(id);
        if (!s || s->composite) continue;
        size_t e = s->estimate(&st, d, c);
        if (e < best) best = e;
    }
    return best;
}

int enc_int_encode_child(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                         const struct enc_ectx *parent, unsigned exclude, unsigned flags,
                         struct ig_buf *out)
{
    struct enc_ectx c = *parent;
    c.census = NULL; /* the census is of the parent's stream */
    c.decimal_ok = false; /* and so are its float lanes */
    c.alp_ok = false;
    c.expo_ok = false;
    c.decimal_memo = NULL;
    c.allowed = ENC_INT_ALL & ~exclude;
    c.depth_left = parent->depth_left > 1 ? parent->depth_left - 1 : 1;
    c.no_drop = parent->no_drop || (flags & ENC_CHILD_NO_DROP) != 0;
    c.zero_marks = (flags & ENC_CHILD_ZERO_MARKS) != 0;
    c.strict = false;
    /* Reserve room for the longest length prefix, encode in place, then close
     * the gap: saves a temporary buffer per nested stream. */
    size_t at = out->len;
    if (!ig_buf_extend(out, IG_VARINT_MAX)) return enc_nomem(parent->err);
    int rc = enc_int_encode(v, n, d, &c, out);
    if (rc) {
        out->len = at;
        return rc;
    }
    size_t sl = out->len - at - IG_VARINT_MAX;
    uint8_t pre[IG_VARINT_MAX];
    size_t k = ig_varint_put(pre, sl);
    memmove(out->data + at + k, out->data + at + IG_VARINT_MAX, sl);
    memcpy(out->data + at, pre, k);
    out->len = at + k + sl;
    return 0;
}

int enc_int_encode_child_forced(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                                const struct enc_ectx *parent, enum ig_enc scheme,
                                struct ig_buf *out)
{
    struct enc_ectx c = *parent;
    c.census = NULL;
    c.decimal_ok = false;
    c.alp_ok = false;
    c.expo_ok = false;
    c.decimal_memo = NULL;
    c.allowed = ENC_BIT(scheme);
    c.depth_left = parent->depth_left > 1 ? parent->depth_left - 1 : 1;
    c.no_drop = false;
    c.zero_marks = false;
    c.strict = true;
    struct ig_buf tmp = IG_BUF_INIT;
    int rc = enc_int_encode(v, n, d, &c, &tmp);
    if (!rc && enc_put_sub(out, tmp.data, tmp.len)) rc = enc_nomem(parent->err);
    ig_buf_free(&tmp);
    return rc;
}


/* Distinct items (capped), runs and the distinct bytes, for the dict estimate. */
struct bytes_stats {
    size_t distinct, runs;
    uint64_t total, distinct_bytes;
};

static int bytes_stats(const uint64_t *offs, const uint8_t *data, size_t n, struct bytes_stats *st)
{
    memset(st, 0, sizeof *st);
    st->total = offs[n] - offs[0];
    if (n == 0) return 0;
    struct ig_u64map m;
    size_t cap = n < ENC_DISTINCT_CAP + 1 ? n : ENC_DISTINCT_CAP + 1;
    if (ig_u64map_init(&m, cap)) return -ENOMEM;
    uint64_t prev_h = 0;
    size_t mask = m.cap - 1;
    for (size_t i = 0; i < n; i++) {
        size_t l = (size_t)(offs[i + 1] - offs[i]);
        uint64_t h = ig_hash(data + offs[i], l);
        /* Equal hashes stand for equal items here: an estimate only. */
        if (i == 0 || h != prev_h) st->runs++;
        prev_h = h;
        if (st->distinct > ENC_DISTINCT_CAP) continue;
        size_t s = (size_t)((h * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
        while (m.vals[s] && m.keys[s] != h)
            s = (s + 1) & mask;
        if (!m.vals[s]) {
            m.keys[s] = h;
            m.vals[s] = 1;
            st->distinct++;
            st->distinct_bytes += l;
        }
    }
    ig_u64map_free(&m);
    return 0;
}

/* bytes_stats from the items' identities (ig_enc_opts.item_ids): a census of
 * them counts the distinct items (up to the cap) and numbers them, the runs
 * are where the identity changes, and first[e] is entry e's first item. The
 * numbers bytes_stats would give (its hashes stand for equal items), without
 * hashing a byte. -ENOMEM, or 0 with *cen NULL when no census was taken. */
static int bytes_stats_ids(const uint64_t *offs, size_t n, const uint32_t *ids, size_t cap,
                           struct ig_census *cen, struct bytes_stats *st, size_t **first)
{
    memset(st, 0, sizeof *st);
    st->total = offs[n] - offs[0];
    *first = NULL;
    uint64_t *lanes = malloc((n ? n : 1) * sizeof *lanes);
    if (!lanes) return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        lanes[i] = ids[i];
        st->runs += i == 0 || ids[i] != ids[i - 1];
    }
    int rc = ig_census_take(cen, lanes, n, cap);
    if (!rc && cen->over) {
        st->distinct = ENC_DISTINCT_CAP + 1;
    } else if (!rc) {
        st->distinct = cen->k;
        *first = malloc((cen->k ? cen->k : 1) * sizeof **first);
        if (!*first) rc = -ENOMEM;
        for (size_t i = 0, next = 1; !rc && i < n; i++)
            if (cen->codes[i] == next) { /* codes are numbered in order of first appearance */
                (*first)[next - 1] = i;
                st->distinct_bytes += offs[i + 1] - offs[i];
                next++;
            }
    }
    free(lanes);
    cen->lanes = NULL; /* the lanes are gone: nobody may take the census for theirs */
    return rc;
}

/* The bytes stream's scheme chosen per c and the stream appended: huffman
 * when forced, a dictionary when its estimate (from the items' statistics,
 * or a census of their identities) beats plain bytes and its encode does,
 * else plain. c comes from the entry point (codec.c). */
static int bytes_encode_auto(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                             struct ig_buf *out);

int enc_bytes_encode(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                     struct ig_buf *out)
{
    int rc;
    c->used = 0;
    size_t at = out->len;
    if (c->strict && (c->allowed & (ENC_BIT(IG_ENC_HUFF) | ENC_BIT(IG_ENC_FSST)))) {
        unsigned id = c->allowed & ENC_BIT(IG_ENC_HUFF) ? IG_ENC_HUFF : IG_ENC_FSST;
        c->used = ENC_BIT(id);
        rc = enc_bytes_scheme(id)->encode(offs, data, n, c, out);
        if (rc) out->len = at;
        return rc;
    }
    rc = bytes_encode_auto(offs, data, n, c, out);
    if (rc || !c->fsst || !(c->allowed & ENC_BIT(IG_ENC_FSST))) return rc;
    /* the chunk's symbol table, where the items coded against it take less */
    struct ig_buf f = IG_BUF_INIT;
    unsigned was = c->used;
    c->used = ENC_BIT(IG_ENC_FSST);
    rc = enc_fsst_bytes.encode(offs, data, n, c, &f);
    if (!rc && f.len < out->len - at) {
        out->len = at;
        if (ig_buf_append(out, f.data, f.len)) rc = enc_nomem(c->err);
    } else {
        c->used = was;
    }
    ig_buf_free(&f);
    return rc;
}

/* The bytes stream's scheme among a dictionary and plain bytes (in the
 * lengths form where the writer allows it). */
static int bytes_encode_auto(const uint64_t *offs, const uint8_t *data, size_t n, struct enc_ectx *c,
                             struct ig_buf *out)
{
    int rc;
    size_t at = out->len;
    bool want_dict = (c->allowed & ENC_BIT(IG_ENC_DICT)) && c->depth_left >= 2;
    if (c->strict && (c->allowed & ENC_BIT(IG_ENC_DICT)) && !want_dict)
        return ig_err(c->err, -EINVAL, "encoding dict needs a cascade depth of at least 2");
    bool lengths = c->plain_lengths_ok;
    size_t plain_size = enc_plain_bytes_size(n, offs[n] - offs[0]);
    if (lengths) plain_size = enc_plain_lengths_size(n, offs[n] - offs[0], enc_longest_item(offs, n));
    struct ig_census own = {0}, *cen = NULL;
    size_t *first = NULL; /* with a census of identities: each entry's first item */
    struct bytes_stats st;
    if (want_dict && c->item_ids) { /* a forced dict takes every distinct item */
        cen = c->census ? c->census : &own;
        if (bytes_stats_ids(offs, n, c->item_ids, c->strict ? n : ENC_DISTINCT_CAP, cen, &st, &first)) {
            if (cen == &own) ig_census_free(&own);
            free(first);
            return enc_nomem(c->err);
        }
    }
    if (want_dict && !c->strict) {
        if (!c->item_ids && bytes_stats(offs, data, n, &st)) return enc_nomem(c->err);
        size_t k = st.distinct;
        want_dict = k <= ENC_DISTINCT_CAP && k < n;
        if (want_dict) {
            size_t codes = 2 + ig_bitpack_size(n, ig_bit_width(k));
            size_t rle = 8 + ig_bitpack_size(st.runs, ig_bit_width(k)) + 2 * st.runs;
            if (c->depth_left >= 3 && rle < codes) codes = rle;
            size_t est = 8 + enc_plain_bytes_size(k, st.distinct_bytes) + codes;
            want_dict = est < plain_size;
        }
    }
    if (want_dict) {
        c->used = ENC_BIT(IG_ENC_DICT);
        c->item_census = cen; /* with first: the dict encodes from the census */
        c->item_first = first;
        rc = enc_bytes_scheme(IG_ENC_DICT)->encode(offs, data, n, c, out);
        c->item_census = NULL;
        c->item_first = NULL;
        if (rc == -ENOMEM || c->strict || (!rc && out->len - at <= plain_size)) {
            if (rc) out->len = at;
            if (cen == &own) ig_census_free(&own);
            free(first);
            return rc;
        }
        out->len = at;
        c->used = 0;
    }
    if (cen == &own) ig_census_free(&own);
    free(first);
    c->used = ENC_BIT(IG_ENC_PLAIN);
    rc = enc_plain_bytes_encode_as(offs, data, n, lengths, c, out);
    if (rc) out->len = at;
    return rc;
}
