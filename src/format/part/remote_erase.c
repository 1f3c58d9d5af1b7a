/* remote_erase.c - erasing on object storage (remote.h): the journal
 * committed as an object, each part object it names replaced by one with the
 * records applied (unchanged ranges copied by the store), older object
 * versions removed, MANIFEST's generation raised; and a crashed erasure
 * finished by whoever next takes the lock. */
#include "format/part/journal.h"
#include "format/part/remote.h"
#include "format/part/remote_int.h"
#include "format/part/versions.h"
#include "store/ranges.h"
#include "store/s3.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ig_remote_journal_commit(const char *dir, const char *journal_path, struct ig_fault *f,
                             struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (!rc) rc = ig_store_write_file(st, JOURNAL_NAME, journal_path, NULL, NULL, NULL, NULL, err);
    ig_fault_step(f);
    return rc;
}

/* A journal's records, grouped by the file they change, in journal order. */
struct frec {
    bool zero;
    uint64_t off, len, data_at;
};

struct ffile {
    char name[256];
    struct frec *r;
    size_t n, cap;
    uint64_t end; /* the furthest byte written */
};

struct fileset {
    struct ffile *f;
    size_t n, cap;
};

static int collect(void *ctx, const struct ig_journal_rec *r)
{
    struct fileset *fs = ctx;
    struct ffile *f = NULL;
    for (size_t i = 0; i < fs->n && !f; i++)
        if (!strcmp(fs->f[i].name, r->file)) f = &fs->f[i];
    if (!f) {
        struct ffile *g = ig_array_room(fs->f, fs->n, &fs->cap, sizeof *g, 4);
        if (!g) return -ENOMEM;
        fs->f = g;
        f = &fs->f[fs->n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", r->file);
    }
    struct frec *g = ig_array_room(f->r, f->n, &f->cap, sizeof *g, 64);
    if (!g) return -ENOMEM;
    f->r = g;
    f->r[f->n++] = (struct frec){r->zero, r->off, r->len, r->data_at};
    if (r->off + r->len > f->end) f->end = r->off + r->len;
    return 0;
}

static void fileset_free(struct fileset *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        free(fs->f[i].r);
    free(fs->f);
}

/* The records of f that fall in [at, at + n) applied to buf (which holds
 * those bytes), in journal order: the last write of a byte wins. */
static int patch(int jfd, const struct ffile *f, uint8_t *buf, uint64_t at, uint64_t n)
{
    for (size_t i = 0; i < f->n; i++) {
        const struct frec *r = &f->r[i];
        uint64_t lo = r->off > at ? r->off : at,
                 hi = r->off + r->len < at + n ? r->off + r->len : at + n;
        if (lo >= hi) continue;
        if (r->zero)
            memset(buf + (lo - at), 0, (size_t)(hi - lo));
        else if (ig_pread_full(jfd, buf + (lo - at), (size_t)(hi - lo), r->data_at + (lo - r->off)))
            return -EIO;
    }
    return 0;
}

/* Bytes [at, at + n) of the old object (size old_size: zeros past it), in
 * parallel pieces, only while it is the object of ETag etag. */
static int read_old(struct ig_s3 *s3, const char *bucket, const char *key, const char *etag,
                    uint64_t old_size, uint8_t *buf, uint64_t at, uint64_t n, struct ig_error *err)
{
    uint64_t have = at >= old_size ? 0 : (at + n <= old_size ? n : old_size - at);
    memset(buf + have, 0, (size_t)(n - have));
    if (!have) return 0;
    struct ig_range whole = {at, have}, pieces[16];
    size_t np =
        ig_ranges_split(&whole, 1, have / 8 > 4 * MIB ? (have + 15) / 16 : 4 * MIB, pieces, 16);
    struct ig_s3_range r[16];
    for (size_t i = 0; i < np; i++)
        r[i] = (struct ig_s3_range){pieces[i].off, pieces[i].len, buf + (pieces[i].off - at)};
    return ig_s3_get_ranges(s3, bucket, key, etag, r, np, err);
}

/* What the threads replacing a journal's objects share (several objects at
 * once: each is one multipart upload or PUT, mostly the store's work): the
 * lock, renewed by one at a time under its own mutex (a renewal is a HEAD and
 * a PUT: under mu, the work queue's, every other thread would wait on them to
 * take its next object or step), the fault steps, and the bytes of the new
 * objects made so far, which the calling thread tells (`moved` wakes it). */
struct shared {
    struct ig_remote_lock *l;
    struct ig_fault *fault;
    pthread_mutex_t mu;       /* the work queue, the reports, the fault steps, and the rest */
    pthread_mutex_t renew_mu; /* l */
    pthread_cond_t moved;     /* made grew, a HEAD came back, or a worker left (broadcast) */
    uint64_t made;            /* bytes of new objects uploaded or copied by the store */
    uint64_t total;           /* bytes the new objects will hold, summed as HEADs come back */
    size_t heads_left;        /* HEADs taken ahead not yet back (the total is known at 0) */
    bool await_start;         /* workers wait for the caller to tell 0 of the total */
    unsigned running;         /* workers not yet left */
};

static int renew(struct shared *sh, struct ig_error *err)
{
    pthread_mutex_lock(&sh->renew_mu);
    int rc = ig_remote_lock_renew(sh->l, err);
    pthread_mutex_unlock(&sh->renew_mu);
    return rc;
}

/* n more bytes of a new object are in the store. */
static void made_bytes(struct shared *sh, uint64_t n)
{
    pthread_mutex_lock(&sh->mu);
    sh->made += n;
    pthread_cond_broadcast(&sh->moved);
    pthread_mutex_unlock(&sh->mu);
}

static void step(struct shared *sh)
{
    pthread_mutex_lock(&sh->mu);
    ig_fault_step(sh->fault);
    pthread_mutex_unlock(&sh->mu);
}

/* The parts of one multipart upload, sent by up to INGOT_S3_PART_PARALLEL (4)
 * threads, each taking the next part: a copied part is the store's work,
 * answered only when done, so one object's copies overlap instead of waiting
 * one behind the other. The failure of the first part (in plan order) that
 * failed is the one told; after a failure no part is started. */
struct part_jobs {
    struct ig_s3 *s3;
    const char *bucket, *key, *upload;
    const struct ig_s3_info *cur;
    const struct ffile *f;
    int jfd;
    struct shared *sh;
    const struct ig_part_plan *plan;
    size_t np;
    char (*etags)[IG_ETAG_MAX];
    pthread_mutex_t mu; /* next, failed_at, err, rc, the byte counts */
    size_t next, failed_at;
    uint64_t uploaded, copied;
    struct ig_error err;
    int rc;
};

static int send_part(struct part_jobs *j, size_t i, struct ig_error *err)
{
    const struct ig_part_plan *pp = &j->plan[i];
    int rc = renew(j->sh, err);
    if (rc) return rc;
    if (!pp->upload)
        return ig_s3_mpu_copy(j->s3, j->bucket, j->key, j->upload, (unsigned)i + 1, j->key, j->cur->version_id,
                              j->cur->etag, pp->off, pp->len, j->etags[i], err);
    uint8_t *buf = malloc((size_t)pp->len);
    if (!buf) return ig_err(err, -ENOMEM, "out of memory");
    rc = read_old(j->s3, j->bucket, j->key, j->cur->etag, j->cur->size, buf, pp->off, pp->len, err);
    if (!rc && patch(j->jfd, j->f, buf, pp->off, pp->len)) rc = ig_err(err, -EIO, "the journal is unreadable");
    if (!rc)
        rc = ig_s3_mpu_put(j->s3, j->bucket, j->key, j->upload, (unsigned)i + 1, buf, (size_t)pp->len, j->etags[i],
                           err);
    free(buf);
    return rc;
}

static void *part_worker(void *arg)
{
    struct part_jobs *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t i = j->rc ? j->np : j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->np) return NULL;
        struct ig_error e = {0};
        int rc = send_part(j, i, &e);
        step(j->sh); /* a kill here leaves an incomplete upload (the replay aborts it) */
        if (!rc) made_bytes(j->sh, j->plan[i].len);
        pthread_mutex_lock(&j->mu);
        if (!rc) {
            if (j->plan[i].upload)
                j->uploaded += j->plan[i].len;
            else
                j->copied += j->plan[i].len;
        } else if (i < j->failed_at) {
            j->failed_at = i;
            j->err = e;
            j->rc = rc;
        }
        pthread_mutex_unlock(&j->mu);
    }
}

