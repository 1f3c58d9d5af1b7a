/* gc.c - ingot gc: versions let go, column records no version shows released
 * (gc.h). */
#include "format/ops/gc.h"
#include "blob/blob.h"
#include "format/model/types.h"
#include "format/ops/reader.h"
#include "format/part/columns.h"
#include "format/part/commitlog.h"
#include "format/part/journal.h"
#include "format/ops/gc_remote.h"
#include "format/part/tag.h"
#include "format/part/release.h"
#include "format/part/remote.h"
#include "format/part/table.h"
#include "format/part/versions.h"
#include "store/store.h"
#include "util/error.h"
#include "util/idset.h"
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

/* A released range whose space goes back once its zeros are durable: in part
 * `part`'s file, or its blob file. */
struct hole {
    uint32_t part;
    bool blob;
    uint64_t off, len;
};

struct gc {
    const char *dir;
    const struct ig_gc_request *req;
    struct ig_gc_report *rep;
    struct ig_table t;
    bool have_table;
    struct ig_journal j;
    struct ig_fault fault;
    struct ig_idset shown; /* the records some kept version shows */
    bool every;            /* one of them shows every record */
    struct hole *holes;
    size_t nholes, holes_cap;
    struct ig_reader r;
    struct ig_values v;
    uint8_t *top_seen; /* columns counted in the report already */
    bool remote;       /* on object storage (gc_remote.h) */
    char (*names)[IG_PART_NAME_MAX]; /* there: the part and blob objects kept versions name */
    struct ig_writer_hold *hold;     /* the writers' lock (NULL: a dry run) */
    size_t nnames;
};

static int push_u64(uint64_t **a, size_t *n, uint64_t v)
{
    uint64_t *p = realloc(*a, (*n + 1) * sizeof *p);
    if (!p) return -ENOMEM;
    p[(*n)++] = v;
    *a = p;
    return 0;
}

static int add_hole(struct gc *s, uint32_t part, bool blob, uint64_t off, uint64_t len)
{
    if (!len) return 0;
    if (s->nholes == s->holes_cap) {
        size_t cap = s->holes_cap ? s->holes_cap * 2 : 256;
        struct hole *h = realloc(s->holes, cap * sizeof *h);
        if (!h) return -ENOMEM;
        s->holes = h;
        s->holes_cap = cap;
    }
    s->holes[s->nholes++] = (struct hole){part, blob, off, len};
    return 0;
}

/* ---- which versions go --------------------------------------------------- */

/* When version v was made: its time, or (written before versions had times)
 * its file's, which is no older than the version. */
static int64_t version_time(const char *dir, uint64_t v, const struct ig_manifest *m)
{
    if (m->time) return m->time;
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/%010" PRIu64, dir, IG_VERSIONS_DIR, v);
    return stat(path, &st) == 0 ? (int64_t)st.st_mtime : 0;
}

/* On object storage: the objects version m names are kept. */
static int add_names(struct gc *s, const struct ig_manifest *m)
{
    if (!s->remote) return 0;
    char(*g)[IG_PART_NAME_MAX] = realloc(s->names, (s->nnames + 2 * (size_t)m->n + 1) * sizeof *g);
    if (!g) return -ENOMEM;
    s->names = g;
    for (uint32_t i = 0; i < m->n; i++) {
        memcpy(g[s->nnames++], m->parts[i].name, IG_PART_NAME_MAX);
        if (m->parts[i].blob[0]) memcpy(g[s->nnames++], m->parts[i].blob, IG_PART_NAME_MAX);
    }
    return 0;
}

static int add_shown(struct gc *s, const struct ig_manifest *m)
{
    if (!m->listed) {
        s->every = true;
        return 0;
    }
    for (size_t r = 0; r < m->columns.n; r++)
        if (ig_idset_add(&s->shown, m->columns.runs[r].first, m->columns.runs[r].count))
            return -ENOMEM;
    return 0;
}

/* Sort the versions into removed and kept (newest first, so a version's rank
 * is its place in that order), and gather what the kept ones show. */
