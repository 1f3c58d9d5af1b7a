/* assemble.h - nested values back from their leaves: record reassembly.
 *
 * A nested column is striped into leaves, each a sequence of (repetition,
 * definition) level entries plus the values of the entries defined down to the
 * leaf (Dremel; the field-striping note's parent-is-UNSET / repeated-parent
 * markers are exactly these levels). Reassembly walks the column's tree with a
 * cursor per leaf, the "tree-based" decoder of the note: the first leaf below a
 * node tells whether the node is null, an empty list or how many elements it
 * has; a null or empty node consumes one entry of every leaf below it. Passing a
 * pruned tree (the path to one leaf) gives the partial reassembly used for
 * projections.
 *
 * The tree is a small array in pre-order (index 0 = the column), built from a
 * schema (writer) or from the footer's column records (readers). */
#ifndef IG_FORMAT_ASSEMBLE_H
#define IG_FORMAT_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "format/model/values.h"

struct ig_error;
struct ig_schema;

struct ig_tree_node {
    uint8_t type;          /* leaf type or IG_T_STRUCT */
    uint8_t lists, null_mask, max_def, quantize;
    uint32_t dimension;
    uint32_t parent;       /* index in the tree, UINT32_MAX for the root */
    uint32_t leaf;         /* leaf ordinal within the tree (0..nleaves-1), or UINT32_MAX */
    uint32_t first_leaf;   /* first leaf ordinal below (itself for a leaf) */
    uint32_t leaf_end;     /* one past the last leaf ordinal below */
    const char *field;     /* the field's own name (JSON key) */
    size_t field_len;
};

struct ig_tree {
    struct ig_tree_node *nodes;
    uint32_t n, nleaves;
    uint32_t *leaf_global; /* global leaf index of each tree leaf */
};

/* The tree of top-level node `top` of a schema; with only != UINT32_MAX (a node
 * index) just the path down to that node and everything below it: the partial
 * reassembly of a projection. */
int ig_tree_from_schema(const struct ig_schema *s, uint32_t top, uint32_t only,
                        struct ig_tree *t, struct ig_error *err);
/* Building a tree node by node (ig_tree_from_schema; ig_tree_from_part in
 * part/columns.h): room for n nodes, then nodes appended in pre-order with
 * their parent's tree index, then the leaf ordinals filled in. */
int ig_tree_init(struct ig_tree *t, uint32_t n);
void ig_tree_finish(struct ig_tree *t);
void ig_tree_free(struct ig_tree *t);

/* Render rows [0, rows) as one JSON value per line, skipping rows whose bit in
 * `deleted` is set. leaves[i] holds tree leaf i's entries for exactly these rows
 * (all leaves cover the same rows). With out == NULL only counts: *len gets the
 * bytes that would be written. -EIO if the levels are inconsistent. */
int ig_assemble_lines(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows,
                      const uint8_t *deleted, struct ig_buf *out, uint64_t *len,
                      struct ig_error *err);
/* ig_assemble_lines's count (out NULL, no row deleted) for a tree whose leaves'
 * values are numbers and never NULL themselves (NULLs only in the levels),
 * when the JSON length of all of them is known (values_len, e.g. summed from a
 * census of the page's distinct values): the levels are walked for the
 * brackets, commas and nulls, and no value is measured. */
int ig_assemble_measure_known(const struct ig_tree *t, struct ig_values *const *leaves, size_t rows,
                              uint64_t values_len, uint64_t *len, struct ig_error *err);

/* One row (index within the leaves' rows) as a JSON value, appended to out. */
int ig_assemble_row(const struct ig_tree *t, struct ig_values *const *leaves, size_t row,
                    struct ig_buf *out, struct ig_error *err);


#endif
