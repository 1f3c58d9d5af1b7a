/* columns_keyed.c - columns from a keyed file (columns.h): the file imported
 * into a temporary table, its key matched to the table's rows, its values
 * handed to evolve.h in the table's row order. */
#include "import/keyed_int.h"
#include "import/spool.h"
#include "import/widen.h"
#include "blob/blob.h"
#include "format/layout.h"
#include "format/model/logical.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/ops/reader.h"
#include "format/part/remote.h"
#include "format/part/table.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/strset.h"
#include "util/u64map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the temporary table --------------------------------------------------- */

static int make_temp(struct keyed *k, struct ig_error *err)
{
    pid_t pid = getpid();
    /* beside the table; a table on object storage: in a local stage */
    bool remote = ig_store_is_remote(k->table_dir);
    int rc = remote ? ig_remote_stage_dir(k->stage, sizeof k->stage, err) : 0;
    if (rc) return rc;
    if (snprintf(k->ingot, sizeof k->ingot, "%s/.ingot", remote ? k->stage : k->table_dir) >=
        (int)sizeof k->ingot)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", k->table_dir);
    snprintf(k->tmp, sizeof k->tmp, "%s/input-%d", k->ingot, (int)pid);
    snprintf(k->tmp_schema, sizeof k->tmp_schema, "%s/input-%d.schema", k->ingot, (int)pid);
    if (mkdir(k->ingot, 0755) && errno != EEXIST)
        return ig_err(err, -errno, "%s: %s", k->ingot, strerror(errno));
    /* what runs killed outright left: `input-PID` (the table),
     * `input-PID.schema`, and the importer's and the schema's `.input-PID...`
     * on their way in */
    ig_remove_orphans(k->ingot, "input-", ".");
    k->made_tmp = true;
    return 0;
}

static void remove_temp(struct keyed *k)
{
    if (!k->made_tmp) return;
    ig_remove_tree(k->tmp);
    unlink(k->tmp_schema);
    if (k->stage[0]) ig_remove_tree(k->stage);
}

/* ---- importing the file ------------------------------------------------------- */

/* The files as `ingot import` reads them: `ingot import` of one, or of
 * several (import.h), from the copies made of those that need one. */
static const char *const *files_of(const struct keyed *k, size_t *n, struct ig_import_opts *o)
{
    o->input_copies = k->in->npaths > 1 ? k->copies : &k->copy_fd;
    *n = k->in->npaths > 1 ? k->in->npaths : 1;
    return k->in->npaths > 1 ? k->in->paths : &k->in->path;
}

/* The schema `ingot import` would infer for the CSV or JSON Lines files (or
 * read from the Parquet files' footers). */
static int infer(struct keyed *k, enum ig_input_format fmt, struct ig_schema *s,
                 struct ig_error *err)
{
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    o.format = fmt;
    o.delimiter = k->in->delimiter;
    size_t n;
    const char *const *files = files_of(k, &n, &o);
    return ig_import_infer(files, n, &o, s, err);
}

/* Does column `name` of the file take the table's type? The key does, and
 * the columns a replace or an update writes (their type must stay). */
static bool takes_table_type(const struct keyed *k, const char *name, const char *const *columns,
                             size_t ncolumns)
{
    if (!k->by_rowid && !strcmp(name, k->key)) return true;
    if (k->mode == IG_KEYED_REPLACE) return !k->in->retype; /* --retype: the file's, as inferred */
    for (size_t i = 0; k->mode == IG_KEYED_UPDATE && i < ncolumns; i++)
        if (!strcmp(name, columns[i])) return true;
    return false;
}

/* For a CSV or JSON Lines file without --schema: the inferred types, but the
 * table's for the key and the columns whose type must stay, written where
 * the import reads it. For Parquet the file's types, but the table's for
 * those columns where the file's widen into it (widen.h: an int32 column
 * into the table's int64, float32 into float64), which the import converts.
 * *wrote: whether a schema file was made. */
