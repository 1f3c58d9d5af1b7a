/* writer_encode.c - one segment of a planned top-level column into pages
 * (ig_writer_encode_segment): each page encoded in the blocks the plan cuts
 * (page.h), a graft's deleted rows erased, the page and block records and
 * bytes kept in the segment's ig_column_out until writer.c commits the group.
 * Where pages and blocks are cut is writer_plan.c's. Reads only the job and
 * the schema, so columns of a group encode on several threads at once
 * (writer_int.h). */
#include "format/part/writer_enc_int.h"
#include "format/part/writer_int.h"
#include "format/model/assemble.h"
#include "format/layout.h"
#include "format/page/slide.h"
#include "format/model/quantize.h"
#include "format/model/types.h"
#include "format/enc/codec.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/strset.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The page's block records, appended to the blocks section; returns the
 * page's checksum: the hash of those records. */
static uint64_t append_block_records(struct enc *w, const struct ig_page_built *b, int *rc)
{
    size_t at = w->out->blocks.len;
    for (uint32_t k = 0; k < b->nblocks && !*rc; k++) {
        const struct ig_block_built *bb = &b->blocks[k];
        uint8_t r[IG_BLK_SIZE] = {0};
        ig_st32(r + IG_BLK_OFFSET, bb->offset);
        ig_st32(r + IG_BLK_STORED, bb->stored);
        ig_st32(r + IG_BLK_BODY_SIZE, bb->body_size);
        ig_st32(r + IG_BLK_FIRST_ROW, bb->first_row);
        ig_st32(r + IG_BLK_ROW_COUNT, bb->row_count);
        ig_st32(r + IG_BLK_ENTRY_COUNT, bb->entry_count);
        ig_st32(r + IG_BLK_VALUE_COUNT, bb->value_count);
        r[IG_BLK_COMPRESSION] = bb->compression;
        r[IG_BLK_ENCODING] = bb->encoding;
        r[IG_BLK_FLAGS] = bb->flags;
        ig_st64(r + IG_BLK_CHECKSUM, bb->checksum);
        if (ig_buf_append(&w->out->blocks, r, sizeof r)) *rc = -ENOMEM;
    }
    return *rc ? 0 : ig_hash(w->out->blocks.data + at, w->out->blocks.len - at);
}

static int append_page_record(struct enc *w, uint32_t leaf, uint32_t first_row,
                              uint32_t rows, const struct ig_page_built *b, uint32_t capacity,
                              uint32_t live_values, uint64_t node_text)
{
    int rc = 0;
    uint32_t first_block = w->out->nblocks;
    uint64_t checksum = append_block_records(w, b, &rc);
    if (rc) return rc;
    w->out->nblocks += b->nblocks;
    uint8_t r[IG_PG_SIZE] = {0};
    ig_st64(r + IG_PG_OFFSET, w->out->stored.len); /* made absolute at commit */
    ig_st32(r + IG_PG_CAPACITY, capacity);
    ig_st32(r + IG_PG_STORED, (uint32_t)b->stored.len);
    ig_st32(r + IG_PG_FIRST_ROW, first_row);
    ig_st32(r + IG_PG_ROW_COUNT, rows);
    ig_st32(r + IG_PG_ENTRY_COUNT, b->entry_count);
    ig_st32(r + IG_PG_VALUE_COUNT, b->value_count);
    r[IG_PG_ENCODING] = b->encoding;
    r[IG_PG_COMPRESSION] = b->compression;
    r[IG_PG_FLAGS] = b->flags;
    ig_st64(r + IG_PG_CHECKSUM, checksum);
    ig_st64(r + IG_PG_TEXT_LEN, b->text_len);
    ig_st32(r + IG_PG_BODY_SIZE, b->body_size);
    ig_st32(r + IG_PG_DELETED, w->page_deleted);
    ig_st32(r + IG_PG_LEAF, leaf);
    uint8_t x[IG_PX_SIZE] = {0};
    ig_st32(x + IG_PX_LIVE_VALUES, live_values);
    ig_st32(x + IG_PX_FIRST_BLOCK, first_block);
    ig_st64(x + IG_PX_NODE_TEXT, node_text);
    if (ig_buf_append(&w->out->pages, r, sizeof r) || ig_buf_append(&w->out->extras, x, sizeof x))
        return -ENOMEM;
    return 0;
}

