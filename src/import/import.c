#include "import_int.h"
#include "format/part/columns.h"
#include "csv_rows.h"
#include "infer.h"
#include "json.h"
#include "spool.h"
#include "stripe.h"
#include "format/ops/evolve.h"
#include "format/part/append.h"
#include "format/model/types.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ig_import_opts_default(struct ig_import_opts *o)
{
    memset(o, 0, sizeof *o);
    o->delimiter = 0; /* the input's (ig_csv_sniff_delimiter) */
    o->sample_rows = IG_INFER_SAMPLE;
    ig_writer_opts_default(&o->w);
}

/* Bytes of the input gone through once `rows` rows are written: a .npy is
 * read at offsets (pread), so its rows' bytes say it; a stream counts the
 * bytes it consumed; elsewhere the file's position. */
static uint64_t input_done(const struct import_run *r, uint64_t rows)
{
    if (r->npy.width) return r->npy.data_off + rows * ig_npy_row_bytes(&r->npy);
    if (r->stream) return ig_spool_stream_done(r->stream, NULL); /* its bytes as they lie */
    if (r->stream_bytes) return r->in_size;                        /* a stream that ended: all */
    off_t pos = lseek(r->in_fd, 0, SEEK_CUR);
    return pos > 0 ? (uint64_t)pos : 0;
}

/* Progress over every input: `done` bytes of the one being read. */
static void progress_at(const struct import_run *r, uint64_t done, uint64_t rows)
{
    if (!r->o->progress) return;
    uint64_t size = r->in_size;
    if (r->stream && !size) (void)ig_spool_stream_done(r->stream, &size); /* an object's, once opened */
    r->o->progress(r->o->progress_ctx, r->bytes_before + done, r->bytes_before + size + r->bytes_after, rows);
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
    int rc = import_check_cancel(r, err);
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
        if (!rc) rc = import_check_cancel(r, err);
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
        if (!rc) rc = import_check_cancel(r, err);
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
            if (!rc) rc = import_check_cancel(r, err);
            if (!rc) report(r, false); /* every 65,536 rows written */
        }
    }
    free(buf);
    return rc;
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

static void parquet_progress(void *ctx, uint64_t bytes_done, uint64_t rows)
{
    progress_at(ctx, bytes_done, rows);
}

