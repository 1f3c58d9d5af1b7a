#include "rows.h"
#include "format/layout.h"
#include "format/model/assemble.h"
#include "format/model/render.h"
#include "format/part/columns.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_page_of_row(const struct ig_part *p, uint32_t lg, uint32_t leaf, uint32_t in_group,
                            uint32_t *page, struct ig_pagerec *rec)
{
    uint32_t first, count;
    if (ig_part_chunk(p, lg, leaf, &first, &count, NULL)) return -EIO;
    uint32_t lo = first, hi = first + count; /* last page with first_row <= in_group */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        struct ig_pagerec r;
        if (ig_part_page(p, mid, &r, NULL)) return -EIO;
        if (r.first_row <= in_group)
            lo = mid;
        else
            hi = mid;
    }
    if (ig_part_page(p, lo, rec, NULL) || rec->leaf != leaf || rec->first_row > in_group ||
        in_group - rec->first_row >= rec->row_count)
        return -EIO;
    *page = lo;
    return 0;
}

/* Decoded block b of a page from the cache, reading and decoding only that
 * block on a miss: a row costs one small read per column. */
static int decoded_block(struct fs_session *s, uint32_t pi, uint32_t page,
                         const struct ig_pagerec *rec, uint32_t b, const struct ig_column_ref *ref,
                         uint64_t group_first_row, struct fs_entry **out)
{
    uint64_t k1 = (uint64_t)pi << 32 | page, k2 = KEY_DECODED_BLOCK(b);
    struct fs_entry *e = fs_cache_get(&s->cache, k1, k2);
    if (e) {
        *out = e;
        return 0;
    }
    e = fs_entry_new(k1, k2);
    if (!e || !(e->vals = calloc(1, sizeof *e->vals))) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    ig_values_init(e->vals, ref->rec.type);
    struct fs_scratch *sc = fs_scratch(s);
    if (!sc) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    struct ig_pagerec blk;
    const uint8_t *del;
    struct ig_error err = {0};
    int rc = ig_reader_load_block(&sc->r, &s->table.parts[pi], ref, page, rec, b, group_first_row,
                                  &blk, e->vals, &del, &err);
    if (rc) {
        fs_entry_free(e);
        return fs_page_failed(s, pi, page, err.msg, rc);
    }
    /* the values outlive `ref`: keep the blob directory name with them */
    if (ig_buf_append(&e->data, ref->blob_dir, strlen(ref->blob_dir) + 1)) {
        fs_entry_free(e);
        return -ENOMEM;
    }
    e->vals->blob_dir = (const char *)e->data.data;
    if (del) {
        size_t nb = (blk.row_count + 7) / 8;
        e->deleted = malloc(nb);
        if (!e->deleted) {
            fs_entry_free(e);
            return -ENOMEM;
        }
        memcpy(e->deleted, del, nb);
    }
    *out = fs_cache_put(&s->cache, e);
    return 0;
}

/* Part, group (record) and in-group position of a live row. */
static int locate_row(struct fs_session *s, uint64_t row, uint32_t *pi, uint32_t *g,
                      struct ig_grouprec *gr, uint32_t *in_group)
{
    uint64_t local;
    if (ig_table_row(&s->table, row, pi, &local)) return -ENOENT;
    const struct ig_part *p = &s->table.parts[*pi];
    if (ig_part_row_deleted(p, local)) return -ENOENT;
    uint32_t lo = 0, hi = p->num_groups; /* binary search over group first rows */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ig_part_group(p, mid, gr, NULL)) return -EIO;
        if (gr->first_row <= local)
            lo = mid;
        else
            hi = mid;
    }
    if (ig_part_group(p, lo, gr, NULL) || local < gr->first_row ||
        local - gr->first_row >= gr->row_count)
        return -EIO;
    *g = lo;
    *in_group = (uint32_t)(local - gr->first_row);
    return 0;
}

