/* erase_int.h - what the erase's sources share (not a public interface).
 *
 * erase.c drives an erase: resolve the rows, plan each part group by group
 * (leaf columns shared between two threads), journal, commit, apply, audit.
 * erase_block.c rewrites the blocks of one page that hold an erased row and
 * journals only the bytes that change. erase_where.c turns --where clauses into
 * row ids. */
#ifndef IG_FORMAT_ERASE_INT_H
#define IG_FORMAT_ERASE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/layout.h"
#include "format/ops/erase.h"
#include "format/ops/reader.h"
#include "format/page/page.h"
#include "format/part/journal.h"
#include "format/part/table.h"
#include "util/buf.h"

struct ig_error;

/* A page that no longer fits its extent, going after the data. */
struct moved {
    uint32_t page;
    struct ig_buf bytes;
};

/* A chunk context that no longer fits its place (format 22: packed again,
 * longer than before), going after the data with the moved pages. */
struct moved_ctx {
    uint32_t g, leaf;
    struct ig_buf bytes;
};

/* One part's erase: its footer copy being edited and the pages and contexts
 * that move. */
struct part_plan {
    const struct ig_part *p;
    uint32_t pi;
    uint8_t *nf; /* the new footer, a copy being edited */
    void *nf_map; /* nf's private mapping (erase.c, footer_image), or NULL: nf is malloc'ed */
    size_t nf_map_len;
    struct moved *moved;
    size_t nmoved;
    struct moved_ctx *moved_ctx;
    size_t nmoved_ctx;
    pthread_mutex_t moved_mu; /* helper threads append to moved and moved_ctx */
    uint8_t *touched_groups;  /* one byte per group */
    atomic_bool chunks_changed; /* a chunk record's bounds or context changed: the chunks hash too */
};

static inline uint8_t *page_rec(struct part_plan *pp, uint32_t page)
{
    return pp->nf + pp->p->sec_off[IG_SEC_PAGES] + (uint64_t)page * IG_PG_SIZE;
}

static inline uint8_t *page_extra(struct part_plan *pp, uint32_t page)
{
    return pp->nf + pp->p->sec_off[IG_SEC_EXTRA] + (uint64_t)page * IG_PX_SIZE;
}

static inline uint8_t *block_rec(struct part_plan *pp, const struct ig_pagerec *rec, uint32_t b)
{
    return pp->nf + pp->p->sec_off[IG_SEC_BLOCKS] + (uint64_t)(rec->first_block + b) * IG_BLK_SIZE;
}

/* A chunk's context (format 12) an erase edits: the uses its symbol table
 * counts go down with each erased value's codes, and a symbol no value uses
 * any more leaves the table (erase_contexts_write). */
struct erase_chunk_ctx {
    uint32_t g, leaf;
    struct ig_ctxrec rec;  /* where it lies and its old hash */
    struct ig_buf old;     /* its bytes as they were */
    struct ig_buf entries; /* its entries as they were, unpacked (ig_chunk_ctx_write) */
    struct ig_chunk_ctx cx;
};

/* A block holding an erased row of a chunk with a dictionary, loaded while
 * the dictionary was settled (erase_dict.c: the segments its erased values
 * hold), kept for erase_page to rewrite, not loaded and decompressed again.
 * Entries past nloaded keep their buffers for the next chunk's blocks: a
 * thread's erase allocates them once, not once a block. */
struct erase_loaded {
    uint32_t page, block;
    struct ig_pagerec blk;
    struct ig_values v;     /* as ig_reader_load_block gave them (erase_load_block) */
    struct ig_buf stored;   /* the block's stored bytes, checked */
    struct ig_buf body;     /* their body, decompressed (len 0: stored uncompressed, or none read whole) */
    struct ig_buf deleted;  /* its rows deleted before (len 0: none) */
};

/* An erase's progress (ig_erase_request.progress): every thread adds the
 * bytes of the chunks it finished to `done`; only the thread that called
 * ig_erase calls `fn`, each time `done` moved from what it last told. */
struct erase_progress {
    void (*fn)(void *ctx, uint64_t done, uint64_t total);
    void *ctx;
    uint64_t total;
    atomic_uint_fast64_t done;
    uint64_t told; /* the calling thread's alone */
};

/* One thread's working state: its buffers, its journal records and counts
 * (merged into the erase's when its share is done). */
struct erase_ctx {
    const char *dir;
    struct erase_progress *prog; /* NULL: none (and in the helper threads' contexts) */
    struct ig_journal j;
    struct ig_reader r;
    struct ig_values v;
    struct ig_page_built built;
    struct ig_buf tmp, kill_b, del_b;
    struct ig_erase_report *rep;
    struct erase_chunk_ctx *cxs; /* the contexts being edited (of one group's chunks) */
    size_t ncxs;
    struct erase_loaded *loaded; /* of the chunk being erased (erase_dict_prepare) */
    size_t nloaded, loaded_made, loaded_cap; /* made: entries with buffers */
    size_t loaded_next;          /* where erase_loaded_block looks first */
    struct ig_buf body;          /* a block's body just loaded, kept from the reader's reuse */
};
void erase_ctx_free(struct erase_ctx *x);
/* Block b of page `page` (record rec) loaded into x->r and x->v as erase_page
 * takes it: the killed values alone (kb: the block's killed rows) where the
 * leaf reads them one by one, the whole block otherwise (bl is filled). */
int erase_load_block(struct erase_ctx *x, const struct ig_part *p, const struct ig_column_ref *c,
                     uint32_t page, const struct ig_pagerec *rec, uint32_t b, const uint8_t *kb,
                     uint64_t group_first_row, struct ig_block_load *bl, struct ig_error *err);
