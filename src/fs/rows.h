/* rows.h - one row of the table: where it lives, and rows/ID as JSON.
 *
 * A row id is global (the part's first row id plus the local row). Locating a
 * row is two binary searches in the footer (its row group, then the page of a
 * column holding it); its values come from the page decoded into the session's
 * cache, so the next row of the same page costs no decoding. */
#ifndef IG_FS_ROWS_H
#define IG_FS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

struct fs_entry;
struct ig_buf;

/* The decoded page holding row `row` (global id) of column `col`, held in the
 * cache: *index is the row's position in it. -ENOENT for an erased or
 * out-of-range row. Caller holds the table lock for reading. */
int fs_row_value(struct fs_session *s, uint32_t col, uint64_t row, struct fs_entry **e,
                 size_t *index);

/* rows/ID: the row as one JSON object, keys in schema order, and a newline. */
int fs_row_render(struct fs_session *s, uint64_t row, struct ig_buf *out);

#endif