static int table_types(struct keyed *k, enum ig_input_format fmt, const char *const *columns,
                       size_t ncolumns, bool *wrote, struct ig_error *err)
{
    *wrote = false;
    struct ig_schema s = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = infer(k, fmt, &s, err);
    if (!rc) rc = keyed_choose_key(k, &s, err);
    bool changed = false;
    for (uint32_t i = 0; !rc && i < s.ntops; i++) {
        struct ig_column_def *c = &s.cols[s.tops[i]];
        long tn = ig_schema_find(&k->t0_schema, c->name, c->name_len);
        if (tn < 0 || !takes_table_type(k, c->name, columns, ncolumns)) continue;
        const struct ig_column_def *tc = &k->t0_schema.cols[tn];
        if (!ig_column_is_flat(c) || !ig_column_is_flat(tc) || !ig_type_is_primitive(tc->type))
            continue;
        if (fmt == IG_INPUT_PARQUET) {
            struct ig_widen w;
            if (!ig_type_is_primitive(c->type) ||
                !ig_widen_plan(&(struct ig_scalar){.type = c->type, .lt = c->lt},
                               &(struct ig_scalar){.type = tc->type, .lt = tc->lt}, &w) ||
                (c->type == tc->type && ig_logical_equal(&c->lt, &tc->lt)))
                continue; /* the file's type as it is: the same, or refused by plan_column */
            c->type = tc->type;
            c->lt = tc->lt;
            c->quantize = tc->quantize;
            changed = true;
            continue; /* the file's nullability: a NULL the table cannot hold is refused as read */
        }
        changed |= c->type != tc->type;
        c->type = tc->type;
        if (k->mode == IG_KEYED_UPDATE && strcmp(c->name, k->key)) {
            /* a NULL where the column has none: an error at its line */
            changed |= c->null_mask != tc->null_mask;
            c->nullable = tc->nullable;
            c->null_mask = tc->null_mask;
        }
    }
    if (!rc && changed) {
        rc = ig_schema_format(&s, &text) ? ig_err(err, -ENOMEM, "out of memory") : 0;
        const char *name = strrchr(k->tmp_schema, '/') + 1;
        if (!rc) rc = ig_write_file_atomic(k->ingot, name, text.data, text.len, err);
        *wrote = !rc;
    }
    ig_buf_free(&text);
    ig_schema_free(&s);
    return rc;
}

/* A keyed file read with the caller's --schema failed: if that schema
 * declares no key column (--key's, else _rowid), the file's key was refused as
 * a field the schema lacks; say what to add. Returns rc. */
static int hint_schema_key(struct keyed *k, int rc, struct ig_error *err)
{
    const char *key = k->in->key ? k->in->key : "_rowid";
    char *text;
    size_t len;
    struct ig_error sub = {0};
    if (ig_read_file(k->in->schema_path, 16u << 20, &text, &len, &sub)) return rc;
    struct ig_schema s = {0};
    bool declared = true;
    if (!ig_schema_parse(&s, text, len, k->in->schema_path, &sub)) {
        long c = ig_schema_find(&s, key, strlen(key));
        declared = c >= 0 && s.cols[c].parent == IG_SCHEMA_NONE;
    }
    ig_schema_free(&s);
    free(text);
    if (!declared && strstr(err->msg, key)) {
        char was[IG_ERROR_MSG_MAX];
        snprintf(was, sizeof was, "%s", err->msg);
        rc = ig_err(err, rc, "%s (%s declares no '%s': a keyed file's schema names its key too, %s)", was,
                    k->in->schema_path, key, k->in->key ? "as the table types it" : "as '_rowid int64'");
    }
    return rc;
}

