#include "import.h"
#include "format/part/columns.h"
#include "convert.h"
#include "csv.h"
#include "csv_rows.h"
#include "infer.h"
#include "schema_union.h"
#include "json.h"
#include "stripe.h"
#include "lines.h"
#include "npy.h"
#include "spool.h"
#include "format/ops/evolve.h"
#include "parquet.h"
#include "format/part/append.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ig_import_opts_default(struct ig_import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->delimiter = 0; /* the input's (ig_csv_sniff_delimiter) */
    o->sample_rows = IG_INFER_SAMPLE;
    ig_writer_opts_default(&o->w);
}

enum ig_input_format ig_input_format_from_name(const char *name)
{
    char path[4096];
    ig_spool_plain_name(name, path, sizeof path);
    static const struct {
        const char *suffix;
        enum ig_input_format format;
    } names[] = {{".csv", IG_INPUT_CSV},         {".tsv", IG_INPUT_CSV},     {".tab", IG_INPUT_CSV},
                 {".jsonl", IG_INPUT_JSONL},     {".ndjson", IG_INPUT_JSONL}, {".npy", IG_INPUT_NPY},
                 {".parquet", IG_INPUT_PARQUET}, {".parq", IG_INPUT_PARQUET}, {".pq", IG_INPUT_PARQUET}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ig_name_ends_with(path, names[i].suffix)) return names[i].format;
    return IG_INPUT_AUTO;
}

