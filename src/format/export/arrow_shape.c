/* arrow_shape.c - which columns the Arrow view shows, in what shape, and a
 * decoded page read row by row (see arrow_view_int.h). */
#include "arrow_view_int.h"

#include "format/model/names.h"
#include "format/model/types.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the columns shown ------------------------------------------------------ */

/* The Arrow type of a leaf's values, or false when the view does not show it. */
bool arv_value_type(const struct ig_colrec *c, uint8_t *tt, uint8_t *width)
{
    *width = 0;
    switch (ig_read_type(c->type, c->quantize)) {
    case IG_T_BOOL: *tt = AT_BOOL; return true;
    case IG_T_INT8:
    case IG_T_UINT8: *tt = AT_INT, *width = 1; return true;
    case IG_T_INT16:
    case IG_T_UINT16: *tt = AT_INT, *width = 2; return true;
    case IG_T_INT32:
    case IG_T_UINT32: *tt = AT_INT, *width = 4; return true;
    case IG_T_INT64:
    case IG_T_UINT64: *tt = AT_INT, *width = 8; return true;
    case IG_T_FLOAT32: *tt = AT_FLOAT, *width = 4; return true;
    case IG_T_FLOAT64: *tt = AT_FLOAT, *width = 8; return true;
    case IG_T_STRING: *tt = AT_UTF8; return true;
    case IG_T_BINARY: *tt = AT_BINARY; return true;
    default: return false; /* structs, blobs */
    }
}

bool arv_is_signed(uint8_t type)
{
    return type == IG_T_INT8 || type == IG_T_INT16 || type == IG_T_INT32 || type == IG_T_INT64;
}

/* The C Data Interface's format string of a leaf's values (its type, as
 * value_type shows it). */
const char *arv_c_format(const struct ig_colrec *c)
{
    switch (ig_read_type(c->type, c->quantize)) {
    case IG_T_BOOL: return "b";
    case IG_T_INT8: return "c";
    case IG_T_UINT8: return "C";
    case IG_T_INT16: return "s";
    case IG_T_UINT16: return "S";
    case IG_T_INT32: return "i";
    case IG_T_UINT32: return "I";
    case IG_T_INT64: return "l";
    case IG_T_UINT64: return "L";
    case IG_T_FLOAT32: return "f";
    case IG_T_FLOAT64: return "g";
    case IG_T_STRING: return "u";
    default: return "z";
    }
}


/* List field f's levels from `from` on, as a chain of "item" lists below it,
 * the last holding a's elements: values (its child format), vectors (a
 * FixedSizeList "item" of the floats) or objects (a Struct<path, size>
 * "item"). False: out of memory (what was made is f's). */
static bool item_chain(const struct acol *a, struct ig_arv_field *f, unsigned from)
{
    struct ig_arv_field *at = f;
    for (unsigned k = from; k < a->nlists; k++) {
        at->shape = IG_ARV_LISTS;
        if (!(at->kids = calloc(1, sizeof *at->kids))) return false;
        at->nkids = 1;
        at = at->kids;
        *at = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_LIST, .nullable = a->lnullable[k],
                                    .elem_nullable = a->elem_nullable, .format = "+l", .name = "item"};
    }
    if (!a->c.dimension && a->shape != IG_ARV_BLOB_LIST) {
        snprintf(at->child_format, sizeof at->child_format, "%s", arv_c_format(&a->c));
        return true;
    }
    at->shape = IG_ARV_LISTS;
    if (!(at->kids = calloc(1, sizeof *at->kids))) return false;
    at->nkids = 1;
    if (a->shape == IG_ARV_BLOB_LIST) {
        struct acol bm = *a;
        bm.shape = IG_ARV_BLOB;
        bm.nullable = a->elem_nullable;
        if (!arv_c_field(&bm, at->kids)) return false;
        at->kids->name = "item";
        return true;
    }
    at->kids[0] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_VECTOR, .nullable = a->elem_nullable,
                                        .name = "item"};
    snprintf(at->kids[0].format, sizeof at->kids[0].format, "+w:%u", a->c.dimension);
    snprintf(at->kids[0].child_format, sizeof at->kids[0].child_format, "%s", arv_c_format(&a->c));
    return true;
}

/* A list of structs' member m as the C export's field: a value per struct
 * slot (an object's Struct<path, size>, a list, a vector, a flat value, or a
 * struct of flat values). False: out of memory (what was made is f's). */
