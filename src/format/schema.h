/* schema.h - a table's columns in memory, and the schema file that declares them.
 *
 * The schema file (`--schema FILE`) has one column per line:
 *
 *     NAME TYPE[?] [key=value ...]      # comment
 *
 * TYPE is a primitive type name (types.h), blob (one object per row, a path in
 * the input) or list<blob> (any number); a trailing '?' makes it nullable. Keys:
 * page_size=BYTES, encoding=NAME (plain, bitpack, varint, rle, dict, for, delta),
 * compression=none|zstd|auto, erase=1|2. NAME may be double-quoted to hold spaces
 * or '#'. Errors name the file and line. Column order in the file is table order. */
#ifndef IG_FORMAT_SCHEMA_H
#define IG_FORMAT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ig_error;
struct ig_buf;

struct ig_column_def {
    char *name;           /* owned, NUL-terminated, UTF-8 */
    size_t name_len;
    uint8_t type;         /* enum ig_type */
    bool nullable;
    bool repeated;        /* list<blob>: any number of objects per row */
    uint32_t page_size;   /* 0 = table default */
    uint8_t encoding;     /* enum ig_enc, 0 = auto */
    uint8_t compression;  /* enum ig_compression_policy */
    uint8_t erase_level;  /* 0 = table default, 1 or 2 */
    uint8_t quantize;     /* reserved, 0 */
    uint32_t dimension;   /* reserved, 0 */
};

struct ig_schema {
    struct ig_column_def *cols;
    uint32_t n;
    uint32_t cap;
};

/* Append a primitive column with default options; rejects empty, over-long,
 * non-UTF-8 and duplicate names. */
int ig_schema_add(struct ig_schema *s, const char *name, size_t name_len, unsigned type,
                  bool nullable, struct ig_error *err);

/* Parse a schema file's text into s (which must be empty). */
int ig_schema_parse(struct ig_schema *s, const char *text, size_t len, const char *path,
                    struct ig_error *err);

/* Index of the column called name, or -1. Linear: for writers and importers
 * only; readers use the footer's name index. */
long ig_schema_find(const struct ig_schema *s, const char *name, size_t len);

/* Render back to schema-file syntax (round-trips through ig_schema_parse). */
int ig_schema_format(const struct ig_schema *s, struct ig_buf *out);

/* Same columns, types, nullability and options. */
bool ig_schema_equal(const struct ig_schema *a, const struct ig_schema *b);

void ig_schema_free(struct ig_schema *s);

#endif