enum ig_input_format ig_input_format_from_fd(int fd)
{
    uint8_t head[6] = {0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    /* PARE: a Parquet file with an encrypted footer, which the Parquet
     * reader refuses saying so */
    if (n >= 4 && (!memcmp(head, "PAR1", 4) || !memcmp(head, "PARE", 4))) return IG_INPUT_PARQUET;
    if (n == 6 && !memcmp(head, "\x93NUMPY", 6)) return IG_INPUT_NPY;
    return IG_INPUT_AUTO;
}

enum ig_input_format ig_input_format_from_magic(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IG_INPUT_AUTO;
    enum ig_input_format f = ig_input_format_from_fd(fd);
    close(fd);
    return f;
}

enum ig_input_format ig_input_format_of(enum ig_input_format given, const char *path, int copy_fd)
{
    enum ig_input_format f = given ? given : ig_input_format_from_name(path);
    if (f == IG_INPUT_AUTO) f = copy_fd >= 0 ? ig_input_format_from_fd(copy_fd) : ig_input_format_from_magic(path);
    return f;
}

/* Everything one import run needs, so helpers can share it. */
struct import_run {
    /* the inputs, read one after another into the same part (ig_import_many),
     * and which one is being read */
    const char *const *inputs;
    size_t ninputs, at;
    const char *input; /* the one being read, as messages name it */
    /* it decompressed or read from standard input (spool.h), which each
     * reader reads from its start; -1: the file at `input` */
    int spool_fd;
    /* inputs copied whole while the schema was made (schema_of_all), to be
     * read from those copies (-1: none; ninputs of them, or NULL) */
    int *kept;
    /* nonzero: copy only this many lines of an input that can be read again
     * (its sample for types), or only this many last bytes of an object (a
     * Parquet footer); cut: whether the copy is of a part of it alone */
    uint64_t head_lines, tail_bytes;
    bool cut;
    /* its path without its compression suffix (x.npy.gz: x.npy), which
     * names a .npy's column; NULL: standard input, which has none */
    const char *plain_name;
    char plain[4096];
    char base_dir[4096]; /* blob paths in it are relative to this */
    const struct ig_import_opts *o;
    int in_fd;
    uint64_t in_size;
    char delim; /* CSV: o->delimiter, or the input's own */
    uint32_t sampled; /* CSV, JSON Lines: the records the types were inferred from */
    /* progress over every input: bytes of the inputs read before this one,
     * and the sizes of those after it (as they lie: compressed, 0 for a pipe) */
    uint64_t bytes_before, bytes_after;
    struct ig_schema schema;
    /* appending: the table's schema named as its footers store it (the new
     * part's footer must match theirs), while the input's columns go by the
     * version's names and its hidden columns by none (schema) */
    struct ig_schema stored;
    /* JSON Lines inferred for an append: the table's columns, whose fields
     * are read with its types, not inferred (NULL: infer every field) */
    const struct ig_schema *known;
    struct ig_part_writer *w;
    struct ig_buf scratch, path;
    struct ig_convert_ctx cc;
    struct ig_import_result *res;
    struct ig_npy npy; /* IG_INPUT_NPY */
    struct ig_parquet *pq; /* IG_INPUT_PARQUET */
};

/* Bytes of the input gone through once `rows` rows are written: a .npy is
 * read at offsets (pread), so its rows' bytes say it; elsewhere the file's
 * position. */
static uint64_t input_done(const struct import_run *r, uint64_t rows)
{
    if (r->npy.width) return r->npy.data_off + rows * ig_npy_row_bytes(&r->npy);
    off_t pos = lseek(r->in_fd, 0, SEEK_CUR);
    return pos > 0 ? (uint64_t)pos : 0;
}

/* 0, or -EINTR once the caller asked the import to stop. */
static int check_cancel(const struct import_run *r, struct ig_error *err)
{
    if (!r->o->cancel || !*r->o->cancel) return 0;
    return ig_err(err, -EINTR, "%s: interrupted; nothing was written", r->input);
}

/* Progress over every input: `done` bytes of the one being read. */
static void progress_at(const struct import_run *r, uint64_t done, uint64_t rows)
{
    if (r->o->progress)
        r->o->progress(r->o->progress_ctx, r->bytes_before + done, r->bytes_before + r->in_size + r->bytes_after,
                       rows);
}

static void report(struct import_run *r, bool force)
{
    uint64_t rows = ig_part_writer_rows(r->w);
    if (!r->o->progress || (!force && rows % 65536)) return;
    progress_at(r, input_done(r, rows), rows);
}

/* After rows ended many at a time since `before` rows: report once a multiple
 * of 65,536 rows was passed, as report() does a row at a time. */
static void report_since(struct import_run *r, uint64_t before)
{
    if (before / 65536 != ig_part_writer_rows(r->w) / 65536) report(r, true);
}

/* What a value's error adds when the types were inferred. */
static const char *inferred_hint(const struct import_run *r)
{
    return r->o->schema_path || r->o->append ? "" : " (the type was inferred from a sample; pass --schema)";
}

static int value_error(struct import_run *r, uint64_t line, uint32_t col, struct ig_error *sub,
                       struct ig_error *err)
{
    const char *hint = inferred_hint(r);
    return ig_err(err, sub->code ? sub->code : -EINVAL, "%s:%" PRIu64 ": column '%s': %s%s",
                  r->input, line, r->schema.cols[col].name, sub->msg, hint);
}

static struct ig_values *writer_leaf(void *w, uint32_t leaf)
{
    return ig_part_writer_column(w, leaf);
}

/* After each piece of a threaded CSV import: stop when asked, show progress. */
static int csv_piece_done(void *ctx, uint64_t bytes_read, struct ig_error *err)
{
    struct import_run *r = ctx;
    int rc = check_cancel(r, err);
    if (!rc) progress_at(r, bytes_read, ig_part_writer_rows(r->w));
    return rc;
}

/* Whether CSV records are converted on several threads (csv_rows.h): with
 * more than two threads, and no blob column (its objects go to the blob file
 * in the order they are converted). On two cores one thread converting and
 * the encoders beside it keep both cores busy already (conversion is ~47 % of
 * the CPU), and converting in pieces costs ~6 % more CPU (cutting, handing the
 * values over), measured on the 263 MB CSV of scripts/bench/import_throughput:
 * 0.84 s against 0.86 s. With more cores one converting thread would bound
 * the import at its own speed, whatever the encoders could do. */
static bool csv_threaded(const struct import_run *r)
{
    if (r->o->w.threads <= 2) return false;
    for (uint32_t c = 0; c < r->schema.n; c++)
        if (r->schema.cols[c].type == IG_T_BLOB) return false;
    return true;
}

/* CSV on this thread: records converted straight into the writer's columns a
 * batch at a time, each batch within the writer's room so its rows end in one
 * call (groups end where a row at a time would end them), then the cancel
 * check and progress. A failing record leaves its batch unended: the import
 * fails, and the writer removes the part. */
static int csv_rows_here(struct import_run *r, const struct ig_csv_map *m, struct ig_csv_reader *csv,
                         struct ig_error *err)
{
    for (;;) {
        uint32_t room = ig_part_writer_room(r->w);
        size_t max = room < IG_CSV_BATCH ? room : IG_CSV_BATCH, got;
        uint64_t before = ig_part_writer_rows(r->w);
        int rc = ig_csv_convert_rows(m, csv, ig_part_writer_columns(r->w), max, &r->cc, &got, err);
        if (!rc && got) rc = ig_csv_null_rows(m, ig_part_writer_columns(r->w), got, err);
        if (!rc && got) rc = ig_part_writer_end_rows(r->w, (uint32_t)got, err);
        if (!rc) rc = check_cancel(r, err);
        if (rc) return rc;
        report_since(r, before);
        if (got < max) return 0;
    }
}

/* CSV: map header fields to schema columns (by name), then convert every record. */
static int run_csv(struct import_run *r, struct ig_csv_reader *csv, struct ig_error *err)
{
    struct ig_csv_record rec;
    int rc = ig_csv_next(csv, &rec, err);
    if (rc < 0) return rc;
    if (rc == 0) return ig_err(err, -EINVAL, "%s: empty input (no header line)", r->input);
    struct ig_csv_map m;
    rc = ig_csv_map_header(&m, &r->schema, &rec, r->input, inferred_hint(r), err);
    if (!rc && csv_threaded(r)) {
        struct ig_csv_rows_opts ro = {.threads = r->o->w.threads, .piece = r->o->csv_piece,
                                      .delimiter = r->delim,
                                      .after = csv_piece_done, .ctx = r};
        rc = ig_csv_rows_threads(&m, csv, r->in_fd, r->w, &ro, err);
    } else if (!rc) {
        rc = csv_rows_here(r, &m, csv, err);
    }
    ig_csv_map_free(&m);
    return rc < 0 ? rc : 0;
}

static int run_jsonl(struct import_run *r, struct ig_lines_reader *lr, struct ig_error *err)
{
    struct ig_json_doc doc;
    ig_json_doc_init(&doc);
    /* a row's members by top-level column, found in one pass over the members
     * (looking each column up in the object would cost columns x members per
     * row when keys are left out) */
    const struct ig_schema *s = &r->schema;
    uint32_t *top_of = malloc((s->n + 1) * sizeof *top_of);
    uint32_t *touched = malloc((s->ntops + 1) * sizeof *touched), ntouched = 0;
    const struct ig_json_node **member = calloc(s->ntops + 1, sizeof *member);
    int rc = top_of && touched && member ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t t = 0; !rc && t < s->ntops; t++) top_of[s->tops[t]] = t;
    struct ig_error sub;
    while (!rc) {
        const char *line;
        size_t len;
        uint64_t lineno;
        rc = ig_lines_next(lr, &line, &len, &lineno, err);
        if (rc <= 0) break;
        rc = 0;
        if (len == 0) continue;
        ig_err_clear(&sub);
        if (ig_json_parse(&doc, line, len, &sub)) {
            rc = ig_err(err, -EINVAL, "%s:%" PRIu64 ": %s", r->input, lineno, sub.msg);
            break;
        }
        const struct ig_json_node *root = ig_json_root(&doc);
        if (root->type != IG_JSON_OBJECT) {
            rc = ig_err(err, -EINVAL, "%s:%" PRIu64 ": expected a JSON object, got %s", r->input,
                        lineno, ig_json_type_name(root->type));
            break;
        }
        /* every key must be a column: a typo must not silently become NULLs */
        for (const struct ig_json_node *m = ig_json_first_child(&doc, root); m && !rc;
             m = ig_json_next_sibling(&doc, m)) {
            long c = ig_schema_find(&r->schema, m->key, m->keylen);
            if (c < 0 || r->schema.cols[c].parent != IG_SCHEMA_NONE)
                rc = ig_err(err, -EINVAL, "%s:%" PRIu64 ": field '%.*s' is not a column of the "
                                          "schema",
                            r->input, lineno, (int)(m->keylen > 200 ? 200 : m->keylen), m->key);
            else if (!member[top_of[c]]) { /* a repeated key: the first one counts */
                member[top_of[c]] = m;
                touched[ntouched++] = top_of[c];
            }
        }
        r->cc.doc = &doc;
        for (uint32_t t = 0; t < r->schema.ntops && !rc; t++) {
            uint32_t c = r->schema.tops[t];
            const struct ig_column_def *cd = &r->schema.cols[c];
            const struct ig_json_node *node = member[t];
            if (ig_column_is_flat(cd) || ig_column_is_blob_list(cd)) {
                if (ig_convert_json(cd, ig_part_writer_column(r->w, cd->leaf), node, &r->cc, &sub))
                    rc = value_error(r, lineno, c, &sub, err);
            } else if (ig_stripe_json(&r->schema, c, &doc, node, writer_leaf, r->w, &r->cc, &sub)) {
                rc = ig_err(err, sub.code ? sub.code : -EINVAL, "%s:%" PRIu64 ": %s", r->input,
                            lineno, sub.msg);
            }
        }
        while (ntouched) member[touched[--ntouched]] = NULL; /* clear what this row set */
        if (!rc) rc = ig_part_writer_end_row(r->w, err);
        if (!rc) rc = check_cancel(r, err);
        if (!rc) report(r, false);
    }
    free(top_of);
    free(touched);
    free(member);
    ig_json_doc_free(&doc);
    return rc < 0 ? rc : 0;
}

