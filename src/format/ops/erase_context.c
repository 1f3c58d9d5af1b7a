/* erase_context.c - chunk contexts (format 12) during an erase: read, checked
 * and parsed once per chunk, the symbol uses of the blocks rewritten taken off
 * and put back on the table's counts, and the edited contexts written back over
 * their old bytes (never longer), their chunk records' hashes updated. A
 * value dictionary (format 14) is edited the same way: the codes' uses of
 * its entries taken off and put back, the entries left unused erased.
 * erase_block.c rewrites the blocks; erase_dict.c zeroes dictionary segments. */
#include "erase_int.h"
#include "format/ops/erase.h"
#include "format/part/columns.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/page/page.h"
#include "format/ops/reader.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/hash.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The context of chunk (g, leaf) as this erase edits it: read, checked and
 * parsed the first time; NULL for a chunk without one. */
int erase_context(struct erase_ctx *x, const struct ig_part *p, uint32_t g, uint32_t leaf,
                  struct ig_chunk_ctx **out, struct ig_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < x->ncxs; i++)
        if (x->cxs[i].g == g && x->cxs[i].leaf == leaf) {
            *out = &x->cxs[i].cx;
            return 0;
        }
    struct ig_ctxrec rec;
    int rc = ig_part_chunk_ctx(p, g, leaf, &rec, err);
    if (rc || !rec.size) return rc;
    struct erase_chunk_ctx *c = realloc(x->cxs, (x->ncxs + 1) * sizeof *c);
    if (!c) return ig_err(err, -ENOMEM, "out of memory");
    x->cxs = c;
    c = &x->cxs[x->ncxs];
    *c = (struct erase_chunk_ctx){
        .g = g, .leaf = leaf, .rec = rec, .old = IG_BUF_INIT, .entries = IG_BUF_INIT};
    rc = ig_buf_reserve(&c->old, rec.size) ? ig_err(err, -ENOMEM, "out of memory")
                                           : ig_part_read(p, c->old.data, rec.size, rec.offset, err);
    if (!rc && ig_hash(c->old.data, rec.size) != rec.hash)
        rc = ig_err(err, -EIO, "checksum mismatch");
    if (!rc) rc = ig_chunk_ctx_parse(c->old.data, rec.size, p->version, &c->cx, err);
    /* what it held, to tell whether the erase changed it (a packed context
     * left as it was is not packed again) */
    if (!rc && ig_chunk_ctx_write(&c->cx, &c->entries)) {
        ig_chunk_ctx_free(&c->cx);
        rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (rc) {
        ig_buf_free(&c->old);
        ig_buf_free(&c->entries);
        return ig_err_prefix(err, rc, "%s: leaf %u row group %u: chunk context", p->path, leaf, g);
    }
    c->old.len = rec.size;
    x->ncxs++;
    *out = &c->cx;
    return 0;
}

/* Take the uses a block's stream made of its chunk's table (before an erase,
 * sign -1) or makes (after, +1) off or onto the table's counts. */
int erase_count_block_uses(struct erase_ctx *x, const struct ig_column_ref *c, const uint8_t *stored,
                           const struct ig_pagerec *blk, int sign, struct ig_error *err)
{
    struct ig_chunk_ctx *cx = (struct ig_chunk_ctx *)blk->cx; /* x's own, being edited */
    if (cx && cx->vdict && blk->encoding == IG_ENC_VDICT) {
        /* the codes' uses of the value dictionary's entries */
        int rc = ig_page_value_uses(stored, blk, &c->li, &x->r.s, cx->vdict,
                                    ig_vdict_counts(cx->vdict), sign, err);
        if (rc == -EIO)
            rc = ig_err_prefix(err, rc, "its value dictionary's use counts disagree with its blocks");
        return rc;
    }
    if (!cx || !cx->fsst) return 0;
    /* only fsst streams and dictionaries use the table (the record names the
     * block's scheme): no other block is decompressed to be counted (verify
     * counts every block, and finds a record that lied) */
    if (blk->encoding != IG_ENC_FSST && blk->encoding != IG_ENC_DICT) return 0;
    uint64_t counts[256] = {0};
    int rc = ig_page_symbol_uses(stored, blk, &c->li, &x->r.s, counts, err);
    if (!rc && ig_fsst_add_uses(cx->fsst, counts, sign))
        rc = ig_err(err, -EIO, "its symbol table's use counts disagree with its blocks");
    return rc;
}

/* The uses of a block x just rewrote (x->built), made of the block's table. */
int erase_count_built_uses(struct erase_ctx *x, const struct ig_column_ref *c,
                           const struct ig_pagerec *old, struct ig_error *err)
{
    struct ig_pagerec nb = *old;
    nb.stored = (uint32_t)x->built.stored.len;
    nb.body_size = x->built.body_size;
    nb.compression = x->built.compression;
    nb.encoding = x->built.encoding;
    nb.entry_count = x->built.entry_count;
    nb.value_count = x->built.value_count;
    /* read against the dictionary it was compressed with: the one the erase
     * writes (the symbol table is the same, edited in place) */
    struct ig_chunk_ctx *cx = (struct ig_chunk_ctx *)old->cx, view;
    if (cx && cx->zdict_next) {
        view = *cx;
        view.zdict = cx->zdict_next;
        view.zdict_next = NULL;
        nb.cx = &view;
    }
    return erase_count_block_uses(x, c, x->built.stored.data, &nb, 1, err);
}

