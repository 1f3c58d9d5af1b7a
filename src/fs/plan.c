/* plan.c - how a column's views are laid out: dtype, row spans over pages (plan.h). */
#include "plan.h"
#include "format/layout.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "format/part/columns.h"
#include "util/endian.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed-width NumPy dtype a leaf reads back as (quantised floats: float32). */
static const struct ig_type_info *read_type(const struct ig_column_ref *r)
{
    return ig_type_info(ig_read_type(r->rec.type, r->rec.quantize));
}

/* The NumPy element a leaf's values take: its logical type's (dates and
 * timestamps datetime64, decimals float64), else its read type's; false for
 * none (strings, binary, uuids). */
static bool npy_of(const struct ig_colrec *c, const struct ig_type_info *ti, const char **descr, uint32_t *width)
{
    if (ig_logical_npy(&c->lt, descr, width)) return true;
    if (!ti || !ti->npy) return false;
    *descr = ti->npy;
    *width = ti->width;
    return true;
}

bool fs_plan_view(struct fs_session *s, uint32_t col, enum fs_view v, struct fs_plan *vp)
{
    memset(vp, 0, sizeof *vp);
    if (v == FS_V_PARQUET) return false; /* a row group's file, not a column's (groupfile.c) */
    if (v == FS_V_ROWID) {
        vp->width = 8;
        vp->header = FS_NPY_HEADER;
        vp->descr = "<i8";
        uint32_t c0;
        return ig_part_leaf_column(&s->table.parts[0], 0, &c0, NULL) == 0 &&
               fs_column_ref(s, c0, &vp->ref) && (vp->first_col = c0, true);
    }
    if (!fs_column_ref(s, col, &vp->ref)) return false;
    const struct ig_colrec *c = &vp->ref.rec;
    bool top = c->parent == IG_NONE, leaf = c->leaf != IG_NONE;
    const struct ig_type_info *ti = leaf ? read_type(&vp->ref) : NULL;
    const char *npy = NULL;
    uint32_t npy_width = 0;
    bool has_npy = leaf && npy_of(c, ti, &npy, &npy_width);
    vp->piece_leaf = c->leaf;
    vp->first_col = col;
    if (!vp->ref.nested) { /* flat leaves and top-level list<blob> */
        switch (v) {
        case FS_V_TEXT: return true;
        case FS_V_NPY:
            if (!has_npy || c->lists) return false;
            vp->width = npy_width, vp->descr = npy, vp->header = FS_NPY_HEADER;
            return true;
        case FS_V_VALID:
            if (!has_npy || c->lists || !(c->flags & IG_COLF_NULLABLE)) return false;
            vp->width = 1, vp->descr = "|b1", vp->header = FS_NPY_HEADER;
            return true;
        case FS_V_F16:
            if (c->quantize != IG_Q_FP16) return false;
            vp->width = 2, vp->descr = "<f2", vp->header = FS_NPY_HEADER;
            return true;
        default: return false;
        }
    }
    /* nested: the whole column at the top, projections of its leaves */
    if (v == FS_V_TEXT) {
        if (top && !leaf) { /* a struct column: pieces are its first leaf's pages */
            uint32_t k = col + 1;
            struct ig_colrec kr;
            while (k < s->table.parts[0].num_columns &&
                   ig_part_column(&s->table.parts[0], k, &kr, NULL) == 0 && kr.leaf == IG_NONE)
                k++;
            if (ig_part_column(&s->table.parts[0], k, &kr, NULL) || kr.leaf == IG_NONE) return false;
            vp->piece_leaf = kr.leaf;
            vp->first_col = k;
            vp->whole = true;
            return true;
        }
        if (top) vp->whole = true;
        return leaf;
    }
    if (!top || !leaf || !has_npy) return false;
    bool vector = c->dimension > 0 && c->lists == 0;
    bool plain_list = c->lists == 1 && c->dimension == 0 && !(c->null_mask & 2);
    switch (v) {
    case FS_V_NPY:
        if (!vector) return false;
        vp->width = 4 * c->dimension, vp->dim = c->dimension, vp->descr = "<f4";
        vp->header = FS_NPY_HEADER;
        return true;
    case FS_V_VALID:
        if (!vector || !(c->flags & IG_COLF_NULLABLE)) return false;
        vp->width = 1, vp->descr = "|b1", vp->header = FS_NPY_HEADER;
        return true;
    case FS_V_F16:
        if (!vector || c->quantize != IG_Q_FP16) return false;
        vp->width = 2 * c->dimension, vp->dim = c->dimension, vp->descr = "<f2";
        vp->header = FS_NPY_HEADER;
        return true;
    case FS_V_VALUES:
        if (!plain_list) return false;
        vp->width = npy_width, vp->descr = npy, vp->per_value = true;
        vp->header = FS_NPY_HEADER;
        return true;
    case FS_V_OFFSETS:
        if (!plain_list) return false;
        vp->width = 8, vp->descr = "<i8", vp->header = FS_NPY_HEADER + 8; /* + the leading 0 */
        return true;
    default: return false;
    }
}

