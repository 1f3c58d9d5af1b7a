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
/* Which page of a nested column to load, and what the load found. */
struct ig_nested_page {
    uint32_t group;         /* global row group */
    uint32_t index;         /* page index within the group's chunk (the same for every leaf) */
    /* NULL: the whole page. Else the page's rows wanted: when the column is one
     * leaf whose page decodes a row alone (a sliding-window page, which can span
     * its row group), only those rows are decoded, in order (picked true);
     * otherwise the whole page all the same (picked false). */
    const uint8_t *pick;
    struct ig_pagerec rec;  /* out: the first leaf's page record */
    size_t rows;            /* out: the page's rows */
    const uint8_t *deleted; /* out: their deletion bits, NULL when none is set */
    bool picked;            /* out: the values hold the picked rows only */
};

/* Load page np->index of the chunks of group np->group for every leaf. */
int ig_nested_load(struct ig_nested_reader *nr, const struct ig_table *t, struct ig_nested_page *np,
                   struct ig_error *err);

#endif
