/* ingot.h - read ingot tables from your own program.
 *
 * Link with libingot (pkg-config --cflags --libs ingot). A table is a directory
 * written by `ingot import`; opening it reads each part's 64-byte tail and maps
 * its footer, so the cost does not grow with the number of columns. Reads fetch
 * only the pages of the column (and row group) asked for.
 *
 * Every function that can fail returns 0 or a negative errno and, given an
 * error buffer, writes a message naming the file, column and page. Nothing here
 * prints or exits. A table handle may be used by one thread at a time; open one
 * handle per thread for parallel reads. */
#ifndef INGOT_H
#define INGOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ingot_table ingot_table;

enum ingot_type {
    INGOT_BOOL = 1, INGOT_INT8, INGOT_INT16, INGOT_INT32, INGOT_INT64,
    INGOT_UINT8, INGOT_UINT16, INGOT_UINT32, INGOT_UINT64,
    INGOT_FLOAT32, INGOT_FLOAT64, INGOT_STRING, INGOT_BINARY
};

#define INGOT_ALL_GROUPS UINT32_MAX

int ingot_open(const char *dir, ingot_table **out, char *errbuf, size_t errlen);
/* An older version of the table (`ingot versions` lists them), as it was:
 * its rows (less those erased since: an erasure reaches every version) and its
 * columns. version 0: the current one. -ENOENT if it is not kept. */
int ingot_open_version(const char *dir, uint64_t version, ingot_table **out, char *errbuf, size_t errlen);
/* The version a handle reads. */
uint64_t ingot_version(const ingot_table *t);
void ingot_close(ingot_table *t);

uint64_t ingot_rows(const ingot_table *t);       /* including erased rows */
uint64_t ingot_live_rows(const ingot_table *t);
uint32_t ingot_columns(const ingot_table *t);
/* The top-level columns the version shows, in the order it shows them (a
 * replaced column where it was, one moved where it went): their ids into
 * cols, at most cap of them; returns how many there are. */
uint32_t ingot_columns_shown(const ingot_table *t, uint32_t *cols, uint32_t cap);
uint32_t ingot_groups(const ingot_table *t);
uint64_t ingot_group_live_rows(const ingot_table *t, uint32_t group);

/* Column id by name (binary search); -ENOENT if there is none. */
int ingot_column_find(const ingot_table *t, const char *name, uint32_t *col);
/* Name (not NUL-terminated), type, nullability of column `col`. Column ids
 * run to ingot_columns(); an id the version does not show (a column added
 * later, replaced or dropped) has no name (NULL) and its type is -ENOENT. */
const char *ingot_column_name(const ingot_table *t, uint32_t col, size_t *len);
int ingot_column_type(const ingot_table *t, uint32_t col, enum ingot_type *type, int *nullable);
/* Bytes per value of a fixed-width type (bool is 1), 0 for string/binary. */
size_t ingot_type_width(enum ingot_type type);

/* Logical types: what a column's stored values mean. ingot_column_type gives
 * how they are stored, and the readers below hand values over in that form:
 * a date is an INT32 count of days since 1970-01-01; a time an INT32 count
 * of milliseconds or an INT64 of micro- or nanoseconds since midnight; a
 * timestamp an INT64 count of its unit since 1970-01-01T00:00:00 (UTC when
 * utc, else local time); a decimal its unscaled integer (value = integer x
 * 10^-scale) as INT32 (precision <= 9), INT64 (<= 18) or BINARY of 16 bytes,
 * little-endian two's complement; a uuid BINARY of 16 bytes; fixed_binary(N)
 * BINARY of N bytes; float16 FLOAT32 (the values are exactly halves).
 * ingot_read_text and ingot_batch_value's JSON show them as text
 * (2024-01-01, 2024-01-01T20:34:56.123456Z, 1234.50). */
enum ingot_logical {
    INGOT_LOGICAL_NONE = 0, INGOT_DATE, INGOT_TIME, INGOT_TIMESTAMP, INGOT_DECIMAL,
    INGOT_UUID, INGOT_FIXED_BINARY, INGOT_FLOAT16
};
enum ingot_time_unit { INGOT_UNIT_NONE = 0, INGOT_SECONDS, INGOT_MILLIS, INGOT_MICROS, INGOT_NANOS };

struct ingot_logical_type {
    enum ingot_logical kind;
    enum ingot_time_unit unit; /* time, timestamp */
    int utc;                   /* timestamp: adjusted to UTC */
    int precision, scale;      /* decimal */
    uint32_t width;            /* bytes of every BINARY value (uuid, fixed_binary, wide decimal), else 0 */
};

/* The logical type of column `col` (kind INGOT_LOGICAL_NONE for a column of
 * plain values and for a struct); -ENOENT as ingot_column_type. */
int ingot_column_logical(const ingot_table *t, uint32_t col, struct ingot_logical_type *out);
/* Column `col`'s type as a schema file writes it ("timestamp(us, UTC)?",
 * "list<date>", "decimal(12, 2)", "int64"), NUL-terminated into buf (cap
 * bytes): its length, -ENOSPC when it does not fit, -ENOENT as above. */