static int decide(struct gc *s, struct ig_error *err)
{
    const char *dir = s->dir;
    struct ig_gc_report *rep = s->rep;
    const struct ig_gc_request *req = s->req;
    uint64_t *all = NULL;
    size_t n = 0;
    struct ig_tag *tags = NULL;
    size_t ntags = 0;
    rep->current = s->t.manifest.version;
    int rc = ig_versions_kept(dir, rep->current, &all, &n, err);
    if (!rc) rc = ig_tags_load(dir, &tags, &ntags, NULL, err);
    int64_t now = req->now ? req->now : (int64_t)time(NULL);
    for (size_t k = n; k-- > 0 && !rc;) {
        uint64_t v = all[k], rank = n - 1 - k;
        bool keep = v == rep->current;
        for (size_t i = 0; i < ntags && !keep; i++)
            keep = tags[i].version == v;
        struct ig_manifest m = {0};
        bool loaded = false;
        if (v != rep->current) {
            rc = ig_version_load(dir, v, &m, err);
            if (rc) break;
            loaded = true;
        }
        if (!keep) {
            bool by_rank = !req->keep_set || rank >= req->keep;
            bool by_age = !req->age_set || now - version_time(dir, v, &m) > req->older_than;
            keep = !(by_rank && by_age);
        }
        if (keep) {
            if (push_u64(&rep->kept, &rep->nkept, v) ||
                add_shown(s, v == rep->current ? &s->t.manifest : &m) ||
                add_names(s, v == rep->current ? &s->t.manifest : &m))
                rc = ig_err(err, -ENOMEM, "out of memory");
        } else if (push_u64(&rep->removed, &rep->nremoved, v)) {
            rc = ig_err(err, -ENOMEM, "out of memory");
        }
        if (loaded) ig_manifest_free(&m);
    }
    free(all);
    free(tags);
    /* gathered newest first: ascending for the report */
    for (size_t i = 0; i < rep->nkept / 2; i++) {
        uint64_t x = rep->kept[i];
        rep->kept[i] = rep->kept[rep->nkept - 1 - i];
        rep->kept[rep->nkept - 1 - i] = x;
    }
    for (size_t i = 0; i < rep->nremoved / 2; i++) {
        uint64_t x = rep->removed[i];
        rep->removed[i] = rep->removed[rep->nremoved - 1 - i];
        rep->removed[rep->nremoved - 1 - i] = x;
    }
    return rc;
}

static int remove_versions(struct gc *s, struct ig_error *err)
{
    for (size_t i = 0; i < s->rep->nremoved; i++) {
        int rc = ig_version_remove(s->dir, s->rep->removed[i], err);
        if (rc) return rc;
        ig_fault_step(&s->fault);
    }
    if (!s->rep->nremoved || s->remote) return 0;
    char vdir[4200];
    snprintf(vdir, sizeof vdir, "%s/%s", s->dir, IG_VERSIONS_DIR);
    int rc = ig_fsync_dir(vdir);
    if (rc) return ig_err(err, rc, "%s: fsync: %s", vdir, strerror(-rc));
    ig_fault_step(&s->fault);
    return 0;
}

/* ---- what is released ------------------------------------------------------ */

/* The objects that blob leaf c's pages of chunk (g, leaf) reference: zeroed
 * with the pages (nothing else references them: an object is written once,
 * for one value). */
static int release_objects(struct gc *s, const struct ig_part *p, uint32_t pi,
                           const struct ig_column_ref *c, uint32_t g, const char *blob_name,
                           struct ig_error *err)
{
    struct ig_grouprec gr;
    uint32_t first = 0, count = 0;
    int rc = ig_part_group(p, g, &gr, err);
    if (!rc) rc = ig_part_chunk(p, g, c->rec.leaf, &first, &count, err);
    for (uint32_t pg = first; !rc && pg < first + count; pg++) {
        struct ig_pagerec rec;
        const uint8_t *deleted;
        rc = ig_reader_load(&s->r, &(struct ig_page_at){p, c, pg, gr.first_row}, &rec, &s->v, &deleted, err);
        for (size_t i = 0; !rc && i < s->v.n; i++) {
            size_t len;
            const uint8_t *refs = ig_values_bytes(&s->v, i, &len);
            for (size_t k = 0; k < len / IG_BLOB_REF_BYTES && !rc; k++) {
                struct ig_blob_ref ref;
                ig_blob_ref_load(refs + k * IG_BLOB_REF_BYTES, &ref, NULL);
                if (!ref.size) continue;
                s->rep->blob_objects++;
                s->rep->blob_bytes += ref.size;
                if (!s->req->dry_run && ig_journal_zero(&s->j, blob_name, ref.offset, ref.size))
                    rc = ig_err(err, -ENOMEM, "out of memory");
                if (!rc && add_hole(s, pi, true, ref.offset, ref.size))
                    rc = ig_err(err, -ENOMEM, "out of memory");
            }
        }
    }
    return rc;
}