static bool slot_member_cfield(const struct acol *m, struct ig_arv_field *f)
{
    if (m->shape == IG_ARV_BLOB_LIST && m->nlists == 1) { /* an object: a blob's Struct<path, size>, NULL as
                                                              the element */
        struct acol bm = *m;
        bm.shape = IG_ARV_BLOB;
        bm.nullable = m->elem_nullable;
        return arv_c_field(&bm, f);
    }
    if (m->shape == IG_ARV_BLOB_LIST) { /* lists (of lists) of objects */
        *f = (struct ig_arv_field){.col = m->col, .shape = IG_ARV_LIST, .nullable = m->slot_nullable,
                                   .format = "+l", .name_skip = m->name_skip};
        return item_chain(m, f, 2);
    }
    if (m->shape == IG_ARV_STRUCT) { /* a struct in the slot: its members likewise */
        *f = (struct ig_arv_field){.col = m->col, .shape = IG_ARV_STRUCT, .nullable = m->elem_nullable,
                                   .format = "+s", .name_skip = m->name_skip};
        if (!(f->kids = calloc(m->nkids ? m->nkids : 1, sizeof *f->kids))) return false;
        f->nkids = m->nkids;
        for (uint32_t k = 0; k < m->nkids; k++)
            if (!slot_member_cfield(&m->kids[k], &f->kids[k])) return false;
        return true;
    }
    if (m->nlists > 1) { /* a list in each slot (of lists, of values or vectors) */
        *f = (struct ig_arv_field){.col = m->col, .shape = IG_ARV_LIST, .nullable = m->slot_nullable,
                                   .elem_nullable = m->elem_nullable, .format = "+l", .name_skip = m->name_skip};
        return item_chain(m, f, 2);
    }
    *f = (struct ig_arv_field){.col = m->col, .shape = m->c.dimension ? IG_ARV_VECTOR : IG_ARV_FLAT,
                               .nullable = m->elem_nullable, .name_skip = m->name_skip};
    if (m->c.dimension) {
        snprintf(f->format, sizeof f->format, "+w:%u", m->c.dimension);
        snprintf(f->child_format, sizeof f->child_format, "%s", arv_c_format(&m->c));
    } else {
        snprintf(f->format, sizeof f->format, "%s", arv_c_format(&m->c));
    }
    return true;
}

/* Array k of a tree column and its subtree as the C export's field: a List
 * ("+l", its one kid), a Struct ("+s", its members) or values (false: out of
 * memory). */
static bool tree_c_field(const struct tree *tr, uint32_t k, struct ig_arv_field *f)
{
    const struct tree_array *a = &tr->a[k];
    *f = (struct ig_arv_field){.col = a->col, .nullable = a->nullable, .name_skip = a->name_skip,
                               .name = a->item ? "item" : NULL};
    if (a->kind == TREE_VALUE || a->kind == TREE_LANES) {
        f->shape = IG_ARV_FLAT;
        snprintf(f->format, sizeof f->format, "%s", a->format);
        return true;
    }
    f->shape = a->kind == TREE_STRUCT ? IG_ARV_STRUCT : IG_ARV_LISTS; /* a List or a FixedSizeList: one kid */
    if (a->kind == TREE_VECTOR)
        snprintf(f->format, sizeof f->format, "+w:%u", a->dim);
    else
        snprintf(f->format, sizeof f->format, "%s", a->kind == TREE_LIST ? "+l" : "+s");
    f->nkids = a->kind == TREE_STRUCT ? a->nkids : 1;
    if (!(f->kids = calloc(f->nkids ? f->nkids : 1, sizeof *f->kids))) return false;
    for (uint32_t i = 0, m = k + 1; i < f->nkids; i++, m = arv_tree_next(tr, m))
        if (!tree_c_field(tr, m, &f->kids[i])) return false;
    return true;
}

/* The field the record batch shows for a (the C export's view of it); a
 * struct's members in f->kids (false: out of memory). */
