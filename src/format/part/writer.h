/* writer.h - writes one part file from rows.
 *
 * Rows are buffered column by column for one row group; when the group is full
 * (encoded by `threads` threads while the caller fills the next one) each
 * column is cut into pages by its own target size (so a wide string column
 * and a narrow int column page independently), each page encoded (page.h) and
 * appended. finish() writes the footer and tail and fsyncs. The caller writes to
 * a temporary name and renames (imports are atomic); free() without finish()
 * removes the file.
 *
 * Blob columns' objects go to a blob file beside the part (opts->blob_path),
 * fsynced before the part. Usage: for each row, push exactly one value (or NULL) into every column's
 * ig_values (ig_part_writer_column), then call ig_part_writer_end_row. */
#ifndef IG_FORMAT_WRITER_H
#define IG_FORMAT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"

struct ig_buf;

struct ig_error;
struct ig_part_writer;

struct ig_writer_opts {
    uint32_t rows_per_group; /* rows a row group holds, the last fewer; 0 (the
                                default): sized by its values, below */
    uint64_t group_cap;      /* sized groups: the values a group ends at inside its
                                first step (below); 0: IG_GROUP_CAP */
    uint32_t page_size;      /* default target page bytes, 65536 */
    uint32_t block_size;     /* default target block bytes (page.h), 0: 4096 */
    int zstd_level;          /* blocks of numbers, levels, references: default 2 */
    int zstd_level_bytes;    /* blocks of strings and binary values: default 1 */
    uint8_t erase_level;     /* table default compliance level, 2 */
    const char *blob_path;   /* blob file to create when the schema has blob columns */
    unsigned threads;        /* encoding threads, the caller's included; 0 or 1: the
                                caller's alone. The file is the same byte for byte. */
    /* a graft (ig_part_writer_open_graft): the part's row groups, exactly */
    const uint32_t *group_rows; /* rows of each group, in order (NULL: groups as above) */
    uint32_t ngroups;
    const uint8_t *deleted;  /* the part's deletion bitmap (LSB first), or NULL: rows
                                deleted already are written as their erased form is
                                counted (not in text lengths, live values; deleted) */
    /* Rows cut into several part files (ig_part_writer_open only, not a
     * graft, not a schema with blob columns, whose references point into one
     * blob file): a row group whose pages would take the file past
     * part_bytes starts a new file (a group larger than that alone is a part
     * of its own), at the path next_part names (rows_done: the rows of
     * the file just finished, which is complete, footer and all, and left to
     * the caller from then on). Each file is a part of its own: its first row
     * id follows the previous one's rows. 0: one file. */
    uint64_t part_bytes;
    int (*next_part)(void *ctx, uint64_t rows_done, char *path, size_t cap, struct ig_error *err);
    void *next_ctx;
};

/* Row groups sized by their values (rows_per_group 0): a group grows in steps
 * of IG_GROUP_STEP rows, to IG_GROUP_MAX_ROWS at most, while its values in
 * memory (8 bytes a lane, the strings' bytes, the levels) stay within
 * IG_GROUP_BUDGET: before each further step the writer checks that one more
 * step of the same width would fit. Engines reading a table's Parquet views
 * pay per file and per row group (a view per group), and an importer holds
 * the group being filled and up to two being encoded; a table of wide rows
 * keeps groups of one step. Rows so wide that one step would hold more than
 * IG_GROUP_CAP of values (10,000 int64 columns: 5 GiB a step; 20,000 columns,
 * 10 GiB, twice of which is most of this machine) end their group earlier: at
 * the first multiple of IG_GROUP_SUBSTEP rows where the values reach the cap
 * (10,000 columns: groups of 16,384 rows, an import in 3.0 GB instead of 5.8,
 * the file 10 % larger: smaller chunks, more records). A part's first
 * IG_GROUP_RAMP groups hold one step each: the encoders have nothing to do
 * until the first group is handed over, and while they encode the next ones
 * the importer gets ahead before the groups grow (a CSV import on two cores:
 * one core waited 55-78 ms for a first group of three steps, 22-33 ms now,
 * of a 0.72 s import). Where the steps end
 * depends only on the values, so a part is the same byte for byte whatever
 * the threads. */
#define IG_GROUP_STEP 65536u
#define IG_GROUP_MAX_ROWS (4 * IG_GROUP_STEP)
#define IG_GROUP_BUDGET (32u << 20)
#define IG_GROUP_SUBSTEP 8192u
#define IG_GROUP_RAMP 3u
#define IG_GROUP_CAP (1ull << 30)

void ig_writer_opts_default(struct ig_writer_opts *o);
/* The page size a leaf gets when its schema declares none, under the default
 * options: once stored, a declared size equal to it cannot be told from none
 * (inspect --schema leaves it out). */
uint32_t ig_writer_default_page_size(const struct ig_column_def *cd);

int ig_part_writer_open(struct ig_part_writer **w, const char *path, const struct ig_schema *s,
                        const struct ig_writer_opts *o, uint64_t first_row_id,
                        struct ig_error *err);
struct ig_values *ig_part_writer_column(struct ig_part_writer *w, uint32_t col);
/* Every leaf's values of the row group being filled, indexed by leaf: the
 * same as ig_part_writer_column for each, until the next end_row(s). */
struct ig_values *ig_part_writer_columns(struct ig_part_writer *w);
int ig_part_writer_end_row(struct ig_part_writer *w, struct ig_error *err);
/* Rows that still fit the row group being filled, to its next step (or, in a
 * sized group's first step, its next IG_GROUP_SUBSTEP; at least 1): an
 * importer that fills columns many rows at a time pushes at most this many
 * into each column, then ends them with ig_part_writer_end_rows. */
uint32_t ig_part_writer_room(const struct ig_part_writer *w);
/* End n rows at once (n <= ig_part_writer_room): every column holds them. */
int ig_part_writer_end_rows(struct ig_part_writer *w, uint32_t n, struct ig_error *err);
uint64_t ig_part_writer_rows(const struct ig_part_writer *w);
/* The part's blob file writer (NULL without blob columns): importers copy
 * objects into it and push their references into blob columns. */
struct ig_blob_writer *ig_part_writer_blobs(struct ig_part_writer *w);
/* Write remaining rows, the footer and the tail; fsync; close the file. */
int ig_part_writer_finish(struct ig_part_writer *w, struct ig_error *err);

/* A graft: pages of columns to add to an existing part, written into its file
 * from `start` (8-aligned, past everything the file holds), in its row groups
 * (o->group_rows). The file is neither truncated nor, on failure, removed: the
 * caller owns it (format/part/graft.h merges the footers and commits). Blob
 * columns' objects are appended to o->blob_path (created if missing); on
 * failure it is cut back to what it held. */
int ig_part_writer_open_graft(struct ig_part_writer **w, const char *path, uint64_t start,
                              const struct ig_schema *s, const struct ig_writer_opts *o,
                              uint64_t first_row_id, struct ig_error *err);
/* Write the remaining rows and fsync; *footer gets the footer the new columns
 * would have as a part of their own (their records, in these groups), *end
 * the file offset after their last page. */
int ig_part_writer_finish_graft(struct ig_part_writer *w, struct ig_buf *footer, uint64_t *end,
                                struct ig_error *err);
/* Release; removes the file unless finish() succeeded. */
void ig_part_writer_free(struct ig_part_writer *w);

#endif
