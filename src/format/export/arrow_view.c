/* arrow_view.c - a row group as an Arrow IPC file (see arrow_view.h): the
 * layout, pages counted and the body's pieces, buffers and nodes; the
 * metadata around them is arrow_meta.c's (arrow_view_int.h). */
#include "arrow_view_int.h"

#include "format/layout.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the body: pieces, buffers and nodes -------------------------------- */

struct body {
    struct ig_arv_piece *pc;
    uint8_t level; /* the list level of the pieces made now (lists of lists) */
    uint32_t n, cap;
    uint64_t at, buf_start;
    uint64_t (*nodes)[2], (*bufs)[2];
    uint32_t nn, nb, ncap, bcap;
    int err;
};

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t size, int *err)
{
    if (need <= *cap) return p;
    uint32_t c = *cap ? *cap * 2 : 64;
    while (c < need) c *= 2;
    void *q = realloc(p, (size_t)c * size);
    if (!q) {
        *err = -ENOMEM;
        return p;
    }
    *cap = c;
    return q;
}

static void piece(struct body *b, uint8_t kind, const struct acol *a, uint32_t page, uint64_t len, uint64_t base)
{
    if (!len || b->err) return;
    b->pc = grow(b->pc, &b->cap, b->n + 1, sizeof *b->pc, &b->err);
    if (b->err) return;
    b->pc[b->n++] = (struct ig_arv_piece){.start = b->at, .len = len, .base = base, .col = a ? a->col : 0,
                                          .page = page, .npages = a ? a->count : 0, .kind = kind,
                                          .width = a ? a->width : 0, .level = b->level};
    if (kind == IG_ARV_END) ig_st32(b->pc[b->n - 1].bytes, (uint32_t)base);
    b->at += len;
}

static void node(struct body *b, uint64_t length, uint64_t nulls)
{
    b->nodes = grow(b->nodes, &b->ncap, b->nn + 1, sizeof *b->nodes, &b->err);
    if (b->err) return;
    b->nodes[b->nn][0] = length;
    b->nodes[b->nn++][1] = nulls;
}

static void buffer_end(struct body *b)
{
    b->bufs = grow(b->bufs, &b->bcap, b->nb + 1, sizeof *b->bufs, &b->err);
    if (b->err) return;
    b->bufs[b->nb][0] = b->buf_start;
    b->bufs[b->nb++][1] = b->at - b->buf_start;
    piece(b, IG_ARV_ZERO, NULL, 0, (8 - b->at % 8) % 8, 0);
    b->buf_start = b->at;
}

/* A bitmap buffer of n bits, or an empty one when nothing is NULL. */
static void bitmap(struct body *b, uint8_t kind, const struct acol *a, uint64_t n, bool present)
{
    if (present) piece(b, kind, a, a->first, (n + 7) / 8, 0);
    buffer_end(b);
}

/* Values of every page: width bytes per live row, or per element when
 * `elements` (lists); a vector's D lanes each. */
static void values(struct body *b, const struct acol *a, bool elements)
{
    for (uint32_t i = 0; i < a->count; i++) {
        const struct pstat *s = &a->pages[i];
        uint64_t n = elements ? s->elems : s->live;
        piece(b, IG_ARV_FIXED, a, a->first + i, n * a->width * (a->c.dimension ? a->c.dimension : 1), 0);
    }
    buffer_end(b);
}

/* Offsets of every page (in bytes or elements), then the closing one. */
static void offsets(struct body *b, const struct acol *a)
{
    uint64_t base = 0;
    for (uint32_t i = 0; i < a->count; i++) {
        const struct pstat *s = &a->pages[i];
        piece(b, IG_ARV_OFFSETS, a, a->first + i, s->live * 4, base);
        base += a->shape == IG_ARV_LIST || a->shape == IG_ARV_BLOB_LIST ? s->elems : s->bytes;
    }
    piece(b, IG_ARV_END, a, a->first, 4, base);
    buffer_end(b);
}

