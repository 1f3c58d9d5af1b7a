/* commit.c - new table versions, all or nothing (commit.h). */
#include "format/part/commit.h"
#include "format/part/commit_int.h"
#include "format/part/commitlog.h"
#include "format/part/lock.h"
#include "format/model/types.h"
#include "format/part/versions.h"
#include "util/buf.h"
#include "store/store.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ig_manifest_columns_explicit(struct ig_manifest *m, uint32_t num_columns)
{
    if (m->listed) return 0;
    ig_idset_free(&m->columns);
    if (num_columns && ig_idset_add(&m->columns, 0, num_columns)) return -ENOMEM;
    m->listed = true;
    return 0;
}

/* ---- a commit ------------------------------------------------------------ */

/* Part i's blob file: MANIFEST's, or "part-NNNNNN.blob" beside a part that has
 * none yet (new blob columns create it), and its size (0: none). */
static int blob_file_of(struct ig_commit *c, uint32_t i, struct ig_error *err)
{
    const struct ig_manifest_part *mp = &c->table.manifest.parts[i];
    struct ig_commit_part *cp = &c->parts[i];
    if (mp->blob[0]) {
        memcpy(cp->blob, mp->blob, sizeof cp->blob);
    } else if (!ig_blob_file_of_part(mp->name, cp->blob)) {
        return ig_err(err, -EIO, "%s: part '%s' is not named part-N.ingot", c->dir, mp->name);
    }
    if (c->remote) return commit_remote_size(c, cp->blob, &cp->blob_size, err);
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", c->dir, cp->blob);
    if (stat(path, &st) == 0)
        cp->blob_size = (uint64_t)st.st_size;
    else if (errno != ENOENT)
        return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    return 0;
}

/* The record of the commit (commitlog.h): every part, every blob file. */
static int write_record(struct ig_commit *c, struct ig_error *err)
{
    uint32_t n = c->table.nparts;
    struct ig_commitlog_part *rp = calloc(n ? 2 * (size_t)n : 1, sizeof *rp);
    if (!rp) return ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        memcpy(rp[i].name, c->table.manifest.parts[i].name, IG_PART_NAME_MAX);
        rp[i].size = c->parts[i].size;
        rp[i].footer_off = c->parts[i].footer_off;
        rp[i].footer_end = c->parts[i].footer_end;
        memcpy(rp[n + i].name, c->parts[i].blob, IG_PART_NAME_MAX);
        rp[n + i].size = c->parts[i].blob_size;
        rp[n + i].blob = true;
    }
    int rc = ig_commitlog_write(c->dir, c->next.version, rp, 2 * (size_t)n, err);
    free(rp);
    return rc;
}

int ig_commit_begin(struct ig_commit *c, const char *dir, const char *change, struct ig_error *err)
{
    memset(c, 0, sizeof *c);
    c->lock_fd = -1;
    ig_fault_init(&c->fault);
    if ((size_t)snprintf(c->dir, sizeof c->dir, "%s", dir) >= sizeof c->dir)
        return ig_err(err, -ENAMETOOLONG, "%s: path too long", dir);
    c->remote = ig_store_is_remote(dir);
    bool replayed;
    int rc;
    if (c->remote) {
        rc = commit_remote_begin(c, err);
    } else {
        c->lock_fd = ig_table_lock(dir, true, err);
        if (c->lock_fd == -ENOENT) return c->lock_fd; /* no such table: said */
        if (c->lock_fd < 0)
            return ig_err_prefix(err, c->lock_fd, "%s: changing the table needs write access", dir);
        rc = ig_journal_recover(dir, &replayed, err);
        if (!rc) rc = ig_commit_recover(dir, err);
    }
    if (!rc) rc = ig_table_open(&c->table, dir, false, err);
    if (rc) return rc;
    c->have_table = true;
    c->parts = calloc(c->table.nparts ? c->table.nparts : 1, sizeof *c->parts);
    if (!c->parts) return ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < c->table.nparts; i++) {
        const struct ig_part *p = &c->table.parts[i];
        uint64_t size = p->file_size; /* an object's: its size at open */
        struct stat st;
        if (!p->obj) {
            if (fstat(p->fd, &st)) return ig_err(err, -errno, "%s: %s", p->path, strerror(errno));
            size = (uint64_t)st.st_size;
        }
        c->parts[i] = (struct ig_commit_part){size, p->footer_offset, p->tail_end, false};
        rc = blob_file_of(c, i, err);
        if (rc) return rc;
    }
    /* a table written before versions: its first version gets its file now */
    struct ig_manifest *cur = &c->table.manifest;
    for (uint32_t i = 0; i < cur->n; i++)
        cur->parts[i].footer_end = ig_part_recorded_end(&c->table.parts[i]);
    struct ig_manifest probe;
    if (ig_version_load(dir, cur->version, &probe, NULL) == 0) {
        ig_manifest_free(&probe);
    } else {
        if (!cur->change[0]) snprintf(cur->change, sizeof cur->change, "%s", "import");
        rc = ig_version_save(dir, cur, err);
        if (rc) return rc;
    }
    rc = ig_manifest_copy(&c->next, cur) ? ig_err(err, -ENOMEM, "out of memory") : 0;
    if (rc) return rc;
    c->next.format = 2;
    c->next.version = cur->version + 1;
    c->next.generation = cur->generation + 1;
    c->next.time = (int64_t)time(NULL);
    snprintf(c->next.change, sizeof c->next.change, "%s", change);
    return 0;
}