static int send_parts(struct part_jobs *j, struct ig_remote_report *rep, struct ig_error *err)
{
    j->failed_at = SIZE_MAX;
    pthread_mutex_init(&j->mu, NULL);
    size_t want = (size_t)ig_remote_env_u64("INGOT_S3_PART_PARALLEL", 4), started = 0;
    if (want > j->np) want = j->np;
    if (want > 16) want = 16;
    pthread_t t[16];
    for (size_t k = 1; k < want; k++) /* this thread is one of them */
        if (pthread_create(&t[started], NULL, part_worker, j) == 0) started++;
    part_worker(j);
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    pthread_mutex_destroy(&j->mu);
    rep->bytes_uploaded += j->uploaded;
    rep->bytes_copied += j->copied;
    if (j->rc) *err = j->err;
    return j->rc;
}

/* The key of f's object. */
static int object_key(struct ig_store *st, const struct ffile *f, char key[IG_S3_KEY_LEN_MAX],
                      struct ig_error *err)
{
    const char *bucket, *prefix;
    (void)ig_store_s3(st, &bucket, &prefix);
    if ((size_t)snprintf(key, IG_S3_KEY_LEN_MAX, "%s%s", prefix, f->name) >= IG_S3_KEY_LEN_MAX)
        return ig_err(err, -ENAMETOOLONG, "%s/%s: name too long", ig_store_location(st), f->name);
    return 0;
}

