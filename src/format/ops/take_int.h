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
    struct ig_column_ref ref;
    struct ig_tree tree; /* nested only */
    struct ig_column_ref *leaves;
};

/* Let go of what sh holds (it then holds nothing; a zeroed shape is empty). */
void ig_column_shape_clear(struct ig_column_shape *sh);

#endif
