/* columns.h - values for columns added to (or replacing, or updating columns
 * of) a table, from files (format/ops/evolve.h commits them).
 *
 *   .npy            one column (a 1-D array, or a 2-D float32 array as a
 *                   vector<float32, D>), row k of the array going to the
 *                   table's k-th live row (live rows in id order): the array
 *                   has exactly as many rows as the table has live rows
 *   CSV, JSON Lines, Parquet (anything `ingot import` reads, --schema too)
 *                   rows matched to the table's by a key: a column `_rowid`
 *                   holds row ids; else the key column (default `id` when the
 *                   file and the table both have one) is matched against the
 *                   table's column of that name (integers or strings). Every
 *                   other column of the file is a column to add (or replace);
 *                   an update takes the columns it names.
 *
 * The file is imported into a temporary table under TABLE/.ingot/ (the
 * importer's types, checks and messages), read back with the reader, and
 * removed whatever happens (one a killed run left is removed by the next).
 * Types: the key takes the table's key type, and replaced or updated columns
 * the table's types, where the importer infers them (CSV, JSON Lines without
 * --schema); Parquet and --schema types must match.
 *
 * Rows: a table row the file does not name is NULL (an added or replaced
 * column; an error with require_all) or keeps its value (an update). A file row
 * whose key names no live row (erased, out of range, no such key) is an error
 * naming the first few keys, or left out with ignore_missing. A key the file
 * gives twice, or one the table holds in two live rows, is an error naming it.
 * Erased rows get NULL (a non-nullable vector: zeros).
 *
 * New columns are nullable at the top unless require_all (then they keep the
 * file's type: a vector<float32, D> stays non-nullable); an update keeps the
 * column's type exactly.
 *
 * Memory: the join holds, per file row, its key (8 bytes, or the string),
 * 8 bytes of match and, in a hash, 12 bytes per slot at most half full; per
 * matched row 16 bytes; and the file's decoded values one row group at a time
 * when its rows come in the table's order (each group is let go once its last
 * row is written), all of them at worst (rows in random order: 8 bytes a
 * fixed-width value, strings' bytes and 8). A 1,000,000-row int64 column keyed
 * by an int64 id: ~60 MB.
 *
 * What it does not do: open or change the table itself (evolve.h does, under
 * the table lock, and calls back here for values). */
#ifndef IG_IMPORT_COLUMNS_H
#define IG_IMPORT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/ops/evolve.h"
#include "import/import.h"

struct ig_error;

struct ig_column_input {
    const char *path;                    /* the file (the first of paths) */
    /* keyed files: several files (a directory's, the shards of a feature
     * table) read as one, their columns by name as `ingot import` of them
     * reads them (import.h); 0: path alone */
    const char *const *paths;
    size_t npaths;
    const char *name;                    /* .npy: the column's name; a keyed file: the name
                                            of its one value column (NULL: the file's) */
    bool replace;                        /* replace the columns of those names */
    bool retype;                         /* replacing: with the file's types, not the
                                            table's (ig_add_request.retype) */
    bool first;                          /* adding: shown first, or after column */
    const char *after;                   /* `after` (ig_add_request.first, .after) */
    const struct ig_writer_opts *writer; /* NULL: defaults */
    /* keyed files */
    enum ig_input_format format; /* 0: from the name, or the magic */
    const char *schema_path;     /* the file's types (import --schema); NULL: inferred */
    char delimiter;              /* CSV, 0: ',' */
    const char *key;             /* NULL: _rowid, or id (above) */
    bool require_all;            /* every live row must get a value */
    bool ignore_missing;         /* leave out file rows naming no live row */
    /* the table's rows given their values so far (ig_add_request.progress) */
    void (*progress)(void *ctx, uint64_t rows_done, uint64_t rows_total);
    void *progress_ctx;
    /* object storage: the part objects replaced (ig_add_request.replace_progress) */
    void (*replace_progress)(void *ctx, uint64_t done, uint64_t total);
    void *replace_progress_ctx;
};

/* What a keyed file did (zeros for .npy). */
struct ig_column_counts {
    uint64_t input_rows; /* rows of the file */
    uint64_t matched;    /* live rows given a value */
    uint64_t ignored;    /* file rows left out (ignore_missing) */
    uint64_t unmatched;  /* live rows the file does not name: NULL, or kept (update) */
};

/* Add (or replace) columns from in->path: a new version. counts may be NULL. */
int ig_add_column_from(const char *table_dir, const struct ig_column_input *in,
                       struct ig_evolve_report *rep, struct ig_column_counts *counts,
                       struct ig_error *err);

/* Update columns[0..ncolumns) (flat columns of the table, each a column of
 * the file) from a keyed file: a new version in which the rows the file names
 * hold its values and every other row keeps its own. The older versions keep
 * the old values. in->name, in->replace and in->require_all are not used. */
int ig_update_columns_from(const char *table_dir, const struct ig_column_input *in,
                           const char *const *columns, size_t ncolumns,
                           struct ig_evolve_report *rep, struct ig_column_counts *counts,
                           struct ig_error *err);

#endif