static int import_file(struct keyed *k, enum ig_input_format fmt, const char *const *columns,
                       size_t ncolumns, struct ig_error *err)
{
    bool wrote = false;
    int rc = 0;
    if (!k->in->schema_path && (fmt == IG_INPUT_CSV || fmt == IG_INPUT_JSONL || fmt == IG_INPUT_PARQUET))
        rc = table_types(k, fmt, columns, ncolumns, &wrote, err);
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    o.format = fmt;
    o.schema_path = k->in->schema_path ? k->in->schema_path : wrote ? k->tmp_schema : NULL;
    o.delimiter = k->in->delimiter; /* 0: the file's own, as infer() read it */
    size_t n;
    const char *const *files = files_of(k, &n, &o);
    if (k->in->writer) o.w.threads = k->in->writer->threads;
    if (!rc) {
        rc = ig_import_many(files, n, k->tmp, &o, NULL, err);
        if (rc && k->in->schema_path) rc = hint_schema_key(k, rc, err);
    }
    if (!rc) rc = ig_table_open(&k->src, k->tmp, false, err);
    k->src_open = !rc;
    if (!rc) rc = ig_table_schema(&k->src, &k->src_schema, err);
    if (!rc && k->src.nparts != 1) rc = ig_err(err, -EIO, "%s: %u parts", k->tmp, k->src.nparts);
    if (!rc && !k->key) rc = keyed_choose_key(k, &k->src_schema, err);
    if (!rc) rc = keyed_check_key(k, err);
    k->nin = rc ? 0 : k->src.num_rows;
    if (!rc && k->nin >= UINT32_MAX - 1)
        rc = ig_err(err, -EFBIG, "%s: %" PRIu64 " rows; a file of keyed rows holds fewer than 2^32",
                    k->path, k->nin);
    return rc;
}

/* ---- what is written ---------------------------------------------------------- */

/* Column `top` of `from` appended to k->out as `name`, with its options;
 * nullable at the top (1), not (0) or as it is (-1). */
