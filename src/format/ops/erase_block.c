/* erase_block.c - rewriting the blocks of a page that hold erased rows: each
 * block decoded, its erased values overwritten (page.h's rules per encoding),
 * re-encoded into its own extent, and only the bytes that changed journaled; a
 * page whose blocks no longer fit moves after the data. Chunk contexts are
 * erase_context.c's, the journaling of changed bytes erase_journal.c's. */
#include "erase_int.h"
#include "format/ops/erase.h"
#include "format/part/columns.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/part/lock.h"
#include "format/part/merkle.h"
#include "format/model/assemble.h"
#include "format/ops/nested.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "format/model/render.h"
#include "format/model/types.h"
#include "blob/blob.h"
#include "format/model/parse_value.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/u64vec.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The first row at or after i whose bit in `marked` is set (every row when
 * marked is NULL), or n: a byte at a time over rows none of which is set. */
static size_t next_marked(const uint8_t *marked, size_t i, size_t n)
{
    while (marked && i < n && !((marked[i / 8] >> (i % 8)) & 1))
        i = marked[i / 8] >> (i % 8) ? i + 1 : (i | 7) + 1;
    return i < n ? i : n;
}

/* Render killed rows (every row of v when kill is NULL) to know how much text
 * they took. */
static uint64_t killed_text(const struct ig_values *v, const uint8_t *kill, struct ig_buf *tmp)
{
    uint64_t total = 0;
    for (size_t i = next_marked(kill, 0, v->n); i < v->n; i = next_marked(kill, i + 1, v->n)) {
        ig_buf_reset(tmp);
        if (ig_render_text_value(tmp, v, i) == 0) total += tmp->len + 1;
    }
    return total;
}

/* A block rewritten by this erase: its old record and bytes, its new ones. */
struct block_edit {
    uint32_t b;
    struct ig_pagerec old;
    struct ig_buf old_bytes;
    struct ig_page_built built;
};

/* The rewritten blocks of one page, in block order. */
struct page_edit {
    uint32_t page;
    struct ig_pagerec rec;
    struct block_edit *e;
    size_t n, cap;
};



static void page_edit_free(struct page_edit *pe)
{
    for (size_t i = 0; i < pe->n; i++) {
        ig_buf_free(&pe->e[i].old_bytes);
        ig_page_built_free(&pe->e[i].built);
    }
    free(pe->e);
    memset(pe, 0, sizeof *pe);
}

/* Keep x->built as the new form of block b (old record blk, old bytes). */
static int add_edit(struct erase_ctx *x, struct page_edit *pe, uint32_t b, const struct ig_pagerec *blk,
                    const uint8_t *old_bytes)
{
    if (pe->n == pe->cap) {
        size_t cap = pe->cap ? pe->cap * 2 : 4;
        struct block_edit *e = realloc(pe->e, cap * sizeof *e);
        if (!e) return -ENOMEM;
        pe->e = e;
        pe->cap = cap;
    }
    struct block_edit *be = &pe->e[pe->n];
    *be = (struct block_edit){.b = b, .old = *blk, .old_bytes = IG_BUF_INIT, .built = x->built};
    x->built = (struct ig_page_built){0}; /* taken */
    if (ig_buf_append(&be->old_bytes, old_bytes, blk->stored)) {
        ig_page_built_free(&be->built);
        return -ENOMEM;
    }
    pe->n++;
    return 0;
}

/* Queue a page's new image to go after the data (taking bytes on success);
 * helper threads of one part append here alike. */
static int add_moved(struct part_plan *pp, uint32_t page, const struct ig_buf *bytes)
{
    pthread_mutex_lock(&pp->moved_mu);
    struct moved *m = realloc(pp->moved, (pp->nmoved + 1) * sizeof *m);
    if (m) {
        pp->moved = m;
        pp->moved[pp->nmoved++] = (struct moved){.page = page, .bytes = *bytes};
    }
    pthread_mutex_unlock(&pp->moved_mu);
    return m ? 0 : -ENOMEM;
}

void erase_ctx_free(struct erase_ctx *x)
{
    erase_contexts_free(x);
    ig_journal_free(&x->j);
    ig_reader_free(&x->r);
    ig_values_free(&x->v);
    ig_page_built_free(&x->built);
    ig_buf_free(&x->tmp);
    ig_buf_free(&x->kill_b);
    ig_buf_free(&x->del_b);
    ig_buf_free(&x->body);
    erase_loaded_free(x);
}