/* Decide the schema: the table's (append), the schema file's, or inferred. */
/* The array's rows into the schema's one column, a buffer at a time. */
static int run_npy(struct import_run *r, struct ig_error *err)
{
    const struct ig_npy *n = &r->npy;
    const struct ig_schema *s = &r->schema;
    if (s->ntops != 1)
        return ig_err(err, -EINVAL, "%s: a .npy file fills one column; the schema has %u", r->input,
                      s->ntops);
    const struct ig_column_def *cd = &s->cols[s->tops[0]];
    bool fits = cd->leaf != IG_SCHEMA_NONE && cd->lists == 0 && cd->type == n->type &&
                cd->dimension == n->dim && cd->parent == IG_SCHEMA_NONE &&
                (!n->lt.kind || (cd->lt.kind == n->lt.kind && cd->lt.unit == n->lt.unit));
    if (!fits) {
        char have[64];
        ig_npy_type_text(n, have, sizeof have);
        return ig_err(err, -EINVAL, "%s: column '%s' cannot hold this array (%s)", r->input,
                      cd->name, have);
    }
    const struct ig_type_info *ti = ig_type_info(n->type);
    size_t per_row = (size_t)ig_npy_row_bytes(n);
    size_t batch = per_row > (1u << 20) ? 1 : (1u << 20) / per_row;
    uint8_t *buf = malloc(batch * per_row);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    int rc = 0;
    for (uint64_t row = 0; row < n->rows && !rc;) {
        size_t take = n->rows - row < batch ? (size_t)(n->rows - row) : batch;
        rc = ig_pread_full(r->in_fd, buf, take * per_row, n->data_off + row * per_row);
        if (rc) {
            rc = ig_err(err, rc, "%s: read: %s", r->input, strerror(-rc));
            break;
        }
        for (size_t i = 0; i < take && !rc; i++, row++) {
            /* the writer fills a fresh group after each full one */
            struct ig_values *v = ig_part_writer_column(r->w, cd->leaf);
            const uint8_t *p = buf + i * per_row;
            if (n->dim && ig_values_push_entry(v, 0, cd->max_def)) rc = -ENOMEM;
            if (n->lt.kind) { /* datetime64, timedelta64 (1-D): NaT is NULL */
                uint64_t lane = 0;
                int t = ig_npy_time_lane(n, p, &lane);
                char type[64];
                if (t < 0 || (t == 1 && !cd->nullable)) {
                    ig_npy_type_text(n, type, sizeof type);
                    rc = ig_err(err, -EINVAL, t < 0 ? "%s: row %" PRIu64 ": %" PRId64 " is out of range for %s"
                                                    : "%s: row %" PRIu64 ": NaT (%" PRId64 ") in column '%s', which is not nullable",
                                r->input, row, (int64_t)ig_ld64(p), t < 0 ? type : cd->name);
                } else if (t == 1 ? ig_values_push_null(v) : ig_values_push_lane(v, lane)) {
                    rc = -ENOMEM;
                }
            } else if (!rc && n->type != IG_T_BOOL && ig_values_push_le(v, p, n->width, n->dim ? n->dim : 1, ti->is_signed))
                rc = -ENOMEM;
            for (uint32_t k = 0; n->type == IG_T_BOOL && k < (n->dim ? n->dim : 1) && !rc; k++, p += n->width) {
                uint64_t lane = p[0]; /* bools: one byte each, checked */
                if (lane > 1) {
                    rc = ig_err(err, -EINVAL, "%s: row %" PRIu64 ": bool byte %" PRIu64 " is not 0 or 1",
                                r->input, row, lane);
                    break;
                }
                if (ig_values_push_lane(v, lane)) rc = -ENOMEM;
            }
            if (!rc && n->dim && ig_values_end_row(v)) rc = -ENOMEM; /* a nested leaf: its row ends */
            if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
            if (!rc) rc = ig_part_writer_end_row(r->w, err);
            if (!rc) rc = check_cancel(r, err);
            if (!rc) report(r, false); /* every 65,536 rows written */
        }
    }
    free(buf);
    return rc;
}

/* A column's type in the schema language, without a top-level '?'. */
static int bare_type(const struct ig_schema *s, uint32_t node, char *out, size_t cap)
{
    struct ig_buf b = IG_BUF_INIT;
    int rc = ig_schema_type_text(s, node, &b);
    size_t n = 0;
    bool quoted = false;
    for (size_t i = 0; !rc && i < b.len && n + 1 < cap; i++) {
        char ch = (char)b.data[i];
        quoted ^= ch == '"';
        if (ch != '?' || quoted) out[n++] = ch; /* every node's nullability off (a field name's '?' kept) */
    }
    if (cap) out[n] = 0;
    ig_buf_free(&b);
    return rc;
}