static int copy_column(struct keyed *k, const struct ig_schema *from, uint32_t top,
                       const char *name, int nullable, struct ig_error *err)
{
    struct ig_buf type = IG_BUF_INIT;
    int rc = ig_schema_type_text(from, top, &type) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc && nullable >= 0) {
        if (type.len && type.data[type.len - 1] == '?') type.len--;
        if (nullable && ig_buf_append(&type, "?", 1)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    uint32_t base = k->out.n;
    if (!rc)
        rc = ig_schema_add_typed(&k->out, name, strlen(name), (const char *)type.data, type.len,
                                 err);
    for (uint32_t j = 0; !rc && base + j < k->out.n; j++) {
        const struct ig_column_def *o = &from->cols[top + j];
        struct ig_column_def *c = &k->out.cols[base + j];
        c->page_size = o->page_size;
        c->block_size = o->block_size;
        c->encoding = o->encoding;
        c->compression = o->compression;
        c->erase_level = o->erase_level;
        c->quantize = o->quantize;
    }
    ig_buf_free(&type);
    return rc;
}

/* The leaves of the file's column in_top, in order, as the leaves of the
 * output column just appended (the same shape). */
static int map_leaves(struct keyed *k, uint32_t in_top, const char *top_name, struct ig_error *err)
{
    const struct ig_schema *s = &k->src_schema;
    int rc = 0;
    for (uint32_t n = in_top; !rc && n < s->n && s->cols[n].top == in_top; n++) {
        const struct ig_column_def *c = &s->cols[n];
        if (c->type == IG_T_STRUCT) continue;
        struct leaf_map *l = realloc(k->leaves, (k->nleaves + 1) * sizeof *l);
        if (!l) return ig_err(err, -ENOMEM, "out of memory");
        k->leaves = l;
        l = &k->leaves[k->nleaves++];
        memset(l, 0, sizeof *l);
        l->top = top_name;
        uint32_t col;
        rc = ig_table_find(&k->src, c->name, c->name_len, &col, err);
        if (!rc) rc = ig_table_column_at(&k->src, col, &l->in, err);
    }
    return rc;
}

/* One column of the file to write as `name` (the table's column of that
 * name when replacing or updating). */
static int plan_column(struct keyed *k, uint32_t in_top, const char *name, struct ig_error *err)
{
    const struct ig_schema *s = &k->src_schema;
    const char *file_name = s->cols[in_top].name;
    uint32_t col;
    bool exists = ig_table_find(&k->t0, name, strlen(name), &col, NULL) == 0;
    if (!strcmp(file_name, "_rowid") || !strcmp(name, "_rowid"))
        return ig_err(err, -EINVAL,
                      "%s: _rowid holds row ids (a mount's columns/_rowid.npy); it is not a column "
                      "to write (the key here is '%s')",
                      k->path, k->key);
    if (k->mode == IG_KEYED_ADD) {
        if (exists)
            return ig_err(err, -EEXIST,
                          "%s: column '%s' exists in %s (ingot replace-column or update change its "
                          "values)",
                          k->path, name, k->table_dir);
        int rc = copy_column(k, s, in_top, name, k->in->require_all ? -1 : 1, err);
        return rc ? rc : map_leaves(k, in_top, name, err);
    }
    long tn = ig_schema_find(&k->t0_schema, name, strlen(name));
    if (!exists || tn < 0 || k->t0_schema.cols[tn].parent != IG_SCHEMA_NONE)
        return ig_err(err, -ENOENT, "%s: %s has no column '%s' to %s", k->path, k->table_dir, name,
                      k->mode == IG_KEYED_UPDATE ? "update" : "replace");
    const struct ig_column_def *tc = &k->t0_schema.cols[tn];
    struct ig_buf want = IG_BUF_INIT, have = IG_BUF_INIT;
    int rc = keyed_bare_type(&k->t0_schema, (uint32_t)tn, &want) || keyed_bare_type(s, in_top, &have)
                 ? ig_err(err, -ENOMEM, "out of memory")
                 : 0;
    if (!rc && k->mode == IG_KEYED_UPDATE && (!ig_column_is_flat(tc) || tc->type == IG_T_BLOB))
        rc = ig_err(err, -ENOTSUP,
                    "%s: column '%s' is %.*s; update takes flat columns (replace-column replaces a "
                    "column whole)",
                    k->table_dir, name, (int)want.len, (const char *)want.data);
    bool retype = k->mode == IG_KEYED_REPLACE && k->in->retype; /* the file's type becomes the column's */
    if (!rc && !retype && (want.len != have.len || memcmp(want.data, have.data, want.len)))
        rc = ig_err(err, -EINVAL, "%s: column '%s' is %.*s; %s's is %.*s (the type stays: %s)",
                    k->path, file_name, (int)have.len, (const char *)have.data, k->table_dir,
                    (int)want.len, (const char *)want.data,
                    k->fmt == IG_INPUT_PARQUET ? "cast it where the file is written"
                                               : "give --schema to read the file's as the table's");
    ig_buf_free(&want);
    ig_buf_free(&have);
    int nullable = k->mode == IG_KEYED_UPDATE || k->in->require_all ? -1 : 1;
    if (!rc) rc = retype ? copy_column(k, s, in_top, name, nullable, err)
                         : copy_column(k, &k->t0_schema, (uint32_t)tn, name, nullable, err);
    return rc ? rc : map_leaves(k, in_top, name, err);
}

/* The columns to write (k->out) and where each leaf's values come from. */
static int plan(struct keyed *k, const char *const *columns, size_t ncolumns, struct ig_error *err)
{
    const struct ig_schema *s = &k->src_schema;
    int rc = 0;
    if (k->mode == IG_KEYED_UPDATE) {
        for (size_t i = 0; i < ncolumns && !rc; i++) {
            long node;
            if (!strcmp(columns[i], k->key))
                rc = ig_err(err, -EINVAL, "'%s' is the key; it names the rows to update", k->key);
            else if (!keyed_is_top(s, columns[i], &node))
                rc = ig_err(err, -EINVAL, "%s: no column '%s' to update %s's from", k->path,
                            columns[i], k->table_dir);
            else
                rc = plan_column(k, (uint32_t)node, columns[i], err);
        }
    } else {
        uint32_t values = s->ntops - 1; /* every column but the key */
        if (values == 0)
            return ig_err(err, -EINVAL, "%s: no column but the key '%s'", k->path, k->key);
        if (k->in->name && values != 1)
            return ig_err(err, -EINVAL, "%s: %u columns besides the key; --name names one", k->path,
                          values);
        for (uint32_t i = 0; i < s->ntops && !rc; i++) {
            const struct ig_column_def *c = &s->cols[s->tops[i]];
            if (!strcmp(c->name, k->key)) continue;
            rc = plan_column(k, s->tops[i], k->in->name ? k->in->name : c->name, err);
        }
    }
    if (!rc) rc = ig_schema_finish(&k->out, err);
    if (!rc && k->out.nleaves != k->nleaves)
        rc = ig_err(err, -EIO, "%s: the columns' leaves differ", k->path);
    for (uint32_t i = 0; !rc && i < k->nleaves; i++) {
        struct leaf_map *l = &k->leaves[i];
        const struct ig_column_def *c = &k->out.cols[k->out.leaves[i]];
        l->levels = !ig_column_is_flat(c);
        l->nullable = c->nullable;
        l->is_bytes = ig_type_info(c->type)->phys == IG_PHYS_BYTES;
        l->is_blob = c->type == IG_T_BLOB;
        l->in_max_def = l->in.rec.max_def;
        l->out_max_def = c->max_def;
        l->per_value = c->dimension ? c->dimension : 1;
        if (l->levels != l->in.li.levels)
            rc = ig_err(err, -EIO, "%s: column '%s' changed shape", k->path, l->top);
    }
    /* the file's row groups */
    const struct ig_part *p = &k->src.parts[0];
    k->ngroups = rc ? 0 : p->num_groups;
    k->groups = calloc(k->ngroups + 1, sizeof *k->groups);
    if (!rc && !k->groups) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t g = 0; g < k->ngroups && !rc; g++) {
        struct ig_grouprec gr;
        rc = ig_part_group(p, g, &gr, err);
        k->groups[g].first = gr.first_row;
    }
    return rc;
}

