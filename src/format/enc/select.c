/* select.c - the cascade selector and the public codec entry points.
 *
 * Encoding (IG_ENC_AUTO): one pass over the values collects statistics (min and
 * max in both orders, OR of the bitpack lanes, run count and longest run, varint
 * bytes, delta block widths, distinct count up to ENC_DISTINCT_CAP). Every leaf
 * scheme's size follows exactly from them; rle and dict get an estimate from the
 * same numbers. The smallest candidate is encoded; a composite that comes out
 * larger than the best leaf is discarded for that leaf. Plain is always a
 * candidate, so auto never does worse than plain. Nested streams run the same
 * selection over their own values with what is left of the depth budget and
 * without the schemes already on the chain (BtrBlocks' rule: never the same
 * scheme twice in one cascade).
 *
 * Decoding dispatches on the first byte and enforces the same chain rule, which
 * also bounds recursion on hostile input.
 *
 * Erasing works on a fresh copy: the scheme writes the erased stream into a
 * buffer and it replaces the original only if it is no longer, so a failed
 * erase (-ENOSPC, -EIO) leaves the page as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "enc_internal.h"
#include "format/layout.h"

/* Largest n the entry points accept: codes and entry indices are 32-bit. */
#define ENC_MAX_N ((size_t)1 << 31)

static const char *const enc_names[IG_ENC_COUNT] = {
    "auto", "plain", "bitpack", "varint", "rle",   "dict",
    "for",  "delta", NULL /* slide */, "split", "huffman", "decimal"};

const char *ig_enc_name(enum ig_enc e)
{
    return (unsigned)e < IG_ENC_COUNT && enc_names[e] ? enc_names[e] : "?";
}

int ig_enc_from_name(const char *name)
{
    for (int e = 0; name && e < IG_ENC_COUNT; e++)
        if (enc_names[e] && strcmp(name, enc_names[e]) == 0) return e;
    return -1;
}

const char *ig_page_enc_name(unsigned e)
{
    return e == IG_PAGE_ENC_SLIDE ? "slide" : ig_enc_name((enum ig_enc)e);
}

int ig_page_enc_from_name(const char *name)
{
    return name && strcmp(name, "slide") == 0 ? IG_PAGE_ENC_SLIDE : ig_enc_from_name(name);
}

int ig_stream_scheme(const uint8_t *p, size_t len)
{
    if (!p || len < 1 || p[0] == IG_ENC_AUTO || p[0] >= IG_ENC_COUNT || !enc_names[p[0]]) return -1;
    return p[0];
}

/* ---- statistics ---------------------------------------------------------- */

/* The statistics loop, one value at a time from i0 on, carrying on from *r
 * (a vector prefix, stats_x8.c, may have done [0, i0)). */
static void stats_scalar(const uint64_t *v, size_t i0, size_t n, bool sg, size_t last_idx, struct enc_stats_run *r)
{
    for (size_t i = i0; i < n; i++) {
        uint64_t x = v[i];
        if (x < r->umin) r->umin = x;
        if (x > r->umax) r->umax = x;
        uint64_t k = enc_order_key(x, sg);
        if (k < r->klo) r->klo = k;
        if (k > r->khi) r->khi = k;
        uint64_t z = sg ? ig_zigzag64(x) : x;
        r->zor |= z;
        if (i == last_idx) r->vlast = r->vbytes;
        r->vbytes += ig_varint_size(z);
        if (i % ENC_DELTA_BLOCK == 0) {
            if (i) r->dbytes += ig_bitpack_size(ENC_DELTA_BLOCK, ig_bit_width(r->bor));
            r->bor = 2; /* the block's first code */
        } else {
            uint64_t dz = ig_zigzag64(x - r->prev);
            if (dz >= UINT64_MAX - 1) r->delta_ok = false;
            r->bor |= dz + 2;
        }
        if (i && x != r->prev) {
            r->runs++;
            if (r->run > r->max_run) r->max_run = r->run;
            r->run = 0;
        }
        r->run++;
        r->prev = x;
    }
}

