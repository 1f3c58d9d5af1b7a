/* table.h - a table directory: MANIFEST (manifest.h) plus part files.
 *
 *     mytable/
 *       MANIFEST            which parts, in order; replaced atomically
 *       part-000000.ingot   a self-contained columnar part (layout.h)
 *       part-000001.ingot   ... one per import/append
 *
 * MANIFEST is text:
 *
 *     ingot-manifest 1
 *     generation G
 *     part NAME FIRST_ROW_ID ROWS [blob=NAME.blob]
 *     ...
 *     end XXH3-HEX        (hash of every byte before this line)
 *
 * Row ids are global (the part's first_row_id + local row) and never change.
 * Row groups are numbered globally across parts in MANIFEST order. */
#ifndef IG_FORMAT_TABLE_H
#define IG_FORMAT_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/part/footer.h"
#include "format/model/schema.h"
#include "format/part/manifest.h"

struct ig_error;


struct ig_table {
    char *dir;
    struct ig_manifest manifest; /* the version opened (footer ends: today's) */
    uint32_t nparts;
    struct ig_part *parts;
    uint32_t *part_first_group; /* global index of each part's group 0 */
    uint32_t num_groups;        /* total */
    uint64_t num_rows;          /* total, including deleted */
    uint64_t deleted_rows;
    /* the names the version gives renamed columns and their fields
     * (MANIFEST's `name` lines), which every part's records answer to
     * (ig_part_column); NULL: none renamed */
    struct ig_part_names *names;
};

/* Open every part listed in MANIFEST and check they agree (schema, row ids). */
int ig_table_open(struct ig_table *t, const char *dir, bool writable, struct ig_error *err);
/* The same for an older version (versions.h; 0: the current one): its parts,
 * with the footers MANIFEST names now, and its columns. */
int ig_table_open_version(struct ig_table *t, const char *dir, uint64_t version, bool writable,
                          struct ig_error *err);

/* Does the table (the version opened) show column record `col`? Records of
 * columns added later, replaced or dropped stay in the parts' footers (an
 * older version shows them, and an erasure reaches them) but are not shown. */
bool ig_table_shows(const struct ig_table *t, uint32_t col);
/* The column records the version shows, in the order it shows them (by id,
 * or MANIFEST's `order`: a replaced column's replacement where it was), a
 * struct's fields among them:
 *
 *     struct ig_shown_walk w = {0};
 *     for (uint32_t col; ig_table_next_shown(t, &w, &col);) ...
 *
 * Only ids of records part 0 has. */
struct ig_shown_walk {
    size_t run;    /* the order's run at work */
    uint32_t next; /* the next id (by id), or the next within that run */
};
bool ig_table_next_shown(const struct ig_table *t, struct ig_shown_walk *w, uint32_t *col);
/* The same for the top-level columns alone (and a record that cannot be
 * read: the caller reports it where it reads it). */
bool ig_table_next_top(const struct ig_table *t, struct ig_shown_walk *w, uint32_t *col);
/* The version's schema: the columns it shows, in its order (node indices are
 * not column ids once a version hides or orders records). */
int ig_table_schema(const struct ig_table *t, struct ig_schema *s, struct ig_error *err);
/* How many column records the version shows. */
uint32_t ig_table_columns_shown(const struct ig_table *t);
/* The shown column called name: 0, or -ENOENT. */
int ig_table_find(const struct ig_table *t, const char *name, size_t len, uint32_t *col, struct ig_error *err);
void ig_table_close(struct ig_table *t);
/* The same for a reader that must not see a writer's footers half written (the
 * mount): every part's footer is copied (ig_part_copy_footer) under the table's
 * shared lock (lock.h), after any erase at work or interrupted was completed,
 * so the table shows one generation whatever writers do to the files later.
 * Read-only. */
int ig_table_open_shared(struct ig_table *t, const char *dir, struct ig_error *err);
/* The same for version `version` (0: the current one). */
int ig_table_open_shared_version(struct ig_table *t, const char *dir, uint64_t version, struct ig_error *err);

/* Drop this host's cached pages of every part file of the table at dir. On
 * shared storage another host may have rewritten them in place since they were
 * cached (footers and tails are read afresh there anyway: ig_part_open,
 * ig_part_copy_footer): writers call this once they hold the lock, a mount when
 * another host changed the table. Advice only (posix_fadvise). */
void ig_table_forget_cache(const char *dir);

/* Global group -> (part, local group). -ENOENT if out of range. */
int ig_table_group(const struct ig_table *t, uint32_t g, uint32_t *part, uint32_t *local);
/* Global row id -> (part, local row). -ENOENT if out of range. */
int ig_table_row(const struct ig_table *t, uint64_t row_id, uint32_t *part, uint64_t *local);


#endif
