/* arrow_fields.c - the fields a record batch shows, as the C export hands
 * them over (arrow_view_int.h, arv_c_field; arrow_view.h, struct
 * ig_arv_field): a column of each shape as its chain of lists, structs and
 * value arrays, with names, formats and nullability. The IPC schema's
 * fields are arrow_view.c's. */
#include "arrow_view_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
