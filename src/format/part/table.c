#include "format/part/table.h"
#include "format/part/columns.h"
#include "format/part/commitlog.h"
#include "format/part/journal.h"
#include "format/layout.h"
#include "format/part/lock.h"
#include "format/part/versions.h"
#include "format/model/types.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void free_names(struct ig_part_names *nm)
{
    if (!nm) return;
    free(nm->arena);
    free(nm->name);
    free(nm->len);
    free(nm->col);
    free(nm->by_name);
    free(nm);
}

struct named {
    const char *name;
    uint32_t len, at;
};

static int named_cmp(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = ig_name_cmp(x->name, x->len, y->name, y->len);
    return c ? c : (x->at > y->at) - (x->at < y->at); /* entries are in column order */
}

/* nm->by_name: nm's entries ordered by name, then column. */
static int order_names(struct ig_part_names *nm)
{
    struct named *v = malloc((nm->n ? nm->n : 1) * sizeof *v);
    nm->by_name = malloc((nm->n ? nm->n : 1) * sizeof *nm->by_name);
    if (!v || !nm->by_name) {
        free(v);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < nm->n; i++)
        v[i] = (struct named){.name = nm->name[i], .len = nm->len[i], .at = i};
    qsort(v, nm->n, sizeof *v, named_cmp);
    for (uint32_t i = 0; i < nm->n; i++)
        nm->by_name[i] = v[i].at;
    free(v);
    return 0;
}

/* The names of the version's `name` lines, given to every part: a renamed
 * top-level record's, and its fields' (stored as "old.field": now
 * "new.field"). Checked against the footer: a line naming a field, a record
 * past the footer's, or a field name that would grow too long is corruption. */
static int give_names(struct ig_table *t, struct ig_error *err)
{
    const struct ig_manifest *m = &t->manifest;
    if (!m->nnames || !t->nparts) return 0;
    const struct ig_part *p0 = &t->parts[0];
    struct ig_part_names *nm = calloc(1, sizeof *nm);
    uint32_t cap = 0, *ends = nm ? calloc(m->nnames, sizeof *ends) : NULL; /* each named record's span */
    for (uint32_t i = 0; ends && i < m->nnames; i++)
        if (m->names[i].col < p0->num_columns) {
            ends[i] = ig_part_column_span_end(p0, m->names[i].col);
            cap += ends[i] - m->names[i].col;
        }
    if (nm && ends) {
        nm->col = calloc(cap ? cap : 1, sizeof *nm->col);
        nm->len = calloc(cap ? cap : 1, sizeof *nm->len);
        nm->name = calloc(cap ? cap : 1, sizeof *nm->name);
    }
    if (!nm || !ends || !nm->col || !nm->len || !nm->name) {
        free(ends);
        free_names(nm);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    int rc = 0;
    struct ig_buf arena = IG_BUF_INIT; /* every name, NUL-terminated; nm->name points in once whole */
    size_t *at = calloc(cap ? cap : 1, sizeof *at);
    if (!at) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < m->nnames && !rc; i++) {
        const struct ig_manifest_name *mn = &m->names[i];
        struct ig_colrec top;
        rc = mn->col < p0->num_columns ? ig_part_column_stored(p0, mn->col, &top, err) : -EIO;
        if (!rc && top.parent != IG_NONE) rc = -EIO;
        if (rc) {
            rc = ig_err(err, -EIO, "%s: MANIFEST names column %u, which is not a column of its parts",
                        t->dir, mn->col);
            break;
        }
        for (uint32_t c = mn->col; c < ends[i] && !rc; c++) {
            struct ig_colrec r = top;
            if (c != mn->col) rc = ig_part_column_stored(p0, c, &r, err);
            if (!rc && c != mn->col &&
                (r.name_len <= top.name_len + 1 || memcmp(r.name, top.name, top.name_len) ||
                 r.name[top.name_len] != '.'))
                rc = ig_err(err, -EIO, "%s: column %u is not named as a field of column %u", p0->path, c, mn->col);
            size_t field = rc || c == mn->col ? 0 : r.name_len - top.name_len; /* ".field..." */
            if (!rc && mn->len + field > IG_MAX_NAME_LEN)
                rc = ig_err(err, -EIO, "%s: MANIFEST's name for column %u is too long", t->dir, mn->col);
            if (rc) break;
            at[nm->n] = arena.len;
            if (ig_buf_append(&arena, mn->name, mn->len) || ig_buf_append(&arena, r.name + top.name_len, field) ||
                ig_buf_append_byte(&arena, 0)) {
                rc = ig_err(err, -ENOMEM, "out of memory");
                break;
            }
            nm->col[nm->n] = c;
            nm->len[nm->n++] = (uint32_t)(mn->len + field);
        }
    }
    nm->arena = (char *)arena.data;
    for (uint32_t i = 0; !rc && i < nm->n; i++)
        nm->name[i] = nm->arena + at[i];
    free(at);
    free(ends);
    if (!rc && order_names(nm)) rc = ig_err(err, -ENOMEM, "out of memory");
    if (rc) {
        free_names(nm);
        return rc;
    }
    t->names = nm; /* ids ascending: the lines are, and spans do not overlap */
    for (uint32_t i = 0; i < t->nparts; i++)
        t->parts[i].names = nm;
    return 0;
}

