#include "format/ops/verify.h"
#include "format/part/columns.h"
#include "format/part/footer.h"
#include "format/layout.h"
#include "format/part/merkle.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "blob/blob.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "format/ops/verify_int.h"
#include "format/part/remote.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"
#include "util/strset.h"

#include <errno.h>
#include <unistd.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct objref {
    uint64_t offset, size, hash, row;
    uint32_t col, k;
};

struct vctx {
    struct objref *objs;
    size_t nobjs, objs_cap;
    const struct ig_verify_hooks *h;
    struct ig_verify_report *rep;
    uint64_t bytes_total, bytes_done;
    struct ig_reader r;
    struct ig_values v;
    struct ig_buf text;
    bool deep;
    /* a helper thread's share of the pages (check_chunks): its failures are
     * kept per row group and reported in group order once all are done, and
     * the bytes it checked count towards one shared progress */
    struct ig_buf *group_msgs;
    uint32_t group;
    atomic_uint_fast64_t *done;
    bool quiet; /* only one thread reports progress */
    /* the column records some kept version shows (NULL: unknown, a version's
     * file unreadable; kept_every: one shows every record) */
    const struct ig_idset *kept;
    bool kept_every;
    /* the chunk being checked has a context that failed its checks: its
     * blocks that need it cannot be checked for erased rows (said once) */
    bool ctx_failed;
};

__attribute__((format(printf, 2, 3))) static void fail(struct vctx *x, const char *fmt, ...);

static void fail_msg(void *ctx, const char *msg)
{
    fail(ctx, "%s", msg);
}

__attribute__((format(printf, 2, 3))) static void fail(struct vctx *x, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (x->group_msgs) { /* a helper thread: reported later, in group order */
        ig_buf_append(&x->group_msgs[x->group], msg, strlen(msg) + 1);
        return;
    }
    x->rep->failures++;
    if (x->h && x->h->fail) x->h->fail(x->h->ctx, msg);
}

static void column_name(const struct ig_part *p, uint32_t leaf, char *out, size_t cap)
{
    uint32_t col;
    struct ig_colrec cr;
    if (ig_part_leaf_column(p, leaf, &col, NULL) == 0 && ig_part_column(p, col, &cr, NULL) == 0)
        snprintf(out, cap, "column '%.*s'", (int)(cr.name_len > 200 ? 200 : cr.name_len), cr.name);
    else
        snprintf(out, cap, "leaf %u", leaf);
}

static void check_sections(struct vctx *x, const struct ig_part *p)
{
    uint8_t magic[IG_PART_MAGIC_LEN];
    if (ig_part_read(p, magic, sizeof magic, 0, NULL) || memcmp(magic, IG_PART_MAGIC, sizeof magic))
        fail(x, "%s: bad file magic", p->name);
    const uint8_t *parts[4] = {ig_part_section(p, IG_SEC_COLUMNS), ig_part_section(p, IG_SEC_NAMES),
                               ig_part_section(p, IG_SEC_NAME_INDEX),
                               ig_part_section(p, IG_SEC_LEAVES)};
    size_t sizes[4] = {p->sec_size[IG_SEC_COLUMNS], p->sec_size[IG_SEC_NAMES],
                       p->sec_size[IG_SEC_NAME_INDEX], p->sec_size[IG_SEC_LEAVES]};
    if (ig_merkle_concat(parts, sizes, 4) != p->schema_hash)
        fail(x, "%s: footer: schema hash mismatch (columns, names or name index damaged)", p->name);
    if (ig_hash(ig_part_section(p, IG_SEC_CHUNKS), p->sec_size[IG_SEC_CHUNKS]) != p->chunks_hash)
        fail(x, "%s: footer: chunk table hash mismatch", p->name);
    struct ig_error e = {0};
    struct ig_colrec prev = {0}, cur;
    uint32_t prev_id = 0;
    bool have_prev = false;
    const uint8_t *idx = ig_part_section(p, IG_SEC_NAME_INDEX);
    for (uint32_t i = 0; i < p->num_columns; i++) {
        if (ig_part_column(p, i, &cur, &e)) {
            fail(x, "%s", e.msg);
            continue;
        }
        uint32_t c = ig_ld32(idx + 4 * (uint64_t)i);
        if (ig_part_column(p, c, &cur, &e)) {
            fail(x, "%s: footer: name index entry %u: %s", p->name, i, e.msg);
            return;
        }
        if (have_prev) {
            size_t n = prev.name_len < cur.name_len ? prev.name_len : cur.name_len;
            int cmp = memcmp(prev.name, cur.name, n);
            if (!cmp) cmp = prev.name_len < cur.name_len ? -1 : prev.name_len > cur.name_len;
            /* from version 10 a name repeats (a replaced column), in id order */
            bool repeat_ok = p->version >= IG_FORMAT_VERSIONED && prev_id < c;
            if (cmp > 0 || (cmp == 0 && !repeat_ok)) {
                fail(x, "%s: footer: name index is not sorted at entry %u", p->name, i);
                return;
            }
        }
        prev = cur;
        prev_id = c;
        have_prev = true;
    }
}