/* Text of rows [a, b) of a nested column (tree t over leaves l0..) or of one
 * leaf's projection. */
static int nested_text(struct enc *w, const struct ig_tree *t, size_t a, size_t b,
                       const uint64_t *values_len, uint64_t *len, struct ig_error *err)
{
    struct ig_values *views[256], **vp = views;
    if (t->nleaves > 256 && !(vp = malloc(t->nleaves * sizeof *vp)))
        return ig_err(err, -ENOMEM, "out of memory");
    struct ig_values *slice = calloc(t->nleaves, sizeof *slice);
    int rc = slice ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nleaves && !rc; i++) {
        /* a view of rows [a, b): shift the row index, keep the arrays */
        const struct ig_values *v = &w->g->cols[t->leaf_global[i]];
        slice[i] = *v;
        slice[i].rows = b - a;
        slice[i].row_ent = v->row_ent + a;
        slice[i].row_val = v->row_val + a;
        slice[i].row_base = w->c->first_row_id + w->g->first_row + a;
        vp[i] = &slice[i];
    }
    if (!rc)
        rc = values_len ? ig_assemble_measure_known(t, vp, b - a, *values_len, len, err)
                        : ig_assemble_lines(t, vp, b - a, NULL, NULL, len, err);
    free(slice);
    if (vp != views) free(vp);
    return rc;
}

/* The page's blocks (each with its own zeroed slack, page.h) and its records,
 * after the column's earlier pages. */
static int count_uses(struct enc *w, uint32_t l, struct ig_error *err);

static int write_page(struct enc *w, uint32_t l, size_t start, size_t end,
                      uint32_t live_values, uint64_t node_text, struct ig_error *err)
{
    size_t stored = w->e->built.stored.len;
    int rc = count_uses(w, l, err);
    if (rc) return rc;
    rc = append_page_record(w, l, (uint32_t)start, (uint32_t)(end - start), &w->e->built,
                            (uint32_t)stored, live_values, node_text);
    if (!rc) rc = ig_buf_append(&w->out->stored, w->e->built.stored.data, stored);
    if (rc) return ig_err(err, rc, "%s: out of memory", w->c->path);
    w->out->npages++;
    return 0;
}

/* Page [start, end) of leaf l, in the blocks w->e->cuts says (ncuts of them);
 * with blocks fitted to disk pages, its last block may take up to `extend`
 * rows past end (page.h, struct ig_block_fit). */
static int encode_leaf_page(struct enc *w, uint32_t l, size_t start, size_t end, size_t ncuts,
                            size_t extend, struct ig_error *err)
{
    const struct ig_column_def *cd = leaf_def(w, l);
    struct ig_values *v = &w->g->cols[l];
    struct ig_page_policy pol;
    ig_writer_leaf_policy(w, l, &pol);
    w->fit.grain = w->out->fitted ? IG_FIT_GRAIN : 0;
    w->fit.at = w->out->stored.len;
    w->fit.extend = extend;
    int rc = ig_page_encode_blocks(&pol, v, start, end - start, w->e->cuts, ncuts, &w->fit,
                                   &w->e->scratch, &w->e->built, err);
    if (rc)
        return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->c->path, cd->name,
                             w->g->index);
    return 0;
}

/* Add the uses the page just encoded (w->e->built) makes of leaf l's symbol
 * table to the segment's count of them. */
