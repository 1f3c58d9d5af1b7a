#include "format/ops/reader.h"
#include "format/layout.h"
#include "format/page/slide.h"
#include "format/model/names.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most values a page's record makes ig_reader_load reserve at once
 * (8 MiB of lanes); past it the values grow as they are decoded. */
#define PAGE_RESERVE_MAX ((size_t)1 << 20)

void ig_reader_free(struct ig_reader *r)
{
    for (size_t i = 0; i < r->nctx; i++) {
        ig_chunk_ctx_free(r->ctx[i].cx);
        free(r->ctx[i].cx);
    }
    free(r->ctx);
    free(r->ctx_keys);
    r->ctx = NULL;
    r->ctx_keys = NULL;
    r->nctx = r->ctx_cap = 0;
    r->ctx_held = 0;
    ig_buf_free(&r->ctx_bytes);
    ig_page_scratch_free(&r->s);
    ig_buf_free(&r->stored);
    ig_buf_free(&r->deleted);
    ig_buf_free(&r->absent);
    ig_values_free(&r->block);
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
                                    .per_value = c->dimension ? c->dimension : 1,
                                    .item_nulls = c->lists == 1 && (c->null_mask & 2),
                                    .lt = c->lt};
    /* list<T?> leaves hold sliding-window pages from format 18 on: an older
     * part's never do, and an erase there keeps to what its version knows */
    out->li.slide_ok = out->nested && c->parent == IG_NONE && ig_slide_fits(&out->li, c->lists, c->null_mask) &&
                       (!out->li.item_nulls || p->version >= IG_FORMAT_SLIDE_ITEM_NULLS) &&
                       (!ig_type_info(c->type)->is_float || p->version >= IG_FORMAT_SLIDE_FLOATS);
    out->li.joint_levels = out->nested && p->version >= IG_FORMAT_JOINT_LEVELS;
    if (c->quantize && c->type != IG_T_FLOAT32 && c->type != IG_T_FLOAT64)
        return ig_err(err, -EIO, "%s: corrupt footer: column %u quantises a non-float", p->path, col);
    return 0;
}