/* ---- values -------------------------------------------------------------------- */

/* A row the file does not give (and an erased row): NULL, or for a leaf that
 * cannot be undefined its zero form. */
static int push_undefined(const struct leaf_map *m, struct ig_values *v)
{
    if (!m->levels) {
        if (m->nullable) return ig_values_push_null(v);
        return m->is_bytes ? ig_values_push_bytes(v, "", 0) : ig_values_push_lane(v, 0);
    }
    int rc = ig_values_push_entry(v, 0, 0);
    if (!rc && m->out_max_def == 0) {
        if (m->is_bytes) rc = ig_values_push_bytes(v, "", 0);
        for (uint32_t i = 0; !m->is_bytes && i < m->per_value && !rc; i++)
            rc = ig_values_push_lane(v, 0);
    }
    return rc ? rc : ig_values_end_row(v);
}

static int null_error(const struct keyed *k, const struct leaf_map *m, uint64_t input,
                      struct ig_error *err)
{
    return ig_err(err, -EINVAL,
                  "%s: row %" PRIu64 ": column '%s' is NULL; %s's '%s' is not nullable", k->path,
                  input + 1, m->top, k->table_dir, m->top);
}

/* A bytes value into dst; a blob reference's object copied from the file's
 * blob file into the table part's first, its new reference pushed. */
static int push_bytes(const struct keyed *k, const struct leaf_map *m, struct ig_values *dst,
                      const uint8_t *p, size_t len, struct ig_error *err)
{
    if (!m->is_blob) return ig_values_push_bytes(dst, p, len) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    const struct ig_part *src = &k->src.parts[0];
    if (len != IG_BLOB_REF_BYTES || src->blob_fd < 0 || !k->blobs)
        return ig_err(err, -EIO, "%s: column '%s': a blob reference without its blob file", k->path,
                      m->top);
    struct ig_blob_ref from, to;
    unsigned kind;
    ig_blob_ref_load(p, &from, &kind);
    int rc = ig_blob_writer_add_object(k->blobs, src->blob_fd, k->path, &from, &to, err);
    if (rc) return rc;
    uint8_t ref[IG_BLOB_REF_BYTES];
    ig_blob_ref_store(ref, &to, kind);
    return ig_values_push_bytes(dst, ref, sizeof ref) ? ig_err(err, -ENOMEM, "out of memory") : 0;
}