/* A page whose rewritten blocks no longer all fit: its blocks (new ones where
 * rewritten, the others as they are) laid out afresh, each compressed one with
 * its slack, queued to go after the data; the old extent is zero-filled. */
static int move_page(struct erase_ctx *x, struct part_plan *pp, struct page_edit *pe,
                     struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    const struct ig_pagerec *rec = &pe->rec;
    struct ig_buf whole = IG_BUF_INIT, page_bytes = IG_BUF_INIT;
    int rc = ig_buf_reserve(&page_bytes, rec->stored) ? -ENOMEM : 0;
    if (!rc) rc = ig_part_read(p, page_bytes.data, rec->stored, rec->offset, NULL);
    if (rc) return ig_err(err, rc == -ENOMEM ? rc : -EIO, "%s: page %u: cannot read it to move it", p->path, pe->page);
    uint32_t nb = ig_page_nblocks(rec);
    size_t k = 0;
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, pe->page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *bytes = page_bytes.data + (blk.offset - rec->offset);
        size_t len = blk.stored;
        uint8_t comp = blk.compression;
        if (k < pe->n && pe->e[k].b == b) {
            bytes = pe->e[k].built.stored.data;
            len = pe->e[k].built.stored.len;
            comp = pe->e[k].built.compression;
            k++;
        }
        size_t slack = comp != IG_PC_NONE ? (len / 128 > 32 ? len / 128 : 32) : 0;
        if (rec->nblocks) ig_st32(block_rec(pp, rec, b) + IG_BLK_OFFSET, (uint32_t)whole.len);
        if (ig_buf_append(&whole, bytes, len) || ig_buf_append_zeros(&whole, rec->nblocks ? slack : 0))
            rc = -ENOMEM;
    }
    ig_buf_free(&page_bytes);
    if (rc) {
        ig_buf_free(&whole);
        return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
    }
    if (add_moved(pp, pe->page, &whole)) {
        ig_buf_free(&whole);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    uint8_t *r = page_rec(pp, pe->page);
    ig_st32(r + IG_PG_STORED, (uint32_t)whole.len);
    r[IG_PG_FLAGS] |= IG_PGF_MOVED;
    x->rep->pages_moved++;
    /* the old extent: zeros, as a range */
    if (ig_journal_zero(&x->j, p->name, rec->offset, rec->capacity)) return ig_err(err, -ENOMEM, "out of memory");
    x->rep->bytes_written += rec->capacity;
    return 0;
}

/* Write a page's rewritten blocks: each into its own extent, journaling only
 * the bytes that changed, unless one no longer fits, then the page moves. The
 * block records (or, for an older part's page, the page record) get the new
 * sizes and checksums, and a page of format 4 the hash of its records. */
