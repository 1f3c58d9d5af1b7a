#include "format/ops/reader.h"
#include "format/layout.h"
#include "format/ops/nested.h"
#include "format/page/slide.h"
#include "format/model/names.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <string.h>

void ig_reader_free(struct ig_reader *r)
{
    ig_page_scratch_free(&r->s);
    ig_buf_free(&r->stored);
    ig_buf_free(&r->deleted);
}

int ig_table_column_at(const struct ig_table *t, uint32_t col, struct ig_column_ref *out,
                       struct ig_error *err)
{
    const struct ig_part *p = &t->parts[0];
    int rc = ig_part_column(p, col, &out->rec, err);
    if (rc) return rc;
    out->col = col;
    out->erase_level = out->rec.erase_level ? out->rec.erase_level : p->erase_level;
    out->blob_dir[0] = '\0';
    if (out->rec.type == IG_T_BLOB)
        ig_blob_dir_name(out->rec.name, out->rec.name_len, out->blob_dir, sizeof out->blob_dir);
    /* the top-level column: parents come before children, so this ends */
    out->top = col;
    struct ig_colrec up = out->rec;
    for (int guard = 0; up.parent != IG_NONE && guard < 256; guard++) {
        if (up.parent >= out->top) return ig_err(err, -EIO, "%s: corrupt footer: column %u's parent", p->path, col);
        out->top = up.parent;
        rc = ig_part_column(p, out->top, &up, err);
        if (rc) return rc;
    }
    const struct ig_colrec *c = &out->rec;
    bool flat = c->parent == IG_NONE && c->lists == 0 && c->dimension == 0 && c->type != IG_T_STRUCT;
    bool blob_list = c->parent == IG_NONE && c->lists == 1 && c->type == IG_T_BLOB && !(c->null_mask & 2);
    out->nested = !flat && !blob_list;
    out->li = (struct ig_leaf_info){.type = c->type,
                                    .max_rep = c->max_rep,
                                    .max_def = c->max_def,
                                    .quantize = c->quantize,
                                    .levels = out->nested,
                                    .per_value = c->dimension ? c->dimension : 1};
    out->li.slide_ok = out->nested && c->parent == IG_NONE && ig_slide_fits(&out->li, c->lists, c->null_mask);
    if (c->quantize && c->type != IG_T_FLOAT32 && c->type != IG_T_FLOAT64)
        return ig_err(err, -EIO, "%s: corrupt footer: column %u quantises a non-float", p->path, col);
    return 0;
}

int ig_table_column(const struct ig_table *t, const char *name, size_t len,
                    struct ig_column_ref *out, struct ig_error *err)
{
    uint32_t col;
    int rc = ig_part_find(&t->parts[0], name, len, &col, err);
    if (rc == -ENOENT)
        return ig_err(err, -ENOENT, "%s: no column '%.*s'", t->dir, (int)len, name);
    if (rc) return rc;
    return ig_table_column_at(t, col, out, err);
}

static int page_error(const struct ig_part *p, uint32_t leaf, uint32_t page,
                      struct ig_error *err, int rc)
{
    uint32_t col;
    struct ig_colrec cr;
    if (ig_part_leaf_column(p, leaf, &col, NULL) == 0 && ig_part_column(p, col, &cr, NULL) == 0)
        return ig_err_prefix(err, rc, "%s: column '%.*s' page %u", p->path, (int)cr.name_len,
                             cr.name, page);
    return ig_err_prefix(err, rc, "%s: leaf %u page %u", p->path, leaf, page);
}

int ig_reader_fetch(struct ig_reader *r, const struct ig_part *p, uint32_t page,
                    const struct ig_pagerec *rec, struct ig_error *err)
{
    ig_buf_reset(&r->stored);
    if (ig_buf_reserve(&r->stored, rec->stored)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_pread_full(p->fd, r->stored.data, rec->stored, rec->offset);
    if (rc)
        return page_error(p, rec->leaf, page, err,
                          ig_err(err, rc == -EIO ? -EIO : rc, "read failed: %s",
                                 rc == -EIO ? "file truncated" : strerror(-rc)));
    r->stored.len = rec->stored;
    if (ig_hash(r->stored.data, rec->stored) != rec->checksum)
        return page_error(p, rec->leaf, page, err, ig_err(err, -EIO, "checksum mismatch"));
    return 0;
}

int ig_reader_load(struct ig_reader *r, const struct ig_part *p, const struct ig_column_ref *c,
                   uint32_t page, uint64_t group_first_row, struct ig_pagerec *rec,
                   struct ig_values *out, const uint8_t **deleted, struct ig_error *err)
{
    int rc = ig_part_page(p, page, rec, err);
    if (rc) return rc;
    if (rec->leaf != c->rec.leaf)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u belongs to leaf %u, not %u",
                      p->path, page, rec->leaf, c->rec.leaf);
    rc = ig_reader_fetch(r, p, page, rec, err);
    if (rc) return rc;
    ig_buf_reset(&r->deleted);
    uint8_t *bits = ig_buf_extend(&r->deleted, (rec->row_count + 7) / 8);
    if (!bits) return ig_err(err, -ENOMEM, "out of memory");
    bool any = ig_part_deleted_bits(p, group_first_row + rec->first_row, rec->row_count, bits);
    *deleted = any ? bits : NULL;
    if (c->rec.leaf == IG_NONE) return ig_err(err, -EINVAL, "column '%.*s' holds no pages of its own",
                                              (int)c->rec.name_len, c->rec.name);
    const uint8_t *absent = any && c->erase_level == 2 && !c->li.levels ? bits : NULL;
    rc = ig_page_decode_leaf(r->stored.data, rec, &c->li, absent, &r->s, out, err);
    if (rc) return page_error(p, rec->leaf, page, err, rc);
    out->row_base = p->first_row_id + group_first_row + rec->first_row;
    out->blob_dir = c->blob_dir;
    out->blob_list = (c->rec.flags & IG_COLF_REPEATED) != 0;
    return 0;
}