int ig_commit_graft(struct ig_commit *c, uint32_t part, const struct ig_schema *add,
                    const struct ig_writer_opts *o, ig_graft_fill_fn fill, void *ctx,
                    struct ig_error *err)
{
    if (part >= c->table.nparts || c->parts[part].grafted)
        return ig_err(err, -EINVAL, "%s: part %u grafted twice or out of range", c->dir, part);
    if (!c->journaled && !c->remote) { /* on object storage, at the finish: nothing there changes before */
        int rc = write_record(c, err);
        if (rc) return rc;
        c->journaled = true;
        ig_fault_step(&c->fault);
    }
    bool blobs = false;
    for (uint32_t l = 0; l < add->nleaves; l++)
        blobs |= add->cols[add->leaves[l]].type == IG_T_BLOB;
    struct ig_writer_opts wo = *o;
    char blob_path[4200], into[4200];
    snprintf(blob_path, sizeof blob_path, "%s/%s", c->remote ? c->stage : c->dir,
             c->parts[part].blob);
    snprintf(into, sizeof into, "%s", c->table.parts[part].path);
    wo.blob_path = blobs ? blob_path : NULL;
    uint64_t end;
    c->parts[part].grafted = true; /* whatever happens, rolling back cuts it */
    int rc = c->remote ? commit_remote_stage(c, part, blobs, into, sizeof into, err) : 0;
    if (!rc) rc = ig_part_graft(&c->table.parts[part], into, add, &wo, fill, ctx, &end, err);
    if (rc) return rc;
    c->next.parts[part].footer_end = end;
    if (blobs) memcpy(c->next.parts[part].blob, c->parts[part].blob, IG_PART_NAME_MAX);
    ig_fault_step(&c->fault);
    return 0;
}

int ig_commit_finish(struct ig_commit *c, struct ig_error *err)
{
    if (c->remote) {
        /* a bucket's objects change only now: the record goes first */
        bool grafted = false;
        for (uint32_t i = 0; i < c->table.nparts; i++)
            grafted |= c->parts[i].grafted;
        if (grafted && !c->journaled) {
            int rc = write_record(c, err);
            if (rc) return rc;
            c->journaled = true;
            ig_fault_step(&c->fault);
        }
        return commit_remote_finish(c, err);
    }
    int rc = ig_version_save(c->dir, &c->next, err);
    if (rc) return rc;
    ig_fault_step(&c->fault);
    rc = ig_manifest_write(c->dir, &c->next, err);
    if (rc) return rc;
    c->committed = true; /* from here on the new version stands */
    ig_fault_step(&c->fault);
    for (uint32_t i = 0; i < c->table.nparts && !rc; i++)
        if (c->parts[i].grafted)
            rc = ig_commitlog_zero_footer(c->dir, c->table.manifest.parts[i].name,
                                          c->parts[i].footer_off, c->parts[i].footer_end, err);
    if (rc) return rc; /* the record stays: the next writer zeroes them */
    ig_fault_step(&c->fault);
    if (c->journaled) ig_commitlog_remove(c->dir);
    c->journaled = false;
    return 0;
}

void ig_commit_end(struct ig_commit *c)
{
    if (c->journaled && c->lock_fd >= 0) {
        /* roll back (or, committed, finish) as a later writer would */
        struct ig_error e = {0};
        (void)ig_commit_recover(c->dir, &e);
    }
    if (c->remote) commit_remote_end(c);
    if (c->have_table) ig_table_close(&c->table);
    ig_manifest_free(&c->next);
    free(c->parts);
    if (c->lock_fd >= 0) ig_table_unlock(c->lock_fd);
    c->lock_fd = -1;
    c->have_table = false;
    c->parts = NULL;
}