/* A list column's offsets at level k: one per level-k list (a row at level
 * 0) into the next level's items (lists, or the elements). */
static void level_offsets(struct body *b, const struct acol *a, unsigned k)
{
    uint64_t base = 0;
    b->level = (uint8_t)k;
    for (uint32_t i = 0; i < a->count; i++) {
        const struct pstat *s = &a->pages[i];
        piece(b, k ? IG_ARV_LEVEL_OFFSETS : IG_ARV_OFFSETS, a, a->first + i, (k ? s->slots[k] : s->live) * 4, base);
        base += k + 1 < a->nlists ? s->slots[k + 1] : s->elems;
    }
    piece(b, IG_ARV_END, a, a->first, 4, base);
    b->level = 0;
    buffer_end(b);
}

/* Every page's string bytes, one buffer. */
static void bytes_buffer(struct body *b, const struct acol *a)
{
    for (uint32_t i = 0; i < a->count; i++)
        piece(b, IG_ARV_BYTES, a, a->first + i, a->pages[i].bytes, 0);
    buffer_end(b);
}

/* Elements' strings (a list's, a list of objects' paths): their offsets page
 * by page and the closing one, then their bytes. */
static void element_strings(struct body *b, const struct acol *a)
{
    uint64_t base = 0;
    for (uint32_t i = 0; i < a->count; i++) {
        piece(b, IG_ARV_ELEM_OFFSETS, a, a->first + i, a->pages[i].elems * 4, base);
        base += a->pages[i].bytes;
    }
    piece(b, IG_ARV_END, a, a->first, 4, base);
    buffer_end(b);
    bytes_buffer(b, a);
}

/* A list's elements (or a list of structs' member): node, validity, values. */
static void list_elements(struct body *b, const struct acol *a)
{
    node(b, a->sum.elems, a->sum.elem_nulls);
    bitmap(b, IG_ARV_ELEM_VALID, a, a->sum.elems, a->sum.elem_nulls > 0);
    if (a->shape == IG_ARV_BLOB_LIST) { /* objects: Struct<path, size>, both NULL where the element is */
        node(b, a->sum.elems, a->sum.elem_nulls);
        bitmap(b, IG_ARV_ELEM_VALID, a, a->sum.elems, a->sum.elem_nulls > 0);
        element_strings(b, a);
        node(b, a->sum.elems, a->sum.elem_nulls);
        bitmap(b, IG_ARV_ELEM_VALID, a, a->sum.elems, a->sum.elem_nulls > 0);
        values(b, a, true);
    } else if (a->c.dimension) { /* vectors: their D floats each (zeros for a NULL one), never NULL */
        node(b, a->sum.elems * a->c.dimension, 0);
        bitmap(b, IG_ARV_ELEM_VALID, a, 0, false);
        values(b, a, true);
    } else if (a->width) {
        values(b, a, true);
    } else if (a->tt == AT_BOOL) {
        bitmap(b, IG_ARV_ELEM_BOOL, a, a->sum.elems, true);
    } else {
        element_strings(b, a);
    }
}

/* A list's levels from 1 on (lists of lists; a list in each struct slot of a
 * list of structs), each a node, its validity and offsets, then its elements. */
static void inner_lists(struct body *b, const struct acol *a)
{
    for (unsigned k = 1; k < a->nlists; k++) {
        node(b, a->sum.slots[k], a->sum.slot_nulls[k]);
        b->level = (uint8_t)k;
        bitmap(b, IG_ARV_LEVEL_VALID, a, a->sum.slots[k], a->sum.slot_nulls[k] > 0);
        b->level = 0;
        level_offsets(b, a, k);
    }
    list_elements(b, a);
}

/* A list of structs' member: its values a slot (a struct in each slot: its
 * node and validity from its first leaf, then its members). */