int ig_chunk_page_check(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                        uint32_t leaf, uint32_t expected, uint32_t group_rows,
                        struct ig_error *err)
{
    if (rec->leaf != leaf || rec->first_row != expected || rec->row_count > group_rows ||
        rec->first_row > group_rows - rec->row_count)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u does not continue its chunk at row %u",
                      p->path, page, expected);
    return 0;
}

static int group_text(const struct ig_table *t, const struct ig_column_ref *c, uint32_t g,
                      struct ig_reader *r, struct ig_values *v, struct ig_buf *out,
                      ig_lines_fn emit, void *ctx, struct ig_error *err)
{
    uint32_t pi, lg;
    if (ig_table_group(t, g, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", g);
    const struct ig_part *p = &t->parts[pi];
    struct ig_grouprec gr;
    uint32_t first = 0, count = 0;
    int rc = ig_part_group(p, lg, &gr, err);
    if (!rc) rc = ig_part_chunk(p, lg, c->rec.leaf, &first, &count, err);
    uint32_t expected = 0;
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_pagerec rec;
        const uint8_t *deleted;
        rc = ig_reader_load(r, p, c, pg, gr.first_row, &rec, v, &deleted, err);
        if (!rc) rc = ig_chunk_page_check(p, pg, &rec, c->rec.leaf, expected, gr.row_count, err);
        if (rc) break;
        expected += rec.row_count;
        ig_buf_reset(out);
        rc = ig_render_text_lines(out, v, deleted);
        if (rc) return ig_err(err, rc, "out of memory");
        rc = emit(ctx, out->data, out->len);
    }
    if (!rc && expected != gr.row_count)
        rc = ig_err(err, -EIO, "%s: corrupt footer: column '%.*s' group %u covers %u of %u rows",
                    p->path, (int)c->rec.name_len, c->rec.name, lg, expected, gr.row_count);
    return rc;
}

static int nested_text(const struct ig_table *t, const struct ig_column_ref *c, uint32_t g,
                       ig_lines_fn emit, void *ctx, struct ig_error *err)
{
    struct ig_nested_reader nr;
    int rc = ig_nested_open(&nr, t, c->col, err);
    if (rc) return rc;
    struct ig_buf out = IG_BUF_INIT;
    uint32_t g0 = g == UINT32_MAX ? 0 : g, g1 = g == UINT32_MAX ? t->num_groups : g + 1;
    for (uint32_t gi = g0; gi < g1 && !rc; gi++) {
        uint32_t count;
        rc = ig_nested_pages(&nr, t, gi, &count, err);
        for (uint32_t i = 0; i < count && !rc; i++) {
            struct ig_pagerec rec;
            size_t rows;
            const uint8_t *deleted;
            rc = ig_nested_load(&nr, t, gi, i, &rec, &rows, &deleted, err);
            ig_buf_reset(&out);
            if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, rows, deleted, &out, NULL, err);
            if (!rc) rc = emit(ctx, out.data, out.len);
        }
    }
    ig_buf_free(&out);
    ig_nested_close(&nr);
    return rc;
}

int ig_column_text(const struct ig_table *t, const struct ig_column_ref *c, uint32_t g,
                   ig_lines_fn emit, void *ctx, struct ig_error *err)
{
    if (c->nested) return nested_text(t, c, g, emit, ctx, err);
    struct ig_reader r = {0};
    struct ig_values v;
    struct ig_buf out = IG_BUF_INIT;
    ig_values_init(&v, c->rec.type);
    int rc = 0;
    if (g != UINT32_MAX)
        rc = group_text(t, c, g, &r, &v, &out, emit, ctx, err);
    else
        for (uint32_t i = 0; i < t->num_groups && !rc; i++)
            rc = group_text(t, c, i, &r, &v, &out, emit, ctx, err);
    ig_values_free(&v);
    ig_buf_free(&out);
    ig_reader_free(&r);
    return rc;
}