/* The size of f's object once its records are applied. */
static uint64_t new_size(const struct ffile *f, const struct ig_s3_info *cur)
{
    return cur->size > f->end ? cur->size : f->end;
}

/* Replace object f->name by its bytes with f's records applied: one PUT when
 * small, else a multipart upload of the changed ranges with the rest copied
 * server-side (ranges.h plans the parts); then every older version of it is
 * removed. head: the object's HEAD when taken already, else NULL. */
static int replace_object(struct ig_store *st, const struct ffile *f, const struct ig_s3_info *head,
                          int jfd, struct shared *sh, struct ig_remote_report *rep, struct ig_error *err)
{
    const char *bucket, *prefix;
    struct ig_s3 *s3 = ig_store_s3(st, &bucket, &prefix);
    char key[IG_S3_KEY_LEN_MAX];
    int rc = object_key(st, f, key, err);
    if (rc) return rc;
    struct ig_s3_info cur;
    if (head)
        cur = *head;
    else if ((rc = ig_s3_head(s3, bucket, key, &cur, err)))
        return rc;
    uint64_t size = new_size(f, &cur);
    uint64_t min_part = ig_remote_env_u64("INGOT_S3_MIN_PART_MB", 5) * MIB;
    uint64_t whole = ig_remote_env_u64("INGOT_S3_PATCH_WHOLE_MB", 16) * MIB;
    struct ig_s3_info now;
    if (size <= whole || size < 2 * min_part) {
        uint8_t *buf = malloc(size ? (size_t)size : 1);
        rc = buf ? read_old(s3, bucket, key, cur.etag, cur.size, buf, 0, size, err)
                 : ig_err(err, -ENOMEM, "out of memory");
        if (!rc && patch(jfd, f, buf, 0, size)) rc = ig_err(err, -EIO, "the journal is unreadable");
        struct ig_s3_cond c = {cur.etag, false};
        if (!rc) rc = ig_s3_put(s3, bucket, key, buf, (size_t)size, &c, &now, err);
        if (!rc) rep->bytes_uploaded += size;
        if (!rc) made_bytes(sh, size);
        free(buf);
    } else {
        struct ig_range *dirty = malloc(f->n * sizeof *dirty);
        if (!dirty) return ig_err(err, -ENOMEM, "out of memory");
        for (size_t i = 0; i < f->n; i++)
            dirty[i] = (struct ig_range){f->r[i].off, f->r[i].len};
        size_t nd = ig_ranges_coalesce(dirty, f->n, 0);
        size_t cap = 10000;
        /* copied parts of at most INGOT_S3_COPY_PART_MB (128): each a
         * bounded piece of the store's work, retried alone, and several in
         * flight at once; uploaded ones of at most 16 MiB, so the four in
         * flight hold no more memory than one 64 MiB part did */
        uint64_t copy_part = ig_remote_env_u64("INGOT_S3_COPY_PART_MB", 128) * MIB, upload_part = 16 * MIB;
        if (copy_part < 2 * min_part) copy_part = 2 * min_part; /* ranges.h: the plan's rule */
        if (upload_part < 2 * min_part) upload_part = 2 * min_part;
        struct ig_part_plan *plan = malloc(cap * sizeof *plan);
        size_t np = plan ? ig_ranges_plan_parts(size, cur.size, dirty, nd, min_part, copy_part,
                                                upload_part, plan, cap)
                         : SIZE_MAX;
        free(dirty);
        char upload[1024];
        char(*etags)[IG_ETAG_MAX] = np != SIZE_MAX ? calloc(np, IG_ETAG_MAX) : NULL;
        if (!etags)
            rc = ig_err(err, np == SIZE_MAX ? -EFBIG : -ENOMEM, "%s/%s: %s", ig_store_location(st),
                        f->name,
                        np == SIZE_MAX ? "too many changed ranges for one multipart upload"
                                       : "out of memory");
        if (!rc) rc = ig_s3_mpu_start(s3, bucket, key, upload, sizeof upload, err);
        bool started = !rc;
        if (!rc) {
            struct part_jobs j = {.s3 = s3, .bucket = bucket, .key = key, .upload = upload, .cur = &cur,
                                  .f = f, .jfd = jfd, .sh = sh, .plan = plan, .np = np, .etags = etags};
            rc = send_parts(&j, rep, err);
        }
        if (!rc) rc = ig_s3_mpu_complete(s3, bucket, key, upload, etags, (unsigned)np, &now, err);
        if (rc && started) ig_s3_mpu_abort(s3, bucket, key, upload);
        free(etags);
        free(plan);
    }
    if (rc) return ig_err_prefix(err, rc, "%s: replacing %s", ig_store_location(st), f->name);
    rep->objects_replaced++;
    step(sh);
    /* the object now holds no erased value; older versions of it still do */
    rc = ig_remote_remove_versions(st, f->name, now.version_id[0] ? now.version_id : "", &rep->removed,
                         &rep->versions_removed, err);
    step(sh);
    return rc;
}