static void slot_member_body(struct body *b, const struct acol *m)
{
    if (m->shape != IG_ARV_STRUCT) {
        inner_lists(b, m);
        return;
    }
    node(b, m->sum.elems, m->sum.struct_nulls);
    b->level = m->present_def;
    bitmap(b, IG_ARV_SLOT_STRUCT_VALID, arv_first_leaf(m), m->sum.elems, m->sum.struct_nulls > 0);
    b->level = 0;
    for (uint32_t k = 0; k < m->nkids; k++) slot_member_body(b, &m->kids[k]);
}

/* Buffer `buf` of a tree column's array k: one piece over the whole chunk
 * (none when empty), then the buffer's end. */
static void tree_buffer(struct body *b, const struct acol *a, uint32_t k, unsigned buf)
{
    const struct tree_array *x = &a->tree->a[k];
    uint32_t n = b->n;
    b->level = (uint8_t)k;
    piece(b, IG_ARV_TREE_BUF, a, x->first_page, arv_tree_buffer_len(x, buf), 0);
    b->level = 0;
    if (b->n > n) {
        b->pc[n].width = (uint8_t)buf;
        b->pc[n].npages = x->npages;
    }
    buffer_end(b);
}

static void column_body(struct body *b, const struct acol *a)
{
    if (a->shape == IG_ARV_TREE) { /* each array: its node and buffers, pre-order */
        for (uint32_t k = 0; k < a->tree->n; k++) {
            const struct tree_array *x = &a->tree->a[k];
            node(b, x->items, x->nulls);
            tree_buffer(b, a, k, TREE_BUF_VALID);
            if (x->kind != TREE_STRUCT && x->kind != TREE_VECTOR) tree_buffer(b, a, k, TREE_BUF_MAIN);
            if (x->kind == TREE_VALUE && !x->width && x->tt != AT_BOOL) tree_buffer(b, a, k, TREE_BUF_BYTES);
        }
        return;
    }
    if (a->shape == IG_ARV_LIST_STRUCT) { /* the list and the structs from the first member, then each member */
        const struct acol *m0 = arv_first_leaf(a);
        node(b, a->sum.live, a->sum.nulls);
        bitmap(b, IG_ARV_VALID, m0, a->sum.live, a->sum.nulls > 0);
        level_offsets(b, m0, 0);
        node(b, a->sum.elems, a->sum.struct_nulls);
        bitmap(b, IG_ARV_SLOT_STRUCT_VALID, m0, a->sum.elems, a->sum.struct_nulls > 0);
        for (uint32_t k = 0; k < a->nkids; k++) slot_member_body(b, &a->kids[k]);
        return;
    }
    if (a->shape == IG_ARV_BLOB) { /* a struct of path and size, one validity for the three */
        node(b, a->sum.live, a->sum.nulls);
        bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
        node(b, a->sum.live, a->sum.nulls); /* path: offsets and bytes */
        bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
        offsets(b, a);
        bytes_buffer(b, a);
        node(b, a->sum.live, a->sum.nulls); /* size: int64 */
        bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
        values(b, a, false);
        return;
    }
    if (a->shape == IG_ARV_JSON) { /* Utf8: validity, offsets, the rows' JSON */
        node(b, a->sum.live, a->sum.nulls);
        bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
        offsets(b, a);
        bytes_buffer(b, a);
        return;
    }
    if (a->shape == IG_ARV_BLOB_LIST) { /* rows' offsets into the objects, then (path, size) per object */
        node(b, a->sum.live, a->sum.nulls);
        bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
        offsets(b, a);
        list_elements(b, a); /* (path, size) per object */
        return;
    }
    if (a->shape == IG_ARV_STRUCT) { /* its validity from its first leaf's levels, then the members */
        node(b, a->sum.live, a->sum.nulls);
        b->level = a->present_def;
        bitmap(b, IG_ARV_STRUCT_VALID, arv_first_leaf(a), a->sum.live, a->sum.nulls > 0);
        b->level = 0;
        for (uint32_t k = 0; k < a->nkids; k++) column_body(b, &a->kids[k]);
        return;
    }
    node(b, a->sum.live, a->sum.nulls);
    bitmap(b, IG_ARV_VALID, a, a->sum.live, a->sum.nulls > 0);
    switch (a->shape) {
    case IG_ARV_FLAT:
    case IG_ARV_MEMBER:
        if (a->tt == AT_BOOL) {
            bitmap(b, IG_ARV_BOOL, a, a->sum.live, true);
        } else if (a->width) {
            values(b, a, false);
        } else {
            offsets(b, a);
            bytes_buffer(b, a);
        }
        break;
    case IG_ARV_VECTOR:
        node(b, a->sum.elems, 0);
        bitmap(b, IG_ARV_ELEM_VALID, a, 0, false);
        values(b, a, false);
        break;
    case IG_ARV_LIST:
        level_offsets(b, a, 0);
        inner_lists(b, a);
        break;
    }
}

