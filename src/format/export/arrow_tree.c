/* arrow_tree.c - a nested column of any shape of lists and structs, from its
 * leaves' levels alone (see arrow_view_int.h, struct tree).
 *
 * The Arrow form of a nested column is a tree of arrays: a List for each list
 * level, a Struct for each struct, a value array for each leaf. Every array
 * sits at a position in the rows' nesting, and its items are found in the
 * definition and repetition levels of any leaf below it (Dremel): an item of
 * an array at position (rep, def) begins at each entry whose repetition level
 * is at most rep (a new row, or a new element of the list it is in) and whose
 * definition level is at least def (that list has an element there); the item
 * is NULL when the entry's level stops short of valid_def. A List's offsets
 * count its child's items between its own. So each array is read from the
 * first leaf below it, and nothing but levels (and, for value arrays, their
 * own values) is decoded. A vector leaf is a FixedSizeList (its validity) and
 * the floats under it (LANES: D an item, zeros for a NULL vector).
 *
 * The other shapes of the view (arrow_shape.c) keep their own, older paths;
 * this one serves what they do not: lists of structs holding lists of
 * structs, at any depth. What it does not do: blobs inside such a column
 * (those columns are shown as their rows' JSON, IG_ARV_JSON). */
#include "arrow_view_int.h"

#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arrays ------------------------------------------------------------ */

struct builder {
    const struct ig_part *p;
    struct tree *t;
    bool ok;
};

static uint32_t add_array(struct builder *b, struct tree_array a)
{
    if (b->t->n == AV_TREE_MAX) {
        b->ok = false;
        return 0;
    }
    b->t->a[b->t->n] = a;
    return b->t->n++;
}

/* Column `col` (c) and what is below it, at nesting (rep, def) with d
 * definition levels above; named by col, or "item" when it is a list's
 * element. Returns the index of its outermost array. */
static uint32_t build(struct builder *b, uint32_t col, const struct ig_colrec *c, uint8_t rep, uint8_t def,
                      uint8_t d, bool item)
{
    uint32_t outer = b->t->n;
    uint32_t name_skip = 0;
    if (c->parent != IG_NONE) { /* a member: named after its struct's name and a dot */
        struct ig_colrec s;
        if (ig_part_column(b->p, c->parent, &s, NULL)) b->ok = false;
        name_skip = s.name_len + 1;
        if (c->name_len <= name_skip) b->ok = false;
    }
    const char *name = c->name + name_skip;
    uint32_t name_len = c->name_len - name_skip;
    for (unsigned k = 0; k < c->lists && b->ok; k++) {
        bool nullable = (c->null_mask >> k) & 1;
        struct tree_array l = {.kind = TREE_LIST, .rep = rep, .def = def, .nullable = nullable,
                               .valid_def = (uint8_t)(d + nullable), .col = col, .name_skip = name_skip,
                               .name = name, .name_len = name_len, .item = item || k > 0};
        d = (uint8_t)(d + nullable + 1); /* NULL, then empty, then holding elements */
        rep++;
        def = d;
        l.child_rep = rep;
        l.child_def = def;
        add_array(b, l);
    }
    bool nullable = (c->null_mask >> c->lists) & 1;
    struct tree_array e = {.rep = rep, .def = def, .nullable = nullable, .valid_def = (uint8_t)(d + nullable),
                           .col = col, .name_skip = name_skip, .name = name, .name_len = name_len,
                           .item = item || c->lists > 0, .type = c->type, .quantize = c->quantize};
    d = (uint8_t)(d + nullable);
    if (c->type == IG_T_STRUCT) {
        e.kind = TREE_STRUCT;
        uint32_t at = add_array(b, e);
        uint32_t found = 0;
        for (uint32_t k = col + 1; b->ok && k < b->p->num_columns && found < c->num_children; k++) {
            struct ig_colrec m;
            if (ig_part_column(b->p, k, &m, NULL)) b->ok = false;
            if (!b->ok || m.parent != col) continue;
            build(b, k, &m, rep, def, d, false);
            found++;
        }
        if (found != c->num_children || !c->num_children) b->ok = false;
        if (b->ok) b->t->a[at].nkids = found;
    } else {
        e.kind = c->dimension ? TREE_VECTOR : TREE_VALUE;
        if (c->leaf == IG_NONE || c->max_def != d || !arv_value_type(c, &e.tt, &e.width) ||
            (c->dimension && (e.tt != AT_FLOAT || e.width != 4)))
            b->ok = false; /* blobs, levels that do not add up */
        e.leaf_col = col;
        e.max_def = c->max_def;
        e.dim = c->dimension;
        arv_c_format(c, e.format);
        add_array(b, e);
        if (c->dimension) { /* its floats: never NULL (a NULL vector's are zeros) */
            struct tree_array f = e;
            f.kind = TREE_LANES;
            f.nullable = false;
            f.valid_def = f.def;
            f.item = true;
            add_array(b, f);
        }
    }
    return outer;
}