/* Every row of input r->at, into the writer. */
static int run_input(struct import_run *r, enum ig_input_format fmt, struct ig_csv_reader *csv,
                     struct ig_lines_reader *lr, struct ig_error *err)
{
    int rc = import_prefetch_blobs(r, fmt, err);
    if (!rc)
        rc = fmt == IG_INPUT_CSV       ? run_csv(r, csv, err)
             : fmt == IG_INPUT_NPY     ? run_npy(r, err)
             : fmt == IG_INPUT_PARQUET ? ig_parquet_write(r->pq, r->w, &r->schema, parquet_progress, r, r->o->cancel, err)
                                       : run_jsonl(r, lr, err);
    import_prefetched_free(r);
    return rc;
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
    /* a streamed input's end: its thread's error, if it failed, says why */
    while (!(rc = import_end_stream(r, run_input(r, fmt, *csv, *lr, err), err)) && r->at + 1 < r->ninputs) {
        import_end_input(r, csv, lr);
        enum ig_input_format next = fmt;
        rc = import_begin_input(r, r->at + 1, &next, err);
        if (!rc) rc = import_open_input(r, fmt, csv, lr, err);
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
                           .spool_fd = base->spool_fd, .plain_name = base->plain_name, .o = o, .in_fd = -1,
                           .cut = base->cut, .first_head = base->first_head};
    struct ig_csv_reader *csv = NULL;
    struct ig_lines_reader *lr = NULL;
    struct ig_table t;
    bool have_table = false;
    struct ig_schema add = {0}, table = {0};
    int rc = ig_table_open(&t, table_dir, false, err);
    have_table = !rc;
    if (!rc) rc = ig_table_schema(&t, &table, err);
    if (!rc) rc = import_open_input(&r, fmt, &csv, &lr, err);
    r.known = &table;
    /* the inputs' own (their new columns, for JSON Lines) */
    if (!rc) rc = import_choose_schema(&r, fmt, NULL, csv, lr, err);
    base->kept = r.kept; /* the copies the append reads (schema_of_all) */
    base->delims = r.delims;
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
                if (!rc) rc = import_schema_fits(&only, &table, fmt != IG_INPUT_NPY, input, err);
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

/* A first input to stream (import_streams) is sampled from a copy of its
 * head alone, as later inputs are (schema_of_all), not copied whole: its rows
 * are read after, from a stream. */
static void head_first(struct import_run *r)
{
    if (!import_streams(r, 0)) return;
    r->first_head = true;
    r->head_lines = (uint64_t)(r->o->sample_rows ? r->o->sample_rows : IG_INFER_SAMPLE) + 1;
}

int ig_import_infer(const char *const *inputs, size_t ninputs, const struct ig_import_opts *o,
                    struct ig_schema *out, struct ig_error *err)
{
    memset(out, 0, sizeof *out);
    struct import_run r = {.inputs = inputs, .ninputs = ninputs, .spool_fd = -1, .o = o, .in_fd = -1};
    struct ig_csv_reader *csv = NULL;
    struct ig_lines_reader *lr = NULL;
    enum ig_input_format fmt = IG_INPUT_AUTO;
    head_first(&r);
    int rc = import_begin_input(&r, 0, &fmt, err);
    if (!rc) rc = import_open_input(&r, fmt, &csv, &lr, err);
    if (!rc) rc = import_choose_schema(&r, fmt, NULL, csv, lr, err);
    import_end_input(&r, &csv, &lr);
    import_free_kept(&r);
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
        r.bytes_after += import_size_as_it_lies(inputs[i]);
    }
    if (stdins > 1) return ig_err(err, -EINVAL, "standard input (-) is named %zu times: it can be read once", stdins);
    enum ig_input_format fmt = IG_INPUT_AUTO;
    head_first(&r);
    int rc = import_begin_input(&r, 0, &fmt, err);
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
        import_end_input(&r, &csv, &lr);
        import_free_kept(&r);
        return rc;
    }
    rc = ig_append_begin(&a, table_dir, !o->append, err);
    a.upload_progress = o->upload_progress;
    a.upload_progress_ctx = o->upload_progress_ctx;
    if (!rc) rc = import_open_input(&r, fmt, &csv, &lr, err);
    if (!rc) rc = import_choose_schema(&r, fmt, a.have_table ? &a.table : NULL, csv, lr, err);
    if (!rc && a.have_table) { /* the names the parts' footers store (renamed and hidden columns) */
        rc = ig_schema_from_part_stored(&a.table.parts[0], &r.stored, err);
        if (!rc && r.stored.n != r.schema.n)
            rc = ig_err(err, -EIO, "%s: the table's columns changed while it was read", table_dir);
    }
    bool blobs = false;
    for (uint32_t c = 0; !rc && c < r.schema.n; c++)
        blobs |= r.schema.cols[c].type == IG_T_BLOB;
    if (!rc) rc = ig_append_name(&a, blobs, err);
    /* the rows of inputs to stream are streamed, but where blob values are
     * read ahead of them (a second reading) */
    if (!rc && r.first_head) rc = import_rows_from_start(&r, fmt, blobs, &csv, &lr, err);
    r.stream_rows = !blobs;
    if (!rc) rc = write_part(&r, fmt, &a, &csv, &lr, err);
    res->columns_version = added;
    if (!rc) {
        res->rows = ig_part_writer_rows(r.w);
        res->first_row_id = a.first_row;
        res->input_bytes = r.read_before + (r.stream_bytes ? r.stream_bytes : r.in_size);
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
    import_end_input(&r, &csv, &lr);
    import_free_kept(&r);
    ig_schema_free(&r.schema);
    ig_schema_free(&r.stored);
    ig_buf_free(&r.scratch);
    ig_buf_free(&r.path);
    return rc;
}