/* Leaf `leaf` of part pi, every chunk: its pages zero-filled (journaled) and
 * released in nf, the part's footer image. */
static int release_leaf(struct gc *s, uint32_t pi, uint32_t leaf, uint32_t col, uint8_t *nf,
                        struct ig_error *err)
{
    const struct ig_part *p = &s->t.parts[pi];
    struct ig_column_ref c;
    int rc = ig_table_column_at(&s->t, col, &c, err);
    if (rc) return rc;
    if (!s->top_seen[c.top]) { /* its every record goes: none is shown */
        s->top_seen[c.top] = 1;
        s->rep->columns++;
        s->rep->records += ig_part_column_span_end(p, c.top) - c.top;
    }
    char blob_name[IG_PART_NAME_MAX];
    snprintf(blob_name, sizeof blob_name, "%s", s->t.manifest.parts[pi].blob);
    bool blobs = c.rec.type == IG_T_BLOB && blob_name[0];
    for (uint32_t g = 0; !rc && g < p->num_groups; g++) {
        if (blobs) rc = release_objects(s, p, pi, &c, g, blob_name, err);
        uint32_t first = 0, count = 0;
        if (!rc) rc = ig_part_chunk(p, g, leaf, &first, &count, err);
        /* the chunk's context (its fsst table) was learnt from the values too */
        struct ig_ctxrec cr;
        if (!rc) rc = ig_part_chunk_ctx(p, g, leaf, &cr, err);
        if (!rc && cr.size && !s->req->dry_run && ig_journal_zero(&s->j, p->name, cr.offset, cr.size))
            rc = ig_err(err, -ENOMEM, "out of memory");
        if (!rc && add_hole(s, pi, false, cr.offset, cr.size)) rc = ig_err(err, -ENOMEM, "out of memory");
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            rc = ig_part_page(p, pg, &rec, err);
            if (!rc && !s->req->dry_run &&
                ig_journal_zero(&s->j, p->name, rec.offset, rec.capacity))
                rc = ig_err(err, -ENOMEM, "out of memory");
            if (!rc && add_hole(s, pi, false, rec.offset, rec.capacity))
                rc = ig_err(err, -ENOMEM, "out of memory");
        }
        if (!rc) rc = ig_release_chunk(p, nf, g, leaf, &s->rep->pages, &s->rep->page_bytes, err);
    }
    return rc;
}

/* The extents of a leaf released before: their space goes back again (an
 * erase since may have written a window's zeros over a hole). */
static int holes_of_released(struct gc *s, uint32_t pi, uint32_t leaf, struct ig_error *err)
{
    const struct ig_part *p = &s->t.parts[pi];
    int rc = 0;
    for (uint32_t g = 0; !rc && g < p->num_groups; g++) {
        uint32_t first = 0, count = 0;
        rc = ig_part_chunk(p, g, leaf, &first, &count, err);
        for (uint32_t pg = first; !rc && pg < first + count; pg++) {
            struct ig_pagerec rec;
            rc = ig_part_page(p, pg, &rec, err);
            if (!rc && ig_page_released(&rec) && add_hole(s, pi, false, rec.offset, rec.capacity))
                rc = ig_err(err, -ENOMEM, "out of memory");
        }
    }
    return rc;
}

/* Part pi: every leaf no kept version shows, released (journaled); the new
 * footer's changed bytes and tail journaled too. */
