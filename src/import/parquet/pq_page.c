/* pq_page.c - one column chunk of a Parquet row group (pq_page.h): read with
 * one pread, walked page by page (Thrift page headers; dictionary pages, data
 * pages v1 and v2), each page's levels and values decoded by pq_decode.c into
 * the chunk's levels and defined values. */
#include "pq_page.h"
#include "pq_decode.h"
#include "thrift.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pq_column_init(struct pq_column *c)
{
    memset(c, 0, sizeof *c);
    ig_values_init(&c->vals, IG_T_UINT64);
}

void pq_column_free(struct pq_column *c)
{
    free(c->reps);
    free(c->defs);
    ig_values_free(&c->vals);
    memset(c, 0, sizeof *c);
}

void pq_scratch_free(struct pq_scratch *s)
{
    ig_buf_free(&s->chunk);
    ig_buf_free(&s->page);
    ig_buf_free(&s->tmp);
    ig_values_free(&s->dict);
    free(s->idx);
    memset(s, 0, sizeof *s);
}

struct page_header {
    int32_t type, usize, csize;
    int32_t num_values, num_nulls, num_rows, encoding, def_enc, rep_enc, def_len, rep_len;
    bool is_compressed, have_data, have_dict, have_v2;
};

static void read_data_header(struct ig_tc *c, struct page_header *h, int kind)
{
    int16_t last = 0, id;
    uint8_t t;
    while (ig_tc_field(c, &last, &id, &t)) {
        if (t == IG_TC_STRUCT || t == IG_TC_LIST || t == IG_TC_BINARY || t == IG_TC_MAP || t == IG_TC_SET || t == IG_TC_DOUBLE) {
            ig_tc_skip(c, t);
            continue;
        }
        int32_t val = (int32_t)ig_tc_int(c, t);
        if (kind == PAGE_DATA) {
            if (id == 1) h->num_values = val;
            else if (id == 2) h->encoding = val;
            else if (id == 3) h->def_enc = val;
            else if (id == 4) h->rep_enc = val;
        } else if (kind == PAGE_DICT) {
            if (id == 1) h->num_values = val;
            else if (id == 2) h->encoding = val;
        } else {
            if (id == 1) h->num_values = val;
            else if (id == 2) h->num_nulls = val;
            else if (id == 3) h->num_rows = val;
            else if (id == 4) h->encoding = val;
            else if (id == 5) h->def_len = val;
            else if (id == 6) h->rep_len = val;
            else if (id == 7) h->is_compressed = ig_tc_bool_of(t);
        }
    }
}

static size_t read_page_header(const uint8_t *p, size_t len, struct page_header *h, const char **why)
{
    memset(h, 0, sizeof *h);
    h->type = -1;
    h->is_compressed = true;
    struct ig_tc c;
    ig_tc_init(&c, p, len);
    int16_t last = 0, id;
    uint8_t t;
    while (ig_tc_field(&c, &last, &id, &t)) {
        if (id == 1) h->type = (int32_t)ig_tc_int(&c, t);
        else if (id == 2) h->usize = (int32_t)ig_tc_int(&c, t);
        else if (id == 3) h->csize = (int32_t)ig_tc_int(&c, t);
        else if (id == 5 && t == IG_TC_STRUCT) read_data_header(&c, h, PAGE_DATA), h->have_data = true;
        else if (id == 7 && t == IG_TC_STRUCT) read_data_header(&c, h, PAGE_DICT), h->have_dict = true;
        else if (id == 8 && t == IG_TC_STRUCT) read_data_header(&c, h, PAGE_DATA_V2), h->have_v2 = true;
        else ig_tc_skip(&c, t);
    }
    if (c.bad) {
        *why = c.why;
        return 0;
    }
    return (size_t)(c.p - p);
}

static int grow_levels(struct pq_ctx *x, struct pq_column *out, size_t n)
{
    if (out->reps && out->nlevels + n <= out->lcap) return 0;
    size_t cap = out->lcap ? out->lcap : 4096;
    while (cap < out->nlevels + n) cap *= 2;
    uint8_t *r = realloc(out->reps, cap), *d;
    if (!r) return pq_fail(x, -ENOMEM, "out of memory");
    out->reps = r;
    d = realloc(out->defs, cap);
    if (!d) return pq_fail(x, -ENOMEM, "out of memory");
    out->defs = d;
    out->lcap = cap;
    return 0;
}

/* A data page's levels (v1: each stream with a 4-byte length; v2: lengths in the
 * header, handled by the caller) and how many values are defined. */