bool fs_column_has_view(struct fs_session *s, uint32_t col, enum fs_view v)
{
    struct fs_plan vp;
    return v != FS_V_ROWID && fs_plan_view(s, col, v, &vp);
}

bool fs_plan_keeps_shape(const struct fs_plan *vp, enum fs_view v)
{
    return !vp->whole && !vp->per_value && (v == FS_V_NPY || v == FS_V_VALID || v == FS_V_ROWID ||
                                            v == FS_V_F16);
}

/* Row groups [g0, g1) of a scope in a table of `groups` groups. */
static bool scope_groups(uint32_t groups, uint32_t scope, uint32_t *g0, uint32_t *g1)
{
    if (scope == FS_SCOPE_ALL) {
        *g0 = 0;
        *g1 = groups;
        return true;
    }
    if (scope - 1 >= groups) return false;
    *g0 = scope - 1;
    *g1 = scope;
    return true;
}

int fs_walk_spans(struct fs_session *s, const struct fs_node *n, const struct fs_generation *ver,
                  fs_span_fn fn, void *ctx)
{
    uint32_t g0, g1;
    struct fs_plan vp;
    bool old = ver->deleted != NULL;
    if (!fs_plan_view(s, n->col, n->view, &vp)) return -ENOENT;
    if (old && !fs_plan_keeps_shape(&vp, n->view)) return -ESTALE;
    if (!scope_groups(old ? ver->ngroups : s->table.num_groups, n->scope, &g0, &g1)) return -ENOENT;
    uint32_t leaf = vp.piece_leaf;
    struct fs_span sp = {.start = vp.header};
    uint64_t values_before = 0;
    for (uint32_t g = g0; g < g1; g++) {
        uint32_t pi, lg, first, count;
        struct ig_grouprec gr;
        if (ig_table_group(&s->table, g, &pi, &lg)) return -EIO;
        const struct ig_part *p = &s->table.parts[pi];
        if (ig_part_group(p, lg, &gr, NULL) || ig_part_chunk(p, lg, leaf, &first, &count, NULL))
            return -EIO;
        uint32_t expected = 0;
        for (uint32_t pg = first; pg < first + count; pg++) {
            struct ig_pagerec rec;
            struct ig_pagex px;
            if (ig_part_page(p, pg, &rec, NULL) || ig_part_page_extra(p, pg, &px, NULL) ||
                ig_chunk_page_check(p, pg, &rec, leaf, expected, gr.row_count, NULL))
                return -EIO;
            expected += rec.row_count;
            uint64_t deleted = old ? fs_generation_deleted_count(ver, &s->table, pi,
                                                              gr.first_row + rec.first_row,
                                                              rec.row_count)
                                   : rec.deleted;
            uint64_t live = rec.row_count - deleted, len;
            if (n->view == FS_V_TEXT)
                len = vp.whole ? px.node_text_len : rec.text_len;
            else
                len = (vp.per_value ? px.live_values : live) * vp.width;
            sp.part = pi;
            sp.page = pg;
            sp.page_index = pg - first;
            sp.group = g;
            sp.group_first_row = gr.first_row;
            sp.values_before = values_before;
            int rc = fn(ctx, &sp, len);
            if (rc) return rc;
            sp.start += len;
            values_before += px.live_values;
        }
    }
    return 0;
}

int fs_add_len(void *ctx, const struct fs_span *sp, uint64_t len)
{
    (void)sp;
    *(uint64_t *)ctx += len;
    return 0;
}

/* The 128-byte NumPy 1.0 header: magic, version, header length, dict, padding.
 * dim > 0 makes a 2-D array (count, dim). */
void fs_npy_header(uint8_t *h, const char *descr, uint64_t count, uint32_t dim)
{
    char dict[FS_NPY_HEADER];
    char shape[48];
    if (dim)
        snprintf(shape, sizeof shape, "(%" PRIu64 ", %u)", count, dim);
    else
        snprintf(shape, sizeof shape, "(%" PRIu64 ",)", count);
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     descr, shape);
    memcpy(h, "\x93NUMPY\x01\x00", 8);
    ig_st16(h + 8, FS_NPY_HEADER - 10);
    memset(h + 10, ' ', FS_NPY_HEADER - 10);
    memcpy(h + 10, dict, (size_t)n);
    h[FS_NPY_HEADER - 1] = '\n';
}

int fs_push_span(void *ctx, const struct fs_span *sp, uint64_t len)
{
    (void)len;
    struct fs_span_list *l = ctx;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        void *p = realloc(l->v, cap * sizeof *l->v);
        if (!p) return -ENOMEM;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = *sp;
    return 0;
}
