#include "convert.h"
#include "blob/blob.h"
#include "import/blob_fetch.h"
#include "import/spool.h"
#include "store/store.h"
#include "format/model/logical.h"
#include "format/model/parse_value.h"
#include "format/model/types.h"
#include "util/io.h"
#include "util/error.h"
#include "util/parse.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static uint64_t f64_lane(double d)
{
    uint64_t l;
    memcpy(&l, &d, 8);
    return l;
}

static uint64_t f32_lane(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static int push_string(struct ig_values *v, const char *p, size_t n, struct ig_error *err)
{
    return ig_parse_value(IG_T_STRING, p, n, v, NULL, err);
}

int ig_convert_blob_path(const struct ig_convert_ctx *ctx, const char *p, size_t n, struct ig_buf *out)
{
    ig_buf_reset(out);
    bool absolute = (n && p[0] == '/') || (n > 5 && !memcmp(p, "s3://", 5));
    return absolute || !ctx->base_dir ? ig_buf_printf(out, "%.*s", (int)n, p)
                                      : ig_buf_printf(out, "%s/%.*s", ctx->base_dir, (int)n, p);
}

/* Copy one object file into the blob file; append its reference to refs. */
static int add_object(const struct ig_convert_ctx *ctx, const char *p, size_t n,
                      struct ig_buf *refs, struct ig_error *err)
{
    if (!ctx || !ctx->blobs) return ig_err(err, -EINVAL, "blob values need a blob file");
    if (n == 0) return ig_err(err, -EINVAL, "empty blob path");
    if (memchr(p, '\0', n)) return ig_err(err, -EINVAL, "blob path contains a NUL byte");
    struct ig_buf *path = ctx->path;
    int rc = ig_convert_blob_path(ctx, p, n, path);
    if (rc) return ig_err(err, -ENOMEM, "out of memory");
    struct ig_blob_ref ref;
    struct ig_error sub = {0};
    const char *name = (const char *)path->data;
    int from_fd;
    uint64_t off, size;
    if (ctx->fetched && ig_blob_fetch_find(ctx->fetched, name, strlen(name), &from_fd, &off, &size)) {
        rc = ig_blob_writer_add_range(ctx->blobs, from_fd, off, size, name, &ref, &sub);
    } else if (ig_store_is_remote(name)) { /* an object (of an input on object storage, or named whole) */
        struct ig_spool_opts so = {.raw = true};
        int fd = -1;
        rc = ig_spool_input(name, &so, &fd, &sub);
        if (!rc) rc = ig_blob_writer_add_fd(ctx->blobs, fd, name, &ref, &sub);
        if (fd >= 0) close(fd);
    } else {
        rc = ig_blob_writer_add_file(ctx->blobs, name, &ref, &sub);
    }
    if (rc) return ig_err(err, rc, "%s", sub.msg);
    /* sniff the media kind from the first bytes now in the blob file */
    uint8_t head[IG_BLOB_SNIFF_BYTES];
    size_t hn = ref.size < sizeof head ? (size_t)ref.size : sizeof head;
    unsigned kind = 0;
    if (ig_pread_full(ctx->blobs->fd, head, hn, ref.offset) == 0)
        kind = ig_blob_kind(ig_blob_sniff(head, hn));
    uint8_t *o = ig_buf_extend(refs, IG_BLOB_REF_BYTES);
    if (!o) return ig_err(err, -ENOMEM, "out of memory");
    ig_blob_ref_store(o, &ref, kind);
    return 0;
}

int ig_convert_text(const struct ig_column_def *c, struct ig_values *v, const char *p, size_t n,
                    bool quoted, const struct ig_convert_ctx *ctx, struct ig_error *err)
{
    struct ig_buf *scratch = ctx ? ctx->scratch : NULL;
    if (n == 0 && !quoted) {
        if (c->nullable || c->hidden) /* hidden: a record no version of the new part shows */
            return ig_values_push_null(v) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (c->type == IG_T_STRING || c->type == IG_T_BINARY)
            return ig_values_push_bytes(v, "", 0) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        return ig_err(err, -EINVAL, "empty value in a non-nullable %s column",
                      ig_type_info(c->type)->name);
    }
    if (c->type == IG_T_BLOB) {
        if (c->lists) return ig_err(err, -EINVAL, "list<blob> columns need JSON Lines input");
        ig_buf_reset(scratch);
        int rc = add_object(ctx, p, n, scratch, err);
        if (rc) return rc;
        return ig_values_push_bytes(v, scratch->data, scratch->len) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    if (c->type == IG_T_BINARY && !scratch) return ig_err(err, -EINVAL, "no scratch buffer");
    if (c->lt.kind) return ig_logical_parse(&c->lt, c->type, p, n, v, scratch, err);
    return ig_parse_value(c->type, p, n, v, scratch, err);
}

static int json_mismatch(const struct ig_column_def *c, const struct ig_json_node *node,
                         struct ig_error *err)
{
    char name[64];
    if (c->lt.kind) ig_logical_name(&c->lt, name, sizeof name);
    return ig_err(err, -EINVAL, "expected %s, got %s", c->lt.kind ? name : ig_type_info(c->type)->name,
                  ig_json_type_name(node->type));
}

/* A value of a logical type: its text form from a string (a decimal also
 * from a number, read exactly from its digits); dates, times and timestamps
 * also from an integer, the stored count itself (days, or units since 1970
 * or since midnight); binary ones from "\x..." or base64. */
static int json_logical(const struct ig_column_def *c, struct ig_values *v, const struct ig_json_node *node,
                        const struct ig_convert_ctx *ctx, struct ig_error *err)
{
    const struct ig_logical *lt = &c->lt;
    if (lt->kind == IG_LT_FLOAT16) return 1; /* a float column's */
    if (lt->kind == IG_LT_FIXED || (lt->kind == IG_LT_UUID && node->type == IG_JSON_STRING && node->len > 2 &&
                                    node->str[0] == '\\' && node->str[1] == 'x')) {
        if (node->type != IG_JSON_STRING) return json_mismatch(c, node, err);
        struct ig_buf *scratch = ctx->scratch;
        ig_buf_reset(scratch);
        int rc = node->len >= 2 && node->str[0] == '\\' && node->str[1] == 'x'
                     ? ig_parse_hex_binary(node->str, node->len, scratch, err)
                     : ig_base64_decode(node->str, node->len, scratch, err);
        if (rc) return rc;
        if (scratch->len != lt->width)
            return ig_err(err, -EINVAL, "%zu bytes, the column's values are %u", scratch->len, lt->width);
        return ig_values_push_bytes(v, scratch->data, scratch->len) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    if (node->type == IG_JSON_STRING || (node->type == IG_JSON_NUMBER && lt->kind == IG_LT_DECIMAL))
        return ig_logical_parse(lt, c->type, node->str, node->len, v, ctx->scratch, err);
    if (node->type == IG_JSON_NUMBER && lt->kind != IG_LT_UUID) {
        int64_t x;
        uint64_t lane;
        int rc = ig_json_number_int_range(node, INT64_MIN, INT64_MAX, &x, err);
        if (!rc) rc = ig_logical_lane_from_int(lt, x, &lane, err);
        if (rc) return rc;
        return ig_values_push_lane(v, lane) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    return json_mismatch(c, node, err);
}

/* A float column's lane from a JSON number, or from the strings NaN,
 * Infinity and -Infinity, which have no JSON number form (the JSON rendering
 * writes them so). */
static int json_float_lane(const struct ig_column_def *c, const struct ig_json_node *node, uint64_t *lane,
                           struct ig_error *err)
{
    int rc;
    if (node->type == IG_JSON_STRING) {
        if (!((node->len == 3 && !memcmp(node->str, "NaN", 3)) ||
              (node->len == 8 && !memcmp(node->str, "Infinity", 8)) ||
              (node->len == 9 && !memcmp(node->str, "-Infinity", 9))))
            return ig_err(err, -EINVAL, "expected a number, got the string \"%.*s\"",
                          node->len > 40 ? 40 : (int)node->len, node->str);
        rc = ig_parse_lane(c->type, node->str, node->len, lane, err);
    } else if (node->type == IG_JSON_NUMBER) {
        if (c->type == IG_T_FLOAT32) {
            float f;
            rc = ig_json_number_f32(node, &f, err);
            *lane = f32_lane(f);
        } else {
            double d;
            rc = ig_json_number_f64(node, &d, err);
            *lane = f64_lane(d);
        }
    } else {
        return json_mismatch(c, node, err);
    }
    return rc;
}

/* A blob column's value: the object at a path (a string), or for a
 * list<blob> the objects at an array of paths, copied into the blob file. */
static int json_blob(const struct ig_column_def *c, struct ig_values *v, const struct ig_json_node *node,
                     const struct ig_convert_ctx *ctx, struct ig_error *err)
{
    struct ig_buf *scratch = ctx->scratch;
    int rc = 0;
    ig_buf_reset(scratch);
    if (!c->lists) {
        if (node->type != IG_JSON_STRING) return json_mismatch(c, node, err);
        rc = add_object(ctx, node->str, node->len, scratch, err);
    } else {
        if (node->type != IG_JSON_ARRAY)
            return ig_err(err, -EINVAL, "expected an array of paths, got %s",
                          ig_json_type_name(node->type));
        /* children are nodes of the doc; walk by index */
        for (uint32_t k = node->first_child; !rc && k != IG_JSON_NONE;) {
            const struct ig_json_node *e = ctx->doc ? &ctx->doc->nodes[k] : NULL;
            if (!e) return ig_err(err, -EINVAL, "internal: no JSON document");
            if (e->type != IG_JSON_STRING)
                return ig_err(err, -EINVAL, "expected a path string in the array, got %s",
                              ig_json_type_name(e->type));
            rc = add_object(ctx, e->str, e->len, scratch, err);
            k = e->next_sibling;
        }
    }
    if (rc) return rc;
    return ig_values_push_bytes(v, scratch->data, scratch->len) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

/* A binary column's value from a string: "\x" and hex digits (the text
 * rendering's form), else base64. */
static int json_binary(const struct ig_column_def *c, struct ig_values *v, const struct ig_json_node *node,
                       struct ig_buf *scratch, struct ig_error *err)
{
    if (node->type != IG_JSON_STRING) return json_mismatch(c, node, err);
    ig_buf_reset(scratch);
    int rc;
    if (node->len >= 2 && node->str[0] == '\\' && node->str[1] == 'x')
        rc = ig_parse_hex_binary(node->str, node->len, scratch, err);
    else
        rc = ig_base64_decode(node->str, node->len, scratch, err);
    if (rc) return rc;
    return ig_values_push_bytes(v, scratch->data, scratch->len)
               ? ig_err(err, -ENOMEM, "out of memory")
               : 0;
}

int ig_convert_json(const struct ig_column_def *c, struct ig_values *v,
                    const struct ig_json_node *node, const struct ig_convert_ctx *ctx,
                    struct ig_error *err)
{
    if (!node || node->type == IG_JSON_NULL) {
        if (!c->nullable && !c->hidden)
            return ig_err(err, -EINVAL, node ? "null in a non-nullable column"
                                             : "missing from a non-nullable column");
        return ig_values_push_null(v) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    }
    uint64_t lane = 0;
    int rc = 0;
    if (c->lt.kind && (rc = json_logical(c, v, node, ctx, err)) <= 0) return rc;
    rc = 0;
    switch (c->type) {
    case IG_T_BOOL:
        if (node->type != IG_JSON_TRUE && node->type != IG_JSON_FALSE)
            return json_mismatch(c, node, err);
        lane = node->type == IG_JSON_TRUE;
        break;
    case IG_T_INT8:
    case IG_T_INT16:
    case IG_T_INT32:
    case IG_T_INT64: {
        if (node->type != IG_JSON_NUMBER) return json_mismatch(c, node, err);
        int64_t min, max, x;
        ig_type_int_range(c->type, &min, &max);
        rc = ig_json_number_int_range(node, min, max, &x, err);
        lane = (uint64_t)x;
        break;
    }
    case IG_T_UINT8:
    case IG_T_UINT16:
    case IG_T_UINT32:
    case IG_T_UINT64:
        if (node->type != IG_JSON_NUMBER) return json_mismatch(c, node, err);
        rc = ig_json_number_uint_range(node, 0, ig_type_uint_max(c->type), &lane, err);
        break;
    case IG_T_FLOAT32:
    case IG_T_FLOAT64:
        rc = json_float_lane(c, node, &lane, err);
        break;
    case IG_T_STRING:
        if (node->type != IG_JSON_STRING) return json_mismatch(c, node, err);
        return push_string(v, node->str, node->len, err);
    case IG_T_BLOB: return json_blob(c, v, node, ctx, err);
    case IG_T_BINARY: return json_binary(c, v, node, ctx->scratch, err);
    default: return ig_err(err, -EINVAL, "unsupported type");
    }
    if (rc) return rc;
    return ig_values_push_lane(v, lane) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}