/* Do the input's top-level columns fit the table's (the same type, whatever
 * may be NULL: values are read by the table's schema, and a NULL where it
 * cannot hold one is refused as the rows are read)? */
static int schema_fits(const struct ig_schema *in, const struct ig_schema *table, const char *what,
                       struct ig_error *err)
{
    for (uint32_t k = 0; k < in->ntops; k++) {
        const struct ig_column_def *cd = &in->cols[in->tops[k]];
        long node = ig_schema_find(table, cd->name, cd->name_len);
        char want[512], have[512];
        if (node < 0) return ig_err(err, -EINVAL, "%s: column '%s' is not in the table", what, cd->name);
        if (bare_type(in, in->tops[k], want, sizeof want) || bare_type(table, (uint32_t)node, have, sizeof have))
            return ig_err(err, -ENOMEM, "out of memory");
        if (strcmp(want, have))
            return ig_err(err, -EINVAL, "%s: column '%s' is %s in the table, %s here: a column keeps its type "
                                        "(ingot replace-column changes its values, not its type)",
                          what, cd->name, have, want);
    }
    return 0;
}

static bool table_shows(void *t, uint32_t col)
{
    return ig_table_shows(t, col);
}

/* The table's schema an append reads its input by: every record the parts
 * have, those the version hides (a column replaced or dropped: older versions
 * show them) under names no input gives, so the new part holds NULL there. */
static int append_schema(const struct ig_table *t, struct ig_schema *s, struct ig_error *err)
{
    return ig_schema_from_part_hiding(&t->parts[0], table_shows, (void *)t, s, err);
}

/* Can rows be appended to a table whose version hides some records? Its new
 * part has every record (all parts do) and leaves the hidden ones NULL
 * (ig_column_def.hidden: CSV and JSON Lines never name them, a Parquet file's
 * columns go to the shown ones), or where one cannot be NULL its least value
 * (ig_stripe_absent), then released (release_hidden). A .npy is one column:
 * a table with more does not take it. */
static int check_hidden(const struct ig_table *t, enum ig_input_format fmt, struct ig_error *err)
{
    if (ig_table_columns_shown(t) == t->parts[0].num_columns || fmt != IG_INPUT_NPY) return 0;
    return ig_err(err, -ENOTSUP, "%s: its older versions show columns this one does not (a column "
                                 "replaced or dropped); appending a .npy to it is not supported",
                  t->dir);
}

/* The hidden records that cannot be NULL hold no value in the rows appended
 * (NULL, or their least value): released in the new parts before they are
 * committed, so that no version shows them again (restore-columns refuses a
 * released record) and they hold zeros, as `ingot gc` leaves a record. */
static int release_hidden(struct ig_append *a, const struct ig_schema *s, uint32_t *newly,
                          struct ig_error *err)
{
    uint8_t *release = calloc(s->n ? s->n : 1, 1);
    if (!release) return ig_err(err, -ENOMEM, "out of memory");
    bool any = false;
    for (uint32_t c = 0; c < s->n; c++) {
        const struct ig_column_def *top = &s->cols[s->cols[c].top];
        release[c] = top->hidden && !top->nullable;
        any |= release[c];
        /* a top-level column restore-columns could still show */
        *newly += release[c] && s->cols[c].top == c && !ig_part_column_released(&a->table.parts[0], c);
    }
    int rc = any ? ig_append_release(a, release, s->n, err) : 0;
    free(release);
    return rc;
}

static bool schema_from_all(const struct import_run *r, enum ig_input_format fmt);
static int schema_of_all(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader *csv,
                         struct ig_lines_reader *lr, const struct ig_schema *known, struct ig_schema *out,
                         struct ig_error *err);

/* The schema the rows are written with: the schema file's; appending, the
 * table's; else the input's own (Parquet's, a .npy's dtype, inferred), or
 * of every input (schema_of_all). */
