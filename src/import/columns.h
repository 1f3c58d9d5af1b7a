/* columns.h - values for columns added to (or replacing columns of) a table,
 * from files (format/ops/evolve.h commits them).
 *
 *   .npy            one column (a 1-D array, or a 2-D float32 array as a
 *                   vector<float32, D>), row k of the array going to the
 *                   table's k-th live row (live rows in id order): the array
 *                   has exactly as many rows as the table has live rows
 *
 * The column is named by the caller (the CLI: the file's base name unless
 * --name). Added columns are nullable (rows without a value, and rows erased
 * already, are NULL) but for vectors, whose erased rows hold zeros.
 *
 * What it does not do: open or change the table itself (evolve.h does, under
 * the table lock, and calls back here for values). */
#ifndef IG_IMPORT_COLUMNS_H
#define IG_IMPORT_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/ops/evolve.h"

struct ig_error;

struct ig_column_input {
    const char *path;                    /* the file */
    const char *name;                    /* the column's name */
    bool replace;                        /* replace the column of that name */
    const struct ig_writer_opts *writer; /* NULL: defaults */
};

int ig_add_column_from(const char *table_dir, const struct ig_column_input *in,
                       struct ig_evolve_report *rep, struct ig_error *err);

#endif