/* Row i of the file's group values src into dst. Levels shift when the
 * column's top is nullable on one side only. */
static int copy_row(const struct keyed *k, const struct leaf_map *m, struct ig_values *dst,
                    const struct ig_values *src, size_t i, uint64_t input, struct ig_error *err)
{
    int rc = 0;
    if (!m->levels) {
        if (ig_values_is_null(src, i))
            rc = m->nullable ? ig_values_push_null(dst) : null_error(k, m, input, err);
        else if (m->is_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(src, i, &len);
            return push_bytes(k, m, dst, p, len, err);
        } else {
            rc = ig_values_push_lane(dst, src->lanes[i]);
        }
        return rc == -ENOMEM ? ig_err(err, rc, "out of memory") : rc;
    }
    int shift = (int)m->out_max_def - (int)m->in_max_def;
    size_t vi = src->row_val[i];
    for (size_t e = src->row_ent[i]; e < src->row_ent[i + 1] && !rc; e++) {
        int def = src->defs[e] + shift;
        if (def < 0) return null_error(k, m, input, err);
        rc = ig_values_push_entry(dst, src->reps[e], (uint8_t)def);
        if (rc) break;
        if (src->defs[e] != m->in_max_def) continue;
        if (m->is_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(src, vi++, &len);
            rc = push_bytes(k, m, dst, p, len, err);
            if (rc) return rc;
        } else {
            rc = ig_values_push_lanes(dst, src->lanes + vi, m->per_value);
            vi += m->per_value;
        }
    }
    if (!rc) rc = ig_values_end_row(dst);
    return rc ? ig_err(err, rc, "out of memory") : 0;
}

static void drop_group(struct keyed *k, struct in_group *g)
{
    for (uint32_t l = 0; g->vals && l < k->nleaves; l++)
        ig_values_free(&g->vals[l]);
    free(g->vals);
    g->vals = NULL;
}

static int load_group(struct keyed *k, uint32_t g, struct ig_error *err)
{
    struct in_group *ig = &k->groups[g];
    ig->vals = calloc(k->nleaves, sizeof *ig->vals);
    if (!ig->vals) return ig_err(err, -ENOMEM, "out of memory");
    const struct ig_part *p = &k->src.parts[0];
    struct ig_grouprec gr;
    int rc = ig_part_group(p, g, &gr, err);
    for (uint32_t l = 0; l < k->nleaves && !rc; l++) {
        ig_values_init(&ig->vals[l], k->leaves[l].in.rec.type);
        rc = keyed_load_chunk(k, p, &k->leaves[l].in, g, &gr, &ig->vals[l], err);
    }
    if (rc) drop_group(k, ig);
    return rc;
}

/* Every leaf's value from file row `input`. */
static int write_matched(struct keyed *k, struct ig_values *cols, uint64_t input,
                         struct ig_error *err)
{
    uint32_t lo = keyed_group_of(k, input);
    struct in_group *g = &k->groups[lo];
    int rc = g->vals ? 0 : load_group(k, lo, err);
    for (uint32_t l = 0; l < k->nleaves && !rc; l++)
        rc = copy_row(k, &k->leaves[l], &cols[l], &g->vals[l], (size_t)(input - g->first), input,
                      err);
    if (!rc && --g->remaining == 0) drop_group(k, g); /* its rows are all written */
    return rc;
}

/* An update: the old values of the table rows [local, local + count) of part
 * pi, a row group, into k->old. */
