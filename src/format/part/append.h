/* append.h - adding a part to a table, all or nothing.
 *
 *     ig_append_begin   a new table: build it in `.NAME.importing-PID` beside
 *                       its destination; an append: take the table lock, open
 *                       the table (the schema and next row id come from it)
 *     ig_append_name    name the part (and its blob file) and where to write
 *                       them: temporary names inside the target directory
 *     ig_append_next    (the writer cutting its rows into several parts,
 *                       writer.h part_bytes) the part before is complete with
 *                       so many rows: name the next one
 *     ig_append_commit  rename the files into place, replace MANIFEST atomically
 *                       (its generation moves on), and for a new table rename
 *                       the whole directory into place
 *     ig_append_end     remove whatever was not committed, unlock, close
 *
 * A crash or error anywhere before commit's MANIFEST rename leaves the table
 * exactly as it was; what a killed import left beside a new table is removed by
 * the next begin into the same name once its process is gone.
 *
 * On object storage (s3://) the files are written in a local stage directory
 * (INGOT_STAGE_DIR, else TMPDIR), uploaded (large ones in parts), and MANIFEST
 * published last with If-Match (If-None-Match for a new table), all under the
 * writers' lock object. A failure before that leaves the table as it was
 * (objects uploaded for it are removed; a killed import's are overwritten by
 * the next and named by `ingot verify` meanwhile). */
#ifndef IG_FORMAT_PART_APPEND_H
#define IG_FORMAT_PART_APPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/part/remote.h"
#include "format/part/table.h"

struct ig_error;

#define IG_APPEND_PATH_MAX 4096

struct ig_append {
    bool create;                 /* a new table, not an append */
    char table_dir[IG_APPEND_PATH_MAX];
    char dir[IG_APPEND_PATH_MAX]; /* where the part is written: the table or its sibling */
    int lock_fd;
    bool have_table;
    struct ig_table table;       /* appends: the table as it was */
    uint64_t first_row;          /* the new part's first row id */
    char part_name[IG_PART_NAME_MAX], blob_name[IG_PART_NAME_MAX]; /* blob_name "" if none */
    char part_tmp[IG_APPEND_PATH_MAX], blob_tmp[IG_APPEND_PATH_MAX];
    char part_final[IG_APPEND_PATH_MAX], blob_final[IG_APPEND_PATH_MAX];
    bool committed;
    /* parts after the first, when the writer cut the rows (ig_append_next):
     * each one's name, temporary and final path and rows; the first part's
     * rows are rows0 (the last part's are what commit is told less the rest) */
    struct ig_append_piece *more;
    uint32_t nmore;
    uint64_t rows0;
    /* a table on object storage (remote.h): the part is built in a local
     * stage directory (dir), uploaded, then MANIFEST published under the
     * writers' lock object */
    bool remote;
    struct ig_remote_lock rlock;
    /* set by the caller after begin (NULL: none): the upload at commit, bytes
     * sent of the part and blob files' total */
    void (*upload_progress)(void *ctx, uint64_t done, uint64_t total);
    void *upload_progress_ctx;
};

int ig_append_begin(struct ig_append *a, const char *table_dir, bool create, struct ig_error *err);
struct ig_append_piece {
    char name[IG_PART_NAME_MAX];
    char tmp[IG_APPEND_PATH_MAX], final[IG_APPEND_PATH_MAX];
    uint64_t rows;
};

/* Fills part_name/part_tmp (and blob_name/blob_tmp when blobs). */
int ig_append_name(struct ig_append *a, bool blobs, struct ig_error *err);
/* The part written last holds rows_done rows and is complete: name the next
 * part (numbered after it), its temporary path into path. The writer's
 * next_part (writer.h), with the append as its context. */
int ig_append_next(void *a, uint64_t rows_done, char *path, size_t cap, struct ig_error *err);
/* What an import into s3:// cuts its rows at when not told (bytes a part);
 * a local table keeps one part an import (0): erasing there writes in place,
 * whatever the part's size. INGOT_PART_SIZE (bytes) overrides both. */
uint64_t ig_append_part_bytes_default(const char *table_dir);
#define IG_REMOTE_PART_BYTES_DEFAULT (128ull << 20)
/* Before commit, in every part the append wrote: the records release[col]
 * marks (by column record id, ncols of them) released (release.h: pages
 * and contexts zeroed, the footer saying so), as `ingot gc` leaves them.
 * For the rows of a column that only older versions show and that cannot be
 * NULL: they hold no value, and a version that showed the column again
 * (restore-columns) would show rows with none; released, it refuses. */
int ig_append_release(struct ig_append *a, const uint8_t *release, uint32_t ncols, struct ig_error *err);
/* The part (rows rows) and its blob file are written and closed at their
 * temporary paths. */
int ig_append_commit(struct ig_append *a, uint64_t rows, struct ig_error *err);
void ig_append_end(struct ig_append *a);

#endif
