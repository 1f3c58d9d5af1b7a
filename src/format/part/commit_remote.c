/* commit_remote.c - new table versions on object storage (commit.h, remote.h).
 *
 * An object cannot be appended to, so a commit builds the new columns' pages
 * and footers in a local copy of each part (a sparse file of the object's
 * size: the graft writes only past the end and reads nothing back), and
 * then each grafted part object is replaced by one that holds those bytes
 * after its own. The replacement is an erasure's (remote_erase.c): a
 * journal of writes, applied object by object with the store's copy of the
 * unchanged ranges, every older version of the object removed; but this
 * journal is never an object of the table. What makes a crash safe is the
 * record (commitlog.h), written as the object .ingot/commit before the first
 * object changes: until MANIFEST names the new version, the parts' new bytes
 * past their recorded sizes are no one's, and whoever next writes zeroes them;
 * once it names it, nothing is left to do but remove the record (the
 * superseded footers were unbounded in the same replacement: below), though a
 * writer settling it after a crash zeroes them as on a directory. */
#include "blob/blob.h"
#include "format/layout.h"
#include "format/part/commit.h"
#include "format/part/commit_int.h"
#include "format/part/commitlog.h"
#include "format/part/release.h"
#include "format/part/remote.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/error.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_PIECE ((size_t)8 << 20)

/* The writes of journal j (its file in stage, committed there) made to the
 * table's objects, lock l held; `made` told the bytes of the new objects as
 * they are made (NULL: not told); what crossed the network added to sum
 * (NULL: not counted). */
static int patch_objects(const char *dir, const char *stage, struct ig_journal *j,
                         struct ig_remote_lock *l, struct ig_fault *f, ig_journal_progress_fn made,
                         void *made_ctx, struct ig_commit_traffic *sum, struct ig_error *err)
{
    int rc = ig_journal_commit(j, stage, NULL, err);
    char path[4300];
    snprintf(path, sizeof path, "%s/.ingot/journal", stage);
    struct ig_remote_report rep = {0};
    if (!rc) rc = ig_remote_journal_apply(dir, path, l, f, made, made_ctx, &rep, err);
    if (sum) {
        sum->objects_replaced += rep.objects_replaced;
        sum->bytes_uploaded += rep.bytes_uploaded;
        sum->bytes_copied += rep.bytes_copied;
    }
    ig_remote_report_free(&rep);
    unlink(path);
    return rc;
}

/* ---- settling what a crash left ------------------------------------------ */

struct settle {
    const char *dir;
    struct ig_store *st;
    struct ig_remote_lock *l;
    struct ig_journal j;
    bool any;
};

static int settle_zero_footer(void *ctx, const char *name, uint64_t from, uint64_t to,
                              struct ig_error *err)
{
    struct settle *s = ctx;
    s->any = true;
    return ig_journal_zero(&s->j, name, from, to - from) ? ig_err(err, -ENOMEM, "out of memory")
                                                        : 0;
}

/* A part object whose change is rolled back had its footer unbounded in the
 * replacement that appended the new bytes (unbound_old_footer, below): the
 * new footer at the object's end holds the same bounds for the same chunks
 * (a graft keeps the part's records first), copied back here and the old
 * footer sealed again, journaled with the zeros past the recorded size. */
