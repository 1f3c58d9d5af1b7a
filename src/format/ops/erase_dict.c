/* erase_dict.c - what an erase does to a chunk's zstd dictionary (format 13,
 * context kind 2; docs/ENCODINGS.md, "Chunk dictionaries"): before any
 * block of the chunk is rewritten, every segment that an erased value holds
 * and no value that stays holds is zeroed, in a copy (cx->zdict_next) that
 * the erase then compresses the chunk's rewritten blocks against and writes
 * over the old one (erase_contexts_write). The blocks that held no erased
 * row but whose frames referred to zeroed bytes are compressed again
 * (erase_page asks ig_page_dict_stale of each). So the dictionary never keeps
 * a substring that only erased values held.
 *
 * The erased values are scanned once for the segments they hold, each block
 * holding one loaded as erase_page takes it and kept for it with its body
 * (read and decompressed once),
 * then the values that stay, page by page, until each of those is found in
 * one (ig_zdict_find: one pass over a value's bytes). The writer keeps only
 * segments that several values hold, so they are found within the chunk's
 * first values. */
#include "erase_int.h"
#include "format/ops/reader.h"
#include "format/part/columns.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void erase_loaded_forget(struct erase_ctx *x)
{
    x->nloaded = x->loaded_next = 0;
}

void erase_loaded_free(struct erase_ctx *x)
{
    for (size_t i = 0; i < x->loaded_made; i++) {
        ig_values_free(&x->loaded[i].v);
        ig_buf_free(&x->loaded[i].stored);
        ig_buf_free(&x->loaded[i].body);
        ig_buf_free(&x->loaded[i].deleted);
    }
    free(x->loaded);
    x->loaded = NULL;
    x->nloaded = x->loaded_made = x->loaded_cap = x->loaded_next = 0;
}

int erase_keep_loaded(struct erase_ctx *x, uint32_t page, const struct ig_block_load *bl)
{
    struct erase_loaded *g = ig_array_room(x->loaded, x->nloaded, &x->loaded_cap, sizeof *g, 8);
    if (!g) return -ENOMEM;
    x->loaded = g;
    if (x->nloaded == x->loaded_made) /* values zeroed: the decoder types them */
        x->loaded[x->loaded_made++] = (struct erase_loaded){
            .stored = IG_BUF_INIT, .body = IG_BUF_INIT, .deleted = IG_BUF_INIT};
    struct erase_loaded *l = &x->loaded[x->nloaded];
    /* the body first: it may lie in the stored bytes swapped below */
    ig_buf_reset(&l->body);
    ig_buf_reset(&l->deleted);
    bool decompressed = bl->body && bl->blk.compression != IG_PC_NONE; /* else: its stored bytes */
    if ((decompressed && ig_buf_append(&l->body, bl->body, bl->blk.body_size)) ||
        (bl->deleted && ig_buf_append(&l->deleted, bl->deleted, (bl->blk.row_count + 7) / 8)))
        return -ENOMEM;
    l->page = page;
    l->block = bl->block;
    l->blk = bl->blk;
    /* the loaded values and bytes swapped with the entry's old buffers, which
     * the next load fills */
    struct ig_values v = l->v;
    l->v = x->v;
    x->v = v;
    struct ig_buf stored = l->stored;
    l->stored = x->r.stored;
    x->r.stored = stored;
    x->nloaded++;
    return 0;
}

const struct erase_loaded *erase_loaded_block(struct erase_ctx *x, uint32_t page, uint32_t b)
{
    for (size_t k = 0; k < x->nloaded; k++) {
        size_t i = (x->loaded_next + k) % x->nloaded;
        if (x->loaded[i].page == page && x->loaded[i].block == b) {
            x->loaded_next = i + 1;
            return &x->loaded[i];
        }
    }
    return NULL;
}

int erase_load_block(struct erase_ctx *x, const struct ig_part *p, const struct ig_column_ref *c,
                     uint32_t page, const struct ig_pagerec *rec, uint32_t b, const uint8_t *kb,
                     uint64_t group_first_row, struct ig_block_load *bl, struct ig_error *err)
{
    /* the killed values alone where the leaf reads them one by one (their
     * text length is all the erase needs of them); the block otherwise */
    *bl = (struct ig_block_load){.rec = rec, .block = b, .pick = c->rec.type == IG_T_BLOB ? NULL : kb};
    return ig_reader_load_block(&x->r, &(struct ig_page_at){p, c, page, group_first_row}, bl, &x->v,
                                err);
}