static void int_stats(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks, bool vector,
                      struct int_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    st->fits_width = true;
    if (n == 0) return;
    const bool sg = d->is_signed;
    uint64_t k0 = enc_order_key(v[0], sg);
    struct enc_stats_run r = {.umin = v[0], .umax = v[0], .klo = k0, .khi = k0, .prev = v[0], .runs = 1,
                              .delta_ok = true};
    const size_t last_idx = ((n - 1) / ENC_VARINT_STRIDE) * ENC_VARINT_STRIDE;
    size_t done = vector ? enc_stats_x8(v, n, sg, last_idx, &r) : 0;
    stats_scalar(v, done, n, sg, last_idx, &r);
    if (r.run > r.max_run) r.max_run = r.run;
    r.dbytes += ig_bitpack_size(n - ((n - 1) / ENC_DELTA_BLOCK) * ENC_DELTA_BLOCK, ig_bit_width(r.bor));
    uint64_t umin = r.umin, umax = r.umax, klo = r.klo, khi = r.khi;
    st->umin = umin;
    st->umax = umax;
    st->lo = enc_order_key(klo, sg);
    st->hi = enc_order_key(khi, sg);
    st->zor = r.zor;
    st->runs = r.runs;
    st->max_run = r.max_run;
    st->varint_bytes = r.vbytes;
    st->varint_last = r.vlast;
    st->delta_bytes = r.delta_ok ? r.dbytes : SIZE_MAX;
    st->fits_width =
        enc_fits(sg ? st->lo : umin, d->width, sg) && enc_fits(sg ? st->hi : umax, d->width, sg);
    if (zero_marks && umin == 0) {
        /* 0 lanes become for/delta markers: their range and steps skip them. */
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            if (!v[i]) continue;
            uint64_t k = enc_order_key(v[i], sg);
            if (!any || k < klo) klo = k;
            if (!any || k > khi) khi = k;
            any = true;
        }
        st->lo = any ? enc_order_key(klo, sg) : 0;
        st->hi = any ? enc_order_key(khi, sg) : 0;
        st->delta_bytes = enc_delta_marked_bytes(v, n);
    }
    st->distinct = SIZE_MAX;
}

void enc_int_stats(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                   struct int_stats *st)
{
    int_stats(v, n, d, zero_marks, true, st);
}

void enc_int_stats_scalar(const uint64_t *v, size_t n, const struct ig_int_desc *d, bool zero_marks,
                          struct int_stats *st)
{
    int_stats(v, n, d, zero_marks, false, st);
}

/* Whether v certainly holds more than `limit` distinct values, by a lower
 * bound: each value sets one bit of a small bitmap by its hash, and the bits
 * set never outnumber the values that set them. Over the limit it is proven
 * without a set of keys (a block of all-different floats ends here at a third
 * of the cost); otherwise the exact count decides. Values that repeat from
 * the start (more than one in 16 of the first 128: rounded or categorical
 * data) give up at once: the pass would run to the end and prove nothing. */
bool enc_surely_over(const uint64_t *v, size_t n, size_t limit)
{
    uint64_t bm[512]; /* up to 32768 bits, ~8 per value counted */
    unsigned log2 = 6;
    while (log2 < 15 && ((size_t)1 << log2) < 8 * limit) log2++;
    memset(bm, 0, ((size_t)1 << log2) / 8);
    size_t set = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = (v[i] * 0x9E3779B97F4A7C15ULL) >> (64 - log2);
        uint64_t bit = 1ull << (h & 63);
        set += !(bm[h >> 6] & bit);
        bm[h >> 6] |= bit;
        if (set > limit) return true;
        if (i == 127 && set < 120) return false;
    }
    return false;
}

size_t enc_count_distinct(const uint64_t *v, size_t n, size_t limit)
{
    if (limit > ENC_DISTINCT_CAP) limit = ENC_DISTINCT_CAP;
    if (n == 0) return 0;
    if (limit == 0) return ENC_DISTINCT_CAP + 1;
    if (n > limit && enc_surely_over(v, n, limit)) return ENC_DISTINCT_CAP + 1;
    struct ig_u64map m;
    size_t cap = n < limit + 1 ? n : limit + 1;
    if (ig_u64map_init(&m, cap)) return SIZE_MAX;
    size_t k = 0;
    uint64_t last = ~v[0];
    for (size_t i = 0; i < n && k <= limit; i++) {
        if (v[i] == last) continue; /* runs: skip the probe */
        last = v[i];
        size_t s = ig_u64map_slot(&m, v[i]);
        if (!m.vals[s]) {
            m.keys[s] = v[i];
            m.vals[s] = 1;
            k++;
        }
    }
    ig_u64map_free(&m);
    return k <= limit ? k : ENC_DISTINCT_CAP + 1;
}