bool arv_tree_build(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct tree *t)
{
    memset(t, 0, sizeof *t);
    struct builder b = {p, t, true};
    build(&b, col, c, 0, 0, 0, false);
    if (!b.ok || !t->n) return false;
    /* an item may be NULL where its slot is there but it is not: its own NULL
     * or a struct's around it (a NULL struct is NULL in every member too) */
    for (uint32_t i = 0; i < t->n; i++)
        t->a[i].nullable = t->a[i].kind != TREE_LANES && t->a[i].valid_def > t->a[i].def;
    /* every array reads the levels of the first leaf below it: the next value
     * array in pre-order */
    for (uint32_t i = t->n; i-- > 0;)
        if (t->a[i].kind == TREE_LIST || t->a[i].kind == TREE_STRUCT) {
            if (i + 1 >= t->n) return false;
            t->a[i].leaf_col = t->a[i + 1].leaf_col;
        }
    return true;
}

/* ---- walking a chunk's levels ------------------------------------------------ */

/* What a walk makes of an array's items: counts, or one of its buffers. */
enum walk_mode { W_COUNT, W_VALID, W_OFFSETS, W_VALUES, W_BYTES };

struct walk {
    enum walk_mode mode;
    uint8_t *o;
    uint64_t len, at; /* the output and where the walk is in it (bytes, or bits for bitmaps) */
    uint64_t items, nulls, bytes, children;
    bool over; /* more than the output holds */
};

static void put_bit(struct walk *w, bool on)
{
    if (w->at >= w->len * 8) {
        w->over = true;
        return;
    }
    if (on) w->o[w->at / 8] |= (uint8_t)(1u << (w->at % 8));
    w->at++;
}

static void put(struct walk *w, const void *src, uint64_t n)
{
    if (w->at + n > w->len) {
        w->over = true;
        return;
    }
    if (src) memcpy(w->o + w->at, src, n);
    w->at += n;
}

static void put_u32(struct walk *w, uint64_t v)
{
    uint8_t b[4];
    ig_st32(b, (uint32_t)v);
    put(w, b, 4);
}

/* The item that begins at entry (rep, d), value index vi of the page. */
static void item(const struct tree_array *a, const struct ig_values *x, size_t vi, uint8_t d, struct walk *w)
{
    bool leafy = a->kind == TREE_VALUE || a->kind == TREE_LANES;
    bool there = d >= a->valid_def, value = leafy && d == a->max_def;
    uint32_t lanes = a->kind == TREE_LANES ? a->dim : 1;
    if (value && vi + lanes > x->n) { /* more values than the page holds */
        w->over = true;
        return;
    }
    size_t len = 0;
    const uint8_t *bytes = value && !a->width && a->tt != AT_BOOL ? ig_values_bytes(x, vi, &len) : NULL;
    w->items++;
    w->nulls += !there;
    w->bytes += len;
    switch (w->mode) {
    case W_COUNT: break;
    case W_VALID: put_bit(w, there); break;
    case W_OFFSETS: put_u32(w, a->kind == TREE_LIST ? w->children : w->bytes - len); break;
    case W_VALUES:
        if (a->tt == AT_BOOL) {
            put_bit(w, value && x->lanes[vi]);
            break;
        }
        for (uint32_t j = 0; j < lanes; j++) {
            if (value && w->at + a->width <= w->len) arv_put_value(w->o + w->at, x, vi + j, a->width);
            put(w, NULL, a->width); /* zeros for a NULL (the piece is zeroed) */
        }
        break;
    case W_BYTES: put(w, bytes, len); break;
    }
}