struct extent {
    uint64_t off, cap;
    uint32_t page;
};

static int extent_cmp(const void *a, const void *b)
{
    const struct extent *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
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

/* A page's blocks (x->r.stored holds the page, checked): they follow one
 * another without gaps in rows, the bytes no block uses are zero, and at
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
            fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
            return;
        }
        if (blk.first_row != next_row)
            fail(x, "%s: %s row group %u page %u block %u: rows do not follow the previous block",
                 p->name, cname, g, page, b);
        next_row = blk.first_row + blk.row_count;
        if (!zeros_between(p, blk.offset + blk.stored, blk.offset + blk.capacity))
            fail(x, "%s: %s row group %u page %u block %u: unused extent bytes are not zero",
                 p->name, cname, g, page, b);
        blk.cx = cx;
        if (cx && ig_page_symbol_uses(x->r.stored.data + (blk.offset - rec->offset), &blk, &c->li,
                                      &x->r.s, uses, &e))
            fail(x, "%s: %s row group %u page %u block %u: %s", p->name, cname, g, page, b, e.msg);
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
            fail(x, "%s: %s row group %u page %u block %u: an erased row still holds data: %s",
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
            fail(x, "%s: %s row group %u page %u: row %zu lies outside the chunk's bounds", p->name, cname, g,
                 page, i);
            return;
        }
    }
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
        fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
        *expected = UINT32_MAX;
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
        fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page,
             why ? why + 2 : e.msg);
        return;
    }
    uint32_t ndel = 0;
    for (uint32_t i = 0; deleted && i < rec.row_count; i++)
        ndel += (deleted[i / 8] >> (i % 8)) & 1;
    if (ndel != rec.deleted)
        fail(x, "%s: %s row group %u page %u: footer says %u deleted rows, bitmap has %u",
             p->name, cname, g, page, rec.deleted, ndel);
    check_blocks(x, p, g, page, &rec, c, deleted, cname, cx, uses);
    if (c->rec.type == IG_T_BLOB) /* collect references: objects are checked per blob file */
        for (size_t i = 0; i < x->v.n; i++) {
            size_t len;
            const uint8_t *refs = ig_values_bytes(&x->v, i, &len);
            for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++) {
                if (x->nobjs == x->objs_cap) {
                    size_t cap = x->objs_cap ? x->objs_cap * 2 : 256;
                    struct objref *o = realloc(x->objs, cap * sizeof *o);
                    if (!o) break;
                    x->objs = o;
                    x->objs_cap = cap;
                }
                struct ig_blob_ref r;
                ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &r, NULL);
                x->objs[x->nobjs++] = (struct objref){r.offset, r.size, r.hash,
                                                      x->v.row_base + i, c->col, (uint32_t)k};
            }
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
            if (trc) fail(x, "%s: %s row group %u page %u: %s", p->name, cname, g, page, e.msg);
        } else {
            trc = ig_render_text_len(&x->v, deleted, &x->text, &tl);
        }
        if (trc == 0 && tl != rec.text_len)
            fail(x, "%s: %s row group %u page %u: text length %" PRIu64 " != footer's %" PRIu64,
                 p->name, cname, g, page, tl, rec.text_len);
        if (bounds && !c->nested) check_bounds(x, p, g, page, bounds, deleted, cname);
        if (dict && add_live_values(x, deleted, rec.row_count, dict))
            fail(x, "%s: %s row group %u page %u: out of memory counting its values", p->name, cname, g, page);
    }
    /* live value slots: what the .npy views size themselves by */
    struct ig_pagex px;
    if (ig_part_page_extra(p, page, &px, &e) == 0) {
        uint64_t live = 0;
        for (size_t r = 0; r < rec.row_count; r++) {
            if (deleted && ((deleted[r / 8] >> (r % 8)) & 1)) continue;
            live += decode && x->v.levels ? x->v.row_val[r + 1] - x->v.row_val[r]
                                          : (c->rec.dimension ? c->rec.dimension : 1);
        }
        if (live != px.live_values)
            fail(x, "%s: %s row group %u page %u: %" PRIu64 " live values, extras say %u", p->name,
                 cname, g, page, live, px.live_values);
    }
    if (x->h && x->h->progress && !x->quiet)
        x->h->progress(x->h->ctx, x->done ? atomic_load(x->done) : x->bytes_done, x->bytes_total);
}