/* MANIFEST's generation raised to at least g (journal.c's raise_generation,
 * published under If-Match: the writers' lock is held, so a failed condition
 * means the lock was lost). */
static int raise_generation(const char *dir, uint64_t g, struct ig_error *err)
{
    struct ig_manifest m;
    int rc = ig_manifest_read(dir, &m, err);
    if (rc) return rc;
    bool made;
    rc = ig_version_of_erase(dir, &m, g, &made, err);
    if (!rc && made) rc = ig_remote_manifest_publish(dir, &m, m.etag, false, err);
    ig_manifest_free(&m);
    return rc;
}

/* The objects of a journal replaced by up to INGOT_S3_ERASE_PARALLEL (4)
 * threads, each taking the next object: an erase touching several parts
 * waits for the slowest, not for their sum. Reports are summed; the failure
 * of the first object (in journal order) that failed is the one told. The
 * calling thread waits for them, telling `made` the bytes of the new objects
 * as they grow (a callback is only ever called by its caller's thread). */
struct apply {
    struct ig_store *st;
    const struct fileset *fs;
    struct ig_s3_info *heads; /* each object's HEAD, when taken ahead (else NULL) */
    int jfd;
    struct shared sh;
    struct ig_remote_report *rep;
    struct ig_buf *removed; /* each object's removed versions, told in journal order */
    size_t next_head, next, failed_at;
    struct ig_error err;
    int rc;
};