static int rebound_footer(struct settle *s, const struct ig_commitlog_part *rp,
                          struct ig_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", s->dir, rp->name);
    struct ig_part old, now;
    int rc = ig_part_open_at(&old, path, rp->footer_end, false, err);
    if (rc) return rc;
    rc = ig_part_open_at(&now, path, 0, false, err);
    if (rc) {
        ig_part_close(&old);
        return rc;
    }
    uint8_t *img = NULL;
    if (now.num_groups != old.num_groups || now.num_leaves < old.num_leaves ||
        ig_chunk_record_size(&now) != ig_chunk_record_size(&old))
        rc = ig_err(err, -EIO, "%s: the footer at its end is not its old one grafted", path);
    else if (!(img = malloc(old.footer_size ? old.footer_size : 1)))
        rc = ig_err(err, -ENOMEM, "out of memory");
    if (!rc) {
        memcpy(img, old.footer, old.footer_size);
        for (uint32_t g = 0; g < old.num_groups; g++)
            for (uint32_t l = 0; l < old.num_leaves; l++)
                memcpy(ig_chunk_record(&old, img, g, l) + IG_CHK_STATS_FLAGS,
                       ig_chunk_record(&now, now.footer, g, l) + IG_CHK_STATS_FLAGS,
                       IG_CHK_MAX + 8 - IG_CHK_STATS_FLAGS);
        if (ig_release_journal(&s->j, &old, img)) rc = ig_err(err, -ENOMEM, "out of memory");
    }
    free(img);
    ig_part_close(&now);
    ig_part_close(&old);
    return rc;
}

static int settle_cut_back(void *ctx, const struct ig_commitlog_part *rp, struct ig_error *err)
{
    struct settle *s = ctx;
    if (!rp->size) return ig_remote_remove(s->dir, rp->name, err); /* a blob object the commit made */
    struct ig_obj_info info;
    int rc = ig_store_stat(s->st, rp->name, &info, err);
    if (rc == -ENOENT) return 0;
    if (rc || info.size <= rp->size) return rc;
    s->any = true;
    if (!rp->blob && (rc = rebound_footer(s, rp, err))) return rc;
    return ig_journal_zero(&s->j, rp->name, rp->size, info.size - rp->size)
               ? ig_err(err, -ENOMEM, "out of memory")
               : 0;
}

static int settle_done(void *ctx, struct ig_error *err)
{
    struct settle *s = ctx;
    if (!s->any) return 0;
    char stage[4096];
    int rc = ig_remote_stage_dir(stage, sizeof stage, err);
    if (!rc) rc = patch_objects(s->dir, stage, &s->j, s->l, NULL, NULL, NULL, NULL, err);
    if (stage[0]) ig_remove_tree(stage);
    return rc;
}

static int settle_remove_record(void *ctx, struct ig_error *err)
{
    struct settle *s = ctx;
    return ig_remote_remove(s->dir, IG_COMMIT_FILE, err);
}

static int settle_record(const char *dir, struct ig_remote_lock *l, struct ig_error *err)
{
    static const struct ig_commitlog_ops ops = {settle_zero_footer, settle_cut_back, settle_done,
                                                settle_remove_record};
    struct settle s = {.dir = dir, .l = l};
    int rc = ig_store_at(dir, &s.st, err);
    if (rc) return rc;
    ig_journal_init(&s.j);
    rc = ig_commitlog_settle(dir, &ops, &s, err);
    ig_journal_free(&s.j);
    return rc ? ig_err_prefix(err, rc, "%s: settling an interrupted change of columns", dir) : 0;
}

int ig_commit_settle_remote(const char *dir, struct ig_remote_lock *l, bool *replayed,
                            struct ig_error *err)
{
    int rc = ig_remote_recover_locked(dir, l, replayed, err);
    return rc ? rc : settle_record(dir, l, err);
}

int ig_remote_settle(const char *dir, unsigned wait_ms, bool *replayed, struct ig_error *err)
{
    *replayed = false;
    struct ig_store *st;
    struct ig_obj_info info;
    if (!ig_remote_journal_pending(dir) &&
        (ig_store_at(dir, &st, NULL) || ig_store_stat(st, IG_COMMIT_FILE, &info, NULL)))
        return 0;
    struct ig_remote_lock l;
    int rc = ig_remote_lock(dir, wait_ms, &l, err);
    if (rc == -EBUSY) return 0; /* its writer is at work: it finishes it */
    if (rc) return rc;
    rc = ig_commit_settle_remote(dir, &l, replayed, err);
    ig_remote_unlock(&l);
    return rc;
}

/* ---- a commit ------------------------------------------------------------ */

