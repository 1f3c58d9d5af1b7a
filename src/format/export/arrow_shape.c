/* arrow_shape.c - which columns the Arrow view shows and in what shape
 * (arrow_view_int.h, struct acol): flat, vector, list (of lists), struct and
 * its members, list of structs, blobs and lists of blobs, a nested tree
 * (arrow_tree.c), or the rows' JSON text; and which of a column's pages must
 * be decoded to be counted. */
#include "arrow_view_int.h"

#include "format/model/names.h"
#include "format/model/types.h"

#include <string.h>

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
/* A struct in each slot of a list of structs (list: the list's column; s:
 * the struct c is a member of; between: the NULL levels of the structs from
 * the list's struct down to s): there from present_def. */
static bool slot_struct(struct acol *a, const struct ig_colrec *c, const struct ig_colrec *list,
                        const struct ig_colrec *s, uint8_t def, unsigned between)
{
    unsigned slot = def + (list->null_mask & 1) + 1u + ((list->null_mask >> 1) & 1); /* as list_member's */
    *a = (struct acol){.c = a->c, .col = a->col, .shape = IG_ARV_STRUCT, .tt = AT_STRUCT, .in_list = true,
                       .member = list->parent != IG_NONE, .name_skip = s->name_len + 1,
                       .slot_struct_def = (uint8_t)slot,
                       .present_def = (uint8_t)(slot + between + (c->null_mask & 1)),
                       .elem_nullable = ((list->null_mask >> 1) & 1) || between || (c->null_mask & 1)};
    return c->name_len > a->name_skip;
}

/* Column c, a member of struct s (its parent), in a list of structs: s's own
 * list, or one found up through structs. *found false when there is none. */
static bool list_struct_member(const struct ig_part *p, const struct ig_colrec *c, const struct ig_colrec *s,
                               struct acol *a, bool *found)
{
    uint8_t def;
    *found = true;
    if (list_struct_where(p, c->parent, s, &def)) { /* a member of a list of structs */
        if (c->type == IG_T_STRUCT) return slot_struct(a, c, s, s, def, 0);
        /* inside shown structs, its first entry's level also says where
         * those structs are (row_defs) */
        if (!list_member(a, s, c, def, 0)) return false;
        a->member = s->parent != IG_NONE;
        if (a->member) a->nullable = a->list_nullable || def > 0;
        return true;
    }
    /* in structs in a list of structs: the list is found up through
     * structs, whose NULLs take `between` levels below its struct's */
    struct ig_colrec up = *s, l;
    unsigned between = 0;
    for (unsigned depth = 0; up.type == IG_T_STRUCT && !up.lists && up.parent != IG_NONE &&
                             depth <= AV_MAX_STRUCT_DEPTH; depth++) {
        between += up.null_mask & 1;
        if (ig_part_column(p, up.parent, &l, NULL)) return false;
        if (list_struct_where(p, up.parent, &l, &def)) {
            if (c->type == IG_T_STRUCT) return slot_struct(a, c, &l, s, def, between);
            if (!list_member(a, &l, c, def, (uint8_t)between)) return false;
            a->member = l.parent != IG_NONE;
            a->name_skip = s->name_len + 1;
            return c->name_len > a->name_skip;
        }
        up = l;
    }
    *found = false;
    return false;
}

/* Column c, a member of shown structs (s: its parent) in no list of structs:
 * a list of structs, a struct, a blob, a list, a vector or a value. */
static bool struct_member(const struct ig_part *p, const struct ig_colrec *c, const struct ig_colrec *s,
                          struct acol *a)
{
    uint8_t def;
    if (!under_shown_structs(p, c, &def)) return false;
    a->member = true;
    a->struct_nullable = def > 0;
    a->nullable = a->struct_nullable || (c->null_mask & 1);
    a->name_skip = s->name_len + 1;
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

/* A member of a shown struct. */
static bool member_shown(const struct ig_part *p, const struct ig_colrec *c, struct acol *a)
{
    struct ig_colrec s;
    if (ig_part_column(p, c->parent, &s, NULL)) return false;
    bool found;
    bool shown = list_struct_member(p, c, &s, a, &found);
    return found ? shown : struct_member(p, c, &s, a);
}

bool arv_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct acol *a)
{
    if (c->parent != IG_NONE) return member_shown(p, c, a);
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