static int objref_cmp(const void *a, const void *b)
{
    const struct objref *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* One object's bytes against its hash (ig_blob_verify, for a blob file that
 * is an object on object storage too). */
static int blob_object_check(const struct ig_part *p, const struct ig_blob_ref *r, struct ig_error *err)
{
    if (!p->blob_obj) return ig_blob_verify(p->blob_fd, r, err);
    struct ig_hasher h;
    ig_hasher_init(&h);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    for (uint64_t at = 0; at < r->size && !rc; at += cap) {
        size_t n = r->size - at < cap ? (size_t)(r->size - at) : cap;
        rc = ig_part_blob_read(p, r, at, buf, n);
        if (!rc) ig_hasher_update(&h, buf, n);
    }
    free(buf);
    if (rc) return ig_err(err, -EIO, "unreadable (%s)", strerror(-rc));
    return ig_hasher_final(&h) == r->hash ? 0 : ig_err(err, -EIO, "checksum mismatch");
}

/* Every referenced object's checksum; no overlaps; every other byte zero (what
 * level-2 erasure leaves where an erased row's objects were). */
static void check_blobs(struct vctx *x, const struct ig_part *p, const struct ig_table *t)
{
    char blob_name[IG_PART_NAME_MAX];
    snprintf(blob_name, sizeof blob_name, "%.*s.blob", (int)(strlen(p->name) - 6), p->name);
    uint64_t size = ig_part_blob_size(p);
    /* no reference at all (a blob column gc released): objs is NULL */
    if (x->nobjs > 1) qsort(x->objs, x->nobjs, sizeof *x->objs, objref_cmp);
    uint64_t pos = IG_BLOB_HEADER;
    uint8_t magic[IG_BLOB_HEADER];
    if (size < IG_BLOB_HEADER || ig_part_blob_raw(p, magic, sizeof magic, 0) ||
        memcmp(magic, IG_BLOB_MAGIC, IG_BLOB_HEADER))
        fail(x, "%s: bad blob file magic", blob_name);
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    for (size_t i = 0; buf && i <= x->nobjs; i++) {
        uint64_t next = i < x->nobjs ? x->objs[i].offset : size;
        if (next < pos && i < x->nobjs) {
            fail(x, "%s: objects overlap at offset %" PRIu64, blob_name, next);
        } else {
            /* the gap before the next object must be zero */
            uint64_t end = next < size ? next : size;
            for (uint64_t g = pos; g < end;) {
                size_t n = end - g < cap ? (size_t)(end - g) : cap;
                if (ig_part_blob_raw(p, buf, n, g)) break;
                for (size_t b = 0; b < n; b++)
                    if (buf[b]) {
                        fail(x, "%s: unreferenced bytes at offset %" PRIu64 " are not zero (data of "
                                "an erased or lost object?)", blob_name, g + b);
                        g = end;
                        break;
                    }
                g += n;
            }
        }
        if (i == x->nobjs) break;
        struct objref *o = &x->objs[i];
        struct ig_blob_ref r = {o->offset, o->size, o->hash};
        struct ig_error e = {0};
        struct ig_colrec cr;
        if (blob_object_check(p, &r, &e)) {
            if (ig_part_column(&t->parts[0], o->col, &cr, NULL)) cr = (struct ig_colrec){.name = "?", .name_len = 1};
            fail(x, "%s: column '%.*s' row %" PRIu64 " object %u: %s", blob_name, (int)cr.name_len,
                 cr.name, o->row, o->k, e.msg);
        }
        x->rep->blob_objects++;
        x->rep->blob_bytes += o->size;
        if (o->offset + o->size > pos) pos = o->offset + o->size;
    }
    free(buf);
}