int ig_table_column(const struct ig_table *t, const char *name, size_t len,
                    struct ig_column_ref *out, struct ig_error *err)
{
    uint32_t col;
    int rc = ig_table_find(t, name, len, &col, err);
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

/* Let go of the context read last among those not among the
 * IG_READER_CONTEXTS used last: its slot, empty, or NULL when every context
 * is that recent. The most recently read, not the oldest: a reader cycling
 * through more contexts than it keeps then keeps most of them for good
 * instead of none. */
static struct ig_reader_context *context_let_go(struct ig_reader *r)
{
    struct ig_reader_context *c = NULL;
    for (size_t i = 0; i < r->nctx; i++) {
        struct ig_reader_context *x = &r->ctx[i];
        if (x->size && x->used + IG_READER_CONTEXTS <= r->ctx_uses && (!c || x->read > c->read)) c = x;
    }
    if (!c) return NULL;
    r->ctx_held -= c->held;
    ig_chunk_ctx_free(c->cx);
    c->size = c->held = 0;
    r->ctx_keys[c - r->ctx] = 0;
    return c;
}

/* An empty slot for a context of `size` bytes (struct ig_reader_context),
 * letting others go while their bytes and its would pass
 * IG_READER_CONTEXT_BYTES, and one when IG_READER_CONTEXTS_MOST slots are
 * full; `empty`: the first slot the lookup found empty (a context let go for
 * bytes, or one that failed to read), else r->nctx. The caller fills it. */
static struct ig_reader_context *context_slot(struct ig_reader *r, uint32_t size, size_t empty)
{
    struct ig_reader_context *freed = NULL, *c;
    while (r->ctx_held + size > IG_READER_CONTEXT_BYTES && (c = context_let_go(r)))
        freed = c;
    if (freed) return freed;
    if (empty < r->nctx) return &r->ctx[empty];
    if (r->nctx >= IG_READER_CONTEXTS_MOST && (c = context_let_go(r))) return c;
    if (r->nctx == r->ctx_cap) {
        size_t cap = r->ctx_cap ? r->ctx_cap * 2 : IG_READER_CONTEXTS;
        struct ig_reader_context *a = realloc(r->ctx, cap * sizeof *a);
        if (a) r->ctx = a;
        uint64_t *k = realloc(r->ctx_keys, cap * sizeof *k);
        if (k) r->ctx_keys = k;
        if (!a || !k) return NULL;
        r->ctx_cap = cap;
    }
    struct ig_chunk_ctx *cx = calloc(1, sizeof *cx);
    if (!cx) return NULL;
    r->ctx[r->nctx] = (struct ig_reader_context){.cx = cx};
    r->ctx_keys[r->nctx] = 0;
    return &r->ctx[r->nctx++];
}

int ig_reader_context(struct ig_reader *r, const struct ig_part *p, uint32_t page, uint32_t leaf,
                      const struct ig_chunk_ctx **out, struct ig_error *err)
{
    *out = NULL;
    if (p->version < IG_FORMAT_CHUNK_CTX) return 0;
    uint32_t g;
    struct ig_ctxrec cr;
    int rc = ig_part_page_group(p, page, &g, err);
    if (!rc) rc = ig_part_chunk_ctx(p, g, leaf, &cr, err);
    if (rc || !cr.size) return rc;
    r->ctx_uses++;
    size_t empty = r->nctx;
    for (size_t i = 0; i < r->nctx; i++) {
        if (r->ctx_keys[i] == cr.hash && r->ctx[i].size == cr.size) {
            r->ctx[i].used = r->ctx_uses;
            *out = r->ctx[i].cx;
            return 0;
        }
        if (!r->ctx_keys[i] && empty == r->nctx && !r->ctx[i].size) empty = i;
    }
    struct ig_reader_context *slot = context_slot(r, cr.size, empty);
    if (!slot) return ig_err(err, -ENOMEM, "out of memory");
    r->ctx_reads++;
    ig_buf_reset(&r->ctx_bytes);
    if (ig_buf_reserve(&r->ctx_bytes, cr.size)) return ig_err(err, -ENOMEM, "out of memory");
    /* a stale copy on shared storage is read once more, as a block would be
     * (a part on object storage reads by range: ig_part_read) */
    bool mismatch = false;
    for (int tries = 0; tries < 2; tries++) {
        if (tries && p->fd >= 0)
            (void)posix_fadvise(p->fd, (off_t)cr.offset, (off_t)cr.size, POSIX_FADV_DONTNEED);
        rc = ig_part_read_by(p, r->ctx_bytes.data, cr.size, cr.offset, r->ahead, err);
        mismatch = !rc && ig_hash(r->ctx_bytes.data, cr.size) != cr.hash;
        if (!mismatch) break;
    }
    if (mismatch) rc = ig_err(err, -EIO, "checksum mismatch");
    if (!rc) rc = ig_chunk_ctx_parse(r->ctx_bytes.data, cr.size, p->version, slot->cx, err);
    if (!rc && slot->cx->vdict && p->version < IG_FORMAT_VDICT) {
        ig_chunk_ctx_free(slot->cx);
        rc = ig_err(err, -EIO, "a value dictionary in a part of version %u", p->version);
    }
    if (rc) {
        ig_err_prefix(err, rc, "row group %u: chunk context", g);
        return page_error(p, leaf, page, err, rc);
    }
    slot->size = cr.size;
    slot->held = slot->cx->bytes > cr.size ? (uint32_t)slot->cx->bytes : cr.size;
    slot->used = r->ctx_uses;
    slot->read = r->ctx_reads;
    r->ctx_keys[slot - r->ctx] = cr.hash;
    r->ctx_held += slot->held;
    /* unpacked, it may hold more than its stored bytes made room for */
    while (r->ctx_held > IG_READER_CONTEXT_BYTES && context_let_go(r))
        ;
    *out = slot->cx;
    return 0;
}

/* Read the stored bytes [off, off + len) of a part (a page or a block). */
static int read_stored(struct ig_reader *r, const struct ig_part *p, uint32_t leaf, uint32_t page,
                       uint64_t off, uint32_t len, struct ig_error *err)
{
    ig_buf_reset(&r->stored);
    /* an extent past the size at open (a page an erase moved since) is
     * looked for in the file as it is now before room is made for it: a
     * hostile record may claim up to 4 GiB */
    if (off + len > p->file_size && off + len > ig_part_size_now(p))
        return page_error(p, leaf, page, err, ig_err(err, -EIO, "read failed: file truncated"));
    if (ig_buf_reserve(&r->stored, len)) return ig_err(err, -ENOMEM, "out of memory");
    int rc = ig_part_read_by(p, r->stored.data, len, off, r->ahead, err);
    if (rc) return page_error(p, leaf, page, err, rc);
    r->stored.len = len;
    return 0;
}

int ig_block_check(const struct ig_part *p, uint32_t page, const struct ig_pagerec *rec,
                   const uint8_t *page_bytes, struct ig_error *err)
{
    if (!rec->nblocks) { /* an older part's page: its checksum is over its bytes */
        if (ig_hash(page_bytes, rec->stored) != rec->checksum)
            return page_error(p, rec->leaf, page, err, ig_err(err, -EIO, "checksum mismatch"));
        return 0;
    }
    /* the page's checksum is its block records' hash; each block's, its bytes' */
    const uint8_t *records = ig_part_section(p, IG_SEC_BLOCKS) + (uint64_t)rec->first_block * IG_BLK_SIZE;
    if (ig_hash(records, (size_t)rec->nblocks * IG_BLK_SIZE) != rec->checksum)
        return page_error(p, rec->leaf, page, err, ig_err(err, -EIO, "block records' checksum mismatch"));
    for (uint32_t b = 0; b < rec->nblocks; b++) {
        struct ig_pagerec blk;
        int rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) return rc;
        if (blk.offset + blk.stored > rec->offset + rec->stored)
            return page_error(p, rec->leaf, page, err, ig_err(err, -EIO, "block %u past the page", b));
        if (ig_hash(page_bytes + (blk.offset - rec->offset), blk.stored) != blk.checksum)
            return page_error(p, rec->leaf, page, err, ig_err(err, -EIO, "block %u: checksum mismatch", b));
    }
    return 0;
}