static int plan_part(struct gc *s, uint32_t pi, struct ig_error *err)
{
    const struct ig_part *p = &s->t.parts[pi];
    uint8_t *nf = NULL;
    bool counted_old = false;
    int rc = 0;
    for (uint32_t leaf = 0; leaf < p->num_leaves && !rc; leaf++) {
        uint32_t col;
        rc = ig_part_leaf_column(p, leaf, &col, err);
        if (rc || s->every || ig_idset_has(&s->shown, col)) continue;
        if (ig_part_leaf_released(p, leaf)) {
            rc = holes_of_released(s, pi, leaf, err);
            continue;
        }
        if (p->version < IG_FORMAT_VERSIONED) {
            s->rep->old_parts += !counted_old;
            counted_old = true;
            continue;
        }
        if (!nf) {
            nf = malloc(p->footer_size);
            if (!nf) return ig_err(err, -ENOMEM, "out of memory");
            memcpy(nf, p->footer, p->footer_size);
        }
        rc = release_leaf(s, pi, leaf, col, nf, err);
    }
    if (!rc && nf && !s->req->dry_run && ig_release_journal(&s->j, p, nf))
        rc = ig_err(err, -ENOMEM, "out of memory");
    free(nf);
    return rc;
}

/* ---- the space ----------------------------------------------------------- */

/* Bytes the part and blob files take on disk. */
static uint64_t disk_bytes(const struct gc *s)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < s->t.manifest.n; i++) {
        const char *names[2] = {s->t.manifest.parts[i].name, s->t.manifest.parts[i].blob};
        for (int k = 0; k < 2; k++) {
            char path[4300];
            struct stat st;
            if (!names[k][0]) continue;
            snprintf(path, sizeof path, "%s/%s", s->dir, names[k]);
            if (stat(path, &st) == 0) sum += (uint64_t)st.st_blocks * 512;
        }
    }
    return sum;
}

static int hole_cmp(const void *a, const void *b)
{
    const struct hole *x = a, *y = b;
    if (x->part != y->part) return x->part < y->part ? -1 : 1;
    if (x->blob != y->blob) return x->blob ? 1 : -1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The released ranges' space back to the file system: they hold zeros (the
 * journal is applied and durable), so a hole reads the same. Where the file
 * system cannot, the zeros stay: no error. */
static void punch_holes(struct gc *s)
{
    /* file by file, each opened once */
    qsort(s->holes, s->nholes, sizeof *s->holes, hole_cmp);
    int fd = -1;
    uint32_t fd_part = UINT32_MAX;
    bool fd_blob = false, unsupported = false;
    for (size_t i = 0; i < s->nholes; i++) {
        const struct hole *h = &s->holes[i];
        if (fd < 0 || h->part != fd_part || h->blob != fd_blob) {
            if (fd >= 0) close(fd);
            char path[4300];
            const struct ig_manifest_part *mp = &s->t.manifest.parts[h->part];
            snprintf(path, sizeof path, "%s/%s", s->dir, h->blob ? mp->blob : mp->name);
            fd = ig_open(path, O_WRONLY | O_CLOEXEC, 0);
            fd_part = h->part;
            fd_blob = h->blob;
            unsupported = false;
            if (fd < 0) continue;
        }
        if (unsupported) continue;
        if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)h->off,
                      (off_t)h->len) == 0)
            s->rep->holes = true;
        else if (errno == EOPNOTSUPP || errno == ENOSYS)
            unsupported = true;
    }
    if (fd >= 0) close(fd);
    ig_fault_step(&s->fault);
}

/* ---- gc ------------------------------------------------------------------- */

void ig_gc_report_free(struct ig_gc_report *rep)
{
    free(rep->removed);
    free(rep->kept);
    rep->removed = rep->kept = NULL;
    rep->nremoved = rep->nkept = 0;
}

/* On object storage the journal of released pages is an erasure's: written as
 * the object .ingot/journal (from then on it completes, now or when the next
 * writer finds it), then each part and blob object it names replaced by one
 * with the zeros in place and its older versions removed (remote.h). */
static int release_remote(struct gc *s, struct ig_error *err)
{
    char stage[4096] = "", path[4300];
    int rc = ig_remote_stage_dir(stage, sizeof stage, err);
    snprintf(path, sizeof path, "%s/.ingot/journal", stage);
    if (!rc) rc = ig_journal_commit(&s->j, stage, &s->fault, err);
    if (!rc) rc = ig_remote_journal_commit(s->dir, path, &s->fault, err);
    /* the old objects' cached ranges (the released values) go with the table */
    ig_table_close(&s->t);
    s->have_table = false;
    struct ig_remote_report rr = {0};
    if (!rc)
        rc = ig_remote_journal_apply(s->dir, path, &s->hold->rl, &s->fault, s->req->progress,
                                     s->req->progress_ctx, &rr, err);
    s->rep->objects_replaced = rr.objects_replaced;
    s->rep->bytes_uploaded = rr.bytes_uploaded;
    s->rep->bytes_copied = rr.bytes_copied;
    ig_remote_report_free(&rr);
    ig_remove_tree(stage);
    return rc;
}

