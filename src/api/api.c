/* api.c - the public C API (include/ingot.h) over the format internals. */
#include "ingot.h"
#include "api_int.h"
#include "format/layout.h"
#include "format/ops/column_text.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/schema.h"
#include "format/part/table.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ingot_api_fail(char *errbuf, size_t errlen, const struct ig_error *e, int rc)
{
    if (errbuf && errlen) snprintf(errbuf, errlen, "%s", e->msg);
    return rc;
}

int ingot_open(const char *dir, ingot_table **out, char *errbuf, size_t errlen)
{
    return ingot_open_version(dir, 0, out, errbuf, errlen);
}

uint64_t ingot_version(const ingot_table *t) { return t->t.manifest.version; }

int ingot_open_version(const char *dir, uint64_t version, ingot_table **out, char *errbuf, size_t errlen)
{
    struct ig_error e = {0};
    ingot_table *t = calloc(1, sizeof *t);
    if (!t) return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -ENOMEM, "out of memory"));
    int rc = ig_table_open_version(&t->t, dir, version, false, &e);
    if (rc) {
        free(t);
        return ingot_api_fail(errbuf, errlen, &e, rc);
    }
    ig_values_init(&t->v, IG_T_INT64);
    *out = t;
    return 0;
}

void ingot_close(ingot_table *t)
{
    if (!t) return;
    ig_take_free(t->take);
    ig_values_free(&t->v);
    ig_reader_free(&t->r);
    ig_buf_free(&t->out);
    ig_table_close(&t->t);
    free(t);
}

uint64_t ingot_rows(const ingot_table *t) { return t->t.num_rows; }
uint64_t ingot_live_rows(const ingot_table *t) { return t->t.num_rows - t->t.deleted_rows; }
uint32_t ingot_columns(const ingot_table *t) { return t->t.parts[0].num_columns; }
uint32_t ingot_groups(const ingot_table *t) { return t->t.num_groups; }

uint32_t ingot_columns_shown(const ingot_table *t, uint32_t *cols, uint32_t cap)
{
    uint32_t n = 0;
    struct ig_shown_walk shown = {0};
    for (uint32_t col; ig_table_next_top(&t->t, &shown, &col); n++)
        if (n < cap) cols[n] = col;
    return n;
}

uint64_t ingot_group_live_rows(const ingot_table *t, uint32_t group)
{
    uint32_t pi, lg;
    struct ig_grouprec gr;
    if (ig_table_group(&t->t, group, &pi, &lg) || ig_part_group(&t->t.parts[pi], lg, &gr, NULL))
        return 0;
    uint64_t live = 0;
    for (uint64_t r = gr.first_row; r < gr.first_row + gr.row_count; r++)
        live += !ig_part_row_deleted(&t->t.parts[pi], r);
    return live;
}

int ingot_column_find(const ingot_table *t, const char *name, uint32_t *col)
{
    return ig_table_find(&t->t, name, strlen(name), col, NULL);
}

const char *ingot_column_name(const ingot_table *t, uint32_t col, size_t *len)
{
    struct ig_colrec c;
    if (!ig_table_shows(&t->t, col) || ig_part_column(&t->t.parts[0], col, &c, NULL)) return NULL;
    if (len) *len = c.name_len;
    return c.name;
}

int ingot_column_type(const ingot_table *t, uint32_t col, enum ingot_type *type, int *nullable)
{
    struct ig_colrec c;
    if (!ig_table_shows(&t->t, col)) return -ENOENT;
    int rc = ig_part_column(&t->t.parts[0], col, &c, NULL);
    if (rc) return rc;
    if (type) *type = (enum ingot_type)c.type;
    if (nullable) *nullable = (c.flags & IG_COLF_NULLABLE) != 0;
    return 0;
}

int ingot_column_logical(const ingot_table *t, uint32_t col, struct ingot_logical_type *out)
{
    struct ig_colrec c;
    if (!ig_table_shows(&t->t, col)) return -ENOENT;
    int rc = ig_part_column(&t->t.parts[0], col, &c, NULL);
    if (rc) return rc;
    *out = (struct ingot_logical_type){.kind = (enum ingot_logical)c.lt.kind,
                                       .unit = (enum ingot_time_unit)c.lt.unit,
                                       .utc = c.lt.utc,
                                       .precision = c.lt.precision,
                                       .scale = c.lt.scale,
                                       .width = c.lt.width};
    return 0;
}

int ingot_column_type_name(const ingot_table *t, uint32_t col, char *buf, size_t cap)
{
    struct ig_colrec c;
    if (!ig_table_shows(&t->t, col)) return -ENOENT;
    int rc = ig_part_column(&t->t.parts[0], col, &c, NULL);
    if (rc) return rc;
    /* the version's schema holds the column's whole type (lists, struct fields) */
    struct ig_schema s;
    if (ig_table_schema(&t->t, &s, NULL)) return -EIO;
    long node = ig_schema_find(&s, c.name, c.name_len);
    struct ig_buf b = IG_BUF_INIT;
    rc = node < 0 ? -EIO : ig_schema_type_text(&s, (uint32_t)node, &b) ? -ENOMEM : 0;
    if (!rc && b.len + 1 > cap) rc = -ENOSPC;
    if (!rc) {
        memcpy(buf, b.data, b.len);
        buf[b.len] = '\0';
        rc = (int)b.len;
    }
    ig_buf_free(&b);
    ig_schema_free(&s);
    return rc;
}

