/* rows.c - rows by id: a row's file and single values, block by block (rows.h). */
#include "rows.h"
#include "format/layout.h"
#include "format/ops/take.h"
#include "format/model/render.h"
#include "format/part/columns.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded block b of a page from the cache, reading and decoding only that
 * block on a miss: a row costs one small read per column. */
static int decoded_block(struct fs_session *s, uint32_t pi, uint32_t page,
                         const struct ig_pagerec *rec, uint32_t b, const struct ig_column_ref *ref,
                         uint64_t group_first_row, struct fs_entry **out)
{
    uint64_t k1 = (uint64_t)pi << 32 | page, k2 = KEY_DECODED_BLOCK(b);
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    e = fs_entry_new(k1, k2);
    if (!e || !(e->vals = calloc(1, sizeof *e->vals))) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    ig_values_init(e->vals, ref->rec.type);
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    struct ig_error err = {0};
    struct ig_block_load bl = {.rec = rec, .block = b};
    int rc = ig_reader_load_block(&sc->r, &(struct ig_page_at){&s->table.parts[pi], ref, page, group_first_row}, &bl,
                                  e->vals, &err);
    const struct ig_pagerec blk = bl.blk;
    const uint8_t *del = bl.deleted;
    if (rc) {
        fs_entry_free(e);
        return fs_page_failed(s, pi, page, err.msg, rc);
    }
    /* the values outlive `ref`: keep the blob directory name with them */
    if (ig_buf_append(&e->data, ref->blob_dir, strlen(ref->blob_dir) + 1)) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    e->vals->blob_dir = (const char *)e->data.data;
    if (del) {
        size_t nb = (blk.row_count + 7) / 8;
        e->deleted = malloc(nb);
        if (!e->deleted) {
            fs_entry_free(e);
            return -ENOMEM;
        }
        memcpy(e->deleted, del, nb);
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

int fs_row_value(struct fs_session *s, uint32_t col, uint64_t row, struct fs_entry **e,
                 size_t *index)
{
    struct ig_row_at at;
    struct ig_row_block rb;
    struct ig_column_ref ref;
    int rc = ig_row_locate(&s->table, row, &at);
    if (rc) return rc;
    if (!fs_column_ref(s, col, &ref)) return -EIO;
    if (ig_row_block(&s->table.parts[at.part], &at, ref.rec.leaf, &rb)) return -EIO;
    rc = decoded_block(s, at.part, rb.page, &rb.rec, rb.block, &ref, at.group_first_row, e);
    if (rc) return rc;
    *index = rb.index;
    const struct ig_values *v = (*e)->vals;
    if (*index >= (v->levels ? v->rows : v->n)) {
        fs_cache_release(&s->cache, *e);
        return -EIO;
    }
    return 0;
}

/* The session's cache as the row renderer's block source. */
static int source_get(void *ctx, const struct ig_column_ref *ref, const struct ig_row_at *at,
                      struct ig_row_block *rb, struct ig_values **vals, void **hold,
                      struct ig_error *err)
{
    struct fs_entry *e;
    int rc =
        decoded_block(ctx, at->part, rb->page, &rb->rec, rb->block, ref, at->group_first_row, &e);
    (void)err; /* its failures are logged by decoded_block, where they happen */
    if (rc) return rc;
    *vals = e->vals;
    *hold = e;
    return 0;
}

static void source_put(void *ctx, void *hold)
{
    struct fs_session *s = ctx;
    fs_cache_release(&s->cache, hold);
}

/* What row_source_get hands out: a cache entry, or a row decoded alone. */
struct row_hold {
    struct fs_entry *e;
    bool cached;
};

/* The block source of one row (rows/ID): a sliding-window page's row decoded
 * alone, from the last base before it, not the page (a page of hashed ids can
 * span its row group: its dictionary pays the more rows share it; decoding all
 * of it for one row would cost ~100 times the row). Not cached: the row's
 * file is. Other pages come from the cache as for listings. */
static int row_source_get(void *ctx, const struct ig_column_ref *ref, const struct ig_row_at *at,
                          struct ig_row_block *rb, struct ig_values **vals, void **hold, struct ig_error *err)
{
    struct fs_session *s = ctx;
    struct row_hold *h = calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    int rc;
    if (!ig_reader_rows_alone(ref, &rb->rec)) {
        h->cached = true;
        rc = decoded_block(s, at->part, rb->page, &rb->rec, rb->block, ref, at->group_first_row, &h->e);
    } else {
        struct fs_scratch *sc = fs_scratch(s);
        uint8_t *pick = calloc(rb->rec.row_count / 8 + 1, 1);
        h->e = fs_entry_new(0, 0);
        rc = sc && pick && h->e && (h->e->vals = calloc(1, sizeof *h->e->vals)) ? 0 : -ENOMEM;
        if (!rc && rb->index >= rb->rec.row_count) rc = -EIO;
        if (!rc) {
            struct ig_error e2 = {0};
            pick[rb->index / 8] = (uint8_t)(1u << (rb->index % 8));
            ig_values_init(h->e->vals, ref->rec.type);
            struct ig_block_load bl = {.rec = &rb->rec, .block = rb->block, .pick = pick};
            struct ig_page_at pa = {&s->table.parts[at->part], ref, rb->page, at->group_first_row};
            rc = ig_reader_load_block(&sc->r, &pa, &bl, h->e->vals, &e2);
            if (rc) rc = fs_page_failed(s, at->part, rb->page, e2.msg, rc);
            if (!rc && h->e->vals->rows == 1) rb->index = 0; /* the row alone (an older part's page comes whole) */
        }
        free(pick);
    }
    (void)err; /* failures are logged where they happen */
    if (rc) {
        if (!h->cached) fs_entry_free(h->e);
        free(h);
        return rc;
    }
    *vals = h->e->vals;
    *hold = h;
    return 0;
}

static void row_source_put(void *ctx, void *hold)
{
    struct fs_session *s = ctx;
    struct row_hold *h = hold;
    if (h->cached)
        fs_cache_release(&s->cache, h->e);
    else
        fs_entry_free(h->e);
    free(h);
}

int fs_rows_sizes(struct fs_session *s, uint64_t first, size_t count, struct ig_buf *scratch,
                  uint64_t *sizes, size_t *done)
{
    struct ig_block_source src = {source_get, source_put, s};
    struct ig_error err = {0};
    return ig_rows_json_len(&s->table, first, count, &src, scratch, sizes, done, &err);
}

int fs_row_render(struct fs_session *s, uint64_t row, struct ig_buf *out)
{
    struct ig_block_source src = {row_source_get, row_source_put, s};
    struct ig_error err = {0};
    int rc = ig_row_render_json(&s->table, row, NULL, 0, &src, out, &err);
    /* block read failures were logged where they happened (no message here) */
    if (rc == -EIO && err.msg[0]) fs_log_page_error(s, 0x7FFFFFFFu, (uint32_t)row, err.msg);
    return rc;
}

int fs_rows_render(struct fs_session *s, uint64_t first, size_t count, struct ig_buf *out, size_t *done)
{
    struct ig_block_source src = {source_get, source_put, s};
    struct ig_error err = {0};
    int rc = ig_rows_render_json(&s->table, first, count, &src, out, done, &err);
    if (rc == -EIO && err.msg[0]) fs_log_page_error(s, 0x7FFFFFFFu, (uint32_t)first, err.msg);
    return rc;
}
