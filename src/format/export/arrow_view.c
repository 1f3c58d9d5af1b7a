/* arrow_view.c - a row group as an Arrow IPC file (see arrow_view.h). */
#include "arrow_view.h"
#include "flatbuf_out.h"

#include "blob/blob.h"
#include "format/layout.h"
#include "format/model/names.h"
#include "format/model/schema.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "util/endian.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arrow's numbers (Schema.fbs, Message.fbs) */
enum { AT_INT = 2, AT_FLOAT = 3, AT_BINARY = 4, AT_UTF8 = 5, AT_BOOL = 6, AT_LIST = 12, AT_STRUCT = 13, AT_FSL = 16 };
enum { AH_SCHEMA = 1, AH_RECORD_BATCH = 3 };
enum { A_V5 = 4 };
#define ARROW_MAGIC "ARROW1"

/* ---- the columns shown ------------------------------------------------------ */

/* The most list levels a column shown as lists of lists has: as many as a
 * column may have (schema.h). */
#define AV_MAX_LISTS IG_MAX_LISTS
/* Definition levels counted per row (row_defs); deeper ones count as the last. */
#define AV_DEFS 16
/* The most structs one inside another (struct<a: struct<b: ...>>). */
#define AV_MAX_STRUCT_DEPTH 4

struct pstat {
    uint64_t live, nulls, elems, elem_nulls, bytes; /* bytes: of strings, or of a list's strings */
    uint64_t struct_nulls;                          /* a list of structs' member: elements whose struct is NULL */
    uint64_t slots[AV_MAX_LISTS], slot_nulls[AV_MAX_LISTS]; /* lists of lists: level k's lists */
    uint64_t row_defs[AV_DEFS]; /* a leaf under structs: live rows by their first entry's level */
    uint64_t slot_defs[AV_DEFS]; /* a list of structs' member: struct slots by their level */
};

struct acol {
    uint32_t col;
    struct ig_colrec c;
    uint8_t shape;
    uint8_t tt;    /* Arrow type of the values (a list's or vector's elements) */
    uint8_t width; /* bytes per value: 0 for bool, strings and binary */
    bool nullable, elem_nullable;
    bool member;           /* a struct's member */
    bool struct_nullable;  /* a member: its struct (or one around it) may be NULL */
    uint8_t present_def;   /* a struct: there from this level (its own and its ancestors' NULLs) */
    bool list_nullable;    /* a list: the list itself may be NULL (its struct aside) */
    uint8_t def_base;      /* a list: definition levels above it (its struct's) */
    /* a list's levels, outermost first: below null_def[k] a level-k list is
     * not there (an outer one is NULL or empty), at it NULL when lnullable,
     * at empty_def[k] present and empty; above, it holds items */
    uint8_t nlists;
    uint8_t null_def[AV_MAX_LISTS], empty_def[AV_MAX_LISTS];
    bool lnullable[AV_MAX_LISTS];
    bool in_list;            /* a member of a list's struct elements (list<struct<...>>) */
    bool blob_levels;        /* a list of objects stored an object a value, with levels (NULL elements) */
    bool slot_nullable;      /* a list member of a list's structs: NULL in a slot (its struct or itself) */
    uint8_t slot_struct_def; /* in_list: an element's struct is there from this level */
    uint32_t name_skip;    /* a member: bytes of its name before its own */
    uint32_t first, count; /* the chunk's pages */
    struct pstat *pages, sum;
    struct acol *kids; /* a struct: its members */
    uint32_t nkids;
};