/* groups: contiguous rows and pages, Merkle hashes */
static void check_groups(struct vctx *x, const struct ig_part *p)
{
    struct ig_error e = {0};
    uint64_t row = 0;
    uint32_t page = 0;
    bool groups_ok = true;
    for (uint32_t g = 0; g < p->num_groups; g++) {
        struct ig_grouprec gr;
        if (ig_part_group(p, g, &gr, &e)) {
            fail(x, "%s", e.msg);
            groups_ok = false;
            continue;
        }
        if (gr.first_row != row || gr.first_page != page) {
            fail(x, "%s: row group %u does not continue the previous one", p->name, g);
            groups_ok = false;
        }
        row = gr.first_row + gr.row_count;
        page = gr.first_page + gr.page_count;
        if (ig_footer_group_hash(p, p->footer, gr.first_page, gr.page_count) != gr.hash)
            fail(x, "%s: row group %u: Merkle hash mismatch (page records changed)", p->name, g);
    }
    if (groups_ok && (row != p->num_rows || page != p->num_pages))
        fail(x, "%s: row groups cover %" PRIu64 " rows and %u pages, footer says %" PRIu64
                " and %u", p->name, row, page, p->num_rows, p->num_pages);
    x->rep->groups += p->num_groups;
    x->rep->erased_rows += p->deleted_rows;
    x->rep->rows += p->num_rows;
}

/* A chunk whose pages gc released (or whose leaf's are): every page in the
 * released form (footer.c checks its records), its rows following, its
 * extent all zeros; no dictionary counts or bounds; and its column shown by
 * no version, neither the current one nor any kept. */
static void check_released_chunk(struct vctx *x, const struct ig_table *t, uint32_t pi, uint32_t g,
                                 uint32_t leaf, uint32_t col, const struct ig_grouprec *gr,
                                 uint32_t first, uint32_t count, const char *cname)
{
    const struct ig_part *p = &t->parts[pi];
    uint32_t gg = g + t->part_first_group[pi];
    struct ig_error e = {0};
    if (!ig_part_leaf_released(p, leaf))
        fail(x, "%s: %s row group %u: pages released here, not in row group 0", p->name, cname, gg);
    if (ig_table_shows(t, col))
        fail(x, "%s: %s row group %u: version %" PRIu64 " shows it, but its pages were released",
             p->name, cname, gg, t->manifest.version);
    else if (x->kept && (x->kept_every || ig_idset_has(x->kept, col)))
        fail(x, "%s: %s row group %u: a version kept shows it, but its pages were released",
             p->name, cname, gg);
    struct ig_chunk_dict cd;
    struct ig_minmax bounds;
    if (ig_part_chunk_dict(p, g, leaf, &cd, &e) || ig_part_chunk_minmax(p, g, leaf, &bounds, &e))
        fail(x, "%s: %s row group %u: %s", p->name, cname, gg, e.msg);
    else if (cd.count || bounds.bounded)
        fail(x, "%s: %s row group %u: released, but its chunk record keeps counts or bounds",
             p->name, cname, gg);
    struct ig_ctxrec cr;
    if (ig_part_chunk_ctx(p, g, leaf, &cr, &e))
        fail(x, "%s: %s row group %u: %s", p->name, cname, gg, e.msg);
    else if (cr.size)
        fail(x, "%s: %s row group %u: released, but its chunk record keeps a context", p->name,
             cname, gg);
    uint32_t expected = 0;
    for (uint32_t pg = first; pg < first + count; pg++) {
        struct ig_pagerec rec;
        if (ig_part_page(p, pg, &rec, &e) ||
            ig_chunk_page_check(p, pg, &rec, leaf, expected, gr->row_count, &e)) {
            fail(x, "%s: %s row group %u page %u: %s", p->name, cname, gg, pg, e.msg);
            return;
        }
        expected += rec.row_count;
        if (!ig_page_released(&rec)) {
            fail(x, "%s: %s row group %u page %u: live among released pages", p->name, cname, gg,
                 pg);
            continue;
        }
        if (!zeros_between(p, rec.offset, rec.offset + rec.capacity))
            fail(x, "%s: %s row group %u page %u: released, but its extent is not zero", p->name,
                 cname, gg, pg);
        x->rep->released_pages++;
        x->rep->released_bytes += rec.capacity;
        x->bytes_done += rec.capacity;
        if (x->done) atomic_fetch_add(x->done, rec.capacity);
    }
    if (expected != gr->row_count)
        fail(x, "%s: %s row group %u: pages cover %u of %u rows", p->name, cname, gg, expected,
             gr->row_count);
}