/* The block x just loaded (bl) kept in x->loaded (its values and stored
 * bytes swapped in, its body copied); found again by page and block (NULL:
 * not loaded; erase_page asks in the order they were kept); all forgotten at
 * a chunk's end (their buffers kept), or freed (erase_dict.c). */
int erase_keep_loaded(struct erase_ctx *x, uint32_t page, const struct ig_block_load *bl);
const struct erase_loaded *erase_loaded_block(struct erase_ctx *x, uint32_t page, uint32_t b);
void erase_loaded_forget(struct erase_ctx *x);
void erase_loaded_free(struct erase_ctx *x);
/* Journal the bytes where new differs from old over the longer of the two at
 * base in p (new shorter than old reads as zeros past its end), merged across
 * small gaps, counted into x->rep (erase_journal.c). */
int erase_journal_changes(struct erase_ctx *x, const struct ig_part *p, uint64_t base,
                          const uint8_t *old, size_t old_len, const uint8_t *new, size_t new_len);
/* Take the uses a block's stream made of its chunk's symbol table (sign -1,
 * before an erase) or makes (+1, after) off or onto the table's counts; the
 * uses of the block x just built (x->built), against the dictionary it was
 * compressed with; the contexts x holds released, written or not
 * (erase_context.c). */
int erase_count_block_uses(struct erase_ctx *x, const struct ig_column_ref *c, const uint8_t *stored,
                           const struct ig_pagerec *blk, int sign, struct ig_error *err);
int erase_count_built_uses(struct erase_ctx *x, const struct ig_column_ref *c,
                           const struct ig_pagerec *old, struct ig_error *err);
void erase_contexts_free(struct erase_ctx *x);
/* The context of chunk (g, leaf) as this erase edits it: read, checked and
 * parsed the first time; *out NULL for a chunk without one. */
int erase_context(struct erase_ctx *x, const struct ig_part *p, uint32_t g, uint32_t leaf,
                  struct ig_chunk_ctx **out, struct ig_error *err);
/* Before the pages of flat leaf c's chunk in group g are erased (rows:
 * part-local, sorted, those of this erase): when the chunk has a zstd
 * dictionary, every segment an erased value holds and no value that stays
 * holds is zeroed in cx->zdict_next, which the erase compresses the chunk's
 * rewritten blocks against and writes (erase_dict.c). The blocks holding an
 * erased row are loaded for that and kept in x->loaded, for erase_page.
 * Nothing to do at erase level 1, nor for a chunk without a dictionary. */
int erase_dict_prepare(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c,
                       uint32_t g, uint64_t group_first_row, const uint64_t *rows, size_t nrows,
                       struct ig_error *err);
/* Whether the chunk of flat leaf c in group g has a dictionary this erase
 * changed (then every page of the chunk is looked at: erase_page). */
bool erase_dict_changed(struct erase_ctx *x, uint32_t g, uint32_t leaf);

/* Write the contexts x edited (the group's, of the leaves x erased from):
 * each pruned and written over its old bytes (never longer: counts only go
 * down, symbols only leave), only the bytes that changed journaled, its
 * chunk record's hash in the footer copy; then x holds none. */
int erase_contexts_write(struct erase_ctx *x, struct part_plan *pp, struct ig_error *err);

/* Journal every change for the rows ids (global, sorted) of table t into
 * x->j, part by part. */
int erase_plan_parts(struct erase_ctx *x, const struct ig_table *t, const uint64_t *ids, size_t n,
                     struct ig_error *err);
/* The audit log's line for an erase (no newline): time, origin, host, who,
 * the request with values redacted, what was rewritten. */
void erase_audit_line(const char *dir, const struct ig_erase_request *req, const struct ig_erase_report *rep, struct ig_buf *b);
/* ig_erase for a table on object storage (erase_remote.c). */
int erase_remote(const char *dir, const struct ig_erase_request *req, struct ig_erase_report *rep,
                 struct ig_error *err);

/* The rows of `kill` (page-relative bits; nkill of them) of a flat leaf's page
 * in group g. Where an erased value lies at or past a bound of the chunk, the
 * bounds leave its record (model/minmax.h; erase_rebound takes them again). */
int erase_page(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c, uint32_t g,
               uint32_t page, uint64_t group_first_row, const uint8_t *kill, uint32_t nkill,
               struct ig_error *err);
/* After erase_page dropped the bounds of flat leaf c's chunk in group g (an
 * erased value reached one): the bounds taken again over the chunk's rows
 * that stay (not deleted before, not among rows: part-local, sorted), every
 * page of the chunk decoded once, as the file still holds it. Nothing to do
 * for a chunk still bounded or never bounded. */
int erase_rebound(struct erase_ctx *x, struct part_plan *pp, const struct ig_column_ref *c, uint32_t g,
                  uint64_t group_first_row, const uint64_t *rows, size_t nrows, struct ig_error *err);
/* The rows (part-local, sorted) of group g of nested column col, every leaf,
 * in its pages [page_lo, page_hi) (page numbers within the chunk; the leaves
 * share them). Threads may erase a chunk's page ranges side by side only
 * where no leaf of it has a chunk context (whose counts an erase edits). */
int erase_nested(struct erase_ctx *x, const struct ig_table *t, struct part_plan *pp, uint32_t pi,
                 uint32_t g, uint32_t col, uint32_t page_lo, uint32_t page_hi, const uint64_t *rows,
                 size_t nrows, struct ig_error *err);

#endif