bool arv_c_field(const struct acol *a, struct ig_arv_field *f)
{
    *f = (struct ig_arv_field){.col = a->col, .shape = a->shape, .nullable = a->nullable,
                               .elem_nullable = a->elem_nullable, .name_skip = a->name_skip};
    if (a->shape == IG_ARV_TREE) return a->tree && tree_c_field(a->tree, 0, f);
    if (a->shape == IG_ARV_JSON) { /* the C export sees a Utf8 column */
        f->shape = IG_ARV_FLAT;
        snprintf(f->format, sizeof f->format, "u");
        return true;
    }
    if (a->shape == IG_ARV_BLOB) {
        snprintf(f->format, sizeof f->format, "+s");
        if (!(f->kids = calloc(2, sizeof *f->kids))) return false;
        f->nkids = 2;
        f->kids[0] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_FLAT, .nullable = true, .format = "u",
                                           .name = "path"};
        f->kids[1] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_FLAT, .nullable = true, .format = "l",
                                           .name = "size"};
        return true;
    }
    if (a->shape == IG_ARV_BLOB_LIST) { /* List<Struct<path, size>>: one kid with two */
        snprintf(f->format, sizeof f->format, "+l");
        struct ig_arv_field *item = calloc(1, sizeof *item), *members = calloc(2, sizeof *members);
        if (!item || !members) {
            free(item), free(members);
            return false;
        }
        bool en = a->elem_nullable; /* NULL elements: the item and both members */
        members[0] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_FLAT, .nullable = en, .format = "u",
                                           .name = "path"};
        members[1] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_FLAT, .nullable = en, .format = "l",
                                           .name = "size"};
        *item = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_BLOB, .nullable = en, .format = "+s",
                                      .name = "item", .nkids = 2, .kids = members};
        f->kids = item;
        f->nkids = 1;
        return true;
    }
    if (a->shape == IG_ARV_LIST_STRUCT) { /* List of a Struct "item" of the members, each flat */
        snprintf(f->format, sizeof f->format, "+l");
        f->shape = IG_ARV_LISTS;
        struct ig_arv_field *item = calloc(1, sizeof *item), *members = calloc(a->nkids, sizeof *members);
        if (!item || !members) {
            free(item), free(members);
            return false;
        }
        *item = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_STRUCT, .nullable = a->struct_nullable,
                                      .format = "+s", .name = "item", .nkids = a->nkids, .kids = members};
        f->kids = item; /* from here a failure leaves them to the caller's field_free */
        f->nkids = 1;
        for (uint32_t k = 0; k < a->nkids; k++)
            if (!slot_member_cfield(&a->kids[k], &members[k])) return false;
        return true;
    }
    if (a->shape == IG_ARV_STRUCT) {
        snprintf(f->format, sizeof f->format, "+s");
        if (!(f->kids = calloc(a->nkids, sizeof *f->kids))) return false;
        f->nkids = a->nkids;
        for (uint32_t k = 0; k < a->nkids; k++) arv_c_field(&a->kids[k], &f->kids[k]);
        return true;
    }
    const char *vf = arv_c_format(&a->c);
    if (a->shape == IG_ARV_FLAT || a->shape == IG_ARV_MEMBER) {
        snprintf(f->format, sizeof f->format, "%s", vf);
        return true;
    }
    if (a->shape == IG_ARV_VECTOR)
        snprintf(f->format, sizeof f->format, "+w:%u", a->c.dimension);
    else
        snprintf(f->format, sizeof f->format, "+l");
    if (a->shape == IG_ARV_LIST && (a->nlists > 1 || a->c.dimension)) return item_chain(a, f, 1);
    snprintf(f->child_format, sizeof f->child_format, "%s", vf);
    return true;
}

/* A list column's levels (see struct acol) under def_base levels of its
 * struct; false when they do not end at its leaf's maximum. */
static bool list_levels(struct acol *a, const struct ig_colrec *c, uint8_t def_base)
{
    a->shape = IG_ARV_LIST;
    a->nlists = (uint8_t)c->lists;
    a->def_base = def_base;
    unsigned d = def_base;
    for (unsigned k = 0; k < a->nlists; k++) {
        a->lnullable[k] = (c->null_mask >> k) & 1;
        a->null_def[k] = (uint8_t)d;
        a->empty_def[k] = (uint8_t)(d + a->lnullable[k]);
        d = a->empty_def[k] + 1u;
    }
    a->list_nullable = a->lnullable[0];
    a->elem_nullable = (c->null_mask >> c->lists) & 1;
    return d + a->elem_nullable == c->max_def;
}

/* A struct's member the view can show: a flat value of a shown type, a list
 * (of lists) of them, or a vector of float32 (not in a list). */
static bool member_ok(const struct ig_colrec *m)
{
    uint8_t tt, width;
    if (m->type == IG_T_STRUCT || m->lists > AV_MAX_LISTS || !arv_value_type(m, &tt, &width)) return false;
    return !m->dimension || (!m->lists && tt == AT_FLOAT && width == 4);
}

static bool list_struct_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c);

/* A vector of float32 (in lists or not). */
static bool float_vector(const struct ig_colrec *m)
{
    uint8_t tt, width;
    return m->dimension && m->type != IG_T_STRUCT && arv_value_type(m, &tt, &width) && tt == AT_FLOAT && width == 4;
}

/* Are column col (c)'s members all member_ok or blobs, lists of structs
 * list_struct_ok, or structs whose members are (depth structs deep at most)? */
static bool members_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, unsigned depth)
{
    if (c->type != IG_T_STRUCT || c->lists || !c->num_children || !depth) return false;
    uint32_t found = 0;
    for (uint32_t k = col + 1; k < p->num_columns && found < c->num_children; k++) {
        struct ig_colrec m;
        if (ig_part_column(p, k, &m, NULL)) return false;
        if (m.parent != col) continue;
        bool blob = m.type == IG_T_BLOB && !m.lists && !m.dimension; /* its reference, as top-level ones */
        bool ok = m.type != IG_T_STRUCT ? blob || member_ok(&m)
                  : m.lists       ? list_struct_ok(p, k, &m)
                                  : members_shown(p, k, &m, depth - 1);
        if (!ok) return false;
        found++;
    }
    return found == c->num_children;
}

