/* verify_chunk.c - verifying the chunks of one row group (verify_int.h,
 * ig_verify_group_chunks): each leaf's pages in order, their records, blocks,
 * checksums and, with --deep, decoded values, text lengths, bounds and
 * distinct values against the chunk record; a chunk gc released checked for
 * its released form; a chunk's FSST context against its blocks' uses. Blob
 * references are collected here for verify.c to check per blob file; parts,
 * groups and threads are verify.c's. */
#include "format/ops/verify.h"
#include "format/ops/verify_int.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/minmax.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "format/ops/nested.h"
#include "format/ops/reader.h"
#include "format/page/page.h"
#include "format/part/columns.h"
#include "format/part/footer.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "blob/blob.h"
#include "util/error.h"
#include "util/strset.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void column_name(const struct ig_part *p, uint32_t leaf, char *out, size_t cap)
{
    uint32_t col;
    struct ig_colrec cr;
    if (ig_part_leaf_column(p, leaf, &col, NULL) == 0 && ig_part_column(p, col, &cr, NULL) == 0)
        snprintf(out, cap, "column '%.*s'", (int)(cr.name_len > 200 ? 200 : cr.name_len), cr.name);
    else
        snprintf(out, cap, "leaf %u", leaf);
}

/* Zero bytes in [from, to) of the part file? */
static bool zeros_between(const struct ig_part *p, uint64_t from, uint64_t to)
{
    if (to <= from) return true;
    uint8_t *b = malloc(to - from);
    bool ok = b && ig_part_read(p, b, to - from, from, NULL) == 0;
    for (uint64_t i = 0; ok && i < to - from; i++)
        ok = b[i] == 0;
    free(b);
    return ok || !b;
}

/* The page could not be read or decoded whole (reported by the caller): what
 * is recounted over its chunk's blocks is not compared, and the checks that
 * read the page again skip it. */
static void page_unreadable(struct vctx *x, const struct ig_part *p, uint32_t page)
{
    x->chunk_partial = true;
    if (x->unreadable && page < p->num_pages) x->unreadable[page] = 1;
}

/* A page's blocks (x->r.stored holds the page, checked): they follow one
 * another without gaps in rows, the bytes no block uses are zero (after each,
 * and before the first where it starts on a later disk page), and at
 * level 2 no erased row holds data (codec.h's per-scheme rule), block by block. */
static void check_blocks(struct vctx *x, const struct ig_part *p, uint32_t g, uint32_t page,
                         const struct ig_pagerec *rec, const struct ig_column_ref *c,
                         const uint8_t *deleted, const char *cname, const struct ig_chunk_ctx *cx,
                         uint64_t *uses)
{
    struct ig_error e = {0};
    uint32_t nb = ig_page_nblocks(rec), next_row = 0;
    for (uint32_t b = 0; b < nb; b++) {
        struct ig_pagerec blk;
        if (ig_part_block(p, page, rec, b, &blk, &e)) {
            ig_verify_fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
            page_unreadable(x, p, page);
            return;
        }
        if (blk.first_row != next_row)
            ig_verify_fail(x, "%s: %s row group %u page %u block %u: rows do not follow the previous block",
                 p->name, cname, g, page, b);
        next_row = blk.first_row + blk.row_count;
        if (b == 0 && !zeros_between(p, rec->offset, blk.offset))
            ig_verify_fail(x, "%s: %s row group %u page %u: extent bytes before its first block are not zero",
                 p->name, cname, g, page);
        if (!zeros_between(p, blk.offset + blk.stored, blk.offset + blk.capacity))
            ig_verify_fail(x, "%s: %s row group %u page %u block %u: unused extent bytes are not zero",
                 p->name, cname, g, page, b);
        blk.cx = cx;
        if (cx && ig_page_symbol_uses(x->r.stored.data + (blk.offset - rec->offset), &blk, &c->li,
                                      &x->r.s, uses, &e)) {
            ig_verify_fail(x, "%s: %s row group %u page %u block %u: %s", p->name, cname, g, page, b, e.msg);
            page_unreadable(x, p, page);
        }
        if (cx && cx->vdict && x->vuses &&
            ig_page_value_uses(x->r.stored.data + (blk.offset - rec->offset), &blk, &c->li, &x->r.s,
                               cx->vdict, x->vuses, 1, &e)) {
            ig_verify_fail(x, "%s: %s row group %u page %u block %u: %s", p->name, cname, g, page, b, e.msg);
            page_unreadable(x, p, page);
        }
        if (!deleted || c->erase_level != 2 || x->ctx_failed) continue;
        uint8_t *del = calloc(blk.row_count / 8 + 2, 1);
        bool any = false;
        for (uint32_t i = 0; del && i < blk.row_count; i++)
            if ((deleted[(blk.first_row + i) / 8] >> ((blk.first_row + i) % 8)) & 1) {
                del[i / 8] |= (uint8_t)(1u << (i % 8));
                any = true;
            }
        const uint8_t *bytes = x->r.stored.data + (blk.offset - rec->offset);
        if (any && (c->nested ? ig_page_check_erased_leaf(bytes, &blk, &c->li, del, &x->r.s, &e)
                              : ig_page_check_erased(bytes, &blk, c->rec.type, del, &x->r.s, &e))) {
            ig_verify_fail(x, "%s: %s row group %u page %u block %u: an erased row still holds data: %s",
                 p->name, cname, g, page, b, e.msg);
            x->rep->unscrubbed++;
        }
        free(del);
    }
}

