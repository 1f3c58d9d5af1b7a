/* keyed_int.h - what columns_keyed.c (the temporary table, the plan, the
 * values written) and keyed_join.c (the key and the join) share: the state of
 * one keyed add, replace or update. Not a public interface. */
#ifndef IG_IMPORT_KEYED_INT_H
#define IG_IMPORT_KEYED_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "format/ops/reader.h"
#include "format/part/columns.h"
#include "format/part/table.h"
#include "import/columns_keyed.h"
#include "import/infer.h"
#include "util/strset.h"
#include "util/u64map.h"

struct ig_blob_writer;

/* Keys or rows a message lists before "...". */
#define SHOW_FIRST 5

/* A live table row and the file row that gives its values. */
struct pair {
    uint64_t row, input;
};

/* One leaf of the columns being written: where its values come from. */
struct leaf_map {
    struct ig_column_ref in;  /* the file's leaf (in the temporary table) */
    struct ig_column_ref old; /* an update: the table's leaf */
    const char *top;          /* its top-level column's name (messages) */
    bool levels;              /* a nested leaf (levels), else flat */
    bool nullable;            /* flat: may hold NULL */
    bool is_bytes;
    bool is_blob; /* its values are references into the file's blob file */
    uint8_t in_max_def, out_max_def;
    uint32_t per_value; /* lanes of a defined value: a vector's dimension, else 1 */
};

/* A row group of the file, decoded while rows of it remain to be written. */
struct in_group {
    uint64_t first;         /* its first row (file rows from 0) */
    uint64_t remaining;     /* matched rows of it not written yet */
    struct ig_values *vals; /* per leaf, NULL until needed */
};

/* Keys the file names that match no live row: counted, the first few kept
 * as text. */
struct missing {
    uint64_t count;
    char text[200];
};

struct keyed {
    const char *table_dir;
    const struct ig_column_input *in;
    enum ig_keyed_mode mode;
    const char *path; /* the file, as messages name it (several: label) */
    char label[600];
    /* several files: a copy of each that can be read only once (standard
     * input, a pipe), read by the inference and then the import; else -1 */
    int *copies;
    /* the file decompressed or read from standard input (spool.h); -1: read
     * where it lies */
    int copy_fd;
    enum ig_input_format fmt;
    char ingot[4200], tmp[4300], tmp_schema[4300];
    char stage[4096]; /* a table on object storage: the local directory ingot is in ("" else) */
    bool made_tmp;

    struct ig_table t0; /* the table before the commit locks it: for planning */
    struct ig_schema t0_schema;
    bool t0_open;

    struct ig_table src; /* the file, imported */
    struct ig_schema src_schema;
    bool src_open;

    /* the key */
    char *key; /* its name ("_rowid" for row ids) */
    bool by_rowid;
    struct ig_column_ref key_ref; /* the file's key column */
    bool key_bytes, key_signed;
    struct ig_u64map ints; /* integer keys -> file row + 1 */
    uint64_t *lanes;       /* integer keys by file row (messages) */
    struct ig_strset strs; /* string keys: entry i is file row i */
    uint64_t *matched;     /* per file row: the table row + 1 it matched, 0 none */
    uint64_t nin;          /* file rows */
    struct missing miss;

    /* the join: live table rows with a file row, in row order */
    struct pair *pairs;
    size_t npairs, cap, cursor;

    /* what is written */
    struct ig_schema out;
    struct leaf_map *leaves;
    uint32_t nleaves;
    struct in_group *groups;
    uint32_t ngroups;
    struct ig_reader rd;
    struct ig_values scratch;
    const struct ig_table *t; /* the table, locked (from prepare on) */
    struct ig_values *old;    /* an update: the group's old values, per leaf */
    struct ig_blob_writer *blobs; /* the part being filled's blob file (keyed_fill) */
    char change[IG_CHANGE_MAX + 1];
    struct ig_column_counts counts;
};

/* ---- keyed_join.c ---- */

/* The file's row group that holds file row `input` (k->groups by first row). */
uint32_t keyed_group_of(const struct keyed *k, uint64_t input);

/* Is `name` a top-level column of s (its node in *node)? */
bool keyed_is_top(const struct ig_schema *s, const char *name, long *node);
/* A top-level column's type as the schema language writes it, without the '?'. */
int keyed_bare_type(const struct ig_schema *s, uint32_t top, struct ig_buf *out);
/* Which column names rows: in->key, else _rowid when the file has it, else
 * id when both have it. */
int keyed_choose_key(struct keyed *k, const struct ig_schema *file, struct ig_error *err);
/* The file's key (the temporary table's) against the table's. */
int keyed_check_key(struct keyed *k, struct ig_error *err);
/* The file's keys, before the table is locked: row ids as pairs (sorted),
 * other keys indexed. */
int keyed_index_keys(struct keyed *k, struct ig_error *err);
/* Leaf c's values of row group g of part p into out. */
int keyed_load_chunk(struct keyed *k, const struct ig_part *p, const struct ig_column_ref *c,
                     uint32_t g, const struct ig_grouprec *gr, struct ig_values *out,
                     struct ig_error *err);
/* evolve.h's prepare: the table locked, its live rows matched to file rows. */
int keyed_prepare(void *ctx, const struct ig_table *t, struct ig_error *err);

#endif
