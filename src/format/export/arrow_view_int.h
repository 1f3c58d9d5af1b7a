/* arrow_view_int.h - inside the Arrow view (arrow_view.h): what its files
 * share.
 *
 *   arrow_types.c   the Arrow type of a column's values (IPC and C Data
 *                   Interface)
 *   arrow_shape.c   which columns the view shows and in what shape (struct
 *                   acol: the levels a column's entries are read by)
 *   arrow_fields.c  the C export's fields of a shown column
 *   arrow_page.c    one decoded page read row by row (counts, NULLs,
 *                   objects' paths)
 *   arrow_tree.c    a nested column of any shape of lists and structs, as a
 *                   tree of arrays read from its leaves' levels (struct tree)
 *   arrow_view.c    the layout: pages counted, the body's pieces, buffers and
 *                   nodes
 *   arrow_meta.c    the metadata around the body (Schema, RecordBatch,
 *                   Footer)
 *   arrow_render.c  a piece's bytes, rendered from its page(s)
 *
 * Nothing here is for other modules. */
#ifndef IG_FORMAT_EXPORT_ARROW_VIEW_INT_H
#define IG_FORMAT_EXPORT_ARROW_VIEW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow_view.h"
#include "blob/blob.h"
#include "format/model/schema.h"
#include "format/model/values.h"

/* Arrow's type numbers (Schema.fbs) */
enum { AT_INT = 2, AT_FLOAT = 3, AT_BINARY = 4, AT_UTF8 = 5, AT_BOOL = 6, AT_LIST = 12, AT_STRUCT = 13, AT_FSL = 16 };

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

/* A nested column as a tree of Arrow arrays (arrow_tree.c): a List per list
 * level, a Struct per struct, a value array per leaf (a vector leaf: a
 * FixedSizeList and its floats, LANES), in pre-order (the IPC order). An array's items begin at the entries of its leaf (the first leaf
 * below it) whose repetition level is at most `rep` and definition level at
 * least `def`; an item is NULL below valid_def. */
#define AV_TREE_MAX 64
enum { TREE_LIST, TREE_STRUCT, TREE_VALUE, TREE_VECTOR, TREE_LANES };
enum { TREE_BUF_VALID, TREE_BUF_MAIN, TREE_BUF_BYTES }; /* validity; offsets or values; string bytes */
struct tree_array {
    uint8_t kind;
    uint8_t tt, width;               /* a value array's Arrow type and width (0: bool, strings) */
    char format[4];                  /* a value array's C Data Interface format ("i", "u", ...) */
    bool nullable;
    bool item;                       /* named "item" (a list's element), else by its column */
    uint8_t rep, def, valid_def;
    uint8_t child_rep, child_def;    /* a List: its child's items */
    uint8_t max_def;                 /* a value array: a value is there at this level */
    uint32_t dim;                    /* VECTOR, LANES: floats a vector */
    uint32_t col, name_skip;         /* the column it is (part of), its name's start */
    const char *name;                /* its field's name (the member's own; not "item") */
    uint32_t name_len;
    uint8_t type, quantize;          /* a value array's column type */
    uint32_t leaf_col;               /* the leaf it is read from */
    uint32_t nkids;                  /* a Struct: its members (each a subtree after it) */
    uint32_t first_page, npages;     /* its leaf's chunk (found at layout) */
    uint64_t items, nulls, bytes, children; /* counted at layout */
};
struct tree {
    struct tree_array a[AV_TREE_MAX];
    uint32_t n;
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
    uint32_t leaf_col;     /* JSON: its first leaf (itself, a list or vector), whose pages number its pieces */
    struct tree *tree;     /* TREE: its arrays */
    uint32_t first, count; /* the chunk's pages */
    struct pstat *pages, sum;
    struct acol *kids; /* a struct: its members */
    uint32_t nkids;
};

struct page {
    struct ig_values v;
    const uint8_t *del;
    struct ig_pagerec rec;
};

/* ---- arrow_types.c ----------------------------------------------------------- */

/* The C Data Interface's format string of a leaf's values ("l", "u", "b", ...). */
const char *arv_c_format(const struct ig_colrec *c);
/* The Arrow type of a leaf's values, or false when the view does not show it. */
bool arv_value_type(const struct ig_colrec *c, uint8_t *tt, uint8_t *width);
bool arv_is_signed(uint8_t type);

/* ---- arrow_shape.c ---------------------------------------------------------- */