/* Is column col (c) a top-level struct shown as Struct (its members flat
 * values, lists of them, or such structs)? */
static bool struct_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c)
{
    return c->parent == IG_NONE && members_shown(p, col, c, AV_MAX_STRUCT_DEPTH);
}

/* A member of a (nested) shown struct: the structs around it to the top are
 * structs, not lists, and the top one is shown; *def the levels their NULLs
 * take (where the member's struct is there). */
static bool under_shown_structs(const struct ig_part *p, const struct ig_colrec *c, uint8_t *def)
{
    unsigned d = 0;
    uint32_t col = c->parent;
    for (unsigned depth = 0; depth <= AV_MAX_STRUCT_DEPTH; depth++) {
        struct ig_colrec s;
        if (ig_part_column(p, col, &s, NULL) || s.type != IG_T_STRUCT || s.lists) return false;
        d += s.null_mask & 1;
        if (s.parent == IG_NONE) {
            *def = (uint8_t)d;
            return struct_shown(p, col, &s);
        }
        col = s.parent;
    }
    return false;
}

static bool slot_members_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, unsigned depth);

/* A member of a list's struct (or of a struct in it) the view can show: a flat
 * value, a vector, a blob, lists (of lists) of flat values or of vectors
 * (list<struct<bbox: list<float32>, segmentation: list<list<float32>>, embs:
 * list<vector>, ...>>, as deep as a list may nest in all), lists of blobs (a
 * clip's frames), or a struct of such members (depth structs deep at most). */
static bool slot_member_ok(const struct ig_part *p, uint32_t k, const struct ig_colrec *m, unsigned depth)
{
    if (m->type == IG_T_STRUCT) return !m->lists && depth && slot_members_ok(p, k, m, depth - 1);
    if (m->lists)
        return m->lists < AV_MAX_LISTS &&
               (float_vector(m) || (!m->dimension && (member_ok(m) || m->type == IG_T_BLOB)));
    return (m->type == IG_T_BLOB && !m->dimension) || member_ok(m);
}

/* Are struct column col (c)'s members all slot_member_ok? */
static bool slot_members_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, unsigned depth)
{
    uint32_t found = 0;
    for (uint32_t k = col + 1; k < p->num_columns && found < c->num_children; k++) {
        struct ig_colrec m;
        if (ig_part_column(p, k, &m, NULL)) return false;
        if (m.parent != col) continue;
        if (!slot_member_ok(p, k, &m, depth)) return false;
        found++;
    }
    return c->num_children && found == c->num_children;
}

/* Is column col (c) a list of structs whose members the view can show
 * (slot_member_ok; maps are list<struct<key, value>>)? */
static bool list_struct_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c)
{
    return c->type == IG_T_STRUCT && c->lists == 1 && slot_members_ok(p, col, c, AV_MAX_STRUCT_DEPTH);
}

/* ... a top-level one, shown as List<Struct<...>>? (One inside shown structs
 * is shown as their member.) */
static bool list_struct_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c)
{
    return c->parent == IG_NONE && list_struct_ok(p, col, c);
}

/* Is column col (c) a list of structs the view shows, at the top or inside
 * shown structs? *def_base: the levels of the structs around it. */
static bool list_struct_where(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, uint8_t *def_base)
{
    if (c->lists != 1 || !list_struct_ok(p, col, c)) return false;
    *def_base = 0;
    return c->parent == IG_NONE || under_shown_structs(p, c, def_base);
}

/* A member of a list of structs: its elements are the list's, one per
 * struct slot; levels: def_base for the structs around the list (a list of
 * structs that is itself a struct's member), the list's NULL and empty, then
 * the struct's, then its own. */