int commit_remote_begin(struct ig_commit *c, struct ig_error *err)
{
    int rc = ig_remote_lock(c->dir, UINT32_MAX, &c->rlock, err);
    bool replayed;
    if (!rc) rc = ig_commit_settle_remote(c->dir, &c->rlock, &replayed, err);
    if (!rc) rc = ig_remote_stage_dir(c->stage, sizeof c->stage, err);
    return rc;
}

int commit_remote_size(struct ig_commit *c, const char *name, uint64_t *size, struct ig_error *err)
{
    struct ig_store *st;
    struct ig_obj_info info;
    *size = 0;
    int rc = ig_store_at(c->dir, &st, err);
    if (!rc) rc = ig_store_stat(st, name, &info, err);
    if (!rc) *size = info.size;
    return rc == -ENOENT ? 0 : rc;
}

/* A sparse file of `size` bytes at path, its first `head_len` bytes head. */
static int sparse_copy(const char *path, uint64_t size, const void *head, size_t head_len,
                       struct ig_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    int rc = head_len ? ig_pwrite_full(fd, head, head_len, 0) : 0;
    if (!rc && ftruncate(fd, (off_t)size)) rc = -errno;
    close(fd);
    return rc ? ig_err(err, rc, "%s: %s", path, strerror(-rc)) : 0;
}

int commit_remote_stage(struct ig_commit *c, uint32_t part, bool blobs, char *into, size_t cap,
                        struct ig_error *err)
{
    const struct ig_commit_part *cp = &c->parts[part];
    snprintf(into, cap, "%s/%s", c->stage, c->table.manifest.parts[part].name);
    int rc = sparse_copy(into, cp->size, NULL, 0, err);
    if (rc || !blobs || !cp->blob_size) return rc; /* a new blob file: the writer makes it */
    /* the blob writer appends after the objects there, checking the header */
    struct ig_store *st;
    struct ig_obj *o = NULL;
    uint8_t head[IG_BLOB_HEADER] = {0};
    rc = ig_store_at(c->dir, &st, err);
    if (!rc) rc = ig_obj_open(st, cp->blob, NULL, &o, err);
    if (!rc && ig_obj_size(o) >= sizeof head) rc = ig_obj_read(o, head, sizeof head, 0, err);
    if (o) ig_obj_close(o);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->stage, cp->blob);
    return rc ? rc : sparse_copy(path, cp->blob_size, head, sizeof head, err);
}

/* Part i's footer, superseded once the commit is published, is read where it
 * is by the version before until then: it stays in the object with its
 * bounds (the only values a footer holds) cleared and its hashes and tail
 * taken again, written in the same replacement as the new bytes rather than
 * zeroed by a second one after the commit (which would copy the object once
 * more). A reader of the version before sees a valid footer, unbounded. */
static int unbound_old_footer(struct ig_commit *c, struct ig_journal *j, uint32_t i,
                              struct ig_error *err)
{
    const struct ig_part *p = &c->table.parts[i];
    if (p->version < IG_FORMAT_VERSIONED || p->footer_offset + p->footer_size + IG_TAIL_SIZE != p->tail_end)
        return ig_err(err, -EIO, "%s: format %u part: its footer cannot be sealed again", p->path,
                      p->version);
    uint8_t *img = malloc(p->footer_size ? p->footer_size : 1);
    if (!img) return ig_err(err, -ENOMEM, "out of memory");
    memcpy(img, p->footer, p->footer_size);
    static const struct ig_minmax unbounded = {0};
    for (uint32_t g = 0; g < p->num_groups; g++)
        for (uint32_t l = 0; l < p->num_leaves; l++)
            ig_chunk_minmax_put(ig_chunk_record(p, img, g, l), &unbounded);
    int rc = ig_release_journal(j, p, img);
    free(img);
    return rc ? ig_err(err, rc, "%s: the journal: %s", c->stage, strerror(-rc)) : 0;
}