int fs_row_value(struct fs_session *s, uint32_t col, uint64_t row, struct fs_entry **e,
                 size_t *index)
{
    uint32_t pi, g, in_group, page;
    struct ig_grouprec gr;
    struct ig_pagerec rec;
    struct ig_column_ref ref;
    int rc = locate_row(s, row, &pi, &g, &gr, &in_group);
    if (rc) return rc;
    if (!fs_column_ref(s, col, &ref)) return -EIO;
    const struct ig_part *p = &s->table.parts[pi];
    rc = find_page_of_row(p, g, ref.rec.leaf, in_group, &page, &rec);
    uint32_t b = 0;
    struct ig_pagerec blk;
    if (!rc && ig_part_block_of_row(p, page, &rec, in_group - rec.first_row, &b, &blk, NULL))
        rc = -EIO;
    if (!rc) rc = decoded_block(s, pi, page, &rec, b, &ref, gr.first_row, e);
    if (rc) return rc;
    *index = in_group - rec.first_row - blk.first_row;
    const struct ig_values *v = (*e)->vals;
    if (*index >= (v->levels ? v->rows : v->n)) {
        fs_cache_release(&s->cache, *e);
        return -EIO;
    }
    return 0;
}

/* A nested column's value in one row: its leaves' decoded pages, reassembled. */
static int render_nested_value(struct fs_session *s, const struct ig_column_ref *top, uint64_t row,
                               struct ig_buf *out)
{
    struct ig_tree tree;
    struct ig_error err = {0};
    int rc = ig_tree_from_part(&s->table.parts[0], top->col, UINT32_MAX, &tree, &err);
    if (rc) return -EIO;
    struct fs_entry **held = calloc(tree.nleaves, sizeof *held);
    struct ig_values **vp = calloc(tree.nleaves, sizeof *vp);
    size_t index = 0;
    rc = held && vp ? 0 : -ENOMEM;
    for (uint32_t l = 0; l < tree.nleaves && !rc; l++) {
        uint32_t col;
        size_t i = 0;
        rc = ig_part_leaf_column(&s->table.parts[0], tree.leaf_global[l], &col, NULL) ? -EIO : 0;
        if (!rc) rc = fs_row_value(s, col, row, &held[l], &i);
        if (!rc) vp[l] = held[l]->vals;
        if (!rc && l > 0 && i != index) rc = -EIO; /* leaves page in lockstep */
        index = i;
    }
    if (!rc) rc = ig_assemble_row(&tree, vp, index, out, &err) ? -EIO : 0;
    if (rc == -EIO) {
        char msg[600];
        snprintf(msg, sizeof msg, "row %llu, column '%.*s': %s", (unsigned long long)row,
                 (int)top->rec.name_len, top->rec.name, err.msg[0] ? err.msg : "leaves disagree");
        fs_log_page_error(s, 0x7FFFFFFFu, (uint32_t)row, msg);
    }
    for (uint32_t l = 0; held && l < tree.nleaves; l++)
        fs_cache_release(&s->cache, held[l]);
    free(held);
    free(vp);
    ig_tree_free(&tree);
    return rc;
}

int fs_row_render(struct fs_session *s, uint64_t row, struct ig_buf *out)
{
    uint32_t pi, g, in_group;
    struct ig_grouprec gr;
    int rc = locate_row(s, row, &pi, &g, &gr, &in_group);
    if (rc) return rc;
    const struct ig_part *p = &s->table.parts[pi];
    rc = ig_buf_append_byte(out, '{');
    bool first = true;
    for (uint32_t c = 0; c < p->num_columns && !rc; c++) {
        struct ig_column_ref ref;
        if (!fs_column_ref(s, c, &ref)) return -EIO;
        if (ref.rec.parent != IG_NONE) continue; /* keys are the top-level columns */
        if (!first) rc = ig_buf_append_byte(out, ',');
        first = false;
        if (!rc) rc = ig_render_json_string(out, (const uint8_t *)ref.rec.name, ref.rec.name_len);
        if (!rc) rc = ig_buf_append_byte(out, ':');
        if (rc) break;
        if (ref.nested) {
            rc = render_nested_value(s, &ref, row, out);
            continue;
        }
        struct fs_entry *e;
        size_t i;
        rc = fs_row_value(s, c, row, &e, &i);
        if (rc) return rc;
        rc = ig_render_json_value(out, e->vals, i);
        fs_cache_release(&s->cache, e);
    }
    if (!rc) rc = ig_buf_append(out, "}\n", 2);
    return rc;
}