/* Which shape column col (c) of p takes in the view, false when it is not shown. */
bool arv_shown(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct acol *a);
/* Does a page have to be decoded for its counts (arrow_view.h)? */
bool arv_needs_counts(const struct acol *a, const struct ig_pagerec *rec);

/* ---- arrow_fields.c --------------------------------------------------------- */

/* The field the record batch shows for a (the C export's view of it); a
 * struct's members in f->kids (false: out of memory). */
bool arv_c_field(const struct acol *a, struct ig_arv_field *f);

/* ---- arrow_page.c ----------------------------------------------------------- */

/* Load page `page` of column col into pg, checked against its record. */
int arv_load(const struct ig_table *t, uint32_t part, uint64_t group_first_row, uint32_t col, uint32_t page,
             struct ig_reader *r, struct page *pg, struct ig_error *err);
/* Does the entry (rep, d) begin an item at level m of a list column: a list
 * of level m (1 <= m < nlists), or an element (m == nlists)? */
bool arv_begins(const struct acol *a, unsigned m, uint8_t rep, uint8_t d);
/* Row r's object of a blob column: false for a NULL. */
bool arv_blob_ref(const struct acol *a, const struct ig_values *v, size_t r, struct ig_blob_ref *ref,
                  unsigned *kind);
/* The object's path as rows/ID shows it (DIR/ROW.EXT, a member's DIR/ROW/0.EXT); its length. */
size_t arv_blob_path(const struct acol *a, char *out, size_t cap, const char *dir, uint64_t row, unsigned kind);
/* Object k of a row of a list of objects: DIR/ROW/K.EXT; its length. */
size_t arv_object_path(char *out, size_t cap, const char *dir, uint64_t row, size_t k, unsigned kind);
bool arv_row_null(const struct acol *a, const struct ig_values *v, size_t r);
/* Where row r's value is in v: a flat leaf's row, a member's value index. */
size_t arv_value_at(const struct acol *a, const struct ig_values *v, size_t r);
/* A struct's (or a list of structs') first leaf, whose levels say where it is NULL. */
const struct acol *arv_first_leaf(const struct acol *a);
/* A decoded page's counts (live rows, NULLs, elements, bytes, levels seen). */
void arv_page_counts(const struct acol *a, const struct page *pg, struct pstat *s);

/* ---- arrow_meta.c ----------------------------------------------------------- */

/* The record batch's nodes (length, null count) and buffers (offset, length
 * in the body), as the layout made them. */
struct arv_buffers {
    const uint64_t (*nodes)[2];
    uint32_t nn;
    const uint64_t (*bufs)[2];
    uint32_t nb;
};
/* The metadata around a body of body_len bytes: into head the magic, the
 * Schema message and the RecordBatch message; into tail the end-of-stream
 * marker and the Footer (its length, "ARROW1"). Nonzero: out of memory. */
int arv_metadata(const struct acol *cols, uint32_t ncols, uint64_t rows, const struct arv_buffers *b,
                 uint64_t body_len, struct ig_buf *head, struct ig_buf *tail);

/* ---- arrow_tree.c ----------------------------------------------------------- */

/* The arrays of top-level column col (c); false when it holds what a tree
 * does not show (a blob, a vector) or more than AV_TREE_MAX arrays. */
bool arv_tree_build(const struct ig_part *p, uint32_t col, const struct ig_colrec *c, struct tree *t);
/* Count every array's items, NULLs, string bytes and (Lists) children in the
 * chunk of part-local group lg; -EIO when the leaves' levels disagree. */
int arv_tree_count(const struct ig_table *t, const struct ig_arv *v, uint32_t lg, struct tree *tr,
                   struct ig_reader *r, struct ig_error *err);
/* The array after array k's subtree. */
uint32_t arv_tree_next(const struct tree *tr, uint32_t k);
/* The bytes of buffer `buf` (TREE_BUF_*) of a counted array (0: none). */
uint64_t arv_tree_buffer_len(const struct tree_array *a, unsigned buf);
/* Buffer `buf` of array k into o (len bytes, zeroed). */
int arv_tree_render(const struct ig_table *t, const struct ig_arv *v, struct tree *tr, uint32_t k, unsigned buf,
                    struct ig_reader *r, uint8_t *o, uint64_t len, struct ig_error *err);

static inline bool arv_bit_set(const uint8_t *bits, size_t i) { return bits && (bits[i / 8] >> (i % 8)) & 1; }
/* The definition level of an empty innermost list (above it an element slot). */
static inline uint8_t arv_list_empty_def(const struct acol *a) { return a->empty_def[a->nlists - 1]; }

#endif