int ingot_column_type_name(const ingot_table *t, uint32_t col, char *buf, size_t cap);

/* Copy the live values of a fixed-width column (one group, or all) into out as
 * little-endian values of the column's width, NULLs as 0 (NaN for floats).
 * valid, if not NULL, receives one byte per value (1 = not NULL). out must hold
 * live_rows x width bytes. Returns the number of values, or a negative errno. */
int64_t ingot_read_fixed(ingot_table *t, uint32_t col, uint32_t group, void *out,
                         size_t out_bytes, uint8_t *valid, char *errbuf, size_t errlen);

/* The text rendering of a column (what `ingot cat` prints), handed to emit in
 * pieces. emit returns non-zero to stop. */
int ingot_read_text(ingot_table *t, uint32_t col, uint32_t group,
                    int (*emit)(void *ctx, const void *p, size_t n), void *ctx, char *errbuf,
                    size_t errlen);

/* ---- rows by id: a shuffled loader's batch ----
 *
 * ingot_take fetches n rows by id (any order, repeats allowed) and the given
 * columns of each (ids from ingot_column_find: top-level columns or nodes of a
 * nested one). Per column it reads and decodes only the small block (about
 * 4 KiB of values) that holds each row, and rows that share a block decode it
 * once; decoded blocks stay with the table handle for the next call. A row
 * that is erased or out of range is not an error: ingot_batch_found says 0 and
 * its values read as missing. */
typedef struct ingot_batch ingot_batch;

int ingot_take(ingot_table *t, const uint64_t *ids, size_t n, const uint32_t *cols, size_t ncols,
               ingot_batch **out, char *errbuf, size_t errlen);
void ingot_batch_free(ingot_batch *b);

size_t ingot_batch_rows(const ingot_batch *b);
/* 1 when row i of the batch (ids[i]) exists and is not erased. */
int ingot_batch_found(const ingot_batch *b, size_t i);
/* Column k of the take (cols[k]) when it is a flat fixed-width column: n values
 * of its width, in the order of ids, NULLs and missing rows as 0 (NaN for
 * floats); *valid (if valid is not NULL) gets n bytes, 1 where a value is.
 * NULL for any other column. */
const void *ingot_batch_fixed(const ingot_batch *b, size_t k, const uint8_t **valid);
/* Row i's value of column k: the bytes of a string or binary value; for every
 * other column its JSON text as rows/ID shows it (numbers, nested values, blob
 * references as {"path": ..., "size": ...}). NULL with *len 0 for a NULL or a
 * missing row. Valid until ingot_batch_free. */
const void *ingot_batch_value(const ingot_batch *b, size_t k, size_t i, size_t *len);

/* ---- a row group as Arrow arrays, without the Arrow library ----
 *
 * The structs of the Arrow C Data Interface, defined here as its
 * specification asks (a program that has them already, from Arrow or nanoarrow,
 * keeps its own: the guard is the specification's). */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* The live rows of row group `group` as one record batch: *array a struct
 * array ("+s") with a child per column, *schema its schema (column names, and
 * nullable fields where the column is). cols (ncols of them) picks top-level
 * columns in that order; NULL picks every column that has an Arrow form.
 * The types are those of the mount's arrow/G.arrow: bool, intN/uintN,
 * float32 (and quantised columns, as the float32 they read as), float64,
 * string ("u"), binary ("z"), the logical types as Arrow's: date ("tdD"),
 * time ("ttm", "ttu", "ttn"), timestamp ("tsu:UTC", "tsn:" local, ...),
 * decimal ("d:12,2": decimal128), uuid and fixed_binary(N) ("w:16", "w:N"),
 * float16 ("e"), vector<float32, D> as FixedSizeList ("+w:D"),
 * a top-level list (of lists, as deep as a column nests them) of any of those
 * as List ("+l", "+l" of "+l"), a list of structs (maps, annotations) as List
 * of Struct of its members (flat values, vectors, blobs, lists (of lists) of
 * flat values, vectors or blobs, structs of such members), a top-level struct of flat members,
 * lists of them or such structs as Struct ("+s"), a
 * blob column as Struct of path ("u", the object's path in a mount) and size
 * ("l"), a list of blobs
 * as List ("+l") of such a Struct; a list of structs holding lists of structs
 * (any depth) as the same types nested ("+l" of "+s" of ... "+l" of "+s");
 * any other nested column (such a one holding blobs) as Utf8
 * ("u"), each row's JSON as `ingot cat` prints it, NULL for a NULL row.
 *
 * The group is decoded once, into one buffer that every array points into:
 * DuckDB, pyarrow or Polars import it through their C Data Interface without
 * a copy. Both structs are the caller's: release each (array->release(array),
 * schema->release(schema)) in any order, from any thread, with children moved
 * out or not; the buffer goes with the last array. On error neither is set. */
int ingot_export_arrow(ingot_table *t, uint32_t group, const uint32_t *cols, size_t ncols,
                       struct ArrowArray *array, struct ArrowSchema *schema, char *errbuf,
                       size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
