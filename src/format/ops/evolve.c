/* evolve.c - columns added, replaced and dropped by new versions (evolve.h). */
#include "format/ops/evolve.h"
#include "format/layout.h"
#include "format/part/columns.h"
#include "format/part/commit.h"
#include "format/part/versions.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A column's type as the schema language writes it, without the top-level
 * '?' (added columns are nullable: rows without a value are NULL). */
static int type_of(const struct ig_schema *s, uint32_t i, char *out, size_t cap)
{
    struct ig_buf b = IG_BUF_INIT;
    int rc = ig_schema_type_text(s, i, &b);
    if (!rc) {
        size_t n = b.len;
        if (n && b.data[n - 1] == '?') n--;
        snprintf(out, cap, "%.*s", (int)n, (const char *)b.data);
    }
    ig_buf_free(&b);
    return rc;
}

/* The request's columns against the table's: names free (adding) or taken
 * by a column of the same type (replacing; any type with req->retype). *old
 * gets the replaced columns' ids (by the request's tops). */
static int check_names(const struct ig_table *t, const struct ig_add_request *req, uint32_t *old,
                       struct ig_error *err)
{
    const struct ig_schema *s = req->schema;
    struct ig_schema ts;
    int rc = ig_table_schema(t, &ts, err);
    if (rc) return rc;
    for (uint32_t k = 0; k < s->ntops && !rc; k++) {
        const struct ig_column_def *cd = &s->cols[s->tops[k]];
        for (uint32_t j = 0; j < k && !rc; j++)
            if (!strcmp(s->cols[s->tops[j]].name, cd->name))
                rc = ig_err(err, -EINVAL, "column '%s' is given twice", cd->name);
        uint32_t col;
        bool exists = !rc && ig_table_find(t, cd->name, cd->name_len, &col, NULL) == 0;
        if (rc) break;
        if (!req->replace && exists)
            rc = ig_err(err, -EEXIST,
                        "%s: column '%s' exists (ingot replace-column replaces its values)", t->dir,
                        cd->name);
        else if (req->replace && !exists)
            rc = ig_err(err, -ENOENT, "%s: no column '%s' to replace", t->dir, cd->name);
        else if (req->replace) {
            char want[512], have[512];
            long node = ig_schema_find(&ts, cd->name, cd->name_len);
            rc = node < 0 || type_of(s, s->tops[k], want, sizeof want) ||
                         type_of(&ts, (uint32_t)node, have, sizeof have)
                     ? ig_err(err, -ENOMEM, "out of memory")
                     : 0;
            if (!rc && strcmp(want, have) && !req->retype)
                rc = ig_err(err, -EINVAL, "%s: column '%s' is %s; the new values are %s (--retype "
                                          "gives it their type)", t->dir, cd->name, have, want);
            old[k] = col;
        }
    }
    ig_schema_free(&ts);
    return rc;
}

struct part_fill {
    const struct ig_add_request *req;
    uint64_t first_row_id;
    uint64_t *rows_done, rows_total; /* the progress, over every part */
};

static int fill_part(void *ctx, uint64_t first, uint32_t count, struct ig_values *cols,
                     struct ig_blob_writer *blobs, struct ig_error *err)
{
    const struct part_fill *pf = ctx;
    int rc = pf->req->fill(pf->req->ctx, pf->first_row_id + first, count, cols, blobs, err);
    *pf->rows_done += count;
    if (!rc && pf->req->progress) pf->req->progress(pf->req->progress_ctx, *pf->rows_done, pf->rows_total);
    return rc;
}

/* "add-column a, b" (or replace-column), cut to fit a version's change line. */
static void describe(const struct ig_add_request *req, char *out, size_t cap)
{
    const struct ig_schema *s = req->schema;
    size_t n = (size_t)snprintf(out, cap, "%s", req->replace ? "replace-column" : "add-column");
    for (uint32_t k = 0; k < s->ntops && n < cap; k++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? ", " : " ", s->cols[s->tops[k]].name);
}

/* The shown top-level column called name: 0, or an error saying it is none
 * (or a struct's field, and then `why`: "only whole columns are dropped"). */