/* Is the first page of the chunk at `first` released? */
static bool first_released(const struct ig_part *p, uint32_t first)
{
    struct ig_pagerec rec;
    return ig_part_page(p, first, &rec, NULL) == 0 && ig_page_released(&rec);
}

/* every page of every chunk, in order */
/* The chunks of row group g of part pi: every leaf's pages in order. */
static void check_group_chunks(struct vctx *x, const struct ig_table *t, uint32_t pi, uint32_t g)
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
            fail(x, "%s: %s", p->name, e.msg);
            continue;
        }
        char cname[256];
        column_name(p, leaf, cname, sizeof cname);
        if (ig_part_chunk(p, g, leaf, &first, &count, &e)) {
            fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
            continue;
        }
        if (first != next_page)
            fail(x, "%s: %s row group %u: chunk does not follow the previous chunk", p->name,
                 cname, g);
        next_page = first + count;
        if (ig_part_leaf_released(p, leaf) || first_released(p, first)) {
            check_released_chunk(x, t, pi, g, leaf, col, &gr, first, count, cname);
            continue;
        }
        struct ig_chunk_dict cd = {0};
        if (ig_part_chunk_dict(p, g, leaf, &cd, &e)) fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
        struct ig_minmax bounds = {0};
        if (ig_part_chunk_minmax(p, g, leaf, &bounds, &e)) {
            fail(x, "%s: %s row group %u: %s", p->name, cname, g, e.msg);
        } else if (bounds.bounded && !ig_minmax_kept(c.rec.type, c.nested)) {
            fail(x, "%s: %s row group %u: chunk record bounds a leaf that keeps none", p->name, cname, g);
            bounds.bounded = false;
        } else if (!ig_minmax_ordered(ig_read_type(c.rec.type, c.rec.quantize), &bounds)) {
            fail(x, "%s: %s row group %u: chunk bounds out of order", p->name, cname, g);
            bounds.bounded = false;
        }
        /* a context (format 12): its bytes checked and parsed, and what it
         * counts of each symbol's uses recounted over the chunk's blocks */
        const struct ig_chunk_ctx *cx = NULL;
        uint64_t uses[256] = {0};
        if (count && ig_reader_context(&x->r, p, first, leaf, &cx, &e)) {
            const char *why = strstr(e.msg, "chunk context");
            fail(x, "%s: %s row group %u: %s", p->name, cname, g, why ? why : e.msg);
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
                ig_chunk_ctx_parse(b.data, cr.size, &own, &e))
                fail(x, "%s: %s row group %u: chunk context: cannot read it again", p->name, cname,
                     g);
            ig_buf_free(&b);
            cx = own.fsst ? &own : NULL;
        }
        struct ig_strset dict;
        ig_strset_init(&dict);
        bool counting = x->deep && cd.count;
        uint32_t expected = 0;
        for (uint32_t pg = first; pg < first + count && expected != UINT32_MAX; pg++)
            check_page(x, p, g + t->part_first_group[pi], pg, &gr, &c, &expected,
                       counting ? &dict : NULL, x->deep && bounds.bounded ? &bounds : NULL, cx,
                       uses);
        for (unsigned s = 0; cx && expected != UINT32_MAX && s < 256; s++)
            if (ig_fsst_count(cx->fsst, s) != uses[s]) {
                fail(x,
                     "%s: %s row group %u: chunk context: symbol %u is used %" PRIu64
                     " times, its table counts %" PRIu64,
                     p->name, cname, g, s, uses[s], ig_fsst_count(cx->fsst, s));
                break;
            }
        ig_chunk_ctx_free(&own);
        x->ctx_failed = false;
        if (expected != UINT32_MAX && expected != gr.row_count)
            fail(x, "%s: %s row group %u: pages cover %u of %u rows", p->name, cname, g, expected,
                 gr.row_count);
        /* erasing only removes values: never more than the writer counted */
        if (counting && expected != UINT32_MAX && (dict.count > cd.count || dict.bytes > cd.bytes))
            fail(x, "%s: %s row group %u: %u distinct values of %" PRIu64 " bytes, the chunk record counts %u of %u",
                 p->name, cname, g, dict.count, dict.bytes, cd.count, cd.bytes);
        ig_strset_free(&dict);
    }
}

