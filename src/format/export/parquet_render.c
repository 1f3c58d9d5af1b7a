/* parquet_render.c - the bytes of one page of the Parquet view
 * (ig_pqv_render): its header, its levels, and its PLAIN values or its
 * dictionary codes, from the ingot page(s) it shows, zero-filled to the
 * length the layout counted; and a chunk's dictionary (ig_pqv_dict_new), the
 * distinct values its live rows show, for its dictionary page and its codes. */
#include "parquet_view_int.h"

#include "blob/blob.h"
#include "format/model/quantize.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "util/bitpack.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/strset.h"
#include "util/varint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A data page's header (values PLAIN or RLE_DICTIONARY codes), or a
 * dictionary page's (entries: its values, PLAIN). */
static void page_header(struct ig_buf *b, uint8_t kind, uint32_t body, uint32_t entries)
{
    struct tw w;
    tw_init(&w, b);
    tw_i32(&w, 1, kind == IG_PQV_DICT ? PQ_DICTIONARY_PAGE : PQ_DATA_PAGE);
    tw_i32(&w, 2, (int32_t)body);
    tw_i32(&w, 3, (int32_t)body);
    if (kind == IG_PQV_DICT) {
        tw_struct(&w, 7);
        tw_i32(&w, 1, (int32_t)entries);
        tw_i32(&w, 2, PQ_ENC_PLAIN);
    } else {
        tw_struct(&w, 5);
        tw_i32(&w, 1, (int32_t)entries);
        tw_i32(&w, 2, kind == IG_PQV_CODES ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN);
        tw_i32(&w, 3, PQ_ENC_RLE);
        tw_i32(&w, 4, PQ_ENC_RLE);
    }
    tw_end(&w);
    tw_finish(&w);
}

/* ---- rendering ------------------------------------------------------------ */

/* levels_len's section; all_max: every level is max (-EIO when one is not:
 * the footer's claim was wrong). */
static int put_levels(struct ig_buf *out, const uint8_t *lv, size_t n, unsigned width, bool all_max,
                      uint8_t max)
{
    if (!width) return 0;
    uint64_t len = levels_len(n, width, all_max) - 4;
    uint8_t *o = ig_buf_extend(out, 4 + len);
    if (!o) return -ENOMEM;
    memset(o, 0, 4 + len);
    ig_st32(o, (uint32_t)len);
    o += 4;
    if (all_max) {
        for (size_t i = 0; i < n; i++)
            if (lv[i] != max) return -EIO;
        o += ig_varint_put(o, (uint64_t)n << 1);
        *o = max; /* width <= 8: one byte */
        return 0;
    }
    o += ig_varint_put(o, (n + 7) / 8 << 1 | 1);
    ig_bitpack_pack_u8(o, lv, n, width); /* LSB first, value after value (the last group's rest zeroed above) */
    return 0;
}

static int blob_path(struct ig_buf *out, const struct ig_values *v, const char *dir, const struct pq_entries *e,
                     size_t k, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    uint64_t row = e->row[k];
    char path[64];
    if (v->levels) { /* object K of its row, K counted within the row */
        size_t r0 = (size_t)(row - v->row_base);
        snprintf(path, sizeof path, "/%" PRIu64 "/%" PRIu32 "%s%s", row, e->val[k] - v->row_val[r0],
                 *ext ? "." : "", ext);
    } else if (v->blob_list) {
        snprintf(path, sizeof path, "/%" PRIu64 "/%" PRIu32 "%s%s", row, e->obj[k], *ext ? "." : "", ext);
    } else {
        snprintf(path, sizeof path, "/%" PRIu64 "%s%s", row, *ext ? "." : "", ext);
    }
    size_t dl = strlen(dir), pl = strlen(path);
    uint8_t *o = ig_buf_extend(out, 4 + dl + pl);
    if (!o) return -ENOMEM;
    ig_st32(o, (uint32_t)(dl + pl));
    memcpy(o + 4, dir, dl);
    memcpy(o + 4 + dl, path, pl);
    return 0;
}