static int commit_page_edit(struct erase_ctx *x, struct part_plan *pp, struct page_edit *pe,
                            struct ig_error *err)
{
    if (pe->n == 0) return 0;
    const struct ig_part *p = pp->p;
    const struct ig_pagerec *rec = &pe->rec;
    uint8_t *r = page_rec(pp, pe->page);
    bool fits = true;
    int64_t dent = 0, dval = 0;
    for (size_t i = 0; i < pe->n; i++) {
        struct block_edit *be = &pe->e[i];
        const struct ig_page_built *nb = &be->built;
        fits &= nb->stored.len <= be->old.capacity;
        dent += (int64_t)nb->entry_count - be->old.entry_count;
        dval += (int64_t)nb->value_count - be->old.value_count;
        x->rep->pages_rewritten++;
        if (!rec->nblocks) { /* an older part's page is its one block */
            ig_st32(r + IG_PG_BODY_SIZE, nb->body_size);
            ig_st64(r + IG_PG_CHECKSUM, nb->checksum);
            r[IG_PG_ENCODING] = nb->encoding;
            continue;
        }
        uint8_t *br = block_rec(pp, rec, be->b);
        ig_st32(br + IG_BLK_STORED, (uint32_t)nb->stored.len);
        ig_st32(br + IG_BLK_BODY_SIZE, nb->body_size);
        ig_st32(br + IG_BLK_ENTRY_COUNT, nb->entry_count);
        ig_st32(br + IG_BLK_VALUE_COUNT, nb->value_count);
        br[IG_BLK_ENCODING] = nb->encoding;
        ig_st64(br + IG_BLK_CHECKSUM, nb->checksum);
    }
    ig_st32(r + IG_PG_ENTRY_COUNT, (uint32_t)((int64_t)rec->entry_count + dent));
    ig_st32(r + IG_PG_VALUE_COUNT, (uint32_t)((int64_t)rec->value_count + dval));
    int rc = 0;
    if (!rec->nblocks) {
        ig_st32(r + IG_PG_STORED, (uint32_t)pe->e[0].built.stored.len);
        if (fits) {
            rc = erase_journal_changes(x, p, rec->offset, pe->e[0].old_bytes.data, pe->e[0].old_bytes.len,
                                 pe->e[0].built.stored.data, pe->e[0].built.stored.len);
        } else {
            if (add_moved(pp, pe->page, &pe->e[0].built.stored))
                return ig_err(err, -ENOMEM, "out of memory");
            pe->e[0].built.stored = (struct ig_buf)IG_BUF_INIT;
            r[IG_PG_FLAGS] |= IG_PGF_MOVED;
            x->rep->pages_moved++;
            rc = ig_journal_zero(&x->j, p->name, rec->offset, rec->capacity) ? -ENOMEM : 0;
            x->rep->bytes_written += rec->capacity;
        }
        return rc ? ig_err(err, rc, "out of memory") : 0;
    }
    if (fits) {
        for (size_t i = 0; i < pe->n && !rc; i++) {
            struct block_edit *be = &pe->e[i];
            rc = erase_journal_changes(x, p, be->old.offset, be->old_bytes.data, be->old_bytes.len,
                                 be->built.stored.data, be->built.stored.len);
        }
        if (rc) return ig_err(err, rc, "out of memory");
    } else {
        rc = move_page(x, pp, pe, err);
        if (rc) return rc;
    }
    const uint8_t *records = block_rec(pp, rec, 0);
    ig_st64(r + IG_PG_CHECKSUM, ig_hash(records, (size_t)rec->nblocks * IG_BLK_SIZE));
    return 0;
}

/* Bits [first, first + n) of src (may be NULL: none) into buf; NULL if none set. */
static const uint8_t *slice(struct ig_buf *buf, const uint8_t *src, size_t first, size_t n)
{
    if (!src || !n) return NULL;
    /* a byte at a time, each from the one or two source bytes that hold its
     * bits: an erase of scattered rows slices every block of every page it
     * touches, in every column */
    size_t nb = (n + 7) / 8;
    ig_buf_reset(buf);
    uint8_t *d = ig_buf_extend(buf, nb + 1);
    if (!d) return NULL;
    const uint8_t *s = src + first / 8;
    unsigned sh = first % 8;
    uint8_t any = 0;
    for (size_t k = 0; k < nb; k++) {
        unsigned v = (unsigned)s[k] >> sh;
        if (sh && 8 * k + 8 - sh < n) v |= (unsigned)s[k + 1] << (8 - sh); /* read only where bits lie */
        d[k] = (uint8_t)v;
    }
    if (n % 8) d[nb - 1] &= (uint8_t)((1u << (n % 8)) - 1);
    d[nb] = 0;
    for (size_t k = 0; k < nb; k++)
        any |= d[k];
    return any ? d : NULL;
}

/* Zero-fill the objects referenced by values [v0, v1) of a blob leaf. */
static int zero_objects(struct erase_ctx *x, const struct ig_part *p, const struct ig_values *v,
                        size_t v0, size_t v1, struct ig_error *err)
{
    char blob_name[IG_PART_NAME_MAX];
    if (!ig_blob_file_of_part(p->name, blob_name)) blob_name[0] = '\0';
    for (size_t i = v0; i < v1; i++) {
        size_t len;
        const uint8_t *refs = ig_values_bytes(v, i, &len);
        for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++) {
            struct ig_blob_ref r;
            ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &r, NULL);
            if (ig_journal_zero(&x->j, blob_name, r.offset, r.size))
                return ig_err(err, -ENOMEM, "out of memory");
            x->rep->bytes_written += r.size;
            x->rep->blob_objects++;
        }
    }
    return 0;
}

/* Whether an erased value of x->v (the killed rows kb of a block, or every
 * value when only they were loaded) lies at or past a bound of its chunk. */
