/* take_int.h - what the files of rows by id share and callers do not see
 * (take.c renders a column's rows, take_handle.c keeps a column's shape
 * between them). */
#ifndef IG_FORMAT_TAKE_INT_H
#define IG_FORMAT_TAKE_INT_H

#include "format/model/assemble.h"
#include "format/ops/take.h"

/* What a row read of column `col` decodes from the footer before any block:
 * its reference and, for a nested column (or a node inside one), the tree it
 * reassembles and its leaves' references. */
struct ig_column_shape {
    const struct ig_table *t; /* NULL: holds nothing */
    uint32_t col;
    bool nested; /* tree and leaves are the column's */
    struct ig_column_ref ref;
    struct ig_tree tree;
    /* room for leaves_cap references, kept from column to column: a row of
     * many columns read in turn (cat --rows) changes the shape every column */
    struct ig_column_ref *leaves;
    uint32_t leaves_cap;
};

/* Let go of everything sh holds (a zeroed shape is empty). */
void ig_column_shape_free(struct ig_column_shape *sh);

#endif