/* The Arrow type of a leaf's values, or false when the view does not show it. */
static bool value_type(const struct ig_colrec *c, uint8_t *tt, uint8_t *width)
{
    *width = 0;
    switch (c->quantize ? IG_T_FLOAT32 : c->type) {
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

static bool is_signed(uint8_t type)
{
    return type == IG_T_INT8 || type == IG_T_INT16 || type == IG_T_INT32 || type == IG_T_INT64;
}

/* The C Data Interface's format string of a leaf's values (its type, as
 * value_type shows it). */
static const char *c_format(const struct ig_colrec *c)
{
    switch (c->quantize ? IG_T_FLOAT32 : c->type) {
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

static bool c_field(const struct acol *a, struct ig_arv_field *f);

/* A list of structs' member m as the C export's field: a value per struct
 * slot (an object's Struct<path, size>, a list, a vector, a flat value, or a
 * struct of flat values). False: out of memory (what was made is f's). */
static bool slot_member_cfield(const struct acol *m, struct ig_arv_field *f)
{
    if (m->shape == IG_ARV_BLOB_LIST) { /* an object: a blob's Struct<path, size>, NULL as the element */
        struct acol bm = *m;
        bm.shape = IG_ARV_BLOB;
        bm.nullable = m->elem_nullable;
        return c_field(&bm, f);
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
    if (m->nlists > 1) { /* a list in each slot */
        *f = (struct ig_arv_field){.col = m->col, .shape = IG_ARV_LIST, .nullable = m->slot_nullable,
                                   .elem_nullable = m->elem_nullable, .format = "+l", .name_skip = m->name_skip};
        snprintf(f->child_format, sizeof f->child_format, "%s", c_format(&m->c));
        return true;
    }
    *f = (struct ig_arv_field){.col = m->col, .shape = m->c.dimension ? IG_ARV_VECTOR : IG_ARV_FLAT,
                               .nullable = m->elem_nullable, .name_skip = m->name_skip};
    if (m->c.dimension) {
        snprintf(f->format, sizeof f->format, "+w:%u", m->c.dimension);
        snprintf(f->child_format, sizeof f->child_format, "%s", c_format(&m->c));
    } else {
        snprintf(f->format, sizeof f->format, "%s", c_format(&m->c));
    }
    return true;
}

/* The field the record batch shows for a (the C export's view of it); a
 * struct's members in f->kids (false: out of memory). */
static bool c_field(const struct acol *a, struct ig_arv_field *f)
{
    *f = (struct ig_arv_field){.col = a->col, .shape = a->shape, .nullable = a->nullable,
                               .elem_nullable = a->elem_nullable, .name_skip = a->name_skip};
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
        for (uint32_t k = 0; k < a->nkids; k++) c_field(&a->kids[k], &f->kids[k]);
        return true;
    }
    const char *vf = c_format(&a->c);
    if (a->shape == IG_ARV_FLAT || a->shape == IG_ARV_MEMBER) {
        snprintf(f->format, sizeof f->format, "%s", vf);
        return true;
    }
    if (a->shape == IG_ARV_VECTOR)
        snprintf(f->format, sizeof f->format, "+w:%u", a->c.dimension);
    else
        snprintf(f->format, sizeof f->format, "+l");
    if (a->shape == IG_ARV_LIST && (a->nlists > 1 || a->c.dimension)) {
        /* a chain of "item" lists, the last holding the elements (vectors: a
         * FixedSizeList "item" of the floats) */
        struct ig_arv_field *at = f;
        for (unsigned k = 1; k < a->nlists; k++) {
            at->shape = IG_ARV_LISTS;
            if (!(at->kids = calloc(1, sizeof *at->kids))) return false;
            at->nkids = 1;
            at = at->kids;
            *at = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_LIST, .nullable = a->lnullable[k],
                                        .elem_nullable = a->elem_nullable, .format = "+l", .name = "item"};
        }
        if (!a->c.dimension) {
            snprintf(at->child_format, sizeof at->child_format, "%s", vf);
            return true;
        }
        at->shape = IG_ARV_LISTS;
        if (!(at->kids = calloc(1, sizeof *at->kids))) return false;
        at->nkids = 1;
        at->kids[0] = (struct ig_arv_field){.col = a->col, .shape = IG_ARV_VECTOR, .nullable = a->elem_nullable,
                                            .name = "item"};
        snprintf(at->kids[0].format, sizeof at->kids[0].format, "+w:%u", a->c.dimension);
        snprintf(at->kids[0].child_format, sizeof at->kids[0].child_format, "%s", vf);
        return true;
    }
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
    if (m->type == IG_T_STRUCT || m->lists > AV_MAX_LISTS || !value_type(m, &tt, &width)) return false;
    return !m->dimension || (!m->lists && tt == AT_FLOAT && width == 4);
}

static bool list_struct_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c);

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

/* Are struct column col (c)'s members all flat values (no list, vector or
 * blob)? */
static bool flat_members(const struct ig_part *p, uint32_t col, const struct ig_colrec *c)
{
    uint32_t found = 0;
    for (uint32_t k = col + 1; k < p->num_columns && found < c->num_children; k++) {
        struct ig_colrec m;
        if (ig_part_column(p, k, &m, NULL)) return false;
        if (m.parent != col) continue;
        if (m.lists || m.dimension || !member_ok(&m)) return false;
        found++;
    }
    return c->num_children && found == c->num_children;
}

/* Is column col (c) a list of structs whose members are all flat values,
 * vectors, blobs, lists of flat values or structs of flat values (maps are
 * list<struct<key, value>>)? */
static bool list_struct_ok(const struct ig_part *p, uint32_t col, const struct ig_colrec *c)
{
    if (c->type != IG_T_STRUCT || c->lists != 1 || !c->num_children) return false;
    uint32_t found = 0;
    for (uint32_t k = col + 1; k < p->num_columns && found < c->num_children; k++) {
        struct ig_colrec m;
        if (ig_part_column(p, k, &m, NULL)) return false;
        if (m.parent != col) continue;
        bool blob = m.type == IG_T_BLOB && !m.dimension;
        /* a list member: one level of flat values (list<struct<bbox: list<float32>, ...>>) */
        bool list = m.lists == 1 && !m.dimension && member_ok(&m);
        /* a struct member of flat values (list<struct<bbox: struct<x, y, w, h>, ...>>) */
        bool strct = m.type == IG_T_STRUCT && !m.lists && flat_members(p, k, &m);
        if (!list && !strct && (m.lists || !(blob || member_ok(&m)))) return false;
        found++;
    }
    return found == c->num_children;
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
    value_type(c, &a->tt, &a->width);
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
                       below its struct or itself; then its elements */
        a->nlists = 2;
        a->lnullable[1] = c->null_mask & 1;
        a->null_def[1] = (uint8_t)(a->empty_def[0] + 1);
        a->empty_def[1] = (uint8_t)(a->slot_struct_def + a->lnullable[1]);
        a->slot_nullable = struct_nullable || a->lnullable[1];
        a->elem_nullable = (c->null_mask >> 1) & 1;
        return c->max_def == a->empty_def[1] + 1 + a->elem_nullable && c->name_len > a->name_skip;
    }
    if (c->type == IG_T_BLOB) { /* a Struct<path, size> per element: an object a value, with levels */
        a->shape = IG_ARV_BLOB_LIST;
        a->blob_levels = true;
        a->tt = AT_STRUCT;
        a->width = 8;
    }
    return c->max_def == a->slot_struct_def + between + (c->null_mask & 1) && c->name_len > a->name_skip;
}

/* Which shape column col (c) of p takes in the view, false when it is not shown. */
static bool shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct acol *a)
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
        if (s.type == IG_T_STRUCT && !s.lists && s.parent != IG_NONE) { /* in a struct in a list of structs */
            struct ig_colrec l;
            if (!ig_part_column(p, s.parent, &l, NULL) && list_struct_where(p, s.parent, &l, &def)) {
                if (!list_member(a, &l, c, def, s.null_mask & 1)) return false;
                a->member = l.parent != IG_NONE;
                a->name_skip = s.name_len + 1;
                return c->name_len > a->name_skip;
            }
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
        value_type(c, &a->tt, &a->width);
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
    if (!value_type(c, &a->tt, &a->width)) return false;
    if (c->dimension) {
        if (a->tt != AT_FLOAT || a->width != 4) return false;
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
static bool needs_counts(const struct acol *a, const struct ig_pagerec *rec)
{
    return a->shape == IG_ARV_LIST || a->shape == IG_ARV_MEMBER || a->shape == IG_ARV_BLOB ||
           a->shape == IG_ARV_BLOB_LIST ||
           (a->shape == IG_ARV_FLAT && !a->width && a->tt != AT_BOOL) ||
           (a->nullable && (a->shape == IG_ARV_VECTOR || (rec->flags & IG_PGF_HAS_NULLS)));
}

static bool bit_set(const uint8_t *bits, size_t i) { return bits && (bits[i / 8] >> (i % 8)) & 1; }

/* ---- one decoded page, row by row -------------------------------------- */

struct page {
    struct ig_values v;
    const uint8_t *del;
    struct ig_pagerec rec;
};

static int load(const struct ig_table *t, uint32_t part, uint64_t group_first_row, uint32_t col, uint32_t page,
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

/* The definition level of an empty innermost list (above it an element slot). */
static uint8_t list_empty_def(const struct acol *a) { return a->empty_def[a->nlists - 1]; }

/* Does the entry (rep, d) begin an item at level m of a list column: a list
 * of level m (1 <= m < nlists), or an element (m == nlists)? Level 0's items
 * are the rows. */
static bool begins(const struct acol *a, unsigned m, uint8_t rep, uint8_t d)
{
    if (m == a->nlists) return d > a->empty_def[m - 1];
    return rep <= m && d >= a->null_def[m];
}

/* Row r's object of a blob column (a struct's member: its value where the
 * levels say it is there): false for a NULL (or a reference list that is not
 * one object, which rows/ID shows as null too). */
static bool blob_ref(const struct acol *a, const struct ig_values *v, size_t r, struct ig_blob_ref *ref,
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

static size_t object_path(char *out, size_t cap, const char *dir, uint64_t row, size_t k, unsigned kind);

/* The object's path as rows/ID shows it: DIR/ROW.EXT (a struct's member, a
 * value of a nested column: DIR/ROW/0.EXT); its length. */
static size_t blob_path(const struct acol *a, char *out, size_t cap, const char *dir, uint64_t row, unsigned kind)
{
    if (a->member) return object_path(out, cap, dir, row, 0, kind);
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "%s%s", dir, row, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Object k of a row of a list of objects, as rows/ID shows it: DIR/ROW/K.EXT. */
static size_t object_path(char *out, size_t cap, const char *dir, uint64_t row, size_t k, unsigned kind)
{
    const char *ext = ig_blob_kind_ext(kind);
    int n = snprintf(out, cap, "%s/%" PRIu64 "/%zu%s%s", dir, row, k, *ext ? "." : "", ext);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

static bool row_null(const struct acol *a, const struct ig_values *v, size_t r)
{
    struct ig_blob_ref ref;
    unsigned kind;
    if (a->shape == IG_ARV_BLOB) return !blob_ref(a, v, r, &ref, &kind);
    if (a->shape == IG_ARV_BLOB_LIST && a->blob_levels) return v->defs[v->row_ent[r]] < a->empty_def[0];
    if (a->shape == IG_ARV_FLAT || a->shape == IG_ARV_BLOB_LIST) return ig_values_is_null(v, r);
    uint8_t d = v->defs[v->row_ent[r]];
    return a->shape == IG_ARV_VECTOR || a->shape == IG_ARV_MEMBER ? d < a->c.max_def : d < a->empty_def[0];
}

/* Where row r's value is in v: a flat leaf's row, a member's value index. */
static size_t value_at(const struct acol *a, const struct ig_values *v, size_t r)
{
    return a->shape == IG_ARV_MEMBER ? v->row_val[r] : r;
}

/* A struct's first leaf, whose levels say where the struct is NULL. */
static const struct acol *first_leaf(const struct acol *a)
{
    while ((a->shape == IG_ARV_STRUCT || a->shape == IG_ARV_LIST_STRUCT) && a->nkids) a = &a->kids[0];
    return a;
}

static void page_counts(const struct acol *a, const struct page *pg, struct pstat *s)
{
    const struct ig_values *v = &pg->v;
    *s = (struct pstat){0};
    char dir[800] = "", path[900];
    if (a->shape == IG_ARV_BLOB || a->shape == IG_ARV_BLOB_LIST) ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    for (size_t r = 0; r < pg->rec.row_count; r++) {
        if (bit_set(pg->del, r)) continue;
        s->live++;
        bool null = row_null(a, v, r);
        s->nulls += null;
        if (a->shape == IG_ARV_LIST) {
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                for (unsigned k = 1; k < a->nlists; k++)
                    if (begins(a, k, v->reps[e], v->defs[e])) {
                        s->slots[k]++;
                        s->slot_nulls[k] += v->defs[e] < a->empty_def[k];
                        if (k == 1 && a->in_list) {
                            s->struct_nulls += v->defs[e] < a->slot_struct_def;
                            s->slot_defs[v->defs[e] < AV_DEFS ? v->defs[e] : AV_DEFS - 1]++;
                        }
                    }
                if (v->defs[e] <= list_empty_def(a)) continue;
                if (a->in_list && a->nlists == 1) {
                    s->struct_nulls += v->defs[e] < a->slot_struct_def;
                    s->slot_defs[v->defs[e] < AV_DEFS ? v->defs[e] : AV_DEFS - 1]++;
                }
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
            ig_values_bytes(v, value_at(a, v, r), &len);
            s->bytes += len;
        }
        if (a->member) { /* where the structs around it are NULL (count_struct) */
            uint8_t d = v->defs[v->row_ent[r]];
            s->row_defs[d < AV_DEFS ? d : AV_DEFS - 1]++;
        }
        struct ig_blob_ref ref;
        unsigned kind;
        if (a->shape == IG_ARV_BLOB && !null && blob_ref(a, v, r, &ref, &kind))
            s->bytes += blob_path(a, path, sizeof path, dir, v->row_base + r, kind);
        if (a->shape == IG_ARV_BLOB_LIST && !null && !v->levels) {
            size_t len;
            const uint8_t *refs = ig_values_bytes(v, r, &len);
            for (size_t k = 0; k < len / IG_BLOB_REF_BYTES; k++, s->elems++) {
                ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &ref, &kind);
                s->bytes += object_path(path, sizeof path, dir, v->row_base + r, k, kind);
            }
        } else if (a->shape == IG_ARV_BLOB_LIST && !null) { /* elements as entries; K counts the row's objects */
            uint32_t vi = v->row_val[r];
            for (uint32_t e = v->row_ent[r]; e < v->row_ent[r + 1]; e++) {
                if (v->defs[e] <= list_empty_def(a)) continue;
                if (a->in_list) {
                    s->struct_nulls += v->defs[e] < a->slot_struct_def;
                    s->slot_defs[v->defs[e] < AV_DEFS ? v->defs[e] : AV_DEFS - 1]++;
                }
                s->elems++;
                if (v->defs[e] != a->c.max_def) {
                    s->elem_nulls++;
                    continue;
                }
                size_t len;
                const uint8_t *one = ig_values_bytes(v, vi, &len);
                if (len == IG_BLOB_REF_BYTES) {
                    ig_blob_ref_load(one, &ref, &kind);
                    s->bytes += object_path(path, sizeof path, dir, v->row_base + r, vi - v->row_val[r], kind);
                }
                vi++;
            }
        }
    }
    if (a->shape == IG_ARV_VECTOR) s->elems = s->live * a->c.dimension;
}

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
    bitmap(b, IG_ARV_SLOT_STRUCT_VALID, first_leaf(m), m->sum.elems, m->sum.struct_nulls > 0);
    b->level = 0;
    for (uint32_t k = 0; k < m->nkids; k++) slot_member_body(b, &m->kids[k]);
}

static void column_body(struct body *b, const struct acol *a)
{
    if (a->shape == IG_ARV_LIST_STRUCT) { /* the list and the structs from the first member, then each member */
        const struct acol *m0 = first_leaf(a);
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
        bitmap(b, IG_ARV_STRUCT_VALID, first_leaf(a), a->sum.live, a->sum.nulls > 0);
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

/* ---- metadata ----------------------------------------------------------- */

static void type_table(struct fbw *w, size_t slot, uint8_t tt, const struct ig_colrec *c, uint32_t list_size)
{
    size_t at;
    if (tt == AT_INT) {
        uint8_t width, t;
        value_type(c, &t, &width);
        struct fb_field f[] = {{0, FB_I32, width * 8}, {1, FB_U8, is_signed(c->type)}};
        at = fbw_table(w, f, 2, NULL);
    } else if (tt == AT_FLOAT) {
        uint8_t width, t;
        value_type(c, &t, &width);
        struct fb_field f[] = {{0, FB_I16, width == 8 ? 2 : 1}}; /* SINGLE, DOUBLE */
        at = fbw_table(w, f, 1, NULL);
    } else if (tt == AT_FSL) {
        struct fb_field f[] = {{0, FB_I32, list_size}};
        at = fbw_table(w, f, 1, NULL);
    } else {
        at = fbw_table(w, NULL, 0, NULL); /* Utf8, Binary, Bool, List: no fields */
    }
    fbw_patch(w, slot, at);
}

static void field(struct fbw *w, size_t slot, const struct acol *a, bool child);

/* A vector's (a list's or a list of structs' member's) floats: the
 * FixedSizeList's "item", never NULL. */
static void vector_floats(struct fbw *w, size_t slot, const struct acol *a)
{
    struct acol lanes = *a;
    lanes.c.dimension = 0;
    lanes.elem_nullable = false;
    field(w, slot, &lanes, true);
}

/* Level k (>= 1) of a list of lists: a List field "item" holding level k + 1
 * or the elements. */
static void inner_list_field(struct fbw *w, size_t slot, const struct acol *a, unsigned k)
{
    struct fb_field f[] = {{0, FB_REF, 0}, {1, FB_U8, a->lnullable[k]}, {2, FB_U8, AT_LIST}, {3, FB_REF, 0}, {5, FB_REF, 0}};
    size_t s[5];
    fbw_patch(w, slot, fbw_table(w, f, 5, s));
    fbw_patch(w, s[0], fbw_string(w, "item", 4));
    type_table(w, s[3], AT_LIST, &a->c, 0);
    size_t kids = fbw_vector(w, 1, 4, 4);
    fbw_patch(w, s[4], kids);
    if (k + 1 < a->nlists)
        inner_list_field(w, kids + 4, a, k + 1);
    else
        field(w, kids + 4, a, true);
}

/* A list of structs' member m: a field of a value per struct slot, named as
 * itself (NULL where its struct is): an object's Struct<path, size>, a List
 * of values, a vector, a flat value, or a Struct of such. */
static void slot_member_field(struct fbw *w, size_t slot, const struct acol *m)
{
    if (m->shape == IG_ARV_BLOB_LIST) { /* an object: Struct<path, size>, NULL as the element */
        struct acol bm = {.c = {.type = IG_T_BLOB, .name = m->c.name + m->name_skip,
                                .name_len = m->c.name_len - m->name_skip},
                          .shape = IG_ARV_BLOB, .tt = AT_STRUCT, .nullable = m->elem_nullable};
        field(w, slot, &bm, false);
        return;
    }
    bool list = m->nlists > 1, strct = m->shape == IG_ARV_STRUCT; /* a list, a struct in each slot */
    uint8_t tt = m->c.dimension ? AT_FSL : list ? AT_LIST : strct ? AT_STRUCT : m->tt;
    struct fb_field mf[] = {{0, FB_REF, 0}, {1, FB_U8, list ? m->slot_nullable : m->elem_nullable}, {2, FB_U8, tt},
                            {3, FB_REF, 0}, {5, FB_REF, 0}};
    size_t ms[5];
    fbw_patch(w, slot, fbw_table(w, mf, 5, ms));
    fbw_patch(w, ms[0], fbw_string(w, m->c.name + m->name_skip, m->c.name_len - m->name_skip));
    type_table(w, ms[3], tt, &m->c, m->c.dimension);
    size_t mk = fbw_vector(w, strct ? m->nkids : m->c.dimension || list ? 1 : 0, 4, 4);
    fbw_patch(w, ms[4], mk);
    if (list) field(w, mk + 4, m, true); /* its values: "item", NULL as they may be */
    if (m->c.dimension) vector_floats(w, mk + 4, m);
    for (uint32_t k = 0; strct && k < m->nkids; k++) slot_member_field(w, mk + 4 + 4 * (size_t)k, &m->kids[k]);
}

/* A list of structs' element: a Struct field "item" whose children are its
 * members (slot_member_field). */
static void list_struct_item(struct fbw *w, size_t slot, const struct acol *a)
{
    struct fb_field f[] = {{0, FB_REF, 0}, {1, FB_U8, a->struct_nullable}, {2, FB_U8, AT_STRUCT}, {3, FB_REF, 0},
                           {5, FB_REF, 0}};
    size_t s[5];
    fbw_patch(w, slot, fbw_table(w, f, 5, s));
    fbw_patch(w, s[0], fbw_string(w, "item", 4));
    type_table(w, s[3], AT_STRUCT, &a->c, 0);
    size_t kids = fbw_vector(w, a->nkids, 4, 4);
    fbw_patch(w, s[4], kids);
    for (uint32_t k = 0; k < a->nkids; k++) slot_member_field(w, kids + 4 + 4 * (size_t)k, &a->kids[k]);
}

/* A Field (and its children: a list's or vector's element, a struct's
 * members) for the reference at slot. */
static void field(struct fbw *w, size_t slot, const struct acol *a, bool child)
{
    uint8_t tt = a->tt;
    bool nullable = child ? a->elem_nullable : a->nullable;
    bool vector_item = child && a->shape == IG_ARV_LIST && a->c.dimension; /* a list's vectors */
    if (!child && a->shape == IG_ARV_LIST) tt = AT_LIST;
    if ((!child && a->shape == IG_ARV_VECTOR) || vector_item) tt = AT_FSL;
    struct fb_field f[] = {{0, FB_REF, 0}, {1, FB_U8, nullable}, {2, FB_U8, tt}, {3, FB_REF, 0}, {5, FB_REF, 0}};
    size_t s[5];
    fbw_patch(w, slot, fbw_table(w, f, 5, s));
    if (child)
        fbw_patch(w, s[0], fbw_string(w, "item", 4));
    else
        fbw_patch(w, s[0], fbw_string(w, a->c.name + a->name_skip, a->c.name_len - a->name_skip));
    type_table(w, s[3], tt, &a->c, a->c.dimension);
    uint32_t nkids = vector_item                   ? 1
                     : child                       ? 0
                     : a->shape == IG_ARV_STRUCT   ? a->nkids
                     : a->shape == IG_ARV_BLOB     ? 2
                     : a->shape == IG_ARV_LIST || a->shape == IG_ARV_VECTOR || a->shape == IG_ARV_BLOB_LIST ||
                               a->shape == IG_ARV_LIST_STRUCT
                         ? 1
                                                   : 0;
    size_t kids = fbw_vector(w, nkids, 4, 4);
    fbw_patch(w, s[4], kids);
    for (uint32_t k = 0; k < nkids; k++)
        if (vector_item) {
            vector_floats(w, kids + 4, a);
        } else if (a->shape == IG_ARV_STRUCT) {
            field(w, kids + 4 + 4 * (size_t)k, &a->kids[k], false);
        } else if (a->shape == IG_ARV_BLOB_LIST) { /* its item: a Struct<path, size>, NULL as the element */
            struct acol m = {.c = {.type = IG_T_BLOB, .name = "item", .name_len = 4}, .shape = IG_ARV_BLOB,
                             .tt = AT_STRUCT, .nullable = a->elem_nullable};
            field(w, kids + 4, &m, false);
        } else if (a->shape == IG_ARV_BLOB) { /* path: Utf8, size: Int64, nullable as the blob */
            struct acol m = {.c = {.type = k ? IG_T_INT64 : IG_T_STRING, .name = k ? "size" : "path", .name_len = 4},
                             .shape = IG_ARV_FLAT, .tt = k ? AT_INT : AT_UTF8, .nullable = a->nullable};
            field(w, kids + 4 + 4 * (size_t)k, &m, false);
        } else if (a->shape == IG_ARV_LIST && a->nlists > 1) {
            inner_list_field(w, kids + 4, a, 1);
        } else if (a->shape == IG_ARV_LIST_STRUCT) {
            list_struct_item(w, kids + 4, a);
        } else {
            field(w, kids + 4, a, true);
        }
}

static void schema(struct fbw *w, size_t slot, const struct acol *cols, uint32_t ncols)
{
    struct fb_field f[] = {{1, FB_REF, 0}};
    size_t s[1];
    fbw_patch(w, slot, fbw_table(w, f, 1, s));
    size_t v = fbw_vector(w, ncols, 4, 4);
    fbw_patch(w, s[0], v);
    for (uint32_t i = 0; i < ncols; i++) field(w, v + 4 + 4 * (size_t)i, &cols[i], false);
}

/* An encapsulated message: continuation, length, Message, padding. The header
 * table is written by the caller into slot *hslot after this returns the
 * writer (fbw_finish then closes it through message_end). */
static size_t message_begin(struct ig_buf *out, struct fbw *w, uint8_t header_type, uint64_t body_len,
                            size_t *hslot)
{
    size_t start = out->len;
    if (ig_buf_append_u32(out, 0xFFFFFFFFu) || ig_buf_append_u32(out, 0)) {
        *w = (struct fbw){.out = out, .err = -ENOMEM};
        return start;
    }
    fbw_init(w, out);
    struct fb_field f[] = {{0, FB_I16, A_V5}, {1, FB_U8, header_type}, {2, FB_REF, 0}, {3, FB_I64, (int64_t)body_len}};
    size_t s[4];
    fbw_patch(w, 0, fbw_table(w, f, 4, s));
    *hslot = s[2];
    return start;
}

static uint32_t message_end(struct ig_buf *out, struct fbw *w, size_t start)
{
    size_t len = fbw_finish(w);
    if (!w->err) ig_st32(out->data + start + 4, (uint32_t)len);
    return (uint32_t)(8 + len);
}

static void record_batch(struct fbw *w, size_t slot, uint64_t rows, const struct body *b)
{
    struct fb_field f[] = {{0, FB_I64, (int64_t)rows}, {1, FB_REF, 0}, {2, FB_REF, 0}};
    size_t s[3];
    fbw_patch(w, slot, fbw_table(w, f, 3, s));
    size_t v = fbw_vector(w, b->nn, 16, 8);
    fbw_patch(w, s[1], v);
    if (!w->err)
        for (uint32_t i = 0; i < b->nn; i++) {
            ig_st64(fbw_at(w, v + 4 + 16 * (size_t)i), b->nodes[i][0]);
            ig_st64(fbw_at(w, v + 12 + 16 * (size_t)i), b->nodes[i][1]);
        }
    v = fbw_vector(w, b->nb, 16, 8);
    fbw_patch(w, s[2], v);
    if (!w->err)
        for (uint32_t i = 0; i < b->nb; i++) {
            ig_st64(fbw_at(w, v + 4 + 16 * (size_t)i), b->bufs[i][0]);
            ig_st64(fbw_at(w, v + 12 + 16 * (size_t)i), b->bufs[i][1]);
        }
}

static int footer(struct ig_buf *out, const struct acol *cols, uint32_t ncols, uint64_t batch_at, uint32_t meta_len,
                  uint64_t body_len)
{
    struct fbw w;
    fbw_init(&w, out);
    struct fb_field f[] = {{0, FB_I16, A_V5}, {1, FB_REF, 0}, {2, FB_REF, 0}, {3, FB_REF, 0}};
    size_t s[4];
    fbw_patch(&w, 0, fbw_table(&w, f, 4, s));
    schema(&w, s[1], cols, ncols);
    fbw_patch(&w, s[2], fbw_vector(&w, 0, 24, 8));
    size_t v = fbw_vector(&w, 1, 24, 8);
    fbw_patch(&w, s[3], v);
    if (!w.err) {
        ig_st64(fbw_at(&w, v + 4), batch_at);
        ig_st32(fbw_at(&w, v + 12), meta_len);
        ig_st64(fbw_at(&w, v + 20), body_len);
    }
    size_t len = fbw_finish(&w);
    if (w.err || ig_buf_append_u32(out, (uint32_t)len) || ig_buf_append(out, ARROW_MAGIC, 6)) return -ENOMEM;
    return 0;
}

/* ---- the layout ------------------------------------------------------------ */

static void cols_free(struct acol *cols, uint32_t n)
{
    for (uint32_t i = 0; cols && i < n; i++) {
        free(cols[i].pages);
        cols_free(cols[i].kids, cols[i].nkids);
    }
    free(cols);
}

/* The chunk's pages of a, counted (decoding those that must be). */
static int count_column(const struct ig_table *t, const struct ig_arv *out, struct acol *a, uint32_t lg,
                        uint32_t group_rows, struct ig_reader *r, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[out->part];
    int rc = ig_part_chunk(p, lg, a->c.leaf, &a->first, &a->count, err);
    if (rc) return rc;
    if (!(a->pages = calloc(a->count ? a->count : 1, sizeof *a->pages))) return ig_err(err, -ENOMEM, "out of memory");
    uint32_t rows_before = 0;
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    for (uint32_t i = 0; !rc && i < a->count; i++) {
        uint32_t page = a->first + i;
        struct ig_pagerec rec;
        rc = ig_part_page(p, page, &rec, err);
        if (!rc) rc = ig_chunk_page_check(p, page, &rec, a->c.leaf, rows_before, group_rows, err);
        if (rc) break;
        rows_before += rec.row_count;
        struct pstat *s = &a->pages[i];
        if (rec.row_count == rec.deleted) continue;
        if (needs_counts(a, &rec)) {
            rc = load(t, out->part, out->group_first_row, a->col, page, r, &pg, err);
            if (!rc) page_counts(a, &pg, s);
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
        if (!shown(p, k, &m->c, m))
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
    const struct acol *leaf = first_leaf(a);
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
    for (uint32_t col = 0; !rc && col < p->num_columns; col++) {
        struct acol *a = &cols[ncols];
        *a = (struct acol){0}; /* the slot a column not shown may have used */
        rc = ig_part_column(p, col, &a->c, err);
        if (rc || a->c.parent != IG_NONE || !shown(p, col, &a->c, a)) continue;
        a->col = col;
        ncols++;
        if (a->shape == IG_ARV_STRUCT || a->shape == IG_ARV_LIST_STRUCT)
            rc = count_struct(t, out, a, lg, gr.row_count, r, err);
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

    /* head: magic, Schema message, RecordBatch metadata */
    if (!rc) {
        struct fbw w;
        size_t hslot = 0;
        int e = ig_buf_append(&out->head, ARROW_MAGIC "\0\0", 8);
        size_t at = message_begin(&out->head, &w, AH_SCHEMA, 0, &hslot);
        schema(&w, hslot, cols, ncols);
        message_end(&out->head, &w, at);
        e |= w.err;
        size_t batch_at = out->head.len;
        at = message_begin(&out->head, &w, AH_RECORD_BATCH, b.at, &hslot);
        record_batch(&w, hslot, out->rows, &b);
        uint32_t meta_len = message_end(&out->head, &w, at);
        e |= w.err;
        if (!e && (ig_buf_append_u32(&out->tail, 0xFFFFFFFFu) || ig_buf_append_u32(&out->tail, 0))) e = -ENOMEM;
        if (!e) e = footer(&out->tail, cols, ncols, batch_at, meta_len, b.at);
        if (e) rc = ig_err(err, -ENOMEM, "out of memory");
    }
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
            if (!c_field(&cols[i], &out->fields[i])) rc = ig_err(err, -ENOMEM, "out of memory");
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

/* ---- rendering ------------------------------------------------------------ */

struct bits {
    uint8_t *o;
    uint64_t i, cap; /* cap: the piece's bits */
    bool over;       /* more bits than the piece holds: the layout's counts are wrong */
};

static void put_bit(struct bits *b, bool on)
{
    if (b->i >= b->cap) {
        b->over = true;
        return;
    }
    if (on) b->o[b->i / 8] |= (uint8_t)(1u << (b->i % 8));
    b->i++;
}

/* A bitmap over the whole chunk: row validity, bool values or list elements' validity. */
static int render_bits(const struct ig_table *t, const struct ig_arv *v, const struct acol *a,
                       const struct ig_arv_piece *pc, struct ig_reader *r, uint8_t *o, struct ig_error *err)
{
    const struct ig_part *p = &t->parts[v->part];
    struct bits b = {o, 0, pc->len * 8, false};
    struct page pg;
    ig_values_init(&pg.v, IG_T_INT64);
    int rc = 0;
    for (uint32_t page = pc->page; !rc && page < pc->page + pc->npages; page++) {
        struct ig_pagerec rec;
        if ((rc = ig_part_page(p, page, &rec, err))) break;
        if (rec.row_count == rec.deleted) continue;
        if (pc->kind == IG_ARV_VALID && !needs_counts(a, &rec)) { /* no NULL here */
            for (uint32_t k = 0; k < rec.row_count - rec.deleted && b.i < b.cap; k++) put_bit(&b, true);
            continue;
        }
        if ((rc = load(t, v->part, v->group_first_row, a->col, page, r, &pg, err))) break;
        const struct ig_values *x = &pg.v;
        /* a row gives one bit, or one an element (a level's list): not one an
         * entry, since a NULL or empty list is an entry and no element */
        for (size_t row = 0; row < rec.row_count && !b.over; row++) {
            if (bit_set(pg.del, row)) continue;
            if (pc->kind != IG_ARV_VALID && pc->kind != IG_ARV_STRUCT_VALID && pc->kind != IG_ARV_BOOL &&
                !x->levels) {
                b.over = true; /* elements without levels: not a layout this view makes */
                break;
            }
            if (pc->kind == IG_ARV_VALID) {
                put_bit(&b, !row_null(a, x, row));
            } else if (pc->kind == IG_ARV_STRUCT_VALID) { /* the struct is there from level pc->level */
                put_bit(&b, x->defs[x->row_ent[row]] >= pc->level);
            } else if (pc->kind == IG_ARV_BOOL) {
                put_bit(&b, !row_null(a, x, row) && x->lanes[value_at(a, x, row)]);
            } else if (pc->kind == IG_ARV_ELEM_VALID) {
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (x->defs[e] > list_empty_def(a)) put_bit(&b, x->defs[e] == a->c.max_def);
            } else if (pc->kind == IG_ARV_SLOT_STRUCT_VALID) { /* a list of structs: each element's struct (or
                                                                  the struct in it there from pc->level) */
                uint8_t there = pc->level ? pc->level : a->slot_struct_def;
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (a->nlists > 1 ? begins(a, 1, x->reps[e], x->defs[e]) : x->defs[e] > list_empty_def(a))
                        put_bit(&b, x->defs[e] >= there);
            } else if (pc->kind == IG_ARV_LEVEL_VALID) { /* level k's lists: NULL at their null_def */
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++)
                    if (begins(a, pc->level, x->reps[e], x->defs[e])) put_bit(&b, x->defs[e] >= a->empty_def[pc->level]);
            } else { /* a list of bools: a NULL element's bit is 0 */
                uint32_t vi = x->row_val[row];
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                    if (x->defs[e] <= list_empty_def(a)) continue;
                    bool on = x->defs[e] == a->c.max_def && x->lanes[vi];
                    vi += x->defs[e] == a->c.max_def;
                    put_bit(&b, on);
                }
            }
        }
        if (b.over)
            rc = ig_err(err, -EIO, "%s: column %u page %u: more values than the layout counted", p->path, a->col,
                        page);
    }
    ig_values_free(&pg.v);
    return rc;
}

static void put_lane(uint8_t *o, uint64_t lane, unsigned width)
{
    switch (width) {
    case 1: *o = (uint8_t)lane; break;
    case 2: ig_st16(o, (uint16_t)lane); break;
    case 4: ig_st32(o, (uint32_t)lane); break;
    default: ig_st64(o, lane); break;
    }
}

/* A list of strings' page: its elements' offsets or bytes into o (pc->len bytes). */
static int render_list_bytes(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (bit_set(pg->del, row)) continue;
        uint32_t vi = x->row_val[row];
        for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
            if (x->defs[e] <= list_empty_def(a)) continue;
            size_t len = 0;
            const uint8_t *bytes = x->defs[e] == a->c.max_def ? ig_values_bytes(x, vi++, &len) : NULL;
            if (pc->kind == IG_ARV_ELEM_OFFSETS) {
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
                next += len;
            } else if (len) {
                if (at + len > pc->len) return -EIO;
                memcpy(o + at, bytes, len);
                at += len;
            }
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* One object's share of a blob piece at o + *at: its path's offset (kind
 * `offsets`; *next the running byte count), its path's bytes, or its size
 * (8 bytes). -EIO past the piece's end. */
static int put_object(const struct ig_arv_piece *pc, uint8_t offsets, uint8_t *o, uint64_t *at, uint64_t *next,
                      const char *path, size_t len, uint64_t size)
{
    uint64_t need = pc->kind == IG_ARV_BYTES ? len : pc->kind == offsets ? 4 : 8;
    if (*at + need > pc->len) return -EIO;
    if (pc->kind == offsets) {
        ig_st32(o + *at, (uint32_t)*next);
        *next += len;
    } else if (pc->kind == IG_ARV_BYTES) {
        memcpy(o + *at, path, len);
    } else {
        ig_st64(o + *at, size);
    }
    *at += need;
    return 0;
}

/* A blob column's page: its paths' offsets or bytes, or its sizes, into o (pc->len bytes, zeroed). */
static int render_blob_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    char dir[800], path[900];
    ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (bit_set(pg->del, row)) continue;
        struct ig_blob_ref ref = {0};
        unsigned kind = 0;
        bool obj = blob_ref(a, x, row, &ref, &kind);
        size_t len = obj ? blob_path(a, path, sizeof path, dir, x->row_base + row, kind) : 0;
        if (put_object(pc, IG_ARV_OFFSETS, o, &at, &next, path, len, obj ? ref.size : 0)) return -EIO;
    }
    return at == pc->len ? 0 : -EIO;
}

/* A list of objects' page: its rows' offsets, its objects' path offsets or
 * bytes, or their sizes, into o (pc->len bytes, zeroed). */
static int render_blob_list_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg,
                                 uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    if (x->levels != a->blob_levels) return -EIO; /* not the layout shown() expects */
    char dir[800], path[900];
    ig_blob_dir_name(a->c.name, a->c.name_len, dir, sizeof dir);
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (bit_set(pg->del, row)) continue;
        if (a->blob_levels) { /* an object a value: NULL elements take a slot with no path */
            if (pc->kind == IG_ARV_OFFSETS) { /* the row's first element, then its elements counted */
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) next += x->defs[e] > list_empty_def(a);
                continue;
            }
            uint32_t vi = x->row_val[row];
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                if (x->defs[e] <= list_empty_def(a)) continue;
                struct ig_blob_ref ref = {0};
                unsigned kind = 0;
                size_t plen = 0, len = 0;
                if (x->defs[e] == a->c.max_def) {
                    const uint8_t *one = ig_values_bytes(x, vi, &len);
                    if (len == IG_BLOB_REF_BYTES) {
                        ig_blob_ref_load(one, &ref, &kind);
                        plen = object_path(path, sizeof path, dir, x->row_base + row, vi - x->row_val[row], kind);
                    }
                    vi++;
                }
                if (put_object(pc, IG_ARV_ELEM_OFFSETS, o, &at, &next, path, plen, ref.size)) return -EIO;
            }
            continue;
        }
        size_t len = 0;
        const uint8_t *refs = ig_values_is_null(x, row) ? NULL : ig_values_bytes(x, row, &len);
        size_t k = len / IG_BLOB_REF_BYTES;
        if (pc->kind == IG_ARV_OFFSETS) {
            if (at + 4 > pc->len) return -EIO;
            ig_st32(o + at, (uint32_t)next);
            at += 4;
            next += k;
            continue;
        }
        for (size_t j = 0; j < k; j++) {
            struct ig_blob_ref ref;
            unsigned kind;
            ig_blob_ref_load(refs + j * IG_BLOB_REF_BYTES, &ref, &kind);
            size_t plen = object_path(path, sizeof path, dir, x->row_base + row, j, kind);
            if (put_object(pc, IG_ARV_ELEM_OFFSETS, o, &at, &next, path, plen, ref.size)) return -EIO;
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* A list of lists' page: its level-k lists' offsets into level k + 1 (k >= 1). */
static int render_level_offsets(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    const struct ig_values *x = &pg->v;
    unsigned k = pc->level;
    if (!k || k >= a->nlists) return -EIO;
    uint64_t at = 0, next = pc->base;
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (bit_set(pg->del, row)) continue;
        for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
            if (begins(a, k, x->reps[e], x->defs[e])) {
                if (at + 4 > pc->len) return -EIO;
                ig_st32(o + at, (uint32_t)next);
                at += 4;
            }
            next += begins(a, k + 1, x->reps[e], x->defs[e]);
        }
    }
    return at == pc->len ? 0 : -EIO;
}

/* A page's values, offsets or bytes into o (pc->len bytes, zeroed). */
static int render_page(const struct acol *a, const struct ig_arv_piece *pc, const struct page *pg, uint8_t *o)
{
    if (a->shape == IG_ARV_BLOB) return render_blob_page(a, pc, pg, o);
    if (pc->kind == IG_ARV_LEVEL_OFFSETS) return render_level_offsets(a, pc, pg, o);
    if (a->shape == IG_ARV_BLOB_LIST) return render_blob_list_page(a, pc, pg, o);
    if (a->shape == IG_ARV_LIST && (pc->kind == IG_ARV_ELEM_OFFSETS || pc->kind == IG_ARV_BYTES))
        return render_list_bytes(a, pc, pg, o);
    const struct ig_values *x = &pg->v;
    uint64_t at = 0, next = pc->base;
    uint32_t w = pc->width;
    uint32_t lanes = a->c.dimension ? a->c.dimension : 1, slot = w * lanes; /* a list's element */
    for (size_t row = 0; row < pg->rec.row_count; row++) {
        if (bit_set(pg->del, row)) continue;
        bool null = row_null(a, x, row);
        uint64_t need;
        size_t len = 0;
        const uint8_t *bytes = NULL;
        if (pc->kind == IG_ARV_OFFSETS) {
            need = 4;
        } else if (pc->kind == IG_ARV_BYTES) {
            if (!null) bytes = ig_values_bytes(x, value_at(a, x, row), &len);
            need = len;
        } else if (a->shape == IG_ARV_VECTOR) {
            need = (uint64_t)w * a->c.dimension;
        } else if (a->shape == IG_ARV_LIST) {
            need = 0;
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) need += x->defs[e] > list_empty_def(a) ? slot : 0;
        } else {
            need = w;
        }
        if (at + need > pc->len) return -EIO;
        if (pc->kind == IG_ARV_OFFSETS) {
            ig_st32(o + at, (uint32_t)next);
            if (a->shape == IG_ARV_LIST) { /* the row's level-1 items: lists, or elements */
                for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) next += begins(a, 1, x->reps[e], x->defs[e]);
            } else if (!null) {
                ig_values_bytes(x, value_at(a, x, row), &len);
                next += len;
            }
        } else if (pc->kind == IG_ARV_BYTES) {
            if (len) memcpy(o + at, bytes, len);
        } else if (a->shape == IG_ARV_VECTOR) {
            for (uint32_t k = 0; !null && k < a->c.dimension; k++) put_lane(o + at + 4 * k, x->lanes[x->row_val[row] + k], 4);
        } else if (a->shape == IG_ARV_LIST) {
            uint32_t vi = x->row_val[row], k = 0;
            for (uint32_t e = x->row_ent[row]; e < x->row_ent[row + 1]; e++) {
                if (x->defs[e] <= list_empty_def(a)) continue;
                for (uint32_t j = 0; x->defs[e] == a->c.max_def && j < lanes; j++)
                    put_lane(o + at + (uint64_t)slot * k + (uint64_t)w * j, x->lanes[vi++], w);
                k++;
            }
        } else if (!null) {
            put_lane(o + at, x->lanes[value_at(a, x, row)], w);
        }
        at += need;
    }
    return at == pc->len ? 0 : -EIO;
}

int ig_arv_render(const struct ig_table *t, const struct ig_arv *v, const struct ig_arv_piece *pc,
                  struct ig_reader *r, struct ig_buf *out, struct ig_error *err)
{
    uint8_t *o = ig_buf_extend(out, pc->len);
    if (!o) return ig_err(err, -ENOMEM, "out of memory");
    memset(o, 0, pc->len);
    size_t base = out->len - pc->len;
    if (pc->kind == IG_ARV_ZERO) return 0;
    if (pc->kind == IG_ARV_END) {
        if (pc->len != 4) return ig_err(err, -EIO, "Arrow view: a closing offset of %llu bytes", (unsigned long long)pc->len);
        ig_st32(o, (uint32_t)pc->base);
        return 0;
    }
    const struct ig_part *p = &t->parts[v->part];
    struct acol a = {.col = pc->col};
    int rc = ig_part_column(p, pc->col, &a.c, err);
    if (!rc && !shown(p, pc->col, &a.c, &a))
        rc = ig_err(err, -EIO, "%s: column %u is not in the Arrow view", p->path, pc->col);
    if (!rc && pc->kind < IG_ARV_FIXED) { /* the bitmaps */
        a.count = pc->npages;
        rc = render_bits(t, v, &a, pc, r, o, err);
    } else if (!rc) {
        struct page pg;
        ig_values_init(&pg.v, IG_T_INT64);
        rc = load(t, v->part, v->group_first_row, pc->col, pc->page, r, &pg, err);
        if (!rc && render_page(&a, pc, &pg, o))
            rc = ig_err(err, -EIO, "%s: column %u page %u: does not fit its Arrow piece (the footer's counts are wrong)",
                        p->path, pc->col, pc->page);
        ig_values_free(&pg.v);
    }
    if (rc) out->len = base;
    return rc;
}