/* Is part-local row `row` one this erase removes? rows[*k..] sorted. */
static bool killed(const uint64_t *rows, size_t nrows, size_t *k, uint64_t row)
{
    while (*k < nrows && rows[*k] < row)
        (*k)++;
    return *k < nrows && rows[*k] == row;
}

/* Page rec's values that stay (rows from *k on: those this erase removes),
 * fed to f. */
static int kept_page(struct erase_ctx *x, const struct ig_page_at *at, struct ig_pagerec *rec,
                     const uint64_t *rows, size_t nrows, size_t *k, struct ig_zdict_find *f,
                     struct ig_error *err)
{
    const uint8_t *deleted;
    uint64_t lo = at->group_first_row + rec->first_row;
    int rc = ig_reader_load(&x->r, at, rec, &x->v, &deleted, err);
    for (uint32_t i = 0; !rc && i < rec->row_count && i < x->v.n; i++) {
        bool gone = killed(rows, nrows, k, lo + i);
        if (deleted && ((deleted[i / 8] >> (i % 8)) & 1)) continue;
        if (gone || ig_values_is_null(&x->v, i)) continue;
        size_t len;
        const uint8_t *v = ig_values_bytes(&x->v, i, &len);
        ig_zdict_find_value(f, v, len);
    }
    return rc;
}

/* The erased values of a block as erase_load_block gave them (v: the killed
 * values alone, or the block's; kb: its killed rows; del: those deleted
 * before), fed to f. */
static void feed_erased(struct ig_zdict_find *f, const struct ig_values *v, const uint8_t *kb,
                        const uint8_t *del, uint32_t rows)
{
    bool picked = v->n != rows;
    size_t j = 0;
    for (uint32_t i = 0; i < rows && ig_zdict_find_remaining(f); i++) {
        if (!((kb[i / 8] >> (i % 8)) & 1)) continue;
        size_t at = picked ? j++ : i;
        if (at >= v->n) break;
        if ((del && ((del[i / 8] >> (i % 8)) & 1)) || ig_values_is_null(v, at)) continue;
        size_t len;
        const uint8_t *b = ig_values_bytes(v, at, &len);
        ig_zdict_find_value(f, b, len);
    }
}

/* Page rec's erased values (rows from *k on), fed to f: each block holding one
 * loaded as erase_page takes it (erase_load_block) and kept for it
 * (x->loaded), not decoded again. */
