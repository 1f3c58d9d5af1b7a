#include "format/ops/nested.h"
#include "format/part/columns.h"
#include "format/layout.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ig_nested_open(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t col,
                   struct ig_error *err)
{
    memset(nr, 0, sizeof *nr);
    struct ig_column_ref top;
    int rc = ig_table_column_at(t, col, &top, err);
    if (rc) return rc;
    rc = ig_tree_from_part(&t->parts[0], top.top, col == top.top ? UINT32_MAX : col, &nr->tree, err);
    if (rc) return rc;
    uint32_t n = nr->tree.nleaves ? nr->tree.nleaves : 1;
    nr->refs = calloc(n, sizeof *nr->refs);
    nr->readers = calloc(n, sizeof *nr->readers);
    nr->vals = calloc(n, sizeof *nr->vals);
    nr->vp = calloc(n, sizeof *nr->vp);
    if (!nr->refs || !nr->readers || !nr->vals || !nr->vp) {
        ig_nested_close(nr);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    for (uint32_t l = 0; l < nr->tree.nleaves && !rc; l++) {
        uint32_t lc;
        rc = ig_part_leaf_column(&t->parts[0], nr->tree.leaf_global[l], &lc, err);
        if (!rc) rc = ig_table_column_at(t, lc, &nr->refs[l], err);
        ig_values_init(&nr->vals[l], nr->refs[l].rec.type);
        nr->vp[l] = &nr->vals[l];
    }
    if (!rc && nr->tree.nleaves == 0) rc = ig_err(err, -EIO, "column %u has no leaves", col);
    if (rc) ig_nested_close(nr);
    return rc;
}

void ig_nested_close(struct ig_nested_reader *nr)
{
    for (uint32_t l = 0; l < nr->tree.nleaves; l++) {
        if (nr->readers) ig_reader_free(&nr->readers[l]);
        if (nr->vals) ig_values_free(&nr->vals[l]);
    }
    free(nr->refs);
    free(nr->readers);
    free(nr->vals);
    free(nr->vp);
    ig_buf_free(&nr->deleted);
    ig_tree_free(&nr->tree);
    memset(nr, 0, sizeof *nr);
}

int ig_nested_pages(struct ig_nested_reader *nr, const struct ig_table *t, uint32_t g,
                    uint32_t *count, struct ig_error *err)
{
    uint32_t pi, lg, first;
    if (ig_table_group(t, g, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", g);
    return ig_part_chunk(&t->parts[pi], lg, nr->refs[0].rec.leaf, &first, count, err);
}

/* Keep the loaded rows' deletion bits (the reader's are overwritten by the next leaf's load). */
static int keep_deleted(struct ig_nested_reader *nr, struct ig_nested_page *np, const uint8_t *del, struct ig_error *err)
{
    ig_buf_reset(&nr->deleted);
    if (del && ig_buf_append(&nr->deleted, del, (np->rec.row_count + 7) / 8)) return ig_err(err, -ENOMEM, "out of memory");
    np->deleted = del ? nr->deleted.data : NULL;
    return 0;
}

/* Every leaf's page np->index, whole. */
static int load_pages(struct ig_nested_reader *nr, const struct ig_table *t, struct ig_nested_page *np,
                      struct ig_error *err)
{
    uint32_t pi, lg, i = np->index;
    if (ig_table_group(t, np->group, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", np->group);
    const struct ig_part *p = &t->parts[pi];
    struct ig_grouprec gr;
    int rc = ig_part_group(p, lg, &gr, err);
    np->deleted = NULL;
    for (uint32_t l = 0; l < nr->tree.nleaves && !rc; l++) {
        uint32_t first, count;
        rc = ig_part_chunk(p, lg, nr->refs[l].rec.leaf, &first, &count, err);
        if (!rc && i >= count)
            rc = ig_err(err, -EIO, "%s: corrupt footer: leaves of column '%.*s' page differently",
                        p->path, (int)nr->refs[l].rec.name_len, nr->refs[l].rec.name);
        struct ig_pagerec r;
        const uint8_t *del;
        struct ig_page_at at = {p, &nr->refs[l], first + i, gr.first_row};
        if (!rc) rc = ig_reader_load(&nr->readers[l], &at, &r, &nr->vals[l], &del, err);
        if (rc) break;
        if (l == 0) {
            np->rec = r;
            np->rows = r.row_count;
            rc = keep_deleted(nr, np, del, err);
        } else if (r.first_row != np->rec.first_row || r.row_count != np->rec.row_count) {
            rc = ig_err(err, -EIO, "%s: corrupt footer: leaves of a nested column cover different rows",
                        p->path);
        }
        if (!rc && nr->vals[l].levels && nr->vals[l].rows != np->rows)
            rc = ig_err(err, -EIO, "%s: page %u: rows disagree", p->path, first + i);
    }
    return rc;
}

int ig_nested_load(struct ig_nested_reader *nr, const struct ig_table *t, struct ig_nested_page *np,
                   struct ig_error *err)
{
    np->picked = false;
    uint32_t pi, lg, first, count;
    if (!np->pick || nr->tree.nleaves != 1 || !nr->refs[0].li.slide_ok || ig_table_group(t, np->group, &pi, &lg))
        return load_pages(nr, t, np, err);
    const struct ig_part *p = &t->parts[pi];
    struct ig_grouprec gr;
    struct ig_pagerec r;
    int rc = ig_part_group(p, lg, &gr, err);
    if (!rc) rc = ig_part_chunk(p, lg, nr->refs[0].rec.leaf, &first, &count, err);
    if (!rc && np->index >= count) rc = ig_err(err, -EIO, "%s: no page %u in the chunk", p->path, np->index);
    if (!rc) rc = ig_part_page(p, first + np->index, &r, err);
    if (rc) return rc;
    if (!ig_reader_rows_alone(&nr->refs[0], &r) || r.nblocks > 1) return load_pages(nr, t, np, err);
    struct ig_block_load bl = {.rec = &r, .block = 0, .pick = np->pick};
    struct ig_page_at at = {p, &nr->refs[0], first + np->index, gr.first_row};
    rc = ig_reader_load_block(&nr->readers[0], &at, &bl, &nr->vals[0], err);
    if (rc) return rc;
    np->rec = r;
    np->rows = r.row_count;
    rc = keep_deleted(nr, np, bl.deleted, err);
    np->picked = nr->vals[0].rows != r.row_count; /* an older part's page comes whole */
    return rc;
}
