/* parquet_footer.c - the Parquet view's FileMetaData (parquet_view_int.h):
 * the schema's elements, one row group's column chunks with their pages'
 * totals and statistics (null_count, and min/max where the chunk record
 * bounds a flat numeric leaf).
 *
 * The layout only needs the footer's length (the file's size at stat), and
 * building the footer of a 10,000-column table is half of laying it out: its
 * length is computed here field by field, and the bytes are written when a
 * read reaches them (ig_pqv_tail), which checks the two agree. */
#include "parquet_view_int.h"

#include "format/layout.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* A field of Thrift's compact protocol whose id is within 15 of the previous
 * one (all of the footer's are): one header byte, then the zigzag varint. */
static size_t tl_int(int64_t v) { return 1 + tw_varint_len(((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }
static size_t tl_bin(size_t n) { return tw_varint_len(n) + n; }               /* a list element */
static size_t tl_list(uint32_t n) { return 1 + (n < 15 ? 1 : 1 + tw_varint_len(n)); } /* header + size */

size_t pqv_schema_elements_len(const struct ig_pqv_schema *s)
{
    size_t n = tl_list((uint32_t)s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        const struct pq_elem *e = &s->e[i];
        n += (e->type >= 0 ? tl_int(e->type) : 0) + (i ? tl_int(e->rep) : 0) + 1 + tl_bin(e->name_len) +
             (e->type < 0 ? tl_int(e->nchild) : 0) + (e->conv >= 0 ? tl_int(e->conv) : 0) + 1;
    }
    return n;
}

/* What the footer says of a leaf's column chunk. */
struct chunk_sum {
    uint64_t first;      /* its first page (the dictionary, if it has one) */
    uint64_t data_first; /* its first data page */
    uint64_t values, bytes;
    bool no_nulls, dict;
    uint8_t bound_len;     /* bytes of min_value and of max_value (0: no bounds) */
    uint8_t min[8], max[8]; /* PLAIN-encoded in the leaf's physical type */
};

/* The bytes of a bound of leaf l in the view: the leaf's PLAIN width (4 for
 * INT32 and FLOAT, 8 for INT64 and DOUBLE) when its chunk in group lg of p is
 * bounded (format 9, model/minmax.h), else 0. Read while the layout walks the
 * chunk records (the record's line is then at hand: a 10,000-column layout
 * reading them again for the footer's length cost it 12 %); the values are
 * read only when the footer is written. Unknown flag bits and reserved bytes
 * are verify's to find: here they only mean no bounds. */
uint8_t pqv_bound_len(const struct ig_part *p, uint32_t lg, const struct pq_leaf *l)
{
    if (p->version < IG_FORMAT_CHUNK_STATS || l->nested || l->dim || l->blob_list) return 0;
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) + ((uint64_t)lg * p->num_leaves + l->leaf) * IG_CHK_SIZE;
    if (r[IG_CHK_STATS_FLAGS] != IG_CHKS_BOUNDED) return 0;
    return l->phys == PQ_INT32 || l->phys == PQ_FLOAT ? 4 : l->phys == PQ_INT64 || l->phys == PQ_DOUBLE ? 8 : 0;
}

/* The chunk's bounds as Parquet's statistics min_value/max_value: the low
 * bytes of the lanes (which holds for int8/16 sign-extended and uint8/16/32
 * zero-extended: their converted types give the order). */
static void chunk_bounds(const struct ig_part *p, uint32_t lg, const struct pq_leaf *l, struct chunk_sum *c)
{
    if (!c->bound_len) return;
    const uint8_t *r = ig_part_section(p, IG_SEC_CHUNKS) + ((uint64_t)lg * p->num_leaves + l->leaf) * IG_CHK_SIZE;
    memcpy(c->min, r + IG_CHK_MIN, 8);
    memcpy(c->max, r + IG_CHK_MAX, 8);
}

/* A ColumnChunk as file_metadata writes it. */
static size_t column_chunk_len(const struct ig_pqv_schema *s, const struct pq_leaf *l, const struct chunk_sum *c)
{
    size_t n = tl_int((int64_t)c->first) + 1;                   /* file_offset, meta_data { */
    n += tl_int(l->phys) + tl_list(2) + 2 + c->dict;            /* type, encodings */
    n += tl_list(l->npath);                                     /* path_in_schema */
    for (uint32_t j = 0; j < l->npath; j++) n += tl_bin(s->paths[l->path0 + j].n);
    n += tl_int(0) + tl_int((int64_t)c->values) + 2 * tl_int((int64_t)c->bytes) + tl_int((int64_t)c->data_first);
    if (c->dict) n += tl_int((int64_t)c->first);               /* dictionary_page_offset */
    if (c->no_nulls || c->bound_len)                            /* statistics { null_count, max, min } */
        n += 1 + (c->no_nulls ? tl_int(0) : 0) + (c->bound_len ? 2 * (1 + tl_bin(c->bound_len)) : 0) + 1;
    return n + 1 + 1;                                           /* } } */
}

/* Leaf l's column chunk: its pages from *k on (*k moves past them). Inlined:
 * a 10,000-column layout calls it once a leaf. */
static inline __attribute__((always_inline)) void chunk_totals(const struct ig_pqv *pv, const struct pq_leaf *l, uint32_t *k, struct chunk_sum *c)
{
    uint32_t i = *k;
    c->first = i < pv->npages ? pv->pages[i].start : pv->size - pv->tail_len;
    c->dict = i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub &&
              pv->pages[i].kind == IG_PQV_DICT;
    c->data_first = c->dict ? pv->pages[i + 1].start : c->first; /* a dictionary is never alone */
    c->bound_len = i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub ? pv->pages[i].bound_len : 0;
    c->values = c->bytes = 0;
    c->no_nulls = true; /* every page proves it: null_count 0 lets engines skip validity */
    for (; i < pv->npages && pv->pages[i].col == l->col && pv->pages[i].sub == l->sub; i++) {
        c->values += pv->pages[i].entries;
        c->bytes += pv->pages[i].len;
        if (pv->pages[i].kind != IG_PQV_DICT) c->no_nulls &= pv->pages[i].no_nulls;
    }
    *k = i;
}

/* The FileMetaData of the laid-out file (of a group of part p). */
static int file_metadata(const struct ig_part *p, const struct ig_pqv *pv, const struct ig_pqv_schema *s,
                         struct ig_buf *out)
{
    struct tw w;
    tw_init(&w, out);
    tw_i32(&w, 1, 1);
    tw_list(&w, 2, TW_STRUCT, (uint32_t)s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        const struct pq_elem *e = &s->e[i];
        tw_elem_struct(&w);
        if (e->type >= 0) tw_i32(&w, 1, e->type);
        if (i) tw_i32(&w, 3, e->rep);
        tw_binary(&w, 4, e->name, e->name_len);
        if (e->type < 0) tw_i32(&w, 5, e->nchild);
        if (e->conv >= 0) tw_i32(&w, 6, e->conv);
        tw_end(&w);
    }
    tw_i64(&w, 3, (int64_t)pv->rows);
    /* a group whose rows are all erased has no pages: no row group then (a
     * chunk's data_page_offset must point at a page), as writers store an
     * empty table */
    bool any = pv->rows > 0;
    tw_list(&w, 4, TW_STRUCT, any);
    if (any) {
        tw_elem_struct(&w);
        tw_list(&w, 1, TW_STRUCT, (uint32_t)s->nl);
    }
    uint64_t total = 0;
    uint32_t k = 0;
    for (size_t i = 0; any && i < s->nl; i++) {
        const struct pq_leaf *l = &s->l[i];
        struct chunk_sum c;
        chunk_totals(pv, l, &k, &c);
        chunk_bounds(p, pv->part_group, l, &c);
        total += c.bytes;
        tw_elem_struct(&w);
        tw_i64(&w, 2, (int64_t)c.first);
        tw_struct(&w, 3);
        tw_i32(&w, 1, l->phys);
        tw_list(&w, 2, TW_I32, 2 + c.dict);
        tw_elem_i32(&w, PQ_ENC_PLAIN);
        tw_elem_i32(&w, PQ_ENC_RLE);
        if (c.dict) tw_elem_i32(&w, PQ_ENC_RLE_DICTIONARY);
        tw_list(&w, 3, TW_BINARY, l->npath);
        for (uint32_t j = 0; j < l->npath; j++) tw_elem_binary(&w, s->paths[l->path0 + j].p, s->paths[l->path0 + j].n);
        tw_i32(&w, 4, 0); /* UNCOMPRESSED */
        tw_i64(&w, 5, (int64_t)c.values);
        tw_i64(&w, 6, (int64_t)c.bytes);
        tw_i64(&w, 7, (int64_t)c.bytes);
        tw_i64(&w, 9, (int64_t)c.data_first);
        if (c.dict) tw_i64(&w, 11, (int64_t)c.first);
        if (c.no_nulls || c.bound_len) {
            tw_struct(&w, 12);
            if (c.no_nulls) tw_i64(&w, 3, 0); /* null_count */
            if (c.bound_len) {
                tw_binary(&w, 5, c.max, c.bound_len); /* max_value */
                tw_binary(&w, 6, c.min, c.bound_len); /* min_value */
            }
            tw_end(&w);
        }
        tw_end(&w);
        tw_end(&w);
    }
    if (any) {
        tw_i64(&w, 2, (int64_t)total);
        tw_i64(&w, 3, (int64_t)pv->rows);
        tw_end(&w);
    }
    tw_binary(&w, 6, "ingot", 5);
    tw_finish(&w);
    return w.err;
}

/* file_metadata's length, field by field as it writes them. */
size_t pqv_footer_len(const struct ig_pqv *pv, const struct ig_pqv_schema *s)
{
    size_t n = tl_int(1) + s->elements_len + tl_int((int64_t)pv->rows) + tl_list(pv->rows > 0);
    if (pv->rows > 0) {
        uint64_t total = 0;
        uint32_t k = 0;
        n += tl_list((uint32_t)s->nl);
        for (size_t i = 0; i < s->nl; i++) {
            struct chunk_sum c;
            chunk_totals(pv, &s->l[i], &k, &c);
            total += c.bytes;
            n += column_chunk_len(s, &s->l[i], &c);
        }
        n += tl_int((int64_t)total) + tl_int((int64_t)pv->rows) + 1; /* the row group's } */
    }
    return n + 1 + tl_bin(5) + 1; /* created_by "ingot", } */
}

int ig_pqv_tail(const struct ig_table *t, const struct ig_pqv_schema *s, const struct ig_pqv *v, struct ig_buf *out,
                struct ig_error *err)
{
    size_t base = out->len;
    int rc = 0;
    if (ig_buf_reserve(out, v->tail_len)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && file_metadata(&t->parts[v->part], v, s, out)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        uint8_t len[4];
        ig_st32(len, (uint32_t)(out->len - base));
        if (ig_buf_append(out, len, 4) || ig_buf_append(out, "PAR1", 4)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && out->len - base != v->tail_len)
        rc = ig_err(err, -EIO, "%s: row group %u: Parquet footer of %zu bytes, the layout counted %" PRIu64,
                    t->parts[v->part].path, v->group, out->len - base, v->tail_len);
    if (rc) out->len = base;
    return rc;
}
