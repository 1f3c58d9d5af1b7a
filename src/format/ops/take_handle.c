/* take_handle.c - a take handle (take.h, ig_take): a reader and one decoded
 * block (or row) per column, kept between rows and calls; the visit of a
 * batch of rows column by column. */
#include "take.h"
#include "take_int.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct take_slot {
    bool loaded, one_row; /* one_row: vals hold the row at `index` alone */
    bool first_rows;      /* vals hold the block's first vals.rows rows (a nested leaf) */
    bool framed;          /* the block is one zstd frame: a row alone decompresses it whole */
    uint32_t part, page, block;
    size_t index;
    struct ig_values vals;
    struct ig_buf blob_dir;
};

struct ig_take {
    const struct ig_table *t;
    struct ig_reader r;
    struct take_slot *slots; /* one per column */
    uint32_t nslots;
    struct ig_buf pick; /* one row's bit in a block */
    struct ig_block_source src;
    struct ig_column_shape shape; /* the last column a row was read of */
    /* while ig_take_visit runs (ahead: the rows it visits in turn, by
     * place) or ig_take_render_row (ahead_ids: the rows to be read after
     * it, by id), which row it is at: so that a block's load knows the rows
     * after the one asked for that it will serve */
    const struct ig_row_at *ahead;
    const uint64_t *ahead_ids;
    size_t ahead_n, ahead_at;
    bool reading; /* one of the two runs */
};

/* How many of a block's first rows the rows being read want from it: up to
 * the last of the rows coming next that the block holds (the one at `at` is
 * row `index` of the block's `rows`). Only a visit or a row render knows the
 * rows to come: other readers (a run of rows rendered block by block) take
 * the block whole. */
static size_t rows_wanted(const struct ig_take *tk, const struct ig_row_at *at, size_t index, size_t rows)
{
    if (!tk->reading) return 0;
    size_t last = index, first = at->in_group - index;
    for (size_t q = tk->ahead_at + 1; q < tk->ahead_n; q++) {
        struct ig_row_at a;
        if (tk->ahead)
            a = tk->ahead[q];
        else if (ig_row_locate(tk->t, tk->ahead_ids[q], &a))
            break;
        if (a.part != at->part || a.group != at->group || a.in_group < first || a.in_group - first >= rows)
            break;
        if (a.in_group - first > last) last = a.in_group - first;
    }
    return last + 1;
}

/* A top-level string or binary column reads the row alone: random rows of a
 * large table hit a block once each, and decoding one huffman item is a
 * fraction of decoding its block. So does a sliding-window page (a top-level
 * list of integers, one leaf): its row decodes from the last base before it,
 * not from the page's start. Other nested leaves decode their blocks from
 * the start (their leaves must agree on the row's index), as far as
 * rows_wanted says. */
static bool reads_one_row(const struct ig_column_ref *ref, const struct ig_pagerec *page)
{
    if (ig_reader_rows_alone(ref, page)) return true;
    return !ref->nested && ref->rec.parent == IG_NONE && !ref->li.levels &&
           ref->rec.type != IG_T_BLOB && ig_type_info(ref->rec.type);
}

/* A flat leaf of fixed-width values (ints, floats, booleans, dates...): a row
 * that is the only one of its block a take reads next is read alone (one
 * lane: a dictionary's code and entry, a bit-packed slot); a block more rows
 * come from is decoded whole, as is one a row alone was read of when another
 * comes. */
static bool reads_lanes(const struct ig_column_ref *ref)
{
    return ig_type_info(ref->rec.type) && ig_type_info(ref->rec.type)->phys != IG_PHYS_BYTES;
}