static int put_values(struct ig_buf *out, const struct ig_pqv_page *pg, const struct ig_values *v,
                      const char *blob_dir, const struct pq_entries *e)
{
    if (pg->phys == PQ_BOOLEAN) {
        uint8_t *o = ig_buf_extend(out, (e->nval + 7) / 8);
        if (!o) return -ENOMEM;
        memset(o, 0, (e->nval + 7) / 8);
        for (size_t k = 0; k < e->nval; k++)
            if (v->lanes[e->val[k]]) o[k / 8] |= (uint8_t)(1u << (k % 8));
        return 0;
    }
    bool blob = v->type == IG_T_BLOB;
    bool seconds = v->lt.kind == IG_LT_TIMESTAMP && v->lt.unit == IG_UNIT_S;
    unsigned w = pg->phys == PQ_INT32 || pg->phys == PQ_FLOAT ? 4 : pg->phys == PQ_INT64 || pg->phys == PQ_DOUBLE ? 8 : 0;
    if (w && !blob && !seconds) { /* the lanes as they are: a loop, not a switch a value */
        uint8_t *o = ig_buf_extend(out, e->nval * w);
        if (!o && e->nval) return -ENOMEM;
        if (w == 4)
            for (size_t k = 0; k < e->nval; k++)
                ig_st32(o + 4 * k, (uint32_t)v->lanes[e->val[k]]);
        else
            for (size_t k = 0; k < e->nval; k++)
                ig_st64(o + 8 * k, v->lanes[e->val[k]]);
        return 0;
    }
    for (size_t k = 0; k < e->nval; k++) {
        uint32_t i = e->val[k];
        struct ig_blob_ref r;
        unsigned kind = 0;
        if (blob) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            if ((size_t)(e->obj[k] + 1) * IG_BLOB_REF_BYTES > len) return -EIO;
            ig_blob_ref_load(p + (size_t)e->obj[k] * IG_BLOB_REF_BYTES, &r, &kind);
        }
        uint8_t *o;
        switch (pg->phys) {
        case PQ_INT32:
        case PQ_FLOAT:
            if (!(o = ig_buf_extend(out, 4))) return -ENOMEM;
            ig_st32(o, (uint32_t)v->lanes[i]);
            break;
        case PQ_INT64:
        case PQ_DOUBLE:
            if (!(o = ig_buf_extend(out, 8))) return -ENOMEM;
            if (seconds) { /* a timestamp(s) in milliseconds */
                int64_t ms;
                if (__builtin_mul_overflow((int64_t)v->lanes[i], 1000, &ms)) return -EIO;
                ig_st64(o, (uint64_t)ms);
            } else {
                ig_st64(o, blob ? r.size : v->lanes[i]);
            }
            break;
        case PQ_FLBA:
            if (!(o = ig_buf_extend(out, v->lt.kind == IG_LT_FLOAT16 ? 2 : v->lt.width)))
                return -ENOMEM;
            if (v->lt.kind == IG_LT_FLOAT16) { /* the float32 it reads as is a half exactly */
                float f;
                uint32_t bits = (uint32_t)v->lanes[i];
                memcpy(&f, &bits, 4);
                ig_st16(o, (uint16_t)ig_quantize_one(IG_Q_FP16, f));
            } else {
                size_t len;
                const uint8_t *p = ig_values_bytes(v, i, &len);
                if (len != v->lt.width) return -EIO; /* a value of another width: not this column's */
                if (v->lt.kind == IG_LT_DECIMAL) /* little-endian in ingot, big-endian in Parquet */
                    for (size_t b = 0; b < len; b++) o[b] = p[len - 1 - b];
                else
                    memcpy(o, p, len);
            }
            break;
        default:
            if (blob) {
                if (blob_path(out, v, blob_dir, e, k, kind)) return -ENOMEM;
            } else {
                size_t len;
                const uint8_t *p = ig_values_bytes(v, i, &len);
                if (!(o = ig_buf_extend(out, 4 + len))) return -ENOMEM;
                ig_st32(o, (uint32_t)len);
                memcpy(o + 4, p, len);
            }
        }
    }
    return 0;
}

/* ---- dictionaries ---------------------------------------------------------- */

struct ig_pqv_dict {
    struct ig_strset set;
};

/* The leaf a page shows, for live_entries. */
static struct pq_leaf page_leaf(const struct ig_pqv_page *pg, const struct ig_column_ref *ref)
{
    bool top_blob_list = pqv_is_top_blob_list(&ref->rec);
    return (struct pq_leaf){.col = pg->col, .sub = pg->sub, .phys = pg->phys, .max_rep = pg->max_rep,
                            .max_def = pg->max_def, .blob_list = top_blob_list, .dim = ref->rec.dimension};
}

/* Ingot page `page` of pg's leaf, decoded (into v, reset first), and its
 * live entries (appended to e). */
