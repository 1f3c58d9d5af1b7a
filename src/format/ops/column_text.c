#include "format/ops/column_text.h"
#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/ops/nested.h"
#include "util/error.h"

#include <errno.h>

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
        rc = ig_reader_load(r, &(struct ig_page_at){p, c, pg, gr.first_row}, &rec, v, &deleted, err);
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
            struct ig_nested_page np = {.group = gi, .index = i};
            rc = ig_nested_load(&nr, t, &np, err);
            ig_buf_reset(&out);
            if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, np.rows, np.deleted, &out, NULL, err);
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