static int take_get(void *ctx, const struct ig_column_ref *ref, const struct ig_row_at *at,
                    struct ig_row_block *rb, struct ig_values **vals, void **hold,
                    struct ig_error *err)
{
    struct ig_take *tk = ctx;
    if (ref->col >= tk->nslots) return ig_err(err, -EIO, "column %u out of range", ref->col);
    struct take_slot *s = &tk->slots[ref->col];
    *hold = NULL;
    *vals = &s->vals;
    bool same_block = s->loaded && s->part == at->part && s->page == rb->page && s->block == rb->block;
    if (same_block && (s->one_row ? s->index == rb->index : !s->first_rows || rb->index < s->vals.rows)) {
        if (s->one_row) rb->index = 0;
        return 0;
    }
    /* a second row of a string block held alone is read by decoding the
     * block (some 4 KiB) whole, once, instead of reading each row alone,
     * where a row alone costs that much anyway (a zstd frame, decompressed
     * whole) or the rows are coming in order (a range: a row a few after
     * the one held; erased rows between). Random rows that only share a
     * block whose items read alone (huffman, fsst, plain) stay alone: a
     * whole huffman block of captions costs some 17 us, a row of it under
     * 1. A block of fixed-width values is decoded whole at its second row
     * (each row alone would decode its lane again, some ns to a delta's
     * whole run). A sliding-window page (up to a row group) keeps decoding
     * rows alone from their bases. */
    bool in_order = rb->index > s->index && rb->index - s->index <= 4;
    bool lanes = reads_lanes(ref);
    bool whole = same_block && s->one_row && (s->framed || in_order || lanes) &&
                 !ig_reader_rows_alone(ref, &rb->rec);
    s->loaded = false;
    ig_values_retype(&s->vals, ref->rec.type);
    struct ig_pagerec blk = rb->blk;
    const uint8_t *pick = NULL;
    size_t want = rb->index;
    bool one = !whole && reads_one_row(ref, &rb->rec);
    /* fixed-width values alone only where no other row of the block comes
     * next (or where the rows to come are unknown: the block whole) */
    if (one && lanes && want < blk.row_count &&
        rows_wanted(tk, at, want, blk.row_count) != want + 1)
        one = false;
    bool have_blk = (one || ref->li.levels) && want < blk.row_count;
    if (one && have_blk) {
        ig_buf_reset(&tk->pick);
        uint8_t *bits = ig_buf_extend(&tk->pick, blk.row_count / 8 + 1);
        if (!bits) return ig_err(err, -ENOMEM, "out of memory");
        memset(bits, 0, blk.row_count / 8 + 1);
        bits[want / 8] = (uint8_t)(1u << (want % 8));
        pick = bits;
    }
    /* a nested leaf's block decodes its levels only as far as the last of
     * the rows coming next that it holds (a joint stream costs some ns an
     * entry, and one row is on average half way through its block); a row
     * past them (a later call) decodes it whole */
    size_t first_rows = ref->li.levels && have_blk && !same_block ? rows_wanted(tk, at, want, blk.row_count) : 0;
    struct ig_block_load bl = {.rec = &rb->rec,
                               .block = rb->block,
                               .pick = pick,
                               .pick_lanes = lanes,
                               .first_rows = (uint32_t)first_rows};
    struct ig_page_at pa = {&tk->t->parts[at->part], ref, rb->page, at->group_first_row};
    int rc = ig_reader_load_block(&tk->r, &pa, &bl, &s->vals, err);
    if (rc) return rc;
    blk = bl.blk;
    /* the values render blob references under their column's directory */
    ig_buf_reset(&s->blob_dir);
    if (ig_buf_append(&s->blob_dir, ref->blob_dir, strlen(ref->blob_dir) + 1))
        return ig_err(err, -ENOMEM, "out of memory");
    s->vals.blob_dir = (const char *)s->blob_dir.data;
    s->loaded = true;
    s->part = at->part;
    s->page = rb->page;
    s->block = rb->block;
    /* an older part's page comes whole */
    s->one_row = pick && (s->vals.levels ? s->vals.rows : s->vals.n) != blk.row_count;
    s->first_rows = !pick && s->vals.levels && s->vals.rows != blk.row_count;
    s->index = want;
    s->framed = blk.compression != IG_PC_NONE;
    if (s->one_row) rb->index = 0;
    return 0;
}

