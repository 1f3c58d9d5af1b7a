/* nested.h - reading a nested column: its leaves' pages in lockstep.
 *
 * The writer cuts every leaf of a nested column at the same rows, so page i of
 * each leaf's chunk covers the same rows: loading page i of every leaf below a
 * node gives all that reassembly needs for those rows, and nothing else is read
 * (a node below the top reads only its own leaves). */
#ifndef IG_FORMAT_NESTED_H
#define IG_FORMAT_NESTED_H

#include <stdint.h>

#include "format/model/assemble.h"
#include "format/ops/reader.h"

struct ig_nested_reader {
    struct ig_tree tree;
    struct ig_column_ref *refs; /* per tree leaf */
    struct ig_reader *readers;
    struct ig_values *vals;
    struct ig_values **vp;
    struct ig_buf deleted;      /* deletion bits of the loaded rows */
};

/* For column id `col` (any node of a nested column). */
int ig_nested_open(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t col,
                   struct ig_error *err);
void ig_nested_close(struct ig_nested_reader *nr);

/* Pages in the chunk of global row group g (the same for every leaf). */
int ig_nested_pages(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t g,
                    uint32_t *count, struct ig_error *err);
/* Load page i of the chunks of group g for every leaf. *rows and *deleted (or
 * NULL when none) describe the rows; *rec gets the first leaf's page record. */
int ig_nested_load(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t g, uint32_t i,
                   struct ig_pagerec *rec, size_t *rows, const uint8_t **deleted,
                   struct ig_error *err);
/* ig_nested_load of only the page's rows set in pick when the column is one
 * leaf whose page decodes a row alone (a sliding-window page, which can span
 * its row group): then *picked is true and the values hold those rows, in
 * order. Else the whole page, as ig_nested_load (*picked false). */
int ig_nested_load_picked(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t g, uint32_t i,
                          const uint8_t *pick, struct ig_pagerec *rec, size_t *rows, const uint8_t **deleted,
                          bool *picked, struct ig_error *err);

#endif