/* Row groups shared between threads, one per core: each takes the next group
 * not taken, with its own reader and buffers. */
#define VERIFY_THREADS 8
struct group_share {
    const struct ig_table *t;
    uint32_t pi, ngroups;
    atomic_uint next;
};

struct group_worker {
    struct group_share *sh;
    struct vctx x;
    struct ig_verify_report rep;
};

static void *group_work(void *arg)
{
    struct group_worker *w = arg;
    for (;;) {
        unsigned g = atomic_fetch_add(&w->sh->next, 1);
        if (g >= w->sh->ngroups) break;
        w->x.group = g;
        check_group_chunks(&w->x, w->sh->t, w->sh->pi, g);
    }
    return NULL;
}

static void merge_worker(struct vctx *x, struct group_worker *w)
{
    x->rep->released_pages += w->rep.released_pages;
    x->rep->released_bytes += w->rep.released_bytes;
    x->rep->pages += w->rep.pages;
    x->rep->page_bytes += w->rep.page_bytes;
    x->rep->unscrubbed += w->rep.unscrubbed;
    for (size_t i = 0; i < w->x.nobjs; i++) { /* blob references, checked per blob file */
        if (x->nobjs == x->objs_cap) {
            size_t cap = x->objs_cap ? x->objs_cap * 2 : 256;
            struct objref *o = realloc(x->objs, cap * sizeof *o);
            if (!o) break;
            x->objs = o;
            x->objs_cap = cap;
        }
        x->objs[x->nobjs++] = w->x.objs[i];
    }
    free(w->x.objs);
    ig_values_free(&w->x.v);
    ig_buf_free(&w->x.text);
    ig_reader_free(&w->x.r);
}

static void check_chunks(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    const struct ig_part *p = &t->parts[pi];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nt = cpus > 1 ? (unsigned)cpus : 1;
    if (nt > VERIFY_THREADS) nt = VERIFY_THREADS;
    if (nt > p->num_groups) nt = p->num_groups;
    struct ig_buf *msgs = nt > 1 ? calloc(p->num_groups, sizeof *msgs) : NULL;
    if (!msgs) { /* one thread (or no memory for more) */
        for (uint32_t g = 0; g < p->num_groups; g++)
            check_group_chunks(x, t, pi, g);
        return;
    }
    struct group_share sh = {.t = t, .pi = pi, .ngroups = p->num_groups};
    atomic_uint_fast64_t done = x->bytes_done;
    struct group_worker w[VERIFY_THREADS];
    pthread_t tid[VERIFY_THREADS];
    bool started[VERIFY_THREADS] = {false};
    for (unsigned i = 0; i < nt; i++) {
        w[i] = (struct group_worker){.sh = &sh};
        w[i].x = (struct vctx){.h = x->h,
                               .rep = &w[i].rep,
                               .bytes_total = x->bytes_total,
                               .deep = x->deep,
                               .group_msgs = msgs,
                               .done = &done,
                               .quiet = i > 0,
                               .kept = x->kept,
                               .kept_every = x->kept_every};
        ig_values_init(&w[i].x.v, IG_T_INT64);
    }
    for (unsigned i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], NULL, group_work, &w[i]) == 0;
    group_work(&w[0]); /* this thread takes its share too */
    for (unsigned i = 1; i < nt; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    x->bytes_done = atomic_load(&done);
    for (uint32_t g = 0; g < p->num_groups; g++) { /* failures in group order */
        for (size_t at = 0; at < msgs[g].len; at += strlen((const char *)msgs[g].data + at) + 1)
            fail(x, "%s", (const char *)msgs[g].data + at);
        ig_buf_free(&msgs[g]);
    }
    free(msgs);
    for (unsigned i = 0; i < nt; i++)
        merge_worker(x, &w[i]);
}

/* nested columns: each page index's whole-column text, as the extras say
 * (rendered, as the leaves' are) */