static int find_whole_column(const struct ig_table *t, const char *name, const char *why, uint32_t *col,
                             struct ig_error *err)
{
    struct ig_colrec cr;
    if (ig_table_find(t, name, strlen(name), col, NULL))
        return ig_err(err, -ENOENT, "%s: no column '%s'", t->dir, name);
    int rc = ig_part_column(&t->parts[0], *col, &cr, err);
    if (!rc && cr.parent != IG_NONE)
        rc = ig_err(err, -EINVAL, "%s: '%s' is a field of a struct; %s", t->dir, name, why);
    return rc;
}

/* The top-level column a column shown first (after: none) or right after
 * column `after` goes before (IG_PLACE_LAST: none follows), column `moving`
 * passed over. */
static uint32_t place_before(const struct ig_table *t, bool has_after, uint32_t after, uint32_t moving)
{
    bool here = !has_after;
    struct ig_shown_walk shown = {0};
    for (uint32_t top; ig_table_next_top(t, &shown, &top);) {
        if (top == moving) continue;
        if (here) return top;
        here = top == after;
    }
    return IG_PLACE_LAST;
}

int ig_add_columns(const char *dir, const struct ig_add_request *req, struct ig_evolve_report *rep,
                   struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    const struct ig_schema *s = req->schema;
    if (!s->ntops) return ig_err(err, -EINVAL, "no columns to add");
    char change[IG_CHANGE_MAX + 1];
    if (req->change)
        snprintf(change, sizeof change, "%s", req->change);
    else
        describe(req, change, sizeof change);
    struct ig_commit c;
    int rc = ig_commit_begin(&c, dir, change, err);
    uint32_t *old = calloc(s->ntops, sizeof *old);
    if (!rc && !old) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc && req->prepare) rc = req->prepare(req->ctx, &c.table, err);
    if (!rc) rc = check_names(&c.table, req, old, err);
    uint32_t after = 0; /* the column the new ones follow (req->after), found before a byte is written */
    if (!rc && !req->replace && req->after)
        rc = find_whole_column(&c.table, req->after, "new columns go after a whole column", &after, err);
    uint32_t at = rc || req->replace || (!req->first && !req->after)
                      ? IG_PLACE_LAST
                      : place_before(&c.table, req->after != NULL, after, IG_NONE);
    struct ig_writer_opts wo;
    if (req->writer)
        wo = *req->writer;
    else
        ig_writer_opts_default(&wo);
    if (!rc) wo.erase_level = c.table.parts[0].erase_level; /* the table's */
    uint32_t base = rc ? 0 : c.table.parts[0].num_columns;
    uint64_t rows_done = 0, rows_total = 0;
    for (uint32_t i = 0; !rc && i < c.table.nparts; i++)
        rows_total += c.table.parts[i].num_rows;
    for (uint32_t i = 0; i < c.table.nparts && !rc; i++) {
        if (c.table.parts[i].num_columns != base)
            rc = ig_err(err, -EIO, "%s: parts disagree on their columns", c.table.parts[i].path);
        struct part_fill pf = {req, c.table.parts[i].first_row_id, &rows_done, rows_total};
        if (!rc) rc = ig_commit_graft(&c, i, s, &wo, fill_part, &pf, err);
        if (!rc) rep->bytes_written += c.next.parts[i].footer_end - c.parts[i].size;
    }
    if (!rc)
        rc =
            ig_manifest_columns_explicit(&c.next, base) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (!rc)
        rc = ig_idset_add(&c.next.columns, base, s->n) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    /* a replacement is shown where the column it replaces was, a new column
     * where the request says (its record and its fields: the request's nodes,
     * written from id base on; new columns keep their order: each goes before
     * the same column) */
    if (!rc && (req->replace || at != IG_PLACE_LAST)) {
        struct ig_placement *pl = malloc(s->ntops * sizeof *pl);
        for (uint32_t k = 0; pl && k < s->ntops; k++)
            pl[k] = (struct ig_placement){base + s->tops[k], (k + 1 < s->ntops ? s->tops[k + 1] : s->n) - s->tops[k],
                                          req->replace ? old[k] : at};
        if (!pl || ig_manifest_place(&c.next, pl, s->ntops)) rc = ig_err(err, -ENOMEM, "out of memory");
        free(pl);
    }
    for (uint32_t k = 0; req->replace && k < s->ntops && !rc; k++) {
        uint32_t end = ig_part_column_span_end(&c.table.parts[0], old[k]);
        for (uint32_t id = old[k]; id < end && !rc; id++)
            if (ig_idset_remove(&c.next.columns, id)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    c.replace_progress = req->replace_progress;
    c.replace_progress_ctx = req->replace_progress_ctx;
    if (!rc) rc = ig_commit_finish(&c, err);
    if (!rc) {
        rep->version = c.next.version;
        rep->columns = s->ntops;
        rep->objects_replaced = c.traffic.objects_replaced;
        rep->bytes_uploaded = c.traffic.bytes_uploaded;
        rep->bytes_copied = c.traffic.bytes_copied;
    }
    free(old);
    ig_commit_end(&c);
    return rc;
}

int ig_drop_columns(const char *dir, const char *const *names, size_t n,
                    struct ig_evolve_report *rep, struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    char change[IG_CHANGE_MAX + 1];
    size_t used = (size_t)snprintf(change, sizeof change, "drop-column");
    for (size_t k = 0; k < n && used < sizeof change; k++)
        used +=
            (size_t)snprintf(change + used, sizeof change - used, "%s%s", k ? ", " : " ", names[k]);
    struct ig_commit c;
    int rc = ig_commit_begin(&c, dir, change, err);
    if (!rc)
        rc = ig_manifest_columns_explicit(&c.next, c.table.parts[0].num_columns)
                 ? ig_err(err, -ENOMEM, "out of memory")
                 : 0;
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t col;
        rc = find_whole_column(&c.table, names[k], "only whole columns are dropped", &col, err);
        uint32_t end = rc ? col : ig_part_column_span_end(&c.table.parts[0], col);
        for (uint32_t id = col; id < end && !rc; id++)
            if (ig_idset_remove(&c.next.columns, id)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc && ig_idset_count(&c.next.columns) == 0)
        rc = ig_err(err, -EINVAL, "%s: a table keeps at least one column", dir);
    if (!rc) rc = ig_commit_finish(&c, err);
    if (!rc) {
        rep->version = c.next.version;
        rep->columns = (uint32_t)n;
    }
    ig_commit_end(&c);
    return rc;
}

/* One column of a rename: its record, the end of its subtree, its new name. */
struct renaming {
    uint32_t col, end;
    const char *to;
    size_t to_len;
};

/* Record c of renaming r under its new name ("to" + its field path) in full. */
static int new_name(const struct ig_table *t, const struct renaming *r, uint32_t c, struct ig_buf *full,
                    struct ig_error *err)
{
    struct ig_colrec top, rec;
    int rc = ig_part_column(&t->parts[0], r->col, &top, err);
    if (!rc) rc = ig_part_column(&t->parts[0], c, &rec, err);
    if (rc) return rc;
    ig_buf_reset(full);
    if (ig_buf_append(full, r->to, r->to_len) ||
        ig_buf_append(full, rec.name + top.name_len, rec.name_len - top.name_len))
        return ig_err(err, -ENOMEM, "out of memory");
    if (full->len > IG_MAX_NAME_LEN)
        return ig_err(err, -EINVAL, "%s: '%s' is too long a name (its fields' names would pass %d bytes)", t->dir,
                      r->to, IG_MAX_NAME_LEN);
    return 0;
}

struct taken {
    const char *name; /* in check_renames' arena once it is whole */
    size_t at, len;
};

static int taken_cmp(const void *a, const void *b)
{
    const struct taken *x = a, *y = b;
    return ig_name_cmp(x->name, x->len, y->name, y->len);
}

/* Are the new names free, all renames taking effect at once? Taken: a shown
 * record no rename moves answers to one of them, or two renamed records
 * would answer to the same one. (Swapping two names is a rename of both.) */
static int check_renames(const struct ig_table *t, const struct renaming *r, size_t n, struct ig_error *err)
{
    struct ig_buf arena = IG_BUF_INIT, full = IG_BUF_INIT;
    size_t records = 0;
    uint32_t ncols = t->parts[0].num_columns;
    bool *moving = calloc(ncols ? ncols : 1, sizeof *moving); /* records a rename gives a new name */
    for (size_t k = 0; moving && k < n; k++)
        for (uint32_t c = r[k].col; c < r[k].end && c < ncols; c++, records++)
            moving[c] = true;
    struct taken *v = moving ? malloc((records ? records : 1) * sizeof *v) : NULL; /* every new name */
    int rc = v ? 0 : ig_err(err, -ENOMEM, "out of memory");
    size_t nv = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        if (!r[k].to_len || memchr(r[k].to, '\0', r[k].to_len) ||
            !ig_utf8_valid((const uint8_t *)r[k].to, r[k].to_len))
            rc = ig_err(err, -EINVAL, "%s: '%s' is not a column name (empty, or not UTF-8)", t->dir, r[k].to);
        for (uint32_t c = r[k].col; c < r[k].end && !rc; c++) {
            rc = new_name(t, &r[k], c, &full, err);
            uint32_t other;
            if (!rc && ig_table_find(t, (const char *)full.data, full.len, &other, NULL) == 0 && other < ncols &&
                !moving[other])
                rc = ig_err(err, -EEXIST, "%s: a column is named '%.*s' already", t->dir, (int)full.len,
                            (const char *)full.data);
            /* kept for the check between renames below */
            if (!rc && nv < records) {
                v[nv++] = (struct taken){.at = arena.len, .len = full.len};
                if (ig_buf_append(&arena, full.data, full.len)) rc = ig_err(err, -ENOMEM, "out of memory");
            }
        }
    }
    for (size_t i = 0; !rc && i < nv; i++)
        v[i].name = (const char *)arena.data + v[i].at;
    if (!rc) qsort(v, nv, sizeof *v, taken_cmp);
    for (size_t i = 1; !rc && i < nv; i++)
        if (!taken_cmp(&v[i - 1], &v[i]))
            rc = ig_err(err, -EEXIST, "%s: two columns would be named '%.*s'", t->dir, (int)v[i].len, v[i].name);
    free(v);
    free(moving);
    ig_buf_free(&arena);
    ig_buf_free(&full);
    return rc;
}

