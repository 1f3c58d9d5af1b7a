/* arrow_view.h - a row group as an Arrow IPC file, laid out from the footer.
 *
 * The mount's arrow/G.arrow: the live rows of row group G as one Arrow IPC file
 * (format version V5, little-endian, no compression, no dictionaries), one
 * record batch, that pyarrow, Polars or Hugging Face datasets memory-map.
 * Layout:
 *
 *     "ARROW1" 0 0 | Schema message | RecordBatch message: metadata | body |
 *     end-of-stream marker | Footer | i32 footer length | "ARROW1"
 *
 * The body holds each shown column's buffers in schema order, each starting
 * on 8 bytes (zeros between). A buffer is made of pieces: one per ingot page
 * for values, offsets and string bytes (a read decodes only the pages it
 * covers), one per column for bitmaps (a validity or bool bitmap's bits do not
 * start on a byte per page).
 *
 * Sizes and the metadata need counts the footer does not always hold: NULL
 * counts (exact in the metadata, which readers trust to skip a bitmap), the
 * bytes of a string page and the elements of a list page. The pages that need
 * one (string and binary pages, list pages, pages flagged as holding a NULL)
 * are decoded once when the file is laid out; fixed-width pages without NULLs
 * (numbers, vectors) are not.
 *
 * Types: bool Bool; intN/uintN Int(N, signed); float32 (and quantised columns,
 * as the float32 they read back as) and float64 FloatingPoint; string Utf8;
 * binary Binary; vector<float32, D> FixedSizeList<float32>[D];
 * - a top-level list List<number | Utf8 | Binary | Bool>, a list of lists (as
 *   many levels as a column may have) List<List<...>> (each inner level a
 *   node, its validity and offsets: LEVEL_VALID, LEVEL_OFFSETS);
 * - a top-level list of structs of flat members, vectors, blobs, lists (of
 *   lists) of flat values, of vectors or of blobs, or structs of such members
 *   (maps, annotations, segmentation polygons, per-frame embeddings, a clip's
 *   frames, detections)
 *   List<Struct<...>> (the list's offsets and the structs' validity from the
 *   first leaf's levels, each member's from its own; a blob member's objects
 *   as a list<blob?>'s; a list member's lists are its level 1, one a struct
 *   slot, NULL where the struct is, its lists of lists levels 2, ...; a struct member's validity per slot from
 *   its first leaf, SLOT_STRUCT_VALID with `level` its present_def);
 * - a top-level struct whose members are flat values, lists of them, vectors
 *   or blobs (shaped as top-level ones; a blob's path DIR/ROW/0.ext, as
 *   rows/ID names a nested column's object), lists of structs as above (their
 *   levels below the structs'), or such structs (four deep)
 *   Struct<...> (each struct's validity from its first leaf's definition
 *   levels: there from the level its own and its ancestors' NULLs take,
 *   STRUCT_VALID's `level`; a list member's levels start below its
 *   struct's);
 * - a top-level blob column Struct<path: Utf8, size: Int64>, path as rows/ID
 *   shows it ("blobs/COL/ID.ext"); a top-level list<blob> List<Struct<path,
 *   size>> ("blobs/COL/ID/K.ext", K counting the row's objects): elements
 *   never NULL are its rows' references stored as one value, else
 *   (blob_levels) an object a value with the list's levels, a NULL element
 *   a NULL item;
 * - a top-level list (of lists) of vectors List<...<FixedSizeList<float32>[D]>>
 *   (the innermost list's elements are the vectors, their validity
 *   ELEM_VALID; the floats, D a vector and zeros for a NULL one, its FIXED
 *   pieces);
 * - a list of structs holding lists of structs (at any depth of structs and
 *   lists in them) as the same Arrow types, nested (List<Struct<...,
 *   List<Struct<...>>>>): each of its arrays (a List per list level, a
 *   Struct per struct, a value array per leaf, a vector a FixedSizeList of
 *   its floats) read from the levels of the
 *   first leaf below it (arrow_tree.c), its buffers one TREE_BUF piece each
 *   over the whole chunk;
 * - any other nested column (such a column holding blobs) Utf8: each row's
 *   JSON as rows/ID and `ingot cat` show it, NULL for a NULL row. Its pieces
 *   are numbered by its first leaf's pages (whose levels say where a row is
 *   NULL, VALID); the bytes a page holds are the footer's text length of the
 *   column's rows there, less a newline each and "null" each NULL row, so the
 *   layout decodes no value; OFFSETS and BYTES reassemble the page's rows.
 * A nullable column is a nullable field; it has a validity bitmap only when
 * the group holds a NULL in it. An older generation is not laid out (the
 * mount answers ESTALE). */
#ifndef IG_FORMAT_EXPORT_ARROW_VIEW_H
#define IG_FORMAT_EXPORT_ARROW_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "format/ops/reader.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"

