/* rows.h - one row of the table: where it lives, and rows/ID as JSON.
 *
 * A row id is global (the part's first row id plus the local row). Locating a
 * row is binary searches in the footer (its row group, the page of a column
 * holding it, the block in that page); its values come from that block alone,
 * read with one pread and decoded into the session's cache, so the next row of
 * the same block costs no reading or decoding. */
#ifndef IG_FS_ROWS_H
#define IG_FS_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "session.h"

struct fs_entry;
struct ig_buf;

/* The decoded block holding row `row` (global id) of column `col`, held in the
 * cache: *index is the row's position in it (the leaves of a nested column are
 * cut into blocks alike, so the index is the same in each). -ENOENT for an erased or
 * out-of-range row. Caller holds the table lock for reading. */
int fs_row_value(struct fs_session *s, uint32_t col, uint64_t row, struct fs_entry **e,
                 size_t *index);

/* rows/ID: the row as one JSON object, keys in schema order, and a newline. */
int fs_row_render(struct fs_session *s, uint64_t row, struct ig_buf *out);
/* The sizes of rows/ID for rows first, first + 1, ... of first's row group
 * (at most count; *done of them), 0 for an erased row, measured together
 * (format/ops/take.h ig_rows_json_len) from the session's cache. */
int fs_rows_sizes(struct fs_session *s, uint64_t first, size_t count, struct ig_buf *scratch,
                  uint64_t *sizes, size_t *done);

/* The rows/ID files of the live rows first, first + 1, ... of first's row
 * group (at most count; *done of them covered) back to back, rendered
 * together (format/ops/take.h ig_rows_render_json) from the session's cache. */
int fs_rows_render(struct fs_session *s, uint64_t first, size_t count, struct ig_buf *out, size_t *done);

#endif