static bool list_member(struct acol *a, const struct ig_colrec *s, const struct ig_colrec *c, uint8_t def_base,
                        uint8_t between)
{
    arv_value_type(c, &a->tt, &a->width);
    a->shape = IG_ARV_LIST;
    a->in_list = true;
    a->nlists = 1;
    a->lnullable[0] = a->list_nullable = s->null_mask & 1;
    a->def_base = def_base;
    a->null_def[0] = def_base;
    a->empty_def[0] = (uint8_t)(def_base + a->lnullable[0]);
    bool struct_nullable = (s->null_mask >> 1) & 1;
    a->slot_struct_def = (uint8_t)(a->empty_def[0] + 1 + struct_nullable);
    a->elem_nullable = struct_nullable || between || (c->null_mask & 1);
    a->nullable = a->list_nullable;
    a->name_skip = s->name_len + 1;
    if (c->lists) { /* a list in each struct slot: level 1, a slot from the list's elements on, NULL
                       below its struct or itself; its lists of lists at levels 2, ...; then its elements */
        if (c->lists >= AV_MAX_LISTS) return false;
        a->nlists = (uint8_t)(1 + c->lists);
        a->lnullable[1] = c->null_mask & 1;
        a->null_def[1] = (uint8_t)(a->empty_def[0] + 1);
        a->empty_def[1] = (uint8_t)(a->slot_struct_def + between + a->lnullable[1]);
        for (unsigned k = 2; k < a->nlists; k++) {
            a->lnullable[k] = (c->null_mask >> (k - 1)) & 1;
            a->null_def[k] = (uint8_t)(a->empty_def[k - 1] + 1);
            a->empty_def[k] = (uint8_t)(a->null_def[k] + a->lnullable[k]);
        }
        a->slot_nullable = struct_nullable || between || a->lnullable[1];
        a->elem_nullable = (c->null_mask >> c->lists) & 1;
        if (c->type == IG_T_BLOB) { /* lists of objects: a Struct<path, size> per element */
            a->shape = IG_ARV_BLOB_LIST;
            a->blob_levels = true;
            a->tt = AT_STRUCT;
            a->width = 8;
        }
        return c->max_def == a->empty_def[a->nlists - 1] + 1 + a->elem_nullable && c->name_len > a->name_skip;
    }
    if (c->type == IG_T_BLOB) { /* a Struct<path, size> per element: an object a value, with levels */
        a->shape = IG_ARV_BLOB_LIST;
        a->blob_levels = true;
        a->tt = AT_STRUCT;
        a->width = 8;
    }
    return c->max_def == a->slot_struct_def + between + (c->null_mask & 1) && c->name_len > a->name_skip;
}

/* A top-level nested column (a struct, a list, a vector) of no other shape
 * here as its rows' JSON (IG_ARV_JSON), numbered by its first leaf's pages;
 * false for a flat one or a footer that does not add up. */
static bool json_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct acol *a)
{
    if (c->parent != IG_NONE || (c->type != IG_T_STRUCT && !c->lists && !c->dimension)) return false;
    struct tree tr;
    if (c->type == IG_T_STRUCT && arv_tree_build(p, col, c, &tr)) { /* its own arrays, nested */
        *a = (struct acol){.c = a->c, .col = a->col, .shape = IG_ARV_TREE, .tt = AT_LIST,
                           .nullable = c->null_mask & 1};
        return true;
    }
    uint32_t leaf = col;
    struct ig_colrec m = *c;
    /* columns are in pre-order: a struct's first member follows it */
    while (m.type == IG_T_STRUCT) {
        if (!m.num_children || ++leaf >= p->num_columns || ig_part_column(p, leaf, &m, NULL) ||
            m.parent != leaf - 1)
            return false;
    }
    if (m.leaf == IG_NONE) return false;
    *a = (struct acol){.c = a->c, .col = a->col, .shape = IG_ARV_JSON, .tt = AT_UTF8,
                       .nullable = c->null_mask & 1, .leaf_col = leaf};
    return true;
}

