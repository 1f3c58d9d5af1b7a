/* columns.h - the column record (64 bytes, layout.h) written and read side by side.
 *
 * The writer stores one record per schema node with ig_colrec_store; readers
 * decode and bounds-check a record with ig_part_column (declared in footer.h with
 * the other record accessors). Both live in columns.c, so a field added to one
 * is added to the other. Above them: a part's columns back as a schema (append,
 * verify) or as the tree that reassembles one nested column (readers). */
#ifndef IG_FORMAT_PART_COLUMNS_H
#define IG_FORMAT_PART_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/schema.h"
#include "format/part/footer.h"

struct ig_error;

/* The record of schema node cd, whose name starts at name_off in the names
 * section, with the column's effective target page size. */
void ig_colrec_store(uint8_t r[IG_COL_SIZE], const struct ig_column_def *cd, uint32_t name_off,
                     uint32_t page_size);

/* One past the last column id of top-level column `top`'s subtree (itself and
 * its struct children, which follow it in pre-order). */
uint32_t ig_part_column_span_end(const struct ig_part *p, uint32_t top);

/* Has `ingot gc` released the pages of column record `col` (a leaf's, or a
 * struct's first leaf's below it: a column's leaves go together)? */
bool ig_part_column_released(const struct ig_part *p, uint32_t col);

/* Rebuild the schema from a part's column records (named as the opened
 * version names them). */
int ig_schema_from_part(const struct ig_part *p, struct ig_schema *s, struct ig_error *err);
/* The same named as the footer stores them: the schema a part written beside
 * it must have (its schema hash covers the names). Names may repeat there
 * (s->names_repeat). */
int ig_schema_from_part_stored(const struct ig_part *p, struct ig_schema *s, struct ig_error *err);
/* Every record, those `shows` accepts named as the opened version names them,
 * the others (and their fields) under a name no input gives: DEL (0x7f) and
 * the top-level record's id, then the field's path ("\x7f5", "\x7f5.a"). The
 * schema an append reads its input by: what no version of the new part shows
 * gets NULL (ig_schema_from_part_stored names them for the footer). */
int ig_schema_from_part_hiding(const struct ig_part *p, bool (*shows)(void *ctx, uint32_t col), void *ctx,
                               struct ig_schema *s, struct ig_error *err);
/* The same for the records `keep` accepts (and their children): a version's
 * columns, where a replaced column's record repeats a name. Node indices then
 * differ from column ids. With next_top, the top-level records it gives, in
 * its order (each with its fields; NULL: every record by id): the order a
 * version shows its columns in. */
int ig_schema_from_part_where(const struct ig_part *p, bool (*keep)(void *ctx, uint32_t col),
                              bool (*next_top)(void *ctx, uint32_t *top), void *ctx, struct ig_schema *s,
                              struct ig_error *err);

/* The reassembly tree of top-level column `top_col` from the part's records;
 * with only != UINT32_MAX (a column id) just the path to that node and what is
 * below it (the partial reassembly of a projection). */
int ig_tree_from_part(const struct ig_part *p, uint32_t top_col, uint32_t only,
                      struct ig_tree *t, struct ig_error *err);

#endif
