/* parquet_view.c - a row group as a Parquet file (see parquet_view.h): the
 * layout, every page placed and sized from the footer alone (a dictionary
 * page and one page of codes for a dictionary-coded chunk), decoding only the
 * few pages whose live entries the footer does not count
 * (parquet_view_int.h). */
#include "parquet_view_int.h"

#include "format/layout.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int load(const struct ig_table *t, struct ig_pqv *pv, const struct pq_leaf *l, uint32_t page,
                struct ig_reader *r, struct ig_values *v, const uint8_t **del, struct ig_error *err)
{
    struct ig_column_ref ref;
    struct ig_pagerec rec;
    int rc = ig_table_column_at(t, l->col, &ref, err);
    if (!rc)
        rc = ig_reader_load(r, &(struct ig_page_at){&t->parts[pv->part], &ref, page, pv->group_first_row}, &rec, v, del, err);
    if (!rc) v->blob_dir = NULL; /* ref's copy dies here: callers set their own */
    return rc;
}

static int count_live_entries(const struct ig_table *t, struct ig_pqv *pv, const struct pq_leaf *l,
                              uint32_t page, struct ig_reader *r, uint32_t *n, struct ig_error *err)
{
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    const uint8_t *del;
    struct pq_entries e = {0};
    int rc = load(t, pv, l, page, r, &v, &del, err);
    if (!rc && pqv_live_entries(l, &v, del, &e)) rc = ig_err(err, -ENOMEM, "out of memory");
    *n = (uint32_t)e.n;
    pqv_entries_free(&e);
    ig_values_free(&v);
    return rc;
}

static int add_page(struct ig_pqv *pv, uint32_t *cap, const struct ig_pqv_page *pg);