/* Which shape column col (c) of p takes in the view, false when it is not shown. */
bool arv_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct acol *a)
{
    if (c->parent != IG_NONE) { /* a member of a shown struct */
        struct ig_colrec s;
        if (ig_part_column(p, c->parent, &s, NULL)) return false;
        uint8_t def;
        if (list_struct_where(p, c->parent, &s, &def)) { /* a member of a list of structs */
            if (c->type == IG_T_STRUCT) { /* a struct in each slot: there from present_def */
                unsigned slot = def + (s.null_mask & 1) + 1u + ((s.null_mask >> 1) & 1); /* as list_member's */
                *a = (struct acol){.c = a->c, .col = a->col, .shape = IG_ARV_STRUCT, .tt = AT_STRUCT, .in_list = true,
                                   .member = s.parent != IG_NONE, .name_skip = s.name_len + 1,
                                   .slot_struct_def = (uint8_t)slot,
                                   .present_def = (uint8_t)(slot + (c->null_mask & 1)),
                                   .elem_nullable = ((s.null_mask >> 1) & 1) || (c->null_mask & 1)};
                return c->name_len > a->name_skip;
            }
            /* inside shown structs, its first entry's level also says where
             * those structs are (row_defs) */
            if (!list_member(a, &s, c, def, 0)) return false;
            a->member = s.parent != IG_NONE;
            if (a->member) a->nullable = a->list_nullable || def > 0;
            return true;
        }
        /* in structs in a list of structs: the list is found up through
         * structs, whose NULLs take `between` levels below its struct's */
        struct ig_colrec up = s, l;
        unsigned between = 0;
        for (unsigned depth = 0; up.type == IG_T_STRUCT && !up.lists && up.parent != IG_NONE &&
                                 depth <= AV_MAX_STRUCT_DEPTH; depth++) {
            between += up.null_mask & 1;
            if (ig_part_column(p, up.parent, &l, NULL)) return false;
            if (list_struct_where(p, up.parent, &l, &def)) {
                if (c->type == IG_T_STRUCT) { /* a struct in each slot: there from present_def */
                    unsigned slot = def + (l.null_mask & 1) + 1u + ((l.null_mask >> 1) & 1); /* as list_member's */
                    *a = (struct acol){.c = a->c, .col = a->col, .shape = IG_ARV_STRUCT, .tt = AT_STRUCT,
                                       .in_list = true, .member = l.parent != IG_NONE, .name_skip = s.name_len + 1,
                                       .slot_struct_def = (uint8_t)slot,
                                       .present_def = (uint8_t)(slot + between + (c->null_mask & 1)),
                                       .elem_nullable = ((l.null_mask >> 1) & 1) || between || (c->null_mask & 1)};
                    return c->name_len > a->name_skip;
                }
                if (!list_member(a, &l, c, def, (uint8_t)between)) return false;
                a->member = l.parent != IG_NONE;
                a->name_skip = s.name_len + 1;
                return c->name_len > a->name_skip;
            }
            up = l;
        }
        if (!under_shown_structs(p, c, &def)) return false;
        a->member = true;
        a->struct_nullable = def > 0;
        a->nullable = a->struct_nullable || (c->null_mask & 1);
        a->name_skip = s.name_len + 1;
        if (c->type == IG_T_STRUCT && c->lists) { /* a list of structs in a struct */
            a->shape = IG_ARV_LIST_STRUCT;
            a->tt = AT_LIST;
            a->nullable = def > 0 || (c->null_mask & 1);
            a->struct_nullable = (c->null_mask >> 1) & 1; /* its elements' structs */
            return c->name_len > a->name_skip;
        }
        if (c->type == IG_T_STRUCT) { /* a struct in a struct */
            a->shape = IG_ARV_STRUCT;
            a->tt = AT_STRUCT;
            a->present_def = (uint8_t)(def + (c->null_mask & 1));
            return c->name_len > a->name_skip;
        }
        if (c->type == IG_T_BLOB && !c->lists && !c->dimension) { /* its reference as (path, size) */
            a->shape = IG_ARV_BLOB;
            a->tt = AT_STRUCT;
            a->width = 8;
            a->nullable = true;
            return c->name_len > a->name_skip;
        }
        if (!member_ok(c)) return false;
        arv_value_type(c, &a->tt, &a->width);
        if (c->lists) { /* a list under the struct: NULL where either is */
            if (!list_levels(a, c, def)) return false;
        } else if (c->dimension) { /* a vector: NULL where it or its struct is, as a top-level one */
            a->shape = IG_ARV_VECTOR;
        } else {
            a->shape = IG_ARV_MEMBER;
        }
        return c->name_len > a->name_skip;
    }
    if (struct_shown(p, col, c)) {
        a->shape = IG_ARV_STRUCT;
        a->tt = AT_STRUCT;
        a->nullable = c->null_mask & 1;
        a->present_def = c->null_mask & 1;
        return true;
    }
    if (list_struct_shown(p, col, c)) {
        a->shape = IG_ARV_LIST_STRUCT;
        a->tt = AT_LIST;
        a->nullable = c->null_mask & 1;
        a->struct_nullable = (c->null_mask >> 1) & 1;
        return true;
    }
    if (c->type == IG_T_STRUCT) return json_shown(p, col, c, a);
    if (c->type == IG_T_BLOB && c->lists == 0 && !c->dimension) { /* its reference as (path, size) */
        a->shape = IG_ARV_BLOB;
        a->tt = AT_STRUCT;
        a->width = 8;         /* the size member's */
        a->nullable = true;   /* a NULL, or a reference list that is not one object */
        return true;
    }
    if (c->type == IG_T_BLOB && c->lists == 1 && !c->dimension) {
        /* a list of objects, shown as List<Struct<path, size>>: elements never
         * NULL are each row's references in one value; else (blob_levels) an
         * object a value, with the list's levels */
        if ((c->null_mask & 2) && !list_levels(a, c, 0)) return false;
        a->blob_levels = (c->null_mask & 2) != 0;
        a->shape = IG_ARV_BLOB_LIST;
        a->tt = AT_LIST;
        a->width = 8; /* the size member's */
        a->nullable = c->null_mask & 1;
        return true;
    }
    if (!arv_value_type(c, &a->tt, &a->width)) return json_shown(p, col, c, a);
    if (c->dimension) {
        if (a->tt != AT_FLOAT || a->width != 4) return json_shown(p, col, c, a);
        if (c->lists) { /* lists (of lists) of vectors, per-frame embeddings: List<...<FixedSizeList>> */
            if (!list_levels(a, c, 0)) return false;
            a->nullable = a->list_nullable;
            return true;
        }
        a->shape = IG_ARV_VECTOR;
        a->nullable = c->max_def > 0;
        return true;
    }
    if (c->lists == 0) {
        a->shape = IG_ARV_FLAT;
        a->nullable = c->flags & IG_COLF_NULLABLE;
        return true;
    }
    if (c->lists <= AV_MAX_LISTS) { /* a list (of lists) of numbers, strings, binary or bools */
        if (!list_levels(a, c, 0)) return false;
        a->nullable = a->list_nullable;
        return true;
    }
    return false;
}