/* Object i failed (under sh.mu): the first in journal order is told. */
static void failed(struct apply *a, size_t i, int rc, const struct ig_error *e)
{
    if (i < a->failed_at) {
        a->failed_at = i;
        a->err = *e;
        a->rc = rc;
    }
}

/* For a caller told the progress, every object's HEAD first (each worker
 * taking the next, so that they overlap), to know the bytes the new objects
 * will hold before any is made; a worker goes on once all are back and the
 * caller has told 0 of them (so the line always starts from nothing). */
static void head_objects(struct apply *a)
{
    const char *bucket, *prefix;
    struct ig_s3 *s3 = ig_store_s3(a->st, &bucket, &prefix);
    for (;;) {
        pthread_mutex_lock(&a->sh.mu);
        size_t i = a->rc ? a->fs->n : a->next_head;
        if (i < a->fs->n) a->next_head++;
        pthread_mutex_unlock(&a->sh.mu);
        if (i >= a->fs->n) break;
        const struct ffile *f = &a->fs->f[i];
        char key[IG_S3_KEY_LEN_MAX];
        struct ig_error e = {0};
        int rc = object_key(a->st, f, key, &e);
        if (!rc) rc = ig_s3_head(s3, bucket, key, &a->heads[i], &e);
        if (rc) rc = ig_err_prefix(&e, rc, "%s: replacing %s", ig_store_location(a->st), f->name);
        pthread_mutex_lock(&a->sh.mu);
        if (rc)
            failed(a, i, rc, &e);
        else
            a->sh.total += new_size(f, &a->heads[i]);
        a->sh.heads_left--;
        pthread_cond_broadcast(&a->sh.moved);
        pthread_mutex_unlock(&a->sh.mu);
    }
    pthread_mutex_lock(&a->sh.mu);
    while ((a->sh.heads_left || a->sh.await_start) && !a->rc)
        pthread_cond_wait(&a->sh.moved, &a->sh.mu);
    pthread_mutex_unlock(&a->sh.mu);
}

static void apply_objects(struct apply *a)
{
    for (;;) {
        pthread_mutex_lock(&a->sh.mu);
        size_t i = a->rc ? a->fs->n : a->next++; /* after a failure, nothing more is started */
        pthread_mutex_unlock(&a->sh.mu);
        if (i >= a->fs->n) return;
        struct ig_remote_report r = {0};
        struct ig_error e = {0};
        int rc = replace_object(a->st, &a->fs->f[i], a->heads ? &a->heads[i] : NULL, a->jfd, &a->sh, &r, &e);
        pthread_mutex_lock(&a->sh.mu);
        a->rep->objects_replaced += r.objects_replaced;
        a->rep->bytes_uploaded += r.bytes_uploaded;
        a->rep->bytes_copied += r.bytes_copied;
        a->rep->versions_removed += r.versions_removed;
        a->removed[i] = r.removed; /* taken over */
        r.removed = (struct ig_buf)IG_BUF_INIT;
        if (rc) failed(a, i, rc, &e);
        pthread_mutex_unlock(&a->sh.mu);
        ig_remote_report_free(&r);
    }
}

static void work(struct apply *a)
{
    if (a->heads) head_objects(a);
    apply_objects(a);
}

static void *apply_worker(void *arg)
{
    struct apply *a = arg;
    work(a);
    pthread_mutex_lock(&a->sh.mu);
    a->sh.running--;
    pthread_cond_broadcast(&a->sh.moved);
    pthread_mutex_unlock(&a->sh.mu);
    return NULL;
}

/* The calling thread while the workers run: once every HEAD is back (the
 * total known), `made` told each time the bytes made moved, until the last
 * worker left. */