static int choose_schema(struct import_run *r, enum ig_input_format fmt,
                         const struct ig_table *existing, struct ig_csv_reader *csv,
                         struct ig_lines_reader *lr, struct ig_error *err)
{
    int rc;
    if (existing && (rc = check_hidden(existing, fmt, err))) return rc;
    if (r->o->schema_path) {
        char *text;
        size_t len;
        rc = ig_read_file(r->o->schema_path, 16u << 20, &text, &len, err);
        if (rc) return rc;
        rc = ig_schema_parse(&r->schema, text, len, r->o->schema_path, err);
        free(text);
        if (rc) return rc;
        if (fmt == IG_INPUT_PARQUET && (rc = ig_parquet_check_schema(r->pq, &r->schema, err)))
            return rc;
        if (existing) {
            struct ig_schema have;
            rc = append_schema(existing, &have, err);
            if (rc) return rc;
            /* page sizes are stored resolved; compare with the declared default */
            for (uint32_t c = 0; c < r->schema.n && c < have.n; c++)
                if (!r->schema.cols[c].page_size) r->schema.cols[c].page_size = have.cols[c].page_size;
            bool same = ig_schema_equal(&have, &r->schema);
            /* the table's own schema, with the file's columns among its
             * columns (schema_fits says which do not fit); the rest NULL */
            if (!same) rc = schema_fits(&r->schema, &have, r->o->schema_path, err);
            if (!rc && !same) {
                ig_schema_free(&r->schema);
                r->schema = have;
                have = (struct ig_schema){0};
                if (fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
            }
            ig_schema_free(&have);
            if (rc) return rc;
        }
        return 0;
    }
    if (existing) {
        rc = append_schema(existing, &r->schema, err);
        if (!rc && fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
        return rc;
    }
    if (schema_from_all(r, fmt)) return schema_of_all(r, fmt, csv, lr, r->known, &r->schema, err);
    if (fmt == IG_INPUT_PARQUET) return ig_parquet_schema(r->pq, &r->schema, err);
    if (fmt == IG_INPUT_NPY) { /* one column, named after the file */
        if (!r->plain_name)
            return ig_err(err, -EINVAL, "%s: a .npy array names its column by its file name, and this "
                                        "input has none; save it as NAME.npy and import that",
                          r->input);
        char type[64];
        const char *base = strrchr(r->plain_name, '/');
        base = base ? base + 1 : r->plain_name;
        size_t len = strlen(base);
        len = len > 4 && !strcmp(base + len - 4, ".npy") ? len - 4 : len; /* without ".npy" */
        rc = ig_npy_type_text(&r->npy, type, sizeof type - 1);
        if (!rc && r->npy.lt.kind) strcat(type, "?"); /* NaT is NULL */
        if (!rc) rc = ig_schema_add_typed(&r->schema, base, len ? len : 1, type, strlen(type), err);
        return rc ? rc : ig_schema_finish(&r->schema, err);
    }
    uint32_t sample = r->o->sample_rows ? r->o->sample_rows : IG_INFER_SAMPLE;
    if (fmt == IG_INPUT_CSV) return ig_infer_csv(csv, r->input, sample, &r->schema, &r->sampled, err);
    return ig_infer_jsonl(lr, r->input, sample, r->known, &r->schema, &r->sampled, err);
}

/* Open the input and its reader for the format. */
static int open_input(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader **csv,
                      struct ig_lines_reader **lr, struct ig_error *err)
{
    if (r->spool_fd >= 0) { /* read again from its start (the offset is shared) */
        r->in_fd = fcntl(r->spool_fd, F_DUPFD_CLOEXEC, 0);
        if (r->in_fd < 0 || lseek(r->in_fd, 0, SEEK_SET) < 0)
            return ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    } else {
        r->in_fd = open(r->input, O_RDONLY | O_CLOEXEC);
    }
    if (r->in_fd < 0) return ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    struct stat st;
    if (fstat(r->in_fd, &st) == 0) r->in_size = (uint64_t)st.st_size;
    if (fmt == IG_INPUT_NPY) return ig_npy_open(r->in_fd, r->in_size, r->input, &r->npy, err);
    if (fmt == IG_INPUT_PARQUET) return ig_parquet_open(&r->pq, r->in_fd, r->in_size, r->input, err);
    r->delim = r->o->delimiter ? r->o->delimiter : ig_csv_sniff_delimiter(r->in_fd, r->plain_name ? r->plain_name : "");
    int rc = fmt == IG_INPUT_CSV
                 ? ig_csv_open(csv, r->in_fd, r->input, r->delim)
                 : ig_lines_open(lr, r->in_fd, r->input);
    return rc ? ig_err(err, rc, "%s: cannot read: %s", r->input, strerror(-rc)) : 0;
}

static void parquet_progress(void *ctx, uint64_t bytes_done, uint64_t rows)
{
    progress_at(ctx, bytes_done, rows);
}

/* The spool's progress, over every input (its bytes as they lie). */
static void spool_progress(void *ctx, uint64_t done, uint64_t total, uint64_t rows)
{
    const struct import_run *r = ctx;
    (void)rows;
    if (r->o->progress)
        r->o->progress(r->o->progress_ctx, r->bytes_before + done, r->bytes_before + total + r->bytes_after, 0);
}

static uint64_t size_as_it_lies(const char *path)
{
    struct stat st;
    return strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* Make input i the one read: copied first where it must be (spool.h), its
 * format told (*fmt, when AUTO) or checked against the first input's. */
static int begin_input(struct import_run *r, size_t i, enum ig_input_format *fmt, struct ig_error *err)
{
    const char *path = r->inputs[i];
    bool from_stdin = !strcmp(path, "-");
    r->at = i;
    r->input = from_stdin ? "standard input" : path;
    ig_spool_plain_name(path, r->plain, sizeof r->plain);
    r->plain_name = from_stdin ? NULL : r->plain;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(r->base_dir, sizeof r->base_dir, "%s", dirname(copy));
    uint64_t raw = size_as_it_lies(path);
    r->bytes_after -= raw < r->bytes_after ? raw : r->bytes_after;
    struct ig_spool_opts so = {.cancel = r->o->cancel, .progress = spool_progress, .progress_ctx = r,
                               .head_lines = r->head_lines, .tail_bytes = r->tail_bytes, .cut = &r->cut};
    int rc = 0;
    r->cut = false;
    if (r->o->input_copies && r->o->input_copies[i] >= 0) { /* the caller's copy */
        r->spool_fd = fcntl(r->o->input_copies[i], F_DUPFD_CLOEXEC, 0);
        if (r->spool_fd < 0) rc = ig_err(err, -errno, "%s: %s", r->input, strerror(errno));
    } else if (r->kept && r->kept[i] >= 0) { /* copied whole while its types were inferred */
        r->spool_fd = r->kept[i];
        r->kept[i] = -1;
    } else {
        rc = ig_spool_input(path, &so, &r->spool_fd, err);
    }
    if (rc) return rc;
    enum ig_input_format f = ig_input_format_of(r->o->format, path, r->spool_fd);
    if (f == IG_INPUT_AUTO) f = *fmt; /* a later input with no telling name ("-", a pipe): the first's */
    if (f == IG_INPUT_AUTO)
        return ig_err(err, -EINVAL, "%s: cannot tell the format from the %s; pass --format csv, jsonl, npy or parquet",
                      r->input, from_stdin ? "first bytes" : "name");
    static const char *const names[] = {"", "CSV", "JSON Lines", ".npy", "Parquet"};
    if (*fmt != IG_INPUT_AUTO && f != *fmt)
        return ig_err(err, -EINVAL, "%s: %s, where the first input (%s) is %s: the inputs of one import share a format",
                      r->input, names[f], r->inputs[0], names[*fmt]);
    *fmt = f;
    return 0;
}

/* Close what reads the current input; its bytes count as read. */
static void end_input(struct import_run *r, struct ig_csv_reader **csv, struct ig_lines_reader **lr)
{
    if (*csv) ig_csv_close(*csv);
    if (*lr) ig_lines_close(*lr);
    *csv = NULL;
    *lr = NULL;
    ig_parquet_close(r->pq);
    r->pq = NULL;
    if (r->in_fd >= 0) close(r->in_fd);
    if (r->spool_fd >= 0) close(r->spool_fd);
    r->in_fd = r->spool_fd = -1;
    r->bytes_before += r->in_size;
    r->in_size = 0;
}

/* Copies kept for the import: the inputs it must (read once) and, of those
 * the inference copied whole anyway (small ones), this many, of at most
 * these bytes together (the disk under $TMPDIR holds them at once). */
#define KEPT_COPIES_MAX 64
#define KEPT_BYTES_MAX (256ull << 20)

/* What the schema of several inputs is made from as each is read: CSV and
 * JSON Lines samples (infer.h), Parquet schemas (schema_union.h). */
struct schema_of_all {
    enum ig_input_format fmt;
    uint32_t sample;
    struct ig_infer *g;
    struct ig_schema_union u;
};

/* Input r's part of it (r open: csv, lr or r->pq). */
static int take_in(struct schema_of_all *all, struct import_run *r, struct ig_csv_reader *csv,
                   struct ig_lines_reader *lr, struct ig_error *err)
{
    if (all->fmt == IG_INPUT_CSV) return ig_infer_csv_more(all->g, csv, r->input, all->sample, r->cut, err);
    if (all->fmt == IG_INPUT_JSONL) return ig_infer_jsonl_more(all->g, lr, r->input, all->sample, err);
    struct ig_schema s = {0};
    int rc = ig_parquet_schema(r->pq, &s, err);
    if (!rc) rc = ig_schema_union_add(&all->u, &s, r->input, err);
    ig_schema_free(&s);
    return rc;
}

/* Several inputs without a schema file: one schema from them all (CSV and
 * JSON Lines: columns by name, typed by the values of every input; Parquet:
 * columns by name, those some file lacks nullable). r is at its first input,
 * open (csv, lr, r->pq); each later one is read by a run of its own, of its
 * head alone where it is copied and can be read again (CSV, JSON Lines), its
 * copy kept for the import where it is whole (r->kept). known: as
 * ig_infer_jsonl's. */
static int schema_of_all(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader *csv,
                         struct ig_lines_reader *lr, const struct ig_schema *known, struct ig_schema *out,
                         struct ig_error *err)
{
    struct schema_of_all all = {.fmt = fmt, .sample = r->o->sample_rows ? r->o->sample_rows : IG_INFER_SAMPLE};
    ig_schema_union_init(&all.u);
    bool parquet = fmt == IG_INPUT_PARQUET;
    int rc = !parquet && !(all.g = ig_infer_new(known)) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc && !r->kept && !(r->kept = malloc(r->ninputs * sizeof *r->kept)))
        rc = ig_err(err, -ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < r->ninputs; k++)
        r->kept[k] = -1;
    if (!rc) rc = take_in(&all, r, csv, lr, err);
    size_t kept = 0;
    uint64_t kept_bytes = 0;
    for (size_t k = 1; k < r->ninputs && !rc; k++) {
        /* a CSV's or JSON Lines' head (a CSV's header and sample), a
         * Parquet object's tail (its footer: 1 MiB holds most, 32 MiB one of
         * tens of thousands of columns; else the whole object) */
        static const uint64_t parquet_tails[] = {1ull << 20, 32ull << 20, 0 /* whole */};
        for (size_t attempt = 0; attempt < 3; attempt++) {
            struct import_run p = {.inputs = r->inputs, .ninputs = r->ninputs, .spool_fd = -1, .o = r->o,
                                   .in_fd = -1, .head_lines = parquet ? 0 : (uint64_t)all.sample + 1,
                                   .tail_bytes = parquet ? parquet_tails[attempt] : 0};
            struct ig_csv_reader *pc = NULL;
            struct ig_lines_reader *pl = NULL;
            enum ig_input_format f = fmt;
            struct ig_error sub = {0};
            rc = check_cancel(r, err);
            if (!rc) rc = begin_input(&p, k, &f, err);
            if (!rc) rc = open_input(&p, fmt, &pc, &pl, p.tail_bytes && p.cut ? &sub : err);
            if (!rc) rc = take_in(&all, &p, pc, pl, p.tail_bytes && p.cut ? &sub : err);
            bool again = rc && p.tail_bytes && p.cut && rc != -EINTR && rc != -ENOMEM;
            bool once = !rc && p.spool_fd >= 0 && !p.cut && ig_spool_read_once(r->inputs[k]);
            if (!rc && p.spool_fd >= 0 && !p.cut &&
                (once || (kept < KEPT_COPIES_MAX && kept_bytes + p.in_size <= KEPT_BYTES_MAX))) {
                r->kept[k] = p.spool_fd; /* the import reads this copy: not copied again */
                p.spool_fd = -1;
                kept += !once;
                kept_bytes += once ? 0 : p.in_size;
            }
            end_input(&p, &pc, &pl);
            if (rc && !again && p.tail_bytes && p.cut) *err = sub;
            if (!again) break;
            rc = 0;
        }
    }
    if (!rc) {
        rc = parquet ? ig_schema_union_end(&all.u, out, err)
                     : ig_infer_end(all.g, fmt == IG_INPUT_JSONL, out, &r->sampled, err);
        all.g = NULL; /* ig_infer_end frees it */
    }
    ig_infer_free(all.g);
    ig_schema_union_free(&all.u);
    return rc;
}

/* Is the schema made from every input (schema_of_all)? Where there are
 * several of a format that gives columns by name, and no schema file. */
static bool schema_from_all(const struct import_run *r, enum ig_input_format fmt)
{
    return r->ninputs > 1 && !r->o->schema_path &&
           (fmt == IG_INPUT_CSV || fmt == IG_INPUT_JSONL || fmt == IG_INPUT_PARQUET);
}

static void free_kept(struct import_run *r)
{
    for (size_t k = 0; r->kept && k < r->ninputs; k++)
        if (r->kept[k] >= 0) close(r->kept[k]);
    free(r->kept);
    r->kept = NULL;
}

/* Every row of input r->at, into the writer. */
static int run_input(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader *csv,
                     struct ig_lines_reader *lr, struct ig_error *err)
{
    return fmt == IG_INPUT_CSV       ? run_csv(r, csv, err)
           : fmt == IG_INPUT_NPY     ? run_npy(r, err)
           : fmt == IG_INPUT_PARQUET ? ig_parquet_write(r->pq, r->w, &r->schema, parquet_progress, r, r->o->cancel, err)
                                     : run_jsonl(r, lr, err);
}

/* Write the part at the transaction's temporary paths: every row of every
 * input, one after another (the first is open, its readers *csv, *lr). */
static int write_part(struct import_run *r, enum ig_input_format fmt, struct ig_append *a,
                      struct ig_csv_reader **csv, struct ig_lines_reader **lr, struct ig_error *err)
{
    struct ig_writer_opts wo = r->o->w;
    if (a->blob_name[0]) wo.blob_path = a->blob_tmp;
    wo.part_bytes = r->o->part_bytes_set ? r->o->part_bytes : ig_append_part_bytes_default(a->table_dir);
    wo.next_part = ig_append_next;
    wo.next_ctx = a;
    int rc = ig_part_writer_open(&r->w, a->part_tmp, r->stored.n ? &r->stored : &r->schema, &wo, a->first_row,
                                 err);
    if (rc) return rc;
    /* blob paths in an input are relative to its directory (r->base_dir) */
    r->cc = (struct ig_convert_ctx){
        .scratch = &r->scratch, .path = &r->path, .blobs = ig_part_writer_blobs(r->w), .base_dir = r->base_dir};
    while (!(rc = run_input(r, fmt, *csv, *lr, err)) && r->at + 1 < r->ninputs) {
        end_input(r, csv, lr);
        enum ig_input_format next = fmt;
        rc = begin_input(r, r->at + 1, &next, err);
        if (!rc) rc = open_input(r, fmt, csv, lr, err);
        /* its columns by name against the first's, its types the same */
        if (!rc && fmt == IG_INPUT_PARQUET) rc = ig_parquet_check_schema(r->pq, &r->schema, err);
        if (rc) return rc;
    }
    if (rc) return rc;
    /* a table needs rows; an append of none (an empty shard of a daily
     * load) writes nothing and leaves the table as it was (ig_import) */
    if (ig_part_writer_rows(r->w) == 0 && !a->have_table)
        return r->ninputs == 1 ? ig_err(err, -EINVAL, "%s: no rows to import", r->input)
                               : ig_err(err, -EINVAL, "no rows to import in the %zu inputs", r->ninputs);
    if (ig_part_writer_rows(r->w) == 0) return 0;
    if (fmt != IG_INPUT_PARQUET) report(r, true); /* Parquet reports its own bytes */
    return ig_part_writer_finish(r->w, err);
}

/* New columns as NULL in every row a table has (their rows from before). */
static int fill_null(void *ctx, uint64_t first_row, uint32_t count, struct ig_values *cols,
                     struct ig_blob_writer *blobs, struct ig_error *err)
{
    (void)first_row;
    (void)blobs;
    const struct ig_schema *s = ctx;
    for (uint32_t l = 0; l < s->nleaves; l++) {
        struct ig_values *v = &cols[l];
        for (uint32_t i = 0; i < count; i++) {
            int rc = v->levels ? ig_values_push_entry(v, 0, 0) || ig_values_end_row(v) : ig_values_push_null(v);
            if (rc) return ig_err(err, -ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* An append whose input has columns the table has not: they are added first
 * (a version of their own: the rows already there NULL in them; *made its
 * number, else 0), and the part is then appended with them (an append that
 * fails then takes them away again: ig_import). A column of the input that
 * the table has must keep its type when the input declares one (a schema
 * file, Parquet, .npy); CSV and JSON Lines are read with the table's types. */
static int evolve_for_append(struct import_run *base, const char *table_dir, enum ig_input_format fmt,
                             uint64_t *made, struct ig_error *err)
{
    *made = 0;
    const char *input = base->input;
    const struct ig_import_opts *o = base->o;
    struct import_run r = {.inputs = base->inputs, .ninputs = base->ninputs, .input = input,
                           .spool_fd = base->spool_fd, .plain_name = base->plain_name, .o = o, .in_fd = -1};
    struct ig_csv_reader *csv = NULL;
    struct ig_lines_reader *lr = NULL;
    struct ig_table t;
    bool have_table = false;
    struct ig_schema add = {0}, table = {0};
    int rc = ig_table_open(&t, table_dir, false, err);
    have_table = !rc;
    if (!rc) rc = ig_table_schema(&t, &table, err);
    if (!rc) rc = open_input(&r, fmt, &csv, &lr, err);
    r.known = &table;
    /* the inputs' own (their new columns, for JSON Lines) */
    if (!rc) rc = choose_schema(&r, fmt, NULL, csv, lr, err);
    base->kept = r.kept; /* the copies the append reads (schema_of_all) */
    bool declared = o->schema_path || fmt == IG_INPUT_PARQUET || fmt == IG_INPUT_NPY;
    for (uint32_t k = 0; !rc && k < r.schema.ntops; k++) {
        const struct ig_column_def *cd = &r.schema.cols[r.schema.tops[k]];
        if (ig_schema_find(&table, cd->name, cd->name_len) >= 0) {
            if (declared) { /* the declared column against the table's */
                struct ig_schema only = {0};
                struct ig_buf b = IG_BUF_INIT;
                rc = ig_schema_type_text(&r.schema, r.schema.tops[k], &b) ? ig_err(err, -ENOMEM, "out of memory") : 0;
                if (!rc) rc = ig_schema_add_typed(&only, cd->name, cd->name_len, (const char *)b.data, b.len, err);
                if (!rc) rc = ig_schema_finish(&only, err);
                if (!rc) rc = schema_fits(&only, &table, input, err);
                ig_schema_free(&only);
                ig_buf_free(&b);
            }
            continue;
        }
        /* a column the table has not: nullable, its rows from before NULL */
        struct ig_buf b = IG_BUF_INIT;
        rc = ig_schema_type_text(&r.schema, r.schema.tops[k], &b) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc && (!b.len || b.data[b.len - 1] != '?') && !cd->dimension)
            rc = ig_buf_append_byte(&b, '?') ? ig_err(err, -ENOMEM, "out of memory") : 0;
        if (!rc) rc = ig_schema_add_typed(&add, cd->name, cd->name_len, (const char *)b.data, b.len, err);
        ig_buf_free(&b);
    }
    if (csv) ig_csv_close(csv);
    if (lr) ig_lines_close(lr);
    ig_parquet_close(r.pq);
    if (r.in_fd >= 0) close(r.in_fd);
    ig_schema_free(&r.schema);
    ig_schema_free(&r.stored);
    ig_schema_free(&table);
    if (have_table) ig_table_close(&t);
    if (!rc && add.n) rc = ig_schema_finish(&add, err);
    if (!rc && add.ntops) {
        for (uint32_t l = 0; l < add.nleaves; l++)
            if (add.cols[add.leaves[l]].dimension && !(add.cols[add.leaves[l]].null_mask & 1))
                rc = ig_err(err, -EINVAL, "%s: vector column '%s' is new to the table; its rows from before "
                                          "would need values (ingot add-column adds it first)",
                            input, add.cols[add.leaves[l]].name);
        struct ig_add_request req = {.schema = &add, .fill = fill_null, .ctx = &add};
        struct ig_evolve_report rep;
        if (!rc) rc = ig_add_columns(table_dir, &req, &rep, err);
        if (!rc) *made = rep.version;
    }
    ig_schema_free(&add);
    return rc;
}

/* An append that failed after it added its new columns: the version before
 * them shown again, so that the table shows what it did before the append
 * (two versions later); unless another writer's version came since. */
static void undo_added_columns(const char *table_dir, uint64_t made, struct ig_error *err)
{
    struct ig_evolve_report rep;
    struct ig_error why = {0};
    if (ig_undo_columns(table_dir, made, "the append that added them failed", &rep, &why) == 0) return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, " (the columns it added stay, version %" PRIu64 ": %s)", made,
             why.msg);
}

int ig_import_infer(const char *const *inputs, size_t ninputs, const struct ig_import_opts *o,
                    struct ig_schema *out, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    struct import_run r = {.inputs = inputs, .ninputs = ninputs, .spool_fd = -1, .o = o, .in_fd = -1};
    struct ig_csv_reader *csv = NULL;
    struct ig_lines_reader *lr = NULL;
    enum ig_input_format fmt = IG_INPUT_AUTO;
    int rc = begin_input(&r, 0, &fmt, err);
    if (!rc) rc = open_input(&r, fmt, &csv, &lr, err);
    if (!rc) rc = choose_schema(&r, fmt, NULL, csv, lr, err);
    end_input(&r, &csv, &lr);
    free_kept(&r);
    if (!rc) *out = r.schema;
    else ig_schema_free(&r.schema);
    return rc;
}

int ig_import(const char *input, const char *table_dir, const struct ig_import_opts *o,
              struct ig_import_result *res, struct ig_error *err)
{
    return ig_import_many(&input, 1, table_dir, o, res, err);
}

int ig_import_many(const char *const *inputs, size_t ninputs, const char *table_dir, const struct ig_import_opts *o,
                   struct ig_import_result *res, struct ig_error *err)
{
    struct ig_import_result dummy;
    if (!res) res = &dummy;
    memset(res, 0, sizeof *res);
    if (!ninputs) return ig_err(err, -EINVAL, "%s: no input to import", table_dir);
    struct import_run r = {
        .inputs = inputs, .ninputs = ninputs, .spool_fd = -1, .o = o, .in_fd = -1, .res = res};
    size_t stdins = 0;
    for (size_t i = 0; i < ninputs; i++) {
        stdins += !strcmp(inputs[i], "-");
        r.bytes_after += size_as_it_lies(inputs[i]);
    }
    if (stdins > 1) return ig_err(err, -EINVAL, "standard input (-) is named %zu times: it can be read once", stdins);
    enum ig_input_format fmt = IG_INPUT_AUTO;
    int rc = begin_input(&r, 0, &fmt, err);
    if (!rc && fmt == IG_INPUT_NPY && ninputs > 1)
        rc = ig_err(err, -EINVAL, "%s: a .npy array fills one column named after its file, so .npy inputs are "
                                  "imported one at a time (ingot add-column adds one to a table)",
                    r.input);
    struct ig_csv_reader *csv = NULL;
    struct ig_lines_reader *lr = NULL;
    struct ig_append a;
    uint64_t added = 0; /* the version that added the first input's new columns */
    if (!rc && o->append) rc = evolve_for_append(&r, table_dir, fmt, &added, err);
    if (rc) {
        end_input(&r, &csv, &lr);
        free_kept(&r);
        return rc;
    }
    rc = ig_append_begin(&a, table_dir, !o->append, err);
    a.upload_progress = o->upload_progress;
    a.upload_progress_ctx = o->upload_progress_ctx;
    if (!rc) rc = open_input(&r, fmt, &csv, &lr, err);
    if (!rc) rc = choose_schema(&r, fmt, a.have_table ? &a.table : NULL, csv, lr, err);
    if (!rc && a.have_table) { /* the names the parts' footers store (renamed and hidden columns) */
        rc = ig_schema_from_part_stored(&a.table.parts[0], &r.stored, err);
        if (!rc && r.stored.n != r.schema.n)
            rc = ig_err(err, -EIO, "%s: the table's columns changed while it was read", table_dir);
    }
    bool blobs = false;
    for (uint32_t c = 0; !rc && c < r.schema.n; c++)
        blobs |= r.schema.cols[c].type == IG_T_BLOB;
    if (!rc) rc = ig_append_name(&a, blobs, err);
    if (!rc) rc = write_part(&r, fmt, &a, &csv, &lr, err);
    res->columns_version = added;
    if (!rc) {
        res->rows = ig_part_writer_rows(r.w);
        res->first_row_id = a.first_row;
        res->input_bytes = r.bytes_before + r.in_size;
    }
    if (!rc && res->rows) {
        snprintf(res->part, sizeof res->part, "%s", a.part_name);
        res->parts = 1 + a.nmore;
        if (a.have_table) rc = release_hidden(&a, &r.schema, &res->released, err);
        if (!rc) rc = ig_append_commit(&a, res->rows, err);
    }
    ig_part_writer_free(r.w); /* removes the part unless finished */
    ig_append_end(&a);
    if (rc && added) undo_added_columns(table_dir, added, err);
    end_input(&r, &csv, &lr);
    free_kept(&r);
    ig_schema_free(&r.schema);
    ig_schema_free(&r.stored);
    ig_buf_free(&r.scratch);
    ig_buf_free(&r.path);
    return rc;
}