/* Does a page have to be decoded for its counts (arrow_view.h)? */
bool arv_needs_counts(const struct acol *a, const struct ig_pagerec *rec)
{
    if (a->shape == IG_ARV_JSON) return a->nullable; /* its NULL rows; its bytes are the footer's */
    return a->shape == IG_ARV_LIST || a->shape == IG_ARV_MEMBER || a->shape == IG_ARV_BLOB ||
           a->shape == IG_ARV_BLOB_LIST ||
           (a->shape == IG_ARV_FLAT && !a->width && a->tt != AT_BOOL) ||
           (a->nullable && (a->shape == IG_ARV_VECTOR || (rec->flags & IG_PGF_HAS_NULLS)));
}


/* ---- one decoded page, row by row -------------------------------------- */


int arv_load(const struct ig_table *t, uint32_t part, uint64_t group_first_row, uint32_t col, uint32_t page,
                struct ig_reader *r, struct page *pg, struct ig_error *err)
{
    struct ig_column_ref ref;
    int rc = ig_table_column_at(t, col, &ref, err);
    if (!rc) rc = ig_reader_load(r, &t->parts[part], &ref, page, group_first_row, &pg->rec, &pg->v, &pg->del, err);
    if (rc) return rc;
    pg->v.blob_dir = NULL; /* ref's copy dies here */
    uint64_t rows = pg->v.levels ? pg->v.rows : pg->v.n;
    if (rows != pg->rec.row_count)
        return ig_err(err, -EIO, "%s: column %u page %u: %llu rows decoded, the footer says %u", t->parts[part].path, col,
                      page, (unsigned long long)rows, pg->rec.row_count);
    return 0;
}


/* Does the entry (rep, d) begin an item at level m of a list column: a list
 * of level m (1 <= m < nlists), or an element (m == nlists)? Level 0's items
 * are the rows. */
bool arv_begins(const struct acol *a, unsigned m, uint8_t rep, uint8_t d)
{
    if (m == a->nlists) return d > a->empty_def[m - 1];
    return rep <= m && d >= a->null_def[m];
}

/* Row r's object of a blob column (a struct's member: its value where the
 * levels say it is there): false for a NULL (or a reference list that is not
 * one object, which rows/ID shows as null too). */
bool arv_blob_ref(const struct acol *a, const struct ig_values *v, size_t r, struct ig_blob_ref *ref,
                     unsigned *kind)
{
    size_t i = r;
    if (a->member) {
        if (!v->levels || v->defs[v->row_ent[r]] < a->c.max_def) return false;
        i = v->row_val[r];
    } else if (ig_values_is_null(v, r)) {
        return false;
    }
    size_t len;
    const uint8_t *p = ig_values_bytes(v, i, &len);
    if (len != IG_BLOB_REF_BYTES) return false;
    ig_blob_ref_load(p, ref, kind);
    return true;
}

/* The object's path as rows/ID shows it: DIR/ROW.EXT (a struct's member, a
 * value of a nested column: DIR/ROW/0.EXT); its length. */