static void tell_made(struct shared *sh, ig_journal_progress_fn made, void *made_ctx)
{
    uint64_t told = UINT64_MAX;
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        if (made && !sh->heads_left && sh->made != told) {
            told = sh->made;
            uint64_t total = sh->total;
            pthread_mutex_unlock(&sh->mu);
            made(made_ctx, told, total);
            pthread_mutex_lock(&sh->mu);
            if (sh->await_start) { /* 0 told: the workers may make objects now */
                sh->await_start = false;
                pthread_cond_broadcast(&sh->moved);
            }
        } else if (!sh->running) {
            break;
        } else {
            pthread_cond_wait(&sh->moved, &sh->mu);
        }
    }
    pthread_mutex_unlock(&sh->mu);
}

static int replace_all(struct ig_store *st, const struct fileset *fs, int jfd, struct ig_remote_lock *l,
                       struct ig_fault *f, ig_journal_progress_fn made, void *made_ctx,
                       struct ig_remote_report *rep, struct ig_error *err)
{
    struct apply a = {.st = st, .fs = fs, .jfd = jfd, .sh = {.l = l, .fault = f}, .rep = rep,
                      .failed_at = SIZE_MAX, .removed = calloc(fs->n, sizeof *a.removed),
                      .heads = made ? calloc(fs->n, sizeof *a.heads) : NULL};
    if (!a.removed || (made && !a.heads)) {
        free(a.removed);
        free(a.heads);
        return ig_err(err, -ENOMEM, "out of memory");
    }
    a.sh.heads_left = made ? fs->n : 0;
    a.sh.await_start = made != NULL;
    pthread_mutex_init(&a.sh.mu, NULL);
    pthread_mutex_init(&a.sh.renew_mu, NULL);
    pthread_cond_init(&a.sh.moved, NULL);
    size_t want = (size_t)ig_remote_env_u64("INGOT_S3_ERASE_PARALLEL", 4), started = 0;
    if (want > fs->n) want = fs->n;
    if (want > 16) want = 16;
    pthread_t t[16];
    for (size_t k = 0; k < want; k++) {
        /* counted before it starts: a worker may be done and leave at once */
        pthread_mutex_lock(&a.sh.mu);
        a.sh.running++;
        pthread_mutex_unlock(&a.sh.mu);
        if (pthread_create(&t[started], NULL, apply_worker, &a) == 0) {
            started++;
            continue;
        }
        pthread_mutex_lock(&a.sh.mu);
        a.sh.running--;
        pthread_mutex_unlock(&a.sh.mu);
    }
    if (!started) { /* no thread to be had: this one, untold */
        a.sh.await_start = false;
        work(&a);
    }
    tell_made(&a.sh, made, made_ctx);
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    pthread_cond_destroy(&a.sh.moved);
    pthread_mutex_destroy(&a.sh.mu);
    pthread_mutex_destroy(&a.sh.renew_mu);
    for (size_t i = 0; i < fs->n; i++) {
        if (a.removed[i].len)
            (void)ig_buf_printf(&rep->removed, "%s%.*s", rep->removed.len ? " " : "", (int)a.removed[i].len,
                                (const char *)a.removed[i].data);
        ig_buf_free(&a.removed[i]);
    }
    free(a.removed);
    free(a.heads);
    if (a.rc) *err = a.err;
    return a.rc;
}

int ig_remote_journal_apply(const char *dir, const char *journal_path, struct ig_remote_lock *l,
                            struct ig_fault *f, ig_journal_progress_fn made, void *made_ctx,
                            struct ig_remote_report *rep, struct ig_error *err)
{
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    struct fileset fs = {0};
    uint64_t generation = 0;
    rc = ig_journal_walk(journal_path, collect, &fs, &generation, err);
    if (rc == -ENOMEM) rc = ig_err(err, rc, "out of memory");
    int jfd = rc ? -1 : ig_open(journal_path, O_RDONLY | O_CLOEXEC, 0);
    if (!rc && jfd < 0) rc = ig_err(err, -errno, "%s: %s", journal_path, strerror(errno));
    for (size_t i = 0; !rc && i < fs.n; i++) /* only a table's part and blob files are ever named */
        if (strncmp(fs.f[i].name, "part-", 5))
            rc = ig_err(err, -EIO, "%s: the journal names %s, not a part file", dir, fs.f[i].name);
    if (!rc && fs.n) rc = replace_all(st, &fs, jfd, l, f, made, made_ctx, rep, err);
    if (jfd >= 0) close(jfd);
    fileset_free(&fs);
    if (!rc && generation) {
        rc = raise_generation(dir, generation, err);
        ig_fault_step(f);
    }
    if (!rc) {
        rc = ig_remote_remove_versions(st, JOURNAL_NAME, NULL, NULL, NULL, err);
        ig_fault_step(f);
    }
    return rc;
}