/* Bytes [from, to) of the local copy `name` journaled as writes to its object. */
static int journal_range(struct ig_commit *c, struct ig_journal *j, const char *name, uint64_t from,
                         uint64_t to, struct ig_error *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->stage, name);
    int fd = ig_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ig_err(err, -errno, "%s: %s", path, strerror(errno));
    uint8_t *buf = malloc(COPY_PIECE);
    int rc = buf ? 0 : ig_err(err, -ENOMEM, "out of memory");
    for (uint64_t at = from; at < to && !rc;) {
        size_t n = to - at < COPY_PIECE ? (size_t)(to - at) : COPY_PIECE;
        rc = ig_pread_full(fd, buf, n, at);
        if (rc) rc = ig_err(err, rc, "%s: read: %s", path, strerror(-rc));
        if (!rc && (rc = ig_journal_add(j, name, at, buf, n)))
            rc = ig_err(err, rc, "%s: the journal: %s", c->stage, strerror(-rc));
        at += n;
    }
    free(buf);
    close(fd);
    return rc;
}

/* The grafted parts' new bytes (and their blob files') into the objects,
 * their old footers unbounded: a blob file the part had none of uploaded
 * whole, the rest journaled and patched into the objects. */
static int send_new_bytes(struct ig_commit *c, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(c->dir, &st, err);
    struct ig_journal j;
    ig_journal_init(&j);
    if (!rc) rc = ig_journal_stream(&j, c->stage, err);
    for (uint32_t i = 0; i < c->table.nparts && !rc; i++) {
        const struct ig_commit_part *cp = &c->parts[i];
        if (!cp->grafted) continue;
        rc = unbound_old_footer(c, &j, i, err);
        if (!rc)
            rc = journal_range(c, &j, c->table.manifest.parts[i].name, cp->size,
                               c->next.parts[i].footer_end, err);
        char blob[4200];
        struct stat sb;
        snprintf(blob, sizeof blob, "%s/%s", c->stage, cp->blob);
        if (rc || stat(blob, &sb) || (uint64_t)sb.st_size <= cp->blob_size) continue;
        if (cp->blob_size)
            rc = journal_range(c, &j, cp->blob, cp->blob_size, (uint64_t)sb.st_size, err);
        else if (!(rc = ig_store_write_file(st, cp->blob, blob, NULL, NULL, NULL, NULL, err)))
            c->traffic.bytes_uploaded += (uint64_t)sb.st_size;
        ig_fault_step(&c->fault);
    }
    if (!rc)
        rc = patch_objects(c->dir, c->stage, &j, &c->rlock, &c->fault, c->replace_progress,
                           c->replace_progress_ctx, &c->traffic, err);
    ig_journal_free(&j);
    return rc;
}

int commit_remote_finish(struct ig_commit *c, struct ig_error *err)
{
    bool grafted = c->journaled; /* the record is written when a part was */
    int rc = grafted ? send_new_bytes(c, err) : 0;
    if (!rc) rc = ig_version_save(c->dir, &c->next, err);
    if (rc) return rc;
    ig_fault_step(&c->fault);
    rc = ig_remote_manifest_publish(c->dir, &c->next, c->table.manifest.etag, false, err);
    if (rc) return rc;
    c->committed = true; /* from here on the new version stands */
    ig_fault_step(&c->fault);
    if (!grafted) return 0;
    rc = ig_remote_remove(c->dir, IG_COMMIT_FILE, err);
    if (!rc) c->journaled = false;
    return rc;
}

void commit_remote_end(struct ig_commit *c)
{
    if (c->journaled && c->rlock.held) {
        /* roll back (or, committed, finish) as a later writer would */
        struct ig_error e = {0};
        (void)settle_record(c->dir, &c->rlock, &e);
    }
    c->journaled = false;
    if (c->rlock.held) ig_remote_unlock(&c->rlock);
    if (c->stage[0]) ig_remove_tree(c->stage);
    c->stage[0] = '\0';
}
