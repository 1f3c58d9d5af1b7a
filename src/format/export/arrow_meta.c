/* arrow_meta.c - the Arrow IPC file's metadata around the body the layout
 * counted (arrow_view_int.h, arv_metadata): the magic, the Schema message
 * (every shown column's fields, FlatBuffers through flatbuf_out.h), the
 * RecordBatch message with its nodes and buffers, and the Footer. Which
 * columns and buffers there are is arrow_view.c's; this only writes them. */
#include "arrow_view_int.h"
#include "flatbuf_out.h"

#include "format/layout.h"
#include "format/model/types.h"
#include "util/endian.h"

#include <errno.h>

/* Arrow's numbers (Message.fbs) */
enum { AH_SCHEMA = 1, AH_RECORD_BATCH = 3 };
enum { A_V5 = 4 };
#define ARROW_MAGIC "ARROW1"

static void type_table(struct fbw *w, size_t slot, uint8_t tt, const struct ig_colrec *c, uint32_t list_size)
{
    size_t at;
    if (tt == AT_INT) {
        uint8_t width, t;
        arv_value_type(c, &t, &width);
        struct fb_field f[] = {{0, FB_I32, width * 8}, {1, FB_U8, arv_is_signed(c->type)}};
        at = fbw_table(w, f, 2, NULL);
    } else if (tt == AT_FLOAT) {
        uint8_t width, t;
        arv_value_type(c, &t, &width);
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

/* A list's elements: its values' field "item" (a vector's FixedSizeList), or
 * an object's Struct<path, size>, NULL as the element. */
static void element_field(struct fbw *w, size_t slot, const struct acol *a)
{
    if (a->shape != IG_ARV_BLOB_LIST) {
        field(w, slot, a, true);
        return;
    }
    struct acol m = {.c = {.type = IG_T_BLOB, .name = "item", .name_len = 4}, .shape = IG_ARV_BLOB, .tt = AT_STRUCT,
                     .nullable = a->elem_nullable};
    field(w, slot, &m, false);
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
        element_field(w, kids + 4, a);
}

/* A list of structs' member m: a field of a value per struct slot, named as
 * itself (NULL where its struct is): an object's Struct<path, size>, a List
 * of values, a vector, a flat value, or a Struct of such. */
static void slot_member_field(struct fbw *w, size_t slot, const struct acol *m)
{
    if (m->shape == IG_ARV_BLOB_LIST && m->nlists == 1) { /* an object: Struct<path, size>, NULL as the element */
        struct acol bm = {.c = {.type = IG_T_BLOB, .name = m->c.name + m->name_skip,
                                .name_len = m->c.name_len - m->name_skip},
                          .shape = IG_ARV_BLOB, .tt = AT_STRUCT, .nullable = m->elem_nullable};
        field(w, slot, &bm, false);
        return;
    }
    bool list = m->nlists > 1, strct = m->shape == IG_ARV_STRUCT; /* a list, a struct in each slot */
    uint8_t tt = list ? AT_LIST : m->c.dimension ? AT_FSL : strct ? AT_STRUCT : m->tt;
    struct fb_field mf[] = {{0, FB_REF, 0}, {1, FB_U8, list ? m->slot_nullable : m->elem_nullable}, {2, FB_U8, tt},
                            {3, FB_REF, 0}, {5, FB_REF, 0}};
    size_t ms[5];
    fbw_patch(w, slot, fbw_table(w, mf, 5, ms));
    fbw_patch(w, ms[0], fbw_string(w, m->c.name + m->name_skip, m->c.name_len - m->name_skip));
    type_table(w, ms[3], tt, &m->c, m->c.dimension);
    size_t mk = fbw_vector(w, strct ? m->nkids : m->c.dimension || list ? 1 : 0, 4, 4);
    fbw_patch(w, ms[4], mk);
    if (list && m->nlists > 2) inner_list_field(w, mk + 4, m, 2); /* lists of lists: "item" lists */
    else if (list) element_field(w, mk + 4, m); /* its values (vectors, objects): "item", NULL as they may be */
    else if (m->c.dimension) vector_floats(w, mk + 4, m);
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

/* Array k of a tree column and its subtree as a Field at slot. */
static void tree_field(struct fbw *w, size_t slot, const struct tree *tr, uint32_t k)
{
    const struct tree_array *x = &tr->a[k];
    uint8_t tt = x->kind == TREE_LIST     ? AT_LIST
                 : x->kind == TREE_STRUCT ? AT_STRUCT
                 : x->kind == TREE_VECTOR ? AT_FSL
                                          : x->tt;
    struct fb_field f[] = {{0, FB_REF, 0}, {1, FB_U8, x->nullable}, {2, FB_U8, tt}, {3, FB_REF, 0}, {5, FB_REF, 0}};
    size_t s[5];
    fbw_patch(w, slot, fbw_table(w, f, 5, s));
    fbw_patch(w, s[0], x->item ? fbw_string(w, "item", 4) : fbw_string(w, x->name, x->name_len));
    struct ig_colrec c = {.type = x->type, .quantize = x->quantize};
    type_table(w, s[3], tt, &c, x->dim);
    uint32_t nkids = x->kind == TREE_LIST || x->kind == TREE_VECTOR ? 1 : x->kind == TREE_STRUCT ? x->nkids : 0;
    size_t kids = fbw_vector(w, nkids, 4, 4);
    fbw_patch(w, s[4], kids);
    for (uint32_t i = 0, m = k + 1; i < nkids; i++, m = arv_tree_next(tr, m))
        tree_field(w, kids + 4 + 4 * (size_t)i, tr, m);
}

/* A Field (and its children: a list's or vector's element, a struct's
 * members) for the reference at slot. */
static void field(struct fbw *w, size_t slot, const struct acol *a, bool child)
{
    if (!child && a->shape == IG_ARV_TREE) {
        tree_field(w, slot, a->tree, 0);
        return;
    }
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
            element_field(w, kids + 4, a);
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

static void record_batch(struct fbw *w, size_t slot, uint64_t rows, const struct arv_buffers *b)
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

int arv_metadata(const struct acol *cols, uint32_t ncols, uint64_t rows, const struct arv_buffers *b,
                 uint64_t body_len, struct ig_buf *head, struct ig_buf *tail)
{
    /* head: magic, Schema message, RecordBatch metadata */
    struct fbw w;
    size_t hslot = 0;
    int e = ig_buf_append(head, ARROW_MAGIC "\0\0", 8);
    size_t at = message_begin(head, &w, AH_SCHEMA, 0, &hslot);
    schema(&w, hslot, cols, ncols);
    message_end(head, &w, at);
    e |= w.err;
    size_t batch_at = head->len;
    at = message_begin(head, &w, AH_RECORD_BATCH, body_len, &hslot);
    record_batch(&w, hslot, rows, b);
    uint32_t meta_len = message_end(head, &w, at);
    e |= w.err;
    if (!e && (ig_buf_append_u32(tail, 0xFFFFFFFFu) || ig_buf_append_u32(tail, 0))) e = -ENOMEM;
    if (!e) e = footer(tail, cols, ncols, batch_at, meta_len, body_len);
    return e;
}
