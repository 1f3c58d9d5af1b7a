/* take.c - rows by id: locating a row's blocks and rendering it from them. */
#include "take.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/part/columns.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* Where row `row` is, erased or not (-ENOENT out of range). */
static int row_place(const struct ig_table *t, uint64_t row, struct ig_row_at *at, uint64_t *local_out)
{
    uint64_t local;
    if (ig_table_row(t, row, &at->part, &local)) return -ENOENT;
    const struct ig_part *p = &t->parts[at->part];
    *local_out = local;
    uint32_t lo = 0, hi = p->num_groups; /* last group with first_row <= local */
    struct ig_grouprec gr;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ig_part_group(p, mid, &gr, NULL)) return -EIO;
        if (gr.first_row <= local)
            lo = mid;
        else
            hi = mid;
    }
    if (ig_part_group(p, lo, &gr, NULL) || local < gr.first_row ||
        local - gr.first_row >= gr.row_count)
        return -EIO;
    at->group = lo;
    at->in_group = (uint32_t)(local - gr.first_row);
    at->group_first_row = gr.first_row;
    return 0;
}

int ig_row_locate(const struct ig_table *t, uint64_t row, struct ig_row_at *at)
{
    uint64_t local;
    int rc = row_place(t, row, at, &local);
    if (rc) return rc;
    return ig_part_row_deleted(&t->parts[at->part], local) ? -ENOENT : 0;
}

int ig_row_block(const struct ig_part *p, const struct ig_row_at *at, uint32_t leaf,
                 struct ig_row_block *rb)
{
    uint32_t first, count;
    if (ig_part_chunk(p, at->group, leaf, &first, &count, NULL) || !count) return -EIO;
    uint32_t lo = first, hi = first + count; /* last page with first_row <= in_group */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        struct ig_pagerec r;
        if (ig_part_page(p, mid, &r, NULL)) return -EIO;
        if (r.first_row <= at->in_group)
            lo = mid;
        else
            hi = mid;
    }
    struct ig_pagerec *rec = &rb->rec, blk;
    if (ig_part_page(p, lo, rec, NULL) || rec->leaf != leaf || rec->first_row > at->in_group ||
        at->in_group - rec->first_row >= rec->row_count)
        return -EIO;
    uint32_t in_page = at->in_group - rec->first_row;
    if (ig_part_block_of_row(p, lo, rec, in_page, &rb->block, &blk, NULL)) return -EIO;
    rb->page = lo;
    rb->index = in_page - blk.first_row;
    return 0;
}

int ig_row_leaf(const struct ig_table *t, const struct ig_column_ref *ref,
                const struct ig_row_at *at, const struct ig_block_source *src, struct ig_values **v,
                void **hold, size_t *index, struct ig_error *err)
{
    struct ig_row_block rb;
    const struct ig_part *p = &t->parts[at->part];
    if (ig_row_block(p, at, ref->rec.leaf, &rb))
        return ig_err(err, -EIO, "%s: column '%.*s': row group %u: no page holds row %u", p->path,
                      (int)ref->rec.name_len, ref->rec.name, at->group, at->in_group);
    int rc = src->get(src->ctx, ref, at, &rb, v, hold, err);
    if (rc) return rc;
    *index = rb.index;
    if (rb.index >= ((*v)->levels ? (*v)->rows : (*v)->n)) {
        src->put(src->ctx, *hold);
        return ig_err(err, -EIO, "%s: column '%.*s': page %u: block %u is shorter than its record",
                      p->path, (int)ref->rec.name_len, ref->rec.name, rb.page, rb.block);
    }
    return 0;
}

/* What a row read of column `col` decodes from the footer before any block:
 * its reference and, for a nested column (or a node inside one), the tree it
 * reassembles and its leaves' references. */
struct ig_column_shape {
    const struct ig_table *t; /* NULL: holds nothing */
    uint32_t col;
    struct ig_column_ref ref;
    struct ig_tree tree; /* nested only */
    struct ig_column_ref *leaves;
};

static void shape_clear(struct ig_column_shape *sh)
{
    if (sh->t && sh->leaves) ig_tree_free(&sh->tree);
    free(sh->leaves);
    sh->t = NULL;
    sh->leaves = NULL;
}