/* ---- the layout ------------------------------------------------------------ */

static void cols_free(struct acol *cols, uint32_t n)
{
    for (uint32_t i = 0; cols && i < n; i++) {
        free(cols[i].pages);
        free(cols[i].tree);
        cols_free(cols[i].kids, cols[i].nkids);
    }
    free(cols);
}

/* a's pages: the chunk of leaf `leaf` in part-local group lg, a count each. */
static int chunk_pages(const struct ig_part *p, uint32_t lg, uint32_t leaf, struct acol *a, struct ig_error *err)
{
    int rc = ig_part_chunk(p, lg, leaf, &a->first, &a->count, err);
    if (!rc && !(a->pages = calloc(a->count ? a->count : 1, sizeof *a->pages)))
        rc = ig_err(err, -ENOMEM, "out of memory");
    return rc;
}

/* Page i of a's chunk (of leaf `leaf`): its record, checked to follow the
 * *rows_before rows of the pages before it in a group of group_rows
 * (advanced past it). */
static int chunk_page(const struct ig_part *p, const struct acol *a, uint32_t leaf, uint32_t i, uint32_t group_rows,
                      uint32_t *rows_before, struct ig_pagerec *rec, struct ig_error *err)
{
    int rc = ig_part_page(p, a->first + i, rec, err);
    if (!rc) rc = ig_chunk_page_check(p, a->first + i, rec, leaf, *rows_before, group_rows, err);
    if (!rc) *rows_before += rec->row_count;
    return rc;
}

/* The chunk's pages of a, counted (decoding those that must be). */
static int count_column(const struct ig_table *t, const struct ig_arv *out, struct acol *a, uint32_t lg,
                        uint32_t group_rows, struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[out->part];
    int rc = chunk_pages(p, lg, a->c.leaf, a, err);
    if (rc) return rc;
    uint32_t rows_before = 0;
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    for (uint32_t i = 0; !rc && i < a->count; i++) {
        uint32_t page = a->first + i;
        struct ig_pagerec rec;
        if ((rc = chunk_page(p, a, a->c.leaf, i, group_rows, &rows_before, &rec, err))) break;
        struct pstat *s = &a->pages[i];
        if (rec.row_count == rec.deleted) continue;
        if (arv_needs_counts(a, &rec)) {
            rc = arv_load(t, out->part, out->group_first_row, a->col, page, r, &pg, err);
            if (!rc) arv_page_counts(a, &pg, s);
        } else {
            s->live = rec.row_count - rec.deleted;
            s->elems = a->shape == IG_ARV_VECTOR ? s->live * a->c.dimension : 0;
        }
        a->sum.live += s->live, a->sum.nulls += s->nulls, a->sum.elems += s->elems;
        a->sum.elem_nulls += s->elem_nulls, a->sum.bytes += s->bytes, a->sum.struct_nulls += s->struct_nulls;
        for (unsigned k = 1; k < AV_MAX_LISTS; k++) a->sum.slots[k] += s->slots[k], a->sum.slot_nulls[k] += s->slot_nulls[k];
        for (unsigned d = 0; d < AV_DEFS; d++) a->sum.row_defs[d] += s->row_defs[d], a->sum.slot_defs[d] += s->slot_defs[d];
    }
    ig_values_free(&pg.v);
    bool slots_over = false;
    for (unsigned k = 1; k < AV_MAX_LISTS; k++) slots_over |= a->sum.slots[k] > INT32_MAX;
    if (!rc && (a->sum.bytes > INT32_MAX || slots_over ||
                ((a->shape == IG_ARV_LIST || a->shape == IG_ARV_BLOB_LIST) && a->sum.elems > INT32_MAX)))
        rc = ig_err(err, -EFBIG, "%s: column '%.*s' of row group %u: too large for Arrow's 32-bit offsets", p->path,
                    (int)a->c.name_len, a->c.name, out->group);
    return rc;
}