static bool bound_erased(const struct ig_values *v, const uint8_t *kb, uint32_t block_rows,
                         const struct ig_minmax *m)
{
    const uint8_t *marked = v->n != block_rows ? NULL : kb; /* picked: only the killed values */
    for (size_t i = next_marked(marked, 0, v->n); i < v->n; i = next_marked(marked, i + 1, v->n))
        if (!ig_values_is_null(v, i) && ig_minmax_reached(v->type, m, v->lanes[i])) return true;
    return false;
}

/* Block b of a page (record blk) that holds no erased row, in a chunk whose
 * dictionary this erase zeroed segments of: compressed again against the new
 * one when its frame referred to bytes zeroed (its values unchanged). */
static int restale_block(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                         uint32_t g, uint32_t page, uint32_t b, struct ig_pagerec *blk,
                         struct page_edit *pe, struct ig_error *err)
{
    if (blk->compression != IG_PC_ZSTD_DICT) return 0;
    const struct ig_part *p = pp->p;
    struct ig_chunk_ctx *cx = NULL;
    int rc = erase_context(x, p, g, c->rec.leaf, &cx, err);
    if (rc || !cx) return rc;
    blk->cx = cx;
    ig_buf_reset(&x->tmp);
    rc = ig_buf_reserve(&x->tmp, blk->stored) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc) rc = ig_part_read(p, x->tmp.data, blk->stored, blk->offset, err);
    if (!rc && ig_hash(x->tmp.data, blk->stored) != blk->checksum)
        rc = ig_err(err, -EIO, "checksum mismatch");
    bool stale = false;
    if (!rc) rc = ig_page_dict_stale(x->tmp.data, blk, &x->r.s, &stale, err);
    if (!rc && stale) {
        rc = ig_page_recompress_stale(blk, &x->r.s, &x->built, err);
        if (!rc && add_edit(x, pe, b, blk, x->tmp.data)) rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc) x->rep->dict_blocks++;
    }
    if (rc)
        rc = ig_err_prefix(err, rc, "%s: column '%.*s' page %u block %u", p->path,
                           (int)c->rec.name_len, c->rec.name, page, b);
    return rc;
}

/* The rows of `kill` (page-relative) of a flat leaf's page: block by block, only
 * the blocks that hold one are read and rewritten (and, in a chunk whose
 * dictionary the erase changed, those whose frames it changed). */