static int data_page(struct pq_ctx *x, const struct page_header *h, const uint8_t *lv, size_t lvlen,
                     const uint8_t *vals, size_t vlen, bool v1, struct pq_column *out)
{
    const struct pq_node *leaf = x->leaf;
    size_t n = (size_t)h->num_values;
    int rc = grow_levels(x, out, n);
    if (rc) return rc;
    uint8_t *reps = out->reps + out->nlevels, *defs = out->defs + out->nlevels;
    size_t at = 0;
    for (int pass = 0; pass < 2; pass++) {
        unsigned max = pass == 0 ? leaf->max_rep : leaf->max_def;
        uint8_t *dst = pass == 0 ? reps : defs;
        const char *what = pass == 0 ? "repetition" : "definition";
        if (!max) {
            memset(dst, 0, n);
            /* v2 says how long each stream is, and some writers store one
             * (all zeros) for a level whose maximum is 0: skip it */
            if (!v1) {
                size_t skip = pass == 0 ? (size_t)h->rep_len : (size_t)h->def_len;
                if (skip > lvlen - at) return pq_fail(x, -EIO, "%s levels: bad length", what);
                at += skip;
            }
            continue;
        }
        size_t slen;
        if (v1) {
            int32_t e = pass == 0 ? h->rep_enc : h->def_enc;
            if (e == E_BIT_PACKED) {
                rc = pq_decode_levels_packed(x, lv + at, lvlen - at, max, n, dst, what, &slen);
                if (rc) return rc;
                at += slen;
                continue;
            }
            if (e != E_RLE) return pq_fail(x, -EINVAL, "%s levels in %s encoding are not supported", what, pq_enc_name((unsigned)e));
            if (lvlen - at < 4 || ig_ld32(lv + at) > lvlen - at - 4) return pq_fail(x, -EIO, "%s levels: bad length", what);
            slen = ig_ld32(lv + at);
            at += 4;
        } else {
            slen = pass == 0 ? (size_t)h->rep_len : (size_t)h->def_len;
            if (slen > lvlen - at) return pq_fail(x, -EIO, "%s levels: bad length", what);
        }
        rc = pq_decode_levels(x, lv + at, slen, max, n, dst, what);
        if (rc) return rc;
        at += slen;
    }
    if (v1) vals = lv + at, vlen = lvlen - at;
    size_t defined = 0;
    for (size_t i = 0; i < n; i++) defined += defs[i] == leaf->max_def;
    if (!leaf->max_def) defined = n;
    if (leaf->max_rep && n && reps[0] != 0 && out->nlevels == 0)
        return pq_fail(x, -EIO, "the column's first value continues a list");
    rc = pq_decode_values(x, (unsigned)h->encoding, vals, vlen, defined, &out->vals);
    if (rc) return rc;
    out->nlevels += n;
    return 0;
}

