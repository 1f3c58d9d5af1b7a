/* columns_keyed.c - columns from a keyed file (columns.h): the file imported
 * into a temporary table, its key matched to the table's rows, its values
 * handed to evolve.h in the table's row order. */
#include "import/columns_keyed.h"
#include "import/csv.h"
#include "import/infer.h"
#include "import/lines.h"
#include "format/layout.h"
#include "format/model/types.h"
#include "format/model/values.h"
#include "format/ops/reader.h"
#include "format/part/table.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/strset.h"
#include "util/u64map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    const char *path; /* the file */
    enum ig_input_format fmt;
    char ingot[4200], tmp[4300], tmp_schema[4300];
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
    char change[IG_CHANGE_MAX + 1];
    struct ig_column_counts counts;
};

/* ---- the temporary table --------------------------------------------------- */

/* Remove what runs killed outright left in TABLE/.ingot: `input-PID` (the
 * table), `input-PID.schema`, and the importer's and the schema's
 * `.input-PID...` on their way in, whose process is gone (a PID that is
 * alive, maybe reused, is left alone). */
static void remove_stale_inputs(const char *ingot)
{
    DIR *d = opendir(ingot);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name + (de->d_name[0] == '.');
        if (strncmp(name, "input-", 6) != 0) continue;
        char *end;
        long pid = strtol(name + 6, &end, 10);
        if ((*end && *end != '.') || end == name + 6 || pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[4600];
        if (snprintf(path, sizeof path, "%s/%s", ingot, de->d_name) < (int)sizeof path)
            ig_remove_tree(path);
    }
    closedir(d);
}

static int make_temp(struct keyed *k, struct ig_error *err)
{
    pid_t pid = getpid();
    if (snprintf(k->ingot, sizeof k->ingot, "%s/.ingot", k->table_dir) >= (int)sizeof k->ingot)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", k->table_dir);
    snprintf(k->tmp, sizeof k->tmp, "%s/input-%d", k->ingot, (int)pid);
    snprintf(k->tmp_schema, sizeof k->tmp_schema, "%s/input-%d.schema", k->ingot, (int)pid);
    if (mkdir(k->ingot, 0755) && errno != EEXIST)
        return ig_err(err, -errno, "%s: %s", k->ingot, strerror(errno));
    remove_stale_inputs(k->ingot);
    k->made_tmp = true;
    return 0;
}

static void remove_temp(struct keyed *k)
{
    if (!k->made_tmp) return;
    ig_remove_tree(k->tmp);
    unlink(k->tmp_schema);
}

/* ---- the key ----------------------------------------------------------------- */

static bool is_top(const struct ig_schema *s, const char *name, long *node)
{
    *node = ig_schema_find(s, name, strlen(name));
    return *node >= 0 && s->cols[*node].parent == IG_SCHEMA_NONE;
}

/* A key a table and a file can share: a flat integer or string column. */
static bool keyable(const struct ig_column_def *c)
{
    const struct ig_type_info *ti = ig_type_info(c->type);
    return ig_column_is_flat(c) && ti && c->type != IG_T_BOOL && c->type != IG_T_BLOB &&
           !ti->is_float;
}

/* Which column names rows: in->key, else _rowid when the file has it, else
 * id when both have it. */
static int choose_key(struct keyed *k, const struct ig_schema *file, struct ig_error *err)
{
    long node;
    const char *key = k->in->key;
    if (!key) {
        if (is_top(file, "_rowid", &node))
            key = "_rowid";
        else if (is_top(file, "id", &node) &&
                 ig_table_find(&k->t0, "id", 2, &(uint32_t){0}, NULL) == 0)
            key = "id";
        else
            return ig_err(
                err, -EINVAL,
                "%s: no _rowid column and no key: give --key COLUMN, a column of the file "
                "and of %s (rows match where their values are equal)",
                k->path, k->table_dir);
    }
    if (!is_top(file, key, &node))
        return ig_err(err, -EINVAL, "%s: no column '%s' (the key)", k->path, key);
    k->by_rowid = !strcmp(key, "_rowid");
    if (!k->by_rowid && ig_table_find(&k->t0, key, strlen(key), &(uint32_t){0}, NULL))
        return ig_err(err, -EINVAL, "%s: no column '%s' to match %s's key against", k->table_dir,
                      key, k->path);
    free(k->key);
    k->key = strdup(key);
    return k->key ? 0 : ig_err(err, -ENOMEM, "out of memory");
}