/* The most distinct values with which dict could still be chosen: its
 * estimate grows with their number, and it is chosen only below every other
 * candidate's (`rival`: the smallest of plain's, the other leaves' and rle's,
 * none of which depends on the count). Counting stops past it, so a page of
 * values that are nearly all different stops early (a bitmap proves it), and
 * the choice is the one an exact count would make. 0 when dict cannot win. */
static size_t dict_limit(const struct int_stats *st, const struct ig_int_desc *d,
                         const struct enc_ectx *c, size_t rival)
{
    struct int_stats t = *st;
    size_t lo = 0, hi = st->n < ENC_DISTINCT_CAP ? st->n : ENC_DISTINCT_CAP;
    while (lo < hi) { /* the largest k in [lo, hi] whose estimate is below the rival's */
        size_t mid = lo + (hi - lo + 1) / 2;
        t.distinct = mid;
        if (enc_dict_int.estimate(&t, d, c) < rival)
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

/* ---- dispatch ------------------------------------------------------------ */

static const struct int_scheme *const int_schemes[IG_ENC_COUNT] = {
    NULL,         &enc_plain_int, &enc_bitpack_int, &enc_varint_int,
    &enc_rle_int, &enc_dict_int,  &enc_for_int,     &enc_delta_int,
    NULL /* slide: a page-level scheme */, &enc_split_int, NULL /* huffman: bytes only */,
    &enc_decimal_int,
};

const struct int_scheme *enc_int_scheme(unsigned id)
{
    return id < IG_ENC_COUNT ? int_schemes[id] : NULL;
}

static const struct bytes_scheme *bytes_scheme(unsigned id)
{
    return id == IG_ENC_PLAIN  ? &enc_plain_bytes
           : id == IG_ENC_DICT ? &enc_dict_bytes
           : id == IG_ENC_HUFF ? &enc_huff_bytes
                               : NULL;
}

/* Find the scheme of a nested stream and push it on the chain. */
static const struct int_scheme *int_enter(const uint8_t *p, size_t len, struct enc_dctx *c,
                                          unsigned *saved, int *rc)
{
    const struct int_scheme *s = len ? enc_int_scheme(p[0]) : NULL;
    if (!len) {
        *rc = ig_err(c->err, -EIO, "empty int stream");
    } else if (!s) {
        *rc = ig_err(c->err, -EIO, "unknown int stream scheme %u", p[0]);
    } else if (c->used & ENC_BIT(s->id)) {
        *rc = ig_err(c->err, -EIO, "%s stream nested inside itself", s->name);
        s = NULL;
    }
    *saved = c->used;
    if (s) c->used |= ENC_BIT(s->id);
    return s;
}

static const struct bytes_scheme *bytes_enter(const uint8_t *p, size_t len, struct enc_dctx *c,
                                              unsigned *saved, int *rc)
{
    const struct bytes_scheme *s = len ? bytes_scheme(p[0]) : NULL;
    if (!len) {
        *rc = ig_err(c->err, -EIO, "empty bytes stream");
    } else if (!s) {
        *rc = ig_err(c->err, -EIO, "unknown bytes stream scheme %u", p[0]);
    } else if (c->used & ENC_BIT(s->id)) {
        *rc = ig_err(c->err, -EIO, "%s stream nested inside itself", s->name);
        s = NULL;
    }
    *saved = c->used;
    if (s) c->used |= ENC_BIT(s->id);
    return s;
}

int enc_int_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, size_t *used, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->decode(p, len, n, d, absent, out, used, c);
    c->used = saved;
    return rc;
}

int enc_int_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->get(p, len, n, d, absent, i, out, c);
    c->used = saved;
    return rc;
}