/* A column shown as a tree of arrays: each array counted from its leaf's
 * pages; its rows and NULL ones are the outermost array's. */
static int count_tree(const struct ig_table *t, const struct ig_arv *out, struct acol *a, uint32_t lg,
                      struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[out->part];
    if (!(a->tree = malloc(sizeof *a->tree))) return ig_err(err, -ENOMEM, "out of memory");
    if (!arv_tree_build(p, a->col, &a->c, a->tree))
        return ig_err(err, -EIO, "%s: column '%.*s' has no Arrow form", p->path, (int)a->c.name_len, a->c.name);
    int rc = arv_tree_count(t, out, lg, a->tree, r, err);
    if (rc) return rc;
    a->sum.live = a->tree->a[0].items;
    a->sum.nulls = a->tree->a[0].nulls;
    return 0;
}

/* A column shown as its rows' JSON: its first leaf's pages, each page's live
 * rows and NULL ones (from the leaf's levels, decoded only when the column may
 * be NULL) and its JSON bytes: the footer's text length of the column's rows
 * there (a line each) less a newline each and "null" each NULL row. */
static int count_json(const struct ig_table *t, const struct ig_arv *out, struct acol *a, uint32_t lg,
                      uint32_t group_rows, struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[out->part];
    struct ig_colrec leaf;
    int rc = ig_part_column(p, a->leaf_col, &leaf, err);
    if (!rc) rc = chunk_pages(p, lg, leaf.leaf, a, err);
    if (rc) return rc;
    uint32_t rows_before = 0;
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    for (uint32_t i = 0; !rc && i < a->count; i++) {
        uint32_t page = a->first + i;
        struct ig_pagerec rec;
        struct ig_pagex px;
        rc = chunk_page(p, a, leaf.leaf, i, group_rows, &rows_before, &rec, err);
        if (!rc) rc = ig_part_page_extra(p, page, &px, err);
        if (rc) break;
        struct pstat *s = &a->pages[i];
        if (rec.row_count == rec.deleted) continue;
        s->live = rec.row_count - rec.deleted;
        if (arv_needs_counts(a, &rec)) {
            rc = arv_load(t, out->part, out->group_first_row, a->leaf_col, page, r, &pg, err);
            for (size_t row = 0; !rc && row < rec.row_count; row++)
                s->nulls += !arv_bit_set(pg.del, row) && arv_row_null(a, &pg.v, row);
            if (rc) break;
        }
        if (px.node_text_len < s->live + 4 * s->nulls) {
            rc = ig_err(err, -EIO, "%s: column '%.*s' page %u: a text length of %llu bytes for %llu rows", p->path,
                        (int)a->c.name_len, a->c.name, page, (unsigned long long)px.node_text_len,
                        (unsigned long long)s->live);
            break;
        }
        s->bytes = px.node_text_len - s->live - 4 * s->nulls;
        a->sum.live += s->live, a->sum.nulls += s->nulls, a->sum.bytes += s->bytes;
        if (s->bytes > INT32_MAX || a->sum.bytes > INT32_MAX) break; /* no sum that wraps */
    }
    ig_values_free(&pg.v);
    if (!rc && a->sum.bytes > INT32_MAX)
        rc = ig_err(err, -EFBIG, "%s: column '%.*s' of row group %u: too large for Arrow's 32-bit offsets", p->path,
                    (int)a->c.name_len, a->c.name, out->group);
    return rc;
}

