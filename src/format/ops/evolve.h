/* evolve.h - a table's columns changed by a new version: added, replaced,
 * dropped, renamed, or restored to an older version's.
 *
 * Adding writes only the new columns' pages: into every part, past its footer
 * (part/graft.h), under one commit (part/commit.h). Replacing adds the new
 * values as a column of the same name and stops showing the old one; dropping
 * only stops showing a column. Neither removes anything: an older version
 * still shows the old column (its record and pages stay in the parts, and an
 * erasure reaches them) until `ingot gc` lets that version go.
 *
 * What it does not do: read input files (import/columns.h brings values from
 * .npy, CSV, JSON Lines and Parquet) or check who may change the table (the
 * table lock says who can; the mount says who may). */
#ifndef IG_FORMAT_OPS_EVOLVE_H
#define IG_FORMAT_OPS_EVOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/part/writer.h"

struct ig_blob_writer;
struct ig_error;
struct ig_values;
struct ig_table;
struct ig_part;

/* Values of table rows [first_row, first_row + count) (global ids) for every
 * leaf of the request's schema: exactly count rows each; rows the source has
 * nothing for, and rows deleted already, are NULL. Blob columns' objects go
 * into `blobs` (the part's blob file; NULL when the columns hold no blobs). */
typedef int (*ig_column_fill_fn)(void *ctx, uint64_t first_row, uint32_t count,
                                 struct ig_values *cols, struct ig_blob_writer *blobs,
                                 struct ig_error *err);

struct ig_add_request {
    const struct ig_schema *schema; /* the columns (finished; its own ids from 0) */
    bool replace;                   /* each replaces the shown column of its name */
    bool retype;                    /* replacing: the new values' type may differ (it
                                       becomes the column's from this version on) */
    ig_column_fill_fn fill;
    void *ctx;
    const struct ig_writer_opts *writer; /* NULL: the defaults */
    const char *change;                  /* the version's description; NULL: "add-column a, b" */
    /* adding: where the new columns are shown (in their order): first, or
     * right after the shown column `after`; neither: last */
    bool first;
    const char *after;
    /* before any byte is written, with the table locked and opened: a source
     * that needs the table (row order, a key column) gets ready here (NULL:
     * none) */
    int (*prepare)(void *ctx, const struct ig_table *t, struct ig_error *err);
    /* after each row group's values are filled: the table's rows filled so
     * far of all of them (NULL: not called) */
    void (*progress)(void *ctx, uint64_t rows_done, uint64_t rows_total);
    void *progress_ctx;
    /* on object storage, once every part's new bytes are built: the bytes of
     * the new part objects in the store of all they will hold, from 0, as each
     * object or multipart part is done (remote.h's ig_remote_journal_apply;
     * NULL: not told) */
    void (*replace_progress)(void *ctx, uint64_t done, uint64_t total);
    void *replace_progress_ctx;
};

struct ig_evolve_report {
    uint64_t version;       /* the version made */
    uint64_t bytes_written; /* to the parts (pages and footers) */
    uint32_t columns;       /* top-level columns added, replaced, dropped or renamed */
    /* on object storage: part and blob objects replaced (the new bytes
     * uploaded, the old ones copied by the store), new blob objects uploaded */
    uint64_t objects_replaced, bytes_uploaded, bytes_copied;
};

/* Add (or replace) the request's columns: a new version. A name that clashes
 * with a shown column (adding), or names none or a column of another type
 * (replacing), is refused before anything is written. */
int ig_add_columns(const char *dir, const struct ig_add_request *req, struct ig_evolve_report *rep,
                   struct ig_error *err);

/* Stop showing the named top-level columns: a new version, nothing written to
 * the parts. */
int ig_drop_columns(const char *dir, const char *const *names, size_t n,
                    struct ig_evolve_report *rep, struct ig_error *err);

/* Show top-level column `from` as `to` (its struct fields as "to.field"): a
 * new version, nothing written to the parts. Their footers keep the name it
 * was written with; the version's MANIFEST names it (docs/FORMAT.md), so an
 * older version still shows the old name, and an erasure, gc and verify see
 * the same column. A name a shown column answers to is refused. */
int ig_rename_column(const char *dir, const char *from, const char *to, struct ig_evolve_report *rep,
                     struct ig_error *err);
/* The same for n columns at once, pairs[2k] shown as pairs[2k + 1]: one
 * version, the names checked as they are after every rename (so two columns
 * may swap names). */
int ig_rename_columns(const char *dir, const char *const *pairs, size_t n, struct ig_evolve_report *rep,
                      struct ig_error *err);

/* Show top-level column `name` first (after: NULL) or right after column
 * `after` (each with its struct fields): a new version, nothing written to
 * the parts (MANIFEST's order line). */
int ig_move_column(const char *dir, const char *name, const char *after, struct ig_evolve_report *rep,
                   struct ig_error *err);

/* Show the columns version `spec` (a number or a tag) showed, under the names
 * it gave them: a new version, nothing written to the parts. The rows stay as
 * they are now: rows appended since keep showing (they hold every column
 * record), rows erased since stay erased. A version `ingot gc` let go (or a
 * column whose pages it zeroed) cannot be restored. */
int ig_restore_columns(const char *dir, const char *spec, struct ig_evolve_report *rep, struct ig_error *err);

/* Undo version `made` (a change of columns this process just committed) by
 * showing the columns of the version before it again, as a new version whose
 * change says `why`; only while `made` is still the current version (else
 * -EAGAIN, nothing changed: another writer's version is never undone). */
int ig_undo_columns(const char *dir, uint64_t made, const char *why, struct ig_evolve_report *rep,
                    struct ig_error *err);

#endif
