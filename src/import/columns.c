/* columns.c - a column's values from a file, for evolve.h (columns.h). */
#include "import/columns.h"
#include "import/columns_keyed.h"
#include "import/npy.h"
#include "import/spool.h"
#include "util/endian.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/part/table.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A .npy array, row k to the table's k-th live row. */
struct npy_source {
    const char *path;
    int fd;
    struct ig_npy n;
    size_t per_row;  /* bytes of a row */
    uint8_t max_def; /* the vector leaf's definition level */
    bool replace;
    struct ig_schema *schema; /* the column's, which prepare may adjust */
    const struct ig_table *t;
    uint64_t rank;     /* the array row of the next live row */
    uint64_t next_row; /* the table row expected next */
    uint8_t *buf;
    size_t cap;
};

static int npy_prepare(void *ctx, const struct ig_table *t, struct ig_error *err)
{
    struct npy_source *src = ctx;
    /* datetime64 has no zone: replacing a UTC-adjusted timestamp column of
     * the array's unit keeps it UTC-adjusted (its .npy shows it as the same
     * dtype) */
    if (src->replace && src->n.lt.kind == IG_LT_TIMESTAMP) {
        struct ig_schema ts;
        int rc = ig_table_schema(t, &ts, err);
        if (rc) return rc;
        struct ig_column_def *cd = &src->schema->cols[src->schema->tops[0]];
        long node = ig_schema_find(&ts, cd->name, cd->name_len);
        if (node >= 0 && ts.cols[node].lt.kind == IG_LT_TIMESTAMP && ts.cols[node].lt.unit == cd->lt.unit)
            cd->lt.utc = src->n.lt.utc = ts.cols[node].lt.utc;
        ig_schema_free(&ts);
    }
    uint64_t live = t->num_rows - t->deleted_rows;
    if (src->n.rows != live)
        return ig_err(err, -EINVAL,
                      "%s: %" PRIu64 " rows; the table has %" PRIu64 " live rows (row k of the "
                      "array goes to the k-th live row)",
                      src->path, src->n.rows, live);
    src->t = t;
    return 0;
}

/* One array row's elements into v (width bytes each), or, for a row the
 * table deleted, its erased form: NULL, or zeros for a vector. */
static int push_row(struct npy_source *src, struct ig_values *v, const uint8_t *p, bool deleted)
{
    const struct ig_npy *n = &src->n;
    uint32_t k = n->dim ? n->dim : 1;
    if (deleted && !n->dim) return ig_values_push_null(v);
    if (n->dim && ig_values_push_entry(v, 0, src->max_def)) return -ENOMEM;
    int rc = 0;
    if (deleted) {
        for (uint32_t i = 0; i < k && !rc; i++)
            rc = ig_values_push_lane(v, 0);
    } else if (n->lt.kind) { /* datetime64, timedelta64: one element (1-D) */
        uint64_t lane = 0;
        rc = ig_npy_time_lane(n, p, &lane);
        rc = rc == 1 ? ig_values_push_null(v) : rc ? rc : ig_values_push_lane(v, lane);
    } else if (n->type == IG_T_BOOL) {
        for (uint32_t i = 0; i < k && !rc; i++)
            rc = p[i] > 1 ? -EINVAL : ig_values_push_lane(v, p[i]);
    } else {
        rc = ig_values_push_le(v, p, n->width, k, ig_type_info(n->type)->is_signed);
    }
    if (!rc && n->dim) rc = ig_values_end_row(v);
    return rc;
}

static int npy_fill(void *ctx, uint64_t first_row, uint32_t count, struct ig_values *cols,
                    struct ig_blob_writer *blobs, struct ig_error *err)
{
    (void)blobs; /* an array holds no blobs */
    struct npy_source *src = ctx;
    if (first_row != src->next_row) return ig_err(err, -EINVAL, "rows asked out of order");
    uint32_t pi;
    uint64_t local;
    if (ig_table_row(src->t, first_row, &pi, &local))
        return ig_err(err, -EINVAL, "row %" PRIu64 " out of range", first_row);
    const struct ig_part *p = &src->t->parts[pi];
    uint64_t live = 0;
    for (uint32_t i = 0; i < count; i++)
        live += !ig_part_row_deleted(p, local + i);
    size_t want = (size_t)live * src->per_row;
    if (want > src->cap) {
        uint8_t *b = realloc(src->buf, want);
        if (!b) return ig_err(err, -ENOMEM, "out of memory");
        src->buf = b;
        src->cap = want;
    }
    int rc =
        want ? ig_pread_full(src->fd, src->buf, want, src->n.data_off + src->rank * src->per_row)
             : 0;
    if (rc) return ig_err(err, rc, "%s: read: %s", src->path, strerror(-rc));
    const uint8_t *at = src->buf;
    uint64_t rank = src->rank;
    for (uint32_t i = 0; i < count && !rc; i++) {
        bool deleted = ig_part_row_deleted(p, local + i);
        rc = push_row(src, &cols[0], at, deleted);
        if (!deleted && !rc) at += src->per_row, rank++;
    }
    if (rc == -EINVAL) return ig_err(err, rc, "%s: a bool element is not 0 or 1", src->path);
    if (rc == -ERANGE) {
        char type[64];
        ig_npy_type_text(&src->n, type, sizeof type);
        return ig_err(err, -EINVAL, "%s: element %" PRIu64 " (%" PRId64 ") is out of range for %s", src->path,
                      rank, (int64_t)ig_ld64(at), type);
    }
    if (rc) return ig_err(err, rc, "out of memory");
    src->rank += live;
    src->next_row += count;
    return 0;
}