int pq_decode_chunk(const uint8_t *p, size_t len, const struct pq_node *leaf, uint8_t codec,
                    int64_t num_values, const char *where, struct pq_scratch *s,
                    struct pq_column *out, struct ig_error *err)
{
    struct pq_ctx x = {.where = where, .leaf = leaf, .s = s, .err = err};
    out->nlevels = 0;
    ig_values_retype(&out->vals, pq_is_bytes_type(leaf) ? IG_T_BINARY : IG_T_UINT64);
    ig_values_retype(&s->dict, 0); /* type 0: no dictionary page seen yet */
    if (leaf->type == PQ_FLBA && (leaf->type_length <= 0 || leaf->type_length > (1 << 20)))
        return pq_fail(&x, -EIO, "FIXED_LEN_BYTE_ARRAY of length %d", leaf->type_length);
    size_t at = 0;
    int64_t seen = 0;
    int rc = 0;
    while (!rc && seen < num_values) {
        if (at >= len) return pq_fail(&x, -EIO, "the chunk ends after %" PRId64 " of its %" PRId64 " values", seen, num_values);
        struct page_header h;
        const char *why = NULL;
        size_t hl = read_page_header(p + at, len - at, &h, &why);
        if (!hl) return pq_fail(&x, -EIO, "page header is damaged (%s)", why ? why : "bad Thrift");
        if (h.csize < 0 || h.usize < 0 || (size_t)h.csize > len - at - hl)
            return pq_fail(&x, -EIO, "page of %d bytes runs past the chunk", h.csize);
        if ((uint32_t)h.usize > PQ_PAGE_MAX_BYTES)
            return pq_fail(&x, -EINVAL, "page of %d bytes uncompressed: more than ingot accepts (%u)", h.usize, PQ_PAGE_MAX_BYTES);
        const uint8_t *body = p + at + hl;
        size_t blen = (size_t)h.csize;
        at += hl + blen;
        if (h.type == PAGE_DICT) {
            if (!h.have_dict || h.num_values < 0 || (uint32_t)h.num_values > PQ_PAGE_FREE_VALUES)
                return pq_fail(&x, -EIO, "dictionary page header is damaged");
            if (h.encoding != E_PLAIN && h.encoding != E_PLAIN_DICT)
                return pq_fail(&x, -EINVAL, "dictionary in %s encoding is not supported", pq_enc_name((unsigned)h.encoding));
            const uint8_t *pb = NULL;
            rc = pq_decompress(&x, codec, body, blen, (size_t)h.usize, &s->page, &pb);
            ig_values_retype(&s->dict, pq_is_bytes_type(leaf) ? IG_T_BINARY : IG_T_UINT64);
            if (!rc) rc = pq_decode_plain(&x, pb, (size_t)h.usize, (size_t)h.num_values, &s->dict);
        } else if (h.type == PAGE_DATA || h.type == PAGE_DATA_V2) {
            bool v1 = h.type == PAGE_DATA;
            if ((v1 && !h.have_data) || (!v1 && !h.have_v2) || h.num_values < 0)
                return pq_fail(&x, -EIO, "data page header is damaged");
            if ((uint32_t)h.num_values > PQ_PAGE_MAX_VALUES ||
                ((uint32_t)h.num_values > PQ_PAGE_FREE_VALUES && (uint64_t)h.num_values > 8 * (uint64_t)h.usize))
                return pq_fail(&x, -EINVAL,
                               "page of %d values in %d bytes: more than ingot accepts (%u, or 8 a byte up to %u)",
                               h.num_values, h.usize, PQ_PAGE_FREE_VALUES, PQ_PAGE_MAX_VALUES);
            if (h.num_values > num_values - seen)
                return pq_fail(&x, -EIO, "the pages hold more than the chunk's %" PRId64 " values", num_values);
            const uint8_t *pb = NULL;
            if (v1) {
                rc = pq_decompress(&x, codec, body, blen, (size_t)h.usize, &s->page, &pb);
                if (!rc) rc = data_page(&x, &h, pb, (size_t)h.usize, NULL, 0, true, out);
            } else {
                if (h.def_len < 0 || h.rep_len < 0 || (size_t)h.def_len + (size_t)h.rep_len > blen ||
                    (size_t)h.def_len + (size_t)h.rep_len > (size_t)h.usize)
                    return pq_fail(&x, -EIO, "level lengths do not fit the page");
                size_t ll = (size_t)h.def_len + (size_t)h.rep_len;
                /* v2 keeps its levels uncompressed, and may leave the values so too */
                bool packed = h.is_compressed && codec != PQ_UNCOMPRESSED;
                size_t vlen = packed ? (size_t)h.usize - ll : blen - ll;
                rc = pq_decompress(&x, packed ? codec : PQ_UNCOMPRESSED, body + ll, blen - ll, vlen,
                                &s->page, &pb);
                if (!rc) rc = data_page(&x, &h, body, ll, pb, vlen, false, out);
            }
            seen += h.num_values;
        }
        /* index pages and unknown page types carry nothing we import */
        x.page++;
    }
    if (!rc && seen != num_values)
        rc = pq_fail(&x, -EIO, "the pages hold %" PRId64 " values, the footer says %" PRId64, seen, num_values);
    return rc;
}

int pq_read_chunk(int fd, const char *path, const struct pq_meta *m, uint32_t group, uint32_t leaf,
                  struct pq_scratch *s, struct pq_column *out, struct ig_error *err)
{
    const struct pq_chunk *ch = &m->groups[group].chunks[leaf];
    char col[512], where[1200];
    pq_node_path(m, m->leaves[leaf], col, sizeof col);
    snprintf(where, sizeof where, "%s: row group %u, column '%s'", path, group, col);
    s->chunk.len = 0;
    if (ig_buf_reserve(&s->chunk, ch->size + 1)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_pread_full(fd, s->chunk.data, ch->size, ch->start);
    if (rc) return ig_err(err, rc, "%s: read: %s", where, strerror(-rc));
    s->chunk.len = ch->size;
    return pq_decode_chunk(s->chunk.data, ch->size, &m->nodes[m->leaves[leaf]], ch->codec,
                           ch->num_values, where, s, out, err);
}