/* Bytes that failed their checksum may be a stale copy, not damage: a shared
 * file system's client (GlusterFS, NFS) can keep pages of a part file from
 * before another host rewrote them in place. Drop this host's cached copy of
 * the range and read it once more. On shared storage the client's own cache
 * (GlusterFS io-cache: 1 s by default) can serve the old bytes again, so read
 * up to four times more over ~1.9 s, unless the part itself moved on (another
 * host erased in place: the bytes are newer than this reader's footer, and
 * waiting would only hold up the caller, e.g. the mount daemon, whose reload
 * of the table waited behind such a read for 1-1.2 s). The caller checks the
 * last bytes read: what still fails is damage, or a table to reopen. */
struct stale_check {
    const struct ig_part *p;
    uint32_t page;
    const struct ig_pagerec *rec; /* a page: check its blocks */
    uint64_t checksum;            /* else: one block's bytes */
};

static bool fresh(const struct ig_reader *r, const struct stale_check *c)
{
    if (!c->rec) return ig_hash(r->stored.data, r->stored.len) == c->checksum;
    struct ig_error ignored = {0};
    return ig_block_check(c->p, c->page, c->rec, r->stored.data, &ignored) == 0;
}

static int reread_stale(struct ig_reader *r, const struct stale_check *c, uint32_t leaf,
                        uint64_t off, uint32_t len, struct ig_error *err)
{
    static const unsigned pause_ms[] = {0, 100, 300, 600, 900};
    unsigned tries = c->p->shared ? sizeof pause_ms / sizeof pause_ms[0] : 1;
    for (unsigned t = 0; t < tries; t++) {
        if (pause_ms[t]) {
            if (ig_part_rewritten(c->p)) break;
            nanosleep(&(struct timespec){0, (long)pause_ms[t] * 1000000L}, NULL);
        }
        (void)posix_fadvise(c->p->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
        int rc = read_stored(r, c->p, leaf, c->page, off, len, err);
        if (rc || fresh(r, c)) return rc;
    }
    return 0;
}

int ig_reader_fetch(struct ig_reader *r, const struct ig_part *p, uint32_t page,
                    const struct ig_pagerec *rec, struct ig_error *err)
{
    if (ig_page_released(rec))
        return page_error(
            p, rec->leaf, page, err,
            ig_err(err, -ENODATA, "released by ingot gc: no version kept shows this column"));
    int rc = read_stored(r, p, rec->leaf, page, rec->offset, rec->stored, err);
    if (rc) return rc;
    struct stale_check c = {p, page, rec, 0};
    if (fresh(r, &c)) return 0;
    rc = reread_stale(r, &c, rec->leaf, rec->offset, rec->stored, err);
    return rc ? rc : ig_block_check(p, page, rec, r->stored.data, err);
}

/* Bits [first, first + n) of src (LSB-first) into dst[0..n). */
static void slice_bits(const uint8_t *src, size_t first, size_t n, uint8_t *dst)
{
    memset(dst, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++)
        if ((src[(first + i) / 8] >> ((first + i) % 8)) & 1) dst[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Decode block blk of a page whose stored bytes start at `bytes` into out;
 * `absent` (page rows) says which rows a drop-on-erase stream left out. */
static int decode_block(struct ig_reader *r, const struct ig_column_ref *c,
                        const struct ig_pagerec *page, const struct ig_pagerec *blk,
                        const uint8_t *bytes, const uint8_t *absent, struct ig_values *out,
                        struct ig_error *err)
{
    const uint8_t *ab = NULL;
    if (absent) {
        ig_buf_reset(&r->absent);
        uint8_t *bits = ig_buf_extend(&r->absent, (blk->row_count + 7) / 8);
        if (!bits) return ig_err(err, -ENOMEM, "out of memory");
        slice_bits(absent, blk->first_row, blk->row_count, bits);
        ab = bits;
    }
    return ig_page_decode_leaf(bytes + (blk->offset - page->offset), blk, &c->li, ab, &r->s, out, err);
}

/* The page's deletion bits into r->deleted; *deleted NULL when none is set. */
static int load_deleted(struct ig_reader *r, const struct ig_part *p, uint64_t first, uint32_t n,
                        const uint8_t **deleted, struct ig_error *err)
{
    ig_buf_reset(&r->deleted);
    uint8_t *bits = ig_buf_extend(&r->deleted, (n + 7) / 8);
    if (!bits) return ig_err(err, -ENOMEM, "out of memory");
    *deleted = ig_part_deleted_bits(p, first, n, bits) ? bits : NULL;
    return 0;
}

static void label(struct ig_values *out, const struct ig_part *p, const struct ig_column_ref *c,
                  uint64_t first_row)
{
    out->row_base = p->first_row_id + first_row;
    out->blob_dir = c->blob_dir;
    out->blob_list = (c->rec.flags & IG_COLF_REPEATED) != 0;
}

int ig_reader_check(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                    const uint8_t **deleted, struct ig_error *err)
{
    const struct ig_part *p = at->p;
    const struct ig_column_ref *c = at->c;
    uint32_t page = at->page;
    int rc = ig_part_page(p, page, rec, err);
    if (rc) return rc;
    if (rec->leaf != c->rec.leaf)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u belongs to leaf %u, not %u",
                      p->path, page, rec->leaf, c->rec.leaf);
    if (c->rec.leaf == IG_NONE) return ig_err(err, -EINVAL, "column '%.*s' holds no pages of its own",
                                              (int)c->rec.name_len, c->rec.name);
    rc = ig_reader_fetch(r, p, page, rec, err);
    if (!rc) rc = load_deleted(r, p, at->group_first_row + rec->first_row, rec->row_count, deleted, err);
    return rc;
}

int ig_reader_row_lengths(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                          struct ig_buf *lens, const uint8_t **deleted, struct ig_error *err)
{
    const struct ig_part *p = at->p;
    const struct ig_column_ref *c = at->c;
    uint32_t page = at->page;
    struct ig_pagerec blk;
    int rc = ig_part_page(p, page, rec, err);
    if (rc) return rc;
    if (!ig_reader_rows_alone(c, rec) || ig_page_nblocks(rec) != 1) return -ENOTSUP;
    rc = ig_reader_check(r, at, rec, deleted, err);
    if (!rc) rc = ig_part_block(p, page, rec, 0, &blk, err);
    if (rc) return rc;
    ig_buf_reset(lens);
    if (!ig_buf_extend(lens, ((size_t)blk.row_count + 1) * 8)) return ig_err(err, -ENOMEM, "out of memory");
    rc = ig_page_row_lengths(r->stored.data + (blk.offset - rec->offset), &blk, &c->li, &r->s, (uint64_t *)lens->data,
                             err);
    return rc ? page_error(p, rec->leaf, page, err, rc) : 0;
}

int ig_reader_load(struct ig_reader *r, const struct ig_page_at *at, struct ig_pagerec *rec,
                   struct ig_values *out, const uint8_t **deleted, struct ig_error *err)
{
    const struct ig_part *p = at->p;
    const struct ig_column_ref *c = at->c;
    uint32_t page = at->page;
    int rc = ig_reader_check(r, at, rec, deleted, err);
    if (rc) return rc;
    const uint8_t *absent = *deleted && c->erase_level == 2 && !c->li.levels ? *deleted : NULL;
    uint32_t nb = ig_page_nblocks(rec);
    const struct ig_chunk_ctx *cx = NULL;
    rc = ig_reader_context(r, p, page, rec->leaf, &cx, err);
    if (rc) return rc;
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) break;
        blk.cx = cx;
        if (nb == 1) { /* straight into out */
            rc = decode_block(r, c, rec, &blk, r->stored.data, absent, out, err);
            break;
        }
        if (b == 0) {
            ig_values_retype(out, ig_read_type(c->li.type, c->li.quantize));
            out->lt = c->li.lt;
            if (c->li.levels) ig_values_set_levels(out, c->li.per_value);
            else out->levels = false;
            /* room for the page's values at once, not doubled block by block
             * (each doubling copies what came before); the record's count
             * is only a hint, capped so that a hostile one asks for little */
            if (ig_values_reserve(out, rec->value_count < PAGE_RESERVE_MAX ? rec->value_count : PAGE_RESERVE_MAX)) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
        }
        rc = decode_block(r, c, rec, &blk, r->stored.data, absent, &r->block, err);
        if (rc && nb > 1) ig_err_prefix(err, rc, "block %u", b);
        if (!rc && ig_values_append(out, &r->block)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (rc) return page_error(p, rec->leaf, page, err, rc);
    label(out, p, c, at->group_first_row + rec->first_row);
    return 0;
}

/* A block's stored bytes into r->stored, checked, and its deletion bits;
 * *first the block's first part-local row. */
static int fetch_block(struct ig_reader *r, const struct ig_page_at *at, struct ig_block_load *bl,
                       uint64_t *first, struct ig_error *err)
{
    const struct ig_part *p = at->p;
    const struct ig_pagerec *rec = bl->rec, *blk = &bl->blk;
    int rc = read_stored(r, p, rec->leaf, at->page, blk->offset, blk->stored, err);
    struct stale_check sc = {p, at->page, NULL, blk->checksum};
    if (!rc && !fresh(r, &sc)) rc = reread_stale(r, &sc, rec->leaf, blk->offset, blk->stored, err);
    if (rc) return rc;
    if (ig_hash(r->stored.data, blk->stored) != blk->checksum)
        return page_error(p, rec->leaf, at->page, err, ig_err(err, -EIO, "block %u: checksum mismatch", bl->block));
    *first = at->group_first_row + rec->first_row + blk->first_row;
    return load_deleted(r, p, *first, blk->row_count, &bl->deleted, err);
}

int ig_reader_load_block(struct ig_reader *r, const struct ig_page_at *at, struct ig_block_load *bl,
                         struct ig_values *out, struct ig_error *err)
{
    const struct ig_part *p = at->p;
    const struct ig_column_ref *c = at->c;
    const struct ig_pagerec *rec = bl->rec;
    bl->deleted = NULL;
    bl->body = r->s.last_body = NULL;
    if (rec->leaf != c->rec.leaf || c->rec.leaf == IG_NONE)
        return ig_err(err, -EIO, "%s: corrupt footer: page %u belongs to leaf %u", p->path, at->page,
                      rec->leaf);
    int rc = ig_part_block(p, at->page, rec, bl->block, &bl->blk, err);
    if (rc) return rc;
    if (!rec->nblocks) { /* an older part's page is its one block */
        rc = ig_reader_load(r, at, &bl->blk, out, &bl->deleted, err);
        bl->blk.first_row = 0;
        bl->body = rc ? NULL : r->s.last_body;
        return rc;
    }
    uint64_t first = 0;
    rc = fetch_block(r, at, bl, &first, err);
    if (!rc) rc = ig_reader_context(r, p, at->page, rec->leaf, &bl->blk.cx, err);
    if (rc) return rc;
    const uint8_t *absent = bl->deleted && c->erase_level == 2 && !c->li.levels ? bl->deleted : NULL;
    const uint8_t *pick = bl->pick;
    rc = pick ? ig_page_decode_picked(r->stored.data, &bl->blk, &c->li, absent, pick,
                                      bl->pick_lanes, &r->s, out, err)
              : -ENOTSUP;
    if (rc == -ENOTSUP) {
        pick = NULL;
        rc = bl->first_rows && c->li.levels
                 ? ig_page_decode_leaf_rows(r->stored.data, &bl->blk, &c->li, bl->first_rows, &r->s, out, err)
                 : ig_page_decode_leaf(r->stored.data, &bl->blk, &c->li, absent, &r->s, out, err);
    }
    if (rc) {
        ig_err_prefix(err, rc, "block %u", bl->block);
        return page_error(p, rec->leaf, at->page, err, rc);
    }
    if (!pick) label(out, p, c, first);
    bl->body = r->s.last_body;
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