int ig_rename_columns(const char *dir, const char *const *pairs, size_t n, struct ig_evolve_report *rep,
                      struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (!n) return ig_err(err, -EINVAL, "%s: no column to rename", dir);
    char change[IG_CHANGE_MAX + 1];
    struct ig_buf what = IG_BUF_INIT;
    int rc = ig_buf_printf(&what, "rename-column");
    for (size_t k = 0; k < 2 * n && !rc && what.len <= IG_CHANGE_MAX; k++) /* the line is cut there */
        rc = ig_buf_printf(&what, " %s", pairs[k]);
    snprintf(change, sizeof change, "%s", rc ? "rename-column" : (const char *)what.data);
    ig_buf_free(&what);
    struct ig_commit c;
    rc = ig_commit_begin(&c, dir, change, err);
    struct renaming *r = rc ? NULL : calloc(n, sizeof *r);
    uint32_t ncols = rc ? 0 : c.table.parts[0].num_columns;
    bool *named = rc ? NULL : calloc(ncols ? ncols : 1, sizeof *named); /* a column some pair renames */
    if (!rc && (!r || !named)) rc = ig_err(err, -ENOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; k++) {
        const char *from = pairs[2 * k], *to = pairs[2 * k + 1];
        struct ig_colrec cr;
        uint32_t col = 0;
        if (ig_table_find(&c.table, from, strlen(from), &col, NULL))
            rc = ig_err(err, -ENOENT, "%s: no column '%s'", dir, from);
        if (!rc) rc = ig_part_column(&c.table.parts[0], col, &cr, err);
        if (!rc && cr.parent != IG_NONE)
            rc = ig_err(err, -EINVAL, "%s: '%s' is a field of a struct; only whole columns are renamed", dir, from);
        if (!rc && !strcmp(from, to)) rc = ig_err(err, -EINVAL, "%s: column '%s' has that name already", dir, from);
        if (!rc && col < ncols && named[col]) rc = ig_err(err, -EINVAL, "%s: column '%s' is renamed twice", dir, from);
        if (!rc && col < ncols) named[col] = true;
        if (!rc)
            r[k] = (struct renaming){.col = col, .end = ig_part_column_span_end(&c.table.parts[0], col), .to = to,
                                     .to_len = strlen(to)};
    }
    if (!rc) rc = check_renames(&c.table, r, n, err);
    for (size_t k = 0; k < n && !rc; k++) {
        struct ig_colrec stored;
        rc = ig_part_column_stored(&c.table.parts[0], r[k].col, &stored, err);
        /* back to the name its footer stores: no name line needed */
        bool own = !rc && stored.name_len == r[k].to_len && !memcmp(stored.name, r[k].to, r[k].to_len);
        if (!rc && ig_manifest_rename(&c.next, r[k].col, own ? NULL : r[k].to, r[k].to_len))
            rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) rc = ig_commit_finish(&c, err);
    if (!rc) {
        rep->version = c.next.version;
        rep->columns = (uint32_t)n;
    }
    free(r);
    free(named);
    ig_commit_end(&c);
    return rc;
}