static int count_uses(struct enc *w, uint32_t l, struct ig_error *err)
{
    struct ig_chunk_ctx *cx = &w->g->ctx[l];
    if (!cx->fsst) return 0;
    struct ig_column_out *o = w->out;
    uint32_t k = 0;
    while (k < o->nuses && o->uses[k].leaf != l)
        k++;
    if (k == o->nuses) {
        if (o->nuses == o->uses_cap) {
            uint32_t cap = o->uses_cap ? o->uses_cap * 2 : 2;
            struct ig_leaf_uses *u = realloc(o->uses, cap * sizeof *u);
            if (!u) return ig_err(err, -ENOMEM, "out of memory");
            o->uses = u;
            o->uses_cap = cap;
        }
        o->uses[k] = (struct ig_leaf_uses){.leaf = l};
        o->nuses++;
    }
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_page_built *b = &w->e->built;
    struct ig_leaf_info li = {.type = cd->type, .levels = w->g->cols[l].levels};
    for (uint32_t j = 0; j < b->nblocks; j++) {
        const struct ig_block_built *bb = &b->blocks[j];
        struct ig_pagerec rec = {.stored = bb->stored,
                                 .row_count = bb->row_count,
                                 .entry_count = bb->entry_count,
                                 .value_count = bb->value_count,
                                 .compression = bb->compression,
                                 .body_size = bb->body_size,
                                 .cx = cx};
        int rc = ig_page_symbol_uses(b->stored.data + bb->offset, &rec, &li, &w->e->scratch,
                                     o->uses[k].counts, err);
        if (rc)
            return ig_err_prefix(err, rc, "%s: column '%s' row group %u", w->c->path, cd->name,
                                 w->g->index);
    }
    return 0;
}

/* A graft's rows deleted already (writer.h, opts.deleted): is row r of the
 * group one? */
static bool row_deleted(const struct enc *w, size_t r);

/* A graft writes a row deleted already as NULL and then erases it from its
 * block exactly as an erase would have (ig_page_erase): the bytes left are
 * the erased form `ingot verify` checks, and an erasure never grows a block,
 * so it stays where it was encoded (zeros after it). Rows [start, end) of the
 * group, the page just encoded for leaf l. */
static int erase_deleted_rows(struct enc *w, uint32_t l, size_t start, struct ig_error *err)
{
    if (!w->c->o.deleted) return 0;
    struct ig_page_built *b = &w->e->built;
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    /* the leaf as the page was encoded for it (sliding-window pages included) */
    struct ig_page_policy pol;
    ig_writer_leaf_policy(w, l, &pol);
    const struct ig_leaf_info li = pol.leaf;
    struct ig_page_built out = {0};
    uint8_t *kill = NULL;
    int rc = 0;
    int64_t dent = 0, dval = 0;
    for (uint32_t k = 0; k < b->nblocks && !rc; k++) {
        struct ig_block_built *bb = &b->blocks[k];
        size_t first = start + bb->first_row, any = 0;
        uint8_t *kb = realloc(kill, bb->row_count / 8 + 1);
        if (!kb) {
            rc = ig_err(err, -ENOMEM, "out of memory");
            break;
        }
        kill = kb;
        memset(kill, 0, bb->row_count / 8 + 1);
        for (uint32_t i = 0; i < bb->row_count; i++)
            if (row_deleted(w, first + i)) {
                kill[i / 8] |= (uint8_t)(1u << (i % 8));
                any++;
            }
        if (!any) continue;
        uint32_t cap = k + 1 < b->nblocks ? b->blocks[k + 1].offset - bb->offset : (uint32_t)b->stored.len - bb->offset;
        struct ig_pagerec rec = {.capacity = cap,
                                 .stored = bb->stored,
                                 .first_row = bb->first_row,
                                 .row_count = bb->row_count,
                                 .entry_count = bb->entry_count,
                                 .value_count = bb->value_count,
                                 .encoding = bb->encoding,
                                 .compression = bb->compression,
                                 .flags = bb->flags,
                                 .checksum = bb->checksum,
                                 .body_size = bb->body_size,
                                 .leaf = l,
                                 .cx = &w->g->ctx[l]};
        const uint8_t *stored = b->stored.data + bb->offset;
        rc = v->levels ? ig_page_erase_leaf(stored, &rec, &li, kill, NULL, 3, &w->e->scratch, &out, err)
                       : ig_page_erase(stored, NULL, &rec, cd->type, NULL, kill, 3, &w->e->scratch, &out, err);
        if (!rc && out.stored.len > cap)
            rc = ig_err(err, -EIO, "an erased block grew");
        if (rc) {
            ig_err_prefix(err, rc, "%s: column '%s' row group %u, erasing deleted rows of block %u", w->c->path,
                          cd->name, w->g->index, k);
            break;
        }
        memcpy(b->stored.data + bb->offset, out.stored.data, out.stored.len);
        memset(b->stored.data + bb->offset + out.stored.len, 0, cap - out.stored.len);
        dent += (int64_t)(v->levels ? out.entry_count : bb->entry_count) - bb->entry_count;
        dval += (int64_t)(v->levels ? out.value_count : bb->value_count) - bb->value_count;
        if (v->levels) {
            bb->entry_count = out.entry_count;
            bb->value_count = out.value_count;
        }
        bb->stored = (uint32_t)out.stored.len;
        bb->body_size = out.body_size;
        bb->encoding = out.encoding;
        bb->compression = out.compression;
        bb->flags = out.flags;
        bb->checksum = ig_hash(out.stored.data, out.stored.len);
    }
    b->entry_count = (uint32_t)((int64_t)b->entry_count + dent);
    b->value_count = (uint32_t)((int64_t)b->value_count + dval);
    free(kill);
    ig_page_built_free(&out);
    return rc;
}