/* Array a's items in one decoded page (its leaf's). */
static void walk_page(const struct tree_array *a, const struct page *pg, struct walk *w)
{
    const struct ig_values *x = &pg->v;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (arv_bit_set(pg->del, row)) continue;
        size_t vi = x->row_val[row];
        for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
            uint8_t rep = x->reps[e], d = x->defs[e];
            if (rep <= a->rep && d >= a->def) item(a, x, vi, d, w);
            if (a->kind == TREE_LIST && rep <= a->child_rep && d >= a->child_def) w->children++;
            if ((a->kind == TREE_VALUE || a->kind == TREE_VECTOR || a->kind == TREE_LANES) && d == a->max_def)
                vi += a->dim ? a->dim : 1;
        }
    }
}

/* Walk the arrays ks[0..nk) (all read from one leaf) over the pages of that
 * leaf's chunk in part-local group lg, each page decoded once: w[i] for ks[i]. */
static int walk_chunk(const struct ig_table *t, const struct ig_arv *v, uint32_t lg, struct tree *tr,
                      const uint32_t *ks, uint32_t nk, struct ig_reader *r, struct walk *w, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    uint32_t leaf_col = tr->a[ks[0]].leaf_col;
    struct ig_colrec leaf;
    uint32_t first = 0, count = 0;
    int rc = ig_part_column(p, leaf_col, &leaf, err);
    if (!rc) rc = ig_part_chunk(p, lg, leaf.leaf, &first, &count, err);
    for (uint32_t i = 0; i < nk; i++) {
        tr->a[ks[i]].first_page = first;
        tr->a[ks[i]].npages = count;
    }
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    for (uint32_t i = 0; !rc && i < count; i++) {
        rc = arv_load(t, v->part, v->group_first_row, leaf_col, first + i, r, &pg, err);
        if (!rc && !pg.v.levels)
            rc = ig_err(err, -EIO, "%s: column %u page %u: no levels in a nested column", p->path, leaf_col,
                        first + i);
        for (uint32_t j = 0; !rc && j < nk; j++)
            walk_page(&tr->a[ks[j]], &pg, &w[j]);
    }
    ig_values_free(&pg.v);
    return rc;
}

int arv_tree_count(const struct ig_table *t, const struct ig_arv *v, uint32_t lg, struct tree *tr,
                   struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    struct walk w[AV_TREE_MAX];
    uint32_t ks[AV_TREE_MAX];
    bool done[AV_TREE_MAX] = {false};
    for (uint32_t k = 0; k < tr->n; k++) { /* the arrays of one leaf together: its pages decoded once */
        if (done[k]) continue;
        uint32_t nk = 0;
        for (uint32_t j = k; j < tr->n; j++)
            if (!done[j] && tr->a[j].leaf_col == tr->a[k].leaf_col) {
                done[j] = true;
                w[nk] = (struct walk){.mode = W_COUNT};
                ks[nk++] = j;
            }
        int rc = walk_chunk(t, v, lg, tr, ks, nk, r, w, err);
        if (rc) return rc;
        for (uint32_t i = 0; i < nk; i++) {
            struct tree_array *a = &tr->a[ks[i]];
            a->items = a->kind == TREE_LANES ? w[i].items * a->dim : w[i].items;
            a->nulls = a->nullable ? w[i].nulls : 0;
            a->bytes = w[i].bytes;
            a->children = w[i].children;
            if (w[i].nulls && !a->nullable)
                return ig_err(err, -EIO, "%s: column %u of row group %u: NULLs where it cannot hold one", p->path,
                              a->col, v->group);
        }
    }
    for (uint32_t k = 0; k < tr->n; k++) {
        const struct tree_array *a = &tr->a[k];
        if (a->bytes > INT32_MAX || a->children > INT32_MAX || a->items > INT32_MAX)
            return ig_err(err, -EFBIG, "%s: column %u of row group %u: too large for Arrow's 32-bit offsets",
                          p->path, a->col, v->group);
    }
    /* a List's items below are its child's; a Struct's members hold its items */
    for (uint32_t k = 0; k < tr->n; k++) {
        const struct tree_array *a = &tr->a[k];
        bool bad = (a->kind == TREE_LIST && tr->a[k + 1].items != a->children) ||
                   (a->kind == TREE_VECTOR && tr->a[k + 1].items != a->items * a->dim);
        for (uint32_t m = k + 1, kid = 0; a->kind == TREE_STRUCT && kid < a->nkids && m < tr->n; kid++) {
            bad |= tr->a[m].items != a->items;
            m = arv_tree_next(tr, m);
        }
        if (bad)
            return ig_err(err, -EIO, "%s: column %u of row group %u: its leaves' levels disagree", p->path, a->col,
                          v->group);
    }
    return 0;
}