/* A .npy array: row k to the k-th live row. */
static int add_npy(const char *table_dir, const struct ig_column_input *in,
                   struct ig_evolve_report *rep, struct ig_error *err)
{
    if (in->key || in->require_all || in->ignore_missing || in->schema_path)
        return ig_err(err, -EINVAL,
                      "%s: a .npy array has no key: row k goes to the k-th live row (--key, "
                      "--schema, --require-all and --ignore-missing are for CSV, JSON Lines and "
                      "Parquet)",
                      in->path);
    struct npy_source src = {.path = in->path, .fd = -1, .replace = in->replace};
    struct ig_spool_opts so = {0};
    int rc = ig_spool_input(in->path, &so, &src.fd, err); /* compressed, or standard input: a copy */
    if (rc) return rc;
    if (src.fd < 0 && (src.fd = ig_open(in->path, O_RDONLY | O_CLOEXEC, 0)) < 0)
        return ig_err(err, -errno, "%s: %s", in->path, strerror(errno));
    struct stat st;
    rc = fstat(src.fd, &st) ? ig_err(err, -errno, "%s: %s", in->path, strerror(errno)) : 0;
    if (!rc) rc = ig_npy_open(src.fd, (uint64_t)st.st_size, in->path, &src.n, err);
    struct ig_schema s = {0};
    char type[64];
    if (!rc) {
        ig_npy_type_text(&src.n, type, sizeof type - 1);
        if (!src.n.dim) strcat(type, "?"); /* rows without a value are NULL */
        src.per_row = (size_t)src.n.width * (src.n.dim ? src.n.dim : 1);
        rc = ig_schema_add_typed(&s, in->name, strlen(in->name), type, strlen(type), err);
    }
    if (!rc) rc = ig_schema_finish(&s, err);
    if (!rc) src.max_def = s.cols[s.leaves[0]].max_def;
    src.schema = &s;
    if (!rc) {
        struct ig_add_request req = {.schema = &s,
                                     .replace = in->replace,
                                     .retype = in->replace && in->retype,
                                     .first = in->first,
                                     .after = in->after,
                                     .fill = npy_fill,
                                     .ctx = &src,
                                     .writer = in->writer,
                                     .prepare = npy_prepare,
                                     .progress = in->progress,
                                     .progress_ctx = in->progress_ctx,
                                     .replace_progress = in->replace_progress,
                                     .replace_progress_ctx = in->replace_progress_ctx};
        rc = ig_add_columns(table_dir, &req, rep, err);
    }
    ig_schema_free(&s);
    free(src.buf);
    close(src.fd);
    return rc;
}

int ig_add_column_from(const char *table_dir, const struct ig_column_input *in,
                       struct ig_evolve_report *rep, struct ig_column_counts *counts,
                       struct ig_error *err)
{
    if (counts) memset(counts, 0, sizeof *counts);
    enum ig_input_format fmt = ig_input_format_of(in->format, in->path, -1);
    if (fmt == IG_INPUT_NPY && in->npaths > 1)
        return ig_err(err, -EINVAL, "%s: a .npy array is one column: add them one at a time", in->path);
    if (fmt == IG_INPUT_NPY) return add_npy(table_dir, in, rep, err);
    return ig_keyed_columns(table_dir, in, in->replace ? IG_KEYED_REPLACE : IG_KEYED_ADD, NULL, 0,
                            rep, counts, err);
}

int ig_update_columns_from(const char *table_dir, const struct ig_column_input *in,
                           const char *const *columns, size_t ncolumns,
                           struct ig_evolve_report *rep, struct ig_column_counts *counts,
                           struct ig_error *err)
{
    if (!ncolumns) return ig_err(err, -EINVAL, "no column to update");
    return ig_keyed_columns(table_dir, in, IG_KEYED_UPDATE, columns, ncolumns, rep, counts, err);
}