int erase_page(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c, uint32_t g,
               uint32_t page, uint64_t group_first_row, const uint8_t *kill, uint32_t nkill,
               struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    struct page_edit pe = {.page = page};
    int rc = ig_part_page(p, page, &pe.rec, err);
    if (rc) return rc;
    /* the chunk's bounds, while no erased value reached one (the record is
     * this leaf's alone: no other thread edits it) */
    struct ig_minmax bounds = {0};
    if (c->erase_level == 2) {
        rc = ig_part_chunk_minmax(p, g, c->rec.leaf, &bounds, err);
        if (rc) return rc;
        if (bounds.bounded) /* and not dropped by an earlier page of this erase */
            bounds.bounded = ig_chunk_record(p, pp->nf, g, c->rec.leaf)[IG_CHK_STATS_FLAGS] != 0;
    }
    const struct ig_pagerec *rec = &pe.rec;
    uint64_t gone_text = 0;
    uint32_t nb = ig_page_nblocks(rec);
    bool dict_changed = c->erase_level == 2 && erase_dict_changed(x, g, c->rec.leaf);
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *kb = slice(&x->kill_b, kill, blk.first_row, blk.row_count);
        if (!kb) { /* no erased row here: untouched, unless its dictionary changed under it */
            if (dict_changed) rc = restale_block(x, pp, c, g, page, b, &blk, &pe, err);
            continue;
        }
        /* loaded already when the chunk's dictionary was settled, else now */
        const struct erase_loaded *ld = erase_loaded_block(x, page, b);
        struct ig_block_load bl;
        if (!ld) rc = erase_load_block(x, p, c, page, rec, b, kb, group_first_row, &bl, err);
        if (rc) break;
        /* the body the load decompressed, not decompressed again: a copy of
         * a fresh load's (counting the block's symbol uses below reuses the
         * reader's buffers); an uncompressed block's is its stored bytes */
        const uint8_t *body = NULL;
        if (ld && ld->body.len) {
            body = ld->body.data;
        } else if (!ld && bl.body && bl.blk.compression != IG_PC_NONE) {
            ig_buf_reset(&x->body);
            if (ig_buf_append(&x->body, bl.body, bl.blk.body_size)) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            body = x->body.data;
        }
        blk = ld ? ld->blk : bl.blk;
        const struct ig_values *v = ld ? &ld->v : &x->v;
        const uint8_t *stored = ld ? ld->stored.data : x->r.stored.data;
        const uint8_t *old_del = ld ? (ld->deleted.len ? ld->deleted.data : NULL) : bl.deleted;
        gone_text += killed_text(v, v->n == blk.row_count ? kb : NULL, &x->tmp);
        if (bounds.bounded && bound_erased(v, kb, blk.row_count, &bounds)) {
            bounds.bounded = false; /* neither bound may name an erased value */
            ig_chunk_minmax_put(ig_chunk_record(p, pp->nf, g, c->rec.leaf), &bounds);
            atomic_store(&pp->chunks_changed, true);
        }
        if (c->erase_level == 2 && c->rec.type == IG_T_BLOB) /* objects are zero-filled too */
            for (size_t i = 0; i < v->n && !rc; i++)
                if ((kb[i / 8] >> (i % 8)) & 1) rc = zero_objects(x, p, v, i, i + 1, err);
        if (rc || c->erase_level != 2) continue;
        /* level 2: every earlier deleted row of the block was erased; the
         * uses its codes made of the chunk's table go, the new block's come */
        struct ig_chunk_ctx *cx = NULL;
        rc = erase_context(x, p, g, c->rec.leaf, &cx, err);
        if (rc) break;
        blk.cx = cx;
        rc = erase_count_block_uses(x, c, stored, &blk, -1, err);
        if (!rc)
            rc = ig_page_erase(stored, body, &blk, c->rec.type, old_del, kb, 3, &x->r.s, &x->built, err);
        if (!rc) rc = erase_count_built_uses(x, c, &blk, err);
        if (rc)
            rc = ig_err_prefix(err, rc, "%s: column '%.*s' page %u block %u", p->path,
                               (int)c->rec.name_len, c->rec.name, page, b);
        else if (add_edit(x, &pe, b, &blk, stored))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && nkill) {
        uint8_t *r = page_rec(pp, page);
        ig_st32(r + IG_PG_DELETED, rec->deleted + nkill);
        ig_st64(r + IG_PG_TEXT_LEN, rec->text_len - gone_text);
        uint8_t *px = page_extra(pp, page);
        uint32_t per = c->rec.dimension ? c->rec.dimension : 1;
        ig_st32(px + IG_PX_LIVE_VALUES, ig_ld32(px + IG_PX_LIVE_VALUES) - nkill * per);
        x->rep->records++;
    }
    if (!rc) rc = commit_page_edit(x, pp, &pe, err);
    page_edit_free(&pe);
    return rc;
}

int erase_rebound(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c, uint32_t g,
                  uint64_t group_first_row, const uint64_t *rows, size_t nrows, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    if (p->version < IG_FORMAT_CHUNK_STATS) return 0;
    uint8_t *rec_nf = ig_chunk_record(p, pp->nf, g, c->rec.leaf);
    if (rec_nf[IG_CHK_STATS_FLAGS] || !ig_chunk_record(p, p->footer, g, c->rec.leaf)[IG_CHK_STATS_FLAGS])
        return 0; /* bounded still, or never bounded */
    uint32_t first = 0, count = 0;
    int rc = ig_part_chunk(p, g, c->rec.leaf, &first, &count, err);
    struct ig_minmax all = {0};
    size_t k = 0; /* next erased row (part-local, sorted) */
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_pagerec rec;
        const uint8_t *deleted;
        rc = ig_part_page(p, pg, &rec, err);
        if (!rc) rc = ig_reader_load(&x->r, &(struct ig_page_at){p, c, pg, group_first_row}, &rec, &x->v, &deleted, err);
        if (rc) break;
        /* skip what was deleted before and what this erase removes */
        ig_buf_reset(&x->kill_b);
        uint8_t *gone = ig_buf_extend(&x->kill_b, (rec.row_count + 7) / 8);
        if (!gone) return ig_err(err, -ENOMEM, "out of memory");
        memset(gone, 0, (rec.row_count + 7) / 8);
        if (deleted) memcpy(gone, deleted, (rec.row_count + 7) / 8);
        uint64_t lo = group_first_row + rec.first_row, hi = lo + rec.row_count;
        while (k < nrows && rows[k] < lo)
            k++;
        for (; k < nrows && rows[k] < hi; k++)
            gone[(rows[k] - lo) / 8] |= (uint8_t)(1u << ((rows[k] - lo) % 8));
        struct ig_minmax m;
        ig_minmax_of(&x->v, gone, &m);
        ig_minmax_widen(x->v.type, &all, &m);
    }
    if (rc) return ig_err_prefix(err, rc, "%s: column '%.*s' row group %u: taking its bounds again", p->path,
                                 (int)c->rec.name_len, c->rec.name, g);
    ig_chunk_minmax_put(rec_nf, &all);
    return 0;
}