/* sh made the shape of column col of t, unless it is already */
static int shape_of(const struct ig_table *t, uint32_t col, struct ig_column_shape *sh, struct ig_error *err)
{
    if (sh->t == t && sh->col == col) return 0;
    shape_clear(sh);
    int rc = ig_table_column_at(t, col, &sh->ref, err);
    if (rc || !(sh->ref.nested || sh->ref.rec.leaf == IG_NONE)) {
        sh->t = rc ? NULL : t;
        sh->col = col;
        return rc;
    }
    const struct ig_part *p0 = &t->parts[0];
    const struct ig_column_ref *ref = &sh->ref;
    rc = ig_tree_from_part(p0, ref->top, ref->col == ref->top ? UINT32_MAX : ref->col, &sh->tree, err);
    if (rc) return rc;
    sh->leaves = calloc(sh->tree.nleaves ? sh->tree.nleaves : 1, sizeof *sh->leaves);
    if (!sh->leaves) {
        ig_tree_free(&sh->tree);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    for (uint32_t l = 0; l < sh->tree.nleaves && !rc; l++) {
        uint32_t leaf_col;
        rc = ig_part_leaf_column(p0, sh->tree.leaf_global[l], &leaf_col, err);
        if (!rc) rc = ig_table_column_at(t, leaf_col, &sh->leaves[l], err);
    }
    sh->t = t; /* now clear frees the tree */
    sh->col = col;
    if (rc) shape_clear(sh);
    return rc;
}

/* A nested column (or a node inside one) in one row: its leaves' blocks,
 * reassembled. The leaves of a nested column are cut into blocks alike, so the
 * row has the same index in each. */
static int nested_value(const struct ig_table *t, const struct ig_column_shape *sh,
                        const struct ig_row_at *at, const struct ig_block_source *src,
                        struct ig_buf *out, struct ig_error *err)
{
    const struct ig_column_ref *ref = &sh->ref;
    uint32_t nleaves = sh->tree.nleaves;
    void **held = calloc(nleaves ? nleaves : 1, sizeof *held);
    struct ig_values **vp = calloc(nleaves ? nleaves : 1, sizeof *vp);
    uint32_t got = 0;
    size_t index = 0;
    int rc = held && vp ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (; got < nleaves && !rc; got++) {
        size_t i = 0;
        rc = ig_row_leaf(t, &sh->leaves[got], at, src, &vp[got], &held[got], &i, err);
        if (rc) break;
        if (got > 0 && i != index)
            rc = ig_err(err, -EIO, "%s: column '%.*s': its leaves' blocks disagree on row %u",
                        t->parts[at->part].path, (int)ref->rec.name_len, ref->rec.name,
                        at->in_group);
        index = i;
    }
    if (!rc) rc = ig_assemble_row(&sh->tree, vp, index, out, err);
    for (uint32_t l = 0; held && l < got; l++)
        src->put(src->ctx, held[l]);
    free(held);
    free(vp);
    return rc;
}

int ig_row_value_json(const struct ig_table *t, uint32_t col, const struct ig_row_at *at,
                      const struct ig_block_source *src, struct ig_buf *out, struct ig_error *err)
{
    struct ig_column_shape local = {0}, *sh = src->shape ? src->shape : &local;
    int rc = shape_of(t, col, sh, err);
    if (rc) return rc;
    if (sh->leaves) {
        rc = nested_value(t, sh, at, src, out, err);
    } else {
        struct ig_values *v;
        void *hold;
        size_t i;
        rc = ig_row_leaf(t, &sh->ref, at, src, &v, &hold, &i, err);
        if (!rc) {
            rc = ig_render_json_value(out, v, i) ? ig_err(err, -ENOMEM, "out of memory") : 0;
            src->put(src->ctx, hold);
        }
    }
    shape_clear(&local);
    return rc;
}

static int render_member(const struct ig_table *t, uint32_t col, const struct ig_row_at *at,
                         const struct ig_block_source *src, bool first, struct ig_buf *out,
                         struct ig_error *err)
{
    struct ig_colrec c;
    int rc = ig_part_column(&t->parts[0], col, &c, err);
    if (rc) return rc;
    if ((!first && ig_buf_append_byte(out, ',')) ||
        ig_render_json_string(out, (const uint8_t *)c.name, c.name_len) ||
        ig_buf_append_byte(out, ':'))
        return ig_err(err, -ENOMEM, "out of memory");
    return ig_row_value_json(t, col, at, src, out, err);
}

int ig_row_render_json(const struct ig_table *t, uint64_t row, const uint32_t *cols, size_t ncols,
                       const struct ig_block_source *src, struct ig_buf *out, struct ig_error *err)
{
    struct ig_row_at at;
    int rc = ig_row_locate(t, row, &at);
    if (rc)
        return rc == -ENOENT ? ig_err(err, rc, "row %llu: no such row (erased or out of range)",
                                      (unsigned long long)row)
                             : ig_err(err, rc, "row %llu: the footer disagrees with itself",
                                      (unsigned long long)row);
    if (ig_buf_append_byte(out, '{')) return ig_err(err, -ENOMEM, "out of memory");
    bool first = true;
    if (cols) {
        for (size_t k = 0; k < ncols && !rc; k++, first = false)
            rc = render_member(t, cols[k], &at, src, first, out, err);
    } else {
        /* keys are the top-level columns the version shows, in its order */
        struct ig_shown_walk w = {0};
        for (uint32_t c; !rc && ig_table_next_top(t, &w, &c); first = false)
            rc = render_member(t, c, &at, src, first, out, err);
    }
    if (!rc && ig_buf_append(out, "}\n", 2)) rc = ig_err(err, -ENOMEM, "out of memory");
    return rc;
}

/* A flat leaf column's blocks over rows [0, n) of a run (rows at->in_group +
 * i of one row group), each taken from src once for the rows it holds: fn
 * gets rows i .. i + m - 1 of the run as the block's values index .. index +
 * m - 1 (a block holds every row of its range, erased ones in place; live
 * says which count). Runs of erased rows between blocks are not shown to fn. */
struct leaf_walk {
    const struct ig_table *t;
    const struct ig_column_ref *ref;
    const struct ig_row_at *at;
    size_t n;
    const uint8_t *live;
    const struct ig_block_source *src;
    struct ig_error *err;
};
typedef int (*leaf_block_fn)(const struct leaf_walk *w, const struct ig_values *v, size_t index, size_t i,
                             size_t m, void *ctx);

static int walk_leaf_blocks(const struct leaf_walk *w, leaf_block_fn fn, void *ctx)
{
    int rc = 0;
    for (size_t i = 0; i < w->n && !rc;) {
        if (!w->live[i]) {
            i++;
            continue;
        }
        struct ig_row_at r = *w->at;
        r.in_group = w->at->in_group + (uint32_t)i;
        struct ig_values *v;
        void *hold;
        size_t index;
        rc = ig_row_leaf(w->t, w->ref, &r, w->src, &v, &hold, &index, w->err);
        if (rc) break;
        size_t rows = v->levels ? v->rows : v->n;
        size_t m = w->n - i < rows - index ? w->n - i : rows - index;
        rc = fn(w, v, index, i, m, ctx);
        w->src->put(w->src->ctx, hold);
        i += m;
    }
    return rc;
}

/* Add to lens[i] the JSON length of the value of each live row of a block
 * (walk_leaf_blocks): measured, rendered into scratch only where no cheaper
 * exact count exists (strings, objects). What is added to erased rows is
 * dropped by the caller. */
struct lens_ctx {
    struct ig_buf *scratch;
    uint64_t *lens;
};

static int block_lens(const struct leaf_walk *w, const struct ig_values *v, size_t index, size_t i, size_t m,
                      void *ctx)
{
    struct lens_ctx *c = ctx;
    uint64_t *lens = c->lens + i;
    if (ig_render_json_lens_add(v, index, m, lens)) return 0; /* numbers, no NULL */
    for (size_t j = 0; j < m; j++) {
        if (!w->live[i + j]) continue;
        size_t k = index + j, len;
        if (ig_values_is_null(v, k)) {
            lens[j] += 4; /* null */
        } else if (ig_render_json_len(v, k, &len)) {
            lens[j] += len;
        } else {
            ig_buf_reset(c->scratch);
            if (ig_render_json_value(c->scratch, v, k)) return ig_err(w->err, -ENOMEM, "out of memory");
            lens[j] += c->scratch->len;
        }
    }
    return 0;
}

/* The JSON value of column col (nested: reassembled) for row i of a run of
 * rows starting at `at`, appended to out. */
static int run_row_value_json(const struct ig_table *t, uint32_t col, const struct ig_row_at *at, size_t i,
                              const struct ig_block_source *src, struct ig_buf *out, struct ig_error *err)
{
    struct ig_row_at r = *at;
    r.in_group = at->in_group + (uint32_t)i;
    return ig_row_value_json(t, col, &r, src, out, err);
}

/* Rows first, first + 1, ... of first's row group, at most count: where
 * first lives, its part-local row, and how many of them there are (*n). */
static int rows_in_group(const struct ig_table *t, uint64_t first, size_t count, struct ig_row_at *at,
                         uint64_t *local, size_t *n, struct ig_error *err)
{
    int rc = row_place(t, first, at, local);
    if (rc) return ig_err(err, rc, "row %llu: no such row", (unsigned long long)first);
    const struct ig_part *p = &t->parts[at->part];
    struct ig_grouprec gr;
    if (ig_part_group(p, at->group, &gr, NULL)) return ig_err(err, -EIO, "%s: corrupt group record", p->path);
    *n = gr.row_count - at->in_group < count ? gr.row_count - at->in_group : count;
    return 0;
}

int ig_rows_json_len(const struct ig_table *t, uint64_t first, size_t count, const struct ig_block_source *src,
                     struct ig_buf *scratch, uint64_t *lens, size_t *done, struct ig_error *err)
{
    struct ig_row_at at;
    uint64_t local;
    size_t n = 0;
    *done = 0;
    int rc = rows_in_group(t, first, count, &at, &local, &n, err);
    if (rc) return rc;
    const struct ig_part *p = &t->parts[at.part];
    uint8_t *live = malloc(n ? n : 1);
    if (!live) return ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        live[i] = !ig_part_row_deleted(p, local + i);
        lens[i] = 3; /* "{", "}\n" */
    }
    bool first_col = true;
    struct ig_shown_walk shown = {0};
    for (uint32_t c; !rc && ig_table_next_shown(t, &shown, &c);) {
        struct ig_column_ref ref;
        rc = ig_table_column_at(t, c, &ref, err);
        if (rc || ref.rec.parent != IG_NONE) continue;
        ig_buf_reset(scratch);
        if (ig_render_json_string(scratch, (const uint8_t *)ref.rec.name, ref.rec.name_len)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        size_t name = scratch->len + 1 + !first_col; /* and ':', and ',' before it but the first */
        first_col = false;
        for (size_t i = 0; i < n; i++)
            lens[i] += name;
        if (ref.rec.leaf != IG_NONE && !ref.nested) {
            struct leaf_walk w = {t, &ref, &at, n, live, src, err};
            rc = walk_leaf_blocks(&w, block_lens, &(struct lens_ctx){scratch, lens});
            continue;
        }
        for (size_t i = 0; i < n && !rc; i++) { /* nested: each row reassembled */
            if (!live[i]) continue;
            ig_buf_reset(scratch);
            rc = run_row_value_json(t, c, &at, i, src, scratch, err);
            lens[i] += scratch->len;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!live[i]) lens[i] = 0; /* erased: what its block's values added goes */
    free(live);
    if (!rc) *done = n;
    return rc;
}

/* The JSON value of each live row of a block (walk_leaf_blocks) appended to
 * vals, ends[i] = vals->len after row i. */
struct values_ctx {
    struct ig_buf *vals;
    size_t *ends;
};

static int block_values(const struct leaf_walk *w, const struct ig_values *v, size_t index, size_t i, size_t m,
                        void *ctx)
{
    struct values_ctx *c = ctx;
    for (size_t j = 0; j < m; j++) {
        if (w->live[i + j] && ig_render_json_value(c->vals, v, index + j))
            return ig_err(w->err, -ENOMEM, "out of memory");
        c->ends[i + j] = c->vals->len;
    }
    return 0;
}

/* Rows a call renders are bounded so that their values' end offsets (one a
 * row and column) stay within this many: a 10,000-column table renders 100
 * rows a call (8 MB of offsets), a 300-column one a run of 256 rows whole. */
#define JSON_CELLS_MOST ((size_t)1 << 20)

int ig_rows_render_json(const struct ig_table *t, uint64_t first, size_t count, const struct ig_block_source *src,
                        struct ig_buf *out, size_t *done, struct ig_error *err)
{
    struct ig_row_at at;
    uint64_t local;
    size_t n = 0;
    *done = 0;
    int rc = rows_in_group(t, first, count, &at, &local, &n, err);
    if (rc) return rc;
    const struct ig_part *p = &t->parts[at.part];
    const struct ig_part *p0 = &t->parts[0];
    uint32_t *top = malloc(((size_t)p0->num_columns + 1) * sizeof *top), ntop = 0;
    if (!top) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_shown_walk shown = {0};
    for (uint32_t c; ntop < p0->num_columns && ig_table_next_top(t, &shown, &c);)
        top[ntop++] = c;
    if (ntop && n > JSON_CELLS_MOST / ntop) n = JSON_CELLS_MOST / ntop ? JSON_CELLS_MOST / ntop : 1;
    uint8_t *live = rc ? NULL : malloc(n ? n : 1);
    size_t *ends = rc ? NULL : malloc(((size_t)ntop * n + 1) * sizeof *ends);
    size_t *starts = rc ? NULL : calloc((size_t)ntop + 1, sizeof *starts);
    size_t *name_end = rc ? NULL : malloc(((size_t)ntop + 1) * sizeof *name_end);
    struct ig_buf vals = IG_BUF_INIT, names = IG_BUF_INIT;
    if (!rc && (!live || !ends || !starts || !name_end)) rc = ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        live[i] = !ig_part_row_deleted(p, local + i);
    /* every column's values, column by column; then the rows put together */
    for (uint32_t k = 0; k < ntop && !rc; k++) {
        struct ig_column_ref ref;
        size_t *e = ends + (size_t)k * n;
        rc = ig_table_column_at(t, top[k], &ref, err);
        if (!rc && (ig_render_json_string(&names, (const uint8_t *)ref.rec.name, ref.rec.name_len) ||
                    ig_buf_append_byte(&names, ':')))
            rc = ig_err(err, -ENOMEM, "out of memory");
        name_end[k] = names.len;
        starts[k] = vals.len;
        if (rc) break;
        if (ref.rec.leaf != IG_NONE && !ref.nested) {
            /* rows erased between blocks add nothing: their ends are the row's before */
            for (size_t i = 0; i < n; i++)
                e[i] = SIZE_MAX;
            struct leaf_walk w = {t, &ref, &at, n, live, src, err};
            rc = walk_leaf_blocks(&w, block_values, &(struct values_ctx){&vals, e});
            for (size_t i = 0; i < n && !rc; i++)
                if (e[i] == SIZE_MAX) e[i] = i ? e[i - 1] : starts[k];
            continue;
        }
        for (size_t i = 0; i < n && !rc; i++) { /* nested: each row reassembled */
            if (live[i]) rc = run_row_value_json(t, top[k], &at, i, src, &vals, err);
            e[i] = vals.len;
        }
    }
    /* the rows put together: each row's length is known (its names, commas
     * and values), so its bytes are reserved once and copied in place */
    for (size_t i = 0; i < n && !rc; i++) {
        if (!live[i]) continue;
        size_t len = 3 + (ntop ? ntop - 1 : 0) + names.len;
        for (uint32_t k = 0; k < ntop; k++) {
            const size_t *e = ends + (size_t)k * n;
            len += e[i] - (i ? e[i - 1] : starts[k]);
        }
        if (ig_buf_reserve(out, len)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        uint8_t *w = out->data + out->len;
        *w++ = '{';
        for (uint32_t k = 0; k < ntop; k++) {
            const size_t *e = ends + (size_t)k * n;
            size_t v0 = i ? e[i - 1] : starts[k], n0 = k ? name_end[k - 1] : 0;
            if (k) *w++ = ',';
            memcpy(w, names.data + n0, name_end[k] - n0);
            w += name_end[k] - n0;
            if (e[i] > v0) memcpy(w, vals.data + v0, e[i] - v0); /* (an empty run: vals may be NULL) */
            w += e[i] - v0;
        }
        *w++ = '}';
        *w++ = '\n';
        out->len += len;
    }
    free(top);
    free(live);
    free(ends);
    free(starts);
    free(name_end);
    ig_buf_free(&vals);
    ig_buf_free(&names);
    if (!rc) *done = n;
    return rc;
}

/* The block each leaf was last advised for: rows next to each other share
 * their blocks, and one piece of advice covers them all (a range of 300 rows
 * of a 10,000-column table advised each block 300 times: 3,000,000 calls). */
struct advised {
    uint32_t part, page, block;
    bool set;
    /* on object storage, what the leaf's chunk in (chunk_part, group) was
     * found to be worth for this batch: the whole chunk (chunk.len > 0) or
     * its blocks one by one (chunk.len 0); decided once per chunk and batch,
     * not for each of its rows (the cache's count does not move before the
     * batch's fetch) */
    uint32_t chunk_part, group;
    struct ig_range chunk;
    bool chunk_set;
};

/* Ask the kernel for one leaf's block holding the row (advice only), unless
 * it was the block last asked for. */
struct prefetch {
    struct advised *last; /* per leaf, or NULL */
    ig_block_held_fn held;
    void *held_ctx;
    /* blocks of parts on object storage: fetched together at the end, in
     * parallel (a row of ten columns: ten range GETs at once, not in turn) */
    struct ig_range *want;
    uint32_t *want_part;
    size_t nwant, cap;
};

/* A leaf's whole chunk in a group is fetched for one row's block when it is
 * this small (an id column's deltas: a few KiB for 65,536 rows): the rows
 * after it in the group then need no request of their own for that column
 * (1,000 random rows of 1,000,000 on object storage: 1.27 GETs a row). */
#define SMALL_CHUNK ((uint64_t)64 << 10)
/* A larger chunk, up to DENSE_CHUNK, is fetched whole once readers have come
 * to it apart as many times as it holds DENSE_BYTES (at least DENSE_AFTER):
 * a reader taking random rows of a table keeps returning to its groups, one
 * round trip each, and then needs no more requests there; what it fetched is
 * at most DENSE_BYTES for each time it came. A reader of a few rows of a
 * large table never comes to one chunk that often. */
#define DENSE_AFTER 4
#define DENSE_BYTES ((uint64_t)1 << 20)
#define DENSE_CHUNK ((uint64_t)32 << 20)

/* The bytes to fetch for block blk of a row: its chunk's pages when they lie
 * together in at most SMALL_CHUNK bytes, or in at most DENSE_CHUNK that
 * readers came to often enough already (above); else the block. */
static struct ig_range chunk_or_block(const struct ig_part *p, const struct ig_row_at *at, uint32_t leaf,
                                      const struct ig_pagerec *blk)
{
    struct ig_range r = {blk->offset, blk->stored};
    uint32_t first, count;
    struct ig_pagerec a, b;
    if (ig_part_chunk(p, at->group, leaf, &first, &count, NULL) || !count || ig_part_page(p, first, &a, NULL) ||
        ig_part_page(p, first + count - 1, &b, NULL) || b.offset < a.offset)
        return r;
    uint64_t end = b.offset + b.stored, len = end - a.offset;
    if (a.offset > r.off || r.off + r.len > end) return r;
    uint64_t dense = len / DENSE_BYTES > DENSE_AFTER ? len / DENSE_BYTES : DENSE_AFTER;
    if (len <= SMALL_CHUNK || (len <= DENSE_CHUNK && ig_obj_cached_pieces(p->obj, a.offset, len) >= dense))
        r = (struct ig_range){a.offset, len};
    return r;
}

static void prefetch_leaf(const struct ig_part *p, uint32_t part, const struct ig_row_at *at, uint32_t leaf,
                          struct prefetch *pf)
{
    struct ig_row_block rb;
    struct ig_pagerec blk;
    struct advised *last = pf->last && leaf < p->num_leaves ? &pf->last[leaf] : NULL;
    if (ig_row_block(p, at, leaf, &rb)) return;
    if (last && last->set && last->part == part && last->page == rb.page && last->block == rb.block) return;
    if (pf->held && pf->held(pf->held_ctx, part, rb.page, rb.block)) return;
    if (ig_part_block(p, rb.page, &rb.rec, rb.block, &blk, NULL)) return;
    if (last) last->part = part, last->page = rb.page, last->block = rb.block, last->set = true;
    if (!p->obj) {
        (void)posix_fadvise(p->fd, (off_t)blk.offset, (off_t)blk.stored, POSIX_FADV_WILLNEED);
        return;
    }
    struct ig_range r;
    if (last && last->chunk_set && last->chunk_part == part && last->group == at->group) {
        if (last->chunk.len) return; /* the whole chunk is wanted already */
        r = (struct ig_range){blk.offset, blk.stored};
    } else {
        r = chunk_or_block(p, at, leaf, &blk);
        if (last) {
            bool whole = r.off != blk.offset || r.len != blk.stored;
            last->chunk_part = part, last->group = at->group, last->chunk_set = true;
            last->chunk = whole ? r : (struct ig_range){0, 0};
        }
    }
    if (pf->nwant == pf->cap) {
        size_t nc = pf->cap ? 2 * pf->cap : 64;
        struct ig_range *w = realloc(pf->want, nc * sizeof *w);
        if (w) pf->want = w;
        uint32_t *wp = w ? realloc(pf->want_part, nc * sizeof *wp) : NULL;
        if (!wp) return;
        pf->want_part = wp;
        pf->cap = nc;
    }
    pf->want[pf->nwant] = r;
    pf->want_part[pf->nwant++] = part;
}

/* The blocks gathered for parts on object storage, fetched part by part,
 * waiting for them (the reads that follow find them cached). */
static void prefetch_remote(const struct ig_table *t, struct prefetch *pf)
{
    struct ig_range *mine = pf->nwant ? malloc(pf->nwant * sizeof *mine) : NULL;
    for (uint32_t part = 0; mine && part < t->nparts; part++) {
        size_t k = 0;
        for (size_t i = 0; i < pf->nwant; i++)
            if (pf->want_part[i] == part) mine[k++] = pf->want[i];
        if (k && t->parts[part].obj) ig_obj_prefetch(t->parts[part].obj, mine, k, true);
    }
    free(mine);
    free(pf->want);
    free(pf->want_part);
}

void ig_take_prefetch(const struct ig_table *t, const uint64_t *ids, size_t n, const uint32_t *cols,
                      size_t ncols, ig_block_held_fn held, void *held_ctx)
{
    const struct ig_part *p0 = &t->parts[0];
    /* last NULL (one row, or no memory): every block advised */
    struct prefetch pf = {n > 1 ? calloc(p0->num_leaves ? p0->num_leaves : 1, sizeof *pf.last) : NULL, held,
                          held_ctx};
    /* the leaves of the columns asked, found once: a row's prefetch is then
     * no footer decoding but its blocks' */
    struct ig_buf leaves = IG_BUF_INIT;
    for (size_t k = 0; k < (cols ? ncols : p0->num_columns); k++) {
        struct ig_column_ref ref;
        if (ig_table_column_at(t, cols ? cols[k] : (uint32_t)k, &ref, NULL)) continue;
        /* all columns: the top-level ones the version shows */
        if (!cols && (ref.rec.parent != IG_NONE || !ig_table_shows(t, (uint32_t)k))) continue;
        if (ref.rec.leaf != IG_NONE && !ref.nested) {
            if (ig_buf_append(&leaves, &ref.rec.leaf, sizeof ref.rec.leaf)) break;
            continue;
        }
        struct ig_tree tree; /* a nested column: each of its leaves */
        if (ig_tree_from_part(p0, ref.top, ref.col == ref.top ? UINT32_MAX : ref.col, &tree, NULL)) continue;
        bool full = ig_buf_append(&leaves, tree.leaf_global, tree.nleaves * sizeof *tree.leaf_global) != 0;
        ig_tree_free(&tree);
        if (full) break;
    }
    const uint32_t *leaf = (const uint32_t *)(const void *)leaves.data;
    size_t nleaves = leaves.len / sizeof *leaf;
    for (size_t i = 0; i < n; i++) {
        struct ig_row_at at;
        if (ig_row_locate(t, ids[i], &at)) continue;
        for (size_t l = 0; l < nleaves; l++)
            prefetch_leaf(&t->parts[at.part], at.part, &at, leaf[l], &pf);
    }
    ig_buf_free(&leaves);
    prefetch_remote(t, &pf);
    free(pf.last);
}

/* ---- a take handle: one decoded block (or row) per column ---- */

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
    /* while ig_take_visit runs: the rows it visits in turn (ascending ids)
     * and which one it is at, so that a block's load knows the rows after
     * the one asked for that it will serve */
    const struct ig_row_at *ahead;
    size_t ahead_n, ahead_at;
};

/* How many of a block's first rows the rows being visited want from it: up
 * to the last of them in the block (the one at `at` is row `index` of the
 * block's `rows`). Only a visit knows the rows to come: other readers (a run
 * of rows rendered block by block) take the block whole. */
static size_t rows_wanted(const struct ig_take *tk, const struct ig_row_at *at, size_t index, size_t rows)
{
    if (!tk->ahead) return 0;
    size_t last = index, first = at->in_group - index;
    for (size_t q = tk->ahead_at + 1; q < tk->ahead_n; q++) {
        const struct ig_row_at *a = &tk->ahead[q];
        if (a->part != at->part || a->group != at->group || a->in_group < first ||
            a->in_group - first >= rows)
            break;
        last = a->in_group - first;
    }
    return last + 1;
}

/* A top-level string or binary column reads the row alone: random rows of a
 * large table hit a block once each, and decoding one huffman item is a
 * fraction of decoding its block. So does a sliding-window page (a top-level
 * list of integers, one leaf): its row decodes from the last base before it,
 * not from the page's start. Other nested leaves keep whole blocks (their
 * leaves must agree on the row's index). */
static bool reads_one_row(const struct ig_column_ref *ref, const struct ig_pagerec *page)
{
    if (ig_reader_rows_alone(ref, page)) return true;
    return !ref->nested && ref->rec.parent == IG_NONE && !ref->li.levels &&
           ref->rec.type != IG_T_BLOB && ig_type_info(ref->rec.type) &&
           ig_type_info(ref->rec.type)->phys == IG_PHYS_BYTES;
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
     * 1. A sliding-window page (up to a row group) keeps decoding rows alone
     * from their bases. */
    bool in_order = rb->index > s->index && rb->index - s->index <= 4;
    bool whole = same_block && s->one_row && (s->framed || in_order) &&
                 !ig_reader_rows_alone(ref, &rb->rec);
    s->loaded = false;
    ig_values_retype(&s->vals, ref->rec.type);
    struct ig_pagerec blk;
    const uint8_t *pick = NULL;
    size_t want = rb->index;
    bool one = !whole && reads_one_row(ref, &rb->rec);
    bool have_blk = (one || ref->li.levels) &&
                    ig_part_block(&tk->t->parts[at->part], rb->page, &rb->rec, rb->block, &blk, NULL) == 0 &&
                    want < blk.row_count;
    if (one && have_blk) {
        ig_buf_reset(&tk->pick);
        uint8_t *bits = ig_buf_extend(&tk->pick, blk.row_count / 8 + 1);
        if (!bits) return ig_err(err, -ENOMEM, "out of memory");
        memset(bits, 0, blk.row_count / 8 + 1);
        bits[want / 8] = (uint8_t)(1u << (want % 8));
        pick = bits;
    }
    /* in a visit, a nested leaf's block decodes its levels only as far as
     * the last row the visit wants of it (a joint stream costs some ns an
     * entry, and one row is on average half way through its block); a row
     * past them (another visit) decodes it whole */
    size_t first_rows = ref->li.levels && have_blk && !same_block ? rows_wanted(tk, at, want, blk.row_count) : 0;
    struct ig_block_load bl = {.rec = &rb->rec, .block = rb->block, .pick = pick, .first_rows = (uint32_t)first_rows};
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
    shape_clear(&tk->shape);
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
    for (size_t k = 0; k < ncols && !rc; k++)
        for (size_t j = 0; j < live && !rc; j++) {
            tk->ahead_at = j;
            rc = value(ctx, k, order[j], &at[j], err);
        }
    tk->ahead = NULL;
    tk->ahead_n = 0;
    free(order);
    free(at);
    return rc;
}