static int load_old(struct keyed *k, uint32_t pi, uint64_t local, uint32_t count,
                    struct ig_error *err)
{
    const struct ig_part *p = &k->t->parts[pi];
    uint32_t lo = 0, hi = p->num_groups;
    struct ig_grouprec gr = {0};
    int rc = 0;
    while (!rc && hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        rc = ig_part_group(p, mid, &gr, err);
        if (gr.first_row <= local)
            lo = mid;
        else
            hi = mid;
    }
    if (!rc) rc = ig_part_group(p, lo, &gr, err);
    if (!rc && (gr.first_row != local || gr.row_count != count))
        rc =
            ig_err(err, -EIO, "%s: rows %" PRIu64 "+%u are not a row group", p->path, local, count);
    for (uint32_t l = 0; l < k->nleaves && !rc; l++)
        rc = keyed_load_chunk(k, p, &k->leaves[l].old, lo, &gr, &k->old[l], err);
    return rc;
}

static int keyed_fill(void *ctx, uint64_t first, uint32_t count, struct ig_values *cols,
                      struct ig_blob_writer *blobs, struct ig_error *err)
{
    struct keyed *k = ctx;
    k->blobs = blobs;
    uint32_t pi;
    uint64_t local;
    if (ig_table_row(k->t, first, &pi, &local))
        return ig_err(err, -EINVAL, "row %" PRIu64 " out of range", first);
    if (k->cursor < k->npairs && k->pairs[k->cursor].row < first)
        return ig_err(err, -EINVAL, "rows asked out of order");
    const struct ig_part *p = &k->t->parts[pi];
    int rc = k->mode == IG_KEYED_UPDATE ? load_old(k, pi, local, count, err) : 0;
    for (uint32_t r = 0; r < count && !rc; r++) {
        if (k->cursor < k->npairs && k->pairs[k->cursor].row == first + r) {
            rc = write_matched(k, cols, k->pairs[k->cursor++].input, err);
            continue;
        }
        bool keep = k->mode == IG_KEYED_UPDATE && !ig_part_row_deleted(p, local + r);
        for (uint32_t l = 0; l < k->nleaves && !rc; l++)
            rc = keep ? ig_values_append_rows(&cols[l], &k->old[l], r, 1)
                      : push_undefined(&k->leaves[l], &cols[l]);
        if (rc) rc = ig_err(err, rc, "out of memory");
    }
    return rc;
}

/* ---- the whole ---------------------------------------------------------------- */

static void describe_update(struct keyed *k)
{
    size_t n = (size_t)snprintf(k->change, sizeof k->change, "update");
    for (uint32_t i = 0; i < k->out.ntops && n < sizeof k->change; i++)
        n += (size_t)snprintf(k->change + n, sizeof k->change - n, "%s%s", i ? ", " : " ",
                              k->out.cols[k->out.tops[i]].name);
}

static void keyed_free(struct keyed *k)
{
    for (uint32_t g = 0; g < k->ngroups; g++)
        drop_group(k, &k->groups[g]);
    free(k->groups);
    for (uint32_t l = 0; k->old && l < k->nleaves; l++)
        ig_values_free(&k->old[l]);
    free(k->old);
    free(k->leaves);
    free(k->pairs);
    free(k->matched);
    free(k->lanes);
    free(k->key);
    ig_u64map_free(&k->ints);
    ig_strset_free(&k->strs);
    ig_schema_free(&k->out);
    ig_schema_free(&k->src_schema);
    ig_schema_free(&k->t0_schema);
    ig_values_free(&k->scratch);
    ig_reader_free(&k->rd);
    if (k->src_open) ig_table_close(&k->src);
    if (k->t0_open) ig_table_close(&k->t0);
}

/* Several files: those that can be read only once copied (k->copies). */
static int copy_read_once(struct keyed *k, struct ig_error *err)
{
    const struct ig_column_input *in = k->in;
    if (!(k->copies = malloc(in->npaths * sizeof *k->copies))) return ig_err(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < in->npaths; i++)
        k->copies[i] = -1;
    struct ig_spool_opts so = {0};
    for (size_t i = 0; i < in->npaths; i++) {
        int rc = ig_spool_read_once(in->paths[i]) ? ig_spool_input(in->paths[i], &so, &k->copies[i], err) : 0;
        if (rc) return rc;
    }
    return 0;
}