uint32_t arv_tree_next(const struct tree *tr, uint32_t k)
{
    const struct tree_array *a = &tr->a[k];
    if (a->kind == TREE_VALUE || a->kind == TREE_LANES) return k + 1;
    if (a->kind == TREE_LIST || a->kind == TREE_VECTOR) return arv_tree_next(tr, k + 1);
    uint32_t m = k + 1;
    for (uint32_t kid = 0; kid < a->nkids && m < tr->n; kid++)
        m = arv_tree_next(tr, m);
    return m;
}

uint64_t arv_tree_buffer_len(const struct tree_array *a, unsigned buf)
{
    bool strings = a->kind == TREE_VALUE && !a->width && a->tt != AT_BOOL;
    switch (buf) {
    case TREE_BUF_VALID: return a->nulls ? (a->items + 7) / 8 : 0;
    case TREE_BUF_MAIN:
        if (a->kind == TREE_LIST || strings) return (a->items + 1) * 4;
        if (a->kind == TREE_STRUCT || a->kind == TREE_VECTOR) return 0;
        return a->tt == AT_BOOL ? (a->items + 7) / 8 : a->items * a->width;
    default: return strings ? a->bytes : 0;
    }
}

int arv_tree_render(const struct ig_table *t, const struct ig_arv *v, struct tree *tr, uint32_t k, unsigned buf,
                    struct ig_reader *r, uint8_t *o, uint64_t len, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    uint32_t pi, lg;
    if (k >= tr->n || ig_table_group(t, v->group, &pi, &lg))
        return ig_err(err, -EIO, "%s: no array %u of an Arrow column in row group %u", p->path, k, v->group);
    const struct tree_array *a = &tr->a[k];
    bool strings = a->kind == TREE_VALUE && !a->width && a->tt != AT_BOOL;
    struct walk w = {.mode = buf == TREE_BUF_VALID ? W_VALID
                             : buf == TREE_BUF_BYTES ? W_BYTES
                             : a->kind == TREE_LIST || strings ? W_OFFSETS
                                                               : W_VALUES,
                     .o = o, .len = len};
    int rc = walk_chunk(t, v, lg, tr, &k, 1, r, &w, err);
    if (rc) return rc;
    if (w.mode == W_OFFSETS) put_u32(&w, a->kind == TREE_LIST ? w.children : w.bytes); /* the closing one */
    bool bits = w.mode == W_VALID || (w.mode == W_VALUES && a->tt == AT_BOOL);
    if (w.over || (bits ? (w.at + 7) / 8 : w.at) != len)
        return ig_err(err, -EIO, "%s: column %u of row group %u: array %u does not fit its Arrow piece (the levels "
                      "changed since the layout, or do not add up)", p->path, a->col, v->group, k);
    return 0;
}