void ig_table_close(struct ig_table *t)
{
    for (uint32_t i = 0; i < t->nparts; i++)
        ig_part_close(&t->parts[i]);
    free(t->parts);
    free(t->part_first_group);
    free(t->dir);
    ig_manifest_free(&t->manifest);
    free_names(t->names);
    memset(t, 0, sizeof *t);
}

/* Is a writer at work, or did one die at work (an erase's journal, a
 * commit's record)? */
static bool writer_pending(const char *dir)
{
    return ig_journal_pending(dir) || ig_commit_pending(dir);
}

/* An erase or a commit was interrupted: finish (or undo) it before anyone
 * reads (journal.h, commit.h). An erase must be: its blocks may be half
 * written until its journal is replayed. A change of columns need not be
 * for a reader: its new bytes lie past what MANIFEST (its commit point)
 * names, its superseded footers before, so the table reads as MANIFEST says
 * either way; a reader that cannot settle it (no write access, or a record
 * that cannot be read: damaged) reads on, and the next writer settles it
 * or says why it cannot. */
static int recover(const char *dir, bool writable, struct ig_error *err)
{
    /* on object storage a reader never writes: an interrupted erase leaves
     * every object readable, and the next writer completes it (remote.h) */
    if (ig_store_is_remote(dir)) return 0;
    bool erase = ig_journal_pending(dir);
    if (!erase && !ig_commit_pending(dir)) return 0;
    struct ig_error sub = {0};
    struct ig_error *e = erase || writable ? err : &sub; /* a reader's own failure to settle a commit is no error */
    int lock = ig_table_lock(dir, true, e);
    if (lock < 0)
        return e == err ? ig_err_prefix(err, lock, "%s: an interrupted erase or commit must be completed first, "
                                                   "which needs write access", dir)
                        : 0;
    bool replayed;
    int rc = ig_journal_recover(dir, &replayed, err);
    if (!rc) rc = ig_commit_recover(dir, writable ? err : &sub);
    if (rc && !writable && !erase && rc != -ENOMEM)
        rc = 0; /* as MANIFEST says */
    ig_table_unlock(lock);
    return rc;
}

/* Where part `name`'s footer ends now (the current MANIFEST's record), for a
 * version read with the footers of today (versions.h). */
static uint64_t footer_end_now(const struct ig_manifest *now, const char *name)
{
    for (uint32_t i = 0; i < now->n; i++)
        if (!strcmp(now->parts[i].name, name)) return now->parts[i].footer_end;
    return UINT64_MAX;
}

int ig_table_open(struct ig_table *t, const char *dir, bool writable, struct ig_error *err)
{
    return ig_table_open_version(t, dir, 0, writable, err);
}