static void check_nested_text(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    if (!x->deep) return;
    const struct ig_part *p = &t->parts[pi];
    struct ig_error e = {0};
    struct ig_buf text = IG_BUF_INIT;
    for (uint32_t c = 0; c < p->num_columns; c++) {
        struct ig_column_ref ref;
        if (ig_table_column_at(t, c, &ref, NULL) || ref.top != c || !ref.nested) continue;
        if (ig_part_column_released(p, c)) continue; /* its chunks were checked as released */
        struct ig_nested_reader nr;
        if (ig_nested_open(&nr, t, c, &e)) {
            fail(x, "%s: %s", p->name, e.msg);
            continue;
        }
        for (uint32_t g = 0; g < p->num_groups; g++) {
            uint32_t gg = g + t->part_first_group[pi], count = 0;
            if (ig_nested_pages(&nr, t, gg, &count, &e)) continue;
            for (uint32_t i = 0; i < count; i++) {
                struct ig_nested_page np = {.group = gg, .index = i};
                uint64_t tl = 0;
                struct ig_pagex px;
                uint32_t first, cnt;
                ig_buf_reset(&text);
                if (ig_nested_load(&nr, t, &np, &e) ||
                    ig_assemble_lines(&nr.tree, nr.vp, np.rows, np.deleted, &text, &tl, &e) ||
                    ig_part_chunk(p, g, nr.refs[0].rec.leaf, &first, &cnt, &e) ||
                    ig_part_page_extra(p, first + i, &px, &e)) {
                    fail(x, "%s: column '%.*s' row group %u page index %u: %s", p->name,
                         (int)ref.rec.name_len, ref.rec.name, gg, i, e.msg);
                    continue;
                }
                if (tl != px.node_text_len)
                    fail(x, "%s: column '%.*s' row group %u page %u: text length %" PRIu64
                            " != extras' %" PRIu64, p->name, (int)ref.rec.name_len, ref.rec.name,
                         gg, first + i, tl, px.node_text_len);
            }
        }
        ig_nested_close(&nr);
    }
    ig_buf_free(&text);
}

/* extents must not overlap (an erase rewriting one page must not touch another) */
static void check_extents(struct vctx *x, const struct ig_part *p)
{
    struct extent *ex = malloc(((size_t)p->num_pages + 1) * sizeof *ex);
    if (ex) {
        uint32_t n = 0;
        for (uint32_t pg = 0; pg < p->num_pages; pg++) {
            struct ig_pagerec rec;
            if (ig_part_page(p, pg, &rec, NULL) == 0)
                ex[n++] = (struct extent){rec.offset, rec.capacity, pg};
        }
        qsort(ex, n, sizeof *ex, extent_cmp);
        for (uint32_t i = 1; i < n; i++)
            if (ex[i - 1].off + ex[i - 1].cap > ex[i].off) {
                fail(x, "%s: pages %u and %u overlap on disk", p->name, ex[i - 1].page, ex[i].page);
                break;
            }
        free(ex);
    }
}

/* deletion bitmap: count and no bits past the last row */
static void check_deletion_and_root(struct vctx *x, const struct ig_part *p)
{
    const uint8_t *bm = ig_part_section(p, IG_SEC_DELETION);
    uint64_t bits = 0;
    for (uint64_t i = 0; i < p->sec_size[IG_SEC_DELETION]; i++)
        bits += (uint64_t)__builtin_popcount(bm[i]);
    uint64_t in_range = 0;
    for (uint64_t r = 0; r < p->num_rows; r++)
        in_range += ig_part_row_deleted(p, r);
    if (bits != in_range) fail(x, "%s: deletion bitmap has bits past the last row", p->name);
    if (in_range != p->deleted_rows)
        fail(x, "%s: footer says %" PRIu64 " deleted rows, bitmap has %" PRIu64, p->name,
             p->deleted_rows, in_range);
    uint64_t root = ig_merkle_root(p->footer, ig_part_section(p, IG_SEC_GROUPS),
                                   p->sec_size[IG_SEC_GROUPS], bm, p->sec_size[IG_SEC_DELETION]);
    if (root != p->root) fail(x, "%s: root hash mismatch (footer header or row groups changed)", p->name);
}

/* Everything about one part: its footer sections, row groups and their Merkle
 * hashes, every page, nested columns' text lengths, extents, the deletion bitmap
 * and root, and its blob file. */
static void check_part(struct vctx *x, const struct ig_table *t, uint32_t pi)
{
    x->nobjs = 0;
    const struct ig_part *p = &t->parts[pi];
    check_sections(x, p);
    check_groups(x, p);
    check_chunks(x, t, pi);
    check_nested_text(x, t, pi);
    check_extents(x, p);
    check_deletion_and_root(x, p);
    if (ig_part_has_blob(p)) check_blobs(x, p, t);
}