/* The rows of `kill` of a nested leaf's page (its stored bytes already read and
 * checked: `bytes`), block by block; `deleted` are the page's rows deleted before. */
static int erase_leaf_page(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                           uint32_t g, uint32_t page, const struct ig_pagerec *rec,
                           const uint8_t *bytes, const uint8_t *kill, const uint8_t *deleted,
                           struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    struct page_edit pe = {.page = page, .rec = *rec};
    uint32_t nb = ig_page_nblocks(rec);
    struct ig_chunk_ctx *cx = NULL;
    int rc = erase_context(x, p, g, c->rec.leaf, &cx, err);
    for (uint32_t b = 0; b < nb && !rc; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(p, page, rec, b, &blk, err);
        if (rc) break;
        const uint8_t *kb = slice(&x->kill_b, kill, blk.first_row, blk.row_count);
        if (!kb) continue;
        const uint8_t *db = slice(&x->del_b, deleted, blk.first_row, blk.row_count);
        const uint8_t *src = bytes + (blk.offset - rec->offset);
        blk.cx = cx;
        rc = erase_count_block_uses(x, c, src, &blk, -1, err);
        if (!rc) rc = ig_page_erase_leaf(src, &blk, &c->li, kb, db, 3, &x->r.s, &x->built, err);
        if (!rc) rc = erase_count_built_uses(x, c, &blk, err);
        if (rc)
            rc = ig_err_prefix(err, rc, "%s: column '%.*s' page %u block %u", p->path,
                               (int)c->rec.name_len, c->rec.name, page, b);
        else if (add_edit(x, &pe, b, &blk, src))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) rc = commit_page_edit(x, pp, &pe, err);
    page_edit_free(&pe);
    return rc;
}

/* Bits of rows NOT in kill (to render only the killed rows). */
static uint8_t *complement(const uint8_t *kill, size_t n)
{
    uint8_t *c = malloc((n + 7) / 8 + 1);
    if (!c) return NULL;
    for (size_t i = 0; i < (n + 7) / 8; i++)
        c[i] = (uint8_t)~kill[i];
    return c;
}