int ig_rename_column(const char *dir, const char *from, const char *to, struct ig_evolve_report *rep,
                     struct ig_error *err)
{
    const char *pair[2] = {from, to};
    return ig_rename_columns(dir, pair, 1, rep, err);
}

int ig_move_column(const char *dir, const char *name, const char *after, struct ig_evolve_report *rep,
                   struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    char change[IG_CHANGE_MAX + 1];
    snprintf(change, sizeof change, "move-column %s %s%s", name, after ? "after " : "first", after ? after : "");
    struct ig_commit c;
    int rc = ig_commit_begin(&c, dir, change, err);
    uint32_t col = 0, other = 0;
    if (!rc) rc = find_whole_column(&c.table, name, "only whole columns are moved", &col, err);
    if (!rc && after) rc = find_whole_column(&c.table, after, "only whole columns are moved", &other, err);
    if (!rc && after && other == col) rc = ig_err(err, -EINVAL, "%s: column '%s' cannot follow itself", dir, name);
    if (!rc)
        rc = ig_manifest_columns_explicit(&c.next, c.table.parts[0].num_columns) ? ig_err(err, -ENOMEM, "out of memory")
                                                                                 : 0;
    uint32_t at = rc ? IG_PLACE_LAST : place_before(&c.table, after != NULL, other, col);
    struct ig_placement pl = {col, rc ? 0 : ig_part_column_span_end(&c.table.parts[0], col) - col, at};
    if (!rc && ig_manifest_place(&c.next, &pl, 1)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) rc = ig_commit_finish(&c, err);
    if (!rc) {
        rep->version = c.next.version;
        rep->columns = 1;
    }
    ig_commit_end(&c);
    return rc;
}