int ig_table_open_version(struct ig_table *t, const char *dir, uint64_t version, bool writable,
                          struct ig_error *err)
{
    memset(t, 0, sizeof *t);
    int rc = recover(dir, writable, err);
    if (rc) return rc;
    t->dir = strdup(dir);
    if (!t->dir) return ig_err(err, -ENOMEM, "out of memory");
    rc = ig_manifest_read(dir, &t->manifest, err);
    if (rc) goto fail;
    if (version && version != t->manifest.version) {
        struct ig_manifest now = t->manifest;
        rc = ig_version_load(dir, version, &t->manifest, err);
        if (rc) {
            t->manifest = now;
            goto fail;
        }
        for (uint32_t i = 0; i < t->manifest.n && !rc; i++) {
            uint64_t end = footer_end_now(&now, t->manifest.parts[i].name);
            if (end == UINT64_MAX)
                rc = ig_err(err, -EIO, "%s: version %" PRIu64 " names %s, which the table no longer has", dir,
                            version, t->manifest.parts[i].name);
            t->manifest.parts[i].footer_end = end;
        }
        ig_manifest_free(&now);
        if (rc) goto fail;
    }
    t->parts = calloc(t->manifest.n, sizeof *t->parts);
    t->part_first_group = calloc(t->manifest.n, sizeof *t->part_first_group);
    if (!t->parts || !t->part_first_group) {
        rc = ig_err(err, -ENOMEM, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < t->manifest.n; i++) {
        const struct ig_manifest_part *mp = &t->manifest.parts[i];
        char path[4096];
        if (ig_path_join(path, sizeof path, dir, mp->name)) {
            rc = ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
            goto fail;
        }
        rc = ig_part_open_at(&t->parts[i], path, mp->footer_end, writable, err);
        if (rc) goto fail;
        t->nparts++;
        if (mp->blob[0]) {
            char bpath[4096];
            if (ig_path_join(bpath, sizeof bpath, dir, mp->blob)) {
                rc = ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
                goto fail;
            }
            if (ig_store_is_remote(dir)) {
                struct ig_store *st;
                rc = ig_store_at(dir, &st, err);
                if (!rc) rc = ig_obj_open(st, mp->blob, NULL, &t->parts[i].blob_obj, err);
                if (rc) goto fail;
            } else {
                t->parts[i].blob_fd = ig_open(bpath, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
                if (t->parts[i].blob_fd < 0) {
                    rc = ig_err(err, -errno, "%s: %s", bpath, strerror(errno));
                    goto fail;
                }
            }
        }
        struct ig_part *p = &t->parts[i];
        if (p->first_row_id != mp->first_row || p->num_rows != mp->rows) {
            rc = ig_err(err, -EIO, "%s: rows %" PRIu64 "+%" PRIu64 " disagree with MANIFEST (%"
                                   PRIu64 "+%" PRIu64 ")",
                        path, p->first_row_id, p->num_rows, mp->first_row, mp->rows);
            goto fail;
        }
        if (i > 0 && p->schema_hash != t->parts[0].schema_hash) {
            rc = ig_err(err, -EIO, "%s: schema differs from %s", path, t->parts[0].path);
            goto fail;
        }
        if ((uint64_t)t->num_groups + p->num_groups > UINT32_MAX) {
            rc = ig_err(err, -EIO, "%s: too many row groups", dir);
            goto fail;
        }
        t->part_first_group[i] = t->num_groups;
        t->num_groups += p->num_groups;
        t->num_rows += p->num_rows;
        t->deleted_rows += p->deleted_rows;
    }
    rc = give_names(t, err);
    if (rc) goto fail;
    return 0;
fail:
    ig_table_close(t);
    return rc;
}

bool ig_table_shows(const struct ig_table *t, uint32_t col)
{
    return ig_manifest_shows(&t->manifest, col);
}

bool ig_table_next_shown(const struct ig_table *t, struct ig_shown_walk *w, uint32_t *col)
{
    if (!t->nparts) return false;
    uint32_t ncols = t->parts[0].num_columns;
    const struct ig_idseq *order = &t->manifest.order;
    if (!order->n) {
        while (w->next < ncols) {
            uint32_t c = w->next++;
            if (ig_table_shows(t, c)) {
                *col = c;
                return true;
            }
        }
        return false;
    }
    for (; w->run < order->n; w->run++, w->next = 0) {
        const struct ig_idrun *r = &order->runs[w->run];
        if (w->next < r->count && (uint64_t)r->first + w->next < ncols) {
            *col = r->first + w->next++;
            return true;
        }
    }
    return false;
}

bool ig_table_next_top(const struct ig_table *t, struct ig_shown_walk *w, uint32_t *col)
{
    struct ig_colrec cr;
    while (ig_table_next_shown(t, w, col))
        if (ig_part_column(&t->parts[0], *col, &cr, NULL) || cr.parent == IG_NONE) return true;
    return false;
}

static bool shown(void *ctx, uint32_t col);

/* The schema's walk of the version's top-level columns, in its order. */
struct tops_walk {
    const struct ig_table *t;
    struct ig_shown_walk w;
};

static bool next_top(void *ctx, uint32_t *top)
{
    struct tops_walk *tw = ctx;
    return ig_table_next_top(tw->t, &tw->w, top);
}

static bool shown_in_walk(void *ctx, uint32_t col)
{
    return ig_table_shows(((struct tops_walk *)ctx)->t, col);
}

int ig_table_schema(const struct ig_table *t, struct ig_schema *s, struct ig_error *err)
{
    /* by id where the version has no order of its own (no top to look up) */
    struct tops_walk tw = {t, {0}};
    return ig_schema_from_part_where(&t->parts[0], t->manifest.listed ? shown_in_walk : NULL,
                                     t->manifest.order.n ? next_top : NULL, &tw, s, err);
}

uint32_t ig_table_columns_shown(const struct ig_table *t)
{
    if (!t->nparts) return 0;
    return !t->manifest.listed ? t->parts[0].num_columns : (uint32_t)ig_idset_count(&t->manifest.columns);
}

static bool shown(void *ctx, uint32_t col)
{
    return ig_table_shows(ctx, col);
}

int ig_table_find(const struct ig_table *t, const char *name, size_t len, uint32_t *col, struct ig_error *err)
{
    if (!t->nparts) return -ENOENT;
    return ig_part_find_where(&t->parts[0], name, len, shown, (void *)t, col, err);
}

int ig_table_group(const struct ig_table *t, uint32_t g, uint32_t *part, uint32_t *local)
{
    if (g >= t->num_groups) return -ENOENT;
    uint32_t lo = 0, hi = t->nparts;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (t->part_first_group[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    *part = lo;
    *local = g - t->part_first_group[lo];
    return 0;
}

int ig_table_row(const struct ig_table *t, uint64_t row_id, uint32_t *part, uint64_t *local)
{
    if (row_id >= t->num_rows) return -ENOENT;
    uint32_t lo = 0, hi = t->nparts;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (t->parts[mid].first_row_id <= row_id)
            lo = mid;
        else
            hi = mid;
    }
    *part = lo;
    *local = row_id - t->parts[lo].first_row_id;
    return 0;
}

/* Private copies of every part's footer (what a writer does to the file from
 * now on is not seen). */
static int copy_footers(struct ig_table *t, struct ig_error *err)
{
    for (uint32_t i = 0; i < t->nparts; i++) {
        int rc = ig_part_copy_footer(&t->parts[i], err);
        if (rc) {
            ig_table_close(t);
            return rc;
        }
    }
    return 0;
}

int ig_table_open_shared_version(struct ig_table *t, const char *dir, uint64_t version, struct ig_error *err)
{
    /* objects are never rewritten in place: the footers read are one
     * object's each (private copies already), whatever writers do */
    if (ig_store_is_remote(dir)) return ig_table_open_version(t, dir, version, false, err);
    for (int tries = 0; tries < 3; tries++) {
        if (writer_pending(dir)) {
            /* a writer at work (this waits for its lock) or one that died
             * after committing (this completes its erase) */
            int rc = recover(dir, false, err);
            if (rc) return rc;
        }
        int lock = ig_table_lock_shared(dir, NULL);
        if (lock < 0) break; /* a read-only table: no writer can be at work either */
        if (writer_pending(dir)) { /* another writer committed meanwhile */
            ig_table_unlock(lock);
            continue;
        }
        /* the copies are taken before the lock goes: a writer waiting for it
         * rewrites footers in place, and a copy taken after could hold some of
         * its page records and not its deletion bits, under the older
         * generation's number */
        int rc = ig_table_open_version(t, dir, version, false, err);
        if (!rc) rc = copy_footers(t, err);
        ig_table_unlock(lock);
        return rc;
    }
    int rc = ig_table_open_version(t, dir, version, false, err);
    return rc ? rc : copy_footers(t, err);
}

int ig_table_open_shared(struct ig_table *t, const char *dir, struct ig_error *err)
{
    return ig_table_open_shared_version(t, dir, 0, err);
}

void ig_table_forget_cache(const char *dir)
{
    if (ig_store_is_remote(dir)) return; /* cached ranges are of one object version each */
    struct ig_manifest m;
    if (ig_manifest_read(dir, &m, NULL)) return;
    for (uint32_t i = 0; i < m.n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, m.parts[i].name);
        int fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0) continue;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
        if (!m.parts[i].blob[0]) continue;
        snprintf(path, sizeof path, "%s/%s", dir, m.parts[i].blob);
        if ((fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0)) < 0) continue;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
    ig_manifest_free(&m);
}
