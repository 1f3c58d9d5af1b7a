/* schema.h - a table's columns in memory, and the schema file that declares them.
 *
 * The schema file (`--schema FILE`) has one column per line:
 *
 *     NAME TYPE [key=value ...]      # comment
 *
 * TYPE is a primitive (bool, int8..int64, uint8..uint64, float32, float64,
 * string, binary), a logical type (date, time(UNIT), timestamp(UNIT[, UTC]),
 * decimal(P, S), uuid, fixed_binary(N), float16: logical.h), blob, list<T>,
 * struct<a:T, b:U, ...> or vector<float32, D>,
 * nested freely, with spaces allowed inside the brackets; a '?' after any type
 * makes that level nullable (`Dept list<struct<Id:int64, Name:string?>>?`).
 * Keys: page_size=BYTES, block_size=BYTES (0: one block per page), encoding=NAME, compression=none|zstd|auto, erase=1|2,
 * quantize=fp16|bf16|fp8_e4m3|fp8_e5m2 (float data). NAME may be double-quoted.
 * Errors name the file and line.
 *
 * In memory the columns form a tree kept in pre-order: a node is a named field
 * (its name is the dotted path from the top: "Dept.Loc.Floor") whose type is a
 * struct (children follow) or a leaf type, wrapped in `lists` list levels. Bit j
 * of null_mask says level j may be null (j = 0 is the field itself, j = lists the
 * innermost value). Leaves hold the data; a flat table is all top-level leaves
 * without lists. Levels follow Dremel: a leaf's repetition level counts the list
 * levels on its path, its definition level the nullable and list levels. */
#ifndef IG_FORMAT_SCHEMA_H
#define IG_FORMAT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/model/types.h"

struct ig_error;
struct ig_buf;

#define IG_MAX_LISTS 7
/* The largest vector dimension (vector<float32, D>): sizes multiply by it. */
#define IG_MAX_DIMENSION 65536

enum ig_quantize { IG_Q_NONE = 0, IG_Q_FP16 = 1, IG_Q_BF16 = 2, IG_Q_FP8_E4M3 = 3, IG_Q_FP8_E5M2 = 4 };

struct ig_column_def {
    char *name;           /* owned, NUL-terminated: the dotted path */
    size_t name_len;
    uint8_t type;         /* enum ig_type: a leaf type or IG_T_STRUCT */
    bool nullable;        /* null_mask bit 0: the field itself may be null */
    uint8_t lists;        /* list levels around the inner type */
    uint8_t null_mask;    /* bit j: level j may be null (j <= lists) */
    uint32_t parent;      /* index of the parent struct node, or IG_SCHEMA_NONE */
    uint32_t num_children;
    uint32_t dimension;   /* vector<float32, D>: D, else 0 */
    uint32_t page_size;   /* 0 = table default */
    uint32_t block_size;  /* 0 = chosen by the writer; IG_BLOCK_WHOLE_PAGE: one block per page */
    uint8_t encoding;     /* enum ig_enc, 0 = auto */
    uint8_t compression;  /* enum ig_compression_policy */
    uint8_t erase_level;  /* 0 = table default, 1 or 2 */
    uint8_t quantize;     /* enum ig_quantize */
    struct ig_logical lt; /* a leaf's logical type (types.h): `type` and `quantize` are its storage */
    bool hidden;          /* a record the table's version hides, in the schema an append reads
                             its input by (ig_schema_from_part_hiding): no input names it, and
                             the rows appended hold NULL there */
    /* derived by ig_schema_finish */
    uint32_t leaf;        /* leaf index, or IG_SCHEMA_NONE for structs */
    uint32_t top;         /* index of the top-level ancestor (itself at the top) */
    uint8_t max_rep, max_def;
    uint32_t line;        /* schema file line, for messages (0 if none) */
};

#define IG_SCHEMA_NONE 0xFFFFFFFFu
#define IG_BLOCK_WHOLE_PAGE 0xFFFFFFFFu /* block_size=0 in a schema file */