/* A nested column: page index by page index, every leaf in lockstep. */
int erase_nested(struct erase_ctx *x, const struct ig_table *t, struct part_plan *pp,
                        uint32_t pi, uint32_t g, uint32_t col, uint32_t page_lo, uint32_t page_hi,
                        const uint64_t *rows, size_t nrows, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    uint32_t gg = g + t->part_first_group[pi];
    struct ig_grouprec gr;
    struct ig_nested_reader nr;
    int rc = ig_part_group(p, g, &gr, err);
    if (!rc) rc = ig_nested_open(&nr, t, col, err);
    if (rc) return rc;
    uint32_t count = 0;
    rc = ig_nested_pages(&nr, t, gg, &count, err);
    struct ig_tree *proj = calloc(nr.tree.nleaves, sizeof *proj);
    if (!proj) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t l = 0; l < nr.tree.nleaves && !rc; l++)
        rc = ig_tree_from_part(p, col, nr.refs[l].col, &proj[l], err);
    uint8_t *kill = NULL, *keep = NULL;
    size_t k = 0;
    for (uint32_t i = page_lo; i < count && i < page_hi && !rc && k < nrows; i++) {
        uint32_t first0, cnt0;
        struct ig_pagerec r0;
        rc = ig_part_chunk(p, g, nr.refs[0].rec.leaf, &first0, &cnt0, err);
        if (!rc) rc = ig_part_page(p, first0 + i, &r0, err);
        if (rc) break;
        uint64_t lo = gr.first_row + r0.first_row, hi = lo + r0.row_count;
        while (k < nrows && rows[k] < lo) k++;
        if (k == nrows || rows[k] >= hi) continue;
        free(kill);
        free(keep);
        kill = calloc((r0.row_count + 7) / 8 + 1, 1);
        if (!kill) return ig_err(err, -ENOMEM, "out of memory");
        uint32_t nkill = 0;
        for (; k < nrows && rows[k] < hi; k++, nkill++)
            kill[(rows[k] - lo) / 8] |= (uint8_t)(1u << ((rows[k] - lo) % 8));
        keep = complement(kill, r0.row_count);
        /* a sliding-window page decodes the erased rows alone (it can span its
         * row group); then the values hold those rows and `keep` is re-cut to them */
        struct ig_nested_page np = {.group = gg, .index = i, .pick = kill};
        rc = ig_nested_load(&nr, t, &np, err);
        size_t nr_rows = np.rows, page_rows = np.rows;
        const uint8_t *old_del = np.deleted;
        bool picked = np.picked;
        if (!rc && old_del)
            for (size_t b = 0; b < (nr_rows + 7) / 8; b++) keep[b] |= old_del[b];
        if (!rc && picked) {
            size_t j = 0;
            memset(keep, 0, (page_rows + 7) / 8 + 1);
            for (size_t r = 0; r < page_rows; r++)
                if ((kill[r / 8] >> (r % 8)) & 1) {
                    if (old_del && ((old_del[r / 8] >> (r % 8)) & 1)) keep[j / 8] |= (uint8_t)(1u << (j % 8));
                    j++;
                }
            nr_rows = j;
        }
        uint64_t gone = 0;
        if (!rc) rc = ig_assemble_lines(&nr.tree, nr.vp, nr_rows, keep, NULL, &gone, err);
        if (!rc) {
            uint8_t *px = page_extra(pp, first0 + i);
            ig_st64(px + IG_PX_NODE_TEXT, ig_ld64(px + IG_PX_NODE_TEXT) - gone);
        }
        for (uint32_t l = 0; l < nr.tree.nleaves && !rc; l++) {
            const struct ig_column_ref *c = &nr.refs[l];
            uint32_t first, cnt;
            struct ig_pagerec rl;
            rc = ig_part_chunk(p, g, c->rec.leaf, &first, &cnt, err);
            if (!rc) rc = ig_part_page(p, first + i, &rl, err);
            uint64_t proj_gone = 0;
            struct ig_values *vp = &nr.vals[l];
            if (!rc) rc = ig_assemble_lines(&proj[l], &vp, nr_rows, keep, NULL, &proj_gone, err);
            if (rc) break;
            uint32_t values_gone = 0;
            for (size_t r = 0; r < nr_rows; r++)
                if (picked || ((kill[r / 8] >> (r % 8)) & 1)) values_gone += vp->row_val[r + 1] - vp->row_val[r];
            uint8_t *rr = page_rec(pp, first + i), *px = page_extra(pp, first + i);
            ig_st32(rr + IG_PG_DELETED, rl.deleted + nkill);
            ig_st64(rr + IG_PG_TEXT_LEN, rl.text_len - proj_gone);
            ig_st32(px + IG_PX_LIVE_VALUES, ig_ld32(px + IG_PX_LIVE_VALUES) - values_gone);
            x->rep->records++;
            if (c->erase_level != 2) continue;
            if (c->rec.type == IG_T_BLOB) /* (never a sliding-window page: those hold integers) */
                for (size_t r = 0; r < nr_rows && !rc; r++)
                    if ((kill[r / 8] >> (r % 8)) & 1)
                        rc = zero_objects(x, p, vp, vp->row_val[r], vp->row_val[r + 1], err);
            if (!rc)
                rc = erase_leaf_page(x, pp, c, g, first + i, &rl, nr.readers[l].stored.data, kill,
                                     old_del, err);
        }
    }
    free(kill);
    free(keep);
    for (uint32_t l = 0; proj && l < nr.tree.nleaves; l++)
        ig_tree_free(&proj[l]);
    free(proj);
    ig_nested_close(&nr);
    return rc;
}

