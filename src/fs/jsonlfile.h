/* jsonlfile.h - a row group's rows as one file: jsonl/G.jsonl.
 *
 * The live rows of row group G in id order, each exactly as rows/ID shows it
 * (one JSON object and a newline): one open and sequential reads for a loader
 * or a tool that wants many rows (a shard of JSON Lines), where rows/ID costs
 * a lookup and a read per row. The layout is the rows' lengths, measured
 * together (rows.h fs_rows_sizes) when the file is first looked up, so the
 * size is exact and a read at any offset finds its run of rows by binary
 * search; runs of FS_JSONL_RUN rows are rendered together (fs_rows_render) on first read
 * and cached like any view's pieces.
 *
 * Like parquet/G.parquet it shows the current generation only: once an erase
 * lands, reads of a file opened before answer ESTALE (view.c). Measuring a
 * group decodes every column of it: the first `ls -l jsonl/` of a large table
 * costs about what rendering it would. FUSE-free. */
#ifndef IG_FS_JSONLFILE_H
#define IG_FS_JSONLFILE_H

#include <stdint.h>

#include "cache.h"
#include "session.h"

#define FS_JSONL_RUN 256 /* rows a cached piece holds (~30 KiB of ~120-byte rows) */

struct fs_jsonl {
    uint64_t first_row; /* global id of the group's first row */
    uint32_t rows;      /* rows of the group, erased ones included */
    uint32_t nruns;
    uint64_t *start;    /* nruns + 1 offsets: run i is [start[i], start[i + 1]) */
    uint64_t size;      /* start[nruns] */
};

/* Lay out row group `group` now (caller holds the table lock for reading). */
int fs_jsonl_layout(struct fs_session *s, uint32_t group, struct fs_jsonl **out);
void fs_jsonl_free(struct fs_jsonl *v);
/* The bytes of run i (exactly its length in the layout), cached under the
 * file's inode `ino`; -EIO (logged) if the rows render to another length. */
int fs_jsonl_run(struct fs_session *s, const struct fs_jsonl *v, uint64_t ino, uint32_t i,
                 struct fs_entry **out);

#endif