/* A graft's rows deleted already (writer.h, opts.deleted): is row r of the
 * group one? */
static bool row_deleted(const struct enc *w, size_t r)
{
    const uint8_t *d = w->c->o.deleted;
    uint64_t row = w->g->first_row + r;
    return d && (d[row / 8] >> (row % 8)) & 1;
}

/* A graft writes rows deleted already as NULLs (their erased form), and
 * their page counts them as an erase would have: the rows deleted, their
 * value slots not live, their text not in the page's text length. */
static int discount_flat(struct enc *w, uint32_t l, size_t start, size_t end, uint32_t *live_values,
                         struct ig_error *err)
{
    w->page_deleted = 0;
    if (!w->c->o.deleted) return 0;
    const struct ig_column_def *cd = leaf_def(w, l);
    const struct ig_values *v = &w->g->cols[l];
    uint32_t per_row = cd->dimension ? cd->dimension : 1;
    for (size_t r = start; r < end; r++) {
        if (!row_deleted(w, r)) continue;
        uint64_t len = 0;
        if (ig_page_text_len(v, r * per_row, per_row, &w->e->scratch, &len))
            return ig_err(err, -ENOMEM, "out of memory");
        w->e->built.text_len -= len < w->e->built.text_len ? len : w->e->built.text_len;
        *live_values -= per_row;
        w->page_deleted++;
    }
    return 0;
}

static int nested_text(struct enc *w, const struct ig_tree *t, size_t a, size_t b, const uint64_t *values_len,
                       uint64_t *len, struct ig_error *err);

static int discount_nested(struct enc *w, uint32_t l, const struct ig_tree *proj, const struct ig_tree *whole,
                           size_t a, size_t b, uint32_t *live_values, uint64_t *node_text, struct ig_error *err)
{
    w->page_deleted = 0;
    if (!w->c->o.deleted) return 0;
    const struct ig_values *v = &w->g->cols[l];
    for (size_t r = a; r < b; r++) {
        if (!row_deleted(w, r)) continue;
        uint64_t len = 0, node = 0;
        int rc = nested_text(w, proj, r, r + 1, NULL, &len, err);
        if (!rc && node_text && *node_text) rc = whole ? nested_text(w, whole, r, r + 1, NULL, &node, err) : 0;
        if (rc) return rc;
        if (node_text && *node_text) *node_text -= (whole ? node : len) < *node_text ? (whole ? node : len) : *node_text;
        w->e->built.text_len -= len < w->e->built.text_len ? len : w->e->built.text_len;
        *live_values -= (uint32_t)(v->row_val[r + 1] - v->row_val[r]);
        w->page_deleted++;
    }
    return 0;
}

/* The first page of a segment has no page before it whose ratio would size
 * its blocks (ig_writer_block_target): its first block of the plain size is
 * encoded alone, and that block's ratio stands in. Without it each row
 * group's first page kept blocks of the plain size: 3x the bytes of the
 * pages after it on the wallpaper's pixels, a fifth of their column. The
 * block's trial leaves nothing behind but the ratio (and the count of blocks
 * encoded). */