/* The live rows' non-NULL values of the decoded page x->v, into set. */
static int add_live_values(const struct vctx *x, const uint8_t *deleted, size_t rows, struct ig_strset *set)
{
    const struct ig_values *v = &x->v;
    int rc = 0;
    for (size_t r = 0; r < rows && !rc; r++) {
        if (deleted && ((deleted[r / 8] >> (r % 8)) & 1)) continue;
        size_t a = v->levels ? v->row_val[r] : r, b = v->levels ? v->row_val[r + 1] : r + 1;
        for (size_t i = a; i < b && i < v->n && !rc; i++) {
            if (ig_values_is_null(v, i)) continue;
            size_t len;
            const uint8_t *q = ig_values_bytes(v, i, &len);
            uint32_t at;
            bool added;
            rc = ig_strset_add(set, q, len, &at, &added);
        }
    }
    return rc;
}

/* With --deep, every live value of a flat leaf's page lies within its chunk's
 * bounds (v holds the page's values, deleted its deleted rows). */
static void check_bounds(struct vctx *x, const struct ig_part *p, uint32_t g, uint32_t page,
                         const struct ig_minmax *m, const uint8_t *deleted, const char *cname)
{
    for (size_t i = 0; i < x->v.n; i++) {
        if ((deleted && ((deleted[i / 8] >> (i % 8)) & 1)) || ig_values_is_null(&x->v, i)) continue;
        if (!ig_minmax_holds(x->v.type, m, x->v.lanes[i])) {
            ig_verify_fail(x, "%s: %s row group %u page %u: row %zu lies outside the chunk's bounds", p->name, cname, g,
                 page, i);
            return;
        }
    }
}

/* The blob references of the decoded page x->v, into x->objs: their objects
 * are checked per blob file (check_blobs, verify.c). */
static void collect_blob_refs(struct vctx *x, const struct ig_column_ref *c)
{
    for (size_t i = 0; i < x->v.n; i++) {
        size_t len;
        const uint8_t *refs = ig_values_bytes(&x->v, i, &len);
        for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++) {
            struct ig_blob_ref r;
            ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &r, NULL);
            if (ig_verify_add_obj(x, &(struct objref){r.offset, r.size, r.hash, x->v.row_base + i,
                                                      c->col, (uint32_t)k}))
                break;
        }
    }
}

/* Live value slots, what the .npy views size themselves by, against the
 * page's extras (x->v holds the page's values where it was decoded). */