/* Node top's type text without its outermost '?' (a column's top-level
 * nullability is not part of the type a replace must keep). */
static int bare_type(const struct ig_schema *s, uint32_t top, struct ig_buf *out)
{
    ig_buf_reset(out);
    int rc = ig_schema_type_text(s, top, out);
    if (!rc && out->len && out->data[out->len - 1] == '?') out->len--;
    return rc;
}

/* The file's key (the temporary table's) against the table's. */
static int check_key(struct keyed *k, struct ig_error *err)
{
    long node, tn = -1;
    if (!is_top(&k->src_schema, k->key, &node))
        return ig_err(err, -EIO, "%s: the key is gone", k->path);
    const struct ig_column_def *c = &k->src_schema.cols[node];
    const struct ig_type_info *ti = ig_type_info(c->type);
    struct ig_buf type = IG_BUF_INIT, ttype = IG_BUF_INIT;
    int rc = bare_type(&k->src_schema, (uint32_t)node, &type)
                 ? ig_err(err, -ENOMEM, "out of memory")
                 : 0;
    if (!rc && !k->by_rowid) {
        tn = ig_schema_find(&k->t0_schema, k->key, strlen(k->key));
        if (tn < 0) rc = ig_err(err, -EINVAL, "%s: no column '%s' (the key)", k->table_dir, k->key);
        if (!rc && bare_type(&k->t0_schema, (uint32_t)tn, &ttype))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    const struct ig_column_def *tc = tn >= 0 ? &k->t0_schema.cols[tn] : NULL;
    if (!rc && k->by_rowid && (!keyable(c) || ti->phys != IG_PHYS_LANES))
        rc = ig_err(err, -EINVAL, "%s: _rowid is %.*s; row ids are integers", k->path,
                    (int)type.len, (const char *)type.data);
    else if (!rc && tc && !keyable(tc))
        rc = ig_err(err, -EINVAL,
                    "%s: column '%s' is %.*s; a key is a column of integers or strings",
                    k->table_dir, k->key, (int)ttype.len, (const char *)ttype.data);
    else if (!rc && !keyable(c))
        rc = ig_err(err, -EINVAL, "%s: key '%s' is %.*s; a key is a column of integers or strings",
                    k->path, k->key, (int)type.len, (const char *)type.data);
    else if (!rc && tc && ig_type_info(tc->type)->phys != ti->phys)
        rc = ig_err(err, -EINVAL, "%s: key '%s' is %.*s; %s's is %.*s (%s)", k->path, k->key,
                    (int)type.len, (const char *)type.data, k->table_dir, (int)ttype.len,
                    (const char *)ttype.data,
                    k->fmt == IG_INPUT_PARQUET ? "cast it where the file is written"
                                               : "give --schema to read the file's as the table's");
    ig_buf_free(&type);
    ig_buf_free(&ttype);
    uint32_t col;
    if (!rc) rc = ig_table_find(&k->src, k->key, strlen(k->key), &col, err);
    if (!rc) rc = ig_table_column_at(&k->src, col, &k->key_ref, err);
    k->key_bytes = ti && ti->phys == IG_PHYS_BYTES;
    k->key_signed = ti && ti->is_signed;
    return rc;
}

/* ---- importing the file ------------------------------------------------------- */

/* The schema `ingot import` would infer for a CSV or JSON Lines file. */
static int infer(struct keyed *k, enum ig_input_format fmt, struct ig_schema *s,
                 struct ig_error *err)
{
    int fd = ig_open(k->path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", k->path, strerror(errno));
    int rc;
    if (fmt == IG_INPUT_CSV) {
        struct ig_csv_reader *csv = NULL;
        rc = ig_csv_open(&csv, fd, k->path, k->in->delimiter ? k->in->delimiter : ',');
        rc = rc ? ig_err(err, rc, "%s: cannot read: %s", k->path, strerror(-rc))
                : ig_infer_csv(csv, k->path, IG_INFER_SAMPLE, s, err);
        ig_csv_close(csv);
    } else {
        struct ig_lines_reader *lr = NULL;
        rc = ig_lines_open(&lr, fd, k->path);
        rc = rc ? ig_err(err, rc, "%s: cannot read: %s", k->path, strerror(-rc))
                : ig_infer_jsonl(lr, k->path, IG_INFER_SAMPLE, s, err);
        ig_lines_close(lr);
    }
    close(fd);
    return rc;
}

/* Does column `name` of the file take the table's type? The key does, and
 * the columns a replace or an update writes (their type must stay). */
static bool takes_table_type(const struct keyed *k, const char *name, const char *const *columns,
                             size_t ncolumns)
{
    if (!k->by_rowid && !strcmp(name, k->key)) return true;
    if (k->mode == IG_KEYED_REPLACE) return true;
    for (size_t i = 0; k->mode == IG_KEYED_UPDATE && i < ncolumns; i++)
        if (!strcmp(name, columns[i])) return true;
    return false;
}

/* For a CSV or JSON Lines file without --schema: the inferred types, but the
 * table's for the key and the columns whose type must stay, written where
 * the import reads it. *wrote: whether a schema file was made. */
static int table_types(struct keyed *k, enum ig_input_format fmt, const char *const *columns,
                       size_t ncolumns, bool *wrote, struct ig_error *err)
{
    *wrote = false;
    struct ig_schema s = {0};
    struct ig_buf text = IG_BUF_INIT;
    int rc = infer(k, fmt, &s, err);
    if (!rc) rc = choose_key(k, &s, err);
    bool changed = false;
    for (uint32_t i = 0; !rc && i < s.ntops; i++) {
        struct ig_column_def *c = &s.cols[s.tops[i]];
        long tn = ig_schema_find(&k->t0_schema, c->name, c->name_len);
        if (tn < 0 || !takes_table_type(k, c->name, columns, ncolumns)) continue;
        const struct ig_column_def *tc = &k->t0_schema.cols[tn];
        if (!ig_column_is_flat(c) || !ig_column_is_flat(tc) || !ig_type_is_primitive(tc->type))
            continue;
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

static int import_file(struct keyed *k, enum ig_input_format fmt, const char *const *columns,
                       size_t ncolumns, struct ig_error *err)
{
    bool wrote = false;
    int rc = 0;
    if (!k->in->schema_path && (fmt == IG_INPUT_CSV || fmt == IG_INPUT_JSONL))
        rc = table_types(k, fmt, columns, ncolumns, &wrote, err);
    struct ig_import_opts o;
    ig_import_opts_default(&o);
    o.format = fmt;
    o.schema_path = k->in->schema_path ? k->in->schema_path : wrote ? k->tmp_schema : NULL;
    o.delimiter = k->in->delimiter ? k->in->delimiter : ',';
    if (k->in->writer) o.w.threads = k->in->writer->threads;
    if (!rc) rc = ig_import(k->path, k->tmp, &o, NULL, err);
    if (!rc) rc = ig_table_open(&k->src, k->tmp, false, err);
    k->src_open = !rc;
    if (!rc) rc = ig_table_schema(&k->src, &k->src_schema, err);
    if (!rc && k->src.nparts != 1) rc = ig_err(err, -EIO, "%s: %u parts", k->tmp, k->src.nparts);
    if (!rc && !k->key) rc = choose_key(k, &k->src_schema, err);
    if (!rc) rc = check_key(k, err);
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

static bool holds_blobs(const struct ig_schema *s, uint32_t top)
{
    for (uint32_t n = top; n < s->n && s->cols[n].top == top; n++)
        if (s->cols[n].type == IG_T_BLOB) return true;
    return false;
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
    if (holds_blobs(s, in_top))
        return ig_err(err, -EINVAL,
                      "%s: column '%s' holds blobs; added columns cannot be blob columns", k->path,
                      file_name);
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
    int rc = bare_type(&k->t0_schema, (uint32_t)tn, &want) || bare_type(s, in_top, &have)
                 ? ig_err(err, -ENOMEM, "out of memory")
                 : 0;
    if (!rc && k->mode == IG_KEYED_UPDATE && (!ig_column_is_flat(tc) || tc->type == IG_T_BLOB))
        rc = ig_err(err, -ENOTSUP,
                    "%s: column '%s' is %.*s; update takes flat columns (replace-column replaces a "
                    "column whole)",
                    k->table_dir, name, (int)want.len, (const char *)want.data);
    else if (!rc && (want.len != have.len || memcmp(want.data, have.data, want.len)))
        rc = ig_err(err, -EINVAL, "%s: column '%s' is %.*s; %s's is %.*s (the type stays: %s)",
                    k->path, file_name, (int)have.len, (const char *)have.data, k->table_dir,
                    (int)want.len, (const char *)want.data,
                    k->fmt == IG_INPUT_PARQUET ? "cast it where the file is written"
                                               : "give --schema to read the file's as the table's");
    ig_buf_free(&want);
    ig_buf_free(&have);
    int nullable = k->mode == IG_KEYED_UPDATE || k->in->require_all ? -1 : 1;
    if (!rc) rc = copy_column(k, &k->t0_schema, (uint32_t)tn, name, nullable, err);
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
            else if (!is_top(s, columns[i], &node))
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

/* ---- reading columns back ----------------------------------------------------- */

/* Every page of flat column c, in row order: fn gets its values (one per
 * row), the global id of its first row and its deletion bits (or NULL). */
typedef int (*page_fn)(struct keyed *k, uint64_t first, const struct ig_values *v,
                       const uint8_t *deleted, struct ig_error *err);

static int each_page(struct keyed *k, const struct ig_table *t, const struct ig_column_ref *c,
                     page_fn fn, struct ig_error *err)
{
    int rc = 0;
    for (uint32_t g = 0; g < t->num_groups && !rc; g++) {
        uint32_t pi, lg, first = 0, count = 0, expected = 0;
        if (ig_table_group(t, g, &pi, &lg))
            return ig_err(err, -EIO, "%s: no row group %u", t->dir, g);
        const struct ig_part *p = &t->parts[pi];
        struct ig_grouprec gr;
        rc = ig_part_group(p, lg, &gr, err);
        if (!rc) rc = ig_part_group_chunk(p, lg, &gr, c->rec.leaf, &first, &count, err);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            const uint8_t *deleted;
            rc = ig_reader_load(&k->rd, &(struct ig_page_at){p, c, pg, gr.first_row}, &rec, &k->scratch, &deleted, err);
            if (!rc)
                rc = ig_chunk_page_check(p, pg, &rec, c->rec.leaf, expected, gr.row_count, err);
            if (!rc && k->scratch.n != rec.row_count)
                rc = ig_err(err, -EIO, "%s: page %u: %zu values for %u rows", p->path, pg,
                            k->scratch.n, rec.row_count);
            if (!rc)
                rc = fn(k, p->first_row_id + gr.first_row + expected, &k->scratch, deleted, err);
            expected += rc ? 0 : rec.row_count;
        }
        if (!rc && expected != gr.row_count)
            rc =
                ig_err(err, -EIO, "%s: corrupt footer: column '%.*s' group %u covers %u of %u rows",
                       p->path, (int)c->rec.name_len, c->rec.name, lg, expected, gr.row_count);
    }
    return rc;
}

/* Leaf c's values in group g of part p (whose record is gr) into out. */
static int load_chunk(struct keyed *k, const struct ig_part *p, const struct ig_column_ref *c,
                      uint32_t g, const struct ig_grouprec *gr, struct ig_values *out,
                      struct ig_error *err)
{
    uint32_t first = 0, count = 0, expected = 0;
    int rc = ig_part_group_chunk(p, g, gr, c->rec.leaf, &first, &count, err);
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_values *into = pg == first ? out : &k->scratch;
        struct ig_pagerec rec;
        const uint8_t *deleted;
        rc = ig_reader_load(&k->rd, &(struct ig_page_at){p, c, pg, gr->first_row}, &rec, into, &deleted, err);
        if (!rc) rc = ig_chunk_page_check(p, pg, &rec, c->rec.leaf, expected, gr->row_count, err);
        if (!rc && into != out && ig_values_append(out, into))
            rc = ig_err(err, -ENOMEM, "out of memory");
        expected += rc ? 0 : rec.row_count;
    }
    size_t rows = c->li.levels ? out->rows : out->n;
    if (!rc && (!count || expected != gr->row_count || rows != gr->row_count))
        rc = ig_err(err, -EIO, "%s: corrupt footer: column '%.*s' group %u covers %u of %u rows",
                    p->path, (int)c->rec.name_len, c->rec.name, g, expected, gr->row_count);
    return rc;
}

/* ---- the join -------------------------------------------------------------------- */

static void key_text(const struct keyed *k, uint64_t input, char *out, size_t cap)
{
    if (k->key_bytes) {
        size_t len;
        const uint8_t *p = ig_strset_get(&k->strs, (uint32_t)input, &len);
        snprintf(out, cap, "\"%.*s%s\"", (int)(len > 40 ? 40 : len), (const char *)p,
                 len > 40 ? "..." : "");
    } else if (k->key_signed) {
        snprintf(out, cap, "%" PRId64, (int64_t)k->lanes[input]);
    } else {
        snprintf(out, cap, "%" PRIu64, k->lanes[input]);
    }
}

static void note_missing(struct keyed *k, const char *text)
{
    struct missing *m = &k->miss;
    size_t used = strlen(m->text);
    if (m->count < SHOW_FIRST)
        snprintf(m->text + used, sizeof m->text - used, "%s%s", m->count ? ", " : "", text);
    else if (m->count == SHOW_FIRST)
        snprintf(m->text + used, sizeof m->text - used, ", ...");
    m->count++;
}

static int add_pair(struct keyed *k, uint64_t row, uint64_t input, struct ig_error *err)
{
    if (k->npairs == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 4096;
        struct pair *p = realloc(k->pairs, cap * sizeof *p);
        if (!p) return ig_err(err, -ENOMEM, "out of memory");
        k->pairs = p;
        k->cap = cap;
    }
    k->pairs[k->npairs++] = (struct pair){row, input};
    return 0;
}

static int no_key(const struct keyed *k, uint64_t input, struct ig_error *err)
{
    return ig_err(err, -EINVAL, "%s: row %" PRIu64 " has no %s (it is NULL)", k->path, input + 1,
                  k->key);
}

/* _rowid: a pair for each row id (checked against the table later). */
static int rowid_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                      const uint8_t *deleted, struct ig_error *err)
{
    (void)deleted;
    int rc = 0;
    for (size_t i = 0; i < v->n && !rc; i++) {
        uint64_t input = first + i;
        if (ig_values_is_null(v, i)) return no_key(k, input, err);
        uint64_t id = v->lanes[i];
        if (k->key_signed && (int64_t)id < 0) {
            char text[32];
            snprintf(text, sizeof text, "%" PRId64, (int64_t)id);
            note_missing(k, text);
            continue;
        }
        rc = add_pair(k, id, input, err);
    }
    return rc;
}

static int by_row_then_input(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    return (x->input > y->input) - (x->input < y->input);
}

/* Key values of the file into a hash (integers) or a string set. */
static int key_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                    const uint8_t *deleted, struct ig_error *err)
{
    (void)deleted;
    for (size_t i = 0; i < v->n; i++) {
        uint64_t input = first + i;
        if (ig_values_is_null(v, i)) return no_key(k, input, err);
        uint64_t had = UINT64_MAX;
        if (k->key_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            uint32_t index;
            bool added;
            int rc = ig_strset_add(&k->strs, p, len, &index, &added);
            if (rc) return ig_err(err, rc, "out of memory");
            if (!added) had = index;
        } else {
            k->lanes[input] = v->lanes[i];
            size_t slot = ig_u64map_slot(&k->ints, v->lanes[i]);
            if (k->ints.vals[slot])
                had = k->ints.vals[slot] - 1;
            else if (ig_u64map_add(&k->ints, v->lanes[i], (uint32_t)(input + 1), &(bool){false}))
                return ig_err(err, -ENOMEM, "out of memory");
        }
        if (had != UINT64_MAX) {
            char text[64];
            key_text(k, had, text, sizeof text);
            return ig_err(err, -EINVAL,
                          "%s: %s %s is given twice (rows %" PRIu64 " and %" PRIu64 ")", k->path,
                          k->key, text, had + 1, input + 1);
        }
    }
    return 0;
}

/* The file's keys, before the table is locked: row ids as pairs (sorted),
 * other keys indexed. */
static int index_keys(struct keyed *k, struct ig_error *err)
{
    if (k->by_rowid) {
        int rc = each_page(k, &k->src, &k->key_ref, rowid_page, err);
        bool sorted = true;
        for (size_t i = 1; i < k->npairs && sorted; i++)
            sorted = k->pairs[i - 1].row < k->pairs[i].row;
        if (!rc && !sorted) qsort(k->pairs, k->npairs, sizeof *k->pairs, by_row_then_input);
        for (size_t i = 1; i < k->npairs && !rc; i++)
            if (k->pairs[i - 1].row == k->pairs[i].row)
                rc = ig_err(
                    err, -EINVAL,
                    "%s: row id %" PRIu64 " is given twice (rows %" PRIu64 " and %" PRIu64 ")",
                    k->path, k->pairs[i].row, k->pairs[i - 1].input + 1, k->pairs[i].input + 1);
        return rc;
    }
    k->matched = calloc(k->nin + 1, sizeof *k->matched);
    if (!k->matched) return ig_err(err, -ENOMEM, "out of memory");
    if (!k->key_bytes) {
        k->lanes = malloc((k->nin + 1) * sizeof *k->lanes);
        if (!k->lanes || ig_u64map_init(&k->ints, k->nin))
            return ig_err(err, -ENOMEM, "out of memory");
    }
    return each_page(k, &k->src, &k->key_ref, key_page, err);
}

/* Could a table key (lane, of a type signed or not) equal a file key of
 * the file's signedness? Lanes hold integers sign- or zero-extended, so equal
 * numbers have equal lanes, but for a negative number against one of 2^63 or
 * more, whose lanes coincide. */
static bool same_sign_range(const struct keyed *k, bool table_signed, uint64_t lane)
{
    if (table_signed && !k->key_signed) return (int64_t)lane >= 0;
    if (!table_signed && k->key_signed) return lane >> 63 == 0;
    return true;
}

/* The table's keys, page by page: each live row whose key the file gives
 * becomes a pair. */
static int table_key_page(struct keyed *k, uint64_t first, const struct ig_values *v,
                          const uint8_t *deleted, struct ig_error *err)
{
    bool table_signed = ig_type_info(v->type)->is_signed;
    for (size_t i = 0; i < v->n; i++) {
        if ((deleted && (deleted[i / 8] >> (i % 8)) & 1) || ig_values_is_null(v, i)) continue;
        uint64_t row = first + i;
        int64_t input = -1;
        if (k->key_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(v, i, &len);
            input = ig_strset_find(&k->strs, p, len);
        } else if (same_sign_range(k, table_signed, v->lanes[i])) {
            size_t slot = ig_u64map_slot(&k->ints, v->lanes[i]);
            input = k->ints.vals[slot] ? (int64_t)k->ints.vals[slot] - 1 : -1;
        }
        if (input < 0) continue;
        if (k->matched[input]) {
            char text[64];
            key_text(k, (uint64_t)input, text, sizeof text);
            return ig_err(err, -EINVAL,
                          "%s: %s %s names rows %" PRIu64 " and %" PRIu64 " (a key names one row)",
                          k->table_dir, k->key, text, k->matched[input] - 1, row);
        }
        k->matched[input] = row + 1;
        int rc = add_pair(k, row, (uint64_t)input, err);
        if (rc) return rc;
    }
    return 0;
}

static bool row_live(const struct ig_table *t, uint64_t row)
{
    uint32_t pi;
    uint64_t local;
    return row < t->num_rows && ig_table_row(t, row, &pi, &local) == 0 &&
           !ig_part_row_deleted(&t->parts[pi], local);
}

/* With the table locked: the pairs (live rows only), the checks the options
 * ask for, and what each of the file's row groups is needed for. */
static int keyed_prepare(void *ctx, const struct ig_table *t, struct ig_error *err)
{
    struct keyed *k = ctx;
    k->t = t;
    int rc = 0;
    if (k->by_rowid) {
        size_t kept = 0;
        for (size_t i = 0; i < k->npairs; i++) {
            if (row_live(t, k->pairs[i].row)) {
                k->pairs[kept++] = k->pairs[i];
                continue;
            }
            char text[32];
            snprintf(text, sizeof text, "%" PRIu64, k->pairs[i].row);
            note_missing(k, text);
        }
        k->npairs = kept;
    } else {
        uint32_t col;
        struct ig_column_ref ref;
        rc = ig_table_find(t, k->key, strlen(k->key), &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &ref, err);
        const struct ig_type_info *ti = rc ? NULL : ig_type_info(ref.rec.type);
        if (!rc && (ref.nested || !ti || (ti->phys == IG_PHYS_BYTES) != k->key_bytes))
            rc = ig_err(err, -EINVAL, "%s: column '%s' changed; give the command again", t->dir,
                        k->key);
        if (!rc) rc = each_page(k, t, &ref, table_key_page, err);
        for (uint64_t i = 0; !rc && i < k->nin; i++) {
            if (k->matched[i]) continue;
            char text[64];
            key_text(k, i, text, sizeof text);
            note_missing(k, text);
        }
    }
    if (!rc && k->miss.count && !k->in->ignore_missing)
        rc = ig_err(
            err, -ENOENT,
            "%s: %" PRIu64 " %s%s name%s no live row of %s: %s (--ignore-missing leaves them out)",
            k->path, k->miss.count, k->by_rowid ? "row id" : "key", k->miss.count == 1 ? "" : "s",
            k->miss.count == 1 ? "s" : "", t->dir, k->miss.text);
    uint64_t live = t->num_rows - t->deleted_rows;
    k->counts.input_rows = k->nin;
    k->counts.matched = k->npairs;
    k->counts.ignored = k->miss.count;
    k->counts.unmatched = live - k->npairs;
    if (!rc && k->in->require_all && k->mode != IG_KEYED_UPDATE && k->npairs < live) {
        char rows[200] = "";
        size_t used = 0, shown = 0, at = 0;
        for (uint64_t row = 0; row < t->num_rows && shown <= SHOW_FIRST; row++) {
            while (at < k->npairs && k->pairs[at].row < row)
                at++;
            if ((at < k->npairs && k->pairs[at].row == row) || !row_live(t, row)) continue;
            if (shown == SHOW_FIRST)
                used += (size_t)snprintf(rows + used, sizeof rows - used, ", ...");
            else
                used += (size_t)snprintf(rows + used, sizeof rows - used, "%s%" PRIu64,
                                         shown ? ", " : "", row);
            if (used >= sizeof rows) used = sizeof rows - 1;
            shown++;
        }
        rc = ig_err(err, -EINVAL,
                    "%s: %" PRIu64 " live row%s of %s %s no row in it (row ids %s; --require-all)",
                    k->path, live - k->npairs, live - k->npairs == 1 ? "" : "s", t->dir,
                    live - k->npairs == 1 ? "has" : "have", rows);
    }
    for (size_t i = 0; !rc && i < k->npairs; i++) {
        uint64_t input = k->pairs[i].input;
        uint32_t lo = 0, hi = k->ngroups;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (k->groups[mid].first <= input)
                lo = mid;
            else
                hi = mid;
        }
        k->groups[lo].remaining++;
    }
    for (uint32_t l = 0; !rc && k->mode == IG_KEYED_UPDATE && l < k->nleaves; l++) {
        uint32_t col;
        const char *name = k->leaves[l].top;
        rc = ig_table_find(t, name, strlen(name), &col, err);
        if (!rc) rc = ig_table_column_at(t, col, &k->leaves[l].old, err);
    }
    if (!rc && k->mode == IG_KEYED_UPDATE) {
        k->old = calloc(k->nleaves, sizeof *k->old);
        if (!k->old) rc = ig_err(err, -ENOMEM, "out of memory");
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
            rc = ig_values_push_bytes(dst, p, len);
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
        if (rc || src->defs[e] != m->in_max_def) continue;
        if (m->is_bytes) {
            size_t len;
            const uint8_t *p = ig_values_bytes(src, vi++, &len);
            rc = ig_values_push_bytes(dst, p, len);
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
        rc = load_chunk(k, p, &k->leaves[l].in, g, &gr, &ig->vals[l], err);
    }
    if (rc) drop_group(k, ig);
    return rc;
}

/* Every leaf's value from file row `input`. */
static int write_matched(struct keyed *k, struct ig_values *cols, uint64_t input,
                         struct ig_error *err)
{
    uint32_t lo = 0, hi = k->ngroups;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->groups[mid].first <= input)
            lo = mid;
        else
            hi = mid;
    }
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
        rc = load_chunk(k, p, &k->leaves[l].old, lo, &gr, &k->old[l], err);
    return rc;
}