/* Can version v's column record col (cr) be shown again? Not when `ingot gc`
 * let it go, nor when rows appended while it was hidden hold no value in it
 * (it cannot be NULL: import.c, release_hidden): either way its pages are
 * released in some part. */
static int check_unreleased(const struct ig_table *t, uint64_t v, uint32_t col, const struct ig_colrec *cr,
                            struct ig_error *err)
{
    int len = (int)(cr->name_len > 200 ? 200 : cr->name_len);
    if (ig_part_column_released(&t->parts[0], col))
        return ig_err(err, -ENOENT, "%s: version %" PRIu64 "'s column '%.*s' was let go by `ingot gc` (its pages "
                      "zeroed): it cannot be shown again", t->dir, v, len, cr->name);
    for (uint32_t i = 1; i < t->nparts; i++)
        if (ig_part_column_released(&t->parts[i], col))
            return ig_err(err, -ENOENT, "%s: version %" PRIu64 "'s column '%.*s' cannot be shown again: rows "
                          "appended while it was hidden (%s) hold no value in it, and it cannot be NULL",
                          t->dir, v, len, cr->name, t->manifest.parts[i].name);
    return 0;
}

/* Version v's columns and names as a new version; `current` (0: any): the
 * version the table must be at, else -EAGAIN and nothing is changed. */