static int guess_first_ratio(struct enc *w, uint32_t l0, uint32_t l1, uint32_t l, size_t a,
                             size_t b, struct ig_error *err)
{
    if (w->cut_ratio > 0 || !ig_writer_blocks_grow(w, l0, l1)) return 0;
    int rc = 0;
    ig_writer_block_cuts(w, l0, l1, a, b, ig_writer_block_target(w, l0, l1), true, &rc);
    size_t end = rc ? b : a + w->e->cuts[1];
    if (rc || end >= b) return rc; /* the page is one block whatever its ratio */
    struct ig_block_fit fit = w->fit;
    rc = encode_leaf_page(w, l, a, end, 1, 0, err);
    if (!rc) ig_writer_page_ratio(w, l, a, end);
    fit.encodes = w->fit.encodes;
    w->fit = fit;
    return rc;
}

/* Pages [p0, p1) of a flat leaf l. Where its blocks are fitted to disk pages
 * (one segment: the whole chunk), a page ends where its last block fills its
 * room, past its cut by at most a block's rows, and the next page starts
 * there (skipped if that took all its rows): the page's last block and the
 * next page's first no longer share a disk page as two blocks of what was
 * left over, each paying its record, frame and code tables (the
 * documentation's text 1.4 % fewer bytes, the package index 0.6 %;
 * BENCHMARKS.md, "Pages that end where their last block fills its room"). */
static int encode_flat_pages(struct enc *w, uint32_t l, const size_t *cuts, size_t p0, size_t p1,
                             struct ig_error *err)
{
    int rc = 0;
    const struct ig_column_def *cd = leaf_def(w, l);
    uint32_t per_row = cd->dimension ? cd->dimension : 1;
    size_t start = cuts[p0];
    for (size_t p = p0; p < p1 && !rc; p++) {
        size_t end = cuts[p + 1];
        if (end <= start) continue; /* the page before took its rows */
        rc = guess_first_ratio(w, l, l + 1, l, start, end, err);
        if (rc) break;
        /* blocks fitted to disk pages are sized as they are encoded: only
         * the first one's rows are a guess (page.h), so only it is cut (the
         * other cuts, a search each, were thrown away) */
        size_t nb = ig_writer_block_cuts(w, l, l + 1, start, end, ig_writer_block_target(w, l, l + 1),
                                         w->out->fitted, &rc);
        size_t extend = w->out->fitted ? cuts[p1] - end : 0;
        if (!rc) rc = encode_leaf_page(w, l, start, end, nb, extend, err);
        if (!rc && extend) {
            const struct ig_block_built *last = &w->e->built.blocks[w->e->built.nblocks - 1];
            end = start + last->first_row + last->row_count;
        }
        if (!rc) ig_writer_page_ratio(w, l, start, end);
        uint32_t live = (uint32_t)(end - start) * per_row;
        if (!rc) rc = erase_deleted_rows(w, l, start, err);
        if (!rc) rc = discount_flat(w, l, start, end, &live, err);
        if (!rc) rc = write_page(w, l, start, end, live, 0, err);
        start = end;
    }
    return rc;
}

/* Pages [p0, p1) of each leaf of a nested column (leaves l0..l1), leaf by
 * leaf: the leaf's own text and, with the first leaf, the whole column's. */
