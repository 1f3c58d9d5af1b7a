/* convert.h - one input value into a column's ig_values, by the column's type.
 *
 * CSV fields arrive as text: in a nullable column an unquoted empty field is NULL
 * and a quoted "" is the empty string; bool accepts true/false/t/f/1/0 in any
 * case; binary is PostgreSQL's \x hex form. JSON values arrive as parsed nodes:
 * null is NULL; numbers that do not fit the column's type are errors (never a
 * wrap-around); float columns also take the strings "NaN", "Infinity",
 * "-Infinity"; binary takes a "\x..." hex string or base64.
 *
 * blob columns take a file path (relative to the input file's directory); the
 * file is copied into the part's blob file and its reference pushed. list<blob>
 * takes a JSON array of paths (JSON Lines only). A missing or unreadable file is
 * an error naming the path.
 *
 * Errors carry only the value-level reason ("'abc' is not an integer"); the
 * caller prefixes FILE:LINE and the column. */
#ifndef IG_IMPORT_CONVERT_H
#define IG_IMPORT_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "format/model/schema.h"
#include "format/model/values.h"
#include "import/json.h"
#include "util/buf.h"

struct ig_error;
struct ig_blob_writer;
struct ig_blob_fetch;

/* What a conversion may need beyond the value. */
struct ig_convert_ctx {
    struct ig_buf *scratch;       /* reused buffer */
    struct ig_blob_writer *blobs; /* where blob objects go (NULL: blob values are errors) */
    const char *base_dir;         /* relative blob paths start here */
    struct ig_buf *path;          /* reused buffer for joined paths */
    const struct ig_json_doc *doc; /* the line being converted (JSON arrays) */
    /* objects on object storage fetched already (blob_fetch.h); NULL: none */
    const struct ig_blob_fetch *fetched;
};

/* The file or object a blob value names: p[0, n) as it is when absolute
 * (/..., s3://...), else under ctx->base_dir; into out, NUL-terminated. */
int ig_convert_blob_path(const struct ig_convert_ctx *ctx, const char *p, size_t n, struct ig_buf *out);

int ig_convert_text(const struct ig_column_def *c, struct ig_values *v, const char *p, size_t n,
                    bool quoted, const struct ig_convert_ctx *ctx, struct ig_error *err);

/* node == NULL means the key was absent (NULL if the column is nullable). */
int ig_convert_json(const struct ig_column_def *c, struct ig_values *v,
                    const struct ig_json_node *node, const struct ig_convert_ctx *ctx,
                    struct ig_error *err);

#endif