size_t arv_blob_path(const struct acol *a, char *out, size_t cap, const char *dir, uint64_t row, unsigned kind)
{
    if (a->member) return arv_object_path(out, cap, dir, row, 0, kind);
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "%s%s", dir, row, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Object k of a row of a list of objects, as rows/ID shows it: DIR/ROW/K.EXT. */
size_t arv_object_path(char *out, size_t cap, const char *dir, uint64_t row, size_t k, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "/%zu%s%s", dir, row, k, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

bool arv_row_null(const struct acol *a, const struct ig_values *v, size_t r)
{
    if (a->shape == IG_ARV_JSON) return a->nullable && v->levels && v->defs[v->row_ent[r]] == 0;
    struct ig_blob_ref ref;
    unsigned kind;
    if (a->shape == IG_ARV_BLOB) return !arv_blob_ref(a, v, r, &ref, &kind);
    if (a->shape == IG_ARV_BLOB_LIST && a->blob_levels) return v->defs[v->row_ent[r]] < a->empty_def[0];
    if (a->shape == IG_ARV_FLAT || a->shape == IG_ARV_BLOB_LIST) return ig_values_is_null(v, r);
    uint8_t d = v->defs[v->row_ent[r]];
    return a->shape == IG_ARV_VECTOR || a->shape == IG_ARV_MEMBER ? d < a->c.max_def : d < a->empty_def[0];
}

/* Where row r's value is in v: a flat leaf's row, a member's value index. */
size_t arv_value_at(const struct acol *a, const struct ig_values *v, size_t r)
{
    return a->shape == IG_ARV_MEMBER ? v->row_val[r] : r;
}

/* A struct's first leaf, whose levels say where the struct is NULL. */
const struct acol *arv_first_leaf(const struct acol *a)
{
    while ((a->shape == IG_ARV_STRUCT || a->shape == IG_ARV_LIST_STRUCT) && a->nkids) a = &a->kids[0];
    return a;
}

/* A list of structs' member: one struct slot at level d (its struct NULL
 * below slot_struct_def; the level kept for structs inside it). */
static void count_slot(const struct acol *a, uint8_t d, struct pstat *s)
{
    s->struct_nulls += d < a->slot_struct_def;
    s->slot_defs[d < AV_DEFS ? d : AV_DEFS - 1]++;
}

/* The lists of levels 1 .. nlists - 1 the entry (rep, d) begins, counted
 * (with their NULLs; level 1 of a list's struct member: its struct slots). */
static void arv_level_counts(const struct acol *a, uint8_t rep, uint8_t d, struct pstat *s)
{
    for (unsigned k = 1; k < a->nlists; k++)
        if (arv_begins(a, k, rep, d)) {
            s->slots[k]++;
            s->slot_nulls[k] += d < a->empty_def[k];
            if (k == 1 && a->in_list) count_slot(a, d, s);
        }
}

void arv_page_counts(const struct acol *a, const struct page *pg, struct pstat *s)
{
    const struct ig_values *v = &pg->v;
    *s = (struct pstat){0};
    char dir[800] = "", path[900];
    if (a->shape == IG_ARV_BLOB || a->shape == IG_ARV_BLOB_LIST) ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    for (size_t r = 0; r < pg->rec.row_count; r++) {
        if (arv_bit_set(pg->del, r)) continue;
        s->live++;
        bool null = arv_row_null(a, v, r);
        s->nulls += null;
        if (a->shape == IG_ARV_LIST) {
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                arv_level_counts(a, v->reps[e], v->defs[e], s);
                if (v->defs[e] <= arv_list_empty_def(a)) continue;
                if (a->in_list && a->nlists == 1) count_slot(a, v->defs[e], s);
                s->elems++;
                s->elem_nulls += v->defs[e] != a->c.max_def;
                if (v->defs[e] == a->c.max_def && v->is_bytes) {
                    size_t len;
                    ig_values_bytes(v, vi, &len);
                    s->bytes += len;
                }
                vi += v->defs[e] == a->c.max_def;
            }
        } else if ((a->shape == IG_ARV_FLAT || a->shape == IG_ARV_MEMBER) && !a->width && a->tt != AT_BOOL &&
                   !null) {
            size_t len;
            ig_values_bytes(v, arv_value_at(a, v, r), &len);
            s->bytes += len;
        }
        if (a->member) { /* where the structs around it are NULL (count_struct) */
            uint8_t d = v->defs[v->row_ent[r]];
            s->row_defs[d < AV_DEFS ? d : AV_DEFS - 1]++;
        }
        struct ig_blob_ref ref;
        unsigned kind;
        if (a->shape == IG_ARV_BLOB && !null && arv_blob_ref(a, v, r, &ref, &kind))
            s->bytes += arv_blob_path(a, path, sizeof path, dir, v->row_base + r, kind);
        if (a->shape == IG_ARV_BLOB_LIST && !null && !v->levels) {
            size_t len;
            const uint8_t *refs = ig_values_bytes(v, r, &len);
            for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++, s->elems++) {
                ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &ref, &kind);
                s->bytes += arv_object_path(path, sizeof path, dir, v->row_base + r, k, kind);
            }
        } else if (a->shape == IG_ARV_BLOB_LIST && !null) { /* elements as entries; K counts the row's objects */
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                arv_level_counts(a, v->reps[e], v->defs[e], s); /* a list's struct slots' lists of objects */
                if (v->defs[e] <= arv_list_empty_def(a)) continue;
                if (a->in_list && a->nlists == 1) count_slot(a, v->defs[e], s);
                s->elems++;
                if (v->defs[e] != a->c.max_def) {
                    s->elem_nulls++;
                    continue;
                }
                size_t len;
                const uint8_t *one = ig_values_bytes(v, vi, &len);
                if (len == IG_BLOB_REF_BYTES) {
                    ig_blob_ref_load(one, &ref, &kind);
                    s->bytes += arv_object_path(path, sizeof path, dir, v->row_base + r, vi - v->row_val[r], kind);
                }
                vi++;
            }
        }
    }
    if (a->shape == IG_ARV_VECTOR) s->elems = s->live * a->c.dimension;
}