static void check_live_values(struct vctx *x, const struct ig_part *p, uint32_t g, uint32_t page,
                              const struct ig_pagerec *rec, const struct ig_column_ref *c,
                              const uint8_t *deleted, bool decoded, const char *cname)
{
    struct ig_pagex px;
    if (ig_part_page_extra(p, page, &px, NULL)) return;
    uint64_t live = 0;
    for (size_t r = 0; r < rec->row_count; r++) {
        if (deleted && ((deleted[r / 8] >> (r % 8)) & 1)) continue;
        live += decoded && x->v.levels ? x->v.row_val[r + 1] - x->v.row_val[r]
                                       : (c->rec.dimension ? c->rec.dimension : 1);
    }
    if (live != px.live_values)
        ig_verify_fail(x, "%s: %s row group %u page %u: %" PRIu64 " live values, extras say %u",
                       p->name, cname, g, page, live, px.live_values);
}

/* dict: with --deep, a string or binary chunk's live distinct values are
 * gathered here (the chunk record counts them); bounds: the chunk's bounds,
 * checked against its live values then (NULL when it has none). */
static void check_page(struct vctx *x, const struct ig_part *p, uint32_t g, uint32_t page,
                       const struct ig_grouprec *gr, const struct ig_column_ref *c,
                       uint32_t *expected, struct ig_strset *dict, const struct ig_minmax *bounds,
                       const struct ig_chunk_ctx *cx, uint64_t *uses)
{
    char cname[256];
    column_name(p, c->rec.leaf, cname, sizeof cname);
    struct ig_error e = {0};
    struct ig_pagerec rec;
    if (ig_part_page(p, page, &rec, &e) ||
        ig_chunk_page_check(p, page, &rec, c->rec.leaf, *expected, gr->row_count, &e)) {
        ig_verify_fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
        *expected = UINT32_MAX;
        page_unreadable(x, p, page);
        return;
    }
    *expected += rec.row_count;
    x->rep->pages++;
    x->rep->page_bytes += rec.stored;
    const uint8_t *deleted;
    /* values are decoded only where something below needs them: text
     * lengths (--deep), blob references, levels; elsewhere the checksums
     * over the stored bytes are the check */
    bool decode = x->deep || c->nested || c->rec.type == IG_T_BLOB;
    int rc = decode ? ig_reader_load(&x->r, &(struct ig_page_at){p, c, page, gr->first_row}, &rec, &x->v, &deleted, &e)
                    : ig_reader_check(&x->r, &(struct ig_page_at){p, c, page, gr->first_row}, &rec, &deleted, &e);
    x->bytes_done += rec.capacity;
    if (x->done) atomic_fetch_add(x->done, rec.capacity);
    if (rc) {
        /* the reader names part/column/page; keep its reason and add the group */
        const char *why = strstr(e.msg, "page ");
        why = why ? strchr(why, ':') : NULL;
        ig_verify_fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page,
             why ? why + 2 : e.msg);
        page_unreadable(x, p, page);
        return;
    }
    uint32_t ndel = 0;
    for (uint32_t i = 0; deleted && i < rec.row_count; i++)
        ndel += (deleted[i / 8] >> (i % 8)) & 1;
    if (ndel != rec.deleted)
        ig_verify_fail(x, "%s: %s row group %u page %u: footer says %u deleted rows, bitmap has %u",
             p->name, cname, g, page, rec.deleted, ndel);
    check_blocks(x, p, g, page, &rec, c, deleted, cname, cx, uses);
    if (c->rec.type == IG_T_BLOB) collect_blob_refs(x, c);
    for (size_t i = 0; x->zl && ig_zdict_find_remaining(x->zl) && i < x->v.n && i < rec.row_count; i++) {
        size_t len;
        if ((deleted && ((deleted[i / 8] >> (i % 8)) & 1)) || ig_values_is_null(&x->v, i)) continue;
        const uint8_t *q = ig_values_bytes(&x->v, i, &len);
        ig_zdict_find_value(x->zl, q, len);
    }
    if (x->deep) { /* text lengths: the writer's arithmetic, checked on request */
        uint64_t tl = 0;
        int trc;
        if (c->nested) {
            /* the leaf's projection: the partial record along its path,
             * rendered (not measured: the writer measured, and a shortcut
             * shared by both would agree with itself) */
            struct ig_tree tree;
            struct ig_values *vp = &x->v;
            ig_buf_reset(&x->text);
            trc = ig_tree_from_part(p, c->top, c->col, &tree, &e);
            if (!trc) trc = ig_assemble_lines(&tree, &vp, rec.row_count, deleted, &x->text, &tl, &e);
            if (!trc) ig_tree_free(&tree);
            if (trc) ig_verify_fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
        } else {
            trc = ig_render_text_len(&x->v, deleted, &x->text, &tl);
        }
        if (trc == 0 && tl != rec.text_len)
            ig_verify_fail(x, "%s: %s row group %u page %u: text length %" PRIu64 " != footer's %" PRIu64,
                 p->name, cname, g, page, tl, rec.text_len);
        if (bounds && !c->nested) check_bounds(x, p, g, page, bounds, deleted, cname);
        if (dict && add_live_values(x, deleted, rec.row_count, dict))
            ig_verify_fail(x, "%s: %s row group %u page %u: out of memory counting its values", p->name, cname, g, page);
    }
    check_live_values(x, p, g, page, &rec, c, deleted, decode, cname);
    if (x->h && x->h->progress && !x->quiet)
        x->h->progress(x->h->ctx, x->done ? atomic_load(x->done) : x->bytes_done, x->bytes_total);
}