struct ig_schema {
    struct ig_column_def *cols; /* nodes in pre-order */
    uint32_t n, cap;
    uint32_t *leaves;           /* node index of each leaf, in order */
    uint32_t nleaves;
    uint32_t *tops;             /* node index of each top-level column */
    uint32_t ntops;
    uint32_t *by_name;          /* node indices ordered by name (ig_schema_find) */
    /* set before finishing: names may repeat, as a part's footer stores them
     * (a replaced column's record beside its replacement; a renamed record
     * beside a newer one of its old name): the schema a writer writes a part
     * beside the others with; ig_schema_find then gives one of them */
    bool names_repeat;
};

/* Append a top-level primitive (or blob) column with default options; rejects
 * empty, over-long, non-UTF-8 and duplicate names. Call ig_schema_finish after
 * adding columns. */
int ig_schema_add(struct ig_schema *s, const char *name, size_t name_len, unsigned type,
                  bool nullable, struct ig_error *err);
/* Append a node with a parsed type (see ig_schema_parse_type). */
int ig_schema_add_typed(struct ig_schema *s, const char *name, size_t name_len, const char *type,
                        size_t type_len, struct ig_error *err);

/* The levels at node n (a leaf's are its max_rep and max_def): the lists on
 * its path, its own included, and the definition level at which it is there
 * (each level on the path that may be NULL, and each list with elements). */
void ig_schema_node_levels(const struct ig_schema *s, uint32_t n, unsigned *rep, unsigned *def);

/* Compute leaves, tops and levels; check names are unique paths. */
int ig_schema_finish(struct ig_schema *s, struct ig_error *err);

/* Parse a schema file's text into s (which must be empty). Finishes it. */
int ig_schema_parse(struct ig_schema *s, const char *text, size_t len, const char *path,
                    struct ig_error *err);

/* The order of column names, the footer's name index's (docs/FORMAT.md):
 * bytewise, a name before the longer names it begins. */
int ig_name_cmp(const char *a, size_t an, const char *b, size_t bn);

/* Index of the node called name (dotted path), or -1. Binary search once the
 * schema is finished, linear before. A hidden node (ig_column_def.hidden)
 * answers to no name: an input's column never feeds one, whatever it is
 * called. */
long ig_schema_find(const struct ig_schema *s, const char *name, size_t len);

/* Render back to schema-file syntax (round-trips through ig_schema_parse). */
int ig_schema_format(const struct ig_schema *s, struct ig_buf *out);
/* The type of node i in schema syntax ("list<struct<a:int64, b:string?>>?"). */
int ig_schema_type_text(const struct ig_schema *s, uint32_t i, struct ig_buf *out);
/* Pieces of that text, for a caller that writes a type of its own (a union
 * of two structs): a struct field's name before its ':' (quoted where it is
 * not plain), and what follows node c's inner type: the '?' of each level
 * that may be null and the '>' closing each of its lists. */
int ig_schema_field_text(const char *name, size_t len, struct ig_buf *out);
int ig_schema_type_close(const struct ig_column_def *c, struct ig_buf *out);
/* The same with every nullability mark left out ("list<struct<a:int64,
 * b:string>>"; a quoted field name keeps its '?'), replacing out's bytes:
 * what two schemas must agree on where NULLs are mapped between them (a
 * Parquet file's OPTIONAL nodes against a table's). */
int ig_schema_type_text_bare(const struct ig_schema *s, uint32_t i, struct ig_buf *out);

/* Same columns, types, nullability and options. */
bool ig_schema_equal(const struct ig_schema *a, const struct ig_schema *b);

void ig_schema_free(struct ig_schema *s);

/* The field's own name (last path component). */
const char *ig_schema_field_name(const struct ig_schema *s, uint32_t i, size_t *len);

/* A leaf stored without levels: top level, no lists, not a vector. */
static inline bool ig_column_is_flat(const struct ig_column_def *c)
{
    return c->parent == IG_SCHEMA_NONE && c->lists == 0 && c->dimension == 0 && c->type != 33;
}
/* A top-level list<blob>: per-row object counts instead of levels. */
static inline bool ig_column_is_blob_list(const struct ig_column_def *c)
{
    return c->parent == IG_SCHEMA_NONE && c->lists == 1 && c->type == 35 && !(c->null_mask & 2);
}

#endif
