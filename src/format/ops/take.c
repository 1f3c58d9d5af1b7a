/* take.c - rows by id: locating a row's blocks and rendering it from them. */
#include "take.h"
#include "take_int.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/part/columns.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
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
    struct ig_pagerec *rec = &rb->rec;
    if (ig_part_page(p, lo, rec, NULL) || rec->leaf != leaf || rec->first_row > at->in_group ||
        at->in_group - rec->first_row >= rec->row_count)
        return -EIO;
    uint32_t in_page = at->in_group - rec->first_row;
    if (ig_part_block_of_row(p, lo, rec, in_page, &rb->block, &rb->blk, NULL)) return -EIO;
    rb->page = lo;
    rb->index = in_page - rb->blk.first_row;
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

/* sh holds no column (its room for leaves kept) */
static void shape_reset(struct ig_column_shape *sh)
{
    if (sh->t && sh->nested) ig_tree_free(&sh->tree);
    sh->t = NULL;
    sh->nested = false;
}

void ig_column_shape_free(struct ig_column_shape *sh)
{
    shape_reset(sh);
    free(sh->leaves);
    sh->leaves = NULL;
    sh->leaves_cap = 0;
}

/* sh made the shape of column col of t, unless it is already */
static int shape_of(const struct ig_table *t, uint32_t col, struct ig_column_shape *sh, struct ig_error *err)
{
    if (sh->t == t && sh->col == col) return 0;
    shape_reset(sh);
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
    if (sh->tree.nleaves > sh->leaves_cap) {
        struct ig_column_ref *l = realloc(sh->leaves, sh->tree.nleaves * sizeof *l);
        if (!l) {
            ig_tree_free(&sh->tree);
            return ig_err(err, -ENOMEM, "out of memory");
        }
        sh->leaves = l;
        sh->leaves_cap = sh->tree.nleaves;
    }
    sh->t = t; /* now a reset frees the tree */
    sh->col = col;
    sh->nested = true;
    for (uint32_t l = 0; l < sh->tree.nleaves && !rc; l++) {
        uint32_t leaf_col;
        rc = ig_part_leaf_column(p0, sh->tree.leaf_global[l], &leaf_col, err);
        if (!rc) rc = ig_table_column_at(t, leaf_col, &sh->leaves[l], err);
    }
    if (rc) shape_reset(sh);
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

/* A flat leaf column's value in one row. */
static int leaf_json(const struct ig_table *t, const struct ig_column_ref *ref, const struct ig_row_at *at,
                     const struct ig_block_source *src, struct ig_buf *out, struct ig_error *err)
{
    struct ig_values *v;
    void *hold;
    size_t i;
    int rc = ig_row_leaf(t, ref, at, src, &v, &hold, &i, err);
    if (rc) return rc;
    rc = ig_render_json_value(out, v, i) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    src->put(src->ctx, hold);
    return rc;
}

int ig_row_value_json(const struct ig_table *t, uint32_t col, const struct ig_row_at *at,
                      const struct ig_block_source *src, struct ig_buf *out, struct ig_error *err)
{
    struct ig_column_shape local = {0}, *sh = src->shape ? src->shape : &local;
    int rc = shape_of(t, col, sh, err);
    if (!rc)
        rc = sh->nested ? nested_value(t, sh, at, src, out, err) : leaf_json(t, &sh->ref, at, src, out, err);
    ig_column_shape_free(&local);
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