/* A chunk whose pages gc released (or whose leaf's are): every page in the
 * released form (footer.c checks its records), its rows following, its
 * extent all zeros; no dictionary counts or bounds; and its column shown by
 * no version that lists the part, neither the current one nor any kept. */
static void check_released_chunk(struct vctx *x, const struct ig_table *t, uint32_t pi, uint32_t g,
                                 uint32_t leaf, uint32_t col, const struct ig_grouprec *gr,
                                 uint32_t first, uint32_t count, const char *cname)
{
    const struct ig_part *p = &t->parts[pi];
    uint32_t gg = g + t->part_first_group[pi];
    struct ig_error e = {0};
    if (!ig_part_leaf_released(p, leaf))
        ig_verify_fail(x, "%s: %s row group %u: pages released here, not in row group 0", p->name, cname, gg);
    if (ig_table_shows(t, col))
        ig_verify_fail(x, "%s: %s row group %u: version %" PRIu64 " shows it, but its pages were released",
             p->name, cname, gg, t->manifest.version);
    else if (x->kept && (x->kept_every[pi] || ig_idset_has(&x->kept[pi], col)))
        ig_verify_fail(x, "%s: %s row group %u: a version kept shows it, but its pages were released",
             p->name, cname, gg);
    struct ig_chunk_dict cd;
    struct ig_minmax bounds;
    if (ig_part_chunk_dict(p, g, leaf, &cd, &e) || ig_part_chunk_minmax(p, g, leaf, &bounds, &e))
        ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, gg, e.msg);
    else if (cd.count || bounds.bounded)
        ig_verify_fail(x, "%s: %s row group %u: released, but its chunk record keeps counts or bounds",
             p->name, cname, gg);
    struct ig_ctxrec cr;
    if (ig_part_chunk_ctx(p, g, leaf, &cr, &e))
        ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, gg, e.msg);
    else if (cr.size)
        ig_verify_fail(x, "%s: %s row group %u: released, but its chunk record keeps a context", p->name,
             cname, gg);
    uint32_t expected = 0;
    for (uint32_t pg = first; pg < first + count; pg++) {
        struct ig_pagerec rec;
        if (ig_part_page(p, pg, &rec, &e) ||
            ig_chunk_page_check(p, pg, &rec, leaf, expected, gr->row_count, &e)) {
            ig_verify_fail(x, "%s: %s row group %u page %u: %s", p->name, cname, gg, pg, e.msg);
            return;
        }
        expected += rec.row_count;
        if (!ig_page_released(&rec)) {
            ig_verify_fail(x, "%s: %s row group %u page %u: live among released pages", p->name, cname, gg,
                 pg);
            continue;
        }
        if (!zeros_between(p, rec.offset, rec.offset + rec.capacity))
            ig_verify_fail(x, "%s: %s row group %u page %u: released, but its extent is not zero", p->name,
                 cname, gg, pg);
        x->rep->released_pages++;
        x->rep->released_bytes += rec.capacity;
        x->bytes_done += rec.capacity;
        if (x->done) atomic_fetch_add(x->done, rec.capacity);
    }
    if (expected != gr->row_count)
        ig_verify_fail(x, "%s: %s row group %u: pages cover %u of %u rows", p->name, cname, gg, expected,
             gr->row_count);
}

