/* graft.h - columns added to a part in place: their pages appended to its
 * file, then one footer describing the part's old columns and the new ones.
 *
 *     before:  magic | pages | footer | tail                      (MANIFEST: footer= end)
 *     after:   magic | pages | footer | tail | new pages | footer' | tail'
 *
 * footer' holds every record of footer (the part's columns keep their ids)
 * and the new columns' after them, the page table merged group by group (a
 * group's pages stay together, its old pages first), the deletion bitmap as
 * it was. Nothing before the old tail is written: a reader that opens the part
 * at MANIFEST's footer= keeps reading the old footer until a commit publishes
 * the new end (part/commit.h), and the old footer, superseded, is zeroed then
 * (it may hold values: chunk bounds).
 *
 * The new columns' pages come from the part writer in graft mode (writer.h):
 * exactly the part's row groups, rows deleted already written as NULLs and
 * counted as erased. The part must be format 9 or later (older chunk records
 * have another size); the footer' is format 10.
 *
 * New blob columns' objects are appended to the part's blob file (created if
 * the part had none: opts->blob_path names it): the objects there keep their
 * offsets, so older versions' references stay true. */
#ifndef IG_FORMAT_PART_GRAFT_H
#define IG_FORMAT_PART_GRAFT_H

#include <stdint.h>

#include "format/model/schema.h"
#include "format/part/footer.h"
#include "format/part/writer.h"

struct ig_blob_writer;
struct ig_error;
struct ig_values;

/* Fill the values of rows [first, first + count) of the part (part-local
 * rows: a row group, or a run of one) into cols[leaf] for every leaf of the
 * new columns' schema: exactly `count` rows each. Blob columns' objects go
 * into `blobs` (the part's blob file, appended to; NULL when the new columns
 * hold no blobs), their references into the columns. */
typedef int (*ig_graft_fill_fn)(void *ctx, uint64_t first, uint32_t count, struct ig_values *cols,
                                struct ig_blob_writer *blobs, struct ig_error *err);

/* Add the columns of schema `add` (their own schema: column ids from 0) to
 * part p (opened at its current footer end) with the values `fill` gives,
 * writing into the file `into`: p->path, or a local copy of a part on object
 * storage (commit.h: its size the object's, nothing but the new bytes read
 * back). *new_end: where the new tail ends (MANIFEST's footer= once
 * committed). On failure the file may hold bytes past the old end: the
 * caller's commit journal truncates them. */
int ig_part_graft(const struct ig_part *p, const char *into, const struct ig_schema *add,
                  const struct ig_writer_opts *opts, ig_graft_fill_fn fill, void *ctx,
                  uint64_t *new_end, struct ig_error *err);

/* The footer of part p with the columns of mini (a footer the part writer
 * built for the new columns alone, in p's row groups) after its own: into out
 * (appended), with its Merkle root. Exposed for tests. */
int ig_graft_merge(const struct ig_part *p, const uint8_t *mini, size_t mini_len,
                   struct ig_buf *out, uint64_t *root, struct ig_error *err);

#endif