static int keyed_fill(void *ctx, uint64_t first, uint32_t count, struct ig_values *cols,
                      struct ig_error *err)
{
    struct keyed *k = ctx;
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
    k->path = in->path;
    ig_strset_init(&k->strs);
    ig_values_init(&k->scratch, IG_T_INT64);
    enum ig_input_format fmt = in->format ? in->format : ig_input_format_from_name(in->path);
    if (fmt == IG_INPUT_AUTO) fmt = ig_input_format_from_magic(in->path);
    int rc = 0;
    if (access(in->path, R_OK))
        rc = ig_err(err, -errno, "%s: %s", in->path, strerror(errno));
    else if (fmt == IG_INPUT_AUTO)
        rc = ig_err(err, -EINVAL,
                    "%s: cannot tell the format from the name; pass --format csv, jsonl or parquet",
                    in->path);
    else if (fmt == IG_INPUT_NPY)
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
    if (!rc) rc = index_keys(k, err);
    if (k->t0_open) ig_table_close(&k->t0); /* the commit opens the table afresh, locked */
    k->t0_open = false;
    if (!rc) {
        if (mode == IG_KEYED_UPDATE) describe_update(k);
        struct ig_add_request req = {.schema = &k->out,
                                     .replace = mode != IG_KEYED_ADD,
                                     .fill = keyed_fill,
                                     .ctx = k,
                                     .writer = in->writer,
                                     .change = mode == IG_KEYED_UPDATE ? k->change : NULL,
                                     .prepare = keyed_prepare};
        rc = ig_add_columns(table_dir, &req, rep, err);
    }
    if (counts) *counts = k->counts;
    if (k->src_open) ig_table_close(&k->src);
    k->src_open = false;
    remove_temp(k);
    keyed_free(k);
    free(k);
    return rc;
}