/* Is the first page of the chunk at `first` released? */
static bool first_released(const struct ig_part *p, uint32_t first)
{
    struct ig_pagerec rec;
    return ig_part_page(p, first, &rec, NULL) == 0 && ig_page_released(&rec);
}

/* The chunks of row group g of part pi: every leaf's pages in order. */
void ig_verify_group_chunks(struct vctx *x, const struct ig_table *t, uint32_t pi, uint32_t g)
{
    const struct ig_part *p = &t->parts[pi];
    struct ig_error e = {0};
    struct ig_grouprec gr;
    if (ig_part_group(p, g, &gr, NULL)) return;
    uint32_t next_page = gr.first_page;
    for (uint32_t leaf = 0; leaf < p->num_leaves; leaf++) {
        uint32_t col, first, count;
        struct ig_column_ref c;
        if (ig_part_leaf_column(p, leaf, &col, &e) || ig_table_column_at(t, col, &c, &e)) {
            ig_verify_fail(x, "%s: %s", p->name, e.msg);
            continue;
        }
        char cname[256];
        column_name(p, leaf, cname, sizeof cname);
        if (ig_part_chunk(p, g, leaf, &first, &count, &e)) {
            ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
            continue;
        }
        if (first != next_page)
            ig_verify_fail(x, "%s: %s row group %u: chunk does not follow the previous chunk", p->name,
                 cname, g);
        next_page = first + count;
        if (ig_part_leaf_released(p, leaf) || first_released(p, first)) {
            check_released_chunk(x, t, pi, g, leaf, col, &gr, first, count, cname);
            continue;
        }
        struct ig_chunk_dict cd = {0};
        if (ig_part_chunk_dict(p, g, leaf, &cd, &e)) ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
        struct ig_minmax bounds = {0};
        if (ig_part_chunk_minmax(p, g, leaf, &bounds, &e)) {
            ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
        } else if (bounds.bounded && !ig_minmax_kept(c.rec.type, c.nested)) {
            ig_verify_fail(x, "%s: %s row group %u: chunk record bounds a leaf that keeps none", p->name, cname, g);
            bounds.bounded = false;
        } else if (!ig_minmax_ordered(ig_read_type(c.rec.type, c.rec.quantize), &bounds)) {
            ig_verify_fail(x, "%s: %s row group %u: chunk bounds out of order", p->name, cname, g);
            bounds.bounded = false;
        }
        /* a context (format 12): its bytes checked and parsed, and what it
         * counts of each symbol's uses recounted over the chunk's blocks */
        const struct ig_chunk_ctx *cx = NULL;
        uint64_t uses[256] = {0};
        if (count && ig_reader_context(&x->r, p, first, leaf, &cx, &e)) {
            const char *why = strstr(e.msg, "chunk context");
            ig_verify_fail(x, "%s: %s row group %u: %s", p->name, cname, g, why ? why : e.msg);
            cx = NULL;
            x->ctx_failed = true;
        }
        /* the reader's slots may be taken by the pages' reads: a copy */
        struct ig_chunk_ctx own = {0};
        if (cx) {
            struct ig_ctxrec cr;
            struct ig_buf b = IG_BUF_INIT;
            if (ig_part_chunk_ctx(p, g, leaf, &cr, &e) || ig_buf_reserve(&b, cr.size) ||
                ig_part_read(p, b.data, cr.size, cr.offset, &e) ||
                ig_chunk_ctx_parse(b.data, cr.size, p->version, &own, &e))
                ig_verify_fail(x, "%s: %s row group %u: chunk context: cannot read it again", p->name, cname,
                     g);
            ig_buf_free(&b);
            cx = !ig_chunk_ctx_empty(&own) ? &own : NULL;
        }
        if (cx && cx->vdict && !(x->vuses = calloc((size_t)ig_vdict_k(cx->vdict) + 1, sizeof *x->vuses)))
            ig_verify_fail(x, "%s: %s row group %u: out of memory", p->name, cname, g);
        if (cx && cx->zdict && x->deep && !c.nested && ig_zdict_find_new(cx->zdict, NULL, 1, &x->zl))
            ig_verify_fail(x, "%s: %s row group %u: out of memory", p->name, cname, g);
        struct ig_strset dict;
        ig_strset_init(&dict);
        bool counting = x->deep && cd.count;
        uint32_t expected = 0;
        x->chunk_partial = false;
        for (uint32_t pg = first; pg < first + count && expected != UINT32_MAX; pg++)
            check_page(x, p, g + t->part_first_group[pi], pg, &gr, &c, &expected,
                       counting ? &dict : NULL, x->deep && bounds.bounded ? &bounds : NULL, cx,
                       uses);
        bool recounted = expected != UINT32_MAX && !x->chunk_partial; /* over every block */
        if (x->zl && recounted && ig_zdict_find_remaining(x->zl)) {
            uint32_t i = 0;
            while (ig_zdict_find_hits(x->zl)[i]) i++;
            ig_verify_fail(x,
                 "%s: %s row group %u: chunk context: zstd dictionary segment %u is no live value's "
                 "substring (an erased value's bytes kept)",
                 p->name, cname, g, i);
        }
        ig_zdict_find_free(x->zl);
        x->zl = NULL;
        for (unsigned s = 0; cx && cx->fsst && recounted && s < 256; s++)
            if (ig_fsst_count(cx->fsst, s) != uses[s]) {
                ig_verify_fail(x,
                     "%s: %s row group %u: chunk context: symbol %u is used %" PRIu64
                     " times, its table counts %" PRIu64,
                     p->name, cname, g, s, uses[s], ig_fsst_count(cx->fsst, s));
                break;
            }
        /* every entry's count is its live codes (an erased entry's: none) */
        for (uint32_t e1 = 1; x->vuses && recounted && e1 <= ig_vdict_k(cx->vdict); e1++)
            if (ig_vdict_count(cx->vdict, e1) != x->vuses[e1]) {
                ig_verify_fail(x,
                     "%s: %s row group %u: chunk context: value dictionary entry %u is used %" PRIu64
                     " times, the dictionary counts %" PRIu64,
                     p->name, cname, g, e1, x->vuses[e1], ig_vdict_count(cx->vdict, e1));
                break;
            }
        free(x->vuses);
        x->vuses = NULL;
        ig_chunk_ctx_free(&own);
        x->ctx_failed = false;
        if (expected != UINT32_MAX && expected != gr.row_count)
            ig_verify_fail(x, "%s: %s row group %u: pages cover %u of %u rows", p->name, cname, g, expected,
                 gr.row_count);
        /* erasing only removes values: never more than the writer counted */
        if (counting && expected != UINT32_MAX && (dict.count > cd.count || dict.bytes > cd.bytes))
            ig_verify_fail(x, "%s: %s row group %u: %u distinct values of %" PRIu64 " bytes, the chunk record counts %u of %u",
                 p->name, cname, g, dict.count, dict.bytes, cd.count, cd.bytes);
        ig_strset_free(&dict);
    }
}