static int restore_columns(const char *dir, uint64_t v, uint64_t current, const char *change,
                           struct ig_evolve_report *rep, struct ig_error *err)
{
    struct ig_commit c;
    int rc = ig_commit_begin(&c, dir, change, err);
    struct ig_manifest old = {0};
    if (!rc && current && c.table.manifest.version != current)
        rc = ig_err(err, -EAGAIN, "%s: the table moved on from version %" PRIu64 " (now %" PRIu64 ")", dir, current,
                    c.table.manifest.version);
    if (!rc && v > c.table.manifest.version)
        rc = ig_err(err, -ENOENT, "%s: no version %" PRIu64 " (the newest is %" PRIu64 ")", dir, v,
                    c.table.manifest.version);
    if (!rc && v == c.table.manifest.version)
        rc = ig_err(err, -EINVAL, "%s: version %" PRIu64 " is the current one", dir, v);
    if (!rc) rc = ig_version_load(dir, v, &old, err);
    if (!rc && !old.listed) /* versions' files name their columns (versions.c pin_columns) */
        rc = ig_err(err, -EIO, "%s: version %" PRIu64 "'s file does not say which columns it shows", dir, v);
    uint32_t ncols = rc ? 0 : c.table.parts[0].num_columns;
    for (uint32_t col = 0; !rc && col < ncols; col++) {
        if (!ig_idset_has(&old.columns, col)) continue;
        struct ig_colrec cr;
        rc = ig_part_column(&c.table.parts[0], col, &cr, err);
        if (!rc && cr.parent == IG_NONE) rc = check_unreleased(&c.table, v, col, &cr, err);
    }
    const struct ig_idrun *last = !rc && old.columns.n ? &old.columns.runs[old.columns.n - 1] : NULL;
    if (last && (uint64_t)last->first + last->count > ncols)
        rc = ig_err(err, -EIO, "%s: version %" PRIu64 " shows column records its parts do not have", dir, v);
    if (!rc) {
        /* the version's columns under its names; rows and erasures stay as they are now */
        ig_idset_free(&c.next.columns);
        c.next.listed = true;
        rc = ig_idset_copy(&c.next.columns, &old.columns) || ig_idseq_copy(&c.next.order, &old.order) ? -ENOMEM : 0;
        while (!rc && c.next.nnames) /* the last first: nothing moves */
            rc = ig_manifest_rename(&c.next, c.next.names[c.next.nnames - 1].col, NULL, 0);
        for (uint32_t i = 0; !rc && i < old.nnames; i++)
            rc = ig_manifest_rename(&c.next, old.names[i].col, old.names[i].name, old.names[i].len);
        if (rc) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    if (!rc) rc = ig_commit_finish(&c, err);
    if (!rc) {
        rep->version = c.next.version;
        rep->columns = (uint32_t)ig_idset_count(&old.columns);
    }
    ig_manifest_free(&old);
    ig_commit_end(&c);
    return rc;
}

int ig_restore_columns(const char *dir, const char *spec, struct ig_evolve_report *rep, struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    uint64_t v = 0;
    int rc = ig_version_resolve(dir, spec, &v, err);
    if (rc) return rc;
    char change[IG_CHANGE_MAX + 1];
    snprintf(change, sizeof change, "restore-columns %" PRIu64, v);
    return restore_columns(dir, v, 0, change, rep, err);
}

int ig_undo_columns(const char *dir, uint64_t made, const char *why, struct ig_evolve_report *rep,
                    struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (made < 2) return ig_err(err, -EINVAL, "%s: version %" PRIu64 " has no version before it", dir, made);
    char change[IG_CHANGE_MAX + 1];
    snprintf(change, sizeof change, "restore-columns %" PRIu64 " (%s)", made - 1, why);
    return restore_columns(dir, made - 1, made, change, rep, err);
}