/* A list of structs' member's struct slots: its elements, or (a list in each
 * slot) its level-1 lists. */
static uint64_t struct_slots(const struct acol *m)
{
    return m->nlists > 1 ? m->sum.slots[1] : m->sum.elems;
}

/* A struct's members, each counted as a column; its NULL rows from the first. */
static int count_struct(const struct ig_table *t, const struct ig_arv *out, struct acol *a, uint32_t lg,
                        uint32_t group_rows, struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[out->part];
    if (!(a->kids = calloc(a->c.num_children, sizeof *a->kids))) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    for (uint32_t k = a->col + 1; !rc && k < p->num_columns && a->nkids < a->c.num_children; k++) {
        struct acol *m = &a->kids[a->nkids];
        rc = ig_part_column(p, k, &m->c, err);
        if (rc || m->c.parent != a->col) continue;
        if (!arv_shown(p, k, &m->c, m))
            return ig_err(err, -EIO, "%s: member %u of struct column %u cannot be shown", p->path, k, a->col);
        m->col = k;
        a->nkids++;
        rc = m->shape == IG_ARV_STRUCT || m->shape == IG_ARV_LIST_STRUCT
                 ? count_struct(t, out, m, lg, group_rows, r, err)
                 : count_column(t, out, m, lg, group_rows, r, err);
        if (!rc && m->sum.live != out->rows)
            rc = ig_err(err, -EIO, "%s: column '%.*s' of row group %u has %llu live rows, the group %llu", p->path,
                        (int)m->c.name_len, m->c.name, out->group, (unsigned long long)m->sum.live,
                        (unsigned long long)out->rows);
    }
    if (!rc && a->nkids != a->c.num_children)
        rc = ig_err(err, -EIO, "%s: struct column %u has %u members, the footer says %u", p->path, a->col, a->nkids,
                    a->c.num_children);
    if (rc) return rc;
    a->sum.live = a->kids[0].sum.live;
    const struct acol *leaf = arv_first_leaf(a);
    if (a->shape == IG_ARV_LIST_STRUCT) { /* rows NULL as the list, elements (structs) and theirs */
        a->sum.nulls = leaf->sum.nulls;
        a->sum.elems = struct_slots(leaf);
        a->sum.struct_nulls = leaf->sum.struct_nulls;
        for (uint32_t k = 1; k < a->nkids; k++)
            if (struct_slots(&a->kids[k]) != a->sum.elems)
                return ig_err(err, -EIO, "%s: members of list column %u hold %llu and %llu elements", p->path, a->col,
                              (unsigned long long)a->sum.elems, (unsigned long long)struct_slots(&a->kids[k]));
    } else if (a->in_list) { /* a struct in each slot of a list of structs: NULL by its first leaf's slots */
        a->sum.elems = struct_slots(leaf);
        a->sum.struct_nulls = 0;
        for (unsigned d = 0; d < a->present_def && d < AV_DEFS; d++) a->sum.struct_nulls += leaf->sum.slot_defs[d];
    } else { /* NULL where its first leaf's level says the struct is not there */
        a->sum.nulls = 0;
        for (unsigned d = 0; d < a->present_def && d < AV_DEFS; d++) a->sum.nulls += leaf->sum.row_defs[d];
    }
    return 0;
}

