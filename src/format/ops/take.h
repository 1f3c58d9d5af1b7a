/* take.h - rows by id: where a row lives, and its values from single blocks.
 *
 * A row id is global (its part's first row id plus the local row). Locating it
 * is binary searches in the footer: its part, row group, the page of a leaf
 * column holding it and the block of that page. Its value is in that block
 * alone (format 4; older parts have one block per page), so a row costs one
 * small read and one small decode per column, whatever the page size.
 *
 * Who holds decoded blocks is the caller's business: the mount keeps them in
 * its shared cache, a take handle (ig_take) in a few slots of its own. Both hand
 * them to the row renderer through an ig_block_source.
 *
 * Not here: erased rows are never rendered (-ENOENT); nothing here locks the
 * table (callers hold what lock.h asks of readers).
 *
 * take.c locates and renders rows, take_handle.c is the take handle,
 * take_prefetch.c the advice before a batch; take_int.h what they share. */
#ifndef IG_FORMAT_TAKE_H
#define IG_FORMAT_TAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/ops/reader.h"
#include "format/part/table.h"

struct ig_buf;

/* A live row's place: part, local row group, its row within the group. */
struct ig_row_at {
    uint32_t part, group, in_group;
    uint64_t group_first_row; /* the group's first part-local row */
};

/* The block of one leaf column holding a row. */
struct ig_row_block {
    uint32_t page, block;
    struct ig_pagerec rec; /* the page's record */
    struct ig_pagerec blk; /* the block's record (first_row within the page) */
    size_t index;          /* the row's position among the block's rows */
};

/* -ENOENT for an erased or out-of-range row, -EIO for a footer that disagrees. */
int ig_row_locate(const struct ig_table *t, uint64_t row, struct ig_row_at *at);
int ig_row_block(const struct ig_part *p, const struct ig_row_at *at, uint32_t leaf,
                 struct ig_row_block *rb);

/* Supplies the decoded block rb of column ref (a leaf) for the row at `at`:
 * *vals stays valid until put(ctx, *hold). A source may supply fewer rows than
 * the block holds (a take decodes only the row of a string column), and then
 * sets rb->index to the row's position among those it supplied. */
struct ig_block_source {
    int (*get)(void *ctx, const struct ig_column_ref *ref, const struct ig_row_at *at,
               struct ig_row_block *rb, struct ig_values **vals, void **hold,
               struct ig_error *err);
    void (*put)(void *ctx, void *hold);
    void *ctx;
    /* NULL, or where a source that reads many rows of one table (a take
     * handle) keeps what a column's row read decodes from the footer before
     * any block (its reference; a nested column's tree and leaves), for the
     * rows after the first: the last column read */
    struct ig_column_shape *shape;
};

/* A leaf column's block holding the row (from src) and the row's index in it;
 * give *hold back with src->put. */
int ig_row_leaf(const struct ig_table *t, const struct ig_column_ref *ref,
                const struct ig_row_at *at, const struct ig_block_source *src,
                struct ig_values **v, void **hold, size_t *index, struct ig_error *err);
/* The value of column `col` in a row as JSON (what rows/ID shows under its
 * name): a leaf's value, or a nested column (or a node inside one: its part of
 * the tree) reassembled from its leaves' blocks. */
int ig_row_value_json(const struct ig_table *t, uint32_t col, const struct ig_row_at *at,
                      const struct ig_block_source *src, struct ig_buf *out,
                      struct ig_error *err);
/* The row as one JSON object and a newline (rows/ID): the given columns in the
 * given order (cols NULL: every top-level column in schema order). */
int ig_row_render_json(const struct ig_table *t, uint64_t row, const uint32_t *cols, size_t ncols,
                       const struct ig_block_source *src, struct ig_buf *out,
                       struct ig_error *err);

/* The lengths of ig_row_render_json's output (every column) for rows first,
 * first + 1, ... of first's row group, at most count of them: *done rows
 * measured, lens[i] the length of row first + i, 0 for an erased one. Each
 * column's block is taken from src once for the rows it holds (a listing's
 * sizes without a lookup per row and column); values are measured, rendered
 * into scratch only where no cheaper exact count exists (strings, objects,
 * nested columns). */
int ig_rows_json_len(const struct ig_table *t, uint64_t first, size_t count, const struct ig_block_source *src,
                     struct ig_buf *scratch, uint64_t *lens, size_t *done, struct ig_error *err);

/* ig_row_render_json's output for the live rows first, first + 1, ... of
 * first's row group (at most count of them; erased rows left out), appended
 * to out; *done rows covered. Each column's block is taken from src once for
 * the rows it holds and its values rendered together (the same bytes as row
 * by row), column by column however many columns: a chunk's context is read
 * once, not once a row. A call covers at most 2^20 values (100 rows of a
 * 10,000-column table), so its memory stays bounded; call again for the
 * rest. */
int ig_rows_render_json(const struct ig_table *t, uint64_t first, size_t count, const struct ig_block_source *src,
                        struct ig_buf *out, size_t *done, struct ig_error *err);
/* Tell the kernel every block the rows ids (of the given columns; NULL: every
 * top-level column) will need, before reading any: from a cold cache the reads
 * then overlap instead of waiting one behind the other. A block that holds
 * several of the rows in a run is advised once, and a block `held` says the
 * caller has decoded already (NULL: none) not at all: advice costs a system
 * call a block, 10 ms for a row of 10,000 columns. Advice only. */
typedef bool (*ig_block_held_fn)(void *ctx, uint32_t part, uint32_t page, uint32_t block);
void ig_take_prefetch(const struct ig_table *t, const uint64_t *ids, size_t n, const uint32_t *cols,
                      size_t ncols, ig_block_held_fn held, void *held_ctx);

/* A take handle: a reader and one decoded block per column, kept between calls
 * so rows that share a block decode it once (a string column reads a row
 * alone, then its whole block when a second row of it follows). One thread at
 * a time. */
struct ig_take;
int ig_take_new(const struct ig_table *t, struct ig_take **out);
void ig_take_free(struct ig_take *tk);
/* The handle as a block source (valid while the handle lives). */
const struct ig_block_source *ig_take_source(struct ig_take *tk);

/* The rows ids[0..n) (any order, repeats allowed) for ncols columns: each row
 * is located once (found[i] = 1 when it is live, else left 0), then `value` is
 * called for column 0 at every found row in ascending id order, then for
 * column 1, and so on: column by column, so that each chunk's context is read
 * once however many columns a row has (row by row, a row of more columns
 * than a reader keeps contexts for read every one again for each row). The
 * first error stops it (-EIO for a footer that disagrees with itself). */
typedef int (*ig_take_value_fn)(void *ctx, size_t col, size_t i, const struct ig_row_at *at,
                                struct ig_error *err);
int ig_take_visit(struct ig_take *tk, const uint64_t *ids, size_t n, size_t ncols, uint8_t *found,
                  ig_take_value_fn value, void *ctx, struct ig_error *err);
/* ig_row_render_json of row ids[i] through the handle, where ids[i + 1 ..
 * n) are the rows to be read next, in turn (`ingot cat --rows`): as in a
 * visit, a nested block decodes as far as the last of the rows coming next
 * in a row that it holds. */
int ig_take_render_row(struct ig_take *tk, const uint64_t *ids, size_t n, size_t i, const uint32_t *cols,
                       size_t ncols, struct ig_buf *out, struct ig_error *err);
/* Chunk contexts the handle has read from its parts so far (tests read it). */
uint64_t ig_take_contexts_read(const struct ig_take *tk);

#endif