/* The contexts x read and edited, released (written or not). */
void erase_contexts_free(struct erase_ctx *x)
{
    for (size_t i = 0; i < x->ncxs; i++) {
        ig_chunk_ctx_free(&x->cxs[i].cx);
        ig_buf_free(&x->cxs[i].old);
        ig_buf_free(&x->cxs[i].entries);
    }
    free(x->cxs);
    x->cxs = NULL;
    x->ncxs = 0;
}

/* c's entries as this erase writes them back, into now, and whether they
 * are the same as before (*same; never where a test forces every context to
 * move); packed where
 * the part's format packs contexts (22, `packs`) and that is smaller, at the
 * writer's level, and where that does not fit the context's place at zstd's
 * hardest (an erase only shrinks the entries, but a frame of fewer bytes may
 * still come out longer). */
static int context_bytes(struct erase_chunk_ctx *c, bool packs, bool force_move, struct ig_buf *now,
                         struct ig_buf *alt, bool *same)
{
    ig_buf_reset(now);
    if (ig_chunk_ctx_write(&c->cx, now)) return -ENOMEM;
    *same =
        !force_move && now->len == c->entries.len && !memcmp(now->data, c->entries.data, now->len);
    if (*same || !packs) return 0;
    ig_buf_reset(alt);
    if (ig_buf_append(alt, now->data, now->len) ||
        ig_chunk_ctx_pack(now, 0, IG_CTX_ZSTD_LEVEL, false))
        return -ENOMEM;
    if (now->len <= c->rec.size) return 0;
    if (ig_chunk_ctx_pack(alt, 0, IG_CTX_ZSTD_HARDEST, false)) return -ENOMEM;
    if (alt->len < now->len) {
        struct ig_buf t = *now;
        *now = *alt;
        *alt = t;
    }
    return 0;
}

/* Whether to move every context an erase writes back (INGOT_TEST_CONTEXT_MOVE:
 * the tests' way to the path that a context packed again seldom takes). */
static bool move_every_context(void)
{
    const char *v = getenv("INGOT_TEST_CONTEXT_MOVE");
    return v && *v == '1';
}

/* c's new bytes (now, taken) going after the data with room after them
 * (erase.c places them and says so in its chunk record); its place zeroed. */
static int move_context(struct erase_ctx *x, struct part_plan *pp, struct erase_chunk_ctx *c,
                        struct ig_buf *now)
{
    if (ig_buf_append_zeros(now, ig_chunk_ctx_room(now->len))) return -ENOMEM;
    int rc = erase_journal_changes(x, pp->p, c->rec.offset, c->old.data, c->old.len, NULL, 0);
    if (rc) return rc;
    pthread_mutex_lock(&pp->moved_mu);
    struct moved_ctx *m = realloc(pp->moved_ctx, (pp->nmoved_ctx + 1) * sizeof *m);
    if (m) {
        pp->moved_ctx = m;
        pp->moved_ctx[pp->nmoved_ctx++] =
            (struct moved_ctx){.g = c->g, .leaf = c->leaf, .bytes = *now};
        *now = (struct ig_buf)IG_BUF_INIT;
    }
    pthread_mutex_unlock(&pp->moved_mu);
    if (!m) return -ENOMEM;
    x->rep->contexts_moved++;
    return 0;
}

int erase_contexts_write(struct erase_ctx *x, struct part_plan *pp, struct ig_error *err)
{
    const struct ig_part *p = pp->p;
    int rc = 0;
    struct ig_buf now = IG_BUF_INIT, alt = IG_BUF_INIT;
    bool packs = p->version >= IG_FORMAT_CTX_ZSTD, move_all = packs && move_every_context();
    for (size_t i = 0; i < x->ncxs && !rc; i++) {
        struct erase_chunk_ctx *c = &x->cxs[i];
        if (c->cx.fsst) ig_fsst_prune(c->cx.fsst);
        /* entries no live item names any more: their bytes leave the context */
        if (c->cx.vdict) x->rep->vdict_entries += ig_vdict_prune(c->cx.vdict);
        bool same = false;
        rc = context_bytes(c, packs, move_all, &now, &alt, &same);
        if (!rc && same) continue; /* its bytes stay as they are */
        bool moves = !rc && (now.len > c->rec.size || move_all);
        if (moves && !packs)
            rc = ig_err(err, -EIO, "%s: leaf %u row group %u: its chunk context grew", p->path,
                        c->leaf, c->g);
        if (!rc && moves) {
            rc = move_context(x, pp, c, &now);
        } else if (!rc) {
            if (ig_buf_append_zeros(&now, c->rec.size - now.len)) rc = -ENOMEM;
            if (!rc)
                rc = erase_journal_changes(x, p, c->rec.offset, c->old.data, c->old.len, now.data,
                                           now.len);
            if (!rc) {
                uint8_t *r = ig_chunk_record(p, pp->nf, c->g, c->leaf);
                ig_st64(r + IG_CHK_CTX_HASH, ig_hash(now.data, now.len));
                atomic_store(&pp->chunks_changed, true);
            }
        }
        if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    }
    ig_buf_free(&now);
    ig_buf_free(&alt);
    erase_contexts_free(x);
    return rc;
}