int enc_int_erase(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, bool may_drop, struct enc_dctx *c,
                  struct ig_buf *out)
{
    unsigned saved;
    int rc = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->erase(p, len, n, d, absent, kill, may_drop, c, out);
    c->used = saved;
    return rc;
}

int enc_int_check(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *erased, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    size_t used = 0;
    const struct int_scheme *s = int_enter(p, len, c, &saved, &rc);
    if (s) rc = s->check(p, len, n, d, absent, erased, &used, c);
    if (s && !rc) rc = enc_check_slack(p, used, len, s->name, c->err);
    c->used = saved;
    return rc;
}

int enc_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                     uint64_t *offs_out, struct ig_buf *data_out, size_t *used, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->decode(p, len, n, absent, offs_out, data_out, used, c);
    c->used = saved;
    return rc;
}

int enc_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                  const uint8_t **val, size_t *vlen, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->get(p, len, n, absent, i, val, vlen, c);
    c->used = saved;
    return rc;
}

int enc_bytes_erase(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *kill, bool may_drop, struct enc_dctx *c, struct ig_buf *out)
{
    unsigned saved;
    int rc = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->erase(p, len, n, absent, kill, may_drop, c, out);
    c->used = saved;
    return rc;
}

int enc_bytes_check(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    const uint8_t *erased, struct enc_dctx *c)
{
    unsigned saved;
    int rc = 0;
    size_t used = 0;
    const struct bytes_scheme *s = bytes_enter(p, len, c, &saved, &rc);
    if (s) rc = s->check(p, len, n, absent, erased, &used, c);
    if (s && !rc) rc = enc_check_slack(p, used, len, s->name, c->err);
    c->used = saved;
    return rc;
}

/* rle at the top, or a dict whose codes are rle: erasing drops elements. */
static bool stream_drops(const uint8_t *p, size_t len)
{
    unsigned used = 0;
    while (len >= 1 && p[0] < IG_ENC_COUNT && !(used & ENC_BIT(p[0]))) {
        used |= ENC_BIT(p[0]);
        if (p[0] == IG_ENC_RLE) return true;
        if (p[0] != IG_ENC_DICT) return false;
        size_t pos = 1, l;
        uint64_t k;
        const uint8_t *sub;
        if (enc_field(p, len, &pos, &k, "dict", "entry count", NULL) ||
            enc_sub(p, len, &pos, &sub, &l, "dict", "dictionary", NULL) ||
            enc_sub(p, len, &pos, &sub, &l, "dict", "codes", NULL))
            return false;
        p = sub;
        len = l;
    }
    return false;
}

bool enc_int_drops(const uint8_t *p, size_t len)
{
    return stream_drops(p, len);
}

/* ---- selection ----------------------------------------------------------- */

