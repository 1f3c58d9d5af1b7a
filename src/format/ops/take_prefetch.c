/* take_prefetch.c - advice for the blocks a batch of rows will read (take.h,
 * ig_take_prefetch): the kernel's readahead for local parts, range GETs in
 * parallel for parts on object storage. Advice only: nothing here decodes. */
#include "take.h"
#include "format/model/assemble.h"
#include "format/part/columns.h"
#include "store/store.h"
#include "util/buf.h"

#include <fcntl.h>
#include <stdlib.h>

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
    struct advised *last = pf->last && leaf < p->num_leaves ? &pf->last[leaf] : NULL;
    if (ig_row_block(p, at, leaf, &rb)) return;
    if (last && last->set && last->part == part && last->page == rb.page && last->block == rb.block) return;
    if (pf->held && pf->held(pf->held_ctx, part, rb.page, rb.block)) return;
    const struct ig_pagerec blk = rb.blk;
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