int ig_part_check_footer(const struct ig_part *p, struct ig_error *err)
{
    const uint8_t *parts[4] = {ig_part_section(p, IG_SEC_COLUMNS), ig_part_section(p, IG_SEC_NAMES),
                               ig_part_section(p, IG_SEC_NAME_INDEX),
                               ig_part_section(p, IG_SEC_LEAVES)};
    size_t sizes[4] = {p->sec_size[IG_SEC_COLUMNS], p->sec_size[IG_SEC_NAMES],
                       p->sec_size[IG_SEC_NAME_INDEX], p->sec_size[IG_SEC_LEAVES]};
    if (ig_merkle_concat(parts, sizes, 4) != p->schema_hash)
        return ig_err(err, -EIO, "%s: corrupt footer: schema hash mismatch", p->path);
    if (ig_hash(ig_part_section(p, IG_SEC_CHUNKS), p->sec_size[IG_SEC_CHUNKS]) != p->chunks_hash)
        return ig_err(err, -EIO, "%s: corrupt footer: chunk table hash mismatch", p->path);
    for (uint32_t g = 0; g < p->num_groups; g++) {
        struct ig_grouprec gr;
        int rc = ig_part_group(p, g, &gr, err);
        if (rc) return rc;
        if (ig_footer_group_hash(p, p->footer, gr.first_page, gr.page_count) != gr.hash)
            return ig_err(err, -EIO, "%s: corrupt footer: row group %u hash mismatch", p->path, g);
    }
    uint64_t root = ig_merkle_root(p->footer, ig_part_section(p, IG_SEC_GROUPS),
                                   p->sec_size[IG_SEC_GROUPS], ig_part_section(p, IG_SEC_DELETION),
                                   p->sec_size[IG_SEC_DELETION]);
    if (root != p->root) return ig_err(err, -EIO, "%s: corrupt footer: root hash mismatch", p->path);
    return 0;
}

int ig_verify_table(const char *dir, const struct ig_verify_hooks *h,
                    struct ig_verify_report *rep, struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    struct vctx x = {.h = h, .rep = rep, .deep = h && h->deep};
    struct ig_table t;
    /* On a shared file system this host's cached copy can be older than what
     * another host wrote (docs/DEPLOY.md): verify what storage holds. Locally
     * the cache is what every reader here reads; --cold reads the disk. */
    if ((h && h->cold) || ig_fs_is_shared(dir)) ig_table_forget_cache(dir);
    /* an interrupted erase on object storage: completed first, unless its
     * writer is still at work (its journal is then reported) */
    bool replayed;
    struct ig_error re = {0};
    if (ig_store_is_remote(dir) && ig_remote_recover(dir, 0, &replayed, &re)) fail(&x, "%s", re.msg);
    int rc = ig_table_open(&t, dir, false, err);
    if (rc) {
        fail(&x, "%s", err ? err->msg : "cannot open the table");
        return rc;
    }
    rep->parts = t.nparts;
    for (uint32_t i = 0; i < t.nparts; i++)
        x.bytes_total += t.parts[i].footer_offset;
    /* what the versions kept show, where gc released pages: none of theirs
     * may be (read only then: a table erased often keeps many versions) */
    bool any_released = false;
    for (uint32_t i = 0; i < t.nparts && !any_released; i++)
        for (uint32_t leaf = 0; leaf < t.parts[i].num_leaves && !any_released; leaf++)
            any_released = ig_part_leaf_released(&t.parts[i], leaf);
    struct ig_idset kept = {0};
    struct ig_error verr = {0};
    if (any_released && ig_versions_shown(dir, &t.manifest, &kept, &x.kept_every, &verr))
        fail(&x, "%s", verr.msg);
    else if (any_released)
        x.kept = &kept;
    ig_values_init(&x.v, IG_T_INT64);
    for (uint32_t i = 0; i < t.nparts; i++)
        check_part(&x, &t, i);
    if (ig_store_is_remote(dir)) {
        struct ig_error e = {0};
        if (ig_verify_objects(dir, &t, fail_msg, &x, &rep->objects, &rep->object_versions, &e))
            fail(&x, "%s", e.msg);
    }
    ig_values_free(&x.v);
    ig_idset_free(&kept);
    free(x.objs);
    ig_buf_free(&x.text);
    ig_reader_free(&x.r);
    ig_table_close(&t);
    return 0;
}