enum ig_arv_kind {
    IG_ARV_ZERO,       /* padding to 8 bytes (its bytes: `bytes`) */
    IG_ARV_VALID,      /* a column's row validity bitmap (all its pages) */
    IG_ARV_BOOL,       /* a bool column's values bitmap (all its pages) */
    IG_ARV_ELEM_VALID, /* a list column's element validity bitmap (all its pages) */
    IG_ARV_ELEM_BOOL,  /* a list of bools: its elements' values bitmap (all its pages) */
    IG_ARV_STRUCT_VALID, /* a struct's row validity, from its first member's levels (all its pages) */
    IG_ARV_LEVEL_VALID, /* a list of lists: level `level`'s lists' validity (all its pages) */
    IG_ARV_SLOT_STRUCT_VALID, /* a list of structs: its elements' validity (or a struct's in them, there from `level`), from a leaf (all its pages) */
    /* the kinds above are bitmaps over a whole chunk, those below pieces of one page */
    IG_ARV_FIXED,      /* a page's fixed-width values (a list's elements, a vector's lanes) */
    IG_ARV_OFFSETS,    /* a page's offsets: where each live row starts, from `base` */
    IG_ARV_ELEM_OFFSETS, /* a list of strings: where each of a page's elements starts, from `base` */
    IG_ARV_LEVEL_OFFSETS, /* a list of lists: a page's level-`level` lists' offsets, from `base` */
    IG_ARV_END,        /* a column's closing offset (`base`; its bytes: `bytes`) */
    IG_ARV_BYTES,      /* a page's string or binary bytes (a list's: its elements') */
    IG_ARV_TREE_BUF,   /* a tree column's buffer (all its pages): array `level`, buffer `width` (arrow_tree.c) */
};

struct ig_arv_piece {
    uint64_t start, len; /* in the file */
    uint64_t base;       /* OFFSETS: its first offset; END: the closing offset */
    uint32_t col;        /* the ingot column */
    uint32_t page;       /* the ingot page (bitmaps: the chunk's first) */
    uint32_t npages;     /* bitmaps: the chunk's page count */
    uint8_t kind;        /* enum ig_arv_kind */
    uint16_t width;      /* FIXED: bytes per value */
    uint8_t level;       /* LEVEL_VALID, LEVEL_OFFSETS: the list level (1 = a row's lists' items);
                          * STRUCT_VALID: the definition level the struct is there from */
    uint8_t bytes[8];    /* ZERO: zeros; END: the closing offset (little-endian) */
};

/* How a column is shown: a flat column, a vector as FixedSizeList, a
 * one-level list as List, a struct of flat members as Struct (each member a
 * nested leaf shown as a flat child), a blob column as Struct<path: Utf8,
 * size: Int64> (its reference: the object's file in the mount, its bytes), a
 * list of blobs as List of such a Struct. */
enum ig_arv_shape {
    IG_ARV_FLAT, IG_ARV_VECTOR, IG_ARV_LIST, IG_ARV_STRUCT, IG_ARV_MEMBER, IG_ARV_BLOB, IG_ARV_BLOB_LIST,
    IG_ARV_LIST_STRUCT, /* a list of structs of flat members, vectors, blobs, lists, structs: List<Struct<...>> */
    IG_ARV_LISTS, /* (a field only) a list whose one kid is a list (lists of lists, outer levels) or a vector */
    IG_ARV_TREE,  /* a list of structs holding lists of structs (any depth): its arrays from its leaves' levels */
    IG_ARV_JSON   /* a nested column of no other shape here: Utf8, each row's JSON (its field: a flat Utf8) */
};

/* A column of the record batch, for the C Data Interface export (api
 * ingot_export_arrow): its nodes and buffers are the next ones in `nodes` and
 * `bufs`, in the IPC order: a flat column one node and 2 buffers (validity,
 * values or bits) or 3 (validity, offsets, bytes); a vector a node and its
 * validity, then its elements' node, validity and values; a list a node, its
 * validity and offsets, then its elements' node, validity and values; a
 * struct a node and its validity, then each member as a flat column; a list
 * of vectors a node, its validity and offsets, then its one kid, such a
 * vector; a blob a struct of two such members, path and size; a list of
 * blobs a node, its validity and offsets, then its one kid, such a blob
 * struct. */
struct ig_arv_field {
    uint32_t col;          /* the ingot column */
    uint8_t shape;         /* enum ig_arv_shape */
    bool nullable, elem_nullable;
    char format[16];       /* the C Data Interface format: "l", "u", "+w:128", "+l", "+s" */
    char child_format[16]; /* a vector's or list's elements' */
    uint32_t name_skip;    /* a member: bytes of its name before its own (the struct's, a dot) */
    const char *name;      /* a blob's members: "path", "size" (NULL: the column's name) */
    uint32_t nkids;        /* a struct: its members */
    struct ig_arv_field *kids;
};

struct ig_arv {
    uint32_t group, part;     /* global row group; its part */
    uint64_t group_first_row; /* part-local */
    uint64_t rows;            /* live rows */
    uint64_t size;            /* the whole file */
    struct ig_buf head;       /* magic, Schema message, the batch's metadata */
    struct ig_arv_piece *pieces;
    uint32_t npieces;
    struct ig_buf tail; /* end-of-stream, Footer, its length, magic */
    /* the record batch's structure: its columns, then every node (length,
     * NULL count) and buffer (offset from body_at, length) in IPC order */
    struct ig_arv_field *fields;
    uint32_t nfields, nnodes, nbufs;
    uint64_t (*nodes)[2], (*bufs)[2];
    uint64_t body_at; /* where the body starts in the file */
};

/* Lay out row group `group` of t as it is now; r decodes the pages whose
 * counts the footer does not hold. -EIO with a message naming part, column and
 * page on a footer or page that does not add up. */
int ig_arv_layout(const struct ig_table *t, uint32_t group, struct ig_reader *r, struct ig_arv *out,
                  struct ig_error *err);
void ig_arv_free(struct ig_arv *v);

/* The piece's bytes, exactly pc->len of them, appended to out. */
int ig_arv_render(const struct ig_table *t, const struct ig_arv *v, const struct ig_arv_piece *pc,
                  struct ig_reader *r, struct ig_buf *out, struct ig_error *err);

#endif