struct uploads {
    struct ig_s3 *s3;
    const char *bucket;
    bool dry_run;
    struct ig_remote_lock *l;
    struct ig_fault *f;
    uint64_t n;
    struct ig_error *err;
};

static int abort_upload(void *ctx, const char *key, const char *upload_id)
{
    struct uploads *u = ctx;
    u->n++;
    if (u->dry_run) return 0;
    int rc = ig_remote_lock_renew(u->l, u->err);
    if (!rc) ig_s3_mpu_abort(u->s3, u->bucket, key, upload_id);
    ig_fault_step(u->f);
    return rc;
}

int ig_remote_abort_uploads(const char *dir, bool dry_run, struct ig_remote_lock *l,
                            struct ig_fault *f, uint64_t *n, struct ig_error *err)
{
    if (n) *n = 0;
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    const char *prefix;
    struct uploads u = {.dry_run = dry_run, .l = l, .f = f, .err = err};
    u.s3 = ig_store_s3(st, &u.bucket, &prefix);
    if (u.s3) rc = ig_s3_mpu_list(u.s3, u.bucket, prefix, abort_upload, &u, err);
    if (n) *n = u.n;
    return rc;
}

int ig_remote_recover_locked(const char *dir, struct ig_remote_lock *l, bool *replayed,
                             struct ig_error *err)
{
    *replayed = false;
    if (!ig_remote_journal_pending(dir)) return 0;
    struct ig_store *st;
    int rc = ig_store_at(dir, &st, err);
    if (rc) return rc;
    char stage[4096], path[4300];
    rc = ig_remote_stage_dir(stage, sizeof stage, err);
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/.ingot/journal", stage);
    struct ig_obj *o = NULL;
    rc = ig_obj_open(st, JOURNAL_NAME, NULL, &o, err);
    if (rc == -ENOENT) { /* completed meanwhile */
        ig_remove_tree(stage);
        return 0;
    }
    /* the journal object copied down a piece at a time */
    int fd = rc ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (!rc && fd < 0) rc = ig_err(err, -errno, "%s: %s", path, strerror(errno));
    uint8_t *buf = rc ? NULL : malloc((size_t)(8 * MIB));
    if (!rc && !buf) rc = ig_err(err, -ENOMEM, "out of memory");
    for (uint64_t at = 0; !rc && at < ig_obj_size(o);) {
        uint64_t n = ig_obj_size(o) - at < 8 * MIB ? ig_obj_size(o) - at : 8 * MIB;
        rc = ig_obj_read(o, buf, (size_t)n, at, err);
        if (!rc && ig_write_full(fd, buf, (size_t)n))
            rc = ig_err(err, -EIO, "%s: write failed", path);
        at += n;
    }
    free(buf);
    if (fd >= 0) close(fd);
    ig_obj_close(o);
    struct ig_remote_report rep = {0};
    /* a killed erase's uploads go before its replay starts new ones */
    if (!rc) rc = ig_remote_abort_uploads(dir, false, l, NULL, NULL, err);
    if (!rc) rc = ig_remote_journal_apply(dir, path, l, NULL, NULL, NULL, &rep, err);
    ig_remote_report_free(&rep);
    ig_remove_tree(stage);
    if (rc) return ig_err_prefix(err, rc, "%s: completing an interrupted erase", dir);
    *replayed = true;
    return 0;
}