void enc_ectx_from_dctx(const struct enc_dctx *dc, struct enc_ectx *ec)
{
    /* Every level of a chain is a different scheme, so the chain's length is the
     * number of schemes on it; the default budget applies from the top. */
    int level = __builtin_popcount(dc->used);
    memset(ec, 0, sizeof *ec);
    ec->allowed = ENC_INT_ALL;
    ec->used = dc->used;
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
    size_t plain_size = enc_plain_int.estimate(&st, d, c), rival = plain_size;
    for (unsigned id = 1; id < IG_ENC_COUNT; id++) {
        if (!(cand & ENC_BIT(id)) || id == IG_ENC_DICT) continue;
        /* decimal is weighed from the lanes themselves, where the writer offers it */
        est[id] = id != IG_ENC_DECIMAL ? int_schemes[id]->estimate(&st, d, c)
                  : c->decimal_ok     ? enc_decimal_estimate(v, n, d, c)
                                      : SIZE_MAX;
        if (est[id] < rival) rival = est[id];
    }
    if (cand & ENC_BIT(IG_ENC_DICT)) {
        st.distinct = distinct(c, v, n, dict_limit(&st, d, c, rival));
        est[IG_ENC_DICT] = enc_dict_int.estimate(&st, d, c);
    }

    const struct int_scheme *leaf = &enc_plain_int, *comp = NULL;
    size_t leaf_size = plain_size, comp_size = SIZE_MAX;
    for (unsigned id = 1; id < IG_ENC_COUNT; id++) {
        if (!(cand & ENC_BIT(id))) continue;
        const struct int_scheme *s = int_schemes[id];
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
        const struct int_scheme *s = int_schemes[id];
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

/* ---- public API: int streams --------------------------------------------- */

static int check_desc(const struct ig_int_desc *d, size_t n, struct ig_error *err)
{
    if (!d || (d->width != 1 && d->width != 2 && d->width != 4 && d->width != 8))
        return ig_err(err, -EINVAL, "int stream: lane width must be 1, 2, 4 or 8 bytes");
    if (n > ENC_MAX_N)
        return ig_err(err, -EINVAL, "int stream: %zu values exceed the limit of %zu", n, ENC_MAX_N);
    return 0;
}

static int setup_ectx(const struct ig_enc_opts *o, unsigned all, struct enc_ectx *c,
                      struct ig_error *err)
{
    memset(c, 0, sizeof *c);
    c->err = err;
    enum ig_enc forced = o ? o->forced : IG_ENC_AUTO;
    int depth = o && o->max_depth ? o->max_depth : ENC_DEFAULT_DEPTH;
    if ((unsigned)forced >= IG_ENC_COUNT || (forced != IG_ENC_AUTO && !(all & ENC_BIT(forced))))
        return ig_err(err, -EINVAL, "encoding %s is not available for this stream",
                      ig_enc_name(forced));
    if (depth < 1) return ig_err(err, -EINVAL, "cascade depth %d must be at least 1", depth);
    if (depth > IG_ENC_COUNT) depth = IG_ENC_COUNT; /* a chain cannot be longer anyway */
    c->strict = forced != IG_ENC_AUTO;
    c->allowed = c->strict ? ENC_BIT(forced) : (o && o->allowed ? o->allowed & all : all);
    c->depth_left = depth;
    c->no_drop = o && o->no_drop;
    c->census = o ? o->census : NULL;
    if (c->census) c->census->lanes = NULL; /* nothing taken yet */
    c->decimal_ok = o && o->decimal;
    c->item_ids = o ? o->item_ids : NULL;
    return 0;
}

int ig_ints_encode(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                   const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (!v && n) return ig_err(err, -EINVAL, "int stream: no values");
    struct enc_ectx c;
    rc = setup_ectx(o, ENC_INT_ALL, &c, err);
    if (rc) return rc;
    size_t at = out->len;
    rc = enc_int_encode(v, n, d, &c, out);
    if (rc) out->len = at;
    return rc;
}

int ig_ints_decode(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                   const uint8_t *absent, uint64_t *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    struct enc_dctx c = {0, err};
    size_t used;
    return enc_int_decode(p, len, n, d, absent, out, &used, &c);
}

int ig_ints_get(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                const uint8_t *absent, size_t i, uint64_t *out, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (i >= n) return ig_err(err, -EINVAL, "int stream: position %zu out of %zu", i, n);
    struct enc_dctx c = {0, err};
    return enc_int_get(p, len, n, d, absent, i, out, &c);
}

/* Shared by the int and bytes erase entry points: copy back, zero the rest. */
static int erase_commit(uint8_t *p, size_t len, struct ig_buf *fresh, size_t *new_len,
                        struct ig_error *err)
{
    if (fresh->len > len)
        return ig_err(err, -ENOSPC, "%s stream: erasing would grow it from %zu to %zu bytes",
                      ig_enc_name((enum ig_enc)p[0]), len, fresh->len);
    memcpy(p, fresh->data, fresh->len);
    memset(p + fresh->len, 0, len - fresh->len);
    *new_len = fresh->len;
    return 0;
}

int ig_ints_erase(uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                  const uint8_t *absent, const uint8_t *kill, size_t *new_len, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    if (bm_intersects(absent, kill, n))
        return ig_err(err, -EINVAL, "erase: a killed position is already absent");
    *new_len = len;
    if (!bm_any(kill, n)) return 0;
    struct enc_dctx c = {0, err};
    struct ig_buf fresh = IG_BUF_INIT;
    rc = enc_int_erase(p, len, n, d, absent, kill, true, &c, &fresh);
    if (!rc) rc = erase_commit(p, len, &fresh, new_len, err);
    ig_buf_free(&fresh);
    return rc;
}

/* Encode, then let the chosen scheme mark the gone positions its own way (an
 * explicit marker for FOR/delta, a mask code for dict): a zero alone is not
 * every scheme's erased form. If the scheme cannot, fall back to schemes whose
 * erased form a zero is. */
int ig_ints_encode_erased(const uint64_t *v, size_t n, const struct ig_int_desc *d,
                          const uint8_t *gone, struct ig_buf *out, struct ig_error *err)
{
    struct ig_enc_opts o = {.no_drop = true};
    size_t at = out->len, new_len = 0;
    int rc = ig_ints_encode(v, n, d, &o, out, err);
    if (!rc) rc = ig_ints_erase(out->data + at, out->len - at, n, d, NULL, gone, &new_len, err);
    if (!rc) {
        out->len = at + new_len;
        return 0;
    }
    if (rc != -ENOSPC) return rc;
    out->len = at;
    o.allowed = ENC_BIT(IG_ENC_PLAIN) | ENC_BIT(IG_ENC_BITPACK) | ENC_BIT(IG_ENC_VARINT);
    return ig_ints_encode(v, n, d, &o, out, err);
}

int ig_bytes_encode_erased(const uint64_t *offs, const uint8_t *data, size_t n, const uint8_t *gone,
                           struct ig_buf *out, struct ig_error *err)
{
    struct ig_enc_opts o = {.no_drop = true};
    size_t at = out->len, new_len = 0;
    int rc = ig_bytes_encode(offs, data, n, &o, out, err);
    if (!rc) rc = ig_bytes_erase(out->data + at, out->len - at, n, NULL, gone, &new_len, err);
    if (!rc) {
        out->len = at + new_len;
        return 0;
    }
    if (rc != -ENOSPC) return rc;
    out->len = at;
    o.allowed = ENC_BIT(IG_ENC_PLAIN);
    return ig_bytes_encode(offs, data, n, &o, out, err);
}

bool ig_ints_erase_drops(const uint8_t *p, size_t len)
{
    return stream_drops(p, len);
}

int ig_ints_check_erased(const uint8_t *p, size_t len, size_t n, const struct ig_int_desc *d,
                         const uint8_t *absent, const uint8_t *erased, struct ig_error *err)
{
    int rc = check_desc(d, n, err);
    if (rc) return rc;
    struct enc_dctx c = {0, err};
    return enc_int_check(p, len, n, d, absent, erased, &c);
}

/* ---- public API: bytes streams ------------------------------------------- */

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

int ig_bytes_encode(const uint64_t *offs, const uint8_t *data, size_t n,
                    const struct ig_enc_opts *o, struct ig_buf *out, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (!offs) return ig_err(err, -EINVAL, "bytes stream: no offsets");
    for (size_t i = 0; i < n; i++)
        if (offs[i + 1] < offs[i])
            return ig_err(err, -EINVAL, "bytes stream: offset %zu decreases", i + 1);
    if (offs[n] != offs[0] && !data) return ig_err(err, -EINVAL, "bytes stream: no data");
    struct enc_ectx c;
    int rc = setup_ectx(o, ENC_BYTES_ALL, &c, err);
    if (rc) return rc;
    if (!data) {
        /* Every item is empty: encode zero offsets over a real (unread) byte so
         * no pointer arithmetic touches NULL. */
        static const uint8_t no_bytes[1];
        uint64_t *zero = calloc(n + 1, sizeof *zero);
        if (!zero) return enc_nomem(err);
        rc = ig_bytes_encode(zero, no_bytes, n, o, out, err);
        free(zero);
        return rc;
    }
    c.used = 0;
    size_t at = out->len;
    if (c.strict && (c.allowed & ENC_BIT(IG_ENC_HUFF))) {
        c.used = ENC_BIT(IG_ENC_HUFF);
        rc = enc_huff_bytes.encode(offs, data, n, &c, out);
        if (rc) out->len = at;
        return rc;
    }
    bool want_dict = (c.allowed & ENC_BIT(IG_ENC_DICT)) && c.depth_left >= 2;
    if (c.strict && (c.allowed & ENC_BIT(IG_ENC_DICT)) && !want_dict)
        return ig_err(err, -EINVAL, "encoding dict needs a cascade depth of at least 2");
    size_t plain_size = enc_plain_bytes_size(n, offs[n] - offs[0]);
    struct ig_census own = {0}, *cen = NULL;
    size_t *first = NULL; /* with a census of identities: each entry's first item */
    struct bytes_stats st;
    if (want_dict && c.item_ids) { /* a forced dict takes every distinct item */
        cen = c.census ? c.census : &own;
        if (bytes_stats_ids(offs, n, c.item_ids, c.strict ? n : ENC_DISTINCT_CAP, cen, &st, &first)) {
            if (cen == &own) ig_census_free(&own);
            free(first);
            return enc_nomem(err);
        }
    }
    if (want_dict && !c.strict) {
        if (!c.item_ids && bytes_stats(offs, data, n, &st)) return enc_nomem(err);
        size_t k = st.distinct;
        want_dict = k <= ENC_DISTINCT_CAP && k < n;
        if (want_dict) {
            size_t codes = 2 + ig_bitpack_size(n, ig_bit_width(k));
            size_t rle = 8 + ig_bitpack_size(st.runs, ig_bit_width(k)) + 2 * st.runs;
            if (c.depth_left >= 3 && rle < codes) codes = rle;
            size_t est = 8 + enc_plain_bytes_size(k, st.distinct_bytes) + codes;
            want_dict = est < plain_size;
        }
    }
    if (want_dict) {
        c.used = ENC_BIT(IG_ENC_DICT);
        rc = first ? enc_bytes_dict_encode_census(offs, data, n, cen, first, &c, out)
                   : enc_dict_bytes.encode(offs, data, n, &c, out);
        if (rc == -ENOMEM || c.strict || (!rc && out->len - at <= plain_size)) {
            if (rc) out->len = at;
            if (cen == &own) ig_census_free(&own);
            free(first);
            return rc;
        }
        out->len = at;
        c.used = 0;
    }
    if (cen == &own) ig_census_free(&own);
    free(first);
    c.used = ENC_BIT(IG_ENC_PLAIN);
    rc = enc_plain_bytes.encode(offs, data, n, &c, out);
    if (rc) out->len = at;
    return rc;
}

int ig_bytes_decode(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                    uint64_t *offs_out, struct ig_buf *data_out, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    struct enc_dctx c = {0, err};
    size_t used;
    return enc_bytes_decode(p, len, n, absent, offs_out, data_out, &used, &c);
}

int ig_bytes_get(const uint8_t *p, size_t len, size_t n, const uint8_t *absent, size_t i,
                 const uint8_t **val, size_t *vlen, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (i >= n) return ig_err(err, -EINVAL, "bytes stream: item %zu out of %zu", i, n);
    struct enc_dctx c = {0, err};
    return enc_bytes_get(p, len, n, absent, i, val, vlen, &c);
}

int ig_bytes_erase(uint8_t *p, size_t len, size_t n, const uint8_t *absent, const uint8_t *kill,
                   size_t *new_len, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    if (bm_intersects(absent, kill, n))
        return ig_err(err, -EINVAL, "erase: a killed position is already absent");
    *new_len = len;
    if (!bm_any(kill, n)) return 0;
    struct enc_dctx c = {0, err};
    struct ig_buf fresh = IG_BUF_INIT;
    int rc = enc_bytes_erase(p, len, n, absent, kill, true, &c, &fresh);
    if (!rc) rc = erase_commit(p, len, &fresh, new_len, err);
    ig_buf_free(&fresh);
    return rc;
}

size_t ig_bytes_huffman_size(const uint64_t *offs, const uint8_t *data, size_t n)
{
    return enc_huff_bytes_size(offs, data, n);
}

bool ig_bytes_erase_drops(const uint8_t *p, size_t len)
{
    return stream_drops(p, len);
}

int ig_bytes_check_erased(const uint8_t *p, size_t len, size_t n, const uint8_t *absent,
                          const uint8_t *erased, struct ig_error *err)
{
    if (n > ENC_MAX_N) return ig_err(err, -EINVAL, "bytes stream: %zu items exceed the limit", n);
    struct enc_dctx c = {0, err};
    return enc_bytes_check(p, len, n, absent, erased, &c);
}