static int erased_page(struct erase_ctx *x, const struct ig_page_at *at, struct ig_pagerec *rec,
                       const uint64_t *rows, size_t nrows, size_t *k, struct ig_zdict_find *f,
                       struct ig_error *err)
{
    uint64_t lo = at->group_first_row + rec->first_row;
    uint32_t nb = ig_page_nblocks(rec);
    int rc = 0;
    for (uint32_t b = 0; !rc && b < nb && *k < nrows; b++) {
        struct ig_pagerec blk;
        rc = ig_part_block(at->p, at->page, rec, b, &blk, err);
        if (rc) break;
        uint64_t b_lo = lo + blk.first_row, b_hi = b_lo + blk.row_count;
        while (*k < nrows && rows[*k] < b_lo)
            (*k)++;
        if (*k == nrows || rows[*k] >= b_hi) continue;
        ig_buf_reset(&x->kill_b);
        uint8_t *kb = ig_buf_extend(&x->kill_b, (blk.row_count + 7) / 8 + 1);
        if (!kb) return ig_err(err, -ENOMEM, "out of memory");
        memset(kb, 0, (blk.row_count + 7) / 8 + 1);
        for (; *k < nrows && rows[*k] < b_hi; (*k)++)
            kb[(rows[*k] - b_lo) / 8] |= (uint8_t)(1u << ((rows[*k] - b_lo) % 8));
        struct ig_block_load bl;
        rc = erase_load_block(x, at->p, at->c, at->page, rec, b, kb, at->group_first_row, &bl, err);
        if (rc) break;
        feed_erased(f, &x->v, kb, bl.deleted, bl.blk.row_count);
        if (erase_keep_loaded(x, at->page, &bl)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    return rc;
}

/* One pass over the chunk's pages: the erased values (erased true; only the
 * pages holding one) or those that stay, fed to f (the latter until it has
 * found all it looks for). */
static int pass(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c, uint32_t g,
                uint64_t group_first_row, const uint64_t *rows, size_t nrows, bool erased,
                struct ig_zdict_find *f, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    uint32_t first = 0, count = 0;
    int rc = ig_part_chunk(p, g, c->rec.leaf, &first, &count, err);
    size_t k = 0;
    for (uint32_t pg = first;
         !rc && pg < first + count && (erased ? k < nrows : ig_zdict_find_remaining(f)); pg++) {
        struct ig_pagerec rec;
        rc = ig_part_page(p, pg, &rec, err);
        if (rc) break;
        struct ig_page_at at = {p, c, pg, group_first_row};
        rc = erased ? erased_page(x, &at, &rec, rows, nrows, &k, f, err)
                    : kept_page(x, &at, &rec, rows, nrows, &k, f, err);
    }
    return rc;
}

int erase_dict_prepare(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                       uint32_t g, uint64_t group_first_row, const uint64_t *rows, size_t nrows,
                       struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    if (c->erase_level != 2 || p->version < IG_FORMAT_ZDICT || c->nested) return 0;
    struct ig_chunk_ctx *cx = NULL;
    int rc = erase_context(x, p, g, c->rec.leaf, &cx, err);
    if (rc || !cx || !cx->zdict || cx->zdict_next) return rc;
    uint32_t n = ig_zdict_nsegments(cx->zdict);
    struct ig_zdict_find *held = NULL, *kept = NULL;
    uint8_t *suspect = calloc(n + 1, 1);
    rc = suspect ? ig_zdict_find_new(cx->zdict, NULL, 1, &held) : -ENOMEM;
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    /* the segments erased values hold */
    if (!rc) rc = pass(x, pp, c, g, group_first_row, rows, nrows, true, held, err);
    size_t nsus = 0;
    for (uint32_t i = 0; !rc && i < n; i++)
        if (ig_zdict_find_hits(held)[i] && !ig_zdict_segment_zero(cx->zdict, i, ig_zdict_find_offset(held, i))) {
            suspect[i] = 1;
            nsus++;
        }
    /* of those, the ones a value that stays holds too */
    if (!rc && nsus) {
        rc = ig_zdict_find_new(cx->zdict, suspect, 1, &kept) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc) rc = pass(x, pp, c, g, group_first_row, rows, nrows, false, kept, err);
    }
    if (!rc && kept && ig_zdict_find_remaining(kept)) {
        /* what only erased values held: zeroed in the dictionary written next */
        cx->zdict_next = ig_zdict_copy(cx->zdict);
        if (!cx->zdict_next) rc = ig_err(err, -ENOMEM, "out of memory");
        const uint8_t *hits = ig_zdict_find_hits(kept);
        for (uint32_t i = 0; !rc && i < n; i++)
            if (suspect[i] && !hits[i]) {
                ig_zdict_zero_segment(cx->zdict_next, ig_zdict_find_offset(kept, i),
                                      ig_zdict_segment_len(cx->zdict, i));
                x->rep->dict_segments++;
            }
    }
    ig_zdict_find_free(held);
    ig_zdict_find_free(kept);
    free(suspect);
    if (rc)
        return ig_err_prefix(err, rc, "%s: column '%.*s' row group %u: chunk dictionary", p->path,
                             (int)c->rec.name_len, c->rec.name, g);
    return 0;
}

bool erase_dict_changed(struct erase_ctx *x, uint32_t g, uint32_t leaf)
{
    for (size_t i = 0; i < x->ncxs; i++)
        if (x->cxs[i].g == g && x->cxs[i].leaf == leaf) return x->cxs[i].cx.zdict_next != NULL;
    return false;
}