int ig_arv_layout(const struct ig_table *t, uint32_t group, struct ig_reader *r, struct ig_arv *out,
                  struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t pi, lg;
    if (ig_table_group(t, group, &pi, &lg)) return ig_err(err, -ENOENT, "no row group %u", group);
    const struct ig_part *p = &t->parts[pi];
    struct ig_grouprec gr;
    int rc = ig_part_group(p, lg, &gr, err);
    if (rc) return rc;
    out->group = group;
    out->part = pi;
    out->group_first_row = gr.first_row;
    /* live rows, from the page records of leaf 0 (each column shown is checked against it) */
    uint32_t first0 = 0, count0 = 0;
    rc = ig_part_chunk(p, lg, 0, &first0, &count0, err);
    for (uint32_t pg = first0; !rc && pg < first0 + count0; pg++) {
        struct ig_pagerec rec;
        rc = ig_part_page(p, pg, &rec, err);
        if (!rc) out->rows += rec.row_count - rec.deleted;
    }
    if (rc) return rc;

    struct acol *cols = calloc(p->num_columns ? p->num_columns : 1, sizeof *cols);
    uint32_t ncols = 0;
    if (!cols) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_shown_walk tops = {0}; /* the columns this version shows, in its order */
    for (uint32_t col; !rc && ncols < p->num_columns && ig_table_next_top(t, &tops, &col);) {
        struct acol *a = &cols[ncols];
        *a = (struct acol){0}; /* the slot a column not shown may have used */
        rc = ig_part_column(p, col, &a->c, err);
        if (rc || !arv_shown(p, col, &a->c, a)) continue;
        a->col = col;
        ncols++;
        if (a->shape == IG_ARV_STRUCT || a->shape == IG_ARV_LIST_STRUCT)
            rc = count_struct(t, out, a, lg, gr.row_count, r, err);
        else if (a->shape == IG_ARV_JSON)
            rc = count_json(t, out, a, lg, gr.row_count, r, err);
        else if (a->shape == IG_ARV_TREE)
            rc = count_tree(t, out, a, lg, r, err);
        else
            rc = count_column(t, out, a, lg, gr.row_count, r, err);
        if (!rc && a->sum.live != out->rows)
            rc = ig_err(err, -EIO, "%s: column '%.*s' of row group %u has %llu live rows, the group %llu", p->path,
                        (int)a->c.name_len, a->c.name, group, (unsigned long long)a->sum.live,
                        (unsigned long long)out->rows);
    }

    struct body b = {0};
    for (uint32_t i = 0; !rc && i < ncols; i++) column_body(&b, &cols[i]);
    if (!rc && b.err) rc = ig_err(err, -ENOMEM, "out of memory");

    struct arv_buffers bufs = {b.nodes, b.nn, b.bufs, b.nb};
    if (!rc && arv_metadata(cols, ncols, out->rows, &bufs, b.at, &out->head, &out->tail))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && !(out->fields = calloc(ncols ? ncols : 1, sizeof *out->fields)))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        for (uint32_t i = 0; i < b.n; i++) b.pc[i].start += out->head.len;
        out->pieces = b.pc;
        out->npieces = b.n;
        out->nodes = b.nodes;
        out->nnodes = b.nn;
        out->bufs = b.bufs;
        out->nbufs = b.nb;
        out->nfields = ncols;
        for (uint32_t i = 0; i < ncols; i++)
            if (!arv_c_field(&cols[i], &out->fields[i])) rc = ig_err(err, -ENOMEM, "out of memory");
        b.pc = NULL, b.nodes = NULL, b.bufs = NULL;
        out->body_at = out->head.len;
        out->size = out->head.len + b.at + out->tail.len;
    }
    free(b.pc), free(b.nodes), free(b.bufs);
    cols_free(cols, ncols);
    if (rc) ig_arv_free(out);
    return rc;
}

static void field_free(struct ig_arv_field *f)
{
    for (uint32_t k = 0; f->kids && k < f->nkids; k++) field_free(&f->kids[k]);
    free(f->kids);
    f->kids = NULL;
}

void ig_arv_free(struct ig_arv *v)
{
    free(v->pieces);
    for (uint32_t i = 0; v->fields && i < v->nfields; i++) field_free(&v->fields[i]);
    free(v->fields);
    free(v->nodes);
    free(v->bufs);
    v->fields = NULL;
    v->nodes = v->bufs = NULL;
    v->nfields = v->nnodes = v->nbufs = 0;
    ig_buf_free(&v->head);
    ig_buf_free(&v->tail);
    v->pieces = NULL;
    v->npieces = 0;
}