static void take_put(void *ctx, void *hold)
{
    (void)ctx;
    (void)hold;
}

int ig_take_new(const struct ig_table *t, struct ig_take **out)
{
    struct ig_take *tk = calloc(1, sizeof *tk);
    uint32_t n = t->nparts ? t->parts[0].num_columns : 0;
    if (!tk || !(tk->slots = calloc(n ? n : 1, sizeof *tk->slots))) {
        free(tk);
        return -ENOMEM;
    }
    for (uint32_t c = 0; c < n; c++)
        ig_values_init(&tk->slots[c].vals, IG_T_INT64);
    tk->t = t;
    tk->nslots = n;
    tk->src = (struct ig_block_source){take_get, take_put, tk, &tk->shape};
    *out = tk;
    return 0;
}

void ig_take_free(struct ig_take *tk)
{
    if (!tk) return;
    for (uint32_t c = 0; c < tk->nslots; c++) {
        ig_values_free(&tk->slots[c].vals);
        ig_buf_free(&tk->slots[c].blob_dir);
    }
    free(tk->slots);
    ig_column_shape_free(&tk->shape);
    ig_buf_free(&tk->pick);
    ig_reader_free(&tk->r);
    free(tk);
}

const struct ig_block_source *ig_take_source(struct ig_take *tk)
{
    return &tk->src;
}

uint64_t ig_take_contexts_read(const struct ig_take *tk)
{
    return tk->r.ctx_reads;
}

/* qsort has no context argument: the ids of this thread's take */
static _Thread_local const uint64_t *sort_ids;
static int by_id(const void *a, const void *b)
{
    uint64_t x = sort_ids[*(const size_t *)a], y = sort_ids[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

/* Positions 0..n-1 in ascending id order. */
static size_t *id_order(const uint64_t *ids, size_t n)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return NULL;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_ids = ids;
    qsort(order, n, sizeof *order, by_id);
    return order;
}

int ig_take_visit(struct ig_take *tk, const uint64_t *ids, size_t n, size_t ncols, uint8_t *found,
                  ig_take_value_fn value, void *ctx, struct ig_error *err)
{
    size_t *order = id_order(ids, n), live = 0;
    struct ig_row_at *at = malloc((n ? n : 1) * sizeof *at); /* the live rows in id order */
    int rc = order && at ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (size_t j = 0; j < n && !rc; j++) {
        size_t i = order[j];
        int got = ig_row_locate(tk->t, ids[i], &at[live]);
        if (got == -ENOENT) continue;
        if (got) {
            rc = ig_err(err, got, "row %llu: the footer disagrees with itself", (unsigned long long)ids[i]);
            break;
        }
        found[i] = 1;
        order[live++] = i; /* live <= j: order[j] is read before */
    }
    tk->ahead = at;
    tk->ahead_n = live;
    tk->reading = true;
    for (size_t k = 0; k < ncols && !rc; k++)
        for (size_t j = 0; j < live && !rc; j++) {
            tk->ahead_at = j;
            rc = value(ctx, k, order[j], &at[j], err);
        }
    tk->ahead = NULL;
    tk->ahead_n = 0;
    tk->reading = false;
    free(order);
    free(at);
    return rc;
}

int ig_take_render_row(struct ig_take *tk, const uint64_t *ids, size_t n, size_t i, const uint32_t *cols,
                       size_t ncols, struct ig_buf *out, struct ig_error *err)
{
    if (i >= n) return ig_err(err, -EINVAL, "row %zu of %zu", i, n);
    tk->ahead_ids = ids;
    tk->ahead_n = n;
    tk->ahead_at = i;
    tk->reading = true;
    int rc = ig_row_render_json(tk->t, ids[i], cols, ncols, &tk->src, out, err);
    tk->reading = false;
    tk->ahead_ids = NULL;
    tk->ahead_n = 0;
    return rc;
}