/* pg placed at *at with its levels and `values` bytes of values after its header. */
static inline __attribute__((always_inline)) int place_page(struct ig_pqv *pv, uint32_t *cap, uint64_t *at, struct ig_pqv_page *pg, uint64_t values,
                      const struct ig_part *p, struct ig_error *err)
{
    uint64_t body = levels_len(pg->entries, bit_width(pg->max_rep), false) +
                    levels_len(pg->entries, bit_width(pg->max_def), pg->no_nulls) + values;
    if (body > INT32_MAX) return ig_err(err, -EFBIG, "%s: page %u too large for a Parquet page", p->path, pg->page);
    if (!pg->page_end) pg->page_end = pg->page + 1;
    pg->header_len = page_header_len(pg->kind, (uint32_t)body, pg->entries);
    pg->start = *at;
    pg->len = pg->header_len + body;
    *at += pg->len;
    return add_page(pv, cap, pg) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

static int add_page(struct ig_pqv *pv, uint32_t *cap, const struct ig_pqv_page *pg)
{
    if (pv->npages == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        void *p = realloc(pv->pages, c * sizeof *pv->pages);
        if (!p) return -ENOMEM;
        pv->pages = p;
        *cap = c;
    }
    pv->pages[pv->npages++] = *pg;
    return 0;
}

/* A row group's layout while its leaves are placed one after another. */
struct layout {
    const struct ig_table *t;
    const struct ig_part *p;
    uint32_t lg;              /* the group in its part */
    struct ig_grouprec gr;
    struct ig_reader *r;
    struct ig_pqv *out;
    uint32_t cap;             /* room in out->pages */
    uint64_t at;              /* where the next page starts */
    bool rows_known;          /* the first leaf has counted the group's live rows */
};

/* A string leaf's dictionary page, first in its chunk (first: the chunk's
 * first ingot page), holding the cd->count values of cd->bytes its chunk
 * record counts; *dict_at its index, *width the codes' bits. */
static int place_dictionary(struct layout *ly, const struct pq_leaf *l, uint32_t first, uint8_t blen,
                            const struct ig_chunk_dict *cd, uint32_t *dict_at, uint32_t *width,
                            struct ig_error *err)
{
    struct ig_pqv *out = ly->out;
    uint64_t body = 4ull * cd->count + cd->bytes;
    if (body > INT32_MAX)
        return ig_err(err, -EIO, "%s: corrupt footer: chunk (group %u, leaf %u) counts a dictionary of %" PRIu64
                      " bytes", ly->p->path, ly->lg, l->leaf, body);
    struct ig_pqv_page dp = {.page = first, .col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen,
                             .max_rep = l->max_rep, .max_def = l->max_def, .kind = IG_PQV_DICT,
                             .dict = out->npages, .slots = cd->count, .dict_bytes = cd->bytes};
    dp.header_len = page_header_len(IG_PQV_DICT, (uint32_t)body, cd->count);
    dp.start = ly->at;
    dp.len = dp.header_len + body;
    ly->at += dp.len;
    *dict_at = out->npages;
    *width = bit_width(cd->count - 1);
    if (!*width) *width = 1; /* one value: codes of one bit, all 0 */
    return add_page(out, &ly->cap, &dp) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

/* The Parquet entries of ingot page pg of leaf l (live of its rows live) into
 * pq->entries, and the values they hold: from the footer, but for the pages
 * whose live entries it does not count (decoded once here). */
static int page_entries(struct layout *ly, const struct pq_leaf *l, uint32_t pg, const struct ig_pagerec *rec,
                        const struct ig_pagex *px, uint32_t live, struct ig_pqv_page *pq, uint64_t *nvalues,
                        struct ig_error *err)
{
    if (l->blob_list || (l->max_rep && rec->deleted)) {
        int rc = count_live_entries(ly->t, ly->out, l, pg, ly->r, &pq->entries, err);
        if (rc) return rc;
        *nvalues = l->blob_list ? pq->entries : px->live_values;
    } else if (l->dim) { /* D entries a present vector, one an absent one */
        uint64_t present = px->live_values / l->dim;
        uint64_t ingot_entries = l->max_rep > 1 ? rec->entry_count : live; /* in a list: several a row */
        if (px->live_values % l->dim || present > ingot_entries ||
            ingot_entries + present * (l->dim - 1) > UINT32_MAX)
            return ig_err(err, -EIO, "%s: page %u: %u live values for vectors of %u", ly->p->path, pg,
                          px->live_values, l->dim);
        pq->entries = (uint32_t)(ingot_entries + present * (l->dim - 1));
        *nvalues = px->live_values;
    } else {
        pq->entries = l->max_rep ? rec->entry_count : live;
        *nvalues = l->max_rep || l->nested ? px->live_values : live;
    }
    return 0;
}

/* Leaf l's column chunk: its dictionary page and one page of codes when the
 * chunk record counts its distinct strings, else a PLAIN page per ingot page
 * with live rows. */
static int place_chunk(struct layout *ly, const struct pq_leaf *l, struct ig_error *err)
{
    const struct ig_part *p = ly->p;
    struct ig_pqv *out = ly->out;
    uint32_t first = 0, count = 0;
    int rc = ig_part_group_chunk(p, ly->lg, &ly->gr, l->leaf, &first, &count, err);
    uint8_t blen = rc ? 0 : pqv_bound_len(p, ly->lg, l);
    uint32_t rows_before = 0;
    struct ig_chunk_dict cd = {0};
    if (!rc && l->strings) rc = ig_part_chunk_dict(p, ly->lg, l->leaf, &cd, err);
    uint32_t dict_at = UINT32_MAX, width = 0;
    if (!rc && cd.count) /* the dictionary page first; dropped below if no page follows */
        rc = place_dictionary(ly, l, first, blen, &cd, &dict_at, &width, err);
    if (rc) return rc;
    /* A dictionary-coded chunk's codes are one Parquet page over all its
     * ingot pages: DuckDB hands on a dictionary as such only while a
     * vector (2,048 values) lies in one page, and ingot's pages end
     * anywhere (their bytes, not their rows, are what is aimed at). */
    struct ig_pqv_page codes = {.col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen, .max_rep = l->max_rep,
                                .max_def = l->max_def, .no_nulls = true, .kind = IG_PQV_CODES, .dict = dict_at,
                                .code_width = (uint8_t)width};
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_pagerec rec;
        struct ig_pagex px;
        rc = ig_part_page(p, pg, &rec, err);
        if (!rc) rc = ig_part_page_extra(p, pg, &px, err);
        if (!rc) rc = ig_chunk_page_check(p, pg, &rec, l->leaf, rows_before, ly->gr.row_count, err);
        if (rc) break;
        uint32_t live = rec.row_count - rec.deleted;
        rows_before += rec.row_count;
        if (!ly->rows_known) out->rows += live;
        if (!live) continue;
        struct ig_pqv_page pq = {.page = pg, .col = l->col, .sub = l->sub, .phys = l->phys, .bound_len = blen,
                                 .max_rep = l->max_rep, .max_def = l->max_def,
                                 .no_nulls = !l->max_rep && !(rec.flags & IG_PGF_HAS_NULLS)};
        /* a page with levels never sets the flag: a struct member's entries
         * (one a live row) are all defined when as many values are live */
        if (l->nested && !l->max_rep) pq.no_nulls = px.live_values == live;
        uint64_t nvalues = 0;
        rc = page_entries(ly, l, pg, &rec, &px, live, &pq, &nvalues, err);
        if (rc) break;
        if (dict_at != UINT32_MAX) { /* one page of codes for the chunk's pages */
            if (!codes.page_end) codes.page = pg;
            codes.page_end = pg + 1;
            codes.entries += pq.entries;
            codes.slots += (uint32_t)nvalues;
            codes.no_nulls &= pq.no_nulls;
            if (codes.entries < pq.entries || codes.slots < nvalues) {
                rc = ig_err(err, -EFBIG, "%s: row group %u, leaf %u too large for a Parquet page", p->path, ly->lg,
                            l->leaf);
                break;
            }
            continue;
        }
        rc = place_page(out, &ly->cap, &ly->at, &pq, values_room(l, nvalues, rec.text_len), p, err);
    }
    if (!rc && dict_at != UINT32_MAX) {
        if (!codes.page_end) { /* every row of the chunk erased: no dictionary */
            ly->at -= out->pages[dict_at].len;
            out->npages--;
        } else {
            out->pages[dict_at].page = codes.page;
            out->pages[dict_at].page_end = codes.page_end;
            rc = place_page(out, &ly->cap, &ly->at, &codes, codes_len(codes.slots, codes.code_width), p, err);
        }
    }
    return rc;
}

int ig_pqv_layout(const struct ig_table *t, const struct ig_pqv_schema *s, uint32_t group, struct ig_reader *r,
                  struct ig_pqv *out, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t pi, lg;
    if (ig_table_group(t, group, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", group);
    struct layout ly = {.t = t, .p = &t->parts[pi], .lg = lg, .r = r, .out = out, .at = IG_PQV_HEAD};
    int rc = ig_part_group(ly.p, lg, &ly.gr, err);
    if (rc) return rc;
    out->group = group;
    out->part = pi;
    out->part_group = lg;
    out->group_first_row = ly.gr.first_row;
    if (s->nl) { /* a page per leaf at least: a wide table never regrows its list */
        out->pages = malloc(s->nl * sizeof *out->pages);
        if (out->pages) ly.cap = (uint32_t)s->nl;
        else rc = ig_err(err, -ENOMEM, "out of memory");
    }
    for (size_t i = 0; !rc && i < s->nl; i++) {
        rc = place_chunk(&ly, &s->l[i], err);
        ly.rows_known = true;
    }
    out->size = ly.at;
    if (!rc) {
        out->tail_len = pqv_footer_len(out, s) + 8;
        out->size += out->tail_len;
    }
    if (rc) ig_pqv_free(out);
    return rc;
}

void ig_pqv_free(struct ig_pqv *v)
{
    free(v->pages);
    v->pages = NULL;
    v->npages = 0;
}