size_t ingot_type_width(enum ingot_type type)
{
    const struct ig_type_info *ti = ig_type_info(type);
    return ti ? ti->width : 0;
}

typedef int (*page_fn)(ingot_table *t, const uint8_t *deleted, void *ctx);

/* Visit every page of a column in row order, decoded into t->v. */
static int each_page(ingot_table *t, uint32_t col, uint32_t group, page_fn fn, void *ctx,
                     struct ig_error *e)
{
    struct ig_column_ref c;
    int rc = ig_table_column_at(&t->t, col, &c, e);
    if (rc) return rc;
    uint32_t g0 = group == INGOT_ALL_GROUPS ? 0 : group;
    uint32_t g1 = group == INGOT_ALL_GROUPS ? t->t.num_groups : group + 1;
    if (g0 >= t->t.num_groups && t->t.num_groups) return ig_err(e, -ENOENT, "no row group %u", group);
    for (uint32_t g = g0; g < g1; g++) {
        uint32_t pi = 0, lg = 0, first = 0, count = 0;
        struct ig_grouprec gr;
        ig_table_group(&t->t, g, &pi, &lg);
        const struct ig_part *p = &t->t.parts[pi];
        rc = ig_part_group(p, lg, &gr, e);
        if (!rc) rc = ig_part_chunk(p, lg, c.rec.leaf, &first, &count, e);
        uint32_t expected = 0;
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *deleted;
            rc = ig_reader_load(&t->r, &(struct ig_page_at){p, &c, pg, gr.first_row}, &rec, &t->v, &deleted, e);
            if (!rc) rc = ig_chunk_page_check(p, pg, &rec, c.rec.leaf, expected, gr.row_count, e);
            if (!rc) rc = fn(t, deleted, ctx);
            expected += rec.row_count;
        }
        if (rc) return rc;
    }
    return 0;
}

struct fixed_ctx {
    uint8_t *out, *valid;
    size_t cap, used, count;
    size_t width;
};

static int copy_fixed(ingot_table *t, const uint8_t *deleted, void *ctx)
{
    struct fixed_ctx *fc = ctx;
    ig_buf_reset(&t->out);
    int rc = ig_render_fixed(&t->out, &t->v, deleted, false);
    if (rc) return rc;
    if (t->out.len > fc->cap - fc->used) return -ENOSPC;
    memcpy(fc->out + fc->used, t->out.data, t->out.len);
    size_t n = t->out.len / fc->width;
    if (fc->valid) {
        ig_buf_reset(&t->out);
        rc = ig_render_fixed(&t->out, &t->v, deleted, true);
        if (rc) return rc;
        memcpy(fc->valid + fc->count, t->out.data, n);
    }
    fc->used += n * fc->width;
    fc->count += n;
    return 0;
}

int64_t ingot_read_fixed(ingot_table *t, uint32_t col, uint32_t group, void *out,
                         size_t out_bytes, uint8_t *valid, char *errbuf, size_t errlen)
{
    struct ig_error e = {0};
    enum ingot_type type;
    if (ingot_column_type(t, col, &type, NULL))
        return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -ENOENT, "no column %u", col));
    size_t w = ingot_type_width(type);
    if (!w)
        return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -EINVAL, "column %u is not fixed-width", col));
    struct fixed_ctx fc = {.out = out, .valid = valid, .cap = out_bytes, .width = w};
    int rc = each_page(t, col, group, copy_fixed, &fc, &e);
    if (rc == -ENOSPC) ig_err(&e, rc, "output buffer too small");
    if (rc) return ingot_api_fail(errbuf, errlen, &e, rc);
    return (int64_t)fc.count;
}

struct text_ctx {
    int (*emit)(void *, const void *, size_t);
    void *ctx;
};

static int emit_text(ingot_table *t, const uint8_t *deleted, void *ctx)
{
    struct text_ctx *tc = ctx;
    ig_buf_reset(&t->out);
    int rc = ig_render_text_lines(&t->out, &t->v, deleted);
    if (rc) return rc;
    return tc->emit(tc->ctx, t->out.data, t->out.len) ? -ECANCELED : 0;
}

/* A nested column's lines (reassembled rows) handed on as emit_text's are. */
static int emit_lines(void *ctx, const void *p, size_t n)
{
    struct text_ctx *tc = ctx;
    return tc->emit(tc->ctx, p, n) ? -ECANCELED : 0;
}

int ingot_read_text(ingot_table *t, uint32_t col, uint32_t group,
                    int (*emit)(void *ctx, const void *p, size_t n), void *ctx, char *errbuf,
                    size_t errlen)
{
    struct ig_error e = {0};
    struct text_ctx tc = {emit, ctx};
    struct ig_column_ref c;
    int rc = ig_table_column_at(&t->t, col, &c, &e);
    if (rc || !t->t.num_groups) /* an empty table: no lines, whichever group */
        return rc ? ingot_api_fail(errbuf, errlen, &e, rc) : 0;
    if (group != INGOT_ALL_GROUPS && group >= t->t.num_groups)
        return ingot_api_fail(errbuf, errlen, &e, ig_err(&e, -ENOENT, "no row group %u", group));
    /* a nested column (a struct has no leaf of its own) is its leaves'
     * rows reassembled, as `ingot cat` prints it; a flat one page by page */
    rc = c.nested ? ig_column_text(&t->t, &c, group, emit_lines, &tc, &e)
                  : each_page(t, col, group, emit_text, &tc, &e);
    return rc ? ingot_api_fail(errbuf, errlen, &e, rc) : 0;
}
