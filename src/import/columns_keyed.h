/* columns_keyed.h - columns from a file whose rows name table rows by a key
 * (columns.h describes what it does; columns.c calls it for every file that
 * is not a .npy array). */
#ifndef IG_IMPORT_COLUMNS_KEYED_H
#define IG_IMPORT_COLUMNS_KEYED_H

#include <stddef.h>

#include "import/columns.h"

enum ig_keyed_mode {
    IG_KEYED_ADD,     /* every column of the file but the key: new columns */
    IG_KEYED_REPLACE, /* the same, each replacing the table's column of its name */
    IG_KEYED_UPDATE,  /* the named columns: the file's rows over the old values */
};

int ig_keyed_columns(const char *table_dir, const struct ig_column_input *in,
                     enum ig_keyed_mode mode, const char *const *columns, size_t ncolumns,
                     struct ig_evolve_report *rep, struct ig_column_counts *counts,
                     struct ig_error *err);

#endif