static int run(struct gc *s, struct ig_error *err)
{
    const char *dir = s->dir;
    bool replayed;
    int rc = 0;
    if (!s->req->dry_run && !s->remote) { /* (object storage: the hold completed an erase) */
        rc = ig_journal_recover(dir, &replayed, err);
        if (!rc) rc = ig_commit_recover(dir, err);
        if (!rc && ig_fs_is_shared(dir)) ig_table_forget_cache(dir);
    }
    /* a dry run reads footers copied under the shared lock (it keeps none) */
    if (!rc)
        rc = s->req->dry_run && !s->remote ? ig_table_open_shared(&s->t, dir, err)
                             : ig_table_open(&s->t, dir, false, err);
    if (rc) return rc;
    s->have_table = true;
    s->rep->disk_before = s->rep->disk_after = s->remote ? 0 : disk_bytes(s);
    rc = decide(s, err);
    if (!rc && !s->req->dry_run) rc = remove_versions(s, err);
    if (rc) return rc;
    uint32_t nleaves = s->t.parts[0].num_leaves, ncols = s->t.parts[0].num_columns;
    s->top_seen = calloc(ncols ? ncols : 1, 1);
    if (!s->top_seen) return ig_err(err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < s->t.nparts && !rc; i++) {
        if (s->t.parts[i].num_leaves != nleaves)
            return ig_err(err, -EIO, "%s: parts disagree on their columns", s->t.parts[i].path);
        rc = plan_part(s, i, err);
    }
    if (!rc && s->remote) { /* the released pages, then objects deleted */
        if (!s->req->dry_run && (s->rep->pages || s->rep->blob_objects)) rc = release_remote(s, err);
        struct ig_gc_sweep sw = {0};
        if (!rc)
            rc = ig_gc_remote_sweep(dir, s->names, s->nnames, s->req->dry_run, s->hold, &s->fault,
                                    &sw, err);
        s->rep->objects = sw.objects;
        s->rep->object_versions = sw.versions;
        s->rep->object_bytes = sw.bytes;
        s->rep->uploads = sw.uploads;
        return rc;
    }
    if (rc || s->req->dry_run) return rc;
    if (s->rep->pages || s->rep->blob_objects) {
        rc = ig_journal_commit(&s->j, dir, &s->fault, err);
        if (!rc) rc = ig_journal_apply_progress(dir, &s->fault, s->req->progress, s->req->progress_ctx, err);
        if (rc) return rc;
    }
    if (s->nholes) punch_holes(s);
    s->rep->disk_after = disk_bytes(s);
    return 0;
}

int ig_gc(const char *dir, const struct ig_gc_request *req, struct ig_gc_report *rep,
          struct ig_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (!req->keep_set && !req->age_set)
        return ig_err(err, -EINVAL,
                      "%s: say which versions go (keep the newest N, let those older than a time "
                      "go, or both)",
                      dir);
    struct ig_writer_hold hold = {.fd = -1};
    int lock = req->dry_run ? 0 : ig_writer_hold(dir, &hold, err);
    if (lock == -ENOENT) return lock; /* no such table: said */
    if (lock == -EACCES || lock == -EPERM || lock == -EROFS)
        return ig_err_prefix(err, lock, "%s: gc changes the table and needs write access", dir);
    if (lock < 0) return lock; /* said (what a crash left, unsettled) */
    struct gc s = {.dir = dir, .req = req, .rep = rep, .remote = ig_store_is_remote(dir),
                .hold = req->dry_run ? NULL : &hold};
    ig_fault_init(&s.fault);
    ig_journal_init(&s.j);
    ig_values_init(&s.v, IG_T_BINARY);
    int rc = run(&s, err);
    ig_journal_free(&s.j);
    ig_values_free(&s.v);
    ig_reader_free(&s.r);
    ig_idset_free(&s.shown);
    free(s.holes);
    free(s.top_seen);
    free(s.names);
    if (s.have_table) ig_table_close(&s.t);
    if (!req->dry_run) ig_writer_release(&hold);
    if (rc) ig_gc_report_free(rep);
    return rc;
}