static int live_page(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                     uint32_t page, struct ig_reader *r, struct ig_column_ref *ref, struct ig_values *v,
                     struct pq_entries *e, struct ig_error *err)
{
    int rc = ig_table_column_at(t, pg->col, ref, err);
    if (rc) return rc;
    struct pq_leaf l = page_leaf(pg, ref);
    const uint8_t *del;
    struct ig_pagerec rec;
    rc = ig_reader_load(r, &(struct ig_page_at){&t->parts[pv->part], ref, page, pv->group_first_row}, &rec, v, &del, err);
    if (!rc && pqv_live_entries(&l, v, del, e)) rc = ig_err(err, -ENOMEM, "out of memory");
    return rc;
}

static int entries_differ(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                          size_t n, struct ig_error *err)
{
    return ig_err(err, -EIO, "%s: page %u: %zu live entries, the layout counted %u", t->parts[pv->part].path,
                  pg->page, n, pg->entries);
}

int ig_pqv_dict_new(const struct ig_table *t, const struct ig_pqv *pv, uint32_t i, struct ig_reader *r,
                    struct ig_pqv_dict **out, struct ig_error *err)
{
    *out = NULL;
    if (i >= pv->npages || pv->pages[i].kind != IG_PQV_DICT)
        return ig_err(err, -EINVAL, "Parquet view page %u is not a dictionary", i);
    const struct ig_pqv_page *dp = &pv->pages[i];
    struct ig_pqv_dict *d = calloc(1, sizeof *d);
    if (!d) return ig_err(err, -ENOMEM, "out of memory");
    ig_strset_init(&d->set);
    int rc = 0;
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    for (uint32_t page = dp->page; !rc && page < dp->page_end; page++) {
        struct ig_column_ref ref;
        struct pq_entries e = {0};
        rc = live_page(t, pv, dp, page, r, &ref, &v, &e, err);
        for (size_t j = 0; !rc && j < e.nval; j++) {
            size_t len;
            const uint8_t *b = ig_values_bytes(&v, e.val[j], &len);
            uint32_t at;
            bool added;
            if (ig_strset_add(&d->set, b, len, &at, &added)) rc = ig_err(err, -ENOMEM, "out of memory");
        }
        if (!rc && (d->set.count > dp->slots || d->set.bytes > dp->dict_bytes))
            rc = ig_err(err, -EIO, "%s: row group %u, column chunk of page %u: %u distinct values of %" PRIu64
                        " bytes, more than the footer counts (%u of %u)", t->parts[pv->part].path, pv->group,
                        page, d->set.count, d->set.bytes, dp->slots, dp->dict_bytes);
        pqv_entries_free(&e);
    }
    ig_values_free(&v);
    if (rc) {
        ig_pqv_dict_free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void ig_pqv_dict_free(struct ig_pqv_dict *d)
{
    if (!d) return;
    ig_strset_free(&d->set);
    free(d);
}

size_t ig_pqv_dict_mem(const struct ig_pqv_dict *d) { return sizeof *d + ig_strset_mem(&d->set); }

/* The dictionary page's body: the live values, then what they do not fill of
 * the footer's count made up by unused entries (empty, the last of spaces),
 * so its length is the one laid out. */
static int put_dictionary(struct ig_buf *out, const struct ig_pqv_page *pg, const struct ig_pqv_dict *d)
{
    const struct ig_strset *set = &d->set;
    if (set->count > pg->slots || set->bytes > pg->dict_bytes) return -EIO;
    uint8_t *o = ig_buf_extend(out, 4ull * pg->slots + pg->dict_bytes);
    if (!o) return -ENOMEM;
    for (uint32_t i = 0; i < set->count; i++) {
        size_t len;
        const uint8_t *b = ig_strset_get(set, i, &len);
        ig_st32(o, (uint32_t)len);
        memcpy(o + 4, b, len);
        o += 4 + len;
    }
    uint32_t unused = pg->slots - set->count;
    uint64_t spare = pg->dict_bytes - set->bytes;
    if (!unused && spare) return -EIO;
    for (uint32_t i = 0; i < unused; i++) {
        uint32_t len = i + 1 == unused ? (uint32_t)spare : 0;
        ig_st32(o, len);
        memset(o + 4, ' ', len);
        o += 4 + len;
    }
    return 0;
}

/* codes_len's section for n codes. */
static int put_codes(struct ig_buf *out, const struct ig_pqv_page *pg, const uint32_t *codes, size_t n)
{
    unsigned width = pg->code_width;
    uint64_t len = codes_len(pg->slots, width);
    if (n > pg->slots) return -EIO;
    uint8_t *o = ig_buf_extend(out, len);
    if (!o) return -ENOMEM;
    memset(o, 0, len);
    *o++ = (uint8_t)width;
    o += ig_varint_put(o, ((uint64_t)pg->slots + 7) / 8 << 1 | 1);
    for (size_t k = 0; k < n; k++) {
        uint64_t bitpos = (uint64_t)k * width; /* LSB first, value after value */
        for (unsigned j = 0; j < width; j++, bitpos++)
            if ((codes[k] >> j) & 1) o[bitpos / 8] |= (uint8_t)(1u << (bitpos % 8));
    }
    return 0;
}

/* The live entries of the codes page's ingot pages, one after another, and
 * each value's number in d (codes, e->nval of them; the caller frees it). */
static int chunk_codes(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                       const struct ig_pqv_dict *d, struct ig_reader *r, struct pq_entries *e, uint32_t **codes,
                       struct ig_error *err)
{
    *codes = malloc(((size_t)pg->slots + 1) * sizeof **codes);
    if (!*codes) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    int rc = 0;
    for (uint32_t page = pg->page; !rc && page < pg->page_end; page++) {
        struct ig_column_ref ref;
        size_t from = e->nval;
        rc = live_page(t, pv, pg, page, r, &ref, &v, e, err);
        if (!rc && e->nval > pg->slots)
            rc = ig_err(err, -EIO, "%s: page %u: more values than the layout counted", t->parts[pv->part].path, page);
        for (size_t k = from; !rc && k < e->nval; k++) {
            size_t n;
            const uint8_t *b = ig_values_bytes(&v, e->val[k], &n);
            int64_t code = ig_strset_find(&d->set, b, n);
            if (code < 0)
                rc = ig_err(err, -EIO, "%s: page %u: a value not in its chunk's dictionary", t->parts[pv->part].path,
                            page);
            else (*codes)[k] = (uint32_t)code;
        }
    }
    ig_values_free(&v);
    return rc;
}

int ig_pqv_render(const struct ig_table *t, const struct ig_pqv *pv, const struct ig_pqv_page *pg,
                  const struct ig_pqv_dict *d, struct ig_reader *r, struct ig_buf *out, struct ig_error *err)
{
    const char *path = t->parts[pv->part].path;
    if (pg->kind != IG_PQV_PLAIN && !d)
        return ig_err(err, -EINVAL, "%s: page %u: a dictionary-coded Parquet page without its dictionary", path,
                      pg->page);
    struct ig_column_ref ref;
    struct ig_values v;
    ig_values_init(&v, IG_T_INT64);
    struct pq_entries e = {0};
    size_t base = out->len;
    uint32_t *codes = NULL;
    int rc = 0;
    if (pg->kind == IG_PQV_PLAIN) rc = live_page(t, pv, pg, pg->page, r, &ref, &v, &e, err);
    else if (pg->kind == IG_PQV_CODES) rc = chunk_codes(t, pv, pg, d, r, &e, &codes, err);
    if (!rc && pg->kind != IG_PQV_DICT && e.n != pg->entries) rc = entries_differ(t, pv, pg, e.n, err);
    if (!rc) {
        uint64_t body = pg->len - pg->header_len;
        struct ig_buf h = IG_BUF_INIT;
        page_header(&h, pg->kind, (uint32_t)body, pg->kind == IG_PQV_DICT ? pg->slots : pg->entries);
        int w = h.len == pg->header_len ? ig_buf_append(out, h.data, h.len) : -EIO;
        ig_buf_free(&h);
        if (pg->kind == IG_PQV_DICT) {
            if (!w) w = put_dictionary(out, pg, d);
        } else {
            if (!w) w = put_levels(out, e.rep, e.n, bit_width(pg->max_rep), false, pg->max_rep);
            if (!w && (w = put_levels(out, e.def, e.n, bit_width(pg->max_def), pg->no_nulls, pg->max_def)) == -EIO)
                rc = ig_err(err, -EIO, "%s: page %u: a NULL in a page whose record says it has none", path, pg->page);
            if (!w) w = pg->kind == IG_PQV_CODES ? put_codes(out, pg, codes, e.nval) : put_values(out, pg, &v, ref.blob_dir, &e);
        }
        if (!w && out->len - base > pg->len) w = -EIO;
        if (!w) w = ig_buf_append_zeros(out, pg->len - (out->len - base));
        if (rc) {
        } else if (w == -ENOMEM) rc = ig_err(err, w, "out of memory");
        else if (w) rc = ig_err(err, -EIO, "%s: page %u: does not fit its Parquet page%s", path, pg->page,
                             pg->kind == IG_PQV_PLAIN ? "" : " (or its chunk's dictionary)");
    }
    free(codes);
    pqv_entries_free(&e);
    ig_values_free(&v);
    if (rc) out->len = base;
    return rc;
}