static int encode_nested_pages(struct enc *w, uint32_t top, uint32_t l0, uint32_t l1,
                               const size_t *cuts, size_t p0, size_t p1, uint32_t *leaf_pages,
                               struct ig_error *err)
{
    const struct ig_schema *s = w->c->schema;
    struct ig_tree whole = {0}, *proj = calloc(l1 - l0, sizeof *proj);
    int rc = proj ? 0 : ig_err(err, -ENOMEM, "out of memory");
    if (!rc && l1 - l0 > 1) rc = ig_tree_from_schema(s, top, UINT32_MAX, &whole, err);
    for (uint32_t l = l0; l < l1 && !rc; l++)
        rc = ig_tree_from_schema(s, top, s->leaves[l], &proj[l - l0], err);
    for (uint32_t l = l0; l < l1 && !rc; l++) {
        uint32_t first = w->out->npages;
        /* what the blocks' trials learnt is of one leaf's values (page.h) */
        w->fit.leaf_runs = w->fit.zstd_misses = w->fit.num_blocks = 0;
        for (size_t p = p0; p < p1 && !rc; p++) {
            size_t a = cuts[p], b = cuts[p + 1];
            rc = guess_first_ratio(w, l0, l1, l, a, b, err);
            if (rc) break;
            /* every leaf of the column is cut into blocks alike (by the first
             * leaf's block size, plain: block_target), so block j of each
             * covers the same rows */
            size_t nb =
                ig_writer_block_cuts(w, l0, l1, a, b, ig_writer_block_target(w, l0, l1), false, &rc);
            if (!rc) rc = encode_leaf_page(w, l, a, b, nb, 0, err);
            if (!rc) ig_writer_page_ratio(w, l, a, b);
            if (!rc) rc = erase_deleted_rows(w, l, a, err);
            uint64_t leaf_text = 0, node_text = 0;
            /* the JSON length of the leaf's values, when the page's census
             * gave it: the count walks only the levels */
            const uint64_t *known = w->e->built.values_json_known ? &w->e->built.values_json_len : NULL;
            if (!rc) rc = nested_text(w, &proj[l - l0], a, b, known, &leaf_text, err);
            /* a column of one leaf (a list, a vector) is its own projection */
            if (!rc && l == l0) {
                if (l1 - l0 == 1)
                    node_text = leaf_text;
                else
                    rc = nested_text(w, &whole, a, b, NULL, &node_text, err);
            }
            w->e->built.text_len = leaf_text;
            const struct ig_values *v = &w->g->cols[l];
            uint32_t live = (uint32_t)(v->row_val[b] - v->row_val[a]);
            if (!rc)
                rc = discount_nested(w, l, &proj[l - l0], l1 - l0 > 1 ? &whole : NULL, a, b, &live,
                                     l == l0 ? &node_text : NULL, err);
            if (!rc) rc = write_page(w, l, a, b, live, node_text, err);
        }
        if (leaf_pages) leaf_pages[l] = w->out->npages - first;
    }
    ig_tree_free(&whole);
    for (uint32_t l = l0; proj && l < l1; l++)
        ig_tree_free(&proj[l - l0]);
    free(proj);
    return rc;
}

int ig_writer_encode_segment(const struct ig_writer_conf *c, struct ig_group_job *g, uint32_t t,
                             uint32_t s, struct ig_encoder *e, struct ig_error *err)
{
    struct ig_column_work *cw = &g->work[t];
    struct ig_column_out *out = &cw->segs[s];
    ig_buf_reset(&out->stored);
    ig_buf_reset(&out->pages);
    ig_buf_reset(&out->extras);
    ig_buf_reset(&out->blocks);
    out->npages = out->nblocks = 0;
    out->nuses = 0;
    out->fitted = false;
    struct enc w = {c, g, e, out, {0}, 0};
    size_t p0 = (size_t)s * cw->seg_pages;
    size_t p1 = p0 + cw->seg_pages < cw->ncuts ? p0 + cw->seg_pages : cw->ncuts;
    /* a column of one segment counts its leaves' pages here; commit adds up
     * the segments of a segmented one (one leaf) */
    uint32_t *leaf_pages = cw->nsegs == 1 ? g->leaf_pages : NULL;
    if (g->cols[cw->l0].levels)
        return encode_nested_pages(&w, c->schema->tops[t], cw->l0, cw->l1, cw->cuts, p0, p1,
                                   leaf_pages, err);
    out->fitted = ig_writer_leaf_fitted(&w, cw->l0); /* never segmented */
    int rc = encode_flat_pages(&w, cw->l0, cw->cuts, p0, p1, err);
    if (leaf_pages) leaf_pages[cw->l0] = out->npages;
    return rc;
}

void ig_encoder_free(struct ig_encoder *e)
{
    free(e->cuts);
    ig_strset_free(&e->chunk_set);
    free(e->short_ids.key);
    free(e->short_ids.id);
    ig_train_scratch_free(&e->train);
    ig_slide_sizer_free(&e->sizer);
    ig_page_scratch_free(&e->scratch);
    ig_page_built_free(&e->built);
    memset(e, 0, sizeof *e);
}

void ig_column_work_free(struct ig_column_work *cw)
{
    for (uint32_t k = 0; k < cw->segs_cap; k++) {
        struct ig_column_out *o = &cw->segs[k];
        ig_buf_free(&o->stored);
        ig_buf_free(&o->pages);
        ig_buf_free(&o->extras);
        ig_buf_free(&o->blocks);
        free(o->uses);
    }
    free(cw->segs);
    free(cw->cuts);
    memset(cw, 0, sizeof *cw);
}