int ig_keyed_columns(const char *table_dir, const struct ig_column_input *in,
                     enum ig_keyed_mode mode, const char *const *columns, size_t ncolumns,
                     struct ig_evolve_report *rep, struct ig_column_counts *counts,
                     struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (counts) memset(counts, 0, sizeof *counts);
    struct keyed *k = calloc(1, sizeof *k);
    if (!k) return ig_err(err, -ENOMEM, "out of memory");
    k->table_dir = table_dir;
    k->in = in;
    k->mode = mode;
    k->path = strcmp(in->path, "-") ? in->path : "standard input";
    if (in->npaths > 1) { /* messages name them all */
        snprintf(k->label, sizeof k->label, "%s and %zu more file%s", k->path, in->npaths - 1,
                 in->npaths > 2 ? "s" : "");
        k->path = k->label;
    }
    k->copy_fd = -1;
    ig_strset_init(&k->strs);
    ig_values_init(&k->scratch, IG_T_INT64);
    /* compressed, or standard input: read from a copy (spool.h); several
     * files: the import copies each where it must */
    struct ig_spool_opts so = {0};
    int rc = in->npaths > 1 ? copy_read_once(k, err) : ig_spool_input(in->path, &so, &k->copy_fd, err);
    enum ig_input_format fmt = rc ? IG_INPUT_AUTO : ig_input_format_of(in->format, in->path, k->copy_fd);
    if (!rc && fmt == IG_INPUT_AUTO)
        rc = ig_err(err, -EINVAL,
                    "%s: cannot tell the format from the name; pass --format csv, jsonl or parquet",
                    in->path);
    else if (!rc && fmt == IG_INPUT_NPY)
        rc = ig_err(err, -EINVAL,
                    "%s: a .npy array has no key; its rows go to live rows in order (add-column, "
                    "replace-column)",
                    in->path);
    if (!rc) rc = ig_table_open(&k->t0, table_dir, false, err);
    k->t0_open = !rc;
    if (!rc) rc = ig_table_schema(&k->t0, &k->t0_schema, err);
    k->fmt = fmt;
    if (!rc) rc = make_temp(k, err);
    if (!rc) rc = import_file(k, fmt, columns, ncolumns, err);
    if (!rc) rc = plan(k, columns, ncolumns, err);
    if (!rc) rc = keyed_index_keys(k, err);
    if (k->t0_open) ig_table_close(&k->t0); /* the commit opens the table afresh, locked */
    k->t0_open = false;
    if (!rc) {
        if (mode == IG_KEYED_UPDATE) describe_update(k);
        struct ig_add_request req = {.schema = &k->out,
                                     .replace = mode != IG_KEYED_ADD,
                                     .retype = mode == IG_KEYED_REPLACE && k->in->retype,
                                     .first = mode == IG_KEYED_ADD && k->in->first,
                                     .after = mode == IG_KEYED_ADD ? k->in->after : NULL,
                                     .fill = keyed_fill,
                                     .ctx = k,
                                     .writer = in->writer,
                                     .change = mode == IG_KEYED_UPDATE ? k->change : NULL,
                                     .prepare = keyed_prepare,
                                     .progress = in->progress,
                                     .progress_ctx = in->progress_ctx,
                                     .replace_progress = in->replace_progress,
                                     .replace_progress_ctx = in->replace_progress_ctx};
        rc = ig_add_columns(table_dir, &req, rep, err);
    }
    if (counts) *counts = k->counts;
    if (k->src_open) ig_table_close(&k->src);
    k->src_open = false;
    remove_temp(k);
    if (k->copy_fd >= 0) close(k->copy_fd);
    for (size_t i = 0; k->copies && i < in->npaths; i++)
        if (k->copies[i] >= 0) close(k->copies[i]);
    free(k->copies);
    keyed_free(k);
    free(k);
    return rc;
}
